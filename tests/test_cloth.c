// Cloth bodies (PSB_CLOTH, psb_mesh_cloth) and pinned points, through the
// public API.
//
// - Construction: a columns x rows cloth has columns * rows points,
//   2 (columns - 1)(rows - 1) triangles and, as a body, the springs of a
//   mass-spring cloth: structural rows (columns - 1) + columns (rows - 1),
//   shear 2 (columns - 1)(rows - 1), bend rows (columns - 2) + columns
//   (rows - 2), each at its rest length (the grid spacing, the diagonal,
//   twice the spacing); springs given twice, or also a triangle's edge,
//   count once. A cloth encloses nothing: volume, pressure and gas are 0.
// - Bad definitions are refused with a message that names the field, and
//   change nothing: gas or an outside pressure on a cloth, spring indices
//   out of range or repeated, a point no spring or triangle uses, springs on
//   a shell or a ring, too few points, a NULL spring array; bad cloth sizes.
//   psb_body_set_params refuses gas on a cloth as well.
// - A flag pinned at its two left corners hangs under gravity for 10 s
//   without blowing up or leaving its pins' reach, its pinned points never
//   move (the same bits), with every integrator; free, the same flag falls
//   with momentum -M g t. Undamped, a pinned flag keeps its energy (the pins
//   do no work, and pinned points are left out of the gravity energy).
// - Pins through the API: counts, is_pinned, moving a pin by pinning again,
//   unpinning (the point falls again, an impulse moves it), impulses on a
//   pinned point do nothing, psb_body_set_state moves the pins and keeps them
//   at rest, psb_body_reset keeps them, a blow-up's recovery keeps them;
//   pins on a ring (z = 0) and on a shell hold too.
// - Threads: a pinned cloth of 5120 points gives the same bits with 1 and 2
//   threads (memcmp), and is shared out like a shell of its size.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

// ---- construction

static void check_counts(int columns, int rows, double width, double height) {
    char what[64];
    snprintf(what, sizeof what, "cloth %d x %d", columns, rows);
    psb_mesh m;
    psb_error err = {0};
    CHECK(psb_mesh_cloth(&m, columns, rows, width, height, &err) == PSB_OK, "%s: %s", what,
          err.message);
    const int squares = (columns - 1) * (rows - 1);
    const int structural = rows * (columns - 1) + columns * (rows - 1);
    const int shear = 2 * squares;
    const int bend = rows * (columns - 2) + columns * (rows - 2);
    CHECK(m.kind == PSB_CLOTH, "%s: kind %d", what, (int)m.kind);
    CHECK(m.point_count == columns * rows, "%s: %d points", what, m.point_count);
    CHECK(m.triangle_count == 2 * squares, "%s: %d triangles, expected %d", what, m.triangle_count,
          2 * squares);
    // The triangles carry the structural springs and one diagonal per square.
    CHECK(m.spring_count == squares + bend, "%s: %d extra springs, expected %d", what,
          m.spring_count, squares + bend);
    // Point r * columns + c at (width c / (columns - 1), -height r / (rows - 1), 0).
    const double dx = width / (columns - 1), dy = height / (rows - 1);
    double worst = 0.0;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < columns; c++) {
            const psb_vec3 p = m.points[r * columns + c];
            worst = fmax(worst, norm(sub(p, (psb_vec3){c * dx, -r * dy, 0.0})));
        }
    }
    CHECK(worst <= 1e-12, "%s: a point is %.3g m from its grid place", what, worst);
    // Triangles wound toward +z.
    int wrong = 0;
    for (int t = 0; t < m.triangle_count; t++) {
        const psb_vec3 a = m.points[m.triangles[3 * t]], b = m.points[m.triangles[3 * t + 1]];
        const psb_vec3 c = m.points[m.triangles[3 * t + 2]];
        const psb_vec3 u = sub(b, a), v = sub(c, a);
        wrong += !(u.x * v.y - u.y * v.x > 0.0);
    }
    CHECK(wrong == 0, "%s: %d triangles not wound toward +z", what, wrong);

    psb_params p = psb_default_params();
    psb_world *w = make_world(&p);
    psb_body_def def = psb_mesh_body_def(&m);
    CHECK(def.params.gas_nrt == 0.0, "%s: psb_mesh_body_def gives a cloth gas %g J", what,
          def.params.gas_nrt);
    const int id = w ? psb_world_add_body(w, &def, &err) : -1;
    CHECK(id == 0, "%s: add_body: %s", what, err.message);
    if (id == 0) {
        int count = 0;
        const int *edges = psb_body_edges(w, id, &count);
        const double *rest = psb_body_rest_lengths(w, id);
        CHECK(count == structural + shear + bend, "%s: %d springs, expected %d + %d + %d", what,
              count, structural, shear, bend);
        // Sort the springs by their rest length into the three kinds.
        const double diagonal = sqrt(dx * dx + dy * dy);
        int along = 0, across = 0, twice = 0, other = 0;
        for (int s = 0; s < count; s++) {
            const double l = rest[s];
            const psb_vec3 a = m.points[edges[2 * s]], b = m.points[edges[2 * s + 1]];
            if (fabs(l - norm(sub(a, b))) > 1e-12) {
                other++;
            } else if (fabs(l - dx) < 1e-12 || fabs(l - dy) < 1e-12) {
                along++;
            } else if (fabs(l - diagonal) < 1e-12) {
                across++;
            } else if (fabs(l - 2.0 * dx) < 1e-12 || fabs(l - 2.0 * dy) < 1e-12) {
                twice++;
            } else {
                other++;
            }
        }
        // (When 2 dx = dy a bend spring looks structural; the sizes below avoid it.)
        CHECK(along == structural && across == shear && twice == bend && other == 0,
              "%s: %d structural, %d shear, %d bend, %d other springs; expected %d, %d, %d", what,
              along, across, twice, other, structural, shear, bend);
        int tris = 0;
        psb_body_triangles(w, id, &tris);
        CHECK(tris == m.triangle_count, "%s: body has %d triangles", what, tris);
        const psb_body_state s = psb_body_measure(w, id);
        CHECK(s.volume == 0.0 && s.rest_volume == 0.0 && s.pressure == 0.0 && s.gas == 0.0 &&
                  s.gas_nrt == 0.0,
              "%s: a cloth encloses nothing: volume %g, rest %g, pressure %g, gas %g J", what,
              s.volume, s.rest_volume, s.pressure, s.gas);
        CHECK(s.pinned == 0 && psb_body_pin_count(w, id) == 0, "%s: pinned from the start", what);
    }
    psb_world_destroy(w);

    psb_mesh_free(&m);
}

