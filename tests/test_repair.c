// Mesh repair, splitting and loading: welding (exact and within a
// tolerance), dropping degenerate, duplicate and unused, orientation, hole
// filling, fitting; the topology report's holes; every refusal of
// psb_mesh_load_obj and its message.
#include "check.h"
#include <psb/psb_obj.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

// The unit cube [0, 1]^3, two outward triangles per face, faces in the order
// bottom (z = 0), top (z = 1), front (y = 0), back, left (x = 0), right.
static const psb_vec3 cube_points[8] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                        {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int cube_tris[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                  2, 3, 7, 2, 7, 6, 0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};

// A shell owning copies of the arrays.
static psb_mesh make_mesh(const psb_vec3 *points, int n, const int *tris, int m) {
    psb_mesh mesh = {.kind = PSB_SHELL, .point_count = n, .triangle_count = m};
    mesh.points = malloc((size_t)(n > 0 ? n : 1) * sizeof *mesh.points);
    mesh.triangles = malloc((size_t)(m > 0 ? m : 1) * 3 * sizeof *mesh.triangles);
    if (!mesh.points || !mesh.triangles) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    if (n > 0) {
        memcpy(mesh.points, points, (size_t)n * sizeof *points);
    }
    if (m > 0) {
        memcpy(mesh.triangles, tris, (size_t)m * 3 * sizeof *tris);
    }
    return mesh;
}

static psb_mesh cube(void) {
    return make_mesh(cube_points, 8, cube_tris, 12);
}

// The cube with each face's corners its own points: 24 points, as an OBJ
// with per-face normals or texture seams comes out of a naive exporter.
static psb_mesh split_cube(void) {
    psb_vec3 points[24];
    int tris[36];
    for (int face = 0; face < 6; face++) {
        int used[4], count = 0;
        for (int i = 0; i < 6; i++) {
            int v = cube_tris[6 * face + i], j = 0;
            while (j < count && used[j] != v) {
                j++;
            }
            if (j == count) {
                used[count++] = v;
                points[4 * face + j] = cube_points[v];
            }
            tris[6 * face + i] = 4 * face + j;
        }
    }
    return make_mesh(points, 24, tris, 12);
}

static void flip(psb_mesh *m, int f) {
    int *t = m->triangles + 3 * f;
    int swap = t[1];
    t[1] = t[2];
    t[2] = swap;
}

static psb_topology topo(const psb_mesh *mesh) {
    psb_topology t;
    psb_error err;
    CHECK(psb_mesh_topology(mesh, &t, &err) == PSB_OK, "topology: %s", err.message);
    return t;
}

static psb_repair_report repair(psb_mesh *mesh, psb_repair_options options) {
    psb_repair_report r;
    psb_error err;
    CHECK(psb_mesh_repair(mesh, &options, &r, &err) == PSB_OK, "repair: %s", err.message);
    return r;
}

static psb_repair_options with_fill(void) {
    psb_repair_options o = psb_default_repair_options();
    o.fill_holes = true;
    return o;
}

// Closed, manifold, oriented, one piece of the given genus.
static void check_closed(const psb_mesh *m, int genus, const char *what) {
    psb_topology t = topo(m);
    CHECK(t.closed && t.border_edges == 0 && t.holes == 0 && t.nonmanifold_edges == 0 &&
              t.orientation_conflicts == 0 && t.genus == genus && t.components == 1 &&
              t.unused_vertices == 0,
          "%s: closed %d border %d holes %d nonmanifold %d conflicts %d genus %d (expected %d) "
          "components %d unused %d",
          what, t.closed, t.border_edges, t.holes, t.nonmanifold_edges, t.orientation_conflicts,
          t.genus, genus, t.components, t.unused_vertices);
}

// A deterministic generator (xorshift64), uniform in [-1, 1).
static double rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

// Keeps the triangles for which keep(centroid) is true.
static void keep_triangles(psb_mesh *m, bool (*keep)(psb_vec3)) {
    int kept = 0;
    for (int f = 0; f < m->triangle_count; f++) {
        const int *t = m->triangles + 3 * f;
        psb_vec3 a = m->points[t[0]], b = m->points[t[1]], c = m->points[t[2]];
        psb_vec3 g = {(a.x + b.x + c.x) / 3, (a.y + b.y + c.y) / 3, (a.z + b.z + c.z) / 3};
        if (keep(g)) {
            memmove(m->triangles + 3 * kept++, t, 3 * sizeof *t);
        }
    }
    m->triangle_count = kept;
}

// ---------------------------------------------------------------------------

static void test_weld(void) {
    psb_mesh m = split_cube();
    psb_topology t = topo(&m);
    CHECK(t.border_edges == 24 && t.holes == 6 && !t.closed, "split cube: border %d holes %d",
          t.border_edges, t.holes);
    psb_repair_report r = repair(&m, psb_default_repair_options());
    CHECK(r.welded == 16 && m.point_count == 8 && m.triangle_count == 12,
          "welded %d: %d points, %d triangles", r.welded, m.point_count, m.triangle_count);
    CHECK(r.unused_dropped == 0 && r.degenerate_dropped == 0 && r.duplicates_dropped == 0 &&
              r.faces_flipped == 0 && r.components_flipped == 0 && r.holes_filled == 0 &&
              r.fill_triangles == 0 && r.fit_scale == 1.0,
          "weld did more: unused %d degenerate %d duplicates %d flipped %d/%d filled %d/%d "
          "scale %g",
          r.unused_dropped, r.degenerate_dropped, r.duplicates_dropped, r.faces_flipped,
          r.components_flipped, r.holes_filled, r.fill_triangles, r.fit_scale);
    check_closed(&m, 0, "welded cube");
    CHECK_CLOSE(psb_mesh_volume(&m), 1.0, 1e-15);
    // The first point of each group stays, in order: the bottom face's corners first.
    CHECK(m.points[0].x == 0 && m.points[1].x == 1 && m.points[1].y == 1 && m.points[2].x == 1 &&
              m.points[2].y == 0,
          "order of welded points");
    psb_mesh_free(&m);

    // -0.0 and 0.0 are the same place.
    m = split_cube();
    for (int v = 0; v < m.point_count; v += 3) {
        m.points[v].x = m.points[v].x == 0.0 ? -0.0 : m.points[v].x;
        m.points[v].z = m.points[v].z == 0.0 ? -0.0 : m.points[v].z;
    }
    r = repair(&m, psb_default_repair_options());
    CHECK(r.welded == 16 && m.point_count == 8, "-0.0: welded %d", r.welded);
    psb_mesh_free(&m);

    // Welding off: nothing merges, so the cube stays in six pieces.
    m = split_cube();
    psb_repair_options o = psb_default_repair_options();
    o.weld = false;
    r = repair(&m, o);
    CHECK(r.welded == 0 && m.point_count == 24 && topo(&m).components == 6,
          "weld off: welded %d, %d points", r.welded, m.point_count);
    psb_mesh_free(&m);
}

static void test_weld_tolerance(void) {
    uint64_t seed = 12345;
    psb_mesh jittered = split_cube();
    for (int v = 0; v < jittered.point_count; v++) {
        jittered.points[v].x += 1e-7 * rnd(&seed);
        jittered.points[v].y += 1e-7 * rnd(&seed);
        jittered.points[v].z += 1e-7 * rnd(&seed);
    }
    psb_mesh m = make_mesh(jittered.points, 24, jittered.triangles, 12);
    psb_repair_report r = repair(&m, psb_default_repair_options());
    CHECK(r.welded == 0 && m.point_count == 24 && !topo(&m).closed,
          "exact weld of jittered points: welded %d", r.welded);
    psb_mesh_free(&m);

    m = make_mesh(jittered.points, 24, jittered.triangles, 12);
    psb_repair_options o = psb_default_repair_options();
    o.weld_tolerance = 1e-6;
    r = repair(&m, o);
    CHECK(r.welded == 16 && m.point_count == 8, "tolerance 1e-6: welded %d", r.welded);
    check_closed(&m, 0, "tolerance-welded cube");
    CHECK_CLOSE(psb_mesh_volume(&m), 1.0, 1e-6);
    psb_mesh_free(&m);

    // The tolerance is a distance, not a cell: 1e-7 apart welds with a
    // tolerance of 1e-7 (and chains of such pairs weld together), 1.1e-7 does not.
    psb_vec3 line[4] = {{0, 0, 0}, {1e-7, 0, 0}, {2e-7, 0, 0}, {3.1e-7, 0, 0}};
    m = make_mesh(line, 4, NULL, 0);
    o = psb_default_repair_options();
    o.weld_tolerance = 1.0000001e-7;
    o.drop_unused = false;
    r = repair(&m, o);
    CHECK(r.welded == 2 && m.point_count == 2 && m.points[1].x == 3.1e-7,
          "chain: welded %d, %d points", r.welded, m.point_count);
    psb_mesh_free(&m);
    psb_mesh_free(&jittered);
}

static void test_drops(void) {
    // The cube plus: a triangle with a repeated corner, a zero-area one
    // through the midpoint of an edge (point 8, then unused), the bottom's
    // first triangle again (rotated) and a point no triangle uses (9).
    psb_vec3 points[10];
    memcpy(points, cube_points, sizeof cube_points);
    points[8] = (psb_vec3){0.5, 0, 0};
    points[9] = (psb_vec3){5, 5, 5};
    int tris[48];
    memcpy(tris, cube_tris, sizeof cube_tris);
    int extra[12] = {0, 0, 1, 0, 1, 8, 2, 1, 0, 1, 0, 2};
    memcpy(tris + 36, extra, sizeof extra);
    psb_mesh m = make_mesh(points, 10, tris, 16);
    psb_repair_report r = repair(&m, psb_default_repair_options());
    CHECK(r.degenerate_dropped == 2 && r.duplicates_dropped == 2 && r.unused_dropped == 2,
          "degenerate %d duplicates %d unused %d", r.degenerate_dropped, r.duplicates_dropped,
          r.unused_dropped);
    check_closed(&m, 0, "cleaned cube");
    CHECK(m.point_count == 8 && m.triangle_count == 12, "%d points %d triangles", m.point_count,
          m.triangle_count);
    psb_mesh_free(&m);

    // Zero area is relative: a triangle 1e-14 high over an edge of 1 is
    // degenerate, one 1e-9 high is a sliver worth keeping.
    psb_vec3 thin[4] = {{0, 0, 0}, {1, 0, 0}, {0.5, 1e-14, 0}, {0.5, 1e-9, 0}};
    int thin_tris[6] = {0, 1, 2, 0, 1, 3};
    m = make_mesh(thin, 4, thin_tris, 2);
    r = repair(&m, psb_default_repair_options());
    CHECK(r.degenerate_dropped == 1 && m.triangle_count == 1 && r.unused_dropped == 1 &&
              m.points[2].y == 1e-9,
          "slivers: dropped %d, kept %d", r.degenerate_dropped, m.triangle_count);
    psb_mesh_free(&m);

    // An unused point first: the others keep their order.
    psb_vec3 shifted[9];
    shifted[0] = (psb_vec3){9, 9, 9};
    memcpy(shifted + 1, cube_points, sizeof cube_points);
    int shifted_tris[36];
    for (int i = 0; i < 36; i++) {
        shifted_tris[i] = cube_tris[i] + 1;
    }
    m = make_mesh(shifted, 9, shifted_tris, 12);
    r = repair(&m, psb_default_repair_options());
    CHECK(r.unused_dropped == 1 && m.point_count == 8 &&
              memcmp(m.points, cube_points, sizeof cube_points) == 0 &&
              memcmp(m.triangles, cube_tris, sizeof cube_tris) == 0,
          "unused first: dropped %d", r.unused_dropped);
    psb_mesh_free(&m);

    // Each drop can be turned off.
    m = make_mesh(points, 10, tris, 16);
    psb_repair_options o = psb_default_repair_options();
    o.drop_degenerate = o.drop_duplicates = o.drop_unused = false;
    r = repair(&m, o);
    CHECK(r.degenerate_dropped == 0 && r.duplicates_dropped == 0 && r.unused_dropped == 0 &&
              m.point_count == 10 && m.triangle_count == 16,
          "drops off: %d points %d triangles", m.point_count, m.triangle_count);
    psb_mesh_free(&m);
}

static void test_mirror_duplicates(void) {
    // A fin: a triangle and its mirror image hanging off the cube's edge 0-1
    // (as in Suzanne). Both go, and the cube is closed again.
    psb_vec3 points[9];
    memcpy(points, cube_points, sizeof cube_points);
    points[8] = (psb_vec3){0.5, -1, -1};
    int tris[45];
    memcpy(tris, cube_tris, sizeof cube_tris);
    int fin[9] = {0, 1, 8, 0, 8, 1, 1, 8, 0};
    memcpy(tris + 36, fin, sizeof fin);
    psb_mesh m = make_mesh(points, 9, tris, 14);
    CHECK(topo(&m).nonmanifold_edges == 1, "fin: non-manifold before");
    psb_repair_report r = repair(&m, psb_default_repair_options());
    CHECK(r.duplicates_dropped == 2 && r.unused_dropped == 1, "fin: duplicates %d unused %d",
          r.duplicates_dropped, r.unused_dropped);
    check_closed(&m, 0, "cube without its fin");
    psb_mesh_free(&m);

    // Three copies, two one way: one is kept, so the fin stays (non-manifold).
    m = make_mesh(points, 9, tris, 15);
    r = repair(&m, psb_default_repair_options());
    psb_topology t = topo(&m);
    CHECK(r.duplicates_dropped == 2 && m.triangle_count == 13 && t.nonmanifold_edges == 1,
          "fin of three: duplicates %d, %d triangles, %d non-manifold", r.duplicates_dropped,
          m.triangle_count, t.nonmanifold_edges);
    psb_mesh_free(&m);

    // Two tetrahedra glued on a face, each with its own copy of it: the
    // copies cancel and the two become one closed body.
    psb_vec3 bi[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}};
    int bi_tris[24] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3, 0, 1, 2, 0, 4, 1, 1, 4, 2, 2, 4, 0};
    m = make_mesh(bi, 5, bi_tris, 8);
    r = repair(&m, psb_default_repair_options());
    CHECK(r.duplicates_dropped == 2 && m.triangle_count == 6, "bipyramid: %d duplicates",
          r.duplicates_dropped);
    check_closed(&m, 0, "bipyramid");
    CHECK_CLOSE(psb_mesh_volume(&m), 2.0 / 6.0, 1e-15);
    psb_mesh_free(&m);
}

