// A body's own way out (docs/contact.md, "A body's own way out"), checked
// by psb-check-contact --self, which shares no code with psb: a ball
// without struts, its top point grabbed toward a point 2 m below it, no
// gravity, one solved step of 1/60 s a frame. Its top is pulled in to its
// bottom sheet, which crumples round it. Three such balls:
// - level 2 (162 points), 1 J of gas, BDF2, 20 steps: the build before the
//   own way out left 27 point-steps through its own surface or inside
//   itself, the own way out 2 (both crumpled umbrellas) until it found
//   crumpled umbrellas and relaxed their patches (docs/contact.md,
//   "Session 51: crumpled umbrellas found and relaxed"), now none;
// - level 2, 5 J, backward Euler, 60 steps: 9 before session 51, none now
//   (5 without the triangles across a contact's feature, 11 without the
//   crumpled umbrellas);
// - level 3 (642 points), no gas, BDF2, 60 steps: 244 before session 51, 2
//   now (27 without the patches, 138 without the crumpled umbrellas, 8
//   without the triangles across).
// With contact of a body with itself (links in the solve, and the own way
// out after the step) at most the figure each gives now may end so (4 for
// the last); without it, some must (the check can fail); and with the
// world's self contact on but the ball's own off
// (psb_body_params.self_contact, as a loaded model in a scene), the run is
// the one without it, to the bit.
// Two balls of one body that overlap at rest (twin_balls: a rest shape
// through itself, as a model's ear may pass into its head), 5 J of gas,
// dropped from 1 m onto the floor, backward Euler at one step of 1/60 s,
// 120 steps with self contact: the points of each ball inside the other are
// through its own surface in the rest shape, and the own way out leaves
// them there; it moves only the few pressed through it on landing (31, at
// most 60; 245 without that, 391 the build before session 51).
// And a ring's own way out (docs/contact.md, "A ring's own way out"): a
// ring of 40 points without gas dropped from 1 m, backward Euler at one
// step of 1/60 s, crumples on landing and its edges cross. Over 60 steps,
// with self contact at most 2 point-steps may end inside it (this build:
// none, 31 points moved); without, some must (88), and with the world's on
// and the ring's own off, the run is the one without, to the bit.
//
// usage: test_own_way_out PATH/TO/psb-check-contact
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bodies.h"
#include "check_contact_run.h"
#include <psb/psb_export.h>

// How the ball touches itself: not at all, as the world and its own
// material say (psb_body_params.self_contact), or the world on and its
// material off (as a loaded model in a scene).
typedef enum { SELF_OFF, SELF_ON, SELF_BODY_OFF } self_mode;
static const char *const self_mode_name[] = {"self contact off", "self contact on",
                                             "self contact on, off for the body"};

// The balls' points at the end of each mode's run (162 at level 2, 642 at
// level 3).
#define BALL_POINTS      162
#define FINE_BALL_POINTS 642
static psb_vec3 ends[3][BALL_POINTS], ends_gas[3][BALL_POINTS], ends_fine[3][FINE_BALL_POINTS];

// Steps world w (one body) `steps` times, writing the body after each step
// into dir, then keeps its end positions in `end` (`points` of them) and
// destroys w; the points it put back.
static long run_and_write(psb_world *w, int steps, const char *what, const char *dir, psb_vec3 *end,
                          int points) {
    psb_error err = {0};
    for (int s = 0; s < steps; s++) {
        CHECK(psb_world_step(w) == 0, "the %s blew up at step %d", what, s);
        CHECK(psb_export_obj_body(w, 0, NULL, dir, psb_export_frame_of(w), NULL, 0, &err) == PSB_OK,
              "%s", err.message);
    }
    const long put_back = psb_world_put_back_count(w);
    const int n = psb_body_point_count(w, 0);
    CHECK(n == points, "the %s has %d points", what, n);
    memcpy(end, psb_body_positions(w, 0), (size_t)(n < points ? n : points) * sizeof *end);
    psb_world_destroy(w);
    return put_back;
}

