// `psb sim`: builds one body from the shape options, or one body per closed
// component of an OBJ file (--mesh), drops them into a world with the given
// parameters (or builds a scene, --scene), runs it headless for a fixed time
// or number of steps and prints the final state (a human report, or
// key=value lines with --summary), optionally writing a CSV row per output
// interval, and with --export-obj every body's surface as OBJ files. The
// world of a shape or a file is built by psb_sim_world_create (sim_world.h),
// which `psb bench --realtime` uses too.
#include "commands.h"
#include "mesh_options.h"
#include "options.h"
#include "shape_options.h"
#include "sim_options.h"
#include "sim_output.h"
#include "sim_world.h"
#include <psb/psb.h>
#include <psb/psb_export.h>
#include <psb/psb_mesh.h>
#include <psb/psb_model.h>
#include <psb/psb_obj.h>
#include <psb/psb_scene.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_REPORTED_EVENTS = 10, // blow-up reports printed before going quiet
};

static void print_help(FILE *out) {
    fprintf(out, "usage: psb sim [options]\n"
                 "       psb sim --mesh FILE.obj [options]\n"
                 "       psb sim --scene NAME [options]\n"
                 "\n"
                 "Runs a pressurised soft body headless and prints its final state: a generated\n"
                 "shape, or one body per closed component of an OBJ file, repaired as the mesh\n"
                 "repair options say and lifted together so the lowest point starts --height\n"
                 "above the floor. With several bodies the figures are sums (means for the\n"
                 "pressure; the centroid and mean radius over all points).\n"
                 "A scene (--scene) runs with its own bodies, world and sub-steps; the options\n"
                 "given change them: the world, run and material options (the material of\n"
                 "every body that takes the scene's), --radius, --points, --subdiv and --height\n"
                 "(size and drop of its ring and spheres), --shape-k and --shape-damping (also\n"
                 "the shape scene's matched bodies), --wind and --wind-turbulence (also the\n"
                 "flag's), --sphere (added), --mesh (the file's bodies added with their own\n"
                 "gas and springs, or --ks's, as psb view adds a file; on the pile, dropped\n"
                 "onto its top).\n"
                 "--shape, --nrt and --pin do not go with it.\n"
                 "--export-obj DIR writes one OBJ file per body (a ring as a closed polyline)\n"
                 "at step 0, every --every steps and the last step, for Blender or checks.\n"
                 "Options take their value as --name VALUE or --name=VALUE; numbers in decimal,\n"
                 "each within the range its help shows.\n"
                 "\n"
                 "Exit status: 0 when the run finished without blow-ups; 3 when it finished\n"
                 "but had blow-ups (bodies the guard found going wild and reset, each reported\n"
                 "on stderr and counted in blowups: the figures are not the physics asked\n"
                 "for), or, with --reference, when the plain model blew up (it has no guard:\n"
                 "the run stops there); 2 for bad options or input (one line on stderr); 1\n"
                 "when a file cannot be written or memory runs out.\n"
                 "\n");
    psb_sim_options_print_help(out);
}

// ---- progress bar (stderr, terminals only, after the run has taken a while)

typedef struct progress {
    bool enabled;
    bool drawn;
    double start; // s, monotonic clock
    double last;  // s, when the bar was last drawn
} progress;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress_clear(progress *bar) {
    if (bar->drawn) {
        fprintf(stderr, "\r%*s\r", 60, "");
        fflush(stderr);
        bar->drawn = false;
    }
}

static void progress_update(progress *bar, long done, long total) {
    if (!bar->enabled || total <= 0) {
        return;
    }
    double t = now_seconds();
    // Only runs that last: nothing in the first half second, then 10 Hz.
    if (t - bar->start < 0.5 || t - bar->last < 0.1) {
        return;
    }
    bar->last = t;
    enum { WIDTH = 30 };
    int filled = (int)((double)WIDTH * (double)done / (double)total);
    char cells[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++) {
        cells[i] = i < filled ? '#' : '.';
    }
    cells[WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%% step %ld/%ld", cells, (int)(100.0 * (double)done / (double)total),
            done, total);
    fflush(stderr);
    bar->drawn = true;
}

