// The options of `psb sim`; see sim_options.h.
#include "sim_options.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int psb_sim_max_substeps(void) {
    return (int)psb_options_param("substeps")->max;
}

// The box's corners, each coordinate in the core's range for them.
static bool parse_walls(const char *text, void *field, char *expected, size_t expected_size) {
    psb_params *params = field;
    const psb_param_info *lower = psb_options_param("walls-min");
    const psb_param_info *upper = psb_options_param("walls-max");
    double v[6];
    const bool read = psb_options_parse_param_numbers(
        text, lower, v, 6, "six numbers X0,Y0,Z0,X1,Y1,Z1", expected, expected_size);
    const size_t used = strlen(expected);
    snprintf(expected + used, expected_size - used, ", with X0 < X1, Y0 < Y1 and Z0 < Z1");
    if (!read || !psb_param_in_range(upper, v[3]) || !psb_param_in_range(upper, v[4]) ||
        !psb_param_in_range(upper, v[5]) || !(v[0] < v[3]) || !(v[1] < v[4]) || !(v[2] < v[5])) {
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
    psb_sim_spheres *spheres = field;
    double v[4];
    if (spheres->count >= PSB_SIM_MAX_SPHERES) {
        snprintf(expected, expected_size, "at most %d spheres", PSB_SIM_MAX_SPHERES);
        return false;
    }
    // The centre where the walls' corners may be, the radius a size.
    const psb_param_info *coordinate = psb_options_param("walls-min");
    char range[160];
    psb_param_describe_range(coordinate, range, sizeof range);
    snprintf(expected, expected_size, "four numbers X,Y,Z,R: X, Y and Z each %s, R from %g to %g",
             range, PSB_OPT_SIZE_MIN, PSB_OPT_SIZE_MAX);
    if (!psb_options_parse_numbers(text, v, 4) || !psb_param_in_range(coordinate, v[0]) ||
        !psb_param_in_range(coordinate, v[1]) || !psb_param_in_range(coordinate, v[2]) ||
        !(v[3] >= PSB_OPT_SIZE_MIN && v[3] <= PSB_OPT_SIZE_MAX)) {
        return false;
    }
    spheres->centre[spheres->count] = (psb_vec3){v[0], v[1], v[2]};
    spheres->radius[spheres->count] = v[3];
    spheres->count++;
    return true;
}

static bool parse_substeps(const char *text, void *field, char *expected, size_t expected_size) {
    psb_sim_substeps *choice = field;
    return psb_options_parse_substeps(text, &choice->automatic, &choice->count, expected,
                                      expected_size);
}

static void show_substeps(const void *field, char *out, size_t out_size) {
    const psb_sim_substeps *choice = field;
    if (choice->automatic) {
        snprintf(out, out_size, "auto");
    } else {
        snprintf(out, out_size, "%d", choice->count);
    }
}

static bool parse_pin(const char *text, void *field, char *expected, size_t expected_size) {
    psb_sim_pins *pins = field;
    if (pins->count >= PSB_SIM_MAX_PINS) {
        snprintf(expected, expected_size, "at most %d pins", PSB_SIM_MAX_PINS);
        return false;
    }
    snprintf(expected, expected_size, "a point index, an integer >= 0");
    double value = 0.0;
    if (!psb_options_parse_numbers(text, &value, 1) || value != floor(value) || value < 0.0 ||
        value > INT_MAX) {
        return false;
    }
    pins->point[pins->count++] = (int)value;
    return true;
}

static bool parse_wind(const char *text, void *field, char *expected, size_t expected_size) {
    psb_vec3 *wind = field;
    double v[3];
    if (!psb_options_parse_param_numbers(text, psb_options_param("wind"), v, 3,
                                         "three numbers X,Y,Z", expected, expected_size)) {
        return false;
    }
    *wind = (psb_vec3){v[0], v[1], v[2]};
    return true;
}

static void show_wind(const void *field, char *out, size_t out_size) {
    const psb_vec3 *wind = field;
    snprintf(out, out_size, "%g,%g,%g", wind->x, wind->y, wind->z);
}

// The scenes' names, "default, pressure, ... or ring".
static void scene_names(char *out, size_t out_size) {
    size_t used = 0;
    out[0] = '\0';
    const int count = psb_scene_count();
    for (int i = 0; i < count && used < out_size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
        const int n = snprintf(out + used, out_size - used, "%s%s", sep, psb_scene_name(i));
        used += n > 0 ? (size_t)n : 0;
    }
}

static bool parse_scene(const char *text, void *field, char *expected, size_t expected_size) {
    const char **scene = field;
    if (psb_scene_find(text) < 0) {
        char names[256];
        scene_names(names, sizeof names);
        snprintf(expected, expected_size, "one of %s", names);
        return false;
    }
    *scene = psb_scene_name(psb_scene_find(text));
    return true;
}

static void show_scene(const void *field, char *out, size_t out_size) {
    (void)field;
    char names[256];
    scene_names(names, sizeof names);
    snprintf(out, out_size, "none; one of %s", names);
}

#define SIM_FIELD(field) offsetof(psb_sim_options, field)

static const psb_option mesh_table[] = {
    {.name = "mesh",
     .type = PSB_OPT_STRING,
     .offset = SIM_FIELD(mesh),
     .meta = "FILE",
     .help = "simulate an OBJ file instead of a shape: one body per closed component, "
             "fitted to --radius unless --fit says otherwise; with --scene, added to the "
             "scene's bodies (on the pile: dropped onto it)"},
};

static const psb_option scene_table[] = {
    {.name = "scene",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(scene),
     .meta = "NAME",
     .help = "run a scene (as `psb view` shows it) instead of a shape: its bodies, world and "
             "sub-steps, changed only by the options given (see below)",
     .parse = parse_scene,
     .show = show_scene},
    {.name = "balls",
     .type = PSB_OPT_INT,
     .offset = SIM_FIELD(balls),
     .meta = "N",
     .help = "with --scene pile: the balls it drops (more than 12: nine a layer into a box of "
             "2.6 m; 50 with the rings is the stress test of contact)",
     .min = 1,
     .max = PSB_PILE_MAX_BALLS},
};

static const psb_option body_table[] = {
    {.name = "mass",
     .param = "mass",
     .offset = SIM_FIELD(params.body.mass),
     .meta = "M",
     .help = "total mass of the body (of each body, with --mesh)"},
    {.name = "ks",
     .param = "ks",
     .offset = SIM_FIELD(params.body.spring_k),
     .meta = "K",
     .help = "spring stiffness (with --mesh: the mesh's own)"},
    {.name = "kd", .param = "kd", .offset = SIM_FIELD(params.body.spring_damping), .meta = "D"},
    {.name = "nrt",
     .param = "nrt",
     .offset = SIM_FIELD(params.body.gas_nrt),
     .meta = "G",
     .help = "gas amount nRT; pressure = nRT / volume - p0 (ring default: 10; with --mesh: "
             "the mesh's own)"},
    {.name = "p0", .param = "p0", .offset = SIM_FIELD(params.body.outside_pressure), .meta = "P"},
    {.name = "inflate-time",
     .param = "inflate-time",
     .offset = SIM_FIELD(params.body.inflate_time),
     .meta = "T"},
    {.name = "mass-by-area",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(params.body.mass_by_area),
     .help = "split the mass by the area around each point, not evenly"},
    {.name = "shape-k", .param = "shape-k", .offset = SIM_FIELD(params.body.shape_k), .meta = "K"},
    {.name = "shape-damping",
     .param = "shape-damping",
     .offset = SIM_FIELD(params.body.shape_damping),
     .meta = "R"},
    {.name = "wind-drag",
     .param = "wind-drag",
     .offset = SIM_FIELD(params.body.wind_drag),
     .meta = "C"},
    {.name = "fold-limit",
     .param = "fold-limit",
     .offset = SIM_FIELD(params.body.fold_limit),
     .meta = "F"},
    {.name = "pin",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(pins),
     .meta = "I",
     .help = "hold point I of the (first) body still where it starts",
     .repeatable = true,
     .parse = parse_pin},
};

static const psb_option world_table[] = {
    {.name = "gravity", .param = "gravity", .offset = SIM_FIELD(params.gravity), .meta = "G"},
    {.name = "gravity-waits",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(params.gravity_waits_for_gas),
     .help = "hold gravity off until the gas is fully pumped in"},
    {.name = "floor", .param = "floor", .offset = SIM_FIELD(params.floor_y), .meta = "Y"},
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
     .max = PSB_OPT_SIZE_MAX},
    {.name = "restitution",
     .param = "restitution",
     .offset = SIM_FIELD(params.restitution),
     .meta = "E"},
    {.name = "friction", .param = "friction", .offset = SIM_FIELD(params.friction), .meta = "MU"},
    // Both corners have the range of walls-min (and walls-max, the same).
    {.name = "walls",
     .param = "walls-min",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(params),
     .meta = "X0,Y0,Z0,X1,Y1,Z1",
     .help = "keep the points inside this box",
     .parse = parse_walls,
     .show = show_walls},
    {.name = "sphere",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(spheres),
     .meta = "X,Y,Z,R",
     .unit = "m",
     .help = "a static sphere collider: centre X,Y,Z (each where a --walls corner may be), "
             "radius R (in the range of --radius)",
     .repeatable = true,
     .parse = parse_sphere},
    {.name = "wind",
     .param = "wind",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(params.wind),
     .meta = "X,Y,Z",
     .help = "wind velocity (gusts: --wind-turbulence)",
     .parse = parse_wind,
     .show = show_wind},
    {.name = "wind-turbulence",
     .param = "wind-turbulence",
     .offset = SIM_FIELD(params.wind_turbulence),
     .meta = "A"},
    {.name = "no-body-contact",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(no_body_contact),
     .help = "bodies pass through each other (contact between bodies off; docs/contact.md)"},
    {.name = "no-contact-solve",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(no_contact_solve),
     .help = "with a solved integrator, bodies that may touch are not solved together: they "
             "are held apart only after the step, by the contact stage (docs/contact.md)"},
    {.name = "self-contact",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(params.self_contact),
     .help = "a body touches itself too: a surface that folds onto itself is held a skin off "
             "itself (a 3D body's by links of the solve, with a solved integrator: "
             "docs/contact.md); a --scene has it on but for the --mesh models, which this "
             "option adds"},
    {.name = "no-self-contact",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(no_self_contact),
     .help = "no body touches itself, in a --scene too (where it is on but for loaded models)"},
    {.name = "contact-thickness",
     .param = "contact-thickness",
     .offset = SIM_FIELD(params.contact_thickness),
     .meta = "D"},
    {.name = "contact-friction",
     .param = "contact-friction",
     .offset = SIM_FIELD(params.contact_friction),
     .meta = "MU"},
};

