// Shape matching (psb_body_params.shape_k, shape_damping), through the
// public API.
//
// - The fit: a copy of the rest shape turned by a known rotation (any axis,
//   angles up to pi) and moved is matched exactly: every goal g_i lies on its
//   point (1e-12 of the body's size) and psb_body_shape_match returns the
//   rotation applied. In 3D for a round shell, for a flat body (a cloth) and
//   in 2D for a square ring (the angle, either sign, near pi too).
// - A proper rotation, and the best one: for a body mirrored or turned
//   inside out (no rotation fits; the best proper one must still come back,
//   det R = +1) and for a randomly deformed body, R is orthonormal with
//   det +1, and sum r_i . R q_i is no smaller for R than for any rotation
//   near it or any of a few hundred random ones (a transposed or sign-flipped
//   Horn matrix fails this).
// - The force: with springs, gas and gravity off, one sub-step of symplectic
//   Euler from rest gives m_i dv_i / h = k (g_i - x_i) for the goals read
//   before the step; the forces add up to zero and have no torque about the
//   centroid (1e-12 relative), and their energy 1/2 k sum |g - x|^2 is what
//   psb_body_measure reports. The energy's finite-difference gradient along
//   a random direction is minus the force's work (the force is conservative).
// - Damping: one sub-step moves each velocity to u + (v - u) exp(-rate h),
//   u the rigid-body field (centre-of-mass velocity + omega x r, from the
//   angular momentum and the inertia tensor at the drifted points), exactly;
//   over a run, linear and angular momentum stay put (1e-12) while the
//   deformation's kinetic energy falls as exp(-2 rate t) (within 15 %).
// - Energy: shape matching, springs and gas with no damping conserve
//   kinetic + spring + gas + shape to the integrator's order: the drift over
//   the same time halves with h for symplectic Euler and quarters for
//   velocity Verlet.
// - Equilibria with gas: an icosahedron (and a ring) inflated against its
//   springs and shape matching settles where U'(r) = 0 with the shape term
//   added, e.g. sigma (sigma - 1) (ks sum L0^2 + k_shape sum |q|^2) = 3 nRT.
// - Holding up: a shell (and a ring) without gas but with shape matching
//   rests on the floor under gravity with its points near their goals (the
//   few touching the floor about M g / (n k_shape) off) and its volume within
//   2 % of the rest volume, while the same body without shape matching
//   collapses (a fifth of its volume left, points a radius off).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static const double pi = 3.14159265358979323846;

// ---- small 3x3 algebra (row-major)

// The rotation by angle about axis (normalised here): Rodrigues' formula.
static void axis_angle(psb_vec3 axis, double angle, double R[9]) {
    const double l = norm(axis);
    const double x = axis.x / l, y = axis.y / l, z = axis.z / l;
    const double c = cos(angle), s = sin(angle), t = 1.0 - c;
    const double m[9] = {
        t * x * x + c,     t * x * y - s * z, t * x * z + s * y, t * x * y + s * z, t * y * y + c,
        t * y * z - s * x, t * x * z - s * y, t * y * z + s * x, t * z * z + c,
    };
    memcpy(R, m, sizeof m);
}

static psb_vec3 apply(const double R[9], psb_vec3 a) {
    return (psb_vec3){R[0] * a.x + R[1] * a.y + R[2] * a.z, R[3] * a.x + R[4] * a.y + R[5] * a.z,
                      R[6] * a.x + R[7] * a.y + R[8] * a.z};
}

static void multiply(const double A[9], const double B[9], double C[9]) {
    double m[9];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            m[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
        }
    }
    memcpy(C, m, sizeof m);
}

static double det3(const double R[9]) {
    return R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
           R[2] * (R[3] * R[7] - R[4] * R[6]);
}

// max |R R^T - I|.
static double orthonormality_error(const double R[9]) {
    double worst = 0.0;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            const double d =
                R[3 * r] * R[3 * c] + R[3 * r + 1] * R[3 * c + 1] + R[3 * r + 2] * R[3 * c + 2];
            worst = fmax(worst, fabs(d - (r == c ? 1.0 : 0.0)));
        }
    }
    return worst;
}

static double max_difference(const double A[9], const double B[9]) {
    double worst = 0.0;
    for (int k = 0; k < 9; k++) {
        worst = fmax(worst, fabs(A[k] - B[k]));
    }
    return worst;
}

static psb_vec3 centroid(const psb_vec3 *x, int n) {
    psb_vec3 c = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        c = add(c, x[i]);
    }
    return scale(c, 1.0 / n);
}

// ---- set-ups

// A world without gravity, floor or walls, stepped one sub-step of h at a time.
static psb_world *free_world(double h, psb_integrator integrator) {
    psb_params p = free_params(h);
    p.integrator = integrator;
    p.solver_tol = 1e-10; // the implicit step solved tightly (the others ignore it)
    return make_world(&p);
}

// Adds the mesh as a body with material bp at offset; -1 (and a failed
// check) if refused.
static int add_mesh(psb_world *w, const psb_mesh *m, psb_body_params bp, psb_vec3 offset) {
    psb_body_def def = psb_mesh_body_def(m);
    def.params = bp;
    def.offset = offset;
    psb_error err = {0};
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id >= 0, "add_body: %s", err.message);
    return id;
}

// Only shape matching: no springs, no gas.
static psb_body_params shape_only(double k, double rate) {
    psb_body_params bp = material(0.0, 0.0, 0.0);
    bp.shape_k = k;
    bp.shape_damping = rate;
    return bp;
}