// ---- the command

// The bodies to simulate: generated or loaded meshes, about to be lifted.
typedef struct body_meshes {
    psb_mesh *parts; // count meshes, each freed with psb_mesh_free, the array with free()
    int count;
    char what[512]; // for the report: "icosphere level 3, radius 0.5 m", "FILE, ..."
} body_meshes;

static void body_meshes_free(body_meshes *meshes) {
    for (int i = 0; i < meshes->count; i++) {
        psb_mesh_free(&meshes->parts[i]);
    }
    free(meshes->parts);
    meshes->parts = NULL;
    meshes->count = 0;
}

static int status_for(psb_status status) {
    return status == PSB_ERR_NOMEM ? 1 : 2;
}

// Builds the shape, or loads the OBJ file; false after printing the reason
// on stderr (*status says which exit status).
static bool make_meshes(const psb_shape_options *shape, const psb_sim_options *sim,
                        body_meshes *meshes, int *status) {
    psb_error err = {0};
    if (sim->mesh) {
        psb_repair_options repair = psb_mesh_options_repair(&sim->repair, shape->radius);
        psb_status loaded =
            psb_mesh_load_obj(sim->mesh, &repair, &meshes->parts, &meshes->count, NULL, NULL, &err);
        if (loaded != PSB_OK) {
            // The loader's message names the file (and line) itself.
            fprintf(stderr, "%s\n", err.message);
            *status = status_for(loaded);
            return false;
        }
        char size[64];
        if (repair.fit_radius > 0.0) {
            snprintf(size, sizeof size, "fitted to a radius of %g m", repair.fit_radius);
        } else {
            snprintf(size, sizeof size, "at the file's size");
        }
        const char *material = sim->spring_k_given && sim->gas_nrt_given ? ""
                               : sim->spring_k_given ? ", gas from its size and weight"
                               : sim->gas_nrt_given  ? ", springs from its size and weight"
                                                     : ", gas and springs from its size and weight";
        snprintf(meshes->what, sizeof meshes->what, "%s, %d closed component%s, %s%s", sim->mesh,
                 meshes->count, meshes->count == 1 ? "" : "s", size, material);
        return true;
    }
    meshes->parts = calloc(1, sizeof *meshes->parts);
    if (!meshes->parts) {
        fprintf(stderr, "psb sim: out of memory\n");
        *status = 1;
        return false;
    }
    psb_status built = psb_shape_options_build(shape, &meshes->parts[0], &err);
    if (built != PSB_OK) {
        fprintf(stderr, "psb sim: cannot build the %s: %s\n", psb_shape_name(shape->shape),
                err.message);
        body_meshes_free(meshes);
        *status = status_for(built);
        return false;
    }
    meshes->count = 1;
    psb_shape_options_describe(shape, meshes->what, sizeof meshes->what);
    return true;
}

static double lowest_y(const body_meshes *meshes) {
    double low = INFINITY;
    for (int m = 0; m < meshes->count; m++) {
        const psb_mesh *mesh = &meshes->parts[m];
        for (int i = 0; i < mesh->point_count; i++) {
            low = fmin(low, mesh->points[i].y);
        }
    }
    return isfinite(low) ? low : 0.0;
}

// Adds the --sphere colliders; false after printing one line on stderr
// (*status says which exit status).
static bool add_spheres(psb_world *world, const psb_sim_options *sim, int *status) {
    psb_error err = {0};
    for (int i = 0; i < sim->spheres.count; i++) {
        if (psb_world_add_sphere(world, sim->spheres.centre[i], sim->spheres.radius[i], &err) !=
            PSB_OK) {
            fprintf(stderr, "psb sim: --sphere: %s\n", err.message);
            *status = status_for(err.status);
            return false;
        }
    }
    return true;
}

