// Conservation laws of the model, through the public API.
//
// - Momentum: springs (with damping) and gas are internal forces, so without
//   gravity and colliders the total momentum never changes, whatever the
//   integrator: every method moves v by a weighted sum of forces that add up
//   to zero.
// - Angular momentum: spring and damping forces act along the spring and the
//   gas exerts no torque, so L = sum m x x v is constant in the exact flow.
//   Symplectic Euler and velocity Verlet keep it exactly (each kick adds
//   h sum x x F = 0, each drift adds h sum m v x v = 0).
// - Energy: with kd = 0 the forces derive from E = kinetic + spring - nRT ln V
//   + P0 V + m g y, so the drift of E over a fixed time shrinks like h^p.
//   Measured over the same time with h and h/2 the drift falls by about 2 for
//   explicit and symplectic Euler (first order in energy), 4 for velocity
//   Verlet (bounded O(h^2) error), between 4 and 8 for Heun (O(h^2) in
//   general, O(h^3) on the near-linear oscillations here) and 16 to 32 for
//   RK4 (likewise O(h^4) to O(h^5)). A force that is not the gradient of the
//   reported energy (a wrong pressure split, a sign) leaves a drift that does
//   not shrink with h.
// - With damping kd > 0 and a small step the energy never rises.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

enum { MAX_POINTS = 64 };

typedef struct setup {
    bool ring; // 12-point ring, else a level-1 icosphere (42 points)
    psb_integrator integrator;
    int substeps_total; // sub-steps over the whole run
    int world_steps;    // world steps over the whole run (energy sampled after each)
    double time;        // s
    double kd;          // N s/m
    double gravity;     // m/s^2
} setup;

typedef struct result {
    double momentum_change; // max |P(t) - P(0)|, kg m/s
    double momentum_scale;  // sum m |v| at the start
    double angular_change;  // max |L(t) - L(0)|, kg m^2/s
    double angular_scale;   // sum m |x - c| |v| at the start
    double drift;           // max |E(t) - E(0)| / (kinetic + spring at the start)
    double worst_rise;      // largest E(n+1) - E(n), same units as drift
    int blowups;
} result;

static psb_vec3 angular_momentum(const psb_world *w, int id, double *scale) {
    const int n = psb_body_point_count(w, id);
    const psb_vec3 *x = psb_body_positions(w, id);
    const psb_vec3 *v = psb_body_velocities(w, id);
    const double *m = psb_body_masses(w, id);
    psb_vec3 c = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        c.x += x[i].x / n;
        c.y += x[i].y / n;
        c.z += x[i].z / n;
    }
    psb_vec3 l = {0, 0, 0};
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        // About the origin: conserved when the net force is zero.
        l.x += m[i] * (x[i].y * v[i].z - x[i].z * v[i].y);
        l.y += m[i] * (x[i].z * v[i].x - x[i].x * v[i].z);
        l.z += m[i] * (x[i].x * v[i].y - x[i].y * v[i].x);
        const double dx = x[i].x - c.x, dy = x[i].y - c.y, dz = x[i].z - c.z;
        s += m[i] * sqrt(dx * dx + dy * dy + dz * dz) *
             sqrt(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
    }
    if (scale) {
        *scale = s;
    }
    return l;
}

