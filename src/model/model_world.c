// The plain model's bookkeeping: making bodies from their definitions (the
// springs, rest lengths and masses, as psb_world makes them), and reading
// them back. The physics is in model.c and model_implicit.c.
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"

const char *psb_model_lacks(const psb_params *params, const psb_body_params *material) {
    if (params && params->wind_turbulence > 0.0) {
        return "gusts (wind_turbulence)";
    }
    if (material && (material->shape_k > 0.0 || material->shape_damping > 0.0)) {
        return "shape matching (shape_k, shape_damping)";
    }
    return NULL;
}

psb_model *psb_model_create(const psb_params *params, psb_error *err) {
    if (psb_params_validate(params, err) != PSB_OK) {
        return NULL;
    }
    const char *lacks = psb_model_lacks(params, NULL);
    if (lacks) {
        psb_error_set(err, PSB_ERR_INVALID, "the plain model has no %s", lacks);
        return NULL;
    }
    psb_model *m = calloc(1, sizeof *m);
    if (!m) {
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a model world");
        return NULL;
    }
    m->params = *params;
    return m;
}

static void body_free(model_body *b) {
    if (!b) {
        return;
    }
    psb_vec3 *vectors[] = {b->x,      b->v,       b->pin_at, b->hist_x, b->hist_v,  b->end_x,
                           b->end_v,  b->x0,      b->v0,     b->sx,     b->sv,      b->f,
                           b->y,      b->xb,      b->u0,     b->g,      b->d,       b->r,
                           b->z,      b->p,       b->q,      b->xs,     b->plane_n, b->x_step,
                           b->v_step, b->x_found, b->rest_x, b->x_held};
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++) {
        free(vectors[k]);
    }
    free(b->mass);
    free(b->rest_fold);
    free(b->own_last);
    free(b->own_streak);
    free(b->pinned);
    free(b->spring);
    free(b->rest);
    free(b->degree);
    free(b->strut);
    free(b->strut_rest);
    free(b->plane_d);
    free(b->tri);
    free(b->around_first);
    free(b->around);
    free(b->across);
    free(b->touched);
    free(b->shifted);
    free(b->link_k);
    free(b->kept_force);
    free(b->kept_against);
    free(b->kept_slip);
    free(b->slip_against);
    free(b);
}

void psb_model_destroy(psb_model *m) {
    if (!m) {
        return;
    }
    for (int k = 0; k < m->body_count; k++) {
        body_free(m->bodies[k]);
    }
    free(m->bodies);
    free(m->sphere_centre);
    free(m->sphere_radius);
    free(m->contacts);
    free(m->links);
    free(m);
}

psb_status psb_model_set_params(psb_model *m, const psb_params *params, psb_error *err) {
    psb_status status = psb_params_validate(params, err);
    const char *lacks = psb_model_lacks(params, NULL);
    if (status == PSB_OK && lacks) {
        status = psb_error_set(err, PSB_ERR_INVALID, "the plain model has no %s", lacks);
    }
    if (status == PSB_OK) {
        m->params = *params;
    }
    return status;
}

static int compare_edges(const void *a, const void *b) {
    const int *p = a, *q = b;
    return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0]) : (p[1] > q[1]) - (p[1] < q[1]);
}