// A level-2 icosphere of radius 0.7 m stretched to (1.5, 1, 0.7) and
// jittered: no symmetry left, three different principal moments.
static void lumpy_sphere(psb_mesh *m, int level) {
    psb_error err = {0};
    CHECK(psb_mesh_icosphere(m, level, 0.7, &err) == PSB_OK, "icosphere: %s", err.message);
    uint64_t seed = 99;
    for (int i = 0; i < m->point_count; i++) {
        m->points[i].x = 1.5 * m->points[i].x + 0.02 * rnd(&seed);
        m->points[i].y += 0.02 * rnd(&seed);
        m->points[i].z = 0.7 * m->points[i].z + 0.02 * rnd(&seed);
    }
}

// Moves the body's points to x_i = R (p_i - o) + o + t from its current
// points p_i (o: their centroid), checks that the goals land on them and
// that the fit returns R.
static void check_exact_fit(psb_world *w, int id, const double R[9], psb_vec3 t, double size,
                            const char *what) {
    const int n = psb_body_point_count(w, id);
    psb_vec3 *x = malloc((size_t)n * sizeof *x), *g = malloc((size_t)n * sizeof *g);
    if (!x || !g) {
        free(x);
        free(g);
        CHECK(false, "%s: out of memory", what);
        return;
    }
    const psb_vec3 *p = psb_body_positions(w, id);
    const psb_vec3 o = centroid(p, n);
    for (int i = 0; i < n; i++) {
        x[i] = add(add(apply(R, sub(p[i], o)), o), t);
    }
    psb_error err = {0};
    CHECK(psb_body_set_state(w, id, x, NULL, &err) == PSB_OK, "%s: set_state: %s", what,
          err.message);
    double rotation[9];
    psb_body_shape_match(w, id, g, rotation);
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        worst = fmax(worst, norm(sub(g[i], psb_body_positions(w, id)[i])));
    }
    CHECK(worst <= 1e-12 * size, "%s: a goal is %.3g m from its point (size %g m)", what, worst,
          size);
    CHECK(max_difference(rotation, R) <= 1e-12,
          "%s: rotation differs from the one applied by %.3g: got [%g %g %g; %g %g %g; %g %g %g]",
          what, max_difference(rotation, R), rotation[0], rotation[1], rotation[2], rotation[3],
          rotation[4], rotation[5], rotation[6], rotation[7], rotation[8]);
    const psb_body_state s = psb_body_measure(w, id);
    CHECK(s.shape <= 1e-20, "%s: shape energy %.3g J of an undeformed body", what, s.shape);
    free(x);
    free(g);
}

// ---- the fit

static void test_exact_fit(void) {
    // Axis, angle: generic, near pi, pi itself, a negative angle, identity.
    static const struct {
        psb_vec3 axis;
        double angle;
    } turns[] = {
        {{1, 2, 3}, 1.1},     {{-0.3, 1, 0.2}, 3.0}, {{0, 0, 1}, 3.14159265358979323846},
        {{1, -1, 0.5}, -2.0}, {{2, 0.1, -1}, 1e-3},  {{1, 0, 0}, 0.0},
    };
    const int count = (int)(sizeof turns / sizeof turns[0]);
    psb_mesh sphere, cloth;
    psb_error err = {0};
    lumpy_sphere(&sphere, 2);
    CHECK(psb_mesh_cloth(&cloth, 7, 5, 1.2, 0.8, &err) == PSB_OK, "cloth: %s", err.message);
    for (int k = 0; k < count; k++) {
        double R[9];
        axis_angle(turns[k].axis, turns[k].angle, R);
        char what[96];
        psb_world *w = free_world(1e-3, PSB_SYMPLECTIC_EULER);
        if (!w) {
            break;
        }
        const int shell = add_mesh(w, &sphere, shape_only(50.0, 0.0), (psb_vec3){0.3, 1.2, -0.4});
        const int flat = add_mesh(w, &cloth, shape_only(50.0, 0.0), (psb_vec3){-2.0, 0.5, 1.0});
        snprintf(what, sizeof what, "shell turned %g rad", turns[k].angle);
        check_exact_fit(w, shell, R, (psb_vec3){0.7, -1.9, 2.4}, 1.0, what);
        snprintf(what, sizeof what, "cloth turned %g rad", turns[k].angle);
        check_exact_fit(w, flat, R, (psb_vec3){-0.2, 0.3, 5.0}, 1.0, what);
        psb_world_destroy(w);
    }
    psb_mesh_free(&sphere);
    psb_mesh_free(&cloth);

    // 2D: a square ring (not round, so the angle is well defined) turned
    // about z: R = [cos -sin 0; sin cos 0; 0 0 1].
    psb_mesh square;
    CHECK(psb_mesh_square_ring(&square, 32, 0.5, &err) == PSB_OK, "square ring: %s", err.message);
    static const double angles[] = {1.1, -1.1, 2.9, -2.9, 3.1, 0.0, 1e-4};
    for (int k = 0; k < (int)(sizeof angles / sizeof angles[0]); k++) {
        double R[9];
        axis_angle((psb_vec3){0, 0, 1}, angles[k], R);
        psb_world *w = free_world(1e-3, PSB_SYMPLECTIC_EULER);
        if (!w) {
            break;
        }
        const int ring = add_mesh(w, &square, shape_only(50.0, 0.0), (psb_vec3){1.0, 2.0, 0.0});
        char what[64];
        snprintf(what, sizeof what, "square ring turned %g rad", angles[k]);
        check_exact_fit(w, ring, R, (psb_vec3){-3.0, 0.4, 0.0}, 1.0, what);
        psb_world_destroy(w);
    }
    psb_mesh_free(&square);
}