static void test_orientation(void) {
    psb_mesh m = cube();
    flip(&m, 5);
    CHECK(topo(&m).orientation_conflicts == 3, "one flipped face: 3 conflicts");
    psb_repair_report r = repair(&m, psb_default_repair_options());
    CHECK(r.faces_flipped == 1 && r.components_flipped == 0, "flipped %d, components %d",
          r.faces_flipped, r.components_flipped);
    check_closed(&m, 0, "cube with a face flipped back");
    CHECK_CLOSE(psb_mesh_volume(&m), 1.0, 1e-15);
    CHECK(memcmp(m.triangles, cube_tris, sizeof cube_tris) == 0, "not the original cube");
    psb_mesh_free(&m);

    // The walk starts from triangle 0: flipping that one must count the same.
    m = cube();
    flip(&m, 0);
    r = repair(&m, psb_default_repair_options());
    CHECK(r.faces_flipped == 1 && r.components_flipped == 0,
          "first face flipped: flipped %d, components %d", r.faces_flipped, r.components_flipped);
    CHECK(memcmp(m.triangles, cube_tris, sizeof cube_tris) == 0, "not the original cube");
    psb_mesh_free(&m);

    // Inside out: one component flipped, no faces.
    m = cube();
    for (int f = 0; f < 12; f++) {
        flip(&m, f);
    }
    CHECK(topo(&m).volume < 0.0, "inside-out cube");
    r = repair(&m, psb_default_repair_options());
    CHECK(r.faces_flipped == 0 && r.components_flipped == 1, "inside out: flipped %d/%d",
          r.faces_flipped, r.components_flipped);
    check_closed(&m, 0, "cube turned outward");
    CHECK_CLOSE(psb_mesh_volume(&m), 1.0, 1e-15);
    psb_mesh_free(&m);

    // Inside out with one face right: the component turns, that face flips.
    m = cube();
    for (int f = 1; f < 12; f++) {
        flip(&m, f);
    }
    r = repair(&m, psb_default_repair_options());
    CHECK(r.faces_flipped == 1 && r.components_flipped == 1, "mostly inside out: flipped %d/%d",
          r.faces_flipped, r.components_flipped);
    check_closed(&m, 0, "mostly inside-out cube");
    psb_mesh_free(&m);

    // Orientation repair off: left as it is.
    m = cube();
    flip(&m, 5);
    psb_repair_options o = psb_default_repair_options();
    o.fix_orientation = false;
    r = repair(&m, o);
    CHECK(r.faces_flipped == 0 && topo(&m).orientation_conflicts == 3, "orientation off");
    psb_mesh_free(&m);

    // Two cubes, one inside out, each handled on its own.
    psb_vec3 points[16];
    int tris[72];
    for (int v = 0; v < 8; v++) {
        points[v] = cube_points[v];
        points[v + 8] = (psb_vec3){cube_points[v].x + 3, cube_points[v].y, cube_points[v].z};
    }
    for (int i = 0; i < 36; i++) {
        tris[i] = cube_tris[i];
        tris[36 + i] = cube_tris[i - i % 3 + (3 - i % 3) % 3] + 8; // each triangle reversed
    }
    m = make_mesh(points, 16, tris, 24);
    r = repair(&m, psb_default_repair_options());
    psb_topology t = topo(&m);
    CHECK(r.components_flipped == 1 && r.faces_flipped == 0 && t.closed && t.components == 2,
          "two cubes: components flipped %d, closed %d", r.components_flipped, t.closed);
    CHECK_CLOSE(t.volume, 2.0, 1e-15);
    psb_mesh_free(&m);
}

