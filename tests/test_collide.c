// Collisions with the world: floor, box walls and static spheres.
//
// Exact laws first, on "dust": a body with no springs and no gas, whose
// points are free particles. A particle dropped from height H onto the floor
// reaches the floor at speed sqrt(2 g H) and leaves it at e times that, so it
// rises again to e^2 H (e = 0: it stays on the floor). A particle resting on
// the floor is in contact every sub-step, so its sliding speed decays as
// exp(-mu t) exactly. Then whole bodies: a pressurised ball dropped on the
// floor never goes below it, comes to rest on it, rebounds high when the
// contact is elastic (e = 1, no damping: the energy survives the bounce) and
// loses energy when it is not (e = 0); friction stops a sliding body and no
// friction keeps its horizontal momentum; box walls keep every point inside;
// a static sphere is never entered and deflects a body falling beside its top.
#include <math.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static const double g = 9.81;

// No springs, no gas: free particles.
static psb_body_params dust(void) {
    return material(0.0, 0.0, 0.0);
}

// Each particle of a dust cloud rises back to e^2 times its drop height.
static void test_restitution_law(void) {
    const double es[] = {0.0, 0.5, 1.0};
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 1, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    for (size_t k = 0; k < sizeof es / sizeof es[0]; k++) {
        const double e = es[k];
        psb_params p = psb_default_params();
        p.restitution = e;
        p.friction = 0.0;
        p.floor_y = -0.25;
        p.substeps = 40;
        psb_world *w = make_world(&p);
        const int id =
            add_moving_mesh(w, &m, dust(), (psb_vec3){0.0, 1.0, 0.0}, (psb_vec3){0, 0, 0});
        if (!w || id < 0) {
            psb_world_destroy(w);
            continue;
        }
        const int n = psb_body_point_count(w, id);
        double drop[64], best[64];
        bool landed[64];
        const psb_vec3 *x = psb_body_positions(w, id);
        for (int i = 0; i < n && i < 64; i++) {
            drop[i] = x[i].y - p.floor_y;
            best[i] = -INFINITY;
            landed[i] = false;
        }
        double lowest = INFINITY;
        // 1.2 s: every particle (drop <= 1.75 m, fall time <= 0.6 s) lands.
        // On the way up after the bounce its apex is y + v_y^2 / (2 g).
        for (int s = 0; s < 72; s++) {
            psb_world_step(w);
            const psb_vec3 *v = psb_body_velocities(w, id);
            for (int i = 0; i < n && i < 64; i++) {
                lowest = fmin(lowest, x[i].y);
                if (landed[i]) {
                    if (e == 0.0) {
                        best[i] = fmax(best[i], x[i].y); // it should stay on the floor
                    }
                    continue;
                }
                if (e == 0.0 && x[i].y <= p.floor_y + 1e-12) {
                    landed[i] = true;
                    best[i] = x[i].y;
                } else if (e > 0.0 && v[i].y > 0.0) {
                    landed[i] = true;
                    best[i] = x[i].y + v[i].y * v[i].y / (2.0 * g);
                }
            }
        }
        CHECK(lowest >= p.floor_y - 1e-12,
              "e=%g: a particle ended a step at %.17g, below the floor", e, lowest);
        double worst = 0.0;
        for (int i = 0; i < n && i < 64; i++) {
            CHECK(landed[i], "e=%g: particle %d never landed", e, i);
            const double rise = best[i] - p.floor_y;
            worst = fmax(worst, fabs(rise - e * e * drop[i]));
        }
        // Sub-step h = 1/2400 s: the contact is resolved to about v h = 2.5 mm.
        CHECK(worst <= (e == 0 ? 1e-12 : 5e-3),
              "e=%g: rebound height differs from e^2 H by up to %.3g m", e, worst);
        psb_world_destroy(w);
    }
    psb_mesh_free(&m);
}

