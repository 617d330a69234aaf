// The parameter panel: a column at the right of the views (layout.c gives
// it its own rectangle, so it never covers a view or a strip) that lists
// the controls (controls.c) with their values and units, each on two
// lines:
//
//   stiffness ks        [   200 N/m ]     label, value field
//   [======o--------------]  reset        slider, reset (when changed)
//
// A press on a slider sets the value under the cursor and follows the
// drag (log or linear, as the core's table says); a drag on a value field
// changes it at the slider's rate, past the slider's span too; a click on
// a field types a value (Enter applies, Esc cancels, and so does Enter
// with nothing typed; a value out of range, or too long to keep, is
// refused and the range shown). "reset" puts a row back to its
// default, "reset all" every row. Where the column is short the rows lose
// their sliders (one line each: the fields still drag and type).
#include "panel.h"

#include "controls.h"
#include "layout.h"
#include "stage.h"
#include "status.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Sizes in character cells (6 px at scale 1) and lines.
#define CELL            6.0f
#define FIELD_CELLS     16.0f // the value field
#define RESET_CELLS     6.0f  // a row's reset button, with its gap
#define HEADING_LINES   1.5f  // the heading, with the room under it
#define ROW_LINES       1.9f  // a row with its slider
#define SHORT_ROW_LINES 1.1f
#define NOTE_MIN_LINES  1.0f  // the note under the rows needs this much room at least
#define FIELD_TOP       0.15f // a field (and its row's band) starts this far above the row's text
// A value drag moves this far, framebuffer pixels, before it counts as one.
#define DRAG_SLOP 3.0
// Values from the slider or a drag keep this many significant digits.
#define DRAG_DIGITS 3

static const rgba field_back = {28, 31, 38, 255};
static const rgba field_hover = {40, 44, 54, 255};
static const rgba row_hover = {16, 18, 23, 255};
static const rgba track_color = {48, 53, 64, 255};
static const rgba fill_color = {82, 128, 194, 255};
static const rgba knob_color = {230, 232, 236, 255};
static const rgba accent = {217, 158, 64, 255};
static const rgba tick_color = {120, 126, 138, 255};
static const rgba button_back = {40, 44, 54, 255};
static const rgba select_back = {52, 84, 130, 255};

// Where the panel's parts are, framebuffer pixels.
typedef struct geometry {
    float x0, x1;    // the content's left and right edges
    float heading_y; // the heading's top
    float rows_y;    // the first row's top
    float row_h;     // a row's height
    float lh, cw, s; // line height, cell, text scale
    bool sliders;    // rows have their slider line
    int rows;        // rows that fit
    float note_y;    // the note's top
    int note_lines;  // and its lines
} geometry;

static geometry panel_geometry(const app *a) {
    const rect p = a->panel_rect;
    geometry g;
    g.s = a->ui_scale;
    g.lh = a->line_h;
    g.cw = CELL * g.s;
    const float pad = g.cw;
    g.x0 = p.x + pad;
    g.x1 = p.x + p.w - pad;
    g.heading_y = p.y + 0.5f * pad;
    g.rows_y = g.heading_y + HEADING_LINES * g.lh;
    const float room = p.y + p.h - 0.5f * pad - g.rows_y;
    g.sliders = room >= (CONTROL_COUNT * ROW_LINES + NOTE_MIN_LINES) * g.lh;
    g.row_h = (g.sliders ? ROW_LINES : SHORT_ROW_LINES) * g.lh;
    const int fit = (int)floorf(room / g.row_h);
    g.rows = p.w <= 0.0f || fit < 0 ? 0 : fit < CONTROL_COUNT ? fit : CONTROL_COUNT;
    g.note_y = g.rows_y + (float)g.rows * g.row_h + 0.3f * g.lh;
    const int lines = (int)floorf((p.y + p.h - 0.5f * pad - g.note_y) / g.lh);
    g.note_lines = g.rows < CONTROL_COUNT || lines < 0 ? 0 : lines;
    return g;
}

// The slider's track, from x0 to the reset button.
static float track_end(const geometry *g) {
    return g->x1 - RESET_CELLS * g->cw;
}

