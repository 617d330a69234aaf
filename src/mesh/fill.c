// Hole filling: every closed border loop of a mesh under repair is closed
// with triangles, by ear clipping in the loop's plane, or by a fan around a
// new point at its centroid where that fails. O(k^2) in the length k of each
// loop, with a budget for the whole repair.
#include "fill.h"

#include "border_loops.h"
#include "mesh_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

// Ear clipping costs O(k^2) for a loop of k points, O(k^3) at worst: after
// this many point-in-triangle tests in one repair, the remaining loops are
// closed with fans around their centroids instead, so that no mesh, however
// made, takes long to fill (a convex loop of 4000 points needs 8 million).
static const long ear_clip_budget = 10000000;

// A set of undirected edges (lo, hi), open addressing, fixed capacity.
typedef struct edge_set {
    uint64_t *keys; // (lo << 32 | hi) + 1; 0: empty
    size_t mask;
} edge_set;

static uint64_t edge_key(int a, int b) {
    uint64_t lo = (uint64_t)(a < b ? a : b), hi = (uint64_t)(a < b ? b : a);
    return (lo << 32 | hi) + 1;
}

// The slot holding the edge, or the empty slot where it would go.
static size_t edge_set_slot(const edge_set *s, uint64_t key) {
    size_t slot = (size_t)mix64(key) & s->mask;
    while (s->keys[slot] != 0 && s->keys[slot] != key) {
        slot = (slot + 1) & s->mask;
    }
    return slot;
}

static bool edge_set_has(const edge_set *s, int a, int b) {
    uint64_t key = edge_key(a, b);
    return s->keys[edge_set_slot(s, key)] == key;
}

static void edge_set_add(edge_set *s, int a, int b) {
    uint64_t key = edge_key(a, b);
    s->keys[edge_set_slot(s, key)] = key;
}

// Scratch for one loop at a time, sized for the longest.
typedef struct polygon {
    int count;
    int *point; // mesh point of each polygon corner, in the filling triangles' order
    int *prev;  // the corners not yet clipped, as a doubly linked ring
    int *next;
    double *x, *y;  // the corners projected on the loop's plane
    int *triangles; // 3 polygon corners per triangle made
    long budget;    // point-in-triangle tests left for ear clipping
} polygon;

static double orient2(const polygon *p, int a, int b, int c) {
    return (p->x[b] - p->x[a]) * (p->y[c] - p->y[a]) - (p->y[b] - p->y[a]) * (p->x[c] - p->x[a]);
}

// Projects the polygon on the plane through its centroid normal to its
// Newell normal n = sum (p_j - c) x (p_{j+1} - c), in axes u, v with
// u x v = n / |n|, so that the polygon winds counter-clockwise in (x, y).
static void project(polygon *p, const psb_vec3 *points, psb_vec3 *centroid) {
    psb_vec3 c = {0.0, 0.0, 0.0}, n = {0.0, 0.0, 0.0};
    for (int j = 0; j < p->count; j++) {
        psb_vec3 q = points[p->point[j]];
        c = (psb_vec3){c.x + q.x / p->count, c.y + q.y / p->count, c.z + q.z / p->count};
    }
    for (int j = 0; j < p->count; j++) {
        psb_vec3 a = vsub(points[p->point[j]], c);
        psb_vec3 b = vsub(points[p->point[(j + 1) % p->count]], c);
        psb_vec3 ab = vcross(a, b);
        n = (psb_vec3){n.x + ab.x, n.y + ab.y, n.z + ab.z};
    }
    double len = sqrt(vdot(n, n));
    n = len > 0.0 ? (psb_vec3){n.x / len, n.y / len, n.z / len} : (psb_vec3){0.0, 0.0, 1.0};
    // u: the axis least aligned with n, made perpendicular to it.
    psb_vec3 axis = fabs(n.x) <= fabs(n.y) && fabs(n.x) <= fabs(n.z) ? (psb_vec3){1.0, 0.0, 0.0}
                    : fabs(n.y) <= fabs(n.z)                         ? (psb_vec3){0.0, 1.0, 0.0}
                                                                     : (psb_vec3){0.0, 0.0, 1.0};
    psb_vec3 u = vcross(axis, n);
    double ulen = sqrt(vdot(u, u));
    u = (psb_vec3){u.x / ulen, u.y / ulen, u.z / ulen};
    psb_vec3 v = vcross(n, u);
    for (int j = 0; j < p->count; j++) {
        psb_vec3 q = vsub(points[p->point[j]], c);
        p->x[j] = vdot(q, u);
        p->y[j] = vdot(q, v);
    }
    *centroid = c;
}

