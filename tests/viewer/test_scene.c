// The scene builders shared by the viewer, the tests and the benchmark: the
// default scene has the ring and three spheres with gas in the right order,
// one solved BDF2 step a frame (with an explicit integrator, sub-steps its
// bodies can take), and it settles on the floor without a blow-up, every
// body squashing on landing and jiggling; the other scenes show what they
// are for (gas order in both modes, the pressure scene's bodies squashing
// and jiggling too, shape matching keeping a square a square, a flag that
// flaps on its pins, bodies bouncing off the planets); meshes added later
// land in free spots; every body of a scene has a colour of its own; bad
// input is refused.
#include "check.h"
#include <psb/psb_scene.h>

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

// A body's height over its width (the larger of its x and z extents): 1
// for a ball, less for one squashed or flattened on the floor.
static double height_over_width(const psb_world *w, int b) {
    const psb_vec3 *x = psb_body_positions(w, b);
    psb_vec3 lo = x[0], hi = x[0];
    for (int i = 1; i < psb_body_point_count(w, b); i++) {
        lo = (psb_vec3){fmin(lo.x, x[i].x), fmin(lo.y, x[i].y), fmin(lo.z, x[i].z)};
        hi = (psb_vec3){fmax(hi.x, x[i].x), fmax(hi.y, x[i].y), fmax(hi.z, x[i].z)};
    }
    return (hi.y - lo.y) / fmax(hi.x - lo.x, hi.z - lo.z);
}

// How a body lands: from its first touch of the floor for LANDING_S, the
// least height over width (the squash) and the swings of that ratio, each
// a turn of at least SWING from the last extreme (the jiggle).
#define LANDING_S 3.0
#define SWING     0.02
typedef struct landing {
    double touched; // simulated time of the first touch, s (< 0: not yet)
    double squash;  // least height / width since
    double extreme; // the ratio's last extreme
    int direction;  // +1 rising, -1 falling, 0 not known yet
    int swings;     // turns (a fall after a rise, or a rise after a fall) of at least SWING
} landing;