static bool not_top(psb_vec3 g) {
    return g.z < 0.99;
}

static void test_open_cube(void) {
    psb_mesh m = cube();
    keep_triangles(&m, not_top);
    psb_repair_report r = repair(&m, psb_default_repair_options());
    psb_topology t = topo(&m);
    CHECK(t.holes == 1 && t.border_edges == 4 && !t.closed && t.genus == -1 && r.holes_filled == 0,
          "open cube: holes %d border %d closed %d", t.holes, t.border_edges, t.closed);
    CHECK_CLOSE(t.volume, 2.0 / 3.0, 1e-15); // the cone volume from the origin's corner
    r = repair(&m, with_fill());
    CHECK(r.holes_filled == 1 && r.fill_triangles == 2 && m.triangle_count == 12 &&
              m.point_count == 8,
          "filled %d holes with %d triangles", r.holes_filled, r.fill_triangles);
    check_closed(&m, 0, "filled cube");
    t = topo(&m);
    CHECK(t.euler == 2, "euler %d", t.euler);
    CHECK_CLOSE(t.volume, 1.0, 1e-15);
    psb_mesh_free(&m);

    // Open and inside out: turned so it faces away from its centre, then filled.
    m = cube();
    keep_triangles(&m, not_top);
    for (int f = 0; f < m.triangle_count; f++) {
        flip(&m, f);
    }
    r = repair(&m, psb_default_repair_options());
    CHECK(r.components_flipped == 1 && topo(&m).oriented,
          "open inside-out cube: components flipped %d", r.components_flipped);
    psb_mesh_free(&m);
    m = cube();
    keep_triangles(&m, not_top);
    for (int f = 0; f < m.triangle_count; f++) {
        flip(&m, f);
    }
    r = repair(&m, with_fill());
    CHECK(r.components_flipped == 1 && r.holes_filled == 1, "open inside-out cube, filled");
    check_closed(&m, 0, "open inside-out cube, filled");
    CHECK_CLOSE(psb_mesh_volume(&m), 1.0, 1e-15);
    psb_mesh_free(&m);

    // Filling with orientation repair off still closes a consistent mesh.
    m = cube();
    keep_triangles(&m, not_top);
    psb_repair_options o = with_fill();
    o.fix_orientation = false;
    r = repair(&m, o);
    CHECK(r.holes_filled == 1 && topo(&m).closed, "fill without orientation repair");
    psb_mesh_free(&m);

    // A segmented box with its top missing: a loop of 16 points with
    // straight runs, which ear clipping must close with no sliver.
    psb_error err;
    CHECK(psb_mesh_box(&m, 4, (psb_vec3){1, 1, 1}, &err) == PSB_OK, "box: %s", err.message);
    keep_triangles(&m, not_top);
    CHECK(topo(&m).border_edges == 16, "box border %d", topo(&m).border_edges);
    r = repair(&m, with_fill());
    CHECK(r.holes_filled == 1 && r.fill_triangles == 14 && r.degenerate_dropped == 0,
          "box top: %d holes, %d triangles", r.holes_filled, r.fill_triangles);
    check_closed(&m, 0, "box with a filled top");
    CHECK_CLOSE(psb_mesh_volume(&m), 8.0, 1e-14);
    psb_repair_options again = psb_default_repair_options();
    r = repair(&m, again);
    CHECK(r.degenerate_dropped == 0, "the fill has %d degenerate triangles", r.degenerate_dropped);
    psb_mesh_free(&m);
}

