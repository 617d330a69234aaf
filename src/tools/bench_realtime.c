// `psb bench --realtime`; see bench_realtime.h.
//
// Each model is built by `psb sim`'s own code from the arguments a user
// would type (`psb sim --mesh meshes/spot.obj --fill-holes --integrator
// implicit --threads 2`), so whatever `psb sim` does to a loaded mesh or a
// generated sphere (fit, repair, default material, drop height, sub-steps)
// the bench does too, and follows it when it changes. Holes are filled for
// every file: a closed mesh has none, so it is only the bunny's base (and an
// open --mesh file) that it changes.
//
// The implicit integrator takes one step of 1/60 s a frame. A frame's
// figure is the wall-clock time of its psb_world_step call; a run's is the
// total over its frames divided by the frames (the mean, not the median:
// the expensive frames around the landing count, as they do on screen).
#include "bench_realtime.h"

#include "shape_options.h"
#include "sim_options.h"
#include "sim_output.h"
#include "sim_world.h"
#include <psb/psb.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define FRAME_MS (1000.0 / 60.0) // a frame of real time, ms

enum { PATH_SIZE = 4096 };

typedef struct model {
    const char *name; ///< the row's name
    const char *file; ///< the OBJ file in the meshes folder, or NULL for an icosphere
    int level;        ///< icosphere level (radius 0.5 m, as `psb sim --subdiv N` builds it)
    bool quick;       ///< part of --quick
} model;

static const model models[] = {
    {"spot", "spot.obj", 0, true},
    {"rocker-arm", "rocker-arm.obj", 0, true},
    {"stanford-bunny", "stanford-bunny.obj", 0, false},
    {"icosphere-5", NULL, 5, true},
    {"icosphere-6", NULL, 6, true},
    {"icosphere-7", NULL, 7, false},
};
enum { MODEL_COUNT = (int)(sizeof models / sizeof models[0]) };

/// What one run of one model did: frames of one integrator on one thread count.
typedef struct run {
    int points;          ///< points of all bodies
    int substeps;        ///< sub-steps per frame
    int frames;          ///< frames run
    double ms;           ///< ms per frame: total / frames
    double ms_max;       ///< the slowest frame, ms
    long newton;         ///< Newton iterations, summed over the frames
    long iterations;     ///< CG iterations, summed over the frames
    double residual_max; ///< the largest residual of any frame, m/s
    int unconverged;     ///< frames in which the solver missed its tolerance
    int blowups;         ///< blow-ups detected and recovered from
} run;

/// The three runs of one row.
typedef struct row {
    run one;      ///< implicit, 1 thread
    run many;     ///< implicit, args->threads threads
    run explicit; ///< symplectic Euler, auto sub-steps, args->threads threads
} row;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

// The model's file: "DIR/FILE" for a model of the list, the --mesh file for
// the extra row. False if the path does not fit.
static bool model_path(const model *m, const psb_bench_realtime_args *args, char *out) {
    if (!m->file) {
        return args->mesh && snprintf(out, PATH_SIZE, "%s", args->mesh) < PATH_SIZE;
    }
    const size_t length = strlen(args->meshes);
    const char *slash = length > 0 && args->meshes[length - 1] == '/' ? "" : "/";
    const int n = snprintf(out, PATH_SIZE, "%s%s%s", args->meshes, slash, m->file);
    return n > 0 && n < PATH_SIZE;
}

// The `psb sim` arguments that build a model: argv points into the texts.
typedef struct sim_command {
    char path[PATH_SIZE], level[16], threads[16], tol[32], iterations[16], integrator[16];
    char *argv[16];
    int argc;
} sim_command;

// Appends one argument (the option names are literals; psb sim's parser
// takes char ** and leaves them as they are).
static void push(sim_command *c, char *arg) {
    c->argv[c->argc++] = arg;
    c->argv[c->argc] = NULL;
}

// Fills c with what a user would type for the model, e.g. `sim --mesh
// meshes/spot.obj --fill-holes --integrator implicit --threads 2`.
static void sim_command_for(sim_command *c, const model *m, const char *path,
                            const psb_bench_realtime_args *args, const char *integrator,
                            int threads) {
    static char sim_name[] = "sim", mesh_opt[] = "--mesh", fill_opt[] = "--fill-holes",
                subdiv_opt[] = "--subdiv", integrator_opt[] = "--integrator",
                threads_opt[] = "--threads", tol_opt[] = "--tol", iterations_opt[] = "--iterations";
    snprintf(c->path, sizeof c->path, "%s", path);
    snprintf(c->level, sizeof c->level, "%d", m->level);
    snprintf(c->threads, sizeof c->threads, "%d", threads);
    snprintf(c->tol, sizeof c->tol, "%.17g", args->tol);
    snprintf(c->iterations, sizeof c->iterations, "%d", args->iterations);
    snprintf(c->integrator, sizeof c->integrator, "%s", integrator);
    c->argc = 0;
    push(c, sim_name);
    if (m->level > 0) {
        push(c, subdiv_opt);
        push(c, c->level);
    } else {
        push(c, mesh_opt);
        push(c, c->path);
        push(c, fill_opt);
    }
    push(c, integrator_opt);
    push(c, c->integrator);
    push(c, threads_opt);
    push(c, c->threads);
    if (args->tol_given) {
        push(c, tol_opt);
        push(c, c->tol);
    }
    if (args->iterations_given) {
        push(c, iterations_opt);
        push(c, c->iterations);
    }
}

