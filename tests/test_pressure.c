// Gas pressure forces, read back through the public API: a body at rest with
// gas only (no springs, no gravity, no floor) takes one symplectic-Euler step
// of h, so each point's velocity is v_i = h F_i / m_i and F_i = m_i v_i / h.
// On any closed surface, including randomly jittered ones:
//   - the net force is zero and so is the net torque (the area vectors of a
//     closed surface sum to zero; the volume does not change under rotation);
//   - sum F_i . (x_i - c) = d P V with d = 3 for a shell and 2 for a ring,
//     because V is homogeneous of degree d (Euler's theorem) and F = P dV/dx;
//   - each F_i equals P dV/dx_i, with dV/dx_i measured by finite differences
//     of the body's own volume (V is linear in each single point, so the
//     difference quotient is exact up to rounding).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static const double h = 1e-4; // s, the one step

static psb_world *gas_world(void) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.walls = false;
    p.integrator = PSB_SYMPLECTIC_EULER;
    p.dt = h;
    p.substeps = 1;
    return make_world(&p);
}

static psb_body_params gas_only(double nrt, double p0) {
    psb_body_params bp = psb_default_body_params();
    bp.mass = 2.0;
    bp.spring_k = 0.0;
    bp.spring_damping = 0.0;
    bp.gas_nrt = nrt;
    bp.outside_pressure = p0;
    bp.inflate_time = 0.0;
    return bp;
}