// A ball of icosphere `level` with nrt J of gas, pulled through by
// `integrator` for `steps` steps, every step written into dir; its end
// positions into end (`points` of them); the points it put back.
static long pull_through(self_mode self, const char *dir, int level, double nrt,
                         psb_integrator integrator, int steps, psb_vec3 *end, int points) {
    psb_error err = {0};
    psb_mesh ball;
    CHECK(psb_mesh_icosphere(&ball, level, 0.5, &err) == PSB_OK, "%s", err.message);
    psb_params p = psb_default_params();
    p.floor = false;
    p.gravity = 0.0;
    p.self_contact = self != SELF_OFF;
    p.contact_solve = true;
    p.integrator = integrator;
    p.substeps = 1;
    psb_world *w = make_world(&p);
    psb_body_def def = psb_mesh_body_def(&ball);
    def.params = material(200.0, 0.1, nrt);
    def.params.fold_limit = 0.0;
    def.params.self_contact = self != SELF_BODY_OFF;
    CHECK(psb_world_add_body(w, &def, &err) == 0, "%s", err.message);
    int top = 0;
    for (int i = 1; i < ball.point_count; i++) {
        top = ball.points[i].y > ball.points[top].y ? i : top;
    }
    psb_body_grab(w, 0, top, (psb_vec3){0.0, -1.5, 0.0}, 50.0);
    psb_mesh_free(&ball);
    return run_and_write(w, steps, "ball", dir, end, points);
}

// The three balls of the header.
static long pull_ball(self_mode self, const char *dir) {
    return pull_through(self, dir, 2, 1.0, PSB_BDF2, 20, ends[self], BALL_POINTS);
}
static long pull_ball_gas(self_mode self, const char *dir) {
    return pull_through(self, dir, 2, 5.0, PSB_IMPLICIT, 60, ends_gas[self], BALL_POINTS);
}
static long pull_fine_ball(self_mode self, const char *dir) {
    return pull_through(self, dir, 3, 0.0, PSB_BDF2, 60, ends_fine[self], FINE_BALL_POINTS);
}

// The ring's points at the end of each mode's run.
#define RING_POINTS 40
static psb_vec3 ring_ends[3][RING_POINTS];

// A ring of 40 points without gas dropped from 1 m onto the floor,
// backward Euler at one step of 1/60 s, every step of 1 s written into dir:
// it crumples on landing and its edges cross. The points it put back.
static long crumple_ring(self_mode self, const char *dir) {
    psb_error err = {0};
    psb_mesh ring;
    CHECK(psb_mesh_ring(&ring, RING_POINTS, 0.5, &err) == PSB_OK, "%s", err.message);
    psb_params p = psb_default_params();
    p.self_contact = self != SELF_OFF;
    p.contact_solve = true;
    p.integrator = PSB_IMPLICIT;
    p.substeps = 1;
    psb_world *w = make_world(&p);
    psb_body_def def = psb_mesh_body_def(&ring);
    def.params = material(200.0, 0.1, 0.0);
    def.offset = (psb_vec3){0.0, 1.5, 0.0};
    def.params.self_contact = self != SELF_BODY_OFF;
    CHECK(psb_world_add_body(w, &def, &err) == 0, "%s", err.message);
    psb_mesh_free(&ring);
    return run_and_write(w, 60, "ring", dir, ring_ends[self], RING_POINTS);
}

