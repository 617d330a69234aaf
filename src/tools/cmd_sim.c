// `psb sim`: builds one body from the shape options, drops it into a world
// with the given parameters, runs it headless for a fixed time or number of
// steps and prints the final state (a human report, or key=value lines with
// --summary), optionally writing a CSV row per output interval.
#include "commands.h"
#include "options.h"
#include "psb.h"
#include "psb_mesh.h"
#include "shape_options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_SPHERES = 256,       // --sphere may be given this many times
    MAX_REPORTED_EVENTS = 10 // blow-up reports printed before going quiet
};

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
    int integrator; // a psb_integrator, stored as the choice table's int
    double time;    // s to simulate, unless --steps is given
    int steps;      // world steps to take, when given
    bool no_floor;  // --no-floor
    double height;  // m: lowest rest point's height above floor_y at the start
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

#define SIM_FIELD(field) offsetof(sim_options, field)

static const psb_option body_table[] = {
    {.name = "mass",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(params.body.mass),
     .meta = "M",
     .unit = "kg",
     .help = "total mass of the body",
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
     .unit = "J; ring: J/m",
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
     .help = "friction rate: tangential velocity *= exp(-MU dt)",
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
     .type = PSB_OPT_INT,
     .offset = SIM_FIELD(params.substeps),
     .meta = "N",
     .help = "integration sub-steps per world step",
     .min = 1,
     .max = 10000},
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

enum { SHAPE_GROUP, BODY_GROUP, WORLD_GROUP, RUN_GROUP, GROUP_COUNT };

// Counters of how often each option was given, one array per group.
typedef struct seen_counts {
    int shape[PSB_SHAPE_OPTION_COUNT];
    int body[COUNT_OF(body_table)];
    int world[COUNT_OF(world_table)];
    int run[COUNT_OF(run_table)];
} seen_counts;

static void make_groups(psb_option_group groups[GROUP_COUNT], psb_shape_options *shape,
                        sim_options *sim, seen_counts *seen) {
    groups[SHAPE_GROUP] = psb_shape_option_group(shape, seen ? seen->shape : NULL);
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
                 "\n"
                 "Runs one pressurised soft body headless and prints its final state.\n"
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

// ---- output

static const char csv_header[] = "t,volume,pressure,kinetic,spring,gas,gravity,energy,"
                                 "mean_radius,centroid_x,centroid_y,centroid_z,min_y\n";

static void write_csv_row(FILE *csv, double t, const psb_body_state *s) {
    fprintf(csv, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", t, s->volume,
            s->pressure, s->kinetic, s->spring, s->gas, s->gravity, s->energy, s->mean_radius,
            s->centroid.x, s->centroid.y, s->centroid.z, s->min_y);
}

static void print_summary(const psb_world *world, const psb_body_state *s) {
    printf("time=%.9g\n", psb_world_time(world));
    printf("steps=%ld\n", psb_world_step_count(world));
    printf("points=%d\n", psb_body_point_count(world, 0));
    printf("volume=%.9g\n", s->volume);
    printf("pressure=%.9g\n", s->pressure);
    printf("mean_radius=%.9g\n", s->mean_radius);
    printf("kinetic=%.9g\n", s->kinetic);
    printf("spring=%.9g\n", s->spring);
    printf("gas=%.9g\n", s->gas);
    printf("gravity_pe=%.9g\n", s->gravity);
    printf("energy=%.9g\n", s->energy);
    printf("centroid_x=%.9g\n", s->centroid.x);
    printf("centroid_y=%.9g\n", s->centroid.y);
    printf("centroid_z=%.9g\n", s->centroid.z);
    printf("min_y=%.9g\n", s->min_y);
    printf("blowups=%d\n", s->blowups);
}

static void print_report(const psb_world *world, const psb_shape_options *shape,
                         const psb_body_state *s, double wall_seconds) {
    const psb_params *p = psb_world_params(world);
    bool ring = psb_body_get_kind(world, 0) == PSB_RING;
    int springs = 0;
    int triangles = 0;
    psb_body_edges(world, 0, &springs);
    psb_body_triangles(world, 0, &triangles);
    char shape_text[160];
    psb_shape_options_describe(shape, shape_text, sizeof shape_text);
    printf("psb sim: %s\n", shape_text);
    printf("  %d points, %d springs", psb_body_point_count(world, 0), springs);
    if (!ring) {
        printf(", %d triangles", triangles);
    }
    printf("\n  %s, dt %g s in %d sub-steps, gravity %g m/s², ", psb_integrator_name(p->integrator),
           p->dt, p->substeps, p->gravity);
    if (p->floor) {
        printf("floor at y = %g m\n", p->floor_y);
    } else {
        printf("no floor\n");
    }
    printf("  ran %ld steps, %g s simulated, in %.3g s\n", psb_world_step_count(world),
           psb_world_time(world), wall_seconds);
    const char *volume_unit = ring ? "m² (area)" : "m³";
    printf("  volume       %.6g %s (rest %.6g)\n", s->volume, volume_unit, s->rest_volume);
    printf("  pressure     %.6g %s (nRT %g)\n", s->pressure, ring ? "N/m" : "Pa", s->gas_nrt);
    printf("  mean radius  %.6g m\n", s->mean_radius);
    printf("  centroid     (%.6g, %.6g, %.6g) m, lowest point at y = %.6g m\n", s->centroid.x,
           s->centroid.y, s->centroid.z, s->min_y);
    printf("  energy       kinetic %.6g, spring %.6g, gas %.6g, gravity %.6g, total %.6g J\n",
           s->kinetic, s->spring, s->gas, s->gravity, s->energy);
    printf("  blow-ups     %d\n", s->blowups);
}

// ---- the command

static double lowest_y(const psb_mesh *mesh) {
    double low = INFINITY;
    for (int i = 0; i < mesh->point_count; i++) {
        if (mesh->points[i].y < low) {
            low = mesh->points[i].y;
        }
    }
    return mesh->point_count > 0 ? low : 0.0;
}

// Reads and checks the options; false after printing one line on stderr.
static bool read_options(int argc, char **argv, psb_shape_options *shape, sim_options *sim) {
    seen_counts seen;
    memset(&seen, 0, sizeof seen);
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, shape, sim, &seen);
    char error[512];
    if (!psb_options_parse("psb sim", argc, argv, groups, GROUP_COUNT, NULL, error, sizeof error)) {
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
    if (shape->shape == PSB_SHAPE_RING && !psb_options_seen(groups, GROUP_COUNT, "nrt")) {
        sim->params.body.gas_nrt = psb_default_gas_nrt(PSB_RING);
    }
    sim->params.integrator = (psb_integrator)sim->integrator;
    sim->params.floor = !sim->no_floor;
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

// Makes the world with its colliders and the one body; NULL after printing
// one line on stderr (*status says which exit status).
static psb_world *make_world(const psb_shape_options *shape, const sim_options *sim, int *status) {
    psb_error err = {0};
    psb_mesh mesh = {0};
    if (psb_shape_options_build(shape, &mesh, &err) != PSB_OK) {
        fprintf(stderr, "psb sim: cannot build the %s: %s\n", psb_shape_name(shape->shape),
                err.message);
        *status = err.status == PSB_ERR_NOMEM ? 1 : 2;
        return NULL;
    }
    psb_world *world = psb_world_create(&sim->params, &err);
    if (!world) {
        fprintf(stderr, "psb sim: %s\n", err.message);
        psb_mesh_free(&mesh);
        *status = err.status == PSB_ERR_NOMEM ? 1 : 2;
        return NULL;
    }
    for (int i = 0; i < sim->spheres.count; i++) {
        if (psb_world_add_sphere(world, sim->spheres.centre[i], sim->spheres.radius[i], &err) !=
            PSB_OK) {
            fprintf(stderr, "psb sim: --sphere: %s\n", err.message);
            psb_world_destroy(world);
            psb_mesh_free(&mesh);
            *status = err.status == PSB_ERR_NOMEM ? 1 : 2;
            return NULL;
        }
    }
    psb_body_def def = psb_mesh_body_def(&mesh);
    def.params = sim->params.body;
    // Lift the body so that its lowest point starts --height above the floor.
    def.offset = (psb_vec3){0.0, sim->params.floor_y + sim->height - lowest_y(&mesh), 0.0};
    int body = psb_world_add_body(world, &def, &err);
    psb_mesh_free(&mesh);
    if (body < 0) {
        fprintf(stderr, "psb sim: %s\n", err.message);
        psb_world_destroy(world);
        *status = err.status == PSB_ERR_NOMEM ? 1 : 2;
        return NULL;
    }
    return world;
}

// Explicit integrators have a largest stable step; say so before a run that
// would only blow up.
static void warn_if_unstable(const psb_world *world, const sim_options *sim) {
    const double h = sim->params.dt / sim->params.substeps;
    const double h_max = psb_body_stable_substep(world, 0);
    if (h > h_max) {
        const double needed = ceil(sim->params.dt / h_max);
        fprintf(stderr,
                "psb sim: warning: the sub-step %.3g s is above this body's estimated stable "
                "limit %.3g s (from ks, kd and the mass per point); blow-ups are likely: try "
                "--substeps %.0f or more\n",
                h, h_max, needed);
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
    psb_world *world = make_world(&shape, &sim, &status);
    if (!world) {
        if (csv) {
            fclose(csv);
        }
        return status;
    }

    warn_if_unstable(world, &sim);
    progress bar = {.enabled = isatty(fileno(stderr)) != 0, .start = now_seconds()};
    double start = bar.start;
    long total = sim.steps;
    if (csv) {
        psb_body_state s = psb_body_measure(world, 0);
        fputs(csv_header, csv);
        write_csv_row(csv, psb_world_time(world), &s);
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
            psb_body_state s = psb_body_measure(world, 0);
            write_csv_row(csv, psb_world_time(world), &s);
        }
        progress_update(&bar, k, total);
    }
    progress_clear(&bar);
    double wall = now_seconds() - start;

    psb_body_state final_state = psb_body_measure(world, 0);
    if (sim.summary) {
        print_summary(world, &final_state);
    } else {
        print_report(world, &shape, &final_state, wall);
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