// sum r_i . R q_i, with q_i the rest points about their centroid and r_i the
// current points about theirs: what the best rotation maximises.
static double fit_score(const psb_vec3 *q, const psb_vec3 *r, int n, const double R[9]) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += dot(r[i], apply(R, q[i]));
    }
    return s;
}

// Checks that the fit's rotation is proper, orthonormal and the best one.
static void check_best_rotation(psb_world *w, int id, const psb_vec3 *rest, const char *what) {
    const int n = psb_body_point_count(w, id);
    psb_vec3 *q = malloc((size_t)n * sizeof *q), *r = malloc((size_t)n * sizeof *r);
    psb_vec3 *g = malloc((size_t)n * sizeof *g);
    if (!q || !r || !g) {
        free(q);
        free(r);
        free(g);
        CHECK(false, "%s: out of memory", what);
        return;
    }
    const psb_vec3 *x = psb_body_positions(w, id);
    const psb_vec3 cq = centroid(rest, n), cx = centroid(x, n);
    for (int i = 0; i < n; i++) {
        q[i] = sub(rest[i], cq);
        r[i] = sub(x[i], cx);
    }
    double R[9];
    psb_body_shape_match(w, id, g, R);
    CHECK(fabs(det3(R) - 1.0) <= 1e-12, "%s: det R = %.17g, expected +1", what, det3(R));
    CHECK(orthonormality_error(R) <= 1e-12, "%s: R R^T - I reaches %.3g", what,
          orthonormality_error(R));
    // The goals are the centroid plus R q_i.
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        worst = fmax(worst, norm(sub(g[i], add(cx, apply(R, q[i])))));
    }
    CHECK(worst <= 1e-12, "%s: a goal is %.3g m from centroid + R q", what, worst);
    const double best = fit_score(q, r, n, R);
    double scale_sum = 0.0;
    for (int i = 0; i < n; i++) {
        scale_sum += norm(q[i]) * norm(r[i]);
    }
    // Small turns about each axis, either way.
    for (int axis = 0; axis < 6; axis++) {
        const psb_vec3 a = {axis % 3 == 0, axis % 3 == 1, axis % 3 == 2};
        double T[9], near[9];
        axis_angle(a, axis < 3 ? 1e-3 : -1e-3, T);
        multiply(T, R, near);
        const double s = fit_score(q, r, n, near);
        CHECK(s <= best + 1e-12 * scale_sum, "%s: a rotation 1e-3 rad away scores %.17g > %.17g",
              what, s, best);
    }
    uint64_t seed = 5;
    for (int k = 0; k < 300; k++) {
        double T[9];
        axis_angle((psb_vec3){rnd(&seed), rnd(&seed), rnd(&seed) + 1e-9}, pi * rnd(&seed), T);
        const double s = fit_score(q, r, n, T);
        CHECK(s <= best + 1e-12 * scale_sum, "%s: random rotation %d scores %.17g > %.17g", what, k,
              s, best);
    }
    free(q);
    free(r);
    free(g);
}

static void test_best_rotation(void) {
    psb_mesh m, cloth;
    psb_error err = {0};
    lumpy_sphere(&m, 1);
    CHECK(psb_mesh_cloth(&cloth, 6, 4, 1.0, 0.6, &err) == PSB_OK, "cloth: %s", err.message);
    const psb_mesh *meshes[2] = {&m, &cloth};
    const char *names[2] = {"shell", "cloth"};
    for (int b = 0; b < 2; b++) {
        const psb_mesh *mesh = meshes[b];
        const int n = mesh->point_count;
        psb_vec3 *rest = malloc((size_t)n * sizeof *rest), *x = malloc((size_t)n * sizeof *x);
        psb_world *w = free_world(1e-3, PSB_SYMPLECTIC_EULER);
        const psb_vec3 offset = {0.5, 3.0, -1.0};
        const int id = w ? add_mesh(w, mesh, shape_only(10.0, 0.0), offset) : -1;
        if (!rest || !x || id < 0) {
            free(rest);
            free(x);
            psb_world_destroy(w);
            continue;
        }
        memcpy(rest, psb_body_positions(w, id), (size_t)n * sizeof *rest);
        const psb_vec3 c = centroid(rest, n);
        char what[96];
        // Mirrored in x, turned inside out (every point through the centroid),
        // randomly deformed and turned, and squashed flat then turned.
        for (int variant = 0; variant < 4; variant++) {
            uint64_t seed = 11 + (uint64_t)variant;
            double R[9];
            axis_angle((psb_vec3){0.4, -1.0, 0.7}, 2.2, R);
            for (int i = 0; i < n; i++) {
                psb_vec3 d = sub(rest[i], c);
                switch (variant) {
                case 0:
                    d.x = -d.x;
                    break;
                case 1:
                    d = scale(d, -1.0);
                    break;
                case 2:
                    d = apply(R, add(d, (psb_vec3){0.15 * rnd(&seed), 0.15 * rnd(&seed),
                                                   0.15 * rnd(&seed)}));
                    break;
                default:
                    d.y *= 1e-3;
                    d = apply(R, d);
                    break;
                }
                x[i] = add(add(c, d), (psb_vec3){1.0, 0.0, 0.5});
            }
            CHECK(psb_body_set_state(w, id, x, NULL, &err) == PSB_OK, "set_state: %s", err.message);
            static const char *const variants[] = {"mirrored", "inside out", "deformed",
                                                   "squashed"};
            snprintf(what, sizeof what, "%s %s", names[b], variants[variant]);
            check_best_rotation(w, id, rest, what);
        }
        free(rest);
        free(x);
        psb_world_destroy(w);
    }
    psb_mesh_free(&m);
    psb_mesh_free(&cloth);
}

