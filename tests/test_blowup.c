// The blow-up guard. Explicit integrators are only stable for h below about
// 2 / omega_max; a very stiff body with a long step explodes within one world
// step. The guard must notice (NaN/Inf, or a point moving farther than
// blowup_size body diameters in one step), report it (the step's return
// value, the body's blowups count, psb_world_last_event), put the body back
// in a finite state, and let the world go on stepping. Other bodies in the
// world are not disturbed. Crushed bodies (zero volume, zero-length springs)
// never produce a non-finite position either. And psb_body_stable_substep,
// the estimate that helps users stay clear of all this, is a real bound for
// symplectic Euler and velocity Verlet, with and without damping.
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

static bool all_finite(const psb_world *w, int id) {
    const psb_vec3 *x = psb_body_positions(w, id);
    const psb_vec3 *v = psb_body_velocities(w, id);
    for (int i = 0; i < psb_body_point_count(w, id); i++) {
        if (!(isfinite(x[i].x) && isfinite(x[i].y) && isfinite(x[i].z) && isfinite(v[i].x) &&
              isfinite(v[i].y) && isfinite(v[i].z))) {
            return false;
        }
    }
    return true;
}

// Largest distance of a point from c.
static double reach(const psb_world *w, int id, psb_vec3 c) {
    const psb_vec3 *x = psb_body_positions(w, id);
    double r = 0.0;
    for (int i = 0; i < psb_body_point_count(w, id); i++) {
        r = fmax(r, sqrt((x[i].x - c.x) * (x[i].x - c.x) + (x[i].y - c.y) * (x[i].y - c.y) +
                         (x[i].z - c.z) * (x[i].z - c.z)));
    }
    return r;
}

