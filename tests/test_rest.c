// A body at rest under the implicit step (backward Euler, one step of 1/60 s
// a frame): the preconditioner that last found it still judges the next
// step without new blocks, and once a step would only repeat the last one
// the body sleeps (implicit.c, still_judged and asleep). (BDF2's velocity
// is a difference over two steps, so a still step leaves it moving by the
// last step's motion: a BDF2 body does not come to rest to the bit, and
// does not sleep.)
//
// - Sleep is exact: a ball dropped on the floor falls asleep within a few
//   seconds and then stays where it is, bit for bit, at rest; woken with
//   its own state (nothing changed) the next step is solved afresh, takes
//   no Newton step and leaves every bit where it was; 1 and 2 threads give
//   the same bits and the same sleep.
// - The shortcuts change no answer: the same drop with the body woken
//   before every step (every step solved afresh, never judged by an
//   earlier preconditioner, never asleep) comes to rest at the same place
//   and volume to within what the solver's tolerance allows.
// - Waking: a poke, more gas, a grab, a pin, gravity turned off and a
//   sphere added under it each wake the sleeping ball, and it responds.
// - A group comes to rest too: two balls stacked in a box narrower than
//   they are, under BDF2, end still with next to no Newton steps; under
//   backward Euler the group dozes (implicit_group_dozes) to the bit, on
//   1 and 2 threads alike, and a poke or a ball dropped onto it wakes it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "internal.h"

// Backward Euler (or BDF2) at one step of 1/60 s, gravity, the floor.
static psb_params rest_params(psb_integrator integrator, int threads) {
    psb_params p = psb_default_params();
    p.integrator = integrator;
    p.dt = 1.0 / 60.0;
    p.substeps = 1;
    p.walls = false;
    p.threads = threads;
    return p;
}

// A ball of icosphere level `level` (radius 0.4 m) of a stiff, damped
// material, 2 cm above the floor.
static psb_world *drop(psb_integrator integrator, int level, int threads, int *id) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, level, 0.4, &err) == PSB_OK, "icosphere: %s", err.message);
    const psb_params p = rest_params(integrator, threads);
    psb_world *w = make_world(&p);
    *id = w ? add_moving_mesh(w, &m, material(2000.0, 1.0, 100.0), (psb_vec3){0, 0.42, 0},
                              (psb_vec3){0, 0, 0})
            : -1;
    psb_mesh_free(&m);
    return w;
}

// Steps w until body id has slept through a step, at most `limit` steps;
// the steps taken, or -1 when it never slept.
static int until_asleep(psb_world *w, int id, int limit) {
    for (int s = 1; s <= limit; s++) {
        CHECK(psb_world_step(w) == 0, "blow-up: %s", psb_world_last_event(w));
        if (psb_body_solver_report(w, id).asleep > 0) {
            return s;
        }
    }
    return -1;
}

// A copy of body id's positions and velocities (2 n entries; free it).
static psb_vec3 *copy_state(const psb_world *w, int id) {
    const int n = psb_body_point_count(w, id);
    psb_vec3 *s = malloc(2 * (size_t)n * sizeof *s);
    if (s) {
        memcpy(s, psb_body_positions(w, id), (size_t)n * sizeof *s);
        memcpy(s + n, psb_body_velocities(w, id), (size_t)n * sizeof *s);
    }
    return s;
}

// Whether body id holds exactly the state s (copy_state).
static bool holds(const psb_world *w, int id, const psb_vec3 *s) {
    const int n = psb_body_point_count(w, id);
    const size_t bytes = (size_t)n * sizeof *s;
    return s && memcmp(psb_body_positions(w, id), s, bytes) == 0 &&
           memcmp(psb_body_velocities(w, id), s + n, bytes) == 0;
}