static const psb_option run_table[] = {
    {.name = "integrator",
     .param = "integrator",
     .offset = SIM_FIELD(integrator),
     .help = "time integrator: bdf2 and implicit solve one step of dt, the explicit ones take "
             "--substeps (implicit when --mesh loads a file and this is not given)"},
    {.name = "dt", .param = "dt", .offset = SIM_FIELD(params.dt), .meta = "DT"},
    {.name = "substeps",
     .type = PSB_OPT_CUSTOM,
     .offset = SIM_FIELD(substeps),
     .meta = "N|auto",
     .help = "integration sub-steps per world step; auto: 20, or more when the bodies' "
             "stability estimate needs them (up to 10000); with implicit or bdf2, 1",
     .parse = parse_substeps,
     .show = show_substeps},
    {.name = "tol", .param = "tol", .offset = SIM_FIELD(params.solver_tol), .meta = "X"},
    {.name = "iterations",
     .param = "iterations",
     .offset = SIM_FIELD(params.solver_iterations),
     .meta = "N"},
    {.name = "blowup-size",
     .param = "blowup-size",
     .offset = SIM_FIELD(params.blowup_size),
     .meta = "D",
     .help = "a point that moves farther than D body diameters in one world step counts as a "
             "blow-up (the body is reset and counted in blowups)"},
    {.name = "threads", .param = "threads", .offset = SIM_FIELD(params.threads), .meta = "N"},
    // Up to 1e7 s (four months): any longer is more world steps than an int
    // holds at any --dt worth taking.
    {.name = "time",
     .type = PSB_OPT_NUMBER,
     .offset = SIM_FIELD(time),
     .meta = "T",
     .unit = "s",
     .help = "simulated time to run",
     .min = 0,
     .max = 1e7},
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
    {.name = "export-obj",
     .type = PSB_OPT_STRING,
     .offset = SIM_FIELD(export_obj),
     .meta = "DIR",
     .help = "write each body's surface as DIR/body<b>_step<s>.obj (s: 6 digits) at step 0, "
             "every --every steps and the last step; DIR must exist"},
    {.name = "every",
     .type = PSB_OPT_INT,
     .offset = SIM_FIELD(export_every),
     .meta = "N",
     .help = "with --export-obj: steps between exported frames",
     .min = 1,
     .max = INT_MAX},
    {.name = "summary",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(summary),
     .help = "print the final state as key=value lines"},
    {.name = "reference",
     .type = PSB_OPT_FLAG,
     .offset = SIM_FIELD(reference),
     .help = "run the model written plainly (src/model) instead of the fast step: the same "
             "bodies and physics, one point at a time, for checking; it has no shape "
             "matching, gusts or blow-up guard, and refuses them"},
};

