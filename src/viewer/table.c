// The body table, at the right of the bottom strip: a row per body with a
// sample of its line in the plots (so that the table is the plots' legend
// too), its name in its colour (a long one shortened in the middle; the
// cursor on it shows it whole), volume, V/V0, pressure, energy, shape
// matching and pinned points. A scene with more bodies than rows (the
// pile's 24) gets the compact table: groups side by side, each with the
// swatch, the name, V/V0 and the pressure (what the plots show). Rows
// that do not fit even so are counted in one last row.
#include "table.h"

#include "plots.h"
#include "text.h"

#include <math.h>
#include <string.h>

enum { TEXT_MAX = 512 };

// The columns' left edges in character cells of 6 px at scale 1 from the
// table's content edge (the swatch first); the last is its right edge.
enum { COLUMNS = 8 };
static const float col[COLUMNS + 1] = {0.0f, 3.5f, 20.0f, 32.0f, 38.5f, 49.5f, 58.5f, 70.0f, 74.0f};
static const char *const heads[COLUMNS] = {"", "body", "V", "V/V0", "P", "E (J)", "shape", "pins"};
// The compact table's group: swatch, name, V/V0, pressure; its right edge
// last, then the room between two groups.
enum { COMPACT_COLUMNS = 4 };
static const float compact_col[COMPACT_COLUMNS + 1] = {0.0f, 3.5f, 16.0f, 22.0f, 33.0f};
static const char *const compact_heads[COMPACT_COLUMNS] = {"", "body", "V/V0", "P"};
#define GROUP_GAP 2.0f

#define LINE 12.0f
#define CELL 6.0f

float table_width(float s) {
    return (col[COLUMNS] + 2.0f) * CELL * s;
}

// Where the rows go: the content's top left, the body rows under a
// heading, in one table or in compact groups side by side (filled column
// by column); bodies 0 .. shown - 1 have a row.
typedef struct table_plan {
    float x, y;    ///< the content's top left, pixels
    int rows;      ///< body rows that fit under the heading
    bool compact;  ///< groups of swatch, name, V/V0 and pressure
    int groups;    ///< groups drawn (1 unless compact)
    int per_group; ///< body rows in each group
    int shown;     ///< bodies with a row
    bool more;     ///< the last row says how many are left out
} table_plan;

static table_plan table_plan_of(const app *a) {
    const float s = a->ui_scale, pad = CELL * s, cw = CELL * s;
    const rect r = a->table_rect;
    table_plan p = {.x = r.x + pad, .y = r.y + 0.5f * pad, .groups = 1};
    const int fit = (int)floorf((r.h - pad) / a->line_h) - 1;
    p.rows = fit < 0 ? 0 : fit;
    p.per_group = p.rows;
    const int count = a->scene.body_count;
    if (count <= p.rows) {
        p.shown = count;
        return p;
    }
    const float group_w = (compact_col[COMPACT_COLUMNS] + GROUP_GAP) * cw;
    const int groups = (int)floorf((r.w - 2.0f * pad + GROUP_GAP * cw) / group_w);
    if (groups >= 2 && p.rows >= 1) {
        p.compact = true;
        if (count <= groups * p.rows) {
            // As few groups as hold them all, their rows shared out evenly.
            p.groups = (count + p.rows - 1) / p.rows;
            p.per_group = (count + p.groups - 1) / p.groups;
            p.shown = count;
            return p;
        }
        p.groups = groups;
    }
    // With too few rows the last one says how many are left out.
    p.more = true;
    p.shown = p.groups * p.rows - 1;
    if (p.shown < 0) {
        p.shown = 0;
    }
    return p;
}

// The left edge of body b's group (or of group b / per_group), and its row
// (1: the first under the heading); 0 when b has no row.
static int place_of(const app *a, const table_plan *p, int b, float *x) {
    const float cw = CELL * a->ui_scale;
    const int group = p->per_group > 0 ? b / p->per_group : 0;
    *x = p->x + (float)group * (compact_col[COMPACT_COLUMNS] + GROUP_GAP) * cw;
    return b >= 0 && b < p->shown ? b - group * p->per_group + 1 : 0;
}

