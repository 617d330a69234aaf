// `psb bench --realtime`: does the implicit integrator run real meshes in
// real time? One row per model: ms of physics per 1/60 s frame on 1 and on
// N threads, the solver's work, the real-time factor, and the explicit
// path's ms per frame for the ratio. Each model's world is the one `psb sim`
// builds (sim_world.h), so the bench follows its material and drop.
#ifndef PSB_BENCH_REALTIME_H
#define PSB_BENCH_REALTIME_H

#include <stdbool.h>

/// Frames each model runs with the implicit integrator, on each thread
/// count, unless --frames says otherwise.
enum { PSB_REALTIME_FRAMES = 120 };

/// The explicit path is timed over the first min(frames, this) frames.
enum { PSB_REALTIME_EXPLICIT_FRAMES = 5 };

/// What the realtime mode takes from `psb bench`'s options.
typedef struct psb_bench_realtime_args {
    const char *meshes;    ///< folder holding spot.obj, rocker-arm.obj and stanford-bunny.obj
    const char *mesh;      ///< an OBJ file to add as one more row, or NULL
    const char *model;     ///< the one model to run (--scene), or NULL for all
    int frames;            ///< frames of 1/60 s per model and thread count
    int threads;           ///< the second thread count (>= 2); the first is always 1
    bool tol_given;        ///< pass tol to the solver (else `psb sim`'s default)
    double tol;            ///< implicit: the solver's tolerance, m/s
    bool iterations_given; ///< pass iterations to the solver (else `psb sim`'s default)
    int iterations;        ///< implicit: the most CG iterations per step
    bool quick;            ///< leave out the two largest models (stanford-bunny, icosphere-7)
    int format;            ///< 0 table, 1 key=value lines
} psb_bench_realtime_args;

/// Runs the mode and prints its rows on stdout; returns the exit status
/// (2 after one line on stderr for a bad --scene or an unreadable model
/// file, checked before anything runs; 1 when a world cannot be built;
/// PSB_EXIT_BLOWUPS when a model blew up, after all the rows).
int psb_bench_realtime(const psb_bench_realtime_args *args);

#endif
