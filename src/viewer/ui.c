// The HUD strip (layout.c places it and its parts): the scene, the PAUSED
// badge and the overlays that are on; three columns of figures (frame and
// time; integrator and forces; material); the blow-up report and the last
// message, or the key hints. Then the plots, the body table and, over
// everything, the help panel. Everything in framebuffer pixels, origin top
// left; the strips are opaque (render.c clears them), so no text is drawn
// over a view.
#include "ui.h"

#include "layout.h"
#include "panel.h"
#include "plots.h"
#include "scenes.h"
#include "status.h"
#include "table.h"
#include "text.h"

#include <math.h>
#include <string.h>

enum {
    TEXT_MAX = 512,
};

// stb_easy_font's line height and a character cell at scale 1, pixels.
#define LINE   12.0f
#define CELL_W 6.0f

// The lines between the parts.
static const rgba edge_color = {0, 0, 0, 255};
// An overlay that is on, and the PAUSED badge: dark text on amber.
static const rgba chip_color = {217, 158, 64, 255};
static const rgba chip_text = {20, 20, 24, 255};

// Lines of the HUD strip's height that are left from y down (the strip
// shrinks in a small window).
static int rows_left(const app *a, float y) {
    const float bottom = a->hud_rect.y + a->hud_rect.h;
    const int n = (int)floorf((bottom - y) / a->line_h + 0.01f);
    return n < 0 ? 0 : n;
}

// text into out, shortened at its end ("...") until it is at most max_w
// pixels wide at scale s; true if it was.
static bool fit_end(const app *a, const char *text, float s, float max_w, char *out, size_t size) {
    snprintf(out, size, "%s", text);
    size_t len = strlen(out);
    if (ui_text_width(a, out, s) <= max_w) {
        return false;
    }
    while (len > 0) {
        len--;
        // The first len characters and the dots.
        const size_t keep = len < size - 4 ? len : size - 4;
        memcpy(out, text, keep);
        memcpy(out + keep, "...", 4);
        if (ui_text_width(a, out, s) <= max_w) {
            return true;
        }
    }
    out[0] = '\0';
    return true;
}

// Line `row` of a HUD column: the text, shortened at its end to the
// column's width; left out where the strip has no room for the row. Either
// counts in a->text_cut.
static void column_line(app *a, int column, int row, rgba color, const char *text) {
    const rect r = a->hud.column[column];
    const float s = a->ui_scale, y = r.y + (float)row * a->line_h;
    if (!text[0]) {
        return;
    }
    if (rows_left(a, y) < 1 || r.w <= 0.0f) {
        a->text_cut++;
        return;
    }
    char t[TEXT_MAX];
    a->text_cut += fit_end(a, text, s, r.w, t, sizeof t);
    ui_text(a, r.x, y, s, color, t);
}

// The lines between the parts, in the gaps layout.c leaves; and the 3D
// view's sky: a gradient at the far plane (z = -1 in pixel space is depth
// 1), drawn after the scene so only uncovered pixels pay for it.
static void backgrounds(app *a) {
    const rect v2 = a->view2d, v3 = a->view3d, pr = a->plot_rect, tr = a->table_rect;
    cvert *v = batch_alloc(&a->bg, 6);
    if (v) {
        const rgba top = rgba_f(0.20f, 0.23f, 0.29f, 1.0f),
                   bottom = rgba_f(0.115f, 0.125f, 0.15f, 1.0f);
        const float x0 = v3.x, x1 = v3.x + v3.w, y0 = v3.y, y1 = v3.y + v3.h;
        v[0] = (cvert){x0, y0, -1.0f, top};
        v[1] = (cvert){x1, y0, -1.0f, top};
        v[2] = (cvert){x1, y1, -1.0f, bottom};
        v[3] = (cvert){x0, y0, -1.0f, top};
        v[4] = (cvert){x1, y1, -1.0f, bottom};
        v[5] = (cvert){x0, y1, -1.0f, bottom};
    }
    const float w = (float)a->fb_w, hud_bottom = a->hud_rect.y + a->hud_rect.h;
    batch_rect(&a->ui_back, 0.0f, hud_bottom, w, v2.y, edge_color, edge_color);
    batch_rect(&a->ui_back, v2.x + v2.w, v2.y, v3.x, v2.y + v2.h, edge_color, edge_color);
    if (a->panel_rect.w > 0.0f) {
        batch_rect(&a->ui_back, v3.x + v3.w, v3.y, a->panel_rect.x, v3.y + v3.h, edge_color,
                   edge_color);
    }
    batch_rect(&a->ui_back, 0.0f, v2.y + v2.h, w, pr.y, edge_color, edge_color);
    batch_rect(&a->ui_back, pr.x + pr.w, pr.y, tr.x, pr.y + pr.h, edge_color, edge_color);
}