static void test_construction(void) {
    check_counts(2, 2, 1.0, 1.0);
    check_counts(3, 2, 1.0, 0.5);
    check_counts(5, 4, 1.0, 0.9);
    check_counts(10, 7, 1.8, 1.1);
    psb_mesh m;
    psb_error err = {0};
    CHECK(psb_mesh_cloth(&m, 1, 5, 1.0, 1.0, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "columns") && m.points == NULL,
          "cloth of 1 column: %s", err.message);
    CHECK(psb_mesh_cloth(&m, 4, 0, 1.0, 1.0, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "rows"),
          "cloth of 0 rows: %s", err.message);
    CHECK(psb_mesh_cloth(&m, 4, 4, 0.0, 1.0, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "width"),
          "cloth of width 0: %s", err.message);
    CHECK(psb_mesh_cloth(&m, 4, 4, 1.0, NAN, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "height"),
          "cloth of height NaN: %s", err.message);
}

// A rope and a bare net: a cloth needs no triangles, and springs given twice
// (or also a triangle's edge) are one spring.
static void test_springs_only(void) {
    psb_params p = psb_default_params();
    p.floor = false;
    p.body_contact = false; // the rope lies in the net's triangle: they would touch
    psb_world *w = make_world(&p);
    if (!w) {
        return;
    }
    const psb_vec3 points[4] = {{0, 0, 0}, {0.3, 0, 0}, {0.6, 0, 0}, {0.9, 0, 0}};
    const int springs[10] = {0, 1, 1, 2, 2, 3, 2, 1, 0, 2};
    psb_body_def def = psb_default_body_def();
    def.kind = PSB_CLOTH;
    def.points = points;
    def.point_count = 4;
    def.springs = springs;
    def.spring_count = 5;
    def.params.gas_nrt = 0.0;
    psb_error err = {0};
    const int rope = psb_world_add_body(w, &def, &err);
    CHECK(rope == 0, "rope: %s", err.message);
    int count = 0;
    if (rope == 0) {
        psb_body_edges(w, rope, &count);
        CHECK(count == 4, "rope: %d springs from 5 given with one twice, expected 4", count);
        psb_body_triangles(w, rope, &count);
        CHECK(count == 0, "rope: %d triangles", count);
    }
    // One triangle plus a spring along one of its edges, and one to a fourth point.
    const int tri[3] = {0, 1, 3};
    const int extra[4] = {3, 0, 2, 1};
    def.triangles = tri;
    def.triangle_count = 1;
    def.springs = extra;
    def.spring_count = 2;
    const psb_vec3 more[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}};
    def.points = more;
    const int net = psb_world_add_body(w, &def, &err);
    CHECK(net == 1, "triangle and springs: %s", err.message);
    if (net == 1) {
        psb_body_edges(w, net, &count);
        CHECK(count == 4, "triangle + a spring on its edge + one more: %d springs, expected 4",
              count);
    }
    // A rope falls as a whole, with momentum -M g t.
    for (int k = 0; k < 30; k++) {
        psb_world_step(w);
    }
    if (rope == 0) {
        const psb_body_state s = psb_body_measure(w, rope);
        const double want = -p.body.mass * p.gravity * psb_world_time(w);
        CHECK(fabs(s.momentum.y - want) <= 1e-9 * fabs(want),
              "falling rope: momentum %.12g, expected -M g t = %.12g", s.momentum.y, want);
    }
    psb_world_destroy(w);
}

