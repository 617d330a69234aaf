// Order of convergence of each integrator on problems with an exact answer.
//
// A regular icosahedron with springs only (no gas, no gravity, kd = 0),
// started at rest scaled by sigma0 from its rest shape, stays a scaled
// icosahedron by symmetry. Each point has 5 springs to neighbours at central
// angle theta; with r the radius, each spring has length 2 r sin(theta/2)
// and rest length L0 = 2 R0 sin(theta/2), and its pull on the point has the
// radial component sin(theta/2). So
//     m_i r'' = -5 ks (2 r sin(theta/2) - L0) sin(theta/2)
//             = -10 ks sin^2(theta/2) (r - R0),
// an exact harmonic oscillator: r(t) = R0 + (r0 - R0) cos(omega t) with
// omega^2 = 10 ks sin^2(theta/2) / m_i. A regular N-gon ring likewise has two
// springs per point at half-angle pi/N: omega^2 = 4 ks sin^2(pi/N) / m_i.
//
// The error of mean_radius at a fixed time T, for h, h/2 and h/4, gives the
// observed order: 1 for explicit, symplectic and backward Euler, 2 for Heun,
// velocity Verlet and BDF2, 4 for RK4. T is chosen so that neither
// sin(omega T) nor cos(omega T) is small (the first-order and phase errors
// scale with them).
#include <math.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static const double pi = 3.14159265358979323846;
static const double omega_t = 2.0 * 3.14159265358979323846 * 1.3; // omega T, rad

typedef struct oscillator {
    psb_mesh mesh;      // rest shape, about the origin
    psb_vec3 start[64]; // rest shape scaled by sigma0
    double rest_radius; // R0, m
    double amplitude;   // r0 - R0, m
    double omega;       // rad/s
    psb_body_params params;
} oscillator;

static bool make_oscillator(oscillator *o, bool ring) {
    memset(o, 0, sizeof *o);
    psb_error err;
    const double r0 = 0.8, sigma0 = 1.1;
    psb_status st =
        ring ? psb_mesh_ring(&o->mesh, 12, r0, &err) : psb_mesh_icosphere(&o->mesh, 0, r0, &err);
    CHECK(st == PSB_OK, "mesh: %s", err.message);
    if (st != PSB_OK || o->mesh.point_count > 64) {
        return false;
    }
    o->params = psb_default_body_params();
    o->params.inflate_time = 0.0;
    o->params.mass_by_area = false;
    o->params.mass = 1.2;
    o->params.spring_k = 100.0;
    o->params.spring_damping = 0.0;
    o->params.gas_nrt = 0.0;
    o->params.outside_pressure = 0.0;
    const int n = o->mesh.point_count;
    const double mi = o->params.mass / n;
    if (ring) {
        const double s = sin(pi / n);
        o->omega = sqrt(4.0 * o->params.spring_k * s * s / mi);
    } else {
        // sin(theta/2) = L0 / (2 R0) from one edge of the mesh.
        const psb_vec3 a = o->mesh.points[o->mesh.triangles[0]];
        const psb_vec3 b = o->mesh.points[o->mesh.triangles[1]];
        const double l0 =
            sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
        const double half = l0 / (2.0 * r0);
        // The icosahedron's edge is R0 / sin(2 pi / 5).
        CHECK(fabs(half - 0.5 / sin(2.0 * pi / 5.0)) < 1e-12, "icosahedron edge/radius %.17g",
              2.0 * half);
        o->omega = sqrt(10.0 * o->params.spring_k * half * half / mi);
    }
    for (int i = 0; i < n; i++) {
        const psb_vec3 p = o->mesh.points[i];
        o->start[i] = (psb_vec3){sigma0 * p.x, sigma0 * p.y, sigma0 * p.z};
    }
    o->rest_radius = r0;
    o->amplitude = (sigma0 - 1.0) * r0;
    return true;
}

static psb_world *oscillator_world(const oscillator *o, psb_integrator integrator, double dt,
                                   int substeps, int *id) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.integrator = integrator;
    p.dt = dt;
    p.substeps = substeps;
    p.solver_tol = 1e-10; // the implicit step solved tightly (the others ignore it)
    psb_world *w = make_world(&p);
    if (!w) {
        return NULL;
    }
    psb_error err;
    psb_body_def def = psb_mesh_body_def(&o->mesh);
    def.points = o->start;
    def.rest_points = o->mesh.points;
    def.params = o->params;
    *id = psb_world_add_body(w, &def, &err);
    CHECK(*id == 0, "add_body: %s", err.message);
    if (*id != 0) {
        psb_world_destroy(w);
        return NULL;
    }
    return w;
}

static double exact_radius(const oscillator *o, double t) {
    return o->rest_radius + o->amplitude * cos(o->omega * t);
}