// Row `row`'s band, the panel's width: from its field's top to the next
// row's. The row's parts lie inside it, so no two rows' parts overlap; the
// cursor in it is on the row (hover and highlight alike).
static rect row_band(const app *a, const geometry *g, int row) {
    const float y = g->rows_y + (float)row * g->row_h;
    return (rect){a->panel_rect.x, y - FIELD_TOP * g->lh, a->panel_rect.w, g->row_h};
}

// Part `part` of row `row` (w = 0: not shown):
//
//   band top     +----------------------------------------------+ y - FIELD_TOP lh
//                | label                      [ value field  ] | y + (1 - FIELD_TOP) lh
//                | [ slider's line .......... ]        [reset] |
//   band bottom  +----------------------------------------------+ next row's field
static rect part_rect(const app *a, const geometry *g, int row, panel_part part) {
    const rect none = {0.0f, 0.0f, 0.0f, 0.0f};
    if (a->panel_rect.w <= 0.0f) {
        return none;
    }
    if (part == PART_RESET_ALL) {
        const float w = ui_text_width(a, "reset all", g->s) + g->cw;
        return (rect){g->x1 - w, g->heading_y - 0.15f * g->lh, w, g->lh};
    }
    if (row < 0 || row >= g->rows) {
        return none;
    }
    const rect band = row_band(a, g, row);
    const float under = band.y + g->lh, bottom = band.y + band.h; // the field's bottom, the band's
    switch (part) {
    case PART_VALUE:
        return (rect){g->x1 - FIELD_CELLS * g->cw, band.y, FIELD_CELLS * g->cw, g->lh};
    case PART_SLIDER:
        // The whole line under the field, so that the thin track is easy to hit.
        return g->sliders ? (rect){g->x0, under, track_end(g) - g->x0, bottom - under} : none;
    case PART_RESET: {
        // Only where it is drawn: beside a changed value, clear of the fields
        // above and below.
        const float w = (RESET_CELLS - 1.0f) * g->cw, gap = 0.1f * g->lh;
        const bool changed = control_value(a, (control)row) != control_default(a, (control)row);
        return g->sliders && changed
                   ? (rect){g->x1 - w, under + gap, w, bottom - under - 2.0f * gap}
                   : none;
    }
    default:
        return none;
    }
}

// The part under framebuffer pixel (fx, fy), and its row.
static panel_part hit(const app *a, const geometry *g, double fx, double fy, int *row) {
    *row = -1;
    if (rect_contains(part_rect(a, g, -1, PART_RESET_ALL), fx, fy)) {
        return PART_RESET_ALL;
    }
    for (int r = 0; r < g->rows; r++) {
        for (panel_part p = PART_VALUE; p <= PART_RESET; p++) {
            if (rect_contains(part_rect(a, g, r, p), fx, fy)) {
                *row = r;
                return p;
            }
        }
        if (rect_contains(row_band(a, g, r), fx, fy)) {
            *row = r; // on the row, between its parts
        }
    }
    return PART_NONE;
}

// ---- the slider's scale: t in [0, 1] across the track

static double slider_t(const app *a, control c, double v) {
    double lo, hi;
    control_span(a, c, &lo, &hi);
    if (control_param(c)->scale == PSB_SCALE_LOG && lo > 0.0) {
        // Evenly in the logarithm; 0 (where the range allows it) at the far left.
        return v <= 0.0 ? 0.0 : log(v / lo) / log(hi / lo);
    }
    return hi > lo ? (v - lo) / (hi - lo) : 0.0;
}

// The value at t (not clamped: a value drag goes past the span).
static double slider_value(const app *a, control c, double t) {
    const psb_param_info *info = control_param(c);
    double lo, hi;
    control_span(a, c, &lo, &hi);
    if (info->type == PSB_PARAM_CHOICE) {
        return fmin(fmax(round(lo + t * (hi - lo)), info->min), info->max);
    }
    if (info->scale == PSB_SCALE_LOG && lo > 0.0) {
        if (t <= 0.0 && info->min <= 0.0) {
            return 0.0;
        }
        return lo * pow(hi / lo, t);
    }
    return lo + t * (hi - lo);
}

