// The parameter panel: drawn by the HUD (ui.c), used by the mouse and the
// keys (input.c) and by scripts (script.c), read by --report (output.c).
#ifndef PSB_VIEWER_PANEL_H
#define PSB_VIEWER_PANEL_H

#include "viewer.h"

/// Shows or hides the parameter panel (the views make room for it).
void panel_toggle(app *a);
/// The panel into the pixel-space batches (ui.c calls it).
void panel_build(app *a);
/// A press at framebuffer pixel (fx, fy): true if the panel took it (it is
/// over the panel); a press elsewhere ends the typing.
bool panel_press(app *a, int button, double fx, double fy);
/// The cursor moved to (fx, fy) while the panel drags (DRAG_PANEL).
void panel_drag(app *a, double fx, double fy);
/// The button let go after a panel drag; a value clicked without moving
/// starts the typing.
void panel_release(app *a);
/// The panel's drag ends without a release (the focus lost): nothing starts
/// the typing.
void panel_cancel_drag(app *a);
/// A key while typing: true if the panel took it (it takes every key then).
bool panel_key(app *a, int key, int action);
/// A character typed (GLFW's char callback, or a script's `type`).
void panel_char(app *a, unsigned int codepoint);
/// The panel's lines of --report: its rectangle, each control's value and
/// what the panel shows of it, the typing, the counts.
void panel_report(const app *a, FILE *out);
/// Where part `part` of control c's row is, window coordinates (for
/// scripts; fraction: along a slider, 0..1); false when it is not shown.
bool panel_part_pos(app *a, int c, panel_part part, double fraction, double *x, double *y);

#endif
