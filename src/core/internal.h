// Internal layout of the core: shared by the core's own files only.
//
// A body keeps two views of its points:
//
// - the public view, in the caller's point order, as arrays of psb_vec3
//   (x_pub, v_pub) that the accessors hand out. It is brought up to date at
//   the end of every world step and by every call that changes the state;
// - the internal view that the step works on: positions, velocities and
//   forces as one array per coordinate (x[0] holds every x, x[1] every y,
//   x[2] every z), in an order chosen for locality (order[k] is the public
//   index of internal point k, rank[i] the internal index of public point i),
//   padded with still points to a whole number of blocks of LANES points.
//
// A shell's springs and triangles are stored per point as its "fan": the
// point's neighbours in counter-clockwise order, so that one pass over the
// fans gathers both the spring forces and the volume gradient of every point
// (see fast/fan.c). Everything is made when the body is created, so a step never
// allocates.
#ifndef PSB_INTERNAL_H
#define PSB_INTERNAL_H

#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <psb/psb.h>

#include "fast/fast.h"

typedef struct psb_body {
    psb_body_kind kind;
    int n;            // points
    int n_pad;        // n rounded up to whole blocks: the length of every internal array
    int spring_count; // springs (unique edges)
    int tri_count;    // triangles (0 for a ring)
    int block_count;  // n_pad / LANES
    int chunk_count;  // blocks rounded up to whole chunks

    // Public view, caller's order.
    psb_vec3 *x_pub;     // positions, m
    psb_vec3 *v_pub;     // velocities, m/s
    double *mass_pub;    // kg
    int *springs;        // 2 point indices per spring
    double *rest_length; // m, per spring
    int *tris;           // 3 point indices per triangle (shell only)
    psb_vec3 *rest;      // rest shape, m

    // Internal order: internal point k is public point order[k]; public
    // point i is internal point rank[i].
    int *order;
    int *rank;

    // Internal state, one array per coordinate, n_pad entries each. The
    // padding points have zero mass, no springs and never move.
    double *x[3];     // positions, m
    double *v[3];     // velocities, m/s
    double *f[3];     // forces other than the gas's, of the last evaluation that kept them, N
    double *grad[3];  // dV/dx_i of the last evaluation, m² (2D: m); gas force = P grad
    double *mass;     // kg
    double *inv_mass; // 1/kg (0 for padding)
    double *vol_part; // per chunk: its points' share of the volume (see fast/fan.c)
    // per chunk: its points' sums for shape matching and shape damping
    // (EXTRA_SUMS each, see shape.c), written by the thread that owns it
    double *extra_part;
    // 1/kg when every point has it and none is pinned, else 0 (body_note_masses)
    double inv_mass_uniform;

    // Integrator scratch: the state at the start of the sub-step and the
    // weighted sums of the stages' derivatives (Heun, RK4).
    double *x0[3], *v0[3], *dx[3], *dv[3];

    // Blow-up guard: the positions at the start of the world step, and
    // where the guard's scan copies the positions at its end, for the next
    // step (the two swap after each good step). The state at creation, for
    // a full reset (internal order).
    double *x_good[3], *x_next[3];
    double *x_init[3], *v_init[3];

    psb_fans fans; // a shell's fans (fast/fast.h)

    psb_body_params params;
    double rest_volume; // m³ (2D: m²)
    double rest_size;   // diagonal of the rest shape's bounding box, m
    double start_time;  // world time at creation or reset, s (inflation clock)
    double good_size;   // diagonal of the bounding box at the start of the world step, m

    // Written by each force evaluation.
    double volume;   // m³
    double pressure; // Pa
    double nrt;      // J

    // Shape matching: the rest shape about its centroid, internal order
    // (n_pad entries, zero on the padding), m.
    double *shape_q[3];

    // Pinned points: internal index and where each is held, m. Few, so a
    // plain list; made outside the step. pin_capacity entries allocated.
    int pin_count;
    int pin_capacity;
    int *pin_index;
    psb_vec3 *pin_pos;

    int grab_point; // public index, -1 if none
    psb_vec3 grab_target;
    double grab_k;

    int blowups;
    bool blew_last_step;
    bool stirred; // woken (body_wake) since the last world step began: the world is not at rest
    // Placed from outside the step since the last contact stage
    // (body_snapshot): its next contact stage checks it whole against the
    // other bodies (contact.c, place_check).
    bool placed;
    // The guard's verdict on the last world step (world.c): the lowest
    // public index of the points that blew up (INT_MAX if none), whether it
    // became NaN or infinite, how far it moved, squared (m²).
    int blow_point;
    bool blow_nan;
    double blow_d2;

    psb_profile *profile; // the world's stage timers while profiling, else NULL

    // Contact with other bodies (contact.c): where the points were at the
    // start of the world step, and a surface's elements, normals and grid.
    struct contact_body *touch;

    // The implicit solver (implicit.c): its scratch, made on first use, and
    // its report on the last world step.
    struct implicit_work *implicit;
    psb_solver_report solver;

    void *block; // the allocation behind the per-point arrays
} psb_body;