static bool outside_caps(psb_vec3 g) {
    return g.z < 0.8 && g.x < 0.85 && g.y > -0.85;
}

static void test_icosphere_holes(void) {
    psb_mesh whole, m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&whole, 3, 1.0, &err) == PSB_OK, "icosphere: %s", err.message);
    double full = psb_mesh_volume(&whole);
    m = make_mesh(whole.points, whole.point_count, whole.triangles, whole.triangle_count);
    keep_triangles(&m, outside_caps);
    int removed = whole.triangle_count - m.triangle_count;
    psb_topology t = topo(&m);
    CHECK(t.holes == 3 && t.border_edges > 9 && removed > 3, "caps: %d holes, %d border edges",
          t.holes, t.border_edges);
    psb_repair_report r = repair(&m, with_fill());
    CHECK(r.holes_filled == 3 && r.fill_triangles == t.border_edges - 6,
          "filled %d holes with %d triangles (border %d)", r.holes_filled, r.fill_triangles,
          t.border_edges);
    check_closed(&m, 0, "icosphere with filled caps");
    double v = psb_mesh_volume(&m);
    CHECK(v > 0.9 * full && v < full, "filled volume %g of %g", v, full);

    // Determinism: the same input gives the same bits.
    psb_mesh twin =
        make_mesh(whole.points, whole.point_count, whole.triangles, whole.triangle_count);
    keep_triangles(&twin, outside_caps);
    repair(&twin, with_fill());
    CHECK(twin.point_count == m.point_count && twin.triangle_count == m.triangle_count &&
              memcmp(twin.points, m.points, (size_t)m.point_count * sizeof *m.points) == 0 &&
              memcmp(twin.triangles, m.triangles, (size_t)m.triangle_count * 3 * sizeof(int)) == 0,
          "repair is not deterministic");
    psb_mesh_free(&twin);
    psb_mesh_free(&m);

    // Two holes that touch at a point: two triangles around point 0 that
    // share only that point. Two loops, each closed by the triangle that was
    // there, wound as it was.
    int around[6] = {0}, count = 0;
    for (int f = 0; f < whole.triangle_count && count < 6; f++) {
        const int *tr = whole.triangles + 3 * f;
        if (tr[0] == 0 || tr[1] == 0 || tr[2] == 0) {
            around[count++] = f;
        }
    }
    int a = around[0], b = -1;
    for (int i = 1; i < count && b < 0; i++) {
        int shared = 0;
        for (int j = 0; j < 3; j++) {
            for (int k = 0; k < 3; k++) {
                shared += whole.triangles[3 * a + j] == whole.triangles[3 * around[i] + k];
            }
        }
        b = shared == 1 ? around[i] : -1;
    }
    CHECK(count == 5 && b >= 0, "point 0 has %d triangles", count);
    m = make_mesh(whole.points, whole.point_count, NULL, 0);
    free(m.triangles);
    m.triangles = malloc((size_t)whole.triangle_count * 3 * sizeof *m.triangles);
    for (int f = 0; f < whole.triangle_count; f++) {
        if (f != a && f != b) {
            memcpy(m.triangles + 3 * m.triangle_count++, whole.triangles + 3 * f, 3 * sizeof(int));
        }
    }
    t = topo(&m);
    CHECK(t.holes == 2 && t.border_edges == 6, "bow tie: %d holes, %d border edges", t.holes,
          t.border_edges);
    r = repair(&m, with_fill());
    CHECK(r.holes_filled == 2 && r.fill_triangles == 2, "bow tie: filled %d with %d",
          r.holes_filled, r.fill_triangles);
    check_closed(&m, 0, "bow tie filled");
    CHECK_CLOSE(psb_mesh_volume(&m), full, 1e-14);
    psb_mesh_free(&m);
    psb_mesh_free(&whole);
}

