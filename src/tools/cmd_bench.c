// `psb bench`: how fast the step is, on fixed scenes, with the physics drift
// alongside so that a speed-up that breaks the physics shows.
//
// A "vertex-step" is one point advanced by one integration sub-step. Each
// scene runs one warm-up and then several timed repeats from the same start;
// the figures are the median, fastest and slowest repeat (wall clock, so
// that threads count). A world step (one psb_world_step call) is one 60 Hz
// frame's sub-steps at the bench's sub-step, as a viewer steps it, unless
// --substeps says otherwise: the blow-up check and the copy into the
// public arrays run once per world step, so they are timed as often as a
// viewer pays for them.
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_pile.h"
#include "bench_realtime.h"
#include "bench_textbook.h"
#include "commands.h"
#include "options.h"
#include "sim_options.h"
#include "sim_output.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>
#include <psb/psb_obj.h>
#include <psb/psb_scene.h>

enum { MAX_REPEATS = 64 };

#define FRAME_S (1.0 / 60.0) // a world step, unless --substeps says otherwise

// The implicit integrator's repeats are this many times fewer vertex-steps:
// each of its sub-steps solves a linear system.
#define IMPLICIT_FEWER 100.0

typedef struct bench_args {
    const char *scene;     ///< one scene name, or NULL for all
    const char *mesh;      ///< an OBJ file to add as a scene, or NULL
    int threads;           ///< threads for the step
    int steps;             ///< sub-steps per repeat; 0 = sized to the mesh
    int substeps;          ///< sub-steps per world step; 0 = one 60 Hz frame's
    int repeats;           ///< timed repeats; 0 = 5 (3 with --quick)
    double damping;        ///< the springs' damping, N·s/m
    int integrator;        ///< a psb_integrator
    double tol;            ///< implicit: the solver's tolerance, m/s
    int iterations;        ///< implicit: the most CG iterations per sub-step
    bool quick;            ///< the smaller scenes, fewer steps
    bool reference;        ///< also time the textbook implementation
    int format;            ///< 0 table, 1 kv
    bool realtime;         ///< the realtime mode (bench_realtime.h) instead of the scenes
    int frames;            ///< realtime: frames per model and thread count
    const char *meshes;    ///< realtime: the folder of the models' OBJ files
    bool no_contact_solve; ///< pile, pile-50: the contact stage alone
    bool no_self_contact;  ///< pile, pile-50: no contact of a body with itself
} bench_args;

static const char *format_name(int index) {
    static const char *const names[] = {"table", "kv"};
    return index >= 0 && index < 2 ? names[index] : NULL;
}

