// psb — pressure soft bodies: the simulation library's public API.
//
// A body is a closed surface of mass points joined by damped springs and
// filled with an ideal gas (P = nRT / V). Two kinds share one code path:
// a 2D ring (closed polyline in the x-y plane) and a 3D shell (closed,
// outward-wound triangle mesh). Only the surface element and the volume
// formula differ. Units are SI throughout; in 2D a "volume" is an area (m²),
// a pressure is a force per length (N/m), and nRT = P V is still in J.
//
// The world is opaque; its state is read through const accessors and changed
// only through the functions below. No function here allocates inside a step,
// prints, or exits.
//
// Names: object first, then what it does or gives: psb_world_step,
// psb_body_set_params. A getter is named by what it returns
// (psb_world_time, psb_body_positions, psb_body_point_count), except where
// that name is a type's: psb_body_get_kind (psb_body_kind) and
// psb_body_get_params (psb_body_params).
#ifndef PSB_H
#define PSB_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A 3-vector in metres (positions), m/s (velocities) or newtons (forces).
typedef struct psb_vec3 {
    double x, y, z;
} psb_vec3;

/// Outcome of a call that can fail on bad data or bad parameters.
typedef enum psb_status {
    PSB_OK = 0,
    PSB_ERR_INVALID,  ///< a parameter or definition is out of range
    PSB_ERR_IO,       ///< a file could not be read
    PSB_ERR_PARSE,    ///< a file's contents are malformed
    PSB_ERR_TOPOLOGY, ///< a mesh is open, non-manifold or degenerate
    PSB_ERR_NOMEM,    ///< an allocation failed
} psb_status;

/// A status plus a human-readable message (file, line, what was expected).
typedef struct psb_error {
    psb_status status;
    char message[512];
} psb_error;

/// The kinds of body.
typedef enum psb_body_kind {
    PSB_RING,  ///< 2D: closed polyline in the x-y plane, counter-clockwise; z is set to 0
    PSB_SHELL, ///< 3D: closed triangle mesh, triangles counter-clockwise seen from outside
    PSB_CLOTH, ///< 3D: an open net of points joined by springs (a flag): no gas; its
               ///< triangles (optional, wound alike) give the surface the wind pushes on
} psb_body_kind;

