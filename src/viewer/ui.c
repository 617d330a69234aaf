// The HUD: viewport backgrounds, text panels (stb_easy_font), messages, the
// help overlay. Everything in framebuffer pixels, origin top left.
#include "app.h"

#include <math.h>
#include <string.h>

enum {
    TEXT_MAX = 512,
    BLOWUP_LINES = 5,  ///< most lines of a blow-up report
    MESSAGE_LINES = 4, ///< most lines of a message
};

// stb_easy_font's line height at scale 1, pixels.
#define LINE 12.0f

static const rgba white = {235, 237, 240, 255};
static const rgba dim = {150, 156, 166, 255};
static const rgba warn = {255, 176, 64, 255};
static const rgba bad = {255, 92, 82, 255};
static const rgba good = {120, 220, 140, 255};

// Text cut into lines at spaces to fit max_w, at most max_lines of them,
// drawn if draw is set; returns the lines it takes. Drawn text that does
// not fit in max_lines is counted in a->text_cut.
static int wrap(app *a, float x, float y, float s, rgba color, const char *text, float max_w,
                int max_lines, bool draw) {
    char line[TEXT_MAX];
    int lines = 0;
    const char *p = text;
    while (*p && lines < max_lines) {
        int len = 0, cut = 0;
        while (p[len] && p[len] != '\n' && len < TEXT_MAX - 1) {
            memcpy(line, p, (size_t)len + 1);
            line[len + 1] = '\0';
            if (ui_text_width(a, line, s) > max_w) {
                break;
            }
            len++;
            if (p[len] == ' ' || p[len] == '\0' || p[len] == '\n') {
                cut = len;
            }
        }
        if (cut == 0) {
            cut = len > 0 ? len : 1;
        }
        memcpy(line, p, (size_t)cut);
        line[cut] = '\0';
        if (draw) {
            ui_text(a, x, y + lines * LINE * s, s, color, line);
        }
        lines++;
        p += cut;
        while (*p == ' ' || *p == '\n') {
            p++;
        }
    }
    if (draw && *p) {
        a->text_cut++;
    }
    return lines;
}

static int text_wrapped(app *a, float x, float y, float s, rgba color, const char *text,
                        float max_w, int max_lines) {
    return wrap(a, x, y, s, color, text, max_w, max_lines, true);
}

// The lines text_wrapped would take.
static int wrapped_lines(app *a, const char *text, float s, float max_w, int max_lines) {
    return wrap(a, 0.0f, 0.0f, s, white, text, max_w, max_lines, false);
}

static void panel(app *a, float x, float y, float w, float h, float alpha) {
    const rgba c = rgba_f(0.04f, 0.045f, 0.055f, alpha);
    batch_rect(&a->ui_back, x, y, x + w, y + h, c, c);
}

// The 3D view's sky: a gradient at the far plane (z = -1 in pixel space is
// depth 1), drawn after the scene so only uncovered pixels pay for it; and
// the lines between the views.
static void backgrounds(app *a) {
    const rect v3 = a->view3d, pr = a->plot_rect;
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
    const rgba edge = rgba_f(0.0f, 0.0f, 0.0f, 1.0f);
    const float s = fmaxf(1.0f, roundf(a->ui_scale));
    batch_rect(&a->ui_back, v3.x - s, v3.y, v3.x + s, v3.y + v3.h, edge, edge);
    batch_rect(&a->ui_back, pr.x, pr.y - s, pr.x + pr.w, pr.y + s, edge, edge);
}

static const char *pressure_unit(const app *a, int b) {
    return a->vertex_base[b] < 0 ? "N/m" : "Pa";
}

// The scene's name, place in the list and summary.
static void scene_line(const app *a, char *t, size_t size) {
    const int entry = app_scene_entry(a), entries = app_scene_entries(a);
    if (a->models_loaded) {
        snprintf(t, size, "scene %d/%d: loaded models (Backspace: back to '%s')", entry + 1,
                 entries, a->scene_name);
    } else {
        snprintf(t, size, "scene %d/%d %s: %s", entry + 1, entries, a->scene.name,
                 psb_scene_summary(entry));
    }
}

