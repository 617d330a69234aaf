// Live plots under the views: V/V0 and pressure over the last 10 s of
// simulated time, the newest sample at the right edge ("now"): the ring and
// the 3D bodies on shared axes (pressure on a log axis, since a ring's N/m
// and a shell's Pa differ by orders of magnitude). Each body's line is
// drawn in its own colour, dashed for a 2D body and solid for a 3D one;
// the body table beside the plots (table.c) is their legend.
#include "plots.h"

#include "text.h"

#include <math.h>

#define WINDOW_S 10.0f
// A 2D body's dashes: DASH_ON of every DASH_PERIOD pixels drawn (at scale 1).
#define DASH_PERIOD 9.0f
#define DASH_ON     5.5f

void plots_clear(plot_history *p) {
    p->head = 0;
    p->count = 0;
    p->ratio_lo = p->ratio_hi = 0.0f;
    p->log_p_lo = p->log_p_hi = 0.0f;
}

void plots_sample(app *a) {
    plot_history *p = &a->plots;
    const psb_world *w = a->scene.world;
    for (int b = 0; b < a->scene.body_count; b++) {
        const psb_body_state s = psb_body_measure(w, b);
        a->state[b] = s;
        p->ratio[b][p->head] = s.rest_volume > 0.0 ? (float)(s.volume / s.rest_volume) : 0.0f;
        p->pressure[b][p->head] = (float)s.pressure;
    }
    p->time[p->head] = (float)psb_world_time(w);
    p->head = (p->head + 1) % PLOT_SAMPLES;
    if (p->count < PLOT_SAMPLES) {
        p->count++;
    }
}

// Sample k of the history, oldest first.
static int slot(const plot_history *p, int k) {
    return (p->head - p->count + k + PLOT_SAMPLES) % PLOT_SAMPLES;
}

// A round tick step (1, 2 or 5 times a power of ten) giving about `ticks` ticks.
static float nice_step(float range, int ticks) {
    const float raw = range / (float)ticks;
    const float mag = powf(10.0f, floorf(log10f(raw)));
    const float f = raw / mag;
    return (f < 1.5f ? 1.0f : f < 3.5f ? 2.0f : f < 7.5f ? 5.0f : 10.0f) * mag;
}

// Moves an axis end toward the data: out at once, in slowly.
static void ease(float *lo, float *hi, float data_lo, float data_hi, bool first) {
    if (first || *hi <= *lo) {
        *lo = data_lo;
        *hi = data_hi;
        return;
    }
    *lo = data_lo < *lo ? data_lo : *lo + 0.03f * (data_lo - *lo);
    *hi = data_hi > *hi ? data_hi : *hi + 0.03f * (data_hi - *hi);
}

typedef struct plot_area {
    float x, y, w, h; // the data area, pixels
    float t_end;      // time at the right edge, s
} plot_area;

static float px_of_time(const plot_area *pa, float t) {
    return pa->x + (t - (pa->t_end - WINDOW_S)) / WINDOW_S * pa->w;
}

// Bodies with a volume (a cloth has none), and for the pressure plot, with
// gas (a shape-matched body without gas has no pressure to plot).
bool plots_has_line(const app *a, int b, bool pressure) {
    return a->scene.bodies[b].rest_volume > 0.0 && (!pressure || a->scene.bodies[b].gas_nrt > 0.0);
}

bool plots_dashed(const app *a, int b) {
    return psb_body_get_kind(a->scene.world, b) == PSB_RING;
}

// Curves of one quantity for every body between lo and hi (log10 for pressure).
static void curves(app *a, const plot_area *pa, bool log_axis, float lo, float hi) {
    const plot_history *p = &a->plots;
    // Doubled lines (2 px) only where pixels are small; each line costs on a CPU renderer.
    const float thick = a->ui_scale >= 2.0f ? 1.0f : 0.0f;
    // Dashes tied to simulated time, so that they move with the curve.
    const float period_s = DASH_PERIOD * a->ui_scale * WINDOW_S / fmaxf(pa->w, 1.0f);
    for (int b = 0; b < a->scene.body_count; b++) {
        if (!plots_has_line(a, b, log_axis)) {
            continue;
        }
        const float *c = a->scene.bodies[b].color;
        const rgba color = rgba_f(c[0], c[1], c[2], 1.0f);
        const float *data = log_axis ? p->pressure[b] : p->ratio[b];
        const bool dash = plots_dashed(a, b);
        float t0 = 0.0f;
        float px0 = 0.0f, py0 = 0.0f;
        bool have = false;
        for (int k = 0; k < p->count; k++) {
            const int i = slot(p, k);
            if (p->time[i] < pa->t_end - WINDOW_S) {
                continue;
            }
            float v = data[i];
            v = log_axis ? log10f(fmaxf(v, 1e-6f)) : v;
            if (!isfinite(v)) {
                have = false;
                continue;
            }
            const float f = (v - lo) / (hi - lo);
            const float px = px_of_time(pa, p->time[i]);
            const float py = pa->y + pa->h * (1.0f - fminf(fmaxf(f, 0.0f), 1.0f));
            const float t_mid = 0.5f * (t0 + p->time[i]);
            const bool on = !dash || fmodf(t_mid, period_s) < DASH_ON / DASH_PERIOD * period_s;
            if (have && on) {
                batch_line(&a->ui_lines, px0, py0, 0, px, py, 0, color, color);
                if (thick > 0.0f) {
                    batch_line(&a->ui_lines, px0, py0 + thick, 0, px, py + thick, 0, color, color);
                }
            }
            px0 = px;
            py0 = py;
            t0 = p->time[i];
            have = true;
        }
    }
}