static bool outside_torus_patch(psb_vec3 g) {
    return !(g.x > 1.2 && fabs(g.z) < 0.5 && g.y > -0.2);
}

static void test_torus_hole(void) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_torus(&m, 24, 12, 1.0, 0.3, &err) == PSB_OK, "torus: %s", err.message);
    int before = m.triangle_count;
    keep_triangles(&m, outside_torus_patch);
    psb_topology t = topo(&m);
    CHECK(t.holes == 1 && m.triangle_count < before, "torus: %d holes, %d triangles removed",
          t.holes, before - m.triangle_count);
    psb_repair_report r = repair(&m, with_fill());
    CHECK(r.holes_filled == 1, "torus: filled %d", r.holes_filled);
    check_closed(&m, 1, "torus filled");
    t = topo(&m);
    double full = 2.0 * pi * pi * 1.0 * 0.3 * 0.3;
    CHECK(t.volume > 0.9 * full && t.volume < full, "torus volume %g of %g", t.volume, full);
    psb_mesh_free(&m);
}

static void test_fit(void) {
    psb_mesh m = cube();
    psb_repair_options o = psb_default_repair_options();
    o.fit_radius = 2.0;
    psb_repair_report r = repair(&m, o);
    double scale = 2.0 / (sqrt(3.0) / 2.0);
    CHECK_CLOSE(r.fit_scale, scale, 1e-15);
    double farthest = 0.0;
    psb_vec3 lo = m.points[0], hi = m.points[0];
    for (int v = 0; v < m.point_count; v++) {
        psb_vec3 p = m.points[v];
        farthest = fmax(farthest, sqrt(p.x * p.x + p.y * p.y + p.z * p.z));
        lo = (psb_vec3){fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z)};
        hi = (psb_vec3){fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z)};
    }
    CHECK_CLOSE(farthest, 2.0, 1e-15);
    CHECK(fabs(lo.x + hi.x) < 1e-15 && fabs(lo.y + hi.y) < 1e-15 && fabs(lo.z + hi.z) < 1e-15,
          "not centred");
    CHECK_CLOSE(psb_mesh_volume(&m), scale * scale * scale, 1e-14);
    psb_mesh_free(&m);

    // A ring only gets the fit.
    psb_error err;
    CHECK(psb_mesh_ring(&m, 16, 1.0, &err) == PSB_OK, "ring: %s", err.message);
    double area = psb_mesh_volume(&m);
    o.fit_radius = 3.0;
    r = repair(&m, o);
    CHECK(m.point_count == 16 && m.triangles == NULL, "ring changed");
    CHECK_CLOSE(r.fit_scale, 3.0, 1e-14);
    CHECK_CLOSE(psb_mesh_volume(&m), 9.0 * area, 1e-13);
    psb_mesh_free(&m);

    // Coordinates near DBL_MAX (the fuzzer's find): the box's centre and the
    // distances must not overflow on the way to a finite fit.
    m = cube();
    for (int v = 0; v < m.point_count; v++) {
        m.points[v] = (psb_vec3){m.points[v].x * 1.7e308 - 0.5 * 1.7e308, m.points[v].y * 1e300,
                                 m.points[v].z * 1.7e308};
    }
    // The fit alone: at this size the other stages overflow too and drop the triangles.
    o = psb_default_repair_options();
    o.weld = o.drop_unused = o.drop_degenerate = o.drop_duplicates = o.fix_orientation = false;
    o.fit_radius = 1.0;
    r = repair(&m, o);
    CHECK(m.point_count == 8, "huge coordinates: %d points left of 8", m.point_count);
    farthest = 0.0;
    bool finite = true;
    for (int v = 0; v < m.point_count; v++) {
        const psb_vec3 p = m.points[v];
        finite = finite && isfinite(p.x) && isfinite(p.y) && isfinite(p.z);
        farthest = fmax(farthest, sqrt(p.x * p.x + p.y * p.y + p.z * p.z));
    }
    CHECK(finite && r.fit_scale > 0.0, "huge coordinates: not finite after the fit (scale %g)",
          r.fit_scale);
    CHECK_CLOSE(farthest, 1.0, 1e-15);
    psb_mesh_free(&m);
}