// A particle resting on the floor slides with v = v0 exp(-mu t).
static void test_friction_law(void) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 0, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    const double mus[] = {0.0, 0.5, 3.0};
    for (size_t k = 0; k < sizeof mus / sizeof mus[0]; k++) {
        psb_params p = psb_default_params();
        p.restitution = 0.0;
        p.friction = mus[k];
        psb_world *w = make_world(&p);
        const int id = add_moving_mesh(w, &m, dust(), (psb_vec3){0, 0, 0}, (psb_vec3){0, 0, 0});
        if (!w || id < 0) {
            psb_world_destroy(w);
            continue;
        }
        // Flatten the cloud onto the floor and slide it along +x and -z.
        psb_vec3 x[12], v[12];
        for (int i = 0; i < 12; i++) {
            x[i] = (psb_vec3){m.points[i].x, 0.0, m.points[i].z};
            v[i] = (psb_vec3){2.0, 0.0, -1.0};
        }
        psb_body_set_state(w, id, x, v, &err);
        for (int s = 0; s < 60; s++) {
            psb_world_step(w);
        }
        const double t = psb_world_time(w);
        const double want = exp(-mus[k] * t);
        const psb_vec3 *xv = psb_body_velocities(w, id);
        const psb_vec3 *xx = psb_body_positions(w, id);
        double worst = 0.0, height = 0.0;
        for (int i = 0; i < 12; i++) {
            worst = fmax(worst, fabs(xv[i].x - 2.0 * want) + fabs(xv[i].z + want));
            height = fmax(height, fabs(xx[i].y));
        }
        CHECK(worst <= 1e-12, "mu=%g: sliding velocity off exp(-mu t) by %.3g m/s", mus[k], worst);
        CHECK(height <= 1e-12, "mu=%g: resting particles left the floor (%.3g m)", mus[k], height);
        psb_world_destroy(w);
    }
    psb_mesh_free(&m);
}

typedef struct drop_result {
    double lowest;      // lowest min_y over all steps, m
    double apex;        // highest centroid after the first contact, m
    double energy_loss; // E(0) - E(end), J
    double worst_gain;  // largest E(t) - E(0), J
    psb_body_state end;
} drop_result;

// A ball of radius 0.5 m dropped with its bottom 1 m above the floor.
static drop_result drop_ball(const psb_mesh *m, psb_params p, psb_body_params bp, int steps) {
    drop_result r;
    memset(&r, 0, sizeof r);
    psb_world *w = make_world(&p);
    const psb_vec3 at = {0.3, p.floor_y + 1.5, -0.2};
    const int id = add_moving_mesh(w, m, bp, at, (psb_vec3){0, 0, 0});
    if (!w || id < 0) {
        psb_world_destroy(w);
        return r;
    }
    const double e0 = psb_body_measure(w, id).energy;
    r.lowest = INFINITY;
    r.worst_gain = -INFINITY;
    bool touched = false;
    int blowups = 0;
    for (int s = 0; s < steps; s++) {
        blowups += psb_world_step(w);
        const psb_body_state st = psb_body_measure(w, id);
        r.lowest = fmin(r.lowest, st.min_y);
        touched = touched || st.min_y <= p.floor_y + 1e-9;
        if (touched) {
            r.apex = fmax(r.apex, st.centroid.y);
        }
        r.worst_gain = fmax(r.worst_gain, st.energy - e0);
        r.end = st;
    }
    CHECK(blowups == 0, "dropped ball blew up: %s", psb_world_last_event(w));
    CHECK(touched, "dropped ball never reached the floor");
    r.energy_loss = e0 - r.end.energy;
    psb_world_destroy(w);
    return r;
}

