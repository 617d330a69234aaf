// A ring's own winding numbers by rays (docs/contact.md, "A ring's own way
// out"). The own way out asks a crumpled ring's points for their own winding
// numbers many times a step; summing the angles of all n edges each time
// made 1 s of a crumpling 4000-point ring take 168 s (2.2 s without self
// contact). The winding number of a closed curve about a point is also the
// signed count of its crossings with any ray from the point, so here one
// ray along an axis is cast, and only the edges filed in its column (a ray
// along y) or its row (along x) are looked at.
//
// The ray starts at point k itself, which is on the ring: its own two edges
// are left out, and the ray, not along either, leaves k either through the
// outside of k's corner (the winding number there is k's own) or through
// its inside (one more: the side on the left of a ring's way round is 1
// above the side on its right). Where p is on another edge, that edge
// counts a half (crossing); where the ray cannot tell, the angles are summed
// after all (angle_sum).
#include "ring_rays.h"

#include <math.h>
#include <stdlib.h>

// Edges moved out of their bins since the filing that are checked one by
// one before that axis is filed again (ring_rays_loosen): LOOSE_PER_ROOT
// sqrt(edges), at least LOOSE_MIN. A filing costs about n, and each own
// winding number one more check per loose edge.
#define LOOSE_PER_ROOT 4.0
enum { LOOSE_MIN = 64 };
// An edge is filed in the bins its span meets grown by this many bins each
// way, so that most of the own way out's moves leave it in bins that list it.
#define BIN_MARGIN 1.0

#define PI 3.14159265358979323846

// The edges by where they are along one axis: bins of width `width` from
// `origin`; edge[start[i] .. start[i + 1] - 1] are those filed in bin i,
// edge e in bins from[e] to to[e]. The edges perhaps moved out of their bins
// since: loose_list[0 .. loose_count - 1], and per edge its place there plus
// 1 (0: not loose).
typedef struct edge_bins {
    double origin, width;
    int count;
    int *start; // edges + 1
    int *edge;  // room entries
    int *from, *to;
    int *loose_at;
    int *loose_list;
    int loose_count;
} edge_bins;

struct ring_rays {
    int edges;
    int room;          // entries a bin list has room for
    int loose_max;     // loose edges an axis keeps before it is filed again
    const int *corner; // the ring's edges (contact_body.corner)
    bool filed;        // the bins are of a filing, and the points were finite
    edge_bins bins[2]; // by x (columns: rays along y) and by y (rows: rays along x)
};

ring_rays *ring_rays_create(int edges) {
    ring_rays *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->edges = edges;
    // Each edge is filed in at most |dx| / width + 2 + 2 BIN_MARGIN bins, and
    // the bins are made so that the sum of |dx| / width is at most 2 edges
    // (file_bins); and a little for the rounding.
    r->room = (int)((4.0 + 2.0 * BIN_MARGIN) * edges) + 16;
    const size_t n = (size_t)(edges > 0 ? edges : 1);
    const double most = LOOSE_PER_ROOT * sqrt((double)n);
    r->loose_max = most < LOOSE_MIN ? LOOSE_MIN : (int)most;
    bool made = true;
    for (int a = 0; a < 2; a++) {
        edge_bins *q = &r->bins[a];
        q->start = malloc((n + 1) * sizeof(int));
        q->edge = malloc((size_t)r->room * sizeof(int));
        q->from = malloc(n * sizeof(int));
        q->to = malloc(n * sizeof(int));
        q->loose_at = calloc(n, sizeof(int));
        q->loose_list = malloc((size_t)r->loose_max * sizeof(int));
        made = made && q->start && q->edge && q->from && q->to && q->loose_at && q->loose_list;
    }
    if (!made) {
        ring_rays_destroy(r);
        return NULL;
    }
    return r;
}

void ring_rays_destroy(ring_rays *r) {
    if (r) {
        for (int a = 0; a < 2; a++) {
            edge_bins *q = &r->bins[a];
            free(q->start);
            free(q->edge);
            free(q->from);
            free(q->to);
            free(q->loose_at);
            free(q->loose_list);
        }
        free(r);
    }
}