// Pins the --pin points of the first body where they start; false after
// printing one line on stderr.
static bool add_pins(psb_world *world, const psb_sim_options *sim, int *status) {
    psb_error err = {0};
    const int n = psb_body_point_count(world, 0);
    for (int i = 0; i < sim->pins.count; i++) {
        const int point = sim->pins.point[i];
        if (point >= n) {
            fprintf(stderr, "psb sim: --pin %d: the %sbody has %d points, 0 to %d\n", point,
                    psb_world_body_count(world) > 1 ? "first " : "", n, n - 1);
            *status = 2;
            return false;
        }
        if (psb_body_pin(world, 0, point, psb_body_positions(world, 0)[point], &err) != PSB_OK) {
            fprintf(stderr, "psb sim: --pin %d: %s\n", point, err.message);
            *status = status_for(err.status);
            return false;
        }
    }
    return true;
}

// The material of a body loaded from a file: the options' material, with
// the gas and the spring stiffness that were not given on the command line
// from the mesh's size and weight (psb_mesh_default_material). Generated
// shapes keep the options' material. False after printing one line on
// stderr.
static bool body_material(const psb_sim_options *sim, const psb_mesh *mesh, psb_body_params *params,
                          int *status) {
    *params = sim->params.body;
    if (!sim->mesh || (sim->spring_k_given && sim->gas_nrt_given)) {
        return true;
    }
    psb_mesh_material own;
    psb_error err = {0};
    if (psb_mesh_default_material(mesh, params->mass, sim->params.gravity, &own, &err) != PSB_OK) {
        fprintf(stderr, "psb sim: %s: %s\n", sim->mesh, err.message);
        *status = status_for(err.status);
        return false;
    }
    if (!sim->spring_k_given) {
        params->spring_k = own.spring_k;
    }
    if (!sim->gas_nrt_given) {
        params->gas_nrt = own.gas_nrt;
    }
    // A heavy body or a small one can need more than the ranges allow.
    if (psb_body_params_validate(params, &err) != PSB_OK) {
        fprintf(stderr,
                "psb sim: %s: the material from its size and weight: %s (give --ks and --nrt)\n",
                sim->mesh, err.message);
        *status = 2;
        return false;
    }
    return true;
}

// Makes the world with its colliders and one body per mesh, all lifted
// together so the lowest point starts --height above the floor, and pins
// the --pin points; NULL after printing one line on stderr (*status says
// which exit status).
static psb_world *make_world(const psb_sim_options *sim, const body_meshes *meshes, int *status) {
    psb_error err = {0};
    psb_world *world = psb_world_create(&sim->params, &err);
    if (!world) {
        fprintf(stderr, "psb sim: %s\n", err.message);
        *status = status_for(err.status);
        return NULL;
    }
    if (!add_spheres(world, sim, status)) {
        psb_world_destroy(world);
        return NULL;
    }
    const double lift = sim->params.floor_y + sim->height - lowest_y(meshes);
    for (int m = 0; m < meshes->count; m++) {
        psb_body_def def = psb_mesh_body_def(&meshes->parts[m]);
        if (!body_material(sim, &meshes->parts[m], &def.params, status)) {
            psb_world_destroy(world);
            return NULL;
        }
        def.offset = (psb_vec3){0.0, lift, 0.0};
        if (psb_world_add_body(world, &def, &err) < 0) {
            if (meshes->count > 1) {
                fprintf(stderr, "psb sim: body %d of %d: %s\n", m + 1, meshes->count, err.message);
            } else {
                fprintf(stderr, "psb sim: %s\n", err.message);
            }
            psb_world_destroy(world);
            *status = status_for(err.status);
            return NULL;
        }
    }
    if (!add_pins(world, sim, status)) {
        psb_world_destroy(world);
        return NULL;
    }
    return world;
}

