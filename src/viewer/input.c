// Mouse and keyboard: orbit, pan, zoom; grab, drag, poke and pin bodies in
// both views (what is under the cursor: pick.c); the keys.
#include "input.h"

#include "controls.h"
#include "layout.h"
#include "models.h"
#include "panel.h"
#include "pick.h"
#include "poke.h"
#include "scenes.h"
#include "stage.h"
#include "status.h"
#include <psb/psb_export.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static app *app_of(GLFWwindow *window) {
    return glfwGetWindowUserPointer(window);
}

// Window coordinates to framebuffer pixels.
static void to_fb(const app *a, double x, double y, double *fx, double *fy) {
    *fx = a->win_w > 0 ? x * a->fb_w / a->win_w : x;
    *fy = a->win_h > 0 ? y * a->fb_h / a->win_h : y;
}

static void start_grab(app *a, int b, int point, bool in_2d, const double hit[3]) {
    grab_state *g = &a->grab;
    g->body = b;
    g->point = point;
    g->in_2d = in_2d;
    g->start = psb_body_positions(a->scene.world, b)[point];
    for (int i = 0; i < 3; i++) {
        g->plane_p[i] = hit[i];
    }
    if (in_2d) {
        g->plane_n[0] = g->plane_n[1] = 0.0;
        g->plane_n[2] = 1.0;
    } else {
        float eye[3];
        camera_eye(&a->cam, eye);
        double n[3], len = 0.0;
        for (int i = 0; i < 3; i++) {
            n[i] = a->cam.target[i] - eye[i];
            len += n[i] * n[i];
        }
        len = sqrt(len);
        for (int i = 0; i < 3; i++) {
            g->plane_n[i] = n[i] / len;
        }
    }
    g->target = (psb_vec3){hit[0], hit[1], hit[2]};
    // A pinned point's pin moves with the cursor, keeping its offset from
    // the picked spot (so that it does not jump to it).
    g->pin_offset = (psb_vec3){0.0, 0.0, 0.0};
    if (psb_body_is_pinned(a->scene.world, b, point)) {
        g->pin_offset = (psb_vec3){g->start.x - hit[0], g->start.y - hit[1], g->start.z - hit[2]};
    }
    psb_body_grab(a->scene.world, b, point, g->target, a->config.grab_k);
    g->grabs++;
    a->drag = DRAG_GRAB;
}

// Pins point `point` of body b at `at` (or moves its pin there), and
// remembers it for the report.
static bool move_pin(app *a, int b, int point, psb_vec3 at) {
    grab_state *g = &a->grab;
    const bool same = g->pin_body == b && g->pin_point == point && g->pin_at.x == at.x &&
                      g->pin_at.y == at.y && g->pin_at.z == at.z &&
                      psb_body_is_pinned(a->scene.world, b, point);
    if (same) {
        return true;
    }
    psb_error err = {0};
    if (psb_body_pin(a->scene.world, b, point, at, &err) != PSB_OK) {
        status_message(a, true, "pin: %s", err.message);
        return false;
    }
    g->pin_body = b;
    g->pin_point = point;
    g->pin_at = psb_body_positions(a->scene.world, b)[point];
    return true;
}