static void test_split(void) {
    // Two cubes with an unused point between them.
    psb_vec3 points[17];
    int tris[72];
    for (int v = 0; v < 8; v++) {
        points[v] = cube_points[v];
        points[v + 9] = (psb_vec3){cube_points[v].x + 3, cube_points[v].y, cube_points[v].z};
    }
    points[8] = (psb_vec3){-5, -5, -5};
    for (int i = 0; i < 36; i++) {
        tris[i] = cube_tris[i];
        tris[36 + i] = cube_tris[i] + 9;
    }
    psb_mesh m = make_mesh(points, 17, tris, 24);
    psb_mesh *parts;
    int count;
    psb_error err;
    CHECK(psb_mesh_split(&m, &parts, &count, &err) == PSB_OK, "split: %s", err.message);
    CHECK(count == 2, "%d parts", count);
    for (int p = 0; p < count && count == 2; p++) {
        CHECK(parts[p].kind == PSB_SHELL && parts[p].point_count == 8 &&
                  parts[p].triangle_count == 12,
              "part %d: %d points %d triangles", p, parts[p].point_count, parts[p].triangle_count);
        check_closed(&parts[p], 0, "part");
        CHECK_CLOSE(psb_mesh_volume(&parts[p]), 1.0, 1e-15);
    }
    if (count == 2) {
        // Points in order of first use: triangle (0, 2, 1) comes first.
        psb_vec3 p0 = parts[1].points[0], p1 = parts[1].points[1];
        CHECK(p0.x == 3 && p0.y == 0 && p1.x == 4 && p1.y == 1, "order of first use");
        CHECK(parts[1].triangles[0] == 0 && parts[1].triangles[1] == 1 &&
                  parts[1].triangles[2] == 2,
              "renumbered triangle");
    }
    for (int p = 0; p < count; p++) {
        psb_mesh_free(&parts[p]);
    }
    free(parts);
    psb_mesh_free(&m);

    // A ring: one copy. No triangles: no parts.
    CHECK(psb_mesh_ring(&m, 8, 1.0, &err) == PSB_OK, "ring");
    CHECK(psb_mesh_split(&m, &parts, &count, &err) == PSB_OK && count == 1 &&
              parts[0].kind == PSB_RING && parts[0].point_count == 8 &&
              parts[0].points != m.points && parts[0].points[3].x == m.points[3].x,
          "ring split");
    psb_mesh_free(&parts[0]);
    free(parts);
    psb_mesh_free(&m);
    m = make_mesh(cube_points, 8, NULL, 0);
    CHECK(psb_mesh_split(&m, &parts, &count, &err) == PSB_OK && count == 0 && parts == NULL,
          "empty split");
    psb_mesh_free(&m);
    CHECK(psb_mesh_split(NULL, &parts, &count, &err) == PSB_ERR_INVALID, "NULL split");
}

