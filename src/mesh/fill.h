// Internal to the mesh library (not installed, not public): hole filling, the
// repair's stage that closes border loops (fill.c), and what it shares with
// the repair's other stages (repair.c): the mesh being repaired, its table of
// edges, and a few small helpers.
#ifndef PSB_FILL_H
#define PSB_FILL_H

#include <psb/psb.h>

#include <stddef.h>
#include <stdint.h>

/// The mesh being repaired: copies of the caller's arrays, with room to grow.
typedef struct psb_repair_work {
    psb_vec3 *points;                ///< point positions, m
    int point_count, point_capacity; ///< points in use, and room for
    int *tris;                       ///< 3 point indices per triangle
    int tri_count, tri_capacity;     ///< triangles in use, and room for
} psb_repair_work;

/// Makes room for `points` more points and `tris` more triangles; false when
/// out of memory (the points and triangles are then still there).
bool psb_repair_work_reserve(psb_repair_work *w, int points, int tris);

/// The half-edges (3 f + k: corner k of triangle f to corner k + 1) grouped
/// by undirected edge. Flipping a triangle changes which half-edge index names
/// which edge, so the grouping records each triangle's edges as a set
/// (edge_of) and each edge's ends (lo < hi); the direction in which a
/// triangle walks an edge is read from its corners when needed.
typedef struct psb_repair_edges {
    int count;    ///< undirected edges
    int *first;   ///< count + 1 offsets into half
    int *half;    ///< half-edges grouped by edge
    int *edge_of; ///< the edge of each half-edge
    int *lo, *hi; ///< the ends of each edge
} psb_repair_edges;

/// Finds the border loops of w (psb_border_loops_find, the same loops the
/// topology report counts) and closes every closed one, adding points and
/// triangles to w: ear clipping in each loop's plane, or a fan around a new
/// point at its centroid. Chains that do not close (the triangles on either
/// side disagree in orientation) stay open. `border` is the number of border
/// edges of e (edges of one triangle). With patch (the patch of each triangle,
/// room for `border` more), the patches around each loop merge into one,
/// which the new triangles join. Adds to *holes and *fill_triangles; false
/// when out of memory.
bool psb_repair_fill_holes(psb_repair_work *w, const psb_repair_edges *e, int border, int *patch,
                           int patches, int *holes, int *fill_triangles);

/// a - b.
static inline psb_vec3 vsub(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

/// a x b.
static inline psb_vec3 vcross(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/// a . b.
static inline double vdot(psb_vec3 a, psb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/// A 64-bit finaliser (MurmurHash3's), so nearby keys land far apart.
static inline uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/// A power of two at least twice n, for open addressing with linear probing.
static inline size_t table_size(size_t n) {
    size_t size = 16;
    while (size < 2 * n) {
        size *= 2;
    }
    return size;
}


/// True if triangle t walks from u to v.
static inline bool walks(const int *t, int u, int v) {
    return (t[0] == u && t[1] == v) || (t[1] == u && t[2] == v) || (t[2] == u && t[0] == v);
}

#endif