void input_update_grab(app *a) {
    grab_state *g = &a->grab;
    if (g->body < 0) {
        return;
    }
    // The core lets go by itself when a blow-up resets the body.
    if (psb_body_grabbed_point(a->scene.world, g->body) != g->point) {
        g->body = -1;
        a->drag = DRAG_NONE;
        return;
    }
    double fx, fy;
    to_fb(a, a->cursor_x, a->cursor_y, &fx, &fy);
    psb_vec3 target;
    if (g->in_2d) {
        layout_fb_to_2d(a, fx, fy, &target.x, &target.y);
        target.z = 0.0;
    } else {
        double o[3], d[3];
        if (!pick_ray3d(a, fx, fy, o, d)) {
            return;
        }
        const double *n = g->plane_n;
        const double denom = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
        if (fabs(denom) < 1e-6) {
            return;
        }
        // Ray o + t d meets the plane (x - p) . n = 0 at t.
        const double t = ((g->plane_p[0] - o[0]) * n[0] + (g->plane_p[1] - o[1]) * n[1] +
                          (g->plane_p[2] - o[2]) * n[2]) /
                         denom;
        if (!(t > 0.0) || !isfinite(t)) {
            return;
        }
        target = (psb_vec3){o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]};
    }
    g->target = target;
    psb_body_grab_move(a->scene.world, g->body, target);
    if (psb_body_is_pinned(a->scene.world, g->body, g->point)) {
        move_pin(a, g->body, g->point,
                 (psb_vec3){target.x + g->pin_offset.x, target.y + g->pin_offset.y,
                            target.z + g->pin_offset.z});
    }
}

static void end_drag(app *a) {
    if (a->drag == DRAG_GRAB && a->grab.body >= 0) {
        psb_body_release(a->scene.world, a->grab.body);
        a->grab.body = -1;
    }
    if (a->drag == DRAG_POKE) {
        poke_release(a);
    }
    if (a->drag == DRAG_PANEL) {
        panel_release(a);
    }
    a->drag = DRAG_NONE;
}

// The drag ends without its button's release (the focus lost, the help
// shown): as a release does, but a value pressed is not opened for typing.
static void drop_drag(app *a) {
    if (a->drag == DRAG_PANEL) {
        panel_cancel_drag(a);
    }
    end_drag(a);
}

static void press3d(app *a, int button, int mods, double fx, double fy) {
    double o[3], d[3], hit[3];
    int body = -1, point = -1;
    const bool hit_body = pick_ray3d(a, fx, fy, o, d) && pick_3d(a, o, d, &body, &point, hit);
    const bool poke_mode = button == GLFW_MOUSE_BUTTON_RIGHT ||
                           (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_SHIFT));
    if (hit_body && poke_mode) {
        poke_start(a, body, hit, d);
        a->drag = DRAG_POKE;
    } else if (hit_body && button == GLFW_MOUSE_BUTTON_LEFT) {
        start_grab(a, body, point, false, hit);
    } else if (button == GLFW_MOUSE_BUTTON_LEFT) {
        a->drag = DRAG_ORBIT;
    } else {
        a->drag = DRAG_PAN;
    }
}

static void press2d(app *a, int button, int mods, double fx, double fy) {
    double wx, wy;
    layout_fb_to_2d(a, fx, fy, &wx, &wy);
    int body = -1, point = -1;
    if (!pick_2d(a, wx, wy, &body, &point)) {
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_RIGHT || (mods & GLFW_MOD_SHIFT)) {
        pick_poke2d(a, body, point);
    } else if (button == GLFW_MOUSE_BUTTON_LEFT) {
        const double at[3] = {wx, wy, 0.0};
        start_grab(a, body, point, true, at);
    }
}

void input_button(app *a, int button, int action, int mods) {
    a->mods = mods;
    if (action == GLFW_RELEASE) {
        if (button == a->drag_button) {
            end_drag(a);
        }
        return;
    }
    if (action != GLFW_PRESS || a->drag != DRAG_NONE) {
        return;
    }
    if (a->help) {
        // The help is opaque: what it hides is not picked, grabbed, poked,
        // orbited or set. A press closes it and does nothing else.
        a->help = false;
        return;
    }
    double fx, fy;
    to_fb(a, a->cursor_x, a->cursor_y, &fx, &fy);
    a->drag_button = button;
    if (panel_press(a, button, fx, fy)) {
        return; // over the parameter panel: nothing is picked, grabbed or orbited
    }
    if (rect_contains(a->view3d, fx, fy)) {
        press3d(a, button, mods, fx, fy);
    } else if (rect_contains(a->view2d, fx, fy)) {
        press2d(a, button, mods, fx, fy);
    }
}

