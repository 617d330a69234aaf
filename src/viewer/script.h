// Scripted input: events read from a file and replayed, frame by frame,
// through the handlers of the mouse and the keys. Called by the loop (app.c).
#ifndef PSB_VIEWER_SCRIPT_H
#define PSB_VIEWER_SCRIPT_H

#include "viewer.h"

/// Reads a script; on failure writes "FILE:LINE: ..." into error.
bool script_load(app *a, const char *path, char *error, size_t error_size);
/// Replays the events of the current frame.
void script_run_frame(app *a);
/// Frees the events.
void script_free(app *a);

#endif
