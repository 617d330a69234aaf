// The world: bodies, colliders, the fixed-step loop and the blow-up guard,
// and the API that reads and changes bodies.
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

psb_world *psb_world_create(const psb_params *params, psb_error *err) {
    if (psb_params_validate(params, err) != PSB_OK) {
        return NULL;
    }
    psb_world *w = calloc(1, sizeof *w);
    if (!w) {
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a world");
        return NULL;
    }
    w->params = *params;
    return w;
}

void psb_world_destroy(psb_world *w) {
    if (!w) {
        return;
    }
    for (int i = 0; i < w->body_count; i++) {
        body_destroy(w->bodies[i]);
    }
    free(w->bodies);
    free(w->sphere_centre);
    free(w->sphere_radius);
    free(w);
}

psb_status psb_world_set_params(psb_world *w, const psb_params *params, psb_error *err) {
    psb_status status = psb_params_validate(params, err);
    if (status == PSB_OK) {
        w->params = *params;
    }
    return status;
}

const psb_params *psb_world_params(const psb_world *w) {
    return &w->params;
}

int psb_world_add_body(psb_world *w, const psb_body_def *def, psb_error *err) {
    if (w->body_count == w->body_capacity) {
        const int capacity = w->body_capacity ? 2 * w->body_capacity : 4;
        psb_body **bodies = realloc(w->bodies, (size_t)capacity * sizeof *bodies);
        if (!bodies) {
            psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d bodies", capacity);
            return -1;
        }
        w->bodies = bodies;
        w->body_capacity = capacity;
    }
    psb_body *b = body_create(def, &w->params, w->time, err);
    if (!b) {
        return -1;
    }
    b->profile = w->profiling ? &w->profile : NULL;
    w->bodies[w->body_count] = b;
    return w->body_count++;
}

psb_status psb_world_add_sphere(psb_world *w, psb_vec3 centre, double radius, psb_error *err) {
    if (!isfinite(centre.x) || !isfinite(centre.y) || !isfinite(centre.z)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "sphere centre: expected finite coordinates (m)");
    }
    if (!(isfinite(radius) && radius > 0.0)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "sphere radius: expected a finite number > 0 (m), got %g", radius);
    }
    if (w->sphere_count == w->sphere_capacity) {
        const int capacity = w->sphere_capacity ? 2 * w->sphere_capacity : 4;
        psb_vec3 *centres = realloc(w->sphere_centre, (size_t)capacity * sizeof *centres);
        if (!centres) {
            return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d spheres", capacity);
        }
        w->sphere_centre = centres;
        double *radii = realloc(w->sphere_radius, (size_t)capacity * sizeof *radii);
        if (!radii) {
            return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d spheres", capacity);
        }
        w->sphere_radius = radii;
        w->sphere_capacity = capacity;
    }
    w->sphere_centre[w->sphere_count] = centre;
    w->sphere_radius[w->sphere_count] = radius;
    w->sphere_count++;
    return PSB_OK;
}

int psb_world_sphere_count(const psb_world *w) {
    return w->sphere_count;
}

void psb_world_sphere(const psb_world *w, int index, psb_vec3 *centre, double *radius) {
    assert(index >= 0 && index < w->sphere_count && "psb_world_sphere: index out of range");
    *centre = w->sphere_centre[index];
    *radius = w->sphere_radius[index];
}

// Saves the state at the start of a world step; returns the diagonal of the
// body's bounding box then, m.
static double snapshot(psb_body *b) {
    psb_vec3 lo = b->x[0], hi = b->x[0];
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 p = b->x[i];
        b->x_good[i] = p;
        b->v_good[i] = b->v[i];
        lo = (psb_vec3){fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z)};
        hi = (psb_vec3){fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z)};
    }
    const double dx = hi.x - lo.x, dy = hi.y - lo.y, dz = hi.z - lo.z;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

