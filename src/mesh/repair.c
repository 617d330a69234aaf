// Mesh repair: weld points, drop degenerate and duplicate triangles and unused
// points, make the winding consistent and outward, fill holes, fit to a size.
//
// The stages run in that order on copies of the caller's arrays; the copies
// replace the caller's only when every stage has succeeded, so an allocation
// failure half-way leaves the mesh as it was. Every stage is O(V + F) apart
// from hole filling (fill.c), which is O(k^2) in the length k of each hole's
// loop.
#include "fill.h"
#include "mesh_internal.h"
#include <psb/psb_obj.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// A triangle is degenerate when |(b - a) x (c - a)| <= this * (longest edge)^2,
// i.e. its height over the longest edge is below this fraction of that edge.
static const double degenerate_ratio = 1e-12;

/// Weld, drop unused/degenerate/duplicate triangles, fix orientation; no hole
/// filling, no fit.
psb_repair_options psb_default_repair_options(void) {
    return (psb_repair_options){
        .weld = true,
        .weld_tolerance = 0.0,
        .drop_unused = true,
        .drop_degenerate = true,
        .drop_duplicates = true,
        .fix_orientation = true,
        .fill_holes = false,
        .fit_radius = 0.0,
    };
}

// Frees the mesh being repaired (psb_repair_work, see fill.h) and zeroes it.
static void work_free(psb_repair_work *w) {
    free(w->points);
    free(w->tris);
    *w = (psb_repair_work){0};
}

/// Makes room for `points` more points and `tris` more triangles; see fill.h.
bool psb_repair_work_reserve(psb_repair_work *w, int points, int tris) {
    if (w->point_count + points > w->point_capacity) {
        int capacity = w->point_count + points;
        psb_vec3 *p = realloc(w->points, (size_t)capacity * sizeof *p);
        if (!p) {
            return false;
        }
        w->points = p;
        w->point_capacity = capacity;
    }
    if (w->tri_count + tris > w->tri_capacity) {
        int capacity = w->tri_count + tris;
        int *t = realloc(w->tris, (size_t)capacity * 3 * sizeof *t);
        if (!t) {
            return false;
        }
        w->tris = t;
        w->tri_capacity = capacity;
    }
    return true;
}
// ---------------------------------------------------------------------------
// Weld