static double dist(psb_vec3 a, psb_vec3 b) {
    return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

// Runs one body from a jittered rest shape with random velocities.
static result run(const setup *su) {
    result r;
    memset(&r, 0, sizeof r);
    psb_params p = psb_default_params();
    p.floor = false;
    p.walls = false;
    p.gravity = su->gravity;
    p.integrator = su->integrator;
    p.dt = su->time / su->world_steps;
    p.substeps = su->substeps_total / su->world_steps;
    p.solver_tol = 1e-9; // the implicit step solved tightly (the others ignore it)
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) {
        return r;
    }
    psb_mesh m;
    if (su->ring) {
        CHECK(psb_mesh_ring(&m, 12, 1.0, &err) == PSB_OK, "ring: %s", err.message);
    } else {
        CHECK(psb_mesh_icosphere(&m, 1, 1.0, &err) == PSB_OK, "icosphere: %s", err.message);
    }
    psb_body_def def = psb_mesh_body_def(&m);
    def.params.mass = 1.0;
    def.params.spring_k = 200.0;
    def.params.spring_damping = su->kd;
    def.params.gas_nrt = 40.0;
    def.params.outside_pressure = 3.0;
    def.params.inflate_time = 0.0;
    def.params.mass_by_area = false;
    def.offset = (psb_vec3){0.5, 2.0, -1.0};
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    if (id != 0 || m.point_count > MAX_POINTS) {
        psb_world_destroy(w);
        psb_mesh_free(&m);
        return r;
    }
    uint64_t seed = 42;
    psb_vec3 x[MAX_POINTS], v[MAX_POINTS];
    const psb_vec3 *x_now = psb_body_positions(w, id);
    for (int i = 0; i < m.point_count; i++) {
        x[i] = x_now[i];
        x[i].x += 0.03 * rnd(&seed);
        x[i].y += 0.03 * rnd(&seed);
        x[i].z += su->ring ? 0.0 : 0.03 * rnd(&seed);
        v[i] = (psb_vec3){0.5 * rnd(&seed), 0.5 * rnd(&seed), su->ring ? 0.0 : 0.5 * rnd(&seed)};
    }
    CHECK(psb_body_set_state(w, id, x, v, &err) == PSB_OK, "set_state: %s", err.message);

    const psb_body_state s0 = psb_body_measure(w, id);
    const double e_scale = s0.kinetic + s0.spring;
    const psb_vec3 l0 = angular_momentum(w, id, &r.angular_scale);
    const double *mass = psb_body_masses(w, id);
    for (int i = 0; i < m.point_count; i++) {
        r.momentum_scale += mass[i] * sqrt(v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
    }
    double previous = s0.energy;
    r.worst_rise = -INFINITY;
    for (int k = 0; k < su->world_steps; k++) {
        r.blowups += psb_world_step(w);
        const psb_body_state s = psb_body_measure(w, id);
        // Gravity changes the momentum by m g t along -y, exactly.
        const double t = psb_world_time(w);
        const psb_vec3 expect = {s0.momentum.x, s0.momentum.y - def.params.mass * su->gravity * t,
                                 s0.momentum.z};
        r.momentum_change = fmax(r.momentum_change, dist(s.momentum, expect));
        r.angular_change = fmax(r.angular_change, dist(angular_momentum(w, id, NULL), l0));
        r.drift = fmax(r.drift, fabs(s.energy - s0.energy) / e_scale);
        r.worst_rise = fmax(r.worst_rise, (s.energy - previous) / e_scale);
        previous = s.energy;
    }
    psb_world_destroy(w);
    psb_mesh_free(&m);
    return r;
}

static void test_momentum(void) {
    for (int ring = 0; ring <= 1; ring++) {
        for (int ig = 0; ig < PSB_INTEGRATOR_COUNT; ig++) {
            // Springs with damping, gas, random velocities; h = 1e-4 s is
            // stable for every method here.
            const setup su = {.ring = ring,
                              .integrator = (psb_integrator)ig,
                              .substeps_total = 5000,
                              .world_steps = 50,
                              .time = 0.5,
                              .kd = 1.0,
                              .gravity = 0.0};
            const result r = run(&su);
            const char *name = psb_integrator_name((psb_integrator)ig);
            const char *body = ring ? "ring" : "shell";
            CHECK(r.blowups == 0, "%s %s: %d blow-ups", body, name, r.blowups);
            // The implicit step finds positions and takes v = (x - x_n) / h,
            // so its velocities carry the positions' rounding over h
            // (2e-16 |x| / h, about 4e-12 m/s here, each sub-step): over
            // 5000 sub-steps up to 2e-8 m/s if it never cancelled, about
            // 1e-9 of the sum of m |v| (0.3 kg m/s) for a point's 0.03 kg.
            const double exact = psb_integrator_is_implicit((psb_integrator)ig) ? 3e-9 : 1e-12;
            CHECK(r.momentum_change <= exact * r.momentum_scale,
                  "%s %s: momentum changed by %.3g kg m/s (sum m|v| %.3g)", body, name,
                  r.momentum_change, r.momentum_scale);
            // The body really moved its energy around (damping took some).
            CHECK(r.drift > 1e-3, "%s %s: energy barely changed with damping (%.3g)", body, name,
                  r.drift);
            if (ig == PSB_SYMPLECTIC_EULER || ig == PSB_VERLET) {
                CHECK(r.angular_change <= 1e-12 * r.angular_scale,
                      "%s %s: angular momentum changed by %.3g (scale %.3g)", body, name,
                      r.angular_change, r.angular_scale);
            } else {
                // Not exact for these methods, but small at this step.
                CHECK(r.angular_change <= 1e-3 * r.angular_scale,
                      "%s %s: angular momentum changed by %.3g (scale %.3g)", body, name,
                      r.angular_change, r.angular_scale);
            }
        }
    }
    // Gravity adds exactly m g t of downward momentum (checked inside run).
    const setup su = {.ring = false,
                      .integrator = PSB_RK4,
                      .substeps_total = 2000,
                      .world_steps = 20,
                      .time = 0.2,
                      .kd = 1.0,
                      .gravity = 9.81};
    const result r = run(&su);
    CHECK(r.momentum_change <= 1e-12 * (r.momentum_scale + 9.81 * 0.2),
          "falling shell: momentum differs from P0 - m g t by %.3g", r.momentum_change);
}

static void test_energy_order(void) {
    // The sub-step counts start where each method is in its asymptotic range
    // for the fastest spring modes (omega_max h about 0.01, 0.05, 0.3).
    const struct {
        psb_integrator integrator;
        int substeps;
        double lo, hi; // accepted drift(h) / drift(h/2)
        double finest; // drift at h/4 must be below this
    } methods[] = {
        {PSB_EULER, 8000, 1.8, 2.25, 0.1},  {PSB_SYMPLECTIC_EULER, 8000, 1.8, 2.25, 2e-3},
        {PSB_HEUN, 1000, 3.5, 12.0, 1e-4},  {PSB_RK4, 200, 12.0, 40.0, 1e-5},
        {PSB_VERLET, 1000, 3.6, 4.4, 1e-4},
    };
    for (int ring = 0; ring <= 1; ring++) {
        for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
            double drift[3];
            for (int level = 0; level < 3; level++) {
                const setup su = {.ring = ring,
                                  .integrator = methods[k].integrator,
                                  .substeps_total = methods[k].substeps << level,
                                  .world_steps = 20,
                                  .time = 0.2,
                                  .kd = 0.0,
                                  .gravity = 9.81};
                const result r = run(&su);
                CHECK(r.blowups == 0, "blow-up in the energy run");
                drift[level] = r.drift;
            }
            const char *name = psb_integrator_name(methods[k].integrator);
            const char *body = ring ? "ring" : "shell";
            for (int level = 0; level < 2; level++) {
                const double ratio = drift[level] / drift[level + 1];
                CHECK(ratio >= methods[k].lo && ratio <= methods[k].hi,
                      "%s %s: energy drift %.3g -> %.3g when h halves (ratio %.3g, expected "
                      "%.3g..%.3g)",
                      body, name, drift[level], drift[level + 1], ratio, methods[k].lo,
                      methods[k].hi);
            }
            CHECK(drift[2] < methods[k].finest, "%s %s: energy drift %.3g at the finest step", body,
                  name, drift[2]);
        }
    }
}

