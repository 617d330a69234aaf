// The HUD's status lines: the last message (any part of the viewer sets
// it; shown until it expires) and the last blow-up report (set after a
// step that blew up; shown until its cause goes or it is old). See status.h.
#include "status.h"

#include <stdarg.h>

// How long the HUD shows a message, s of wall time (on the virtual clock:
// as many frames of dt, so that a scripted run shows the same every time).
#define MESSAGE_S       6.0
#define ERROR_MESSAGE_S 20.0

// A blow-up report is shown for this long of simulated time after the last
// blow-up, s, unless its cause goes first (R, a scene change, a stable step).
#define BLOWUP_S 5.0

void status_message(app *a, bool error, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, args);
    va_end(args);
    a->message_error = error;
    a->message_time = glfwGetTime();
    a->message_frame = a->frame;
    if (error) {
        fprintf(stderr, "psb view: %s\n", a->message);
    }
}

bool status_message_live(const app *a) {
    if (!a->message[0]) {
        return false;
    }
    const double age = a->virtual_clock ? (double)(a->frame - a->message_frame) *
                                              psb_world_params(a->scene.world)->dt
                                        : glfwGetTime() - a->message_time;
    return age < (a->message_error ? ERROR_MESSAGE_S : MESSAGE_S);
}

void status_message_clear(app *a) {
    a->message[0] = '\0';
}

void status_blowup(app *a, int bodies) {
    const psb_world *world = a->scene.world;
    snprintf(a->blowup, sizeof a->blowup, "%s", psb_world_last_event(world));
    a->blowup_time = psb_world_time(world);
    if (a->blowup_steps < MAX_REPORTED_BLOWUPS) {
        fprintf(stderr, "psb view: %s\n", a->blowup);
    } else if (a->blowup_steps == MAX_REPORTED_BLOWUPS) {
        fprintf(stderr, "psb view: more blow-ups: not reported one by one\n");
    }
    a->blowup_steps++;
    a->blowup_count += bodies;
}

void status_blowup_clear(app *a) {
    a->blowup[0] = '\0';
}

bool status_blowup_live(const app *a) {
    return a->blowup[0] && psb_world_time(a->scene.world) - a->blowup_time < BLOWUP_S;
}