// Sets control c to v from a drag, to DRAG_DIGITS significant digits (a
// drag gives 1.23e3, not 1234.567): silently nothing if v is not allowed
// (the drag stops at the last value that was).
static void drag_to(app *a, control c, double v) {
    if (control_param(c)->type != PSB_PARAM_CHOICE) {
        v = control_round(v, DRAG_DIGITS);
    }
    char why[MESSAGE_SIZE];
    if (v != control_value(a, c) && control_check(a, c, v, why, sizeof why)) {
        control_set(a, c, v, why, sizeof why);
        a->panel.note_bad = false;
    }
}

// ---- typing

static void edit_stop(app *a) {
    a->panel.edit_row = -1;
    a->panel.edit[0] = '\0';
    a->panel.edit_refused = false;
    a->panel.edit_overflow = false;
}

// Esc, or Enter with nothing to apply: the typing ends, the value as it was.
static void edit_cancel(app *a) {
    status_message(a, false, "%s: kept as it was", control_label((control)a->panel.edit_row));
    edit_stop(a);
}

static void edit_start(app *a, control c) {
    panel_state *p = &a->panel;
    p->edit_row = (int)c;
    p->edit_refused = false;
    p->edit_overflow = false;
    p->edit_fresh = true; // the first character typed replaces the whole value
    p->note_bad = false;
    const double v = control_value(a, c);
    if (c == CONTROL_INTEGRATOR) {
        snprintf(p->edit, sizeof p->edit, "%s", psb_integrator_name((psb_integrator)(int)v));
    } else {
        psb_param_format(v, p->edit, sizeof p->edit);
    }
}

// Reads the typed text as a value of control c: a number (a name, or its
// place in the list, for the integrator).
static bool parse(control c, const char *text, double *v) {
    while (*text == ' ') {
        text++;
    }
    char t[PANEL_EDIT_SIZE];
    snprintf(t, sizeof t, "%s", text);
    size_t n = strlen(t);
    while (n > 0 && t[n - 1] == ' ') {
        t[--n] = '\0';
    }
    psb_integrator named;
    if (c == CONTROL_INTEGRATOR && psb_integrator_parse(t, &named)) {
        *v = (double)named;
        return true;
    }
    char *end = NULL;
    *v = strtod(t, &end);
    return n > 0 && end == t + n;
}

// Is the text only spaces?
static bool blank(const char *text) {
    while (*text == ' ') {
        text++;
    }
    return *text == '\0';
}

// Enter: the typed value is set if allowed; else the field stays open, red,
// and the note shows the range. Nothing typed (the value as edit_start
// wrote it, rounded to 6 digits: not to be applied) or an emptied field:
// the typing ends, the value as it was.
static void edit_apply(app *a) {
    panel_state *p = &a->panel;
    const control c = (control)p->edit_row;
    if ((p->edit_fresh && !p->edit_refused) || blank(p->edit)) {
        edit_cancel(a);
        return;
    }
    char why[MESSAGE_SIZE], range[160];
    control_range_text(a, c, range, sizeof range);
    double v = 0.0;
    bool ok = false;
    if (p->edit_overflow) {
        // Its end was not kept: what is left is not what was typed.
        status_message(a, true, "%s: '%s...' is too long (%d characters at most); it may be %s",
                       control_label(c), p->edit, PANEL_EDIT_SIZE - 1, range);
    } else if (!parse(c, p->edit, &v)) {
        status_message(a, true, "%s: '%s' is not a %s; it may be %s", control_label(c), p->edit,
                       c == CONTROL_INTEGRATOR ? "name" : "number", range);
    } else {
        ok = control_set(a, c, v, why, sizeof why);
    }
    if (!ok) {
        p->refused++;
        p->edit_refused = true;
        p->edit_fresh = true;
        p->note_bad = true;
        snprintf(p->note, sizeof p->note, "refused '%s%s': %sit may be %s", p->edit,
                 p->edit_overflow ? "..." : "", p->edit_overflow ? "too long; " : "", range);
        return;
    }
    p->applied++;
    edit_stop(a);
}

