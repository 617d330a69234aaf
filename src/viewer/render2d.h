// The 2D view: its batches filled from the world, then drawn. Called by the
// frame (render.c).
#ifndef PSB_VIEWER_RENDER2D_H
#define PSB_VIEWER_RENDER2D_H

#include "viewer.h"

void render2d_build(app *a);
void render2d_draw(app *a);

#endif