#define COUNT_OF(table) ((int)(sizeof(table) / sizeof((table)[0])))

enum {
    SHAPE_GROUP,
    MESH_GROUP,
    REPAIR_GROUP,
    SCENE_GROUP,
    BODY_GROUP,
    WORLD_GROUP,
    RUN_GROUP,
    GROUP_COUNT
};

// Counters of how often each option was given, one array per group.
typedef struct seen_counts {
    int shape[PSB_SHAPE_OPTION_COUNT];
    int mesh[COUNT_OF(mesh_table)];
    int repair[PSB_MESH_OPTION_COUNT];
    int scene[COUNT_OF(scene_table)];
    int body[COUNT_OF(body_table)];
    int world[COUNT_OF(world_table)];
    int run[COUNT_OF(run_table)];
} seen_counts;

static void make_groups(psb_option_group groups[GROUP_COUNT], psb_shape_options *shape,
                        psb_sim_options *sim, seen_counts *seen) {
    groups[SHAPE_GROUP] = psb_shape_option_group(shape, seen ? seen->shape : NULL);
    groups[MESH_GROUP] =
        (psb_option_group){"Mesh", mesh_table, COUNT_OF(mesh_table), sim, seen ? seen->mesh : NULL};
    groups[REPAIR_GROUP] = psb_mesh_option_group(&sim->repair, seen ? seen->repair : NULL);
    groups[SCENE_GROUP] = (psb_option_group){"Scene", scene_table, COUNT_OF(scene_table), sim,
                                             seen ? seen->scene : NULL};
    groups[BODY_GROUP] =
        (psb_option_group){"Body", body_table, COUNT_OF(body_table), sim, seen ? seen->body : NULL};
    groups[WORLD_GROUP] = (psb_option_group){"World", world_table, COUNT_OF(world_table), sim,
                                             seen ? seen->world : NULL};
    groups[RUN_GROUP] = (psb_option_group){"Run and output", run_table, COUNT_OF(run_table), sim,
                                           seen ? seen->run : NULL};
}