void input_cursor(app *a, double x, double y) {
    double fx0, fy0, fx1, fy1;
    const double x0 = a->cursor_x, y0 = a->cursor_y;
    to_fb(a, a->cursor_x, a->cursor_y, &fx0, &fy0);
    to_fb(a, x, y, &fx1, &fy1);
    a->cursor_x = x;
    a->cursor_y = y;
    const float dx = (float)(fx1 - fx0), dy = (float)(fy1 - fy0);
    switch (a->drag) {
    case DRAG_ORBIT:
        // So many degrees per pixel of the screen, as Blender orbits.
        camera_orbit(&a->cam, (float)(x - x0), (float)(y - y0));
        break;
    case DRAG_PAN:
        camera_pan(&a->cam, dx, dy, a->view3d.w, a->view3d.h);
        break;
    case DRAG_GRAB:
        input_update_grab(a);
        break;
    case DRAG_PANEL:
        panel_drag(a, fx1, fy1);
        break;
    case DRAG_POKE:
    case DRAG_NONE:
        break;
    }
}

void input_scroll(app *a, double dx, double dy) {
    (void)dx;
    if (a->help) {
        return; // over the opaque help: nothing zooms unseen
    }
    double fx, fy;
    to_fb(a, a->cursor_x, a->cursor_y, &fx, &fy);
    if (rect_contains(a->view2d, fx, fy)) {
        a->view2d_zoom =
            fminf(fmaxf(a->view2d_zoom * powf(CAMERA_ZOOM_STEP, (float)dy), 0.25f), 6.0f);
    } else if (rect_contains(a->view3d, fx, fy)) {
        camera_zoom(&a->cam, (float)dy);
    }
}

// psb-screenshot-001.png, -002, ...: the first name not taken.
static void request_screenshot(app *a) {
    for (int i = 1; i < 1000; i++) {
        snprintf(a->screenshot_path, sizeof a->screenshot_path, "psb-screenshot-%03d.png", i);
        if (access(a->screenshot_path, F_OK) != 0) {
            a->screenshot_now = true;
            return;
        }
    }
    status_message(a, true, "screenshot: psb-screenshot-001..999.png are all taken");
}

// E: every body as it is now, one OBJ file each, into --export-dir; as
// `psb sim --export-obj` writes them.
static void export_frame(app *a) {
    const char *dir = a->config.export_dir;
    int written = 0;
    psb_error err = {0};
    if (psb_export_obj_frame(a->scene.world, a->scene.bodies, dir,
                             psb_export_frame_of(a->scene.world), &written, &err) != PSB_OK) {
        status_message(a, true, "export: %s", err.message);
        return;
    }
    char first[PATH_SIZE];
    psb_export_obj_path(first, sizeof first, dir, 0, psb_world_step_count(a->scene.world));
    status_message(a, false, "export: wrote %d file%s: %s%s", written, written == 1 ? "" : "s",
                   first, written > 1 ? " ..." : "");
}

static void toggle_overlay(app *a, overlay which, const char *name) {
    a->overlay[which] = !a->overlay[which];
    status_message(a, false, "%s %s", name, a->overlay[which] ? "on" : "off");
}

// Keys that repeat while held: the controls that scale (within the
// ranges of the core's table, as the panel's).
static bool repeat_key(app *a, int key) {
    switch (key) {
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
        control_scale(a, CONTROL_GAS, 1.25);
        return true;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
        control_scale(a, CONTROL_GAS, 1.0 / 1.25);
        return true;
    case GLFW_KEY_RIGHT_BRACKET:
        control_scale(a, CONTROL_KS, 1.25);
        return true;
    case GLFW_KEY_LEFT_BRACKET:
        control_scale(a, CONTROL_KS, 1.0 / 1.25);
        return true;
    case GLFW_KEY_S:
        a->paused = true;
        a->step_requests++;
        return true;
    default:
        return false;
    }
}

