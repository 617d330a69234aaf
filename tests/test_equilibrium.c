// Equilibria of DESIGN.md section 1, reached by damped runs from the rest
// shape (gravity off, no floor), for parameter sets chosen without tuning.
//
// Ring of N points, radius r, rest length L0 (the chord of the rest circle),
// s = sin(pi/N), c = cos(pi/N). Energy per the model:
//     U(r) = N/2 ks (2 r s - L0)^2 - nRT ln V + P0 V,   V = N r^2 s c,
//     U'(r) = 2 N ks s (2 r s - L0) - 2 nRT / r + 2 N P0 r s c = 0.
// With P0 = 0 this is nRT / N = ks s r (2 r s - L0), solved by
//     r = (ks s L0 + sqrt(ks^2 s^2 L0^2 + 8 ks s^2 nRT / N)) / (4 ks s^2).
// Icosahedron scaled by sigma from its rest shape (all points equivalent):
//     ks sigma (sigma - 1) sum L0^2 = 3 nRT - 3 P0 V0 sigma^3.
// The test solves U' = 0 by bisection as well and checks that the closed form
// agrees, so the expected values do not rest on one derivation. The damped
// runs settle to about 1e-10, so the radius is checked to 1e-6 (DESIGN asks
// 0.1%): that pins the expansion r - r0 itself to better than 0.1%.
//
// Damping: started from a symmetric shape, only symmetric motion happens, so
// the breathing mode is the one to damp. Per point its stiffness is
// k = -dF/dr and its damping coefficient c_geom kd, with c_geom = 4 s^2 (ring)
// or 10 sin^2(theta/2) (icosahedron); kd is set to critical damping.
#include <math.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static const double pi = 3.14159265358979323846;

// Finds the root of f in [lo, hi] (f(lo) < 0 < f(hi)) by bisection.
typedef double (*scalar_fn)(double x, const double *args);
static double bisect(scalar_fn f, const double *args, double lo, double hi) {
    CHECK(f(lo, args) < 0 && f(hi, args) > 0, "bisection bracket [%g, %g] does not hold a root", lo,
          hi);
    for (int i = 0; i < 200; i++) {
        const double mid = 0.5 * (lo + hi);
        if (f(mid, args) < 0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

// args: N, ks, L0, nRT, P0. Returns U'(r) / 2.
static double ring_force(double r, const double *a) {
    const double n = a[0], ks = a[1], l0 = a[2], nrt = a[3], p0 = a[4];
    const double s = sin(pi / n), c = cos(pi / n);
    return n * ks * s * (2.0 * r * s - l0) - nrt / r + n * p0 * r * s * c;
}

// args: ks, sum L0^2, nRT, P0, V0. Returns dU/dsigma * sigma / 3... up to a
// positive factor: ks sigma (sigma - 1) sum L0^2 - 3 nRT + 3 P0 V0 sigma^3.
static double ico_force(double sigma, const double *a) {
    const double ks = a[0], sum_l2 = a[1], nrt = a[2], p0 = a[3], v0 = a[4];
    return ks * sigma * (sigma - 1.0) * sum_l2 - 3.0 * nrt + 3.0 * p0 * v0 * sigma * sigma * sigma;
}

// The implicit step runs at the frame step it is made for: backward Euler
// damps, and the equilibrium it converges to is the same.
#define IMPLICIT_H (1.0 / 60.0)

typedef struct run_setup {
    const psb_mesh *mesh;
    psb_body_params params; // kd filled in by the caller
    psb_integrator integrator;
    double h;    // s, sub-step
    double time; // s, run length
} run_setup;

// Runs to rest; returns the final state.
static psb_body_state run_to_rest(const run_setup *su, const char *name) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.integrator = su->integrator;
    p.solver_tol = 1e-10; // the implicit step solved tightly (the others ignore it)
    const int world_steps = 100;
    const long total = (long)ceil(su->time / su->h);
    p.substeps = (int)((total + world_steps - 1) / world_steps);
    p.dt = su->h * p.substeps;
    psb_error err;
    psb_body_state s;
    memset(&s, 0, sizeof s);
    CHECK(p.substeps <= 10000, "%s: %d sub-steps per world step is too many for this test", name,
          p.substeps);
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "%s: world: %s", name, err.message);
    if (!w) {
        return s;
    }
    psb_body_def def = psb_mesh_body_def(su->mesh);
    def.params = su->params;
    def.offset = (psb_vec3){1.0, -2.0, 0.5}; // the answer must not depend on where the body is
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "%s: add_body: %s", name, err.message);
    int blowups = 0;
    for (int k = 0; id == 0 && k < world_steps; k++) {
        blowups += psb_world_step(w);
    }
    CHECK(blowups == 0, "%s: blow-up: %s", name, psb_world_last_event(w));
    if (id == 0) {
        s = psb_body_measure(w, id);
    }
    psb_world_destroy(w);
    return s;
}