// Adds the --mesh file's closed parts to the built scene, as the viewer adds
// a file to its stage, and says so after what; false after printing one
// line on stderr, the scene destroyed.
static bool add_scene_meshes(const psb_shape_options *shape, const psb_sim_options *sim,
                             psb_scene *scene, char *what, size_t what_size, int *status) {
    body_meshes meshes = {0};
    bool ok = make_meshes(shape, sim, &meshes, status);
    for (int m = 0; ok && m < meshes.count; m++) {
        const char *slash = strrchr(sim->mesh, '/');
        char label[sizeof scene->bodies[0].label];
        if (meshes.count > 1) {
            snprintf(label, sizeof label, "%.52s#%d", slash ? slash + 1 : sim->mesh, m + 1);
        } else {
            snprintf(label, sizeof label, "%.63s", slash ? slash + 1 : sim->mesh);
        }
        psb_error err = {0};
        if (psb_scene_add_mesh(scene, &meshes.parts[m], label, &err) != PSB_OK) {
            fprintf(stderr, "psb sim: --mesh %s: %s\n", sim->mesh, err.message);
            *status = status_for(err.status);
            ok = false;
        }
    }
    if (ok) {
        const size_t used = strlen(what);
        snprintf(what + used, what_size - used, "; and %.200s", meshes.what);
    } else {
        psb_scene_destroy(scene);
    }
    body_meshes_free(&meshes);
    return ok;
}

// Builds the --scene with its configuration from the options, the --sphere
// colliders and the --mesh file's bodies; false after printing one line on
// stderr.
static bool make_scene(const psb_shape_options *shape, const psb_sim_options *sim, psb_scene *scene,
                       char *what, size_t what_size, int *status) {
    psb_error err = {0};
    const psb_status built = psb_scene_build(scene, sim->scene, &sim->scene_config, &err);
    if (built != PSB_OK) {
        fprintf(stderr, "psb sim: --scene %s: %s\n", sim->scene, err.message);
        *status = status_for(built);
        return false;
    }
    if (!add_spheres(scene->world, sim, status)) {
        psb_scene_destroy(scene);
        return false;
    }
    snprintf(what, what_size, "scene %s: %s", scene->name,
             psb_scene_summary(psb_scene_find(scene->name)));
    return !sim->mesh || add_scene_meshes(shape, sim, scene, what, what_size, status);
}

// --substeps auto: the default count, or the count the scenes would choose
// (psb_scene_stable_substeps) if that is more. The implicit integrator keeps its one sub-step:
// the estimate is the explicit integrators' limit.
static void choose_substeps(psb_world *world) {
    psb_params params = *psb_world_params(world);
    if (psb_integrator_is_implicit(params.integrator)) {
        return;
    }
    const int needed = psb_scene_stable_substeps(world);
    if (needed > params.substeps) {
        params.substeps = needed; // within the core's range: the parameters stay valid
        psb_world_set_params(world, &params, NULL);
    }
}

psb_world *psb_sim_world_create(const psb_shape_options *shape, const psb_sim_options *sim,
                                char *what, size_t what_size, int *status) {
    body_meshes meshes = {0};
    psb_world *world = NULL;
    if (make_meshes(shape, sim, &meshes, status)) {
        world = make_world(sim, &meshes, status);
    }
    // The world has copied the meshes; only their description is still needed.
    snprintf(what, what_size, "%s", meshes.what);
    body_meshes_free(&meshes);
    if (world && sim->substeps.automatic) {
        choose_substeps(world);
    }
    return world;
}

// Explicit integrators have a largest stable step; say so before a run that
// would only blow up. The implicit one has none.
static void warn_if_unstable(const psb_world *world) {
    const psb_params *params = psb_world_params(world);
    if (psb_integrator_is_implicit(params->integrator)) {
        return;
    }
    const double h = params->dt / params->substeps;
    const double h_max = psb_world_stable_substep(world);
    const char *whose = psb_world_body_count(world) > 1 ? "the bodies'" : "this body's";
    const double needed = ceil(params->dt / h_max);
    if (!(h_max > 0.0)) {
        // psb_body_stable_substep is 0 only when it ran out of memory.
        fprintf(stderr,
                "psb sim: warning: %s stable sub-step could not be estimated (out of "
                "memory)\n",
                whose);
    } else if (h > h_max && needed <= psb_sim_max_substeps()) {
        fprintf(stderr,
                "psb sim: warning: the sub-step %.3g s is above %s estimated stable limit "
                "%.3g s (from ks, kd and the mass per point); blow-ups are likely: try "
                "--substeps %.0f or more\n",
                h, whose, h_max, needed);
    } else if (h > h_max) {
        fprintf(stderr,
                "psb sim: warning: the sub-step %.3g s is above %s estimated stable limit "
                "%.3g s (from ks, kd and the mass per point); blow-ups are likely: it would "
                "take %.3g sub-steps, past the limit of %d: lower --ks, --kd or --dt, raise "
                "--mass, or use --integrator implicit\n",
                h, whose, h_max, needed, psb_sim_max_substeps());
    }
    if (params->integrator == PSB_EULER || params->integrator == PSB_HEUN) {
        // The estimate is symplectic Euler's: these two gain energy on every
        // undamped oscillation, however small the step.
        fprintf(stderr,
                "psb sim: note: %s adds energy to undamped oscillations at any step; "
                "with little --kd expect growth or blow-ups (symplectic and verlet do "
                "not)\n",
                psb_integrator_name(params->integrator));
    }
}