psb_sim_options psb_sim_default_options(void) {
    psb_sim_options sim;
    memset(&sim, 0, sizeof sim);
    sim.params = psb_default_params();
    sim.params.integrator = PSB_SCENE_INTEGRATOR;
    sim.params.contact_solve = psb_default_scene_config().params.contact_solve;
    sim.integrator = (int)sim.params.integrator;
    sim.substeps = (psb_sim_substeps){.automatic = true, .count = sim.params.substeps};
    sim.repair = psb_default_mesh_options(true);
    sim.time = 5.0;
    sim.steps = 0;
    sim.no_floor = !sim.params.floor;
    sim.no_body_contact = !sim.params.body_contact;
    sim.no_contact_solve = !sim.params.contact_solve;
    sim.height = 1.0;
    sim.balls = psb_default_scene_config().pile_balls;
    sim.csv = NULL;
    sim.csv_every = 1;
    sim.export_obj = NULL;
    sim.export_every = 1;
    sim.scene = NULL;
    sim.scene_config = psb_default_scene_config();
    return sim;
}

void psb_sim_options_print_help(FILE *out) {
    psb_shape_options shape = psb_default_shape_options();
    psb_sim_options sim = psb_sim_default_options();
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, &shape, &sim, NULL);
    psb_options_print_help(out, groups, GROUP_COUNT);
}

