// The GL resources: the programs, the batches and the buffers sized for the
// scene shown. Made and freed by the loop (app.c), sized again by the
// stage (stage.c) on a scene change; the frame (render.c) fills and draws
// them. The views (render3d.c, render2d.c) take their fixed colours here.
#ifndef PSB_VIEWER_GPU_H
#define PSB_VIEWER_GPU_H

#include "viewer.h"

/// Loads the shaders and makes the GL objects; on failure writes why.
bool gpu_init(app *a, char *error, size_t error_size);
/// Sizes every buffer for the scene now installed (scene changes only).
bool gpu_scene_changed(app *a);
/// Frees the GL objects.
void gpu_free(app *a);

/// The static spheres' colour (a sandstone grey) and the pin markers' colour, sRGB.
extern const float sphere_color[3];
extern const float pin_color[3];

#endif