// Blow-up guard: NaN/Inf, or a point that moved farther than blowup_size body
// diameters in one world step. Writes what it found into why; true if so.
static bool blew_up(const psb_body *b, double limit, char *why, size_t why_size) {
    const double limit2 = limit * limit;
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 x = b->x[i], v = b->v[i];
        if (!(isfinite(x.x) && isfinite(x.y) && isfinite(x.z) && isfinite(v.x) && isfinite(v.y) &&
              isfinite(v.z))) {
            snprintf(why, why_size, "point %d became NaN or infinite", i);
            return true;
        }
        const double dx = x.x - b->x_good[i].x, dy = x.y - b->x_good[i].y,
                     dz = x.z - b->x_good[i].z;
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > limit2) {
            snprintf(why, why_size, "point %d moved %.3g m in one step (limit %.3g m)", i, sqrt(d2),
                     limit);
            return true;
        }
    }
    return false;
}

static void copy_state(psb_body *b, const psb_vec3 *x, const psb_vec3 *v) {
    memcpy(b->x, x, (size_t)b->n * sizeof *x);
    if (v) {
        memcpy(b->v, v, (size_t)b->n * sizeof *v);
    } else {
        memset(b->v, 0, (size_t)b->n * sizeof *b->v);
    }
}

double profile_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

void psb_world_set_profiling(psb_world *w, bool on) {
    w->profiling = on;
    w->profile = (psb_profile){0};
    for (int k = 0; k < w->body_count; k++) {
        w->bodies[k]->profile = on ? &w->profile : NULL;
    }
}

psb_profile psb_world_profile(const psb_world *w) {
    return w->profile;
}

// One sub-step of body b, with its stages timed when profiling.
static void substep(psb_world *w, psb_body *b, double t, double h) {
    psb_profile *prof = b->profile;
    if (!prof) {
        body_integrate(b, &w->params, t, h);
        body_collide(b, w, h);
        return;
    }
    const double forces_before = prof->springs + prof->gas;
    const double start = profile_now();
    body_integrate(b, &w->params, t, h);
    const double mid = profile_now();
    // The force stages timed themselves inside the integrator.
    prof->integrate += mid - start - (prof->springs + prof->gas - forces_before);
    body_collide(b, w, h);
    prof->collide += profile_now() - mid;
}

int psb_world_step(psb_world *w) {
    const psb_params *p = &w->params;
    const double h = p->dt / p->substeps;
    int blown = 0;
    // Bodies do not interact, so each runs all its sub-steps in turn while
    // its arrays are warm in cache.
    for (int k = 0; k < w->body_count; k++) {
        psb_body *b = w->bodies[k];
        double start = w->profiling ? profile_now() : 0.0;
        const double size = fmax(b->rest_size, snapshot(b));
        if (w->profiling) {
            w->profile.guard += profile_now() - start;
        }
        for (int s = 0; s < p->substeps; s++) {
            substep(w, b, w->time + s * h, h);
        }
        start = w->profiling ? profile_now() : 0.0;
        char why[160];
        const bool blew = blew_up(b, p->blowup_size * size, why, sizeof why);
        if (w->profiling) {
            w->profile.guard += profile_now() - start;
        }
        if (!blew) {
            b->blew_last_step = false;
            continue;
        }
        // Recover: first the last good state at rest; if the very next step
        // blows up again, the state as created.
        const char *how;
        if (b->blew_last_step) {
            copy_state(b, b->x_init, b->v_init);
            b->start_time = w->time + p->dt;
            how = "reset it to its initial state";
        } else {
            copy_state(b, b->x_good, NULL);
            how = "restored its last good state at rest";
        }
        b->grab_point = -1;
        b->blowups++;
        b->blew_last_step = true;
        blown++;
        snprintf(w->last_event, sizeof w->last_event,
                 "body %d blew up at t = %.4g s: %s; %s (try a smaller dt or more substeps)", k,
                 w->time, why, how);
    }
    w->time += p->dt;
    w->steps++;
    return blown;
}

double psb_world_time(const psb_world *w) {
    return w->time;
}
long psb_world_step_count(const psb_world *w) {
    return w->steps;
}
const char *psb_world_last_event(const psb_world *w) {
    return w->last_event;
}
int psb_world_body_count(const psb_world *w) {
    return w->body_count;
}

static psb_body *get(const psb_world *w, int body) {
    assert(body >= 0 && body < w->body_count && "psb: body id out of range");
    return w->bodies[body];
}