static void test_stiff_body_explodes(psb_integrator integrator) {
    const char *name = psb_integrator_name(integrator);
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.integrator = integrator;
    p.dt = 0.05;
    p.substeps = 5; // h = 0.01 s
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) {
        return;
    }
    psb_mesh m;
    psb_mesh_icosphere(&m, 1, 0.5, &err);
    // Body 0 is tame: heavy and soft, omega_max ~ sqrt(12 ks / m_i) ~ 16 rad/s,
    // omega h ~ 0.16 (even explicit Euler, unstable for any h, only grows
    // by a few times over this test). Body 1 has omega_max ~ 2e5 rad/s, so
    // omega h ~ 2000, and it starts squeezed off its rest shape.
    psb_body_params tame = material(50.0, 0.0, 5.0);
    tame.mass = 100.0;
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = tame;
    def.offset = (psb_vec3){-3.0, 0.0, 0.0};
    CHECK(psb_world_add_body(w, &def, &err) == 0, "tame body: %s", err.message);
    psb_vec3 squeezed[42];
    for (int i = 0; i < m.point_count && i < 42; i++) {
        squeezed[i] = (psb_vec3){0.9 * m.points[i].x, 0.9 * m.points[i].y, 0.9 * m.points[i].z};
    }
    def.points = squeezed;
    def.rest_points = m.points;
    def.params = material(1e9, 0.0, 5.0);
    def.offset = (psb_vec3){3.0, 0.0, 0.0};
    CHECK(psb_world_add_body(w, &def, &err) == 1, "stiff body: %s", err.message);

    // The same tame body alone, to see it is not disturbed.
    psb_world *alone = psb_world_create(&p, &err);
    def = psb_mesh_body_def(&m);
    def.params = tame;
    def.offset = (psb_vec3){-3.0, 0.0, 0.0};
    CHECK(psb_world_add_body(alone, &def, &err) == 0, "tame body: %s", err.message);

    CHECK(strcmp(psb_world_last_event(w), "") == 0, "%s: an event before any step: %s", name,
          psb_world_last_event(w));
    const psb_vec3 centre = {3.0, 0.0, 0.0};
    int total = 0;
    for (int k = 0; k < 10; k++) {
        const int blown = psb_world_step(w);
        psb_world_step(alone);
        CHECK(blown == 0 || blown == 1, "%s: step %d reported %d blow-ups with one stiff body",
              name, k, blown);
        if (k == 0) {
            CHECK(blown == 1, "%s: the stiff body's first step was not reported as a blow-up",
                  name);
        }
        total += blown;
        CHECK(all_finite(w, 1), "%s: step %d left a non-finite point", name, k);
        // Restored to a good state: the body is still about where and as big
        // as it was (rest radius 0.5 m).
        CHECK(reach(w, 1, centre) < 2.0, "%s: step %d: a point is %.3g m from the centre", name, k,
              reach(w, 1, centre));
        CHECK(psb_body_measure(w, 1).blowups == total, "%s: blowups %d, steps reported %d", name,
              psb_body_measure(w, 1).blowups, total);
        CHECK(psb_body_measure(w, 0).blowups == 0, "%s: the tame body counted a blow-up", name);
    }
    const char *event = psb_world_last_event(w);
    CHECK(strlen(event) > 0, "%s: no event reported", name);
    CHECK(strstr(event, "body 1") != NULL, "%s: the event does not name body 1: %s", name, event);
    CHECK(psb_world_step_count(w) == 10, "%s: %ld steps", name, psb_world_step_count(w));
    CHECK(fabs(psb_world_time(w) - 0.5) < 1e-12, "%s: time %g", name, psb_world_time(w));
    const size_t bytes = 42 * sizeof(psb_vec3);
    CHECK(memcmp(psb_body_positions(w, 0), psb_body_positions(alone, 0), bytes) == 0,
          "%s: the tame body was disturbed by the other's blow-ups", name);

    // Recovery: a step the body can take. Make it tame and step on.
    CHECK(psb_body_set_params(w, 1, &tame, &err) == PSB_OK, "set_params: %s", err.message);
    const int before = psb_body_measure(w, 1).blowups;
    for (int k = 0; k < 20; k++) {
        CHECK(psb_world_step(w) == 0, "%s: still blowing up after the body was made tame", name);
    }
    CHECK(all_finite(w, 1), "%s: non-finite after recovery", name);
    CHECK(psb_body_measure(w, 1).blowups == before, "%s: blow-up count changed after recovery",
          name);
    const psb_body_state s = psb_body_measure(w, 1);
    CHECK(isfinite(s.energy) && isfinite(s.volume) && s.volume > 0, "%s: energy %g volume %g", name,
          s.energy, s.volume);
    psb_world_destroy(w);
    psb_world_destroy(alone);
    psb_mesh_free(&m);
}

