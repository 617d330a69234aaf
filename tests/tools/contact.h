// psb-check-contact's pieces: one body's OBJ file read into points and a
// surface (contact_read.c), and the geometry that decides whether a point is
// inside a closed surface (contact_geometry.c). Nothing here uses the psb
// libraries: the check is independent of the code it checks.
#ifndef PSB_CHECK_CONTACT_H
#define PSB_CHECK_CONTACT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cc_vec3 {
    double x, y, z; ///< m
} cc_vec3;

static inline cc_vec3 sub(cc_vec3 a, cc_vec3 b) {
    return (cc_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static inline double dot(cc_vec3 a, cc_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline cc_vec3 cross(cc_vec3 a, cc_vec3 b) {
    return (cc_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/// A node of a body's tree of triangles: a box around some triangles and the
/// edges of their patch that no other triangle of the patch shares.
typedef struct cc_node {
    cc_vec3 lo, hi;   ///< the box around the node's triangles, m
    cc_vec3 centre;   ///< the box's centre: the apex of the cap that closes the patch, m
    int left, right;  ///< children, -1 at a leaf
    int first, count; ///< its triangles: order[first .. first + count)
    int edge_first;   ///< its boundary edges: edges[2 * (edge_first + k)], k < edge_count
    int edge_count;   ///< directed a -> b, as the node's triangles run them
} cc_node;

/// One body of one step, as its file bodyB_stepS.obj gives it.
typedef struct cc_body {
    char *path;         ///< the file
    int index;          ///< B in the file's name
    long step;          ///< S in the file's name
    bool ring;          ///< 2D: `l` lines only, forming closed loops (x-y plane; z ignored)
    bool closed;        ///< its surface encloses something: other points are checked against it
    bool reversed;      ///< its volume (area) was negative: its faces are taken reversed
    char why_open[200]; ///< when not closed: why, in words
    int point_count;    ///< `v` lines
    cc_vec3 *points;    ///< m, in the file's order (point 0 is the first `v`)
    int tri_count;      ///< triangles (polygons of `f` lines fanned from their first corner)
    int *tris;          ///< 3 per triangle, 0-based points
    int seg_count;      ///< segments of `l` lines (consecutive indices of a line)
    int *segs;          ///< 2 per segment, 0-based points, directed
    cc_vec3 lo, hi;     ///< the box around the points, m (a ring's z range is 0)
    double size;        ///< the box's diagonal, m
    cc_node *nodes;     ///< a closed 3D body's tree of triangles (node 0 the root)
    int node_count;     ///< nodes in it
    int *order;         ///< triangle indices as the nodes list them
    int *edges;         ///< the nodes' boundary edges, 2 points each
    int *fan_first;     ///< --self: point i's neighbours are fan[fan_first[i] .. fan_first[i + 1])
    int *fan;           ///< in order round the point (a ring: previous, next)
    double *local;      ///< --self: the winding number of the point's own corner, or -1
} cc_body;

/// Reads one body's OBJ file: `v x y z`, `f i j k ...` (polygons fanned),
/// `l i j ...`; other lines are ignored. Indices may be negative (counted
/// back from the last `v` so far) and may carry `/vt/vn`. On failure returns
/// false with "FILE:LINE: what was expected" in err and *b empty.
bool cc_body_read(const char *path, cc_body *b, char *err, size_t err_size);

/// Decides the body's kind and whether it is closed (why_open when not),
/// turns its faces outward when its volume is negative, builds the tree of a
/// closed 3D body and, with self, each point's fan and corner angle.
void cc_body_prepare(cc_body *b, bool self);

/// Frees what the body holds and empties it.
void cc_body_free(cc_body *b);

/// The generalized winding number of the closed body b at p: 1 inside, 0
/// outside, between on the surface. skip >= 0 leaves out the triangles (or
/// the segments) that use point skip of b: p is that point, and they
/// contain it.
double cc_winding(const cc_body *b, cc_vec3 p, int skip);

/// The distance from p to b's surface, m. skip >= 0 leaves out the
/// triangles (segments) that use point skip of b, and with neighbours also
/// those that use one of its neighbours. A negative result: nothing was left
/// to measure to.
double cc_distance(const cc_body *b, cc_vec3 p, int skip, bool neighbours);

/// Aborts the program with a message when memory runs out (the tool's only
/// way to fail other than its findings and bad input).
void *cc_alloc(size_t count, size_t size);

#endif
