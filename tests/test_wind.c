// Wind (psb_params.wind, wind_turbulence; psb_body_params.wind_drag),
// through the public API.
//
// A surface point of area vector N_i (a third of its triangles' area
// vectors; on a ring half of its two edges' outward normals times their
// lengths) feels F_i = c ((w - v_i) . N_i) N_i / |N_i|. The force is read
// from one sub-step of symplectic Euler with nothing else acting:
// F_i = m_i dv_i / h.
//
// - A flat square plate (psb_mesh_cloth) of area A facing the wind feels
//   c |w| A along w, whichever way the wind blows through it; at an angle
//   only the wind's normal part pushes, along the normal; parallel to the
//   wind it feels nothing. Every point's force is the formula's with N_i
//   from the triangles (1e-9). Every integrator feels it.
// - Relative motion: a plate moving with the wind feels nothing, one moving
//   at half of it feels half; a free plate in the wind speeds up toward the
//   wind's normal part at the rate c A / M and never past it.
// - A ring feels in-plane forces only, each the formula's with its edges'
//   normals; a closed sphere's total approaches c w (4 pi r^2 / 3).
// - No wind: wind (0, 0, 0) with no turbulence changes nothing at all (the
//   same bits as wind_drag 0, and a large body still shares its step
//   between threads); wind_drag 0 ignores any wind.
// - Gusts: psb_world_wind_at is the steady wind without turbulence; with it,
//   each component stays within the wind +- the amplitude, reaches a good
//   part of it, changes smoothly with time and place, averages out to the
//   steady wind, and is the same for two worlds; the force uses the gusty
//   wind at each point.
// - With wind, a large body gives the same bits with 1 and 2 threads.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static const double pi = 3.14159265358979323846;

// A world with only the wind: no gravity, floor or walls; one sub-step of h
// per world step.
static psb_params wind_params(psb_vec3 wind, double turbulence, double h) {
    psb_params p = free_params(h);
    p.wind = wind;
    p.wind_turbulence = turbulence;
    return p;
}

// Adds the mesh with drag c and initial velocity v; -1 if refused.
static int add_mesh(psb_world *w, const psb_mesh *m, double c, psb_vec3 v, psb_vec3 offset) {
    psb_body_def def = psb_mesh_body_def(m);
    def.params = material(100.0, 0.0, 0.0); // no gas: only the wind pushes
    def.params.mass = 2.0;
    def.params.wind_drag = c;
    def.velocity = v;
    def.offset = offset;
    psb_error err = {0};
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id >= 0, "add_body: %s", err.message);
    return id;
}

// The area vectors N_i of a body's points, from its current positions:
// 1/6 sum (x_b - x_a) x (x_c - x_a) over its triangles, or on a ring
// 1/2 ((x_{i+1} - x_{i-1}) turned clockwise by a right angle).
static void area_vectors(const psb_world *w, int id, psb_vec3 *N) {
    const int n = psb_body_point_count(w, id);
    const psb_vec3 *x = psb_body_positions(w, id);
    for (int i = 0; i < n; i++) {
        N[i] = (psb_vec3){0, 0, 0};
    }
    if (psb_body_get_kind(w, id) == PSB_RING) {
        for (int i = 0; i < n; i++) {
            const psb_vec3 d = sub(x[(i + 1) % n], x[(i + n - 1) % n]);
            N[i] = (psb_vec3){0.5 * d.y, -0.5 * d.x, 0.0};
        }
        return;
    }
    int count = 0;
    const int *t = psb_body_triangles(w, id, &count);
    for (int k = 0; k < count; k++) {
        const psb_vec3 a = x[t[3 * k]], b = x[t[3 * k + 1]], c = x[t[3 * k + 2]];
        const psb_vec3 third = scale(cross(sub(b, a), sub(c, a)), 1.0 / 6.0);
        for (int e = 0; e < 3; e++) {
            N[t[3 * k + e]] = add(N[t[3 * k + e]], third);
        }
    }
}

typedef struct push {
    psb_vec3 total;   // sum of the forces, N
    double worst;     // max |F_i - expected F_i|, N
    double largest;   // max |expected F_i|, N
    double largest_z; // max |F_i . z|, N
} push;

