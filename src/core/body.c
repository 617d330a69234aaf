// The body API: every psb_body_* function (psb.h). A body is named by the
// world and its index; these read it (kind, points, springs, measurements,
// the solver's report), change it (parameters, state, reset) and act on it
// (grab, impulse, pins, shape matching's fit) outside the step.
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

psb_body_def psb_default_body_def(void) {
    return (psb_body_def){
        .kind = PSB_SHELL,
        .points = NULL,
        .rest_points = NULL,
        .point_count = 0,
        .triangles = NULL,
        .triangle_count = 0,
        .springs = NULL,
        .spring_count = 0,
        .offset = {0.0, 0.0, 0.0},
        .velocity = {0.0, 0.0, 0.0},
        .params = psb_default_body_params(),
    };
}

static psb_status check_points(const psb_vec3 *points, int n, const char *what, psb_error *err) {
    for (int i = 0; i < n; i++) {
        if (!vec_finite(points[i])) {
            return psb_error_set(err, PSB_ERR_INVALID, "%s[%d]: expected finite coordinates", what,
                                 i);
        }
    }
    return PSB_OK;
}

static const char *kind_name(psb_body_kind kind) {
    return kind == PSB_RING ? "ring" : kind == PSB_SHELL ? "shell" : "cloth";
}

// Checks an index list of `count` items of `per` points each: every index
// in 0..n-1, and the points of an item all different.
static psb_status check_indices(const int *items, int count, int per, int n, const char *what,
                                psb_error *err) {
    if (count > INT_MAX / 4) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: expected at most %d, got %d", what,
                             INT_MAX / 4, count);
    }
    if (count > 0 && !items) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: expected %d items, got NULL", what, count);
    }
    for (int t = 0; t < count; t++) {
        const int *c = &items[per * t];
        for (int k = 0; k < per; k++) {
            if (c[k] < 0 || c[k] >= n) {
                return psb_error_set(err, PSB_ERR_INVALID,
                                     "%s[%d]: point index %d out of range 0..%d", what, t, c[k],
                                     n - 1);
            }
            for (int m = 0; m < k; m++) {
                if (c[m] == c[k]) {
                    return psb_error_set(err, PSB_ERR_INVALID,
                                         "%s[%d]: expected different points, got %d twice", what, t,
                                         c[k]);
                }
            }
        }
    }
    return PSB_OK;
}

psb_status psb_body_def_validate(const psb_body_def *def, psb_error *err) {
    if (def->kind != PSB_RING && def->kind != PSB_SHELL && def->kind != PSB_CLOTH) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "kind: expected PSB_RING, PSB_SHELL or PSB_CLOTH, got %d",
                             (int)def->kind);
    }
    const int min_points = def->kind == PSB_RING ? 3 : def->kind == PSB_SHELL ? 4 : 2;
    if (def->point_count < min_points) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "point_count: expected at least %d for a %s, got %d", min_points,
                             kind_name(def->kind), def->point_count);
    }
    if (def->point_count > INT_MAX / 4) {
        return psb_error_set(err, PSB_ERR_INVALID, "point_count: expected at most %d, got %d",
                             INT_MAX / 4, def->point_count);
    }
    if (!def->points) {
        return psb_error_set(err, PSB_ERR_INVALID, "points: expected %d points, got NULL",
                             def->point_count);
    }
    psb_status status = check_points(def->points, def->point_count, "points", err);
    if (status == PSB_OK && def->rest_points) {
        status = check_points(def->rest_points, def->point_count, "rest_points", err);
    }
    if (status != PSB_OK) {
        return status;
    }
    if (!vec_finite(def->offset) || !vec_finite(def->velocity)) {
        return psb_error_set(err, PSB_ERR_INVALID, "offset/velocity: expected finite vectors");
    }
    if (def->kind == PSB_SHELL && (def->triangle_count < 4 || !def->triangles)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "triangles: a closed shell needs at least 4 triangles, got %d",
                             def->triangles ? def->triangle_count : 0);
    }
    if (def->kind != PSB_CLOTH && def->spring_count != 0) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "springs: only a cloth takes extra springs; a %s's lie on its %s",
                             kind_name(def->kind),
                             def->kind == PSB_RING ? "consecutive points" : "triangles' edges");
    }
    if (def->kind != PSB_RING) {
        if (def->triangle_count < 0 || def->spring_count < 0) {
            return psb_error_set(err, PSB_ERR_INVALID,
                                 "triangle_count, spring_count: expected >= 0, got %d and %d",
                                 def->triangle_count, def->spring_count);
        }
        status = check_indices(def->triangles, def->triangle_count, 3, def->point_count,
                               "triangles", err);
        if (status == PSB_OK) {
            status =
                check_indices(def->springs, def->spring_count, 2, def->point_count, "springs", err);
        }
        if (status != PSB_OK) {
            return status;
        }
    }
    if (def->kind == PSB_CLOTH &&
        (def->params.gas_nrt != 0.0 || def->params.outside_pressure != 0.0)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "params.gas_nrt, outside_pressure: a cloth holds no gas; expected 0, "
                             "got %g and %g",
                             def->params.gas_nrt, def->params.outside_pressure);
    }
    return psb_body_params_validate(&def->params, err);
}

