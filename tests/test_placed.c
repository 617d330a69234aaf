// Bodies placed into each other from outside the step (docs/contact.md,
// "Bodies placed into each other"), in the fast step, checked by
// psb-check-contact, which shares no code with psb. Balls of 162 points
// and 0.5 m radius, no gravity, backward Euler at one step of 1/60 s with
// contact inside the solve:
// - set into each other: two at rest, the second one's state set
//   (psb_body_set_state) 12 cm into the first, then 12 steps, each
//   written out;
// - added into another: two flying at each other at 0.3 m/s each, and
//   after 10 steps a third added 12 cm into the first, then 12 steps more,
//   each written out.
// With the contact stage checking a placed body whole, no point of any
// ball may end any of those steps inside another; without (where `placed`
// is never set), 4 and 6 point-steps end so.
//
// usage: test_placed PATH/TO/psb-check-contact
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bodies.h"
#include "check_contact_run.h"
#include <psb/psb_export.h>

// A world of two level-2 balls of radius 0.5 m, at x = ±at, moving toward
// each other at `speed` each, without gravity or floor; body contact as
// `contact` says.
static psb_world *two_balls(double at, double speed, bool contact, psb_mesh *ball) {
    psb_error err = {0};
    CHECK(psb_mesh_icosphere(ball, 2, 0.5, &err) == PSB_OK, "%s", err.message);
    psb_params p = free_params(1.0 / 60.0);
    p.integrator = PSB_IMPLICIT;
    p.contact_solve = true;
    p.body_contact = contact;
    psb_world *w = make_world(&p);
    if (!w) {
        return NULL;
    }
    const psb_body_params bp = material(200.0, 0.1, 50.0);
    add_moving_mesh(w, ball, bp, (psb_vec3){-at, 0.0, 0.0}, (psb_vec3){speed, 0.0, 0.0});
    add_moving_mesh(w, ball, bp, (psb_vec3){at, 0.02, 0.01}, (psb_vec3){-speed, 0.0, 0.0});
    return w;
}

// Steps w `steps` times, writing every body after each step into a new
// temporary folder, and checks them: the point-steps inside another
// ball, and w's points put back over the run into *put_back.
static long run_and_check(const char *check, psb_world *w, int steps, long *put_back) {
    psb_error err = {0};
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/psb_placed_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "no temporary folder in %s", tmp && *tmp ? tmp : "/tmp");
    for (int s = 0; s < steps; s++) {
        CHECK(psb_world_step(w) == 0, "the balls blew up at step %d", s);
        for (int b = 0; b < psb_world_body_count(w); b++) {
            CHECK(psb_export_obj_body(w, b, NULL, dir, psb_export_frame_of(w), NULL, 0, &err) ==
                      PSB_OK,
                  "%s", err.message);
        }
    }
    *put_back = psb_world_put_back_count(w);
    const long found = check_contact_inside(check, dir, false);
    CHECK(found >= 0, "psb-check-contact did not run on %s", dir);
    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    CHECK(system(rm) == 0, "could not remove %s", dir);
    return found;
}

static void added_into(const char *check) {
    psb_mesh ball;
    psb_world *w = two_balls(0.7, 0.3, true, &ball);
    if (!w) {
        return;
    }
    for (int s = 0; s < 10; s++) {
        CHECK(psb_world_step(w) == 0, "the balls blew up at step %d", s);
    }
    // A third ball 12 cm into the first (its centre 0.88 m above it).
    const psb_vec3 first = psb_body_measure(w, 0).centroid;
    add_moving_mesh(w, &ball, material(200.0, 0.1, 50.0),
                    (psb_vec3){first.x, first.y + 0.88, first.z}, (psb_vec3){0.0, 0.0, 0.0});
    long put_back = 0;
    const long found = run_and_check(check, w, 12, &put_back);
    printf("added 12 cm into another: %ld points put back, %ld point-steps inside another "
           "ball\n",
           put_back, found);
    CHECK(found == 0, "added into another: %ld point-steps inside another ball", found);
    CHECK(put_back > 0, "added into another: no point put back (the scene does not test it)");
    psb_world_destroy(w);
    psb_mesh_free(&ball);
}

static void set_into(const char *check) {
    psb_mesh ball;
    psb_world *w = two_balls(0.6, 0.0, true, &ball);
    if (!w) {
        return;
    }
    // The second ball 12 cm into the first (its centre 0.88 m from the
    // first's), at rest.
    const int n = psb_body_point_count(w, 1);
    psb_vec3 *x = malloc((size_t)n * sizeof *x);
    CHECK(x != NULL, "no memory");
    if (x) {
        const psb_vec3 *now = psb_body_positions(w, 1);
        for (int i = 0; i < n; i++) {
            x[i] = now[i];
            x[i].x -= 0.32;
        }
        psb_error err = {0};
        CHECK(psb_body_set_state(w, 1, x, NULL, &err) == PSB_OK, "%s", err.message);
        free(x);
    }
    long put_back = 0;
    const long found = run_and_check(check, w, 12, &put_back);
    printf("set 12 cm into the other: %ld points put back, %ld point-steps inside the other "
           "ball\n",
           put_back, found);
    CHECK(found == 0, "set into the other: %ld point-steps inside the other ball", found);
    CHECK(put_back > 0, "set into the other: no point put back (the scene does not test it)");
    psb_world_destroy(w);
    psb_mesh_free(&ball);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_placed PATH/TO/psb-check-contact\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    set_into(argv[1]);
    added_into(argv[1]);
    return check_done("test_placed");
}
