// The viewer's main loop: window, scene, fixed-step simulation, frames.
#include "app.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

psb_viewer_config psb_default_viewer_config(void) {
    psb_viewer_config c;
    memset(&c, 0, sizeof c);
    c.width = 1280;
    c.height = 720;
    c.scene = "default";
    c.export_dir = ".";
    c.vsync = true;
    c.msaa = -1;
    c.grab_k = 100.0;
    c.poke_speed = 4.0; // a fifth of the default sphere's radius in 2 frames
    c.scene_config = psb_default_scene_config();
    c.repair = psb_default_repair_options();
    c.repair.fit_radius = c.scene_config.radius;
    return c;
}

void app_message(app *a, bool error, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, args);
    va_end(args);
    a->message_error = error;
    a->message_time = glfwGetTime();
    a->message_frame = a->frame;
    if (error) {
        fprintf(stderr, "psb view: %s\n", a->message);
    }
}

// How long the HUD shows a message, s of wall time (on the virtual clock:
// as many frames of dt, so that a scripted run shows the same every time).
#define MESSAGE_S       6.0
#define ERROR_MESSAGE_S 20.0

bool app_message_live(const app *a) {
    if (!a->message[0]) {
        return false;
    }
    const double age = a->virtual_clock ? (double)(a->frame - a->message_frame) *
                                              psb_world_params(a->scene.world)->dt
                                        : glfwGetTime() - a->message_time;
    return age < (a->message_error ? ERROR_MESSAGE_S : MESSAGE_S);
}

// A blow-up report is shown for this long of simulated time after the last
// blow-up, s, unless its cause goes first (R, a scene change, a stable step).
#define BLOWUP_S 5.0

bool app_blowup_live(const app *a) {
    return a->blowup[0] && psb_world_time(a->scene.world) - a->blowup_time < BLOWUP_S;
}

void app_reset_bodies(app *a) {
    if (a->grab.body >= 0) {
        psb_body_release(a->scene.world, a->grab.body);
        a->grab.body = -1;
        a->drag = DRAG_NONE;
    }
    for (int b = 0; b < a->scene.body_count; b++) {
        psb_body_reset(a->scene.world, b);
    }
    poke_cancel(a);
    plots_clear(&a->plots);
    a->accumulator = 0.0;
    a->blowup[0] = '\0';
}

// Makes the new scene current: GPU buffers sized for it, the controls
// applied, measures and plots restarted. The old scene is freed.
// What a scene brings with it (its shape matching, its wind) is in force
// after the change; the controls set by the keys and the panel (gas, ks,
// kd, mass, gravity and G, restitution, friction, dt, the integrator once
// chosen) carry over, to every body: a body built with a ks, kd or mass of
// its own scales it as the material's changed (app_body_value).
bool app_install_scene(app *a, psb_scene *next) {
    if (a->grab.body >= 0) {
        a->grab.body = -1;
        a->drag = DRAG_NONE;
    }
    a->grab.pin_body = -1;
    poke_cancel(a);
    psb_scene_destroy(&a->scene);
    a->scene = *next;
    memset(next, 0, sizeof *next);
    for (int b = 0; b < a->scene.body_count; b++) {
        const psb_body_params *built = psb_body_get_params(a->scene.world, b);
        // (The rest volume measured from the body, the one the scene used
        // from its mesh: the same to rounding.)
        const double matched =
            psb_scene_sphere_spring_k(&a->scene.config, a->scene.bodies[b].rest_volume);
        a->ring_matched[b] = a->scene.config.ring_material &&
                             psb_body_get_kind(a->scene.world, b) == PSB_SHELL &&
                             fabs(built->spring_k - matched) <= 1e-9 * matched;
        a->built_spring_k[b] = built->spring_k;
        a->built_damping[b] = built->spring_damping;
        a->built_mass[b] = built->mass;
    }
    a->shape = SHAPE_AS_BUILT;
    a->blowup[0] = '\0';
    // B switches the scene's own wind off and on; in a still scene, the
    // configured one (--wind, or the flag scene's).
    const psb_params *built = psb_world_params(a->scene.world);
    a->wind_on = psb_params_wind_blows(built);
    a->wind = a->wind_on ? built->wind : a->config.scene_config.flag_wind;
    a->wind_turbulence =
        a->wind_on ? built->wind_turbulence : a->config.scene_config.flag_turbulence;
    if (!a->integrator_chosen) {
        // Unless an integrator was chosen (--integrator, the I key): loaded
        // models run with PSB_MODEL_INTEGRATOR, the built-in scenes with the
        // configured one (PSB_SCENE_INTEGRATOR); psb_scene.h says why.
        a->integrator =
            a->models_loaded ? PSB_MODEL_INTEGRATOR : a->config.scene_config.params.integrator;
    }
    app_apply_controls(a);
    plots_clear(&a->plots);
    // A first guess at the cost of a sub-step (30 ns a point), so that a
    // heavy model starts in slow motion instead of freezing the window.
    long points = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        a->state[b] = psb_body_measure(a->scene.world, b);
        points += psb_body_point_count(a->scene.world, b);
    }
    a->substep_ms = 3e-5 * (double)points;
    if (!render_scene_changed(a)) {
        // Buffers that do not fit the scene cannot be drawn from: stop.
        app_message(a, true, "out of memory for the scene's vertex buffers");
        a->exit_status = 1;
        glfwSetWindowShouldClose(a->window, GLFW_TRUE);
        return false;
    }
    return true;
}

