// What the viewer writes: screenshots, --stats and --report. Called by the
// loop (app.c).
#ifndef PSB_VIEWER_OUTPUT_H
#define PSB_VIEWER_OUTPUT_H

#include "viewer.h"

/// Writes the current frame (back buffer) to a PNG file; false on failure.
bool output_screenshot(app *a, const char *path);
/// Keeps the time the last frame took, ms, for --stats.
void output_record_frame(app *a, double ms);
/// --stats: frames mean_ms p99_ms max_ms fps size msaa, one line.
void output_stats(const app *a, FILE *out);
/// --report: key=value lines about the camera, the grab, the layout and the bodies.
void output_report(const app *a, FILE *out);

#endif
