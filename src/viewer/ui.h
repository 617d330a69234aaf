// The HUD strip and the help panel. Called by the frame (render.c).
#ifndef PSB_VIEWER_UI_H
#define PSB_VIEWER_UI_H

#include "viewer.h"

/// The HUD, the plots, the body table and the help overlay into the
/// pixel-space batches.
void ui_build(app *a);

#endif
