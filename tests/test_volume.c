// Volumes and areas measured by the core (psb_body_measure) against exact
// answers: the unit cube, tetrahedra, regular and non-convex polygons, the
// icosahedron, the polyhedral torus, icospheres converging to 4/3 pi r^3,
// translated copies, and the rest volume of a body made away from its rest
// shape.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static const double pi = 3.14159265358979323846;

static psb_world *quiet_world(void) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    return make_world(&p);
}

// Adds def to a fresh world and measures it; returns the state (volume 0 and
// a failed check if the body was refused).
static psb_body_state measure_def(const psb_body_def *def) {
    psb_body_state s;
    memset(&s, 0, sizeof s);
    psb_world *w = quiet_world();
    if (!w) {
        return s;
    }
    psb_error err;
    int id = psb_world_add_body(w, def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    if (id == 0) {
        s = psb_body_measure(w, id);
    }
    psb_world_destroy(w);
    return s;
}

static psb_body_state measure_mesh(const psb_mesh *m, psb_vec3 offset) {
    psb_body_def def = psb_mesh_body_def(m);
    def.offset = offset;
    return measure_def(&def);
}

static double rel_err(double got, double want) {
    return fabs(got - want) / fabs(want);
}

// The unit cube [0,1]^3 as 8 corners (index x + 2y + 4z) and 12 outward triangles.
static const psb_vec3 cube_points[8] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                        {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
static const int cube_tris[36] = {0, 2, 3, 0, 3, 1,  // z = 0, normal -z
                                  4, 5, 7, 4, 7, 6,  // z = 1, +z
                                  0, 1, 5, 0, 5, 4,  // y = 0, -y
                                  2, 6, 7, 2, 7, 3,  // y = 1, +y
                                  0, 4, 6, 0, 6, 2,  // x = 0, -x
                                  1, 3, 7, 1, 7, 5}; // x = 1, +x

static void test_cube(void) {
    psb_body_def def = psb_default_body_def();
    def.kind = PSB_SHELL;
    def.points = cube_points;
    def.point_count = 8;
    def.triangles = cube_tris;
    def.triangle_count = 12;
    psb_body_state s = measure_def(&def);
    CHECK(fabs(s.volume - 1.0) < 1e-14, "unit cube volume %.17g, expected 1", s.volume);
    CHECK(fabs(s.rest_volume - 1.0) < 1e-14, "unit cube rest volume %.17g", s.rest_volume);
    // P = nRT / V - P0 with the default nRT = 100 J, P0 = 0.
    CHECK(fabs(s.pressure - def.params.gas_nrt) < 1e-12, "unit cube pressure %.17g, expected %g",
          s.pressure, def.params.gas_nrt);
    CHECK(fabs(s.centroid.x - 0.5) < 1e-15 && fabs(s.centroid.y - 0.5) < 1e-15 &&
              fabs(s.centroid.z - 0.5) < 1e-15,
          "unit cube centroid (%g, %g, %g)", s.centroid.x, s.centroid.y, s.centroid.z);

    // The same cube centred on the origin and far away: still 1.
    def.offset = (psb_vec3){-0.5, -0.5, -0.5};
    s = measure_def(&def);
    CHECK(fabs(s.volume - 1.0) < 1e-14, "centred cube volume %.17g", s.volume);

    // Stretched along each axis: a x b x c.
    psb_vec3 stretched[8];
    for (int i = 0; i < 8; i++) {
        stretched[i] =
            (psb_vec3){2.0 * cube_points[i].x, 0.5 * cube_points[i].y, 3.0 * cube_points[i].z};
    }
    def.points = stretched;
    def.offset = (psb_vec3){0, 0, 0};
    s = measure_def(&def);
    CHECK(fabs(s.volume - 3.0) < 1e-14, "2 x 0.5 x 3 box volume %.17g, expected 3", s.volume);

    // Subdivided boxes from the mesh generator.
    const struct {
        int segments;
        psb_vec3 half;
    } boxes[] = {
        {1, {0.5, 0.5, 0.5}}, {3, {0.5, 0.5, 0.5}}, {4, {0.5, 1.0, 1.5}}, {7, {2, 1, 0.25}}};
    for (size_t k = 0; k < sizeof boxes / sizeof boxes[0]; k++) {
        psb_mesh m;
        psb_error err;
        CHECK(psb_mesh_box(&m, boxes[k].segments, boxes[k].half, &err) == PSB_OK, "box: %s",
              err.message);
        const double want = 8.0 * boxes[k].half.x * boxes[k].half.y * boxes[k].half.z;
        s = measure_mesh(&m, (psb_vec3){0, 0, 0});
        CHECK(rel_err(s.volume, want) < 1e-13, "box %d segments: volume %.17g, expected %.17g",
              boxes[k].segments, s.volume, want);
        CHECK(rel_err(psb_mesh_volume(&m), want) < 1e-13, "psb_mesh_volume of box: %.17g",
              psb_mesh_volume(&m));
        psb_mesh_free(&m);
    }
}

// Tetrahedron (a, b, c, d) with det(b - a, c - a, d - a) > 0: its four
// outward faces, and the volume det / 6.
static double tetra_volume_via_body(const psb_vec3 p[4]) {
    static const int tris[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    psb_body_def def = psb_default_body_def();
    def.kind = PSB_SHELL;
    def.points = p;
    def.point_count = 4;
    def.triangles = tris;
    def.triangle_count = 4;
    return measure_def(&def).volume;
}

static double det3(psb_vec3 u, psb_vec3 v, psb_vec3 w) {
    return u.x * (v.y * w.z - v.z * w.y) - u.y * (v.x * w.z - v.z * w.x) +
           u.z * (v.x * w.y - v.y * w.x);
}

static void test_tetrahedra(void) {
    const psb_vec3 unit[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double v = tetra_volume_via_body(unit);
    CHECK(fabs(v - 1.0 / 6.0) < 1e-15, "corner tetrahedron volume %.17g, expected 1/6", v);

    // Regular tetrahedron of edge a: a^3 / (6 sqrt 2).
    const double a = 1.7;
    const double k = a / (2.0 * sqrt(2.0));
    // Alternate corners of a cube of side a / sqrt 2, ordered so det > 0.
    psb_vec3 reg[4] = {{k, k, k}, {k, -k, -k}, {-k, k, -k}, {-k, -k, k}};
    psb_vec3 e1 = {reg[1].x - reg[0].x, reg[1].y - reg[0].y, reg[1].z - reg[0].z};
    psb_vec3 e2 = {reg[2].x - reg[0].x, reg[2].y - reg[0].y, reg[2].z - reg[0].z};
    psb_vec3 e3 = {reg[3].x - reg[0].x, reg[3].y - reg[0].y, reg[3].z - reg[0].z};
    if (det3(e1, e2, e3) < 0) {
        psb_vec3 t = reg[1];
        reg[1] = reg[2];
        reg[2] = t;
    }
    v = tetra_volume_via_body(reg);
    const double want = a * a * a / (6.0 * sqrt(2.0));
    CHECK(rel_err(v, want) < 1e-14, "regular tetrahedron volume %.17g, expected %.17g", v, want);

    // Random tetrahedra: det / 6.
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (int trial = 0; trial < 50; trial++) {
        psb_vec3 p[4];
        for (int i = 0; i < 4; i++) {
            p[i] = (psb_vec3){3.0 * rnd(&seed), 3.0 * rnd(&seed), 3.0 * rnd(&seed)};
        }
        psb_vec3 u = {p[1].x - p[0].x, p[1].y - p[0].y, p[1].z - p[0].z};
        psb_vec3 w = {p[2].x - p[0].x, p[2].y - p[0].y, p[2].z - p[0].z};
        psb_vec3 z = {p[3].x - p[0].x, p[3].y - p[0].y, p[3].z - p[0].z};
        double d = det3(u, w, z);
        if (fabs(d) < 0.5) {
            continue; // too flat to be a fair test of relative error
        }
        if (d < 0) {
            psb_vec3 t = p[1];
            p[1] = p[2];
            p[2] = t;
            d = -d;
        }
        v = tetra_volume_via_body(p);
        CHECK(rel_err(v, d / 6.0) < 1e-12, "random tetrahedron %d: volume %.17g, expected %.17g",
              trial, v, d / 6.0);
    }
}

static void test_polygons(void) {
    // Regular N-gon of circumradius r: N/2 r^2 sin(2 pi / N).
    const int ns[] = {3, 4, 5, 7, 12, 64, 1000};
    const double r = 0.7;
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        const int n = ns[k];
        const double want = 0.5 * n * r * r * sin(2.0 * pi / n);
        psb_mesh m;
        psb_error err;
        CHECK(psb_mesh_ring(&m, n, r, &err) == PSB_OK, "ring: %s", err.message);
        psb_body_state s = measure_mesh(&m, (psb_vec3){0, 0, 0});
        CHECK(rel_err(s.volume, want) < 1e-13, "%d-gon area %.17g, expected %.17g", n, s.volume,
              want);
        CHECK(fabs(s.rest_volume - s.volume) <= 1e-15 * want, "%d-gon rest area %.17g", n,
              s.rest_volume);
        // Every point at r from the centroid.
        CHECK(fabs(s.mean_radius - r) < 1e-13, "%d-gon mean radius %.17g, expected %g", n,
              s.mean_radius, r);
        psb_mesh_free(&m);
    }

    // A non-convex L shape, counter-clockwise: area 3. Given with z != 0,
    // which a ring ignores (it lives in the x-y plane).
    const psb_vec3 ell[6] = {{0, 0, 5}, {2, 0, 5}, {2, 1, -1}, {1, 1, 2}, {1, 2, 0}, {0, 2, 9}};
    psb_body_def def = psb_default_body_def();
    def.kind = PSB_RING;
    def.points = ell;
    def.point_count = 6;
    psb_world *w = quiet_world();
    psb_error err;
    int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "L shape: %s", err.message);
    if (id == 0) {
        psb_body_state s = psb_body_measure(w, id);
        CHECK(fabs(s.volume - 3.0) < 1e-14, "L-shape area %.17g, expected 3", s.volume);
        const psb_vec3 *x = psb_body_positions(w, id);
        for (int i = 0; i < 6; i++) {
            CHECK(x[i].z == 0.0, "ring point %d has z = %g, expected 0", i, x[i].z);
        }
    }
    psb_world_destroy(w);
}

// Volume of the polyhedral torus of the mesh generator: each of the `major`
// wedges sweeps the regular `minor`-gon (area A, centroid at distance R from
// the axis) linearly between two meridian planes; the Jacobian of that sweep
// is rho sin(2 pi / major), so V = major sin(2 pi / major) R A exactly.
static void test_torus(void) {
    const struct {
        int major, minor;
        double big, small;
    } tori[] = {{24, 12, 1.0, 0.3}, {7, 3, 2.0, 0.9}, {64, 32, 0.5, 0.1}};
    for (size_t k = 0; k < sizeof tori / sizeof tori[0]; k++) {
        psb_mesh m;
        psb_error err;
        CHECK(psb_mesh_torus(&m, tori[k].major, tori[k].minor, tori[k].big, tori[k].small, &err) ==
                  PSB_OK,
              "torus: %s", err.message);
        const double area =
            0.5 * tori[k].minor * tori[k].small * tori[k].small * sin(2.0 * pi / tori[k].minor);
        const double want = tori[k].major * sin(2.0 * pi / tori[k].major) * tori[k].big * area;
        psb_body_state s = measure_mesh(&m, (psb_vec3){0.25, -1.0, 2.0});
        CHECK(rel_err(s.volume, want) < 1e-12, "torus %d x %d: volume %.17g, expected %.17g",
              tori[k].major, tori[k].minor, s.volume, want);
        psb_mesh_free(&m);
    }
}

static void test_icospheres(void) {
    const double r = 1.3;
    const double sphere = 4.0 / 3.0 * pi * r * r * r;
    // Level 0 is the regular icosahedron: edge a = r / sin(2 pi / 5),
    // V = 5/12 (3 + sqrt 5) a^3.
    double err_prev = 0.0;
    for (int level = 0; level <= 5; level++) {
        psb_mesh m;
        psb_error err;
        CHECK(psb_mesh_icosphere(&m, level, r, &err) == PSB_OK, "icosphere: %s", err.message);
        const double v = measure_mesh(&m, (psb_vec3){0, 0, 0}).volume;
        psb_mesh_free(&m);
        if (level == 0) {
            const double a = r / sin(2.0 * pi / 5.0);
            const double want = 5.0 / 12.0 * (3.0 + sqrt(5.0)) * a * a * a;
            CHECK(rel_err(v, want) < 1e-13, "icosahedron volume %.17g, expected %.17g", v, want);
        }
        // Inscribed in the sphere: always less, converging like h^2, so the
        // error falls by about 4 with each level (edges halve).
        const double e = sphere - v;
        CHECK(e > 0.0, "level %d icosphere volume %.17g exceeds the sphere's %.17g", level, v,
              sphere);
        if (level >= 2) {
            const double ratio = err_prev / e;
            CHECK(ratio > 3.6 && ratio < 4.4,
                  "level %d: volume error fell by %.4g from the level before, expected about 4",
                  level, ratio);
        }
        if (level == 5) {
            CHECK(e / sphere < 2e-3, "level 5 icosphere: relative volume error %.3g", e / sphere);
        }
        err_prev = e;
    }
}

// The same body far from the origin has the same volume and a shifted centroid.
static void test_translation(void) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 2, 1.0, &err) == PSB_OK, "icosphere: %s", err.message);
    const psb_body_state base = measure_mesh(&m, (psb_vec3){0, 0, 0});
    const struct {
        psb_vec3 offset;
        double tol;
    } cases[] = {{{10.0, -20.0, 5.0}, 1e-12}, {{1e3, -2e3, 3e3}, 1e-9}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const psb_vec3 o = cases[k].offset;
        const psb_body_state s = measure_mesh(&m, o);
        CHECK(rel_err(s.volume, base.volume) < cases[k].tol,
              "icosphere at (%g, %g, %g): volume %.17g, at the origin %.17g (relative %.3g)", o.x,
              o.y, o.z, s.volume, base.volume, rel_err(s.volume, base.volume));
        CHECK(fabs(s.centroid.x - base.centroid.x - o.x) < 1e-9 &&
                  fabs(s.centroid.y - base.centroid.y - o.y) < 1e-9 &&
                  fabs(s.centroid.z - base.centroid.z - o.z) < 1e-9,
              "centroid did not move with the offset");
        CHECK(fabs(s.mean_radius - base.mean_radius) < 1e-9, "mean radius %.17g vs %.17g",
              s.mean_radius, base.mean_radius);
    }
    psb_mesh_free(&m);

    // A ring too (the shoelace formula), with an offset in z that it drops.
    CHECK(psb_mesh_ring(&m, 40, 0.5, &err) == PSB_OK, "ring: %s", err.message);
    const double ring0 = measure_mesh(&m, (psb_vec3){0, 0, 0}).volume;
    const double ring1 = measure_mesh(&m, (psb_vec3){-300.0, 700.0, 4.0}).volume;
    CHECK(rel_err(ring1, ring0) < 1e-9, "ring area far away %.17g vs %.17g", ring1, ring0);
    psb_mesh_free(&m);

    // A jittered (irregular) shell: still the same volume after translation.
    CHECK(psb_mesh_icosphere(&m, 1, 1.0, &err) == PSB_OK, "icosphere: %s", err.message);
    uint64_t seed = 12345;
    for (int i = 0; i < m.point_count; i++) {
        m.points[i].x += 0.15 * rnd(&seed);
        m.points[i].y += 0.15 * rnd(&seed);
        m.points[i].z += 0.15 * rnd(&seed);
    }
    const double j0 = measure_mesh(&m, (psb_vec3){0, 0, 0}).volume;
    const double j1 = measure_mesh(&m, (psb_vec3){-7.0, 3.0, 11.0}).volume;
    CHECK(rel_err(j0, psb_mesh_volume(&m)) < 1e-14, "jittered sphere: core %.17g, mesh %.17g", j0,
          psb_mesh_volume(&m));
    CHECK(rel_err(j1, j0) < 1e-12, "jittered sphere moved: %.17g vs %.17g", j1, j0);
    psb_mesh_free(&m);
}