// Runs `frames` frames of the model with the integrator (a `psb sim
// --integrator` name) on `threads` threads. False after a line on stderr.
static bool run_model(const model *m, const char *path, const psb_bench_realtime_args *args,
                      const char *integrator, int threads, int frames, run *out) {
    // Parsed by psb sim's own parser; sim keeps pointers into command.
    sim_command command;
    sim_command_for(&command, m, path, args, integrator, threads);
    psb_shape_options shape = psb_default_shape_options();
    psb_sim_options sim = psb_sim_default_options();
    char what[512];
    int status = 0;
    psb_world *world = NULL;
    if (psb_sim_options_read(command.argc, command.argv, &shape, &sim)) {
        world = psb_sim_world_create(&shape, &sim, what, sizeof what, &status);
    }
    if (!world) {
        fprintf(stderr, "psb bench: %s: cannot build its world (%s, %d thread%s); see above\n",
                m->name, integrator, threads, threads == 1 ? "" : "s");
        return false;
    }
    *out = (run){.frames = frames, .substeps = psb_world_params(world)->substeps};
    double total = 0.0;
    for (int k = 0; k < frames; k++) {
        const double start = now_ms();
        psb_world_step(world);
        const double ms = now_ms() - start;
        total += ms;
        out->ms_max = fmax(out->ms_max, ms);
        const psb_solver_report report = psb_world_solver_report(world);
        out->newton += report.newton;
        out->iterations += report.iterations;
        out->residual_max = fmax(out->residual_max, report.residual);
        out->unconverged += !report.converged;
    }
    out->ms = total / frames;
    const psb_sim_state state = psb_sim_measure(world);
    out->points = state.points;
    out->blowups = state.blowups;
    psb_world_destroy(world);
    return true;
}

static void print_preamble(const psb_bench_realtime_args *args) {
    // What the solver gets: the options given, or `psb sim`'s defaults.
    const psb_params defaults = psb_sim_default_options().params;
    const double tol = args->tol_given ? args->tol : defaults.solver_tol;
    const int iterations = args->iterations_given ? args->iterations : defaults.solver_iterations;
    const int explicit_frames =
        args->frames < PSB_REALTIME_EXPLICIT_FRAMES ? args->frames : PSB_REALTIME_EXPLICIT_FRAMES;
    printf("realtime: each model built and dropped as `psb sim --mesh FILE --fill-holes` or "
           "`psb sim --subdiv N` does it\n"
           "implicit: one step of 1/60 s a frame, %d frames, tol %g m/s, at most %d CG "
           "iterations a step; ms = physics time per frame, total / frames\n"
           "explicit: symplectic, auto sub-steps, the first %d frames, %d threads; "
           "ratio = explicit ms / implicit ms on %d threads\n",
           args->frames, tol, iterations, explicit_frames, args->threads, args->threads);
    char many[16], factor[16];
    snprintf(many, sizeof many, "ms %dt", args->threads);
    snprintf(factor, sizeof factor, "RT %dt", args->threads);
    printf("%-16s %7s %8s %8s %7s %7s %10s %6s %7s %8s %5s %7s\n", "model", "points", "ms 1t", many,
           "newton", "CG", "resid m/s", "unconv", factor, "expl ms", "sub", "ratio");
}

static void print_row(const char *name, const psb_bench_realtime_args *args, const row *r) {
    const double frames = r->one.frames > 0 ? (double)r->one.frames : 1.0;
    const double newton = (double)r->one.newton / frames;
    const double iterations = (double)r->one.iterations / frames;
    const double factor = r->many.ms > 0.0 ? FRAME_MS / r->many.ms : INFINITY;
    const double ratio = r->many.ms > 0.0 ? r->explicit.ms / r->many.ms : INFINITY;
    if (args->format == 1) {
        printf("model=%s points=%d frames=%d threads=%d ms_1t=%.3f ms_%dt=%.3f ms_%dt_max=%.3f "
               "newton=%.3f iterations=%.3f residual_max=%.3e unconverged=%d realtime=%.3f "
               "explicit_ms=%.3f explicit_substeps=%d explicit_frames=%d explicit_ratio=%.3f "
               "blowups=%d\n",
               name, r->one.points, r->one.frames, args->threads, r->one.ms, args->threads,
               r->many.ms, args->threads, r->many.ms_max, newton, iterations, r->one.residual_max,
               r->one.unconverged, factor, r->explicit.ms, r->explicit.substeps, r->explicit.frames,
               ratio, r->one.blowups + r->many.blowups + r->explicit.blowups);
        return;
    }
    printf("%-16s %7d %8.2f %8.2f %7.2f %7.1f %10.2e %6d %7.2f %8.2f %5d %7.2f\n", name,
           r->one.points, r->one.ms, r->many.ms, newton, iterations, r->one.residual_max,
           r->one.unconverged, factor, r->explicit.ms, r->explicit.substeps, ratio);
}