// The bin of coordinate c (finite), those beyond the ends in the end bins.
static int bin_of(const edge_bins *q, double c) {
    const double i = floor((c - q->origin) / q->width);
    return i < 0.0 ? 0 : i >= q->count ? q->count - 1 : (int)i;
}

// The edges along axis a, none loose: as many bins as make the sum over the
// edges of |dx| / width 2 edges, at most one bin per edge. False where a
// coordinate is not finite, or (not expected) there is no room.
static bool file_bins(ring_rays *r, const psb_body *b, int a) {
    edge_bins *q = &r->bins[a];
    const double *c = b->x[a];
    const int n = r->edges;
    for (int i = 0; i < q->loose_count; i++) {
        q->loose_at[q->loose_list[i]] = 0;
    }
    q->loose_count = 0;
    double lo = INFINITY, hi = -INFINITY, travel = 0.0;
    for (int e = 0; e < n; e++) {
        const double p = c[r->corner[2 * e]], s = c[r->corner[2 * e + 1]];
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
        travel += fabs(s - p);
    }
    if (!isfinite(travel) || !isfinite(lo) || !isfinite(hi)) {
        return false;
    }
    int count = 1;
    if (hi > lo && travel > 0.0) {
        const double want = 2.0 * n * (hi - lo) / travel;
        count = want >= n ? n : want < 1.0 ? 1 : (int)want;
    }
    q->origin = lo, q->count = count;
    q->width = hi > lo ? (hi - lo) / count : 1.0;
    const double grow = BIN_MARGIN * q->width;
    for (int i = 0; i <= count; i++) {
        q->start[i] = 0;
    }
    // Counted into start[i + 1], summed, then filled from start[i].
    for (int e = 0; e < n; e++) {
        const double p = c[r->corner[2 * e]], s = c[r->corner[2 * e + 1]];
        q->from[e] = bin_of(q, (p < s ? p : s) - grow);
        q->to[e] = bin_of(q, (p < s ? s : p) + grow);
        for (int i = q->from[e]; i <= q->to[e]; i++) {
            q->start[i + 1]++;
        }
    }
    for (int i = 0; i < count; i++) {
        q->start[i + 1] += q->start[i];
    }
    if (q->start[count] > r->room) {
        return false;
    }
    for (int e = 0; e < n; e++) {
        for (int i = q->from[e]; i <= q->to[e]; i++) {
            q->edge[q->start[i]++] = e;
        }
    }
    for (int i = count; i > 0; i--) {
        q->start[i] = q->start[i - 1];
    }
    q->start[0] = 0;
    return true;
}

bool ring_rays_file(ring_rays *r, const int *corner, const psb_body *b) {
    r->corner = corner;
    r->filed = file_bins(r, b, 0) && file_bins(r, b, 1);
    return r->filed;
}

void ring_rays_forget(ring_rays *r) {
    r->filed = false;
}

bool ring_rays_filed(const ring_rays *r) {
    return r->filed;
}

void ring_rays_loosen(ring_rays *r, const psb_body *b, int first, int count) {
    for (int a = 0; r->filed && a < 2; a++) {
        edge_bins *q = &r->bins[a];
        if (q->loose_count + count > r->loose_max) {
            r->filed = file_bins(r, b, a);
        }
        for (int i = 0; r->filed && i < count; i++) {
            const int e = (first + i) % r->edges;
            if (!q->loose_at[e]) {
                q->loose_list[q->loose_count++] = e;
                q->loose_at[e] = q->loose_count;
            }
        }
    }
}

void ring_rays_settle(ring_rays *r, const psb_body *b, int first, int count) {
    for (int a = 0; r->filed && a < 2; a++) {
        edge_bins *q = &r->bins[a];
        for (int i = 0; i < count; i++) {
            const int e = (first + i) % r->edges, *c = &r->corner[2 * e];
            const double p = b->x[a][c[0]], s = b->x[a][c[1]];
            if (!q->loose_at[e] || !isfinite(p) || !isfinite(s) ||
                bin_of(q, p < s ? p : s) < q->from[e] || bin_of(q, p < s ? s : p) > q->to[e]) {
                continue;
            }
            // Out of the list: the last one takes its place.
            const int at = q->loose_at[e] - 1, last = q->loose_list[--q->loose_count];
            q->loose_list[at] = last;
            q->loose_at[last] = at + 1;
            q->loose_at[e] = 0;
        }
    }
}

