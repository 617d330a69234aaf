// The plain model's data, shared by model.c (bodies, forces, the explicit
// integrators, contacts with the colliders), model_implicit.c (the solved
// step) and model_contact.c (contact between bodies).
#ifndef PSB_MODEL_INTERNAL_H
#define PSB_MODEL_INTERNAL_H

#include <math.h>
#include <stdbool.h>

#include <psb/psb_model.h>

typedef struct model_body {
    psb_body_kind kind;
    int n;            // points
    psb_vec3 *x, *v;  // positions, m, and velocities, m/s
    double *mass;     // kg, per point
    bool *pinned;     // a pinned point stays at pin_at, at rest
    psb_vec3 *pin_at; // m
    int spring_count; // springs: ring, consecutive points; shell, triangle edges;
    int *spring;      // cloth, triangle edges and its own (2 indices each)
    double *rest;     // rest length of each spring, m
    int *degree;      // springs at each point
    int tri_count;    // triangles, 3 indices each, counter-clockwise from
    int *tri;         // outside (none on a ring)
    // Struts (psb_body_params.fold_limit): the far corners of each two
    // triangles of a shell that share an edge, where no spring joins them,
    // each pair once; strut_rest their distance in the rest shape, m.
    int strut_count;
    int *strut;
    double *strut_rest;
    psb_body_params params;
    double rest_volume; // volume of the rest shape, m³ (2D: m²)
    double rest_size;   // diagonal of the rest shape's box, m
    double start_time;  // s: when the gas began to flow in
    int grab_point;     // -1: nothing grabbed
    psb_vec3 grab_target;
    double grab_k; // N/m
    // BDF2's history: the state at the start of the last sub-step
    // (hist_x, hist_v), where it left the points (end_x) and the velocities
    // its solve gave them, before the bounces (end_v); hist_h is that
    // sub-step, 0 for none.
    psb_vec3 *hist_x, *hist_v, *end_x, *end_v;
    double hist_h;
    // Scratch for the steps: start of step, stage sums, forces, solver vectors.
    psb_vec3 *x0, *v0, *sx, *sv, *f;
    psb_vec3 *y, *xb, *u0, *g, *d, *r, *z, *p, *q, *xs;
    // The solved step's spheres: each point's nearest one as the plane
    // n . x >= plane_d that touches it where the point started (n = 0: none).
    psb_vec3 *plane_n;
    double *plane_d;
    // Contact between bodies (model_contact.c): where each point started the
    // world step and how fast it went then (x_step, v_step), where it was
    // when the contacts were found (x_found), the triangles around each
    // point (around[k] for around_first[i] <= k < around_first[i + 1], in
    // increasing index), the triangle across each triangle's edge e
    // (corners e and e + 1; -1: none) and the points that are in a contact
    // (touched, scratch).
    psb_vec3 *x_step, *v_step, *x_found;
    // The last check's (model_contact.c, last_check): where each point was
    // held when it last looked, m, and whether it has moved since.
    psb_vec3 *x_held;
    bool *shifted;
    // Added since the last contact stage: the next one checks it whole
    // against the other bodies (place_check).
    bool placed;
    int *around_first, *around, *across;
    bool *touched;
    // The rest shape (the springs' and the struts' lengths are its), m, and
    // per point whether it is through its own surface there (model_contact.c,
    // folded_at_rest: 0 not yet found, 1 no, 2 yes).
    psb_vec3 *rest_x;
    unsigned char *rest_fold;
    // Per point: the world step after the last in which the own way out
    // moved it or left it as a fold (0: none), and in how many steps in a
    // row it moved it (model_contact.c, own_way_out_point).
    long *own_last;
    unsigned char *own_streak;
    double *link_k; // the links' share of the Hessian's diagonal at each point
    // A ring's links carried over (model_keep_link_forces): the force each
    // point's link pushed with at the end of the last solved sub-step, N, and
    // the body it pushed against plus 1 (0: none).
    double *kept_force;
    int *kept_against;
    // A 3D body's friction carried over the same way: the stretch of each
    // point's link's spring (model_contact.anchor) where the last solved
    // sub-step left it, m, and the body it pushed against plus 1 (0: none).
    psb_vec3 *kept_slip;
    int *slip_against;
} model_body;

