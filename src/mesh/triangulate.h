// Internal to the mesh library (not installed, not public): a polygon of 3D
// points split into triangles by ear clipping in the plane that fits it best,
// for the OBJ parser's faces of more than three corners.
#ifndef PSB_TRIANGULATE_H
#define PSB_TRIANGULATE_H

#include <psb/psb.h>

/// Ear clipping's scratch space, made once, in one block, when the first
/// polygon of more than 3 corners comes, and reused for every later one.
/// Start it as {.max_corners = N}; the fields after max_corners are the
/// triangulation's own.
typedef struct psb_polygon_scratch {
    int max_corners;  ///< most corners a polygon may have; set before the first use
    void *block;      ///< owns everything below (NULL until first used)
    double *xy;       ///< 2 per corner: the corner in the polygon's plane
    int *prev;        ///< the corners still to clip, as a doubly linked ring
    int *next;        ///< the ring's other direction
    bool *reflex;     ///< not strictly convex, so it could lie in an ear (false once clipped)
    int *reflex_list; ///< the reflex corners, plus stale entries (no longer reflex)
    int listed;       ///< entries in reflex_list (at most 3 per corner)
    int live;         ///< entries still reflex
} psb_polygon_scratch;

/// Splits the polygon corners[0..n) (indices into points, all valid;
/// 3 <= n <= scratch->max_corners) into n - 2 triangles written to out
/// (3 indices each), wound as the polygon is: ear clipping in the polygon's
/// plane, finished as a fan where no ear is found (a polygon that crosses
/// itself), or a fan from the first corner if it has no area. False only when
/// the scratch space cannot be made (out is then untouched).
bool psb_polygon_triangulate(psb_polygon_scratch *scratch, const psb_vec3 *points,
                             const int *corners, int n, int *out);

/// Frees the scratch space's block; max_corners is kept, the rest zeroed.
void psb_polygon_scratch_free(psb_polygon_scratch *scratch);

#endif