/// Fills err (if not NULL) with status and a printf-style message, and
/// returns status: `return psb_error_set(err, PSB_ERR_PARSE, "%s:%d: ...", ...)`.
psb_status psb_error_set(psb_error *err, psb_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Time integrators, selectable at run time on a live world.
typedef enum psb_integrator {
    PSB_EULER,            ///< explicit (forward) Euler, first order: the tutorial's
    PSB_SYMPLECTIC_EULER, ///< semi-implicit Euler (v first, then x), first order
    PSB_HEUN,             ///< Heun predictor-corrector, second order
    PSB_RK4,              ///< classical Runge-Kutta, fourth order
    PSB_VERLET,           ///< velocity Verlet, second order
    PSB_IMPLICIT, ///< backward Euler, first order, stable at any step: each step minimises an
                  ///< energy by Newton's method with preconditioned conjugate gradients
                  ///< (implicit.c); meant for one step of 1/60 s a frame
    PSB_BDF2,     ///< BDF2 (backward differentiation, two steps), second order, solved as
                  ///< PSB_IMPLICIT is: it damps oscillation far less than backward Euler
                  ///< (its first step, and every step of a ring linked to another ring by
                  ///< contact_solve, is backward Euler's)
    PSB_INTEGRATOR_COUNT,
} psb_integrator;

/// The integrator's command-line name ("euler", "symplectic", "heun", "rk4",
/// "verlet", "implicit", "bdf2"), or "?" for an out-of-range value.
const char *psb_integrator_name(psb_integrator integrator);

/// Whether the integrator solves each step (PSB_IMPLICIT, PSB_BDF2): stable at
/// any step, run at one sub-step a frame, with a solver report.
bool psb_integrator_is_implicit(psb_integrator integrator);

/// Parses a name from psb_integrator_name(); false if unknown.
bool psb_integrator_parse(const char *name, psb_integrator *out);

/// The material of one body: everything about it a user can change.
typedef struct psb_body_params {
    double mass;             ///< total mass of the body, kg (> 0)
    double spring_k;         ///< spring stiffness ks, N/m (>= 0)
    double spring_damping;   ///< spring damping kd along the spring, N·s/m (>= 0)
    double gas_nrt;          ///< target gas amount nRT, J (>= 0)
    double outside_pressure; ///< P0 subtracted from nRT/V, Pa (2D: N/m)
    double
        inflate_time;  ///< s: nRT ramps linearly from 0 to gas_nrt over this time; 0 = full at once
    bool mass_by_area; ///< split mass by the area around each point instead of uniformly
    double shape_k;    ///< shape matching stiffness k_shape, N/m (>= 0; 0 = off): each point is
                       ///< pulled toward where the best rigid motion of the rest shape puts it
    double shape_damping; ///< 1/s (>= 0; 0 = off): the points' velocities relax toward the
                          ///< best rigid-body velocity field as exp(-rate t)
    double wind_drag;     ///< how hard the wind pushes, kg/(m^2 s) (>= 0): F = wind_drag A
                          ///< ((w - v) . n) n per point of area A and normal n (0 = ignores it);
                          ///< on a ring A is a length, and the unit kg/(m s)
    bool contact; ///< touches the other bodies (when psb_params.body_contact is on), and itself
                  ///< (when psb_params.self_contact and self_contact below are on too;
                  ///< default on)
    bool self_contact; ///< with contact: touches itself, when psb_params.self_contact is on
                       ///< (default on; the scenes leave it off for a loaded model, whose
                       ///< fine mesh makes it cost: psb_scene_config.model_self_contact)
    double fold_limit; ///< in [0, 1); 0 = off. Shells, implicit integrators only: struts join
                       ///< the far corners of each two triangles that share an edge and push
                       ///< them apart with the springs' ks while they are closer than this
                       ///< times their rest distance, so that the surface cannot fold flat
                       ///< onto itself
} psb_body_params;

/// The most threads psb_params.threads may ask for.
#define PSB_MAX_THREADS 256

/// Everything a user can change about a world. Fill with psb_default_params().
typedef struct psb_params {
    double dt;    ///< length of one world step, s (> 0)
    int substeps; ///< integration sub-steps per world step (1..10000); h = dt / substeps
    psb_integrator integrator;
    double gravity;             ///< gravitational acceleration along -y, m/s² (0 = off)
    bool gravity_waits_for_gas; ///< hold gravity off until a body's gas is fully pumped in
    bool floor;                 ///< a floor plane at y = floor_y, normal +y
    double floor_y;             ///< height of the floor, m
    bool walls;         ///< axis-aligned box walls that keep points inside [walls_min, walls_max]
    psb_vec3 walls_min; ///< lower corner of the walls box, m (ignored on z for rings)
    psb_vec3 walls_max; ///< upper corner of the walls box, m
    double restitution; ///< e in [0, 1]: normal velocity after contact = -e * before
    double friction; ///< friction rate mu, 1/s (>= 0): tangential velocity *= exp(-mu h) in contact
    double blowup_size; ///< a point moving farther than this many body diameters in one world step
                        ///< counts as a blow-up (> 0)
    psb_vec3 wind;      ///< wind velocity w, m/s; (0, 0, 0) = still air, no force at all
                        ///< unless still_air
    double wind_turbulence; ///< m/s (>= 0): amplitude of gusts added to the wind, each component
                            ///< within +-wind_turbulence: waves 2-4.5 m long that the wind carries
                            ///< along and that change over 7-20 s (psb_world_wind_at)
    bool still_air;         ///< the bodies move through air even without wind: with wind (0, 0, 0)
                    ///< each body's wind_drag still acts, F = -wind_drag A (v . n) n per point
                    ///< (the surface's motion across itself damped), which brings bouncing
                    ///< and wobbling to rest (the scenes turn it on; default off)
    bool body_contact; ///< bodies touch each other (docs/contact.md): a point of one body does
                       ///< not end a step inside another; rings touch rings, 3D bodies 3D
                       ///< bodies (default on; psb_body_params.contact switches one body off)
    bool self_contact; ///< with body_contact: a body touches itself too, where its own
                       ///< psb_body_params.self_contact is on (docs/contact.md): a
                       ///< point is held a skin off the rest of its own surface (its own
                       ///< triangles left out) on the side it came from; a 3D body's, with
                       ///< contact_solve, by links of its solve, and a point still through its
                       ///< own surface after the step is moved out ("A body's own way out";
                       ///< a ring's, with contact_solve, "A ring's own way out"; the scenes
                       ///< turn it on; default off)
    double contact_thickness; ///< the skin of contact between bodies, m (>= 0; default 0.01): a
                              ///< point closer than this to another body's surface is pushed out
                              ///< (from a cloth: on the side it came from)
    double contact_friction;  ///< with contact_solve: Coulomb friction between 3D bodies (>= 0;
                              ///< default 0.5): a pair pressed at the step's start is held in
                              ///< the solve by up to this times the force it started with (past
                              ///< that it slides against it), a new contact's sliding slowed
                              ///< after it by up to this times the impulse it gave; on top of
                              ///< the friction rate; not between rings
    bool contact_solve; ///< with body_contact and a solved integrator (implicit, bdf2): contact
                        ///< inside the solve (docs/contact.md): bodies that may touch in a
                        ///< sub-step are solved together, held apart by links (default off)
    int threads;        ///< threads for the step (1..PSB_MAX_THREADS, default 1): a body of 4096
                        ///< points and up (any integrator) is shared between them, smaller bodies
                        ///< run side by side, one thread each (with contact_solve: groups of
                        ///< bodies side by side, a group of 4096 points and up sharing its
                        ///< bodies between them). Same bits whatever the count; on a
                        ///< busy machine 1 is faster; without OpenMP in the build, always 1.
    double solver_tol;  ///< implicit: a step is solved when its last Newton step changed no
                        ///< point's velocity by more than this, m/s (> 0; default 1e-3)
    int solver_iterations; ///< implicit: the most conjugate-gradient iterations one sub-step of
                           ///< one body may take, over all its Newton iterations (1..100000);
                           ///< a group of n bodies solved together (contact_solve), n times it
    psb_body_params body;  ///< material for new bodies: front ends copy it into
                           ///< psb_body_def.params (the world does not read it)
} psb_params;

/// The defaults: dt 1/60 s, 20 sub-steps, symplectic Euler, g = 9.81 m/s²,
/// floor at y = 0, restitution 0.3, friction 2/s, no wind, contact between
/// bodies with a skin of 0.01 m and Coulomb friction 0.5, one thread, the implicit solver's
/// tolerance 1e-3 m/s and cap of 500 iterations, and the body defaults of
/// psb_default_body_params().
psb_params psb_default_params(void);

/// Body defaults: mass 1 kg, ks 200 N/m, kd 0.1 N·s/m, nRT 100 J (the shell
/// default of psb_default_gas_nrt), P0 0, no inflation ramp, uniform mass,
/// no shape matching (k_shape 0, shape_damping 0), wind_drag 1 kg/(m² s).
psb_body_params psb_default_body_params(void);

/// The default gas amount for a kind of body: 100 J for a shell, 10 J for a
/// ring, 0 for a cloth (it holds none). A ring's gas fills an area, not a
/// volume, so the same nRT would blow the default ring (radius 0.5 m) up far
/// more than the default sphere.
double psb_default_gas_nrt(psb_body_kind kind);

/// Checks every field; on a bad one returns PSB_ERR_INVALID with a message
/// naming the field and what was expected. err may be NULL.
psb_status psb_params_validate(const psb_params *params, psb_error *err);

/// Same for a body's material.
psb_status psb_body_params_validate(const psb_body_params *params, psb_error *err);

/// Which struct a parameter of the table lives in.
typedef enum psb_param_place {
    PSB_PARAM_WORLD, ///< a field of psb_params
    PSB_PARAM_BODY,  ///< a field of psb_body_params (psb_params.body in a world's parameters)
} psb_param_place;

/// How a parameter of the table is stored.
typedef enum psb_param_type {
    PSB_PARAM_REAL,   ///< a double, or a psb_vec3 (count 3) whose every component is in range
    PSB_PARAM_INT,    ///< an int, a whole number in range
    PSB_PARAM_CHOICE, ///< an enum stored as an int (min .. max), each value named by choice()
} psb_param_type;

/// How a slider should move through a parameter's values.
typedef enum psb_param_scale {
    PSB_SCALE_LINEAR, ///< evenly
    PSB_SCALE_LOG,    ///< evenly in the logarithm, from typical_min > 0 (0 at the far left
                      ///< when min is 0)
} psb_param_scale;

/// One parameter a user can change, with its physically sensible range: the
/// one place the ranges are written. psb_params_validate and
/// psb_body_params_validate check through these entries; the command line
/// (`psb sim`, `psb view`, `psb bench`) builds its physics options from them.
/// The ranges are finite and wide enough for any real use, and narrow enough
/// that no value in them overflows a double in what the step computes.
typedef struct psb_param_info {
    const char *name;      ///< the command-line name, without "--": "ks", "dt", "walls-min"
    const char *field;     ///< the field as C spells it: "spring_k" (in psb_body_params), "dt"
    const char *unit;      ///< SI unit ("N/m", "m/s²"), "" for a pure number
    const char *help;      ///< one line: what it does
    psb_param_place place; ///< which struct holds it
    size_t offset;         ///< offsetof the field in psb_params or psb_body_params (see place)
    psb_param_type type;   ///< how the field is stored
    int count;             ///< components: 1, or 3 for a psb_vec3
    double min;            ///< the lowest value allowed (finite in the table; a front end's
                           ///< own entries may leave it -INFINITY: no bound)
    double max;            ///< the highest value allowed (the same, INFINITY)
    bool min_open;         ///< min itself is excluded (> rather than >=)
    bool max_open;         ///< max itself is excluded
    psb_param_scale scale; ///< how a slider should move through the values
    double typical_min;    ///< the span a slider covers by default (within min .. max): where
    double typical_max;    ///< most scenes' values lie; the default is psb_default_params()'s
    const char *(*choice)(int value); ///< PSB_PARAM_CHOICE: the name of each value; else NULL
} psb_param_info;

/// The table: every number in psb_params and psb_body_params that a user
/// may set (the flags aside), world parameters first. *count (if not NULL)
/// receives the number of entries.
const psb_param_info *psb_param_table(int *count);

/// The entry whose name (or field) is `name`, or NULL.
const psb_param_info *psb_param_find(const char *name);

/// Whether value is allowed: a normal finite number (or 0) within the
/// entry's range, and a whole number for PSB_PARAM_INT and PSB_PARAM_CHOICE.
bool psb_param_in_range(const psb_param_info *info, double value);

/// The range in words, for messages: "a number from 0 to 1e12 in N/m", "an
/// integer from 1 to 10000", "one of euler, symplectic, ... or bdf2". An
/// entry may leave a bound infinite (min = -INFINITY or max = INFINITY) or, for
/// an integer, at INT_MIN or INT_MAX: then it says nothing of that bound.
void psb_param_describe_range(const psb_param_info *info, char *out, size_t out_size);

/// A value as the messages write it: "%g" without the exponent's plus sign
/// and leading zeros ("1e12", "1e-6", "0.001", "200").
void psb_param_format(double value, char *out, size_t out_size);

/// Component `component` (0 .. count - 1) of the entry's field in params
/// (a body entry reads params->body).
double psb_param_get(const psb_params *params, const psb_param_info *info, int component);

/// Sets it when psb_param_in_range; else returns PSB_ERR_INVALID with a
/// message naming the field, the range and the value, and leaves params as
/// they were. err may be NULL.
psb_status psb_param_set(psb_params *params, const psb_param_info *info, int component,
                         double value, psb_error *err);

/// The same for a body's material; info must be a PSB_PARAM_BODY entry.
double psb_body_param_get(const psb_body_params *params, const psb_param_info *info, int component);
psb_status psb_body_param_set(psb_body_params *params, const psb_param_info *info, int component,
                              double value, psb_error *err);

/// How to make a body. The arrays are copied; they may be freed afterwards.
/// A ring's springs join consecutive points; a shell's lie on its triangles'
/// edges; a cloth's are its triangles' edges plus the springs given.
typedef struct psb_body_def {
    psb_body_kind kind;
    const psb_vec3 *points;      ///< the initial positions, m
    const psb_vec3 *rest_points; ///< the shape at which every spring is at rest; NULL = points
    int point_count;             ///< ring: >= 3; shell: >= 4; cloth: >= 2
    const int *triangles;        ///< shell: 3 point indices per triangle; cloth: optional
    int triangle_count;          ///< shell: >= 4; cloth: >= 0
    const int *springs;          ///< cloth only: 2 point indices per extra spring
    int spring_count;            ///< cloth only: >= 0 (every point needs a spring or triangle)
    psb_vec3 offset;             ///< added to every point (and rest point), m
    psb_vec3 velocity;           ///< initial velocity of every point, m/s
    psb_body_params params;
} psb_body_def;

/// A definition with no geometry and the material of psb_default_body_params().
psb_body_def psb_default_body_def(void);

/// Checks a definition as psb_world_add_body does (kind, counts, finite
/// points, indices in range, a cloth without gas, the material), all but
/// the rest shape's volume, which needs the body built. err may be NULL.
psb_status psb_body_def_validate(const psb_body_def *def, psb_error *err);

/// What a body measures right now (after the last step).
typedef struct psb_body_state {
    double volume;      ///< enclosed volume, m³ (2D: area, m²)
    double rest_volume; ///< volume of the rest shape
    double pressure;    ///< nRT / V - P0, Pa (2D: N/m)
    double gas_nrt;     ///< the gas amount in force now (ramps up while inflating), J
    psb_vec3 centroid;  ///< mean of the point positions, m
    psb_vec3 momentum;  ///< sum of m v, kg·m/s
    double mean_radius; ///< mean distance of the points from the centroid, m
    double min_y;       ///< lowest point's height, m
    double kinetic;     ///< sum of 1/2 m v², J
    double spring;      ///< sum of 1/2 ks (|d| - L0)², J
    double gas;         ///< -nRT ln V + P0 V, J (0 for a cloth)
    double gravity;     ///< sum of m g y, J (pinned points left out)
    double shape;       ///< shape matching: 1/2 k_shape sum |g_i - x_i|², J (g_i: matched)
    double energy;      ///< kinetic + spring + gas + gravity + shape, J
    int pinned;         ///< pinned points
    int blowups;        ///< blow-ups detected and recovered from since creation
} psb_body_state;

/// Opaque world: bodies, colliders, parameters, time.
typedef struct psb_world psb_world;

/// Makes an empty world. Returns NULL with err filled on bad parameters or
/// no memory.
psb_world *psb_world_create(const psb_params *params, psb_error *err);

/// Frees the world and all its bodies. NULL is allowed.
void psb_world_destroy(psb_world *world);

/// Changes the parameters of a live world (integrator, dt, gravity, ...).
/// Bad parameters are refused and the old ones kept.
psb_status psb_world_set_params(psb_world *world, const psb_params *params, psb_error *err);

/// The parameters in force.
const psb_params *psb_world_params(const psb_world *world);

/// Adds a body; returns its id (0, 1, ...) or -1 with err filled. A bad
/// definition changes nothing.
int psb_world_add_body(psb_world *world, const psb_body_def *def, psb_error *err);

/// Adds a static sphere collider (centre in m, radius > 0 in m).
psb_status psb_world_add_sphere(psb_world *world, psb_vec3 centre, double radius, psb_error *err);

/// Number of static spheres, and one of them.
int psb_world_sphere_count(const psb_world *world);
void psb_world_sphere(const psb_world *world, int index, psb_vec3 *centre, double *radius);

/// Advances the world by one step of params.dt, in params.substeps sub-steps.
/// Returns the number of bodies that blew up during this step (and were
/// restored); 0 normally. See psb_world_last_event() for what happened.
int psb_world_step(psb_world *world);

/// Simulated time, s, and the number of world steps taken.
double psb_world_time(const psb_world *world);
long psb_world_step_count(const psb_world *world);

/// The last event ("" if none yet): a blow-up (which body, what was
/// detected, how it was recovered), or contacts or links between bodies
/// left out because their list was full.
const char *psb_world_last_event(const psb_world *world);

/// World steps so far in which contacts or links between bodies did not all
/// fit in memory (their lists start at twice the points and double when a
/// step fills them): the rest were left out of that step, and
/// psb_world_last_event() said so. 0 normally.
long psb_world_full_list_steps(const psb_world *world);

/// Points put back out of another body so far: with contact inside the
/// solve, a point that a step's solve left inside another body (by its
/// winding number) is moved back out past its surface at the end of the
/// step, positions only (docs/contact.md, "Points put back"); one the
/// passes leave inside is moved alone toward the body's nearest surface
/// point and counted again ("The last way out"); with self_contact, so is
/// a point of a 3D body or a ring moved out of its own surface ("A body's
/// own way out", "A ring's own way out").
long psb_world_put_back_count(const psb_world *world);

/// Number of bodies.
int psb_world_body_count(const psb_world *world);

/// Contacts between bodies found in the last world step (docs/contact.md):
/// a point of one body inside another, or within contact_thickness of it.
int psb_world_contact_count(const psb_world *world);
/// Links (a point and the nearest point of another body's surface, or with
/// self_contact of a facing sheet of its own 3D body) held in the last
/// sub-step's solve, with contact inside the solve
/// (psb_params.contact_solve); 0 without it.
int psb_world_link_count(const psb_world *world);

/// What the implicit solver did for one body over one world step (all zero
/// for the explicit integrators).
typedef struct psb_solver_report {
    int newton;            ///< Newton iterations, summed over the sub-steps
    int iterations;        ///< conjugate-gradient iterations, summed over the sub-steps
    double residual;       ///< the last sub-step's last Newton step: the largest change it made to
                           ///< a point's velocity, m/s (what solver_tol bounds; 0 when the first
                           ///< guess was already solved)
    double force_residual; ///< after the last sub-step: the RMS over points of the unbalanced
                           ///< force per unit mass, m/s²
    bool converged;        ///< every sub-step reached solver_tol within solver_iterations
    int asleep;            ///< sub-steps slept through: the body was still, from rest, and nothing
                           ///< had changed, so the step would only have repeated the last one
                           ///< (no work done; any change to the body or the world wakes it)
} psb_solver_report;

/// The implicit solver's report on body `body` for the last world step.
psb_solver_report psb_body_solver_report(const psb_world *world, int body);

/// The same over all bodies: iterations and sub-steps slept summed, the largest residual,
/// converged when every body converged (true with no bodies).
psb_solver_report psb_world_solver_report(const psb_world *world);

/// Time spent in each stage of the step, ns, summed over bodies and
/// sub-steps while profiling is on (for `psb bench`). With symplectic Euler
/// the springs and the volume gradient are one pass over each point's
/// neighbours, and the floor is part of the update; with threads, the times
/// are the first thread's, waits at the barriers included.
typedef struct psb_profile {
    double springs;   ///< spring forces (with the volume gradient, in the same pass)
    double gas;       ///< summing the volume and the pressure (and, for integrators other
                      ///< than symplectic Euler, gravity and grab forces)
    double integrate; ///< the integrator's updates (gravity, grab, x and v; the floor when fused)
    double collide;   ///< floor, walls, spheres
    double guard;     ///< the blow-up guard's check and the copy into the public arrays
    double contact;   ///< contact between bodies: finding and resolving, once per world step
    int threads;      ///< the most threads one body's step really ran on
} psb_profile;

/// Switches profiling on or off; switching it on zeroes the times. Off by
/// default: then the step reads no clock.
void psb_world_set_profiling(psb_world *world, bool on);

/// The times gathered since profiling was switched on.
psb_profile psb_world_profile(const psb_world *world);

/// Which version of the step's hot loops this world runs: "avx512", "avx2"
/// or "scalar", the fastest that the CPU and the build allow (picked when
/// the world is made; the versions agree to rounding).
const char *psb_world_instruction_set(const psb_world *world);

/// Read-only views of a body's state. Pointers stay valid until the body's
/// world is destroyed; contents change with each step.
psb_body_kind psb_body_get_kind(const psb_world *world, int body);
int psb_body_point_count(const psb_world *world, int body);
const psb_vec3 *psb_body_positions(const psb_world *world, int body);
const psb_vec3 *psb_body_velocities(const psb_world *world, int body);
const double *psb_body_masses(const psb_world *world, int body);
/// Springs as pairs of point indices; *count receives the number of springs.
const int *psb_body_edges(const psb_world *world, int body, int *count);
/// Rest length of each spring, m.
const double *psb_body_rest_lengths(const psb_world *world, int body);
/// Triangles, 3 indices each (NULL with *count = 0 for a ring).
const int *psb_body_triangles(const psb_world *world, int body, int *count);

/// Measures volume, pressure, energies and so on at the current state.
psb_body_state psb_body_measure(const psb_world *world, int body);

/// The material of a body, and a change to it (validated, and a cloth's gas must
/// stay 0; refused = unchanged).
const psb_body_params *psb_body_get_params(const psb_world *world, int body);
psb_status psb_body_set_params(psb_world *world, int body, const psb_body_params *params,
                               psb_error *err);

/// An estimate of the largest sub-step h (s) at which symplectic Euler and
/// velocity Verlet stay stable for this body's springs, from the stiffest
/// point: h^2 w^2 + 2 h g < 4 with w^2 = (2 ks deg + k_shape) / m and
/// g = 2 kd deg / m (deg: springs at the point, m: its mass). Rather cautious; explicit Euler
/// and Heun need smaller steps still, RK4 a little less.
double psb_body_stable_substep(const psb_world *world, int body);
/// The same for the whole world: the smallest over its bodies (infinity
/// with no body), s.
double psb_world_stable_substep(const psb_world *world);

/// Sets positions and/or velocities (either may be NULL). Non-finite values
/// are refused. A pinned point stays pinned, at rest, its pin moved to the
/// position given.
psb_status psb_body_set_state(psb_world *world, int body, const psb_vec3 *positions,
                              const psb_vec3 *velocities, psb_error *err);

/// Puts the body back as it was created and restarts its inflation; pinned
/// points stay pinned where they are pinned.
void psb_body_reset(psb_world *world, int body);

/// Grabs a point: from now on a spring of stiffness k (N/m), critically
/// damped against the point's mass, pulls it toward target. One grab per body.
void psb_body_grab(psb_world *world, int body, int point, psb_vec3 target, double k);
/// Moves the grab target, m.
void psb_body_grab_move(psb_world *world, int body, psb_vec3 target);
/// Lets go. The grabbed point, or -1.
void psb_body_release(psb_world *world, int body);
int psb_body_grabbed_point(const psb_world *world, int body);

/// Adds an impulse J (N·s) to one point: v += J / m (nothing on a pinned point).
void psb_body_apply_impulse(psb_world *world, int body, int point, psb_vec3 impulse);

/// Pins a point at position (m): from then on it has infinite mass, keeps
/// still there and only pulls on its neighbours through its springs. Pinning
/// a pinned point moves its pin. Fails with PSB_ERR_INVALID for a non-finite
/// position and PSB_ERR_NOMEM when the pin list cannot grow.
psb_status psb_body_pin(psb_world *world, int body, int point, psb_vec3 position, psb_error *err);
/// Frees a pinned point (at rest, with its mass back); nothing if not pinned.
void psb_body_unpin(psb_world *world, int body, int point);
bool psb_body_is_pinned(const psb_world *world, int body, int point);
/// Number of pinned points.
int psb_body_pin_count(const psb_world *world, int body);

/// Where shape matching would put each point now (public order, n entries):
/// the rest shape moved by the rigid motion that fits the current points best
/// (2D: the angle theta = atan2(sum q x r, sum q . r) about the centroid; 3D:
/// the rotation of the polar decomposition of sum r q^T, found as the unit
/// quaternion of Horn's method, which is a proper rotation even for a flat or
/// inverted body). rotation receives the 3x3 matrix, row-major, if not NULL.
void psb_body_shape_match(const psb_world *world, int body, psb_vec3 *goals, double rotation[9]);

/// The wind velocity (gusts included) at a point and time, m/s.
psb_vec3 psb_world_wind_at(const psb_world *world, psb_vec3 position, double time);

/// Whether params make any wind: a non-zero wind or gusts.
bool psb_params_wind_blows(const psb_params *params);

/// Whether the air acts on the bodies at all: wind, or still_air (else psb
/// models no air).
bool psb_params_air_acts(const psb_params *params);

#ifdef __cplusplus
}
#endif

#endif