// ---- bad definitions

// Tries to add def; it must be refused with PSB_ERR_INVALID and a message
// holding `needle`, and leave the world as it was.
static void expect_refused(psb_world *w, const psb_body_def *def, const char *needle,
                           const char *what) {
    const int before = psb_world_body_count(w);
    psb_error err = {0};
    const int id = psb_world_add_body(w, def, &err);
    CHECK(id == -1 && err.status == PSB_ERR_INVALID, "%s: accepted (id %d, status %d)", what, id,
          (int)err.status);
    CHECK(strstr(err.message, needle) != NULL, "%s: message '%s' does not mention '%s'", what,
          err.message, needle);
    CHECK(psb_world_body_count(w) == before, "%s: the world now has %d bodies", what,
          psb_world_body_count(w));
}

static void test_bad_definitions(void) {
    psb_params p = psb_default_params();
    psb_world *w = make_world(&p);
    psb_mesh cloth, sphere, ring;
    psb_error err = {0};
    CHECK(psb_mesh_cloth(&cloth, 4, 3, 1.0, 0.6, &err) == PSB_OK, "cloth: %s", err.message);
    CHECK(psb_mesh_icosphere(&sphere, 1, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    CHECK(psb_mesh_ring(&ring, 8, 0.5, &err) == PSB_OK, "ring: %s", err.message);
    if (!w) {
        psb_mesh_free(&cloth);
        psb_mesh_free(&sphere);
        psb_mesh_free(&ring);
        return;
    }
    psb_body_def def = psb_mesh_body_def(&cloth);
    def.params.gas_nrt = 10.0;
    expect_refused(w, &def, "gas", "gas in a cloth");
    expect_refused(w, &def, "cloth", "gas in a cloth (names the kind)");
    def = psb_mesh_body_def(&cloth);
    def.params.outside_pressure = 5.0;
    expect_refused(w, &def, "outside_pressure", "outside pressure on a cloth");

    int bad[2] = {0, 99};
    int springs[64];
    memcpy(springs, cloth.springs, (size_t)cloth.spring_count * 2 * sizeof *springs);
    def = psb_mesh_body_def(&cloth);
    def.springs = springs;
    springs[2 * 3 + 1] = 12;
    expect_refused(w, &def, "springs[3]", "a spring to point 12 of 12");
    expect_refused(w, &def, "12", "a spring to point 12 of 12 (names the index)");
    springs[2 * 3 + 1] = -1;
    expect_refused(w, &def, "springs[3]", "a spring to point -1");
    springs[2 * 3 + 1] = springs[2 * 3];
    expect_refused(w, &def, "springs[3]", "a spring from a point to itself");
    def.springs = NULL;
    expect_refused(w, &def, "springs", "spring_count > 0 with NULL springs");
    def = psb_mesh_body_def(&cloth);
    def.spring_count = -2;
    expect_refused(w, &def, "spring_count", "a negative spring count");
    def = psb_mesh_body_def(&cloth);
    int tris[64];
    memcpy(tris, cloth.triangles, (size_t)cloth.triangle_count * 3 * sizeof *tris);
    tris[4] = 40;
    def.triangles = tris;
    expect_refused(w, &def, "triangles[1]", "a triangle corner out of range");

    // A point no spring or triangle uses: the rope of three points and a
    // fourth left out.
    const psb_vec3 points[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 1, 0}};
    const int rope[4] = {0, 1, 1, 2};
    def = psb_default_body_def();
    def.kind = PSB_CLOTH;
    def.params.gas_nrt = 0.0;
    def.points = points;
    def.point_count = 4;
    def.springs = rope;
    def.spring_count = 2;
    expect_refused(w, &def, "points[3]", "a point used by nothing");
    def.point_count = 1;
    def.spring_count = 0;
    expect_refused(w, &def, "point_count", "a cloth of one point");

    // Springs on a shell or a ring.
    def = psb_mesh_body_def(&sphere);
    def.springs = bad;
    def.spring_count = 1;
    bad[1] = 5;
    expect_refused(w, &def, "springs", "extra springs on a shell");
    def = psb_mesh_body_def(&ring);
    def.springs = bad;
    def.spring_count = 1;
    expect_refused(w, &def, "springs", "extra springs on a ring");
    CHECK(psb_world_body_count(w) == 0, "bad definitions left %d bodies", psb_world_body_count(w));
    // The good ones still go in.
    def = psb_mesh_body_def(&cloth);
    CHECK(psb_world_add_body(w, &def, &err) == 0, "the cloth itself: %s", err.message);
    // Nor may a change of material give the cloth gas afterwards.
    psb_body_params gassy = def.params;
    gassy.gas_nrt = 10.0;
    const psb_status status = psb_body_set_params(w, 0, &gassy, &err);
    CHECK(status == PSB_ERR_INVALID && psb_body_get_params(w, 0)->gas_nrt == 0.0,
          "psb_body_set_params gave a cloth gas_nrt = %g (status %d), which psb_world_add_body "
          "refuses",
          psb_body_get_params(w, 0)->gas_nrt, (int)status);
    gassy.gas_nrt = 0.0;
    gassy.outside_pressure = 3.0;
    CHECK(psb_body_set_params(w, 0, &gassy, &err) == PSB_ERR_INVALID &&
              psb_body_get_params(w, 0)->outside_pressure == 0.0,
          "psb_body_set_params gave a cloth an outside pressure of %g",
          psb_body_get_params(w, 0)->outside_pressure);
    psb_world_destroy(w);
    psb_mesh_free(&cloth);
    psb_mesh_free(&sphere);
    psb_mesh_free(&ring);
}

// ---- a hanging flag

// A flag of 12 x 8 points, 1.2 m x 0.8 m, its top-left corner at (0, 2, 0),
// pinned at its two left corners; no floor. Sub-steps from the stability
// estimate.
static psb_world *flag_world(psb_integrator integrator, double kd, bool pinned, int *id_out) {
    psb_params p = psb_default_params();
    p.floor = false;
    p.walls = false;
    p.integrator = integrator;
    psb_world *w = make_world(&p);
    *id_out = -1;
    if (!w) {
        return NULL;
    }
    psb_mesh m;
    psb_error err = {0};
    CHECK(psb_mesh_cloth(&m, 12, 8, 1.2, 0.8, &err) == PSB_OK, "flag: %s", err.message);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = material(300.0, kd, 0.0);
    def.offset = (psb_vec3){0.0, 2.0, 0.0};
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "flag: %s", err.message);
    psb_mesh_free(&m);
    if (id != 0) {
        psb_world_destroy(w);
        return NULL;
    }
    // Explicit Euler and Heun need a smaller step than the estimate (psb.h).
    const double margin = integrator == PSB_EULER || integrator == PSB_HEUN ? 0.2 : 0.8;
    p.substeps = (int)ceil(p.dt / (margin * psb_body_stable_substep(w, id)));
    CHECK(psb_world_set_params(w, &p, &err) == PSB_OK, "flag: %s", err.message);
    if (pinned) {
        const psb_vec3 *x = psb_body_positions(w, id);
        CHECK(psb_body_pin(w, id, 0, x[0], &err) == PSB_OK, "pin: %s", err.message);
        CHECK(psb_body_pin(w, id, 7 * 12, x[7 * 12], &err) == PSB_OK, "pin: %s", err.message);
    }
    *id_out = id;
    return w;
}