static void test_topology_holes(void) {
    psb_mesh m = cube();
    CHECK(topo(&m).holes == 0, "closed cube has holes");
    m.triangle_count = 1;
    CHECK(topo(&m).holes == 1 && topo(&m).border_edges == 3, "one triangle");
    psb_mesh_free(&m);

    // The cube without top and bottom: a tube, two holes.
    m = cube();
    memmove(m.triangles, m.triangles + 12, 24 * sizeof(int));
    m.triangle_count = 8;
    psb_topology t = topo(&m);
    CHECK(t.holes == 2 && t.border_edges == 8, "tube: %d holes %d border", t.holes, t.border_edges);
    psb_mesh_free(&m);

    // Two triangles joined at a corner only: two holes through one point.
    psb_vec3 p[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0}, {0, -1, 0}};
    int tris[6] = {0, 1, 2, 0, 3, 4};
    m = make_mesh(p, 5, tris, 2);
    t = topo(&m);
    CHECK(t.holes == 2 && t.border_edges == 6, "corner: %d holes", t.holes);
    psb_mesh_free(&m);

    // Disagreeing neighbours: the border half-edges make two chains, not a
    // loop, but they join end to end into one hole.
    int strip[6] = {0, 1, 2, 0, 1, 4};
    m = make_mesh(p, 5, strip, 2);
    t = topo(&m);
    CHECK(t.holes == 1 && t.border_edges == 4 && t.orientation_conflicts == 1,
          "strip: %d holes, %d border, %d conflicts", t.holes, t.border_edges,
          t.orientation_conflicts);
    psb_mesh_free(&m);

    CHECK(psb_mesh_ring(&m, 5, 1.0, NULL) == PSB_OK && topo(&m).holes == 0, "ring holes");
    psb_mesh_free(&m);
}

static void test_bad_input(void) {
    psb_mesh m = cube();
    psb_vec3 *points = m.points;
    int *tris = m.triangles;
    psb_error err;
    psb_repair_report r;
    m.points[3].y = NAN;
    CHECK(psb_mesh_repair(&m, NULL, &r, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "point 3") && m.points == points && m.triangles == tris,
          "NaN: %s", err.message);
    m.points[3].y = 1;
    int corner = m.triangles[7];
    m.triangles[7] = 8;
    CHECK(psb_mesh_repair(&m, NULL, &r, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "triangle 2 corner 1 is point 8"),
          "index: %s", err.message);
    m.triangles[7] = corner;
    psb_repair_options o = psb_default_repair_options();
    o.weld_tolerance = -1;
    CHECK(psb_mesh_repair(&m, &o, &r, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "weld_tolerance"),
          "tolerance: %s", err.message);
    o = psb_default_repair_options();
    o.fit_radius = INFINITY;
    CHECK(psb_mesh_repair(&m, &o, &r, &err) == PSB_ERR_INVALID && strstr(err.message, "fit_radius"),
          "fit: %s", err.message);
    CHECK(psb_mesh_repair(NULL, NULL, NULL, &err) == PSB_ERR_INVALID, "NULL mesh");
    // NULL options are the defaults, NULL report and error are fine.
    CHECK(psb_mesh_repair(&m, NULL, NULL, NULL) == PSB_OK && topo(&m).closed, "defaults");
    psb_repair_options d = psb_default_repair_options();
    CHECK(d.weld && d.weld_tolerance == 0.0 && d.drop_unused && d.drop_degenerate &&
              d.drop_duplicates && d.fix_orientation && !d.fill_holes && d.fit_radius == 0.0,
          "defaults changed");
    psb_mesh_free(&m);
}

// ---------------------------------------------------------------------------
// psb_mesh_load_obj, on small files written here.

static const char *write_file(const char *name, const char *text) {
    FILE *f = fopen(name, "wb");
    CHECK(f != NULL, "cannot write %s", name);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return name;
}

