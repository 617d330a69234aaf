// Pokes: a finger pressed into a body. A right click (or shift+left) on a
// body puts a sphere against its surface where the cursor's ray hits it and
// moves it in along the ray at --poke-speed, to POKE_DEPTH of the body's
// mean radius; every point that would be inside it is put on its surface,
// its velocity into the finger taken away. The finger stays while the
// button is held (POKE_HOLD_S at least, so that a click shows a dent), then
// leaves, and the springs and the gas push the dent back out.
//
// A push, not an impulse: an impulse's dent is its speed over the dent's
// own frequency, so a stiff body (the high-gas sphere, a frequency of about
// 300 rad/s) would need tens of metres a second, where the finger makes the
// same dent in every body, under every integrator, and shows it as long as
// the user holds it.
#include "poke.h"

#include "status.h"

#include <math.h>
#include <stdlib.h>

// The finger's radius and how deep it goes, in mean radii of the body.
#define POKE_RADIUS 0.4
#define POKE_DEPTH  0.2
// The shortest a finger stays in, s of simulated time: a click's dent is seen.
#define POKE_HOLD_S 0.3
// The dent is measured at the points this many finger radii from where it touched.
#define POKE_PATCH 2.0

static double dist3(psb_vec3 p, psb_vec3 q) {
    return sqrt((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) + (p.z - q.z) * (p.z - q.z));
}

// Room for n points in the scratch arrays; false (and a message) without memory.
static bool reserve(app *a, int n) {
    poke_state *k = &a->poke;
    if (n <= k->capacity) {
        return true;
    }
    psb_vec3 *x = realloc(k->x, (size_t)n * sizeof *x);
    k->x = x ? x : k->x;
    psb_vec3 *v = realloc(k->v, (size_t)n * sizeof *v);
    k->v = v ? v : k->v;
    double *r0 = realloc(k->r0, (size_t)n * sizeof *r0);
    k->r0 = r0 ? r0 : k->r0;
    if (!x || !v || !r0) {
        status_message(a, true, "poke: out of memory for %d points", n);
        return false;
    }
    k->capacity = n;
    return true;
}

// The body's centre of mass and its velocity along the finger's way in.
static void along(const app *a, double *at, double *speed) {
    const poke_state *k = &a->poke;
    const psb_world *w = a->scene.world;
    const int n = psb_body_point_count(w, k->body);
    const psb_vec3 *x = psb_body_positions(w, k->body);
    const psb_vec3 *v = psb_body_velocities(w, k->body);
    const double *m = psb_body_masses(w, k->body);
    double mass = 0.0, mx = 0.0, mv = 0.0;
    for (int i = 0; i < n; i++) {
        mass += m[i];
        mx += m[i] * (x[i].x * k->dir.x + x[i].y * k->dir.y + x[i].z * k->dir.z);
        mv += m[i] * (v[i].x * k->dir.x + v[i].y * k->dir.y + v[i].z * k->dir.z);
    }
    *at = mass > 0.0 ? mx / mass : 0.0;
    *speed = mass > 0.0 ? mv / mass : 0.0;
}

void poke_start(app *a, int b, const double at[3], const double dir[3]) {
    poke_state *k = &a->poke;
    const psb_world *w = a->scene.world;
    const int n = psb_body_point_count(w, b);
    if (!reserve(a, n)) {
        return;
    }
    const double r = fmax(a->state[b].mean_radius, 1e-3);
    *k = (poke_state){
        .active = true,
        .held = true,
        .body = b,
        .tip = {at[0], at[1], at[2]},
        .dir = {dir[0], dir[1], dir[2]},
        .radius = POKE_RADIUS * r,
        .depth = POKE_DEPTH * r,
        .start_time = psb_world_time(w),
        .body_radius = r,
        .capacity = k->capacity,
        .x = k->x,
        .v = k->v,
        .r0 = k->r0,
    };
    // Each point's distance from the centroid now, near the finger: the
    // dent is how much closer they come.
    const psb_vec3 *x = psb_body_positions(w, b);
    const psb_vec3 c = a->state[b].centroid;
    for (int i = 0; i < n; i++) {
        const bool near = dist3(x[i], k->tip) < POKE_PATCH * k->radius;
        k->r0[i] = near ? dist3(x[i], c) : -1.0;
    }
    along(a, &k->hold_at, &k->hold_speed);
    a->grab.pokes++;
    a->grab.last_poke_body = b;
}