// A body flattened to zero volume (all points on a line or in one spot) is
// pushed by a huge but finite pressure or guarded; nothing turns non-finite.
static void test_crushed(void) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    psb_mesh ring, shell;
    psb_mesh_ring(&ring, 16, 0.5, &err);
    psb_mesh_icosphere(&shell, 1, 0.5, &err);
    psb_body_def def = psb_mesh_body_def(&ring);
    def.params = material(200.0, 1.0, 10.0);
    CHECK(psb_world_add_body(w, &def, &err) == 0, "ring: %s", err.message);
    def = psb_mesh_body_def(&shell);
    def.params = material(200.0, 1.0, 100.0);
    CHECK(psb_world_add_body(w, &def, &err) == 1, "shell: %s", err.message);

    psb_vec3 line[16], spot[42];
    for (int i = 0; i < 16; i++) {
        line[i] = (psb_vec3){0.05 * i, 0.0, 0.0}; // a line: zero area
    }
    for (int i = 0; i < 42; i++) {
        spot[i] = (psb_vec3){0.25, 0.25, 0.25}; // one spot: zero volume, zero-length springs
    }
    CHECK(psb_body_set_state(w, 0, line, NULL, &err) == PSB_OK, "set_state: %s", err.message);
    CHECK(psb_body_set_state(w, 1, spot, NULL, &err) == PSB_OK, "set_state: %s", err.message);
    const psb_body_state s0 = psb_body_measure(w, 0);
    const psb_body_state s1 = psb_body_measure(w, 1);
    CHECK(isfinite(s0.pressure) && isfinite(s0.energy), "flat ring measures pressure %g energy %g",
          s0.pressure, s0.energy);
    CHECK(isfinite(s1.pressure) && isfinite(s1.energy),
          "crushed shell measures pressure %g energy %g", s1.pressure, s1.energy);
    for (int k = 0; k < 60; k++) {
        psb_world_step(w);
        CHECK(all_finite(w, 0) && all_finite(w, 1), "crushed bodies: non-finite after step %d", k);
    }
    // Turned inside out (mirror image): negative volume, still finite.
    psb_vec3 mirrored[42];
    for (int i = 0; i < 42; i++) {
        mirrored[i] = (psb_vec3){-shell.points[i].x, shell.points[i].y, shell.points[i].z};
    }
    CHECK(psb_body_set_state(w, 1, mirrored, NULL, &err) == PSB_OK, "set_state: %s", err.message);
    CHECK(psb_body_measure(w, 1).volume < 0, "a mirrored shell has volume %g",
          psb_body_measure(w, 1).volume);
    for (int k = 0; k < 60; k++) {
        psb_world_step(w);
        CHECK(all_finite(w, 1), "inside-out shell: non-finite after step %d", k);
    }
    psb_world_destroy(w);
    psb_mesh_free(&ring);
    psb_mesh_free(&shell);
}

// psb_body_stable_substep is documented as a cautious bound for symplectic
// Euler and velocity Verlet: h^2 w^2 + 2 h g < 4 for the stiffest point.
// For x'' = -w^2 x - c x', symplectic Euler is stable exactly when
// h^2 w^2 + 2 h c < 4, so the bound holds if w^2 and g bound the largest
// stiffness and damping rates (for the zig-zag mode of a ring, w^2 = 4 ks / m
// and c = 4 kd / m). Run both methods at 0.9 times the estimate, with and
// without damping, from a jittered shape: nothing may blow up, a damped body
// must lose energy and an undamped one keep its energy error bounded.
static void test_stable_substep(void) {
    const double kds[] = {0.0, 2.0, 5.0, 20.0};
    const psb_integrator methods[] = {PSB_SYMPLECTIC_EULER, PSB_VERLET};
    for (int ring = 0; ring <= 1; ring++) {
        for (size_t k = 0; k < sizeof kds / sizeof kds[0]; k++) {
            for (size_t mi = 0; mi < 2; mi++) {
                psb_params p = psb_default_params();
                p.gravity = 0.0;
                p.floor = false;
                p.integrator = methods[mi];
                psb_error err;
                psb_world *w = psb_world_create(&p, &err);
                psb_mesh m;
                ring_or_sphere(ring, 24, 1, 0.5, &m);
                psb_body_def def = psb_mesh_body_def(&m);
                def.params = material(500.0, kds[k], ring ? 5.0 : 20.0);
                const int id = psb_world_add_body(w, &def, &err);
                CHECK(id == 0, "add_body: %s", err.message);
                if (id != 0) {
                    psb_world_destroy(w);
                    psb_mesh_free(&m);
                    continue;
                }
                const double h = psb_body_stable_substep(w, id);
                CHECK(isfinite(h) && h > 0.0, "stable sub-step %g", h);
                // Stiffer springs need a smaller step: w ~ sqrt(ks), so without
                // damping four times ks halves it.
                if (kds[k] == 0.0) {
                    psb_body_params stiff = def.params;
                    stiff.spring_k *= 4.0;
                    psb_body_set_params(w, id, &stiff, &err);
                    const double h4 = psb_body_stable_substep(w, id);
                    CHECK(fabs(h4 - 0.5 * h) <= 1e-12 * h, "4 x ks: stable sub-step %g, was %g", h4,
                          h);
                    psb_body_set_params(w, id, &def.params, &err);
                }
                const int n = m.point_count;
                p.substeps = 10;
                p.dt = 0.9 * h * p.substeps;
                CHECK(psb_world_set_params(w, &p, &err) == PSB_OK, "set_params: %s", err.message);
                uint64_t seed = 7;
                psb_vec3 x[64];
                for (int i = 0; i < n && i < 64; i++) {
                    x[i] = m.points[i];
                    x[i].x += 0.01 * rnd(&seed);
                    x[i].y += 0.01 * rnd(&seed);
                    x[i].z += ring ? 0.0 : 0.01 * rnd(&seed);
                }
                psb_body_set_state(w, id, x, NULL, &err);
                const double e0 = psb_body_measure(w, id).energy;
                int blown = 0;
                double early = 0.0, late = 0.0;
                for (int s = 0; s < 200; s++) {
                    blown += psb_world_step(w);
                    const double dev = fabs(psb_body_measure(w, id).energy - e0);
                    if (s < 100) {
                        early = fmax(early, dev);
                    } else {
                        late = fmax(late, dev);
                    }
                }
                const double e_end = psb_body_measure(w, id).energy;
                const char *name = psb_integrator_name(methods[mi]);
                const char *body = ring ? "ring" : "icosphere";
                CHECK(blown == 0, "%s kd=%g %s at 0.9 x the stable sub-step %.3g s: %d blow-ups",
                      body, kds[k], name, h, blown);
                if (kds[k] > 0.0) {
                    // Damped and undriven: it ends with less energy than it had.
                    CHECK(e_end < e0,
                          "%s kd=%g %s at 0.9 x the stable sub-step %.3g s: energy went from "
                          "%.6g J to %.6g J",
                          body, kds[k], name, h, e0, e_end);
                } else {
                    // Undamped: the symplectic methods' energy error stays
                    // bounded; an unstable mode would grow step after step.
                    CHECK(late <= 2.0 * early + 1e-9,
                          "%s %s at 0.9 x the stable sub-step %.3g s: energy error grew from "
                          "%.3g J to %.3g J",
                          body, name, h, early, late);
                }
                psb_world_destroy(w);
                psb_mesh_free(&m);
            }
        }
    }
}