// Steps the world once (one sub-step of h from time t0) and compares every
// point's force m dv / h with c ((u_i - v_i) . N_i) N_i / |N_i|, u_i the wind
// at the point at t0.
static push measure_push(psb_world *w, int id, double c) {
    push r = {{0, 0, 0}, 0.0, 0.0, 0.0};
    const int n = psb_body_point_count(w, id);
    psb_vec3 *N = malloc((size_t)n * sizeof *N), *x = malloc((size_t)n * sizeof *x);
    psb_vec3 *v = malloc((size_t)n * sizeof *v);
    if (!N || !x || !v) {
        free(N);
        free(x);
        free(v);
        CHECK(false, "out of memory");
        return r;
    }
    area_vectors(w, id, N);
    memcpy(x, psb_body_positions(w, id), (size_t)n * sizeof *x);
    memcpy(v, psb_body_velocities(w, id), (size_t)n * sizeof *v);
    const double t0 = psb_world_time(w), h = psb_world_params(w)->dt;
    CHECK(psb_world_step(w) == 0, "blow-up: %s", psb_world_last_event(w));
    const psb_vec3 *v1 = psb_body_velocities(w, id);
    const double *m = psb_body_masses(w, id);
    for (int i = 0; i < n; i++) {
        const psb_vec3 f = scale(sub(v1[i], v[i]), m[i] / h);
        psb_vec3 want = {0, 0, 0};
        const double area = norm(N[i]);
        if (area > 0.0) {
            const psb_vec3 u = psb_world_wind_at(w, x[i], t0);
            want = scale(N[i], c * dot(sub(u, v[i]), N[i]) / area);
        }
        r.total = add(r.total, f);
        r.worst = fmax(r.worst, norm(sub(f, want)));
        r.largest = fmax(r.largest, norm(want));
        r.largest_z = fmax(r.largest_z, fabs(f.z));
    }
    free(N);
    free(x);
    free(v);
    return r;
}

// ---- a plate

// A square plate of side 1 m in the x-y plane (normal +z, area 1 m²),
// 11 x 11 points, in wind w, moving at v; its push after one sub-step.
static push plate_push_with(psb_integrator integrator, psb_vec3 wind, psb_vec3 v, double c,
                            double turbulence) {
    push r = {{0, 0, 0}, 0.0, 0.0, 0.0};
    psb_mesh m;
    psb_error err = {0};
    CHECK(psb_mesh_cloth(&m, 11, 11, 1.0, 1.0, &err) == PSB_OK, "cloth: %s", err.message);
    psb_params p = wind_params(wind, turbulence, 1e-6);
    p.integrator = integrator;
    psb_world *w = make_world(&p);
    const int id = w ? add_mesh(w, &m, c, v, (psb_vec3){-0.5, 1.5, 0.2}) : -1;
    if (id >= 0) {
        r = measure_push(w, id, c);
    }
    psb_world_destroy(w);
    psb_mesh_free(&m);
    return r;
}

static push plate_push(psb_vec3 wind, psb_vec3 v, double c, double turbulence) {
    return plate_push_with(PSB_SYMPLECTIC_EULER, wind, v, c, turbulence);
}

static void check_total(push r, psb_vec3 want, const char *what) {
    const double tol = 1e-9 * fmax(norm(want), 1.0);
    CHECK(norm(sub(r.total, want)) <= tol,
          "%s: total force (%.12g, %.12g, %.12g) N, expected (%.12g, %.12g, %.12g) N", what,
          r.total.x, r.total.y, r.total.z, want.x, want.y, want.z);
    CHECK(r.worst <= 1e-9 * fmax(r.largest, 1e-3),
          "%s: a point's force is %.3g N off c ((w - v) . N) N / |N| (largest %.3g N)", what,
          r.worst, r.largest);
}