// The scene's name, place in the list and summary, in at most max_w pixels
// at scale s (shortened at its end by the caller). The models scene says
// which model of how many it shows, the hint to step dropped first where
// the row is short, then the model's name shortened in the middle.
static void scene_line(const app *a, float s, float max_w, char *t, size_t size) {
    const int entry = scenes_entry(a), entries = scenes_entries(a);
    if (a->models_scene && a->model_count > 0) {
        char head[96];
        const char *hint = "   '.' and ',': the next and the previous";
        snprintf(head, sizeof head, "scene %d/%d %s: model %d/%d ", entry + 1, entries,
                 MODELS_SCENE, a->model_entry + 1, a->model_count);
        const char *name = a->model_names[a->model_entry].text;
        const char *state = a->models_loaded ? "" : " (not loaded)";
        snprintf(t, size, "%s%s%s%s", head, name, state, hint);
        if (ui_text_width(a, t, s) <= max_w) {
            return;
        }
        const float room = max_w - ui_text_width(a, head, s) - ui_text_width(a, state, s);
        char shown[sizeof a->model_names[0].text];
        ui_text_elide(a, name, s, room, shown, sizeof shown);
        snprintf(t, size, "%s%s%s", head, shown, state);
    } else if (a->models_scene) {
        snprintf(t, size, "scene %d/%d %s: no models to show (--meshes DIR: a folder of OBJ files)",
                 entry + 1, entries, MODELS_SCENE);
    } else if (a->models_loaded) {
        snprintf(t, size, "scene %d/%d: loaded files (Backspace: back to '%s')", entry + 1, entries,
                 a->scene_name);
    } else {
        snprintf(t, size, "scene %d/%d %s: %s", entry + 1, entries, a->scene.name,
                 psb_viewer_scene_summary(entry));
    }
}

// The implicit solver on the last world step: "iters N  newton M  res X
// m/s" (the last Newton step's largest velocity change), marked when it
// missed the tolerance, with the sub-steps bodies slept through ("asleep
// K": one a body at one sub-step a frame). False when it was not met.
static bool solver_line(const app *a, char *t, size_t size) {
    const psb_solver_report r = psb_world_solver_report(a->scene.world);
    if (r.newton == 0 && !r.converged) {
        // Nothing solved yet: the report is an explicit step's zeros.
        snprintf(t, size, "iters -  res -  (no implicit step yet)");
        return true;
    }
    const double tol = psb_world_params(a->scene.world)->solver_tol;
    if (r.converged && r.asleep > 0) {
        // Bodies asleep: still from rest, nothing solved for them (their
        // sub-steps slept through, summed over the bodies).
        snprintf(t, size, "iters %d  newton %d  res %.2g m/s (tol %g)  asleep %d", r.iterations,
                 r.newton, r.residual, tol, r.asleep);
    } else if (r.converged) {
        snprintf(t, size, "iters %d  newton %d  res %.2g m/s (tol %g)", r.iterations, r.newton,
                 r.residual, tol);
    } else {
        snprintf(t, size, "iters %d  newton %d  res %.2g m/s  NOT CONVERGED", r.iterations,
                 r.newton, r.residual);
    }
    return r.converged;
}

