// Mesh generators and the topology report: counts, closedness, genus,
// analytic volumes and their convergence, defects, and every bad argument.
#include "check.h"
#include <psb/psb_mesh.h>

#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

// Topology of a mesh, failing the test if the call itself fails.
static psb_topology topo(const psb_mesh *mesh) {
    psb_topology t;
    psb_error err;
    psb_status status = psb_mesh_topology(mesh, &t, &err);
    CHECK(status == PSB_OK, "psb_mesh_topology failed: %s", err.message);
    return t;
}

// Every face's area vector points away from `centre` of its own (the sphere's
// centre, or the tube's centre line for a torus): outward winding, face by face.
static int inward_faces(const psb_mesh *m, bool torus, double major_radius) {
    int bad = 0;
    for (int f = 0; f < m->triangle_count; f++) {
        const int *t = m->triangles + 3 * f;
        psb_vec3 a = m->points[t[0]], b = m->points[t[1]], c = m->points[t[2]];
        psb_vec3 u = {b.x - a.x, b.y - a.y, b.z - a.z}, v = {c.x - a.x, c.y - a.y, c.z - a.z};
        psb_vec3 n = {u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x};
        psb_vec3 g = {(a.x + b.x + c.x) / 3, (a.y + b.y + c.y) / 3, (a.z + b.z + c.z) / 3};
        if (torus) {
            double rho = sqrt(g.x * g.x + g.z * g.z);
            g.x -= major_radius * g.x / rho;
            g.z -= major_radius * g.z / rho;
        }
        bad += n.x * g.x + n.y * g.y + n.z * g.z <= 0.0;
    }
    return bad;
}

// A copy of a shell with its triangle list replaced.
static psb_mesh with_triangles(const psb_mesh *m, int *tris, int count) {
    psb_mesh copy = *m;
    copy.triangles = tris;
    copy.triangle_count = count;
    return copy;
}

static void test_icosphere(void) {
    double previous_error = INFINITY;
    for (int level = 0; level <= 7; level++) {
        psb_mesh m;
        psb_error err;
        double r = 1.5;
        CHECK(psb_mesh_icosphere(&m, level, r, &err) == PSB_OK, "level %d: %s", level, err.message);
        long long scale = 1LL << (2 * level);
        CHECK(m.kind == PSB_SHELL, "level %d kind", level);
        CHECK(m.point_count == 10 * scale + 2, "level %d: %d points", level, m.point_count);
        CHECK(m.triangle_count == 20 * scale, "level %d: %d triangles", level, m.triangle_count);
        psb_topology t = topo(&m);
        CHECK(t.edges == 30 * scale, "level %d: %d edges", level, t.edges);
        CHECK(t.closed && t.oriented, "level %d not closed", level);
        CHECK(t.border_edges == 0 && t.nonmanifold_edges == 0 && t.orientation_conflicts == 0,
              "level %d: %d border, %d nonmanifold, %d conflicts", level, t.border_edges,
              t.nonmanifold_edges, t.orientation_conflicts);
        CHECK(t.euler == 2 && t.genus == 0 && t.components == 1 && t.unused_vertices == 0,
              "level %d: euler %d genus %d components %d unused %d", level, t.euler, t.genus,
              t.components, t.unused_vertices);
        CHECK(inward_faces(&m, false, 0.0) == 0, "level %d has inward faces", level);
        double worst = 0.0;
        for (int i = 0; i < m.point_count; i++) {
            psb_vec3 p = m.points[i];
            double d = fabs(sqrt(p.x * p.x + p.y * p.y + p.z * p.z) - r);
            worst = d > worst ? d : worst;
        }
        CHECK(worst < 1e-12, "level %d: a point is %g m off the sphere", level, worst);
        // The inscribed polyhedron's volume rises toward 4/3 pi r^3, error ~ 1/4 per level.
        double exact = 4.0 / 3.0 * pi * r * r * r;
        double error = exact - psb_mesh_volume(&m);
        CHECK(error > 0.0 && error < previous_error, "level %d: volume error %g after %g", level,
              error, previous_error);
        if (level > 1) {
            CHECK(error < 0.3 * previous_error, "level %d: error %g after %g: too slow", level,
                  error, previous_error);
        }
        CHECK_CLOSE(t.volume, psb_mesh_volume(&m), 1e-15);
        previous_error = error;
        psb_mesh_free(&m);
    }
    CHECK(previous_error / (4.0 / 3.0 * pi * 1.5 * 1.5 * 1.5) < 1e-3, "level 7 error %g",
          previous_error);
}

