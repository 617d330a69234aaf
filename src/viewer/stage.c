// The stage: a built scene installed as the one shown (its GPU buffers
// sized, the controls applied, the plots restarted), framed in both views,
// and its bodies put back as they were built (R). The scene list
// (scenes.c) and the loaded models (models.c) build what it installs.
#include "stage.h"

#include "camera.h"
#include "controls.h"
#include "gpu.h"
#include "layout.h"
#include "plots.h"
#include "poke.h"
#include "status.h"

#include <math.h>
#include <string.h>

void stage_reset(app *a) {
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
    status_blowup_clear(a);
}

// What a scene brings with it (its shape matching, its wind) is in force
// after the change; the controls set by the keys and the panel (gas, ks,
// kd, mass, gravity and G, restitution, friction, dt, the integrator once
// chosen) carry over, to every body: a body built with a ks, kd or mass of
// its own scales it as the material's changed (controls.c).
bool stage_install(app *a, psb_scene *next) {
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
    status_blowup_clear(a);
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
    controls_apply(a);
    plots_clear(&a->plots);
    // A first guess at the cost of a sub-step (30 ns a point), so that a
    // heavy model starts in slow motion instead of freezing the window.
    long points = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        a->state[b] = psb_body_measure(a->scene.world, b);
        points += psb_body_point_count(a->scene.world, b);
    }
    a->substep_ms = 3e-5 * (double)points;
    if (!gpu_scene_changed(a)) {
        // Buffers that do not fit the scene cannot be drawn from: stop.
        status_message(a, true, "out of memory for the scene's vertex buffers");
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

bool stage_bodies_box(const app *a, float lo[3], float hi[3]) {
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
    if (!stage_bodies_box(a, lo, hi)) {
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

void stage_frame_2d(app *a) {
    layout_update(a);
    const extent e = scene_extent(a);
    frame_2d(a, &e);
    layout_update(a);
}

void stage_frame(app *a) {
    // The views' sizes for this scene (the body table's rows count).
    layout_update(a);
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
    layout_update(a);
    layout_forget_bodies(a);
}