bool panel_key(app *a, int key, int action) {
    panel_state *p = &a->panel;
    if (p->edit_row < 0) {
        return false;
    }
    if (action == GLFW_RELEASE) {
        return true;
    }
    switch (key) {
    case GLFW_KEY_ENTER:
    case GLFW_KEY_KP_ENTER:
        if (action == GLFW_PRESS) {
            edit_apply(a);
        }
        break;
    case GLFW_KEY_ESCAPE:
        edit_cancel(a);
        break;
    case GLFW_KEY_BACKSPACE: {
        const size_t n = strlen(p->edit);
        if (p->edit_fresh) {
            p->edit[0] = '\0';
        } else if (n > 0) {
            p->edit[n - 1] = '\0';
        }
        // Emptied: what overflowed went with it.
        p->edit_overflow = p->edit_overflow && p->edit[0] != '\0';
        p->edit_fresh = false;
        p->edit_refused = false;
        break;
    }
    default:
        break; // every other key is the typing's (E, R, Q do nothing meanwhile)
    }
    return true;
}

void panel_char(app *a, unsigned int codepoint) {
    panel_state *p = &a->panel;
    if (p->edit_row < 0 || codepoint < 32 || codepoint > 126) {
        return;
    }
    if (p->edit_fresh) {
        p->edit[0] = '\0';
        p->edit_fresh = false;
        p->edit_overflow = false;
    }
    const size_t n = strlen(p->edit);
    if (n + 1 < sizeof p->edit) {
        p->edit[n] = (char)codepoint;
        p->edit[n + 1] = '\0';
    } else {
        p->edit_overflow = true; // not kept: Enter refuses the shortened text
    }
    p->edit_refused = false;
}

// ---- the mouse

void panel_toggle(app *a) {
    panel_state *p = &a->panel;
    p->shown = !p->shown;
    edit_stop(a);
    p->drag_row = -1;
    if (a->drag == DRAG_PANEL) {
        a->drag = DRAG_NONE;
    }
    // The views change width: the 2D view is framed again for its new width
    // (the 3D view keeps its width of field, camera_fov), and where the
    // bodies were drawn is tracked afresh.
    stage_frame_2d(a);
    layout_forget_bodies(a);
    status_message(a, false, "parameter panel %s", p->shown ? "on (O: off)" : "off (O: on)");
}

static void slider_drag(app *a, const geometry *g, control c, double fx) {
    const float x0 = g->x0, x1 = track_end(g);
    const double t = fmin(fmax((fx - x0) / fmax(x1 - x0, 1.0), 0.0), 1.0);
    const double v = slider_value(a, c, t);
    drag_to(a, c, v);
}

bool panel_press(app *a, int button, double fx, double fy) {
    panel_state *p = &a->panel;
    if (!rect_contains(a->panel_rect, fx, fy)) {
        if (p->edit_row >= 0) {
            edit_stop(a); // a press elsewhere ends the typing, nothing applied
        }
        return false;
    }
    if (button != GLFW_MOUSE_BUTTON_LEFT) {
        return true;
    }
    const geometry g = panel_geometry(a);
    int row = -1;
    const panel_part part = hit(a, &g, fx, fy, &row);
    if (p->edit_row >= 0 && !(part == PART_VALUE && row == p->edit_row)) {
        edit_stop(a);
    }
    switch (part) {
    case PART_RESET_ALL:
        controls_reset(a);
        p->resets++;
        p->note_bad = false;
        break;
    case PART_RESET:
        control_reset(a, (control)row);
        p->resets++;
        p->note_bad = false;
        break;
    case PART_SLIDER:
        p->drag_row = row;
        p->drag_part = PART_SLIDER;
        a->drag = DRAG_PANEL;
        slider_drag(a, &g, (control)row, fx);
        break;
    case PART_VALUE:
        if (row != p->edit_row) {
            p->drag_row = row;
            p->drag_part = PART_VALUE;
            p->drag_x0 = fx;
            p->drag_t0 = slider_t(a, (control)row, control_value(a, (control)row));
            p->drag_moved = false;
            a->drag = DRAG_PANEL;
        }
        break;
    default:
        break;
    }
    return true;
}

