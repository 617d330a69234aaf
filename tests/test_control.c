// Control of a live body: grabbing a point (a spring toward a target),
// moving the target, releasing, impulses and reset; and gas pumping (nRT
// ramping to its target over inflate_time, gravity held off until then on
// request).
#include <math.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static psb_world *space_world(double dt, int substeps) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.dt = dt;
    p.substeps = substeps;
    p.integrator = PSB_SYMPLECTIC_EULER;
    return make_world(&p);
}

static int add_sphere_body(psb_world *w, psb_mesh *m, psb_body_params bp, psb_vec3 offset) {
    psb_error err;
    CHECK(psb_mesh_icosphere(m, 1, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    psb_body_def def = psb_mesh_body_def(m);
    def.params = bp;
    def.offset = offset;
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    return id;
}

static void test_grab(void) {
    // One step of h with the point at rest: the only external force is the
    // grab spring k (target - x), so the momentum changes by h k (target - x).
    const double h = 1e-3, k = 40.0;
    psb_world *w = space_world(h, 1);
    psb_mesh m;
    const int id = add_sphere_body(w, &m, material(200.0, 1.0, 20.0), (psb_vec3){1, 2, 3});
    if (id != 0) {
        psb_world_destroy(w);
        psb_mesh_free(&m);
        return;
    }
    const int p = 7;
    CHECK(psb_body_grabbed_point(w, id) == -1, "a new body has point %d grabbed",
          psb_body_grabbed_point(w, id));
    const psb_vec3 x0 = psb_body_positions(w, id)[p];
    psb_vec3 target = {x0.x + 0.6, x0.y - 0.3, x0.z + 0.2};
    psb_body_grab(w, id, p, target, k);
    CHECK(psb_body_grabbed_point(w, id) == p, "grabbed point %d, expected %d",
          psb_body_grabbed_point(w, id), p);
    psb_world_step(w);
    const psb_vec3 mom = psb_body_measure(w, id).momentum;
    const psb_vec3 want = {h * k * (target.x - x0.x), h * k * (target.y - x0.y),
                           h * k * (target.z - x0.z)};
    CHECK(norm(sub(mom, want)) <= 1e-10 * norm(want),
          "momentum after one grabbed step (%.9g, %.9g, %.9g), expected h k d = (%.9g, %.9g, %.9g)",
          mom.x, mom.y, mom.z, want.x, want.y, want.z);

    // Pulled for a while (the grab spring is damped, and so is the body),
    // the point comes to the target: at rest nothing else pulls on the body.
    psb_params prm = *psb_world_params(w);
    prm.dt = 1.0 / 60.0;
    prm.substeps = 20;
    psb_world_set_params(w, &prm, NULL);
    const double d0 = norm(sub(target, x0));
    double d_prev = d0, d_half = 0.0;
    for (int s = 0; s < 600; s++) {
        psb_world_step(w);
        const double d = norm(sub(target, psb_body_positions(w, id)[p]));
        if (s == 30) {
            d_half = d;
        }
        d_prev = d;
    }
    CHECK(d_half < 0.8 * d0, "after 0.5 s the point is %.3g m from the target (was %.3g m)", d_half,
          d0);
    CHECK(d_prev < 0.01 * d0, "after 10 s the point is %.3g m from the target (was %.3g m)", d_prev,
          d0);

    // Move the target: the point follows.
    target = (psb_vec3){target.x - 1.0, target.y + 0.5, target.z};
    psb_body_grab_move(w, id, target);
    CHECK(psb_body_grabbed_point(w, id) == p, "grab_move changed the grabbed point");
    for (int s = 0; s < 600; s++) {
        psb_world_step(w);
    }
    // The body may keep spinning about the grabbed point (nothing damps
    // that rotation), and the spring then holds its centripetal pull: the
    // point ends close to the target, not on it.
    const double d_moved = norm(sub(target, psb_body_positions(w, id)[p]));
    CHECK(d_moved < 0.1 * norm((psb_vec3){1.0, 0.5, 0.0}),
          "after moving the target, the point is %.3g m from it", d_moved);

    // Give the body some speed with the grab, then release: from then on no
    // external force acts, so its momentum stays.
    psb_body_grab_move(w, id, (psb_vec3){target.x + 2.0, target.y, target.z});
    for (int s = 0; s < 10; s++) {
        psb_world_step(w);
    }
    psb_body_release(w, id);
    CHECK(psb_body_grabbed_point(w, id) == -1, "after release point %d is grabbed",
          psb_body_grabbed_point(w, id));
    const psb_vec3 p0 = psb_body_measure(w, id).momentum;
    CHECK(norm(p0) > 0.1, "the grab did not set the body moving (|P| = %.3g)", norm(p0));
    double drift = 0.0;
    for (int s = 0; s < 60; s++) {
        psb_world_step(w);
        drift = fmax(drift, norm(sub(psb_body_measure(w, id).momentum, p0)));
    }
    CHECK(drift <= 1e-12 * norm(p0), "after release the momentum changed by %.3g", drift);
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

static void test_impulse(void) {
    psb_world *w = space_world(1.0 / 60.0, 10);
    psb_mesh m;
    const int id = add_sphere_body(w, &m, material(200.0, 1.0, 20.0), (psb_vec3){0, 0, 0});
    if (id != 0) {
        psb_world_destroy(w);
        psb_mesh_free(&m);
        return;
    }
    for (int s = 0; s < 5; s++) {
        psb_world_step(w);
    }
    const int n = psb_body_point_count(w, id);
    psb_vec3 v0[42];
    memcpy(v0, psb_body_velocities(w, id), (size_t)n * sizeof *v0);
    const double mi = psb_body_masses(w, id)[13];
    const psb_vec3 j = {0.02, -0.05, 0.01};
    const psb_vec3 p_before = psb_body_measure(w, id).momentum;
    psb_body_apply_impulse(w, id, 13, j);
    const psb_vec3 *v = psb_body_velocities(w, id);
    const psb_vec3 dv = sub(v[13], v0[13]);
    CHECK(norm(sub(dv, (psb_vec3){j.x / mi, j.y / mi, j.z / mi})) <= 1e-12 * norm(j) / mi,
          "impulse changed v by (%.9g, %.9g, %.9g), expected J/m = (%.9g, %.9g, %.9g)", dv.x, dv.y,
          dv.z, j.x / mi, j.y / mi, j.z / mi);
    int others = 0;
    for (int i = 0; i < n; i++) {
        others += i != 13 && memcmp(&v[i], &v0[i], sizeof v[i]) != 0;
    }
    CHECK(others == 0, "the impulse changed %d other points' velocities", others);
    const psb_vec3 dp = sub(psb_body_measure(w, id).momentum, p_before);
    CHECK(norm(sub(dp, j)) <= 1e-12 * norm(j) + 1e-15, "body momentum changed by (%g, %g, %g)",
          dp.x, dp.y, dp.z);
    psb_world_destroy(w);
    psb_mesh_free(&m);

    // A ring stays in its plane: the z part of an impulse is dropped.
    w = space_world(1.0 / 60.0, 10);
    psb_error err;
    psb_mesh_ring(&m, 12, 0.5, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = material(200.0, 1.0, 5.0);
    CHECK(psb_world_add_body(w, &def, &err) == 0, "ring: %s", err.message);
    const double mr = psb_body_masses(w, 0)[4];
    psb_body_apply_impulse(w, 0, 4, (psb_vec3){0.01, 0.02, 0.5});
    const psb_vec3 vr = psb_body_velocities(w, 0)[4];
    CHECK(fabs(vr.x - 0.01 / mr) < 1e-12 && fabs(vr.y - 0.02 / mr) < 1e-12 && vr.z == 0.0,
          "ring impulse gave v = (%g, %g, %g)", vr.x, vr.y, vr.z);
    for (int s = 0; s < 10; s++) {
        psb_world_step(w);
    }
    int off_plane = 0;
    for (int i = 0; i < 12; i++) {
        off_plane += psb_body_positions(w, 0)[i].z != 0.0;
    }
    CHECK(off_plane == 0, "%d ring points left the plane z = 0", off_plane);
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

static void test_reset(void) {
    psb_params p = psb_default_params(); // gravity and floor on
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    psb_mesh m;
    CHECK(psb_mesh_icosphere(&m, 1, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = material(200.0, 1.0, 20.0);
    def.params.inflate_time = 0.5;
    def.offset = (psb_vec3){0, 2, 0};
    def.velocity = (psb_vec3){0.5, 0, -0.25};
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    if (id != 0) {
        psb_world_destroy(w);
        psb_mesh_free(&m);
        return;
    }
    psb_vec3 x0[42], v0[42];
    memcpy(x0, psb_body_positions(w, id), sizeof x0);
    memcpy(v0, psb_body_velocities(w, id), sizeof v0);
    CHECK(psb_body_measure(w, id).gas_nrt == 0.0, "inflating body starts with nRT %g",
          psb_body_measure(w, id).gas_nrt);
    psb_body_grab(w, id, 3, (psb_vec3){1, 1, 1}, 50.0);
    for (int s = 0; s < 90; s++) {
        psb_world_step(w);
        if (s == 40) {
            psb_body_apply_impulse(w, id, 5, (psb_vec3){0, 0.1, 0});
        }
    }
    CHECK(memcmp(x0, psb_body_positions(w, id), sizeof x0) != 0, "the body did not move");
    CHECK(psb_body_measure(w, id).gas_nrt == 20.0, "after 1.5 s nRT is %g, expected 20",
          psb_body_measure(w, id).gas_nrt);
    psb_body_reset(w, id);
    CHECK(memcmp(x0, psb_body_positions(w, id), sizeof x0) == 0,
          "positions after reset differ from the initial ones");
    CHECK(memcmp(v0, psb_body_velocities(w, id), sizeof v0) == 0,
          "velocities after reset differ from the initial ones");
    CHECK(psb_body_measure(w, id).gas_nrt == 0.0, "reset did not restart inflation (nRT %g)",
          psb_body_measure(w, id).gas_nrt);
    CHECK(psb_body_grabbed_point(w, id) == -1, "a reset body still has point %d grabbed",
          psb_body_grabbed_point(w, id));
    // And it runs again from there as a new body would, on the world's clock.
    psb_world_step(w);
    const double nrt = psb_body_measure(w, id).gas_nrt;
    CHECK(fabs(nrt - 20.0 * p.dt / 0.5) <= 20.0 * p.dt / 0.5 * 1e-9 + 1e-12,
          "one step after reset nRT is %g, expected %g", nrt, 20.0 * p.dt / 0.5);
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

// nRT ramps linearly from 0 to its target over inflate_time, then stays.
static void test_inflation_ramp(void) {
    const double T = 0.5, target = 80.0, dt = 1.0 / 60.0;
    psb_world *w = space_world(dt, 20);
    psb_mesh m;
    psb_body_params bp = material(300.0, 2.0, target);
    bp.inflate_time = T;
    const int id = add_sphere_body(w, &m, bp, (psb_vec3){0, 0, 0});
    if (id != 0) {
        psb_world_destroy(w);
        psb_mesh_free(&m);
        return;
    }
    double gas[61];
    double volume[61];
    gas[0] = psb_body_measure(w, id).gas_nrt;
    volume[0] = psb_body_measure(w, id).volume;
    CHECK(gas[0] == 0.0, "nRT at creation %g, expected 0", gas[0]);
    for (int s = 1; s <= 60; s++) {
        psb_world_step(w);
        const psb_body_state st = psb_body_measure(w, id);
        gas[s] = st.gas_nrt;
        volume[s] = st.volume;
        const double t = psb_world_time(w);
        const double want = target * fmin(t / T, 1.0);
        // Linear in time, to within one step's worth wherever the core
        // samples the ramp.
        CHECK(fabs(gas[s] - want) <= target * dt / T + 1e-12,
              "t = %.4f: nRT %.9g, the ramp gives %.9g", t, gas[s], want);
        CHECK(gas[s] >= gas[s - 1], "nRT fell from %g to %g", gas[s - 1], gas[s]);
        CHECK(fabs(st.pressure - gas[s] / st.volume) <= 1e-12 * fabs(st.pressure) + 1e-12,
              "pressure %g with nRT %g and V %g", st.pressure, gas[s], st.volume);
        if (t >= T + dt) {
            CHECK(gas[s] == target, "t = %.4f: nRT %.17g after the ramp, expected %g", t, gas[s],
                  target);
        }
    }
    // Equal increments inside the ramp (steps 2..28 end before T = 30 steps).
    for (int s = 2; s <= 28; s++) {
        const double second = gas[s + 1] - 2.0 * gas[s] + gas[s - 1];
        CHECK(fabs(second) <= 1e-9 * target, "ramp not linear at step %d: second difference %g", s,
              second);
    }
    // The gas really pushes: the body grows while it is pumped up.
    CHECK(volume[30] > volume[0] * 1.02, "volume %g after pumping, %g before", volume[30],
          volume[0]);
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

// With gravity_waits_for_gas the body hangs still until it is inflated and
// then falls freely (its centroid: y0 - g (t - T)^2 / 2); without it, it
// falls from the start.
static void test_gravity_waits(void) {
    const double T = 0.5, g = 9.81, dt = 1.0 / 60.0;
    for (int waits = 0; waits <= 1; waits++) {
        psb_params p = psb_default_params();
        p.floor = false;
        p.gravity = g;
        p.gravity_waits_for_gas = waits;
        p.dt = dt;
        psb_error err;
        psb_world *w = psb_world_create(&p, &err);
        psb_mesh m;
        psb_body_params bp = material(300.0, 2.0, 50.0);
        bp.inflate_time = T;
        const int id = add_sphere_body(w, &m, bp, (psb_vec3){0, 3, 0});
        if (id != 0) {
            psb_world_destroy(w);
            psb_mesh_free(&m);
            continue;
        }
        const double y0 = psb_body_measure(w, id).centroid.y;
        for (int s = 1; s <= 60; s++) {
            psb_world_step(w);
            const double t = psb_world_time(w);
            const psb_body_state st = psb_body_measure(w, id);
            const double fall = y0 - st.centroid.y;
            // The centroid moves only under gravity (the rest is internal),
            // exactly like a free particle; allow one step for when gravity
            // switches on and O(h) for the integrator.
            const double t_on = waits ? T : 0.0;
            const double lo = t > t_on + dt ? 0.5 * g * (t - t_on - dt) * (t - t_on - dt) : 0.0;
            const double hi = t > t_on - dt ? 0.5 * g * (t - t_on + dt) * (t - t_on + dt) : 0.0;
            if (waits && t < T - 1e-9) {
                CHECK(fabs(fall) <= 1e-12, "t = %.4f: the body fell %.3g m while inflating", t,
                      fall);
                CHECK(st.gravity == 0.0 && fabs(st.momentum.y) <= 1e-12,
                      "t = %.4f: gravity energy %g, momentum %g while waiting", t, st.gravity,
                      st.momentum.y);
            } else {
                CHECK(fall >= lo - 1e-9 && fall <= hi + 1e-9,
                      "waits=%d t = %.4f: fell %.6g m, expected %.6g..%.6g", waits, t, fall, lo,
                      hi);
            }
        }
        psb_world_destroy(w);
        psb_mesh_free(&m);
    }
}

int main(void) {
    test_grab();
    test_impulse();
    test_reset();
    test_inflation_ramp();
    test_gravity_waits();
    return check_done("test_control");
}