// --export-obj: every body's surface at this step, one OBJ file each. False
// after printing one line on stderr.
static bool export_frame(const psb_sim_options *sim, const psb_world *world, const psb_scene *scene,
                         const psb_model *model, long step, progress *bar) {
    psb_error err = {0};
    // A scene's bodies have labels for the files' headers; a shape's or a
    // file's have only their index and kind.
    const psb_scene_body *labels = sim->scene ? scene->bodies : NULL;
    // With --reference the world does not step: the frame is the model's.
    const psb_export_frame frame =
        model ? (psb_export_frame){step, psb_model_time(model)} : psb_export_frame_of(world);
    if (psb_export_obj_frame(world, labels, sim->export_obj, frame, NULL, &err) != PSB_OK) {
        progress_clear(bar);
        fprintf(stderr, "psb sim: --export-obj: %s\n", err.message);
        return false;
    }
    return true;
}

// The state to report: the world's, or with --reference the model's. The
// model's points are copied into the world's bodies too, for the OBJ
// export, while they are finite (the model has no blow-up guard).
static psb_sim_state measure(psb_world *world, const psb_model *model) {
    if (!model) {
        return psb_sim_measure(world);
    }
    for (int b = 0; b < psb_world_body_count(world); b++) {
        psb_body_set_state(world, b, psb_model_positions(model, b), psb_model_velocities(model, b),
                           NULL);
    }
    return psb_sim_measure_model(model);
}

// The plain model has no blow-up guard, so --reference watches for one as
// the core's guard does: a point that became NaN or infinite, or moved more
// than --blowup-size times its body's size in one step (the size of its box
// when the run started). Keeps each body's last positions (NULL: no memory,
// then only NaN is looked for). Returns the first body that blew up, or -1,
// and says why in `why`.
typedef struct reference_guard {
    psb_vec3 **last; // per body
    double *limit;   // per body, m
    int bodies;
} reference_guard;

static reference_guard reference_guard_make(const psb_model *model, double blowup_size) {
    reference_guard g = {0};
    g.bodies = psb_model_body_count(model);
    g.last = calloc((size_t)g.bodies, sizeof *g.last);
    g.limit = calloc((size_t)g.bodies, sizeof *g.limit);
    for (int b = 0; g.last && g.limit && b < g.bodies; b++) {
        const int n = psb_model_point_count(model, b);
        const psb_vec3 *x = psb_model_positions(model, b);
        g.last[b] = malloc((size_t)n * sizeof(psb_vec3));
        if (!g.last[b]) {
            continue;
        }
        memcpy(g.last[b], x, (size_t)n * sizeof(psb_vec3));
        psb_vec3 lo = x[0], hi = x[0];
        for (int i = 1; i < n; i++) {
            lo = (psb_vec3){fmin(lo.x, x[i].x), fmin(lo.y, x[i].y), fmin(lo.z, x[i].z)};
            hi = (psb_vec3){fmax(hi.x, x[i].x), fmax(hi.y, x[i].y), fmax(hi.z, x[i].z)};
        }
        const psb_vec3 d = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
        g.limit[b] = blowup_size * sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    }
    return g;
}

static void reference_guard_free(reference_guard *g) {
    for (int b = 0; g->last && b < g->bodies; b++) {
        free(g->last[b]);
    }
    free(g->last);
    free(g->limit);
}

