// Time integrators: one sub-step of h for a body, each method on whole arrays.
//
// The state is (x, v) with x' = v and v' = a(x, v, t) = F / m. Forces are
// evaluated in place (body_part_forces reads b->x, b->v and returns the
// pressure P; body_force(b, P, c, i) gives the result), so the multi-stage
// methods keep the start of the step in x0, v0 and the weighted sums of
// their stages in dx, dv. Every method runs on a part of the body
// (body_part): a run of chunks that one thread moves, while the force
// passes wait for the whole team, so any number of threads gives the same
// bits. Symplectic Euler, the default, has a fused path: one pass for the
// forces, one for kick, drift and floor (body_kick_drift); with undamped
// springs the first pass already adds h f / m to v and the second adds
// h P grad / m (body_folds). The world steps of shells and cloths run the
// same two passes skewed into one sweep (fast/sweep.c).
#include "internal.h"

body_part body_whole(const psb_body *b) {
    return (body_part){0, b->chunk_count, 0, b->n, 0, 1, NULL};
}

body_part body_share(const psb_body *b, int thread, int team, struct team_barrier *bar) {
    body_part part = {0, 0, 0, 0, thread, team, bar};
    split_range(b->chunk_count, thread, team, &part.c0, &part.c1);
    part.i0 = part.c0 * CHUNK_POINTS < b->n ? part.c0 * CHUNK_POINTS : b->n;
    part.i1 = part.c1 * CHUNK_POINTS < b->n ? part.c1 * CHUNK_POINTS : b->n;
    return part;
}

// Explicit Euler (the tutorial's): x += h v(t), v += h a(t).
static void step_euler(psb_body *b, const psb_world *w, const body_part *part, double t, double h) {
    const double P = body_part_forces(b, w, part, t);
    for (int c = 0; c < 3; c++) {
        double *x = b->x[c], *v = b->v[c];
        for (int i = part->i0; i < part->i1; i++) {
            const double a = b->inv_mass[i] * body_force(b, P, c, i);
            x[i] += h * v[i];
            v[i] += h * a;
        }
    }
}

// First stage: saves the start of the step, (x0, v0), starts the sums with
// the derivative there, dx = w v0, dv = w a0, and moves to the trial state
// x = x0 + c v0, v = v0 + c a0. P: the pressure of the forces in b->f, b->grad.
static void rk_first_stage(psb_body *b, const body_part *part, double P, double w, double c) {
    for (int k = 0; k < 3; k++) {
        double *x = b->x[k], *v = b->v[k];
        for (int i = part->i0; i < part->i1; i++) {
            const double xi = x[i], vi = v[i];
            const double ai = b->inv_mass[i] * body_force(b, P, k, i);
            b->x0[k][i] = xi;
            b->v0[k][i] = vi;
            b->dx[k][i] = w * vi;
            b->dv[k][i] = w * ai;
            x[i] = xi + c * vi;
            v[i] = vi + c * ai;
        }
    }
}

// One stage of an explicit Runge-Kutta method. With the derivative at the
// current trial state (v_i, a_i): dx += w v_i, dv += w a_i, then the next
// trial state is x = x0 + c v_i, v = v0 + c a_i.
static void rk_stage(psb_body *b, const body_part *part, double P, double w, double c) {
    for (int k = 0; k < 3; k++) {
        double *x = b->x[k], *v = b->v[k];
        for (int i = part->i0; i < part->i1; i++) {
            const double vi = v[i];
            const double ai = b->inv_mass[i] * body_force(b, P, k, i);
            b->dx[k][i] += w * vi;
            b->dv[k][i] += w * ai;
            x[i] = b->x0[k][i] + c * vi;
            v[i] = b->v0[k][i] + c * ai;
        }
    }
}

// Final combination: x = x0 + c (dx + w v), v = v0 + c (dv + w a) with the
// derivative at the last trial state.
static void rk_finish(psb_body *b, const body_part *part, double P, double w, double c) {
    for (int k = 0; k < 3; k++) {
        double *x = b->x[k], *v = b->v[k];
        for (int i = part->i0; i < part->i1; i++) {
            const double m = b->inv_mass[i];
            const double f = body_force(b, P, k, i);
            x[i] = b->x0[k][i] + c * (b->dx[k][i] + w * v[i]);
            v[i] = b->v0[k][i] + c * (b->dv[k][i] + w * m * f);
        }
    }
}

// Heun predictor-corrector: predict with Euler to t + h, then average the
// slopes at both ends: y1 = y0 + h/2 (k1 + k2).
static void step_heun(psb_body *b, const psb_world *w, const body_part *part, double t, double h) {
    rk_first_stage(b, part, body_part_forces(b, w, part, t), 1.0, h);
    rk_finish(b, part, body_part_forces(b, w, part, t + h), 1.0, 0.5 * h);
}

// Classical RK4: y1 = y0 + h/6 (k1 + 2 k2 + 2 k3 + k4).
static void step_rk4(psb_body *b, const psb_world *w, const body_part *part, double t, double h) {
    rk_first_stage(b, part, body_part_forces(b, w, part, t), 1.0, 0.5 * h);
    rk_stage(b, part, body_part_forces(b, w, part, t + 0.5 * h), 2.0, 0.5 * h);
    rk_stage(b, part, body_part_forces(b, w, part, t + 0.5 * h), 2.0, h);
    rk_finish(b, part, body_part_forces(b, w, part, t + h), 1.0, h / 6.0);
}