// |mean_radius(T) - exact| after `total` sub-steps over T = omega_t / omega.
static double radius_error(const oscillator *o, psb_integrator integrator, int total) {
    const int world_steps = 10;
    const double T = omega_t / o->omega;
    int id;
    psb_world *w = oscillator_world(o, integrator, T / world_steps, total / world_steps, &id);
    if (!w) {
        return NAN;
    }
    int blowups = 0;
    for (int k = 0; k < world_steps; k++) {
        blowups += psb_world_step(w);
    }
    CHECK(blowups == 0, "blow-up in the oscillator run: %s", psb_world_last_event(w));
    CHECK(fabs(psb_world_time(w) - T) < 1e-12 * T, "world time %.17g, expected %.17g",
          psb_world_time(w), T);
    const double e = fabs(psb_body_measure(w, id).mean_radius - exact_radius(o, T));
    psb_world_destroy(w);
    return e;
}

static void test_orders(bool ring) {
    oscillator o;
    if (!make_oscillator(&o, ring)) {
        return;
    }
    const struct {
        psb_integrator integrator;
        double order;
        double omega_h; // at the coarsest step
        double finest;  // error at h/4, as a fraction of the amplitude
    } methods[] = {
        {PSB_EULER, 1.0, 0.01, 0.02},  {PSB_SYMPLECTIC_EULER, 1.0, 0.01, 5e-3},
        {PSB_HEUN, 2.0, 0.05, 1e-3},   {PSB_RK4, 4.0, 0.2, 1e-5},
        {PSB_VERLET, 2.0, 0.05, 1e-3}, {PSB_IMPLICIT, 1.0, 0.01, 0.02},
        {PSB_BDF2, 2.0, 0.05, 2e-3},
    };
    const char *body = ring ? "ring" : "icosahedron";
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
        // Sub-steps over T, a multiple of the 10 world steps.
        const int n0 = 10 * (int)ceil(omega_t / methods[k].omega_h / 10.0);
        double e[3];
        for (int level = 0; level < 3; level++) {
            e[level] = radius_error(&o, methods[k].integrator, n0 << level);
        }
        const char *name = psb_integrator_name(methods[k].integrator);
        for (int level = 0; level < 2; level++) {
            const double p = log2(e[level] / e[level + 1]);
            CHECK(fabs(p - methods[k].order) <= 0.3,
                  "%s %s: error %.3g -> %.3g when h halves: observed order %.3f, expected %g", body,
                  name, e[level], e[level + 1], p, methods[k].order);
        }
        CHECK(e[2] < methods[k].finest * o.amplitude,
              "%s %s: error %.3g m at the finest step (amplitude %g m)", body, name, e[2],
              o.amplitude);
    }
    psb_mesh_free(&o.mesh);
}

// Switching the integrator between world steps of a live world: the run
// goes on, each step uses the method set, and the answer stays close to the
// exact one.
static void test_switching(void) {
    oscillator o;
    if (!make_oscillator(&o, false)) {
        return;
    }
    const int world_steps = 20;
    const double T = omega_t / o.omega;
    // omega h = 0.002 for every method.
    const int substeps = (int)ceil(omega_t / 0.002 / world_steps);
    int id;
    psb_world *w = oscillator_world(&o, PSB_RK4, T / world_steps, substeps, &id);
    if (!w) {
        psb_mesh_free(&o.mesh);
        return;
    }
    const double e0 = psb_body_measure(w, id).energy;
    const psb_integrator order[] = {PSB_RK4,   PSB_VERLET, PSB_HEUN, PSB_SYMPLECTIC_EULER,
                                    PSB_EULER, PSB_VERLET, PSB_RK4,  PSB_SYMPLECTIC_EULER};
    for (int k = 0; k < world_steps; k++) {
        psb_params p = *psb_world_params(w);
        p.integrator = order[k % (int)(sizeof order / sizeof order[0])];
        psb_error err;
        CHECK(psb_world_set_params(w, &p, &err) == PSB_OK, "set_params: %s", err.message);
        CHECK(psb_world_params(w)->integrator == p.integrator, "integrator not switched");
        CHECK(psb_world_step(w) == 0, "blow-up after switching to %s",
              psb_integrator_name(p.integrator));
        const psb_body_state s = psb_body_measure(w, id);
        const double t = psb_world_time(w);
        CHECK(fabs(s.mean_radius - exact_radius(&o, t)) < 5e-3 * o.amplitude,
              "after a step with %s at t = %g: radius %.9g, exact %.9g",
              psb_integrator_name(p.integrator), t, s.mean_radius, exact_radius(&o, t));
        CHECK(fabs(s.energy - e0) < 1e-2 * e0, "energy %.9g, at the start %.9g", s.energy, e0);
        CHECK(psb_world_step_count(w) == k + 1, "step count %ld", psb_world_step_count(w));
    }
    psb_world_destroy(w);
    psb_mesh_free(&o.mesh);
}