static void test_hanging_flag(void) {
    for (int integrator = 0; integrator < PSB_INTEGRATOR_COUNT; integrator++) {
        const char *name = psb_integrator_name((psb_integrator)integrator);
        int id = -1;
        psb_world *w = flag_world((psb_integrator)integrator, 0.5, true, &id);
        if (!w) {
            continue;
        }
        const psb_vec3 *x = psb_body_positions(w, id);
        const psb_vec3 top = x[0], bottom = x[7 * 12];
        const double start_y = psb_body_measure(w, id).centroid.y;
        const double seconds = integrator == PSB_SYMPLECTIC_EULER ? 10.0 : 3.0;
        int blowups = 0;
        bool held = true;
        double farthest = 0.0;
        for (int k = 0; k < (int)lround(seconds / psb_world_params(w)->dt); k++) {
            blowups += psb_world_step(w);
            x = psb_body_positions(w, id);
            held = held && memcmp(&x[0], &top, sizeof top) == 0 &&
                   memcmp(&x[7 * 12], &bottom, sizeof bottom) == 0;
            for (int i = 0; i < 96; i++) {
                farthest = fmax(farthest, fmin(norm(sub(x[i], top)), norm(sub(x[i], bottom))));
            }
        }
        CHECK(blowups == 0, "hanging flag (%s): %d blow-ups: %s", name, blowups,
              psb_world_last_event(w));
        CHECK(held, "hanging flag (%s): a pinned corner moved", name);
        const psb_vec3 v0 = psb_body_velocities(w, id)[0];
        CHECK(v0.x == 0.0 && v0.y == 0.0 && v0.z == 0.0,
              "hanging flag (%s): a pinned corner has velocity (%g, %g, %g)", name, v0.x, v0.y,
              v0.z);
        // Gravity acts in its plane: it sags there (its free edge droops),
        // but no point gets farther from the nearer pin than the flag's
        // diagonal (1.44 m) stretched by 20 %.
        const psb_body_state s = psb_body_measure(w, id);
        CHECK(s.centroid.y < start_y - 0.02 && s.centroid.y > start_y - 1.0,
              "hanging flag (%s): centroid from %.4g m to %.4g m", name, start_y, s.centroid.y);
        CHECK(farthest < 1.2 * sqrt(1.2 * 1.2 + 0.8 * 0.8),
              "hanging flag (%s): a point went %.3g m from the nearer pin", name, farthest);
        CHECK(s.pinned == 2, "hanging flag (%s): %d pinned points reported", name, s.pinned);
        if (integrator == PSB_SYMPLECTIC_EULER) {
            // After 10 s of damping it hangs nearly still.
            CHECK(s.kinetic < 1e-2, "hanging flag: still moving after 10 s, %.3g J", s.kinetic);
        }
        psb_world_destroy(w);
    }

    // Unpinned, it falls freely: momentum -M g t along y.
    int id = -1;
    psb_world *w = flag_world(PSB_SYMPLECTIC_EULER, 0.5, false, &id);
    if (w) {
        for (int k = 0; k < 60; k++) {
            psb_world_step(w);
        }
        const psb_body_state s = psb_body_measure(w, id);
        const double want = -1.0 * 9.81 * psb_world_time(w);
        CHECK(fabs(s.momentum.y - want) <= 1e-9 * fabs(want),
              "falling flag: momentum %.12g, expected -M g t = %.12g", s.momentum.y, want);
        CHECK(s.centroid.y < 2.0 - 0.4 - 4.0, "falling flag: centroid at %.3g m after 1 s",
              s.centroid.y);
        psb_world_destroy(w);
    }
}