// ---- the force

// One sub-step from rest with only shape matching: m dv / h is the force
// (with the integrators other than symplectic Euler, the weighted mean of
// their stages' forces, which differs by O(h^2); with the implicit step,
// the force at the step's end, up to the solver's residual).
static void check_force(const psb_mesh *mesh, bool ring, psb_integrator integrator,
                        const char *name) {
    // The implicit step's v = (x - x_n) / h carries the positions' rounding
    // over h, so it takes a longer step.
    const bool implicit = psb_integrator_is_implicit(integrator);
    const double h = implicit ? 1e-3 : 1e-6, k = 40.0;
    char what[96];
    snprintf(what, sizeof what, "%s (%s)", name, psb_integrator_name(integrator));
    psb_world *w = free_world(h, integrator);
    const int id = w ? add_mesh(w, mesh, shape_only(k, 0.0), (psb_vec3){0.2, 1.0, -0.3}) : -1;
    const int n = mesh->point_count;
    psb_vec3 *x = malloc((size_t)n * sizeof *x), *g = malloc((size_t)n * sizeof *g);
    psb_vec3 *dir = malloc((size_t)n * sizeof *dir);
    if (id < 0 || !x || !g || !dir) {
        free(x);
        free(g);
        free(dir);
        psb_world_destroy(w);
        return;
    }
    uint64_t seed = 3;
    double R[9];
    axis_angle(ring ? (psb_vec3){0, 0, 1} : (psb_vec3){1, 1, -2}, 0.8, R);
    const psb_vec3 *p = psb_body_positions(w, id);
    for (int i = 0; i < n; i++) {
        const psb_vec3 jitter = {0.1 * rnd(&seed), 0.1 * rnd(&seed), ring ? 0.0 : 0.1 * rnd(&seed)};
        x[i] = add(apply(R, p[i]), jitter);
        dir[i] = (psb_vec3){rnd(&seed), rnd(&seed), ring ? 0.0 : rnd(&seed)};
    }
    psb_error err = {0};
    CHECK(psb_body_set_state(w, id, x, NULL, &err) == PSB_OK, "%s: set_state: %s", what,
          err.message);
    psb_body_shape_match(w, id, g, NULL);
    double energy = 0.0;
    for (int i = 0; i < n; i++) {
        const psb_vec3 d = sub(g[i], x[i]);
        energy += 0.5 * k * dot(d, d);
    }
    const psb_body_state s0 = psb_body_measure(w, id);
    CHECK(fabs(s0.shape - energy) <= 1e-12 * energy, "%s: shape energy %.17g, expected %.17g", what,
          s0.shape, energy);
    CHECK(fabs(s0.energy - (s0.kinetic + s0.spring + s0.gas + s0.gravity + s0.shape)) <=
              1e-12 * fabs(s0.energy),
          "%s: energy %.17g does not include the shape energy", what, s0.energy);

    // The energy's slope along dir: -sum F . dir (central difference).
    const double eps = 1e-6;
    double work = 0.0;
    for (int i = 0; i < n; i++) {
        work += k * dot(sub(g[i], x[i]), dir[i]);
    }
    double e_side[2];
    for (int side = 0; side < 2; side++) {
        psb_vec3 *y = malloc((size_t)n * sizeof *y);
        if (!y) {
            break;
        }
        for (int i = 0; i < n; i++) {
            y[i] = add(x[i], scale(dir[i], side ? -eps : eps));
        }
        psb_body_set_state(w, id, y, NULL, &err);
        e_side[side] = psb_body_measure(w, id).shape;
        free(y);
    }
    const double slope = (e_side[0] - e_side[1]) / (2.0 * eps);
    CHECK(fabs(slope + work) <= 1e-6 * fabs(work),
          "%s: dE/ds = %.12g along a random direction, but the forces do %.12g of work", what,
          slope, work);
    psb_body_set_state(w, id, x, NULL, &err);

    CHECK(psb_world_step(w) == 0, "%s: blow-up: %s", what, psb_world_last_event(w));
    const psb_vec3 *v = psb_body_velocities(w, id);
    const double *m = psb_body_masses(w, id);
    const psb_vec3 c = centroid(x, n);
    if (implicit) {
        // Backward Euler (BDF2 starts with its step): the force where the step ends.
        psb_body_shape_match(w, id, g, NULL);
        memcpy(x, psb_body_positions(w, id), (size_t)n * sizeof *x);
    }
    psb_vec3 total = {0, 0, 0}, torque = {0, 0, 0};
    double f_scale = 0.0, t_scale = 0.0, worst = 0.0;
    for (int i = 0; i < n; i++) {
        const psb_vec3 f = scale(v[i], m[i] / h);
        const psb_vec3 want = scale(sub(g[i], x[i]), k);
        worst = fmax(worst, norm(sub(f, want)));
        total = add(total, f);
        torque = add(torque, cross(sub(x[i], c), f));
        f_scale += norm(f);
        t_scale += norm(sub(x[i], c)) * norm(f);
    }
    CHECK(f_scale > 0.0, "%s: no force on a deformed body", what);
    // RK4's and Verlet's later stages see the points moved by h^2 F / 2m.
    const double tol = integrator == PSB_RK4 || integrator == PSB_VERLET ? 1e-7 : 1e-9;
    CHECK(worst <= tol * f_scale / n, "%s: m dv/h differs from k (g - x) by up to %.3g N", what,
          worst);
    CHECK(norm(total) <= 1e-12 * f_scale, "%s: net force %.3g N (sum |F| = %.3g N)", what,
          norm(total), f_scale);
    // The implicit step's solve keeps the net force to rounding (its last
    // move is the translation that zeroes it) but the torque only to the
    // solver's tolerance.
    CHECK(norm(torque) <= (implicit ? 1e-9 : 1e-12) * t_scale,
          "%s: torque %.3g N m about the centroid (scale %.3g)", what, norm(torque), t_scale);
    free(x);
    free(g);
    free(dir);
    psb_world_destroy(w);
}