// Whether corner i (between a and c) is an ear: convex, its diagonal a-c not
// an edge already (that would make an edge of three triangles), and no other
// remaining corner inside or on the triangle a-i-c.
static bool is_ear(polygon *p, const edge_set *set, int i, int remaining) {
    int a = p->prev[i], c = p->next[i];
    if (orient2(p, a, i, c) <= 0.0) {
        return false;
    }
    if (remaining > 3 && edge_set_has(set, p->point[a], p->point[c])) {
        return false;
    }
    for (int j = p->next[c]; j != a; j = p->next[j]) {
        if (--p->budget < 0) {
            return false;
        }
        if (orient2(p, a, i, j) >= 0.0 && orient2(p, i, c, j) >= 0.0 &&
            orient2(p, c, a, j) >= 0.0) {
            return false;
        }
    }
    return true;
}

// Ear clipping; returns the number of triangles (count - 2), or -1 when it
// finds no ear (a polygon that is not simple in its projection).
static int ear_clip(polygon *p, const edge_set *set) {
    int n = p->count, made = 0;
    for (int j = 0; j < n; j++) {
        p->prev[j] = (j + n - 1) % n;
        p->next[j] = (j + 1) % n;
    }
    int i = 0, remaining = n, tries = 0;
    while (remaining > 3) {
        if (tries > remaining || p->budget < 0) {
            return -1;
        }
        if (!is_ear(p, set, i, remaining)) {
            i = p->next[i];
            tries++;
            continue;
        }
        int a = p->prev[i], c = p->next[i];
        p->triangles[3 * made] = a;
        p->triangles[3 * made + 1] = i;
        p->triangles[3 * made + 2] = c;
        made++;
        p->next[a] = c;
        p->prev[c] = a;
        remaining--;
        tries = 0;
        i = c;
    }
    p->triangles[3 * made] = p->prev[i];
    p->triangles[3 * made + 1] = i;
    p->triangles[3 * made + 2] = p->next[i];
    return made + 1;
}

// Closes one loop: ear clipping in the loop's plane, or when that fails (or
// its budget is spent) a fan of triangles around a new point at its
// centroid, which cannot clash with any edge. Both keep the polygon's order,
// which is the reverse of the border half-edges, so every border edge is
// walked once each way and the result is manifold and consistently wound.
static void fill_polygon(psb_repair_work *w, polygon *p, edge_set *set, int *fill_triangles) {
    psb_vec3 centroid;
    project(p, w->points, &centroid);
    // A convex loop of k points takes about k^2 / 2 tests: when even that is
    // past the budget, go straight to the fan.
    int made = (long)p->count * p->count / 2 <= p->budget ? ear_clip(p, set) : -1;
    if (made >= 0) {
        for (int k = 0; k < made; k++) {
            int *t = w->tris + 3 * w->tri_count++;
            for (int c = 0; c < 3; c++) {
                t[c] = p->point[p->triangles[3 * k + c]];
            }
            edge_set_add(set, t[0], t[2]);
        }
        *fill_triangles += made;
        return;
    }
    int centre = w->point_count++;
    w->points[centre] = centroid;
    for (int j = 0; j < p->count; j++) {
        int *t = w->tris + 3 * w->tri_count++;
        t[0] = p->point[j];
        t[1] = p->point[(j + 1) % p->count];
        t[2] = centre;
        edge_set_add(set, t[0], centre);
    }
    *fill_triangles += p->count;
}

