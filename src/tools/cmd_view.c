// `psb view`: parses the options into a psb_viewer_config and runs the viewer.
#include "cmd_view.h"

#include "mesh_options.h"
#include "options.h"
#include <psb/psb_export.h>
#include <psb/psb_viewer.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The options of `psb view` that are not mesh repair options.
typedef struct view_options {
    psb_viewer_config config;
    int size[2];    // --size W x H, screen coordinates
    int substeps;   // 0 = auto
    int integrator; // a psb_integrator, as the choice table stores it
    int scene;      // a psb_scene index
    bool no_vsync;
    bool no_body_contact;
    bool no_contact_solve;
    bool self_contact; // --self-contact: loaded models too
    bool no_self_contact;
    double gravity;         // m/s²
    psb_vec3 wind;          // m/s, for every scene (and the flag's)
    double wind_turbulence; // m/s
} view_options;

#define VIEW_FIELD(field) offsetof(view_options, field)

static bool parse_size(const char *text, void *field, char *expected, size_t expected_size) {
    int *size = field;
    snprintf(expected, expected_size, "WIDTHxHEIGHT, each 64..16384 (e.g. 1280x720)");
    char *end = NULL;
    const long w = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X')) {
        return false;
    }
    const char *rest = end + 1;
    const long h = strtol(rest, &end, 10);
    if (end == rest || *end != '\0' || w < 64 || h < 64 || w > 16384 || h > 16384) {
        return false;
    }
    size[0] = (int)w;
    size[1] = (int)h;
    return true;
}

static void show_size(const void *field, char *out, size_t out_size) {
    const int *size = field;
    snprintf(out, out_size, "%dx%d", size[0], size[1]);
}

static bool parse_substeps(const char *text, void *field, char *expected, size_t expected_size) {
    int *substeps = field; // 0: auto
    bool automatic = false;
    int count = 0;
    if (!psb_options_parse_substeps(text, &automatic, &count, expected, expected_size)) {
        return false;
    }
    *substeps = automatic ? 0 : count;
    return true;
}

static void show_substeps(const void *field, char *out, size_t out_size) {
    (void)field;
    snprintf(out, out_size, "auto");
}

static bool parse_wind(const char *text, void *field, char *expected, size_t expected_size) {
    psb_vec3 *wind = field;
    double v[3];
    if (!psb_options_parse_param_numbers(text, psb_options_param("wind"), v, 3,
                                         "three numbers X,Y,Z (e.g. 6,0,0)", expected,
                                         expected_size)) {
        return false;
    }
    *wind = (psb_vec3){v[0], v[1], v[2]};
    return true;
}

static void show_wind(const void *field, char *out, size_t out_size) {
    const psb_vec3 *wind = field;
    const psb_scene_config c = psb_default_scene_config();
    snprintf(out, out_size, "%g,%g,%g; the flag scene's: %g,%g,%g", wind->x, wind->y, wind->z,
             c.flag_wind.x, c.flag_wind.y, c.flag_wind.z);
}