static void check_point(const psb_body *b, int point) {
    (void)b;
    (void)point;
    assert(point >= 0 && point < b->n && "psb: point index out of range");
}

psb_body_kind psb_body_get_kind(const psb_world *w, int body) {
    return get(w, body)->kind;
}
int psb_body_point_count(const psb_world *w, int body) {
    return get(w, body)->n;
}
const psb_vec3 *psb_body_positions(const psb_world *w, int body) {
    return get(w, body)->x;
}
const psb_vec3 *psb_body_velocities(const psb_world *w, int body) {
    return get(w, body)->v;
}
const double *psb_body_masses(const psb_world *w, int body) {
    return get(w, body)->mass;
}
const double *psb_body_rest_lengths(const psb_world *w, int body) {
    return get(w, body)->rest_length;
}

const int *psb_body_edges(const psb_world *w, int body, int *count) {
    const psb_body *b = get(w, body);
    *count = b->spring_count;
    return b->springs;
}

const int *psb_body_triangles(const psb_world *w, int body, int *count) {
    const psb_body *b = get(w, body);
    *count = b->tri_count;
    return b->tri_count ? b->tris : NULL;
}

psb_body_state psb_body_measure(const psb_world *w, int body) {
    const psb_body *b = get(w, body);
    const double t = w->time;
    const double g = body_gravity(b, &w->params, t);
    psb_body_state s = {0};
    s.rest_volume = b->rest_volume;
    s.volume = body_volume(b, b->x);
    s.gas_nrt = body_gas_nrt(b, t);
    // The same guard as the force: the gas law at no less than 1e-3 V0.
    const double v_gas = fmax(s.volume, 1e-3 * b->rest_volume);
    s.pressure = s.gas_nrt / v_gas - b->params.outside_pressure;
    // Gas potential: -nRT ln V (+ P0 V for the outside pressure).
    s.gas = -s.gas_nrt * log(v_gas) + b->params.outside_pressure * s.volume;
    s.min_y = b->x[0].y;
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 x = b->x[i], v = b->v[i];
        const double m = b->mass[i];
        s.centroid.x += x.x;
        s.centroid.y += x.y;
        s.centroid.z += x.z;
        s.momentum.x += m * v.x;
        s.momentum.y += m * v.y;
        s.momentum.z += m * v.z;
        s.kinetic += 0.5 * m * (v.x * v.x + v.y * v.y + v.z * v.z);
        s.gravity += m * g * x.y;
        s.min_y = fmin(s.min_y, x.y);
    }
    s.centroid.x /= b->n;
    s.centroid.y /= b->n;
    s.centroid.z /= b->n;
    for (int i = 0; i < b->n; i++) {
        s.mean_radius += sqrt((b->x[i].x - s.centroid.x) * (b->x[i].x - s.centroid.x) +
                              (b->x[i].y - s.centroid.y) * (b->x[i].y - s.centroid.y) +
                              (b->x[i].z - s.centroid.z) * (b->x[i].z - s.centroid.z));
    }
    s.mean_radius /= b->n;
    for (int k = 0; k < b->spring_count; k++) {
        const psb_vec3 a = b->x[b->springs[2 * k]], c = b->x[b->springs[2 * k + 1]];
        const double len =
            sqrt((a.x - c.x) * (a.x - c.x) + (a.y - c.y) * (a.y - c.y) + (a.z - c.z) * (a.z - c.z));
        const double stretch = len - b->rest_length[k];
        s.spring += 0.5 * b->params.spring_k * stretch * stretch;
    }
    s.energy = s.kinetic + s.spring + s.gas + s.gravity;
    s.blowups = b->blowups;
    return s;
}