// The name column's width, pixels: its cells less one of space before the next.
static float name_width(const app *a, const table_plan *p) {
    const float *c = p->compact ? compact_col : col;
    return (c[2] - c[1] - 1.0f) * CELL * a->ui_scale;
}

float ui_table_name(const app *a, int b, char *out, size_t size) {
    const table_plan p = table_plan_of(a);
    const float max_w = name_width(a, &p);
    ui_text_elide(a, a->scene.bodies[b].label, a->ui_scale, max_w, out, size);
    return max_w;
}

rect table_name_rect(const app *a, int b) {
    const table_plan p = table_plan_of(a);
    float x;
    const int row = b >= 0 && b < a->scene.body_count ? place_of(a, &p, b, &x) : 0;
    if (row == 0) {
        return (rect){0.0f, 0.0f, 0.0f, 0.0f};
    }
    const float cw = CELL * a->ui_scale;
    const float *c = p.compact ? compact_col : col;
    return (rect){x + c[1] * cw, p.y + (float)row * a->line_h, name_width(a, &p), a->line_h};
}

int table_shown(const app *a) {
    return table_plan_of(a).shown;
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

// The compact row's figures: V/V0 and the pressure, from its group's left edge x.
static void compact_figures(app *a, int b, float x, float y) {
    const float s = a->ui_scale, cw = CELL * s;
    const psb_body_state *st = &a->state[b];
    char t[TEXT_MAX];
    if (psb_body_get_kind(a->scene.world, b) == PSB_CLOTH) {
        ui_text(a, x + compact_col[2] * cw, y, s, ui_dim, "cloth");
        return;
    }
    snprintf(t, sizeof t, "%.3f", st->rest_volume > 0.0 ? st->volume / st->rest_volume : 0.0);
    ui_text(a, x + compact_col[2] * cw, y, s, ui_white, t);
    snprintf(t, sizeof t, "%.3g %s", st->pressure, pressure_unit(a, b));
    ui_text(a, x + compact_col[3] * cw, y, s, ui_white, t);
}

void table_build(app *a) {
    const float s = a->ui_scale, cw = CELL * s, lh = a->line_h;
    const table_plan p = table_plan_of(a);
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
    if (p.rows < 1 || a->table_rect.w < col[2] * cw) {
        a->text_cut += a->scene.body_count > 0;
        return;
    }
    const int shown = p.compact ? COMPACT_COLUMNS : columns_shown(a);
    a->text_cut += !p.compact && shown < COLUMNS;
    for (int g = 0; g < p.groups; g++) {
        float gx;
        place_of(a, &p, g * p.per_group, &gx);
        for (int c = 1; c < shown; c++) {
            ui_text(a, gx + (p.compact ? compact_col[c] : col[c]) * cw, p.y, s, ui_dim,
                    p.compact ? compact_heads[c] : heads[c]);
        }
    }
    for (int b = 0; b < p.shown; b++) {
        float x;
        const int row = place_of(a, &p, b, &x);
        const float y = p.y + (float)row * lh;
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
        if (p.compact) {
            compact_figures(a, b, x, y);
        } else {
            body_figures(a, b, x, y, shown);
        }
    }
    if (p.more) {
        // In the last slot: the last group's last row.
        char t[64];
        const int left_out = a->scene.body_count - p.shown;
        float x;
        place_of(a, &p, (p.groups - 1) * p.per_group, &x);
        if (p.compact) {
            snprintf(t, sizeof t, "... %d more", left_out);
        } else {
            snprintf(t, sizeof t, "... %d more bod%s (--report lists all)", left_out,
                     left_out == 1 ? "y" : "ies");
        }
        ui_text(a, x + col[1] * cw, p.y + (float)p.per_group * lh, s, ui_dim, t);
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
