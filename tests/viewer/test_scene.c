// The scene builders shared by the viewer, the tests and the benchmark: the
// default scene has the ring and three spheres with gas in the right order,
// sub-steps its bodies can take, and it settles on the floor without a
// blow-up; meshes added later land in free spots; bad input is refused.
#include "check.h"
#include "psb_scene.h"

#include <math.h>
#include <string.h>

static void test_default_scene(void) {
    const psb_scene_config config = psb_default_scene_config();
    psb_scene s;
    psb_error err = {0};
    CHECK(psb_scene_build(&s, "default", &config, &err) == PSB_OK, "%s", err.message);
    if (!s.world) {
        return;
    }
    CHECK(s.body_count == 4, "%d bodies", s.body_count);
    CHECK(psb_world_body_count(s.world) == s.body_count, "world and scene disagree");
    CHECK(psb_body_get_kind(s.world, 0) == PSB_RING, "body 0 is not the ring");
    for (int b = 1; b < 4; b++) {
        CHECK(psb_body_get_kind(s.world, b) == PSB_SHELL, "body %d is not a shell", b);
        CHECK(psb_body_point_count(s.world, b) == 642, "level 3 icosphere: %d points",
              psb_body_point_count(s.world, b));
    }
    // One material for both modes; gas low < medium < high.
    for (int b = 1; b < 4; b++) {
        const psb_body_params *p = psb_body_get_params(s.world, b);
        const psb_body_params *ring = psb_body_get_params(s.world, 0);
        CHECK(p->spring_k == ring->spring_k && p->mass == ring->mass &&
                  p->spring_damping == ring->spring_damping,
              "body %d's material differs from the ring's", b);
    }
    CHECK(s.bodies[1].gas_nrt < s.bodies[2].gas_nrt && s.bodies[2].gas_nrt < s.bodies[3].gas_nrt,
          "gas not in order: %g %g %g", s.bodies[1].gas_nrt, s.bodies[2].gas_nrt,
          s.bodies[3].gas_nrt);
    // The sub-step is inside every body's stability estimate.
    const psb_params *p = psb_world_params(s.world);
    const double h = p->dt / p->substeps;
    CHECK(p->substeps >= 10, "%d sub-steps", p->substeps);
    for (int b = 0; b < s.body_count; b++) {
        CHECK(h <= 0.9 * psb_body_stable_substep(s.world, b) * (1.0 + 1e-12),
              "h = %g s is above 0.9 x the stable %g s of body %d", h,
              psb_body_stable_substep(s.world, b), b);
    }
    CHECK(s.substeps_needed <= p->substeps, "needed %d, using %d", s.substeps_needed, p->substeps);

    // Ten seconds: pumped up, fallen, bouncing (gas makes them lively) and
    // losing energy, never through the floor or the walls.
    const int steps = (int)(10.0 / p->dt);
    int blowups = 0;
    double lowest[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, energy_after_fall[4] = {0};
    for (int k = 0; k < steps; k++) {
        blowups += psb_world_step(s.world);
        for (int b = 0; b < s.body_count; b++) {
            const psb_body_state st = psb_body_measure(s.world, b);
            lowest[b] = fmin(lowest[b], st.min_y);
            if (k == (int)(2.0 / p->dt)) {
                energy_after_fall[b] = st.energy;
            }
        }
    }
    CHECK(blowups == 0, "%d blow-ups: %s", blowups, psb_world_last_event(s.world));
    double ratio[4];
    for (int b = 0; b < s.body_count; b++) {
        const psb_body_state st = psb_body_measure(s.world, b);
        ratio[b] = st.volume / st.rest_volume;
        CHECK(isfinite(st.volume) && isfinite(st.energy), "body %d is not finite", b);
        CHECK(lowest[b] < p->floor_y + 0.01, "body %d never reached the floor (%g m)", b,
              lowest[b]);
        CHECK(lowest[b] > p->floor_y - 0.01, "body %d went through the floor (%g m)", b, lowest[b]);
        CHECK(st.energy < energy_after_fall[b], "body %d gained energy: %g J, then %g J", b,
              energy_after_fall[b], st.energy);
        CHECK(fabs(st.centroid.x) < config.arena_half && fabs(st.centroid.z) < config.arena_half,
              "body %d left the arena", b);
        CHECK_CLOSE(st.rest_volume, s.bodies[b].rest_volume, 1e-12);
    }
    CHECK(ratio[1] < ratio[2] && ratio[2] < ratio[3], "V/V0 not in gas order: %g %g %g", ratio[1],
          ratio[2], ratio[3]);
    CHECK(ratio[0] > 1.0, "the ring did not inflate: V/V0 %g", ratio[0]);
    psb_scene_destroy(&s);
    CHECK(s.world == NULL && s.body_count == 0, "destroy did not zero the scene");
}

static void test_add_mesh(void) {
    psb_scene_config config = psb_default_scene_config();
    config.sphere_level = 1;
    psb_scene s;
    psb_error err = {0};
    CHECK(psb_scene_build(&s, "ring", &config, &err) == PSB_OK, "%s", err.message);
    CHECK(s.body_count == 1, "the ring scene has %d bodies", s.body_count);
    psb_mesh box;
    CHECK(psb_mesh_box(&box, 2, (psb_vec3){0.4, 0.4, 0.4}, &err) == PSB_OK, "%s", err.message);
    double x_seen[3];
    for (int k = 0; k < 3; k++) {
        CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_OK, "%s", err.message);
        const psb_body_state st = psb_body_measure(s.world, 1 + k);
        x_seen[k] = st.centroid.x;
        CHECK(fabs(st.min_y - (config.params.floor_y + config.drop_height)) < 1e-9,
              "model %d starts at %g m", k, st.min_y);
        CHECK(strcmp(s.bodies[1 + k].label, "box") == 0, "label '%s'", s.bodies[1 + k].label);
    }
    CHECK(x_seen[0] != x_seen[1] && x_seen[1] != x_seen[2] && x_seen[0] != x_seen[2],
          "models share a spot: %g %g %g", x_seen[0], x_seen[1], x_seen[2]);
    // A full scene refuses more, and stays as it was.
    while (s.body_count < PSB_SCENE_MAX_BODIES) {
        CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_OK, "%s", err.message);
    }
    CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_ERR_INVALID, "a full scene took more");
    CHECK(strstr(err.message, "full") != NULL, "message: %s", err.message);
    CHECK(psb_world_body_count(s.world) == PSB_SCENE_MAX_BODIES, "the world grew anyway");
    psb_mesh_free(&box);
    psb_scene_destroy(&s);
}

static void test_bad_input(void) {
    psb_scene_config config = psb_default_scene_config();
    psb_scene s;
    psb_error err = {0};
    CHECK(psb_scene_build(&s, "nonsense", &config, &err) == PSB_ERR_INVALID, "unknown scene");
    CHECK(strstr(err.message, "default") != NULL, "the message lists no scenes: %s", err.message);
    CHECK(s.world == NULL, "a failed build left a world");
    config.ring_points = 2;
    CHECK(psb_scene_build(&s, "default", &config, &err) == PSB_ERR_INVALID, "2 ring points");
    config = psb_default_scene_config();
    config.params.body.mass = -1.0;
    CHECK(psb_scene_build(&s, "default", &config, &err) == PSB_ERR_INVALID, "negative mass");
    CHECK(psb_scene_find("default") == 0 && psb_scene_find("ring") >= 0 &&
              psb_scene_find("x") == -1,
          "psb_scene_find");
    for (int i = 0; i < psb_scene_count(); i++) {
        CHECK(psb_scene_summary(i)[0] != '\0', "scene %d has no summary", i);
    }
}

int main(void) {
    test_default_scene();
    test_add_mesh();
    test_bad_input();
    return check_done("test_scene");
}