/// Component c (0 x, 1 y, 2 z) of the total force on internal point i from
/// the last evaluation, whose pressure was P, N: the gas force P dV/dx_i
/// plus everything else.
static inline double body_force(const psb_body *b, double pressure, int c, int i) {
    return b->f[c][i] + pressure * b->grad[c][i];
}

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
    bool list_full;  // this step left contacts or links out: their list was full
    long full_steps; // world steps so far that did (psb_world_full_list_steps)
    long put_back;   // points put back out of another body so far (psb_world_put_back_count)
    bool profiling;
    psb_profile profile;
    const psb_kernels *kernels;   // the instruction set's hot loops (kernels_best)
    struct thread_slot *slots;    // one per thread of a threaded step (world.c)
    struct team_barrier *barrier; // where the threaded step's threads meet (world.c)
    int slot_count;
    struct contact_list *contacts; // contact between bodies (contact.c)
    int contacts_found;            // in the last step
    // Contact inside the solve (contact.c finds the links, implicit.c
    // solves the groups they join): the links of the last sub-step.
    struct solve_link *links;
    int link_count, link_capacity;
    unsigned char *link_acting;   // per link: it pushed or rubbed at its group's last evaluation
                                  // (scratch)
    bool link_forces_kept;        // the links' kept forces and friction stretches of the last
                                  // sub-step hold: it was solved with them
                                  // (contact_keep_link_forces)
    int *group_of;                // per body: its group's first body (scratch)
    int *group_index;             // per body that is a group's first: the group's index (scratch)
    int *group_start;             // per group: where its bodies and links start (scratch, 2 per)
    int *group_member;            // a group's bodies (scratch, one per body)
    int *group_link;              // a group's links, indices into links (scratch, link_capacity)
    struct step_ctx *group_ctx;   // per body: its context in a group's solve (scratch)
    struct body_part *group_part; // per body: its part there, the whole body (scratch)
    // A world at rest (contact_world_quiet): the last step moved nothing,
    // so this one, if nothing stirred it since, reuses that step's links
    // and contacts instead of searching for them again (reuse_search).
    bool quiet;         // the last step was at rest
    bool reuse_search;  // this step reuses the last one's links and contacts
    bool search_always; // never reuse them (tests: the same run, searched every step)
    long reused_steps;  // world steps so far that reused them
};

// A link of contact inside the solve (docs/contact.md): point p of body a
// (internal index) is held on the outer side of body b's feature at
// q = sum beta_j x(corner_j), normal n, by the energy
// k/2 min(0, (x_p - q) . n - hold)^2; fixed for the sub-step, but for n,
// which the solve may make again where the points are then
// (implicit_turn_links).
typedef struct solve_link {
    int a, p, b;
    int corner[3];
    double beta[3]; // a ring's edge has two; the third is 0
    double n[3];
    double k;     // N/m
    double hold;  // m
    double floor; // m: the deepest (x_p - q) . n it may end at, min(0, where it starts)
    int e;        // the element of b's surface q lies on
    // Coulomb friction inside the solve (3D links; 0 for rings): mu times
    // the force the link starts with, k max(0, hold - where it starts), N;
    // and the anchor, the pair's relative position r = x_p - q that a
    // tangential spring of stiffness k holds it to while k |w| is at most
    // the friction (w = (I - n n^T) (r - anchor), the stretch; past that
    // it slides), m (implicit_energy.c).
    double friction;
    double anchor[3];
    // The link's Hessian block (xx xy xz yy yz zz) on r at the last
    // evaluation: k n n^T while it pushes, plus the friction's, N/m.
    double block[6];
} solve_link;