// The point nearest the cursor on the body under it (the 3D pick, or the
// ring point nearest the cursor in 2D).
static bool point_under_cursor(app *a, int *body, int *point) {
    double fx, fy;
    to_fb(a, a->cursor_x, a->cursor_y, &fx, &fy);
    if (rect_contains(a->view3d, fx, fy)) {
        double o[3], d[3], hit[3];
        return pick_ray3d(a, fx, fy, o, d) && pick_3d(a, o, d, body, point, hit);
    }
    if (rect_contains(a->view2d, fx, fy)) {
        double wx, wy;
        layout_fb_to_2d(a, fx, fy, &wx, &wy);
        return pick_2d(a, wx, wy, body, point);
    }
    return false;
}

// The pinned point whose marker is nearest the cursor, within PIN_REACH_PX
// pixels (a marker stays visible where the cloth folds over its point).
#define PIN_REACH_PX 8.0
static bool pin_under_cursor(app *a, int *body, int *point) {
    double best = PIN_REACH_PX * PIN_REACH_PX;
    bool found = false;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (psb_body_pin_count(a->scene.world, b) == 0) {
            continue;
        }
        const int n = psb_body_point_count(a->scene.world, b);
        for (int i = 0; i < n; i++) {
            double x, y;
            if (!psb_body_is_pinned(a->scene.world, b, i) ||
                !input_point_screen_pos(a, b, i, &x, &y)) {
                continue;
            }
            const double d2 =
                (x - a->cursor_x) * (x - a->cursor_x) + (y - a->cursor_y) * (y - a->cursor_y);
            if (d2 <= best) {
                best = d2;
                *body = b;
                *point = i;
                found = true;
            }
        }
    }
    return found;
}

// T: pins the held point where the cursor holds it, or frees it if it is
// pinned; with nothing held, frees the pin whose marker is under the
// cursor, or else pins the point under the cursor where it is.
static void toggle_pin(app *a) {
    grab_state *g = &a->grab;
    psb_world *w = a->scene.world;
    int body = g->body, point = g->point;
    if (body < 0 && !pin_under_cursor(a, &body, &point) && !point_under_cursor(a, &body, &point)) {
        status_message(a, false, "T: grab a point first (or point at a body), then T pins it");
        return;
    }
    const char *label = a->scene.bodies[body].label;
    if (psb_body_is_pinned(w, body, point)) {
        psb_body_unpin(w, body, point);
        g->unpins++;
        g->pin_body = body;
        g->pin_point = point;
        status_message(a, false, "unpinned point %d of %s (%d pinned)", point, label,
                       psb_body_pin_count(w, body));
        return;
    }
    const psb_vec3 at = body == g->body ? g->target : psb_body_positions(w, body)[point];
    if (!move_pin(a, body, point, at)) {
        return;
    }
    if (body == g->body) {
        g->pin_offset = (psb_vec3){0.0, 0.0, 0.0};
    }
    g->pins++;
    status_message(
        a, false,
        "pinned point %d of %s at (%.2f, %.2f, %.2f) m; drag it to move the pin, T on it "
        "to free it",
        point, label, g->pin_at.x, g->pin_at.y, g->pin_at.z);
}

// Shift+K: the contact of one body with the others (and with itself, where
// self contact is on) off, or on again (psb_body_params.contact): the body
// held, else the one under the cursor. K switches contact for the whole
// world; R keeps what shift+K set, a new scene starts with every body on.
static void toggle_body_contact(app *a) {
    int body = a->grab.body, point = a->grab.point;
    if (body < 0 && !point_under_cursor(a, &body, &point)) {
        status_message(a, false,
                       "shift+K: point at a body (or hold one), then shift+K switches its contact "
                       "with the other bodies off or on");
        return;
    }
    psb_world *w = a->scene.world;
    psb_body_params p = *psb_body_get_params(w, body);
    p.contact = !p.contact;
    psb_error err = {0};
    if (psb_body_set_params(w, body, &p, &err) != PSB_OK) {
        status_message(a, true, "%s", err.message);
        return;
    }
    const char *label = a->scene.bodies[body].label;
    if (!p.contact) {
        status_message(a, false,
                       "%s: contact off, the other bodies pass through it (shift+K on it: on)",
                       label);
    } else {
        status_message(a, false, "%s: contact on%s", label,
                       a->contact_on ? "" : " (contact between bodies is off for every body: K)");
    }
}