// The springs: a ring's join consecutive points; a shell's and a cloth's
// are the triangles' edges (and a cloth's own), each once.
static bool make_springs(model_body *b, const psb_body_def *def) {
    if (b->kind == PSB_RING) {
        b->spring_count = b->n;
        b->spring = malloc(2 * (size_t)b->n * sizeof(int));
        for (int i = 0; b->spring && i < b->n; i++) {
            b->spring[2 * i] = i;
            b->spring[2 * i + 1] = (i + 1) % b->n;
        }
        return b->spring != NULL;
    }
    const int extra = b->kind == PSB_CLOTH ? def->spring_count : 0;
    const int count = 3 * b->tri_count + extra;
    int *e = malloc(2 * (size_t)(count > 0 ? count : 1) * sizeof(int));
    if (!e) {
        return false;
    }
    for (int k = 0; k < count; k++) {
        const int t = k / 3, corner = k % 3;
        const int i = k < 3 * b->tri_count ? b->tri[3 * t + corner]
                                           : def->springs[2 * (k - 3 * b->tri_count)];
        const int j = k < 3 * b->tri_count ? b->tri[3 * t + (corner + 1) % 3]
                                           : def->springs[2 * (k - 3 * b->tri_count) + 1];
        e[2 * k] = i < j ? i : j;
        e[2 * k + 1] = i < j ? j : i;
    }
    qsort(e, (size_t)count, 2 * sizeof(int), compare_edges);
    b->spring_count = 0;
    for (int k = 0; k < count; k++) {
        if (b->spring_count == 0 || compare_edges(&e[2 * k], &e[2 * (b->spring_count - 1)]) != 0) {
            e[2 * b->spring_count] = e[2 * k];
            e[2 * b->spring_count + 1] = e[2 * k + 1];
            b->spring_count++;
        }
    }
    b->spring = e;
    return true;
}

// The struts (model_body.strut): for each edge of a shell that two
// triangles share, their third corners (sorted low, high), unless a spring
// or an earlier strut joins them; none on a ring or a cloth. Needs the
// springs (sorted).
static bool make_struts(model_body *b) {
    b->strut_count = 0;
    const int count = b->kind == PSB_SHELL ? 3 * b->tri_count : 0;
    int *e = malloc(3 * (size_t)(count > 0 ? count : 1) * sizeof(int)); // low, high, far
    b->strut = malloc(2 * (size_t)(count > 0 ? count : 1) * sizeof(int));
    if (!e || !b->strut) {
        free(e);
        return false;
    }
    for (int k = 0; k < count; k++) {
        const int t = k / 3, corner = k % 3;
        const int i = b->tri[3 * t + corner], j = b->tri[3 * t + (corner + 1) % 3];
        e[3 * k] = i < j ? i : j;
        e[3 * k + 1] = i < j ? j : i;
        e[3 * k + 2] = b->tri[3 * t + (corner + 2) % 3];
    }
    qsort(e, (size_t)count, 3 * sizeof(int), compare_edges);
    for (int k = 0; k < count;) {
        int run = 1;
        while (k + run < count && compare_edges(&e[3 * k], &e[3 * (k + run)]) == 0) {
            run++;
        }
        if (run == 2) {
            const int p = e[3 * k + 2], q = e[3 * k + 5];
            const int pair[2] = {p < q ? p : q, p < q ? q : p};
            if (p != q && !bsearch(pair, b->spring, (size_t)b->spring_count, 2 * sizeof(int),
                                   compare_edges)) {
                b->strut[2 * b->strut_count] = pair[0];
                b->strut[2 * b->strut_count + 1] = pair[1];
                b->strut_count++;
            }
        }
        k += run;
    }
    free(e);
    qsort(b->strut, (size_t)b->strut_count, 2 * sizeof(int), compare_edges);
    int kept = 0;
    for (int k = 0; k < b->strut_count; k++) {
        if (kept == 0 || compare_edges(&b->strut[2 * k], &b->strut[2 * (kept - 1)]) != 0) {
            b->strut[2 * kept] = b->strut[2 * k];
            b->strut[2 * kept + 1] = b->strut[2 * k + 1];
            kept++;
        }
    }
    b->strut_count = kept;
    return true;
}

