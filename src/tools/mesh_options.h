// The options that say how an OBJ file is repaired before it is reported on
// or simulated, shared by `psb info FILE.obj` and `psb sim --mesh FILE.obj`:
// --fill-holes, --no-weld, --weld-tolerance, --keep-unused,
// --keep-degenerate, --keep-duplicates, --no-fix-orientation, --fit.
#ifndef PSB_MESH_OPTIONS_H
#define PSB_MESH_OPTIONS_H

#include "options.h"
#include <psb/psb_obj.h>

/// The repair options' values; fill with psb_default_mesh_options(). Each
/// flag turns one repair of psb_default_repair_options() on or off.
typedef struct psb_mesh_options {
    bool fill_holes;         ///< close every boundary loop with triangles
    bool no_weld;            ///< keep vertices with equal positions apart
    double weld_tolerance;   ///< m: also weld vertices closer than this (0: equal only)
    bool keep_unused;        ///< keep vertices no face uses
    bool keep_degenerate;    ///< keep zero-area triangles
    bool keep_duplicates;    ///< keep triangles that repeat another's corners
    bool no_fix_orientation; ///< leave the faces' winding as written
    double fit;              ///< m: centre and scale to a bounding sphere of this radius; 0 = as is
    bool fit_follows_radius; ///< --fit was not given and defaults to the --radius value (sim)
} psb_mesh_options;

/// Everything as psb_default_repair_options() has it and --fit 0; with
/// fit_follows_radius, --fit defaults to the --radius value instead (as in
/// `psb sim`, so that any model comes out at the default ball's size).
psb_mesh_options psb_default_mesh_options(bool fit_follows_radius);

/// Number of options in the group (the size of a `seen` array).
enum { PSB_MESH_OPTION_COUNT = 8 };

/// The option group for the help and the parser, storing into options.
/// seen may be NULL, or hold PSB_MESH_OPTION_COUNT counters.
psb_option_group psb_mesh_option_group(psb_mesh_options *options, int *seen);

/// The name ("fill-holes") of the first option of the group that seen counts
/// as given, or NULL when none was: for "needs a mesh file" errors.
const char *psb_mesh_options_first_given(const int seen[PSB_MESH_OPTION_COUNT]);

/// Checks combinations the table cannot (--no-weld with --weld-tolerance);
/// false after writing one line, starting with program, into error.
bool psb_mesh_options_check(const int seen[PSB_MESH_OPTION_COUNT], const char *program, char *error,
                            size_t error_size);

/// The loader's options: `radius` (m) is the fit radius when the options
/// say --fit follows --radius.
psb_repair_options psb_mesh_options_repair(const psb_mesh_options *options, double radius);

#endif
