// Internal layout of the core: shared by the core's own files only.
//
// A body keeps its physics state as arrays per attribute (positions,
// velocities, forces, masses) and its topology (springs, triangles) in
// separate arrays that a step never changes. Every array is made when the
// body is created, so a step never allocates.
#ifndef PSB_INTERNAL_H
#define PSB_INTERNAL_H

#include <math.h>

#include "psb.h"

typedef struct psb_body {
    psb_body_kind kind;
    int n;            // points
    int spring_count; // springs (unique edges)
    int tri_count;    // triangles (0 for a ring)

    // State, one entry per point.
    psb_vec3 *x;      // positions, m
    psb_vec3 *v;      // velocities, m/s
    psb_vec3 *f;      // forces other than the gas's, of the last evaluation, N
    psb_vec3 *grad;   // dV/dx_i of the last evaluation, m² (2D: m); gas force = P grad
    double *mass;     // kg
    double *inv_mass; // 1/kg

    // Topology and rest shape: fixed during a step.
    int *springs;        // 2 point indices per spring
    double *rest_length; // m, per spring
    int *tris;           // 3 point indices per triangle (shell only)
    psb_vec3 *rest;      // rest shape, m

    // Integrator scratch: the state at the start of the sub-step and the
    // weighted sums of the stages' derivatives (Heun, RK4).
    psb_vec3 *x0, *v0, *dx, *dv;

    // Blow-up guard: the state at the start of the world step, and the
    // state at creation for a full reset.
    psb_vec3 *x_good, *v_good;
    psb_vec3 *x_init, *v_init;

    psb_body_params params;
    double rest_volume; // m³ (2D: m²)
    double rest_size;   // diagonal of the rest shape's bounding box, m
    double start_time;  // world time at creation or reset, s (inflation clock)

    // Written by each force evaluation.
    double volume;   // m³
    double pressure; // Pa
    double nrt;      // J

    int grab_point; // -1 if none
    psb_vec3 grab_target;
    double grab_k;

    int blowups;
    bool blew_last_step;

    psb_profile *profile; // the world's stage timers while profiling, else NULL

    void *block; // the single allocation behind all the arrays above
} psb_body;

/// The total force on point i from the last evaluation, N: the gas force
/// P dV/dx_i plus everything else.
static inline psb_vec3 body_force(const psb_body *b, int i) {
    const double P = b->pressure;
    return (psb_vec3){b->f[i].x + P * b->grad[i].x, b->f[i].y + P * b->grad[i].y,
                      b->f[i].z + P * b->grad[i].z};
}

/// A monotonic clock in ns, for the stage timers.
double profile_now(void);

struct psb_world {
    psb_params params;
    psb_body **bodies;
    int body_count;
    int body_capacity;
    psb_vec3 *sphere_centre;
    double *sphere_radius;
    int sphere_count;
    int sphere_capacity;
    double time; // s
    long steps;
    char last_event[512];
    bool profiling;
    psb_profile profile;
};

static inline bool vec_finite(psb_vec3 a) {
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

// forces.c
/// Signed volume of the surface through points x: 1/6 sum x_a . (x_b x x_c)
/// for a shell, 1/2 sum (x_i y_{i+1} - x_{i+1} y_i) for a ring.
double body_volume(const psb_body *b, const psb_vec3 *x);
/// The gas amount in force at world time t, J (the inflation ramp).
double body_gas_nrt(const psb_body *b, double t);
/// The gravity acting on b at world time t, m/s² (0 while waiting for gas).
double body_gravity(const psb_body *b, const psb_params *p, double t);
/// Forces at the body's current x and v at world time t, into b->f.
void body_forces(psb_body *b, const psb_params *p, double t);

// integrate.c
/// Advances b by one sub-step h from world time t with p->integrator.
void body_integrate(psb_body *b, const psb_params *p, double t, double h);

// collide.c
/// Pushes points out of the floor, the walls and the world's spheres and
/// applies restitution and friction for a sub-step of h.
void body_collide(psb_body *b, const psb_world *w, double h);

// body.c
psb_body *body_create(const psb_body_def *def, const psb_params *world_params, double time,
                      psb_error *err);
void body_destroy(psb_body *b);
/// Recomputes masses from b->params (uniform or by area of the rest shape).
void body_update_masses(psb_body *b);

#endif