static void check_ring(int n, double radius, double mass, double ks, double nrt, double p0,
                       psb_integrator integrator) {
    char name[128];
    snprintf(name, sizeof name, "ring N=%d r0=%g m=%g ks=%g nRT=%g P0=%g %s", n, radius, mass, ks,
             nrt, p0, psb_integrator_name(integrator));
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_ring(&m, n, radius, &err) == PSB_OK, "ring: %s", err.message);
    const double s = sin(pi / n);
    const double l0 = 2.0 * radius * s;
    const double args[5] = {n, ks, l0, nrt, p0};
    double want = bisect(ring_force, args, 1e-3 * radius, 100.0 * radius);
    if (p0 == 0.0) {
        const double closed =
            (ks * s * l0 + sqrt(ks * ks * s * s * l0 * l0 + 8.0 * ks * s * s * nrt / n)) /
            (4.0 * ks * s * s);
        CHECK(fabs(closed - want) < 1e-12 * want, "%s: closed form %.17g vs root %.17g", name,
              closed, want);
        want = closed;
    }
    // Breathing stiffness U''(r) / N and critical damping at the equilibrium.
    const double mi = mass / n;
    const double c = cos(pi / n);
    const double k = 4.0 * ks * s * s + 2.0 * nrt / (n * want * want) + 2.0 * p0 * s * c;
    const double omega = sqrt(k / mi);
    const double kd = sqrt(k * mi) / (2.0 * s * s);
    // Step: resolve the fastest spring mode (omega^2 <= 4 ks / m_i) and the
    // fastest damping rate (4 kd / m_i) of the explicit methods.
    const double h = psb_integrator_is_implicit(integrator)
                         ? IMPLICIT_H
                         : fmin(0.1 / sqrt(4.0 * ks / mi), 0.25 * mi / (4.0 * kd));
    run_setup su = {
        .mesh = &m, .integrator = integrator, .h = h, .time = fmax(25.0 / omega, 200.0 * h)};
    su.params = material(ks, kd, nrt);
    su.params.mass = mass;
    su.params.outside_pressure = p0;
    const psb_body_state st = run_to_rest(&su, name);
    CHECK(fabs(st.mean_radius - want) <= 1e-6 * want,
          "%s: mean radius %.9g, expected %.9g (relative error %.2e)", name, st.mean_radius, want,
          (st.mean_radius - want) / want);
    CHECK(st.kinetic <= 1e-10 * nrt, "%s: not at rest, kinetic %.3g J", name, st.kinetic);
    // At equilibrium the gas pressure is the tension's: P = nRT / V - P0.
    CHECK(fabs(st.pressure - (nrt / st.volume - p0)) <= 1e-9 * fabs(st.pressure) + 1e-12,
          "%s: pressure %.9g vs nRT/V - P0 = %.9g", name, st.pressure, nrt / st.volume - p0);
    psb_mesh_free(&m);
}