// Each method maps the oscillator's (X, V) = (r - R0, r') linearly, and
// the map pins down a quantity exactly (z = omega h, Q = omega^2 X^2 + V^2):
//   explicit Euler:   Q_n = Q_0 (1 + z^2)^n          (|1 + i z|^2 per step)
//   Heun:             Q_n = Q_0 (1 + z^4 / 4)^n      (|1 + i z - z^2/2|^2)
//   RK4:              Q_n = Q_0 |1 + i z - z^2/2 - i z^3/6 + z^4/24|^(2n)
//   symplectic Euler: omega^2 X^2 + V^2 - h omega^2 X V is invariant
//   velocity Verlet:  omega^2 X^2 (1 - z^2/4) + V^2 is invariant
//   backward Euler:   Q_n = Q_0 (1 + z^2)^-n     (|1 / (1 - i z)|^2)
//   BDF2:             two steps, so no one-step invariant: (X, V) follow its
//                     recurrence, run here on the scalar oscillator from the
//                     same start (a backward Euler step first)
// so a method that is secretly another one (or mixes up its stages) fails.
static void oscillator_state(const psb_world *w, int id, double r0, double *x, double *v) {
    const int n = psb_body_point_count(w, id);
    const psb_vec3 *p = psb_body_positions(w, id);
    const psb_vec3 *u = psb_body_velocities(w, id);
    double rsum = 0.0, vsum = 0.0;
    for (int i = 0; i < n; i++) {
        const double r = sqrt(p[i].x * p[i].x + p[i].y * p[i].y + p[i].z * p[i].z);
        rsum += r;
        vsum += (u[i].x * p[i].x + u[i].y * p[i].y + u[i].z * p[i].z) / r;
    }
    *x = rsum / n - r0;
    *v = vsum / n;
}

static void test_discrete_invariants(bool ring) {
    oscillator o;
    if (!make_oscillator(&o, ring)) {
        return;
    }
    const double z = 0.1;
    const double h = z / o.omega;
    const double w2 = o.omega * o.omega;
    const int steps = 10, substeps = 10, n = steps * substeps;
    for (int ig = 0; ig < PSB_INTEGRATOR_COUNT; ig++) {
        const psb_integrator integrator = (psb_integrator)ig;
        int id;
        psb_world *w = oscillator_world(&o, integrator, h * substeps, substeps, &id);
        if (!w) {
            continue;
        }
        double x0, v0, x, v;
        oscillator_state(w, id, o.rest_radius, &x0, &v0);
        for (int k = 0; k < steps; k++) {
            psb_world_step(w);
        }
        oscillator_state(w, id, o.rest_radius, &x, &v);
        const double q0 = w2 * x0 * x0 + v0 * v0, q = w2 * x * x + v * v;
        double got = 0.0, want = 0.0;
        switch (integrator) {
        case PSB_EULER:
            got = q / q0;
            want = pow(1.0 + z * z, n);
            break;
        case PSB_HEUN:
            got = q / q0;
            want = pow(1.0 + z * z * z * z / 4.0, n);
            break;
        case PSB_RK4: {
            const double re = 1.0 - z * z / 2.0 + z * z * z * z / 24.0, im = z - z * z * z / 6.0;
            got = q / q0;
            want = pow(re * re + im * im, n);
            break;
        }
        case PSB_SYMPLECTIC_EULER:
            got = w2 * x * x + v * v - h * w2 * x * v;
            want = w2 * x0 * x0 + v0 * v0 - h * w2 * x0 * v0;
            break;
        case PSB_VERLET:
            got = w2 * x * x * (1.0 - z * z / 4.0) + v * v;
            want = w2 * x0 * x0 * (1.0 - z * z / 4.0) + v0 * v0;
            break;
        case PSB_IMPLICIT:
            got = q / q0;
            want = pow(1.0 + z * z, -n);
            break;
        case PSB_BDF2: {
            // x_{k+1} = xb + hb v_{k+1}, v_{k+1} = vb - hb omega^2 x_{k+1},
            // hb = 2 h / 3, xb and vb BDF2's (4 now - before) / 3; the
            // first step backward Euler's.
            const double hb = 2.0 * h / 3.0;
            double xk = (x0 + h * v0) / (1.0 + z * z), vk = (xk - x0) / h, xp = x0, vp = v0;
            for (int k = 1; k < n; k++) {
                const double xb = (4.0 * xk - xp) / 3.0, vb = (4.0 * vk - vp) / 3.0;
                const double xn = (xb + hb * vb) / (1.0 + hb * hb * w2);
                xp = xk;
                vp = vk;
                xk = xn;
                vk = (xn - xb) / hb;
            }
            got = q / q0;
            want = (w2 * xk * xk + vk * vk) / q0;
            break;
        }
        case PSB_INTEGRATOR_COUNT:
            break;
        }
        CHECK(fabs(got - want) <= 1e-9 * fabs(want),
              "%s %s: discrete invariant %.15g, expected %.15g (relative %.2e)",
              ring ? "ring" : "icosahedron", psb_integrator_name(integrator), got, want,
              (got - want) / want);
        psb_world_destroy(w);
    }
    psb_mesh_free(&o.mesh);
}

int main(void) {
    test_orders(false);
    test_orders(true);
    test_discrete_invariants(false);
    test_discrete_invariants(true);
    test_switching();
    return check_done("test_integrators");
}