// The first of names[0 .. count - 1] given on the command line, or NULL.
static const char *first_given(const psb_option_group *groups, const char *const *names,
                               int count) {
    for (int i = 0; i < count; i++) {
        if (psb_options_seen(groups, GROUP_COUNT, names[i])) {
            return names[i];
        }
    }
    return NULL;
}

// A world parameter (or a field of the material every body of a scene gets)
// that a scene takes from the option, when given.
typedef struct scene_param {
    const char *option;
    size_t offset; // into psb_params
    size_t size;
} scene_param;

#define PARAM(field) offsetof(psb_params, field), sizeof(((psb_params *)NULL)->field)

static const scene_param scene_params[] = {
    {"mass", PARAM(body.mass)},
    {"ks", PARAM(body.spring_k)},
    {"kd", PARAM(body.spring_damping)},
    {"p0", PARAM(body.outside_pressure)},
    {"inflate-time", PARAM(body.inflate_time)},
    {"mass-by-area", PARAM(body.mass_by_area)},
    {"shape-k", PARAM(body.shape_k)},
    {"shape-damping", PARAM(body.shape_damping)},
    {"wind-drag", PARAM(body.wind_drag)},
    {"fold-limit", PARAM(body.fold_limit)},
    {"gravity", PARAM(gravity)},
    {"gravity-waits", PARAM(gravity_waits_for_gas)},
    {"floor", PARAM(floor_y)},
    {"no-floor", PARAM(floor)},
    {"no-body-contact", PARAM(body_contact)},
    {"self-contact", PARAM(self_contact)},
    {"no-self-contact", PARAM(self_contact)},
    {"contact-thickness", PARAM(contact_thickness)},
    {"contact-friction", PARAM(contact_friction)},
    {"no-contact-solve", PARAM(contact_solve)},
    {"restitution", PARAM(restitution)},
    {"friction", PARAM(friction)},
    {"walls", PARAM(walls)},
    {"walls", PARAM(walls_min)},
    {"walls", PARAM(walls_max)},
    {"wind", PARAM(wind)},
    {"wind-turbulence", PARAM(wind_turbulence)},
    {"integrator", PARAM(integrator)},
    {"dt", PARAM(dt)},
    {"threads", PARAM(threads)},
    {"tol", PARAM(solver_tol)},
    {"iterations", PARAM(solver_iterations)},
    {"blowup-size", PARAM(blowup_size)},
};

