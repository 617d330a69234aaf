// The plots of V/V0 and pressure: their history (sampled by the loop after
// each step, cleared by the stage) and their drawing (by the HUD, ui.c;
// their swatches by the body table, table.c).
#ifndef PSB_VIEWER_PLOTS_H
#define PSB_VIEWER_PLOTS_H

#include "viewer.h"

/// Forgets the plotted history.
void plots_clear(plot_history *p);
/// Measures every body after a world step and adds a sample.
void plots_sample(app *a);
/// The plots into the pixel-space batches.
void plots_build(app *a);
/// Does body b have a line in the V/V0 plot (pressure false) or in the
/// pressure plot (true)? A cloth has no volume, a body without gas no pressure.
bool plots_has_line(const app *a, int b, bool pressure);
/// Is body b's line dashed (a ring's) rather than solid (a 3D body's)?
bool plots_dashed(const app *a, int b);
/// A sample of body b's line from x0 to x1 at height y (pixels), in color.
void plots_swatch(app *a, int b, float x0, float x1, float y, rgba color);

#endif
