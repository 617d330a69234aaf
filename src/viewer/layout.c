// The window's layout. Every text has an opaque strip of its own, so that
// nothing is drawn over a view but what the view shows:
//
//   +-----------------------------------------------------------+
//   | HUD: the scene, PAUSED, overlays on                        |
//   |   frame and time | integrator and forces | material        |
//   |   blow-up report, last message (or the key hints)          |
//   +------------------+-----------------------------+----------+
//   | 2D view (40 %)   | 3D view                     | panel    |
//   +------------------+-----------------------------+----------+
//   | V/V0 and pressure plots        | body table (the legend)   |
//   +-----------------------------------------------------------+
//
// The parameter panel (O) is a column of its own at the right of the
// views, as tall as they are; hidden, the views take its width. The strips
// are sized in lines of text, the views take the rest (at least MIN_VIEWS
// of the height; the strips give up lines before that). The
// views' world-to-pixel maps live here too, and the checks that --report
// prints: what the HUD drew over a view, where the bodies were drawn.
#include "layout.h"

#include "table.h"

#include <math.h>

// stb_easy_font's line height and a character cell at scale 1, pixels.
#define LINE 12.0f
#define CELL 6.0f
// The HUD's columns, in cells: frame and time; integrator, solver, wind and
// shape matching; material. And the room between two columns.
static const float column_cells[HUD_COLUMNS] = {36.0f, 54.0f, 36.0f};
#define COLUMN_GAP_CELLS 3.0f
// Space between the title, the columns and the messages, in lines.
#define ROW_GAP 0.3f
// The 2D view's share of the views' width.
#define VIEW2D_SHARE 0.4f
// The bottom strip: at least this share of the height (the plots need
// room), at most MAX_BOTTOM (the body table gives up rows beyond).
#define MIN_BOTTOM 0.22f
#define MAX_BOTTOM 0.4f
// The body table takes at most this share of the width (the plots the rest).
#define MAX_TABLE 0.6f
// The views keep at least this share of the height.
#define MIN_VIEWS 0.4f
// The parameter panel's width in cells, and at most this share of the width.
#define PANEL_CELLS 32.0f
#define MAX_PANEL   0.3f

// The HUD's columns k side by side: column c in slot c % k, under the
// ones before it in that slot; a slot as wide as its widest column. The
// slots' widths in cells into slot_cells; returns their sum with the gaps.
static float slots(int k, float slot_cells[HUD_COLUMNS]) {
    float all = (float)(k - 1) * COLUMN_GAP_CELLS;
    for (int slot = 0; slot < k; slot++) {
        slot_cells[slot] = 0.0f;
        for (int c = slot; c < HUD_COLUMNS; c += k) {
            slot_cells[slot] = fmaxf(slot_cells[slot], column_cells[c]);
        }
        all += slot_cells[slot];
    }
    return all;
}

// The width of the HUD's columns k side by side at scale s, pixels.
static float columns_width(int k, float s) {
    float slot_cells[HUD_COLUMNS];
    return slots(k, slot_cells) * CELL * s;
}

// r cut to the part of it above `bottom` (a strip shrunk in a small window).
static rect clip(rect r, float bottom) {
    r.y = fminf(r.y, bottom);
    r.h = fmaxf(fminf(r.y + r.h, bottom) - r.y, 0.0f);
    return r;
}

// The HUD strip's parts inside r, the columns k side by side.
static hud_layout hud_parts(rect r, int k, float s, float lh) {
    const float pad = CELL * s, bottom = r.y + r.h;
    const float x = r.x + pad, w = r.w - 2.0f * pad;
    hud_layout h;
    h.title = clip((rect){x, r.y + 0.5f * pad, w, lh}, bottom);
    const float top = r.y + 0.5f * pad + (1.0f + ROW_GAP) * lh;
    const float block = (float)HUD_COLUMN_ROWS * lh;
    float slot_cells[HUD_COLUMNS];
    slots(k, slot_cells);
    float slot_x[HUD_COLUMNS];
    for (int slot = 0; slot < k; slot++) {
        slot_x[slot] =
            slot == 0 ? x : slot_x[slot - 1] + (slot_cells[slot - 1] + COLUMN_GAP_CELLS) * CELL * s;
    }
    for (int c = 0; c < HUD_COLUMNS; c++) {
        const int slot = c % k, stack = c / k;
        h.column[c] = clip(
            (rect){slot_x[slot], top + (float)stack * block, column_cells[c] * CELL * s, block},
            bottom);
    }
    const int stacks = (HUD_COLUMNS + k - 1) / k;
    h.messages =
        clip((rect){x, top + (float)stacks * block + ROW_GAP * lh, w, (float)HUD_MESSAGE_ROWS * lh},
             bottom);
    return h;
}

