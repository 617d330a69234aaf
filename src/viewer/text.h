// Text in pixel space, for the HUD, the panel, the table, the plots and
// the help: drawn, measured, shortened, wrapped, and its colours.
#ifndef PSB_VIEWER_TEXT_H
#define PSB_VIEWER_TEXT_H

#include "viewer.h"

/// (Re)makes the glyph atlas for text at the given scale.
bool text_atlas_build(app *a, float scale);
/// Makes the text program current with the atlas, in pixel coordinates.
void text_bind(const app *a, const float *pixel_transform);
/// Text in framebuffer pixels at scale s (top left at x, y); returns the width drawn.
float ui_text(app *a, float x, float y, float s, rgba color, const char *text);
/// Width of text at scale s, pixels.
float ui_text_width(const app *a, const char *text, float s);
/// text into out (size bytes), shortened in the middle ("stanf...y.obj")
/// until it is at most max_w pixels wide at scale s; true if it was.
bool ui_text_elide(const app *a, const char *text, float s, float max_w, char *out, size_t size);

/// text cut into lines at spaces to fit max_w, at most max_lines of them,
/// drawn at (x, y) if draw is set; returns the lines it takes. Drawn text
/// that does not fit counts in a->text_cut.
int ui_wrap(app *a, float x, float y, float s, rgba color, const char *text, float max_w,
            int max_lines, bool draw);
/// The panels' text colours, and their background (the HUD strip's, the help's).
extern const rgba ui_white, ui_dim, ui_warn, ui_bad, ui_good, ui_panel;

#endif