static const psb_option view_table[] = {
    {.name = "size",
     .type = PSB_OPT_CUSTOM,
     .offset = VIEW_FIELD(size),
     .meta = "WxH",
     .help = "window size in screen coordinates (the framebuffer is larger on high-DPI screens)",
     .parse = parse_size,
     .show = show_size},
    {.name = "frames",
     .type = PSB_OPT_INT,
     .offset = VIEW_FIELD(config.frames),
     .meta = "N",
     .help = "draw N frames, then exit (0: until the window is closed); the simulation then "
             "advances one step of dt per frame, so runs repeat exactly",
     .min = 0,
     .max = 100000000},
    {.name = "screenshot",
     .type = PSB_OPT_STRING,
     .offset = VIEW_FIELD(config.screenshot),
     .meta = "FILE",
     .help = "with --frames: write the last frame to FILE as PNG"},
    {.name = "export-dir",
     .type = PSB_OPT_STRING,
     .offset = VIEW_FIELD(config.export_dir),
     .meta = "DIR",
     .help = "the folder (it must exist) where the E key writes every body as "
             "body<b>_step<s>.obj"},
    {.name = "input-script",
     .type = PSB_OPT_STRING,
     .offset = VIEW_FIELD(config.input_script),
     .meta = "FILE",
     .help = "replay timed mouse and keyboard events from FILE (format in the README)"},
    {.name = "stats",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(config.stats),
     .help = "at exit print frames mean_ms p99_ms max_ms fps size msaa (frame times, first 3 "
             "frames left "
             "out)"},
    {.name = "report",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(config.report),
     .help = "at exit print the camera, the grab, each body's state and the layout as key=value"},
    {.name = "shaders",
     .type = PSB_OPT_STRING,
     .offset = VIEW_FIELD(config.shaders),
     .meta = "DIR",
     .help = "folder with the GLSL files (default: the installed ones, else the source tree's)"},
    {.name = "meshes",
     .type = PSB_OPT_STRING,
     .offset = VIEW_FIELD(config.meshes),
     .meta = "DIR",
     .help = "folder whose OBJ files the models scene shows (default: the installed meshes, "
             "else the source tree's meshes/)"},
    // choice_count is psb_viewer_scene_count(), set by view_table_copy.
    {.name = "scene",
     .type = PSB_OPT_CHOICE,
     .offset = VIEW_FIELD(scene),
     .help = "the scene to start with (listed below with the digit key that picks it in the "
             "window; Tab steps through them)",
     .choice = psb_viewer_scene_name},
    {.name = "balls",
     .type = PSB_OPT_INT,
     .offset = VIEW_FIELD(config.scene_config.pile_balls),
     .meta = "N",
     .help = "the balls the pile scene drops (more than 12: nine a layer into a box of 2.6 m)",
     .min = 1,
     .max = PSB_PILE_MAX_BALLS},
    {.name = "subdiv",
     .type = PSB_OPT_INT,
     .offset = VIEW_FIELD(config.scene_config.sphere_level),
     .meta = "N",
     .help = "icosphere level of the 3D spheres (642 points at 3, 2562 at 4)",
     .min = 0,
     .max = 6},
    {.name = "ring-points",
     .type = PSB_OPT_INT,
     .offset = VIEW_FIELD(config.scene_config.ring_points),
     .meta = "N",
     .help = "points on the 2D ring",
     .min = 3,
     .max = 100000},
    // The physics options take their ranges, units and (unless they say
    // more) help from the core's table (psb_param_table).
    {.name = "integrator",
     .param = "integrator",
     .offset = VIEW_FIELD(integrator),
     .help = "time integrator (the I key cycles through them): bdf2 and implicit solve one "
             "step a frame, the explicit ones take as many sub-steps as they need; unless this "
             "or the I key chose one, loaded models run implicit"},
    {.name = "dt",
     .param = "dt",
     .offset = VIEW_FIELD(config.scene_config.params.dt),
     .meta = "DT"},
    {.name = "substeps",
     .type = PSB_OPT_CUSTOM,
     .offset = VIEW_FIELD(substeps),
     .meta = "N|auto",
     .help = "sub-steps per world step; auto: 20, or more if the bodies' stability estimate "
             "needs them; with implicit or bdf2, 1",
     .parse = parse_substeps,
     .show = show_substeps},
    {.name = "tol",
     .param = "tol",
     .offset = VIEW_FIELD(config.scene_config.params.solver_tol),
     .meta = "X"},
    {.name = "iterations",
     .param = "iterations",
     .offset = VIEW_FIELD(config.scene_config.params.solver_iterations),
     .meta = "N"},
    {.name = "threads",
     .param = "threads",
     .offset = VIEW_FIELD(config.scene_config.params.threads),
     .meta = "N"},
    {.name = "mass",
     .param = "mass",
     .offset = VIEW_FIELD(config.scene_config.params.body.mass),
     .meta = "M",
     .help = "mass of every body"},
    {.name = "ks",
     .param = "ks",
     .offset = VIEW_FIELD(config.scene_config.params.body.spring_k),
     .meta = "K",
     .help = "spring stiffness of every body (loaded models: each one's own)"},
    {.name = "kd",
     .param = "kd",
     .offset = VIEW_FIELD(config.scene_config.params.body.spring_damping),
     .meta = "D",
     .help = "spring damping of every body"},
    {.name = "gravity",
     .param = "gravity",
     .offset = VIEW_FIELD(gravity),
     .meta = "G",
     .help = "gravitational acceleration along -y (the G key turns it off and on)"},
    // What M switches on: 0 would switch nothing on.
    {.name = "shape-k",
     .param = "shape-k",
     .offset = VIEW_FIELD(config.scene_config.shape_k),
     .meta = "K",
     .help = "shape matching stiffness k_shape: the shape scene's matched bodies, and every body "
             "when M switches shape matching on",
     .min_open = true},
    {.name = "shape-damping",
     .param = "shape-damping",
     .offset = VIEW_FIELD(config.scene_config.shape_damping),
     .meta = "R",
     .help = "shape matching's damping rate (toward the best rigid motion), as for --shape-k"},
    {.name = "wind",
     .param = "wind",
     .type = PSB_OPT_CUSTOM,
     .offset = VIEW_FIELD(wind),
     .meta = "X,Y,Z",
     .help = "wind velocity in every scene (the flag scene's too); B switches it off and on",
     .parse = parse_wind,
     .show = show_wind},
    {.name = "wind-turbulence",
     .param = "wind-turbulence",
     .offset = VIEW_FIELD(wind_turbulence),
     .meta = "A",
     .help = "amplitude of the gusts added to the wind, in every scene (the flag scene's too)",
     .default_text = "0; the flag scene's: 2"},
    {.name = "wind-drag",
     .param = "wind-drag",
     .offset = VIEW_FIELD(config.scene_config.params.body.wind_drag),
     .meta = "C",
     .help = "how hard the wind pushes on every body: F = C A ((w - v).n) n per point"},
    {.name = "fold-limit",
     .param = "fold-limit",
     .offset = VIEW_FIELD(config.scene_config.params.body.fold_limit),
     .meta = "F",
     .help = "implicit, bdf2: every 3D body's struts push the far corners of two triangles "
             "that share an edge apart once closer than F times their rest distance; 0 = off"},
    {.name = "no-body-contact",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(no_body_contact),
     .help = "bodies pass through each other (contact between bodies off; K switches it on)"},
    {.name = "no-contact-solve",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(no_contact_solve),
     .help = "with a solved integrator, bodies that may touch are not solved together: they "
             "are held apart only after the step"},
    {.name = "self-contact",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(self_contact),
     .help = "loaded models touch themselves too, as the scenes' bodies do: a surface that "
             "folds onto itself is held a skin off itself (a 3D body's by links of the solve, "
             "with a solved integrator)"},
    {.name = "no-self-contact",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(no_self_contact),
     .help = "no body touches itself (a surface that folds onto itself passes through itself)"},
    {.name = "contact-thickness",
     .param = "contact-thickness",
     .offset = VIEW_FIELD(config.scene_config.params.contact_thickness),
     .meta = "D",
     .help = "skin of contact between bodies: a point nearer than this to another body's "
             "surface is pushed out to it"},
    {.name = "contact-friction",
     .param = "contact-friction",
     .offset = VIEW_FIELD(config.scene_config.params.contact_friction),
     .meta = "MU",
     .help = "Coulomb friction between 3D bodies (contact inside the solve): a pressed pair is "
             "held, or its sliding slowed, by up to this times the push between them"},
    {.name = "grab-k",
     .type = PSB_OPT_NUMBER,
     .offset = VIEW_FIELD(config.grab_k),
     .meta = "K",
     .unit = "N/m",
     .help = "stiffness of the spring that pulls a grabbed point toward the cursor",
     .min = 0,
     .max = 1e6,
     .min_open = true},
    {.name = "poke-speed",
     .type = PSB_OPT_NUMBER,
     .offset = VIEW_FIELD(config.poke_speed),
     .meta = "V",
     .unit = "m/s",
     .help = "speed at which a poke's finger goes into the body (to a fifth of its radius)",
     .min = 0,
     .max = 1000,
     .min_open = true},
    {.name = "msaa",
     .type = PSB_OPT_INT,
     .offset = VIEW_FIELD(config.msaa),
     .meta = "N",
     .help = "samples per pixel for antialiasing (0: off); default: 4, or off on a software "
             "renderer such as llvmpipe, where it costs several times the frame time",
     .min = 0,
     .max = 16,
     .default_text = "auto"},
    {.name = "no-vsync",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(no_vsync),
     .help = "do not wait for the display's refresh (to measure the frame time)"},
    {.name = "realtime",
     .type = PSB_OPT_FLAG,
     .offset = VIEW_FIELD(config.realtime),
     .help = "with --frames or --input-script: still step by the wall clock"},
};

