// The implicit step's internals, shared by implicit.c (the step and its
// Newton iterations), implicit_energy.c (G, its gradient and Hessian
// blocks, the gas and the contacts) and implicit_cg.c (the conjugate
// gradients): internal to the core.
#ifndef PSB_IMPLICIT_INTERNAL_H
#define PSB_IMPLICIT_INTERNAL_H

#include <stdbool.h>

#include "implicit_mg.h"
#include "internal.h"

enum {
    SUMS = 8,            // partial sums a chunk keeps
    MAX_SLOT = SUMS - 1, // the one of them that implicit_reduce() combines by max
};

// Contact penalty stiffness in units of the point's m / h^2: a point that
// would end the step a distance s inside a collider ends it s / (1 + this)
// inside instead, and is then moved out.
#define CONTACT_STIFFNESS 1e4
// How close to a collider's surface (relative to 1 + |its offset|, m) a
// point counts as on it: the line search leaves points exactly there, and a
// sphere's plane, renewed each step, sits a rounding's width off them.
#define TOUCH 1e-9

typedef struct implicit_work {
    // Springs per point, both ends (CSR): slots adj_start[i] .. adj_start[i + 1] - 1.
    int *adj_start;
    int *adj_other;        // the other end, internal index
    int *adj_owner;        // the slot's own end i, internal index
    double *adj_rest;      // rest length, m
    double *adj_u0;        // 3 per slot: direction x_i - x_j at the step's start
    double *adj_b;         // 9 per slot: H's block (i, j), springs and gas, row-major, N/m
    float *adj_c;          // 12 per slot, 16-byte aligned: the same block by columns, each padded
                           // to 4 with a 0, in single precision, for the AVX2 product of the
                           // conjugate gradients (NULL without AVX2 and FMA)
    double *slot_energy;   // per slot, the last evaluation's: its half of the spring's energy, J
    double *slot_force;    // 3 per slot: the spring's force on the slot's own end, N
    double *slot_k;        // 6 arrays of one per slot, each adj_start[n] long: the spring's
                           // stiffness K (xx xy xz yy yz zz) at the last evaluation of the blocks
    bool baseline_springs; // the springs' slots run the baseline's loop even with AVX2 (tests)
    // Triangles per point (shells and cloths): for each, its other corners
    // j, k so that (i, j, k) is the triangle's own order.
    int *tri_start;
    int *tri_jk;
    int *tri_slot; // 2 per: the slots of the springs i-j and i-k (-1: none)
    // Struts (psb_body_params.fold_limit), per point, both ends (CSR) as
    // the springs: slots strut_start[i] .. strut_start[i + 1] - 1. A
    // strut joins the far corners of two triangles of a shell that share
    // an edge and pushes them apart while they are closer than fold_limit
    // times their rest distance.
    int *strut_start;
    int *strut_other;   // the other end, internal index
    double *strut_rest; // the corners' distance in the rest shape, m
    double *strut_b;    // 9 per slot: H's block (i, j) while the strut acts, N/m
    int *strut_on;      // per point: its struts acting at the last evaluation of the blocks
    mg_hierarchy *mg;   // the multigrid preconditioner (NULL: point by point)
    // Rings: each point's neighbours along the ring (internal).
    int *ring_next, *ring_prev;
    double *y[3];  // inertial target, m
    double *xb[3]; // where the step's velocity is measured from, v = (x - xb) / h^:
                   // x_n (backward Euler) or BDF2's (4 x_n - x_{n-1}) / 3, m
    // BDF2's history: x_{n-1}, v_{n-1} at the step's start (x_n, v_n after
    // it), and the state the last step left (end_x where it left the points,
    // end_v the solve's velocities before the bounces), to find the points
    // changed since (bdf2_targets).
    double *hist_x[3], *hist_v[3], *end_x[3], *end_v[3];
    double hist_h; // the sub-step that history was taken at (0: none), s
    // Its last solve took no Newton step: the next starts from x_n without
    // trying the other first guesses (solve in implicit.c).
    bool rested;
    // The preconditioner that found the last solve converged with no
    // Newton step (the multigrid's levels, or the point blocks dinv when
    // multigrid is false), and what it was made for: while the body stays
    // still under the same material, the next step is judged by it
    // without new blocks (still_judged in implicit.c). Anything the step
    // does not see for itself that changes the body (its parameters or the
    // world's, a grab, a pin, a poke: body_wake) makes it invalid.
    struct {
        bool valid, multigrid;
        double t;                   // the end of the step that it judged, s
        double dt, h, nrt, gravity; // that step's, which time may change
        double force_residual;      // what that step reported, m/s²
    } judge;
    // The last step was still (judge.valid) and started from rest in all
    // that a step reads (starts_at_rest): a step from where it left the
    // body is then that step again, bit for bit, and is not taken (asleep
    // in implicit.c).
    bool quiet;
    // Whether the body keeps still (a body in a group dozes on it:
    // implicit_group_dozes): where every point was at the start of the
    // window, how long since (s; -1: no window), and the gravity and gas
    // of its start. Every point has ended each sub-step since within
    // solver_tol times DOZE_AFTER of where it was then.
    double *still_at[3];
    double still_for;
    double still_gravity, still_nrt;
    double *gbuf[2][3]; // gradient of G: the iterate's and a trial's (step_ctx.base), N
    double *d[3];       // Newton direction, m
    double *r[3];       // conjugate gradients: residual, N
    double *z[3];       // D^-1 r
    double *p[3];       // search direction
    double *q[3];       // H p
    double *xs[3];      // the line search's base point, m
    double *wv[3];      // S D^-1 S g
    double *cn[3];      // the contact constraint's normal at each point, or 0
    double *plane_n[3]; // each point's sphere plane n . x >= plane_d (n = 0: none)
    double *plane_d;
    // Contact inside the solve: the links' gradient and own blocks at each
    // point (6 per point), for the evaluation to add (step_ctx.linked).
    double *link_g[3]; // N
    double *link_d;    // N/m
    double *diag;      // 6 per point: the Hessian's own block without the gas, N/m
    double *dinv;      // 6 per point: its inverse
    double *sums;      // SUMS per chunk
    // A body alone with links to itself, solved on a team: what its thread
    // 0 found on the links for every thread to read (on_lead).
    double lead_value;
} implicit_work;

