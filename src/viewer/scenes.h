// The scene list: the viewer's scenes (psb_scene's, then the models
// scene), then the OBJ files given or dropped last, if any; which entry is
// shown, and going to another. The keys (input.c) switch; the HUD (ui.c)
// and --report (output.c) ask which entry is shown.
#ifndef PSB_VIEWER_SCENES_H
#define PSB_VIEWER_SCENES_H

#include "viewer.h"

/// The scene list's entry shown: a psb_viewer_scene index (the models
/// scene's included), psb_viewer_scene_count() for the files given or
/// dropped, -1 if none.
int scenes_entry(const app *a);
/// Entries in the scene list: the viewer's scenes, and the files given or
/// dropped if any.
int scenes_entries(const app *a);
/// Shows entry `entry` of the scene list; on failure says why and keeps
/// the scene.
void scenes_switch(app *a, int entry);
/// Goes back to a->scene_name's scene (from loaded files).
void scenes_load_builtin(app *a);

#endif