void poke_release(app *a) {
    a->poke.held = false;
}

void poke_cancel(app *a) {
    a->poke.active = false;
    a->poke.held = false;
    a->poke.body = -1;
}

void poke_free(app *a) {
    free(a->poke.x);
    free(a->poke.v);
    free(a->poke.r0);
    a->poke = (poke_state){.body = -1};
}

// Holds the body where it was along the finger's way in, as a hand behind
// it would (else the gas the dent squeezes would shove it away: the high-gas
// sphere flies off at 3 m/s): what its centre of mass has gone on along dir
// since the press, in distance and in speed, is taken back from every point.
// Then puts the points inside the finger on its surface, their velocity
// into it taken away: x = f + rho (x - f) / |x - f|, v -= min(v . u, 0) u.
static void press(app *a, double in) {
    poke_state *k = &a->poke;
    psb_world *w = a->scene.world;
    const int n = psb_body_point_count(w, k->body);
    const psb_vec3 *x = psb_body_positions(w, k->body);
    const psb_vec3 *v = psb_body_velocities(w, k->body);
    double at, speed;
    along(a, &at, &speed);
    const double back_x = fmax(at - k->hold_at, 0.0), back_v = fmax(speed - k->hold_speed, 0.0);
    // The finger's centre: its tip `in` metres past where it touched.
    const double back = in - k->radius;
    const psb_vec3 f = {k->tip.x + back * k->dir.x, k->tip.y + back * k->dir.y,
                        k->tip.z + back * k->dir.z};
    bool moved = back_x > 0.0 || back_v > 0.0;
    for (int i = 0; i < n; i++) {
        k->x[i] = (psb_vec3){x[i].x - back_x * k->dir.x, x[i].y - back_x * k->dir.y,
                             x[i].z - back_x * k->dir.z};
        k->v[i] = (psb_vec3){v[i].x - back_v * k->dir.x, v[i].y - back_v * k->dir.y,
                             v[i].z - back_v * k->dir.z};
        const psb_vec3 p = k->x[i], q = k->v[i];
        const double d = dist3(p, f);
        if (d >= k->radius || !(d > 1e-12)) {
            continue;
        }
        const psb_vec3 u = {(p.x - f.x) / d, (p.y - f.y) / d, (p.z - f.z) / d};
        k->x[i] = (psb_vec3){f.x + k->radius * u.x, f.y + k->radius * u.y, f.z + k->radius * u.z};
        const double into = fmin(q.x * u.x + q.y * u.y + q.z * u.z, 0.0);
        k->v[i] = (psb_vec3){q.x - into * u.x, q.y - into * u.y, q.z - into * u.z};
        moved = true;
    }
    psb_error err = {0};
    if (moved && psb_body_set_state(w, k->body, k->x, k->v, &err) != PSB_OK) {
        status_message(a, true, "poke: %s", err.message);
        poke_cancel(a);
    }
}

void poke_update(app *a) {
    poke_state *k = &a->poke;
    if (k->body < 0 || k->body >= a->scene.body_count) {
        return;
    }
    const psb_world *w = a->scene.world;
    if (k->active) {
        // In at poke_speed, simulated time: a pause holds the finger where it is.
        const double t = psb_world_time(w) - k->start_time;
        if (!k->held && t >= POKE_HOLD_S) {
            k->active = false;
        } else {
            press(a, fmin(k->depth, a->config.poke_speed * t));
        }
    }
    // The dent: the largest move toward the centroid of a point near the finger.
    const int n = psb_body_point_count(w, k->body);
    const psb_vec3 *x = psb_body_positions(w, k->body);
    const psb_vec3 c = a->state[k->body].centroid;
    double deepest = 0.0;
    for (int i = 0; i < n; i++) {
        if (k->r0[i] >= 0.0) {
            deepest = fmax(deepest, k->r0[i] - dist3(x[i], c));
        }
    }
    k->dent = deepest / k->body_radius;
    if (k->active) {
        k->dent_max = fmax(k->dent_max, k->dent);
    }
}