static int reference_guard_check(reference_guard *g, const psb_model *model, char *why,
                                 size_t why_size) {
    for (int b = 0; b < g->bodies; b++) {
        const int n = psb_model_point_count(model, b);
        const psb_vec3 *x = psb_model_positions(model, b);
        for (int i = 0; i < n; i++) {
            if (!(isfinite(x[i].x) && isfinite(x[i].y) && isfinite(x[i].z))) {
                snprintf(why, why_size, "point %d became NaN or infinite", i);
                return b;
            }
            if (!g->last || !g->last[b]) {
                continue;
            }
            const psb_vec3 d = {x[i].x - g->last[b][i].x, x[i].y - g->last[b][i].y,
                                x[i].z - g->last[b][i].z};
            const double moved = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
            if (moved > g->limit[b]) {
                snprintf(why, why_size, "point %d moved %.3g m in one step (limit %.3g m)", i,
                         moved, g->limit[b]);
                return b;
            }
        }
        if (g->last && g->last[b]) {
            memcpy(g->last[b], x, (size_t)n * sizeof(psb_vec3));
        }
    }
    return -1;
}

int psb_cmd_sim(int argc, char **argv) {
    if (psb_options_wants_help(argc, argv)) {
        print_help(stdout);
        return 0;
    }
    psb_shape_options shape = psb_default_shape_options();
    psb_sim_options sim = psb_sim_default_options();
    if (!psb_sim_options_read(argc, argv, &shape, &sim)) {
        return 2;
    }
    psb_error dir_err = {0};
    // A missing folder is a mistake on the command line: say so before the run.
    if (sim.export_obj && psb_export_obj_check_dir(sim.export_obj, &dir_err) != PSB_OK) {
        fprintf(stderr, "psb sim: --export-obj: %s\n", dir_err.message);
        return 2;
    }
    FILE *csv = NULL;
    if (sim.csv) {
        csv = fopen(sim.csv, "w");
        if (!csv) {
            fprintf(stderr, "psb sim: --csv: cannot write '%s': %s\n", sim.csv, strerror(errno));
            return 2;
        }
    }
    int status = 0;
    char what[512] = "";
    psb_scene scene = {0};
    psb_world *world = NULL;
    if (sim.scene) {
        if (make_scene(&shape, &sim, &scene, what, sizeof what, &status)) {
            world = scene.world; // the scene owns it
        }
    } else {
        world = psb_sim_world_create(&shape, &sim, what, sizeof what, &status);
    }
    if (!world) {
        if (csv) {
            fclose(csv);
        }
        return status;
    }
    // A scene chose its sub-steps as it was built, the shape or file's
    // world as psb_sim_world_create made it.
    const bool substeps_auto = sim.scene ? sim.scene_config.auto_substeps : sim.substeps.automatic;
    // --reference: the plain model runs the world's bodies; the world only
    // measures and writes them.
    psb_model *model = NULL;
    if (sim.reference) {
        psb_error err = {0};
        model = psb_model_from_world(world, &err);
        if (!model) {
            fprintf(stderr, "psb sim: --reference: %s\n", err.message);
            status = err.status == PSB_ERR_NOMEM ? 1 : 2;
        }
    }
    if (model) {
        const size_t used = strlen(what);
        snprintf(what + used, sizeof what - used, "; run by the plain model (--reference)");
    }
    if (sim.reference && !model) {
        if (sim.scene) {
            psb_scene_destroy(&scene);
        } else {
            psb_world_destroy(world);
        }
        if (csv) {
            fclose(csv);
        }
        return status;
    }
    warn_if_unstable(world);

    progress bar = {.enabled = isatty(fileno(stderr)) != 0, .start = now_seconds()};
    double start = bar.start;
    long total = sim.steps;
    if (csv) {
        psb_sim_state s = measure(world, model);
        psb_sim_write_csv_header(csv);
        psb_sim_write_csv_row(csv, s.time, &s);
    }
    int events = 0;
    long full_lists = 0; // steps that left contacts or links out (said once, then counted)
    psb_sim_solver_stats solver = {0};
    reference_guard guard = {0};
    if (model) {
        guard = reference_guard_make(model, psb_world_params(world)->blowup_size);
    }
    bool model_blew = false;
    // Step 0, every --every steps and the last, as the CSV's rows: the
    // initial and the final state are always there.
    bool exported = !sim.export_obj || export_frame(&sim, world, &scene, model, 0, &bar);
    for (long k = 1; exported && !model_blew && k <= total; k++) {
        int blown = 0;
        if (model) {
            psb_model_step(model);
            psb_sim_solver_add(&solver, psb_model_solver_report(model));
            char why[160];
            const int body = reference_guard_check(&guard, model, why, sizeof why);
            if (body >= 0) {
                // Nothing to recover to: the run stops here.
                progress_clear(&bar);
                fprintf(stderr,
                        "psb sim: step %ld (t = %g s): body %d blew up in the plain model: %s; "
                        "it has no guard to reset it, so the run stops (try a smaller dt or more "
                        "substeps)\n",
                        k, psb_model_time(model), body, why);
                events++;
                model_blew = true;
                total = k;
            }
        } else {
            blown = psb_world_step(world);
            psb_sim_solver_add(&solver, psb_world_solver_report(world));
            const long full = psb_world_full_list_steps(world);
            if (full > full_lists && full_lists == 0 && blown == 0) {
                progress_clear(&bar);
                fprintf(stderr, "psb sim: step %ld: %s\n", k, psb_world_last_event(world));
            }
            full_lists = full;
        }
        if (blown > 0) {
            progress_clear(&bar);
            if (events < MAX_REPORTED_EVENTS) {
                fprintf(stderr, "psb sim: step %ld (t = %g s): %s\n", k, psb_world_time(world),
                        psb_world_last_event(world));
            } else if (events == MAX_REPORTED_EVENTS) {
                fprintf(stderr, "psb sim: more blow-ups: not reported one by one\n");
            }
            events++;
        }
        if (csv && (k % sim.csv_every == 0 || k == total)) {
            psb_sim_state s = measure(world, model);
            psb_sim_write_csv_row(csv, s.time, &s);
        }
        if (sim.export_obj && (k % sim.export_every == 0 || k == total)) {
            measure(world, model); // the model's points into the world
            exported = export_frame(&sim, world, &scene, model, k, &bar);
        }
        progress_update(&bar, k, total);
    }
    progress_clear(&bar);
    double wall = now_seconds() - start;

    // A run cut short by a failed export reports nothing: its state is not
    // the one asked for.
    psb_sim_state final_state = measure(world, model);
    if (model_blew) {
        final_state.blowups = 1; // the model's, which the world does not count
    }
    psb_model_destroy(model);
    reference_guard_free(&guard);
    if (exported && sim.summary) {
        psb_sim_print_summary(world, &final_state, &solver);
    } else if (exported) {
        psb_sim_print_report(world, what, substeps_auto, &final_state, &solver, wall);
    }
    if (model_blew) {
        fprintf(stderr,
                "psb sim: the plain model blew up: the figures are where it stopped "
                "(exit status %d)\n",
                PSB_EXIT_BLOWUPS);
    } else if (events > 0) {
        fprintf(stderr, "psb sim: %d blow-up%s detected and recovered from (exit status %d)\n",
                events, events == 1 ? "" : "s", PSB_EXIT_BLOWUPS);
    }
    if (full_lists > 0) {
        fprintf(stderr,
                "psb sim: in %ld step%s contacts or links between bodies did not all fit in "
                "memory and the rest were left out\n",
                full_lists, full_lists == 1 ? "" : "s");
    }
    if (sim.scene) {
        psb_scene_destroy(&scene);
    } else {
        psb_world_destroy(world);
    }
    if (csv) {
        bool failed = ferror(csv) != 0;
        failed = fclose(csv) != 0 || failed;
        if (failed) {
            fprintf(stderr, "psb sim: --csv: error writing '%s'\n", sim.csv);
            return 1;
        }
    }
    if (!exported || fflush(stdout) != 0) {
        return 1;
    }
    // A run that had to reset bodies did not simulate what was asked: say so
    // to scripts, which cannot tell from the figures.
    return events > 0 ? PSB_EXIT_BLOWUPS : 0;
}
