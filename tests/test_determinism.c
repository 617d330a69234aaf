// Determinism: the same input and parameters give the same bits.
//
// Two worlds built the same way and stepped the same number of times hold
// bit-identical positions and velocities (memcmp), also when the integrator
// is switched on the way, when the worlds are stepped interleaved or one
// after the other (no state shared between worlds), when a world is made
// after another has run, and after a body is reset.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

// A busy scene: a ring, a jittered icosphere with random velocities, a box
// and a torus, with gravity, floor, walls, a sphere, damping and inflation.
static psb_world *make_scene(void) {
    psb_params p = psb_default_params();
    p.walls = true;
    p.walls_min = (psb_vec3){-3, -1, -3};
    p.walls_max = (psb_vec3){3, 5, 3};
    p.restitution = 0.4;
    p.friction = 1.5;
    p.substeps = 30;
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) {
        return NULL;
    }
    CHECK(psb_world_add_sphere(w, (psb_vec3){0.2, 0.5, 0.0}, 0.6, &err) == PSB_OK, "sphere: %s",
          err.message);
    psb_body_params bp = psb_default_body_params();
    bp.spring_k = 1500.0;
    bp.spring_damping = 1.0;

    psb_mesh m;
    psb_mesh_ring(&m, 40, 0.5, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = bp;
    def.params.gas_nrt = 15.0;
    def.offset = (psb_vec3){-1.0, 2.5, 0.0};
    def.velocity = (psb_vec3){2.0, 0.0, 0.0};
    CHECK(psb_world_add_body(w, &def, &err) == 0, "ring: %s", err.message);
    psb_mesh_free(&m);

    psb_mesh_icosphere(&m, 1, 0.4, &err);
    uint64_t seed = 2024;
    for (int i = 0; i < m.point_count; i++) {
        m.points[i].x += 0.03 * rnd(&seed);
        m.points[i].y += 0.03 * rnd(&seed);
        m.points[i].z += 0.03 * rnd(&seed);
    }
    def = psb_mesh_body_def(&m);
    def.params = bp;
    def.params.gas_nrt = 60.0;
    def.params.inflate_time = 0.3;
    def.params.mass_by_area = true;
    def.offset = (psb_vec3){0.3, 2.0, 0.1};
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 1, "icosphere: %s", err.message);
    if (id == 1) {
        psb_vec3 v[42];
        for (int i = 0; i < 42; i++) {
            v[i] = (psb_vec3){0.3 * rnd(&seed), 0.3 * rnd(&seed), 0.3 * rnd(&seed)};
        }
        psb_body_set_state(w, id, NULL, v, &err);
    }
    psb_mesh_free(&m);

    psb_mesh_box(&m, 2, (psb_vec3){0.3, 0.2, 0.25}, &err);
    def = psb_mesh_body_def(&m);
    def.params = bp;
    def.params.gas_nrt = 20.0;
    def.params.outside_pressure = 2.0;
    def.offset = (psb_vec3){1.5, 1.0, -1.0};
    def.velocity = (psb_vec3){-1.0, 3.0, 2.0};
    CHECK(psb_world_add_body(w, &def, &err) == 2, "box: %s", err.message);
    psb_mesh_free(&m);

    psb_mesh_torus(&m, 12, 6, 0.4, 0.15, &err);
    def = psb_mesh_body_def(&m);
    def.params = bp;
    def.params.gas_nrt = 10.0;
    def.offset = (psb_vec3){-1.5, 3.0, 1.0};
    CHECK(psb_world_add_body(w, &def, &err) == 3, "torus: %s", err.message);
    psb_mesh_free(&m);
    return w;
}

// Integrator for world step k in the switching runs.
static psb_integrator schedule(int k) {
    static const psb_integrator order[] = {PSB_SYMPLECTIC_EULER, PSB_RK4,  PSB_VERLET, PSB_HEUN,
                                           PSB_SYMPLECTIC_EULER, PSB_EULER};
    return order[(k / 7) % 6];
}

static void step_with(psb_world *w, int k, bool switching) {
    if (switching) {
        psb_params p = *psb_world_params(w);
        p.integrator = schedule(k);
        psb_world_set_params(w, &p, NULL);
    }
    psb_world_step(w);
}

