// `psb sim`: builds one body from the shape options, or one body per closed
// component of an OBJ file (--mesh), drops them into a world with the given
// parameters, runs it headless for a fixed time or number of steps and prints
// the final state (a human report, or key=value lines with --summary),
// optionally writing a CSV row per output interval.
#include "commands.h"
#include "mesh_options.h"
#include "options.h"
#include "psb.h"
#include "psb_mesh.h"
#include "psb_obj.h"
#include "shape_options.h"
#include "sim_output.h"

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
    MAX_SPHERES = 256,        // --sphere may be given this many times
    MAX_REPORTED_EVENTS = 10, // blow-up reports printed before going quiet
    MAX_SUBSTEPS = 10000,     // the most sub-steps psb_params allows
};

// --substeps auto picks a count whose sub-step is at most this fraction of the
// bodies' estimated stable limit.
static const double AUTO_SUBSTEP_MARGIN = 0.9;

// --substeps: a count, or auto.
typedef struct substeps_choice {
    bool automatic; // choose from the bodies' stability estimate
    int count;      // the count given, when not automatic
} substeps_choice;

// Static sphere colliders from the repeatable --sphere option.
typedef struct sphere_list {
    int count;
    psb_vec3 centre[MAX_SPHERES];
    double radius[MAX_SPHERES];
} sphere_list;

// Everything `psb sim` reads from its options. The world parameters (with the
// body's material in params.body) are filled from the core's defaults.
typedef struct sim_options {
    psb_params params;
    int integrator;           // a psb_integrator, stored as the choice table's int
    double time;              // s to simulate, unless --steps is given
    int steps;                // world steps to take, when given
    substeps_choice substeps; // --substeps N or auto
    bool no_floor;            // --no-floor
    double height;            // m: lowest rest point's height above floor_y at the start
    const char *mesh;         // OBJ file to simulate instead of a generated shape, or NULL
    psb_mesh_options repair;  // how the OBJ file is repaired
    sphere_list spheres;
    const char *csv; // file for the CSV, or NULL
    int csv_every;   // steps between CSV rows
    bool summary;    // key=value output
} sim_options;

static const char *integrator_choice(int index) {
    return psb_integrator_name((psb_integrator)index);
}

static bool parse_walls(const char *text, void *field, char *expected, size_t expected_size) {
    psb_params *params = field;
    double v[6];
    snprintf(expected, expected_size,
             "six numbers X0,Y0,Z0,X1,Y1,Z1 in m with X0 < X1, Y0 < Y1 and Z0 < Z1");
    if (!psb_options_parse_numbers(text, v, 6) || !(v[0] < v[3]) || !(v[1] < v[4]) ||
        !(v[2] < v[5])) {
        return false;
    }
    params->walls = true;
    params->walls_min = (psb_vec3){v[0], v[1], v[2]};
    params->walls_max = (psb_vec3){v[3], v[4], v[5]};
    return true;
}

static void show_walls(const void *field, char *out, size_t out_size) {
    const psb_params *params = field;
    if (!params->walls) {
        snprintf(out, out_size, "none");
        return;
    }
    snprintf(out, out_size, "%g,%g,%g,%g,%g,%g", params->walls_min.x, params->walls_min.y,
             params->walls_min.z, params->walls_max.x, params->walls_max.y, params->walls_max.z);
}

static bool parse_sphere(const char *text, void *field, char *expected, size_t expected_size) {
    sphere_list *spheres = field;
    double v[4];
    if (spheres->count >= MAX_SPHERES) {
        snprintf(expected, expected_size, "at most %d spheres", MAX_SPHERES);
        return false;
    }
    snprintf(expected, expected_size, "four numbers X,Y,Z,R in m with R > 0");
    if (!psb_options_parse_numbers(text, v, 4) || !(v[3] > 0.0)) {
        return false;
    }
    spheres->centre[spheres->count] = (psb_vec3){v[0], v[1], v[2]};
    spheres->radius[spheres->count] = v[3];
    spheres->count++;
    return true;
}

static bool parse_substeps(const char *text, void *field, char *expected, size_t expected_size) {
    substeps_choice *choice = field;
    snprintf(expected, expected_size, "auto or an integer from 1 to %d", MAX_SUBSTEPS);
    if (strcmp(text, "auto") == 0) {
        choice->automatic = true;
        return true;
    }
    double value = 0.0;
    if (!psb_options_parse_numbers(text, &value, 1) || value != floor(value) || value < 1.0 ||
        value > MAX_SUBSTEPS) {
        return false;
    }
    choice->automatic = false;
    choice->count = (int)value;
    return true;
}