#define FIELD(f) offsetof(bench_args, f)
static const psb_option bench_table[] = {
    {.name = "scene",
     .type = PSB_OPT_STRING,
     .offset = FIELD(scene),
     .meta = "NAME",
     .help = "one scene: icosphere-3 .. icosphere-7, ring-10k, or mesh (with --mesh), or the "
             "pile of bodies in contact: pile or pile-50 (see above); with --realtime one "
             "model: spot, rocker-arm, stanford-bunny, icosphere-5 .. icosphere-7, or mesh",
     .default_text = "all"},
    {.name = "mesh",
     .type = PSB_OPT_STRING,
     .offset = FIELD(mesh),
     .meta = "FILE",
     .help = "also time an OBJ file's first part (holes filled, scaled to a 0.5 m radius, "
             "first settled to its gas-spring balance); with --realtime one more row, the file "
             "as `psb sim --mesh FILE --fill-holes` drops it; with --scene pile or pile-50, "
             "the file dropped onto the pile (row pile+NAME)",
     .default_text = "none"},
    {.name = "threads",
     .param = "threads",
     .offset = FIELD(threads),
     .meta = "N",
     .help = "threads that share each body's step (bodies of 4096 points and up; pile, "
             "pile-50: also the small bodies' steps side by side and the contacts' search); "
             "with --realtime the second thread count, 2 or more (1 thread is always timed too)",
     .default_text = "1; with --realtime 2"},
    {.name = "no-contact-solve",
     .type = PSB_OPT_FLAG,
     .offset = FIELD(no_contact_solve),
     .help = "pile, pile-50: bodies that may touch are not solved together, as `psb sim "
             "--no-contact-solve`: the contact stage alone holds them apart"},
    {.name = "no-self-contact",
     .type = PSB_OPT_FLAG,
     .offset = FIELD(no_self_contact),
     .help = "pile, pile-50: no body touches itself, as `psb sim --scene pile "
             "--no-self-contact` (the scene's balls and rings do by default)"},
    {.name = "steps",
     .type = PSB_OPT_INT,
     .offset = FIELD(steps),
     .meta = "N",
     .help = "sub-steps per timed repeat, rounded up to whole world steps",
     .min = 1,
     .max = 1e9,
     .default_text = "about 3e7 vertex-steps (3e6 with --quick; implicit, bdf2: 100 times fewer)"},
    {.name = "substeps",
     .param = "substeps",
     .offset = FIELD(substeps),
     .meta = "N",
     .help = "sub-steps per world step (the blow-up check and the public copy run once per "
             "world step)",
     .default_text = "one 60 Hz frame's, at most the repeat's sub-steps"},
    {.name = "repeats",
     .type = PSB_OPT_INT,
     .offset = FIELD(repeats),
     .meta = "N",
     .help = "timed repeats per scene, after one warm-up",
     .min = 1,
     .max = MAX_REPEATS,
     .default_text = "5 (3 with --quick); pile, pile-50: 3 (1)"},
    {.name = "damping",
     .param = "kd",
     .offset = FIELD(damping),
     .meta = "KD",
     .help = "the springs' damping (energy drift then includes what damping takes)",
     .default_text = "0: undamped, so the energy drift is the integrator's"},
    {.name = "integrator",
     .param = "integrator",
     .offset = FIELD(integrator),
     .help = "time integrator (--reference: symplectic only, the textbook's; implicit and "
             "bdf2: sub-steps of 1/60 s, one a world step unless --substeps says)"},
    {.name = "tol", .param = "tol", .offset = FIELD(tol), .meta = "X"},
    {.name = "iterations", .param = "iterations", .offset = FIELD(iterations), .meta = "N"},
    {.name = "quick",
     .type = PSB_OPT_FLAG,
     .offset = FIELD(quick),
     .help = "a small, fast run (smaller scenes, fewer steps): a smoke test; with --realtime "
             "without stanford-bunny and icosphere-7"},
    {.name = "reference",
     .type = PSB_OPT_FLAG,
     .offset = FIELD(reference),
     .help = "also time a plain textbook implementation on each 3D scene"},
    {.name = "format",
     .type = PSB_OPT_CHOICE,
     .offset = FIELD(format),
     .meta = "table|kv",
     .help = "a readable table, or one line of key=value pairs per scene",
     .choice = format_name,
     .choice_count = 2},
    {.name = "realtime",
     .type = PSB_OPT_FLAG,
     .offset = FIELD(realtime),
     .help = "instead of the scenes: can the implicit integrator run real meshes in real time? "
             "(see above)"},
    {.name = "frames",
     .type = PSB_OPT_INT,
     .offset = FIELD(frames),
     .meta = "N",
     .help = "realtime: frames of 1/60 s per model and thread count (the explicit path: the "
             "first 5 at most); pile, pile-50: frames per repeat (default 120, 20 with --quick)",
     .min = 1,
     .max = 100000},
    {.name = "meshes",
     .type = PSB_OPT_STRING,
     .offset = FIELD(meshes),
     .meta = "DIR",
     .help = "realtime: the folder holding spot.obj, rocker-arm.obj and stanford-bunny.obj "
             "(the psb checkout's meshes/)"},
};
#undef FIELD

enum { BENCH_OPTION_COUNT = (int)(sizeof bench_table / sizeof bench_table[0]) };

typedef struct scene {
    const char *name;
    int level; ///< icosphere level, -1 for the ring, -2 for the OBJ file
    int ring_points;
    bool quick; ///< part of --quick
} scene;