// The HUD's figures, all means over the same frames (app.c, measure): the
// frame rate and time as --stats measures them, the simulated time with the
// one real-time figure, and the steps taken.
typedef struct figure_text {
    char frame[64], time[96], steps[96];
} figure_text;

static figure_text figures(const app *a) {
    const psb_params *p = psb_world_params(a->scene.world);
    figure_text f;
    if (a->measured) {
        snprintf(f.frame, sizeof f.frame, "%.1f fps  %.2f ms/frame", a->fps, a->frame_ms);
    } else {
        snprintf(f.frame, sizeof f.frame, "... fps  ... ms/frame");
    }
    const double t_sim = psb_world_time(a->scene.world);
    if (a->virtual_clock) {
        snprintf(f.time, sizeof f.time, "t %.2f s (a step a frame)", t_sim);
    } else if (a->paused) {
        snprintf(f.time, sizeof f.time, "t %.2f s (paused)", t_sim);
    } else if (!a->measured) {
        snprintf(f.time, sizeof f.time, "t %.2f s", t_sim);
    } else {
        snprintf(f.time, sizeof f.time, "t %.2f s  x%.2f real time%s", t_sim, a->sim_speed,
                 a->slow_motion ? ": slow motion" : "");
    }
    const char *plural = p->substeps == 1 ? "" : "s";
    if (a->partial_steps && a->partial_substeps < p->substeps) {
        snprintf(f.steps, sizeof f.steps, "%d of %d sub-steps a frame", a->partial_substeps,
                 p->substeps);
    } else if (a->partial_steps) {
        snprintf(f.steps, sizeof f.steps, "one step a frame, %d sub-step%s", p->substeps, plural);
    } else if (!a->measured) {
        snprintf(f.steps, sizeof f.steps, "%d sub-step%s a step", p->substeps, plural);
    } else {
        snprintf(f.steps, sizeof f.steps, "%.0f steps/s x %d sub-step%s", a->steps_per_s,
                 p->substeps, plural);
    }
    return f;
}

// The title row: the scene at the left, shortened at its end where the
// right side needs the room; at the right the overlays (lit when on) and,
// when paused, the PAUSED badge: all beside, never over, what they describe.
static void hud_title(app *a) {
    static const char *const names[OVERLAY_COUNT] = {"V velocity", "N normals", "F pressure",
                                                     "W springs", "C strain"};
    const rect r = a->hud.title;
    const float s = a->ui_scale, gap = 10.0f * s, lh = a->line_h;
    if (rows_left(a, r.y) < 1) {
        a->paused_rect = (rect){0.0f, 0.0f, 0.0f, 0.0f};
        a->title_shown[0] = '\0';
        return;
    }
    // Right to left: the overlays, then the badge.
    float x = r.x + r.w;
    for (int o = OVERLAY_COUNT - 1; o >= 0; o--) {
        const float w = ui_text_width(a, names[o], s);
        x -= w;
        if (a->overlay[o]) {
            batch_rect(&a->ui_back, x - 2.0f * s, r.y - 2.0f * s, x + w + 2.0f * s,
                       r.y + lh - 2.0f * s, chip_color, chip_color);
        }
        ui_text(a, x, r.y, s, a->overlay[o] ? chip_text : ui_dim, names[o]);
        x -= gap;
    }
    if (a->overlay[OVERLAY_STRAIN]) {
        const char *scale = "strain: blue -30% .. red +30%";
        x -= ui_text_width(a, scale, s);
        ui_text(a, x, r.y, s, ui_dim, scale);
        x -= gap;
    }
    a->paused_rect = (rect){0.0f, 0.0f, 0.0f, 0.0f};
    if (a->paused) {
        const char *t = "PAUSED  Space: run, S: one step";
        const float w = ui_text_width(a, t, s);
        x -= w + 4.0f * s;
        a->paused_rect = (rect){x - 4.0f * s, r.y - 2.0f * s, w + 8.0f * s, lh};
        batch_rect(&a->ui_back, a->paused_rect.x, a->paused_rect.y,
                   a->paused_rect.x + a->paused_rect.w, a->paused_rect.y + a->paused_rect.h,
                   chip_color, chip_color);
        ui_text(a, x, r.y, s, chip_text, t);
        x -= gap + 4.0f * s;
    }
    char full[TEXT_MAX], t[TEXT_MAX];
    scene_line(a, s, x - r.x, full, sizeof full);
    // The summary is shortened at its end; the scene's message shows it whole.
    fit_end(a, full, s, x - r.x, t, sizeof t);
    ui_text(a, r.x, r.y, s, ui_warn, t);
    snprintf(a->title_shown, sizeof a->title_shown, "%s", t);
}

