// psb-check-contact's geometry against itself written plainly: the tree's
// winding number against the sum over every triangle, inside and outside a
// sphere, and each point's corner against the rest of its own surface on
// a convex body and on a bumpy one (saddle and dented points).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "contact.h"

#define PI 3.14159265358979323846

// An icosphere of the given level, radius 1, bumped by r = 1 + bump f(dir).
static void make_sphere(cc_body *b, int level, double bump) {
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    const double ico[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                               {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                               {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    const int faces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                              {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                              {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                              {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    int n = 12, tri_count = 20;
    const int max_points = 10 * (1 << (2 * level)) + 2, max_tris = 20 * (1 << (2 * level));
    cc_vec3 *p = cc_alloc((size_t)max_points, sizeof *p);
    int *tris = cc_alloc(3 * (size_t)max_tris, sizeof *tris);
    for (int i = 0; i < 12; i++) {
        p[i] = (cc_vec3){ico[i][0], ico[i][1], ico[i][2]};
    }
    memcpy(tris, faces, sizeof faces);
    for (int l = 0; l < level; l++) {
        // Each edge's midpoint once: a table keyed by the edge's two points.
        int64_t *keys = cc_alloc(3 * (size_t)tri_count, sizeof *keys);
        int *mids = cc_alloc(3 * (size_t)tri_count, sizeof *mids);
        int key_count = 0;
        int *next = cc_alloc(12 * (size_t)tri_count, sizeof *next);
        for (int f = 0; f < tri_count; f++) {
            int m[3];
            for (int e = 0; e < 3; e++) {
                const int a = tris[3 * f + e], c = tris[3 * f + (e + 1) % 3];
                const int64_t key =
                    a < c ? (int64_t)a * max_points + c : (int64_t)c * max_points + a;
                int k = 0;
                while (k < key_count && keys[k] != key) {
                    k++;
                }
                if (k == key_count) {
                    keys[key_count] = key;
                    mids[key_count++] = n;
                    p[n++] = (cc_vec3){(p[a].x + p[c].x) / 2, (p[a].y + p[c].y) / 2,
                                       (p[a].z + p[c].z) / 2};
                }
                m[e] = mids[k];
            }
            const int *v = &tris[3 * f];
            const int out[12] = {v[0], m[0], m[2], v[1], m[1], m[0],
                                 v[2], m[2], m[1], m[0], m[1], m[2]};
            memcpy(&next[12 * f], out, sizeof out);
        }
        free(tris);
        free(keys);
        free(mids);
        tris = next;
        tri_count *= 4;
    }
    for (int i = 0; i < n; i++) {
        const double len = sqrt(p[i].x * p[i].x + p[i].y * p[i].y + p[i].z * p[i].z);
        const cc_vec3 d = {p[i].x / len, p[i].y / len, p[i].z / len};
        const double r = 1.0 + bump * sin(5.0 * d.x) * cos(4.0 * d.y + 1.0) * sin(3.0 * d.z + 0.5);
        p[i] = (cc_vec3){r * d.x, r * d.y, r * d.z};
    }
    memset(b, 0, sizeof *b);
    b->points = p;
    b->point_count = n;
    b->tris = tris;
    b->tri_count = tri_count;
}

// The winding number the plain way: every triangle's solid angle, here by
// l'Huilier's theorem from the three arcs, signed by the orientation:
// tan(E/4) = sqrt(tan(s/2) tan((s-a)/2) tan((s-b)/2) tan((s-c)/2)).
static double plain_winding(const cc_body *b, cc_vec3 p) {
    double sum = 0.0;
    for (int t = 0; t < b->tri_count; t++) {
        cc_vec3 u[3];
        for (int k = 0; k < 3; k++) {
            const cc_vec3 q = b->points[b->tris[3 * t + k]];
            const cc_vec3 d = {q.x - p.x, q.y - p.y, q.z - p.z};
            const double len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
            u[k] = (cc_vec3){d.x / len, d.y / len, d.z / len};
        }
        double arc[3];
        for (int k = 0; k < 3; k++) {
            const cc_vec3 a = u[k], c = u[(k + 1) % 3];
            const cc_vec3 x = {a.y * c.z - a.z * c.y, a.z * c.x - a.x * c.z, a.x * c.y - a.y * c.x};
            arc[k] =
                atan2(sqrt(x.x * x.x + x.y * x.y + x.z * x.z), a.x * c.x + a.y * c.y + a.z * c.z);
        }
        const double s = (arc[0] + arc[1] + arc[2]) / 2;
        const double q =
            tan(s / 2) * tan((s - arc[0]) / 2) * tan((s - arc[1]) / 2) * tan((s - arc[2]) / 2);
        const double excess = 4.0 * atan(sqrt(q > 0.0 ? q : 0.0));
        const cc_vec3 m = {u[1].y * u[2].z - u[1].z * u[2].y, u[1].z * u[2].x - u[1].x * u[2].z,
                           u[1].x * u[2].y - u[1].y * u[2].x};
        const double det = u[0].x * m.x + u[0].y * m.y + u[0].z * m.z;
        sum += det >= 0.0 ? excess : -excess;
    }
    return sum / (4.0 * PI);
}

static double uniform(uint64_t *state, double lo, double hi) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*state >> 11) / 9007199254740992.0;
}

int main(void) {
    cc_body sphere;
    make_sphere(&sphere, 3, 0.0);
    CHECK(sphere.point_count == 642, "an icosphere of level 3 has 642 points, got %d",
          sphere.point_count);
    cc_body_prepare(&sphere, true);
    CHECK(sphere.closed && !sphere.reversed, "the icosphere is closed and outward: %s",
          sphere.why_open);

    // Random points in and round the sphere: the tree agrees with the plain
    // sum, and with the sphere (its faces are 0.99 from the centre or more).
    uint64_t state = 12345;
    int worst = -1;
    double worst_gap = 0.0;
    for (int i = 0; i < 2000; i++) {
        const cc_vec3 p = {uniform(&state, -1.3, 1.3), uniform(&state, -1.3, 1.3),
                           uniform(&state, -1.3, 1.3)};
        const double w = cc_winding(&sphere, p, -1), plain = plain_winding(&sphere, p);
        if (fabs(w - plain) > worst_gap) {
            worst_gap = fabs(w - plain);
            worst = i;
        }
        const double r = sqrt(p.x * p.x + p.y * p.y + p.z * p.z);
        if (r < 0.98) {
            CHECK(fabs(w - 1.0) < 1e-9, "point at radius %g: winding number %.17g, expected 1", r,
                  w);
        } else if (r > 1.0) {
            CHECK(fabs(w) < 1e-9, "point at radius %g: winding number %.17g, expected 0", r, w);
        }
    }
    CHECK(worst_gap < 1e-9, "the tree and the plain sum differ by %g at point %d", worst_gap,
          worst);
    const double depth = cc_distance(&sphere, (cc_vec3){0.1, 0.2, 0.3}, -1, false);
    const double r0 = sqrt(0.14);
    CHECK(depth > 0.99 - r0 && depth < 1.0 - r0, "depth of a point at radius %g: %g", r0, depth);

    // Each point against the rest of its own surface: its corner's fraction
    // is all of it. On the sphere, a cone whose angles sum to 2π - δ (δ =
    // 4π/642, Gauss-Bonnet's share of each point) has an inside of about
    // 2π (1 - sqrt(δ/π)): a fraction of 0.46.
    for (int i = 0; i < sphere.point_count; i++) {
        const double rest = cc_winding(&sphere, sphere.points[i], i);
        CHECK(sphere.local[i] > 0.45 && sphere.local[i] < 0.47, "point %d: corner fraction %.17g",
              i, sphere.local[i]);
        CHECK(fabs(rest - sphere.local[i]) < 1e-9, "point %d: rest %.17g, corner %.17g", i, rest,
              sphere.local[i]);
    }

    // A bumpy body: saddles and dents, corners above 1/2 and below; still
    // nothing but the point's own corner.
    cc_body bumpy;
    make_sphere(&bumpy, 3, 0.25);
    cc_body_prepare(&bumpy, true);
    int above = 0, below = 0;
    for (int i = 0; i < bumpy.point_count; i++) {
        const double rest = cc_winding(&bumpy, bumpy.points[i], i);
        above += bumpy.local[i] > 0.5;
        below += bumpy.local[i] < 0.5;
        CHECK(fabs(rest - bumpy.local[i]) < 1e-9, "bumpy point %d: rest %.17g, corner %.17g", i,
              rest, bumpy.local[i]);
    }
    CHECK(above > 50 && below > 50, "the bumps make dented and convex points: %d and %d", above,
          below);

    cc_body_free(&sphere);
    cc_body_free(&bumpy);
    return check_done("test_check_contact");
}