static void test_ball_on_floor(void) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 1, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    const double drop_pe = 1.0 * g * 1.0; // m g H, J

    // A floor below y = 0, inelastic contact and firm damping: it lands and
    // comes to rest within 8 s. (A gas ball with the default kd = 2 bounces
    // on its gas spring for much longer, as a real one does.)
    psb_params p = psb_default_params();
    p.floor_y = -1.0;
    p.restitution = 0.0;
    p.substeps = 40;
    drop_result r = drop_ball(&m, p, material(2000.0, 10.0, 100.0), 480);
    CHECK(r.lowest >= p.floor_y - 1e-12, "ball went below the floor: min_y %.17g, floor %g",
          r.lowest, p.floor_y);
    CHECK(r.end.kinetic < 1e-3 * drop_pe, "ball not at rest after 8 s: kinetic %.3g J",
          r.end.kinetic);
    CHECK(r.end.min_y - p.floor_y < 1e-3, "resting ball floats %.3g m above the floor",
          r.end.min_y - p.floor_y);
    // Gas inflates it a little beyond its rest radius 0.5 m, its weight
    // squashes it a little.
    CHECK(r.end.centroid.y - p.floor_y > 0.3 && r.end.centroid.y - p.floor_y < 0.515,
          "resting ball's centroid %.3g m above the floor, expected about its radius 0.5 m",
          r.end.centroid.y - p.floor_y);

    // Elastic contact, no damping, no friction: the energy survives the
    // bounce (to the O(h) error of pushing points out) and the ball
    // rebounds to most of its height.
    p = psb_default_params();
    p.restitution = 1.0;
    p.friction = 0.0;
    p.substeps = 80;
    psb_body_params bp = material(2000.0, 0.0, 100.0);
    r = drop_ball(&m, p, bp, 60);
    CHECK(r.lowest >= p.floor_y - 1e-12, "e=1: ball went below the floor (%.17g)", r.lowest);
    const double rebound = (r.apex - p.floor_y - 0.5) / 1.0; // bottom fell 1 m
    CHECK(rebound > 0.5, "e=1: centroid rebounded to %.2f of the drop height", rebound);
    CHECK(fabs(r.energy_loss) < 0.1 * drop_pe && r.worst_gain < 0.1 * drop_pe,
          "e=1: energy changed by %.3g J (worst gain %.3g J) through an elastic bounce",
          -r.energy_loss, r.worst_gain);

    // Inelastic contact: the points that hit the floor lose their normal
    // speed, so energy is lost although nothing else dissipates.
    p.restitution = 0.0;
    const drop_result r0 = drop_ball(&m, p, bp, 60);
    CHECK(r0.lowest >= p.floor_y - 1e-12, "e=0: ball went below the floor (%.17g)", r0.lowest);
    CHECK(r0.energy_loss > 0.1 * drop_pe && r0.energy_loss > 2.0 * fabs(r.energy_loss),
          "e=0: only %.3g J of %.3g J lost in the bounce (e=1: %.3g J)", r0.energy_loss, drop_pe,
          r.energy_loss);
    psb_mesh_free(&m);

    // A ring (2D) lands and stays on the floor too.
    CHECK(psb_mesh_ring(&m, 30, 0.5, &err) == PSB_OK, "ring: %s", err.message);
    p = psb_default_params();
    p.restitution = 0.0;
    p.substeps = 40;
    r = drop_ball(&m, p, material(2000.0, 10.0, 20.0), 480);
    CHECK(r.lowest >= p.floor_y - 1e-12, "ring went below the floor (%.17g)", r.lowest);
    // It keeps squashing on its gas spring (bending is not damped by kd
    // along the springs) but has lost most of the fall's energy.
    CHECK(r.end.kinetic < 0.1 * drop_pe, "ring still has kinetic %.3g J", r.end.kinetic);
    CHECK(r.end.min_y - p.floor_y < 1e-3, "resting ring floats %.3g m above the floor",
          r.end.min_y);
    psb_mesh_free(&m);
}

// A flat box resting on the floor and pushed sideways: without friction
// nothing acts along x, so its x momentum stays exactly; with friction its
// bottom points are slowed and it slides to a stop. (A ball would roll, and
// rolling is not slowed by contact friction.)
static void test_sliding_box(void) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_box(&m, 2, (psb_vec3){0.4, 0.15, 0.4}, &err) == PSB_OK, "box: %s", err.message);
    double px_end[2] = {0, 0};
    const double mus[2] = {0.0, 5.0};
    for (int k = 0; k < 2; k++) {
        psb_params p = psb_default_params();
        p.friction = mus[k];
        p.restitution = 0.0;
        p.substeps = 40;
        const psb_body_params bp = material(2000.0, 5.0, 20.0);
        psb_world *w = make_world(&p);
        const int id = add_moving_mesh(w, &m, bp, (psb_vec3){0, 0.15, 0}, (psb_vec3){0, 0, 0});
        if (!w || id < 0) {
            psb_world_destroy(w);
            continue;
        }
        // Settle on the floor first.
        for (int s = 0; s < 120; s++) {
            psb_world_step(w);
        }
        const int n = psb_body_point_count(w, id);
        psb_vec3 v[64];
        const psb_vec3 *vv = psb_body_velocities(w, id);
        CHECK(n <= 64, "box has %d points", n);
        for (int i = 0; i < n && i < 64; i++) {
            v[i] = (psb_vec3){vv[i].x + 2.0, vv[i].y, vv[i].z};
        }
        psb_body_set_state(w, id, NULL, v, &err);
        const double px0 = psb_body_measure(w, id).momentum.x;
        double worst_drift = 0.0, lowest = INFINITY;
        for (int s = 0; s < 120; s++) {
            psb_world_step(w);
            const psb_body_state st = psb_body_measure(w, id);
            worst_drift = fmax(worst_drift, fabs(st.momentum.x - px0));
            lowest = fmin(lowest, st.min_y);
        }
        CHECK(lowest >= -1e-12, "sliding box went below the floor (%.3g)", lowest);
        if (mus[k] == 0.0) {
            CHECK(worst_drift <= 1e-12 * fabs(px0),
                  "no friction: x momentum changed by %.3g kg m/s from %.3g", worst_drift, px0);
        }
        px_end[k] = psb_body_measure(w, id).momentum.x;
        psb_world_destroy(w);
    }
    CHECK(px_end[1] < 0.6 * px_end[0] && px_end[1] > 0.0,
          "friction 5/s: x momentum %.3g kg m/s after 2 s of sliding (no friction: %.3g)",
          px_end[1], px_end[0]);
    psb_mesh_free(&m);
}

