// The 3D view: its batches filled from the world, then drawn. Called by the
// frame (render.c); the 2D view (render2d.c) shares its strain colours.
#ifndef PSB_VIEWER_RENDER3D_H
#define PSB_VIEWER_RENDER3D_H

#include "viewer.h"

void render3d_build(app *a);
void render3d_draw(app *a);
/// Colour of a strain value: blue compressed, white at rest, red stretched.
rgba strain_color(float strain);

#endif