psb_body_kind psb_body_get_kind(const psb_world *w, int body) {
    return world_body(w, body)->kind;
}
int psb_body_point_count(const psb_world *w, int body) {
    return world_body(w, body)->n;
}
const psb_vec3 *psb_body_positions(const psb_world *w, int body) {
    return world_body(w, body)->x_pub;
}
const psb_vec3 *psb_body_velocities(const psb_world *w, int body) {
    return world_body(w, body)->v_pub;
}
const double *psb_body_masses(const psb_world *w, int body) {
    return world_body(w, body)->mass_pub;
}
const double *psb_body_rest_lengths(const psb_world *w, int body) {
    return world_body(w, body)->rest_length;
}

const int *psb_body_edges(const psb_world *w, int body, int *count) {
    const psb_body *b = world_body(w, body);
    *count = b->spring_count;
    return b->springs;
}

const int *psb_body_triangles(const psb_world *w, int body, int *count) {
    const psb_body *b = world_body(w, body);
    *count = b->tri_count;
    return b->tri_count ? b->tris : NULL;
}

psb_body_state psb_body_measure(const psb_world *w, int body) {
    const psb_body *b = world_body(w, body);
    const double t = w->time;
    const double g = body_gravity(b, &w->params, t);
    psb_body_state s = {0};
    s.rest_volume = b->rest_volume;
    s.volume = body_volume(b, b->x_pub);
    s.gas_nrt = body_gas_nrt(b, t);
    if (b->kind != PSB_CLOTH) {
        // The same guard as the force: the gas law at no less than 1e-3 V0.
        const double v_gas = fmax(s.volume, 1e-3 * b->rest_volume);
        s.pressure = s.gas_nrt / v_gas - b->params.outside_pressure;
        // Gas potential: -nRT ln V (+ P0 V for the outside pressure).
        s.gas = -s.gas_nrt * log(v_gas) + b->params.outside_pressure * s.volume;
    }
    s.min_y = b->x_pub[0].y;
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 x = b->x_pub[i], v = b->v_pub[i];
        const double m = b->mass_pub[i];
        s.centroid.x += x.x;
        s.centroid.y += x.y;
        s.centroid.z += x.z;
        s.momentum.x += m * v.x;
        s.momentum.y += m * v.y;
        s.momentum.z += m * v.z;
        s.kinetic += 0.5 * m * (v.x * v.x + v.y * v.y + v.z * v.z);
        if (b->inv_mass[b->rank[i]] > 0.0) {
            s.gravity += m * g * x.y;
        }
        s.min_y = fmin(s.min_y, x.y);
    }
    s.centroid.x /= b->n;
    s.centroid.y /= b->n;
    s.centroid.z /= b->n;
    for (int i = 0; i < b->n; i++) {
        s.mean_radius += sqrt((b->x_pub[i].x - s.centroid.x) * (b->x_pub[i].x - s.centroid.x) +
                              (b->x_pub[i].y - s.centroid.y) * (b->x_pub[i].y - s.centroid.y) +
                              (b->x_pub[i].z - s.centroid.z) * (b->x_pub[i].z - s.centroid.z));
    }
    s.mean_radius /= b->n;
    for (int k = 0; k < b->spring_count; k++) {
        const psb_vec3 a = b->x_pub[b->springs[2 * k]], c = b->x_pub[b->springs[2 * k + 1]];
        const double len =
            sqrt((a.x - c.x) * (a.x - c.x) + (a.y - c.y) * (a.y - c.y) + (a.z - c.z) * (a.z - c.z));
        const double stretch = len - b->rest_length[k];
        s.spring += 0.5 * b->params.spring_k * stretch * stretch;
    }
    s.shape = body_shape_energy(b);
    s.energy = s.kinetic + s.spring + s.gas + s.gravity + s.shape;
    s.blowups = b->blowups;
    s.pinned = b->pin_count;
    return s;
}