typedef struct evaluation {
    double energy;   // G - (its value at x_n's constant terms), J
    double residual; // RMS over free points of |grad G| / m, m/s²
    double net[3];   // sum of grad G over the points, N
    bool touching;   // some point is in or on a collider
} evaluation;

// What one thread knows during a sub-step; every thread of the team holds
// the same values.
typedef struct step_ctx {
    psb_body *b;
    const psb_world *w;
    const body_part *part;
    implicit_work *W;
    double t_start;    // the world time the sub-step starts at, s
    double dt;         // the sub-step, s
    double h, inv_h2;  // the step in G, h^: dt (backward Euler) or 2 dt / 3 (BDF2), s
    bool keep_history; // PSB_BDF2: keep the step's start as the next one's history
    bool bdf2;         // this step is BDF2's (it has a history at this sub-step)
    double gravity;    // m/s², along -y
    double nrt;        // J
    double kd_h;       // kd / h, kg/s²
    bool gas;          // a ring or shell: it holds gas
    bool ring;
    double origin[3]; // for the volume's sum, m
    double volume_start;
    // The gas at the current iterate.
    double volume, pressure, curvature; // m³, Pa, nRT / V² (0 below the volume floor)
    double sigma;                       // Sherman-Morrison: c / (1 + c g . D^-1 g)
    double centre[3], rotation[9];      // the shape fit at the current iterate
    double grab_c;                      // the grab's damping, N s/m
    int base;          // W->gbuf[base] is the gradient at the iterate; evaluate fills the other
    bool use_mg;       // precondition with the multigrid (until it fails in this sub-step)
    bool clamp;        // compressed springs' lateral stiffness held at 0, a ring's -P H_V out
                       // (after negative curvature or a failed line search)
    bool exact;        // the next evaluation's blocks exact all the same (EXACT_RATIO)
    bool negative;     // the conjugate gradients met negative curvature
    bool touching;     // the last evaluation found points on or in a collider
    bool keep_normals; // an evaluation without the blocks keeps the contact normals cn too
    bool from_rest;    // the step started from rest (starts_at_rest), after a still step
    bool linked;       // in a group with links: the evaluation adds link_g and link_d
    bool columns;      // this thread's rows of adj_c hold the current blocks (copy_columns)
    bool settled;      // in a group: held where it is while the others' Newton steps go on
                       // (its d and p are 0; the group's work passes it by: SETTLE)
    // In a group: the conjugate gradients' per-body sums of the current
    // iteration, sigma (w . r) and g . p; the Newton direction's largest
    // velocity change (m/s) and longest move (m); this body's totals of its
    // last reduction and its last evaluation, for the group to combine.
    double sigma_wr, gp, change, longest;
    double t[SUMS];
    evaluation eval;
} step_ctx;

