// `psb bench --scene pile`: see bench_pile.h.
#include "bench_pile.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim_options.h"
#include "sim_output.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>
#include <psb/psb_scene.h>

enum { MAX_REPEATS = 64 };

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// One repeat's figures.
typedef struct pile_run {
    double ms;                   ///< wall clock of the frames' steps, per frame
    double contact_ms;           ///< of which finding and resolving contacts, per frame
    double contacts;             ///< contacts after a step, mean over the frames
    psb_sim_solver_stats solver; ///< the solver's work over the frames
    int blowups;                 ///< blow-ups over the frames
    int bodies, points;
} pile_run;

// Drops the --mesh file's closed parts onto the pile, holes filled and
// fitted to the scene's radius, with their own material (as `psb sim
// --scene pile --mesh FILE --fill-holes`); false after one line on stderr.
static bool drop_mesh(const psb_bench_pile_args *args, psb_scene *scene) {
    psb_repair_options repair = psb_default_repair_options();
    repair.fill_holes = true;
    repair.fit_radius = scene->config.radius;
    psb_mesh *parts = NULL;
    int count = 0;
    psb_error err = {0};
    if (psb_mesh_load_obj(args->mesh, &repair, &parts, &count, NULL, NULL, &err) != PSB_OK) {
        fprintf(stderr, "psb bench: %s\n", err.message); // it names the file
        return false;
    }
    bool ok = true;
    for (int k = 0; k < count; k++) {
        if (ok && psb_scene_add_mesh(scene, &parts[k], "model", &err) != PSB_OK) {
            fprintf(stderr, "psb bench: --mesh %s: %s\n", args->mesh, err.message);
            ok = false;
        }
        psb_mesh_free(&parts[k]);
    }
    free(parts);
    return ok;
}

// Builds the scene and runs its frames; false after one line on stderr.
static bool run_once(const psb_bench_pile_args *args, bool profile, pile_run *out) {
    psb_scene_config config = psb_default_scene_config();
    config.pile_balls = args->balls;
    config.params.threads = args->threads;
    config.params.contact_solve = args->contact_solve;
    config.params.self_contact = args->self_contact;
    psb_scene scene;
    psb_error err = {0};
    if (psb_scene_build(&scene, "pile", &config, &err) != PSB_OK) {
        fprintf(stderr, "psb bench: %s: %s\n", args->name, err.message);
        return false;
    }
    if (args->mesh && !drop_mesh(args, &scene)) {
        psb_scene_destroy(&scene);
        return false;
    }
    psb_world *w = scene.world;
    *out = (pile_run){.bodies = psb_world_body_count(w)};
    for (int b = 0; b < out->bodies; b++) {
        out->points += psb_body_point_count(w, b);
    }
    psb_world_set_profiling(w, profile);
    double contacts = 0.0, spent = 0.0;
    for (int f = 0; f < args->frames; f++) {
        const double start = now_ms();
        psb_world_step(w);
        spent += now_ms() - start;
        psb_sim_solver_add(&out->solver, psb_world_solver_report(w));
        contacts += psb_world_contact_count(w);
    }
    out->ms = spent / args->frames;
    out->contact_ms = 1e-6 * psb_world_profile(w).contact / args->frames;
    out->contacts = contacts / args->frames;
    for (int b = 0; b < out->bodies; b++) {
        out->blowups += psb_body_measure(w, b).blowups;
    }
    if (out->blowups > 0) {
        fprintf(stderr, "psb bench: %s: %s\n", args->name, psb_world_last_event(w));
    }
    psb_scene_destroy(&scene);
    return true;
}

// The table's header line (format 0).
static void print_header(void) {
    printf("%-22s %6s %6s %6s %3s %9s %9s %9s %6s %8s %6s %9s %7s %9s %6s\n", "scene", "bodies",
           "points", "frames", "thr", "ms/frame", "min", "max", "x real", "contact", "share",
           "contacts", "newton", "iters", "unconv");
}

int psb_bench_pile(const psb_bench_pile_args *args) {
    const int repeats = args->repeats < MAX_REPEATS ? args->repeats : MAX_REPEATS;
    double ms[MAX_REPEATS];
    pile_run run = {0};
    // One warm-up (r = 0), the timed repeats, each from the start, and one
    // more with the stage timers on for the contact's time: profiling runs
    // the bodies' steps one after the other (their timers are shared), so
    // the timed repeats leave it off and run the small bodies side by side
    // on the threads; the contact stage runs alike either way.
    for (int r = 0; r <= repeats + 1; r++) {
        if (!run_once(args, r > repeats, &run)) {
            return 1;
        }
        if (r == 0 && args->format == 0) {
            print_header(); // once the scene is known to build
        }
        if (r > 0 && r <= repeats) {
            ms[r - 1] = run.ms;
        }
    }
    qsort(ms, (size_t)repeats, sizeof ms[0], compare_double);
    const double median =
        repeats % 2 ? ms[repeats / 2] : 0.5 * (ms[repeats / 2 - 1] + ms[repeats / 2]);
    const double contact = run.contact_ms, share = median > 0.0 ? contact / median : 0.0;
    const double frame_ms = 1000.0 / 60.0;
    const int blowups = run.blowups; // each run is the same: the last one's
    const psb_sim_solver_stats *s = &run.solver;
    const double steps = s->steps > 0 ? (double)s->steps : 1.0;
    if (args->format == 1) {
        printf("scene=%s bodies=%d points=%d frames=%d threads=%d ms_per_frame=%.3f ms_min=%.3f "
               "ms_max=%.3f realtime=%.3f contact_ms=%.3f contact_share=%.3f contacts=%.1f "
               "newton=%.2f iterations=%.1f unconverged=%ld blowups=%d\n",
               args->name, run.bodies, run.points, args->frames, args->threads, median, ms[0],
               ms[repeats - 1], frame_ms / median, contact, share, run.contacts,
               (double)s->newton / steps, (double)s->iterations / steps, s->unconverged, blowups);
    } else {
        printf("%-22s %6d %6d %6d %3d %9.2f %9.2f %9.2f %6.2f %8.2f %5.0f%% %9.0f %7.2f %9.1f "
               "%6ld\n",
               args->name, run.bodies, run.points, args->frames, args->threads, median, ms[0],
               ms[repeats - 1], frame_ms / median, contact, 100.0 * share, run.contacts,
               (double)s->newton / steps, (double)s->iterations / steps, s->unconverged);
    }
    fflush(stdout);
    if (blowups > 0) {
        fprintf(stderr,
                "psb bench: %s: blow-ups: the figures time bodies that were reset "
                "(exit status %d)\n",
                args->name, PSB_EXIT_BLOWUPS);
        return PSB_EXIT_BLOWUPS;
    }
    return 0;
}