static void test_walls(void) {
    psb_params p = psb_default_params();
    p.walls = true;
    p.walls_min = (psb_vec3){-1.0, -0.5, -1.5};
    p.walls_max = (psb_vec3){1.5, 2.0, 1.0};
    p.floor = false;
    p.restitution = 0.8;
    p.friction = 0.5;
    p.substeps = 40;
    psb_world *w = make_world(&p);
    psb_mesh shell, ring;
    psb_error err;
    CHECK(psb_mesh_icosphere(&shell, 1, 0.3, &err) == PSB_OK, "icosphere: %s", err.message);
    CHECK(psb_mesh_ring(&ring, 20, 0.3, &err) == PSB_OK, "ring: %s", err.message);
    psb_body_params bp = material(2000.0, 2.0, 30.0);
    const int a = add_moving_mesh(w, &shell, bp, (psb_vec3){0, 1, 0}, (psb_vec3){6.0, 3.0, -5.0});
    bp.gas_nrt = 10.0;
    const int b =
        add_moving_mesh(w, &ring, bp, (psb_vec3){0.2, 0.5, 0}, (psb_vec3){-7.0, 4.0, 3.0});
    if (w && a >= 0 && b >= 0) {
        int outside = 0, blowups = 0;
        bool hit[6] = {false, false, false, false, false, false};
        for (int s = 0; s < 180; s++) {
            blowups += psb_world_step(w);
            for (int body = 0; body < 2; body++) {
                const psb_vec3 *x = psb_body_positions(w, body);
                const int n = psb_body_point_count(w, body);
                const bool is_ring = psb_body_get_kind(w, body) == PSB_RING;
                const double tol = 1e-12;
                for (int i = 0; i < n; i++) {
                    const double c[3] = {x[i].x, x[i].y, x[i].z};
                    const double lo[3] = {p.walls_min.x, p.walls_min.y, p.walls_min.z};
                    const double hi[3] = {p.walls_max.x, p.walls_max.y, p.walls_max.z};
                    for (int axis = 0; axis < (is_ring ? 2 : 3); axis++) {
                        if (c[axis] < lo[axis] - tol || c[axis] > hi[axis] + tol) {
                            outside++;
                        }
                        hit[2 * axis] = hit[2 * axis] || c[axis] <= lo[axis] + 1e-9;
                        hit[2 * axis + 1] = hit[2 * axis + 1] || c[axis] >= hi[axis] - 1e-9;
                    }
                }
            }
        }
        CHECK(blowups == 0, "blow-up between the walls: %s", psb_world_last_event(w));
        CHECK(outside == 0, "%d point-steps ended outside the walls", outside);
        // The throws are hard enough to reach the walls (else the test proves nothing).
        CHECK(hit[0] && hit[1] && hit[2] && hit[4] && hit[5],
              "walls touched: -x %d +x %d -y %d +y %d -z %d +z %d", hit[0], hit[1], hit[2], hit[3],
              hit[4], hit[5]);
    }
    psb_world_destroy(w);
    psb_mesh_free(&shell);
    psb_mesh_free(&ring);

    // A particle thrown at a wall with e = 1 and no friction comes back at
    // the same speed.
    p = psb_default_params();
    p.walls = true;
    p.floor = false;
    p.gravity = 0.0;
    p.restitution = 1.0;
    p.friction = 0.0;
    w = make_world(&p);
    psb_mesh tet;
    CHECK(psb_mesh_icosphere(&tet, 0, 0.2, &err) == PSB_OK, "icosphere: %s", err.message);
    const int id = add_moving_mesh(w, &tet, dust(), (psb_vec3){0, 0, 0}, (psb_vec3){3.0, 0.0, 0.0});
    if (w && id >= 0) {
        for (int s = 0; s < 150; s++) { // 2.5 s: 5 m to the wall at x = 5 and back part way
            psb_world_step(w);
        }
        const psb_vec3 *v = psb_body_velocities(w, id);
        for (int i = 0; i < 12; i++) {
            CHECK(fabs(v[i].x + 3.0) < 1e-12 && v[i].y == 0.0 && v[i].z == 0.0,
                  "particle %d after the wall: v = (%g, %g, %g), expected (-3, 0, 0)", i, v[i].x,
                  v[i].y, v[i].z);
        }
    }
    psb_world_destroy(w);
    psb_mesh_free(&tet);
}