static void test_sleep_is_exact(void) {
    const char *name = psb_integrator_name(PSB_IMPLICIT);
    int id;
    psb_world *w = drop(PSB_IMPLICIT, 3, 1, &id);
    if (!w) {
        return;
    }
    const int slept = until_asleep(w, id, 600);
    CHECK(slept > 0, "%s: the ball did not fall asleep in 10 s", name);
    const int n = psb_body_point_count(w, id);
    psb_vec3 *rest = copy_state(w, id);
    const psb_body_state before = psb_body_measure(w, id);
    bool still = true, asleep = true;
    for (int s = 0; s < 60; s++) {
        psb_world_step(w);
        still = still && holds(w, id, rest);
        asleep = asleep && psb_body_solver_report(w, id).asleep == 1;
    }
    CHECK(still, "%s: a sleeping ball moved", name);
    CHECK(asleep, "%s: the ball woke up by itself", name);
    bool at_rest = true;
    for (int i = 0; i < n; i++) {
        at_rest = at_rest && norm(psb_body_velocities(w, id)[i]) == 0.0;
    }
    CHECK(at_rest, "%s: a sleeping ball has a point that moves", name);
    CHECK(psb_body_measure(w, id).volume == before.volume, "%s: a sleeping ball's volume changed",
          name);
    // Woken with its own state (nothing changed), the step is solved afresh
    // and finds it still: no Newton step, the same bits.
    psb_error err;
    CHECK(psb_body_set_state(w, id, rest, rest + n, &err) == PSB_OK, "set_state: %s", err.message);
    psb_world_step(w);
    const psb_solver_report r = psb_body_solver_report(w, id);
    CHECK(r.asleep == 0 && r.newton == 0 && r.converged,
          "%s: woken with its own state, the step slept %d, took %d Newton steps (converged %d)",
          name, r.asleep, r.newton, r.converged);
    CHECK(holds(w, id, rest), "%s: woken with its own state, the ball moved", name);
    // And it sleeps again: a still step from rest.
    CHECK(until_asleep(w, id, 3) > 0, "%s: woken with its own state, it did not sleep again", name);
    CHECK(holds(w, id, rest), "%s: asleep again, the ball moved", name);
    free(rest);
    psb_world_destroy(w);
}

// A ball of 10242 points is shared by the threads: 1 and 2 give the same
// bits and fall asleep on the same step.
static void test_sleep_threads(void) {
    int id1, id2;
    psb_world *one = drop(PSB_IMPLICIT, 5, 1, &id1);
    psb_world *two = drop(PSB_IMPLICIT, 5, 2, &id2);
    if (!one || !two) {
        psb_world_destroy(one);
        psb_world_destroy(two);
        return;
    }
    CHECK(psb_body_point_count(one, id1) >= 4096, "level 5 has %d points, fewer than a team's",
          psb_body_point_count(one, id1));
    const int s1 = until_asleep(one, id1, 300);
    const int s2 = until_asleep(two, id2, 300);
    CHECK(s1 > 0 && s1 == s2, "asleep after %d steps on 1 thread, %d on 2", s1, s2);
    psb_world_step(one);
    psb_world_step(two);
    CHECK(same_bits(one, two), "1 and 2 threads: the sleeping balls differ");
    psb_world_destroy(one);
    psb_world_destroy(two);
}