static inline bool vec_finite(psb_vec3 a) {
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

/// The first and one-past-last of `count` items that part `part` of `parts`
/// gets, in order, as evenly as possible.
static inline void split_range(int count, int part, int parts, int *first, int *end) {
    *first = (int)((long long)count * part / parts);
    *end = (int)((long long)count * (part + 1) / parts);
}

// integrate.c (the parts of a body's step)
/// One thread's share of a body's sub-steps: chunks [c0, c1), their points
/// [i0, i1) (padding left out), and the team it meets (team 1: alone, bar
/// unused). Each thread moves only its own points and reads the others'.
typedef struct body_part {
    int c0, c1;
    int i0, i1;
    int thread, team;
    struct team_barrier *bar;
} body_part;
/// The whole of b, one thread.
body_part body_whole(const psb_body *b);
/// Thread `thread`'s part of b in a team of `team` meeting at bar: a run of
/// chunks (split_range), so that the result does not depend on the team.
body_part body_share(const psb_body *b, int thread, int team, struct team_barrier *bar);

// forces.c
/// Signed volume of the surface through points x (public order): 1/6 sum
/// x_a . (x_b x x_c) for a shell, 1/2 sum (x_i y_{i+1} - x_{i+1} y_i) for a ring.
double body_volume(const psb_body *b, const psb_vec3 *x);
/// The gas amount in force at world time t, J (the inflation ramp).
double body_gas_nrt(const psb_body *b, double t);
/// The gravity acting on b at world time t, m/s² (0 while waiting for gas).
double body_gravity(const psb_body *b, const psb_params *p, double t);
/// P = nRT / V - P0 with V held above a floor of 1e-3 of the rest volume.
double body_pressure(const psb_body *b, double nrt, double volume);
/// The sum of the chunks' volume shares, in chunk order, m³.
double body_volume_sum(const psb_body *b);
/// Forces at the body's current x and v at world time t, on one thread:
/// b->f (springs, gravity, grab), b->grad, b->volume, b->pressure.
void body_forces(psb_body *b, const psb_world *w, double t);
/// The spring pass and the gas for a part of the body (integrate.c): every
/// thread of the team calls it and gets the pressure P of
/// F_i = f_i + P grad_i; thread 0 files b->volume, nrt and pressure. It
/// first waits until every thread has moved its points, and again after
/// the spring pass, before the volume is summed. kick_h > 0 folds the
/// spring forces into v (force_pass.kick_h).
double body_part_gas(psb_body *b, const psb_world *w, const body_part *part, double t,
                     double kick_h);
/// body_part_gas, then gravity, the grab, shape matching and wind on the
/// part's points: what body_forces does for the whole body.
double body_part_forces(psb_body *b, const psb_world *w, const body_part *part, double t);
/// The grab spring's force on the grabbed point (internal index k), N.
psb_vec3 body_grab_force(const psb_body *b, int k);

/// True when b needs shape matching or feels the wind (the forces below, or
/// shape damping's velocity filter): such a body takes the plain passes,
/// not the sweep.
bool body_has_extras(const psb_body *b, const psb_world *w);
/// Adds the shape matching and wind forces at the current x and v, world
/// time t, to b->f for the part's points. Needs b->grad from the same
/// evaluation (the wind's normals). Every thread of the team calls it.
void body_extra_forces(psb_body *b, const psb_world *w, const body_part *part, double t);

// shape.c
/// Doubles per chunk in b->extra_part.
enum { EXTRA_SUMS = 32 };
/// The rigid motion of the rest shape that fits b's current points best:
/// the points' centroid (m) and the rotation (row-major 3x3), so that point
/// k's goal is centre + R shape_q[.][k]. Sums chunk by chunk, in chunk
/// order: with part's team > 1, each thread sums its own chunks into
/// b->extra_part, and all wait for each other before adding them up, so
/// that every thread gets the same bits as one alone (whose part is
/// body_whole, and which writes nothing).
void body_shape_fit(const psb_body *b, const body_part *part, double centre[3], double rotation[9]);
/// Point k's goal g = centre + R q_k from a fit of body_shape_fit, m.
void body_shape_goal(const psb_body *b, const double centre[3], const double R[9], int k,
                     double g[3]);
/// Adds k_shape (g_i - x_i) to b->f for the part's points.
void body_shape_forces(psb_body *b, const body_part *part);
/// 1/2 k_shape sum |g_i - x_i|^2 at the current x, J (0 without shape matching).
double body_shape_energy(const psb_body *b);
/// Shape damping over a sub-step h: velocities relax toward the rigid-body
/// field (linear and angular momentum are kept); the part's points, the
/// sums as in body_shape_fit.
void body_shape_damp(psb_body *b, const body_part *part, double h);

// wind.c
/// Adds the wind's force at world time t to b->f for internal points
/// [i0, i1), from b->grad (the points' area vectors) and the current x and v.
void body_wind_forces(psb_body *b, const psb_world *w, double t, int i0, int i1);

// pins.c
/// Puts the pinned points among internal points [i0, i1) back at their pins, at rest.
void body_hold_pins(psb_body *b, int i0, int i1);
/// The index of internal point k in the pin list, or -1.
int body_pin_slot(const psb_body *b, int k);

// world.c
/// How many threads body b's own step gets (1 below 4096 points).
int world_body_threads(const psb_world *w, const psb_body *b);
/// Body `body` of w (asserts that the id is in range).
psb_body *world_body(const psb_world *w, int body);
/// Asserts that point is one of b's (public) point indices.
void body_check_point(const psb_body *b, int point);

// integrate.c
/// Advances the part's points of b by one sub-step h from world time t with
/// any integrator (symplectic Euler goes through the fused path). Every
/// thread of the team calls it; they wait for each other before and after
/// each force pass, and around the sums of shape matching and shape damping
/// (shape.c).
void body_integrate(psb_body *b, const psb_world *w, const body_part *part, double t, double h);
/// The fused symplectic Euler sub-step's second half for the points of
/// chunks [c0, c1): grab, kick, drift, floor, walls and spheres, with the
/// forces of the last evaluation and the given pressure. Times itself into
/// prof when not NULL.
void body_kick_drift(psb_body *b, const psb_world *w, int c0, int c1, double t, double h,
                     double pressure, psb_profile *prof);

// implicit.c
/// One backward Euler sub-step h of the part's points of b from world time
/// t (PSB_IMPLICIT); every thread of the team calls it. Collisions, pins
/// and shape damping are done inside. Adds its work to b->solver.
void body_implicit_step(psb_body *b, const psb_world *w, const body_part *part, double t, double h);
/// Sleeps b, alone, through its implicit sub-step h from t when nothing
/// would change (its report filed, as body_implicit_step would); returns
/// whether it did. On one thread, so that a team is not started for a
/// body that has nothing to solve (its threads, once done, would spin
/// while the viewer draws).
bool body_implicit_sleep(psb_body *b, const psb_world *w, double t, double h);
/// Notes after b's implicit sub-step h that ended at t whether every
/// point is still within solver_tol times DOZE_AFTER of where it was when
/// the body's window of keeping still began (else a new one begins here),
/// and how long that window has lasted (implicit_group_dozes).
void body_implicit_note_still(psb_body *b, const psb_world *w, double t, double h);
/// Lets a group (bodies[0 .. count - 1]: more than one, or one with links
/// to itself) doze through its sub-step h from t when every body in it has
/// kept still (body_implicit_note_still) for DOZE_AFTER seconds, under the
/// gravity and gas it would now step under, nothing has woken it
/// (body_wake), nothing in it is grabbed and no gusts blow: the points keep
/// their positions, v = 0, and each body's report says asleep. Returns
/// whether it did; otherwise the group is solved as ever. On one thread.
bool implicit_group_dozes(const psb_world *w, const int *bodies, int count, double t, double h);
/// One sub-step h from world time t of the bodies of a group, solved
/// together with the links between them (w->links[link[0 .. link_count - 1]]):
/// bodies[0 .. count - 1] in increasing index, on one thread, with the
/// scratch contexts from w->group_ctx[slot] on, each body's own work side
/// by side on `threads` threads (the same bits for any count). Adds the
/// group's work to its first body's report.
void implicit_group_step(const psb_world *w, const int *bodies, int count, int slot,
                         const int *link, int link_count, double t, double h, int threads);
/// One sub-step h from world time t of body `body` alone with links to
/// itself (w->links[link[0 .. link_count - 1]]), as implicit_group_step
/// would solve it, with each thread of a team on its part's points: every
/// thread of the team calls it (the same bits for any team).
void implicit_team_step(const psb_world *w, int body, const body_part *part, const int *link,
                        int link_count, double t, double h);
/// Room for a group's contexts of up to `bodies` bodies in w (false: no memory).
bool implicit_group_reserve(psb_world *w, int bodies);
/// Frees the implicit solver's scratch (NULL allowed).
void implicit_work_destroy(struct implicit_work *work);
/// Tells the implicit solver that something outside its step changed b or
/// what acts on it (its parameters or the world's, a grab, a pin, its
/// state): the step after is solved afresh, not judged by what found the
/// body still (a resting body's shortcuts in implicit.c).
void body_wake(psb_body *b);
/// Makes sure b has the implicit solver's scratch (made outside the step,
/// when the world first runs the implicit integrator with this body).
psb_status body_prepare_implicit(psb_body *b, psb_error *err);
/// Whether this CPU runs the implicit step's AVX2 conjugate-gradient
/// product (AVX2 and FMA, on x86-64): asked when a body's work is made.
bool implicit_has_avx2(void);
/// Makes the body's implicit step run the scalar conjugate-gradient product
/// even where the CPU has AVX2 (for tests that compare the two).
void body_implicit_scalar_product(psb_body *b);
/// Makes the body's implicit evaluation run the baseline's loop over the
/// springs' slots even where the CPU has AVX2 (for tests that hold the two
/// to the same bits).
void body_implicit_baseline_springs(psb_body *b);

// collide.c
/// Pushes internal points [i0, i1) out of the floor (if with_floor), the
/// walls and the world's spheres and applies restitution and friction for a
/// sub-step of h.
void body_collide(psb_body *b, const psb_world *w, int i0, int i1, double h, bool with_floor);
/// The same for the floor and the walls (not the spheres), with every point
/// touching one (on it within a slack of 1e-9 m, as the implicit step leaves
/// them) counted as in contact: restitution for its velocity into the
/// surface, friction for the rest.
void body_collide_touching(psb_body *b, const psb_world *w, int i0, int i1, double h);
/// Moves x out of the floor, the walls and the static spheres onto the
/// surface it is inside (the position only; a ring sees a sphere's
/// cross-section with z = 0).
void point_push_out(const psb_world *w, bool ring, psb_vec3 *x);
/// True when collide has anything to do besides the floor.
bool world_has_obstacles(const psb_world *w);

// Whether any body of w touches itself: self contact on for the world and
// for one of its bodies at least (psb_body_params.self_contact).
bool world_touches_itself(const psb_world *w);

// contact.c: contact between bodies, once per world step (docs/contact.md).
struct contact_body *contact_body_create(const psb_body *b);
void contact_body_destroy(struct contact_body *cb);
/// The triangles (a ring: edges) of a body's surface that others touch (0
/// for a cloth, or none).
int contact_body_elements(const struct contact_body *cb);
struct contact_list *contact_list_create(void);
void contact_list_destroy(struct contact_list *list);
/// Room for `capacity` contacts, a search of surfaces of up to `elements`
/// triangles (or edges), and the search on `threads` threads of `bodies`
/// bodies with `points` points between them (false: no memory; what was
/// there is kept).
bool contact_list_reserve(struct contact_list *list, int capacity, int elements, int bodies,
                          long points, int threads);
/// Point k was moved from `from` to where it is now from outside its own
/// step, as contact moves it: BDF2 takes it as its whole past moved with it
/// (its history, and where the last step left it, moved the same), not as a
/// reset (which would not keep momentum).
void body_shift_history(psb_body *b, int k, const double from[3]);
/// Notes where every point is as the world step starts, and whether the
/// step reuses the last one's links and contacts (w->reuse_search): the
/// last step was at rest (w->quiet) and no body of those that take part in
/// contact has been stirred or moved since.
void contact_begin_step(psb_world *w);
/// Whether the world step just taken left the world at rest: contact
/// solved with links, every body that takes part in contact asleep or
/// dozing through each sub-step and ending it with every point's position
/// and velocity as the step began, no blow-up and no list left full. A step
/// after it with nothing stirred finds the same links and contacts, but for
/// the last bits of what the links keep (contact_begin_step).
bool contact_world_quiet(const psb_world *w, int blown);
/// Finds and resolves the contacts after every body has stepped. False when
/// they outgrew their list and no memory was left to grow it (it starts
/// at twice the points and doubles when a search fills it): the ones past it
/// were left.
bool contact_step(psb_world *w);
/// Whether bodies that may touch are solved together (contact inside the
/// solve): psb_params.contact_solve with body contact and a solved
/// integrator, and two bodies or more, or self contact.
bool world_solves_contact(const psb_world *w);
/// Whether body b's contacts with itself are held by links in the solve
/// (self contact on, a shell), when contact is solved.
bool links_itself(const psb_world *w, const psb_body *b);
// world_groups.c
/// Room for the groups of `bodies` bodies and `links` links (false: no
/// memory; what was there is kept).
bool world_reserve_groups(psb_world *w, int bodies, int links);
/// Every body's sub-steps of one world step with contact inside the solve
/// (world.c runs the guard after).
void world_step_together(psb_world *w);
/// The links of a solved sub-step of h into w->links (docs/contact.md);
/// false when they outgrew it and no memory was left to grow it (as
/// contact_step's): the rest were left.
bool contact_find_links(psb_world *w, double h);
/// Coulomb friction (contact_friction) on the links of the sub-step of h
/// just solved that had none in the solve (they started outside the skin),
/// from the normal impulse each gave (contact.c).
void contact_link_friction(psb_world *w, double h);
/// Keeps the force each ring's link pushed with at the end of the sub-step
/// just solved, and each 3D link's friction stretch, for the next
/// sub-step's links of the same point and body (contact.c).
void contact_keep_link_forces(psb_world *w);
/// The pseudo-normal of 3D link l's feature where the points are now, into
/// n (against a cloth, on the side of the link's n); a ring's link's n as
/// it is (contact.c).
void contact_link_normal(const psb_world *w, const solve_link *l, double n[3]);

// body_make.c
psb_body *body_create(const psb_body_def *def, const psb_params *world_params, double time,
                      psb_error *err);
void body_destroy(psb_body *b);
/// Recomputes masses from b->params (uniform or by area of the rest shape).
void body_update_masses(psb_body *b);
/// Sets inv_mass_uniform from inv_mass; after every change to inv_mass.
void body_note_masses(psb_body *b);
/// Copies public points [i0, i1) from the internal state into the public view.
void body_publish(psb_body *b, int i0, int i1);
/// Takes the current positions as the guard's start of the step (x_good,
/// good_size): after a change from outside the step; and marks the body
/// placed, for the contact stage.
void body_snapshot(psb_body *b);
/// Copies the public view into the internal state (all points).
void body_unpublish(psb_body *b);

#endif