static void frame_and_time_axis(app *a, const plot_area *pa) {
    const rgba axis = rgba_f(1.0f, 1.0f, 1.0f, 0.35f), grid = rgba_f(1.0f, 1.0f, 1.0f, 0.08f);
    const float s = a->ui_scale;
    batch_line(&a->ui_lines, pa->x, pa->y + pa->h, 0, pa->x + pa->w, pa->y + pa->h, 0, axis, axis);
    batch_line(&a->ui_lines, pa->x, pa->y, 0, pa->x, pa->y + pa->h, 0, axis, axis);
    // A grid line every 2 s; a label on every one, or only on the two ends
    // (-10 s and now) where the plot is too narrow for them all.
    const float label_w = ui_text_width(a, "-10 s", s) + 6.0f * s;
    const int every = pa->w / 5.0f >= label_w ? 1 : 5;
    for (int k = 0; k <= 5; k++) {
        const float x = pa->x + pa->w * (float)k / 5.0f;
        batch_line(&a->ui_lines, x, pa->y, 0, x, pa->y + pa->h, 0, grid, grid);
        if (k % every != 0 && k != 5) {
            continue;
        }
        char t[32];
        snprintf(t, sizeof t, k == 5 ? "now" : "-%g s", WINDOW_S - 2.0f * (float)k);
        ui_text(a, x - 0.5f * ui_text_width(a, t, s), pa->y + pa->h + 3.0f * s, s, ui_dim, t);
    }
}

static void y_label(app *a, const plot_area *pa, float f, const char *text, bool major) {
    const rgba grid = rgba_f(1.0f, 1.0f, 1.0f, major ? 0.10f : 0.045f);
    const float y = pa->y + pa->h * (1.0f - f);
    batch_line(&a->ui_lines, pa->x, y, 0, pa->x + pa->w, y, 0, grid, grid);
    if (text) {
        const float s = a->ui_scale;
        ui_text(a, pa->x - ui_text_width(a, text, s) - 4.0f * s, y - 4.0f * s, s, ui_dim, text);
    }
}

// The range of the visible samples of one quantity (log10 for pressure).
static bool data_range(const app *a, float t_end, bool log_axis, float *lo, float *hi) {
    const plot_history *p = &a->plots;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (!plots_has_line(a, b, log_axis)) {
            continue;
        }
        const float *data = log_axis ? p->pressure[b] : p->ratio[b];
        for (int k = 0; k < p->count; k++) {
            const int i = slot(p, k);
            if (p->time[i] < t_end - WINDOW_S) {
                continue;
            }
            const float v = log_axis ? log10f(fmaxf(data[i], 1e-6f)) : data[i];
            if (isfinite(v)) {
                *lo = fminf(*lo, v);
                *hi = fmaxf(*hi, v);
            }
        }
    }
    return *lo <= *hi;
}

static void ratio_plot(app *a, const plot_area *pa, bool first) {
    plot_history *p = &a->plots;
    float lo = 0.9f, hi = 1.1f;
    if (data_range(a, pa->t_end, false, &lo, &hi)) {
        lo = fminf(lo, 1.0f);
        hi = fmaxf(hi, 1.0f);
        const float pad = fmaxf(0.08f * (hi - lo), 0.02f);
        lo -= pad;
        hi += pad;
    }
    ease(&p->ratio_lo, &p->ratio_hi, lo, hi, first);
    lo = p->ratio_lo;
    hi = p->ratio_hi;
    const float step = nice_step(hi - lo, 4);
    for (float v = ceilf(lo / step) * step; v <= hi; v += step) {
        char t[32];
        snprintf(t, sizeof t, "%.3g", fabsf(v) < 1e-6f ? 0.0f : v);
        y_label(a, pa, (v - lo) / (hi - lo), t, true);
    }
    const rgba one = rgba_f(1.0f, 1.0f, 1.0f, 0.3f);
    const float y1 = pa->y + pa->h * (1.0f - (1.0f - lo) / (hi - lo));
    batch_line(&a->ui_lines, pa->x, y1, 0, pa->x + pa->w, y1, 0, one, one);
    curves(a, pa, false, lo, hi);
}