enum { VIEW_OPTION_COUNT = (int)(sizeof view_table / sizeof view_table[0]) };
enum { VIEW_GROUP, REPAIR_GROUP, GROUP_COUNT };

// The table with what is known only at run time: the number of scenes.
static void view_table_copy(psb_option table[VIEW_OPTION_COUNT]) {
    memcpy(table, view_table, sizeof view_table);
    for (int i = 0; i < VIEW_OPTION_COUNT; i++) {
        if (table[i].choice == psb_viewer_scene_name) {
            table[i].choice_count = psb_viewer_scene_count();
        }
    }
}

static view_options default_view_options(void) {
    view_options v;
    memset(&v, 0, sizeof v);
    v.config = psb_default_viewer_config();
    v.size[0] = v.config.width;
    v.size[1] = v.config.height;
    v.integrator = (int)v.config.scene_config.params.integrator;
    v.scene = psb_viewer_scene_find(v.config.scene);
    v.gravity = v.config.scene_config.params.gravity;
    v.wind = v.config.scene_config.params.wind;
    v.wind_turbulence = v.config.scene_config.params.wind_turbulence;
    return v;
}

static void make_groups(psb_option_group groups[GROUP_COUNT], const psb_option *table,
                        view_options *view, psb_mesh_options *repair, int *view_seen,
                        int *repair_seen) {
    groups[VIEW_GROUP] = (psb_option_group){"Viewer", table, VIEW_OPTION_COUNT, view, view_seen};
    groups[REPAIR_GROUP] = psb_mesh_option_group(repair, repair_seen);
}

