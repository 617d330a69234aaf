// The 3D view's orbit camera: yaw and pitch about a target point, a distance,
// a perspective projection; rays from the cursor for picking.
#ifndef PSB_VIEWER_CAMERA_H
#define PSB_VIEWER_CAMERA_H

#include <cglm/cglm.h>

#include <stdbool.h>

/// Orbit camera. Angles in radians; pitch > 0 looks down on the target.
typedef struct camera {
    float yaw;       ///< rotation about +y; 0 looks along -z
    float pitch;     ///< elevation of the eye above the target's horizon
    float distance;  ///< eye to target, m
    float target[3]; ///< the point orbited, m
    float fov;       ///< vertical field of view, rad, in a view CAMERA_WIDE or wider
} camera;

/// The widest aspect (width / height) at which the field of view is fov:
/// a narrower view (a small window, the parameter panel beside it) opens
/// the vertical field so as to see as wide as this one, instead of cutting
/// the scene's sides.
#define CAMERA_WIDE 1.85f

/// The vertical field of view in a view of this aspect, rad.
float camera_fov(const camera *c, float aspect);

/// Looking at the middle of the default scene from the front, 29 degrees above.
camera camera_default(void);

/// The eye position, m.
void camera_eye(const camera *c, float eye[3]);

/// Projection times view for a viewport of the given aspect (width / height).
void camera_view_proj(const camera *c, float aspect, mat4 out);

/// Degrees the camera turns per pixel of an orbit drag, as Blender's
/// default orbit sensitivity: a 60 px drag turns it by 24 degrees.
#define CAMERA_ORBIT_DEG_PER_PX 0.4f
/// What one wheel step zooms by (distance / this), as Blender's wheel.
#define CAMERA_ZOOM_STEP 1.2f

/// Orbits by a cursor motion of dx, dy pixels (screen coordinates): right
/// turns the scene right, down lifts the eye.
void camera_orbit(camera *c, float dx, float dy);

/// Moves the target in the view plane by a cursor motion of dx, dy pixels
/// in a view of width x height pixels.
void camera_pan(camera *c, float dx, float dy, float width, float height);

/// Zooms by wheel steps (> 0 closer).
void camera_zoom(camera *c, float steps);

/// The ray through normalised device coordinates (x, y): origin at the eye,
/// unit direction. False if the matrices are degenerate.
bool camera_ray(const camera *c, float aspect, float x, float y, double origin[3], double dir[3]);

/// Projects a world point to normalised device coordinates; false when it
/// is behind the eye.
bool camera_project(const camera *c, float aspect, const float p[3], float *x, float *y);

/// The projection of the box [lo, hi] (m) in normalised device
/// coordinates, out = {x0, y0, x1, y1}; false when a corner is behind the eye.
bool camera_box_ndc(const camera *c, float aspect, const float lo[3], const float hi[3],
                    float out[4]);

/// Frames the box [lo, hi] (m), yaw and pitch kept: the target where the
/// box's projection is centred, the distance at which it spans `fill` of
/// the view's height or width, whichever binds (0.6: 60 %), within the
/// camera's zoom limits.
void camera_fit_box(camera *c, float aspect, const float lo[3], const float hi[3], float fill);

#endif
