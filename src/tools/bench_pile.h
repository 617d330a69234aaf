// `psb bench --scene pile` and `--scene pile-50`: the cost of contact
// between bodies. The pile scene as `psb view` and `psb sim --scene pile`
// build it (a dozen balls, or fifty, and a dozen rings, dropped into a box),
// run for --frames frames of 1/60 s from the start, a warm-up and then
// --repeats timed repeats: ms of physics per frame, the real-time factor,
// and the share of the step that finding and resolving contacts take.
// With --mesh, an OBJ file's closed parts are dropped onto the pile at the
// start (the bunny on the pile: --mesh meshes/stanford-bunny.obj).
#ifndef PSB_BENCH_PILE_H
#define PSB_BENCH_PILE_H

#include <stdbool.h>

/// Frames each repeat runs unless --frames says otherwise (2 s: the pile
/// has landed and is settling), and with --quick.
enum { PSB_PILE_FRAMES = 120, PSB_PILE_QUICK_FRAMES = 20 };

/// What the pile mode takes from `psb bench`'s options.
typedef struct psb_bench_pile_args {
    const char *name;   ///< "pile" or "pile-50": the row's name
    int balls;          ///< the scene's balls (psb_scene_config.pile_balls)
    const char *mesh;   ///< an OBJ file dropped onto the pile (NULL: none), loaded as
                        ///< `psb sim --scene pile --mesh FILE --fill-holes` loads it
    int frames;         ///< frames of 1/60 s per repeat
    int repeats;        ///< timed repeats after the warm-up
    int threads;        ///< threads for the step
    bool contact_solve; ///< bodies that may touch solved together (psb_params.contact_solve)
    bool self_contact;  ///< the scene's bodies touch themselves (psb_params.self_contact)
    int format;         ///< 0 table, 1 key=value lines
} psb_bench_pile_args;

/// Runs the scene and prints its row on stdout, after the header (format
/// 0) once the scene has been built; returns the exit status
/// (1 when the scene cannot be built; PSB_EXIT_BLOWUPS when a body blew
/// up, after the row).
int psb_bench_pile(const psb_bench_pile_args *args);

#endif