// Undamped, the pins do no work: kinetic + spring + gravity (of the free
// points) stays put up to the integrator's error, which halves with h.
static double flag_energy_drift(double h, double *scale_out) {
    int id = -1;
    psb_world *w = flag_world(PSB_SYMPLECTIC_EULER, 0.0, true, &id);
    if (!w) {
        return INFINITY;
    }
    psb_params p = *psb_world_params(w);
    p.substeps = (int)lround(p.dt / h);
    psb_world_set_params(w, &p, NULL);
    const psb_body_state s0 = psb_body_measure(w, id);
    double drift = 0.0, drop = 0.0;
    for (int k = 0; k < 120; k++) {
        psb_world_step(w);
        const psb_body_state s = psb_body_measure(w, id);
        drift = fmax(drift, fabs(s.energy - s0.energy));
        drop = fmax(drop, s0.gravity - s.gravity);
    }
    *scale_out = drop;
    psb_world_destroy(w);
    return drift;
}

static void test_flag_energy(void) {
    double scale_a = 0.0, scale_b = 0.0;
    const double coarse = flag_energy_drift(2e-4, &scale_a);
    const double fine = flag_energy_drift(1e-4, &scale_b);
    CHECK(scale_a > 0.1, "undamped flag: it fell only %.3g J worth", scale_a);
    CHECK(coarse < 0.02 * scale_a,
          "undamped pinned flag: energy drifts by %.3g J while it swings through %.3g J", coarse,
          scale_a);
    CHECK(coarse / fine > 1.5 && coarse / fine < 2.7,
          "undamped pinned flag: drift %.3g J at h, %.3g J at h/2 (ratio %.3g, expected about 2)",
          coarse, fine, coarse / fine);
}

// ---- pins through the API

