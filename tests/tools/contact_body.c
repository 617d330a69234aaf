// A body made ready for the check: its kind, whether it is closed, its
// faces turned outward, the tree of its triangles, and for --self each
// point's fan of neighbours and the winding number of its own corner.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"

#define PI 3.14159265358979323846

// Triangles per leaf of the tree: below this, a patch's boundary is about
// as long as its list of triangles, and a cap would save nothing.
enum { LEAF_SIZE = 8 };

static cc_vec3 unit(cc_vec3 a) {
    const double len = sqrt(dot(a, a));
    return len > 0.0 ? (cc_vec3){a.x / len, a.y / len, a.z / len} : a;
}

// A directed edge a -> b as one sortable number.
static uint64_t edge_key(int a, int b) {
    return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
}

static int compare_keys(const void *l, const void *r) {
    const uint64_t a = *(const uint64_t *)l, b = *(const uint64_t *)r;
    return a < b ? -1 : a > b;
}

static bool has_key(const uint64_t *sorted, int count, uint64_t key) {
    return bsearch(&key, sorted, (size_t)count, sizeof key, compare_keys) != NULL;
}

// Closed and oriented: every edge a -> b of a triangle appears once, and
// b -> a once, in another. Then the triangles bound a volume, and the
// winding number is a whole number away from them.
static bool surface_closed(cc_body *b) {
    const int n = 3 * b->tri_count;
    uint64_t *keys = cc_alloc((size_t)n, sizeof *keys);
    bool closed = true;
    for (int t = 0; t < b->tri_count && closed; t++) {
        const int *c = &b->tris[3 * t];
        if (c[0] == c[1] || c[1] == c[2] || c[2] == c[0]) {
            snprintf(b->why_open, sizeof b->why_open, "triangle %d uses one point twice", t);
            closed = false;
        }
        for (int k = 0; k < 3; k++) {
            keys[3 * t + k] = edge_key(c[k], c[(k + 1) % 3]);
        }
    }
    if (closed) {
        qsort(keys, (size_t)n, sizeof *keys, compare_keys);
    }
    for (int i = 0; i < n && closed; i++) {
        const int from = (int)(keys[i] >> 32), to = (int)(keys[i] & 0xffffffffu);
        if (i > 0 && keys[i] == keys[i - 1]) {
            snprintf(b->why_open, sizeof b->why_open,
                     "edge %d-%d is run the same way by two triangles (faces not oriented alike, "
                     "or more than two triangles on one edge)",
                     from, to);
            closed = false;
        } else if (!has_key(keys, n, edge_key(to, from))) {
            snprintf(b->why_open, sizeof b->why_open,
                     "edge %d-%d belongs to one triangle only: an open surface, or a hole", from,
                     to);
            closed = false;
        }
    }
    free(keys);
    return closed;
}

// Closed loops: every point is entered as often as it is left. False with
// what is wrong written into why when not.
static bool loops_closed(const cc_body *b, char *why, size_t why_size) {
    int *balance = cc_alloc((size_t)b->point_count, sizeof *balance);
    bool closed = true;
    for (int s = 0; s < b->seg_count && closed; s++) {
        const int from = b->segs[2 * s], to = b->segs[2 * s + 1];
        if (from == to) {
            snprintf(why, why_size, "segment %d runs from point %d to itself", s, from);
            closed = false;
        }
        balance[from]++;
        balance[to]--;
    }
    for (int i = 0; i < b->point_count && closed; i++) {
        if (balance[i] != 0) {
            snprintf(why, why_size,
                     "its 'l' lines are not closed loops (point %d is left %d more time(s) than "
                     "entered): a net of lines, no surface",
                     i, balance[i]);
            closed = false;
        }
    }
    free(balance);
    return closed;
}