// With --scene: the scene's own configuration, changed only where an option
// was given. The material options reach every body that takes the scene's
// material (the flag keeps its own cloth, the shape scene its gas-only
// bodies without shape matching); --shape-k and --shape-damping also set the
// shape scene's matched bodies, --wind and --wind-turbulence the flag's
// wind; --radius, --points, --subdiv and --height size and place the scene's
// bodies. False after printing one line on stderr.
static bool configure_scene(const psb_option_group *groups, const psb_sim_options *sim,
                            psb_scene_config *config) {
    static const char *const refused[] = {"shape", "columns", "rows", "nrt", "pin"};
    const char *given = first_given(groups, refused, COUNT_OF(refused));
    if (given) {
        fprintf(stderr, "psb sim: --scene and --%s cannot be used together (%s)\n", given,
                strcmp(given, "nrt") != 0 && strcmp(given, "pin") != 0
                    ? "the scene makes its own bodies"
                : strcmp(given, "nrt") == 0 ? "the scene sets each body's gas"
                                            : "the scene pins its own points");
        return false;
    }
    *config = psb_default_scene_config();
    for (int i = 0; i < COUNT_OF(scene_params); i++) {
        const scene_param *p = &scene_params[i];
        if (psb_options_seen(groups, GROUP_COUNT, p->option)) {
            memcpy((char *)&config->params + p->offset, (const char *)&sim->params + p->offset,
                   p->size);
        }
    }
    // --mesh's bodies take their own springs unless --ks says (as psb view
    // --ks does); their gas is their own (--nrt does not go with a scene).
    config->model_spring_k = !sim->spring_k_given;
    // A loaded model touches itself only if --self-contact says so.
    config->model_self_contact = psb_options_seen(groups, GROUP_COUNT, "self-contact") > 0;
    if (psb_options_seen(groups, GROUP_COUNT, "substeps")) {
        config->auto_substeps = sim->substeps.automatic;
        if (!sim->substeps.automatic) {
            config->params.substeps = sim->substeps.count;
        }
    }
    const psb_shape_options *shape = groups[SHAPE_GROUP].base;
    if (psb_options_seen(groups, GROUP_COUNT, "radius")) {
        config->radius = shape->radius;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "points")) {
        config->ring_points = shape->points;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "subdiv")) {
        config->sphere_level = shape->subdiv;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "height")) {
        config->drop_height = sim->height;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "balls")) {
        config->pile_balls = sim->balls;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "shape-k")) {
        config->shape_k = sim->params.body.shape_k;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "shape-damping")) {
        config->shape_damping = sim->params.body.shape_damping;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "wind")) {
        config->flag_wind = sim->params.wind;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "wind-turbulence")) {
        config->flag_turbulence = sim->params.wind_turbulence;
    }
    return true;
}

// The steps to take: --steps, or --time / --dt rounded up (but not past a
// whole number that the division missed by an ulp). False after printing
// one line on stderr.
static bool count_steps(const psb_option_group *groups, psb_sim_options *sim, double dt) {
    if (psb_options_seen(groups, GROUP_COUNT, "steps")) {
        return true;
    }
    const double exact = sim->time / dt;
    const double steps = ceil(exact - 1e-9 * fmax(1.0, exact));
    if (!(steps <= (double)INT_MAX)) {
        fprintf(stderr, "psb sim: --time %g at --dt %g is more than %d steps\n", sim->time, dt,
                INT_MAX);
        return false;
    }
    sim->steps = steps > 0.0 ? (int)steps : 0;
    return true;
}

