// The body table: a row per body, the plots' legend. Drawn by the HUD
// (ui.c), sized by the layout (layout.c), read by --report (output.c).
#ifndef PSB_VIEWER_TABLE_H
#define PSB_VIEWER_TABLE_H

#include "viewer.h"

/// The width the body table needs at scale s, pixels.
float table_width(float s);
/// The body table into table_rect: a row per body (a sample of its plot
/// line, its name, volume, pressure, energy, shape matching, pins).
void table_build(app *a);
/// Body b's name as the body table shows it, shortened in the middle to
/// fit its column, into out; returns the column's width, pixels.
float ui_table_name(const app *a, int b, char *out, size_t size);
/// The whole name of the body under the cursor in the table, over its
/// shortened one (drawn over the other panels).
void table_tooltip(app *a);
/// Where body b's name is in the table (framebuffer pixels); w = 0 when
/// its row is not shown.
rect table_name_rect(const app *a, int b);
/// The bodies with a row in the table: 0 .. table_shown() - 1 (all of them
/// unless the table is too small even in its compact form).
int table_shown(const app *a);

#endif