// The wind and shape matching as they stand, on one line.
static void wind_shape_line(const app *a, char *t, size_t size) {
    const psb_params *p = psb_world_params(a->scene.world);
    int used = 0;
    if (psb_params_wind_blows(p)) {
        used = snprintf(t, size, "wind (%.3g, %.3g, %.3g) m/s, gusts %.3g m/s", p->wind.x,
                        p->wind.y, p->wind.z, p->wind_turbulence);
    } else {
        used = snprintf(t, size, "wind off");
    }
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
    const size_t rest = used > 0 && (size_t)used < size ? size - (size_t)used : 0;
    if (on == 0) {
        snprintf(t + used, rest, "   shape matching off");
    } else if (on == a->scene.body_count && same) {
        snprintf(t + used, rest, "   shape k %.3g N/m, %.3g/s", k, rate);
    } else {
        snprintf(t + used, rest, "   shape matching on %d of %d bodies", on, a->scene.body_count);
    }
}

// The implicit solver on the last world step: "iters N  newton M  res X
// m/s" (the last Newton step's largest velocity change), marked when it
// missed the tolerance. False when it was not met.
static bool solver_line(const app *a, char *t, size_t size) {
    const psb_solver_report r = psb_world_solver_report(a->scene.world);
    if (r.newton == 0 && !r.converged) {
        // Nothing solved yet: the report is an explicit step's zeros.
        snprintf(t, size, "iters -  res -  (no implicit step yet)");
        return true;
    }
    const double tol = psb_world_params(a->scene.world)->solver_tol;
    if (r.converged) {
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
        snprintf(f.frame, sizeof f.frame, "%5.1f fps %6.2f ms/frame", a->fps, a->frame_ms);
    } else {
        snprintf(f.frame, sizeof f.frame, "  ... fps    ... ms/frame");
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

// Top left of the 2D view: the scene, frame rate, time, the integrator (with
// the implicit solver's work) and the parameters.
static void status_panel(app *a) {
    const float s = a->ui_scale, pad = 6.0f * s, lh = LINE * s;
    const psb_params *p = psb_world_params(a->scene.world);
    const psb_body_params *m = a->scene.body_count > 0 ? psb_body_get_params(a->scene.world, 0)
                                                       : &a->scene.config.params.body;
    const float x = a->view2d.x + pad, y0 = a->view2d.y + pad;
    const float w = fminf(a->view2d.w - 2.0f * pad, 62.0f * 6.0f * s);
    const bool blowup = app_blowup_live(a);
    char t[TEXT_MAX];
    scene_line(a, t, sizeof t);
    const int scene_lines = wrapped_lines(a, t, s, w, 3);
    const int blowup_lines = blowup ? wrapped_lines(a, a->blowup, s, w, BLOWUP_LINES) : 0;
    const bool implicit = psb_integrator_is_implicit(p->integrator);
    const figure_text f = figures(a);
    char both[TEXT_MAX];
    snprintf(both, sizeof both, "%s   %s", f.time, f.steps);
    const bool joined = ui_text_width(a, both, s) <= w;
    const int lines = 7 + (joined ? 0 : 1) + (implicit ? 1 : 0) + scene_lines + blowup_lines;
    panel(a, x - pad * 0.5f, y0 - pad * 0.5f, w + pad, lines * lh + pad, 0.72f);
    float y = y0;
    y += lh * (float)text_wrapped(a, x, y, s, warn, t, w, 3);
    float cx = x + ui_text(a, x, y, s, white, "psb ");
    cx += ui_text(a, cx, y, s, a->fps >= 55.0 || !a->measured ? good : warn, f.frame);
    snprintf(t, sizeof t, "  physics %.2f ms", a->sim_ms);
    ui_text(a, cx, y, s, white, a->measured ? t : "");
    y += lh;
    if (joined) {
        ui_text(a, x, y, s, a->slow_motion ? warn : white, both);
    } else {
        ui_text(a, x, y, s, a->slow_motion ? warn : white, f.time);
        y += lh;
        ui_text(a, x, y, s, white, f.steps);
    }
    y += lh;
    if (implicit) {
        snprintf(t, sizeof t, "%s  dt %.2f ms  h %.3f ms (stable at any h)%s",
                 psb_integrator_name(p->integrator), 1000.0 * p->dt, 1000.0 * p->dt / p->substeps,
                 a->paused ? "  PAUSED" : "");
    } else {
        snprintf(t, sizeof t, "%s  dt %.2f ms  h %.3f ms (stable < %.3f ms)%s",
                 psb_integrator_name(p->integrator), 1000.0 * p->dt, 1000.0 * p->dt / p->substeps,
                 1000.0 * a->scene.stable_substep, a->paused ? "  PAUSED" : "");
    }
    ui_text(a, x, y, s, a->paused ? warn : white, t);
    y += lh;
    if (implicit) {
        const bool converged = solver_line(a, t, sizeof t);
        ui_text(a, x, y, s, converged ? white : warn, t);
        y += lh;
    }
    // Loaded models have stiffnesses of their own: the range over the bodies.
    double ks_lo = m->spring_k, ks_hi = m->spring_k;
    for (int b = 1; b < a->scene.body_count; b++) {
        const double k = psb_body_get_params(a->scene.world, b)->spring_k;
        ks_lo = fmin(ks_lo, k);
        ks_hi = fmax(ks_hi, k);
    }
    if (ks_lo == ks_hi) {
        snprintf(t, sizeof t, "g %.3g m/s^2   ks %.4g N/m   kd %.3g N*s/m   mass %.3g kg",
                 p->gravity, ks_lo, m->spring_damping, m->mass);
    } else {
        // Narrower, to stay inside the panel.
        snprintf(t, sizeof t, "g %.3g m/s^2  ks %.5g-%.5g N/m  kd %.3g N*s/m  mass %.3g kg",
                 p->gravity, ks_lo, ks_hi, m->spring_damping, m->mass);
    }
    ui_text(a, x, y, s, dim, t);
    y += lh;
    snprintf(t, sizeof t, "gas x%.3g   restitution %.2g   friction %.3g/s   grab %.3g N/m",
             a->gas_scale, p->restitution, p->friction, a->config.grab_k);
    ui_text(a, x, y, s, dim, t);
    y += lh;
    wind_shape_line(a, t, sizeof t);
    ui_text(a, x, y, s, dim, t);
    y += lh;
    ui_text(a, x, y, s, dim, "H: help   Space: pause   Tab: next scene");
    y += lh;
    if (blowup) {
        text_wrapped(a, x, y, s, warn, a->blowup, w, BLOWUP_LINES);
    }
}

// The body table's columns, in character cells of 6 px at scale 1 from its
// left edge; the last is its right edge.
static const float table_col[8] = {0.0f, 17.0f, 29.0f, 37.0f, 49.0f, 59.0f, 70.0f, 74.0f};

float ui_table_name(const app *a, int b, char *out, size_t size) {
    const float s = a->ui_scale, cw = 6.0f * s;
    // The name column, less one cell of space before the next.
    const float max_w = (table_col[1] - 1.0f) * cw;
    ui_text_elide(a, a->scene.bodies[b].label, s, max_w, out, size);
    return max_w;
}

// Top left of the 3D view: one row per body, a long name shortened in the
// middle (the hover shows it whole). Returns its right edge, pixels.
static float body_table(app *a) {
    const float s = a->ui_scale, pad = 6.0f * s, lh = LINE * s;
    const float x = a->view3d.x + pad, y0 = a->view3d.y + pad;
    const float *col = table_col;
    const float cw = 6.0f * s;
    // The row whose shortened name is under the cursor, if any.
    const float cx = (float)(a->win_w > 0 ? a->cursor_x * a->fb_w / a->win_w : a->cursor_x);
    const float cy = (float)(a->win_h > 0 ? a->cursor_y * a->fb_h / a->win_h : a->cursor_y);
    a->tooltip_body = -1;
    panel(a, x - pad * 0.5f, y0 - pad * 0.5f, col[7] * cw + pad,
          (float)(a->scene.body_count + 1) * lh + pad, 0.6f);
    const char *heads[7] = {"body", "V", "V/V0", "P", "E (J)", "shape", "pins"};
    for (int c = 0; c < 7; c++) {
        ui_text(a, x + col[c] * cw, y0, s, dim, heads[c]);
    }
    for (int b = 0; b < a->scene.body_count; b++) {
        const psb_body_state *st = &a->state[b];
        const psb_body_params *m = psb_body_get_params(a->scene.world, b);
        const float y = y0 + (float)(b + 1) * lh;
        const float *c = a->scene.bodies[b].color;
        const rgba bc = rgba_f(c[0], c[1], c[2], 1.0f);
        char t[TEXT_MAX];
        const float name_w = ui_table_name(a, b, t, sizeof t);
        ui_text(a, x, y, s, bc, t);
        if (strcmp(t, a->scene.bodies[b].label) != 0 && cx >= x && cx < x + name_w && cy >= y &&
            cy < y + lh) {
            a->tooltip_body = b;
        }
        if (psb_body_get_kind(a->scene.world, b) == PSB_CLOTH) {
            ui_text(a, x + col[1] * cw, y, s, dim, "cloth: no gas");
        } else {
            snprintf(t, sizeof t, "%.4g %s", st->volume, a->vertex_base[b] < 0 ? "m^2" : "m^3");
            ui_text(a, x + col[1] * cw, y, s, white, t);
            snprintf(t, sizeof t, "%.3f",
                     st->rest_volume > 0.0 ? st->volume / st->rest_volume : 0.0);
            ui_text(a, x + col[2] * cw, y, s, white, t);
            snprintf(t, sizeof t, "%.4g %s", st->pressure, pressure_unit(a, b));
            ui_text(a, x + col[3] * cw, y, s, white, t);
        }
        // Rounding leaves crumbs like 1e-26 J where the energy is 0.
        snprintf(t, sizeof t, "%.4g", fabs(st->energy) < 1e-9 ? 0.0 : st->energy);
        ui_text(a, x + col[4] * cw, y, s, white, t);
        if (m->shape_k > 0.0 || m->shape_damping > 0.0) {
            snprintf(t, sizeof t, "%.3g N/m %.3g/s", m->shape_k, m->shape_damping);
            ui_text(a, x + col[5] * cw, y, s, white, t);
        } else {
            ui_text(a, x + col[5] * cw, y, s, dim, "off");
        }
        snprintf(t, sizeof t, "%d", st->pinned);
        ui_text(a, x + col[6] * cw, y, s, st->pinned > 0 ? white : dim, t);
    }
    return x + col[7] * cw + pad;
}

// Bottom of the 3D view: the overlay keys (lit when on) and the last message.
static void footer(app *a) {
    const float s = a->ui_scale, pad = 6.0f * s, lh = LINE * s;
    static const char *const names[OVERLAY_COUNT] = {"V velocity", "N normals", "F pressure",
                                                     "W springs", "C strain"};
    float x = a->view3d.x + pad;
    const float y = a->view3d.y + a->view3d.h - pad - lh;
    for (int o = 0; o < OVERLAY_COUNT; o++) {
        const float w = ui_text_width(a, names[o], s);
        if (a->overlay[o]) {
            const rgba on = rgba_f(0.85f, 0.62f, 0.25f, 0.85f);
            batch_rect(&a->ui_back, x - 2.0f * s, y - 2.0f * s, x + w + 2.0f * s, y + lh - 2.0f * s,
                       on, on);
        }
        ui_text(a, x, y, s, a->overlay[o] ? (rgba){20, 20, 24, 255} : dim, names[o]);
        x += w + 10.0f * s;
    }
    if (a->overlay[OVERLAY_STRAIN]) {
        ui_text(a, x, y, s, dim, "(blue -30% .. red +30%)");
    }
    a->message_shown = app_message_live(a);
    if (a->message_shown) {
        const float max_w = a->view3d.w - 2.0f * pad;
        const float w = fminf(ui_text_width(a, a->message, s), max_w);
        const int lines = wrapped_lines(a, a->message, s, max_w, MESSAGE_LINES);
        const float my = y - ((float)lines + 0.4f) * lh;
        panel(a, a->view3d.x + pad * 0.5f, my - pad * 0.5f, w + pad, (float)lines * lh + pad,
              0.72f);
        text_wrapped(a, a->view3d.x + pad, my, s, a->message_error ? bad : white, a->message, max_w,
                     lines);
    }
    if (a->paused) {
        const char *t = "PAUSED  (Space: run, S: one step)";
        const float w = ui_text_width(a, t, s * 1.5f);
        ui_text(a, a->view3d.x + 0.5f * (a->view3d.w - w), a->view3d.y + 3.0f * lh, s * 1.5f, warn,
                t);
    }
}

// The whole name of the body under the cursor in the table, over its
// shortened one (drawn over the other panels).
static void name_tooltip(app *a) {
    const int b = a->tooltip_body;
    if (b < 0) {
        return;
    }
    const float s = a->ui_scale, pad = 6.0f * s, lh = LINE * s;
    const float x = a->view3d.x + pad, y = a->view3d.y + pad + (float)(b + 1) * lh;
    const char *name = a->scene.bodies[b].label;
    panel(a, x - 0.5f * pad, y - 0.25f * pad, ui_text_width(a, name, s) + pad, lh, 0.95f);
    const float *c = a->scene.bodies[b].color;
    ui_text(a, x, y, s, rgba_f(c[0], c[1], c[2], 1.0f), name);
}

static void help_overlay(app *a) {
    static const char *const rows[][2] = {
        {"MOUSE, 3D VIEW (RIGHT)", ""},
        {"left drag on a body", "grab the point under the cursor and pull it"},
        {"left drag on a pinned point", "move its pin"},
        {"left drag elsewhere", "orbit the camera"},
        {"shift+left or right click", "poke a body: a finger pushed in (held while pressed)"},
        {"right or middle drag", "pan"},
        {"wheel", "zoom"},
        {"MOUSE, 2D VIEW (LEFT)", ""},
        {"left drag on the ring", "grab its nearest point and pull it (or move its pin)"},
        {"shift+left or right click", "poke the ring"},
        {"wheel", "zoom the 2D view"},
        {"KEYS", ""},
        {"1 .. 9", NULL}, // the scenes' names, from their table
        {"Tab  (shift+Tab)", "next (previous) scene, the loaded OBJ files last"},
        {"Space", "pause / run"},
        {"S", "one step (pauses)"},
        {"R", "reset the bodies"},
        {"+  -", "gas amount up / down (x1.25)"},
        {"]  [", "spring stiffness up / down (x1.25)"},
        {"I  (shift+I)", "next (previous) integrator: euler .. implicit"},
        {"G", "gravity on / off"},
        {"T", "pin / unpin the held point (or the one under the cursor)"},
        {"M", "shape matching on / off for every body"},
        {"B", "wind on / off"},
        {"V  N  F", "velocity vectors, normals, pressure forces"},
        {"W  C", "spring wireframe, colour by spring strain"},
        {"Z  or  Home", "reset the camera and the 2D view to the scene's"},
        {"P  or  F12", "screenshot: psb-screenshot-NNN.png"},
        {"E", "export every body: body<b>_step<s>.obj"},
        {"Backspace", "back to the built-in scene after loading OBJ files"},
        {"H  or  F1", "this help"},
        {"Q  or  Esc", "quit"},
        {"Drop OBJ files on the window to load them.", ""},
    };
    const int count = (int)(sizeof rows / sizeof rows[0]);
    const float s = a->ui_scale, lh = LINE * s, pad = 12.0f * s;
    const float key_w = 30.0f * 6.0f * s, w = key_w + 52.0f * 6.0f * s;
    const float h = (float)(count + 1) * lh + 2.0f * pad;
    const float x0 = fmaxf(0.0f, 0.5f * ((float)a->fb_w - w - 2.0f * pad));
    const float y0 = fmaxf(0.0f, 0.5f * ((float)a->fb_h - h));
    panel(a, x0, y0, w + 2.0f * pad, h, 0.95f);
    float y = y0 + pad;
    ui_text(a, x0 + pad, y, s, warn, "psb viewer: keys and mouse (H to close)");
    y += lh;
    const int scenes = psb_scene_count() < 9 ? psb_scene_count() : 9;
    char keys[16], names[TEXT_MAX] = "scene: ";
    snprintf(keys, sizeof keys, "1 .. %d", scenes);
    for (int i = 0; i < scenes; i++) {
        const size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", psb_scene_name(i));
    }
    for (int r = 0; r < count; r++) {
        const bool scene_row = rows[r][1] == NULL;
        const bool heading = !scene_row && rows[r][1][0] == '\0';
        ui_text(a, x0 + pad, y, s, heading ? warn : white, scene_row ? keys : rows[r][0]);
        ui_text(a, x0 + pad + key_w, y, s, dim, scene_row ? names : rows[r][1]);
        y += lh;
    }
}

// The views' names, where the panels leave room (table_right: the body
// table's right edge).
static void view_labels(app *a, float table_right) {
    const float s = a->ui_scale, pad = 6.0f * s;
    const char *left = "2D (orthographic)";
    const char *right = a->models_loaded ? "3D: loaded models" : "3D (perspective)";
    ui_text(a, a->view2d.x + a->view2d.w - ui_text_width(a, left, s) - pad,
            a->view2d.y + a->view2d.h - pad - LINE * s, s, dim, left);
    const float right_x = a->view3d.x + a->view3d.w - ui_text_width(a, right, s) - pad;
    if (right_x > table_right) {
        ui_text(a, right_x, a->view3d.y + pad, s, dim, right);
    }
}

void ui_build(app *a) {
    if (a->text_scale != a->ui_scale && !text_atlas_build(a, a->ui_scale)) {
        return; // no memory for the atlas: no HUD this frame
    }
    a->text_cut = 0;
    backgrounds(a);
    plots_build(a);
    status_panel(a);
    view_labels(a, body_table(a));
    footer(a);
    a->ui_back_top = a->ui_back.count;
    a->ui_text_top = a->ui_text.count;
    if (a->help) {
        help_overlay(a);
    } else {
        name_tooltip(a);
    }
}
