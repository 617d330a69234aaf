// The world: bodies, colliders, the fixed-step loop and the blow-up guard
// (every psb_world_* function; the psb_body_* ones are in body.c).
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

// What one thread of a threaded step reports back, a cache line each.
typedef struct thread_slot {
    _Alignas(64) psb_vec3 lo; // bounding box of its points at the end, m
    psb_vec3 hi;
    int bad; // how many of its points blew up
} thread_slot;

// The blow-up guard's verdict on a body.
typedef struct verdict {
    int point; // lowest public index of the points that blew up, or INT_MAX
    bool nan;  // that point became NaN or infinite (else it moved too far)
    double d2; // how far it moved, squared, m²
} verdict;

// Starts the OpenMP thread team once, outside the step, so that the step's
// parallel regions find it ready and never allocate.
static void warm_threads(int threads) {
#ifdef _OPENMP
    if (threads > 1) {
#pragma omp parallel num_threads(threads)
        { (void)omp_get_thread_num(); }
    }
#else
    (void)threads;
#endif
}

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
    w->kernels = kernels_best();
    w->slots = aligned_alloc(_Alignof(thread_slot), (size_t)params->threads * sizeof(thread_slot));
    if (!w->slots) {
        free(w);
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d threads", params->threads);
        return NULL;
    }
    w->slot_count = params->threads;
#ifdef _OPENMP
    w->barrier = team_barrier_create();
    if (!w->barrier) {
        free(w->slots);
        free(w);
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a world");
        return NULL;
    }
#endif
    w->contacts = contact_list_create();
    if (!w->contacts) {
        team_barrier_destroy(w->barrier);
        free(w->slots);
        free(w);
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a world");
        return NULL;
    }
    warm_threads(params->threads);
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
    free(w->slots);
    team_barrier_destroy(w->barrier);
    contact_list_destroy(w->contacts);
    free(w->links);
    free(w->group_of);
    free(w->group_index);
    free(w->group_start);
    free(w->group_member);
    free(w->group_link);
    free(w->link_acting);
    free(w->group_ctx);
    free(w->group_part);
    free(w);
}

// The points of w's bodies and of b (NULL: none).
static long world_points(const psb_world *w, const psb_body *b) {
    long points = b ? b->n : 0;
    for (int k = 0; k < w->body_count; k++) {
        points += w->bodies[k]->n;
    }
    return points;
}

// The most triangles (a ring: edges) of any body's surface, with b too.
static int contact_elements(const psb_world *w, const psb_body *b) {
    int most = b ? contact_body_elements(b->touch) : 0;
    for (int k = 0; k < w->body_count; k++) {
        const int e = contact_body_elements(w->bodies[k]->touch);
        most = e > most ? e : most;
    }
    return most;
}

// Every body's implicit step is solved afresh (body_wake).
static void wake_bodies(psb_world *w) {
    for (int k = 0; k < w->body_count; k++) {
        body_wake(w->bodies[k]);
    }
}

psb_status psb_world_set_params(psb_world *w, const psb_params *params, psb_error *err) {
    psb_status status = psb_params_validate(params, err);
    if (status != PSB_OK) {
        return status;
    }
    if (params->threads > w->slot_count) {
        thread_slot *slots =
            aligned_alloc(_Alignof(thread_slot), (size_t)params->threads * sizeof(thread_slot));
        if (!slots) {
            return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d threads",
                                 params->threads);
        }
        free(w->slots);
        w->slots = slots;
        w->slot_count = params->threads;
    }
    if (!contact_list_reserve(w->contacts, 0, contact_elements(w, NULL), w->body_count,
                              world_points(w, NULL), params->threads)) {
        return psb_error_set(err, PSB_ERR_NOMEM,
                             "out of memory for the contacts' search on %d "
                             "threads",
                             params->threads);
    }
    for (int k = 0; k < w->body_count; k++) {
        status = body_size_rings(w->bodies[k], params->threads, err);
        if (status == PSB_OK && psb_integrator_is_implicit(params->integrator)) {
            status = body_prepare_implicit(w->bodies[k], err);
        }
        if (status != PSB_OK) {
            return status;
        }
    }
    if (params->threads != w->params.threads) {
        warm_threads(params->threads);
    }
    // Any change wakes every body (a byte compare: one that differs only in
    // padding wakes them too, which costs a solve and nothing else).
    if (memcmp(params, &w->params, sizeof *params) != 0) {
        wake_bodies(w);
    }
    w->params = *params;
    return PSB_OK;
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
    if (psb_integrator_is_implicit(w->params.integrator) &&
        body_prepare_implicit(b, err) != PSB_OK) {
        body_destroy(b);
        return -1;
    }
    // Room for twice as many contacts (and links) as there are points, so
    // that a step rarely needs more (one that does doubles it: grow_room in
    // contact.c).
    const long points = world_points(w, b);
    const int room = (int)(2 * points < INT_MAX ? 2 * points : INT_MAX);
    if (!contact_list_reserve(w->contacts, room, contact_elements(w, b), w->body_count + 1, points,
                              w->params.threads) ||
        !world_reserve_groups(w, w->body_count + 1, room)) {
        body_destroy(b);
        psb_error_set(err, PSB_ERR_NOMEM,
                      "out of memory for the contacts (and links) of %ld points", points);
        return -1;
    }
    b->profile = w->profiling ? &w->profile : NULL;
    w->bodies[w->body_count] = b;
    w->quiet = false; // a new body: its contacts are to be found
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
    wake_bodies(w);
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