static void test_plate(void) {
    const psb_vec3 z = {0, 0, 1}, still = {0, 0, 0};
    const double c = 1.7;
    // Facing the wind, from either side: c |w| A along w (A = 1 m²).
    check_total(plate_push((psb_vec3){0, 0, 5}, still, c, 0.0), scale(z, c * 5.0),
                "plate facing a wind along +z");
    check_total(plate_push((psb_vec3){0, 0, -3}, still, c, 0.0), scale(z, -c * 3.0),
                "plate facing a wind along -z");
    // At an angle: only the normal part, along the normal.
    check_total(plate_push((psb_vec3){3, -1, 4}, still, c, 0.0), scale(z, c * 4.0),
                "plate in a wind at an angle");
    // Parallel: nothing.
    const push parallel = plate_push((psb_vec3){5, 2, 0}, still, c, 0.0);
    // (The springs, at rest, leave rounding: 1e-29 N.)
    CHECK(norm(parallel.total) <= 1e-20 && parallel.largest_z == 0.0,
          "plate parallel to the wind: force (%g, %g, %g) N, expected none", parallel.total.x,
          parallel.total.y, parallel.total.z);
    // Relative motion: with the wind, nothing; at half of it, half; against
    // it, more.
    check_total(plate_push((psb_vec3){1, 0, 4}, (psb_vec3){0, 0, 4}, c, 0.0), still,
                "plate moving with the wind");
    check_total(plate_push((psb_vec3){1, 0, 4}, (psb_vec3){0, 0, 2}, c, 0.0), scale(z, c * 2.0),
                "plate moving at half the wind");
    check_total(plate_push((psb_vec3){0, 0, 4}, (psb_vec3){7, 0, -1}, c, 0.0), scale(z, c * 5.0),
                "plate moving against the wind");
    // A plate moving in wind: only the relative normal speed counts.
    check_total(plate_push((psb_vec3){2, 0, 0.5}, (psb_vec3){0, 0, 2.5}, c, 0.0),
                scale(z, -c * 2.0), "plate overtaking the wind");
    // Drag 0: the wind does nothing.
    const push none = plate_push((psb_vec3){0, 0, 5}, still, 0.0, 0.0);
    CHECK(norm(none.total) <= 1e-20, "plate with wind_drag 0: force %g N, expected none",
          norm(none.total));
    // Gusts: the force follows the wind at each point.
    const push gusty = plate_push((psb_vec3){0, 0, 1}, still, c, 2.0);
    CHECK(gusty.worst <= 1e-9 * gusty.largest,
          "plate in gusts: a point's force is %.3g N off the formula with the gusty wind there",
          gusty.worst);
    CHECK(fabs(gusty.total.z - c) > 1e-3,
          "plate in gusts: total force %.6g N, the steady wind's %.6g: the gusts do nothing",
          gusty.total.z, c);
}

// Every integrator feels the wind. Their later stages see the plate sped up
// by h F / M, which takes h c A / M of the force off (1e-6 here).
static void test_plate_integrators(void) {
    const double c = 1.7;
    for (int integrator = 0; integrator < PSB_INTEGRATOR_COUNT; integrator++) {
        const push r = plate_push_with((psb_integrator)integrator, (psb_vec3){1, 0, 5},
                                       (psb_vec3){0, 0, 0}, c, 0.0);
        CHECK(fabs(r.total.z - 5.0 * c) <= 1e-5 * 5.0 * c && fabs(r.total.x) <= 1e-12,
              "plate facing the wind (%s): force (%.9g, %.9g, %.9g) N, expected (0, 0, %g) N",
              psb_integrator_name((psb_integrator)integrator), r.total.x, r.total.y, r.total.z,
              5.0 * c);
    }
}

