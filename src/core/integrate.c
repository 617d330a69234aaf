// Time integrators: one sub-step of h for a body, each method on whole arrays.
//
// The state is (x, v) with x' = v and v' = a(x, v, t) = F / m. Forces are
// evaluated in place (body_forces reads b->x, b->v; body_force(b, i) gives
// the result), so the
// multi-stage methods keep the start of the step in x0, v0 and the weighted
// sums of their stages in dx, dv.
#include "internal.h"

// Explicit Euler (the tutorial's): x += h v(t), v += h a(t).
static void step_euler(psb_body *b, const psb_params *p, double t, double h) {
    body_forces(b, p, t);
    for (int i = 0; i < b->n; i++) {
        const double k = h * b->inv_mass[i];
        const psb_vec3 f = body_force(b, i);
        b->x[i].x += h * b->v[i].x;
        b->x[i].y += h * b->v[i].y;
        b->x[i].z += h * b->v[i].z;
        b->v[i].x += k * f.x;
        b->v[i].y += k * f.y;
        b->v[i].z += k * f.z;
    }
}

// Symplectic (semi-implicit) Euler: v += h a(t), then x += h v(t + h).
static void step_symplectic(psb_body *b, const psb_params *p, double t, double h) {
    body_forces(b, p, t);
    for (int i = 0; i < b->n; i++) {
        const double k = h * b->inv_mass[i];
        const psb_vec3 f = body_force(b, i);
        b->v[i].x += k * f.x;
        b->v[i].y += k * f.y;
        b->v[i].z += k * f.z;
        b->x[i].x += h * b->v[i].x;
        b->x[i].y += h * b->v[i].y;
        b->x[i].z += h * b->v[i].z;
    }
}

// First stage: saves the start of the step, (x0, v0), starts the sums with
// the derivative there, dx = w v0, dv = w a0, and moves to the trial state
// x = x0 + c v0, v = v0 + c a0.
static void rk_first_stage(psb_body *b, double w, double c) {
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 xi = b->x[i], vi = b->v[i];
        const double m = b->inv_mass[i];
        const psb_vec3 f = body_force(b, i);
        const psb_vec3 ai = {m * f.x, m * f.y, m * f.z};
        b->x0[i] = xi;
        b->v0[i] = vi;
        b->dx[i] = (psb_vec3){w * vi.x, w * vi.y, w * vi.z};
        b->dv[i] = (psb_vec3){w * ai.x, w * ai.y, w * ai.z};
        b->x[i] = (psb_vec3){xi.x + c * vi.x, xi.y + c * vi.y, xi.z + c * vi.z};
        b->v[i] = (psb_vec3){vi.x + c * ai.x, vi.y + c * ai.y, vi.z + c * ai.z};
    }
}

// One stage of an explicit Runge-Kutta method. With the derivative at the
// current trial state (v_i, a_i): dx += w v_i, dv += w a_i, then the next
// trial state is x = x0 + c v_i, v = v0 + c a_i.
static void rk_stage(psb_body *b, double w, double c) {
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 vi = b->v[i];
        const double m = b->inv_mass[i];
        const psb_vec3 f = body_force(b, i);
        const psb_vec3 ai = {m * f.x, m * f.y, m * f.z};
        b->dx[i].x += w * vi.x;
        b->dx[i].y += w * vi.y;
        b->dx[i].z += w * vi.z;
        b->dv[i].x += w * ai.x;
        b->dv[i].y += w * ai.y;
        b->dv[i].z += w * ai.z;
        b->x[i].x = b->x0[i].x + c * vi.x;
        b->x[i].y = b->x0[i].y + c * vi.y;
        b->x[i].z = b->x0[i].z + c * vi.z;
        b->v[i].x = b->v0[i].x + c * ai.x;
        b->v[i].y = b->v0[i].y + c * ai.y;
        b->v[i].z = b->v0[i].z + c * ai.z;
    }
}

// Final combination: x = x0 + c (dx + w v), v = v0 + c (dv + w a) with the
// derivative at the last trial state.
static void rk_finish(psb_body *b, double w, double c) {
    for (int i = 0; i < b->n; i++) {
        const double m = b->inv_mass[i];
        const psb_vec3 f = body_force(b, i);
        b->x[i].x = b->x0[i].x + c * (b->dx[i].x + w * b->v[i].x);
        b->x[i].y = b->x0[i].y + c * (b->dx[i].y + w * b->v[i].y);
        b->x[i].z = b->x0[i].z + c * (b->dx[i].z + w * b->v[i].z);
        b->v[i].x = b->v0[i].x + c * (b->dv[i].x + w * m * f.x);
        b->v[i].y = b->v0[i].y + c * (b->dv[i].y + w * m * f.y);
        b->v[i].z = b->v0[i].z + c * (b->dv[i].z + w * m * f.z);
    }
}

// Heun predictor-corrector: predict with Euler to t + h, then average the
// slopes at both ends: y1 = y0 + h/2 (k1 + k2).
static void step_heun(psb_body *b, const psb_params *p, double t, double h) {
    body_forces(b, p, t);
    rk_first_stage(b, 1.0, h);
    body_forces(b, p, t + h);
    rk_finish(b, 1.0, 0.5 * h);
}

// Classical RK4: y1 = y0 + h/6 (k1 + 2 k2 + 2 k3 + k4).
static void step_rk4(psb_body *b, const psb_params *p, double t, double h) {
    body_forces(b, p, t);
    rk_first_stage(b, 1.0, 0.5 * h);
    body_forces(b, p, t + 0.5 * h);
    rk_stage(b, 2.0, 0.5 * h);
    body_forces(b, p, t + 0.5 * h);
    rk_stage(b, 2.0, h);
    body_forces(b, p, t + h);
    rk_finish(b, 1.0, h / 6.0);
}

// Velocity Verlet: v += h/2 a(t); x += h v; v += h/2 a(t + h). The second
// force evaluation sees the half-step velocity, which is what damping gets.
static void step_verlet(psb_body *b, const psb_params *p, double t, double h) {
    body_forces(b, p, t);
    for (int i = 0; i < b->n; i++) {
        const double k = 0.5 * h * b->inv_mass[i];
        const psb_vec3 f = body_force(b, i);
        b->v[i].x += k * f.x;
        b->v[i].y += k * f.y;
        b->v[i].z += k * f.z;
        b->x[i].x += h * b->v[i].x;
        b->x[i].y += h * b->v[i].y;
        b->x[i].z += h * b->v[i].z;
    }
    body_forces(b, p, t + h);
    for (int i = 0; i < b->n; i++) {
        const double k = 0.5 * h * b->inv_mass[i];
        const psb_vec3 f = body_force(b, i);
        b->v[i].x += k * f.x;
        b->v[i].y += k * f.y;
        b->v[i].z += k * f.z;
    }
}

void body_integrate(psb_body *b, const psb_params *p, double t, double h) {
    switch (p->integrator) {
    case PSB_EULER:
        step_euler(b, p, t, h);
        break;
    case PSB_SYMPLECTIC_EULER:
        step_symplectic(b, p, t, h);
        break;
    case PSB_HEUN:
        step_heun(b, p, t, h);
        break;
    case PSB_RK4:
        step_rk4(b, p, t, h);
        break;
    case PSB_VERLET:
        step_verlet(b, p, t, h);
        break;
    case PSB_INTEGRATOR_COUNT:
        break;
    }
}