static void test_icosphere_level8(void) {
    psb_mesh m;
    CHECK(psb_mesh_icosphere(&m, 8, 1.0, NULL) == PSB_OK, "level 8");
    CHECK(m.point_count == 655362 && m.triangle_count == 1310720, "level 8: %d points %d tris",
          m.point_count, m.triangle_count);
    psb_topology t = topo(&m);
    CHECK(t.closed && t.genus == 0 && t.edges == 1966080, "level 8: closed %d genus %d edges %d",
          t.closed, t.genus, t.edges);
    psb_mesh_free(&m);
}

static void test_box(void) {
    const psb_vec3 halves[] = {{1, 1, 1}, {0.5, 0.5, 0.5}, {0.3, 1.7, 2.5}};
    const int segments[] = {1, 2, 3, 7, 16};
    for (size_t h = 0; h < sizeof halves / sizeof *halves; h++) {
        for (size_t s = 0; s < sizeof segments / sizeof *segments; s++) {
            int n = segments[s];
            psb_vec3 half = halves[h];
            psb_mesh m;
            psb_error err;
            CHECK(psb_mesh_box(&m, n, half, &err) == PSB_OK, "box %d: %s", n, err.message);
            CHECK(m.point_count == 6 * n * n + 2, "box %d: %d points, not welded?", n,
                  m.point_count);
            CHECK(m.triangle_count == 12 * n * n, "box %d: %d triangles", n, m.triangle_count);
            psb_topology t = topo(&m);
            CHECK(t.closed && t.genus == 0 && t.euler == 2 && t.components == 1 &&
                      t.unused_vertices == 0,
                  "box %d: closed %d genus %d euler %d components %d unused %d", n, t.closed,
                  t.genus, t.euler, t.components, t.unused_vertices);
            CHECK(inward_faces(&m, false, 0.0) == 0, "box %d has inward faces", n);
            CHECK_CLOSE(psb_mesh_volume(&m), 8.0 * half.x * half.y * half.z, 1e-13);
            // Every point on the surface, inside the box.
            int off = 0;
            for (int i = 0; i < m.point_count; i++) {
                psb_vec3 p = m.points[i];
                bool on = fabs(p.x) == half.x || fabs(p.y) == half.y || fabs(p.z) == half.z;
                bool in = fabs(p.x) <= half.x && fabs(p.y) <= half.y && fabs(p.z) <= half.z;
                off += !(on && in);
            }
            CHECK(off == 0, "box %d: %d points off the surface", n, off);
            psb_mesh_free(&m);
        }
    }
    // The unit cube, exactly.
    psb_mesh m;
    CHECK(psb_mesh_box(&m, 4, (psb_vec3){0.5, 0.5, 0.5}, NULL) == PSB_OK, "unit cube");
    CHECK_CLOSE(psb_mesh_volume(&m), 1.0, 1e-15);
    psb_mesh_free(&m);
}

static void test_torus(void) {
    double big_r = 2.0, small_r = 0.5;
    double exact = 2.0 * pi * pi * big_r * small_r * small_r;
    double previous_error = INFINITY;
    for (int n = 8; n <= 256; n *= 2) {
        psb_mesh m;
        psb_error err;
        CHECK(psb_mesh_torus(&m, 2 * n, n, big_r, small_r, &err) == PSB_OK, "torus %d: %s", n,
              err.message);
        CHECK(m.point_count == 2 * n * n && m.triangle_count == 4 * n * n,
              "torus %d: %d points %d triangles", n, m.point_count, m.triangle_count);
        psb_topology t = topo(&m);
        CHECK(t.closed && t.genus == 1 && t.euler == 0 && t.components == 1,
              "torus %d: closed %d genus %d euler %d components %d", n, t.closed, t.genus, t.euler,
              t.components);
        CHECK(inward_faces(&m, true, big_r) == 0, "torus %d has inward faces", n);
        double error = fabs(psb_mesh_volume(&m) - exact);
        CHECK(error < 0.3 * previous_error, "torus %d: volume error %g after %g", n, error,
              previous_error);
        previous_error = error;
        psb_mesh_free(&m);
    }
    CHECK(previous_error / exact < 5e-4, "torus volume error %g", previous_error / exact);
}