static void pressure_plot(app *a, const plot_area *pa, bool first) {
    plot_history *p = &a->plots;
    float lo = 0.0f, hi = 3.0f;
    if (data_range(a, pa->t_end, true, &lo, &hi)) {
        lo = floorf(lo * 2.0f - 0.1f) / 2.0f;
        hi = ceilf(hi * 2.0f + 0.1f) / 2.0f;
    }
    ease(&p->log_p_lo, &p->log_p_hi, lo, hi, first);
    lo = p->log_p_lo;
    hi = p->log_p_hi;
    // Ticks at 1, 2 and 5 times each power of ten; labels where there is room.
    const bool label_minor = hi - lo <= 2.5f;
    for (float d = floorf(lo); d <= ceilf(hi); d += 1.0f) {
        static const float mult[3] = {1.0f, 2.0f, 5.0f};
        for (int m = 0; m < 3; m++) {
            const float v = d + log10f(mult[m]);
            if (v < lo - 1e-4f || v > hi + 1e-4f) {
                continue;
            }
            char t[32];
            snprintf(t, sizeof t, "%g", mult[m] * powf(10.0f, d));
            y_label(a, pa, (v - lo) / (hi - lo), m == 0 || label_minor ? t : NULL, m == 0);
        }
    }
    curves(a, pa, true, lo, hi);
}

void plots_swatch(app *a, int b, float x0, float x1, float y, rgba color) {
    const float s = a->ui_scale;
    const bool dash = plots_dashed(a, b);
    const float period = dash ? DASH_PERIOD * s : x1 - x0;
    const float on = dash ? DASH_ON * s : x1 - x0;
    // Two pixels thick at least.
    for (float x = x0; x < x1; x += period) {
        const float e = fminf(x + on, x1);
        batch_rect(&a->ui_back, x, y - 0.5f * s, e, y + fmaxf(1.5f * s, 2.0f) - 0.5f * s, color,
                   color);
    }
}

void plots_build(app *a) {
    const plot_history *p = &a->plots;
    const float s = a->ui_scale, lh = a->line_h;
    const rect r = a->plot_rect;
    a->plot_area[0] = a->plot_area[1] = (rect){0.0f, 0.0f, 0.0f, 0.0f};
    if (r.h < 4.0f * lh || r.w < 200.0f) {
        return;
    }
    // The right edge is now: the newest sample, labelled "now", the left
    // edge WINDOW_S before it (empty until the run is that long).
    const float t_end = p->count > 0 ? p->time[slot(p, p->count - 1)] : 0.0f;
    const float left_margin = 6.0f * 6.0f * s, top = 1.6f * lh, bottom = 1.6f * lh;
    const float half = 0.5f * r.w, gap = 3.0f * 6.0f * s;
    plot_area areas[2];
    for (int k = 0; k < 2; k++) {
        const float x0 = r.x + (float)k * half;
        areas[k] = (plot_area){x0 + left_margin, r.y + top, half - left_margin - gap,
                               r.h - top - bottom, t_end};
        frame_and_time_axis(a, &areas[k]);
        a->plot_area[k] = (rect){areas[k].x, areas[k].y, areas[k].w, areas[k].h};
    }
    a->plot_t_end = t_end;
    a->plot_newest_x = p->count > 0 ? px_of_time(&areas[0], p->time[slot(p, p->count - 1)]) : NAN;
    const bool first = p->ratio_hi <= p->ratio_lo;
    ratio_plot(a, &areas[0], first);
    pressure_plot(a, &areas[1], first);

    // The titles; the body table at the right is the legend.
    bool has_2d = false, has_3d = false;
    for (int b = 0; b < a->scene.body_count; b++) {
        has_2d = has_2d || (plots_has_line(a, b, false) && plots_dashed(a, b));
        has_3d = has_3d || (plots_has_line(a, b, false) && !plots_dashed(a, b));
    }
    // The longest of each title that fits.
    static const char *const ratio_titles[2] = {"V/V0   2D dashed, 3D solid", "V/V0"};
    const char *pressure_titles[3] = {"pressure, log scale (3D: Pa, 2D: N/m)",
                                      "pressure, log (Pa; 2D: N/m)", "pressure"};
    if (!has_2d) {
        pressure_titles[0] = pressure_titles[1] = "pressure, log scale (Pa)";
    } else if (!has_3d) {
        pressure_titles[0] = pressure_titles[1] = "pressure, log scale (N/m)";
    }
    const float y = r.y + 0.4f * lh;
    for (int k = has_2d && has_3d ? 0 : 1; k < 2; k++) {
        if (k == 1 || ui_text_width(a, ratio_titles[k], s) <= areas[0].w) {
            ui_text(a, areas[0].x, y, s, ui_white, ratio_titles[k]);
            break;
        }
    }
    for (int k = 0; k < 3; k++) {
        if (k == 2 || ui_text_width(a, pressure_titles[k], s) <= areas[1].w) {
            ui_text(a, areas[1].x, y, s, ui_white, pressure_titles[k]);
            break;
        }
    }
}