static void test_force(void) {
    psb_mesh m[3];
    psb_error err = {0};
    lumpy_sphere(&m[0], 2);
    CHECK(psb_mesh_square_ring(&m[1], 24, 0.6, &err) == PSB_OK, "square ring: %s", err.message);
    CHECK(psb_mesh_cloth(&m[2], 8, 6, 1.0, 0.7, &err) == PSB_OK, "cloth: %s", err.message);
    static const char *const names[3] = {"shell", "square ring", "cloth"};
    for (int integrator = 0; integrator < PSB_INTEGRATOR_COUNT; integrator++) {
        for (int b = 0; b < 3; b++) {
            check_force(&m[b], b == 1, (psb_integrator)integrator, names[b]);
        }
    }
    for (int b = 0; b < 3; b++) {
        psb_mesh_free(&m[b]);
    }
}

// ---- damping

// The rigid-body velocity field of points x with velocities v and masses m:
// u_i = vc + omega x (x_i - xc). Returns the rigid part's kinetic energy.
static double rigid_field(const psb_vec3 *x, const psb_vec3 *v, const double *m, int n,
                          psb_vec3 *u) {
    double M = 0.0;
    psb_vec3 xc = {0, 0, 0}, vc = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        M += m[i];
        xc = add(xc, scale(x[i], m[i]));
        vc = add(vc, scale(v[i], m[i]));
    }
    xc = scale(xc, 1.0 / M);
    vc = scale(vc, 1.0 / M);
    psb_vec3 L = {0, 0, 0};
    double I[9] = {0};
    for (int i = 0; i < n; i++) {
        const psb_vec3 r = sub(x[i], xc);
        L = add(L, scale(cross(r, sub(v[i], vc)), m[i]));
        const double rr[3] = {r.x, r.y, r.z}, r2 = dot(r, r);
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) {
                I[3 * a + b] += m[i] * ((a == b ? r2 : 0.0) - rr[a] * rr[b]);
            }
        }
    }
    // omega = I^-1 L by Cramer's rule.
    const double d = det3(I);
    psb_vec3 omega;
    double A[9];
    memcpy(A, I, sizeof A);
    A[0] = L.x;
    A[3] = L.y;
    A[6] = L.z;
    omega.x = det3(A) / d;
    memcpy(A, I, sizeof A);
    A[1] = L.x;
    A[4] = L.y;
    A[7] = L.z;
    omega.y = det3(A) / d;
    memcpy(A, I, sizeof A);
    A[2] = L.x;
    A[5] = L.y;
    A[8] = L.z;
    omega.z = det3(A) / d;
    for (int i = 0; u && i < n; i++) {
        u[i] = add(vc, cross(omega, sub(x[i], xc)));
    }
    return 0.5 * M * dot(vc, vc) + 0.5 * dot(omega, L);
}

static psb_vec3 angular_momentum(const psb_world *w, int id, double *scale_out) {
    const int n = psb_body_point_count(w, id);
    const psb_vec3 *x = psb_body_positions(w, id), *v = psb_body_velocities(w, id);
    const double *m = psb_body_masses(w, id);
    const psb_vec3 c = centroid(x, n);
    psb_vec3 l = {0, 0, 0};
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        l = add(l, scale(cross(x[i], v[i]), m[i]));
        s += m[i] * norm(sub(x[i], c)) * norm(v[i]);
    }
    if (scale_out) {
        *scale_out = s;
    }
    return l;
}