// The bits of a coordinate, with -0.0 read as 0.0 so that the two weld.
static uint64_t coord_bits(double x) {
    if (x == 0.0) {
        x = 0.0;
    }
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static bool same_position(psb_vec3 a, psb_vec3 b) {
    return coord_bits(a.x) == coord_bits(b.x) && coord_bits(a.y) == coord_bits(b.y) &&
           coord_bits(a.z) == coord_bits(b.z);
}

// Exact weld: parent[v] is the first point with v's position.
static bool weld_exact(const psb_repair_work *w, int *parent) {
    size_t size = table_size((size_t)w->point_count), mask = size - 1;
    int *table = malloc(size * sizeof *table);
    if (!table) {
        return false;
    }
    memset(table, 0xff, size * sizeof *table); // -1: empty
    for (int v = 0; v < w->point_count; v++) {
        psb_vec3 p = w->points[v];
        uint64_t h = mix64(coord_bits(p.x) ^ mix64(coord_bits(p.y) ^ mix64(coord_bits(p.z) + 1)));
        size_t slot = (size_t)h & mask;
        parent[v] = v;
        while (table[slot] >= 0 && !same_position(w->points[table[slot]], p)) {
            slot = (slot + 1) & mask;
        }
        if (table[slot] >= 0) {
            parent[v] = table[slot];
        } else {
            table[slot] = v;
        }
    }
    free(table);
    return true;
}

// One occupied cell of the tolerance grid and the points in it.
typedef struct grid_cell {
    int64_t x, y, z;
    int head; // first point in the cell (-1: slot empty); then next[]
} grid_cell;

// The cell of coordinate c for cells of size `cell`, clamped far from overflow.
static int64_t cell_index(double c, double cell) {
    double q = floor(c / cell);
    const double limit = 4.0e18;
    return (int64_t)(q < -limit ? -limit : q > limit ? limit : q);
}

static size_t cell_slot(const grid_cell *table, size_t mask, int64_t x, int64_t y, int64_t z) {
    uint64_t h = mix64((uint64_t)x ^ mix64((uint64_t)y ^ mix64((uint64_t)z + 1)));
    size_t slot = (size_t)h & mask;
    while (table[slot].head >= 0 &&
           (table[slot].x != x || table[slot].y != y || table[slot].z != z)) {
        slot = (slot + 1) & mask;
    }
    return slot;
}

// Tolerance weld: points closer than tol (chains of them, transitively) form
// one group, represented by its first point. A grid of cells of size tol puts
// every such pair in the same or neighbouring cells: each point is compared
// with the points already filed in the 27 cells around its own.
static bool weld_tolerance(const psb_repair_work *w, double tol, int *parent) {
    int n = w->point_count;
    size_t size = table_size((size_t)n), mask = size - 1;
    grid_cell *table = malloc(size * sizeof *table);
    int *next = malloc((size_t)(n > 0 ? n : 1) * sizeof *next);
    if (!table || !next) {
        free(table);
        free(next);
        return false;
    }
    for (size_t i = 0; i < size; i++) {
        table[i].head = -1;
    }
    double tol2 = tol * tol;
    for (int v = 0; v < n; v++) {
        parent[v] = v;
    }
    for (int v = 0; v < n; v++) {
        psb_vec3 p = w->points[v];
        int64_t cx = cell_index(p.x, tol), cy = cell_index(p.y, tol), cz = cell_index(p.z, tol);
        for (int dx = -1; dx <= 1; dx++) {
            for (int dy = -1; dy <= 1; dy++) {
                for (int dz = -1; dz <= 1; dz++) {
                    size_t slot = cell_slot(table, mask, cx + dx, cy + dy, cz + dz);
                    for (int u = table[slot].head; u >= 0; u = next[u]) {
                        psb_vec3 d = vsub(w->points[u], p);
                        if (vdot(d, d) <= tol2) {
                            unite_min(parent, u, v);
                        }
                    }
                }
            }
        }
        size_t slot = cell_slot(table, mask, cx, cy, cz);
        if (table[slot].head < 0) {
            table[slot] = (grid_cell){cx, cy, cz, -1};
        }
        next[v] = table[slot].head;
        table[slot].head = v;
    }
    free(table);
    free(next);
    return true;
}

// Keeps the first point of each group (at its own position), renumbers the
// points in order and the triangles' corners after them.
static bool weld(psb_repair_work *w, double tol, int *welded) {
    int n = w->point_count;
    int *parent = malloc((size_t)(n > 0 ? n : 1) * sizeof *parent);
    if (!parent || !(tol > 0.0 ? weld_tolerance(w, tol, parent) : weld_exact(w, parent))) {
        free(parent);
        return false;
    }
    for (int v = 0; v < n; v++) {
        parent[v] = find_root(parent, v); // every point straight to its root, <= v
    }
    // Renumber in place: a root's entry becomes its new index when the root
    // is reached, before any later point of its group reads it.
    int kept = 0;
    for (int v = 0; v < n; v++) {
        if (parent[v] == v) {
            w->points[kept] = w->points[v];
            parent[v] = kept++;
        } else {
            parent[v] = parent[parent[v]];
        }
    }
    for (int i = 0; i < 3 * w->tri_count; i++) {
        w->tris[i] = parent[w->tris[i]];
    }
    *welded = n - kept;
    w->point_count = kept;
    free(parent);
    return true;
}

// ---------------------------------------------------------------------------
// Degenerate, duplicate and unused

static bool degenerate(const psb_repair_work *w, const int *t) {
    if (t[0] == t[1] || t[1] == t[2] || t[2] == t[0]) {
        return true;
    }
    psb_vec3 a = w->points[t[0]], b = w->points[t[1]], c = w->points[t[2]];
    psb_vec3 ab = vsub(b, a), bc = vsub(c, b), ca = vsub(a, c);
    double longest = fmax(vdot(ab, ab), fmax(vdot(bc, bc), vdot(ca, ca)));
    psb_vec3 n = vcross(ab, vsub(c, a));
    // |n| <= ratio * L^2, squared on both sides to stay clear of sqrt.
    return vdot(n, n) <= degenerate_ratio * degenerate_ratio * longest * longest;
}

static int drop_degenerate(psb_repair_work *w) {
    int kept = 0;
    for (int f = 0; f < w->tri_count; f++) {
        const int *t = w->tris + 3 * f;
        if (!degenerate(w, t)) {
            memmove(w->tris + 3 * kept++, t, 3 * sizeof *t);
        }
    }
    int dropped = w->tri_count - kept;
    w->tri_count = kept;
    return dropped;
}

// The corners sorted into s; returns +1 if t is an even permutation (a
// rotation) of s, -1 if odd (the mirror image).
static int sorted_corners(const int *t, int *s) {
    int a = t[0], b = t[1], c = t[2], swap, parity = 1;
    if (a > b) {
        swap = a, a = b, b = swap, parity = -parity;
    }
    if (b > c) {
        swap = b, b = c, c = swap, parity = -parity;
    }
    if (a > b) {
        swap = a, a = b, b = swap, parity = -parity;
    }
    s[0] = a, s[1] = b, s[2] = c;
    return parity;
}

// Drops triangles whose corners (in any order) repeat another's. A triangle
// and its mirror image (the same corners wound the other way) are a sheet of
// no thickness: a fin hanging off an edge, or the face two glued bodies
// share. Both sides go, since keeping either makes every edge of it
// non-manifold. So the windings of each set of corners are summed (+1 and -1):
// a sum of 0 drops them all, otherwise the first triangle of the winding in
// the majority is kept.
static bool drop_duplicates(psb_repair_work *w, int *dropped) {
    int m = w->tri_count;
    size_t size = table_size((size_t)m), mask = size - 1;
    int *table = malloc(size * sizeof *table); // first triangle of each set, -1: empty
    int *group = malloc((size_t)(m > 0 ? m : 1) * sizeof *group); // that first triangle
    int *sum = malloc((size_t)(m > 0 ? m : 1) * sizeof *sum);     // windings summed, at the first
    if (!table || !group || !sum) {
        free(table);
        free(group);
        free(sum);
        return false;
    }
    memset(table, 0xff, size * sizeof *table);
    for (int f = 0; f < m; f++) {
        int s[3], o[3];
        int parity = sorted_corners(w->tris + 3 * f, s);
        uint64_t h = mix64((uint64_t)s[0] ^ mix64((uint64_t)s[1] ^ mix64((uint64_t)s[2] + 1)));
        size_t slot = (size_t)h & mask;
        while (table[slot] >= 0) {
            sorted_corners(w->tris + 3 * table[slot], o);
            if (o[0] == s[0] && o[1] == s[1] && o[2] == s[2]) {
                break;
            }
            slot = (slot + 1) & mask;
        }
        if (table[slot] < 0) {
            table[slot] = f;
            sum[f] = 0;
        }
        group[f] = table[slot];
        sum[group[f]] += parity;
    }
    int kept = 0;
    for (int f = 0; f < m; f++) {
        int s[3], g = group[f];
        int parity = sorted_corners(w->tris + 3 * f, s);
        // Keep it if its winding has the majority and no triangle of the set
        // was kept yet (the sum is then zeroed to say so).
        if (sum[g] != 0 && (sum[g] > 0) == (parity > 0)) {
            memmove(w->tris + 3 * kept++, w->tris + 3 * f, 3 * sizeof *w->tris);
            sum[g] = 0;
        }
    }
    *dropped = m - kept;
    w->tri_count = kept;
    free(table);
    free(group);
    free(sum);
    return true;
}

// Drops points no triangle uses, keeping the others in order.
static bool drop_unused(psb_repair_work *w, int *dropped) {
    int n = w->point_count;
    int *index = calloc((size_t)(n > 0 ? n : 1), sizeof *index);
    if (!index) {
        return false;
    }
    for (int i = 0; i < 3 * w->tri_count; i++) {
        index[w->tris[i]] = 1;
    }
    int kept = 0;
    for (int v = 0; v < n; v++) {
        if (index[v]) {
            w->points[kept] = w->points[v];
            index[v] = kept++;
        }
    }
    for (int i = 0; i < 3 * w->tri_count; i++) {
        w->tris[i] = index[w->tris[i]];
    }
    *dropped = n - kept;
    w->point_count = kept;
    free(index);
    return true;
}

// ---------------------------------------------------------------------------
// Edges: the half-edges grouped by undirected edge (psb_repair_edges, see
// fill.h), one table for the orientation and the hole filling.

static void edges_free(psb_repair_edges *e) {
    free(e->first);
    free(e->half);
    free(e->edge_of);
    free(e->lo);
    free(e->hi);
    *e = (psb_repair_edges){0};
}

static void half_edge_ends(const int *tris, int h, int *lo, int *hi) {
    int a = tris[h], b = tris[h - h % 3 + (h + 1) % 3];
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

// Two stable counting sorts, by the larger end then by the smaller, put equal
// edges side by side in O(V + F).
static bool edges_build(const psb_repair_work *w, psb_repair_edges *e) {
    *e = (psb_repair_edges){0};
    int hcount = 3 * w->tri_count, n = w->point_count;
    size_t hsize = (size_t)(hcount > 0 ? hcount : 1);
    int *count = malloc((size_t)(n + 1) * sizeof *count);
    int *tmp = malloc(hsize * sizeof *tmp);
    e->first = malloc((hsize + 1) * sizeof *e->first);
    e->half = malloc(hsize * sizeof *e->half);
    e->edge_of = malloc(hsize * sizeof *e->edge_of);
    e->lo = malloc(hsize * sizeof *e->lo);
    e->hi = malloc(hsize * sizeof *e->hi);
    if (!count || !tmp || !e->first || !e->half || !e->edge_of || !e->lo || !e->hi) {
        free(count);
        free(tmp);
        edges_free(e);
        return false;
    }
    for (int pass = 0; pass < 2; pass++) {
        const int *in = pass == 0 ? NULL : tmp;
        int *out = pass == 0 ? tmp : e->half;
        memset(count, 0, (size_t)(n + 1) * sizeof *count);
        for (int h = 0; h < hcount; h++) {
            int lo, hi;
            half_edge_ends(w->tris, h, &lo, &hi);
            count[(pass == 0 ? hi : lo) + 1]++;
        }
        for (int v = 0; v < n; v++) {
            count[v + 1] += count[v];
        }
        for (int i = 0; i < hcount; i++) {
            int h = in ? in[i] : i, lo, hi;
            half_edge_ends(w->tris, h, &lo, &hi);
            out[count[pass == 0 ? hi : lo]++] = h;
        }
    }
    int edge = -1, last_lo = -1, last_hi = -1;
    for (int i = 0; i < hcount; i++) {
        int h = e->half[i], lo, hi;
        half_edge_ends(w->tris, h, &lo, &hi);
        if (lo != last_lo || hi != last_hi) {
            edge++;
            e->first[edge] = i;
            e->lo[edge] = last_lo = lo;
            e->hi[edge] = last_hi = hi;
        }
        e->edge_of[h] = edge;
    }
    e->count = edge + 1;
    e->first[e->count] = hcount;
    free(count);
    free(tmp);
    return true;
}
// ---------------------------------------------------------------------------
// Orientation

// Breadth-first over the triangles across manifold edges (exactly two
// triangles), flipping a neighbour that walks the shared edge the same way as
// the triangle it is reached from. Non-manifold edges are not crossed, so a
// patch is a set of triangles joined by manifold edges. patch[f] receives the
// patch of each triangle and flipped[f] is set for each one turned; returns
// the number of patches.
static int orient_patches(psb_repair_work *w, const psb_repair_edges *e, int *patch, int *queue,
                          unsigned char *flipped) {
    int patches = 0;
    for (int f = 0; f < w->tri_count; f++) {
        patch[f] = -1;
    }
    for (int seed = 0; seed < w->tri_count; seed++) {
        if (patch[seed] >= 0) {
            continue;
        }
        int head = 0, tail = 0;
        queue[tail++] = seed;
        patch[seed] = patches;
        while (head < tail) {
            int f = queue[head++];
            for (int k = 0; k < 3; k++) {
                int edge = e->edge_of[3 * f + k];
                if (e->first[edge + 1] - e->first[edge] != 2) {
                    continue;
                }
                int h0 = e->half[e->first[edge]], h1 = e->half[e->first[edge] + 1];
                int g = h0 / 3 == f ? h1 / 3 : h0 / 3;
                if (patch[g] >= 0) {
                    continue; // already placed; a disagreement here cannot be mended
                }
                int lo = e->lo[edge], hi = e->hi[edge];
                int *tg = w->tris + 3 * g;
                if (walks(w->tris + 3 * f, lo, hi) == walks(tg, lo, hi)) {
                    int swap = tg[1];
                    tg[1] = tg[2];
                    tg[2] = swap;
                    flipped[g] = 1;
                }
                patch[g] = patches;
                queue[tail++] = g;
            }
        }
        patches++;
    }
    return patches;
}

// Turns each patch outward. The test is the signed volume of the cone from
// the patch's centre c (the mean of its triangles' centroids) to the patch,
// V = 1/6 sum (a - c) . ((b - c) x (d - c)): for a closed patch that is its
// volume whatever c is, and it is flipped when the volume is negative. For an
// open patch (a surface with holes) it is a heuristic: the patch is turned so
// that, weighted by area, its triangles face away from its centre, which is
// right for anything that is nearly closed (a scan with holes in its base).
// flipped[f] is toggled for each triangle turned.
static bool orient_outward(psb_repair_work *w, const int *patch, int patches,
                           unsigned char *flipped) {
    double *sum = calloc((size_t)(patches > 0 ? patches : 1) * 4, sizeof *sum);
    if (!sum) {
        return false;
    }
    for (int f = 0; f < w->tri_count; f++) {
        const int *t = w->tris + 3 * f;
        double *s = sum + 4 * patch[f];
        for (int k = 0; k < 3; k++) {
            s[0] += w->points[t[k]].x / 3.0;
            s[1] += w->points[t[k]].y / 3.0;
            s[2] += w->points[t[k]].z / 3.0;
        }
        s[3] += 1.0;
    }
    for (int p = 0; p < patches; p++) {
        double *s = sum + 4 * p, faces = s[3] > 0.0 ? s[3] : 1.0; // a merged patch has none
        s[0] /= faces;
        s[1] /= faces;
        s[2] /= faces;
        s[3] = 0.0; // now the volume
    }
    for (int f = 0; f < w->tri_count; f++) {
        const int *t = w->tris + 3 * f;
        double *s = sum + 4 * patch[f];
        psb_vec3 c = {s[0], s[1], s[2]};
        psb_vec3 a = vsub(w->points[t[0]], c), b = vsub(w->points[t[1]], c),
                 d = vsub(w->points[t[2]], c);
        s[3] += vdot(a, vcross(b, d)) / 6.0;
    }
    for (int f = 0; f < w->tri_count; f++) {
        if (sum[4 * patch[f] + 3] < 0.0) {
            int *t = w->tris + 3 * f;
            int swap = t[1];
            t[1] = t[2];
            t[2] = swap;
            flipped[f] ^= 1;
        }
    }
    free(sum);
    return true;
}

// The report's counts. Of a patch's first `original` triangles (those the
// caller gave), `changed` now wind the other way. If that is most of them the
// patch was inside out (one component flipped, and the rest counted as
// faces); otherwise those are faces flipped to agree with their neighbours.
// So the counts do not depend on which triangle the walk started from.
static bool count_flips(const int *patch, int patches, const unsigned char *flipped, int original,
                        psb_repair_report *r) {
    int *count = calloc((size_t)(patches > 0 ? patches : 1) * 2, sizeof *count);
    if (!count) {
        return false;
    }
    for (int f = 0; f < original; f++) {
        count[2 * patch[f]]++;
        count[2 * patch[f] + 1] += flipped[f];
    }
    for (int p = 0; p < patches; p++) {
        int faces = count[2 * p], changed = count[2 * p + 1];
        bool inside_out = changed > faces - changed;
        r->components_flipped += inside_out;
        r->faces_flipped += inside_out ? faces - changed : changed;
    }
    free(count);
    return true;
}

// Orientation and hole filling, on one table of edges: flipping a triangle
// does not change which edges there are, and the filling keeps track of the
// patches it joins. Winding is made consistent and outward first, so that the
// holes' borders run one way and the filling sees the very loops that the
// topology report of the result without filling counts; a patch the filling
// closed is then checked once more by its volume.
static bool orient_and_fill(psb_repair_work *w, const psb_repair_options *o, psb_repair_report *r) {
    psb_repair_edges e;
    if (!edges_build(w, &e)) {
        return false;
    }
    int border = 0;
    for (int i = 0; i < e.count; i++) {
        border += e.first[i + 1] - e.first[i] == 1;
    }
    size_t n = (size_t)w->tri_count + (size_t)border;
    int *patch = malloc((n > 0 ? n : 1) * sizeof *patch);
    int *queue = malloc((n > 0 ? n : 1) * sizeof *queue);
    unsigned char *flipped = calloc(n > 0 ? n : 1, 1);
    int patches = 0, original = w->tri_count;
    bool ok = patch && queue && flipped;
    if (ok && o->fix_orientation) {
        patches = orient_patches(w, &e, patch, queue, flipped);
        ok = orient_outward(w, patch, patches, flipped);
    }
    if (ok && o->fill_holes && border > 0) {
        int filled = r->holes_filled;
        ok = psb_repair_fill_holes(w, &e, border, o->fix_orientation ? patch : NULL, patches,
                                   &r->holes_filled, &r->fill_triangles);
        // A patch the filling closed has a true volume now: check its sign.
        if (ok && o->fix_orientation && r->holes_filled > filled) {
            ok = orient_outward(w, patch, patches, flipped);
        }
    }
    if (ok && o->fix_orientation) {
        ok = count_flips(patch, patches, flipped, original, r);
    }
    free(flipped);
    free(patch);
    free(queue);
    edges_free(&e);
    return ok;
}

// ---------------------------------------------------------------------------
// Fit

// Centres the bounding box on the origin and scales so the farthest point is
// `radius` from it. Returns the scale. Written so that nothing overflows,
// even for coordinates near DBL_MAX: the centre is halved before the sum,
// and the distances are measured in units of the largest offset.
static double fit(psb_repair_work *w, double radius) {
    if (w->point_count == 0) {
        return 1.0;
    }
    psb_vec3 lo = w->points[0], hi = w->points[0];
    for (int v = 1; v < w->point_count; v++) {
        psb_vec3 p = w->points[v];
        lo = (psb_vec3){fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z)};
        hi = (psb_vec3){fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z)};
    }
    psb_vec3 c = {0.5 * lo.x + 0.5 * hi.x, 0.5 * lo.y + 0.5 * hi.y, 0.5 * lo.z + 0.5 * hi.z};
    // Each offset from the centre is at most half the box, so it is finite;
    // lengths are measured in units of the largest offset component, s.
    double s = 0.0;
    for (int v = 0; v < w->point_count; v++) {
        psb_vec3 d = vsub(w->points[v], c);
        s = fmax(s, fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))));
    }
    double farthest = 0.0; // in units of s
    for (int v = 0; s > 0.0 && v < w->point_count; v++) {
        psb_vec3 d = vsub(w->points[v], c);
        const psb_vec3 u = {d.x / s, d.y / s, d.z / s};
        farthest = fmax(farthest, sqrt(vdot(u, u)));
    }
    double scale = farthest > 0.0 ? radius / s / farthest : 1.0;
    for (int v = 0; v < w->point_count; v++) {
        psb_vec3 d = vsub(w->points[v], c);
        w->points[v] = (psb_vec3){d.x * scale, d.y * scale, d.z * scale};
    }
    return scale;
}