// The models to run, into chosen[] (a copy, so that the --mesh row can be
// added); their count, or -1 after a line on stderr.
static int choose_models(const psb_bench_realtime_args *args, model chosen[MODEL_COUNT + 1]) {
    int count = 0;
    bool found = false;
    for (int i = 0; i < MODEL_COUNT; i++) {
        const bool wanted = args->model ? strcmp(args->model, models[i].name) == 0
                                        : !args->quick || models[i].quick;
        if (wanted) {
            chosen[count++] = models[i];
            found = true;
        }
    }
    const bool mesh_wanted = args->model ? strcmp(args->model, "mesh") == 0 : args->mesh != NULL;
    if (mesh_wanted && !args->mesh) {
        fprintf(stderr, "psb bench: --scene mesh: expected an OBJ file with --mesh FILE\n");
        return -1;
    }
    if (mesh_wanted) {
        // A row named after the file, without its folders.
        const char *slash = strrchr(args->mesh, '/');
        chosen[count++] = (model){slash ? slash + 1 : args->mesh, NULL, 0, true};
        found = true;
    }
    if (args->model && !found) {
        fprintf(stderr,
                "psb bench: --scene: with --realtime expected one of spot, rocker-arm, "
                "stanford-bunny, icosphere-5, icosphere-6, icosphere-7 or mesh (with --mesh), "
                "got '%s'\n",
                args->model);
        return -1;
    }
    return count;
}

// Every file is there before anything runs (the whole run takes minutes).
// False after a line on stderr.
static bool check_files(const model *chosen, int count, const psb_bench_realtime_args *args) {
    for (int i = 0; i < count; i++) {
        if (chosen[i].level > 0) {
            continue;
        }
        char path[PATH_SIZE];
        const bool from_folder = chosen[i].file != NULL;
        if (!model_path(&chosen[i], args, path)) {
            fprintf(stderr, "psb bench: %s: the path is too long\n",
                    from_folder ? "--meshes" : "--mesh");
            return false;
        }
        // A folder opens on some systems and fails only when read.
        FILE *file = fopen(path, "rb");
        const bool readable = file && !(getc(file) == EOF && ferror(file));
        if (!readable) {
            const char *reason = strerror(errno);
            if (file) {
                fclose(file);
            }
            if (from_folder) {
                fprintf(stderr,
                        "psb bench: --realtime: cannot read '%s': %s (the models come with psb, "
                        "in the meshes/ folder of its checkout: run from there, or give the "
                        "folder with --meshes DIR)\n",
                        path, reason);
            } else {
                fprintf(stderr, "psb bench: --mesh: cannot read '%s': %s\n", path, reason);
            }
            return false;
        }
        fclose(file);
    }
    return true;
}

int psb_bench_realtime(const psb_bench_realtime_args *args) {
    model chosen[MODEL_COUNT + 1];
    const int count = choose_models(args, chosen);
    if (count < 0 || !check_files(chosen, count, args)) {
        return 2;
    }
    if (args->format == 0) {
        print_preamble(args);
        fflush(stdout);
    }
    const int explicit_frames =
        args->frames < PSB_REALTIME_EXPLICIT_FRAMES ? args->frames : PSB_REALTIME_EXPLICIT_FRAMES;
    bool blew_up = false;
    for (int i = 0; i < count; i++) {
        const model *m = &chosen[i];
        char path[PATH_SIZE] = "";
        if (m->level == 0) {
            model_path(m, args, path);
        }
        row r;
        if (!run_model(m, path, args, "implicit", 1, args->frames, &r.one) ||
            !run_model(m, path, args, "implicit", args->threads, args->frames, &r.many) ||
            !run_model(m, path, args, "symplectic", args->threads, explicit_frames, &r.explicit)) {
            return 1;
        }
        // The step gives the same bits on any thread count, so the same work.
        if (r.one.newton != r.many.newton || r.one.iterations != r.many.iterations) {
            fprintf(stderr,
                    "psb bench: %s: note: 1 and %d threads took different solver iterations "
                    "(Newton %ld and %ld, CG %ld and %ld); they should give the same bits\n",
                    m->name, args->threads, r.one.newton, r.many.newton, r.one.iterations,
                    r.many.iterations);
        }
        const int blowups = r.one.blowups + r.many.blowups + r.explicit.blowups;
        if (blowups > 0) {
            fprintf(stderr, "psb bench: %s: %d blow-up%s detected and recovered from\n", m->name,
                    blowups, blowups == 1 ? "" : "s");
            blew_up = true;
        }
        print_row(m->name, args, &r);
        fflush(stdout);
    }
    return blew_up ? PSB_EXIT_BLOWUPS : 0;
}
