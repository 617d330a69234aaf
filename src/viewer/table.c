// The body table, at the right of the bottom strip: a row per body with a
// sample of its line in the plots (so that the table is the plots' legend
// too), its name in its colour (a long one shortened in the middle; the
// cursor on it shows it whole), volume, V/V0, pressure, energy, shape
// matching and pinned points. Rows that do not fit the strip are counted
// in one last row.
#include "app.h"

#include <math.h>
#include <string.h>

enum { TEXT_MAX = 512 };

// The columns' left edges in character cells of 6 px at scale 1 from the
// table's content edge (the swatch first); the last is its right edge.
enum { COLUMNS = 8 };
static const float col[COLUMNS + 1] = {0.0f, 3.5f, 20.0f, 32.0f, 38.5f, 49.5f, 58.5f, 70.0f, 74.0f};
static const char *const heads[COLUMNS] = {"", "body", "V", "V/V0", "P", "E (J)", "shape", "pins"};

#define LINE 12.0f
#define CELL 6.0f

float table_width(float s) {
    return (col[COLUMNS] + 2.0f) * CELL * s;
}

// The content's top left and the rows that fit (a heading and body rows).
static void table_frame(const app *a, float *x, float *y, int *rows) {
    const float s = a->ui_scale, pad = CELL * s;
    const rect r = a->table_rect;
    *x = r.x + pad;
    *y = r.y + 0.5f * pad;
    const int fit = (int)floorf((r.h - pad) / a->line_h) - 1;
    *rows = fit < 0 ? 0 : fit;
}

float ui_table_name(const app *a, int b, char *out, size_t size) {
    const float s = a->ui_scale, cw = CELL * s;
    // The name column, less one cell of space before the next.
    const float max_w = (col[2] - col[1] - 1.0f) * cw;
    ui_text_elide(a, a->scene.bodies[b].label, s, max_w, out, size);
    return max_w;
}

// The row body b is shown on (1: the first under the heading), or 0 when
// the table has no room for it.
static int row_of(const app *a, int b, int rows) {
    const int count = a->scene.body_count;
    // With too few rows the last one says how many are left out.
    const int shown = count <= rows ? count : rows - 1;
    return b < shown ? b + 1 : 0;
}

rect table_name_rect(const app *a, int b) {
    float x, y;
    int rows;
    table_frame(a, &x, &y, &rows);
    const int row = b >= 0 && b < a->scene.body_count ? row_of(a, b, rows) : 0;
    if (row == 0) {
        return (rect){0.0f, 0.0f, 0.0f, 0.0f};
    }
    const float cw = CELL * a->ui_scale;
    return (rect){x + col[1] * cw, y + (float)row * a->line_h, (col[2] - col[1] - 1.0f) * cw,
                  a->line_h};
}

static const char *pressure_unit(const app *a, int b) {
    return a->vertex_base[b] < 0 ? "N/m" : "Pa";
}

// The columns that fit the table's width (a narrow window loses the last ones).
static int columns_shown(const app *a) {
    const float cw = CELL * a->ui_scale;
    int n = COLUMNS;
    while (n > 2 && (col[n] + 1.0f) * cw > a->table_rect.w + 0.5f) {
        n--;
    }
    return n;
}

// One body's figures from column 2 on, at height y; the first `shown` columns.
static void body_figures(app *a, int b, float x, float y, int shown) {
    const float s = a->ui_scale, cw = CELL * s;
    const psb_body_state *st = &a->state[b];
    const psb_body_params *m = psb_body_get_params(a->scene.world, b);
    char t[TEXT_MAX];
    if (psb_body_get_kind(a->scene.world, b) == PSB_CLOTH) {
        ui_text(a, x + col[2] * cw, y, s, ui_dim, shown > 4 ? "cloth: no gas" : "cloth");
    } else {
        snprintf(t, sizeof t, "%.4g %s", st->volume, a->vertex_base[b] < 0 ? "m^2" : "m^3");
        ui_text(a, x + col[2] * cw, y, s, ui_white, t);
        snprintf(t, sizeof t, "%.3f", st->rest_volume > 0.0 ? st->volume / st->rest_volume : 0.0);
        if (shown > 3) {
            ui_text(a, x + col[3] * cw, y, s, ui_white, t);
        }
        snprintf(t, sizeof t, "%.4g %s", st->pressure, pressure_unit(a, b));
        if (shown > 4) {
            ui_text(a, x + col[4] * cw, y, s, ui_white, t);
        }
    }
    // Rounding leaves crumbs like 1e-26 J where the energy is 0.
    snprintf(t, sizeof t, "%.4g", fabs(st->energy) < 1e-9 ? 0.0 : st->energy);
    if (shown > 5) {
        ui_text(a, x + col[5] * cw, y, s, ui_white, t);
    }
    if (shown > 6 && (m->shape_k > 0.0 || m->shape_damping > 0.0)) {
        snprintf(t, sizeof t, "%.3g N/m %.3g/s", m->shape_k, m->shape_damping);
        ui_text(a, x + col[6] * cw, y, s, ui_white, t);
    } else if (shown > 6) {
        ui_text(a, x + col[6] * cw, y, s, ui_dim, "off");
    }
    snprintf(t, sizeof t, "%d", st->pinned);
    if (shown > 7) {
        ui_text(a, x + col[7] * cw, y, s, st->pinned > 0 ? ui_white : ui_dim, t);
    }
}