// M: shape matching off for every body when any has it, else on for every
// body with the configured k_shape and damping (so the shape scene's
// deliberately different bodies all switch together).
static void toggle_shape(app *a) {
    bool any = false;
    for (int b = 0; b < a->scene.body_count; b++) {
        const psb_body_params *p = psb_body_get_params(a->scene.world, b);
        any = any || p->shape_k > 0.0 || p->shape_damping > 0.0;
    }
    a->shape = any ? SHAPE_ALL_OFF : SHAPE_ALL_ON;
    controls_apply(a);
    const psb_scene_config *c = &a->config.scene_config;
    if (any) {
        status_message(a, false, "shape matching off for every body");
    } else {
        status_message(a, false,
                       "shape matching on for every body: k_shape %.3g N/m, damping %.3g/s",
                       c->shape_k, c->shape_damping);
    }
}

// B: the wind off, or on again (the scene's own, or the configured one).
static void toggle_wind(app *a) {
    psb_params configured = a->config.scene_config.params;
    configured.wind = a->wind;
    configured.wind_turbulence = a->wind_turbulence;
    const bool blowing = psb_params_wind_blows(&configured);
    if (!a->wind_on && !blowing) {
        status_message(a, false, "no wind to switch on: give one with --wind X,Y,Z");
        return;
    }
    a->wind_on = !a->wind_on;
    controls_apply(a);
    if (a->wind_on) {
        status_message(a, false, "wind on: (%.3g, %.3g, %.3g) m/s, gusts %.3g m/s", a->wind.x,
                       a->wind.y, a->wind.z, a->wind_turbulence);
    } else {
        status_message(a, false, "wind off");
    }
}

// I and shift+I: the next or previous integrator (step 1 or COUNT - 1).
// controls_apply chooses the sub-steps again: with --substeps auto, one
// for implicit (stable at any step), the stable count for the others.
static void cycle_integrator(app *a, int step) {
    a->integrator = (psb_integrator)(((int)a->integrator + step) % PSB_INTEGRATOR_COUNT);
    a->integrator_chosen = true;
    controls_apply(a);
    const int substeps = psb_world_params(a->scene.world)->substeps;
    status_message(a, false, "integrator: %s, %d sub-step%s", psb_integrator_name(a->integrator),
                   substeps, substeps == 1 ? "" : "s");
}

// '.' and ',': the models scene's next or previous model; elsewhere, how
// to get there.
static void step_model(app *a, int step) {
    if (!a->models_scene) {
        status_message(a, false, "'.' and ',' step through the models scene's models: %d shows it",
                       psb_viewer_scene_find(MODELS_SCENE) + 1);
        return;
    }
    models_show(a, a->model_entry + step);
}

// Digits pick a scene of the list; Tab and shift+Tab step through it.
static void scene_key(app *a, int key, int mods) {
    const int entries = scenes_entries(a);
    if (key == GLFW_KEY_TAB) {
        const int now = scenes_entry(a);
        const int step = (mods & GLFW_MOD_SHIFT) ? entries - 1 : 1;
        scenes_switch(a, ((now < 0 ? 0 : now) + step) % entries);
        return;
    }
    const int entry =
        key >= GLFW_KEY_KP_1 && key <= GLFW_KEY_KP_9 ? key - GLFW_KEY_KP_1 : key - GLFW_KEY_1;
    if (entry < psb_viewer_scene_count()) {
        scenes_switch(a, entry);
    }
}