static void show_substeps(const void *field, char *out, size_t out_size) {
    const substeps_choice *choice = field;
    if (choice->automatic) {
        snprintf(out, out_size, "auto");
    } else {
        snprintf(out, out_size, "%d", choice->count);
    }
}

#define SIM_FIELD(field) offsetof(sim_options, field)

static const psb_option mesh_table[] = {
    {.name = "mesh",
     .type = PSB_OPT_STRING,
     .offset = SIM_FIELD(mesh),
     .meta = "FILE",
     .help = "simulate an OBJ file instead of a shape: one body per closed component, "
             "fitted to --radius unless --fit says otherwise"},
};

static const psb_option body_table[] = {
    {.name = "mass",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.body.mass),
     .meta = "M",
     .unit = "kg",
     .help = "total mass of the body (of each body, with --mesh)",
     .min = 0,
     .max = INFINITY,
     .min_open = true},
    {.name = "ks",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.body.spring_k),
     .meta = "K",
     .unit = "N/m",
     .help = "spring stiffness",
     .min = 0,
     .max = INFINITY},
    {.name = "kd",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.body.spring_damping),
     .meta = "D",
     .unit = "N·s/m",
     .help = "spring damping along the spring",
     .min = 0,
     .max = INFINITY},
    {.name = "nrt",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.body.gas_nrt),
     .meta = "G",
     .unit = "J",
     .help = "gas amount nRT; pressure = nRT / volume - p0 (ring default: 10)",
     .min = 0,
     .max = INFINITY},
    {.name = "p0",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.body.outside_pressure),
     .meta = "P",
     .unit = "Pa; ring: N/m",
     .help = "outside pressure, subtracted from nRT / V",
     .min = -INFINITY,
     .max = INFINITY},
    {.name = "inflate-time",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.body.inflate_time),
     .meta = "T",
     .unit = "s",
     .help = "ramp the gas from 0 to nRT over this time, 0 = at once",
     .min = 0,
     .max = INFINITY},
    {.name = "mass-by-area",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(params.body.mass_by_area),
     .help = "split the mass by the area around each point, not evenly"},
};

static const psb_option world_table[] = {
    {.name = "gravity",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.gravity),
     .meta = "G",
     .unit = "m/s²",
     .help = "gravitational acceleration along -y, 0 = off",
     .min = -INFINITY,
     .max = INFINITY},
    {.name = "gravity-waits",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(params.gravity_waits_for_gas),
     .help = "hold gravity off until the gas is fully pumped in"},
    {.name = "floor",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.floor_y),
     .meta = "Y",
     .unit = "m",
     .help = "height of the floor plane",
     .min = -INFINITY,
     .max = INFINITY},
    {.name = "no-floor",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(no_floor),
     .help = "no floor; --height still counts from the --floor height"},
    {.name = "height",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(height),
     .meta = "H",
     .unit = "m",
     .help = "start with the body's lowest point this far above the floor",
     .min = 0,
     .max = INFINITY},
    {.name = "restitution",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.restitution),
     .meta = "E",
     .help = "bounce: normal velocity after a contact = -E x before",
     .min = 0,
     .max = 1},
    {.name = "friction",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.friction),
     .meta = "MU",
     .unit = "1/s",
     .help = "friction rate: tangential velocity *= exp(-MU h) each sub-step h",
     .min = 0,
     .max = INFINITY},
    {.name = "walls",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(params),
     .meta = "X0,Y0,Z0,X1,Y1,Z1",
     .unit = "m",
     .help = "keep the points inside this box",
     .parse = parse_walls,
     .show = show_walls},
    {.name = "sphere",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(spheres),
     .meta = "X,Y,Z,R",
     .unit = "m",
     .help = "a static sphere collider",
     .repeatable = true,
     .parse = parse_sphere},
};