// The bodies solved together in one G: one body alone (no links), or the
// bodies that links join, with the links' energy added.
typedef struct group {
    step_ctx *s; // count contexts, the bodies in increasing index
    int count;
    solve_link *links; // the world's (the solve may make their normals again)
    const int *link;   // link_count indices into links
    int link_count;
    unsigned char *acting; // per link (world index): it pushed or rubbed at the last evaluation
    double mass;           // the bodies' total, kg
    int threads;           // the bodies' own work runs side by side on this many threads
} group;

// One body's share of a group's work: body k of g, with the caller's arg.
typedef void body_work(group *g, int k, void *arg);
// Work on a group's links, on one thread (implicit_on_lead).
typedef double lead_work(group *g, const void *arg);

// The gradient of G at the iterate, N.
static inline double *const *iterate_gradient(const step_ctx *s) {
    return s->W->gbuf[s->base];
}

// The last evaluation becomes the iterate's.
static inline void accept_evaluation(step_ctx *s) {
    s->base = 1 - s->base;
}

// The bodies' first sums, t[0], added up in body order over those that are
// not settled (the same bits on any thread count).
static inline double unsettled_sum(const group *g) {
    double sum = 0.0;
    bool first = true;
    for (int k = 0; k < g->count; k++) {
        if (!g->s[k].settled) {
            sum = first ? g->s[k].t[0] : sum + g->s[k].t[0];
            first = false;
        }
    }
    return sum;
}

// ---------------------------------------------------------------------------
// Small 3x3 algebra. A symmetric block is kept as (xx xy xz yy yz zz).

static inline void sym_mul(const double *S, const double v[3], double out[3]) {
    out[0] = S[0] * v[0] + S[1] * v[1] + S[2] * v[2];
    out[1] = S[1] * v[0] + S[3] * v[1] + S[4] * v[2];
    out[2] = S[2] * v[0] + S[4] * v[1] + S[5] * v[2];
}

// S += a u u^T + b (I - u u^T), for a unit u.
static inline void sym_add_spring(double *S, const double u[3], double a, double b) {
    const double k = a - b;
    S[0] += k * u[0] * u[0] + b;
    S[1] += k * u[0] * u[1];
    S[2] += k * u[0] * u[2];
    S[3] += k * u[1] * u[1] + b;
    S[4] += k * u[1] * u[2];
    S[5] += k * u[2] * u[2] + b;
}

// The inverse of a symmetric positive definite block (its diagonal's
// inverse if it is nearly singular).
static inline void sym_inverse(const double *S, double *out) {
    const double c00 = S[3] * S[5] - S[4] * S[4];
    const double c01 = S[2] * S[4] - S[1] * S[5];
    const double c02 = S[1] * S[4] - S[2] * S[3];
    const double det = S[0] * c00 + S[1] * c01 + S[2] * c02;
    const double tr = S[0] + S[3] + S[5];
    if (det > 1e-14 * tr * tr * tr) {
        const double inv = 1.0 / det;
        out[0] = c00 * inv;
        out[1] = c01 * inv;
        out[2] = c02 * inv;
        out[3] = (S[0] * S[5] - S[2] * S[2]) * inv;
        out[4] = (S[1] * S[2] - S[0] * S[4]) * inv;
        out[5] = (S[0] * S[3] - S[1] * S[1]) * inv;
        return;
    }
    out[0] = S[0] > 0.0 ? 1.0 / S[0] : 0.0;
    out[3] = S[3] > 0.0 ? 1.0 / S[3] : 0.0;
    out[5] = S[5] > 0.0 ? 1.0 / S[5] : 0.0;
    out[1] = out[2] = out[4] = 0.0;
}

static inline void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void load(double *const a[3], int i, double out[3]) {
    out[0] = a[0][i];
    out[1] = a[1][i];
    out[2] = a[2][i];
}