void input_key(app *a, int key, int action, int mods) {
    a->mods = mods;
    if (panel_key(a, key, action)) {
        return; // a value is being typed: every key is the typing's
    }
    if (action == GLFW_RELEASE || repeat_key(a, key) || action != GLFW_PRESS) {
        return;
    }
    switch (key) {
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q:
        glfwSetWindowShouldClose(a->window, GLFW_TRUE);
        break;
    case GLFW_KEY_SPACE:
        a->paused = !a->paused;
        break;
    case GLFW_KEY_R:
        stage_reset(a);
        status_message(a, false, "reset");
        break;
    case GLFW_KEY_G:
        a->gravity_on = !a->gravity_on;
        controls_apply(a);
        status_message(a, false, "gravity %s", a->gravity_on ? "on" : "off");
        break;
    case GLFW_KEY_K:
        if (mods & GLFW_MOD_SHIFT) {
            toggle_body_contact(a);
            break;
        }
        a->contact_on = !a->contact_on;
        controls_apply(a);
        status_message(a, false, "contact between bodies %s", a->contact_on ? "on" : "off");
        break;
    case GLFW_KEY_I:
        cycle_integrator(a, (mods & GLFW_MOD_SHIFT) ? PSB_INTEGRATOR_COUNT - 1 : 1);
        break;
    case GLFW_KEY_V:
        toggle_overlay(a, OVERLAY_VELOCITY, "velocity vectors");
        break;
    case GLFW_KEY_N:
        toggle_overlay(a, OVERLAY_NORMALS, "normals");
        break;
    case GLFW_KEY_F:
        toggle_overlay(a, OVERLAY_PRESSURE, "pressure forces");
        break;
    case GLFW_KEY_W:
        toggle_overlay(a, OVERLAY_WIREFRAME, "spring wireframe");
        break;
    case GLFW_KEY_C:
        toggle_overlay(a, OVERLAY_STRAIN, "colour by strain");
        break;
    case GLFW_KEY_HOME:
    case GLFW_KEY_Z:
        stage_frame(a);
        break;
    case GLFW_KEY_P:
    case GLFW_KEY_F12:
        request_screenshot(a);
        break;
    case GLFW_KEY_E:
        export_frame(a);
        break;
    case GLFW_KEY_H:
    case GLFW_KEY_F1:
        a->help = !a->help;
        if (a->help) {
            drop_drag(a); // nothing goes on being dragged under the help
        }
        break;
    case GLFW_KEY_O:
    case GLFW_KEY_F2:
        panel_toggle(a);
        break;
    case GLFW_KEY_BACKSPACE:
        if (a->models_loaded && !a->models_scene) {
            scenes_load_builtin(a); // from the files given or dropped
        }
        break;
    case GLFW_KEY_T:
        toggle_pin(a);
        break;
    case GLFW_KEY_M:
        toggle_shape(a);
        break;
    case GLFW_KEY_B:
        toggle_wind(a);
        break;
    case GLFW_KEY_TAB:
        scene_key(a, key, mods);
        break;
    case GLFW_KEY_PERIOD:
    case GLFW_KEY_COMMA:
        step_model(a, key == GLFW_KEY_PERIOD ? 1 : -1);
        break;
    default:
        if ((key >= GLFW_KEY_1 && key <= GLFW_KEY_9) ||
            (key >= GLFW_KEY_KP_1 && key <= GLFW_KEY_KP_9)) {
            scene_key(a, key, mods);
        }
        break;
    }
}

void input_drop(app *a, int count, const char **paths) {
    for (int i = 0; i < count; i++) {
        if (a->pending_count == MAX_PENDING_DROPS) {
            status_message(a, true, "drop: only %d files at a time; the rest are ignored",
                           MAX_PENDING_DROPS);
            return;
        }
        snprintf(a->pending[a->pending_count++], PATH_SIZE, "%s", paths[i]);
    }
}