// Not uselessly cautious either: without damping, symplectic Euler at 2.5
// times the estimate is past the real limit (the estimate bounds the
// stiffest mode's w by at most a factor 2 here) and the guard reports it.
static void test_stable_substep_is_near(void) {
    for (int ring = 0; ring <= 1; ring++) {
        psb_params p = psb_default_params();
        p.gravity = 0.0;
        p.floor = false;
        psb_error err;
        psb_world *w = psb_world_create(&p, &err);
        psb_mesh m;
        ring_or_sphere(ring, 24, 1, 0.5, &m);
        psb_body_def def = psb_mesh_body_def(&m);
        def.params = material(500.0, 0.0, ring ? 5.0 : 20.0);
        const int id = psb_world_add_body(w, &def, &err);
        CHECK(id == 0, "add_body: %s", err.message);
        if (id == 0) {
            p.substeps = 10;
            p.dt = 2.5 * psb_body_stable_substep(w, id) * p.substeps;
            psb_world_set_params(w, &p, &err);
            int blown = 0;
            for (int s = 0; s < 100; s++) {
                blown += psb_world_step(w);
            }
            CHECK(blown > 0, "%s: no blow-up at 2.5 x the stable sub-step",
                  ring ? "ring" : "icosphere");
        }
        psb_world_destroy(w);
        psb_mesh_free(&m);
    }
}