// v -= (v . n) n: removes the part along a contact constraint's normal n
// (nothing when n is 0).
static inline void filter(const double n[3], double v[3]) {
    const double vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    v[0] -= vn * n[0];
    v[1] -= vn * n[1];
    v[2] -= vn * n[2];
}
// ---------------------------------------------------------------------------
// Sums over points, deterministic for any team.

// Waits for the team (team of one: nothing).
static inline void team_sync(const step_ctx *s) {
    if (s->part->team > 1) {
        team_wait(s->part->bar, s->part->team);
    }
}

// Whether this thread leads its team (a team of one: it does).
static inline bool team_lead(const step_ctx *s) {
    return s->part->thread == 0;
}

// The points of chunk ch: [*i0, *i1).
static inline void chunk_points(const psb_body *b, int ch, int *i0, int *i1) {
    *i0 = ch * CHUNK_POINTS;
    *i1 = (ch + 1) * CHUNK_POINTS < b->n ? (ch + 1) * CHUNK_POINTS : b->n;
}

static inline bool is_free(const psb_body *b, int i) {
    return b->inv_mass[i] > 0.0;
}

// ---------------------------------------------------------------------------
// Across the files.

// implicit.c
/// Runs work on each body of g that is not settled: side by side on
/// g->threads threads when it has more than one (each body's work on one
/// thread: its sums kept with it and added up in body order afterwards, so
/// that any count gives the same bits), else in order on this thread.
void implicit_each_body(group *g, body_work *work, void *arg);
/// Runs work on the group's links and returns its value: on this thread,
/// or for a body alone solved on a team (its links with itself: every
/// thread of the team calls this), on the team's first thread once the
/// whole team has come, its value then given to every thread.
double implicit_on_lead(group *g, lead_work *work, const void *arg);
/// The slot of point i's spring to j, or -1.
int implicit_find_slot(const implicit_work *W, int i, int j);
/// The springs of points [i0, i1) slot by slot (implicit_springs.c): each
/// slot's energy and force into slot_energy and slot_force and, with
/// blocks, its stiffness K into slot_k.
void implicit_spring_slots(const step_ctx *s, int i0, int i1, bool blocks);
/// After every thread has filed its chunks' partial sums 0..count-1 (and
/// MAX_SLOT): their totals (the largest for MAX_SLOT), chunk by chunk in
/// order, on every thread.
void implicit_reduce(const step_ctx *s, int count, double out[SUMS]);

// implicit_energy.c
/// g_i = dV/dx_i at point i (a shell's, a cloth's area vectors, a ring's).
void implicit_gas_gradient_at(const step_ctx *s, int i, double g[3]);
/// Fills b->grad for the part's points; returns the volume (every thread).
double implicit_gas_volume(step_ctx *s);
/// Moves x, a trial position of point i, out of the floor, the walls and
/// its sphere plane.
void implicit_push_out(const step_ctx *s, int i, double x[3]);
/// Each of the part's points' plane of its nearest static sphere.
void implicit_sphere_planes(step_ctx *s);
/// Restitution and friction for the part's points on their sphere plane.
void implicit_sphere_response(const step_ctx *s);
/// G at b->x: energy, residual, gradient (into the buffer that is not the
/// iterate's), and with_derivatives the blocks for the conjugate gradients.
evaluation implicit_evaluate(step_ctx *s, bool with_derivatives);
/// The same for a group: each body's, the links' energy, gradient and
/// blocks added (one body alone: its own evaluation, the same bits).
evaluation implicit_group_evaluate(group *g, bool with_derivatives);
/// If a 3D link, along its feature's pseudo-normal where the points are now,
/// would have its point more than slack (m) deeper than its floor and than
/// along its own n, every 3D link of the group takes that normal; returns
/// whether they did.
bool implicit_turn_links(group *g, double slack);

// implicit_cg.c
/// Solves H d = -grad G approximately (see the definition); returns the
/// iterations used, or -1 when the multigrid preconditioner failed.
int implicit_conjugate_gradients(group *g, double eta, double floor, int cap, bool *solved);
/// Whether one application of the preconditioner as it stands (the levels
/// or blocks of an earlier step: none are made) to -grad G at the iterate
/// moves no point of the group faster than floor (m/s over the step).
bool implicit_preconditioned_within(group *g, double floor);

#endif