// What contact between bodies needs for its pseudo-normals
// (docs/contact.md), from the triangles (none on a ring): the triangles
// around each point, counted per point and then filed in increasing index,
// and for edge e of triangle t (corners e and e + 1) the triangle across it:
// the other triangle that has both corners, the first in index order (-1:
// none, an open edge). (A triangle that names a point twice has no area and
// no normal: it is filed as often as it names it, and adds nothing.)
static bool make_adjacency(model_body *b) {
    const size_t slots = 3 * (size_t)(b->tri_count > 0 ? b->tri_count : 1);
    b->around_first = calloc((size_t)b->n + 1, sizeof(int));
    b->around = malloc(slots * sizeof(int));
    b->across = malloc(slots * sizeof(int));
    int *next = malloc((size_t)b->n * sizeof(int));
    if (!b->around_first || !b->around || !b->across || !next) {
        free(next);
        return false;
    }
    for (int k = 0; k < 3 * b->tri_count; k++) {
        b->around_first[b->tri[k] + 1]++;
    }
    for (int i = 0; i < b->n; i++) {
        b->around_first[i + 1] += b->around_first[i];
        next[i] = b->around_first[i];
    }
    for (int k = 0; k < 3 * b->tri_count; k++) {
        b->around[next[b->tri[k]]++] = k / 3;
    }
    free(next);
    for (int t = 0; t < b->tri_count; t++) {
        for (int e = 0; e < 3; e++) {
            const int i = b->tri[3 * t + e], j = b->tri[3 * t + (e + 1) % 3];
            b->across[3 * t + e] = -1;
            for (int k = b->around_first[i]; k < b->around_first[i + 1]; k++) {
                const int u = b->around[k];
                const int *c = &b->tri[3 * u];
                if (u != t && (c[0] == j || c[1] == j || c[2] == j)) {
                    b->across[3 * t + e] = u;
                    break;
                }
            }
        }
    }
    return true;
}

// Masses: the body's mass split evenly, or by the rest area round each
// point (a third of each triangle, half of each edge of a ring); a point
// with no area gets the smallest any point has.
static void make_masses(model_body *b, const psb_vec3 *rest) {
    double sum = 0.0;
    for (int i = 0; i < b->n; i++) {
        b->mass[i] = 0.0;
    }
    if (b->params.mass_by_area && b->kind == PSB_RING) {
        for (int i = 0; i < b->n; i++) {
            const double half = 0.5 * norm(sub(rest[(i + 1) % b->n], rest[i]));
            b->mass[i] += half;
            b->mass[(i + 1) % b->n] += half;
            sum += 2.0 * half;
        }
    } else if (b->params.mass_by_area) {
        for (int t = 0; t < b->tri_count; t++) {
            const int *c = &b->tri[3 * t];
            const double third =
                norm(cross(sub(rest[c[1]], rest[c[0]]), sub(rest[c[2]], rest[c[0]]))) / 6.0;
            for (int k = 0; k < 3; k++) {
                b->mass[c[k]] += third;
            }
            sum += 3.0 * third;
        }
    }
    double smallest = INFINITY;
    for (int i = 0; i < b->n; i++) {
        smallest = b->mass[i] > 0.0 ? fmin(smallest, b->mass[i]) : smallest;
    }
    for (int i = 0; sum > 0.0 && i < b->n; i++) {
        if (!(b->mass[i] > 0.0)) {
            b->mass[i] = smallest;
            sum += smallest;
        }
    }
    for (int i = 0; i < b->n; i++) {
        b->mass[i] = sum > 0.0 ? b->params.mass * b->mass[i] / sum : b->params.mass / b->n;
    }
}