// The wind as it blows.
static void wind_line(const app *a, char *t, size_t size) {
    const psb_params *p = psb_world_params(a->scene.world);
    if (psb_params_wind_blows(p)) {
        snprintf(t, size, "wind (%.3g, %.3g, %.3g) m/s, gusts %.3g m/s", p->wind.x, p->wind.y,
                 p->wind.z, p->wind_turbulence);
    } else {
        snprintf(t, size, "wind off (B: on)");
    }
}

// Shape matching as it stands: off, the same on every body, or on some.
static void shape_line(const app *a, char *t, size_t size) {
    int on = 0;
    double k = 0.0, rate = 0.0;
    bool same = true;
    for (int b = 0; b < a->scene.body_count; b++) {
        const psb_body_params *m = psb_body_get_params(a->scene.world, b);
        if (m->shape_k > 0.0 || m->shape_damping > 0.0) {
            same = same && (on == 0 || (m->shape_k == k && m->shape_damping == rate));
            k = m->shape_k;
            rate = m->shape_damping;
            on++;
        }
    }
    if (on == 0) {
        snprintf(t, size, "shape matching off (M: on)");
    } else if (on == a->scene.body_count && same) {
        snprintf(t, size, "shape matching k %.3g N/m, %.3g/s", k, rate);
    } else {
        snprintf(t, size, "shape matching on %d of %d bodies", on, a->scene.body_count);
    }
}

// Column 0, frame and time: the frame rate and time as --stats measures
// them, the physics' part, the simulated time with the one real-time
// figure, the steps.
static void frame_column(app *a) {
    const figure_text f = figures(a);
    column_line(a, 0, 0, a->fps >= 55.0 || !a->measured ? ui_good : ui_warn, f.frame);
    char t[TEXT_MAX];
    if (a->measured) {
        snprintf(t, sizeof t, "physics %.2f ms/frame", a->sim_ms);
    } else {
        snprintf(t, sizeof t, "physics ... ms/frame");
    }
    column_line(a, 0, 1, ui_white, t);
    column_line(a, 0, 2, a->slow_motion ? ui_warn : ui_white, f.time);
    column_line(a, 0, 3, ui_white, f.steps);
}