// Velocity Verlet: v += h/2 a(t); x += h v; v += h/2 a(t + h). The second
// force evaluation sees the half-step velocity, which is what damping gets.
static void step_verlet(psb_body *b, const psb_world *w, const body_part *part, double t,
                        double h) {
    double P = body_part_forces(b, w, part, t);
    for (int c = 0; c < 3; c++) {
        double *x = b->x[c], *v = b->v[c];
        for (int i = part->i0; i < part->i1; i++) {
            v[i] += 0.5 * h * b->inv_mass[i] * body_force(b, P, c, i);
            x[i] += h * v[i];
        }
    }
    P = body_part_forces(b, w, part, t + h);
    for (int c = 0; c < 3; c++) {
        double *v = b->v[c];
        for (int i = part->i0; i < part->i1; i++) {
            v[i] += 0.5 * h * b->inv_mass[i] * body_force(b, P, c, i);
        }
    }
}

void body_kick_drift(psb_body *b, const psb_world *w, int c0, int c1, double t, double h,
                     double pressure, psb_profile *prof) {
    const psb_params *p = &w->params;
    const int i0 = c0 * CHUNK_POINTS;
    const int i1 = c1 * CHUNK_POINTS < b->n_pad ? c1 * CHUNK_POINTS : b->n_pad;
    double start = prof ? profile_now() : 0.0;
    const bool folded = body_folds(b, w);
    if (b->grab_point >= 0) {
        // The grab spring acts on one point: whoever updates it adds it, to
        // f, or to v when the force pass folded f into v.
        const int k = b->rank[b->grab_point];
        if (k >= i0 && k < i1) {
            const psb_vec3 fg = body_grab_force(b, k);
            if (folded) {
                const double kh = h * b->inv_mass[k];
                b->v[0][k] += kh * fg.x;
                b->v[1][k] += kh * fg.y;
                b->v[2][k] += kh * fg.z;
            } else {
                b->f[0][k] += fg.x;
                b->f[1][k] += fg.y;
                b->f[2][k] += fg.z;
            }
        }
    }
    const kick_args a = {
        .h = h,
        .pressure = pressure,
        .gravity = body_gravity(b, p, t),
        .floor = p->floor,
        .floor_y = p->floor_y,
        .restitution = p->restitution,
        .keep = exp(-p->friction * h),
        .folded = folded,
    };
    w->kernels->kick_drift(b, i0, i1, &a);
    if (prof) {
        const double now = profile_now();
        prof->integrate += now - start;
        start = now;
    }
    if (world_has_obstacles(w)) {
        body_collide(b, w, i0, i1, h, false);
    }
    body_hold_pins(b, i0, i1);
    if (prof) {
        prof->collide += profile_now() - start;
    }
}

// Symplectic (semi-implicit) Euler: v += h a(t), then x += h v(t + h); fused
// with the floor.
static void step_symplectic(psb_body *b, const psb_world *w, const body_part *part, double t,
                            double h) {
    const double P = body_part_gas(b, w, part, t, body_folds(b, w) ? h : 0.0);
    const bool extras = body_has_extras(b, w);
    psb_profile *prof = part->thread == 0 ? b->profile : NULL;
    if (extras) {
        const double start = prof ? profile_now() : 0.0;
        body_extra_forces(b, w, part, t);
        if (prof) {
            prof->gas += profile_now() - start;
        }
    }
    body_kick_drift(b, w, part->c0, part->c1, t, h, P, prof);
    if (extras) {
        body_shape_damp(b, part, h);
    }
}

void body_integrate(psb_body *b, const psb_world *w, const body_part *part, double t, double h) {
    psb_profile *prof = part->thread == 0 ? b->profile : NULL;
    const double forces_before = prof ? prof->springs + prof->gas : 0.0;
    const double start = prof ? profile_now() : 0.0;
    switch (w->params.integrator) {
    case PSB_SYMPLECTIC_EULER:
        step_symplectic(b, w, part, t, h);
        return; // timed and collided inside
    case PSB_IMPLICIT:
    case PSB_BDF2:
        body_implicit_step(b, w, part, t, h);
        return; // the same
    case PSB_EULER:
        step_euler(b, w, part, t, h);
        break;
    case PSB_HEUN:
        step_heun(b, w, part, t, h);
        break;
    case PSB_RK4:
        step_rk4(b, w, part, t, h);
        break;
    case PSB_VERLET:
        step_verlet(b, w, part, t, h);
        break;
    case PSB_INTEGRATOR_COUNT:
        break;
    }
    const double mid = prof ? profile_now() : 0.0;
    if (prof) {
        // The force stages timed themselves inside the integrator.
        prof->integrate += mid - start - (prof->springs + prof->gas - forces_before);
    }
    body_collide(b, w, part->i0, part->i1, h, true);
    body_hold_pins(b, part->i0, part->i1);
    body_shape_damp(b, part, h);
    if (prof) {
        prof->collide += profile_now() - mid;
    }
}
