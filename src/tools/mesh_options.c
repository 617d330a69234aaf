// The repair options shared by `psb info` and `psb sim`; see mesh_options.h.
#include "mesh_options.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

// --fit is stored into the whole struct, so that giving it also says that it
// no longer follows --radius.
static bool parse_fit(const char *text, void *field, char *expected, size_t expected_size) {
    psb_mesh_options *options = field;
    double value = 0.0;
    snprintf(expected, expected_size, "0 (the file's size) or a number from %g to %g in m",
             PSB_OPT_SIZE_MIN, PSB_OPT_SIZE_MAX);
    if (!psb_options_parse_numbers(text, &value, 1) ||
        !(value == 0.0 || (value >= PSB_OPT_SIZE_MIN && value <= PSB_OPT_SIZE_MAX))) {
        return false;
    }
    options->fit = value;
    options->fit_follows_radius = false;
    return true;
}

static void show_fit(const void *field, char *out, size_t out_size) {
    const psb_mesh_options *options = field;
    if (options->fit_follows_radius) {
        snprintf(out, out_size, "the --radius value");
    } else {
        snprintf(out, out_size, "%g", options->fit);
    }
}

#define MESH_FIELD(field) offsetof(psb_mesh_options, field)

static const psb_option mesh_table[] = {
    {.name = "fill-holes",
     .type = PSB_OPT_FLAG,
     .offset = MESH_FIELD(fill_holes),
     .help = "close every hole (boundary loop) with triangles, so an open mesh can be simulated"},
    {.name = "no-weld",
     .type = PSB_OPT_FLAG,
     .offset = MESH_FIELD(no_weld),
     .help = "do not merge vertices with equal positions"},
    {.name = "weld-tolerance",
     .type = PSB_OPT_NUMBER,
     .offset = MESH_FIELD(weld_tolerance),
     .meta = "D",
     .unit = "m",
     .help = "also merge vertices closer than D (0: only equal positions)",
     .min = 0,
     .max = PSB_OPT_SIZE_MAX},
    {.name = "keep-unused",
     .type = PSB_OPT_FLAG,
     .offset = MESH_FIELD(keep_unused),
     .help = "keep vertices that no face uses"},
    {.name = "keep-degenerate",
     .type = PSB_OPT_FLAG,
     .offset = MESH_FIELD(keep_degenerate),
     .help = "keep zero-area triangles"},
    {.name = "keep-duplicates",
     .type = PSB_OPT_FLAG,
     .offset = MESH_FIELD(keep_duplicates),
     .help = "keep triangles that repeat another's corners"},
    {.name = "no-fix-orientation",
     .type = PSB_OPT_FLAG,
     .offset = MESH_FIELD(no_fix_orientation),
     .help = "leave the faces' winding as written (no making neighbours agree, no turning "
             "inside-out components outward)"},
    {.name = "fit",
     .type = PSB_OPT_CUSTOM,
     .offset = 0,
     .meta = "R",
     .unit = "m",
     .help = "centre the mesh and scale it so that its bounding sphere has radius R (in "
             "the range of --radius); 0 keeps the file's size and position",
     .parse = parse_fit,
     .show = show_fit},
};

_Static_assert(sizeof mesh_table / sizeof mesh_table[0] == PSB_MESH_OPTION_COUNT,
               "PSB_MESH_OPTION_COUNT must match the table");

enum { NO_WELD_INDEX = 1, WELD_TOLERANCE_INDEX = 2 };

psb_mesh_options psb_default_mesh_options(bool fit_follows_radius) {
    psb_repair_options repair = psb_default_repair_options();
    return (psb_mesh_options){
        .fill_holes = repair.fill_holes,
        .no_weld = !repair.weld,
        .weld_tolerance = repair.weld_tolerance,
        .keep_unused = !repair.drop_unused,
        .keep_degenerate = !repair.drop_degenerate,
        .keep_duplicates = !repair.drop_duplicates,
        .no_fix_orientation = !repair.fix_orientation,
        .fit = repair.fit_radius,
        .fit_follows_radius = fit_follows_radius,
    };
}

psb_option_group psb_mesh_option_group(psb_mesh_options *options, int *seen) {
    return (psb_option_group){
        .title = "Mesh repair (OBJ files)",
        .options = mesh_table,
        .count = PSB_MESH_OPTION_COUNT,
        .base = options,
        .seen = seen,
    };
}

const char *psb_mesh_options_first_given(const int seen[PSB_MESH_OPTION_COUNT]) {
    for (int i = 0; i < PSB_MESH_OPTION_COUNT; i++) {
        if (seen[i] > 0) {
            return mesh_table[i].name;
        }
    }
    return NULL;
}

bool psb_mesh_options_check(const int seen[PSB_MESH_OPTION_COUNT], const char *program, char *error,
                            size_t error_size) {
    if (seen[NO_WELD_INDEX] > 0 && seen[WELD_TOLERANCE_INDEX] > 0) {
        snprintf(error, error_size, "%s: --no-weld and --weld-tolerance cannot be used together",
                 program);
        return false;
    }
    return true;
}

psb_repair_options psb_mesh_options_repair(const psb_mesh_options *options, double radius) {
    psb_repair_options repair = psb_default_repair_options();
    repair.weld = !options->no_weld;
    repair.weld_tolerance = options->weld_tolerance;
    repair.drop_unused = !options->keep_unused;
    repair.drop_degenerate = !options->keep_degenerate;
    repair.drop_duplicates = !options->keep_duplicates;
    repair.fix_orientation = !options->no_fix_orientation;
    repair.fill_holes = options->fill_holes;
    repair.fit_radius = options->fit_follows_radius ? radius : options->fit;
    return repair;
}