// One body's three runs (self contact on, off, and the world's on with the
// body's own off), each written into a temporary folder and checked: with
// it at most `most` point-steps inside the body itself and some points put
// back; without, none put back and some inside (else the scene does not
// test it); with the body's own switch off, the run without it, to the bit
// (ends_off, ends_body_off: where those two runs leave its points, `size`
// bytes each).
static void three_runs(const char *check, const char *what, long (*run)(self_mode, const char *),
                       const void *ends_off, const void *ends_body_off, size_t size, long most) {
    long off_found = -1;
    const self_mode order[] = {SELF_ON, SELF_OFF, SELF_BODY_OFF};
    for (int m = 0; m < 3; m++) {
        const self_mode self = order[m];
        const char *tmp = getenv("TMPDIR");
        char dir[512];
        snprintf(dir, sizeof dir, "%s/psb_own_way_out_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        CHECK(mkdtemp(dir) != NULL, "no temporary folder in %s", tmp && *tmp ? tmp : "/tmp");
        const long put_back = run(self, dir);
        const long found = check_contact_inside(check, dir, true);
        printf("%s, %s: %ld points put back, %ld point-steps inside it\n", what,
               self_mode_name[self], put_back, found);
        CHECK(found >= 0, "psb-check-contact did not run on %s", dir);
        if (self == SELF_ON) {
            CHECK(found <= most,
                  "%s: %ld point-steps inside itself with self contact (at most %ld)", what, found,
                  most);
            CHECK(put_back > 0, "%s: the own way out moved no point: the scene does not test it",
                  what);
        } else if (self == SELF_OFF) {
            CHECK(put_back == 0 && found > 0,
                  "%s without self contact: %ld points put back and %ld inside itself (expected "
                  "none put back, and some inside, else the scene does not test it)",
                  what, put_back, found);
            off_found = found;
        } else { // the body's own switch off: the run without self contact
            CHECK(put_back == 0 && found == off_found,
                  "%s with its own self contact off: %ld put back and %ld inside (%ld without "
                  "self contact)",
                  what, put_back, found, off_found);
            CHECK(memcmp(ends_body_off, ends_off, size) == 0,
                  "%s with its own self contact off ends elsewhere than without self contact",
                  what);
        }
        char rm[600];
        snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
        CHECK(system(rm) == 0, "could not remove %s", dir);
    }
}

// The two balls of one body of the header: the points their own way out
// put back.
static long twin_drop(void) {
    psb_error err = {0};
    psb_mesh ball;
    CHECK(psb_mesh_icosphere(&ball, 2, 0.5, &err) == PSB_OK, "%s", err.message);
    psb_params p = psb_default_params();
    p.self_contact = true;
    p.contact_solve = true;
    p.integrator = PSB_IMPLICIT;
    p.substeps = 1;
    psb_world *w = make_world(&p);
    psb_vec3 *points = NULL;
    int *triangles = NULL;
    psb_body_def def = twin_balls(&ball, 0.6, &points, &triangles);
    def.params = material(200.0, 0.1, 5.0);
    def.offset = (psb_vec3){0.0, 1.0, 0.0};
    CHECK(psb_world_add_body(w, &def, &err) == 0, "%s", err.message);
    for (int s = 0; s < 120; s++) {
        CHECK(psb_world_step(w) == 0, "the two balls of one body blew up at step %d", s);
    }
    const long put_back = psb_world_put_back_count(w);
    psb_world_destroy(w);
    free(points);
    free(triangles);
    psb_mesh_free(&ball);
    return put_back;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_own_way_out PATH/TO/psb-check-contact\n");
        return 2;
    }
    three_runs(argv[1], "top pulled through", pull_ball, ends[SELF_OFF], ends[SELF_BODY_OFF],
               sizeof ends[SELF_OFF], 0);
    three_runs(argv[1], "top pulled through, 5 J, backward Euler", pull_ball_gas,
               ends_gas[SELF_OFF], ends_gas[SELF_BODY_OFF], sizeof ends_gas[SELF_OFF], 0);
    three_runs(argv[1], "top of a level-3 ball without gas pulled through", pull_fine_ball,
               ends_fine[SELF_OFF], ends_fine[SELF_BODY_OFF], sizeof ends_fine[SELF_OFF], 4);
    const long twin = twin_drop();
    printf("two balls of one body overlapping at rest: %ld points put back\n", twin);
    CHECK(twin <= 60,
          "two balls of one body overlapping at rest: %ld points put back (at most 60: the points "
          "through its rest shape are to be left where they are)",
          twin);
    three_runs(argv[1], "ring without gas crumpling", crumple_ring, ring_ends[SELF_OFF],
               ring_ends[SELF_BODY_OFF], sizeof ring_ends[SELF_OFF], 2);
    return check_done("test_own_way_out");
}
