// The mouse and the keys. The loop (app.c) installs the callbacks and
// keeps a grab under the cursor each frame; scripts (script.c) replay
// events through the same handlers.
#ifndef PSB_VIEWER_INPUT_H
#define PSB_VIEWER_INPUT_H

#include "viewer.h"

/// Installs the GLFW callbacks.
void input_install(app *a);
/// Input handlers shared by GLFW callbacks and the script (window coordinates).
void input_cursor(app *a, double x, double y);
void input_button(app *a, int button, int action, int mods);
void input_scroll(app *a, double dx, double dy);
void input_key(app *a, int key, int action, int mods);
void input_drop(app *a, int count, const char **paths);
/// Keeps the grab target under the cursor while the camera or view moves.
void input_update_grab(app *a);
/// Screen position (window coordinates) of a body's centroid, for scripts.
bool input_body_screen_pos(app *a, int body, double *x, double *y);
/// Screen position (window coordinates) of one point of a body, for scripts.
bool input_point_screen_pos(app *a, int body, int point, double *x, double *y);

#endif