static void test_uvsphere(void) {
    const int sizes[][2] = {{2, 3}, {3, 4}, {8, 16}, {32, 64}, {64, 128}};
    double previous_error = INFINITY;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int stacks = sizes[k][0], slices = sizes[k][1];
        psb_mesh m;
        psb_error err;
        CHECK(psb_mesh_uvsphere(&m, stacks, slices, 2.0, &err) == PSB_OK, "uv %d x %d: %s", stacks,
              slices, err.message);
        CHECK(m.point_count == (stacks - 1) * slices + 2, "uv %d x %d: %d points", stacks, slices,
              m.point_count);
        psb_topology t = topo(&m);
        CHECK(t.closed && t.genus == 0 && t.euler == 2 && t.components == 1,
              "uv %d x %d: closed %d genus %d euler %d", stacks, slices, t.closed, t.genus,
              t.euler);
        CHECK(inward_faces(&m, false, 0.0) == 0, "uv %d x %d has inward faces", stacks, slices);
        double error = 4.0 / 3.0 * pi * 8.0 - psb_mesh_volume(&m);
        CHECK(error > 0.0 && error < previous_error, "uv %d x %d: volume error %g", stacks, slices,
              error);
        previous_error = error;
        psb_mesh_free(&m);
    }
}

static void test_ring(void) {
    double r = 0.7, previous_error = INFINITY;
    for (int n = 3; n <= 3 * 1024; n *= 2) {
        psb_mesh m;
        psb_error err;
        CHECK(psb_mesh_ring(&m, n, r, &err) == PSB_OK, "ring %d: %s", n, err.message);
        CHECK(m.kind == PSB_RING && m.point_count == n && m.triangles == NULL &&
                  m.triangle_count == 0,
              "ring %d layout", n);
        CHECK(m.points[0].x == r && m.points[0].y == 0.0, "ring %d starts on +x", n);
        CHECK(m.points[1].y > 0.0, "ring %d is not counter-clockwise", n);
        int off_plane = 0;
        for (int i = 0; i < n; i++) {
            off_plane += m.points[i].z != 0.0;
        }
        CHECK(off_plane == 0, "ring %d: %d points off z = 0", n, off_plane);
        // Regular N-gon: A = N/2 r^2 sin(2 pi / N), rising toward pi r^2.
        double area = psb_mesh_volume(&m);
        CHECK_CLOSE(area, 0.5 * n * r * r * sin(2.0 * pi / n), 1e-13);
        double error = pi * r * r - area;
        CHECK(error > 0.0 && error < previous_error, "ring %d: area error %g", n, error);
        previous_error = error;
        psb_topology t = topo(&m);
        CHECK(t.vertices == n && t.faces == 0 && t.edges == n && t.border_edges == 0 &&
                  t.nonmanifold_edges == 0 && t.unused_vertices == 0 && t.components == 1 &&
                  t.euler == 0 && t.genus == 0 && t.oriented && t.closed,
              "ring %d topology", n);
        CHECK_CLOSE(t.volume, area, 1e-15);

        // Clockwise: negative area, not closed.
        for (int i = 0; i < n / 2; i++) {
            psb_vec3 swap = m.points[i];
            m.points[i] = m.points[n - 1 - i];
            m.points[n - 1 - i] = swap;
        }
        CHECK_CLOSE(psb_mesh_volume(&m), -area, 1e-13);
        t = topo(&m);
        CHECK(!t.closed && t.genus == -1, "clockwise ring %d reported closed", n);
        psb_mesh_free(&m);
    }
    CHECK(previous_error / (pi * r * r) < 1e-5, "ring area error %g", previous_error);
}