// Column 1, the integrator and the forces: the step and its stable limit,
// the implicit solver's work, the wind, shape matching and the grab's
// stiffness.
static void integrator_column(app *a) {
    const psb_params *p = psb_world_params(a->scene.world);
    const bool implicit = psb_integrator_is_implicit(p->integrator);
    char t[TEXT_MAX];
    if (implicit) {
        snprintf(t, sizeof t, "%s  dt %.2f ms  h %.3f ms (stable at any h)",
                 psb_integrator_name(p->integrator), 1000.0 * p->dt, 1000.0 * p->dt / p->substeps);
    } else {
        snprintf(t, sizeof t, "%s  dt %.2f ms  h %.3f ms (stable < %.3f ms)",
                 psb_integrator_name(p->integrator), 1000.0 * p->dt, 1000.0 * p->dt / p->substeps,
                 1000.0 * a->scene.stable_substep);
    }
    column_line(a, 1, 0, ui_white, t);
    if (implicit) {
        const bool converged = solver_line(a, t, sizeof t);
        column_line(a, 1, 1, converged ? ui_white : ui_warn, t);
    } else {
        column_line(a, 1, 1, ui_dim, "explicit: no solver (I: next integrator)");
    }
    wind_line(a, t, sizeof t);
    column_line(a, 1, 2, ui_dim, t);
    shape_line(a, t, sizeof t);
    const size_t used = strlen(t);
    snprintf(t + used, sizeof t - used, "  grab %.3g N/m", a->config.grab_k);
    column_line(a, 1, 3, ui_dim, t);
}

// Column 2, the material and the world: gravity, mass, springs, gas, the
// grab, the floor's restitution and friction.
static void material_column(app *a) {
    const psb_params *p = psb_world_params(a->scene.world);
    const psb_body_params *m = a->scene.body_count > 0 ? psb_body_get_params(a->scene.world, 0)
                                                       : &a->scene.config.params.body;
    char t[TEXT_MAX];
    // Loaded models have stiffnesses of their own, and the pile's rings are
    // lighter than its balls: the ranges over the bodies.
    double ks_lo = m->spring_k, ks_hi = m->spring_k, mass_lo = m->mass, mass_hi = m->mass;
    for (int b = 1; b < a->scene.body_count; b++) {
        const psb_body_params *bp = psb_body_get_params(a->scene.world, b);
        ks_lo = fmin(ks_lo, bp->spring_k);
        ks_hi = fmax(ks_hi, bp->spring_k);
        mass_lo = fmin(mass_lo, bp->mass);
        mass_hi = fmax(mass_hi, bp->mass);
    }
    if (mass_lo == mass_hi) {
        snprintf(t, sizeof t, "g %.3g m/s^2   mass %.3g kg", p->gravity, mass_lo);
    } else {
        snprintf(t, sizeof t, "g %.3g m/s^2   mass %.3g-%.3g kg", p->gravity, mass_lo, mass_hi);
    }
    column_line(a, 2, 0, ui_dim, t);
    if (ks_lo == ks_hi) {
        snprintf(t, sizeof t, "ks %.4g N/m   kd %.3g N*s/m", ks_lo, m->spring_damping);
    } else {
        snprintf(t, sizeof t, "ks %.4g-%.4g N/m  kd %.3g N*s/m", ks_lo, ks_hi, m->spring_damping);
    }
    column_line(a, 2, 1, ui_dim, t);
    // The gas and the floor; then the contacts between bodies of the last
    // step and the links of its solve (with contact inside the solve) on a
    // row of their own, so that the fifty balls' counts fit.
    snprintf(t, sizeof t, "gas x%.3g  restitution %.2g  friction %.3g/s", a->gas_scale,
             p->restitution, p->friction);
    column_line(a, 2, 2, ui_dim, t);
    const int links = psb_world_link_count(a->scene.world);
    int out = 0;      // bodies whose own contact shift+K switched off
    int not_self = 0; // bodies that do not touch themselves (loaded models)
    for (int b = 0; b < a->scene.body_count; b++) {
        out += !psb_body_get_params(a->scene.world, b)->contact;
        not_self += !psb_body_get_params(a->scene.world, b)->self_contact;
    }
    int used = 0;
    if (!p->body_contact) {
        used = snprintf(t, sizeof t, "contact off (K)");
    } else if (links > 0) {
        used = snprintf(t, sizeof t, "%d contacts  %d links",
                        psb_world_contact_count(a->scene.world), links);
    } else {
        used = snprintf(t, sizeof t, "%d contacts", psb_world_contact_count(a->scene.world));
    }
    if (out > 0 && p->body_contact && used > 0 && (size_t)used < sizeof t) {
        used += snprintf(t + used, sizeof t - (size_t)used, "  %d out", out);
    }
    // Self contact: off for the world (--no-self-contact), or for the
    // loaded models (psb_scene_config.model_self_contact).
    if (p->body_contact && used > 0 && (size_t)used < sizeof t) {
        if (!p->self_contact) {
            snprintf(t + used, sizeof t - (size_t)used, "  self off");
        } else if (not_self > 0) {
            snprintf(t + used, sizeof t - (size_t)used, "  self off for %d", not_self);
        }
    }
    column_line(a, 2, 3, ui_dim, t);
}