// The ray's four directions: along +x, +y, -x, -y.
enum { RAY_DIRECTIONS = 4 };
static const double RAY[RAY_DIRECTIONS][2] = {{1.0, 0.0}, {0.0, 1.0}, {-1.0, 0.0}, {0.0, -1.0}};

// Where d lies across ray direction i: d turned by a quarter turn or more
// so that the ray runs along +y, then its x (the turns are exact).
static double across(int i, psb_vec3 d) {
    return i == 0 ? -d.y : i == 1 ? d.x : i == 2 ? d.y : -d.x;
}

// Whether d points along ray direction i.
static bool along(int i, psb_vec3 d) {
    return across(i, d) == 0.0 && d.x * RAY[i][0] + d.y * RAY[i][1] > 0.0;
}

// A crossing's answer where the ray cannot tell: p at the edge's end, or
// on the edge with the ray along it.
enum { UNTOLD = 99 };

// Twice the signed crossing of the ray from p along direction i with ring
// b's edge from a = corner[0] to c = corner[1]: 2 where the edge crosses it
// from right to left (as a counterclockwise ring's far side crosses a ray
// from inside it), -2 the other way, else 0. An end on the ray's line counts
// as on its left, so that two edges meeting there count once. Where p is
// on the edge, the angles (angle_sum) count the edge 0: p is half-way
// between its sides, of which one ray crosses the edge and the other not:
// 1 or -1; UNTOLD where the ray runs along the edge, or p is at its end.
static int crossing(int i, const psb_body *b, psb_vec3 p, const int *corner) {
    const double ax = b->x[0][corner[0]] - p.x, ay = b->x[1][corner[0]] - p.y;
    const double cx = b->x[0][corner[1]] - p.x, cy = b->x[1][corner[1]] - p.y;
    const double det = ax * cy - ay * cx;
    const psb_vec3 ra = {ax, ay, 0.0}, rc = {cx, cy, 0.0};
    const double sa = across(i, ra), sc = across(i, rc);
    if (det == 0.0 && ax * cx + ay * cy <= 0.0) {
        const bool end = (ax == 0.0 && ay == 0.0) || (cx == 0.0 && cy == 0.0);
        return end || (sa == 0.0 && sc == 0.0) ? UNTOLD : sc < 0.0 ? 1 : -1;
    }
    if ((sa <= 0.0) == (sc <= 0.0)) {
        return 0;
    }
    // p on the left of a -> c: below a leftward edge, above a rightward one.
    return sc <= 0.0 ? 2 * (det > 0.0) : -2 * (det < 0.0);
}

// The own winding number the plain way, where the rays cannot tell: the
// angles of all the ring's other edges about p, less k's corner, over 2 pi;
// an edge whose line passes through p counts 0 (as in psb-check-contact),
// so p on an edge is half-way between its two sides.
static double angle_sum(const ring_rays *r, const psb_body *b, int before_edge, int after_edge,
                        psb_vec3 p, psb_vec3 u, psb_vec3 v) {
    double sum = 0.0;
    for (int e = 0; e < r->edges; e++) {
        if (e != before_edge && e != after_edge) {
            const int *c = &r->corner[2 * e];
            const double ax = b->x[0][c[0]] - p.x, ay = b->x[1][c[0]] - p.y;
            const double cx = b->x[0][c[1]] - p.x, cy = b->x[1][c[1]] - p.y;
            const double det = ax * cy - ay * cx;
            sum += det == 0.0 ? 0.0 : atan2(det, ax * cx + ay * cy);
        }
    }
    double corner = atan2(v.x * u.y - v.y * u.x, v.x * u.x + v.y * u.y);
    corner += corner < 0.0 ? 2.0 * PI : 0.0;
    return (sum - corner) / (2.0 * PI);
}

