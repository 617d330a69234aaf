// The controls: the parameters that the keys and the parameter panel set,
// and their writing into the world. Called by the keys (input.c), the
// panel (panel.c), scripts (script.c), the stage (stage.c) and the loop
// (app.c); it says what it did through status.c.
#ifndef PSB_VIEWER_CONTROLS_H
#define PSB_VIEWER_CONTROLS_H

#include "viewer.h"

/// The controls as the command line set them (psb_default_params()'s values
/// where it said nothing), gas x1.
void controls_init(app *a);
/// Writes the controls (gas, material, gravity, restitution, friction, dt,
/// integrator) and shape matching and the wind into the world; false (and
/// an error message) if the world refused them.
bool controls_apply(app *a);
/// The control's short name ("gas", "ks", ... as scripts and --report name
/// it), its label in the panel, its entry in the core's table.
const char *control_name(control c);
const char *control_label(control c);
const psb_param_info *control_param(control c);
/// The control called name ("gas", "ks", ...), or -1.
int control_find(const char *name);
/// The control's value now, and as the viewer started.
double control_value(const app *a, control c);
double control_default(const app *a, control c);
/// The span a slider covers: the table's typical span (for the gas, as
/// multiples of the material's nRT), widened to hold the default.
void control_span(const app *a, control c, double *lo, double *hi);
/// Whether v is allowed (the table's range, for every body's own value);
/// else why not, with the range, into why.
bool control_check(const app *a, control c, double v, char *why, size_t size);
/// Checks v, sets it, applies it to the world and says so in the HUD; false
/// (and why) if refused, the control unchanged.
bool control_set(app *a, control c, double v, char *why, size_t size);
/// The keys: the control times factor, if allowed (else the message says why).
void control_scale(app *a, control c, double factor);
/// Control c, or every control, back to control_default (applied, and
/// said in the HUD).
void control_reset(app *a, control c);
void controls_reset(app *a);
/// v as the panel shows it: "x1.25", "200 N/m", "bdf2" (ASCII).
void control_format(const app *a, control c, double v, char *out, size_t size);
/// The range a typed value may take, short: "0 .. 1e12 N/m".
void control_range_text(const app *a, control c, char *out, size_t size);
/// For the gas and the material's controls, the bodies' own values now:
/// "the bodies: 65 .. 200 N/m" ("" for the other controls).
void control_bodies_text(const app *a, control c, char *out, size_t size);
/// A unit in ASCII for the HUD's font: "m/s^2", "N*s/m".
void control_ascii(const char *text, char *out, size_t size);
/// v rounded to `digits` significant digits (v itself if not finite or 0).
double control_round(double v, int digits);

#endif