// The same drop with the ball woken before every step (psb_body_set_state
// with its own state), so that every step is solved afresh from its own
// blocks, ends where the natural run ends to within what the tolerance
// allows: the velocities the solve leaves are right to solver_tol (m/s),
// so the rest positions to about solver_tol times the time the ball takes
// to settle.
static void test_shortcuts_change_nothing(void) {
    int id, id_awake;
    psb_world *w = drop(PSB_IMPLICIT, 3, 1, &id);
    psb_world *awake = drop(PSB_IMPLICIT, 3, 1, &id_awake);
    if (!w || !awake) {
        psb_world_destroy(w);
        psb_world_destroy(awake);
        return;
    }
    const int n = psb_body_point_count(w, id);
    int slept = 0;
    for (int s = 0; s < 300; s++) {
        psb_world_step(w);
        slept += psb_body_solver_report(w, id).asleep;
        psb_vec3 *state = copy_state(awake, id_awake);
        psb_error err;
        CHECK(state && psb_body_set_state(awake, id_awake, state, state + n, &err) == PSB_OK,
              "set_state: %s", state ? err.message : "no memory");
        free(state);
        psb_world_step(awake);
        CHECK(psb_body_solver_report(awake, id_awake).asleep == 0, "a woken ball slept");
    }
    CHECK(slept > 100, "the ball slept through %d of 300 steps", slept);
    const psb_body_state a = psb_body_measure(w, id), b = psb_body_measure(awake, id_awake);
    const double tol = psb_world_params(w)->solver_tol;
    CHECK(norm(sub(a.centroid, b.centroid)) < 5.0 * tol,
          "the centroid at rest is %.3g m from the run solved afresh every step",
          norm(sub(a.centroid, b.centroid)));
    CHECK(fabs(a.volume - b.volume) < 1e-3 * b.volume,
          "the volume at rest is %.9g m^3, solved afresh every step %.9g", a.volume, b.volume);
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        worst = fmax(
            worst, norm(sub(psb_body_positions(w, id)[i], psb_body_positions(awake, id_awake)[i])));
    }
    CHECK(worst < 10.0 * tol, "a point at rest is %.3g m from the run solved afresh", worst);
    printf("rest: asleep %d of 300 steps; centroid %.3g m, volume %.3g, worst point %.3g m "
           "from the run solved afresh\n",
           slept, norm(sub(a.centroid, b.centroid)), fabs(a.volume - b.volume) / b.volume, worst);
    psb_world_destroy(w);
    psb_world_destroy(awake);
}

// What wakes a sleeping ball, and how it shows it responded.
typedef enum { POKE, GAS, GRAB, PIN, GRAVITY, SPHERE, WAKE_COUNT } wake_kind;

static const char *const wake_names[WAKE_COUNT] = {"a poke", "more gas",   "a grab",
                                                   "a pin",  "no gravity", "a sphere under it"};

static void test_wakes(wake_kind kind) {
    const char *name = wake_names[kind];
    int id;
    psb_world *w = drop(PSB_IMPLICIT, 3, 1, &id);
    if (!w) {
        return;
    }
    CHECK(until_asleep(w, id, 600) > 0, "%s: the ball did not fall asleep", name);
    const psb_body_state before = psb_body_measure(w, id);
    int top = 0; // the highest point
    for (int i = 1; i < psb_body_point_count(w, id); i++) {
        top = psb_body_positions(w, id)[i].y > psb_body_positions(w, id)[top].y ? i : top;
    }
    const psb_vec3 at = psb_body_positions(w, id)[top];
    psb_error err = {0};
    psb_params p = *psb_world_params(w);
    psb_body_params bp = *psb_body_get_params(w, id);
    switch (kind) {
    case POKE:
        psb_body_apply_impulse(w, id, top, (psb_vec3){0.01, 0, 0});
        break;
    case GAS:
        bp.gas_nrt *= 1.5;
        CHECK(psb_body_set_params(w, id, &bp, &err) == PSB_OK, "set_params: %s", err.message);
        break;
    case GRAB:
        psb_body_grab(w, id, top, add(at, (psb_vec3){0, 0.3, 0}), 200.0);
        break;
    case PIN:
        CHECK(psb_body_pin(w, id, top, add(at, (psb_vec3){0, 0.1, 0}), &err) == PSB_OK, "pin: %s",
              err.message);
        break;
    case GRAVITY:
        p.gravity = 0.0;
        CHECK(psb_world_set_params(w, &p, &err) == PSB_OK, "set_params: %s", err.message);
        break;
    case SPHERE:
        // Into the ball's lower half: it is pushed up and aside.
        CHECK(psb_world_add_sphere(w, (psb_vec3){0.1, 0.0, 0.0}, 0.15, &err) == PSB_OK,
              "sphere: %s", err.message);
        break;
    case WAKE_COUNT:
        break;
    }
    psb_world_step(w);
    CHECK(psb_body_solver_report(w, id).asleep == 0, "%s: the ball slept through it", name);
    for (int s = 0; s < 30; s++) {
        psb_world_step(w);
    }
    const psb_body_state after = psb_body_measure(w, id);
    const double moved = norm(sub(after.centroid, before.centroid));
    switch (kind) {
    case GAS:
        CHECK(after.volume > 1.02 * before.volume, "%s: the volume went from %.6g to %.6g m^3",
              name, before.volume, after.volume);
        break;
    case GRAB:
    case PIN:
        CHECK(psb_body_positions(w, id)[top].y > at.y + 0.02,
              "%s: the point pulled up rose from %.4g to %.4g m", name, at.y,
              psb_body_positions(w, id)[top].y);
        break;
    default:
        CHECK(moved > 1e-3, "%s: the ball's centroid moved %.3g m in 0.5 s", name, moved);
        break;
    }
    psb_world_destroy(w);
}

