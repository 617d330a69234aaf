// The frame: built (render3d.c, render2d.c, ui.c), uploaded and drawn.
// Called by the loop (app.c).
#ifndef PSB_VIEWER_RENDER_H
#define PSB_VIEWER_RENDER_H

#include "viewer.h"

/// Builds, uploads and draws one frame.
void render_frame(app *a);

#endif
