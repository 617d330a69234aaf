// Pokes: a finger pressed into a body. Started by the mouse (input.c,
// pick.c), updated each frame by the loop (app.c), lifted by the stage
// (stage.c) on a scene change or a reset.
#ifndef PSB_VIEWER_POKE_H
#define PSB_VIEWER_POKE_H

#include "viewer.h"

/// Presses a finger into body b at `at` (m) along dir (unit, into the body).
void poke_start(app *a, int b, const double at[3], const double dir[3]);
/// The button that poked is let go: the finger leaves once it has been in POKE_HOLD_S.
void poke_release(app *a);
/// Each frame, after the bodies are measured and before they are drawn:
/// keeps the body's points out of the finger, measures the dent.
void poke_update(app *a);
/// Lifts the finger at once (a scene change, R).
void poke_cancel(app *a);
/// Frees the scratch arrays.
void poke_free(app *a);

#endif