static void test_damping(void) {
    psb_mesh m;
    lumpy_sphere(&m, 1);
    const int n = m.point_count;
    const double rate = 4.0, h = 0.01;
    psb_world *w = free_world(h, PSB_SYMPLECTIC_EULER);
    const int id = w ? add_mesh(w, &m, shape_only(0.0, rate), (psb_vec3){0.0, 1.0, 0.0}) : -1;
    psb_vec3 *x = malloc((size_t)n * sizeof *x), *v = malloc((size_t)n * sizeof *v);
    psb_vec3 *u = malloc((size_t)n * sizeof *u);
    if (id < 0 || !x || !v || !u) {
        free(x);
        free(v);
        free(u);
        psb_world_destroy(w);
        psb_mesh_free(&m);
        return;
    }
    // A slow spin and drift plus a random deformation velocity.
    uint64_t seed = 17;
    // (The spin is slow: drifting points of a spinning body leave its rigid
    // field at about |omega|^2 r, which would feed the deformation's energy.)
    const psb_vec3 spin = {0.02, -0.04, 0.03}, drift = {0.3, -0.1, 0.2};
    const psb_vec3 *p = psb_body_positions(w, id);
    const psb_vec3 c = centroid(p, n);
    for (int i = 0; i < n; i++) {
        x[i] = p[i];
        v[i] = add(add(drift, cross(spin, sub(p[i], c))),
                   (psb_vec3){0.1 * rnd(&seed), 0.1 * rnd(&seed), 0.1 * rnd(&seed)});
    }
    psb_error err = {0};
    CHECK(psb_body_set_state(w, id, x, v, &err) == PSB_OK, "set_state: %s", err.message);
    const double *mass = psb_body_masses(w, id);

    // One sub-step: the points drift (no forces), then the velocities relax
    // toward the rigid field of the drifted points.
    CHECK(psb_world_step(w) == 0, "damping: blow-up: %s", psb_world_last_event(w));
    const psb_vec3 *x1 = psb_body_positions(w, id), *v1 = psb_body_velocities(w, id);
    double worst_x = 0.0, worst_v = 0.0, v_scale = 0.0;
    rigid_field(x1, v, mass, n, u);
    const double keep = exp(-rate * h);
    for (int i = 0; i < n; i++) {
        worst_x = fmax(worst_x, norm(sub(x1[i], add(x[i], scale(v[i], h)))));
        const psb_vec3 want = add(u[i], scale(sub(v[i], u[i]), keep));
        worst_v = fmax(worst_v, norm(sub(v1[i], want)));
        v_scale = fmax(v_scale, norm(v[i]));
    }
    CHECK(worst_x <= 1e-15 * 4.0, "damping: the drift moved a point %.3g m off x + h v", worst_x);
    CHECK(worst_v <= 1e-12 * v_scale,
          "damping: a velocity is %.3g m/s off u + (v - u) exp(-rate h) (|v| up to %.3g)", worst_v,
          v_scale);

    // A run of 0.3 s in steps of 1 ms.
    psb_body_set_state(w, id, x, v, &err);
    psb_params p1 = *psb_world_params(w);
    p1.dt = 0.01;
    p1.substeps = 10;
    CHECK(psb_world_set_params(w, &p1, &err) == PSB_OK, "set_params: %s", err.message);
    const psb_body_state s0 = psb_body_measure(w, id);
    double l_scale = 0.0;
    const psb_vec3 l0 = angular_momentum(w, id, &l_scale);
    const double def0 = s0.kinetic - rigid_field(x, v, mass, n, NULL);
    double p_scale = 0.0;
    for (int i = 0; i < n; i++) {
        p_scale += mass[i] * norm(v[i]);
    }
    double worst_p = 0.0, worst_l = 0.0;
    for (int k = 0; k < 30; k++) {
        psb_world_step(w);
        const psb_body_state s = psb_body_measure(w, id);
        worst_p = fmax(worst_p, norm(sub(s.momentum, s0.momentum)));
        worst_l = fmax(worst_l, norm(sub(angular_momentum(w, id, NULL), l0)));
    }
    CHECK(worst_p <= 1e-12 * p_scale, "damping: momentum changed by %.3g (scale %.3g)", worst_p,
          p_scale);
    CHECK(worst_l <= 1e-12 * l_scale, "damping: angular momentum changed by %.3g (scale %.3g)",
          worst_l, l_scale);
    const psb_body_state s1 = psb_body_measure(w, id);
    const double def1 = s1.kinetic - rigid_field(psb_body_positions(w, id),
                                                 psb_body_velocities(w, id), mass, n, NULL);
    const double expected = def0 * exp(-2.0 * rate * 0.3);
    CHECK(def1 > 0.85 * expected && def1 < 1.15 * expected,
          "damping: deformation kinetic energy %.4g J after 0.3 s, expected %.4g J "
          "(from %.4g J, exp(-2 rate t))",
          def1, expected, def0);
    free(x);
    free(v);
    free(u);
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

// ---- energy

// Max |E(t) - E(0)| over 0.5 s of an undamped body with springs, gas and
// shape matching, at sub-step h.
static double energy_drift(psb_integrator integrator, double h, double *scale_out) {
    psb_mesh m;
    lumpy_sphere(&m, 1);
    const double time = 0.5;
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.walls = false;
    p.integrator = integrator;
    p.substeps = (int)lround(0.01 / h);
    p.dt = h * p.substeps;
    psb_world *w = make_world(&p);
    psb_body_params bp = material(100.0, 0.0, 20.0);
    bp.shape_k = 80.0;
    const int id = w ? add_mesh(w, &m, bp, (psb_vec3){0.0, 1.0, 0.0}) : -1;
    const int n = m.point_count;
    psb_vec3 *x = malloc((size_t)n * sizeof *x), *v = malloc((size_t)n * sizeof *v);
    double drift = INFINITY;
    if (id >= 0 && x && v) {
        uint64_t seed = 23;
        double R[9];
        axis_angle((psb_vec3){1, 0.5, 0}, 0.6, R);
        const psb_vec3 *x0 = psb_body_positions(w, id);
        for (int i = 0; i < n; i++) {
            x[i] = add(apply(R, x0[i]),
                       (psb_vec3){0.04 * rnd(&seed), 0.04 * rnd(&seed), 0.04 * rnd(&seed)});
            v[i] = (psb_vec3){0.4 * rnd(&seed), 0.4 * rnd(&seed), 0.4 * rnd(&seed)};
        }
        psb_error err = {0};
        psb_body_set_state(w, id, x, v, &err);
        const psb_body_state s0 = psb_body_measure(w, id);
        CHECK(s0.shape > 0.0, "energy: the body starts deformed, shape energy %g", s0.shape);
        *scale_out = s0.kinetic + s0.spring + s0.shape;
        drift = 0.0;
        for (int k = 0; k < (int)lround(time / p.dt); k++) {
            CHECK(psb_world_step(w) == 0, "energy: blow-up: %s", psb_world_last_event(w));
            drift = fmax(drift, fabs(psb_body_measure(w, id).energy - s0.energy));
        }
    }
    free(x);
    free(v);
    psb_world_destroy(w);
    psb_mesh_free(&m);
    return drift;
}

static void test_energy(void) {
    static const struct {
        psb_integrator integrator;
        double lo, hi; // drift(h) / drift(h/2)
    } cases[] = {{PSB_SYMPLECTIC_EULER, 1.6, 2.5}, {PSB_VERLET, 3.2, 5.0}};
    for (int c = 0; c < 2; c++) {
        double scale_e = 1.0;
        const double coarse = energy_drift(cases[c].integrator, 2e-4, &scale_e);
        const double fine = energy_drift(cases[c].integrator, 1e-4, &scale_e);
        const char *name = psb_integrator_name(cases[c].integrator);
        CHECK(coarse <= 0.02 * scale_e, "%s: energy drift %.3g J of %.3g J at h = 2e-4 s", name,
              coarse, scale_e);
        const double ratio = coarse / fine;
        CHECK(ratio >= cases[c].lo && ratio <= cases[c].hi,
              "%s: energy drift %.3g J at h, %.3g J at h/2: ratio %.3g, expected %g..%g", name,
              coarse, fine, ratio, cases[c].lo, cases[c].hi);
    }
}

// ---- equilibria with gas

// Runs a body from its rest shape to rest with gravity off; its final state.
static psb_body_state settle(const psb_mesh *mesh, psb_body_params bp, double h, double time,
                             const char *what) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.walls = false;
    const int world_steps = 100;
    p.substeps = (int)ceil(time / h / world_steps);
    p.dt = h * p.substeps;
    psb_body_state s;
    memset(&s, 0, sizeof s);
    CHECK(p.substeps <= 10000, "%s: %d sub-steps is too many for this test", what, p.substeps);
    psb_world *w = make_world(&p);
    const int id = w ? add_mesh(w, mesh, bp, (psb_vec3){1.0, -2.0, 0.5}) : -1;
    int blowups = 0;
    for (int k = 0; id >= 0 && k < world_steps; k++) {
        blowups += psb_world_step(w);
    }
    CHECK(blowups == 0, "%s: blow-up: %s", what, w ? psb_world_last_event(w) : "");
    if (id >= 0) {
        s = psb_body_measure(w, id);
    }
    psb_world_destroy(w);
    return s;
}