// The message rows: the blow-up report (while its cause lasts), then the
// last message (until it expires), each wrapped whole where the rows
// allow; with neither, the keys a new user needs first.
static void hud_messages(app *a) {
    const rect r = a->hud.messages;
    const float s = a->ui_scale, lh = a->line_h;
    int rows = rows_left(a, r.y);
    rows = rows < HUD_MESSAGE_ROWS ? rows : HUD_MESSAGE_ROWS;
    float y = r.y;
    const bool blowup = status_blowup_live(a);
    a->message_shown = status_message_live(a);
    if (blowup && rows > 0) {
        const int n = ui_wrap(a, r.x, y, s, ui_warn, a->blowup, r.w, rows, true);
        y += (float)n * lh;
        rows -= n;
    }
    if (a->message_shown && rows > 0) {
        ui_wrap(a, r.x, y, s, a->message_error ? ui_bad : ui_white, a->message, r.w, rows, true);
    } else if (a->message_shown || (blowup && rows_left(a, r.y) == 0)) {
        a->text_cut++;
    } else if (!blowup && rows > 0) {
        char t[TEXT_MAX];
        fit_end(a,
                "H: help   O: parameters   Space: pause / run   Tab: next scene   drag a body: "
                "pull it   right click: poke it   drag elsewhere: orbit   wheel: zoom",
                s, r.w, t, sizeof t);
        ui_text(a, r.x, y, s, ui_dim, t);
    }
}

// The help's rows, {keys or action, what it does}: a row with "" as its
// second text is a heading; NULL stands for the scenes' names (from their
// table). The mouse's rows, then the keys', each a column where the window
// is too short for them in one.
typedef struct help_row {
    const char *keys, *does;
} help_row;

static const help_row help_mouse[] = {
    {"MOUSE, 3D VIEW (RIGHT)", ""},
    {"left drag on a body", "grab the point under the cursor, pull it"},
    {"left drag on a pinned point", "move its pin"},
    {"left drag elsewhere", "orbit the camera"},
    {"shift+left or right click", "poke a body: a finger pushed in while held"},
    {"right or middle drag", "pan"},
    {"wheel", "zoom"},
    {"MOUSE, 2D VIEW (LEFT)", ""},
    {"left drag on the ring", "grab its nearest point, pull it (or its pin)"},
    {"shift+left or right click", "poke the ring"},
    {"wheel", "zoom the 2D view"},
    {"MOUSE, PARAMETER PANEL (O)", ""},
    {"press or drag a slider", "set the value under the cursor"},
    {"drag a value", "change it at its slider's rate"},
    {"click a value", "type one: Enter applies, Esc cancels"},
    {"reset, reset all", "the row, or every row, back to its default"},
    {"Drop OBJ files on the window to load them.", ""},
};