static const scene scenes[] = {
    {"icosphere-3", 3, 0, true},  {"icosphere-4", 4, 0, true},  {"icosphere-5", 5, 0, false},
    {"icosphere-6", 6, 0, false}, {"icosphere-7", 7, 0, false}, {"ring-10k", -1, 10000, true},
    {"mesh", -2, 0, true},
};
enum { SCENE_COUNT = (int)(sizeof scenes / sizeof scenes[0]) };

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The median of the sorted values v[0 .. count - 1].
static double median(const double *v, int count) {
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

typedef struct result {
    int vertices;
    long steps;
    long substeps;               ///< sub-steps per world step
    int threads;                 ///< threads the body's step used
    const char *isa;             ///< the kernels' instruction set
    double median, min, max;     ///< ns per vertex-step
    psb_profile profile;         ///< summed over the timed repeats
    double volume_drift;         ///< V_end / V_start - 1 over one repeat
    double energy_drift;         ///< (E_end - E_start) / (sum of |energy terms| at the start)
    double textbook;             ///< ns per vertex-step of the textbook version, or 0
    psb_sim_solver_stats solver; ///< implicit: the solver's work over the last repeat
    int blowups;                 ///< blow-ups over all the repeats (0 when all is well)
} result;

// The first part of an OBJ file, holes filled, centred and scaled to a 0.5 m
// bounding sphere like the icospheres.
static psb_status load_mesh(const char *path, psb_mesh *out, psb_error *err) {
    psb_repair_options options = psb_default_repair_options();
    options.fit_radius = 0.5;
    options.fill_holes = true;
    psb_mesh *parts = NULL;
    int count = 0;
    const psb_status status = psb_mesh_load_obj(path, &options, &parts, &count, NULL, NULL, err);
    if (status != PSB_OK) {
        return status;
    }
    *out = parts[0];
    for (int i = 1; i < count; i++) {
        psb_mesh_free(&parts[i]);
    }
    free(parts);
    return PSB_OK;
}

// The bench body: a sphere (or ring, or mesh) of radius 0.5 m resting on the
// floor, 1 kg, ks 200 N/m, no damping unless asked for, elastic floor
// without friction, so that energy is conserved up to the integrator and
// drift is meaningful.
static psb_status make_scene(const scene *sc, const bench_args *args, psb_mesh *mesh,
                             psb_params *params, psb_body_def *def, psb_error *err) {
    psb_status status;
    if (sc->level == -2) {
        status = load_mesh(args->mesh, mesh, err);
    } else if (sc->level >= 0) {
        status = psb_mesh_icosphere(mesh, sc->level, 0.5, err);
    } else {
        status = psb_mesh_ring(mesh, sc->ring_points, 0.5, err);
    }
    if (status != PSB_OK) {
        return status;
    }
    *params = psb_default_params();
    params->integrator = (psb_integrator)args->integrator;
    params->solver_tol = args->tol;
    params->solver_iterations = args->iterations;
    params->restitution = 1.0;
    params->friction = 0.0;
    params->threads = args->threads;
    *def = psb_mesh_body_def(mesh);
    def->params.mass = 1.0;
    def->params.spring_k = 200.0;
    def->params.spring_damping = args->damping;
    if (sc->level == -1) {
        // As stiff per length as the default 32-point ring, and gas for a 5%
        // stretch at equilibrium: nRT / N = ks s r (2 r s - L0).
        const int n = sc->ring_points;
        const double ks = 200.0 * n / 32.0;
        const double s = sin(3.14159265358979323846 / n), r0 = 0.5, r = 1.05 * r0;
        def->params.spring_k = ks;
        def->params.gas_nrt = n * ks * s * r * (2.0 * r * s - 2.0 * r0 * s);
    }
    return PSB_OK;
}

static double energy_scale(const psb_body_state *s) {
    return fabs(s->kinetic) + fabs(s->spring) + fabs(s->gas) + fabs(s->gravity);
}

// A mesh is no sphere: stretched evenly, as the spheres are, it is far from
// the balance of its springs and its gas, and would spend the timed repeats
// swelling, so that its volume "drift" measured that and nothing else (0.41
// for the Stanford bunny, 1.19 for the teapot). So it first settles in a
// world of its own without gravity or floor: shape damping takes every
// motion but a rigid one (and there is none: the forces are internal) until
// the kinetic energy is below SETTLE_KINETIC of the spring and gas energy,
// for at most SETTLE_MAX_S of simulated time, with symplectic Euler (the
// balance is the same for every integrator). def: the body, at points
// (offset ignored); points: the settled shape on return. Returns false,
// points unchanged, if the body blew up.
#define SETTLE_DAMPING 40.0 // 1/s
#define SETTLE_KINETIC 1e-5
#define SETTLE_MAX_S   2.0

static bool settle(psb_body_def def, const psb_params *params, psb_vec3 *points, psb_error *err) {
    psb_params calm = *params;
    calm.gravity = 0.0;
    calm.floor = false;
    calm.integrator = PSB_SYMPLECTIC_EULER;
    def.points = points;
    def.offset = (psb_vec3){0.0, 0.0, 0.0};
    def.params.shape_damping = SETTLE_DAMPING;
    psb_world *w = psb_world_create(&calm, err);
    if (!w || psb_world_add_body(w, &def, err) < 0) {
        psb_world_destroy(w);
        return false;
    }
    bool calm_enough = false, blew_up = false;
    for (double t = 0.0; t < SETTLE_MAX_S && !calm_enough && !blew_up; t += calm.dt) {
        psb_world_step(w);
        const psb_body_state now = psb_body_measure(w, 0);
        calm_enough = now.kinetic < SETTLE_KINETIC * (fabs(now.spring) + fabs(now.gas));
        blew_up = now.blowups > 0;
    }
    if (blew_up) {
        snprintf(err->message, sizeof err->message, "%s", psb_world_last_event(w));
    } else {
        memcpy(points, psb_body_positions(w, 0), (size_t)def.point_count * sizeof *points);
    }
    psb_world_destroy(w);
    return !blew_up;
}

static void add_profile(psb_profile *sum, psb_profile p) {
    sum->springs += p.springs;
    sum->gas += p.gas;
    sum->integrate += p.integrate;
    sum->collide += p.collide;
    sum->guard += p.guard;
    sum->threads = p.threads > sum->threads ? p.threads : sum->threads;
}

// Times the textbook version of the same body, steps and step size; the
// median of `repeats` runs after a warm-up, ns per vertex-step (0 if it
// could not run).
static double time_textbook(const psb_body_def *def, const psb_params *params, double h, long steps,
                            int repeats) {
    psb_error err;
    psb_world *w = psb_world_create(params, &err);
    int edge_count = 0;
    const int *edges = NULL;
    if (w && psb_world_add_body(w, def, &err) >= 0) {
        edges = psb_body_edges(w, 0, &edge_count);
    }
    double times[MAX_REPEATS + 1];
    int done = 0;
    for (int r = 0; edges && r <= repeats; r++) {
        const double ns = psb_textbook_run(def, edges, edge_count, params->gravity, params->floor_y,
                                           params->restitution, params->friction, h,
                                           r == 0 ? steps / 10 + 1 : steps);
        if (ns >= 0.0 && r > 0) {
            times[done++] = ns / ((double)def->point_count * (double)steps);
        }
    }
    psb_world_destroy(w);
    if (done == 0) {
        return 0.0;
    }
    qsort(times, (size_t)done, sizeof times[0], compare_double);
    return median(times, done);
}

static int run_scene(const scene *sc, const bench_args *args, result *out) {
    psb_error err = {0};
    psb_mesh mesh = {0};
    psb_params params;
    psb_body_def def;
    if (make_scene(sc, args, &mesh, &params, &def, &err) != PSB_OK) {
        fprintf(stderr, "psb bench: %s: %s\n", sc->name, err.message);
        return 1;
    }
    const int n = mesh.point_count;
    const bool implicit = psb_integrator_is_implicit(params.integrator);
    // An implicit sub-step is a whole linear solve: far fewer of them.
    const double vertex_steps = (args->quick ? 3e6 : 3e7) / (implicit ? IMPLICIT_FEWER : 1.0);
    long steps = args->steps > 0 ? args->steps : (long)ceil(vertex_steps / n);
    const int repeats = args->repeats > 0 ? args->repeats : (args->quick ? 3 : 5);

    // The sub-step: half the stable estimate, found on a throwaway world;
    // the implicit integrator's is a 60 Hz frame, as it is meant to run.
    psb_world *probe = psb_world_create(&params, &err);
    if (!probe || psb_world_add_body(probe, &def, &err) < 0) {
        fprintf(stderr, "psb bench: %s: %s\n", sc->name, err.message);
        psb_world_destroy(probe);
        psb_mesh_free(&mesh);
        return 1;
    }
    const double h = implicit ? FRAME_S : 0.5 * psb_body_stable_substep(probe, 0);
    if (!(h > 0.0)) {
        // psb_body_stable_substep is 0 only when it ran out of memory.
        fprintf(stderr, "psb bench: %s: out of memory for the stable sub-step's estimate\n",
                sc->name);
        psb_world_destroy(probe);
        psb_mesh_free(&mesh);
        return 2;
    }
    // Start at the gas-spring equilibrium, so the volume drift measures the
    // integrator and not the body finding its size: all springs stretched
    // by sigma with ks sigma (sigma - 1) sum L0^2 = 3 nRT (exact for uniform
    // scaling of a sphere; 2D: nRT = N ks s r (2 r s - L0), built into the
    // ring's gas).
    double sigma = 1.05;
    if (mesh.kind == PSB_SHELL) {
        int springs = 0;
        psb_body_edges(probe, 0, &springs);
        const double *rest = psb_body_rest_lengths(probe, 0);
        double sum = 0.0;
        for (int s = 0; s < springs; s++) {
            sum += rest[s] * rest[s];
        }
        const double c = 3.0 * def.params.gas_nrt / (def.params.spring_k * sum);
        sigma = 0.5 * (1.0 + sqrt(1.0 + 4.0 * c));
    }
    psb_world_destroy(probe);
    // Sub-steps per world step: a 60 Hz frame's (or --substeps), and the
    // repeat a whole number of world steps.
    long substeps = args->substeps > 0 ? args->substeps : (long)ceil(FRAME_S / h);
    substeps = substeps < psb_sim_max_substeps() ? substeps : psb_sim_max_substeps();
    substeps = substeps < steps ? substeps : steps;
    substeps = substeps > 1 ? substeps : 1;
    steps = (steps + substeps - 1) / substeps * substeps;
    params.substeps = (int)substeps;
    params.dt = h * (double)substeps;
    if (psb_params_validate(&params, &err) != PSB_OK) {
        char damping[32];
        psb_param_format(args->damping, damping, sizeof damping);
        fprintf(stderr,
                "psb bench: %s: --damping %s N·s/m needs a sub-step of %.3g s (half the stable "
                "estimate), and %ld of them make a world step out of range (%s): give a "
                "smaller --damping\n",
                sc->name, damping, h, substeps, err.message);
        psb_mesh_free(&mesh);
        return 2;
    }
    psb_vec3 *start_points = malloc((size_t)n * sizeof *start_points);
    if (!start_points) {
        fprintf(stderr, "psb bench: %s: out of memory\n", sc->name);
        psb_mesh_free(&mesh);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        const psb_vec3 p = mesh.points[i];
        start_points[i] = (psb_vec3){sigma * p.x, sigma * p.y, sigma * p.z};
    }
    def.rest_points = mesh.points;
    if (sc->level == -2 && !settle(def, &params, start_points, &err)) {
        fprintf(stderr, "psb bench: %s: did not settle (%s); timing it from an even stretch\n",
                sc->name, err.message);
    }
    // Resting on the floor: the lowest point of the start shape at y = 0.
    double lowest = INFINITY;
    for (int i = 0; i < n; i++) {
        lowest = fmin(lowest, start_points[i].y);
    }
    def.points = start_points;
    def.offset = (psb_vec3){0.0, -lowest, 0.0};

    // One warm-up (r = 0), then the timed repeats, each from the start.
    double times[MAX_REPEATS + 1];
    *out = (result){.vertices = n, .steps = steps, .substeps = substeps, .threads = 1};
    for (int r = 0; r <= repeats; r++) {
        psb_world *w = psb_world_create(&params, &err);
        if (!w || psb_world_add_body(w, &def, &err) < 0) {
            fprintf(stderr, "psb bench: %s: %s\n", sc->name, err.message);
            psb_world_destroy(w);
            psb_mesh_free(&mesh);
            free(start_points);
            return 1;
        }
        out->isa = psb_world_instruction_set(w);
        const psb_body_state before = psb_body_measure(w, 0);
        psb_world_set_profiling(w, r > 0);
        psb_sim_solver_stats solver = {0};
        const double start = now_ns();
        for (long k = 0; k < steps / substeps; k++) {
            psb_world_step(w);
            if (implicit) {
                psb_sim_solver_add(&solver, psb_world_solver_report(w));
            }
        }
        times[r] = (now_ns() - start) / ((double)n * (double)steps);
        out->solver = solver;
        if (r > 0) {
            add_profile(&out->profile, psb_world_profile(w));
        }
        const psb_body_state after = psb_body_measure(w, 0);
        out->volume_drift = after.volume / before.volume - 1.0;
        out->energy_drift = (after.energy - before.energy) / energy_scale(&before);
        if (after.blowups > 0) {
            fprintf(stderr, "psb bench: %s: %s\n", sc->name, psb_world_last_event(w));
            out->blowups += after.blowups;
        }
        psb_world_destroy(w);
    }
    // The threads the step really ran on (bodies of 4096 points and up are
    // shared; OpenMP may give fewer than asked for, or the build has none).
    out->threads = out->profile.threads > 0 ? out->profile.threads : 1;
    qsort(times + 1, (size_t)repeats, sizeof times[0], compare_double);
    out->min = times[1];
    out->max = times[repeats];
    out->median = median(times + 1, repeats);
    if (args->reference && mesh.kind == PSB_SHELL) {
        out->textbook = time_textbook(&def, &params, h, steps, repeats);
    }
    psb_mesh_free(&mesh);
    free(start_points);
    return 0;
}

static void print_result(const char *name, const bench_args *args, const result *r) {
    const psb_profile *p = &r->profile;
    const double total = p->springs + p->gas + p->integrate + p->collide + p->guard;
    const double pct = total > 0.0 ? 100.0 / total : 0.0;
    const double steps_per_s = 1e9 / (r->median * r->vertices);
    const bool implicit = psb_integrator_is_implicit(args->integrator);
    // The implicit solver's work per world step, over the last repeat.
    const psb_sim_solver_stats *solver = &r->solver;
    const double world_steps = solver->steps > 0 ? (double)solver->steps : 1.0;
    const double newton = (double)solver->newton / world_steps;
    const double iterations = (double)solver->iterations / world_steps;
    if (args->format == 1) {
        printf("scene=%s vertices=%d steps=%ld threads=%d substeps=%ld isa=%s integrator=%s "
               "ns_per_vertex_step=%.3f "
               "ns_min=%.3f ns_max=%.3f steps_per_s=%.1f share_springs=%.1f share_gas=%.1f "
               "share_integrate=%.1f share_collide=%.1f share_guard=%.1f volume_drift=%.3e "
               "energy_drift=%.3e",
               name, r->vertices, r->steps, r->threads, r->substeps, r->isa,
               psb_integrator_name((psb_integrator)args->integrator), r->median, r->min, r->max,
               steps_per_s, p->springs * pct, p->gas * pct, p->integrate * pct, p->collide * pct,
               p->guard * pct, r->volume_drift, r->energy_drift);
        if (r->textbook > 0.0) {
            printf(" textbook_ns=%.3f speedup=%.2f", r->textbook, r->textbook / r->median);
        }
        if (implicit) {
            printf(" newton=%.3f iterations=%.3f iterations_max=%d residual=%.3e unconverged=%ld",
                   newton, iterations, solver->iterations_max, solver->residual,
                   solver->unconverged);
        }
        printf("\n");
        return;
    }
    printf("%-12s %8d %7ld %5ld %3d %8.2f %8.2f %8.2f %10.0f  %4.0f%% %4.0f%% %4.0f%% %4.0f%% "
           "%4.0f%%  "
           "%9.2e %9.2e",
           name, r->vertices, r->steps, r->substeps, r->threads, r->median, r->min, r->max,
           steps_per_s, p->springs * pct, p->gas * pct, p->integrate * pct, p->collide * pct,
           p->guard * pct, r->volume_drift, r->energy_drift);
    if (r->textbook > 0.0) {
        printf("  %8.2f %6.2fx", r->textbook, r->textbook / r->median);
    }
    if (implicit) {
        printf("  %6.2f %8.1f %9.2e%s", newton, iterations, solver->residual,
               solver->unconverged > 0 ? " unconverged" : "");
    }
    printf("\n");
}

static void print_help(FILE *out, bench_args *defaults) {
    psb_option_group group = {"Benchmark", bench_table, BENCH_OPTION_COUNT, defaults, NULL};
    fprintf(
        out,
        "usage: psb bench [options]\n"
        "\n"
        "Times the simulation step (springs, volume and pressure, gravity, floor,\n"
        "symplectic Euler unless --integrator says) on fixed scenes: a sphere of 0.5 m,\n"
        "1 kg, resting on an elastic floor at its gas-spring equilibrium, undamped\n"
        "unless --damping says (an OBJ file's body first settles to its own\n"
        "equilibrium, without gravity or floor, with shape damping). Prints ns per\n"
        "vertex-step (a point advanced by one sub-step; median, min and max over the\n"
        "repeats, wall clock), sub-steps per second, the threads, each stage's share of\n"
        "the time (springs: the spring forces and the volume gradient; gas: the volume\n"
        "sum and pressure; integ: kick, drift and floor, or the other integrators'\n"
        "stages; coll: other colliders; guard: the blow-up check and the copy into the\n"
        "public arrays) and the relative volume and energy drift over one repeat. A\n"
        "world step (sub: its sub-steps) is one 60 Hz frame, as a viewer steps it, so\n"
        "the blow-up check and the public copy, once per world step, weigh what they\n"
        "weigh there; --substeps sets it. The solved integrators (implicit, bdf2) step\n"
        "1/60 s at a time and also print its Newton and conjugate-gradient iterations per world\n"
        "step and the last step's residual (m/s: the largest change the last Newton\n"
        "step made to a point's velocity).\n"
        "\n"
        "--realtime asks instead whether the implicit integrator runs real meshes in\n"
        "real time. Each model (spot, rocker-arm, stanford-bunny with its holes filled,\n"
        "icosphere-5, -6 and -7, and --mesh FILE when given; --quick leaves out the\n"
        "bunny and icosphere-7) is built as `psb sim --mesh FILE --fill-holes` or\n"
        "`psb sim --subdiv N` builds it (fitted to a 0.5 m radius, the default\n"
        "material, dropped from the default height onto the floor) and runs --frames\n"
        "frames of 1/60 s with the implicit integrator, one step a frame, on 1 thread\n"
        "and on 2 (or --threads N). One row per model: points; ms of physics per frame\n"
        "on each thread count (the total wall-clock time of the frames' steps divided\n"
        "by the frames: a mean, not a median); the mean Newton and CG iterations a\n"
        "frame; the largest residual of any frame (m/s) and the frames that missed\n"
        "--tol; the real-time factor on 2 threads, (1/60 s) / (ms per frame); and the\n"
        "explicit path's ms per frame (symplectic Euler at `psb sim`'s automatic\n"
        "sub-steps, over the first 5 frames at most, on 2 threads) with its ratio to\n"
        "the implicit one. The models' files are read from --meshes DIR (default:\n"
        "meshes, under the current folder); a missing file stops the run before it\n"
        "starts, naming the path.\n"
        "\n"
        "--scene pile and --scene pile-50 time contact between bodies: the pile scene\n"
        "as `psb sim --scene pile` (and `--balls 50`) builds it, a dozen balls of 642\n"
        "points (or fifty) and a dozen rings dropped into a box, its own integrator\n"
        "(BDF2, one step a frame), run for --frames frames from the start, a warm-up\n"
        "and --repeats timed repeats (default 3, 1 with --quick) on --threads. One\n"
        "row: bodies and points; ms of physics per frame (median, min and max over the\n"
        "repeats); the real-time factor, (1/60 s) / (ms per frame); contact: the ms a\n"
        "frame that finding and resolving the contacts between bodies take, and its\n"
        "share of the step; the contacts after a step, Newton and CG iterations a\n"
        "frame (summed over the bodies) and the frames in which a body's solve missed\n"
        "its tolerance (the last repeat's). With --mesh FILE, the file's closed parts\n"
        "(holes filled, fitted to a 0.5 m radius, their own material) are dropped onto\n"
        "the pile at the start, as `psb sim --scene pile --mesh FILE --fill-holes`\n"
        "drops them (the bunny on the pile: --mesh meshes/stanford-bunny.obj).\n"
        "\n"
        "Exit status: 0, or 3 when a body blew up (reported on stderr; its row times\n"
        "a body that was reset), 2 for bad options, 1 when a scene cannot be built.\n"
        "\n");
    psb_options_print_help(out, &group, 1);
}

// --realtime: checks what goes with it and hands over to bench_realtime.c.
static int run_realtime(const bench_args *args, const psb_option_group *group) {
    // The mode sets its own integrators, steps and body.
    static const char *const refused[] = {"steps",   "substeps",   "repeats",
                                          "damping", "integrator", "reference"};
    for (int i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++) {
        if (psb_options_seen(group, 1, refused[i])) {
            fprintf(stderr,
                    "psb bench: --realtime and --%s cannot be used together (the realtime mode "
                    "runs each model as `psb sim` drops it, implicit one step a frame and "
                    "symplectic at its automatic sub-steps)\n",
                    refused[i]);
            return 2;
        }
    }
    const bool threads_given = psb_options_seen(group, 1, "threads") > 0;
    if (threads_given && args->threads < 2) {
        fprintf(stderr,
                "psb bench: --threads: with --realtime expected 2 or more (1 thread is always "
                "timed as well), got %d\n",
                args->threads);
        return 2;
    }
    const psb_bench_realtime_args realtime = {
        .meshes = args->meshes,
        .mesh = args->mesh,
        .model = args->scene,
        .frames = args->frames,
        .threads = threads_given ? args->threads : 2,
        .tol_given = psb_options_seen(group, 1, "tol") > 0,
        .tol = args->tol,
        .iterations_given = psb_options_seen(group, 1, "iterations") > 0,
        .iterations = args->iterations,
        .quick = args->quick,
        .format = args->format,
    };
    return psb_bench_realtime(&realtime);
}

// --scene pile, pile-50: checks what goes with them and hands over to
// bench_pile.c.
static int run_pile(const bench_args *args, const psb_option_group *group) {
    // The scene sets its own bodies, integrator and steps.
    static const char *const refused[] = {"steps", "substeps",   "damping", "integrator",
                                          "tol",   "iterations", "meshes",  "reference"};
    for (int i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++) {
        if (psb_options_seen(group, 1, refused[i])) {
            fprintf(stderr,
                    "psb bench: --scene %s and --%s cannot be used together (the pile runs as "
                    "`psb sim --scene pile` builds it)\n",
                    args->scene, refused[i]);
            return 2;
        }
    }
    const bool fifty = strcmp(args->scene, "pile-50") == 0;
    // With --mesh the row is named after the scene and the file: pile+NAME.
    char name[64];
    const char *file = args->mesh ? strrchr(args->mesh, '/') : NULL;
    file = file ? file + 1 : args->mesh;
    snprintf(name, sizeof name, "%s%s%.*s", args->scene, file ? "+" : "",
             file ? (int)strcspn(file, ".") : 0, file ? file : "");
    const psb_bench_pile_args pile = {
        .name = name,
        .mesh = args->mesh,
        .balls = fifty ? PSB_PILE_MAX_BALLS : psb_default_scene_config().pile_balls,
        .frames = psb_options_seen(group, 1, "frames") ? args->frames
                  : args->quick                        ? PSB_PILE_QUICK_FRAMES
                                                       : PSB_PILE_FRAMES,
        .repeats = args->repeats > 0 ? args->repeats : (args->quick ? 1 : 3),
        .threads = args->threads,
        .contact_solve = !args->no_contact_solve,
        .self_contact = !args->no_self_contact,
        .format = args->format,
    };
    return psb_bench_pile(&pile);
}

int psb_cmd_bench(int argc, char **argv) {
    const psb_params defaults = psb_default_params();
    bench_args args = {.scene = NULL,
                       .threads = 1,
                       .steps = 0,
                       .repeats = 0,
                       .integrator = PSB_SYMPLECTIC_EULER,
                       .tol = defaults.solver_tol,
                       .iterations = defaults.solver_iterations,
                       .format = 0,
                       .frames = PSB_REALTIME_FRAMES,
                       .meshes = "meshes"};
    int seen[BENCH_OPTION_COUNT] = {0};
    psb_option_group group = {"Benchmark", bench_table, BENCH_OPTION_COUNT, &args, seen};
    if (psb_options_wants_help(argc, argv)) {
        print_help(stdout, &args);
        return 0;
    }
    char error[512];
    if (!psb_options_parse("psb bench", argc, argv, &group, 1, NULL, error, sizeof error)) {
        fprintf(stderr, "%s\n", error);
        return 2;
    }
    const bool pile =
        args.scene && (strcmp(args.scene, "pile") == 0 || strcmp(args.scene, "pile-50") == 0);
    if (!pile && psb_options_seen(&group, 1, "no-contact-solve")) {
        fprintf(stderr, "psb bench: --no-contact-solve needs --scene pile or pile-50 (the other "
                        "scenes have one body)\n");
        return 2;
    }
    if (!pile && psb_options_seen(&group, 1, "no-self-contact")) {
        fprintf(stderr, "psb bench: --no-self-contact needs --scene pile or pile-50 (the other "
                        "scenes have no contact)\n");
        return 2;
    }
    if (args.realtime) {
        return run_realtime(&args, &group);
    }
    if (pile) {
        return run_pile(&args, &group);
    }
    static const char *const realtime_only[] = {"frames", "meshes"};
    for (int i = 0; i < 2; i++) {
        if (psb_options_seen(&group, 1, realtime_only[i])) {
            fprintf(stderr, "psb bench: --%s needs --realtime\n", realtime_only[i]);
            return 2;
        }
    }
    if (args.reference && args.integrator != PSB_SYMPLECTIC_EULER) {
        fprintf(stderr,
                "psb bench: --reference: expected --integrator symplectic (the textbook "
                "steps with symplectic Euler), got %s\n",
                psb_integrator_name((psb_integrator)args.integrator));
        return 2;
    }
    const scene *chosen = NULL;
    if (args.scene) {
        for (int i = 0; i < SCENE_COUNT; i++) {
            if (strcmp(args.scene, scenes[i].name) == 0) {
                chosen = &scenes[i];
            }
        }
        if (!chosen) {
            fprintf(stderr,
                    "psb bench: --scene: expected one of icosphere-3 .. icosphere-7, "
                    "ring-10k, mesh, pile, pile-50, got '%s'\n",
                    args.scene);
            return 2;
        }
        if (chosen->level == -2 && !args.mesh) {
            fprintf(stderr, "psb bench: --scene mesh: expected an OBJ file with --mesh FILE\n");
            return 2;
        }
    }
    if (args.format == 0) {
        if (args.integrator != PSB_SYMPLECTIC_EULER) {
            printf("integrator: %s\n", psb_integrator_name((psb_integrator)args.integrator));
        }
        printf("%-12s %8s %7s %5s %3s %8s %8s %8s %10s  %5s %5s %5s %5s %5s  %9s %9s%s%s\n",
               "scene", "vertices", "steps", "sub", "thr", "ns/vs", "min", "max", "steps/s",
               "sprng", "gas", "integ", "coll", "guard", "vol.drift", "E.drift",
               args.reference ? "  textbook  ratio" : "",
               psb_integrator_is_implicit(args.integrator) ? "  newton    iters  residual" : "");
    }
    bool blew_up = false;
    for (int i = 0; i < SCENE_COUNT; i++) {
        const scene *sc = &scenes[i];
        const bool is_mesh = sc->level == -2;
        if (chosen ? sc != chosen : (is_mesh ? !args.mesh : (args.quick && !sc->quick))) {
            continue;
        }
        result r;
        const int status = run_scene(sc, &args, &r);
        if (status != 0) {
            return status;
        }
        blew_up = blew_up || r.blowups > 0;
        // A mesh scene is named after its file (without the folders).
        const char *slash = is_mesh ? strrchr(args.mesh, '/') : NULL;
        print_result(is_mesh ? (slash ? slash + 1 : args.mesh) : sc->name, &args, &r);
        fflush(stdout);
    }
    if (blew_up) {
        fprintf(stderr,
                "psb bench: blow-ups: the figures above time a body that was reset "
                "(exit status %d)\n",
                PSB_EXIT_BLOWUPS);
        return PSB_EXIT_BLOWUPS;
    }
    return 0;
}