// rest_volume is the volume of rest_points; volume that of points.
static void test_rest_volume(void) {
    const double sigma = 1.2;
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 2, 0.8, &err) == PSB_OK, "icosphere: %s", err.message);
    psb_vec3 scaled[162];
    CHECK(m.point_count == 162, "level-2 icosphere has %d points, expected 162", m.point_count);
    for (int i = 0; i < m.point_count && i < 162; i++) {
        scaled[i] = (psb_vec3){sigma * m.points[i].x, sigma * m.points[i].y, sigma * m.points[i].z};
    }
    psb_body_def def = psb_mesh_body_def(&m);
    def.points = scaled;
    def.rest_points = m.points;
    def.offset = (psb_vec3){1.0, 2.0, 3.0};
    psb_body_state s = measure_def(&def);
    const double rest = psb_mesh_volume(&m);
    CHECK(rel_err(s.rest_volume, rest) < 1e-12, "rest volume %.17g, expected %.17g", s.rest_volume,
          rest);
    CHECK(rel_err(s.volume, sigma * sigma * sigma * rest) < 1e-12,
          "scaled volume %.17g, expected sigma^3 V0 = %.17g", s.volume,
          sigma * sigma * sigma * rest);
    psb_mesh_free(&m);

    CHECK(psb_mesh_ring(&m, 10, 1.0, &err) == PSB_OK, "ring: %s", err.message);
    psb_vec3 small[10];
    for (int i = 0; i < 10; i++) {
        small[i] = (psb_vec3){0.5 * m.points[i].x, 0.5 * m.points[i].y, 0.0};
    }
    def = psb_mesh_body_def(&m);
    def.points = small;
    def.rest_points = m.points;
    s = measure_def(&def);
    const double ring_rest = 5.0 * sin(2.0 * pi / 10.0);
    CHECK(rel_err(s.rest_volume, ring_rest) < 1e-13, "ring rest area %.17g, expected %.17g",
          s.rest_volume, ring_rest);
    CHECK(rel_err(s.volume, 0.25 * ring_rest) < 1e-13, "ring area %.17g, expected %.17g", s.volume,
          0.25 * ring_rest);
    psb_mesh_free(&m);
}