// ---------------------------------------------------------------------------

static psb_status check_input(const psb_mesh *mesh, const psb_repair_options *o, psb_error *err) {
    static const char fn[] = "psb_mesh_repair";
    if (!mesh) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: mesh is NULL", fn);
    }
    if (!(o->weld_tolerance >= 0.0 && isfinite(o->weld_tolerance))) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: weld_tolerance is %g; expected a finite distance >= 0 m", fn,
                             o->weld_tolerance);
    }
    if (!(o->fit_radius >= 0.0 && isfinite(o->fit_radius))) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: fit_radius is %g; expected a finite radius >= 0 m (0: no fit)",
                             fn, o->fit_radius);
    }
    psb_status status = psb_mesh_check_arrays(mesh, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    const int n = mesh->point_count;
    for (int v = 0; v < n; v++) {
        psb_vec3 p = mesh->points[v];
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) {
            return psb_error_set(err, PSB_ERR_INVALID,
                                 "%s: point %d is (%g, %g, %g); expected finite coordinates", fn, v,
                                 p.x, p.y, p.z);
        }
    }
    return PSB_OK;
}

// The stages in order; false on an allocation failure.
static bool repair_stages(psb_repair_work *w, const psb_repair_options *o, bool shell,
                          psb_repair_report *r) {
    if (shell) {
        if (o->weld && !weld(w, o->weld_tolerance, &r->welded)) {
            return false;
        }
        if (o->drop_degenerate) {
            r->degenerate_dropped = drop_degenerate(w);
        }
        if (o->drop_duplicates && !drop_duplicates(w, &r->duplicates_dropped)) {
            return false;
        }
        if (o->drop_unused && !drop_unused(w, &r->unused_dropped)) {
            return false;
        }
        if ((o->fix_orientation || o->fill_holes) && !orient_and_fill(w, o, r)) {
            return false;
        }
    }
    if (o->fit_radius > 0.0) {
        r->fit_scale = fit(w, o->fit_radius);
    }
    return true;
}