static void check_icosahedron(double radius, double mass, double ks, double nrt, double p0,
                              psb_integrator integrator) {
    char name[128];
    snprintf(name, sizeof name, "icosahedron R0=%g m=%g ks=%g nRT=%g P0=%g %s", radius, mass, ks,
             nrt, p0, psb_integrator_name(integrator));
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 0, radius, &err) == PSB_OK, "icosphere: %s", err.message);
    // Sum of L0^2 over the 30 unique edges: each edge is in two triangles.
    double sum_l2 = 0.0;
    for (int t = 0; t < m.triangle_count; t++) {
        for (int e = 0; e < 3; e++) {
            const psb_vec3 a = m.points[m.triangles[3 * t + e]];
            const psb_vec3 b = m.points[m.triangles[3 * t + (e + 1) % 3]];
            sum_l2 += 0.5 * ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                             (a.z - b.z) * (a.z - b.z));
        }
    }
    const double edge = radius / sin(2.0 * pi / 5.0);
    CHECK(fabs(sum_l2 - 30.0 * edge * edge) < 1e-12 * sum_l2, "icosahedron sum L0^2 %.17g", sum_l2);
    const double v0 = psb_mesh_volume(&m);
    const double args[5] = {ks, sum_l2, nrt, p0, v0};
    const double sigma = bisect(ico_force, args, 0.55, 20.0);
    if (p0 == 0.0) {
        // ks sigma^2 - ks sigma - 3 nRT / sum L0^2 = 0.
        const double q = 3.0 * nrt / (ks * sum_l2);
        const double closed = 0.5 * (1.0 + sqrt(1.0 + 4.0 * q));
        CHECK(fabs(closed - sigma) < 1e-12, "%s: closed form %.17g vs root %.17g", name, closed,
              sigma);
    }
    const double want = sigma * radius;
    // Breathing mode per point: springs give 10 ks sin^2(theta/2); the gas
    // force per point is 3 P V / (12 r) = (nRT - P0 V) / (4 r), whose slope adds
    // nRT / (4 r^2) + P0 dV/dr / (4 r) - P0 V / (4 r^2) = nRT/(4r^2) + P0 V / (2 r^2).
    const double mi = mass / 12.0;
    const double half = edge / (2.0 * radius);
    const double v = v0 * sigma * sigma * sigma;
    const double k =
        10.0 * ks * half * half + nrt / (4.0 * want * want) + p0 * v / (2.0 * want * want);
    const double omega = sqrt(k / mi);
    const double kd = 2.0 * sqrt(k * mi) / (10.0 * half * half);
    const double h = psb_integrator_is_implicit(integrator)
                         ? IMPLICIT_H
                         : fmin(0.1 / sqrt(12.0 * ks / mi), 0.25 * mi / (10.0 * kd));
    run_setup su = {
        .mesh = &m, .integrator = integrator, .h = h, .time = fmax(25.0 / omega, 200.0 * h)};
    su.params = material(ks, kd, nrt);
    su.params.mass = mass;
    su.params.outside_pressure = p0;
    const psb_body_state st = run_to_rest(&su, name);
    CHECK(fabs(st.mean_radius - want) <= 1e-6 * want,
          "%s: mean radius %.9g, expected %.9g (relative error %.2e)", name, st.mean_radius, want,
          (st.mean_radius - want) / want);
    CHECK(fabs(st.volume - v) <= 3e-4 * v, "%s: volume %.9g, expected sigma^3 V0 = %.9g", name,
          st.volume, v);
    CHECK(st.kinetic <= 1e-10 * fmax(nrt, 1.0), "%s: not at rest, kinetic %.3g J", name,
          st.kinetic);
    psb_mesh_free(&m);
}

