// The shape options shared by `psb sim` and `psb info`; see shape_options.h.
#include "shape_options.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

static const char *const shape_names[PSB_SHAPE_COUNT] = {
    [PSB_SHAPE_RING] = "ring",         [PSB_SHAPE_ICOSPHERE] = "icosphere",
    [PSB_SHAPE_UVSPHERE] = "uvsphere", [PSB_SHAPE_BOX] = "box",
    [PSB_SHAPE_TORUS] = "torus",       [PSB_SHAPE_CLOTH] = "cloth",
};

// The refinement level is capped where the finest shapes reach about 650k
// points (icosphere level 8: 655362), which also keeps 2^N box segments sane.
enum { MAX_SUBDIV = 8 };

// psb_mesh_cloth's limit on each side.
enum { MAX_CLOTH_SIDE = 4096 };

static const psb_option shape_table[] = {
    {.name = "shape",
     .type = PSB_OPT_CHOICE,
     .offset = offsetof(psb_shape_options, shape),
     .help = "shape of the body",
     .choice = psb_shape_name,
     .choice_count = PSB_SHAPE_COUNT},
    {.name = "points",
     .type = PSB_OPT_INT,
     .offset = offsetof(psb_shape_options, points),
     .meta = "N",
     .help = "ring only: number of points",
     .min = 3,
     .max = 10000000},
    {.name = "subdiv",
     .type = PSB_OPT_INT,
     .offset = offsetof(psb_shape_options, subdiv),
     .meta = "N",
     .help = "3D shapes: refinement: icosphere level N, uvsphere 4(N+1) stacks x 8(N+1) "
             "slices, box 2^N segments per side, torus 8(N+1) x 4(N+1) segments",
     .min = 0,
     .max = MAX_SUBDIV},
    {.name = "radius",
     .type = PSB_OPT_NUMBER,
     .offset = offsetof(psb_shape_options, radius),
     .meta = "R",
     .unit = "m",
     .help = "size: ring/sphere radius, box half size, torus major radius (minor R/3), half "
             "the cloth's width",
     .min = PSB_OPT_SIZE_MIN,
     .max = PSB_OPT_SIZE_MAX},
    {.name = "columns",
     .type = PSB_OPT_INT,
     .offset = offsetof(psb_shape_options, columns),
     .meta = "N",
     .help = "cloth only: points across (along x)",
     .min = 2,
     .max = MAX_CLOTH_SIDE},
    {.name = "rows",
     .type = PSB_OPT_INT,
     .offset = offsetof(psb_shape_options, rows),
     .meta = "N",
     .help = "cloth only: points deep (along z); the cells are square",
     .min = 2,
     .max = MAX_CLOTH_SIDE},
};

_Static_assert(sizeof shape_table / sizeof shape_table[0] == PSB_SHAPE_OPTION_COUNT,
               "PSB_SHAPE_OPTION_COUNT must match the table");

psb_shape_options psb_default_shape_options(void) {
    return (psb_shape_options){
        .shape = PSB_SHAPE_ICOSPHERE,
        .points = 32,
        .subdiv = 3,
        .radius = 0.5,
        .columns = 24,
        .rows = 16,
    };
}

const char *psb_shape_name(int shape) {
    return shape >= 0 && shape < PSB_SHAPE_COUNT ? shape_names[shape] : "?";
}

psb_body_kind psb_shape_kind(int shape) {
    return shape == PSB_SHAPE_RING ? PSB_RING : shape == PSB_SHAPE_CLOTH ? PSB_CLOTH : PSB_SHELL;
}

// psb_mesh_cloth's flag, 2 R wide with square cells, centred on the origin
// and turned to lie level: (x, y, z) -> (x - R, z, -y - depth / 2), a proper
// rotation about x that turns the triangles' +z toward +y.
static psb_status build_cloth(const psb_shape_options *options, psb_mesh *out, psb_error *err) {
    const double width = 2.0 * options->radius;
    const double depth = width * (options->rows - 1) / (options->columns - 1);
    const psb_status status =
        psb_mesh_cloth(out, options->columns, options->rows, width, depth, err);
    if (status != PSB_OK) {
        return status;
    }
    for (int i = 0; i < out->point_count; i++) {
        const psb_vec3 p = out->points[i];
        out->points[i] = (psb_vec3){p.x - options->radius, p.z, -p.y - 0.5 * depth};
    }
    return PSB_OK;
}

psb_option_group psb_shape_option_group(psb_shape_options *options, int *seen) {
    return (psb_option_group){
        .title = "Shape",
        .options = shape_table,
        .count = PSB_SHAPE_OPTION_COUNT,
        .base = options,
        .seen = seen,
    };
}

psb_status psb_shape_options_build(const psb_shape_options *options, psb_mesh *out,
                                   psb_error *err) {
    int n = options->subdiv;
    double r = options->radius;
    switch ((psb_shape)options->shape) {
    case PSB_SHAPE_RING:
        return psb_mesh_ring(out, options->points, r, err);
    case PSB_SHAPE_ICOSPHERE:
        return psb_mesh_icosphere(out, n, r, err);
    case PSB_SHAPE_UVSPHERE:
        return psb_mesh_uvsphere(out, 4 * (n + 1), 8 * (n + 1), r, err);
    case PSB_SHAPE_BOX:
        return psb_mesh_box(out, 1 << n, (psb_vec3){r, r, r}, err);
    case PSB_SHAPE_TORUS:
        return psb_mesh_torus(out, 8 * (n + 1), 4 * (n + 1), r, r / 3.0, err);
    case PSB_SHAPE_CLOTH:
        return build_cloth(options, out, err);
    case PSB_SHAPE_COUNT:
        break;
    }
    if (err) {
        err->status = PSB_ERR_INVALID;
        snprintf(err->message, sizeof err->message, "unknown shape %d", options->shape);
    }
    return PSB_ERR_INVALID;
}

void psb_shape_options_describe(const psb_shape_options *options, char *out, size_t out_size) {
    int n = options->subdiv;
    double r = options->radius;
    switch ((psb_shape)options->shape) {
    case PSB_SHAPE_RING:
        snprintf(out, out_size, "ring of %d points, radius %g m", options->points, r);
        return;
    case PSB_SHAPE_ICOSPHERE:
        snprintf(out, out_size, "icosphere level %d, radius %g m", n, r);
        return;
    case PSB_SHAPE_UVSPHERE:
        snprintf(out, out_size, "uv sphere %d stacks x %d slices, radius %g m", 4 * (n + 1),
                 8 * (n + 1), r);
        return;
    case PSB_SHAPE_BOX:
        snprintf(out, out_size, "box %d x %d segments per face, half size %g m", 1 << n, 1 << n, r);
        return;
    case PSB_SHAPE_TORUS:
        snprintf(out, out_size, "torus %d x %d segments, radii %g m and %g m", 8 * (n + 1),
                 4 * (n + 1), r, r / 3.0);
        return;
    case PSB_SHAPE_CLOTH:
        snprintf(out, out_size, "cloth %d x %d points, %g m x %g m", options->columns,
                 options->rows, 2.0 * r, 2.0 * r * (options->rows - 1) / (options->columns - 1));
        return;
    case PSB_SHAPE_COUNT:
        break;
    }
    snprintf(out, out_size, "unknown shape");
}