static void polygon_free(polygon *p) {
    free(p->point);
    free(p->prev);
    free(p->next);
    free(p->x);
    free(p->y);
    free(p->triangles);
}

/// Closes the closed border loops of w; see fill.h.
bool psb_repair_fill_holes(psb_repair_work *w, const psb_repair_edges *e, int border, int *patch,
                           int patches, int *holes, int *fill_triangles) {
    size_t nb = (size_t)border;
    int *from = malloc(nb * sizeof *from), *to = malloc(nb * sizeof *to);
    int *face = malloc(nb * sizeof *face); // the triangle on each border half-edge
    int *merge = malloc((size_t)(patches > 0 ? patches : 1) * sizeof *merge);
    size_t size = table_size((size_t)e->count + 2 * nb);
    edge_set set = {calloc(size, sizeof(uint64_t)), size - 1};
    psb_border_loops loops = {0};
    polygon p = {.budget = ear_clip_budget};
    bool ok = from && to && face && merge && set.keys;
    if (ok) {
        int k = 0;
        for (int i = 0; i < e->count; i++) {
            edge_set_add(&set, e->lo[i], e->hi[i]);
            if (e->first[i + 1] - e->first[i] == 1) {
                face[k] = e->half[e->first[i]] / 3;
                bool forward = walks(w->tris + 3 * face[k], e->lo[i], e->hi[i]);
                from[k] = forward ? e->lo[i] : e->hi[i];
                to[k++] = forward ? e->hi[i] : e->lo[i];
            }
        }
        for (int q = 0; q < patches; q++) {
            merge[q] = q;
        }
        ok = psb_border_loops_find(w->point_count, from, to, border, &loops) == PSB_OK;
    }
    int longest = 0;
    for (int l = 0; ok && l < loops.count; l++) {
        int length = loops.start[l + 1] - loops.start[l];
        longest = length > longest ? length : longest;
    }
    if (ok) {
        size_t n = (size_t)longest;
        p.point = malloc(n * sizeof *p.point);
        p.prev = malloc(n * sizeof *p.prev);
        p.next = malloc(n * sizeof *p.next);
        p.x = malloc(n * sizeof *p.x);
        p.y = malloc(n * sizeof *p.y);
        p.triangles = malloc(3 * n * sizeof *p.triangles);
        // At most one new point per loop and one triangle per border edge.
        ok = p.point && p.prev && p.next && p.x && p.y && p.triangles &&
             psb_repair_work_reserve(w, loops.count, border);
    }
    for (int l = 0; ok && l < loops.count; l++) {
        // A loop of one half-edge is the edge a -> a of a degenerate triangle
        // (kept when drop_degenerate is off): nothing to fill.
        if (!loops.closed[l] || loops.start[l + 1] - loops.start[l] < 3) {
            continue;
        }
        // The border half-edges run v0 -> v1 -> ... -> v(k-1) -> v0; the
        // filling triangles must walk them back: v(k-1), ..., v1, v0.
        const int *loop = loops.order + loops.start[l];
        p.count = loops.start[l + 1] - loops.start[l];
        for (int j = 0; j < p.count; j++) {
            p.point[j] = from[loop[p.count - 1 - j]];
        }
        int first_new = w->tri_count;
        fill_polygon(w, &p, &set, fill_triangles);
        (*holes)++;
        for (int j = 0; patch && j < p.count; j++) {
            unite_min(merge, patch[face[loop[0]]], patch[face[loop[j]]]);
        }
        for (int f = first_new; patch && f < w->tri_count; f++) {
            patch[f] = patch[face[loop[0]]];
        }
    }
    for (int f = 0; ok && patch && f < w->tri_count; f++) {
        patch[f] = find_root(merge, patch[f]);
    }
    polygon_free(&p);
    psb_border_loops_free(&loops);
    free(set.keys);
    free(from);
    free(to);
    free(face);
    free(merge);
    return ok;
}