/// Repairs mesh in place; see psb_obj.h. A ring only gets the fit. Fails with
/// PSB_ERR_INVALID on a malformed mesh (bad counts, indices out of range,
/// non-finite points) or options, PSB_ERR_NOMEM when out of memory; the mesh
/// is then unchanged.
psb_status psb_mesh_repair(psb_mesh *mesh, const psb_repair_options *options,
                           psb_repair_report *report, psb_error *err) {
    psb_repair_report r = {.fit_scale = 1.0};
    if (report) {
        *report = r;
    }
    psb_repair_options o = options ? *options : psb_default_repair_options();
    psb_status status = check_input(mesh, &o, err);
    if (status != PSB_OK) {
        return status;
    }
    bool shell = mesh->kind == PSB_SHELL;
    int n = mesh->point_count, m = shell ? mesh->triangle_count : 0;
    psb_repair_work w = {0};
    bool ok = psb_repair_work_reserve(&w, n, m);
    if (ok) {
        if (n > 0) {
            memcpy(w.points, mesh->points, (size_t)n * sizeof *w.points);
        }
        if (m > 0) {
            memcpy(w.tris, mesh->triangles, (size_t)m * 3 * sizeof *w.tris);
        }
        w.point_count = n;
        w.tri_count = m;
        ok = repair_stages(&w, &o, shell, &r);
    }
    if (!ok) {
        work_free(&w);
        return psb_error_set(err, PSB_ERR_NOMEM,
                             "psb_mesh_repair: out of memory repairing %d points and %d triangles",
                             n, m);
    }
    free(mesh->points);
    free(mesh->triangles);
    mesh->points = w.points;
    mesh->point_count = w.point_count;
    mesh->triangles = shell ? w.tris : NULL;
    mesh->triangle_count = shell ? w.tri_count : 0;
    if (!shell) {
        free(w.tris);
    }
    if (report) {
        *report = r;
    }
    if (err) {
        err->status = PSB_OK;
        err->message[0] = '\0';
    }
    return PSB_OK;
}