static const psb_option run_table[] = {
    {.name = "integrator",
     .type = PSB_OPT_CHOICE,
     .offset = SIM_FIELD(integrator),
     .help = "time integrator",
     .choice = integrator_choice,
     .choice_count = PSB_INTEGRATOR_COUNT},
    {.name = "dt",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.dt),
     .meta = "DT",
     .unit = "s",
     .help = "length of one world step",
     .min = 0,
     .max = INFINITY,
     .min_open = true},
    {.name = "substeps",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(substeps),
     .meta = "N|auto",
     .help = "integration sub-steps per world step; auto: 20, or more when the bodies' "
             "stability estimate needs them (up to 10000)",
     .parse = parse_substeps,
     .show = show_substeps},
    {.name = "time",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(time),
     .meta = "T",
     .unit = "s",
     .help = "simulated time to run",
     .min = 0,
     .max = INFINITY},
    {.name = "steps",
     .type = PSB_OPT_INT,
     .offset = SIM_FIELD(steps),
     .meta = "N",
     .help = "world steps to run, instead of --time",
     .default_text = "--time / --dt",
     .min = 0,
     .max = INT_MAX},
    {.name = "csv",
     .type = PSB_OPT_STRING,
     .offset = SIM_FIELD(csv),
     .meta = "FILE",
     .help = "write t, volume, pressure, energies, mean radius, centroid, min y per interval"},
    {.name = "csv-every",
     .type = PSB_OPT_INT,
     .offset = SIM_FIELD(csv_every),
     .meta = "N",
     .help = "steps between CSV rows",
     .min = 1,
     .max = INT_MAX},
    {.name = "summary",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(summary),
     .help = "print the final state as key=value lines"},
};

#define COUNT_OF(table) ((int)(sizeof(table) / sizeof((table)[0])))

enum { SHAPE_GROUP, MESH_GROUP, REPAIR_GROUP, BODY_GROUP, WORLD_GROUP, RUN_GROUP, GROUP_COUNT };

// Counters of how often each option was given, one array per group.
typedef struct seen_counts {
    int shape[PSB_SHAPE_OPTION_COUNT];
    int mesh[COUNT_OF(mesh_table)];
    int repair[PSB_MESH_OPTION_COUNT];
    int body[COUNT_OF(body_table)];
    int world[COUNT_OF(world_table)];
    int run[COUNT_OF(run_table)];
} seen_counts;

static void make_groups(psb_option_group groups[GROUP_COUNT], psb_shape_options *shape,
                        sim_options *sim, seen_counts *seen) {
    groups[SHAPE_GROUP] = psb_shape_option_group(shape, seen ? seen->shape : NULL);
    groups[MESH_GROUP] =
        (psb_option_group){"Mesh", mesh_table, COUNT_OF(mesh_table), sim, seen ? seen->mesh : NULL};
    groups[REPAIR_GROUP] = psb_mesh_option_group(&sim->repair, seen ? seen->repair : NULL);
    groups[BODY_GROUP] =
        (psb_option_group){"Body", body_table, COUNT_OF(body_table), sim, seen ? seen->body : NULL};
    groups[WORLD_GROUP] = (psb_option_group){"World", world_table, COUNT_OF(world_table), sim,
                                             seen ? seen->world : NULL};
    groups[RUN_GROUP] = (psb_option_group){"Run and output", run_table, COUNT_OF(run_table), sim,
                                           seen ? seen->run : NULL};
}

static sim_options default_sim_options(void) {
    sim_options sim;
    memset(&sim, 0, sizeof sim);
    sim.params = psb_default_params();
    sim.integrator = (int)sim.params.integrator;
    sim.substeps = (substeps_choice){.automatic = true, .count = sim.params.substeps};
    sim.repair = psb_default_mesh_options(true);
    sim.time = 5.0;
    sim.steps = 0;
    sim.no_floor = !sim.params.floor;
    sim.height = 1.0;
    sim.csv = NULL;
    sim.csv_every = 1;
    return sim;
}