static void test_gas_equilibrium(void) {
    // Icosahedron of circumradius r0: 30 edges of L0 = r0 / sin(2 pi / 5),
    // 12 points at |q| = r0. U(sigma) = 1/2 A (sigma - 1)^2 - 3 nRT ln sigma
    // with A = ks sum L0^2 + k_shape sum |q|^2, so sigma (sigma - 1) A = 3 nRT.
    psb_mesh m;
    psb_error err = {0};
    const double r0 = 0.8, ks = 300.0, kshape = 150.0, nrt = 60.0, mass = 1.0;
    CHECK(psb_mesh_icosphere(&m, 0, r0, &err) == PSB_OK, "icosahedron: %s", err.message);
    const double edge = r0 / sin(2.0 * pi / 5.0);
    const double A = ks * 30.0 * edge * edge + kshape * 12.0 * r0 * r0;
    const double sigma = 0.5 * (1.0 + sqrt(1.0 + 12.0 * nrt / A));
    // Breathing: U'' = A + 3 nRT / sigma^2 against the mass M r0^2; shape
    // damping (it damps any non-rigid motion) at twice its frequency.
    const double omega = sqrt((A + 3.0 * nrt / (sigma * sigma)) / (mass * r0 * r0));
    psb_body_params bp = material(ks, 0.0, nrt);
    bp.shape_k = kshape;
    bp.shape_damping = 2.0 * omega;
    const double mi = mass / 12.0;
    const double h = 0.05 / sqrt((20.0 * ks + kshape) / mi);
    psb_body_state s = settle(&m, bp, h, 30.0 / omega, "icosahedron with shape matching");
    CHECK(fabs(s.mean_radius - sigma * r0) <= 1e-6 * sigma * r0,
          "icosahedron with gas and shape matching: mean radius %.9g, expected %.9g "
          "(without shape matching it would be %.9g)",
          s.mean_radius, sigma * r0,
          r0 * 0.5 * (1.0 + sqrt(1.0 + 12.0 * nrt / (ks * 30.0 * edge * edge))));
    CHECK(s.kinetic <= 1e-10 * nrt, "icosahedron with shape matching: not at rest, %.3g J",
          s.kinetic);
    // At rest every goal is at r0 from the centroid: shape energy
    // 1/2 k_shape 12 (sigma - 1)^2 r0^2.
    const double e_shape = 0.5 * kshape * 12.0 * (sigma - 1.0) * (sigma - 1.0) * r0 * r0;
    CHECK(fabs(s.shape - e_shape) <= 1e-5 * e_shape,
          "icosahedron with shape matching: shape energy %.9g J, expected %.9g J", s.shape,
          e_shape);
    psb_mesh_free(&m);

    // Ring of N points: U(r) = N/2 ks (2 r s - L0)^2 + N/2 k_shape (r - r0)^2
    // - nRT ln(N r^2 s c); U'(r) = 2 N ks s (2 r s - L0) + N k_shape (r - r0)
    // - 2 nRT / r, solved by bisection.
    const int n = 24;
    const double rr0 = 0.5, rks = 400.0, rkshape = 60.0, rnrt = 8.0;
    CHECK(psb_mesh_ring(&m, n, rr0, &err) == PSB_OK, "ring: %s", err.message);
    const double s_ = sin(pi / n), l0 = 2.0 * rr0 * s_;
    double lo = rr0, hi = 10.0 * rr0;
    for (int it = 0; it < 200; it++) {
        const double r = 0.5 * (lo + hi);
        const double f =
            2.0 * n * rks * s_ * (2.0 * r * s_ - l0) + n * rkshape * (r - rr0) - 2.0 * rnrt / r;
        if (f < 0.0) {
            lo = r;
        } else {
            hi = r;
        }
    }
    const double want = 0.5 * (lo + hi);
    const double stiff = 4.0 * n * rks * s_ * s_ + n * rkshape + 2.0 * rnrt / (want * want);
    const double rom = sqrt(stiff / mass);
    bp = material(rks, 0.0, rnrt);
    bp.shape_k = rkshape;
    bp.shape_damping = 2.0 * rom;
    const double rh = 0.05 / sqrt((4.0 * rks + rkshape) / (mass / n));
    s = settle(&m, bp, rh, 30.0 / rom, "ring with shape matching");
    CHECK(fabs(s.mean_radius - want) <= 1e-6 * want,
          "ring with gas and shape matching: mean radius %.9g, expected %.9g", s.mean_radius, want);
    psb_mesh_free(&m);
}

