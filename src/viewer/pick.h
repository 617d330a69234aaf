// Picking: which body and point lie under a pixel of a view. Called by the
// mouse (input.c).
#ifndef PSB_VIEWER_PICK_H
#define PSB_VIEWER_PICK_H

#include "viewer.h"

/// The camera's ray through framebuffer pixel (fx, fy) of the 3D view:
/// origin o, unit direction d; false if there is none.
bool pick_ray3d(const app *a, double fx, double fy, double o[3], double d[3]);
/// The nearest 3D body the ray hits (a shell, or a cloth from either side):
/// the body, the corner of the hit triangle nearest the hit, the hit point
/// (m). False when the ray hits nothing, or a static sphere first.
bool pick_3d(const app *a, const double o[3], const double d[3], int *body, int *point,
             double hit[3]);
/// The ring point nearest the 2D world point (x, y) (m), if (x, y) is inside
/// the ring or near one of its points.
bool pick_2d(const app *a, double x, double y, int *body, int *point);
/// Pokes ring b at its point i, against its outward normal there (the
/// drag becomes DRAG_POKE).
void pick_poke2d(app *a, int b, int i);

#endif