// The same stiff, squeezed body (omega h ~ 2000) with the implicit step:
// backward Euler is stable at any step, so nothing blows up; the body
// springs back to about its rest size and keeps a positive volume.
static void test_stiff_body_implicit(void) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.integrator = PSB_IMPLICIT;
    p.dt = 0.05;
    p.substeps = 5;
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    psb_mesh m;
    CHECK(w && psb_mesh_icosphere(&m, 1, 0.5, &err) == PSB_OK, "setup: %s", err.message);
    if (!w) {
        return;
    }
    psb_vec3 squeezed[42];
    for (int i = 0; i < m.point_count && i < 42; i++) {
        squeezed[i] = (psb_vec3){0.9 * m.points[i].x, 0.9 * m.points[i].y, 0.9 * m.points[i].z};
    }
    psb_body_def def = psb_mesh_body_def(&m);
    def.points = squeezed;
    def.rest_points = m.points;
    def.params = material(1e9, 0.0, 5.0);
    CHECK(psb_world_add_body(w, &def, &err) == 0, "stiff body: %s", err.message);
    for (int k = 0; k < 20; k++) {
        CHECK(psb_world_step(w) == 0, "implicit: step %d blew up: %s", k, psb_world_last_event(w));
        CHECK(all_finite(w, 0), "implicit: step %d left a non-finite point", k);
        CHECK(psb_body_measure(w, 0).volume > 0.0, "implicit: step %d: volume %g", k,
              psb_body_measure(w, 0).volume);
    }
    const psb_body_state s = psb_body_measure(w, 0);
    CHECK(fabs(s.mean_radius - 0.5) < 0.02, "implicit: mean radius %.4g after 1 s, rest 0.5",
          s.mean_radius);
    psb_world_destroy(w);
    psb_mesh_free(&m);
}

// The lists of links and contacts start with room for twice the points and
// grow when a step fills them: copies of one ball laid on each other put
// every point on the others' surfaces, so each point of n copies links
// n - 1 of them. Two copies fit (one link a point); four do not at first
// (three), and the step grows the lists and keeps them all: no step is
// counted as full, nothing is said, and the links are three a point.
static int full_steps_with(int copies, char *event, size_t size, int *links) {
    psb_params p = free_params(1.0 / 60.0);
    p.integrator = PSB_BDF2;
    p.body_contact = true;
    p.contact_solve = true;
    psb_world *w = make_world(&p);
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 2, 0.5, &err) == PSB_OK, "setup: %s", err.message);
    if (!w) {
        psb_mesh_free(&m);
        return -1;
    }
    for (int k = 0; k < copies; k++) {
        psb_body_def def = psb_mesh_body_def(&m);
        def.params = material(200.0, 0.1, 100.0);
        CHECK(psb_world_add_body(w, &def, &err) == k, "copy %d: %s", k, err.message);
    }
    CHECK(psb_world_full_list_steps(w) == 0, "%d copies: a full list before any step", copies);
    psb_world_step(w);
    const long full = psb_world_full_list_steps(w);
    snprintf(event, size, "%s", psb_world_last_event(w));
    *links = psb_world_link_count(w);
    psb_world_destroy(w);
    psb_mesh_free(&m);
    return (int)full;
}

static void test_full_link_list(void) {
    char event[512];
    int links = 0;
    int full = full_steps_with(2, event, sizeof event, &links);
    CHECK(full == 0 && event[0] == '\0', "two copies: %d full steps, event '%s'", full, event);
    const int points = 162; // an icosphere of level 2
    CHECK(links == 2 * points, "two copies: %d links for %d points", links, 2 * points);
    full = full_steps_with(4, event, sizeof event, &links);
    CHECK(full == 0 && event[0] == '\0', "four copies: %d full steps, event '%s'", full, event);
    CHECK(links > 2 * 4 * points, "four copies: %d links, no more than the first room, %d", links,
          2 * 4 * points);
    printf("links of copies of a ball on each other: %d for 4 x %d points, none left out\n", links,
           points);
}

int main(void) {
    for (int i = 0; i < PSB_INTEGRATOR_COUNT; i++) {
        if (!psb_integrator_is_implicit((psb_integrator)i)) {
            test_stiff_body_explodes((psb_integrator)i);
        }
    }
    test_stiff_body_implicit();
    test_crushed();
    test_stable_substep();
    test_stable_substep_is_near();
    test_full_link_list();
    return check_done("test_blowup");
}