static void test_translation(void) {
    psb_mesh m;
    CHECK(psb_mesh_icosphere(&m, 3, 1.0, NULL) == PSB_OK, "icosphere");
    double v0 = psb_mesh_volume(&m);
    for (int i = 0; i < m.point_count; i++) {
        m.points[i].x += 10.0;
        m.points[i].y -= 20.0;
        m.points[i].z += 30.0;
    }
    CHECK_CLOSE(psb_mesh_volume(&m), v0, 1e-11);
    psb_mesh_free(&m);

    psb_mesh ring;
    CHECK(psb_mesh_ring(&ring, 40, 1.0, NULL) == PSB_OK, "ring");
    double a0 = psb_mesh_volume(&ring);
    for (int i = 0; i < ring.point_count; i++) {
        ring.points[i].x -= 5.0;
        ring.points[i].y += 7.0;
    }
    CHECK_CLOSE(psb_mesh_volume(&ring), a0, 1e-12);
    psb_mesh_free(&ring);
}

static void test_tetrahedron(void) {
    // (0,0,0), (1,0,0), (0,1,0), (0,0,1), faces wound outward: V = 1/6.
    psb_vec3 points[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    int tris[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    psb_mesh m = {PSB_SHELL, points, 4, tris, 4, NULL, 0};
    CHECK(psb_mesh_volume(&m) == 1.0 / 6.0, "unit tetrahedron volume %.17g", psb_mesh_volume(&m));
    psb_topology t = topo(&m);
    CHECK(t.closed && t.genus == 0 && t.euler == 2 && t.edges == 6, "tetrahedron topology");
    // Scaled by (2, 3, 4) and moved: V = 24 / 6 = 4.
    for (int i = 0; i < 4; i++) {
        points[i] = (psb_vec3){2 * points[i].x - 1.25, 3 * points[i].y + 0.5, 4 * points[i].z + 3};
    }
    CHECK_CLOSE(psb_mesh_volume(&m), 4.0, 1e-14);
    // Inside out: -4, not closed, but still oriented and manifold.
    for (int f = 0; f < 4; f++) {
        int swap = tris[3 * f + 1];
        tris[3 * f + 1] = tris[3 * f + 2];
        tris[3 * f + 2] = swap;
    }
    CHECK_CLOSE(psb_mesh_volume(&m), -4.0, 1e-14);
    t = topo(&m);
    CHECK(!t.closed && t.oriented && t.border_edges == 0 && t.genus == -1,
          "inside-out tetrahedron: closed %d oriented %d", t.closed, t.oriented);
}

static void test_defects(void) {
    psb_mesh m;
    CHECK(psb_mesh_icosphere(&m, 2, 1.0, NULL) == PSB_OK, "icosphere");
    int f = m.triangle_count;
    int *tris = malloc((size_t)(f + 1) * 3 * sizeof *tris);
    CHECK(tris != NULL, "malloc");
    if (!tris) {
        return;
    }

    // One triangle removed: a hole with three border edges.
    memcpy(tris, m.triangles, (size_t)f * 3 * sizeof *tris);
    psb_mesh holed = with_triangles(&m, tris, f - 1);
    psb_topology t = topo(&holed);
    CHECK(t.border_edges == 3 && !t.closed && t.genus == -1 && t.oriented && t.euler == 1,
          "hole: border %d closed %d genus %d euler %d", t.border_edges, t.closed, t.genus,
          t.euler);

    // One triangle flipped: its three edges are walked twice the same way.
    memcpy(tris, m.triangles, (size_t)f * 3 * sizeof *tris);
    int swap = tris[1];
    tris[1] = tris[2];
    tris[2] = swap;
    psb_mesh flipped = with_triangles(&m, tris, f);
    t = topo(&flipped);
    CHECK(t.orientation_conflicts == 3 && !t.oriented && !t.closed && t.border_edges == 0,
          "flipped: conflicts %d oriented %d closed %d", t.orientation_conflicts, t.oriented,
          t.closed);

    // One triangle duplicated: three edges with three faces each.
    memcpy(tris, m.triangles, (size_t)f * 3 * sizeof *tris);
    memcpy(tris + 3 * f, m.triangles, 3 * sizeof *tris);
    psb_mesh doubled = with_triangles(&m, tris, f + 1);
    t = topo(&doubled);
    CHECK(t.nonmanifold_edges == 3 && t.orientation_conflicts == 3 && !t.closed,
          "duplicated: nonmanifold %d conflicts %d closed %d", t.nonmanifold_edges,
          t.orientation_conflicts, t.closed);

    // A degenerate triangle (repeated corner) is reported, never crashes.
    memcpy(tris, m.triangles, (size_t)f * 3 * sizeof *tris);
    tris[3 * f] = 0;
    tris[3 * f + 1] = 0;
    tris[3 * f + 2] = 1;
    psb_mesh degenerate = with_triangles(&m, tris, f + 1);
    t = topo(&degenerate);
    CHECK(!t.closed, "a degenerate triangle left the mesh closed");

    // An index out of range is refused with a message naming the triangle.
    memcpy(tris, m.triangles, (size_t)f * 3 * sizeof *tris);
    tris[3 * 5 + 1] = m.point_count;
    psb_mesh broken = with_triangles(&m, tris, f);
    psb_error err;
    memset(&t, 0xab, sizeof t);
    CHECK(psb_mesh_topology(&broken, &t, &err) == PSB_ERR_INVALID, "out-of-range index accepted");
    CHECK(err.status == PSB_ERR_INVALID && strstr(err.message, "triangle 5"), "message: %s",
          err.message);
    CHECK(t.faces == 0 && t.vertices == 0 && !t.closed, "report not zeroed on failure");
    tris[3 * 5 + 1] = -1;
    CHECK(psb_mesh_topology(&broken, &t, NULL) == PSB_ERR_INVALID, "negative index accepted");
    psb_mesh_volume(&broken); // skips the bad triangle, no crash

    // An extra point no face uses.
    psb_vec3 *points = malloc((size_t)(m.point_count + 1) * sizeof *points);
    CHECK(points != NULL, "malloc");
    if (points) {
        memcpy(points, m.points, (size_t)m.point_count * sizeof *points);
        points[m.point_count] = (psb_vec3){5, 5, 5};
        psb_mesh extra = {PSB_SHELL, points, m.point_count + 1, m.triangles, f, NULL, 0};
        t = topo(&extra);
        CHECK(t.unused_vertices == 1 && t.components == 1 && t.euler == 2 && t.closed,
              "unused point: unused %d components %d euler %d", t.unused_vertices, t.components,
              t.euler);
        free(points);
    }
    free(tris);
    psb_mesh_free(&m);

    // Empty meshes are fine.
    psb_mesh empty = {PSB_SHELL, NULL, 0, NULL, 0, NULL, 0};
    t = topo(&empty);
    CHECK(t.vertices == 0 && t.edges == 0 && t.components == 0 && !t.closed, "empty shell");
    psb_mesh empty_ring = {PSB_RING, NULL, 0, NULL, 0, NULL, 0};
    t = topo(&empty_ring);
    CHECK(!t.closed && t.components == 0, "empty ring");
    CHECK(psb_mesh_volume(&empty) == 0.0 && psb_mesh_volume(NULL) == 0.0, "empty volume");
}

static void test_two_spheres(void) {
    psb_mesh a, b;
    CHECK(psb_mesh_icosphere(&a, 2, 1.0, NULL) == PSB_OK, "a");
    CHECK(psb_mesh_icosphere(&b, 1, 0.5, NULL) == PSB_OK, "b");
    int v = a.point_count + b.point_count, f = a.triangle_count + b.triangle_count;
    psb_vec3 *points = malloc((size_t)v * sizeof *points);
    int *tris = malloc((size_t)f * 3 * sizeof *tris);
    CHECK(points && tris, "malloc");
    if (points && tris) {
        memcpy(points, a.points, (size_t)a.point_count * sizeof *points);
        for (int i = 0; i < b.point_count; i++) {
            psb_vec3 p = b.points[i];
            points[a.point_count + i] = (psb_vec3){p.x + 3.0, p.y, p.z};
        }
        memcpy(tris, a.triangles, (size_t)a.triangle_count * 3 * sizeof *tris);
        for (int i = 0; i < 3 * b.triangle_count; i++) {
            tris[3 * a.triangle_count + i] = b.triangles[i] + a.point_count;
        }
        psb_mesh both = {PSB_SHELL, points, v, tris, f, NULL, 0};
        psb_topology t = topo(&both);
        CHECK(t.components == 2 && t.genus == 0 && t.euler == 4 && t.closed,
              "two spheres: components %d genus %d euler %d closed %d", t.components, t.genus,
              t.euler, t.closed);
        CHECK_CLOSE(t.volume, psb_mesh_volume(&a) + psb_mesh_volume(&b), 1e-13);
    }
    free(points);
    free(tris);
    psb_mesh_free(&a);
    psb_mesh_free(&b);

    // A sphere and a torus: genus 0 + 1.
    psb_mesh s, r;
    CHECK(psb_mesh_icosphere(&s, 1, 1.0, NULL) == PSB_OK, "s");
    CHECK(psb_mesh_torus(&r, 12, 6, 1.0, 0.3, NULL) == PSB_OK, "torus");
    v = s.point_count + r.point_count;
    f = s.triangle_count + r.triangle_count;
    points = malloc((size_t)v * sizeof *points);
    tris = malloc((size_t)f * 3 * sizeof *tris);
    if (points && tris) {
        memcpy(points, s.points, (size_t)s.point_count * sizeof *points);
        for (int i = 0; i < r.point_count; i++) {
            psb_vec3 p = r.points[i];
            points[s.point_count + i] = (psb_vec3){p.x, p.y + 5.0, p.z};
        }
        memcpy(tris, s.triangles, (size_t)s.triangle_count * 3 * sizeof *tris);
        for (int i = 0; i < 3 * r.triangle_count; i++) {
            tris[3 * s.triangle_count + i] = r.triangles[i] + s.point_count;
        }
        psb_mesh both = {PSB_SHELL, points, v, tris, f, NULL, 0};
        psb_topology t = topo(&both);
        CHECK(t.components == 2 && t.genus == 1 && t.euler == 2 && t.closed,
              "sphere + torus: components %d genus %d euler %d", t.components, t.genus, t.euler);
    }
    free(points);
    free(tris);
    psb_mesh_free(&s);
    psb_mesh_free(&r);
}

// Calls that must fail with PSB_ERR_INVALID, a message naming `name`, and a
// zeroed mesh (it is filled with garbage first).
#define CHECK_BAD(call, name)                                                                      \
    do {                                                                                           \
        psb_mesh m;                                                                                \
        psb_error err = {PSB_OK, ""};                                                              \
        memset(&m, 0xab, sizeof m);                                                                \
        psb_status status = (call);                                                                \
        CHECK(status == PSB_ERR_INVALID, "%s returned %d", #call, (int)status);                    \
        CHECK(err.status == PSB_ERR_INVALID, "%s: err.status %d", #call, (int)err.status);         \
        CHECK(strstr(err.message, name) != NULL, "%s: message '%s' does not name %s", #call,       \
              err.message, name);                                                                  \
        CHECK(m.points == NULL && m.triangles == NULL && m.point_count == 0 &&                     \
                  m.triangle_count == 0,                                                           \
              "%s left the mesh half-made", #call);                                                \
    } while (0)

static void test_bad_arguments(void) {
    CHECK_BAD(psb_mesh_icosphere(&m, -1, 1.0, &err), "level");
    CHECK_BAD(psb_mesh_icosphere(&m, 9, 1.0, &err), "level");
    CHECK_BAD(psb_mesh_icosphere(&m, 2, -1.0, &err), "radius");
    CHECK_BAD(psb_mesh_icosphere(&m, 2, 0.0, &err), "radius");
    CHECK_BAD(psb_mesh_icosphere(&m, 2, NAN, &err), "radius");
    CHECK_BAD(psb_mesh_icosphere(&m, 2, INFINITY, &err), "radius");
    CHECK_BAD(psb_mesh_ring(&m, 2, 1.0, &err), "points");
    CHECK_BAD(psb_mesh_ring(&m, -5, 1.0, &err), "points");
    CHECK_BAD(psb_mesh_ring(&m, 8, -2.0, &err), "radius");
    CHECK_BAD(psb_mesh_ring(&m, 8, NAN, &err), "radius");
    CHECK_BAD(psb_mesh_uvsphere(&m, 1, 8, 1.0, &err), "stacks");
    CHECK_BAD(psb_mesh_uvsphere(&m, 4, 2, 1.0, &err), "slices");
    CHECK_BAD(psb_mesh_uvsphere(&m, 4, 8, -1.0, &err), "radius");
    CHECK_BAD(psb_mesh_uvsphere(&m, 4, 8, NAN, &err), "radius");
    CHECK_BAD(psb_mesh_box(&m, 0, ((psb_vec3){1, 1, 1}), &err), "segments");
    CHECK_BAD(psb_mesh_box(&m, 1 << 30, ((psb_vec3){1, 1, 1}), &err), "segments");
    CHECK_BAD(psb_mesh_box(&m, 2, ((psb_vec3){-1, 1, 1}), &err), "half.x");
    CHECK_BAD(psb_mesh_box(&m, 2, ((psb_vec3){1, 0, 1}), &err), "half.y");
    CHECK_BAD(psb_mesh_box(&m, 2, ((psb_vec3){1, 1, NAN}), &err), "half.z");
    CHECK_BAD(psb_mesh_torus(&m, 2, 8, 1.0, 0.5, &err), "major");
    CHECK_BAD(psb_mesh_torus(&m, 8, 2, 1.0, 0.5, &err), "minor");
    CHECK_BAD(psb_mesh_torus(&m, 8, 8, 1.0, 1.0, &err), "minor_radius");
    CHECK_BAD(psb_mesh_torus(&m, 8, 8, 1.0, 2.0, &err), "minor_radius");
    CHECK_BAD(psb_mesh_torus(&m, 8, 8, -1.0, 0.5, &err), "major_radius");
    CHECK_BAD(psb_mesh_torus(&m, 8, 8, 1.0, -0.5, &err), "minor_radius");
    CHECK_BAD(psb_mesh_torus(&m, 8, 8, NAN, 0.5, &err), "major_radius");
    CHECK_BAD(psb_mesh_torus(&m, 8, 8, 1.0, NAN, &err), "minor_radius");
    // Too many triangles for int indices: refused, not overflowed.
    CHECK_BAD(psb_mesh_torus(&m, 1 << 20, 1 << 20, 1.0, 0.5, &err), "triangles");
    CHECK_BAD(psb_mesh_uvsphere(&m, 1 << 20, 1 << 20, 1.0, &err), "triangles");

    // err may be NULL; out may not.
    psb_mesh m;
    CHECK(psb_mesh_icosphere(&m, -1, 1.0, NULL) == PSB_ERR_INVALID, "NULL err");
    psb_error err;
    CHECK(psb_mesh_ring(NULL, 8, 1.0, &err) == PSB_ERR_INVALID && strstr(err.message, "out"),
          "NULL out: %s", err.message);
    psb_topology t;
    CHECK(psb_mesh_topology(NULL, &t, &err) == PSB_ERR_INVALID, "NULL mesh");
    psb_mesh bad_count = {PSB_SHELL, NULL, 5, NULL, 0, NULL, 0};
    CHECK(psb_mesh_topology(&bad_count, &t, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "point_count"),
          "points NULL with count 5: %s", err.message);
}

static void test_free_and_def(void) {
    psb_mesh m;
    CHECK(psb_mesh_icosphere(&m, 1, 1.0, NULL) == PSB_OK, "icosphere");
    psb_body_def def = psb_mesh_body_def(&m);
    psb_body_def plain = psb_default_body_def();
    CHECK(def.kind == PSB_SHELL && def.points == m.points && def.point_count == 42 &&
              def.triangles == m.triangles && def.triangle_count == 80,
          "shell body def");
    CHECK(def.params.mass == plain.params.mass && def.params.spring_k == plain.params.spring_k &&
              def.params.gas_nrt == plain.params.gas_nrt,
          "body def material is not the default");
    psb_mesh_free(&m);
    CHECK(m.points == NULL && m.triangles == NULL && m.point_count == 0 && m.triangle_count == 0,
          "free did not zero");
    psb_mesh_free(&m); // twice is fine
    psb_mesh_free(NULL);

    psb_mesh ring;
    CHECK(psb_mesh_ring(&ring, 12, 1.0, NULL) == PSB_OK, "ring");
    def = psb_mesh_body_def(&ring);
    CHECK(def.kind == PSB_RING && def.points == ring.points && def.point_count == 12 &&
              def.triangles == NULL && def.triangle_count == 0,
          "ring body def");
    psb_mesh_free(&ring);
}

int main(void) {
    test_icosphere();
    test_icosphere_level8();
    test_box();
    test_torus();
    test_uvsphere();
    test_ring();
    test_translation();
    test_tetrahedron();
    test_defects();
    test_two_spheres();
    test_bad_arguments();
    test_free_and_def();
    return check_done("test_mesh");
}