// Checks everything in the header comment for one surface. points are
// absolute positions (no offset).
static void check_surface(const char *name, psb_body_kind kind, const psb_vec3 *points, int n,
                          const int *tris, int tri_count, double nrt, double p0, bool by_area) {
    psb_world *w = gas_world();
    if (!w) {
        return;
    }
    psb_body_def def = psb_default_body_def();
    def.kind = kind;
    def.points = points;
    def.point_count = n;
    def.triangles = tris;
    def.triangle_count = tri_count;
    def.params = gas_only(nrt, p0);
    def.params.mass_by_area = by_area;
    psb_error err;
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "%s: add_body: %s", name, err.message);
    if (id != 0) {
        psb_world_destroy(w);
        return;
    }
    const psb_body_state before = psb_body_measure(w, id);
    const double volume = before.volume;
    const double pressure = nrt / volume - p0;
    CHECK(fabs(before.pressure - pressure) <= 1e-12 * fabs(pressure),
          "%s: pressure %.17g, expected nRT/V - P0 = %.17g", name, before.pressure, pressure);

    // Initial positions as the body holds them (a ring drops z).
    psb_vec3 *x0 = malloc((size_t)n * sizeof *x0);
    psb_vec3 *force = malloc((size_t)n * sizeof *force);
    memcpy(x0, psb_body_positions(w, id), (size_t)n * sizeof *x0);
    psb_vec3 c = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        c.x += x0[i].x / n;
        c.y += x0[i].y / n;
        c.z += x0[i].z / n;
    }

    CHECK(psb_world_step(w) == 0, "%s: step reported a blow-up: %s", name, psb_world_last_event(w));
    const psb_vec3 *v = psb_body_velocities(w, id);
    const double *m = psb_body_masses(w, id);
    psb_vec3 net = {0, 0, 0}, torque = {0, 0, 0};
    double sum_abs = 0.0, sum_abs_torque = 0.0, virial = 0.0;
    double mass_sum = 0.0;
    for (int i = 0; i < n; i++) {
        const psb_vec3 f = {m[i] * v[i].x / h, m[i] * v[i].y / h, m[i] * v[i].z / h};
        force[i] = f;
        mass_sum += m[i];
        net = (psb_vec3){net.x + f.x, net.y + f.y, net.z + f.z};
        const psb_vec3 r = sub(x0[i], c);
        const psb_vec3 t = cross(r, f);
        torque = (psb_vec3){torque.x + t.x, torque.y + t.y, torque.z + t.z};
        sum_abs += norm(f);
        sum_abs_torque += norm(r) * norm(f);
        virial += dot(f, r);
    }
    CHECK(fabs(mass_sum - def.params.mass) < 1e-12, "%s: masses add up to %.17g, expected %g", name,
          mass_sum, def.params.mass);
    CHECK(sum_abs > 0.0, "%s: no pressure force at all", name);
    CHECK(norm(net) <= 1e-12 * sum_abs, "%s: net pressure force %.3g N (sum of |F_i| %.3g N)", name,
          norm(net), sum_abs);
    CHECK(norm(torque) <= 1e-12 * sum_abs_torque,
          "%s: net pressure torque %.3g N m (sum of |r||F| %.3g)", name, norm(torque),
          sum_abs_torque);
    // The body's reported momentum is the same h * sum F.
    const psb_body_state after = psb_body_measure(w, id);
    CHECK(norm(after.momentum) <= 1e-12 * sum_abs * h, "%s: momentum after one step %.3g kg m/s",
          name, norm(after.momentum));
    // Euler's theorem for the homogeneous volume.
    const double d = kind == PSB_RING ? 2.0 : 3.0;
    CHECK(fabs(virial - d * pressure * volume) <= 1e-10 * fabs(d * pressure * volume),
          "%s: sum F.(x - c) = %.17g, expected %g P V = %.17g", name, virial, d,
          d * pressure * volume);

    // F_i = P dV/dx_i, point by point, with dV/dx_i from the body's own
    // volume after moving one coordinate of one point by +-eps.
    const double eps = 1e-3;
    double worst = 0.0;
    int worst_i = -1;
    psb_vec3 *probe = malloc((size_t)n * sizeof *probe);
    memcpy(probe, x0, (size_t)n * sizeof *probe);
    const int axes = kind == PSB_RING ? 2 : 3;
    for (int i = 0; i < n; i++) {
        double grad[3] = {0, 0, 0};
        for (int a = 0; a < axes; a++) {
            double *coord = a == 0 ? &probe[i].x : a == 1 ? &probe[i].y : &probe[i].z;
            const double keep = *coord;
            *coord = keep + eps;
            psb_body_set_state(w, id, probe, NULL, NULL);
            const double vp = psb_body_measure(w, id).volume;
            *coord = keep - eps;
            psb_body_set_state(w, id, probe, NULL, NULL);
            const double vm = psb_body_measure(w, id).volume;
            *coord = keep;
            grad[a] = (vp - vm) / (2.0 * eps);
        }
        const psb_vec3 want = {pressure * grad[0], pressure * grad[1], pressure * grad[2]};
        const double e = norm(sub(force[i], want));
        if (e > worst) {
            worst = e;
            worst_i = i;
        }
    }
    const double mean_abs = sum_abs / n;
    CHECK(worst <= 1e-9 * mean_abs,
          "%s: point %d: force differs from P dV/dx by %.3g N (mean |F| %.3g N)", name, worst_i,
          worst, mean_abs);
    free(probe);
    free(force);
    free(x0);
    psb_world_destroy(w);
}

static void check_mesh(const char *name, const psb_mesh *mesh, double nrt, double p0) {
    check_surface(name, mesh->kind, mesh->points, mesh->point_count, mesh->triangles,
                  mesh->triangle_count, nrt, p0, false);
}

static void jitter(psb_mesh *mesh, double amount, psb_vec3 offset, uint64_t seed) {
    for (int i = 0; i < mesh->point_count; i++) {
        mesh->points[i].x += amount * rnd(&seed) + offset.x;
        mesh->points[i].y += amount * rnd(&seed) + offset.y;
        if (mesh->kind == PSB_SHELL) {
            mesh->points[i].z += amount * rnd(&seed) + offset.z;
        }
    }
}