void table_build(app *a) {
    const float s = a->ui_scale, cw = CELL * s, lh = a->line_h;
    float x, y0;
    int rows;
    table_frame(a, &x, &y0, &rows);
    // The row whose shortened name is under the cursor, if any.
    const float cx = (float)(a->win_w > 0 ? a->cursor_x * a->fb_w / a->win_w : a->cursor_x);
    const float cy = (float)(a->win_h > 0 ? a->cursor_y * a->fb_h / a->win_h : a->cursor_y);
    a->tooltip_body = -1;
    a->legend_count = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (plots_has_line(a, b, false)) {
            a->legend_body[a->legend_count++] = b;
        }
    }
    if (rows < 1 || a->table_rect.w < col[2] * cw) {
        a->text_cut += a->scene.body_count > 0;
        return;
    }
    const int shown = columns_shown(a);
    a->text_cut += shown < COLUMNS;
    for (int c = 1; c < shown; c++) {
        ui_text(a, x + col[c] * cw, y0, s, ui_dim, heads[c]);
    }
    for (int b = 0; b < a->scene.body_count; b++) {
        const int row = row_of(a, b, rows);
        if (row == 0) {
            continue;
        }
        const float y = y0 + (float)row * lh;
        const float *c = a->scene.bodies[b].color;
        const rgba bc = rgba_f(c[0], c[1], c[2], 1.0f);
        if (plots_has_line(a, b, false)) {
            plots_swatch(a, b, x, x + (col[1] - 0.7f) * cw, y + 4.0f * s, bc);
        }
        char t[TEXT_MAX];
        const rect name = table_name_rect(a, b);
        ui_table_name(a, b, t, sizeof t);
        ui_text(a, name.x, y, s, bc, t);
        if (strcmp(t, a->scene.bodies[b].label) != 0 && cx >= name.x && cx < name.x + name.w &&
            cy >= y && cy < y + lh) {
            a->tooltip_body = b;
        }
        body_figures(a, b, x, y, shown);
    }
    if (a->scene.body_count > rows) {
        char t[64];
        const int left_out = a->scene.body_count - (rows - 1);
        snprintf(t, sizeof t, "... %d more bod%s (--report lists all)", left_out,
                 left_out == 1 ? "y" : "ies");
        ui_text(a, x + col[1] * cw, y0 + (float)rows * lh, s, ui_dim, t);
        a->text_cut++;
    }
}

void table_tooltip(app *a) {
    const int b = a->tooltip_body;
    if (b < 0) {
        return;
    }
    const float s = a->ui_scale, pad = CELL * s;
    const rect r = table_name_rect(a, b);
    const char *name = a->scene.bodies[b].label;
    const float w = ui_text_width(a, name, s);
    // Within the window: a long name at the table's right edge moves left.
    const float x = fminf(r.x, (float)a->fb_w - w - pad);
    const rgba back = rgba_f(0.04f, 0.045f, 0.055f, 1.0f);
    batch_rect(&a->ui_back, x - 0.5f * pad, r.y - 0.25f * pad, x + w + 0.5f * pad,
               r.y + r.h - 0.25f * pad, back, back);
    const float *c = a->scene.bodies[b].color;
    ui_text(a, x, r.y, s, rgba_f(c[0], c[1], c[2], 1.0f), name);
}