void panel_drag(app *a, double fx, double fy) {
    (void)fy;
    panel_state *p = &a->panel;
    if (p->drag_row < 0 || a->panel_rect.w <= 0.0f) {
        return;
    }
    const geometry g = panel_geometry(a);
    const control c = (control)p->drag_row;
    if (p->drag_part == PART_SLIDER) {
        slider_drag(a, &g, c, fx);
        return;
    }
    p->drag_moved = p->drag_moved || fabs(fx - p->drag_x0) > DRAG_SLOP;
    if (p->drag_moved) {
        // At the slider's rate, from where the value was: past the ends too.
        const double width = fmax(track_end(&g) - g.x0, 1.0);
        const double v = slider_value(a, c, p->drag_t0 + (fx - p->drag_x0) / width);
        drag_to(a, c, v);
    }
}

void panel_release(app *a) {
    panel_state *p = &a->panel;
    if (p->drag_row >= 0 && p->drag_part == PART_VALUE && !p->drag_moved) {
        edit_start(a, (control)p->drag_row);
    }
    p->drag_row = -1;
}

void panel_cancel_drag(app *a) {
    a->panel.drag_row = -1;
}

bool panel_part_pos(app *a, int c, panel_part part, double fraction, double *x, double *y) {
    const geometry g = panel_geometry(a);
    const rect r = part_rect(a, &g, c, part);
    if (r.w <= 0.0f) {
        return false;
    }
    double fx = r.x + 0.5 * r.w, fy = r.y + 0.5 * r.h;
    if (part == PART_SLIDER) {
        fx = g.x0 + fraction * (track_end(&g) - g.x0);
    }
    *x = a->fb_w > 0 ? fx * a->win_w / a->fb_w : fx;
    *y = a->fb_h > 0 ? fy * a->win_h / a->fb_h : fy;
    return true;
}

// ---- drawing

static void box(app *a, rect r, rgba color) {
    batch_rect(&a->ui_back, r.x, r.y, r.x + r.w, r.y + r.h, color, color);
}

// A button: its text centred on a dark face, amber under the cursor.
static void button(app *a, rect r, const char *text, bool hover, bool lit) {
    const float s = a->ui_scale;
    box(a, r, button_back);
    const float w = ui_text_width(a, text, s);
    // A line's glyphs sit 0.15 of it below its top: centred in r.h.
    ui_text(a, r.x + 0.5f * (r.w - w), r.y + 0.5f * (r.h - a->line_h) + 0.15f * a->line_h, s,
            hover ? accent
            : lit ? ui_white
                  : ui_dim,
            text);
}

// The slider of control c across its line r (its part's rectangle): a track
// filled up to the knob, a tick at the default (the integrator: a tick at
// each choice); all inside r, clear of the next row.
static void slider(app *a, const geometry *g, control c, rect r, bool hot) {
    const psb_param_info *info = control_param(c);
    const float x0 = g->x0, x1 = track_end(g), yc = r.y + 0.5f * r.h;
    const float half = 0.14f * g->lh, knob_w = fmaxf(0.7f * g->cw, 3.0f);
    box(a, (rect){x0, yc - half, x1 - x0, 2.0f * half}, track_color);
    const double t = slider_t(a, c, control_value(a, c));
    const float kx = x0 + (float)fmin(fmax(t, 0.0), 1.0) * (x1 - x0);
    if (info->type == PSB_PARAM_CHOICE) {
        for (int k = (int)info->min; k <= (int)info->max; k++) {
            const float tx = x0 + (float)slider_t(a, c, k) * (x1 - x0);
            box(a, (rect){tx - 0.5f * g->s, yc - 2.0f * half, g->s, 4.0f * half}, tick_color);
        }
    } else {
        box(a, (rect){x0, yc - half, kx - x0, 2.0f * half}, fill_color);
        const double td = slider_t(a, c, control_default(a, c));
        const float dx = x0 + (float)fmin(fmax(td, 0.0), 1.0) * (x1 - x0);
        box(a, (rect){dx - 0.5f * g->s, yc - 2.5f * half, g->s, 5.0f * half}, tick_color);
    }
    // Beyond the span (a typed value): the knob at the end, amber.
    const bool beyond = t < -1e-9 || t > 1.0 + 1e-9;
    box(a, (rect){kx - 0.5f * knob_w, yc - 0.4f * r.h, knob_w, 0.8f * r.h},
        hot || beyond ? accent : knob_color);
}

