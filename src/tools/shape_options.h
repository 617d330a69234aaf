// The options that choose and size a body's shape, shared by `psb sim` and
// `psb info`: --shape, --points, --subdiv, --radius, --columns, --rows.
#ifndef PSB_SHAPE_OPTIONS_H
#define PSB_SHAPE_OPTIONS_H

#include "options.h"
#include <psb/psb_mesh.h>

/// The shapes the command line can build.
typedef enum psb_shape {
    PSB_SHAPE_RING,      ///< 2D ring of --points points in the x-y plane
    PSB_SHAPE_ICOSPHERE, ///< icosahedron subdivided --subdiv times
    PSB_SHAPE_UVSPHERE,  ///< latitude-longitude sphere, 4(N+1) stacks and 8(N+1) slices
    PSB_SHAPE_BOX,       ///< cube of half size --radius, 2^N segments per face side
    PSB_SHAPE_TORUS,     ///< torus, 8(N+1) x 4(N+1) segments, radii R and R/3
    PSB_SHAPE_CLOTH,     ///< a flat cloth, --columns x --rows points, 2R wide, lying in x-z
    PSB_SHAPE_COUNT,
} psb_shape;

/// The shape options' values; fill with psb_default_shape_options().
typedef struct psb_shape_options {
    int shape;     ///< a psb_shape (an int, as the option table stores it)
    int points;    ///< ring: number of points (>= 3)
    int subdiv;    ///< refinement level N of the 3D shapes (0..8)
    double radius; ///< size R, m: sphere radius, box half size, torus major radius,
                   ///< half the cloth's width (PSB_OPT_SIZE_MIN .. PSB_OPT_SIZE_MAX)
    int columns;   ///< cloth: points across (along x, >= 2)
    int rows;      ///< cloth: points deep (along z, >= 2)
} psb_shape_options;

/// icosphere, 32 ring points, level 3, radius 0.5 m, a cloth of 24 x 16 points.
psb_shape_options psb_default_shape_options(void);

/// The shape's command-line name ("ring", "icosphere", ...), or "?".
const char *psb_shape_name(int shape);

/// The kind of body the shape makes: PSB_RING, PSB_CLOTH or PSB_SHELL.
psb_body_kind psb_shape_kind(int shape);

/// The option group for the help and the parser, storing into options.
/// seen may be NULL, or hold PSB_SHAPE_OPTION_COUNT counters.
psb_option_group psb_shape_option_group(psb_shape_options *options, int *seen);

/// Number of options in the shape group (the size of a `seen` array).
enum { PSB_SHAPE_OPTION_COUNT = 6 };

/// Builds the mesh the options describe, about the origin (a cloth level in
/// the x-z plane, its triangles facing +y). On failure the mesh is left
/// zeroed and err says why.
psb_status psb_shape_options_build(const psb_shape_options *options, psb_mesh *out, psb_error *err);

/// One line describing the shape as built: "icosphere level 3, radius 0.5 m".
void psb_shape_options_describe(const psb_shape_options *options, char *out, size_t out_size);

#endif