int psb_model_add_body(psb_model *m, const psb_body_def *def, psb_error *err) {
    if (psb_body_def_validate(def, err) != PSB_OK) {
        return -1;
    }
    const char *lacks = psb_model_lacks(NULL, &def->params);
    if (lacks) {
        return psb_error_set(err, PSB_ERR_INVALID, "the plain model has no %s", lacks), -1;
    }
    model_body *b = calloc(1, sizeof *b);
    model_body **grown = realloc(m->bodies, ((size_t)m->body_count + 1) * sizeof *grown);
    if (grown) {
        m->bodies = grown;
    }
    bool ok = b && grown;
    const size_t n = (size_t)def->point_count;
    psb_vec3 *rest = malloc(n * sizeof *rest);
    if (ok) {
        b->kind = def->kind;
        b->n = def->point_count;
        b->params = def->params;
        b->start_time = m->time;
        b->grab_point = -1;
        b->tri_count = def->kind == PSB_RING ? 0 : def->triangle_count;
        b->tri = malloc(3 * (size_t)(b->tri_count > 0 ? b->tri_count : 1) * sizeof(int));
        b->mass = malloc(n * sizeof(double));
        b->pinned = calloc(n, sizeof(bool));
        b->plane_d = calloc(n, sizeof(double));
        b->touched = calloc(n, sizeof(bool));
        b->shifted = calloc(n, sizeof(bool));
        b->link_k = calloc(n, sizeof(double));
        b->kept_force = calloc(n, sizeof(double));
        b->kept_against = calloc(n, sizeof(int));
        b->slip_against = calloc(n, sizeof(int));
        b->rest_fold = calloc(n, 1);
        b->own_last = calloc(n, sizeof(long));
        b->own_streak = calloc(n, 1);
        psb_vec3 **vectors[] = {
            &b->x,       &b->v,      &b->pin_at, &b->hist_x,  &b->hist_v,    &b->end_x, &b->end_v,
            &b->x0,      &b->v0,     &b->sx,     &b->sv,      &b->f,         &b->y,     &b->xb,
            &b->g,       &b->d,      &b->r,      &b->z,       &b->p,         &b->q,     &b->xs,
            &b->plane_n, &b->x_step, &b->v_step, &b->x_found, &b->kept_slip, &b->x_held};
        for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++) {
            *vectors[k] = calloc(n, sizeof(psb_vec3));
            ok = ok && *vectors[k];
        }
        ok = ok && rest && b->tri && b->mass && b->pinned && b->plane_d && b->touched &&
             b->shifted && b->link_k && b->kept_force && b->kept_against && b->slip_against &&
             b->rest_fold && b->own_last && b->own_streak;
    }
    if (ok) {
        memcpy(b->tri, def->triangles ? def->triangles : (const int[3]){0},
               3 * (size_t)b->tri_count * sizeof(int));
        ok = make_springs(b, def) && make_struts(b) && make_adjacency(b);
    }
    if (!ok) {
        free(rest);
        body_free(b);
        return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a body of %d points",
                             def->point_count),
               -1;
    }
    // The springs are at rest on the rest shape (the points' if none).
    const psb_vec3 *from = def->rest_points ? def->rest_points : def->points;
    psb_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < b->n; i++) {
        rest[i] = add(from[i], def->offset);
        b->x[i] = add(def->points[i], def->offset);
        b->v[i] = def->velocity;
        if (b->kind == PSB_RING) {
            rest[i].z = b->x[i].z = b->v[i].z = 0.0;
        }
        lo = (psb_vec3){fmin(lo.x, rest[i].x), fmin(lo.y, rest[i].y), fmin(lo.z, rest[i].z)};
        hi = (psb_vec3){fmax(hi.x, rest[i].x), fmax(hi.y, rest[i].y), fmax(hi.z, rest[i].z)};
    }
    b->rest_size = norm(sub(hi, lo));
    b->placed = true;
    b->rest = malloc((size_t)(b->spring_count > 0 ? b->spring_count : 1) * sizeof(double));
    b->u0 = malloc((size_t)(b->spring_count > 0 ? b->spring_count : 1) * sizeof(psb_vec3));
    for (int s = 0; b->rest && s < b->spring_count; s++) {
        b->rest[s] = norm(sub(rest[b->spring[2 * s]], rest[b->spring[2 * s + 1]]));
    }
    b->degree = calloc((size_t)b->n, sizeof(int));
    for (int s = 0; b->degree && s < b->spring_count; s++) {
        b->degree[b->spring[2 * s]]++;
        b->degree[b->spring[2 * s + 1]]++;
    }
    b->strut_rest = malloc((size_t)(b->strut_count > 0 ? b->strut_count : 1) * sizeof(double));
    for (int s = 0; b->strut_rest && s < b->strut_count; s++) {
        b->strut_rest[s] = norm(sub(rest[b->strut[2 * s]], rest[b->strut[2 * s + 1]]));
    }
    b->rest_volume = model_volume(b, rest);
    make_masses(b, rest);
    b->rest_x = rest;
    if (!b->rest || !b->u0 || !b->degree || !b->strut_rest) {
        body_free(b);
        return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a body's springs"), -1;
    }
    if (b->kind != PSB_CLOTH && !(b->rest_volume > 0.0)) {
        const double v = b->rest_volume;
        body_free(b);
        return psb_error_set(err, PSB_ERR_INVALID,
                             "the rest shape encloses a volume of %g; expected > 0 (a shell's "
                             "triangles counter-clockwise seen from outside, a ring's points "
                             "counter-clockwise)",
                             v),
               -1;
    }
    m->bodies[m->body_count] = b;
    return m->body_count++;
}

