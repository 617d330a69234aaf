// The window's layout: where the strips, the views and the panel are, and
// the 2D view's world-to-pixel map. Called by the loop (app.c), the stage
// (stage.c), the keys (input.c), the panel (panel.c) and the HUD (ui.c).
#ifndef PSB_VIEWER_LAYOUT_H
#define PSB_VIEWER_LAYOUT_H

#include "viewer.h"

/// Computes the layout from the framebuffer size and the scene's body count.
void layout_update(app *a);
/// A 2D world point (m) to framebuffer pixels of the 2D view, and back.
void layout_2d_to_fb(const app *a, double wx, double wy, double *fx, double *fy);
void layout_fb_to_2d(const app *a, double fx, double fy, double *wx, double *wy);
/// Counts the HUD's quads and lines drawn over a view into a->ui_over_views
/// (after ui_build; the help panel, drawn over everything, left out).
void layout_check(app *a);
/// Forgets where the bodies were seen (a scene framed again).
void layout_forget_bodies(app *a);
/// Adds where the bodies are drawn this frame to a->seen2d and a->seen3d.
void layout_track_bodies(app *a);

#endif