void layout_update(app *a) {
    glfwGetFramebufferSize(a->window, &a->fb_w, &a->fb_h);
    glfwGetWindowSize(a->window, &a->win_w, &a->win_h);
    const float h = (float)a->fb_h, w = (float)a->fb_w;
    // Text at 1.5x at 720 pixels tall, in steps of a half; smaller, in steps
    // of a quarter, where the HUD's columns side by side or the body table
    // would not fit the width.
    float s = fmaxf(1.0f, roundf(h / 240.0f) / 2.0f);
    while (s > 1.0f && (columns_width(HUD_COLUMNS, s) + 2.0f * CELL * s > w ||
                        table_width(s) > MAX_TABLE * w)) {
        s -= 0.25f;
    }
    const float lh = LINE * s, pad = CELL * s;
    // One pixel or more of the window's background between the parts.
    const float gap = fmaxf(1.0f, roundf(s));
    a->ui_scale = s;
    a->line_h = lh;

    int k = HUD_COLUMNS;
    while (k > 1 && columns_width(k, s) + 2.0f * pad > w) {
        k--;
    }
    const int stacks = (HUD_COLUMNS + k - 1) / k;
    const float rows = (float)(1 + stacks * HUD_COLUMN_ROWS + HUD_MESSAGE_ROWS);
    float hud_h = roundf(rows * lh + 2.0f * ROW_GAP * lh + pad);
    // The table: a heading and a row per body, padded.
    const float table_h = (float)(1 + a->scene.body_count) * lh + 2.0f * pad;
    float bottom_h = roundf(fminf(fmaxf(MIN_BOTTOM * h, table_h), MAX_BOTTOM * h));
    // Small windows: the strips shrink (losing lines) so that the views keep
    // MIN_VIEWS of the height.
    const float room = h - 2.0f * gap - MIN_VIEWS * h;
    if (hud_h + bottom_h > room) {
        const float k_fit = fmaxf(room, 0.0f) / (hud_h + bottom_h);
        hud_h = floorf(hud_h * k_fit);
        bottom_h = floorf(bottom_h * k_fit);
    }
    a->hud_rect = (rect){0.0f, 0.0f, w, hud_h};
    a->hud = hud_parts(a->hud_rect, k, s, lh);
    const float views_y = hud_h + gap;
    const float views_h = fmaxf(h - hud_h - bottom_h - 2.0f * gap, 0.0f);
    const float panel_w =
        a->panel.shown ? fminf(roundf(PANEL_CELLS * CELL * s), roundf(MAX_PANEL * w)) : 0.0f;
    const float views_w = panel_w > 0.0f ? fmaxf(w - panel_w - gap, 0.0f) : w;
    const float left = roundf(VIEW2D_SHARE * views_w);
    a->view2d = (rect){0.0f, views_y, left, views_h};
    a->view3d = (rect){left + gap, views_y, fmaxf(views_w - left - gap, 0.0f), views_h};
    a->panel_rect = panel_w > 0.0f ? (rect){w - panel_w, views_y, panel_w, views_h}
                                   : (rect){0.0f, 0.0f, 0.0f, 0.0f};
    const float bottom_y = h - bottom_h;
    const float tw = fminf(roundf(table_width(s)), roundf(MAX_TABLE * w));
    a->table_rect = (rect){w - tw, bottom_y, tw, bottom_h};
    a->plot_rect = (rect){0.0f, bottom_y, fmaxf(w - tw - gap, 0.0f), bottom_h};
    // The 2D view shows about 3.1 m from top to bottom at zoom 1.
    a->view2d_scale = fmax(a->view2d.h, 1.0f) / 3.1 * a->view2d_zoom;
}