bool psb_sim_options_read(int argc, char **argv, psb_shape_options *shape, psb_sim_options *sim) {
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
    static const char *const exclusive[][2] = {
        {"time", "steps"}, {"floor", "no-floor"}, {"self-contact", "no-self-contact"}};
    for (int i = 0; i < COUNT_OF(exclusive); i++) {
        if (psb_options_seen(groups, GROUP_COUNT, exclusive[i][0]) &&
            psb_options_seen(groups, GROUP_COUNT, exclusive[i][1])) {
            fprintf(stderr, "psb sim: --%s and --%s cannot be used together\n", exclusive[i][0],
                    exclusive[i][1]);
            return false;
        }
    }
    if (psb_options_seen(groups, GROUP_COUNT, "every") && !sim->export_obj) {
        fprintf(stderr, "psb sim: --every needs --export-obj DIR (it spaces the exported "
                        "frames)\n");
        return false;
    }
    if (sim->mesh) {
        // --radius stays: it is what --fit defaults to. (With --scene,
        // --points and --subdiv size the scene's ring and spheres, and the
        // scene refuses the others.)
        static const char *const shape_only[] = {"shape", "points", "subdiv", "columns", "rows"};
        const char *given =
            sim->scene ? NULL : first_given(groups, shape_only, COUNT_OF(shape_only));
        if (given) {
            fprintf(stderr, "psb sim: --mesh and --%s cannot be used together\n", given);
            return false;
        }
    } else {
        const char *given = psb_mesh_options_first_given(seen.repair);
        if (given) {
            fprintf(stderr, "psb sim: --%s needs --mesh FILE\n", given);
            return false;
        }
    }
    if (!sim->mesh && !sim->scene && shape->shape == PSB_SHAPE_CLOTH) {
        static const char *const gas[] = {"nrt", "p0"};
        const char *given = first_given(groups, gas, COUNT_OF(gas));
        if (given) {
            fprintf(stderr, "psb sim: --%s: a cloth holds no gas; leave it out\n", given);
            return false;
        }
    }
    if (!sim->mesh && !sim->scene && !psb_options_seen(groups, GROUP_COUNT, "nrt")) {
        // A ring's default gas fills an area; a cloth holds none.
        sim->params.body.gas_nrt = psb_default_gas_nrt(psb_shape_kind(shape->shape));
    }
    sim->spring_k_given = psb_options_seen(groups, GROUP_COUNT, "ks") > 0;
    sim->gas_nrt_given = psb_options_seen(groups, GROUP_COUNT, "nrt") > 0;
    if (sim->mesh && !psb_options_seen(groups, GROUP_COUNT, "integrator")) {
        sim->integrator = PSB_MODEL_INTEGRATOR; // psb_scene.h says why
    }
    sim->params.integrator = (psb_integrator)sim->integrator;
    sim->params.floor = !sim->no_floor;
    sim->params.body_contact = !sim->no_body_contact;
    sim->params.contact_solve = !sim->no_contact_solve;
    sim->params.self_contact = sim->params.self_contact && !sim->no_self_contact;
    // auto starts from the default count and raises it once the bodies exist;
    // the implicit integrator is stable at any step and takes one sub-step.
    if (!sim->substeps.automatic) {
        sim->params.substeps = sim->substeps.count;
    } else if (psb_integrator_is_implicit(sim->params.integrator)) {
        sim->params.substeps = 1;
    } else {
        sim->params.substeps = psb_default_params().substeps;
    }
    psb_error err = {0};
    if (psb_params_validate(&sim->params, &err) != PSB_OK ||
        psb_body_params_validate(&sim->params.body, &err) != PSB_OK) {
        fprintf(stderr, "psb sim: %s\n", err.message);
        return false;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "balls") &&
        (!sim->scene || strcmp(sim->scene, "pile") != 0)) {
        fprintf(stderr, "psb sim: --balls needs --scene pile (it sets that scene's balls)\n");
        return false;
    }
    if (sim->scene && !configure_scene(groups, sim, &sim->scene_config)) {
        return false;
    }
    return count_steps(groups, sim, sim->scene ? sim->scene_config.params.dt : sim->params.dt);
}