static void test_pairs(bool switching) {
    const char *mode = switching ? "switching integrators" : "one integrator";
    const int steps = 120;

    // Interleaved.
    psb_world *a = make_scene();
    psb_world *b = make_scene();
    if (!a || !b) {
        psb_world_destroy(a);
        psb_world_destroy(b);
        return;
    }
    CHECK(same_bits(a, b), "%s: the worlds differ before any step", mode);
    bool moved = false;
    const psb_vec3 first = psb_body_positions(a, 1)[0];
    for (int k = 0; k < steps; k++) {
        step_with(a, k, switching);
        step_with(b, k, switching);
        if (!same_bits(a, b)) {
            CHECK(false, "%s: interleaved worlds differ after step %d", mode, k + 1);
            break;
        }
    }
    const psb_vec3 last = psb_body_positions(a, 1)[0];
    moved = memcmp(&first, &last, sizeof first) != 0;
    CHECK(moved, "%s: the scene did not move at all", mode);
    for (int id = 0; id < psb_world_body_count(a); id++) {
        const psb_vec3 *x = psb_body_positions(a, id);
        for (int i = 0; i < psb_body_point_count(a, id); i++) {
            CHECK(isfinite(x[i].x) && isfinite(x[i].y) && isfinite(x[i].z),
                  "%s: body %d point %d is not finite", mode, id, i);
        }
    }

    // One after the other, with a third world made after the first ran.
    psb_world *c = make_scene();
    for (int k = 0; c && k < steps; k++) {
        step_with(c, k, switching);
    }
    psb_world *d = make_scene();
    for (int k = 0; d && k < steps; k++) {
        step_with(d, k, switching);
    }
    CHECK(c && same_bits(a, c), "%s: a world stepped alone differs from the interleaved one", mode);
    CHECK(c && d && same_bits(c, d), "%s: a world made later differs", mode);

    // Reset puts a body back to exactly its initial state; both worlds reset
    // and run on identically.
    psb_world *fresh = make_scene();
    if (fresh) {
        for (int id = 0; id < psb_world_body_count(a); id++) {
            psb_body_reset(a, id);
            psb_body_reset(b, id);
        }
        // Body 1 had its velocities set after creation; the reset state is
        // its definition's (zero velocity). Compare positions of all bodies
        // and the velocities of the others.
        for (int id = 0; id < psb_world_body_count(a); id++) {
            const size_t bytes = (size_t)psb_body_point_count(a, id) * sizeof(psb_vec3);
            CHECK(memcmp(psb_body_positions(a, id), psb_body_positions(fresh, id), bytes) == 0,
                  "%s: body %d positions after reset differ from a fresh world's", mode, id);
            if (id != 1) {
                CHECK(memcmp(psb_body_velocities(a, id), psb_body_velocities(fresh, id), bytes) ==
                          0,
                      "%s: body %d velocities after reset differ from a fresh world's", mode, id);
            }
        }
        for (int k = 0; k < 30; k++) {
            step_with(a, k, switching);
            step_with(b, k, switching);
        }
        CHECK(same_bits(a, b), "%s: worlds differ after reset and 30 more steps", mode);
    }
    psb_world_destroy(fresh);
    psb_world_destroy(a);
    psb_world_destroy(b);
    psb_world_destroy(c);
    psb_world_destroy(d);
}

// With contact between bodies off, bodies do not interact: a body's
// trajectory does not depend on which other bodies share its world.
static void test_independent_bodies(void) {
    psb_world *full = make_scene();
    psb_params p = psb_default_params();
    if (!full) {
        return;
    }
    p = *psb_world_params(full);
    p.body_contact = false;
    psb_error set_err;
    CHECK(psb_world_set_params(full, &p, &set_err) == PSB_OK, "contact off: %s",
          set_err.message);
    psb_error err;
    psb_world *alone = psb_world_create(&p, &err);
    CHECK(alone != NULL, "world: %s", err.message);
    if (!alone) {
        psb_world_destroy(full);
        return;
    }
    psb_world_add_sphere(alone, (psb_vec3){0.2, 0.5, 0.0}, 0.6, &err);
    psb_mesh m;
    psb_mesh_box(&m, 2, (psb_vec3){0.3, 0.2, 0.25}, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = *psb_body_get_params(full, 2);
    def.offset = (psb_vec3){1.5, 1.0, -1.0};
    def.velocity = (psb_vec3){-1.0, 3.0, 2.0};
    const int id = psb_world_add_body(alone, &def, &err);
    CHECK(id == 0, "box: %s", err.message);
    psb_mesh_free(&m);
    for (int k = 0; id == 0 && k < 90; k++) {
        psb_world_step(full);
        psb_world_step(alone);
    }
    if (id == 0) {
        const size_t bytes = (size_t)psb_body_point_count(alone, 0) * sizeof(psb_vec3);
        CHECK(memcmp(psb_body_positions(full, 2), psb_body_positions(alone, 0), bytes) == 0,
              "the box moves differently with other bodies in its world");
    }
    psb_world_destroy(full);
    psb_world_destroy(alone);
}

int main(void) {
    test_pairs(false);
    test_pairs(true);
    test_independent_bodies();
    return check_done("test_determinism");
}