// The value's field: the value right-aligned, or the text being typed
// (selected until the first character replaces it) with a caret.
static void field(app *a, const geometry *g, control c, rect r, bool hover) {
    const panel_state *p = &a->panel;
    const float s = g->s, inner = r.w - g->cw;
    char t[64], fit[64];
    const bool editing = p->edit_row == (int)c;
    if (editing) {
        const bool bad = p->edit_refused || p->edit_overflow; // red: Enter refuses it
        const rgba edge = bad ? ui_bad : accent;
        box(a, (rect){r.x - g->s, r.y - g->s, r.w + 2.0f * g->s, r.h + 2.0f * g->s}, edge);
        box(a, r, ui_panel);
        snprintf(t, sizeof t, "%s%s", p->edit, p->edit_fresh ? "" : "_");
        a->text_cut += ui_text_elide(a, t, s, inner, fit, sizeof fit);
        const float w = ui_text_width(a, fit, s);
        // Selected (the next character replaces it), unless just refused:
        // then red on the field's black, easier to read.
        if (p->edit_fresh && p->edit[0] && !p->edit_refused) {
            box(a,
                (rect){r.x + 0.5f * g->cw - g->s, r.y + 0.1f * g->lh, w + 2.0f * g->s,
                       0.8f * g->lh},
                select_back);
        }
        ui_text(a, r.x + 0.5f * g->cw, r.y + 0.15f * g->lh, s, bad ? ui_bad : ui_white, fit);
        snprintf(a->panel.shown_text[c], sizeof a->panel.shown_text[c], "%s", p->edit);
        return;
    }
    box(a, r, hover ? field_hover : field_back);
    control_format(a, c, control_value(a, c), t, sizeof t);
    snprintf(a->panel.shown_text[c], sizeof a->panel.shown_text[c], "%s", t);
    a->text_cut += ui_text_elide(a, t, s, inner, fit, sizeof fit);
    const bool off = c == CONTROL_GRAVITY && !a->gravity_on;
    const float w = ui_text_width(a, fit, s);
    ui_text(a, r.x + r.w - 0.5f * g->cw - w, r.y + 0.15f * g->lh, s, off ? ui_dim : ui_white, fit);
}

// The note under the rows: the range while typing (red after a refusal),
// else a refusal's reason, else what the row under the cursor does, else
// how to use the panel.
static void note(app *a, const geometry *g, int hover_row) {
    const panel_state *p = &a->panel;
    if (g->note_lines < 1) {
        return;
    }
    box(a, (rect){g->x0, g->note_y - 0.2f * g->lh, g->x1 - g->x0, fmaxf(1.0f, roundf(g->s))},
        button_back);
    char t[MESSAGE_SIZE];
    rgba color = ui_dim;
    if (p->edit_row >= 0 && p->edit_overflow && !p->edit_refused) {
        snprintf(t, sizeof t, "too long: %d characters at most (Esc: cancel)", PANEL_EDIT_SIZE - 1);
        color = ui_bad;
    } else if (p->edit_row >= 0 && !p->edit_refused) {
        char range[160];
        control_range_text(a, (control)p->edit_row, range, sizeof range);
        snprintf(t, sizeof t, "Enter: apply, Esc: cancel\n%s", range);
        color = ui_white;
    } else if (p->note_bad) {
        snprintf(t, sizeof t, "%s", p->note);
        color = ui_bad;
    } else if (hover_row >= 0) {
        const control c = (control)hover_row;
        char help[200];
        control_ascii(c == CONTROL_GAS ? "multiplies each body's own gas amount nRT"
                                       : control_param(c)->help,
                      help, sizeof help);
        char bodies[96];
        control_bodies_text(a, c, bodies, sizeof bodies);
        snprintf(t, sizeof t, "%s%s%s%s", help, c == CONTROL_GRAVITY ? " (G: on / off)" : "",
                 bodies[0] ? "\n" : "", bodies);
    } else {
        snprintf(t, sizeof t, "Drag a slider or a value; click a value to type one.");
    }
    ui_wrap(a, g->x0, g->note_y, g->s, color, t, g->x1 - g->x0, g->note_lines, true);
}