static const help_row help_keys[] = {
    {"KEYS", ""},
    {"1 .. 9", NULL},
    {"Tab  (shift+Tab)", "next (previous) scene; loaded OBJ files last"},
    {".  ,", "the models scene's next / previous model"},
    {"Space", "pause / run"},
    {"S", "one step (pauses)"},
    {"R", "reset the bodies"},
    {"+  -", "gas amount up / down (x1.25)"},
    {"]  [", "spring stiffness up / down (x1.25)"},
    {"I  (shift+I)", "next (previous) integrator: euler .. bdf2"},
    {"O  or  F2", "parameter panel: sliders, values to type"},
    {"G", "gravity on / off"},
    {"T", "pin / unpin the point held or pointed at"},
    {"M", "shape matching on / off for every body"},
    {"B  K", "wind on / off, body contact on / off"},
    {"shift+K", "contact on / off for the body held or pointed at"},
    {"V  N  F", "velocity vectors, normals, pressure forces"},
    {"W  C", "spring wireframe, colour by spring strain"},
    {"Z  or  Home", "frame the scene again (camera, 2D view)"},
    {"P  or  F12", "screenshot: psb-screenshot-NNN.png"},
    {"E", "export every body: body<b>_step<s>.obj"},
    {"Backspace", "back to the scene from loaded OBJ files"},
    {"H  or  F1", "this help"},
    {"Q  or  Esc", "quit"},
};

#define HELP_TITLE "psb viewer: keys and mouse (H or a click closes this)"
// The help's padding and the room between its columns, pixels at scale 1;
// the smallest scale it shrinks to before rows are left out.
#define HELP_PAD       12.0f
#define HELP_GAP       18.0f
#define HELP_MIN_SCALE 0.5f

// A column of the help: its rows, and their widths at scale 1.
typedef struct help_column {
    const help_row *rows;
    int count;
    float keys_w; // the first texts' column, with the room after it
    float w;      // the whole column
} help_column;

static help_column help_measure(const app *a, const help_row *rows, int count, const char *scenes) {
    help_column c = {rows, count, 0.0f, 0.0f};
    float does_w = 0.0f, heading_w = 0.0f;
    for (int r = 0; r < count; r++) {
        const float kw = ui_text_width(a, rows[r].keys, 1.0f);
        if (rows[r].does && !rows[r].does[0]) {
            heading_w = fmaxf(heading_w, kw);
            continue;
        }
        c.keys_w = fmaxf(c.keys_w, kw + 2.0f * CELL_W);
        does_w = fmaxf(does_w, ui_text_width(a, rows[r].does ? rows[r].does : scenes, 1.0f));
    }
    c.w = fmaxf(c.keys_w + does_w, heading_w);
    return c;
}

// Draws column c's rows from (x, y) at scale s, at most max_rows of them.
static void help_rows(app *a, const help_column *c, float x, float y, float s, int max_rows,
                      const char *scene_keys, const char *scenes) {
    const float lh = LINE * s;
    for (int r = 0; r < c->count && r < max_rows; r++) {
        const help_row *row = &c->rows[r];
        const bool heading = row->does && !row->does[0];
        ui_text(a, x, y, s, heading ? ui_warn : ui_white, row->does ? row->keys : scene_keys);
        if (!heading) {
            ui_text(a, x + c->keys_w * s, y, s, ui_dim, row->does ? row->does : scenes);
        }
        y += lh;
    }
    a->text_cut += c->count > max_rows;
}