// A contact between bodies (docs/contact.md): point p of body a touches
// the feature (a triangle; on a ring, an edge) of body b at the point
// q = sum beta_i x_i of its corners, where b's outward normal is n.
typedef struct model_contact {
    int a, p;
    int b, feature;
    double beta[3]; // a ring's edge has two; the third is 0
    psb_vec3 n;
    double un0;   // m/s: (v_p - sum beta_i v_i) . n at the start of the world step
    bool pushed;  // a position pass moved its points
    bool inside;  // p ended the step inside b (its winding number): put back
    double k;     // N/m: a link's stiffness (model_find_links)
    double hold;  // m: a link keeps (x_p - q) . n at least this: δ, or less where it
                  // starts nearer (there, plus what RECOVERY_SPEED moves it out)
    double floor; // m: the deepest (x_p - q) . n a link may end at, min(0, where it starts)
    // A 3D link's Coulomb friction in the solve: mu k max(0, hold - where it
    // starts), N, and the relative position x_p - q its tangential spring
    // (stiffness k, up to that force; past it, sliding) holds it to, m.
    double friction;
    psb_vec3 anchor;
} model_contact;

struct psb_model {
    psb_params params;
    double time; // s
    long steps;  // world steps taken
    int body_count;
    model_body **bodies;
    int sphere_count;
    psb_vec3 *sphere_centre; // m
    double *sphere_radius;   // m
    psb_solver_report report;
    model_contact *contacts; // those of the last step, in the order found
    int contact_count, contact_capacity;
    long put_back;        // points put back out of another body so far
    model_contact *links; // those the solved step holds in its solve
    int link_count, link_capacity;
    bool link_forces_kept; // the last sub-step was solved with links: kept_force and kept_slip
                           // hold
};

static inline psb_vec3 add(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline psb_vec3 sub(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline psb_vec3 scale(double s, psb_vec3 a) {
    return (psb_vec3){s * a.x, s * a.y, s * a.z};
}
// a + s b
static inline psb_vec3 axpy(psb_vec3 a, double s, psb_vec3 b) {
    return (psb_vec3){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}
static inline double dot(psb_vec3 a, psb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline psb_vec3 cross(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline double norm(psb_vec3 a) {
    return sqrt(dot(a, a));
}

// model.c, for the solved step.
double model_volume(const model_body *b, const psb_vec3 *x);
void model_air(const psb_model *m, model_body *b, const psb_vec3 *x, const psb_vec3 *v,
               psb_vec3 *f);
void model_volume_gradient(const model_body *b, const psb_vec3 *x, psb_vec3 *g);
double model_gas_nrt(const model_body *b, double t);
double model_gravity(const model_body *b, const psb_params *p, double t);
double model_pressure(const model_body *b, double nrt, double volume);
double model_floor_volume(const model_body *b);
void model_sphere_seen(const psb_model *m, const model_body *b, int s, psb_vec3 *centre,
                       double *radius);
void model_push_out(const psb_model *m, const model_body *b, psb_vec3 *x, bool with_spheres);
int model_contact_normals(const psb_model *m, const model_body *b, psb_vec3 x, double slack,
                          bool with_spheres, psb_vec3 normals[8]);
psb_vec3 model_bounce(const psb_model *m, psb_vec3 v, psb_vec3 n, double keep);
void model_contact_response(const psb_model *m, model_body *b, double h, double slack,
                            bool with_spheres);
void model_hold_pins(model_body *b);

// model_implicit.c: one sub-step of backward Euler or BDF2.
void model_implicit_step(psb_model *m, model_body *b, double t, double h);

// model_contact.c: contact between bodies, once per world step after every
// body's sub-steps.
void model_body_contact(psb_model *m);
// The feature's corners (a triangle's three, a ring's edge's two); returns
// how many.
int model_feature_corners(const model_body *b, int f, int corner[3]);
// The pseudo-normal of 3D link c's feature where the points are now
// (against a cloth, on the side of the link's n); a ring's link's n.
psb_vec3 model_link_normal(const psb_model *m, const model_contact *c);
// The links of a solved sub-step of h between bodies (model_contact.c).
void model_find_links(psb_model *m, double h, double kappa, double ring_kappa);
// Coulomb friction (contact_friction) on the links that had none in the
// solve (they started outside the skin), after a sub-step of h.
void model_link_friction(psb_model *m, double h);
/// Keeps the force each ring's link pushed with at the end of the sub-step
/// just solved, and each 3D link's friction stretch, for the next
/// sub-step's link of the same point and body.
void model_keep_link_forces(psb_model *m);
// Whether this step holds the bodies apart inside the solve (contact inside
// the solve on, an implicit integrator, body_contact on).
bool model_solves_contact(const psb_model *m);
// Whether body b's contacts with itself are links of the solve when it
// solves contact: self contact on, and b a shell (a ring's and a cloth's
// own contacts stay the stage's).
bool model_links_itself(const psb_model *m, const model_body *b);
// One solved sub-step of every body, those joined by links solved together.
void model_implicit_world_step(psb_model *m, double t, double h);

#endif