static void test_damping_dissipates(void) {
    const struct {
        psb_integrator integrator;
        int substeps;
    } methods[] = {{PSB_RK4, 1000},    {PSB_VERLET, 4000},
                   {PSB_HEUN, 4000},   {PSB_SYMPLECTIC_EULER, 20000},
                   {PSB_EULER, 20000}, {PSB_IMPLICIT, 100}};
    for (int ring = 0; ring <= 1; ring++) {
        for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++) {
            const setup su = {.ring = ring,
                              .integrator = methods[k].integrator,
                              .substeps_total = methods[k].substeps,
                              .world_steps = 100,
                              .time = 0.5,
                              .kd = 1.0,
                              .gravity = 9.81};
            const result r = run(&su);
            const char *name = psb_integrator_name(methods[k].integrator);
            const char *body = ring ? "ring" : "shell";
            // Rounding in E (sums of terms of order 10 J) is about 1e-14 J.
            CHECK(r.worst_rise <= 1e-12, "%s %s with damping: energy rose by %.3g of its scale",
                  body, name, r.worst_rise);
            CHECK(r.drift > 0.1, "%s %s with damping: only %.3g of the energy dissipated", body,
                  name, r.drift);
        }
    }
}

// The energy terms psb_body_measure reports are the model's, recomputed here
// from the public state: kinetic sum 1/2 m v^2, spring sum 1/2 ks (|d| - L0)^2
// over the edges, gas -nRT ln V + P0 V, gravity sum m g y.
static void test_energy_terms(void) {
    for (int ring = 0; ring <= 1; ring++) {
        const setup su = {.ring = ring,
                          .integrator = PSB_VERLET,
                          .substeps_total = 200,
                          .world_steps = 2,
                          .time = 0.02,
                          .kd = 0.5,
                          .gravity = 9.81};
        psb_params p = psb_default_params();
        p.floor = false;
        p.gravity = su.gravity;
        p.integrator = su.integrator;
        p.dt = su.time / su.world_steps;
        p.substeps = su.substeps_total / su.world_steps;
        psb_error err;
        psb_world *w = psb_world_create(&p, &err);
        psb_mesh m;
        ring_or_sphere(ring, 12, 1, 1.0, &m);
        psb_body_def def = psb_mesh_body_def(&m);
        def.params.mass = 1.5;
        def.params.spring_k = 200.0;
        def.params.spring_damping = su.kd;
        def.params.gas_nrt = 40.0;
        def.params.outside_pressure = 3.0;
        def.params.inflate_time = 0.0;
        def.params.mass_by_area = false;
        def.offset = (psb_vec3){0.5, 2.0, -1.0};
        def.velocity = (psb_vec3){0.3, -0.2, 0.1};
        const int id = psb_world_add_body(w, &def, &err);
        CHECK(id == 0, "add_body: %s", err.message);
        if (id != 0) {
            psb_world_destroy(w);
            psb_mesh_free(&m);
            continue;
        }
        for (int k = 0; k < su.world_steps; k++) {
            psb_world_step(w);
        }
        const int n = psb_body_point_count(w, id);
        const psb_vec3 *x = psb_body_positions(w, id);
        const psb_vec3 *v = psb_body_velocities(w, id);
        const double *mass = psb_body_masses(w, id);
        int edge_count = 0;
        const int *edges = psb_body_edges(w, id, &edge_count);
        const double *rest = psb_body_rest_lengths(w, id);
        double kinetic = 0.0, gravity = 0.0, spring = 0.0;
        for (int i = 0; i < n; i++) {
            kinetic += 0.5 * mass[i] * (v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z);
            gravity += mass[i] * su.gravity * x[i].y;
        }
        // Every mesh edge is a spring, once: 120 for the level-1 icosphere, 12 for the ring.
        CHECK(edge_count == (ring ? 12 : 120), "%d springs", edge_count);
        for (int e = 0; e < edge_count; e++) {
            const psb_vec3 a = x[edges[2 * e]], b = x[edges[2 * e + 1]];
            const double len = sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
                                    (a.z - b.z) * (a.z - b.z));
            spring += 0.5 * def.params.spring_k * (len - rest[e]) * (len - rest[e]);
        }
        const psb_body_state st = psb_body_measure(w, id);
        const double gas =
            -def.params.gas_nrt * log(st.volume) + def.params.outside_pressure * st.volume;
        const char *name = ring ? "ring" : "shell";
        CHECK(fabs(st.kinetic - kinetic) <= 1e-12 * kinetic, "%s: kinetic %.17g, expected %.17g",
              name, st.kinetic, kinetic);
        CHECK(fabs(st.gravity - gravity) <= 1e-12 * fabs(gravity),
              "%s: gravity energy %.17g, expected sum m g y = %.17g", name, st.gravity, gravity);
        CHECK(spring > 0 && fabs(st.spring - spring) <= 1e-12 * spring,
              "%s: spring energy %.17g, expected %.17g", name, st.spring, spring);
        CHECK(fabs(st.gas - gas) <= 1e-12 * fabs(gas), "%s: gas energy %.17g, expected %.17g", name,
              st.gas, gas);
        CHECK(fabs(st.energy - (st.kinetic + st.spring + st.gas + st.gravity)) <=
                  1e-12 * (fabs(st.kinetic) + fabs(st.spring) + fabs(st.gas) + fabs(st.gravity)),
              "%s: energy %.17g is not the sum of its terms", name, st.energy);
        psb_world_destroy(w);
        psb_mesh_free(&m);
    }
}

int main(void) {
    test_energy_terms();
    test_momentum();
    test_energy_order();
    test_damping_dissipates();
    return check_done("test_conservation");
}