// ---- holding a shape without gas

typedef struct rest_result {
    double volume_low, volume_high; // V / V0, lowest and highest over the last second
    double goal_error;              // max |x_i - g_i| / radius over the last second
    double goal_mean;               // that max, averaged over the last second's steps
    int blowups;
} rest_result;

// Drops the body (no gas) from just above the floor and watches it over the
// last second of `time` s. It never quite stops: resting on the few points
// that touch the floor it bobs on them (the contact's stiffness is shape_k
// times their count), a motion almost rigid that shape damping hardly slows.
static rest_result drop(const psb_mesh *mesh, double shape_k, double shape_damping, double radius,
                        double time) {
    rest_result r = {.volume_low = INFINITY, .volume_high = -INFINITY};
    psb_params p = psb_default_params();
    p.walls = false;
    psb_world *w = make_world(&p);
    psb_body_params bp = psb_default_body_params();
    bp.gas_nrt = 0.0;
    bp.shape_k = shape_k;
    bp.shape_damping = shape_damping;
    const int id = w ? add_mesh(w, mesh, bp, (psb_vec3){0.0, radius + 0.05, 0.0}) : -1;
    const int n = mesh->point_count;
    psb_vec3 *g = malloc((size_t)n * sizeof *g);
    if (id >= 0 && g) {
        const int steps = (int)lround(time / p.dt), watched = (int)lround(1.0 / p.dt);
        for (int k = 0; k < steps; k++) {
            r.blowups += psb_world_step(w);
            if (k < steps - watched) {
                continue;
            }
            const psb_body_state s = psb_body_measure(w, id);
            r.volume_low = fmin(r.volume_low, s.volume / s.rest_volume);
            r.volume_high = fmax(r.volume_high, s.volume / s.rest_volume);
            psb_body_shape_match(w, id, g, NULL);
            const psb_vec3 *x = psb_body_positions(w, id);
            double worst = 0.0;
            for (int i = 0; i < n; i++) {
                worst = fmax(worst, norm(sub(x[i], g[i])) / radius);
            }
            r.goal_error = fmax(r.goal_error, worst);
            r.goal_mean += worst / watched;
        }
    }
    free(g);
    psb_world_destroy(w);
    return r;
}

// Checks that a body with shape matching and no gas holds its shape, and
// that without either it collapses (else the first check proves nothing).
static void check_holds(const psb_mesh *mesh, double shape_k, const char *what) {
    const double radius = 0.5;
    const rest_result with = drop(mesh, shape_k, 1.0, radius, 5.0);
    CHECK(with.blowups == 0, "%s with shape matching: %d blow-ups", what, with.blowups);
    // The few points that touch the floor carry the weight: about M g / (n k_shape)
    // each for n of them, 3 cm (6 % of the radius) for the shell's three or four
    // at k_shape = 100 N/m; the body bobs a little about that.
    CHECK(with.goal_mean < 0.08 && with.goal_error < 0.12,
          "%s with shape matching, no gas, on the floor: points up to %.3g radii from their "
          "goals (%.3g on average) over the fifth second",
          what, with.goal_error, with.goal_mean);
    CHECK(with.volume_low > 0.98 && with.volume_high < 1.02,
          "%s with shape matching, no gas, on the floor: volume %.4g..%.4g of the rest volume",
          what, with.volume_low, with.volume_high);
    const rest_result without = drop(mesh, 0.0, 0.0, radius, 5.0);
    CHECK(without.volume_high < 0.5 && without.goal_mean > 0.3,
          "%s without shape matching or gas: volume up to %.4g of the rest volume, points %.3g "
          "radii from their goals: it should have collapsed",
          what, without.volume_high, without.goal_mean);
}

static void test_holds_shape(void) {
    psb_mesh m;
    psb_error err = {0};
    CHECK(psb_mesh_icosphere(&m, 2, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    check_holds(&m, 100.0, "shell");
    psb_mesh_free(&m);
    // A ring touches the floor at one or two points, which carry its whole
    // weight: it needs a stiffer shape to sit as close to its goals.
    CHECK(psb_mesh_ring(&m, 32, 0.5, &err) == PSB_OK, "ring: %s", err.message);
    check_holds(&m, 300.0, "ring");
    psb_mesh_free(&m);
}

int main(void) {
    test_exact_fit();
    test_best_rotation();
    test_force();
    test_damping();
    test_energy();
    test_gas_equilibrium();
    test_holds_shape();
    return check_done("test_shape");
}