// The view of the default scene fits everything below these heights above
// the floor, with room to spare for the bodies as they swell: m.
#define FIT_TOP_3D 2.05
#define FIT_TOP_2D 2.6
// The share of a 2D scene's height beyond FIT_TOP_2D that its view leaves
// free above it.
#define STACK_ROOM_2D 0.3
// Where bodies roll off static spheres, the arena's floor fills at most
// this much of the 3D view's height or width.
#define ARENA_FILL 0.92f

bool app_bodies_box(const app *a, float lo[3], float hi[3]) {
    const psb_world *w = a->scene.world;
    double l[3] = {INFINITY, INFINITY, INFINITY}, h[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int b = 0; b < a->scene.body_count; b++) {
        if (psb_body_get_kind(w, b) == PSB_RING) {
            continue;
        }
        const psb_vec3 *x = psb_body_positions(w, b);
        for (int i = 0; i < psb_body_point_count(w, b); i++) {
            const double p[3] = {x[i].x, x[i].y, x[i].z};
            for (int k = 0; k < 3; k++) {
                l[k] = fmin(l[k], p[k]);
                h[k] = fmax(h[k], p[k]);
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        lo[k] = (float)l[k];
        hi[k] = (float)h[k];
    }
    return isfinite(lo[0] + lo[1] + lo[2] + hi[0] + hi[1] + hi[2]);
}

// The box a loaded model's framing holds spans this fraction of the 3D
// view's height or width, whichever binds: room for the models to swell as
// the gas goes in (the rocker arm reaches V/V0 1.5, 15 % in each direction),
// to spread as they land and to slide.
#define MODEL_FILL 0.8f
// A box this much deeper (along z) than wide is seen from its side.
#define MODEL_DEEP 1.25f

// The 3D camera for loaded models, set once on load and kept steady: it
// frames their whole run, the box from the floor to their top as they
// start (they start in the air, swell there, drop and land where they are,
// so this box holds where they start, fall and rest); from the front (29
// degrees above, as the default camera), or from the side (+x) when the
// models are deeper than wide, so that a long thin part such as the rocker
// arm shows its broad side instead of its end.
static void frame_models(app *a) {
    float lo[3], hi[3];
    if (!app_bodies_box(a, lo, hi)) {
        return;
    }
    lo[1] = fminf(lo[1], (float)psb_world_params(a->scene.world)->floor_y);
    if (hi[2] - lo[2] > MODEL_DEEP * (hi[0] - lo[0])) {
        a->cam.yaw = 0.5f * 3.14159265f;
    }
    const float aspect = a->view3d.h > 0.0f ? a->view3d.w / a->view3d.h : 1.0f;
    camera_fit_box(&a->cam, aspect, lo, hi, MODEL_FILL);
    for (int k = 0; k < 3; k++) {
        a->framed_lo[k] = lo[k];
        a->framed_hi[k] = hi[k];
    }
}

// The scene's reach: the 3D content's top, the 2D content's top and x
// range (the rings, the static spheres' cross-sections with z = 0), m.
typedef struct extent {
    double top3, top2, x0, x1;
} extent;

static extent scene_extent(const app *a) {
    const psb_world *w = a->scene.world;
    const double floor_y = psb_world_params(w)->floor_y;
    extent e = {floor_y, floor_y, INFINITY, -INFINITY};
    for (int b = 0; b < a->scene.body_count; b++) {
        const psb_vec3 *x = psb_body_positions(w, b);
        const bool ring = psb_body_get_kind(w, b) == PSB_RING;
        for (int i = 0; i < psb_body_point_count(w, b); i++) {
            if (ring) {
                e.top2 = fmax(e.top2, x[i].y);
                e.x0 = fmin(e.x0, x[i].x);
                e.x1 = fmax(e.x1, x[i].x);
            } else {
                e.top3 = fmax(e.top3, x[i].y);
            }
        }
    }
    for (int k = 0; k < psb_world_sphere_count(w); k++) {
        psb_vec3 c;
        double r;
        psb_world_sphere(w, k, &c, &r);
        e.top3 = fmax(e.top3, c.y + r);
        if (r * r > c.z * c.z) {
            const double q = sqrt(r * r - c.z * c.z); // the cross-section with z = 0
            e.top2 = fmax(e.top2, c.y + q);
            e.x0 = fmin(e.x0, c.x - q);
            e.x1 = fmax(e.x1, c.x + q);
        }
    }
    return e;
}

// 2D: at zoom 1 the view is 3.1 m tall from 0.3 m below the floor, and
// 3.1 m times its aspect wide; zoom out to fit the rings' (and the
// spheres') width and height, the floor as many pixels up. Nothing covers
// the view (the HUD has its own strip), so all of it is used.
static void frame_2d(app *a, const extent *e) {
    const double floor_y = psb_world_params(a->scene.world)->floor_y;
    double zoom = 1.0;
    if (isfinite(e->top2) && e->top2 > floor_y + FIT_TOP_2D) {
        // Taller than the view at zoom 1 (the pile's stack of rings): room
        // above, a share of the excess, as rings pumped up while stacked
        // push the ones above them up before they fall.
        const double tall = e->top2 - floor_y;
        zoom = fmin(zoom, FIT_TOP_2D / (tall + STACK_ROOM_2D * (tall - FIT_TOP_2D)));
    }
    const double width_1 = 3.1 * a->view2d.w / fmax(a->view2d.h, 1.0);
    if (e->x1 > e->x0 && isfinite(e->x1 - e->x0)) {
        zoom = fmin(zoom, width_1 / (e->x1 - e->x0 + 1.6)); // room for rings to swell
    }
    a->view2d_zoom = (float)fmax(zoom, 0.25);
    a->view2d_center[0] = e->x1 > e->x0 && isfinite(e->x1 + e->x0) ? 0.5 * (e->x0 + e->x1) : 0.0;
    a->view2d_center[1] = floor_y + 1.25 / a->view2d_zoom;
}

void app_frame_2d(app *a) {
    app_layout(a);
    const extent e = scene_extent(a);
    frame_2d(a, &e);
    app_layout(a);
}

void app_frame_scene(app *a) {
    // The views' sizes for this scene (the body table's rows count).
    app_layout(a);
    const psb_world *w = a->scene.world;
    const double floor_y = psb_world_params(w)->floor_y;
    const extent e = scene_extent(a);
    // 3D: the default camera, raised and pulled back for a taller scene.
    a->cam = camera_default();
    const double excess = e.top3 - (floor_y + FIT_TOP_3D);
    if (isfinite(excess) && excess > 0.0) {
        a->cam.target[1] += (float)(0.5 * excess);
        a->cam.distance += (float)(1.2 * excess);
    }
    const psb_params *p = psb_world_params(w);
    if (psb_world_sphere_count(w) > 0 && p->walls) {
        // Bodies roll off the spheres to anywhere between the walls: the
        // whole arena in view, unless the camera sees it all already.
        const float lo[3] = {(float)p->walls_min.x, (float)floor_y, (float)p->walls_min.z};
        const float hi[3] = {(float)p->walls_max.x, (float)e.top3, (float)p->walls_max.z};
        const float aspect = a->view3d.h > 0.0f ? a->view3d.w / a->view3d.h : 1.0f;
        float r[4];
        if (!camera_box_ndc(&a->cam, aspect, lo, hi, r) || r[0] < -ARENA_FILL ||
            r[1] < -ARENA_FILL || r[2] > ARENA_FILL || r[3] > ARENA_FILL) {
            camera_fit_box(&a->cam, aspect, lo, hi, ARENA_FILL);
        }
    }
    for (int k = 0; k < 3; k++) {
        a->framed_lo[k] = INFINITY;
        a->framed_hi[k] = -INFINITY;
    }
    if (a->models_loaded) {
        frame_models(a);
    }
    frame_2d(a, &e);
    app_layout(a);
    layout_forget_bodies(a);
}

bool app_load_scene(app *a, const char *name) {
    if (strcmp(name, MODELS_SCENE) == 0) {
        app_show_models(a, a->model_entry);
        return a->models_scene;
    }
    psb_scene next;
    psb_error err = {0};
    if (psb_scene_build(&next, name, &a->config.scene_config, &err) != PSB_OK) {
        app_message(a, true, "scene %s: %s", name, err.message);
        return false;
    }
    snprintf(a->scene_name, sizeof a->scene_name, "%s", name);
    a->models_loaded = false;
    a->models_scene = false;
    if (!app_install_scene(a, &next)) {
        return false;
    }
    app_frame_scene(a);
    const int index = psb_scene_find(name);
    app_message(a, false, "scene '%s': %s", name, psb_scene_summary(index));
    return true;
}

void app_load_builtin(app *a) {
    char name[sizeof a->scene_name];
    snprintf(name, sizeof name, "%s", a->scene_name);
    app_load_scene(a, name);
}

// The scene list: the viewer's scenes (psb_scene's, then the models
// scene), then the OBJ files given or dropped last, if any.
int app_scene_entry(const app *a) {
    if (a->models_scene) {
        return psb_viewer_scene_find(MODELS_SCENE);
    }
    return a->models_loaded ? psb_viewer_scene_count() : psb_viewer_scene_find(a->scene.name);
}

int app_scene_entries(const app *a) {
    return psb_viewer_scene_count() + (a->model_path_count > 0);
}

void app_switch_scene(app *a, int entry) {
    if (entry >= 0 && entry < psb_viewer_scene_count()) {
        app_load_scene(a, psb_viewer_scene_name(entry));
    } else if (entry == psb_viewer_scene_count() && a->model_path_count > 0) {
        app_reload_files(a);
    }
}

// One world step of `substeps` sub-steps (0: all of them, a whole dt), with
// what follows it: the cost per sub-step, blow-up reports, plots. A partial
// step keeps the sub-step h and shortens the step: dt * substeps / all.
static void step_world(app *a, int substeps) {
    psb_world *world = a->scene.world;
    const psb_params full = *psb_world_params(world);
    const bool partial = substeps > 0 && substeps < full.substeps;
    if (partial) {
        psb_params part = full;
        part.substeps = substeps;
        part.dt = full.dt * substeps / full.substeps;
        psb_world_set_params(world, &part, NULL);
    }
    const double t0 = glfwGetTime();
    const int blown = psb_world_step(world);
    const double ms = 1000.0 * (glfwGetTime() - t0);
    const int done = partial ? substeps : full.substeps;
    a->substep_ms = a->substep_ms > 0.0 ? 0.7 * a->substep_ms + 0.3 * ms / done : ms / done;
    if (partial) {
        psb_world_set_params(world, &full, NULL);
    }
    if (blown > 0) {
        // Shown in the HUD while app_blowup_live says so.
        snprintf(a->blowup, sizeof a->blowup, "%s", psb_world_last_event(world));
        a->blowup_time = psb_world_time(world);
        if (a->blowup_steps < MAX_REPORTED_BLOWUPS) {
            fprintf(stderr, "psb view: %s\n", a->blowup);
        } else if (a->blowup_steps == MAX_REPORTED_BLOWUPS) {
            fprintf(stderr, "psb view: more blow-ups: not reported one by one\n");
        }
        a->blowup_steps++;
        a->blowup_count += blown;
    }
    a->steps_window++;
    plots_sample(a);
}

// Fixed-step simulation: the wall clock (or one dt per frame on a virtual
// clock) fills an accumulator that whole steps of dt drain, at most
// MAX_STEPS_PER_FRAME a frame and no more than PHYSICS_BUDGET_MS of
// physics; a debt beyond that is dropped, so the simulation slows down
// instead of spiralling. A scene whose single step costs more than the
// budget (a fine mesh needs many sub-steps) runs in slow motion: one
// partial step a frame of as many sub-steps as the budget allows, so the
// window stays responsive.
static void advance(app *a, double frame_s) {
    const psb_params *p = psb_world_params(a->scene.world);
    const double dt = p->dt, t_sim = psb_world_time(a->scene.world);
    double elapsed = a->virtual_clock ? dt : fmin(fmax(frame_s, 0.0), 0.25);
    // A frame within 5% of dt counts as dt, so that a display at the step
    // rate gets exactly one step per frame instead of jittering 0 / 2.
    if (fabs(elapsed - dt) < 0.05 * dt) {
        elapsed = dt;
    }
    const double t0 = glfwGetTime();
    const double step_ms = a->substep_ms * p->substeps;
    // Partial steps from a whole step's cost above the budget until it
    // falls below 0.8 of it, so that a cost near the budget does not switch
    // between the two ways every frame.
    a->partial_steps = !a->virtual_clock && (a->partial_steps ? step_ms > 0.8 * PHYSICS_BUDGET_MS
                                                              : step_ms > PHYSICS_BUDGET_MS);
    if (!a->paused && a->partial_steps) {
        const int fit = (int)(PHYSICS_BUDGET_MS / fmax(a->substep_ms, 1e-9));
        a->partial_substeps = fit < 1 ? 1 : fit < p->substeps ? fit : p->substeps;
        step_world(a, a->partial_substeps);
        a->accumulator = 0.0;
    } else if (!a->paused) {
        a->accumulator += elapsed;
        int steps = 0;
        while (a->accumulator >= dt * (1.0 - 1e-9) && steps < MAX_STEPS_PER_FRAME &&
               (a->virtual_clock || 1000.0 * (glfwGetTime() - t0) < PHYSICS_BUDGET_MS)) {
            step_world(a, 0);
            a->accumulator -= dt;
            steps++;
        }
        if (a->accumulator >= dt) {
            a->accumulator = 0.0;
        }
    }
    for (; a->step_requests > 0; a->step_requests--) {
        step_world(a, 0);
    }
    a->physics_window_ms += 1000.0 * (glfwGetTime() - t0);
    a->sim_window += psb_world_time(a->scene.world) - t_sim;
}

// The HUD's figures are measured over windows of at least this much wall time, s.
#define MEASURE_WINDOW_S 0.5

// Called as a frame starts (now, wall clock s): counts the frame that
// ended and, once the window is long enough, turns its counts into the
// HUD's figures, all means over the same frames. The frame time is
// measured as --stats measures it: start to start.
static void measure(app *a, double now) {
    a->frames_window++;
    const double span = now - a->window_start;
    if (span < MEASURE_WINDOW_S) {
        return;
    }
    const double frames = (double)a->frames_window;
    a->fps = frames / span;
    a->frame_ms = 1000.0 * span / frames;
    a->sim_ms = a->physics_window_ms / frames;
    a->steps_per_s = (double)a->steps_window / span;
    a->sim_speed = a->sim_window / span;
    // Slow motion below 0.9 of real time, and again at 0.95 and up, so
    // that the HUD's line does not flicker; a pause is not slow motion.
    const double below = a->slow_motion ? 0.95 : 0.9;
    a->slow_motion = !a->virtual_clock && !a->paused && a->sim_speed < below;
    a->measured = true;
    a->frames_window = 0;
    a->physics_window_ms = 0.0;
    a->steps_window = 0;
    a->sim_window = 0.0;
    a->window_start = now;
}

// Loads what was dropped since the last frame (outside the callback).
static void load_pending(app *a) {
    if (a->pending_count == 0) {
        return;
    }
    const char *paths[MAX_PENDING_DROPS];
    for (int i = 0; i < a->pending_count; i++) {
        paths[i] = a->pending[i];
    }
    const int count = a->pending_count;
    a->pending_count = 0;
    app_load_files(a, paths, count);
}

static void run_loop(app *a) {
    const psb_viewer_config *c = &a->config;
    a->last_time = a->window_start = glfwGetTime();
    while (!glfwWindowShouldClose(a->window)) {
        const double now = glfwGetTime();
        const double frame_s = now - a->last_time;
        a->last_time = now;
        if (a->frame > 0) {
            output_record_frame(a, 1000.0 * frame_s);
            measure(a, now);
        }
        glfwPollEvents();
        if (a->events) {
            script_run_frame(a);
        }
        load_pending(a);
        app_layout(a);
        for (int b = 0; b < a->scene.body_count; b++) {
            a->state[b] = psb_body_measure(a->scene.world, b);
        }
        poke_update(a);
        input_update_grab(a);
        const bool last = c->frames > 0 && a->frame + 1 >= c->frames;
        const bool visible = a->fb_w > 0 && a->fb_h > 0;
        if (visible) {
            render_frame(a);
            if (c->report) {
                layout_track_bodies(a);
            }
            // A software renderer rasterises in its own threads after the
            // flush: step the simulation for the next frame meanwhile.
            glFlush();
        }
        advance(a, frame_s);
        if (visible) {
            if (last && c->screenshot) {
                if (!output_screenshot(a, c->screenshot)) {
                    a->exit_status = 1;
                }
            }
            if (a->screenshot_now) {
                a->screenshot_now = false;
                if (output_screenshot(a, a->screenshot_path)) {
                    app_message(a, false, "screenshot: %s", a->screenshot_path);
                }
            }
        }
        glfwSwapBuffers(a->window);
        a->frame++;
        if (last) {
            break;
        }
    }
}

// Creates the window and its GL 3.3 core context with the given MSAA samples.
static bool create_window(app *a, int samples) {
    const psb_viewer_config *c = &a->config;
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, samples);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
    glfwWindowHint(GLFW_STENCIL_BITS, 8);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    a->window = glfwCreateWindow(c->width, c->height, "psb: pressure soft bodies", NULL, NULL);
    if (!a->window) {
        const char *why = NULL;
        glfwGetError(&why);
        fprintf(stderr, "psb view: cannot open an OpenGL 3.3 core window: %s\n",
                why ? why : "unknown reason");
        return false;
    }
    glfwMakeContextCurrent(a->window);
    const int version = gladLoadGL(glfwGetProcAddress);
    if (version == 0 || GLAD_VERSION_MAJOR(version) < 3 ||
        (GLAD_VERSION_MAJOR(version) == 3 && GLAD_VERSION_MINOR(version) < 3)) {
        fprintf(stderr, "psb view: OpenGL 3.3 core is needed; the driver gives %d.%d\n",
                GLAD_VERSION_MAJOR(version), GLAD_VERSION_MINOR(version));
        return false;
    }
    return true;
}

// A CPU renderer (Mesa llvmpipe, softpipe): multisampling costs it several
// times the frame time, so automatic MSAA is off there.
static bool software_renderer(void) {
    const char *r = (const char *)glGetString(GL_RENDERER);
    return r && (strstr(r, "llvmpipe") || strstr(r, "softpipe") || strstr(r, "swrast"));
}

// Opens the window and the GL context; on failure says why (exit status 2).
static bool open_window(app *a) {
    const psb_viewer_config *c = &a->config;
    if (!glfwInit()) {
        const char *why = NULL;
        glfwGetError(&why);
        fprintf(stderr,
                "psb view: no display (%s): run it under a virtual X server, "
                "e.g. 'xvfb-run -a psb view', or use 'psb sim' for a headless run\n",
                why ? why : "GLFW could not start");
        return false;
    }
    a->msaa = c->msaa >= 0 ? c->msaa : AUTO_MSAA;
    if (!create_window(a, a->msaa)) {
        return false;
    }
    if (c->msaa < 0 && software_renderer()) {
        glfwDestroyWindow(a->window);
        a->msaa = 0;
        if (!create_window(a, 0)) {
            return false;
        }
    }
    glfwSwapInterval(c->vsync ? 1 : 0);
    glfwSetWindowUserPointer(a->window, a);
    glfwShowWindow(a->window);
    return true;
}

static void app_free(app *a) {
    if (a->window) {
        render_free(a);
        glfwDestroyWindow(a->window);
    }
    glfwTerminate();
    psb_scene_destroy(&a->scene);
    script_free(a);
    poke_free(a);
    free(a->model_names);
    free(a->frame_times);
    free(a->pixels);
    free(a);
}

static app *app_create(const psb_viewer_config *config) {
    app *a = calloc(1, sizeof *a);
    if (!a) {
        return NULL;
    }
    a->config = *config;
    snprintf(a->scene_name, sizeof a->scene_name, "%s", config->scene ? config->scene : "default");
    controls_init(a);
    a->grab.body = -1;
    a->grab.last_poke_body = -1;
    a->grab.pin_body = -1;
    a->tooltip_body = -1;
    a->poke.body = -1;
    a->panel.hover_row = a->panel.drag_row = a->panel.edit_row = -1;
    a->virtual_clock = !config->realtime && (config->frames > 0 || config->input_script);
    a->frame_time_cap = config->frames > 0 ? config->frames : 1L << 20;
    a->frame_times = malloc((size_t)a->frame_time_cap * sizeof *a->frame_times);
    if (!a->frame_times) {
        free(a);
        return NULL;
    }
    return a;
}

int psb_viewer_run(const psb_viewer_config *config) {
    app *a = app_create(config);
    if (!a) {
        fprintf(stderr, "psb view: out of memory\n");
        return 1;
    }
    char error[4096];
    if (config->input_script && !script_load(a, config->input_script, error, sizeof error)) {
        fprintf(stderr, "psb view: %s\n", error);
        app_free(a);
        return 2;
    }
    // Build the scene first: a bad scene or parameter is a usage error. The
    // models scene starts as its stage, the ring, and loads its model once
    // the window is open.
    const bool models = strcmp(a->scene_name, MODELS_SCENE) == 0;
    psb_scene first;
    psb_error err = {0};
    if (psb_scene_build(&first, models ? "ring" : a->scene_name, &config->scene_config, &err) !=
        PSB_OK) {
        fprintf(stderr, "psb view: %s\n", err.message);
        app_free(a);
        return 2;
    }
    if (!open_window(a)) {
        psb_scene_destroy(&first);
        app_free(a);
        return 2;
    }
    if (!shader_dir_find(config->shaders, a->shader_dir, sizeof a->shader_dir, error,
                         sizeof error) ||
        !render_init(a, error, sizeof error)) {
        fprintf(stderr, "psb view: %s\n", error);
        psb_scene_destroy(&first);
        app_free(a);
        return 2;
    }
    input_install(a);
    app_layout(a);
    if (!app_install_scene(a, &first)) {
        app_free(a);
        return 1;
    }
    app_frame_scene(a);
    a->message[0] = '\0';
    models_list(a, NULL, 0); // for --report; listed again whenever the models scene is shown
    if (models) {
        app_show_models(a, 0);
    }
    if (config->file_count > 0) {
        app_load_files(a, config->files, config->file_count);
    }
    a->script_owns_input = a->events != NULL;
    run_loop(a);
    if (config->stats) {
        output_stats(a, stdout);
    }
    if (config->report) {
        output_report(a, stdout);
    }
    fflush(stdout);
    // A run that had blow-ups says so, as psb sim does; a failure (1) says more.
    int status = a->exit_status;
    if (a->blowup_count > 0) {
        fprintf(stderr, "psb view: %ld blow-up%s detected and recovered from (exit status %d)\n",
                a->blowup_count, a->blowup_count == 1 ? "" : "s", EXIT_BLOWUPS);
        status = status != 0 ? status : EXIT_BLOWUPS;
    }
    app_free(a);
    return status;
}