static void test_sphere_collider(void) {
    const psb_vec3 centre = {0.0, 1.0, 0.0};
    const double radius = 1.0;
    psb_mesh shell, ring;
    psb_error err;
    CHECK(psb_mesh_icosphere(&shell, 1, 0.3, &err) == PSB_OK, "icosphere: %s", err.message);
    CHECK(psb_mesh_ring(&ring, 24, 0.3, &err) == PSB_OK, "ring: %s", err.message);
    for (int kind = 0; kind < 2; kind++) {
        psb_params p = psb_default_params();
        p.floor = true;
        psb_world *w = make_world(&p);
        CHECK(psb_world_add_sphere(w, centre, radius, &err) == PSB_OK, "add_sphere: %s",
              err.message);
        CHECK(psb_world_sphere_count(w) == 1, "sphere count %d", psb_world_sphere_count(w));
        psb_vec3 c;
        double r;
        psb_world_sphere(w, 0, &c, &r);
        CHECK(c.x == centre.x && c.y == centre.y && c.z == centre.z && r == radius,
              "sphere read back as (%g, %g, %g) r %g", c.x, c.y, c.z, r);
        const psb_body_params bp = material(2000.0, 2.0, kind ? 10.0 : 30.0);
        // Dropped from above, a little to the +x side of the top.
        const int id = add_moving_mesh(w, kind ? &ring : &shell, bp, (psb_vec3){0.15, 2.8, 0.0},
                                       (psb_vec3){0, 0, 0});
        if (!w || id < 0) {
            psb_world_destroy(w);
            continue;
        }
        int inside = 0, touched = 0;
        double closest = INFINITY;
        for (int s = 0; s < 180; s++) {
            psb_world_step(w);
            const psb_vec3 *x = psb_body_positions(w, id);
            for (int i = 0; i < psb_body_point_count(w, id); i++) {
                const double d = sqrt((x[i].x - centre.x) * (x[i].x - centre.x) +
                                      (x[i].y - centre.y) * (x[i].y - centre.y) +
                                      (x[i].z - centre.z) * (x[i].z - centre.z));
                closest = fmin(closest, d);
                inside += d < radius - 1e-12;
                touched += d < radius + 1e-9;
            }
        }
        const char *name = kind ? "ring" : "shell";
        CHECK(inside == 0, "%s: %d point-steps ended inside the sphere (closest %.17g)", name,
              inside, closest);
        CHECK(touched > 0, "%s never touched the sphere", name);
        // It rolled off the +x side and fell to the floor beside the sphere.
        const psb_body_state st = psb_body_measure(w, id);
        CHECK(st.centroid.x > radius, "%s: centroid x %.3g, expected it pushed off to x > %g", name,
              st.centroid.x, radius);
        CHECK(st.centroid.y < 0.5, "%s: centroid y %.3g, expected it on the floor", name,
              st.centroid.y);
        psb_world_destroy(w);
    }
    psb_mesh_free(&shell);
    psb_mesh_free(&ring);
}

int main(void) {
    test_restitution_law();
    test_friction_law();
    test_ball_on_floor();
    test_sliding_box();
    test_walls();
    test_sphere_collider();
    return check_done("test_collide");
}