// Two balls of the drop's material stacked in a box of walls narrower than
// they are (0.7 m, their diameter 0.8 m), so that each is pressed into the
// walls and the floor or the other: points lie on two surfaces at once,
// the floor or the ball below their constraint and the wall its penalty,
// and every Newton direction sends them into the wall, which the line
// search puts them back on. Solved together under BDF2 (a group: contact
// inside the solve), they come to rest within 7.5 s (6.7 s here: with
// Coulomb friction in the solve they slide into place more slowly than
// the 5 s they took with it after the solve), and from then on the group
// takes next to no Newton steps. (When those moves into a wall were
// counted as the step's change, the group's solve went on at a change of
// the tolerance: over seconds 5 to 10, 435 Newton steps, and the balls
// never came to rest, 2.7e-5 J of motion at 10 s.)
// Two balls of the drop's material (kd 20) stacked in that box, solved
// together (contact inside the solve) with `integrator` on `threads`
// threads: their ids into *low and *high.
static psb_world *stacked_in_box(psb_integrator integrator, int threads, int *low, int *high) {
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 3, 0.4, &err) == PSB_OK, "icosphere: %s", err.message);
    psb_params p = rest_params(integrator, threads);
    p.contact_solve = true;
    p.walls = true;
    p.walls_min = (psb_vec3){-0.35, -5.0, -0.35};
    p.walls_max = (psb_vec3){0.35, 5.0, 0.35};
    psb_world *w = make_world(&p);
    if (w) {
        const psb_body_params bp = material(2000.0, 20.0, 100.0);
        *low = add_moving_mesh(w, &m, bp, (psb_vec3){0, 0.36, 0}, (psb_vec3){0, 0, 0});
        *high = add_moving_mesh(w, &m, bp, (psb_vec3){0, 1.15, 0}, (psb_vec3){0, 0, 0});
    }
    psb_mesh_free(&m);
    return w;
}

static void test_group_rests_in_a_box(void) {
    int low, high;
    psb_world *w = stacked_in_box(PSB_BDF2, 1, &low, &high);
    if (!w) {
        return;
    }
    int newton = 0, linked = 0;
    for (int s = 1; s <= 750; s++) {
        CHECK(psb_world_step(w) == 0, "blow-up: %s", psb_world_last_event(w));
        if (s > 450) {
            newton +=
                psb_body_solver_report(w, low).newton + psb_body_solver_report(w, high).newton;
            linked += psb_world_link_count(w) > 0;
        }
    }
    const double motion = psb_body_measure(w, low).kinetic + psb_body_measure(w, high).kinetic;
    CHECK(linked == 300, "the stacked balls touched in %d of the last 300 steps", linked);
    CHECK(newton <= 100, "the stacked balls' group took %d Newton steps in its last 300 steps",
          newton);
    CHECK(motion < 1e-12, "the stacked balls still move after 12.5 s: %.3g J", motion);
    psb_world_destroy(w);
}