static void print_help(FILE *out) {
    view_options view = default_view_options();
    psb_mesh_options repair = psb_default_mesh_options(false);
    repair.fit = view.config.scene_config.radius;
    psb_option table[VIEW_OPTION_COUNT];
    view_table_copy(table);
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, table, &view, &repair, NULL, NULL);
    fprintf(out, "usage: psb view [options] [FILE.obj ...]\n"
                 "\n"
                 "Opens the viewer: the 2D ring on the left, the 3D bodies on the right, live\n"
                 "plots of V/V0 and pressure below. OBJ files given here (or dropped on the\n"
                 "window) replace the 3D spheres; a file that cannot be loaded is reported and\n"
                 "the scene keeps running. The models scene shows the OBJ files of a folder\n"
                 "(--meshes) one at a time: '.' and ',' step through them. Press H in the window\n"
                 "for every key and mouse action.\n"
                 "Needs a display: without one, run it under 'xvfb-run -a psb view ...'.\n"
                 "\n"
                 "Exit status: 0 after a clean run; 3 when it had blow-ups (bodies the guard\n"
                 "found going wild and reset, in any scene shown, counted on stderr); 2 for\n"
                 "bad options, no display or shaders that cannot be found or built; 1 when\n"
                 "something fails while running (a screenshot that cannot be written).\n"
                 "\n");
    psb_options_print_help(out, groups, GROUP_COUNT);
    // The digit keys reach the first nine.
    const int keyed = psb_viewer_scene_count() < 9 ? psb_viewer_scene_count() : 9;
    fprintf(out, "\nScenes (--scene NAME; keys 1-%d in the window, in this order):\n", keyed);
    for (int i = 0; i < psb_viewer_scene_count(); i++) {
        fprintf(out, "  %d %-10s %s\n", i + 1, psb_viewer_scene_name(i),
                psb_viewer_scene_summary(i));
    }
}