// Whether direction i leaves point k through the inside of its corner: the
// angle swept counterclockwise from v (to the next point) to u (to the one
// before), where a counterclockwise ring's inside is.
static bool inside_corner(int i, psb_vec3 u, psb_vec3 v) {
    const double rx = RAY[i][0], ry = RAY[i][1];
    const double vu = v.x * u.y - v.y * u.x, vr = v.x * ry - v.y * rx, ru = rx * u.y - ry * u.x;
    if (vu > 0.0) {
        return vr > 0.0 && ru > 0.0;
    }
    if (vu < 0.0) {
        // Wider than a half turn: all but the outside, from u to v.
        const double ur = u.x * ry - u.y * rx, rv = rx * v.y - ry * v.x;
        return !(ur >= 0.0 && rv >= 0.0);
    }
    // u and v on one line: a half turn to v's left, or nothing (a spike).
    return v.x * u.x + v.y * u.y < 0.0 && vr > 0.0;
}

// Twice the signed crossings of the ray from p along direction i (along
// axis 1 - a) with ring b's edges in p's bin of axis a, but k's own two (the
// filed ones but the loose, then the loose ones as they are now: an edge
// through p is among them). False where the ray cannot tell (crossing).
static bool ray_count(const ring_rays *r, const psb_body *b, int a, int bin, int i, psb_vec3 p,
                      int before_edge, int after_edge, int *twice) {
    int count = 0;
    const edge_bins *q = &r->bins[a];
    for (int j = q->start[bin]; j < q->start[bin + 1]; j++) {
        const int e = q->edge[j];
        if (e != before_edge && e != after_edge && !q->loose_at[e]) {
            const int c = crossing(i, b, p, &r->corner[2 * e]);
            if (c == UNTOLD) {
                return false;
            }
            count += c;
        }
    }
    for (int j = 0; j < q->loose_count; j++) {
        const int e = q->loose_list[j];
        if (e != before_edge && e != after_edge) {
            const int c = crossing(i, b, p, &r->corner[2 * e]);
            if (c == UNTOLD) {
                return false;
            }
            count += c;
        }
    }
    *twice = count;
    return true;
}

bool ring_rays_own_winding(const ring_rays *r, const psb_body *b, int k, psb_vec3 p, double *s) {
    if (!r->filed || !isfinite(p.x) || !isfinite(p.y)) {
        return false;
    }
    const int n = r->edges, after_edge = b->order[k], before_edge = (after_edge + n - 1) % n;
    const int before = r->corner[2 * before_edge], after = r->corner[2 * after_edge + 1];
    const psb_vec3 u = {b->x[0][before] - p.x, b->x[1][before] - p.y, 0.0};
    const psb_vec3 v = {b->x[0][after] - p.x, b->x[1][after] - p.y, 0.0};
    if ((u.x == 0.0 && u.y == 0.0) || (v.x == 0.0 && v.y == 0.0)) {
        return false;
    }
    // The bin of p in each filing (an edge whose span has p is filed in it),
    // the one with fewer edges first, and a direction across its axis that
    // is along neither of k's edges (k's two edges leave at least two of
    // the four); the other where the first cannot tell.
    int bin[2], size[2];
    for (int a = 0; a < 2; a++) {
        const edge_bins *q = &r->bins[a];
        bin[a] = bin_of(q, a == 0 ? p.x : p.y);
        size[a] = q->start[bin[a] + 1] - q->start[bin[a]];
    }
    const int first = size[1] < size[0];
    for (int t = 0; t < 2; t++) {
        const int a = t == 0 ? first : 1 - first;
        // Bins by x hold the edges a ray along y meets, and the other way.
        int i = a == 0 ? 1 : 0, twice;
        i += along(i, u) || along(i, v) ? 2 : 0;
        if (!along(i, u) && !along(i, v) &&
            ray_count(r, b, a, bin[a], i, p, before_edge, after_edge, &twice)) {
            *s = 0.5 * twice - inside_corner(i, u, v);
            return true;
        }
    }
    *s = angle_sum(r, b, before_edge, after_edge, p, u, v);
    return true;
}
