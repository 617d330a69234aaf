// The viewer's main loop: the window, the frame's timing and the
// fixed-step simulation; each frame it calls the viewer's other parts.
//
// The parts, top down. Calls go one way: a file calls only files listed
// below it (its #includes name them), never one above, so nothing calls
// back into the loop. viewer.h holds the state every part is handed.
//
//   app.c       the loop (this file)
//   script.c    scripted input, replayed through input.c's handlers
//   input.c     the mouse and the keys: the views, grabs, pokes, pins, the keys' actions
//   output.c    screenshots, --stats, --report
//   render.c    the frame: render2d.c, render3d.c and ui.c build it, then it is drawn
//   render2d.c  the 2D view
//   render3d.c  the 3D view
//   ui.c        the HUD strip and the help, with panel.c, table.c and plots.c
//   panel.c     the parameter panel: drawn by ui.c, used by input.c
//   scenes.c    the scene list: which entry is shown, switching entries
//   models.c    OBJ files given or dropped, and the models scene
//   stage.c     the scene shown: installed, framed, reset
//   layout.c    where the strips, the views and the panel are
//   table.c     the body table
//   plots.c     the plots: their history and their drawing
//   pick.c      which body and point lie under a pixel
//   poke.c      a finger pressed into a body
//   controls.c  the parameters that the keys and the panel set
//   gpu.c       the GL resources: programs, batches, the scene's buffers
//   text.c      text in pixels, and its colours
//   status.c    the HUD's message and blow-up report
//   camera.c    the orbit camera
//   gl_util.c   GL helpers: shader files, batches
#include "viewer.h"

#include "controls.h"
#include "gpu.h"
#include "input.h"
#include "layout.h"
#include "models.h"
#include "output.h"
#include "plots.h"
#include "poke.h"
#include "render.h"
#include "script.h"
#include "stage.h"
#include "status.h"

#include <math.h>
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
        status_blowup(a, blown); // shown in the HUD while status_blowup_live says so
    }
    // Contacts or links left out for lack of room: said once a world (a
    // scene built afresh starts again from 0).
    const long full_lists = psb_world_full_list_steps(world);
    if (full_lists > a->full_list_steps && a->full_list_steps == 0 && blown == 0) {
        fprintf(stderr, "psb view: %s\n", psb_world_last_event(world));
    }
    a->full_list_steps = full_lists;
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
    models_load_files(a, paths, count);
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
        layout_update(a);
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
                    status_message(a, false, "screenshot: %s", a->screenshot_path);
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
        gpu_free(a);
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
        !gpu_init(a, error, sizeof error)) {
        fprintf(stderr, "psb view: %s\n", error);
        psb_scene_destroy(&first);
        app_free(a);
        return 2;
    }
    input_install(a);
    layout_update(a);
    if (!stage_install(a, &first)) {
        app_free(a);
        return 1;
    }
    stage_frame(a);
    status_message_clear(a);
    models_list(a, NULL, 0); // for --report; listed again whenever the models scene is shown
    if (models) {
        models_show(a, 0);
    }
    if (config->file_count > 0) {
        models_load_files(a, config->files, config->file_count);
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