static void test_pin_api(void) {
    int id = -1;
    psb_world *w = flag_world(PSB_SYMPLECTIC_EULER, 0.5, false, &id);
    if (!w) {
        return;
    }
    psb_error err = {0};
    const psb_vec3 start = psb_body_positions(w, id)[5];
    CHECK(!psb_body_is_pinned(w, id, 5) && psb_body_pin_count(w, id) == 0, "pinned at first");
    CHECK(psb_body_pin(w, id, 5, start, &err) == PSB_OK, "pin: %s", err.message);
    CHECK(psb_body_is_pinned(w, id, 5) && psb_body_pin_count(w, id) == 1, "pin 5: count %d",
          psb_body_pin_count(w, id));
    // Pinning again moves the pin; the count stays.
    const psb_vec3 there = {0.5, 2.3, -0.1};
    CHECK(psb_body_pin(w, id, 5, there, &err) == PSB_OK, "pin again: %s", err.message);
    CHECK(psb_body_pin_count(w, id) == 1, "pinning twice counts %d pins",
          psb_body_pin_count(w, id));
    CHECK(memcmp(&psb_body_positions(w, id)[5], &there, sizeof there) == 0,
          "a moved pin: the point is not at its new pin at once");
    CHECK(psb_body_pin(w, id, 6, psb_body_positions(w, id)[6], &err) == PSB_OK, "pin 6: %s",
          err.message);
    CHECK(psb_body_pin_count(w, id) == 2 && psb_body_measure(w, id).pinned == 2,
          "two pins: count %d", psb_body_pin_count(w, id));
    CHECK(psb_body_pin(w, id, 7, (psb_vec3){NAN, 0, 0}, &err) == PSB_ERR_INVALID &&
              strstr(err.message, "finite") && !psb_body_is_pinned(w, id, 7),
          "a pin at NaN: %s", err.message);
    // A pinned point ignores impulses; its gravity energy is left out.
    const psb_body_state before = psb_body_measure(w, id);
    psb_body_apply_impulse(w, id, 5, (psb_vec3){1, 2, 3});
    const psb_vec3 v5 = psb_body_velocities(w, id)[5];
    CHECK(v5.x == 0.0 && v5.y == 0.0 && v5.z == 0.0,
          "an impulse moved a pinned point: v = (%g, %g, %g)", v5.x, v5.y, v5.z);
    const psb_vec3 p6 = psb_body_positions(w, id)[6];
    CHECK(psb_body_pin(w, id, 6, (psb_vec3){p6.x, p6.y + 1.0, p6.z}, &err) == PSB_OK, "pin: %s",
          err.message);
    CHECK(psb_body_measure(w, id).gravity == before.gravity,
          "raising a pinned point changed the gravity energy: %.17g vs %.17g",
          psb_body_measure(w, id).gravity, before.gravity);
    CHECK(psb_body_pin(w, id, 6, p6, &err) == PSB_OK, "pin: %s", err.message);

    for (int k = 0; k < 30; k++) {
        psb_world_step(w);
    }
    CHECK(memcmp(&psb_body_positions(w, id)[5], &there, sizeof there) == 0,
          "a pinned point left its pin");
    // Unpinning: at rest at first, then it falls with the rest; an impulse
    // moves it again.
    psb_body_unpin(w, id, 5);
    psb_body_unpin(w, id, 9); // not pinned: nothing
    CHECK(!psb_body_is_pinned(w, id, 5) && psb_body_pin_count(w, id) == 1,
          "unpin: pinned %d, count %d", psb_body_is_pinned(w, id, 5), psb_body_pin_count(w, id));
    const double m5 = psb_body_masses(w, id)[5];
    psb_body_apply_impulse(w, id, 5, (psb_vec3){0, 0, 0.01});
    CHECK(fabs(psb_body_velocities(w, id)[5].z - 0.01 / m5) <= 1e-12 * (0.01 / m5),
          "an impulse on an unpinned point: v_z = %g, expected J / m = %g",
          psb_body_velocities(w, id)[5].z, 0.01 / m5);
    for (int k = 0; k < 30; k++) {
        psb_world_step(w);
    }
    CHECK(psb_body_positions(w, id)[5].y < there.y - 0.2,
          "unpinned point stays near its old pin: y = %g", psb_body_positions(w, id)[5].y);

    // set_state moves the pins there and keeps them at rest.
    const int n = psb_body_point_count(w, id);
    psb_vec3 *x = malloc((size_t)n * sizeof *x), *v = malloc((size_t)n * sizeof *v);
    if (x && v) {
        memcpy(x, psb_body_positions(w, id), (size_t)n * sizeof *x);
        for (int i = 0; i < n; i++) {
            x[i].z += 1.0;
            v[i] = (psb_vec3){0.0, 0.0, 0.3};
        }
        const psb_vec3 moved = x[6];
        CHECK(psb_body_set_state(w, id, x, v, &err) == PSB_OK, "set_state: %s", err.message);
        const psb_vec3 v6 = psb_body_velocities(w, id)[6];
        CHECK(v6.x == 0.0 && v6.y == 0.0 && v6.z == 0.0,
              "set_state gave a pinned point velocity (%g, %g, %g)", v6.x, v6.y, v6.z);
        for (int k = 0; k < 10; k++) {
            psb_world_step(w);
        }
        CHECK(memcmp(&psb_body_positions(w, id)[6], &moved, sizeof moved) == 0,
              "after set_state the pinned point is not where it was put");
        // Reset: as created, but the pins stay, where they are.
        psb_body_reset(w, id);
        CHECK(psb_body_pin_count(w, id) == 1 && psb_body_is_pinned(w, id, 6),
              "reset dropped the pins: count %d", psb_body_pin_count(w, id));
        CHECK(memcmp(&psb_body_positions(w, id)[6], &moved, sizeof moved) == 0,
              "after reset the pinned point is not at its pin");
        for (int k = 0; k < 10; k++) {
            psb_world_step(w);
        }
        CHECK(memcmp(&psb_body_positions(w, id)[6], &moved, sizeof moved) == 0,
              "after reset and 10 steps the pinned point left its pin");
        // A blow-up's recovery keeps the pins.
        memcpy(x, psb_body_positions(w, id), (size_t)n * sizeof *x);
        for (int i = 0; i < n; i++) {
            v[i] = (psb_vec3){0, 0, 0};
        }
        v[40] = (psb_vec3){1e7, 0, 0};
        psb_body_set_state(w, id, x, v, &err);
        int blowups = 0;
        for (int k = 0; k < 3; k++) {
            blowups += psb_world_step(w);
        }
        CHECK(blowups > 0, "a point at 1e7 m/s did not blow up");
        CHECK(memcmp(&psb_body_positions(w, id)[6], &moved, sizeof moved) == 0 &&
                  psb_body_is_pinned(w, id, 6),
              "after a blow-up the pinned point left its pin");
    }
    free(x);
    free(v);
    psb_world_destroy(w);
}