// The stacked balls' group (backward Euler) dozes once every point of both
// has kept within solver_tol x 0.5 s of where it was for half a second:
// it keeps its positions to the bit and takes no Newton step; 1 and 2
// threads doze at the same step with the same bits. What wakes it: a poke
// on the top ball (both are solved again, and it moves), and a third ball
// dropped onto the group (the group is solved with it while they touch).
static void test_group_dozes(void) {
    int low, high, low2, high2;
    psb_world *w = stacked_in_box(PSB_IMPLICIT, 1, &low, &high);
    psb_world *w2 = stacked_in_box(PSB_IMPLICIT, 2, &low2, &high2);
    if (!w || !w2) {
        psb_world_destroy(w);
        psb_world_destroy(w2);
        return;
    }
    int dozed = -1;
    for (int s = 1; s <= 900 && dozed < 0; s++) {
        CHECK(psb_world_step(w) == 0 && psb_world_step(w2) == 0, "blow-up: %s",
              psb_world_last_event(w));
        const int a = psb_body_solver_report(w, low).asleep,
                  b = psb_body_solver_report(w, high).asleep;
        CHECK(a == b, "step %d: one stacked ball dozed (%d) and not the other (%d)", s, a, b);
        CHECK(a == psb_body_solver_report(w2, low2).asleep,
              "step %d: 1 thread dozed %d, 2 threads %d", s, a,
              psb_body_solver_report(w2, low2).asleep);
        dozed = a > 0 ? s : -1;
    }
    CHECK(dozed > 0, "the stacked balls never dozed in 15 s");
    CHECK(psb_world_link_count(w) > 0, "the stacked balls do not touch");
    psb_vec3 *state = copy_state(w, high), *state2 = copy_state(w2, high2);
    CHECK(holds(w2, high2, state), "1 and 2 threads dozed in different states");
    for (int s = 0; s < 30; s++) {
        psb_world_step(w);
        psb_world_step(w2);
        CHECK(psb_body_solver_report(w, high).asleep == 1 &&
                  psb_body_solver_report(w, high).newton == 0,
              "a dozing group woke by itself");
    }
    CHECK(holds(w, high, state) && holds(w2, high2, state2),
          "a dozing ball moved: the positions changed");
    free(state);
    free(state2);
    // A poke wakes both.
    const psb_vec3 before = psb_body_measure(w, high).centroid;
    psb_body_apply_impulse(w, high, 0, (psb_vec3){0.02, 0, 0});
    psb_world_step(w);
    CHECK(psb_body_solver_report(w, high).asleep == 0 && psb_body_solver_report(w, low).asleep == 0,
          "a poke: the group slept through it");
    for (int s = 0; s < 30; s++) {
        psb_world_step(w);
    }
    const double moved = norm(sub(psb_body_measure(w, high).centroid, before));
    CHECK(moved > 1e-4, "a poke: the top ball's centroid moved %.3g m", moved);
    // A third ball dropped onto the dozing group is solved with it.
    psb_mesh m;
    psb_error err;
    CHECK(psb_mesh_icosphere(&m, 3, 0.3, &err) == PSB_OK, "icosphere: %s", err.message);
    const int third = add_moving_mesh(w2, &m, material(2000.0, 20.0, 50.0), (psb_vec3){0, 2.3, 0},
                                      (psb_vec3){0, 0, 0});
    psb_mesh_free(&m);
    int woke = 0;
    for (int s = 0; s < 120; s++) {
        psb_world_step(w2);
        const bool awake = psb_body_solver_report(w2, high2).asleep == 0;
        CHECK(s >= 10 || !awake, "step %d: the group woke while the third ball was in the air", s);
        woke += awake;
    }
    CHECK(woke > 0, "the third ball landed on the dozing group without waking it");
    CHECK(psb_body_measure(w2, third).centroid.y > psb_body_measure(w2, high2).centroid.y + 0.3,
          "the third ball is not on top (%.3g m, the top ball %.3g m)",
          psb_body_measure(w2, third).centroid.y, psb_body_measure(w2, high2).centroid.y);
    printf("group dozes: from step %d; a poke moved the top ball %.3g m; the third ball's "
           "landing woke the group in %d steps\n",
           dozed, moved, woke);
    psb_world_destroy(w);
    psb_world_destroy(w2);
}

// Whether body id of w and of v are in the same state, to the bit.
static bool same_state(const psb_world *w, const psb_world *v, int id) {
    psb_vec3 *s = copy_state(v, id);
    const bool same = holds(w, id, s);
    free(s);
    return same;
}

// The largest distance between a point of body id in w and in v, m.
static double farthest_apart(const psb_world *w, const psb_world *v, int id) {
    double most = 0.0;
    for (int i = 0; i < psb_body_point_count(w, id); i++) {
        most = fmax(most, norm(sub(psb_body_positions(w, id)[i], psb_body_positions(v, id)[i])));
    }
    return most;
}

