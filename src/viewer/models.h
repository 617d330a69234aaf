// Loaded models: OBJ files given or dropped, and the models scene (the
// meshes folder's OBJ files, one at a time). Called by the scene list
// (scenes.c), the keys (input.c) and the loop (app.c); it hands what it
// builds to the stage (stage.c).
#ifndef PSB_VIEWER_MODELS_H
#define PSB_VIEWER_MODELS_H

#include "viewer.h"

/// Loads OBJ files (given or dropped): the good ones replace the 3D bodies
/// on the ring's stage (from the pile scene: dropped onto a new pile); bad
/// ones only report, and if none is good the scene runs on as it was.
void models_load_files(app *a, const char *const *paths, int count);
/// Loads the files given or dropped last again (the scene list's last entry).
void models_reload_files(app *a);
/// Finds the meshes folder (--meshes, else the usual places) and lists its
/// *.obj files by name into a->model_names; false, and why into why (may
/// be NULL), when there is no folder or no OBJ file in it.
bool models_list(app *a, char *why, size_t why_size);
/// Shows the models scene with its model `entry` (wrapped into the list),
/// loaded as a file given on the command line is, with its holes filled.
/// A missing folder or a file that does not load leaves the ring alone on
/// the stage, and the HUD and stderr say why.
void models_show(app *a, int entry);

#endif