double psb_body_stable_substep(const psb_world *w, int body) {
    const psb_body *b = get(w, body);
    int *degree = calloc((size_t)b->n, sizeof *degree);
    if (!degree) {
        return 0.0;
    }
    for (int s = 0; s < 2 * b->spring_count; s++) {
        degree[b->springs[s]]++;
    }
    double h_max = INFINITY;
    for (int i = 0; i < b->n; i++) {
        // Largest eigenvalues of the point's spring stiffness and damping
        // blocks, bounded by their sums over its springs.
        const double w2 = 2.0 * b->params.spring_k * degree[i] * b->inv_mass[i];
        const double g = 2.0 * b->params.spring_damping * degree[i] * b->inv_mass[i];
        // Positive root of h^2 w^2 + 2 h g = 4.
        double h;
        if (w2 > 0.0) {
            h = (-g + sqrt(g * g + 4.0 * w2)) / w2;
        } else {
            h = g > 0.0 ? 2.0 / g : INFINITY;
        }
        h_max = fmin(h_max, h);
    }
    free(degree);
    return h_max;
}

const psb_body_params *psb_body_get_params(const psb_world *w, int body) {
    return &get(w, body)->params;
}

psb_status psb_body_set_params(psb_world *w, int body, const psb_body_params *params,
                               psb_error *err) {
    psb_body *b = get(w, body);
    psb_status status = psb_body_params_validate(params, err);
    if (status != PSB_OK) {
        return status;
    }
    const bool masses =
        params->mass != b->params.mass || params->mass_by_area != b->params.mass_by_area;
    b->params = *params;
    if (masses) {
        body_update_masses(b);
    }
    return PSB_OK;
}

psb_status psb_body_set_state(psb_world *w, int body, const psb_vec3 *positions,
                              const psb_vec3 *velocities, psb_error *err) {
    psb_body *b = get(w, body);
    const psb_vec3 *arrays[2] = {positions, velocities};
    for (int a = 0; a < 2; a++) {
        for (int i = 0; arrays[a] && i < b->n; i++) {
            const psb_vec3 p = arrays[a][i];
            if (!(isfinite(p.x) && isfinite(p.y) && isfinite(p.z))) {
                return psb_error_set(err, PSB_ERR_INVALID, "%s[%d]: expected finite coordinates",
                                     a == 0 ? "positions" : "velocities", i);
            }
        }
    }
    const bool ring = b->kind == PSB_RING;
    for (int i = 0; i < b->n; i++) {
        if (positions) {
            b->x[i] = positions[i];
        }
        if (velocities) {
            b->v[i] = velocities[i];
        }
        if (ring) {
            b->x[i].z = 0.0;
            b->v[i].z = 0.0;
        }
    }
    return PSB_OK;
}

void psb_body_reset(psb_world *w, int body) {
    psb_body *b = get(w, body);
    copy_state(b, b->x_init, b->v_init);
    b->start_time = w->time;
    b->grab_point = -1;
    b->blew_last_step = false;
}

void psb_body_grab(psb_world *w, int body, int point, psb_vec3 target, double k) {
    psb_body *b = get(w, body);
    check_point(b, point);
    assert(isfinite(k) && k >= 0.0 && "psb_body_grab: k must be finite and >= 0 (N/m)");
    b->grab_point = point;
    b->grab_k = k;
    psb_body_grab_move(w, body, target);
}

void psb_body_grab_move(psb_world *w, int body, psb_vec3 target) {
    psb_body *b = get(w, body);
    assert(isfinite(target.x) && isfinite(target.y) && isfinite(target.z) &&
           "psb_body_grab_move: target must be finite");
    if (b->kind == PSB_RING) {
        target.z = 0.0;
    }
    b->grab_target = target;
}

void psb_body_release(psb_world *w, int body) {
    get(w, body)->grab_point = -1;
}

int psb_body_grabbed_point(const psb_world *w, int body) {
    return get(w, body)->grab_point;
}

void psb_body_apply_impulse(psb_world *w, int body, int point, psb_vec3 impulse) {
    psb_body *b = get(w, body);
    check_point(b, point);
    assert(isfinite(impulse.x) && isfinite(impulse.y) && isfinite(impulse.z) &&
           "psb_body_apply_impulse: impulse must be finite");
    const double k = b->inv_mass[point];
    b->v[point].x += k * impulse.x;
    b->v[point].y += k * impulse.y;
    if (b->kind == PSB_SHELL) {
        b->v[point].z += k * impulse.z;
    }
}