static void landing_track(landing *l, const psb_world *w, int b, double t, double floor_y) {
    if (l->touched < 0.0 && psb_body_measure(w, b).min_y < floor_y + 1e-3) {
        l->touched = t;
    }
    if (l->touched < 0.0 || t > l->touched + LANDING_S) {
        return;
    }
    const double r = height_over_width(w, b);
    l->squash = fmin(l->squash, r);
    if (l->direction >= 0 && r < l->extreme - SWING) {
        l->swings += l->direction > 0;
        l->direction = -1;
        l->extreme = r;
    } else if (l->direction <= 0 && r > l->extreme + SWING) {
        l->swings += l->direction < 0;
        l->direction = 1;
        l->extreme = r;
    } else if ((l->direction >= 0 && r > l->extreme) || (l->direction < 0 && r < l->extreme)) {
        l->extreme = r;
    }
}

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
    // One material for both modes: the ring's, the spheres' springs at the
    // stiffness that gives them the ring's strain; gas low < medium < high.
    const double sphere_k = psb_scene_sphere_spring_k(&config, s.bodies[1].rest_volume);
    CHECK(sphere_k > 0.0 && sphere_k < config.params.body.spring_k,
          "the spheres' springs: %g N/m for the ring's %g", sphere_k, config.params.body.spring_k);
    for (int b = 1; b < 4; b++) {
        const psb_body_params *p = psb_body_get_params(s.world, b);
        const psb_body_params *ring = psb_body_get_params(s.world, 0);
        CHECK(fabs(p->spring_k - sphere_k) <= 1e-9 * sphere_k && p->mass == ring->mass &&
                  p->spring_damping == ring->spring_damping && p->wind_drag == ring->wind_drag,
              "body %d's material differs from the ring's", b);
    }
    CHECK(psb_world_params(s.world)->still_air, "the scene's air is off");
    CHECK(s.bodies[1].gas_nrt < s.bodies[2].gas_nrt && s.bodies[2].gas_nrt < s.bodies[3].gas_nrt,
          "gas not in order: %g %g %g", s.bodies[1].gas_nrt, s.bodies[2].gas_nrt,
          s.bodies[3].gas_nrt);
    // Scenes run the solved BDF2 step, one sub-step a frame.
    const psb_params *p = psb_world_params(s.world);
    CHECK(p->integrator == PSB_SCENE_INTEGRATOR && p->substeps == 1, "%s, %d sub-steps",
          psb_integrator_name(p->integrator), p->substeps);
    // With an explicit integrator the sub-step is inside every body's
    // stability estimate.
    psb_scene_config explicit_config = config;
    explicit_config.params.integrator = PSB_SYMPLECTIC_EULER;
    psb_scene e;
    CHECK(psb_scene_build(&e, "default", &explicit_config, &err) == PSB_OK, "%s", err.message);
    if (e.world) {
        const psb_params *ep = psb_world_params(e.world);
        const double h = ep->dt / ep->substeps;
        CHECK(ep->substeps >= 10, "symplectic: %d sub-steps", ep->substeps);
        for (int b = 0; b < e.body_count; b++) {
            CHECK(h <= 0.9 * psb_body_stable_substep(e.world, b) * (1.0 + 1e-12),
                  "h = %g s is above 0.9 x the stable %g s of body %d", h,
                  psb_body_stable_substep(e.world, b), b);
        }
        CHECK(e.substeps_needed <= ep->substeps, "needed %d, using %d", e.substeps_needed,
              ep->substeps);
        psb_scene_destroy(&e);
    }

    // Ten seconds: pumped up, fallen, squashed on landing and jiggling
    // (gas makes them lively) and losing energy to the air until they rest,
    // never through the floor or the walls; the low gas sphere sits
    // flattened on a contact patch.
    const int steps = (int)(10.0 / p->dt);
    int blowups = 0;
    double lowest[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, energy_after_fall[4] = {0};
    landing land[4];
    for (int b = 0; b < 4; b++) {
        land[b] = (landing){-1.0, INFINITY, 1.0, 0, 0};
    }
    for (int k = 0; k < steps; k++) {
        blowups += psb_world_step(s.world);
        for (int b = 0; b < s.body_count; b++) {
            const psb_body_state st = psb_body_measure(s.world, b);
            lowest[b] = fmin(lowest[b], st.min_y);
            if (k == (int)(2.0 / p->dt)) {
                energy_after_fall[b] = st.energy;
            }
            landing_track(&land[b], s.world, b, (k + 1) * p->dt, p->floor_y);
        }
    }
    // Every sphere squashes on landing (the high gas one, the stiffest, to
    // 0.87 of its width) and jiggles, as the ring does.
    for (int b = 0; b < s.body_count; b++) {
        printf("%s: landed at %.2f s, squashed to %.3f, %d swings in %g s\n", s.bodies[b].label,
               land[b].touched, land[b].squash, land[b].swings, LANDING_S);
        CHECK(land[b].squash <= 0.92, "%s did not squash on landing: %.3f", s.bodies[b].label,
              land[b].squash);
        CHECK(land[b].swings >= 3, "%s did not jiggle: %d swings", s.bodies[b].label,
              land[b].swings);
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
    for (int b = 0; b < s.body_count; b++) {
        const double kinetic = psb_body_measure(s.world, b).kinetic;
        CHECK(kinetic < 0.01, "body %d still moves after 10 s: %g J", b, kinetic);
    }
    const double flat = height_over_width(s.world, 1);
    printf("low gas sphere at 10 s: height %.3f of its width\n", flat);
    CHECK(flat <= 0.85, "the low gas sphere is not flattened: height %.3f of its width", flat);
    psb_scene_destroy(&s);
    CHECK(s.world == NULL && s.body_count == 0, "destroy did not zero the scene");
}

// Builds scene `name`, runs it for `seconds` and checks that nothing blew up
// or left the arena; calls `each` after every step if not NULL.
typedef void (*step_hook)(const psb_scene *s, int step, void *data);

static bool run_scene(psb_scene *s, const char *name, double seconds, step_hook each, void *data) {
    const psb_scene_config config = psb_default_scene_config();
    psb_error err = {0};
    CHECK(psb_scene_build(s, name, &config, &err) == PSB_OK, "%s: %s", name, err.message);
    if (!s->world) {
        return false;
    }
    CHECK(strcmp(s->name, name) == 0, "scene name '%s'", s->name);
    const psb_params *p = psb_world_params(s->world);
    const double h = p->dt / p->substeps;
    for (int b = 0; b < s->body_count && !psb_integrator_is_implicit(p->integrator); b++) {
        CHECK(h <= 0.9 * psb_body_stable_substep(s->world, b) * (1.0 + 1e-12),
              "%s: h = %g s is above 0.9 x the stable %g s of body %d", name, h,
              psb_body_stable_substep(s->world, b), b);
    }
    int blowups = 0;
    const int steps = (int)(seconds / p->dt);
    for (int k = 0; k < steps; k++) {
        blowups += psb_world_step(s->world);
        if (each) {
            each(s, k, data);
        }
    }
    CHECK(blowups == 0, "%s: %d blow-ups: %s", name, blowups, psb_world_last_event(s->world));
    for (int b = 0; b < s->body_count; b++) {
        const psb_body_state st = psb_body_measure(s->world, b);
        CHECK(isfinite(st.energy) && isfinite(st.centroid.y), "%s: body %d is not finite", name, b);
        CHECK(fabs(st.centroid.x) < config.arena_half && fabs(st.centroid.z) < config.arena_half &&
                  st.min_y > p->floor_y - 0.01,
              "%s: body %d left the arena", name, b);
    }
    return true;
}

static double volume_ratio(const psb_scene *s, int b) {
    const psb_body_state st = psb_body_measure(s->world, b);
    return st.volume / st.rest_volume;
}

// Three rings and three spheres, gas low < medium < high in each mode.
// The same material in both modes: in the air, without gravity, the medium
// gas stretches the ring and the medium sphere alike.
static void test_same_material(void) {
    psb_scene_config config = psb_default_scene_config();
    config.params.gravity = 0.0;
    psb_scene s;
    psb_error err = {0};
    CHECK(psb_scene_build(&s, "default", &config, &err) == PSB_OK, "%s", err.message);
    if (!s.world) {
        return;
    }
    for (int k = 0; k < (int)(8.0 / psb_world_params(s.world)->dt); k++) {
        psb_world_step(s.world);
    }
    const double ring = psb_body_measure(s.world, 0).mean_radius / config.radius - 1.0;
    const double sphere = psb_body_measure(s.world, 2).mean_radius / config.radius - 1.0;
    printf("medium gas, no gravity: the ring stretched by %.3f, the sphere by %.3f\n", ring,
           sphere);
    CHECK(fabs(sphere - ring) < 0.1 * ring, "strains differ: ring %.3f, sphere %.3f", ring, sphere);
    psb_scene_destroy(&s);
}

// How every body of a scene lands (landing_track after each step).
static void track_landings(const psb_scene *s, int step, void *data) {
    landing *land = data;
    const psb_params *p = psb_world_params(s->world);
    for (int b = 0; b < s->body_count; b++) {
        landing_track(&land[b], s->world, b, (step + 1) * p->dt, p->floor_y);
    }
}

static void test_pressure_scene(void) {
    psb_scene s;
    landing land[PSB_SCENE_MAX_BODIES];
    for (int b = 0; b < PSB_SCENE_MAX_BODIES; b++) {
        land[b] = (landing){-1.0, INFINITY, 1.0, 0, 0};
    }
    if (!run_scene(&s, "pressure", 6.0, track_landings, land)) {
        return;
    }
    CHECK(s.body_count == 6, "%d bodies", s.body_count);
    // As in the default scene, every body squashes on landing and jiggles,
    // the three spheres as the three rings do.
    for (int b = 0; b < s.body_count; b++) {
        printf("pressure scene, %s: landed at %.2f s, squashed to %.3f, %d swings in %g s\n",
               s.bodies[b].label, land[b].touched, land[b].squash, land[b].swings, LANDING_S);
        CHECK(land[b].touched >= 0.0, "pressure scene: %s never landed", s.bodies[b].label);
        CHECK(land[b].squash <= 0.92, "pressure scene: %s did not squash on landing: %.3f",
              s.bodies[b].label, land[b].squash);
        CHECK(land[b].swings >= 3, "pressure scene: %s did not jiggle: %d swings",
              s.bodies[b].label, land[b].swings);
    }
    for (int m = 0; m < 2; m++) {
        const psb_body_kind kind = m == 0 ? PSB_RING : PSB_SHELL;
        for (int k = 0; k < 3; k++) {
            CHECK(psb_body_get_kind(s.world, 3 * m + k) == kind, "body %d's kind", 3 * m + k);
        }
        const double low = volume_ratio(&s, 3 * m), mid = volume_ratio(&s, 3 * m + 1),
                     high = volume_ratio(&s, 3 * m + 2);
        CHECK(low < mid && mid < high, "%s: V/V0 not in gas order: %g %g %g",
              m == 0 ? "rings" : "spheres", low, mid, high);
    }
    // Here too the low gas sphere rests flattened on a contact patch.
    const double flat = height_over_width(s.world, 3);
    printf("pressure scene, low gas sphere at 6 s: height %.3f of its width\n", flat);
    CHECK(flat <= 0.85, "the low gas sphere is not flattened: height %.3f of its width", flat);
    psb_scene_destroy(&s);
}

// How round a body is. A ring: 4 pi A / P^2 (1 for a circle, pi / 4 for a
// square; a ball resting on the floor, flattened underneath, stays near 1).
// A shell: the smallest over the largest distance of its points from their
// centroid (1 for a sphere, 1 / sqrt(3) for a cube).
static double roundness(const psb_scene *s, int b) {
    const psb_body_state st = psb_body_measure(s->world, b);
    if (psb_body_get_kind(s->world, b) == PSB_RING) {
        const psb_vec3 *x = psb_body_positions(s->world, b);
        const int n = psb_body_point_count(s->world, b);
        double perimeter = 0.0;
        for (int i = 0; i < n; i++) {
            const psb_vec3 a = x[i], c = x[(i + 1) % n];
            perimeter += sqrt((a.x - c.x) * (a.x - c.x) + (a.y - c.y) * (a.y - c.y));
        }
        return 4.0 * PI * st.volume / (perimeter * perimeter);
    }
    const psb_vec3 *x = psb_body_positions(s->world, b);
    double lo = INFINITY, hi = 0.0;
    for (int i = 0; i < psb_body_point_count(s->world, b); i++) {
        const double d = sqrt((x[i].x - st.centroid.x) * (x[i].x - st.centroid.x) +
                              (x[i].y - st.centroid.y) * (x[i].y - st.centroid.y) +
                              (x[i].z - st.centroid.z) * (x[i].z - st.centroid.z));
        lo = fmin(lo, d);
        hi = fmax(hi, d);
    }
    return lo / hi;
}

// Gas alone blows the square ring and the cube up toward round; shape
// matching alone keeps them square at their rest size; both keep them near
// square.
static void test_shape_scene(void) {
    psb_scene s;
    if (!run_scene(&s, "shape", 6.0, NULL, NULL)) {
        return;
    }
    CHECK(s.body_count == 6, "%d bodies", s.body_count);
    const psb_scene_config config = psb_default_scene_config();
    for (int m = 0; m < 2; m++) {
        const int gas = 3 * m, shape = 3 * m + 1, both = 3 * m + 2;
        const char *what = m == 0 ? "square ring" : "cube";
        CHECK(psb_body_get_params(s.world, gas)->shape_k == 0.0 &&
                  psb_body_get_params(s.world, shape)->gas_nrt == 0.0 &&
                  psb_body_get_params(s.world, shape)->shape_k == config.shape_k &&
                  psb_body_get_params(s.world, both)->shape_k == config.shape_k &&
                  psb_body_get_params(s.world, both)->gas_nrt > 0.0,
              "%s: the three bodies are not gas only, shape only, both", what);
        const double square = m == 0 ? PI / 4.0 : sqrt(1.0 / 3.0);
        CHECK(fabs(volume_ratio(&s, shape) - 1.0) < 0.05, "%s, shape only: V/V0 %g", what,
              volume_ratio(&s, shape));
        CHECK(fabs(roundness(&s, shape) - square) < 0.05, "%s, shape only: roundness %g (%g)", what,
              roundness(&s, shape), square);
        CHECK(volume_ratio(&s, gas) > 1.3 && roundness(&s, gas) > square + 0.1,
              "%s, gas only did not round out: V/V0 %g, roundness %g", what, volume_ratio(&s, gas),
              roundness(&s, gas));
        CHECK(roundness(&s, both) < roundness(&s, gas) - 0.05,
              "%s: gas + shape (%g) no squarer than gas alone (%g)", what, roundness(&s, both),
              roundness(&s, gas));
    }
    psb_scene_destroy(&s);
}

// The flag's free corner, tracked over the run.
typedef struct flag_track {
    int body;
    psb_vec3 pins[2];
    bool pins_moved;
    double z_min, z_max; // of the top right corner, m
} flag_track;

enum { FLAG_COLUMNS = 16, FLAG_ROWS = 11 };

static void track_flag(const psb_scene *s, int step, void *data) {
    flag_track *t = data;
    const psb_vec3 *x = psb_body_positions(s->world, t->body);
    const int pins[2] = {0, (FLAG_ROWS - 1) * FLAG_COLUMNS};
    for (int k = 0; k < 2; k++) {
        t->pins_moved = t->pins_moved || memcmp(&x[pins[k]], &t->pins[k], sizeof x[0]) != 0;
    }
    if (step > 60) {
        t->z_min = fmin(t->z_min, x[FLAG_COLUMNS - 1].z);
        t->z_max = fmax(t->z_max, x[FLAG_COLUMNS - 1].z);
    }
}

// The cloth hangs from its two pinned corners, which never move, and flaps
// across the wind; the ring beside it is blown downwind.
static void test_flag_scene(void) {
    const psb_scene_config config = psb_default_scene_config();
    psb_scene probe;
    psb_error err = {0};
    CHECK(psb_scene_build(&probe, "flag", &config, &err) == PSB_OK, "%s", err.message);
    if (!probe.world) {
        return;
    }
    flag_track t = {.body = -1, .z_min = INFINITY, .z_max = -INFINITY};
    for (int b = 0; b < probe.body_count; b++) {
        if (psb_body_get_kind(probe.world, b) == PSB_CLOTH) {
            t.body = b;
        }
    }
    CHECK(t.body >= 0, "the flag scene has no cloth");
    if (t.body < 0) {
        psb_scene_destroy(&probe);
        return;
    }
    CHECK(psb_body_point_count(probe.world, t.body) == FLAG_COLUMNS * FLAG_ROWS, "%d points",
          psb_body_point_count(probe.world, t.body));
    CHECK(psb_body_pin_count(probe.world, t.body) == 2, "%d pins",
          psb_body_pin_count(probe.world, t.body));
    const psb_vec3 *x0 = psb_body_positions(probe.world, t.body);
    t.pins[0] = x0[0];
    t.pins[1] = x0[(FLAG_ROWS - 1) * FLAG_COLUMNS];
    const double ring_x0 = psb_body_measure(probe.world, 0).centroid.x;
    const psb_params *p = psb_world_params(probe.world);
    CHECK(p->wind.x == config.flag_wind.x && p->wind_turbulence == config.flag_turbulence,
          "the flag scene's wind is %g m/s", p->wind.x);
    psb_scene_destroy(&probe);

    psb_scene s;
    if (!run_scene(&s, "flag", 8.0, track_flag, &t)) {
        return;
    }
    CHECK(!t.pins_moved, "a pinned corner moved");
    CHECK(t.z_max - t.z_min > 0.1, "the flag does not flap: its free corner's z stayed in %g..%g",
          t.z_min, t.z_max);
    const psb_body_state cloth = psb_body_measure(s.world, t.body);
    CHECK(cloth.centroid.x > t.pins[0].x + 0.2,
          "the flag collapsed onto its pole: centroid x %g, pole at %g", cloth.centroid.x,
          t.pins[0].x);
    CHECK(psb_body_measure(s.world, 0).centroid.x > ring_x0 + 0.5,
          "the wind did not move the ring");
    psb_scene_destroy(&s);
}

// The closest any point of the scene's bodies came to the inside of a
// planet, relative to its radius (< 0: inside).
typedef struct planet_track {
    double touched; // smallest (distance - radius) / radius seen, over all bodies and planets
} planet_track;

static void track_planets(const psb_scene *s, int step, void *data) {
    (void)step;
    planet_track *t = data;
    for (int b = 0; b < s->body_count; b++) {
        const psb_vec3 *x = psb_body_positions(s->world, b);
        const bool ring = psb_body_get_kind(s->world, b) == PSB_RING;
        for (int i = 0; i < psb_body_point_count(s->world, b); i++) {
            for (int k = 0; k < psb_world_sphere_count(s->world); k++) {
                psb_vec3 c;
                double r;
                psb_world_sphere(s->world, k, &c, &r);
                const double dz = ring ? 0.0 : x[i].z - c.z;
                const double d = sqrt((x[i].x - c.x) * (x[i].x - c.x) +
                                      (x[i].y - c.y) * (x[i].y - c.y) + dz * dz);
                t->touched = fmin(t->touched, (d - r) / r);
            }
        }
    }
}

// Bodies land on the planets (touching them) and never sink into them.
static void test_planets_scene(void) {
    planet_track t = {INFINITY};
    psb_scene s;
    if (!run_scene(&s, "planets", 5.0, track_planets, &t)) {
        return;
    }
    CHECK(psb_world_sphere_count(s.world) >= 3, "%d planets", psb_world_sphere_count(s.world));
    double smallest = INFINITY, largest = 0.0;
    for (int k = 0; k < psb_world_sphere_count(s.world); k++) {
        psb_vec3 c;
        double r;
        psb_world_sphere(s.world, k, &c, &r);
        CHECK(c.z == 0.0, "planet %d is off the 2D plane (z = %g)", k, c.z);
        smallest = fmin(smallest, r);
        largest = fmax(largest, r);
    }
    CHECK(largest > 2.0 * smallest, "planets of one size: %g..%g m", smallest, largest);
    CHECK(t.touched < 1e-3, "no body touched a planet (closest %g radii away)", t.touched);
    CHECK(t.touched > -0.05, "a body sank %g radii into a planet", -t.touched);
    int rings = 0, shells = 0;
    for (int b = 0; b < s.body_count; b++) {
        rings += psb_body_get_kind(s.world, b) == PSB_RING;
        shells += psb_body_get_kind(s.world, b) == PSB_SHELL;
    }
    CHECK(rings > 0 && shells > 0, "planets need bodies in both views: %d rings, %d shells", rings,
          shells);
    psb_scene_destroy(&s);
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
    // A model's gas and stiffness are its own (psb_mesh_default_material);
    // the ring keeps the scene's material.
    psb_mesh_material own;
    CHECK(psb_mesh_default_material(&box, config.params.body.mass, config.params.gravity, &own,
                                    &err) == PSB_OK,
          "%s", err.message);
    CHECK(s.bodies[1].gas_nrt == own.gas_nrt, "model gas %g J, its own %g J", s.bodies[1].gas_nrt,
          own.gas_nrt);
    CHECK(psb_body_get_params(s.world, 1)->spring_k == own.spring_k, "model ks %g N/m, its own %g",
          psb_body_get_params(s.world, 1)->spring_k, own.spring_k);
    CHECK(psb_body_get_params(s.world, 0)->spring_k == config.params.body.spring_k,
          "the ring's ks changed to %g", psb_body_get_params(s.world, 0)->spring_k);
    // The scenes' bodies touch themselves; a loaded model does not, for its
    // cost, unless model_self_contact says (psb view --self-contact).
    CHECK(psb_world_params(s.world)->self_contact, "self contact is off in the scene");
    CHECK(psb_body_get_params(s.world, 0)->self_contact, "the ring does not touch itself");
    CHECK(!psb_body_get_params(s.world, 1)->self_contact, "the model touches itself");
    // A full scene refuses more, and stays as it was.
    while (s.body_count < PSB_SCENE_MAX_BODIES) {
        CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_OK, "%s", err.message);
    }
    CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_ERR_INVALID, "a full scene took more");
    CHECK(strstr(err.message, "full") != NULL, "message: %s", err.message);
    CHECK(psb_world_body_count(s.world) == PSB_SCENE_MAX_BODIES, "the world grew anyway");
    psb_scene_destroy(&s);

    // Without its own material (psb view --ks): the scene's stiffness, and
    // the medium gas scaled by the model's volume.
    config.model_gas = false;
    config.model_spring_k = false;
    config.params.body.spring_k = 321.0;
    CHECK(psb_scene_build(&s, "ring", &config, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_OK, "%s", err.message);
    const double r = config.radius;
    const double medium = config.gas_scale[1] * psb_default_gas_nrt(PSB_SHELL) *
                          psb_mesh_volume(&box) / (4.0 / 3.0 * 3.14159265358979323846 * r * r * r);
    CHECK_CLOSE(s.bodies[1].gas_nrt, medium, 1e-12);
    CHECK(psb_body_get_params(s.world, 1)->spring_k == 321.0, "model ks %g N/m, given 321",
          psb_body_get_params(s.world, 1)->spring_k);
    psb_scene_destroy(&s);
    // Its own gas with the given stiffness; touching itself.
    config.model_gas = true;
    config.model_self_contact = true;
    CHECK(psb_scene_build(&s, "ring", &config, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_OK, "%s", err.message);
    CHECK(psb_body_get_params(s.world, 1)->self_contact, "the model does not touch itself");
    CHECK(s.bodies[1].gas_nrt == own.gas_nrt, "model gas %g J, its own %g J", s.bodies[1].gas_nrt,
          own.gas_nrt);
    CHECK(psb_body_get_params(s.world, 1)->spring_k == 321.0, "model ks %g N/m, given 321",
          psb_body_get_params(s.world, 1)->spring_k);
    psb_mesh_free(&box);
    psb_scene_destroy(&s);
}

// The highest point of the scene's bodies of one mode (rings, or 3D).
static double top_of(const psb_scene *s, bool rings) {
    double top = -INFINITY;
    for (int b = 0; b < s->body_count; b++) {
        if ((psb_body_get_kind(s->world, b) == PSB_RING) != rings) {
            continue;
        }
        const psb_vec3 *x = psb_body_positions(s->world, b);
        for (int i = 0; i < psb_body_point_count(s->world, b); i++) {
            top = fmax(top, x[i].y);
        }
    }
    return top;
}

// On the pile, a model drops onto its top wherever the pile has got to: in
// the middle of the box, its lowest point the drop height above the
// highest point of its mode's bodies; a second one above the first; a ring
// onto the rings.
static void test_add_mesh_to_pile(void) {
    psb_scene_config config = psb_default_scene_config();
    config.sphere_level = 1;
    config.pile_balls = 4;
    psb_scene s;
    psb_error err = {0};
    CHECK(psb_scene_build(&s, "pile", &config, &err) == PSB_OK, "%s", err.message);
    for (int k = 0; k < 30; k++) {
        psb_world_step(s.world);
    }
    psb_mesh box, ring;
    CHECK(psb_mesh_box(&box, 2, (psb_vec3){0.4, 0.3, 0.2}, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_ring(&ring, 24, 0.2, &err) == PSB_OK, "%s", err.message);
    for (int k = 0; k < 2; k++) {
        const double top = top_of(&s, false);
        CHECK(psb_scene_add_mesh(&s, &box, "box", &err) == PSB_OK, "%s", err.message);
        const psb_body_state st = psb_body_measure(s.world, s.body_count - 1);
        CHECK_CLOSE(st.min_y, top + config.drop_height, 1e-9);
        CHECK(fabs(st.centroid.x) < 1e-9 && fabs(st.centroid.z) < 1e-9,
              "model %d not in the middle of the box: x %g z %g", k, st.centroid.x, st.centroid.z);
    }
    const double rings_top = top_of(&s, true);
    CHECK(fabs(rings_top - top_of(&s, false)) > 0.5, "the rings' top %g m is the balls' %g m",
          rings_top, top_of(&s, false));
    CHECK(psb_scene_add_mesh(&s, &ring, "ring", &err) == PSB_OK, "%s", err.message);
    const psb_body_state st = psb_body_measure(s.world, s.body_count - 1);
    CHECK_CLOSE(st.min_y, rings_top + config.drop_height, 1e-9);
    // It goes on stepping with the pile, inside the walls.
    for (int k = 0; k < 10; k++) {
        psb_world_step(s.world);
    }
    CHECK(psb_body_measure(s.world, s.body_count - 2).centroid.y < top_of(&s, false),
          "the model did not fall");
    psb_mesh_free(&box);
    psb_mesh_free(&ring);
    psb_scene_destroy(&s);
}

// Hue in degrees of an RGB colour with channels in [0, 1].
static double hue_of(const float c[3]) {
    const double mx = fmax(c[0], fmax(c[1], c[2])), mn = fmin(c[0], fmin(c[1], c[2]));
    const double d = mx - mn;
    if (d <= 0.0) {
        return 0.0;
    }
    if (mx == c[0]) {
        return fmod(60.0 * (c[1] - c[2]) / d + 360.0, 360.0);
    }
    return mx == c[1] ? 60.0 * (c[2] - c[0]) / d + 120.0 : 60.0 * (c[0] - c[1]) / d + 240.0;
}

// The plots draw each body in its colour: no two bodies of a scene share
// one (a channel differs by 0.05 or more), loaded models up to a full
// scene included; in the scenes that pair rings with 3D bodies, ring k
// has body k + 3's hue, lighter.
static void test_colors(void) {
    const psb_scene_config config = psb_default_scene_config();
    psb_error err = {0};
    for (int i = 0; i < psb_scene_count() + 1; i++) {
        const bool models = i == psb_scene_count();
        psb_scene s;
        const char *name = models ? "ring" : psb_scene_name(i);
        CHECK(psb_scene_build(&s, name, &config, &err) == PSB_OK, "%s: %s", name, err.message);
        if (!s.world) {
            continue;
        }
        if (models) {
            psb_mesh box;
            CHECK(psb_mesh_box(&box, 1, (psb_vec3){0.2, 0.2, 0.2}, &err) == PSB_OK, "%s",
                  err.message);
            while (s.body_count < PSB_SCENE_MAX_BODIES &&
                   psb_scene_add_mesh(&s, &box, "box", &err) == PSB_OK) {
            }
            CHECK(s.body_count == PSB_SCENE_MAX_BODIES, "%d models added", s.body_count - 1);
            psb_mesh_free(&box);
        }
        for (int a = 0; a < s.body_count; a++) {
            for (int b = a + 1; b < s.body_count; b++) {
                const float *p = s.bodies[a].color, *q = s.bodies[b].color;
                const double d =
                    fmax(fabs(p[0] - q[0]), fmax(fabs(p[1] - q[1]), fabs(p[2] - q[2])));
                CHECK(d >= 0.05, "%s: bodies %d and %d share a colour", name, a, b);
            }
        }
        const bool paired = strcmp(name, "pressure") == 0 || strcmp(name, "shape") == 0;
        for (int k = 0; k < 3 && paired; k++) {
            const float *ring = s.bodies[k].color, *body = s.bodies[k + 3].color;
            CHECK(fabs(hue_of(ring) - hue_of(body)) < 0.5, "%s: ring %d's hue %g, body %d's %g",
                  name, k, hue_of(ring), k + 3, hue_of(body));
            CHECK(ring[0] + ring[1] + ring[2] > body[0] + body[1] + body[2] + 0.2,
                  "%s: ring %d is not lighter than body %d", name, k, k + 3);
        }
        psb_scene_destroy(&s);
    }
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
    test_same_material();
    test_default_scene();
    test_pressure_scene();
    test_shape_scene();
    test_flag_scene();
    test_planets_scene();
    test_add_mesh();
    test_add_mesh_to_pile();
    test_colors();
    test_bad_input();
    return check_done("test_scene");
}
