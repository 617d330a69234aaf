// Polygon triangulation: a face of more than three corners -> triangles, by
// ear clipping in the plane that fits it best, so non-convex polygons stay
// correct; a fan where ear clipping cannot go on.
#include "triangulate.h"

#include <math.h>
#include <stdlib.h>

// The signed doubled area of the 2D triangle (a, b, c): > 0 when counter-clockwise.
static double orient(const double *a, const double *b, const double *c) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static bool same_point(const double *a, const double *b) {
    return a[0] == b[0] && a[1] == b[1];
}

// Could corner i of the remaining polygon be clipped as the ear (prev, i, next)?
// Its angle must be convex and no reflex corner may lie in the triangle or on
// its edges (one at the very same place as a triangle corner does not count:
// polygons that touch themselves there are still simple enough). Only reflex
// corners need a look: a convex one cannot lie in an ear of a simple polygon.
// Spends one unit of *budget per corner looked at.
static bool is_ear(const psb_polygon_scratch *pg, int i, long long *budget) {
    if (pg->reflex[i]) {
        return false;
    }
    int a = pg->prev[i], c = pg->next[i];
    const double *pa = pg->xy + 2 * a, *pb = pg->xy + 2 * i, *pc = pg->xy + 2 * c;
    double min_x = fmin(pa[0], fmin(pb[0], pc[0])), max_x = fmax(pa[0], fmax(pb[0], pc[0]));
    double min_y = fmin(pa[1], fmin(pb[1], pc[1])), max_y = fmax(pa[1], fmax(pb[1], pc[1]));
    *budget -= pg->listed + 1;
    for (int k = 0; k < pg->listed; k++) {
        int j = pg->reflex_list[k];
        const double *p = pg->xy + 2 * j;
        if (!pg->reflex[j] || j == a || j == c || p[0] < min_x || p[0] > max_x || p[1] < min_y ||
            p[1] > max_y) {
            continue;
        }
        if (same_point(p, pa) || same_point(p, pb) || same_point(p, pc)) {
            continue;
        }
        if (orient(pa, pb, p) >= 0 && orient(pb, pc, p) >= 0 && orient(pc, pa, p) >= 0) {
            return false;
        }
    }
    return true;
}

// Sets corner i's reflex flag from its angle now, listing it if it turns reflex.
// Clipping an ear only narrows the angles beside it, so a corner turns
// reflex only at the start, or in a polygon that overlaps itself: the list
// holds at most n + 2 (n - 3) entries.
static void set_reflex(psb_polygon_scratch *pg, int i) {
    bool reflex = !(orient(pg->xy + 2 * pg->prev[i], pg->xy + 2 * i, pg->xy + 2 * pg->next[i]) > 0);
    if (reflex && !pg->reflex[i]) {
        pg->reflex_list[pg->listed++] = i;
        pg->live++;
    } else if (!reflex && pg->reflex[i]) {
        pg->live--;
    }
    pg->reflex[i] = reflex;
}

// Drops the stale entries from the reflex list once they are most of it.
static void prune_reflex_list(psb_polygon_scratch *pg) {
    if (pg->listed <= 2 * pg->live + 16) {
        return;
    }
    int kept = 0;
    for (int k = 0; k < pg->listed; k++) {
        int j = pg->reflex_list[k];
        if (pg->reflex[j]) {
            pg->reflex_list[kept++] = j;
        }
    }
    pg->listed = kept;
}

static void put_triangle(int *out, int a, int b, int c) {
    out[0] = a;
    out[1] = b;
    out[2] = c;
}

// Projects the polygon corners[0..n) on the coordinate plane most nearly
// parallel to it, into pg->xy, so that it runs counter-clockwise there. The
// plane comes from Newell's normal N, twice the polygon's vector area:
// N_x = sum (y_i - y_j)(z_i + z_j) over the edges i -> j, and cyclically.
// False if the polygon has no area (N = 0, or not finite).
static bool project_polygon(psb_polygon_scratch *pg, const psb_vec3 *points, const int *corners,
                            int n) {
    psb_vec3 origin = points[corners[0]];
    double normal[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
        psb_vec3 p = points[corners[i]], q = points[corners[i + 1 < n ? i + 1 : 0]];
        // relative to the first corner, to keep the products small
        double px = p.x - origin.x, py = p.y - origin.y, pz = p.z - origin.z;
        double qx = q.x - origin.x, qy = q.y - origin.y, qz = q.z - origin.z;
        normal[0] += (py - qy) * (pz + qz);
        normal[1] += (pz - qz) * (px + qx);
        normal[2] += (px - qx) * (py + qy);
    }
    // Drop the normal's largest axis k; keep (k+1, k+2) if N_k > 0, else swap
    // them: x = y cross z, y = z cross x, z = x cross y.
    int k = 0;
    double ax = fabs(normal[0]), ay = fabs(normal[1]), az = fabs(normal[2]);
    if (ay > ax && ay >= az) {
        k = 1;
    } else if (az > ax && az > ay) {
        k = 2;
    }
    if (!(fabs(normal[k]) > 0.0) || !isfinite(normal[k])) {
        return false;
    }
    int u = (k + 1) % 3, v = (k + 2) % 3;
    if (normal[k] < 0) {
        int t = u;
        u = v;
        v = t;
    }
    for (int i = 0; i < n; i++) {
        psb_vec3 p = points[corners[i]];
        double d[3] = {p.x - origin.x, p.y - origin.y, p.z - origin.z};
        pg->xy[2 * i] = d[u];
        pg->xy[2 * i + 1] = d[v];
    }
    return true;
}