// Faces outward: a closed surface of negative volume (a ring of negative
// area) is read with every face (segment) reversed, so that inside is
// where the winding number is +1 whichever way the file ran them.
// Volume = sum over triangles of det(a - o, b - o, c - o) / 6; area = sum
// over segments of cross(a - o, b - o) / 2 (o: point 0, to keep the terms small).
static void turn_outward(cc_body *b) {
    const cc_vec3 o = b->points[0];
    double measure = 0.0;
    if (b->ring) {
        for (int s = 0; s < b->seg_count; s++) {
            const cc_vec3 p = sub(b->points[b->segs[2 * s]], o);
            const cc_vec3 q = sub(b->points[b->segs[2 * s + 1]], o);
            measure += p.x * q.y - p.y * q.x;
        }
    } else {
        for (int t = 0; t < b->tri_count; t++) {
            const int *c = &b->tris[3 * t];
            measure += dot(sub(b->points[c[0]], o),
                           cross(sub(b->points[c[1]], o), sub(b->points[c[2]], o)));
        }
    }
    if (measure >= 0.0) {
        return;
    }
    b->reversed = true;
    if (b->ring) {
        for (int s = 0; s < b->seg_count; s++) {
            const int t = b->segs[2 * s];
            b->segs[2 * s] = b->segs[2 * s + 1];
            b->segs[2 * s + 1] = t;
        }
    } else {
        for (int t = 0; t < b->tri_count; t++) {
            const int c = b->tris[3 * t + 1];
            b->tris[3 * t + 1] = b->tris[3 * t + 2];
            b->tris[3 * t + 2] = c;
        }
    }
}

static void grow_box(cc_vec3 *lo, cc_vec3 *hi, cc_vec3 p) {
    lo->x = p.x < lo->x ? p.x : lo->x;
    lo->y = p.y < lo->y ? p.y : lo->y;
    lo->z = p.z < lo->z ? p.z : lo->z;
    hi->x = p.x > hi->x ? p.x : hi->x;
    hi->y = p.y > hi->y ? p.y : hi->y;
    hi->z = p.z > hi->z ? p.z : hi->z;
}

static void find_box(cc_body *b) {
    b->lo = b->hi = b->points[0];
    for (int i = 1; i < b->point_count; i++) {
        grow_box(&b->lo, &b->hi, b->points[i]);
    }
    if (b->ring) {
        b->lo.z = b->hi.z = 0.0; // a ring lives in the x-y plane: its z is not looked at
    }
    b->size = sqrt(dot(sub(b->hi, b->lo), sub(b->hi, b->lo)));
}

// ---- The tree of triangles ----

typedef struct keyed {
    double key;
    int tri;
} keyed;

static bool keyed_less(keyed a, keyed b) {
    return a.key < b.key || (a.key == b.key && a.tri < b.tri);
}