// The volume is signed: a surface turned inside out (here mirrored through
// a plane, which reverses its winding) measures -V. This is what keeps the
// gas law honest for a crushed body instead of folding it back with |V|.
static void test_signed(void) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 1, 0.7, &err) == PSB_OK, "icosphere: %s", err.message);
    psb_world *w = quiet_world();
    psb_body_def def = psb_mesh_body_def(&m);
    int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    const double v = psb_mesh_volume(&m);
    psb_vec3 mirrored[42];
    for (int i = 0; i < m.point_count && i < 42; i++) {
        mirrored[i] = (psb_vec3){m.points[i].x, -m.points[i].y, m.points[i].z};
    }
    if (id == 0) {
        CHECK(psb_body_set_state(w, id, mirrored, NULL, &err) == PSB_OK, "set_state: %s",
              err.message);
        const double got = psb_body_measure(w, id).volume;
        CHECK(fabs(got + v) <= 1e-13 * v, "mirrored shell volume %.17g, expected %.17g", got, -v);
    }
    psb_mesh_free(&m);

    CHECK(psb_mesh_ring(&m, 11, 0.9, &err) == PSB_OK, "ring: %s", err.message);
    def = psb_mesh_body_def(&m);
    id = psb_world_add_body(w, &def, &err);
    CHECK(id == 1, "add_body: %s", err.message);
    const double a = psb_mesh_volume(&m);
    psb_vec3 flipped[11];
    for (int i = 0; i < 11; i++) {
        // Mirrored in x, and given a z that a ring must drop.
        flipped[i] = (psb_vec3){-m.points[i].x, m.points[i].y, 0.5 + i};
    }
    if (id == 1) {
        CHECK(psb_body_set_state(w, id, flipped, NULL, &err) == PSB_OK, "set_state: %s",
              err.message);
        const double got = psb_body_measure(w, id).volume;
        CHECK(fabs(got + a) <= 1e-13 * a, "clockwise ring area %.17g, expected %.17g", got, -a);
        const psb_vec3 *x = psb_body_positions(w, id);
        int off_plane = 0;
        for (int i = 0; i < 11; i++) {
            off_plane += x[i].z != 0.0;
        }
        CHECK(off_plane == 0, "set_state left %d ring points off the plane z = 0", off_plane);
    }
    psb_mesh_free(&m);
    psb_world_destroy(w);
}

int main(void) {
    test_cube();
    test_tetrahedra();
    test_polygons();
    test_torus();
    test_icospheres();
    test_translation();
    test_rest_volume();
    test_signed();
    return check_done("test_volume");
}