// Ear clipping of the projected polygon: a convex corner whose triangle holds
// no other corner is cut off, until three corners remain. For a convex
// polygon this gives the fan from the first corner. Writes n - 2 triangles
// (3 vertex indices each, wound as the polygon) to out. Where no ear can be
// found (a polygon that crosses itself) or the search runs past its budget,
// what remains is finished as a fan.
static void clip_ears(psb_polygon_scratch *pg, const int *corners, int n, int *out) {
    for (int i = 0; i < n; i++) {
        pg->prev[i] = i == 0 ? n - 1 : i - 1;
        pg->next[i] = i == n - 1 ? 0 : i + 1;
        pg->reflex[i] = false;
    }
    pg->listed = pg->live = 0;
    for (int i = 0; i < n; i++) {
        set_reflex(pg, i);
    }
    // Ear clipping is about O(n^2) for ordinary polygons; a hostile one could
    // make it O(n^3), so the search has a budget.
    long long budget = 4LL * n * n + 1024;
    int remaining = n, misses = 0, i = 1;
    bool known_ear = false; // i has just been found to be an ear
    while (remaining > 3 && misses < remaining && budget > 0) {
        if (!known_ear && !is_ear(pg, i, &budget)) {
            misses++;
            i = pg->next[i];
            continue;
        }
        int a = pg->prev[i], c = pg->next[i];
        put_triangle(out, corners[a], corners[i], corners[c]);
        out += 3;
        pg->next[a] = c;
        pg->prev[c] = a;
        remaining--;
        set_reflex(pg, a);
        set_reflex(pg, c);
        prune_reflex_list(pg);
        misses = 0;
        // The corners either side of the cut have changed: try the one after
        // it, then the one before. Where a polygon narrows to a thin strip (a
        // spiral, a comb's tooth) the next ear is there, and walking on would
        // go once round the polygon per ear.
        i = c;
        known_ear = remaining > 3 && is_ear(pg, c, &budget);
        if (!known_ear && remaining > 3) {
            known_ear = is_ear(pg, a, &budget);
            i = known_ear ? a : pg->next[c];
            misses = known_ear ? 0 : 2;
        }
    }
    // Three corners left, the last ear (prev, i, next); or no ear found: a
    // fan from i.
    if (remaining == 3) {
        i = pg->prev[i];
    }
    for (int j = pg->next[i]; pg->next[j] != i; j = pg->next[j]) {
        put_triangle(out, corners[i], corners[j], corners[pg->next[j]]);
        out += 3;
    }
}

/// Splits corners[0..n) into n - 2 triangles; see triangulate.h.
bool psb_polygon_triangulate(psb_polygon_scratch *pg, const psb_vec3 *points, const int *corners,
                             int n, int *out) {
    if (n == 3) {
        put_triangle(out, corners[0], corners[1], corners[2]);
        return true;
    }
    if (!pg->block) {
        size_t max = (size_t)pg->max_corners;
        // doubles first, then ints, then bools: each part stays aligned
        pg->block = malloc(max * (2 * sizeof(double) + 5 * sizeof(int) + sizeof(bool)));
        if (!pg->block) {
            return false;
        }
        pg->xy = pg->block;
        pg->prev = (int *)(pg->xy + 2 * max);
        pg->next = pg->prev + max;
        pg->reflex_list = pg->next + max;
        pg->reflex = (bool *)(pg->reflex_list + 3 * max);
    }
    if (project_polygon(pg, points, corners, n)) {
        clip_ears(pg, corners, n, out);
        return true;
    }
    for (int j = 1; j + 1 < n; j++) {
        put_triangle(out + 3 * (j - 1), corners[0], corners[j], corners[j + 1]);
    }
    return true;
}

/// Frees the block; see triangulate.h.
void psb_polygon_scratch_free(psb_polygon_scratch *pg) {
    free(pg->block);
    *pg = (psb_polygon_scratch){.max_corners = pg->max_corners};
}