// A world at rest keeps its last step's links and contacts instead of
// searching again (contact_begin_step): the same run searched every step
// ends every step at the same bits while it rests, and after a poke wakes
// it differs only by what the links kept in their last bits: by 1e-16 to
// 1e-10 m over the 50 steps after (measured), which the solves then grow
// as any rounding (to 1 mm, within the tolerance, once one of them stops
// at another Newton step: the runs come to rest a millimetre apart).
static void test_rest_keeps_its_search(void) {
    int low, high, low2, high2;
    psb_world *w = stacked_in_box(PSB_IMPLICIT, 2, &low, &high);
    psb_world *searched = stacked_in_box(PSB_IMPLICIT, 2, &low2, &high2);
    if (!w || !searched) {
        psb_world_destroy(w);
        psb_world_destroy(searched);
        return;
    }
    searched->search_always = true;
    int differ = -1;
    long reused_before_poke = 0;
    double apart = 0.0;
    for (int s = 1; s <= 700; s++) {
        if (s == 350) {
            reused_before_poke = w->reused_steps;
            psb_body_apply_impulse(w, high, 0, (psb_vec3){0.02, 0, 0});
            psb_body_apply_impulse(searched, high2, 0, (psb_vec3){0.02, 0, 0});
        }
        CHECK(psb_world_step(w) == 0 && psb_world_step(searched) == 0, "blow-up: %s",
              psb_world_last_event(w));
        if (s < 350) {
            const bool same = same_state(w, searched, low) && same_state(w, searched, high) &&
                              psb_world_link_count(w) == psb_world_link_count(searched) &&
                              psb_world_contact_count(w) == psb_world_contact_count(searched);
            differ = !same && differ < 0 ? s : differ;
        } else if (s < 400) {
            apart = fmax(apart,
                         fmax(farthest_apart(w, searched, low), farthest_apart(w, searched, high)));
        }
        if (s == 350) {
            CHECK(!w->reuse_search, "the step after a poke kept the links of the step before");
        }
    }
    CHECK(differ < 0, "keeping the links at rest changed the run at step %d", differ);
    CHECK(reused_before_poke > 100, "the group at rest kept its links in only %ld steps",
          reused_before_poke);
    CHECK(w->reused_steps > reused_before_poke,
          "after the poke the group never came back to rest (%ld steps kept their links)",
          w->reused_steps - reused_before_poke);
    CHECK(searched->reused_steps == 0, "search_always: %ld steps kept their links",
          searched->reused_steps);
    CHECK(apart < 1e-9,
          "in the 50 steps after the poke a point ended %.3g m from the run searched afresh",
          apart);
    printf("rest keeps its search: %ld of 700 steps kept their links (%ld before the poke at "
           "step 350); in the 50 steps after it, at most %.3g m from the run searched every "
           "step\n",
           w->reused_steps, reused_before_poke, apart);
    psb_world_destroy(w);
    psb_world_destroy(searched);
}

// A box's material (1 kg): springs ks, damping kd, and gas that balances
// an outside pressure K at its volume V (m³), so that it neither swells
// nor shrinks at rest and stiffens as K does.
static psb_body_params balanced(double ks, double kd, double K, double V) {
    psb_body_params bp = material(ks, kd, K * V);
    bp.outside_pressure = K;
    return bp;
}