static const char cube_v[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                             "v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";

// Loads and expects a refusal with PSB_ERR_TOPOLOGY, the file's name and `text`.
static void check_refused(const char *path, const psb_repair_options *o, const char *text) {
    psb_mesh *parts = (psb_mesh *)&parts;
    int count = -1;
    psb_error err;
    psb_status status = psb_mesh_load_obj(path, o, &parts, &count, NULL, NULL, &err);
    CHECK(status == PSB_ERR_TOPOLOGY && err.status == PSB_ERR_TOPOLOGY, "%s: status %d: %s", path,
          status, err.message);
    CHECK(strncmp(err.message, path, strlen(path)) == 0 && strstr(err.message, text),
          "%s: expected \"%s\" in: %s", path, text, err.message);
    CHECK(parts == NULL && count == 0, "%s: outputs not emptied", path);
}

// Loads and expects `count` closed parts; returns their total volume.
static double check_loads(const char *path, const psb_repair_options *o, int expected,
                          psb_repair_report *report) {
    psb_mesh *parts;
    int count;
    psb_error err;
    psb_status status = psb_mesh_load_obj(path, o, &parts, &count, report, NULL, &err);
    CHECK(status == PSB_OK && count == expected, "%s: status %d, %d parts: %s", path, status, count,
          err.message);
    double volume = 0.0;
    for (int p = 0; status == PSB_OK && p < count; p++) {
        psb_topology t = topo(&parts[p]);
        CHECK(t.closed && t.volume > 0.0, "%s: part %d not closed", path, p);
        volume += t.volume;
        psb_mesh_free(&parts[p]);
    }
    if (status == PSB_OK) {
        free(parts);
    }
    return volume;
}

static void test_load(void) {
    char text[2048];
    psb_repair_options fill = with_fill();

    snprintf(text, sizeof text,
             "%sf 1 3 2\nf 1 4 3\nf 1 2 6\nf 1 6 5\nf 3 4 8\nf 3 8 7\n"
             "f 1 5 8\nf 1 8 4\nf 2 3 7\nf 2 7 6\n",
             cube_v);
    const char *open = write_file("test_repair_open.obj", text);
    check_refused(open, NULL,
                  "the mesh is open: 1 hole, 4 border edges; use --fill-holes to close them");
    psb_repair_report r;
    CHECK_CLOSE(check_loads(open, &fill, 1, &r), 1.0, 1e-15);
    CHECK(r.holes_filled == 1 && r.fill_triangles == 2, "report: %d holes filled", r.holes_filled);

    // Quads, and the whole cube: loads as it is.
    snprintf(text, sizeof text,
             "%sf 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 1 5 8 4\n"
             "f 2 3 7 6\n",
             cube_v);
    const char *quads = write_file("test_repair_quads.obj", text);
    CHECK_CLOSE(check_loads(quads, NULL, 1, &r), 1.0, 1e-15);
    CHECK(r.welded == 0 && r.faces_flipped == 0 && r.fit_scale == 1.0, "quads report");
    psb_repair_options fit = psb_default_repair_options();
    fit.fit_radius = sqrt(3.0);
    CHECK_CLOSE(check_loads(quads, &fit, 1, &r), 8.0, 1e-14);
    CHECK_CLOSE(r.fit_scale, 2.0, 1e-15);

    // Two tetrahedra sharing an edge: four faces on it.
    const char *pinched = write_file("test_repair_nonmanifold.obj",
                                     "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0 -1 0\nv 0 0 -1\n"
                                     "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n"
                                     "f 1 5 2\nf 1 2 6\nf 2 5 6\nf 5 1 6\n");
    check_refused(pinched, NULL,
                  ": 1 non-manifold edge (used by 3 or more faces), e.g. between points at "
                  "(0, 0, 0) and (1, 0, 0)");
    check_refused(pinched, &fit, "(0, 0, 0) and (1, 0, 0)"); // places before any fit

    // A sheet: both sides of one triangle. Cancelled by default; kept, it
    // encloses nothing.
    const char *sheet = write_file("test_repair_sheet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                                            "f 1 2 3\nf 1 3 2\n");
    check_refused(sheet, NULL, "no triangles left after repair (0 degenerate and 2 duplicate");
    psb_repair_options keep = psb_default_repair_options();
    keep.drop_duplicates = false;
    check_refused(sheet, &keep, "the mesh encloses no volume (volume 0 m^3)");

    // Inside out, and a flipped face, with orientation repair off.
    snprintf(text, sizeof text,
             "%sf 1 2 3\nf 1 3 4\nf 5 7 6\nf 5 8 7\nf 1 6 2\nf 1 5 6\n"
             "f 3 8 4\nf 3 7 8\nf 1 8 5\nf 1 4 8\nf 2 7 3\nf 2 6 7\n",
             cube_v);
    const char *inside_out = write_file("test_repair_inside_out.obj", text);
    psb_repair_options as_is = psb_default_repair_options();
    as_is.fix_orientation = false;
    check_refused(inside_out, &as_is, "negative volume: it is inside out");
    CHECK_CLOSE(check_loads(inside_out, NULL, 1, &r), 1.0, 1e-15);
    CHECK(r.components_flipped == 1, "inside out: %d components flipped", r.components_flipped);
    // The cube with its first triangle flipped.
    snprintf(text, sizeof text,
             "%sf 1 2 3\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\n"
             "f 3 4 8\nf 3 8 7\nf 1 5 8\nf 1 8 4\nf 2 3 7\nf 2 7 6\n",
             cube_v);
    const char *conflict = write_file("test_repair_conflict.obj", text);
    check_refused(conflict, &as_is,
                  "3 orientation conflicts (edges walked the same way by two "
                  "faces), e.g. between points at");
    check_refused(conflict, &as_is, "turn on orientation repair");
    CHECK_CLOSE(check_loads(conflict, NULL, 1, &r), 1.0, 1e-15);
    CHECK(r.faces_flipped == 1, "conflict: %d faces flipped", r.faces_flipped);

    // Two cubes in one file: two bodies.
    snprintf(text, sizeof text,
             "%sv 3 0 0\nv 4 0 0\nv 4 1 0\nv 3 1 0\nv 3 0 1\nv 4 0 1\nv 4 1 1\nv 3 1 1\n"
             "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 3 4 8 7\nf 1 5 8 4\nf 2 3 7 6\n"
             "f 9 12 11 10\nf 13 14 15 16\nf 9 10 14 13\nf 11 12 16 15\nf 9 13 16 12\n"
             "f 10 11 15 14\n",
             cube_v);
    const char *two = write_file("test_repair_two.obj", text);
    CHECK_CLOSE(check_loads(two, NULL, 2, &r), 2.0, 1e-15);

    // Errors from the parser pass through, outputs empty.
    psb_mesh *parts = (psb_mesh *)&parts;
    int count = -1;
    psb_error err;
    CHECK(psb_mesh_load_obj("test_repair_missing.obj", NULL, &parts, &count, &r, NULL, &err) ==
                  PSB_ERR_IO &&
              parts == NULL && count == 0 && strstr(err.message, "test_repair_missing.obj"),
          "missing file: %s", err.message);
    CHECK(psb_mesh_load_obj(NULL, NULL, &parts, &count, NULL, NULL, &err) == PSB_ERR_INVALID,
          "NULL path");
    CHECK(psb_mesh_load_obj(open, NULL, NULL, &count, NULL, NULL, &err) == PSB_ERR_INVALID,
          "NULL parts");

    const char *files[] = {open, quads, pinched, sheet, inside_out, conflict, two};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        remove(files[i]);
    }
}

int main(void) {
    test_weld();
    test_weld_tolerance();
    test_drops();
    test_mirror_duplicates();
    test_orientation();
    test_open_cube();
    test_icosphere_holes();
    test_torus_hole();
    test_fit();
    test_split();
    test_topology_holes();
    test_bad_input();
    test_load();
    return check_done("test_repair");
}