void panel_build(app *a) {
    panel_state *p = &a->panel;
    if (a->panel_rect.w <= 0.0f) {
        p->hover_row = -1;
        p->hover_part = PART_NONE;
        return;
    }
    const geometry g = panel_geometry(a);
    const float s = g.s;
    const double cx = a->win_w > 0 ? a->cursor_x * a->fb_w / a->win_w : a->cursor_x;
    const double cy = a->win_h > 0 ? a->cursor_y * a->fb_h / a->win_h : a->cursor_y;
    p->hover_part = hit(a, &g, cx, cy, &p->hover_row);
    if ((a->drag != DRAG_NONE && a->drag != DRAG_PANEL) || a->help) {
        p->hover_row = -1; // a drag from a view passes over the panel; the help covers it
        p->hover_part = PART_NONE;
    }
    if (a->panel_rect.h < g.lh + g.cw) {
        a->text_cut++;
        return;
    }
    ui_text(a, g.x0, g.heading_y, s, ui_warn, "PARAMETERS");
    bool changed = false;
    for (int c = 0; c < CONTROL_COUNT; c++) {
        changed = changed || control_value(a, (control)c) != control_default(a, (control)c);
    }
    button(a, part_rect(a, &g, -1, PART_RESET_ALL), "reset all", p->hover_part == PART_RESET_ALL,
           changed);
    for (int r = 0; r < g.rows; r++) {
        const control c = (control)r;
        const float y = g.rows_y + (float)r * g.row_h;
        const bool hot = p->drag_row == r || (p->drag_row < 0 && p->hover_row == r);
        if (hot) {
            box(a, row_band(a, &g, r), row_hover);
        }
        const rect value = part_rect(a, &g, r, PART_VALUE);
        const bool off = c == CONTROL_GRAVITY && !a->gravity_on;
        char label[64], fit[64];
        snprintf(label, sizeof label, "%s%s", control_label(c), off ? " off" : "");
        a->text_cut += ui_text_elide(a, label, s, value.x - g.x0 - 0.5f * g.cw, fit, sizeof fit);
        ui_text(a, g.x0, y, s, off ? ui_warn : hot ? ui_white : ui_dim, fit);
        field(a, &g, c, value, p->hover_row == r && p->hover_part == PART_VALUE);
        if (g.sliders) {
            slider(a, &g, c, part_rect(a, &g, r, PART_SLIDER),
                   p->drag_row == r && p->drag_part == PART_SLIDER);
        }
        const rect reset = part_rect(a, &g, r, PART_RESET); // w = 0: the value is the default
        if (reset.w > 0.0f) {
            button(a, reset, "reset", p->hover_row == r && p->hover_part == PART_RESET, true);
        }
    }
    a->text_cut += g.rows < CONTROL_COUNT;
    note(a, &g, p->hover_row);
}

void panel_report(const app *a, FILE *out) {
    const panel_state *p = &a->panel;
    const rect r = a->panel_rect;
    fprintf(out, "panel=%.0f,%.0f,%.0f,%.0f\npanel_shown=%d\n", r.x, r.y, r.w, r.h, p->shown);
    for (int c = 0; c < CONTROL_COUNT; c++) {
        const double v = control_value(a, (control)c);
        if (c == CONTROL_INTEGRATOR) {
            fprintf(out, "param_%s=%s\n", control_name(c), psb_integrator_name((psb_integrator)v));
        } else {
            fprintf(out, "param_%s=%.9g\n", control_name(c), v);
        }
        fprintf(out, "panel_shows_%s=%s\n", control_name(c), p->shown ? p->shown_text[c] : "");
    }
    fprintf(out, "panel_edit=%s\npanel_edit_text=%s\n",
            p->edit_row >= 0 ? control_name(p->edit_row) : "", p->edit);
    fprintf(out, "panel_applied=%d\npanel_refused=%d\npanel_resets=%d\n", p->applied, p->refused,
            p->resets);
    fprintf(out, "panel_note=%s\n", p->note_bad ? p->note : "");
}