static void print_help(FILE *out) {
    psb_shape_options shape = psb_default_shape_options();
    sim_options sim = default_sim_options();
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, &shape, &sim, NULL);
    fprintf(out, "usage: psb sim [options]\n"
                 "       psb sim --mesh FILE.obj [options]\n"
                 "\n"
                 "Runs a pressurised soft body headless and prints its final state: a generated\n"
                 "shape, or one body per closed component of an OBJ file, repaired as the mesh\n"
                 "repair options say and lifted together so the lowest point starts --height\n"
                 "above the floor. With several bodies the figures are sums (means for the\n"
                 "pressure; the centroid and mean radius over all points).\n"
                 "Options take their value as --name VALUE or --name=VALUE.\n"
                 "\n");
    psb_options_print_help(out, groups, GROUP_COUNT);
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
static bool make_meshes(const psb_shape_options *shape, const sim_options *sim, body_meshes *meshes,
                        int *status) {
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
        snprintf(meshes->what, sizeof meshes->what, "%s, %d closed component%s, %s", sim->mesh,
                 meshes->count, meshes->count == 1 ? "" : "s", size);
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

// Reads and checks the options; false after printing one line on stderr.
static bool read_options(int argc, char **argv, psb_shape_options *shape, sim_options *sim) {
    seen_counts seen;
    memset(&seen, 0, sizeof seen);
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, shape, sim, &seen);
    char error[512];
    if (!psb_options_parse("psb sim", argc, argv, groups, GROUP_COUNT, NULL, error, sizeof error) ||
        !psb_mesh_options_check(seen.repair, "psb sim", error, sizeof error)) {
        fprintf(stderr, "%s\n", error);
        return false;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "time") &&
        psb_options_seen(groups, GROUP_COUNT, "steps")) {
        fprintf(stderr, "psb sim: --time and --steps cannot be used together\n");
        return false;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "floor") &&
        psb_options_seen(groups, GROUP_COUNT, "no-floor")) {
        fprintf(stderr, "psb sim: --floor and --no-floor cannot be used together\n");
        return false;
    }
    if (sim->mesh) {
        // --radius stays: it is what --fit defaults to.
        static const char *const shape_only[] = {"shape", "points", "subdiv"};
        for (int i = 0; i < 3; i++) {
            if (psb_options_seen(groups, GROUP_COUNT, shape_only[i])) {
                fprintf(stderr, "psb sim: --mesh and --%s cannot be used together\n",
                        shape_only[i]);
                return false;
            }
        }
    } else {
        const char *given = psb_mesh_options_first_given(seen.repair);
        if (given) {
            fprintf(stderr, "psb sim: --%s needs --mesh FILE\n", given);
            return false;
        }
    }
    if (!sim->mesh && shape->shape == PSB_SHAPE_RING &&
        !psb_options_seen(groups, GROUP_COUNT, "nrt")) {
        sim->params.body.gas_nrt = psb_default_gas_nrt(PSB_RING);
    }
    sim->params.integrator = (psb_integrator)sim->integrator;
    sim->params.floor = !sim->no_floor;
    // auto starts from the default count and raises it once the bodies exist.
    sim->params.substeps =
        sim->substeps.automatic ? psb_default_params().substeps : sim->substeps.count;
    if (!psb_options_seen(groups, GROUP_COUNT, "steps")) {
        // Round up, but not past a whole number that division missed by an ulp.
        double exact = sim->time / sim->params.dt;
        double steps = ceil(exact - 1e-9 * fmax(1.0, exact));
        if (!(steps <= (double)INT_MAX)) {
            fprintf(stderr, "psb sim: --time %g at --dt %g is more than %d steps\n", sim->time,
                    sim->params.dt, INT_MAX);
            return false;
        }
        sim->steps = steps > 0.0 ? (int)steps : 0;
    }
    psb_error err = {0};
    if (psb_params_validate(&sim->params, &err) != PSB_OK ||
        psb_body_params_validate(&sim->params.body, &err) != PSB_OK) {
        fprintf(stderr, "psb sim: %s\n", err.message);
        return false;
    }
    return true;
}