// The help: an opaque panel over everything, centred. At the HUD's scale in
// one column where it fits the window, else in two (the mouse's, the
// keys'); else smaller, in quarter steps, until it fits.
static void help_overlay(app *a) {
    const int scenes = psb_viewer_scene_count() < 9 ? psb_viewer_scene_count() : 9;
    char keys[16], names[TEXT_MAX] = "";
    snprintf(keys, sizeof keys, "1 .. %d", scenes);
    for (int i = 0; i < scenes; i++) {
        const size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                 psb_viewer_scene_name(i));
    }
    const help_column mouse =
        help_measure(a, help_mouse, (int)(sizeof help_mouse / sizeof help_mouse[0]), names);
    const help_column key =
        help_measure(a, help_keys, (int)(sizeof help_keys / sizeof help_keys[0]), names);
    const float title_w = ui_text_width(a, HELP_TITLE, 1.0f);
    // Sizes at scale 1: one column (the keys' first texts aligned with the
    // mouse's), or two side by side.
    help_column one = mouse;
    one.keys_w = fmaxf(mouse.keys_w, key.keys_w);
    one.w = fmaxf(one.keys_w + fmaxf(mouse.w - mouse.keys_w, key.w - key.keys_w),
                  fmaxf(mouse.w, key.w));
    const float w1 = fmaxf(one.w, title_w) + 2.0f * HELP_PAD;
    const float h1 = (float)(1 + mouse.count + key.count) * LINE + 2.0f * HELP_PAD;
    const float w2 = fmaxf(mouse.w + HELP_GAP + key.w, title_w) + 2.0f * HELP_PAD;
    const int rows2 = mouse.count > key.count ? mouse.count : key.count;
    const float h2 = (float)(1 + rows2) * LINE + 2.0f * HELP_PAD;
    const float fw = (float)a->fb_w, fh = (float)a->fb_h;
    float s = a->ui_scale;
    bool two = false;
    for (;; s -= 0.25f) {
        if (w1 * s <= fw && h1 * s <= fh) {
            break;
        }
        if (w2 * s <= fw && h2 * s <= fh) {
            two = true;
            break;
        }
        if (s - 0.25f < HELP_MIN_SCALE) {
            two = true; // the smallest: as many rows as fit
            break;
        }
    }
    a->help_scale = s;
    const float w = (two ? w2 : w1) * s, lh = LINE * s, pad = HELP_PAD * s;
    const float h = fminf((two ? h2 : h1) * s, fh);
    const float x0 = fmaxf(0.0f, roundf(0.5f * (fw - w))),
                y0 = fmaxf(0.0f, roundf(0.5f * (fh - h)));
    // Opaque: nothing under it shows through.
    a->help_rect = (rect){x0, y0, w, h};
    batch_rect(&a->ui_back, x0 - 1.0f, y0 - 1.0f, x0 + w + 1.0f, y0 + h + 1.0f, ui_warn, ui_warn);
    batch_rect(&a->ui_back, x0, y0, x0 + w, y0 + h, ui_panel, ui_panel);
    ui_text(a, x0 + pad, y0 + pad, s, ui_warn, HELP_TITLE);
    const float top = y0 + pad + lh;
    const int fit = (int)floorf((y0 + h - pad - top) / lh + 0.01f);
    if (two) {
        help_rows(a, &mouse, x0 + pad, top, s, fit, keys, names);
        help_rows(a, &key, x0 + pad + (mouse.w + HELP_GAP) * s, top, s, fit, keys, names);
    } else {
        help_column first = mouse, second = key;
        first.keys_w = second.keys_w = one.keys_w;
        help_rows(a, &first, x0 + pad, top, s, fit, keys, names);
        help_rows(a, &second, x0 + pad, top + (float)mouse.count * lh, s, fit - mouse.count, keys,
                  names);
    }
}

void ui_build(app *a) {
    if (a->text_scale != a->ui_scale && !text_atlas_build(a, a->ui_scale)) {
        return; // no memory for the atlas: no HUD this frame
    }
    a->text_cut = 0;
    a->help_rect = (rect){0.0f, 0.0f, 0.0f, 0.0f};
    backgrounds(a);
    hud_title(a);
    frame_column(a);
    integrator_column(a);
    material_column(a);
    hud_messages(a);
    plots_build(a);
    table_build(a);
    panel_build(a);
    layout_check(a);
    a->ui_back_top = a->ui_back.count;
    a->ui_text_top = a->ui_text.count;
    if (a->help) {
        help_overlay(a);
    } else {
        table_tooltip(a);
    }
}
