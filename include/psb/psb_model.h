// psb's model written plainly: the reference that the fast step of
// src/core is tested against (tests/test_reference.c).
//
// It takes the same definitions and parameters as psb_world (psb.h) and
// steps the same physics: damped springs, the ideal gas, gravity, the grab
// spring, pins, the floor, walls and static spheres with restitution and
// friction, a steady wind or still air, contact between bodies
// (docs/contact.md) and every integrator. Not in it: shape matching, gusts
// and the blow-up guard (a body that blows up here stays blown up): they
// are refused. It is slow on purpose: one loop per formula, one point at a
// time, no threads.
#ifndef PSB_MODEL_H
#define PSB_MODEL_H

#include <psb/psb.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A world of the plain model. Opaque, as psb_world is.
typedef struct psb_model psb_model;

/// Makes an empty world; NULL with err filled on bad parameters, gusts
/// (wind_turbulence > 0) or no memory.
psb_model *psb_model_create(const psb_params *params, psb_error *err);

/// Frees it; NULL is allowed.
void psb_model_destroy(psb_model *model);

/// Changes the parameters (integrator, dt, gravity, ...); bad ones are
/// refused and the old ones kept.
psb_status psb_model_set_params(psb_model *model, const psb_params *params, psb_error *err);

/// What the model leaves out, in params or a body's material: NULL when
/// the model runs it, else what ("shape matching", "gusts").
const char *psb_model_lacks(const psb_params *params, const psb_body_params *material);

/// Adds a body as psb_world_add_body does; returns its id or -1 with err
/// filled (also for shape matching: shape_k or shape_damping > 0).
int psb_model_add_body(psb_model *model, const psb_body_def *def, psb_error *err);

/// Adds a static sphere (centre in m, radius > 0 in m).
psb_status psb_model_add_sphere(psb_model *model, psb_vec3 centre, double radius, psb_error *err);

/// The plain model of a world that has not stepped yet (its points still at
/// their rest shape, as psb_world_add_body left them): its parameters,
/// spheres, bodies (the points, triangles, springs and material it reads
/// back), pins and grabs. NULL with err filled for a world that has
/// stepped, for what the model leaves out (psb_model_lacks), or no memory.
psb_model *psb_model_from_world(const psb_world *world, psb_error *err);

/// Advances by one step of params.dt in params.substeps sub-steps. The
/// implicit integrators solve each sub-step to 1e-9 m/s, far tighter than
/// psb_world does by default.
void psb_model_step(psb_model *model);

/// Simulated time, s, and the number of steps taken.
double psb_model_time(const psb_model *model);
long psb_model_step_count(const psb_model *model);

/// A body's points, positions (m) and velocities (m/s), in the order of its
/// definition; valid until the model is destroyed.
int psb_model_point_count(const psb_model *model, int body);
const psb_vec3 *psb_model_positions(const psb_model *model, int body);
const psb_vec3 *psb_model_velocities(const psb_model *model, int body);

/// Enclosed volume now, m³ (2D: m²); 0 for a cloth.
double psb_model_volume(const psb_model *model, int body);

/// What a body measures now, as psb_body_measure says (shape 0, blowups 0).
psb_body_state psb_model_measure(const psb_model *model, int body);

/// Bodies, and a body's material.
int psb_model_body_count(const psb_model *model);
const psb_body_params *psb_model_body_params(const psb_model *model, int body);

/// Pins a point at a position (it keeps still there, with infinite mass),
/// and grabs one with a spring of k N/m toward target, critically damped
/// for its mass (point -1 lets go), as psb_body_pin and psb_body_grab do.
void psb_model_pin(psb_model *model, int body, int point, psb_vec3 position);
void psb_model_grab(psb_model *model, int body, int point, psb_vec3 target, double k);

/// Contacts between bodies found in the last step (docs/contact.md), as
/// psb_world_contact_count says.
int psb_model_contact_count(const psb_model *model);

/// Points put back out of another body so far, as
/// psb_world_put_back_count says.
long psb_model_put_back_count(const psb_model *model);

/// Links (a point and the nearest point of another body's surface) held in
/// the last sub-step's solve, with contact inside the solve; 0 without it.
/// They include a 3D body's links with its own surface (self contact on).
int psb_model_link_count(const psb_model *model);

/// Of those, the links of a body with its own surface.
int psb_model_self_link_count(const psb_model *model);

/// The implicit solve of the last step, over all bodies and sub-steps:
/// Newton and conjugate-gradient iterations, and whether every sub-step
/// reached the tolerance.
psb_solver_report psb_model_solver_report(const psb_model *model);

#ifdef __cplusplus
}
#endif

#endif
