// A ring's own winding numbers by rays (src/core/ring_rays.c) against the
// plain definition, written here again: the angles of the ring's edges that
// do not have point k, seen from p, less k's corner (from the direction to
// its next point counterclockwise round to the one to its previous), over
// 2 pi, an edge whose line passes through p counting 0.
//
// - Crumpled rings: random closed polylines that cross themselves many
//   times, at each point and at trial places near it.
// - Rings on a grid of eighths: many points exactly on other edges (the
//   definition's halves), on one line with them, or on the same place, as
//   a ring flattened onto the floor has.
// - Moves after the filing, each told before (loosen) and after (settle),
//   some far past the bins, many more than an axis keeps loose: the
//   numbers stay the definition's after every move.
// - A point not finite: the filing says so, and no number is given.
//
// The test reaches into the core (internal.h, ring_rays.h): the rays are
// internal, and a ring body is made here by hand with the fields they read.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "internal.h"
#include "ring_rays.h"

#define PI 3.14159265358979323846

// A ring of n points in the fields the rays read: positions in internal
// order, and a shuffled order (internal k is public order[k]).
typedef struct ring {
    int n;
    psb_body b;
    double *x[3];
    int *order, *rank, *corner;
} ring;

static uint64_t next_random(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

// Uniform in [0, 1).
static double uniform(uint64_t *s) {
    return (double)(next_random(s) >> 11) / 9007199254740992.0;
}

static bool ring_make(ring *r, int n, uint64_t *seed) {
    *r = (ring){.n = n};
    for (int a = 0; a < 3; a++) {
        r->x[a] = calloc((size_t)n, sizeof(double));
    }
    r->order = malloc((size_t)n * sizeof(int));
    r->rank = malloc((size_t)n * sizeof(int));
    r->corner = malloc(2 * (size_t)n * sizeof(int));
    if (!r->x[0] || !r->x[1] || !r->x[2] || !r->order || !r->rank || !r->corner) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        r->order[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
        const int j = (int)(next_random(seed) % (uint64_t)(i + 1)), t = r->order[i];
        r->order[i] = r->order[j], r->order[j] = t;
    }
    for (int k = 0; k < n; k++) {
        r->rank[r->order[k]] = k;
    }
    // As contact_body_create: edge e from public point e to e + 1.
    for (int e = 0; e < n; e++) {
        r->corner[2 * e] = r->rank[e];
        r->corner[2 * e + 1] = r->rank[(e + 1) % n];
    }
    r->b.n = n;
    r->b.order = r->order;
    r->b.rank = r->rank;
    for (int a = 0; a < 3; a++) {
        r->b.x[a] = r->x[a];
    }
    return true;
}

static void ring_free(ring *r) {
    for (int a = 0; a < 3; a++) {
        free(r->x[a]);
    }
    free(r->order);
    free(r->rank);
    free(r->corner);
}

static psb_vec3 at(const ring *r, int i) {
    const int k = r->rank[i];
    return (psb_vec3){r->x[0][k], r->x[1][k], 0.0};
}

static void put(ring *r, int i, double x, double y) {
    r->x[0][r->rank[i]] = x;
    r->x[1][r->rank[i]] = y;
}

// The definition, over the public points: false where p is on one of
// public point i's neighbours.
static bool plain_own_winding(const ring *r, int i, psb_vec3 p, double *s) {
    const int n = r->n, before = (i + n - 1) % n, after = (i + 1) % n;
    double sum = 0.0;
    for (int e = 0; e < n; e++) {
        if (e == before || e == i) {
            continue; // the edges from before to i and from i to after
        }
        const psb_vec3 a = at(r, e), c = at(r, (e + 1) % n);
        const double ax = a.x - p.x, ay = a.y - p.y, cx = c.x - p.x, cy = c.y - p.y;
        const double det = ax * cy - ay * cx;
        sum += det == 0.0 ? 0.0 : atan2(det, ax * cx + ay * cy);
    }
    const psb_vec3 pb = at(r, before), pa = at(r, after);
    const double ux = pb.x - p.x, uy = pb.y - p.y, vx = pa.x - p.x, vy = pa.y - p.y;
    if ((ux == 0.0 && uy == 0.0) || (vx == 0.0 && vy == 0.0)) {
        return false;
    }
    double corner = atan2(vx * uy - vy * ux, vx * ux + vy * uy);
    corner += corner < 0.0 ? 2.0 * PI : 0.0;
    *s = (sum - corner) / (2.0 * PI);
    return true;
}

typedef struct tally {
    long compared, halves, not_given, through;
} tally;

// The rays' number and the definition's for public point i put at p.
static void compare_at(const ring *r, const ring_rays *rays, int i, psb_vec3 p, tally *t,
                       const char *what) {
    double want = 0.0, got = 0.0;
    const bool plain = plain_own_winding(r, i, p, &want);
    const bool fast = ring_rays_own_winding(rays, &r->b, r->rank[i], p, &got);
    t->compared++;
    CHECK(plain == fast, "%s: point %d at (%.17g, %.17g): given %d, definition %d", what, i, p.x,
          p.y, fast, plain);
    if (plain && fast) {
        CHECK(fabs(got - want) <= 1e-9, "%s: point %d at (%.17g, %.17g): %.12g, definition %.12g",
              what, i, p.x, p.y, got, want);
        t->halves += fabs(fabs(want - round(want)) - 0.5) < 1e-9;
        t->through += fabs(want) > 0.5;
    }
    t->not_given += !plain;
}

// Every point where it is, and at the middle of its neighbours, at a place
// near it, and at the middle of another edge.
static void compare_all(const ring *r, const ring_rays *rays, uint64_t *seed, double near, tally *t,
                        const char *what) {
    const int n = r->n;
    for (int i = 0; i < n; i++) {
        const psb_vec3 p = at(r, i), a = at(r, (i + n - 1) % n), c = at(r, (i + 1) % n);
        compare_at(r, rays, i, p, t, what);
        compare_at(r, rays, i, (psb_vec3){0.5 * (a.x + c.x), 0.5 * (a.y + c.y), 0.0}, t, what);
        compare_at(r, rays, i,
                   (psb_vec3){p.x + near * (2.0 * uniform(seed) - 1.0),
                              p.y + near * (2.0 * uniform(seed) - 1.0), 0.0},
                   t, what);
        const int e = (int)(next_random(seed) % (uint64_t)n);
        const psb_vec3 e0 = at(r, e), e1 = at(r, (e + 1) % n);
        compare_at(r, rays, i, (psb_vec3){0.5 * (e0.x + e1.x), 0.5 * (e0.y + e1.y), 0.0}, t, what);
    }
}

// A ring round a circle of radius 1 with each point thrown up to `jitter`
// off it: crossing itself many times where jitter is well above the
// spacing. With `grid`, every coordinate is rounded to eighths.
static void scatter(ring *r, double jitter, bool grid, uint64_t *seed) {
    for (int i = 0; i < r->n; i++) {
        const double t = 2.0 * PI * i / r->n;
        double x = cos(t) + jitter * (2.0 * uniform(seed) - 1.0);
        double y = sin(t) + jitter * (2.0 * uniform(seed) - 1.0);
        if (grid) {
            x = round(8.0 * x) / 8.0;
            y = round(8.0 * y) / 8.0;
        }
        put(r, i, x, y);
    }
}

// A ring flattened onto a floor at y = 0: its lower half an accordion of
// folds lying on the floor (points on each other's edges, edges on one
// line), its upper half a dome.
static void flatten(ring *r, uint64_t *seed) {
    const int n = r->n, half = n / 2;
    for (int i = 0; i < half; i++) {
        // Along x and back in folds of 7 to 12 points, every point on y = 0.
        const int fold = i / 10;
        const double s = (i % 10) / 10.0;
        const double x = -1.0 + 2.0 * i / half + 0.3 * (fold % 2 ? 1.0 - s : s);
        put(r, i, round(64.0 * x) / 64.0, uniform(seed) < 0.8 ? 0.0 : 1.0 / 64.0);
    }
    for (int i = half; i < n; i++) {
        const double t = PI * (i - half) / (n - half);
        put(r, i, cos(t), 0.5 * sin(t));
    }
}

static void check_scene(ring *r, uint64_t *seed, double near, const char *what, tally *t) {
    ring_rays *rays = ring_rays_create(r->n);
    CHECK(rays != NULL, "%s: no room", what);
    if (!rays) {
        return;
    }
    CHECK(ring_rays_file(rays, r->corner, &r->b), "%s: not filed", what);
    compare_all(r, rays, seed, near, t, what);
    ring_rays_destroy(rays);
}

// Moves after the filing: each of `moves` times, a point and its
// neighbours are moved (told to the rays as the own way out tells them),
// by up to `far` (a tenth of them 10 times that), and the point and its
// neighbours compared after each; every point is compared every 50 moves.
static void check_moves(ring *r, uint64_t *seed, int moves, double far, const char *what,
                        tally *t) {
    const int n = r->n;
    ring_rays *rays = ring_rays_create(n);
    CHECK(rays != NULL && ring_rays_file(rays, r->corner, &r->b), "%s: not filed", what);
    if (!rays) {
        return;
    }
    for (int m = 0; m < moves; m++) {
        const int i = (int)(next_random(seed) % (uint64_t)n);
        ring_rays_loosen(rays, &r->b, (i + n - 2) % n, 4);
        const double reach = uniform(seed) < 0.1 ? 10.0 * far : far;
        for (int d = -1; d <= 1; d++) {
            const int j = (i + d + n) % n;
            const psb_vec3 p = at(r, j);
            if (uniform(seed) < 0.7) {
                put(r, j, p.x + reach * (2.0 * uniform(seed) - 1.0),
                    p.y + reach * (2.0 * uniform(seed) - 1.0));
            }
            // (and a trial in between, as the own way out makes)
            compare_at(r, rays, i, at(r, i), t, what);
        }
        ring_rays_settle(rays, &r->b, (i + n - 2) % n, 4);
        for (int d = -1; d <= 1; d++) {
            const int j = (i + d + n) % n;
            compare_at(r, rays, j, at(r, j), t, what);
        }
        if (m % 50 == 49) {
            compare_all(r, rays, seed, far, t, what);
        }
    }
    ring_rays_destroy(rays);
}

int main(void) {
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    tally crumpled = {0}, grid = {0}, floor = {0}, moved = {0};
    for (int run = 0; run < 4; run++) {
        ring r;
        CHECK(ring_make(&r, 150 + 100 * run, &seed), "no memory");
        scatter(&r, 0.6, false, &seed);
        check_scene(&r, &seed, 0.05, "crumpled", &crumpled);
        scatter(&r, 0.5, true, &seed);
        check_scene(&r, &seed, 0.125, "on a grid", &grid);
        flatten(&r, &seed);
        check_scene(&r, &seed, 1.0 / 64.0, "on the floor", &floor);
        scatter(&r, 0.6, run % 2 == 1, &seed);
        check_moves(&r, &seed, 600, 0.05, "moved", &moved);
        ring_free(&r);
    }
    printf("compared: crumpled %ld (%ld through), on a grid %ld (%ld halves, %ld not given), on "
           "the floor %ld "
           "(%ld halves), moved %ld\n",
           crumpled.compared, crumpled.through, grid.compared, grid.halves, grid.not_given,
           floor.compared, floor.halves, moved.compared);
    // The places on other edges were met, and the crumpled rings are crumpled.
    CHECK(grid.halves > 100 && floor.halves > 100, "few points on other edges: %ld, %ld",
          grid.halves, floor.halves);
    CHECK(crumpled.through > crumpled.compared / 20 && moved.through > moved.compared / 20,
          "too few places through the ring: %ld of %ld, %ld of %ld", crumpled.through,
          crumpled.compared, moved.through, moved.compared);

    // A point not finite: no filing, no number.
    ring r;
    CHECK(ring_make(&r, 40, &seed), "no memory");
    scatter(&r, 0.1, false, &seed);
    put(&r, 7, NAN, 0.0);
    ring_rays *rays = ring_rays_create(r.n);
    CHECK(rays && !ring_rays_file(rays, r.corner, &r.b), "filed with a point not finite");
    double s = 0.0;
    CHECK(rays && !ring_rays_own_winding(rays, &r.b, r.rank[3], at(&r, 3), &s),
          "a number without a filing");
    ring_rays_destroy(rays);
    ring_free(&r);
    return check_done("test_ring_rays");
}