// Window coordinates of a world point, drawn in the 2D view (a ring's) or the 3D view.
static bool screen_pos(app *a, bool in_2d, psb_vec3 p, double *x, double *y) {
    double fx, fy;
    if (in_2d) {
        layout_2d_to_fb(a, p.x, p.y, &fx, &fy);
    } else {
        const float q[3] = {(float)p.x, (float)p.y, (float)p.z};
        float nx, ny;
        if (!camera_project(&a->cam, a->view3d.h > 0.0f ? a->view3d.w / a->view3d.h : 1.0f, q, &nx,
                            &ny)) {
            return false;
        }
        fx = a->view3d.x + 0.5 * (nx + 1.0) * a->view3d.w;
        fy = a->view3d.y + 0.5 * (1.0 - ny) * a->view3d.h;
    }
    *x = a->fb_w > 0 ? fx * a->win_w / a->fb_w : fx;
    *y = a->fb_h > 0 ? fy * a->win_h / a->fb_h : fy;
    return true;
}

bool input_body_screen_pos(app *a, int body, double *x, double *y) {
    if (body < 0 || body >= a->scene.body_count) {
        return false;
    }
    const psb_body_state s = psb_body_measure(a->scene.world, body);
    return screen_pos(a, psb_body_get_kind(a->scene.world, body) == PSB_RING, s.centroid, x, y);
}

bool input_point_screen_pos(app *a, int body, int point, double *x, double *y) {
    if (body < 0 || body >= a->scene.body_count || point < 0 ||
        point >= psb_body_point_count(a->scene.world, body)) {
        return false;
    }
    const psb_vec3 p = psb_body_positions(a->scene.world, body)[point];
    return screen_pos(a, psb_body_get_kind(a->scene.world, body) == PSB_RING, p, x, y);
}

static void on_cursor(GLFWwindow *window, double x, double y) {
    app *a = app_of(window);
    if (a->script_owns_input) {
        return;
    }
    // A release the window never saw (taken by another window, say) would
    // leave the drag going with the button up: end it here.
    if (a->drag != DRAG_NONE && glfwGetMouseButton(window, a->drag_button) == GLFW_RELEASE) {
        drop_drag(a);
    }
    input_cursor(a, x, y);
}

static void on_button(GLFWwindow *window, int button, int action, int mods) {
    app *a = app_of(window);
    if (!a->script_owns_input) {
        input_button(a, button, action, mods);
    }
}

static void on_scroll(GLFWwindow *window, double dx, double dy) {
    app *a = app_of(window);
    if (!a->script_owns_input) {
        input_scroll(a, dx, dy);
    }
}

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods) {
    (void)scancode;
    app *a = app_of(window);
    if (!a->script_owns_input) {
        input_key(a, key, action, mods);
    }
}

static void on_char(GLFWwindow *window, unsigned int codepoint) {
    app *a = app_of(window);
    if (!a->script_owns_input) {
        panel_char(a, codepoint);
    }
}

static void on_drop(GLFWwindow *window, int count, const char **paths) {
    input_drop(app_of(window), count, paths);
}

// Focus lost: the button's release may go elsewhere, so the drag ends now.
static void on_focus(GLFWwindow *window, int focused) {
    app *a = app_of(window);
    if (!focused && !a->script_owns_input) {
        drop_drag(a);
    }
}

void input_install(app *a) {
    glfwSetCursorPosCallback(a->window, on_cursor);
    glfwSetMouseButtonCallback(a->window, on_button);
    glfwSetScrollCallback(a->window, on_scroll);
    glfwSetKeyCallback(a->window, on_key);
    glfwSetCharCallback(a->window, on_char);
    glfwSetDropCallback(a->window, on_drop);
    glfwSetWindowFocusCallback(a->window, on_focus);
}
