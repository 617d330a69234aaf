// The stage: the scene shown, installed, framed and reset. Called by the
// scene list (scenes.c), the loaded models (models.c), the keys
// (input.c), the parameter panel (panel.c), --report (output.c) and the
// loop (app.c).
#ifndef PSB_VIEWER_STAGE_H
#define PSB_VIEWER_STAGE_H

#include "viewer.h"

/// Makes next the scene shown (next is emptied, the old scene freed): GPU
/// buffers sized for it, the controls applied, the plots restarted. False
/// (and the viewer closing) when the buffers cannot be made.
bool stage_install(app *a, psb_scene *next);
/// Frames the scene: the camera and the 2D view as for the default scene,
/// pulled back for a scene that reaches higher or wider; loaded models
/// framed for their whole run (the box from the floor to their top as they
/// are now, which holds their start in the air, their drop and their rest).
void stage_frame(app *a);
/// Frames the 2D view alone (its zoom and centre for the rings' width),
/// as stage_frame does: after the view's width changed.
void stage_frame_2d(app *a);
/// The box around every 3D body's points (rings left out), m; false if none.
bool stage_bodies_box(const app *a, float lo[3], float hi[3]);
/// Puts every body back as it was built and clears the plots and the
/// blow-up report.
void stage_reset(app *a);

#endif