// A free plate in a wind across it speeds up toward the wind's normal part:
// M dv/dt = c A (w_n - v), so v = w_n (1 - exp(-c A t / M)); its speed
// along the plate stays zero.
static void test_plate_terminal(void) {
    psb_mesh m;
    psb_error err = {0};
    CHECK(psb_mesh_cloth(&m, 6, 6, 1.0, 1.0, &err) == PSB_OK, "cloth: %s", err.message);
    const double c = 0.8, M = 2.0, wn = 3.0;
    psb_params p = wind_params((psb_vec3){1.5, 0, wn}, 0.0, 1e-3);
    p.dt = 0.01;
    p.substeps = 10;
    psb_world *w = make_world(&p);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = material(100.0, 0.0, 0.0);
    def.params.mass = M;
    def.params.wind_drag = c;
    def.params.mass_by_area = true; // every point then speeds up alike
    const int id = w ? psb_world_add_body(w, &def, &err) : -1;
    CHECK(id == 0, "free plate: %s", err.message);
    if (id < 0) {
        psb_world_destroy(w);
        psb_mesh_free(&m);
        return;
    }
    const double rate = c * 1.0 / M;
    double worst = 0.0, fastest = 0.0;
    for (int k = 1; k <= 500; k++) {
        psb_world_step(w);
        const psb_body_state s = psb_body_measure(w, id);
        const double v = s.momentum.z / M;
        const double want = wn * (1.0 - exp(-rate * psb_world_time(w)));
        worst = fmax(worst, fabs(v - want));
        fastest = fmax(fastest, v);
        CHECK(fabs(s.momentum.x) <= 1e-12 && fabs(s.momentum.y) <= 1e-12,
              "free plate: momentum along the plate (%g, %g) kg m/s", s.momentum.x, s.momentum.y);
    }
    // First order in h: v_n = w_n (1 - (1 - rate h)^n).
    CHECK(worst <= 1e-3 * wn, "free plate: speed off w_n (1 - exp(-c A t / M)) by up to %.3g m/s",
          worst);
    CHECK(fastest <= wn, "free plate: %.9g m/s, faster than the wind's %.9g m/s", fastest, wn);
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

// ---- rings and shells

static void test_ring_and_shell(void) {
    psb_mesh m;
    psb_error err = {0};
    const double c = 1.3, r0 = 0.5;
    const psb_vec3 wind = {3, -2, 5};
    CHECK(psb_mesh_ring(&m, 64, r0, &err) == PSB_OK, "ring: %s", err.message);
    psb_params p = wind_params(wind, 0.0, 1e-6);
    psb_world *w = make_world(&p);
    int id = w ? add_mesh(w, &m, c, (psb_vec3){0.2, -0.1, 0}, (psb_vec3){1, 2, 0}) : -1;
    if (id >= 0) {
        const push r = measure_push(w, id, c);
        CHECK(r.worst <= 1e-9 * r.largest, "ring: a point's force is %.3g N off the formula",
              r.worst);
        CHECK(r.largest_z == 0.0, "ring: a force of %.3g N out of its plane", r.largest_z);
        // A regular N-gon: |N_i| = r sin(2 pi / N) and sum n_i n_i^T = N/2 I, so
        // the total is c (N/2) r sin(2 pi / N) (w - v) in the plane (a circle's
        // c pi r (w - v) as N grows).
        const double k = c * 0.5 * m.point_count * r0 * sin(2.0 * pi / m.point_count);
        const psb_vec3 want = {k * (3 - 0.2), k * (-2 + 0.1), 0.0};
        CHECK(norm(sub(r.total, want)) <= 1e-9 * norm(want),
              "ring: total (%.9g, %.9g) N, expected c (N/2) r sin(2 pi/N) (w - v) = (%.9g, %.9g) N",
              r.total.x, r.total.y, want.x, want.y);
        const psb_vec3 *v = psb_body_velocities(w, id);
        double vz = 0.0;
        for (int i = 0; i < m.point_count; i++) {
            vz = fmax(vz, fabs(v[i].z));
        }
        CHECK(vz == 0.0, "ring: a point moves out of the plane at %g m/s", vz);
    }
    psb_world_destroy(w);
    psb_mesh_free(&m);

    // A sphere: c w . integral of n n^T dA = c (4 pi r^2 / 3) w.
    CHECK(psb_mesh_icosphere(&m, 3, r0, &err) == PSB_OK, "icosphere: %s", err.message);
    w = make_world(&p);
    id = w ? add_mesh(w, &m, c, (psb_vec3){0, 0, 0}, (psb_vec3){0, 1, 0}) : -1;
    if (id >= 0) {
        const push r = measure_push(w, id, c);
        CHECK(r.worst <= 1e-9 * r.largest, "sphere: a point's force is %.3g N off the formula",
              r.worst);
        const psb_vec3 want = scale(wind, c * 4.0 * pi * r0 * r0 / 3.0);
        CHECK(norm(sub(r.total, want)) <= 1e-2 * norm(want),
              "sphere: total (%.6g, %.6g, %.6g) N, a sphere's c (4 pi r^2 / 3) w = (%.6g, %.6g, "
              "%.6g) N",
              r.total.x, r.total.y, r.total.z, want.x, want.y, want.z);
    }
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

// ---- no wind

// A busy world: a large shell (level 5, 10242 points, split between threads)
// falling onto the floor and a cloth, with drag c, stepped `steps` times.
static psb_world *busy_world(psb_vec3 wind, double turbulence, double c, int threads, int steps) {
    psb_params p = psb_default_params();
    p.wind = wind;
    p.wind_turbulence = turbulence;
    p.threads = threads;
    p.dt = 1.0 / 120.0;
    p.substeps = 10;
    psb_world *w = make_world(&p);
    if (!w) {
        return NULL;
    }
    psb_mesh m;
    psb_error err = {0};
    psb_mesh_icosphere(&m, 5, 0.5, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = material(50.0, 0.01, 10.0);
    def.params.wind_drag = c;
    def.offset = (psb_vec3){0, 0.6, 0};
    def.velocity = (psb_vec3){0.3, -1.0, 0.2};
    CHECK(psb_world_add_body(w, &def, &err) == 0, "icosphere: %s", err.message);
    psb_mesh_free(&m);
    psb_mesh_cloth(&m, 12, 9, 1.0, 0.7, &err);
    def = psb_mesh_body_def(&m);
    def.params = material(80.0, 0.05, 0.0);
    def.params.wind_drag = c;
    def.offset = (psb_vec3){-1.0, 2.0, 0.3};
    CHECK(psb_world_add_body(w, &def, &err) == 1, "cloth: %s", err.message);
    psb_mesh_free(&m);
    psb_world_set_profiling(w, true);
    for (int k = 0; k < steps; k++) {
        psb_world_step(w);
    }
    return w;
}

static void test_no_wind(void) {
    const psb_vec3 still = {0, 0, 0}, breeze = {2, 0, 1};
    // Still air: the drag coefficient makes no difference, to the bit.
    psb_world *a = busy_world(still, 0.0, 3.0, 1, 30);
    psb_world *b = busy_world(still, 0.0, 0.0, 1, 30);
    if (a && b) {
        CHECK(same_bits(a, b), "still air: wind_drag 3 and 0 give different bits");
    }
    psb_world_destroy(b);
    // Wind with drag 0: ignored, to the bit.
    b = busy_world(breeze, 1.0, 0.0, 1, 30);
    if (a && b) {
        CHECK(same_bits(a, b), "wind_drag 0 in a breeze: different bits from still air");
    }
    psb_world_destroy(b);
    psb_world_destroy(a);
    // Still air keeps a large body on several threads: the same bits and the
    // same thread count as a body that ignores the wind.
    a = busy_world(still, 0.0, 3.0, 2, 5);
    b = busy_world(breeze, 0.0, 0.0, 2, 5);
    if (a && b) {
        CHECK(same_bits(a, b), "still air, 2 threads: different bits from wind_drag 0");
        CHECK(psb_world_profile(a).threads == psb_world_profile(b).threads,
              "still air runs on %d threads, a body that ignores the wind on %d",
              psb_world_profile(a).threads, psb_world_profile(b).threads);
    }
    psb_world_destroy(a);
    psb_world_destroy(b);
    // The wind changes something when it blows.
    a = busy_world(still, 0.0, 3.0, 1, 10);
    b = busy_world(breeze, 0.0, 3.0, 1, 10);
    if (a && b) {
        CHECK(!same_bits(a, b), "a breeze of 2 m/s changed nothing");
    }
    psb_world_destroy(a);
    psb_world_destroy(b);
}

// With wind and gusts, the same bits whatever the thread count.
static void test_threads(void) {
    const psb_vec3 breeze = {2, 0, 1};
    psb_world *a = busy_world(breeze, 1.5, 2.0, 1, 20);
    psb_world *b = busy_world(breeze, 1.5, 2.0, 2, 20);
    if (a && b) {
        CHECK(same_bits(a, b), "wind: 1 and 2 threads give different bits");
    }
    psb_world_destroy(a);
    psb_world_destroy(b);
}

// ---- gusts

static void test_gusts(void) {
    const psb_vec3 wind = {4, -1, 2};
    const double a = 1.5;
    psb_params p = wind_params(wind, 0.0, 1e-3);
    psb_world *steady = make_world(&p);
    p.wind_turbulence = a;
    psb_world *gusty = make_world(&p), *twin = make_world(&p);
    if (!steady || !gusty || !twin) {
        psb_world_destroy(steady);
        psb_world_destroy(gusty);
        psb_world_destroy(twin);
        return;
    }
    uint64_t seed = 31;
    double reach = 0.0, worst_out = 0.0, worst_rate = 0.0, worst_steady = 0.0;
    int changed_t = 0, changed_x = 0, differ_twin = 0;
    const int samples = 2000;
    for (int k = 0; k < samples; k++) {
        const psb_vec3 x = {10 * rnd(&seed), 10 * rnd(&seed), 10 * rnd(&seed)};
        const double t = 50.0 * (rnd(&seed) + 1.0);
        const psb_vec3 u = psb_world_wind_at(gusty, x, t);
        worst_steady = fmax(worst_steady, norm(sub(psb_world_wind_at(steady, x, t), wind)));
        const psb_vec3 d = sub(u, wind);
        worst_out = fmax(worst_out, fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))) - a);
        reach = fmax(reach, fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z))));
        // Smooth in time and space: a millisecond or a millimetre moves it
        // by no more than a few amplitudes per second (per metre).
        const psb_vec3 later = psb_world_wind_at(gusty, x, t + 1e-3);
        const psb_vec3 beside = psb_world_wind_at(gusty, add(x, (psb_vec3){1e-3, 1e-3, 1e-3}), t);
        worst_rate = fmax(worst_rate, fmax(norm(sub(later, u)), norm(sub(beside, u))) / 1e-3);
        changed_t += norm(sub(psb_world_wind_at(gusty, x, t + 0.5), u)) > 0.05 * a;
        changed_x +=
            norm(sub(psb_world_wind_at(gusty, add(x, (psb_vec3){0.7, 0, 0}), t), u)) > 0.05 * a;
        const psb_vec3 v = psb_world_wind_at(twin, x, t);
        differ_twin += memcmp(&u, &v, sizeof u) != 0;
    }
    CHECK(worst_steady == 0.0, "no turbulence: the wind is %.3g m/s off the steady wind",
          worst_steady);
    CHECK(worst_out <= 1e-12, "gusts of %g m/s: a component %.3g m/s beyond them", a, worst_out);
    CHECK(reach >= 0.5 * a, "gusts of %g m/s: they reach only %.3g m/s", a, reach);
    CHECK(worst_rate <= 20.0 * a, "gusts: the wind changes at %.3g m/s per s (or per m)",
          worst_rate);
    CHECK(changed_t > samples / 2, "gusts: the wind changed in 0.5 s at only %d of %d places",
          changed_t, samples);
    CHECK(changed_x > samples / 2, "gusts: the wind differs 0.7 m away at only %d of %d places",
          changed_x, samples);
    CHECK(differ_twin == 0, "gusts: two worlds disagree at %d of %d places", differ_twin, samples);
    // Over a long time they average out at any one place.
    const psb_vec3 x = {0.3, 1.2, -0.7};
    psb_vec3 mean = {0, 0, 0};
    const int n = 200000;
    for (int k = 0; k < n; k++) {
        mean = add(mean, scale(psb_world_wind_at(gusty, x, 1e-2 * k), 1.0 / n));
    }
    CHECK(norm(sub(mean, wind)) <= 0.05 * a,
          "gusts: over 2000 s the wind averages (%.4g, %.4g, %.4g), not the steady (%g, %g, %g)",
          mean.x, mean.y, mean.z, wind.x, wind.y, wind.z);
    psb_world_destroy(steady);
    psb_world_destroy(gusty);
    psb_world_destroy(twin);
}

// Turbulence with no steady wind still blows.
static void test_gusts_alone(void) {
    const push r = plate_push((psb_vec3){0, 0, 0}, (psb_vec3){0, 0, 0}, 1.0, 2.0);
    CHECK(r.largest > 0.0, "gusts without a steady wind: no force at all");
    CHECK(r.worst <= 1e-9 * fmax(r.largest, 1e-12),
          "gusts without a steady wind: a point's force is %.3g N off the formula", r.worst);
}

int main(void) {
    test_plate();
    test_plate_integrators();
    test_plate_terminal();
    test_ring_and_shell();
    test_no_wind();
    test_threads();
    test_gusts();
    test_gusts_alone();
    return check_done("test_wind");
}