// Makes the world with its colliders and one body per mesh, all lifted
// together so the lowest point starts --height above the floor; NULL after
// printing one line on stderr (*status says which exit status).
static psb_world *make_world(const sim_options *sim, const body_meshes *meshes, int *status) {
    psb_error err = {0};
    psb_world *world = psb_world_create(&sim->params, &err);
    if (!world) {
        fprintf(stderr, "psb sim: %s\n", err.message);
        *status = status_for(err.status);
        return NULL;
    }
    for (int i = 0; i < sim->spheres.count; i++) {
        if (psb_world_add_sphere(world, sim->spheres.centre[i], sim->spheres.radius[i], &err) !=
            PSB_OK) {
            fprintf(stderr, "psb sim: --sphere: %s\n", err.message);
            psb_world_destroy(world);
            *status = status_for(err.status);
            return NULL;
        }
    }
    const double lift = sim->params.floor_y + sim->height - lowest_y(meshes);
    for (int m = 0; m < meshes->count; m++) {
        psb_body_def def = psb_mesh_body_def(&meshes->parts[m]);
        def.params = sim->params.body;
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
    return world;
}

// The largest sub-step at which every body is estimated to stay stable, s.
static double stable_substep(const psb_world *world) {
    double h_max = INFINITY;
    for (int b = 0; b < psb_world_body_count(world); b++) {
        h_max = fmin(h_max, psb_body_stable_substep(world, b));
    }
    return h_max;
}

// --substeps auto: the default count, or the smallest count n with
// dt / n <= 0.9 h_stable, n = ceil(dt / (0.9 h_stable)), if that is more;
// at most MAX_SUBSTEPS.
static void choose_substeps(psb_world *world) {
    psb_params params = *psb_world_params(world);
    const double needed = ceil(params.dt / (AUTO_SUBSTEP_MARGIN * stable_substep(world)));
    if (!(needed <= params.substeps)) {
        params.substeps = needed <= MAX_SUBSTEPS ? (int)needed : MAX_SUBSTEPS;
        // Within 1..MAX_SUBSTEPS the parameters stay valid.
        psb_world_set_params(world, &params, NULL);
    }
}

// Explicit integrators have a largest stable step; say so before a run that
// would only blow up.
static void warn_if_unstable(const psb_world *world) {
    const psb_params *params = psb_world_params(world);
    const double h = params->dt / params->substeps;
    const double h_max = stable_substep(world);
    if (h > h_max) {
        const double needed = ceil(params->dt / h_max);
        const bool several = psb_world_body_count(world) > 1;
        fprintf(stderr,
                "psb sim: warning: the sub-step %.3g s is above %s estimated stable "
                "limit %.3g s (from ks, kd and the mass per point); blow-ups are likely: try "
                "--substeps %.0f or more%s\n",
                h, several ? "the bodies'" : "this body's", h_max, needed,
                needed > MAX_SUBSTEPS
                    ? " (past the limit: lower --ks, --kd or --dt, or raise --mass)"
                    : "");
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

int psb_cmd_sim(int argc, char **argv) {
    if (psb_options_wants_help(argc, argv)) {
        print_help(stdout);
        return 0;
    }
    psb_shape_options shape = psb_default_shape_options();
    sim_options sim = default_sim_options();
    if (!read_options(argc, argv, &shape, &sim)) {
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
    body_meshes meshes = {0};
    psb_world *world = NULL;
    if (make_meshes(&shape, &sim, &meshes, &status)) {
        world = make_world(&sim, &meshes, &status);
    }
    // The world has copied the meshes; only their description is still needed.
    body_meshes_free(&meshes);
    if (!world) {
        if (csv) {
            fclose(csv);
        }
        return status;
    }
    if (sim.substeps.automatic) {
        choose_substeps(world);
    }
    warn_if_unstable(world);

    progress bar = {.enabled = isatty(fileno(stderr)) != 0, .start = now_seconds()};
    double start = bar.start;
    long total = sim.steps;
    if (csv) {
        psb_sim_state s = psb_sim_measure(world);
        psb_sim_write_csv_header(csv);
        psb_sim_write_csv_row(csv, psb_world_time(world), &s);
    }
    int events = 0;
    for (long k = 1; k <= total; k++) {
        if (psb_world_step(world) > 0) {
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
            psb_sim_state s = psb_sim_measure(world);
            psb_sim_write_csv_row(csv, psb_world_time(world), &s);
        }
        progress_update(&bar, k, total);
    }
    progress_clear(&bar);
    double wall = now_seconds() - start;

    psb_sim_state final_state = psb_sim_measure(world);
    if (sim.summary) {
        psb_sim_print_summary(world, &final_state);
    } else {
        psb_sim_print_report(world, meshes.what, sim.substeps.automatic, &final_state, wall);
    }
    if (events > 0) {
        fprintf(stderr, "psb sim: %d blow-up%s detected and recovered from\n", events,
                events == 1 ? "" : "s");
    }
    psb_world_destroy(world);
    if (csv) {
        bool failed = ferror(csv) != 0;
        failed = fclose(csv) != 0 || failed;
        if (failed) {
            fprintf(stderr, "psb sim: --csv: error writing '%s'\n", sim.csv);
            return 1;
        }
    }
    if (fflush(stdout) != 0) {
        return 1;
    }
    return 0;
}