psb_status psb_model_add_sphere(psb_model *m, psb_vec3 centre, double radius, psb_error *err) {
    if (!(isfinite(centre.x) && isfinite(centre.y) && isfinite(centre.z) && isfinite(radius) &&
          radius > 0.0)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "sphere: expected a finite centre and a finite radius > 0, got %g",
                             radius);
    }
    psb_vec3 *c = realloc(m->sphere_centre, ((size_t)m->sphere_count + 1) * sizeof *c);
    if (c) {
        m->sphere_centre = c;
    }
    double *r = realloc(m->sphere_radius, ((size_t)m->sphere_count + 1) * sizeof *r);
    if (r) {
        m->sphere_radius = r;
    }
    if (!c || !r) {
        return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a sphere");
    }
    m->sphere_centre[m->sphere_count] = centre;
    m->sphere_radius[m->sphere_count++] = radius;
    return PSB_OK;
}

static model_body *body_at(const psb_model *m, int body) {
    assert(body >= 0 && body < m->body_count && "psb_model: no body with that id");
    return m->bodies[body];
}

double psb_model_time(const psb_model *m) {
    return m->time;
}

long psb_model_step_count(const psb_model *m) {
    return m->steps;
}

int psb_model_point_count(const psb_model *m, int body) {
    return body_at(m, body)->n;
}

const psb_vec3 *psb_model_positions(const psb_model *m, int body) {
    return body_at(m, body)->x;
}

const psb_vec3 *psb_model_velocities(const psb_model *m, int body) {
    return body_at(m, body)->v;
}

double psb_model_volume(const psb_model *m, int body) {
    const model_body *b = body_at(m, body);
    return model_volume(b, b->x);
}

psb_body_state psb_model_measure(const psb_model *m, int body) {
    const model_body *b = body_at(m, body);
    const double t = m->time, g = model_gravity(b, &m->params, t);
    psb_body_state s = {.rest_volume = b->rest_volume, .volume = model_volume(b, b->x)};
    s.gas_nrt = b->kind == PSB_CLOTH ? 0.0 : model_gas_nrt(b, t);
    if (b->kind != PSB_CLOTH) {
        // -nRT ln V + P0 V, at no less than the gas law's floor volume.
        const double v_gas = fmax(s.volume, model_floor_volume(b));
        s.pressure = model_pressure(b, s.gas_nrt, s.volume);
        s.gas = -s.gas_nrt * log(v_gas) + b->params.outside_pressure * s.volume;
    }
    s.min_y = b->x[0].y;
    for (int i = 0; i < b->n; i++) {
        s.centroid = add(s.centroid, b->x[i]);
        s.momentum = axpy(s.momentum, b->mass[i], b->v[i]);
        s.kinetic += 0.5 * b->mass[i] * dot(b->v[i], b->v[i]);
        s.gravity += b->pinned[i] ? 0.0 : b->mass[i] * g * b->x[i].y;
        s.min_y = fmin(s.min_y, b->x[i].y);
        s.pinned += b->pinned[i];
    }
    s.centroid = scale(1.0 / b->n, s.centroid);
    for (int i = 0; i < b->n; i++) {
        s.mean_radius += norm(sub(b->x[i], s.centroid)) / b->n;
    }
    for (int k = 0; k < b->spring_count; k++) {
        const double stretch =
            norm(sub(b->x[b->spring[2 * k]], b->x[b->spring[2 * k + 1]])) - b->rest[k];
        s.spring += 0.5 * b->params.spring_k * stretch * stretch;
    }
    s.energy = s.kinetic + s.spring + s.gas + s.gravity;
    return s;
}

int psb_model_body_count(const psb_model *m) {
    return m->body_count;
}

const psb_body_params *psb_model_body_params(const psb_model *m, int body) {
    return &body_at(m, body)->params;
}