// A gas-only sphere pushes every point outward, with speed (P A_i h / m_i)
// the same for every point of the icosahedron.
static void check_outward(void) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 2, 0.5, &err) == PSB_OK, "icosphere: %s", err.message);
    psb_world *w = gas_world();
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = gas_only(50.0, 0.0);
    def.offset = (psb_vec3){3.0, -1.0, 2.0};
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    if (id == 0) {
        const psb_vec3 c = psb_body_measure(w, id).centroid;
        psb_vec3 *x0 = malloc((size_t)m.point_count * sizeof *x0);
        memcpy(x0, psb_body_positions(w, id), (size_t)m.point_count * sizeof *x0);
        psb_world_step(w);
        const psb_vec3 *v = psb_body_velocities(w, id);
        int inward = 0;
        for (int i = 0; i < m.point_count; i++) {
            const psb_vec3 r = sub(x0[i], c);
            // Nearly radial: the angle between v and r is small on a fine sphere.
            if (!(dot(v[i], r) > 0.9 * norm(v[i]) * norm(r))) {
                inward++;
            }
        }
        CHECK(inward == 0, "%d points of a gas-filled sphere do not accelerate outward", inward);
        // With P0 larger than nRT/V the gas pulls every point inward.
        psb_body_params bp = gas_only(50.0, 1000.0);
        CHECK(psb_body_set_params(w, id, &bp, &err) == PSB_OK, "set_params: %s", err.message);
        const psb_vec3 zero[162] = {{0, 0, 0}};
        CHECK(m.point_count == 162, "level-2 icosphere: %d points", m.point_count);
        psb_body_set_state(w, id, x0, zero, NULL);
        psb_world_step(w);
        inward = 0;
        for (int i = 0; i < m.point_count; i++) {
            if (dot(v[i], sub(x0[i], c)) < 0) {
                inward++;
            }
        }
        CHECK(inward == m.point_count, "only %d of %d points pulled inward by P0 > nRT/V", inward,
              m.point_count);
        free(x0);
    }
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

int main(void) {
    psb_mesh m;
    psb_error err;

    CHECK(psb_mesh_icosphere(&m, 2, 1.0, &err) == PSB_OK, "icosphere: %s", err.message);
    check_mesh("icosphere", &m, 100.0, 0.0);
    check_mesh("icosphere with P0", &m, 100.0, 5.0);
    jitter(&m, 0.2, (psb_vec3){4.0, -2.0, 7.0}, 0x1234567u);
    check_mesh("jittered icosphere", &m, 30.0, 0.0);
    check_surface("jittered icosphere, mass by area", m.kind, m.points, m.point_count, m.triangles,
                  m.triangle_count, 30.0, 2.0, true);
    psb_mesh_free(&m);

    CHECK(psb_mesh_box(&m, 3, (psb_vec3){0.5, 1.0, 0.25}, &err) == PSB_OK, "box: %s", err.message);
    check_mesh("box", &m, 10.0, 0.0);
    jitter(&m, 0.08, (psb_vec3){-1.0, 0.0, 0.5}, 77);
    check_mesh("jittered box", &m, 10.0, 0.0);
    psb_mesh_free(&m);

    CHECK(psb_mesh_torus(&m, 16, 8, 1.0, 0.35, &err) == PSB_OK, "torus: %s", err.message);
    check_mesh("torus", &m, 20.0, 0.0);
    jitter(&m, 0.05, (psb_vec3){0.0, 2.0, 0.0}, 99);
    check_mesh("jittered torus", &m, 20.0, 1.0);
    psb_mesh_free(&m);

    CHECK(psb_mesh_uvsphere(&m, 8, 12, 0.7, &err) == PSB_OK, "uvsphere: %s", err.message);
    check_mesh("uv sphere", &m, 5.0, 0.0);
    psb_mesh_free(&m);

    CHECK(psb_mesh_ring(&m, 24, 1.0, &err) == PSB_OK, "ring: %s", err.message);
    check_mesh("ring", &m, 10.0, 0.0);
    jitter(&m, 0.15, (psb_vec3){-5.0, 3.0, 0.0}, 4242);
    check_mesh("jittered ring", &m, 10.0, 0.0);
    check_surface("jittered ring, mass by area", m.kind, m.points, m.point_count, NULL, 0, 10.0,
                  1.0, true);
    psb_mesh_free(&m);

    // The smallest closed shell, a tetrahedron.
    const psb_vec3 tet[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const int tet_tris[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    check_surface("tetrahedron", PSB_SHELL, tet, 4, tet_tris, 4, 1.0, 0.0, false);

    check_outward();
    return check_done("test_pressure");
}