// Subdivided spheres are not uniformly scaled at equilibrium (their points
// are not all equivalent), so the icosahedron's sigma holds within a small
// tolerance only. Breathing as a whole: stiffness ks sum L0^2 / R0^2 +
// 3 nRT / r^2 against the mass M, damping kd sum L0^2 / R0^2.
static void check_icosphere(int level, double tol) {
    psb_mesh m;
    psb_error err;
    const double radius = 1.0, mass = 1.0, ks = 500.0, nrt = 50.0;
    CHECK(psb_mesh_icosphere(&m, level, radius, &err) == PSB_OK, "icosphere: %s", err.message);
    double sum_l2 = 0.0;
    for (int t = 0; t < m.triangle_count; t++) {
        for (int e = 0; e < 3; e++) {
            const psb_vec3 a = m.points[m.triangles[3 * t + e]];
            const psb_vec3 b = m.points[m.triangles[3 * t + (e + 1) % 3]];
            sum_l2 += 0.5 * ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                             (a.z - b.z) * (a.z - b.z));
        }
    }
    const double q = 3.0 * nrt / (ks * sum_l2);
    const double sigma = 0.5 * (1.0 + sqrt(1.0 + 4.0 * q));
    const double want = sigma * radius;
    const double geom = sum_l2 / (radius * radius);
    const double k = ks * geom + 3.0 * nrt / (want * want);
    const double omega = sqrt(k / mass);
    const double kd = 2.0 * sqrt(k * mass) / geom;
    const double mi = mass / m.point_count;
    run_setup su = {.mesh = &m,
                    .integrator = PSB_SYMPLECTIC_EULER,
                    .h = fmin(0.1 / sqrt(12.0 * ks / mi), 0.25 * mi / (12.0 * kd)),
                    .time = 40.0 / omega};
    su.params = psb_default_body_params();
    su.params.inflate_time = 0.0;
    su.params.mass_by_area = false;
    su.params.mass = mass;
    su.params.spring_k = ks;
    su.params.spring_damping = kd;
    su.params.gas_nrt = nrt;
    char name[64];
    snprintf(name, sizeof name, "icosphere level %d", level);
    const psb_body_state st = run_to_rest(&su, name);
    CHECK(fabs(st.mean_radius - want) <= tol * want,
          "%s: mean radius %.9g, uniform scaling predicts %.9g (relative %.2e)", name,
          st.mean_radius, want, (st.mean_radius - want) / want);
    CHECK(st.kinetic <= 1e-10 * nrt, "%s: not at rest, kinetic %.3g J", name, st.kinetic);
    psb_mesh_free(&m);
}

int main(void) {
    // Rings: different N, size, mass, stiffness and gas; every integrator.
    check_ring(16, 1.0, 1.0, 1000.0, 50.0, 0.0, PSB_SYMPLECTIC_EULER);
    check_ring(40, 0.5, 2.0, 300.0, 20.0, 0.0, PSB_VERLET);
    check_ring(7, 2.0, 0.5, 5000.0, 800.0, 0.0, PSB_RK4);
    check_ring(48, 1.0, 1.0, 50.0, 5.0, 0.0, PSB_HEUN);
    check_ring(24, 0.3, 0.2, 2000.0, 3.0, 0.0, PSB_EULER);
    // With an outside pressure that takes back part of the expansion. (Not
    // one that squeezes the ring below its rest size: a ring of springs in
    // compression buckles, as a real one would.)
    check_ring(20, 1.0, 1.0, 500.0, 60.0, 10.0, PSB_SYMPLECTIC_EULER);
    check_ring(20, 1.0, 1.0, 500.0, 20.0, 5.0, PSB_VERLET);

    check_icosahedron(1.0, 1.0, 1000.0, 100.0, 0.0, PSB_SYMPLECTIC_EULER);
    check_icosahedron(0.3, 0.1, 50.0, 1.0, 0.0, PSB_RK4);
    check_icosahedron(2.0, 5.0, 5000.0, 3000.0, 0.0, PSB_VERLET);
    check_icosahedron(1.0, 1.0, 200.0, 400.0, 0.0, PSB_HEUN);
    check_icosahedron(1.0, 1.0, 500.0, 200.0, 20.0, PSB_SYMPLECTIC_EULER);
    check_icosahedron(1.0, 1.0, 500.0, 100.0, 50.0, PSB_RK4); // P0 V0 > nRT: shrinks

    // The implicit step at one step of 1/60 s: the same equilibria.
    check_ring(16, 1.0, 1.0, 1000.0, 50.0, 0.0, PSB_IMPLICIT);
    check_ring(20, 1.0, 1.0, 500.0, 60.0, 10.0, PSB_IMPLICIT);
    check_icosahedron(1.0, 1.0, 1000.0, 100.0, 0.0, PSB_IMPLICIT);
    check_icosahedron(1.0, 1.0, 500.0, 100.0, 50.0, PSB_IMPLICIT);
    check_icosahedron(2.0, 5.0, 5000.0, 3000.0, 0.0, PSB_IMPLICIT);
    // And BDF2, which damps less: it rings longer but settles on the same.
    check_ring(16, 1.0, 1.0, 1000.0, 50.0, 0.0, PSB_BDF2);
    check_icosahedron(1.0, 1.0, 500.0, 100.0, 50.0, PSB_BDF2);

    check_icosphere(1, 1e-3);
    check_icosphere(2, 1e-3);
    return check_done("test_equilibrium");
}