static double diagonal(psb_vec3 lo, psb_vec3 hi) {
    const double dx = hi.x - lo.x, dy = hi.y - lo.y, dz = hi.z - lo.z;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

// Blow-up guard, the details once the scan (guard_scan) found a point that
// became NaN/Inf or moved farther than limit in one world step: the lowest
// public index that did, so that the report does not depend on the
// internal order or the threads.
static verdict find_blowup(const psb_body *b, double limit) {
    const double limit2 = limit * limit;
    verdict out = {INT_MAX, false, 0.0};
    for (int k = 0; k < b->n; k++) {
        const double x = b->x[0][k], y = b->x[1][k], z = b->x[2][k];
        const bool finite = isfinite(x) && isfinite(y) && isfinite(z) && isfinite(b->v[0][k]) &&
                            isfinite(b->v[1][k]) && isfinite(b->v[2][k]);
        const double dx = x - b->x_good[0][k], dy = y - b->x_good[1][k], dz = z - b->x_good[2][k];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if ((!finite || !(d2 <= limit2)) && b->order[k] < out.point) {
            out = (verdict){b->order[k], !finite, d2};
        }
    }
    return out;
}

// After a good step: the positions the scan copied become the start of the
// next step.
static void accept_step(psb_body *b, psb_vec3 lo, psb_vec3 hi) {
    for (int c = 0; c < 3; c++) {
        double *swap = b->x_good[c];
        b->x_good[c] = b->x_next[c];
        b->x_next[c] = swap;
    }
    b->good_size = diagonal(lo, hi);
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

psb_solver_report psb_world_solver_report(const psb_world *w) {
    psb_solver_report all = {0, 0, 0.0, 0.0, true, 0};
    for (int k = 0; k < w->body_count; k++) {
        const psb_solver_report r = w->bodies[k]->solver;
        all.newton += r.newton;
        all.iterations += r.iterations;
        all.residual = fmax(all.residual, r.residual);
        all.force_residual = fmax(all.force_residual, r.force_residual);
        all.converged = all.converged && r.converged;
        all.asleep += r.asleep;
    }
    return all;
}

const char *psb_world_instruction_set(const psb_world *w) {
    return w->kernels->name;
}

// All the sub-steps of one world step for body b on one thread (unless
// `stepped`: they were taken already, together with other bodies), and the
// guard's verdict.
static verdict step_body_serial(psb_world *w, psb_body *b, bool stepped) {
    const psb_params *p = &w->params;
    const double h = p->dt / p->substeps;
    psb_profile *prof = b->profile;
    if (prof && prof->threads < 1) {
        prof->threads = 1;
    }
    const double limit = p->blowup_size * fmax(b->rest_size, b->good_size);
    guard_tally g = {
        limit * limit, {INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0};
    double start;
    if (!stepped && body_sweeps(b, w)) {
        body_sweep_step(b, w, 0, b->chunk_count, 0, 1, NULL, &g);
        start = prof ? profile_now() : 0.0;
    } else {
        const body_part whole = body_whole(b);
        for (int s = 0; s < p->substeps && !stepped; s++) {
            body_integrate(b, w, &whole, w->time + s * h, h);
        }
        start = prof ? profile_now() : 0.0;
        g.bad = w->kernels->guard_scan(b, 0, b->n, g.limit2, &g.lo, &g.hi);
    }
    verdict v = {INT_MAX, false, 0.0};
    if (g.bad > 0) {
        v = find_blowup(b, limit);
    } else {
        body_publish(b, 0, b->n);
        accept_step(b, g.lo, g.hi);
    }
    if (prof) {
        prof->guard += profile_now() - start;
    }
    return v;
}

#ifdef _OPENMP
// The same on `threads` threads, with any integrator. Each thread owns a
// run of chunks (body_share): for each force evaluation it computes the
// forces on its points (reading its neighbours' positions), then, once
// every thread is done, sums the volume shares of all chunks in chunk order
// (the same sum on every thread, and the same as one thread's), and updates
// its points (integrate.c). Only the sums' grouping into chunks touches
// more than one point, and it does not depend on the threads, so the result
// is the same bits for any count. With symplectic Euler, shells and cloths
// take the skewed sweeps of fast/sweep.c: the same work in another order, the
// same bits.
static verdict step_body_threaded(psb_world *w, psb_body *b, int threads) {
    const psb_params *p = &w->params;
    const double h = p->dt / p->substeps;
    const double limit = p->blowup_size * fmax(b->rest_size, b->good_size);
    thread_slot *slots = w->slots;
    struct team_barrier *bar = w->barrier;
    int bad = 0;
    // OpenMP may give fewer threads than asked for (OMP_THREAD_LIMIT, a
    // caller's own parallel region): only the team's slots get written.
    int team_size = 1;
#pragma omp parallel num_threads(threads) reduction(+ : bad)
    {
        const int t = omp_get_thread_num(), team = omp_get_num_threads();
        if (t == 0) {
            team_size = team;
        }
        psb_profile *prof = t == 0 ? b->profile : NULL;
        const body_part part = body_share(b, t, team, bar);
        thread_slot *mine = &slots[t];
        guard_tally g = {
            limit * limit, {INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0};
        const bool sweeps = body_sweeps(b, w);
        if (sweeps) {
            body_sweep_step(b, w, part.c0, part.c1, t, team, bar, &g);
        } else {
            for (int s = 0; s < p->substeps; s++) {
                body_integrate(b, w, &part, w->time + s * h, h);
            }
        }
        const double start = prof ? profile_now() : 0.0;
        if (!sweeps) {
            g.bad = w->kernels->guard_scan(b, part.i0, part.i1, g.limit2, &g.lo, &g.hi);
        }
        mine->lo = g.lo;
        mine->hi = g.hi;
        mine->bad = g.bad;
        bad = mine->bad;
        team_wait(bar, team);
        int all_bad = 0;
        for (int u = 0; u < team; u++) {
            all_bad += slots[u].bad;
        }
        if (all_bad == 0) {
            int i0, i1;
            split_range(b->n, t, team, &i0, &i1);
            body_publish(b, i0, i1);
        }
        if (prof) {
            prof->guard += profile_now() - start;
        }
    }
    if (b->profile && b->profile->threads < team_size) {
        b->profile->threads = team_size;
    }
    if (bad > 0) {
        return find_blowup(b, limit);
    }
    psb_vec3 lo = slots[0].lo, hi = slots[0].hi;
    for (int u = 1; u < team_size; u++) {
        lo = (psb_vec3){fmin(lo.x, slots[u].lo.x), fmin(lo.y, slots[u].lo.y),
                        fmin(lo.z, slots[u].lo.z)};
        hi = (psb_vec3){fmax(hi.x, slots[u].hi.x), fmax(hi.y, slots[u].hi.y),
                        fmax(hi.z, slots[u].hi.z)};
    }
    accept_step(b, lo, hi);
    return (verdict){INT_MAX, false, 0.0};
}
#endif

int world_body_threads(const psb_world *w, const psb_body *b) {
#ifdef _OPENMP
    if (w->params.threads > 1 && b->n >= PARALLEL_MIN_POINTS) {
        return w->params.threads < b->chunk_count ? w->params.threads : b->chunk_count;
    }
#else
    (void)w;
    (void)b;
#endif
    return 1;
}

// Puts body b back after a blow-up: first the last good state at rest; if
// the very next step blows up again, the state as created.
static const char *recover(psb_world *w, psb_body *b) {
    const size_t bytes = (size_t)b->n_pad * sizeof(double);
    const char *how;
    if (b->blew_last_step) {
        for (int c = 0; c < 3; c++) {
            memcpy(b->x[c], b->x_init[c], bytes);
            memcpy(b->v[c], b->v_init[c], bytes);
        }
        b->start_time = w->time + w->params.dt;
        how = "reset it to its initial state";
    } else {
        for (int c = 0; c < 3; c++) {
            memcpy(b->x[c], b->x_good[c], bytes);
            memset(b->v[c], 0, bytes);
        }
        how = "restored its last good state at rest";
    }
    body_hold_pins(b, 0, b->n);
    body_publish(b, 0, b->n);
    body_snapshot(b);
    b->grab_point = -1;
    body_wake(b);
    b->blowups++;
    b->blew_last_step = true;
    return how;
}

// Steps body b alone, on the threads it gets, and files the guard's verdict.
static void step_body(psb_world *w, psb_body *b, int threads) {
    b->solver =
        (psb_solver_report){0, 0, 0.0, 0.0, psb_integrator_is_implicit(w->params.integrator), 0};
#ifdef _OPENMP
    // A body that sleeps through its one sub-step takes only the guard, on
    // this thread: no team is started for it.
    const bool slept =
        threads > 1 && w->params.substeps == 1 && body_implicit_sleep(b, w, w->time, w->params.dt);
    const verdict v = slept         ? step_body_serial(w, b, true)
                      : threads > 1 ? step_body_threaded(w, b, threads)
                                    : step_body_serial(w, b, false);
#else
    (void)threads;
    const verdict v = step_body_serial(w, b, false);
#endif
    b->blow_point = v.point;
    b->blow_nan = v.nan;
    b->blow_d2 = v.d2;
}

// Every body's world step, each alone.
static void step_bodies(psb_world *w) {
    const psb_params *p = &w->params;
    // Bodies do not interact, so each runs all its sub-steps in turn while
    // its arrays are warm in cache: a large body shared by all the threads,
    // small ones side by side, one thread each (not while profiling: the
    // stage timers are shared). Either way each body's result is the same.
    int small = 0;
    for (int k = 0; k < w->body_count; k++) {
#ifdef _OPENMP
        const int threads = world_body_threads(w, w->bodies[k]);
#else
        const int threads = 1;
#endif
        if (threads > 1) {
            step_body(w, w->bodies[k], threads);
        } else {
            small++;
        }
    }
#ifdef _OPENMP
    if (small > 1 && p->threads > 1 && !w->profiling) {
#pragma omp parallel for num_threads(p->threads) schedule(dynamic)
        for (int k = 0; k < w->body_count; k++) {
            if (world_body_threads(w, w->bodies[k]) == 1) {
                step_body(w, w->bodies[k], 1);
            }
        }
        small = 0;
    }
#endif
    for (int k = 0; small > 0 && k < w->body_count; k++) {
#ifdef _OPENMP
        if (world_body_threads(w, w->bodies[k]) > 1) {
            continue;
        }
#endif
        step_body(w, w->bodies[k], 1);
    }
}

int psb_world_step(psb_world *w) {
    const psb_params *p = &w->params;
    w->list_full = false;
    contact_begin_step(w);
    if (world_solves_contact(w)) {
        world_step_together(w); // world_groups.c
        for (int k = 0; k < w->body_count; k++) {
            psb_body *b = w->bodies[k];
            const verdict v = step_body_serial(w, b, true); // the guard
            b->blow_point = v.point;
            b->blow_nan = v.nan;
            b->blow_d2 = v.d2;
        }
    } else {
        step_bodies(w);
        w->link_forces_kept = false; // no links this step
    }
    // Blow-ups are reported and recovered in body order.
    int blown = 0;
    for (int k = 0; k < w->body_count; k++) {
        psb_body *b = w->bodies[k];
        if (b->blow_point == INT_MAX) {
            b->blew_last_step = false;
            continue;
        }
        char why[160];
        if (b->blow_nan) {
            snprintf(why, sizeof why, "point %d became NaN or infinite", b->blow_point);
        } else {
            // The step failed, so the limit is still the one it checked.
            const double limit = p->blowup_size * fmax(b->rest_size, b->good_size);
            snprintf(why, sizeof why, "point %d moved %.3g m in one step (limit %.3g m)",
                     b->blow_point, sqrt(b->blow_d2), limit);
        }
        const char *how = recover(w, b);
        blown++;
        w->link_forces_kept = false; // the links' forces were the blow-up's
        snprintf(w->last_event, sizeof w->last_event,
                 "body %d blew up at t = %.4g s: %s; %s (try a smaller dt or more substeps)", k,
                 w->time, why, how);
    }
    // Then the bodies touch each other (contact.c).
    if (!contact_step(w)) {
        w->list_full = true;
        snprintf(w->last_event, sizeof w->last_event,
                 "more contacts between bodies at t = %.4g s than memory holds: the rest were "
                 "left unresolved",
                 w->time);
    }
    w->full_steps += w->list_full;
    w->quiet = contact_world_quiet(w, blown);
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
long psb_world_full_list_steps(const psb_world *w) {
    return w->full_steps;
}
long psb_world_put_back_count(const psb_world *w) {
    return w->put_back;
}
double psb_world_stable_substep(const psb_world *w) {
    double h_max = INFINITY;
    for (int b = 0; b < w->body_count; b++) {
        h_max = fmin(h_max, psb_body_stable_substep(w, b));
    }
    return h_max;
}

int psb_world_body_count(const psb_world *w) {
    return w->body_count;
}

psb_body *world_body(const psb_world *w, int body) {
    assert(body >= 0 && body < w->body_count && "psb: body id out of range");
    return w->bodies[body];
}

void body_check_point(const psb_body *b, int point) {
    (void)b;
    (void)point;
    assert(point >= 0 && point < b->n && "psb: point index out of range");
}