double psb_body_stable_substep(const psb_world *w, int body) {
    const psb_body *b = world_body(w, body);
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
        const double inv_mass = 1.0 / b->mass_pub[i];
        // The shape matching spring adds its k_shape to the point's own.
        const double w2 = (2.0 * b->params.spring_k * degree[i] + b->params.shape_k) * inv_mass;
        const double g = 2.0 * b->params.spring_damping * degree[i] * inv_mass;
        // Positive root of h^2 w^2 + 2 h g = 4, (-g + sqrt(g^2 + 4 w^2)) / w^2,
        // written without the cancellation when g^2 >> w^2 (and 2 / g at
        // w = 0, infinite with neither).
        h_max = fmin(h_max, 4.0 / (g + sqrt(g * g + 4.0 * w2)));
    }
    free(degree);
    return h_max;
}

const psb_body_params *psb_body_get_params(const psb_world *w, int body) {
    return &world_body(w, body)->params;
}

psb_status psb_body_set_params(psb_world *w, int body, const psb_body_params *params,
                               psb_error *err) {
    psb_body *b = world_body(w, body);
    psb_status status = psb_body_params_validate(params, err);
    if (status != PSB_OK) {
        return status;
    }
    if (b->kind == PSB_CLOTH && (params->gas_nrt != 0.0 || params->outside_pressure != 0.0)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "gas_nrt, outside_pressure: a cloth holds no gas; expected 0, got %g "
                             "and %g",
                             params->gas_nrt, params->outside_pressure);
    }
    const bool masses =
        params->mass != b->params.mass || params->mass_by_area != b->params.mass_by_area;
    b->params = *params;
    body_wake(b);
    if (masses) {
        body_update_masses(b);
    }
    return PSB_OK;
}

psb_status psb_body_set_state(psb_world *w, int body, const psb_vec3 *positions,
                              const psb_vec3 *velocities, psb_error *err) {
    psb_body *b = world_body(w, body);
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
            b->x_pub[i] = positions[i];
        }
        if (velocities) {
            b->v_pub[i] = velocities[i];
        }
        if (ring) {
            b->x_pub[i].z = 0.0;
            b->v_pub[i].z = 0.0;
        }
    }
    body_unpublish(b);
    body_wake(b);
    // A pinned point stays pinned, where it was put, at rest.
    for (int slot = 0; slot < b->pin_count; slot++) {
        const int k = b->pin_index[slot];
        if (positions) {
            b->pin_pos[slot] = (psb_vec3){b->x[0][k], b->x[1][k], b->x[2][k]};
        }
        body_hold_pins(b, k, k + 1);
        body_publish(b, b->order[k], b->order[k] + 1);
    }
    body_snapshot(b);
    return PSB_OK;
}

void psb_body_reset(psb_world *w, int body) {
    psb_body *b = world_body(w, body);
    for (int c = 0; c < 3; c++) {
        memcpy(b->x[c], b->x_init[c], (size_t)b->n_pad * sizeof(double));
        memcpy(b->v[c], b->v_init[c], (size_t)b->n_pad * sizeof(double));
    }
    body_hold_pins(b, 0, b->n);
    body_publish(b, 0, b->n);
    body_snapshot(b);
    b->start_time = w->time;
    b->grab_point = -1;
    b->blew_last_step = false;
    body_wake(b);
}

void psb_body_grab(psb_world *w, int body, int point, psb_vec3 target, double k) {
    psb_body *b = world_body(w, body);
    body_check_point(b, point);
    assert(isfinite(k) && k >= 0.0 && "psb_body_grab: k must be finite and >= 0 (N/m)");
    b->grab_point = point;
    b->grab_k = k;
    psb_body_grab_move(w, body, target);
}