// A stiff, well filled box (1 kg, 0.3 m) set on a pinned slab tilted by
// theta (tan theta = 0.3), contact inside the solve, one step of 1/60 s:
// its velocity down the slope after `steps` steps, and how far its
// centroid moved down the slope from step `from` on into *moved (m).
static double on_slope(psb_integrator integrator, double mu, int from, int steps, double *moved) {
    const double theta = atan(0.3), c = cos(theta), s = sin(theta);
    psb_params p = free_params(1.0 / 60.0);
    p.integrator = integrator;
    p.gravity = 9.81;
    p.contact_solve = true;
    p.restitution = 0.0;
    p.friction = 0.0;
    p.contact_friction = mu;
    psb_world *w = make_world(&p);
    psb_mesh slab, box;
    psb_error err = {0};
    CHECK(psb_mesh_box(&slab, 1, (psb_vec3){1.5, 0.1, 0.5}, &err) == PSB_OK &&
              psb_mesh_box(&box, 2, (psb_vec3){0.15, 0.15, 0.15}, &err) == PSB_OK,
          "box: %s", err.message);
    // Turned about z by -theta: the slab's top faces n, down the slope is d.
    const psb_vec3 n = {s, c, 0.0}, d = {c, -s, 0.0};
    psb_mesh *meshes[2] = {&slab, &box};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < meshes[k]->point_count; i++) {
            const psb_vec3 q = meshes[k]->points[i];
            meshes[k]->points[i] = (psb_vec3){q.x * c + q.y * s, -q.x * s + q.y * c, q.z};
        }
    }
    double v = 0.0;
    if (w) {
        const int sl = add_moving_mesh(w, &slab, balanced(1000.0, 0.0, 1000.0, 0.6),
                                       (psb_vec3){0.0, 0.0, 0.0}, (psb_vec3){0.0, 0.0, 0.0});
        for (int i = 0; i < psb_body_point_count(w, sl); i++) {
            psb_body_pin(w, sl, i, psb_body_positions(w, sl)[i], &err);
        }
        // Up the slope, a skin above the slab.
        const psb_vec3 at = add(scale(d, -0.8), scale(n, 0.1 + 0.15 + p.contact_thickness));
        const int b = add_moving_mesh(w, &box, balanced(5000.0, 5.0, 5000.0, 0.027), at,
                                      (psb_vec3){0.0, 0.0, 0.0});
        psb_vec3 start = psb_body_measure(w, b).centroid;
        for (int step = 1; step <= steps; step++) {
            CHECK(psb_world_step(w) == 0, "blow-up: %s", psb_world_last_event(w));
            if (step == from) {
                start = psb_body_measure(w, b).centroid;
            }
        }
        *moved = dot(sub(psb_body_measure(w, b).centroid, start), d);
        v = dot(psb_body_measure(w, b).momentum, d); // (1 kg)
        psb_world_destroy(w);
    }
    psb_mesh_free(&slab);
    psb_mesh_free(&box);
    return v;
}

// Coulomb friction inside the solve holds a box on a slope where mu is
// more than tan theta, and lets it slide at g (sin theta - mu cos theta)
// where less (a block under backward Euler: v = a t after t). With the
// friction only after each step's solve (as before session 42) the held
// box crept down the slope: each solve slid it on a frictionless contact,
// and the friction after took away only its velocity.
static void test_friction_on_a_slope(void) {
    const double theta = atan(0.3), g = 9.81;
    double moved = 0.0;
    const double v_held = on_slope(PSB_BDF2, 0.5, 60, 300, &moved);
    printf("slope: mu 0.5 > tan theta 0.3: the box moved %.3g m down the slope over seconds 1 "
           "to 5, at %.3g m/s at the end\n",
           moved, v_held);
    CHECK(fabs(moved) < 1e-3 && fabs(v_held) < 1e-3,
          "mu 0.5 on a slope of 0.3: the box moved %g m down it over 4 s (%g m/s at the end)",
          moved, v_held);
    const double mu = 0.2, t = 1.0;
    const double a = g * (sin(theta) - mu * cos(theta));
    const double v = on_slope(PSB_IMPLICIT, mu, 0, 60, &moved);
    printf("slope: mu 0.2 < tan theta 0.3: after %.0f s the box slides at %.4f m/s (a block: "
           "%.4f m/s), %.3f m down\n",
           t, v, a * t, moved);
    CHECK(fabs(v - a * t) <= 0.05 * a * t,
          "mu 0.2 on a slope of 0.3: after %g s the box slides at %g m/s, a block at %g m/s", t, v,
          a * t);
}

int main(void) {
    test_friction_on_a_slope();
    test_group_rests_in_a_box();
    test_group_dozes();
    test_rest_keeps_its_search();
    test_sleep_is_exact();
    test_sleep_threads();
    test_shortcuts_change_nothing();
    for (int k = 0; k < WAKE_COUNT; k++) {
        test_wakes((wake_kind)k);
    }
    return check_done("test_rest");
}