void layout_2d_to_fb(const app *a, double wx, double wy, double *fx, double *fy) {
    const rect r = a->view2d;
    *fx = r.x + 0.5 * r.w + (wx - a->view2d_center[0]) * a->view2d_scale;
    *fy = r.y + 0.5 * r.h - (wy - a->view2d_center[1]) * a->view2d_scale;
}

void layout_fb_to_2d(const app *a, double fx, double fy, double *wx, double *wy) {
    const rect r = a->view2d;
    *wx = a->view2d_center[0] + (fx - (r.x + 0.5 * r.w)) / a->view2d_scale;
    *wy = a->view2d_center[1] - (fy - (r.y + 0.5 * r.h)) / a->view2d_scale;
}

// Do [x0, x1] x [y0, y1] and r share pixels (more than a touching edge)?
static bool overlaps(rect r, float x0, float y0, float x1, float y1) {
    const float lo_x = fminf(x0, x1), hi_x = fmaxf(x0, x1);
    const float lo_y = fminf(y0, y1), hi_y = fmaxf(y0, y1);
    return r.w > 0.0f && r.h > 0.0f && hi_x > r.x && lo_x < r.x + r.w && hi_y > r.y &&
           lo_y < r.y + r.h;
}

// Primitives of `per` vertices among b's first `count` that overlap a view.
static int count_over(const app *a, const batch *b, int count, int per) {
    int over = 0;
    for (int i = 0; i + per <= count; i += per) {
        float x0 = b->v[i].x, x1 = x0, y0 = b->v[i].y, y1 = y0;
        for (int k = 1; k < per; k++) {
            x0 = fminf(x0, b->v[i + k].x);
            x1 = fmaxf(x1, b->v[i + k].x);
            y0 = fminf(y0, b->v[i + k].y);
            y1 = fmaxf(y1, b->v[i + k].y);
        }
        // A line is a pixel wide.
        if (per == 2) {
            x1 += 0.5f;
            y1 += 0.5f;
            x0 -= 0.5f;
            y0 -= 0.5f;
        }
        over += overlaps(a->view2d, x0, y0, x1, y1) || overlaps(a->view3d, x0, y0, x1, y1);
    }
    return over;
}

void layout_check(app *a) {
    a->ui_over_views = count_over(a, &a->ui_back, a->ui_back.count, 4) +
                       count_over(a, &a->ui_text, a->ui_text.count, 4) +
                       count_over(a, &a->ui_lines, a->ui_lines.count, 2);
}

void layout_forget_bodies(app *a) {
    a->seen2d[0] = a->seen3d[0] = INFINITY;
    a->seen2d[1] = a->seen3d[1] = INFINITY;
    a->seen2d[2] = a->seen3d[2] = -INFINITY;
    a->seen2d[3] = a->seen3d[3] = -INFINITY;
}

static void seen(float box[4], double x, double y) {
    box[0] = fminf(box[0], (float)x);
    box[1] = fminf(box[1], (float)y);
    box[2] = fmaxf(box[2], (float)x);
    box[3] = fmaxf(box[3], (float)y);
}

void layout_track_bodies(app *a) {
    const psb_world *w = a->scene.world;
    mat4 vp;
    const rect v3 = a->view3d;
    camera_view_proj(&a->cam, v3.h > 0.0f ? v3.w / v3.h : 1.0f, vp);
    for (int b = 0; b < a->scene.body_count; b++) {
        const psb_vec3 *x = psb_body_positions(w, b);
        const int n = psb_body_point_count(w, b);
        const bool ring = psb_body_get_kind(w, b) == PSB_RING;
        for (int i = 0; i < n; i++) {
            if (ring) {
                double fx, fy;
                layout_2d_to_fb(a, x[i].x, x[i].y, &fx, &fy);
                seen(a->seen2d, fx, fy);
                continue;
            }
            vec4 p = {(float)x[i].x, (float)x[i].y, (float)x[i].z, 1.0f}, q;
            glm_mat4_mulv(vp, p, q);
            if (q[3] <= 1e-6f) {
                // Behind the eye: seen nowhere in the view.
                seen(a->seen3d, -INFINITY, -INFINITY);
                continue;
            }
            seen(a->seen3d, v3.x + 0.5 * (q[0] / q[3] + 1.0) * v3.w,
                 v3.y + 0.5 * (1.0 - q[1] / q[3]) * v3.h);
        }
    }
}