void psb_body_grab_move(psb_world *w, int body, psb_vec3 target) {
    psb_body *b = world_body(w, body);
    assert(isfinite(target.x) && isfinite(target.y) && isfinite(target.z) &&
           "psb_body_grab_move: target must be finite");
    if (b->kind == PSB_RING) {
        target.z = 0.0;
    }
    b->grab_target = target;
    body_wake(b);
}

void psb_body_release(psb_world *w, int body) {
    psb_body *b = world_body(w, body);
    b->grab_point = -1;
    body_wake(b);
}

int psb_body_grabbed_point(const psb_world *w, int body) {
    return world_body(w, body)->grab_point;
}

void psb_body_apply_impulse(psb_world *w, int body, int point, psb_vec3 impulse) {
    psb_body *b = world_body(w, body);
    body_check_point(b, point);
    assert(isfinite(impulse.x) && isfinite(impulse.y) && isfinite(impulse.z) &&
           "psb_body_apply_impulse: impulse must be finite");
    const int k = b->rank[point];
    b->v[0][k] += b->inv_mass[k] * impulse.x;
    b->v[1][k] += b->inv_mass[k] * impulse.y;
    if (b->kind != PSB_RING) {
        b->v[2][k] += b->inv_mass[k] * impulse.z;
    }
    body_publish(b, point, point + 1);
    body_wake(b);
}

psb_solver_report psb_body_solver_report(const psb_world *w, int body) {
    return world_body(w, body)->solver;
}

psb_status psb_body_pin(psb_world *w, int body, int point, psb_vec3 position, psb_error *err) {
    psb_body *b = world_body(w, body);
    body_check_point(b, point);
    if (!vec_finite(position)) {
        return psb_error_set(err, PSB_ERR_INVALID, "pin position: expected finite coordinates");
    }
    if (b->kind == PSB_RING) {
        position.z = 0.0;
    }
    const int k = b->rank[point];
    int slot = body_pin_slot(b, k);
    if (slot < 0) {
        if (b->pin_count == b->pin_capacity) {
            const int capacity = b->pin_capacity ? 2 * b->pin_capacity : 8;
            int *index = realloc(b->pin_index, (size_t)capacity * sizeof *index);
            if (!index) {
                return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d pins", capacity);
            }
            b->pin_index = index;
            psb_vec3 *pos = realloc(b->pin_pos, (size_t)capacity * sizeof *pos);
            if (!pos) {
                return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d pins", capacity);
            }
            b->pin_pos = pos;
            b->pin_capacity = capacity;
        }
        slot = b->pin_count++;
        b->pin_index[slot] = k;
    }
    b->pin_pos[slot] = position;
    b->inv_mass[k] = 0.0;
    body_note_masses(b);
    body_wake(b);
    body_hold_pins(b, k, k + 1);
    body_publish(b, point, point + 1);
    // The guard measures a step's motion from its start: the pin's jump is
    // not the step's.
    for (int c = 0; c < 3; c++) {
        b->x_good[c][k] = b->x[c][k];
    }
    return PSB_OK;
}

void psb_body_unpin(psb_world *w, int body, int point) {
    psb_body *b = world_body(w, body);
    body_check_point(b, point);
    const int k = b->rank[point];
    const int slot = body_pin_slot(b, k);
    if (slot < 0) {
        return;
    }
    b->pin_count--;
    b->pin_index[slot] = b->pin_index[b->pin_count];
    b->pin_pos[slot] = b->pin_pos[b->pin_count];
    b->inv_mass[k] = 1.0 / b->mass[k];
    body_note_masses(b);
    body_wake(b);
}

bool psb_body_is_pinned(const psb_world *w, int body, int point) {
    const psb_body *b = world_body(w, body);
    body_check_point(b, point);
    return body_pin_slot(b, b->rank[point]) >= 0;
}

int psb_body_pin_count(const psb_world *w, int body) {
    return world_body(w, body)->pin_count;
}

void psb_body_shape_match(const psb_world *w, int body, psb_vec3 *goals, double rotation[9]) {
    const psb_body *b = world_body(w, body);
    double centre[3], R[9];
    const body_part whole = body_whole(b);
    body_shape_fit(b, &whole, centre, R);
    for (int k = 0; goals && k < b->n; k++) {
        double g[3];
        body_shape_goal(b, centre, R, k, g);
        goals[b->order[k]] = (psb_vec3){g[0], g[1], g[2]};
    }
    if (rotation) {
        memcpy(rotation, R, 9 * sizeof R[0]);
    }
}