// A ring and a shell hang from one pin each.
static void test_pins_on_closed_bodies(void) {
    psb_params p = psb_default_params();
    p.floor = false;
    p.walls = false;
    p.substeps = 40;
    psb_world *w = make_world(&p);
    if (!w) {
        return;
    }
    psb_mesh ring, sphere;
    psb_error err = {0};
    CHECK(psb_mesh_ring(&ring, 24, 0.5, &err) == PSB_OK, "ring: %s", err.message);
    CHECK(psb_mesh_icosphere(&sphere, 2, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    psb_body_def def = psb_mesh_body_def(&ring);
    def.params = material(300.0, 0.5, 10.0);
    def.offset = (psb_vec3){-2, 3, 0};
    const int r = psb_world_add_body(w, &def, &err);
    CHECK(r == 0, "ring: %s", err.message);
    def = psb_mesh_body_def(&sphere);
    def.params = material(300.0, 0.5, 50.0);
    def.offset = (psb_vec3){2, 3, 0};
    const int s = psb_world_add_body(w, &def, &err);
    CHECK(s == 1, "sphere: %s", err.message);
    if (r != 0 || s != 1) {
        psb_world_destroy(w);
        psb_mesh_free(&ring);
        psb_mesh_free(&sphere);
        return;
    }
    // The ring's pin asks for z = 1: a ring stays in its plane.
    const psb_vec3 ring_pin = {-2.2, 3.4, 1.0};
    CHECK(psb_body_pin(w, r, 6, ring_pin, &err) == PSB_OK, "pin ring: %s", err.message);
    const psb_vec3 held = psb_body_positions(w, r)[6];
    CHECK(held.x == ring_pin.x && held.y == ring_pin.y && held.z == 0.0,
          "ring pinned at (%g, %g, 1): held at (%g, %g, %g)", ring_pin.x, ring_pin.y, held.x,
          held.y, held.z);
    int top = 0;
    const psb_vec3 *x = psb_body_positions(w, s);
    for (int i = 1; i < sphere.point_count; i++) {
        top = x[i].y > x[top].y ? i : top;
    }
    const psb_vec3 sphere_pin = x[top];
    CHECK(psb_body_pin(w, s, top, sphere_pin, &err) == PSB_OK, "pin sphere: %s", err.message);
    int blowups = 0;
    for (int k = 0; k < 120; k++) {
        blowups += psb_world_step(w);
    }
    CHECK(blowups == 0, "pinned ring and sphere: %d blow-ups: %s", blowups,
          psb_world_last_event(w));
    CHECK(memcmp(&psb_body_positions(w, r)[6], &held, sizeof held) == 0,
          "the ring's pinned point moved");
    CHECK(memcmp(&psb_body_positions(w, s)[top], &sphere_pin, sizeof sphere_pin) == 0,
          "the sphere's pinned point moved");
    // They hang below their pins, not fallen away.
    const psb_body_state rs = psb_body_measure(w, r), ss = psb_body_measure(w, s);
    CHECK(rs.centroid.y < held.y && rs.centroid.y > held.y - 1.5,
          "pinned ring: centroid at y = %g, pin at %g", rs.centroid.y, held.y);
    CHECK(ss.centroid.y < sphere_pin.y && ss.centroid.y > sphere_pin.y - 1.5,
          "pinned sphere: centroid at y = %g, pin at %g", ss.centroid.y, sphere_pin.y);
    CHECK(dot(ss.momentum, ss.momentum) < 1.0, "pinned sphere still has momentum %g",
          norm(ss.momentum));
    psb_world_destroy(w);
    psb_mesh_free(&ring);
    psb_mesh_free(&sphere);
}

// ---- threads

// A cloth of 80 x 64 = 5120 points (enough to be shared between threads),
// pinned along its top edge, with a large shell beside it for comparison.
static psb_world *big_cloth(int threads, psb_vec3 wind, int steps) {
    psb_params p = psb_default_params();
    p.threads = threads;
    p.wind = wind;
    p.dt = 1.0 / 120.0;
    p.substeps = 10;
    psb_world *w = make_world(&p);
    if (!w) {
        return NULL;
    }
    psb_mesh m;
    psb_error err = {0};
    psb_mesh_cloth(&m, 80, 64, 2.0, 1.6, &err);
    uint64_t seed = 9;
    for (int i = 0; i < m.point_count; i++) {
        m.points[i].z += 0.01 * rnd(&seed);
    }
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = material(20.0, 0.01, 0.0);
    def.params.mass = 20.0;
    def.offset = (psb_vec3){-1.0, 2.5, 0.0};
    CHECK(psb_world_add_body(w, &def, &err) == 0, "big cloth: %s", err.message);
    for (int c = 0; c < 80; c += 9) {
        CHECK(psb_body_pin(w, 0, c, psb_body_positions(w, 0)[c], &err) == PSB_OK, "pin: %s",
              err.message);
    }
    psb_mesh_free(&m);
    psb_mesh_icosphere(&m, 5, 0.5, &err);
    def = psb_mesh_body_def(&m);
    def.params = material(50.0, 0.01, 10.0);
    def.offset = (psb_vec3){3.0, 0.6, 0.0};
    CHECK(psb_world_add_body(w, &def, &err) == 1, "big shell: %s", err.message);
    psb_mesh_free(&m);
    for (int k = 0; k < steps; k++) {
        psb_world_step(w);
    }
    return w;
}

static bool same_cloth_bits(const psb_world *a, const psb_world *b) {
    const size_t bytes = (size_t)psb_body_point_count(a, 0) * sizeof(psb_vec3);
    return memcmp(psb_body_positions(a, 0), psb_body_positions(b, 0), bytes) == 0 &&
           memcmp(psb_body_velocities(a, 0), psb_body_velocities(b, 0), bytes) == 0;
}

// The most threads a world of one big cloth (or shell) ran its step on, asked for 2.
static int threads_used(bool cloth) {
    psb_params p = psb_default_params();
    p.threads = 2;
    psb_world *w = make_world(&p);
    if (!w) {
        return -1;
    }
    psb_mesh m;
    psb_error err = {0};
    if (cloth) {
        psb_mesh_cloth(&m, 80, 64, 2.0, 1.6, &err);
    } else {
        psb_mesh_icosphere(&m, 5, 0.5, &err);
    }
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = material(20.0, 0.01, cloth ? 0.0 : 10.0);
    def.params.mass = 20.0;
    CHECK(psb_world_add_body(w, &def, &err) == 0, "big body: %s", err.message);
    psb_mesh_free(&m);
    psb_world_set_profiling(w, true);
    psb_world_step(w);
    const int threads = psb_world_profile(w).threads;
    psb_world_destroy(w);
    return threads;
}

static void test_threads(void) {
    const psb_vec3 still = {0, 0, 0}, breeze = {0.5, 0, 2.0};
    psb_world *start = big_cloth(1, still, 0);
    if (!start) {
        return;
    }
    for (int windy = 0; windy < 2; windy++) {
        psb_world *a = big_cloth(1, windy ? breeze : still, 40);
        psb_world *b = big_cloth(2, windy ? breeze : still, 40);
        if (a && b) {
            CHECK(same_cloth_bits(a, b), "big pinned cloth%s: 1 and 2 threads give different bits",
                  windy ? " in wind" : "");
            CHECK(psb_body_measure(a, 0).blowups == 0, "big cloth: blew up: %s",
                  psb_world_last_event(a));
            const psb_vec3 *x = psb_body_positions(b, 0), *x0 = psb_body_positions(start, 0);
            CHECK(memcmp(&x[9], &x0[9], sizeof x[9]) == 0 &&
                      memcmp(&x[1], &x0[1], sizeof x[1]) != 0,
                  "big cloth: a pinned point moved to (%g, %g, %g), or a free one did not", x[9].x,
                  x[9].y, x[9].z);
        }
        psb_world_destroy(a);
        psb_world_destroy(b);
    }
    psb_world_destroy(start);
    // Shared out like a shell of its size (or both on one thread, in a build
    // without OpenMP).
    CHECK(threads_used(true) == threads_used(false),
          "2 threads: a cloth of 5120 points runs on %d, a shell of 10242 on %d",
          threads_used(true), threads_used(false));
}

int main(void) {
    test_construction();
    test_springs_only();
    test_bad_definitions();
    test_hanging_flag();
    test_flag_energy();
    test_pin_api();
    test_pins_on_closed_bodies();
    test_threads();
    return check_done("test_cloth");
}