void psb_model_pin(psb_model *m, int body, int point, psb_vec3 position) {
    model_body *b = body_at(m, body);
    assert(point >= 0 && point < b->n && "psb_model_pin: no point with that index");
    b->pinned[point] = true;
    b->pin_at[point] = position;
    model_hold_pins(b);
}

void psb_model_grab(psb_model *m, int body, int point, psb_vec3 target, double k) {
    model_body *b = body_at(m, body);
    assert(point >= -1 && point < b->n && "psb_model_grab: no point with that index");
    b->grab_point = point;
    b->grab_target = b->kind == PSB_RING ? (psb_vec3){target.x, target.y, 0.0} : target;
    b->grab_k = k;
}

psb_solver_report psb_model_solver_report(const psb_model *m) {
    return m->report;
}

// The spring joining points i and j, or -1: a ring's spring s joins s and
// s + 1; the others' are sorted by their ends (make_springs).
static int find_spring(const model_body *b, int i, int j) {
    const int lo = i < j ? i : j, hi = i < j ? j : i;
    if (b->kind == PSB_RING) {
        return hi == lo + 1 ? lo : lo == 0 && hi == b->n - 1 ? hi : -1;
    }
    int first = 0, last = b->spring_count - 1;
    while (first <= last) {
        const int mid = first + (last - first) / 2;
        const int *e = &b->spring[2 * mid];
        const int order = e[0] != lo ? (e[0] > lo) - (e[0] < lo) : (e[1] > hi) - (e[1] < hi);
        if (order == 0) {
            return mid;
        }
        if (order < 0) {
            first = mid + 1;
        } else {
            last = mid - 1;
        }
    }
    return -1;
}

psb_model *psb_model_from_world(const psb_world *w, psb_error *err) {
    if (psb_world_step_count(w) > 0) {
        psb_error_set(err, PSB_ERR_INVALID,
                      "the world has stepped: its rest shapes are no longer its points");
        return NULL;
    }
    psb_model *m = psb_model_create(psb_world_params(w), err);
    for (int s = 0; m && s < psb_world_sphere_count(w); s++) {
        psb_vec3 centre;
        double radius;
        psb_world_sphere(w, s, &centre, &radius);
        if (psb_model_add_sphere(m, centre, radius, err) != PSB_OK) {
            psb_model_destroy(m);
            m = NULL;
        }
    }
    for (int k = 0; m && k < psb_world_body_count(w); k++) {
        psb_body_def def = psb_default_body_def();
        def.kind = psb_body_get_kind(w, k);
        def.points = psb_body_positions(w, k);
        def.point_count = psb_body_point_count(w, k);
        def.triangles = psb_body_triangles(w, k, &def.triangle_count);
        if (def.kind == PSB_CLOTH) {
            // Its springs: the triangles' edges (met again, and merged) and
            // its own.
            def.springs = psb_body_edges(w, k, &def.spring_count);
        }
        def.params = *psb_body_get_params(w, k);
        if (psb_model_add_body(m, &def, err) != k) {
            psb_model_destroy(m);
            m = NULL;
            break;
        }
        model_body *b = m->bodies[k];
        const psb_vec3 *v = psb_body_velocities(w, k);
        for (int i = 0; i < b->n; i++) {
            b->v[i] = v[i];
            if (psb_body_is_pinned(w, k, i)) {
                psb_model_pin(m, k, i, b->x[i]);
            }
        }
        // Its rest lengths, masses and rest volume are the world's (a body
        // made from a rest shape of its own does not start at rest).
        const double *rest = psb_body_rest_lengths(w, k);
        int edges = 0;
        const int *pairs = psb_body_edges(w, k, &edges);
        for (int e = 0; e < edges; e++) {
            const int sp = find_spring(b, pairs[2 * e], pairs[2 * e + 1]);
            if (sp >= 0) {
                b->rest[sp] = rest[e];
            }
        }
        memcpy(b->mass, psb_body_masses(w, k), (size_t)b->n * sizeof(double));
        b->rest_volume = psb_body_measure(w, k).rest_volume;
    }
    return m;
}