int psb_cmd_view(int argc, char **argv) {
    if (psb_options_wants_help(argc, argv)) {
        print_help(stdout);
        return 0;
    }
    view_options view = default_view_options();
    psb_mesh_options repair = psb_default_mesh_options(true);
    int view_seen[VIEW_OPTION_COUNT] = {0}, repair_seen[PSB_MESH_OPTION_COUNT] = {0};
    psb_option table[VIEW_OPTION_COUNT];
    view_table_copy(table);
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, table, &view, &repair, view_seen, repair_seen);
    const char *files[PSB_VIEWER_MAX_FILES];
    psb_positionals positionals = {files, PSB_VIEWER_MAX_FILES, 0};
    char error[512];
    if (!psb_options_parse("psb view", argc, argv, groups, GROUP_COUNT, &positionals, error,
                           sizeof error) ||
        !psb_mesh_options_check(repair_seen, "psb view", error, sizeof error)) {
        fprintf(stderr, "%s\n", error);
        return 2;
    }
    psb_viewer_config *c = &view.config;
    if (view.self_contact && view.no_self_contact) {
        fprintf(stderr, "psb view: --self-contact and --no-self-contact cannot be used together\n");
        return 2;
    }
    if (c->screenshot && c->frames == 0) {
        fprintf(stderr, "psb view: --screenshot needs --frames N (press P in the window for a "
                        "screenshot)\n");
        return 2;
    }
    psb_error dir_err = {0};
    if (psb_export_obj_check_dir(c->export_dir, &dir_err) != PSB_OK) {
        fprintf(stderr, "psb view: --export-dir: %s\n", dir_err.message);
        return 2;
    }
    c->width = view.size[0];
    c->height = view.size[1];
    c->vsync = !view.no_vsync;
    c->scene_config.params.body_contact = !view.no_body_contact;
    c->scene_config.params.contact_solve = !view.no_contact_solve;
    c->scene_config.params.self_contact = !view.no_self_contact;
    c->scene_config.model_self_contact = view.self_contact;
    c->scene_config.params.integrator = (psb_integrator)view.integrator;
    c->integrator_given = psb_options_seen(groups, GROUP_COUNT, "integrator") > 0;
    c->scene_config.params.gravity = view.gravity;
    c->scene = psb_viewer_scene_name(view.scene);
    // --wind and --wind-turbulence blow in every scene, the flag's included.
    if (psb_options_seen(groups, GROUP_COUNT, "wind")) {
        c->scene_config.params.wind = c->scene_config.flag_wind = view.wind;
    }
    if (psb_options_seen(groups, GROUP_COUNT, "wind-turbulence")) {
        c->scene_config.params.wind_turbulence = c->scene_config.flag_turbulence =
            view.wind_turbulence;
    }
    // Loaded models get their own stiffness (psb_mesh_default_material)
    // unless --ks says otherwise.
    if (psb_options_seen(groups, GROUP_COUNT, "ks")) {
        c->scene_config.model_spring_k = false;
    }
    if (view.substeps > 0) {
        c->scene_config.params.substeps = view.substeps;
        c->scene_config.auto_substeps = false;
    }
    c->repair = psb_mesh_options_repair(&repair, c->scene_config.radius);
    for (int i = 0; i < positionals.count; i++) {
        c->files[i] = files[i];
    }
    c->file_count = positionals.count;
    psb_error err = {0};
    if (psb_params_validate(&c->scene_config.params, &err) != PSB_OK ||
        psb_body_params_validate(&c->scene_config.params.body, &err) != PSB_OK) {
        fprintf(stderr, "psb view: %s\n", err.message);
        return 2;
    }
    return psb_viewer_run(c);
}