// Puts the n-th smallest of a[0 .. count) at a[n], the smaller before it and
// the larger after (Hoare's selection, the middle item as pivot): a median
// split in linear time, where sorting would take n log n at every level.
static void select_nth(keyed *a, int count, int n) {
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        const keyed pivot = a[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (keyed_less(a[i], pivot)) {
                i++;
            }
            while (keyed_less(pivot, a[j])) {
                j--;
            }
            if (i <= j) {
                const keyed t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (n <= j) {
            hi = j;
        } else if (n >= i) {
            lo = i;
        } else {
            return;
        }
    }
}

typedef struct tree_build {
    cc_body *b;
    keyed *sorted; // scratch: a node's triangles by centroid
    int edge_count, edge_capacity;
} tree_build;

static void push_edge(tree_build *tb, int from, int to) {
    cc_body *b = tb->b;
    if (tb->edge_count == tb->edge_capacity) {
        tb->edge_capacity = tb->edge_capacity > 0 ? 2 * tb->edge_capacity : 256;
        int *edges = realloc(b->edges, (size_t)tb->edge_capacity * 2 * sizeof *edges);
        if (!edges) {
            fprintf(stderr, "psb-check-contact: out of memory\n");
            exit(2);
        }
        b->edges = edges;
    }
    b->edges[2 * tb->edge_count] = from;
    b->edges[2 * tb->edge_count + 1] = to;
    tb->edge_count++;
}

static bool has_edge(const tree_build *tb, const cc_node *node, int from, int to) {
    const int *e = tb->b->edges;
    for (int k = node->edge_first; k < node->edge_first + node->edge_count; k++) {
        if (e[2 * k] == from && e[2 * k + 1] == to) {
            return true;
        }
    }
    return false;
}

// The edges of a leaf's patch that no other triangle of the patch runs the
// other way: the patch's boundary, as its triangles run it.
static void leaf_boundary(tree_build *tb, cc_node *node) {
    const cc_body *b = tb->b;
    node->edge_first = tb->edge_count;
    for (int k = node->first; k < node->first + node->count; k++) {
        const int *c = &b->tris[3 * b->order[k]];
        for (int e = 0; e < 3; e++) {
            const int from = c[e], to = c[(e + 1) % 3];
            bool shared = false;
            for (int j = node->first; j < node->first + node->count && !shared; j++) {
                const int *d = &b->tris[3 * b->order[j]];
                shared = (d[0] == to && d[1] == from) || (d[1] == to && d[2] == from) ||
                         (d[2] == to && d[0] == from);
            }
            if (!shared) {
                push_edge(tb, from, to);
            }
        }
    }
    node->edge_count = tb->edge_count - node->edge_first;
}

// A parent's boundary from its children's: an edge of one child's boundary
// that the other child runs backwards is inside the parent's patch.
static void merge_boundary(tree_build *tb, int id) {
    cc_node *node = &tb->b->nodes[id];
    const cc_node *kids[2] = {&tb->b->nodes[node->left], &tb->b->nodes[node->right]};
    node->edge_first = tb->edge_count;
    for (int side = 0; side < 2; side++) {
        const cc_node *kid = kids[side], *other = kids[1 - side];
        for (int k = kid->edge_first; k < kid->edge_first + kid->edge_count; k++) {
            const int from = tb->b->edges[2 * k], to = tb->b->edges[2 * k + 1];
            if (!has_edge(tb, other, to, from)) {
                push_edge(tb, from, to); // may move b->edges: indices only, no pointers into it
            }
        }
    }
    node->edge_count = tb->edge_count - node->edge_first;
}

// Splits at the median centroid along the box's longest side; the
// boundary is found bottom-up, each node's from its children's.
static int build_node(tree_build *tb, int first, int count) {
    cc_body *b = tb->b;
    const int id = b->node_count++;
    cc_node *node = &b->nodes[id];
    node->first = first;
    node->count = count;
    node->left = node->right = -1;
    node->lo = node->hi = b->points[b->tris[3 * b->order[first]]];
    for (int k = 0; k < count; k++) {
        const int *c = &b->tris[3 * b->order[first + k]];
        for (int e = 0; e < 3; e++) {
            grow_box(&node->lo, &node->hi, b->points[c[e]]);
        }
    }
    node->centre = (cc_vec3){0.5 * (node->lo.x + node->hi.x), 0.5 * (node->lo.y + node->hi.y),
                             0.5 * (node->lo.z + node->hi.z)};
    if (count <= LEAF_SIZE) {
        leaf_boundary(tb, node);
        return id;
    }
    const cc_vec3 extent = sub(node->hi, node->lo);
    int axis = 2;
    if (extent.x >= extent.y && extent.x >= extent.z) {
        axis = 0;
    } else if (extent.y >= extent.z) {
        axis = 1;
    }
    for (int k = 0; k < count; k++) {
        const int t = b->order[first + k];
        const int *c = &b->tris[3 * t];
        // Three times the centroid's coordinate along the axis.
        double key = 0.0;
        for (int e = 0; e < 3; e++) {
            const cc_vec3 p = b->points[c[e]];
            key += axis == 0 ? p.x : axis == 1 ? p.y : p.z;
        }
        tb->sorted[k] = (keyed){key, t};
    }
    const int half = count / 2;
    select_nth(tb->sorted, count, half);
    for (int k = 0; k < count; k++) {
        b->order[first + k] = tb->sorted[k].tri;
    }
    const int left = build_node(tb, first, half);
    const int right = build_node(tb, first + half, count - half);
    b->nodes[id].left = left; // node may not be used here: the children were made since
    b->nodes[id].right = right;
    merge_boundary(tb, id);
    return id;
}

static void build_tree(cc_body *b) {
    b->order = cc_alloc((size_t)b->tri_count, sizeof *b->order);
    for (int t = 0; t < b->tri_count; t++) {
        b->order[t] = t;
    }
    // Halving down to leaves of at least one triangle: fewer than 2n nodes.
    b->nodes = cc_alloc(2 * (size_t)b->tri_count, sizeof *b->nodes);
    tree_build tb = {.b = b};
    tb.sorted = cc_alloc((size_t)b->tri_count, sizeof *tb.sorted);
    build_node(&tb, 0, b->tri_count);
    free(tb.sorted);
}

// ---- Each point's own corner, for --self ----

// The fraction of a small sphere round point v that its own triangles put
// inside the body: the interior solid angle at v over 4π. Its neighbours,
// seen from v, are the corners of a loop on the unit sphere joined by great
// arcs (each triangle (v, a, b) is a plane through v). By Gauss-Bonnet, the
// area on the loop's left is 2π - Σ τ (τ: the signed turn at each corner,
// left positive, seen from outside the sphere); the faces run
// counter-clockwise seen from outside the body, so the left is the outside
// and the inside is 4π - (2π - Σ τ) = 2π + Σ τ. -1 when a turn is undefined
// (two neighbours in one direction).
static double corner_fraction_3d(const cc_body *b, int v) {
    const int *fan = &b->fan[b->fan_first[v]];
    const int m = b->fan_first[v + 1] - b->fan_first[v];
    const cc_vec3 o = b->points[v];
    double turns = 0.0;
    for (int k = 0; k < m; k++) {
        const cc_vec3 prev = unit(sub(b->points[fan[(k + m - 1) % m]], o));
        const cc_vec3 here = unit(sub(b->points[fan[k]], o));
        const cc_vec3 next = unit(sub(b->points[fan[(k + 1) % m]], o));
        // Along the great circle of normal n the direction of travel at x is n × x.
        const cc_vec3 t_in = cross(cross(prev, here), here);
        const cc_vec3 t_out = cross(cross(here, next), here);
        if (dot(t_in, t_in) < 1e-24 || dot(t_out, t_out) < 1e-24) {
            return -1.0;
        }
        turns += atan2(dot(cross(t_in, t_out), here), dot(t_in, t_out));
    }
    return (2.0 * PI + turns) / (4.0 * PI);
}

// A ring's corner: the angle from the next point round counter-clockwise
// to the previous one (the inside is on the left of a counter-clockwise
// ring), over 2π.
static double corner_fraction_2d(const cc_body *b, int v) {
    const int prev = b->fan[b->fan_first[v]], next = b->fan[b->fan_first[v] + 1];
    const cc_vec3 u = sub(b->points[prev], b->points[v]), w = sub(b->points[next], b->points[v]);
    if ((u.x == 0.0 && u.y == 0.0) || (w.x == 0.0 && w.y == 0.0)) {
        return -1.0;
    }
    double angle = atan2(w.x * u.y - w.y * u.x, w.x * u.x + w.y * u.y);
    if (angle < 0.0) {
        angle += 2.0 * PI;
    }
    return angle / (2.0 * PI);
}

// Each point's neighbours in order round it. At point a of a triangle
// (a, b, c) the fan goes from b to c; with every directed edge used once,
// these steps chain into one cycle round a manifold point. A point where
// they make several cycles (two cones tip to tip) keeps its neighbours,
// unordered, and gets no corner fraction (-1): --self leaves it unchecked.
static void build_fans_3d(cc_body *b) {
    const int n = b->point_count;
    b->fan_first = cc_alloc((size_t)n + 1, sizeof *b->fan_first);
    for (int k = 0; k < 3 * b->tri_count; k++) {
        b->fan_first[b->tris[k] + 1]++;
    }
    for (int i = 0; i < n; i++) {
        b->fan_first[i + 1] += b->fan_first[i];
    }
    const int total = b->fan_first[n];
    int *from = cc_alloc((size_t)total, sizeof *from), *to = cc_alloc((size_t)total, sizeof *to);
    int *fill = cc_alloc((size_t)n, sizeof *fill);
    for (int t = 0; t < b->tri_count; t++) {
        const int *c = &b->tris[3 * t];
        for (int k = 0; k < 3; k++) {
            const int at = b->fan_first[c[k]] + fill[c[k]]++;
            from[at] = c[(k + 1) % 3];
            to[at] = c[(k + 2) % 3];
        }
    }
    b->fan = cc_alloc((size_t)total, sizeof *b->fan);
    b->local = cc_alloc((size_t)n, sizeof *b->local);
    for (int i = 0; i < n; i++) {
        const int first = b->fan_first[i], m = b->fan_first[i + 1] - first;
        int length = 0, here = m > 0 ? from[first] : -1;
        while (length < m) {
            int k = 0;
            while (k < m && from[first + k] != here) {
                k++;
            }
            if (k == m) {
                break;
            }
            b->fan[first + length++] = here;
            here = to[first + k];
            if (here == from[first]) {
                break;
            }
        }
        if (length == m && m >= 3 && here == from[first]) {
            b->local[i] = corner_fraction_3d(b, i);
        } else {
            memcpy(&b->fan[first], &from[first], (size_t)m * sizeof *from);
            b->local[i] = -1.0;
        }
    }
    free(from);
    free(to);
    free(fill);
}

// A ring's fan is its previous and next point; a point on more than one
// loop (or on none) gets no corner fraction.
static void build_fans_2d(cc_body *b) {
    const int n = b->point_count;
    int *prev = cc_alloc((size_t)n, sizeof *prev), *next = cc_alloc((size_t)n, sizeof *next);
    int *uses = cc_alloc((size_t)n, sizeof *uses);
    for (int s = 0; s < b->seg_count; s++) {
        const int from = b->segs[2 * s], to = b->segs[2 * s + 1];
        next[from] = to;
        prev[to] = from;
        uses[from]++;
    }
    b->fan_first = cc_alloc((size_t)n + 1, sizeof *b->fan_first);
    b->fan = cc_alloc(2 * (size_t)n, sizeof *b->fan);
    b->local = cc_alloc((size_t)n, sizeof *b->local);
    for (int i = 0; i < n; i++) {
        b->fan_first[i + 1] = 2 * (i + 1);
        b->fan[2 * i] = prev[i];
        b->fan[2 * i + 1] = next[i];
        b->local[i] = uses[i] == 1 ? corner_fraction_2d(b, i) : -1.0;
        if (uses[i] != 1) {
            b->fan[2 * i] = b->fan[2 * i + 1] = i; // only itself to skip
        }
    }
    free(prev);
    free(next);
    free(uses);
}

void cc_body_prepare(cc_body *b, bool self) {
    if (b->tri_count > 0) {
        b->ring = false;
        b->closed = surface_closed(b);
    } else if (b->seg_count > 0) {
        // `l` lines only: a ring when they close into loops; otherwise a net
        // of lines (psb writes a cloth without triangles so): points in 3D.
        b->closed = loops_closed(b, b->why_open, sizeof b->why_open);
        b->ring = b->closed;
    } else {
        snprintf(b->why_open, sizeof b->why_open, "no 'f' or 'l' lines: points only");
        b->closed = b->ring = false;
    }
    if (b->closed) {
        turn_outward(b);
    }
    find_box(b);
    if (b->closed && !b->ring) {
        build_tree(b);
    }
    if (self && b->closed) {
        if (b->ring) {
            build_fans_2d(b);
        } else {
            build_fans_3d(b);
        }
    }
}
