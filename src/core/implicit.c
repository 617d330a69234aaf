// The implicit step: backward Euler in its variational form.
//
// One sub-step h from (x_n, v_n) finds the positions x that minimise
//
//     G(x) = 1/(2 h^2) |x - y|^2_M + E(x),    y = x_n + h v_n + h^2 M^-1 f_wind
//
// and sets v = (x - x_n) / h. E holds everything that depends on where the
// points end the step:
//   springs   1/2 ks (|d| - L0)^2 per spring, d = x_i - x_j;
//   damping   kd / (2 h) (u0 . (dx_i - dx_j))^2 per spring, with u0 the
//             spring's direction at the step's start and dx = x - x_n: its
//             gradient is kd ((v_i - v_j) . u0) u0, the damped spring's force;
//   gas       -nRT ln V + P0 V (held linear below 1e-3 V0, as the force is);
//   gravity   m g y;
//   grab      1/2 k |x - target|^2 + c / (2 h) |x - x_n|^2, c = 2 sqrt(k m);
//   shape     1/2 k_shape |g_i - x_i|^2 (goals g_i from the rigid fit).
// At the minimum the gradient M (x - y) / h^2 + grad E is zero, which is
// M (v - v_n) / h = F(x, v): backward Euler. The wind is taken at the
// step's start (in y).
//
// The minimum is found by Newton's method. Each Newton step solves H d = -grad G
// with conjugate gradients on H kept as 3x3 blocks per point and per spring
// end: the springs' ks [u u^T + (1 - L0/l) (I - u u^T)] + kd/h u0 u0^T and
// the gas's -P H_V (H_V is zero on a point's own block: V is linear in each
// point), plus the gas's rank-one (nRT / V^2) g g^T, g = dV/dx, applied as
// g (g . p). A compressed spring makes its lateral term negative: once the
// conjugate gradients meet negative curvature or a line search fails, that
// term is clamped at 0 for the rest of the sub-step, and a ring's -P H_V
// left out (until the clamped model proves too stiff: EXACT_RATIO). The
// preconditioner is
// an additive multigrid (implicit_mg.c), or, for small bodies and when that
// fails, each point's own block with the rank-one term by Sherman-Morrison:
// (D + c g g^T)^-1 r = D^-1 r - c D^-1 g (g . D^-1 r) / (1 + c g . D^-1 g).
// A backtracking line search on G (Armijo) makes every Newton step lower G,
// so a step cut short by the iteration cap still never ends higher in G than
// it started: that is what keeps it stable at any h.
//
// Contacts are constraints: the line search keeps every point out of the
// floor, the walls and its sphere plane (sphere_planes), a point pressed on
// one is held on it by Baraff and Witkin's filter S = I - n n^T, and a
// penalty 1/2 kc depth^2 (kc = CONTACT_STIFFNESS m / h^2) takes whatever
// rounding leaves inside. After the solve, v = (x - x_n) / h, the points on
// a surface get restitution and friction as in collide.c, pins are held,
// and shape damping filters v.
//
// Groups (contact inside the solve, docs/contact.md): bodies that links
// join (contact.c finds them, world.c groups them) are solved in one G, the
// sum of theirs and of each link's k/2 min(0, (x_p - q) . n - hold)^2: one
// Newton's method, one conjugate-gradient solve and one line search over
// all their points, each body with its own preconditioner and sums, added
// up in body order (implicit_energy.c has the links' terms, implicit_cg.c
// their product). A body whose Newton steps have converged while others'
// go on is held where it is until they have converged too; then a Newton
// step over them all judges the group (SETTLE). A body alone is a group
// of one, solved as it always was.
//
// Threads: each thread of the team works on its part's points; every sum
// over points is made chunk by chunk and the chunks added in order, so all
// threads take the same decisions and any team gives the same bits. A
// group's bodies each run on one thread, side by side (implicit_each_body);
// a large body alone with links to itself runs on a team, its links' work
// on the team's first thread (implicit_on_lead).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "implicit_internal.h"

enum {
    NEWTON_MAX = 60,    // Newton iterations a sub-step takes at most
    BACKTRACK_MAX = 16, // tries of the line search at most
};

// Armijo's sufficient decrease: G(x + a d) <= G(x) + ARMIJO a grad G . d.
#define ARMIJO 1e-4
// A rejected move's next try is at least this fraction of it (and at most
// half).
#define BACKTRACK_LEAST 0.1
// The solve goes back to the exact Hessian (compressed springs' lateral
// term unclamped, a ring's -P H_V back), after a full step on the clamped
// one lowered G by more than this times what its quadratic model
// predicted: the clamp then holds the model stiffer than G (bodies pressed
// on each other, or a loaded model's wrinkles, compress many springs), and
// its steps fall short, one after another. Until an exact step needs a
// shorter move, Newton goes on with the exact blocks.
#define EXACT_RATIO 1.1
// Inexact Newton: the conjugate gradients reduce the error's energy by
// ETA^2 at most.
#define ETA 0.25
// A body of a group whose velocities a Newton step, solved to its
// tolerance, changed by at most SETTLE times the solver's tolerance, while
// another's still change by more than the tolerance, settles: it is held
// where it is and the next Newton steps run over the others, its links
// acting on them as a fixed wall. In the pile at 4 s the balls' last
// Newton steps are two or three balls' (their velocities still change by
// 1.5e-3 to 1.4e-2 m/s when the rest are below 3e-4), and each step over
// all of them costs the whole group's work. When the others have
// converged, every body takes part again and the group's convergence is
// judged over all of them. Groups of rings do not settle (docs/contact.md,
// "Settled bodies").
#define SETTLE 0.25

// A link's plane keeps the pseudo-normal its feature had where the
// sub-step started; a feature that turns in the step (a ball flattening as
// it lands on another at 5 m/s turns its triangles by tens of degrees)
// leaves the plane off its surface, and points the plane holds out end
// inside. At a converged iterate, if some 3D link's point is more than
// TURN_SLACK (m) deeper than its floor, and than along its own normal,
// along its feature's pseudo-normal where the points are now, every 3D link
// takes that normal and the solve goes on, at most TURN_ROUNDS times a
// sub-step (turn_links). Rings' links keep theirs (docs/contact.md, "A
// link's normal turns with its feature").
enum { TURN_ROUNDS = 2 };
#define TURN_SLACK 1e-3
// The longest move a line search starts from, in the body's rest sizes
// (rest_size, the diagonal of its rest shape's box). A Newton step is that
// long only where its quadratic model is far off: a membrane at its rest
// length under pressure has no stiffness across itself (the springs' lateral
// term is (1 - L0/l) = 0), so the model sends points metres out when only
// the stretch that builds as they move can hold them.
#define LONGEST_MOVE 0.1

// ---------------------------------------------------------------------------
// The step.

// The largest velocity change the Newton direction makes on one body:
// max |d_i| / h, m/s (every thread); its longest move into s->longest.
// With a point on or in a collider, each point's move is the one the line
// search leaves of a whole step (x + d pushed out, as move_along does):
// the part of d into a surface the point is pressed on is not a change.
// A point in a corner of the box (the floor its constraint, the wall left
// to its penalty: contact_penalty) is sent into the wall by every
// direction and put back; counted, it kept a settled pile's group at 20 to
// 40 Newton steps a frame, each moving nothing by more than the tolerance.
static double body_largest_change(step_ctx *s) {
    const implicit_work *W = s->W;
    const psb_body *b = s->b;
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double most = 0.0;
        for (int i = i0; i < i1; i++) {
            double d[3];
            load(W->d, i, d);
            if (s->touching && is_free(b, i)) {
                double x[3] = {b->x[0][i] + d[0], b->x[1][i] + d[1], b->x[2][i] + d[2]};
                implicit_push_out(s, i, x);
                for (int c = 0; c < 3; c++) {
                    d[c] = x[c] - b->x[c][i];
                }
            }
            const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            most = d2 > most ? d2 : most; // (fmax is a call, here once a point)
        }
        W->sums[ch * SUMS + MAX_SLOT] = most;
    }
    double t[SUMS];
    implicit_reduce(s, 0, t);
    const double change = sqrt(t[MAX_SLOT]) / s->h;
    s->longest = change * s->h;
    return change;
}

// The same over the group: the largest of its bodies'.
static void change_body(group *g, int k, void *unused) {
    (void)unused;
    g->s[k].change = body_largest_change(&g->s[k]);
}

static double largest_change(group *g) {
    implicit_each_body(g, change_body, NULL);
    double most = 0.0;
    for (int k = 0; k < g->count; k++) {
        most = g->s[k].settled ? most : fmax(most, g->s[k].change);
    }
    return most;
}

// Settles body k (SETTLE) if its change is within *below: its d and p to
// 0, so that the others' conjugate gradients see it as fixed.
static void settle_body(group *g, int k, void *below) {
    step_ctx *s = &g->s[k];
    if (s->change > *(const double *)below) {
        return;
    }
    implicit_work *W = s->W;
    for (int c = 0; c < 3; c++) {
        for (int i = s->part->i0; i < s->part->i1; i++) {
            W->d[c][i] = 0.0;
            W->p[c][i] = 0.0;
        }
    }
    s->settled = true;
}

// The group's first body that is not settled (one always is while it
// solves): its flags stand for the group's.
static const step_ctx *lead_body(const group *g) {
    for (int k = 0; k < g->count; k++) {
        if (!g->s[k].settled) {
            return &g->s[k];
        }
    }
    return &g->s[0];
}

// x = base + alpha d on the part's points, kept out of the colliders, and
// the first-order change of G that the move makes, grad G . (x - base)
// (every thread).
static double body_move_along(step_ctx *s, double alpha) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    double *const *gr = iterate_gradient(s);
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double gd = 0.0;
        for (int i = i0; i < i1; i++) {
            double x[3];
            for (int c = 0; c < 3; c++) {
                x[c] = W->xs[c][i] + alpha * W->d[c][i];
            }
            if (is_free(b, i)) {
                implicit_push_out(s, i, x);
            }
            for (int c = 0; c < 3; c++) {
                b->x[c][i] = x[c];
                gd += gr[c][i] * (x[c] - W->xs[c][i]);
            }
        }
        W->sums[ch * SUMS] = gd;
    }
    double t[SUMS];
    implicit_reduce(s, 1, t);
    return t[0];
}

// The same for every body of the group: the sum of the changes.
static void move_body(group *g, int k, void *alpha) {
    g->s[k].t[0] = body_move_along(&g->s[k], *(const double *)alpha);
}

static double move_along(group *g, double alpha) {
    implicit_each_body(g, move_body, &alpha);
    return unsettled_sum(g);
}

// BDF2 (dt the sub-step, h^ = 2 dt / 3):
//     x_{n+1} = xb + h^ v_{n+1},            xb = (4 x_n - x_{n-1}) / 3,
//     v_{n+1} = vb + h^ F(x_{n+1}) / m,     vb = (4 v_n - v_{n-1}) / 3,
// which is G's minimum with h = h^ and y = xb + h^ vb (+ h^2 f_wind / m).
// Its history is the last step's start. A point whose velocity was changed
// since the last step (a bounce, friction, a poke, shape damping) by dv has
// its history moved with it (v_{n-1} + dv, x_{n-1} - dt dv: the change
// taken as a kick before the last step, so that the old velocity does not
// go on in the positions); one that was moved (a reset) takes the history of
// its own velocity, x_{n-1} = x_n - dt v_n and v_{n-1} = v_n. Then x_n, v_n
// become the history.
static void bdf2_targets(step_ctx *s) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    const double dt = s->dt, h = s->h;
    for (int i = s->part->i0; i < s->part->i1; i++) {
        bool moved = false;
        for (int c = 0; c < 3; c++) {
            moved = moved || b->x[c][i] != W->end_x[c][i];
        }
        for (int c = 0; c < 3; c++) {
            const double x = b->x[c][i], v = b->v[c][i];
            const double kick = v - W->end_v[c][i];
            const double xp = moved ? x - dt * v : W->hist_x[c][i] - dt * kick;
            const double vp = moved ? v : W->hist_v[c][i] + kick;
            const double vb = (4.0 * v - vp) / 3.0;
            W->xb[c][i] = (4.0 * x - xp) / 3.0;
            W->y[c][i] = W->xb[c][i] + h * vb + h * h * b->inv_mass[i] * b->f[c][i];
        }
    }
}

void body_shift_history(psb_body *b, int k, const double from[3]) {
    implicit_work *W = b->implicit;
    if (W) {
        for (int c = 0; c < 3; c++) {
            W->hist_x[c][k] += b->x[c][k] - from[c];
            if (W->end_x[c][k] == from[c]) {
                W->end_x[c][k] = b->x[c][k];
            }
        }
    }
}

// Whether the step starts from rest in all that it reads besides the
// positions and the inputs (implicit_work.quiet): every velocity 0 and,
// for BDF2, a history of the same, where its last step left and started
// the points, at rest. Before the step's history is replaced.
static bool starts_at_rest(step_ctx *s) {
    const psb_body *b = s->b;
    const implicit_work *W = s->W;
    const bool bdf2 = s->keep_history;
    if (bdf2 && W->hist_h != s->dt) {
        return false; // no history at this sub-step: the step is backward Euler's
    }
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        int stirred = 0;
        for (int i = i0; i < i1; i++) {
            for (int c = 0; c < 3; c++) {
                const double x = b->x[c][i];
                stirred += b->v[c][i] != 0.0;
                if (bdf2) {
                    stirred += W->hist_x[c][i] != x || W->hist_v[c][i] != 0.0 ||
                               W->end_x[c][i] != x || W->end_v[c][i] != 0.0;
                }
            }
        }
        s->W->sums[ch * SUMS] = stirred;
    }
    double total[SUMS];
    implicit_reduce(s, 1, total);
    return total[0] == 0.0;
}

// Saves x_n and v_n, the springs' start directions, the wind and the
// inertial target y = x_n + h v_n + h^2 f_wind / m.
static void begin_step(step_ctx *s, double t) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    const body_part *part = s->part;
    // The last step's change of velocity, h (v_n - v_{n-1}), for the
    // extrapolated first guess (v0 still holds v_{n-1}).
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            W->d[c][i] = s->dt * (b->v[c][i] - b->v0[c][i]);
            b->x0[c][i] = b->x[c][i];
            b->v0[c][i] = b->v[c][i];
            b->f[c][i] = 0.0;
        }
    }
    team_sync(s);
    // (W->judge and hist_h: the last step's, read after the wait above.)
    s->from_rest = W->judge.valid && starts_at_rest(s);
    for (int c = 0; c < 3; c++) {
        s->origin[c] = b->x0[c][0];
    }
    if (s->keep_history && W->hist_h == s->dt) {
        // BDF2 from the second step at this sub-step on; the first is
        // backward Euler's (a one-step start keeps the second order).
        s->bdf2 = true;
        s->h = 2.0 * s->dt / 3.0;
        s->inv_h2 = 1.0 / (s->h * s->h);
        s->kd_h = b->params.spring_damping / s->h;
    }
    for (int i = part->i0; i < part->i1; i++) {
        for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
            const int j = W->adj_other[slot];
            const double d[3] = {b->x[0][i] - b->x[0][j], b->x[1][i] - b->x[1][j],
                                 b->x[2][i] - b->x[2][j]};
            const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            for (int c = 0; c < 3; c++) {
                W->adj_u0[3 * slot + c] = len > 0.0 ? d[c] / len : 0.0;
            }
        }
    }
    const bool wind = b->params.wind_drag > 0.0 && psb_params_air_acts(&s->w->params) &&
                      (b->tri_count > 0 || s->ring);
    if (s->gas || wind) {
        s->volume_start = s->gas ? implicit_gas_volume(s) : 0.0;
        if (!s->gas) {
            // A cloth's area vectors for the wind.
            for (int i = part->i0; i < part->i1; i++) {
                double g[3];
                implicit_gas_gradient_at(s, i, g);
                for (int c = 0; c < 3; c++) {
                    b->grad[c][i] = g[c];
                }
            }
        }
        if (wind) {
            body_wind_forces(b, s->w, t, part->i0, part->i1);
        }
    }
    if (s->bdf2) {
        bdf2_targets(s);
    } else {
        const double h = s->h;
        for (int c = 0; c < 3; c++) {
            for (int i = part->i0; i < part->i1; i++) {
                W->xb[c][i] = b->x[c][i];
                W->y[c][i] = b->x[c][i] + h * b->v[c][i] + h * h * b->inv_mass[i] * b->f[c][i];
            }
        }
    }
    if (s->keep_history) {
        for (int c = 0; c < 3; c++) {
            for (int i = part->i0; i < part->i1; i++) {
                W->hist_x[c][i] = b->x[c][i];
                W->hist_v[c][i] = b->v[c][i];
            }
        }
    }
    if (s->w->sphere_count > 0) {
        implicit_sphere_planes(s);
    }
}

// Moves the part's free points to first guess `guess`: 0 x_n (saved in
// xs), 1 free flight, 2 the last step's motion carried on (y + d, d from
// begin_step); kept out of the colliders.
static void place_guess(step_ctx *s, int guess) {
    psb_body *b = s->b;
    const implicit_work *W = s->W;
    for (int i = s->part->i0; i < s->part->i1; i++) {
        if (!is_free(b, i)) {
            continue;
        }
        double x[3];
        for (int c = 0; c < 3; c++) {
            x[c] = guess == 0   ? W->xs[c][i]
                   : guess == 1 ? W->y[c][i] - (c == 1 ? s->h * s->h * s->gravity : 0.0)
                                : W->y[c][i] + W->d[c][i];
        }
        implicit_push_out(s, i, x);
        for (int c = 0; c < 3; c++) {
            b->x[c][i] = x[c];
        }
    }
}

// Body k's x into xs, the line search's base.
static void keep_base_body(group *g, int k, void *unused) {
    (void)unused;
    const psb_body *b = g->s[k].b;
    implicit_work *W = g->s[k].W;
    const body_part *part = g->s[k].part;
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            W->xs[c][i] = b->x[c][i];
        }
    }
}

static void place_guess_body(group *g, int k, void *guess) {
    place_guess(&g->s[k], *(const int *)guess);
}

static void place_guesses(group *g, int guess) {
    implicit_each_body(g, place_guess_body, &guess);
}

static void accept_body(group *g, int k, void *unused) {
    (void)unused;
    accept_evaluation(&g->s[k]);
}

// Every body takes part again, at the iterate (evaluated afresh: the
// settled ones' gradients have the others' moves to take in); returns
// whether any was settled.
static bool wake_all(group *g, evaluation *at) {
    bool any = false;
    for (int k = 0; k < g->count; k++) {
        any = any || g->s[k].settled;
        g->s[k].settled = false;
    }
    if (any) {
        *at = implicit_group_evaluate(g, true);
        implicit_each_body(g, accept_body, NULL);
    }
    return any;
}

// At a converged iterate: the links' normals made again where one would
// let its point in (TURN_ROUNDS), every body back in the solve, evaluated
// afresh; returns whether the solve goes on. Not once the solve has used
// half its Newton steps or half its iterations: the fifty balls' group,
// turning late, ran out of them in a third of its steps and its pile
// fell into itself (docs/contact.md).
static bool turn_links(group *g, evaluation *at, int *rounds, int newton, int cg, int budget) {
    if (g->link_count == 0 || *rounds >= TURN_ROUNDS || 2 * newton > NEWTON_MAX ||
        2 * cg > budget || !implicit_turn_links(g, TURN_SLACK)) {
        return false;
    }
    ++*rounds;
    for (int k = 0; k < g->count; k++) {
        g->s[k].settled = false;
    }
    *at = implicit_group_evaluate(g, true);
    implicit_each_body(g, accept_body, NULL);
    return true;
}

// A translation of every body of a group: x += sign shift.
typedef struct translation {
    const double *shift;
    double sign;
} translation;

static void shift_body(group *g, int k, void *move) {
    const translation *m = move;
    psb_body *b = g->s[k].b;
    const body_part *part = g->s[k].part;
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            b->x[c][i] += m->sign * m->shift[c];
        }
    }
}

static void shift_bodies(group *g, const double shift[3], double sign) {
    translation move = {shift, sign};
    implicit_each_body(g, shift_body, &move);
}

// The energy is invariant under a translation of the bodies, but for the
// linear gravity and wind, while no point touches a collider, nothing is
// grabbed and nothing pinned. Then G(x + t) = G(x) + t . net + |t|^2
// sum m / (2 h^2) exactly (the links move with the bodies), and its
// minimum over t, at t = -net / sum (m / h^2), zeroes the residual's sum:
// the step then keeps the momentum (changed by the external forces only)
// to rounding, however loose the tolerance.
static void keep_momentum(group *g, evaluation *at) {
    double stiffness = 0.0; // sum m / h^2, kg/s²
    for (int k = 0; k < g->count; k++) {
        const psb_body *b = g->s[k].b;
        if (b->grab_point >= 0 || b->pin_count > 0) {
            return;
        }
        stiffness += b->params.mass / (g->s[k].h * g->s[k].h);
    }
    if (at->touching || (at->net[0] == 0.0 && at->net[1] == 0.0 && at->net[2] == 0.0)) {
        return;
    }
    // (One body: -h^2 / m, as it always was.)
    const double scale =
        g->count == 1 ? -g->s[0].h * g->s[0].h / g->s[0].b->params.mass : -1.0 / stiffness;
    const double shift[3] = {scale * at->net[0], scale * at->net[1], scale * at->net[2]};
    shift_bodies(g, shift, 1.0);
    const evaluation moved = implicit_group_evaluate(g, false);
    if (moved.touching) {
        shift_bodies(g, shift, -1.0); // it would have moved a point into a collider: undo
    } else {
        *at = moved;
    }
}

// Whether the step's first iterate, x_n, of a body alone that took no
// Newton step in the step just before is still: judged by the
// preconditioner that judged that step (W->judge), one application of it
// to -grad G moving no point by more than the solver's tolerance allows,
// as the conjugate gradients' start judges. It was made for the same
// material, step and pins (any change wakes the body: body_wake), so it
// is the one this step's blocks would make but for how far the points
// moved since (at rest, by next to nothing).
// Nothing is made: the evaluation is of G and its gradient alone (at), and
// the contact normals, and a still body takes no Newton step. Traced on the
// filled bunny at rest: the blocks and the multigrid's levels, made only
// for this test, were two thirds of its step. When it is not still, its
// blocks are made at x_n and the solve goes on as without the test.
static bool still_judged(group *g, evaluation *at) {
    step_ctx *s = &g->s[0];
    const implicit_work *W = s->W;
    const bool same = W->judge.valid && g->count == 1 && g->link_count == 0 &&
                      W->judge.t == s->t_start && W->judge.h == s->h && W->judge.nrt == s->nrt;
    if (!same) {
        return false;
    }
    s->keep_normals = true;
    *at = implicit_group_evaluate(g, false);
    s->keep_normals = false;
    implicit_each_body(g, accept_body, NULL);
    s->use_mg = W->judge.multigrid;
    if (implicit_preconditioned_within(g, 0.5 * s->w->params.solver_tol)) {
        return true;
    }
    s->use_mg = true;
    return false;
}

// The Newton iterations on the group; returns whether they converged: a
// Newton step solved to its inexact tolerance moved no point's velocity by
// more than solver_tol. *change_out: that step's largest velocity change
// (m/s); *residual_out: the RMS force residual per unit mass at the end
// (m/s²).
static bool solve(group *g, int *newton_out, int *cg_out, double *change_out,
                  double *residual_out) {
    step_ctx *first = &g->s[0];
    const psb_params *p = &first->w->params;
    // Start from the lowest in G of x_n, free flight, and the last step's
    // motion carried on (x_n + h v_n + h (v_n - v_{n-1})): every Newton
    // step then lowers G, so the step ends no higher than x_n. A group
    // whose bodies all took no Newton step last time starts from x_n
    // (traced on Spot at rest: x_n was the lowest in each of 200 such
    // steps): three evaluations of G were most of a resting body's step.
    bool rested = true;
    for (int k = 0; k < g->count; k++) {
        rested = rested && g->s[k].W->rested;
    }
    int best = 0;
    implicit_each_body(g, keep_base_body, NULL);
    if (!rested) {
        evaluation lowest = implicit_group_evaluate(g, false);
        for (int guess = 1; guess <= 2; guess++) {
            place_guesses(g, guess);
            const evaluation e = implicit_group_evaluate(g, false);
            if (e.energy < lowest.energy) {
                lowest = e;
                best = guess;
            }
        }
    }
    place_guesses(g, best);
    evaluation at;
    bool converged = rested && still_judged(g, &at);
    if (!converged) {
        at = implicit_group_evaluate(g, true);
        implicit_each_body(g, accept_body, NULL);
    }
    int newton = 0, cg = 0;
    double change = 0.0, first_change = 0.0; // Newton steps' largest velocity change, m/s
    // Trust in the exact blocks (see EXACT_RATIO): wanted for the next
    // evaluation, and held by the one the current direction came from.
    bool exact = false, direction_exact = false, direction_clamped = false;
    // The bodies' caps of iterations added up (each iteration of the
    // group's runs over all its bodies but the settled ones).
    const int budget = p->solver_iterations * g->count;
    // The links' turns so far (turn_links), and the Newton step of the last.
    int rounds = 0, round_start = 0;
    while (!converged && newton < NEWTON_MAX && cg < budget) {
        // Inexact Newton: the first solve loose, the later ones tighter as
        // the steps shrink (a forcing term in Eisenstat and Walker's spirit,
        // on the moves).
        const double eta = newton == round_start ? ETA : fmin(ETA, sqrt(change / first_change));
        const double floor = 0.5 * p->solver_tol;
        const int left = budget - cg;
        bool solved = false;
        int used = implicit_conjugate_gradients(g, eta, floor, left, &solved);
        if (used < 0) {
            for (int k = 0; k < g->count; k++) {
                g->s[k].use_mg = false;
            }
            used = implicit_conjugate_gradients(g, eta, floor, left, &solved);
        }
        cg += used;
        // The blocks this direction came from (the iterate's evaluation).
        direction_clamped = first->clamp && !first->exact;
        direction_exact = first->clamp && first->exact;
        if (used == 0 && solved) {
            if (wake_all(g, &at)) {
                continue; // the settled bodies' turn
            }
            change = 0.0;
            if (turn_links(g, &at, &rounds, newton, cg, budget)) {
                round_start = newton;
                continue;
            }
            converged = true;
            break;
        }
        newton++;
        change = largest_change(g);
        if (newton == round_start + 1) {
            first_change = change;
        }
        // Met negative curvature: from the next evaluation on, clamp
        // (unless a group trusts the exact blocks). The first move is at
        // most LONGEST_MOVE of each body's size.
        const bool negative = lead_body(g)->negative;
        double alpha = 1.0;
        for (int k = 0; k < g->count; k++) {
            step_ctx *s = &g->s[k];
            s->clamp = s->clamp || negative;
            const double cap = LONGEST_MOVE * s->b->rest_size;
            alpha = s->longest > cap && !s->settled ? fmin(alpha, cap / s->longest) : alpha;
        }
        implicit_each_body(g, keep_base_body, NULL);
        bool accepted = false;
        double next = alpha;
        for (int tries = 0; tries < BACKTRACK_MAX; tries++) {
            alpha = next;
            next = 0.5 * alpha;
            const double slope = move_along(g, alpha);
            if (!(slope < 0.0)) {
                // Uphill where the colliders turned the move aside: a
                // shorter move reaches fewer of them.
                continue;
            }
            for (int k = 0; k < g->count; k++) {
                g->s[k].exact = exact;
            }
            // The first try is evaluated with the blocks the next Newton
            // step needs (it is taken most of the time); a shorter one for
            // G alone, and again with its blocks once it is taken.
            const bool blocks = tries == 0;
            evaluation trial = implicit_group_evaluate(g, blocks);
            // Near the solution the decrease falls below G's rounding (G is a
            // sum of energies of order J; the decrease, of order residual^2
            // m h^2): there a step that lowers the residual is taken.
            const double noise = 1e-13 * (fabs(at.energy) + fabs(trial.energy) + 1.0);
            const bool in_noise = -slope < noise && trial.energy <= at.energy + noise;
            if (trial.energy <= at.energy + ARMIJO * slope ||
                (in_noise && trial.residual < at.residual)) {
                if (direction_exact) {
                    exact = exact && alpha == 1.0;
                } else if (direction_clamped && alpha == 1.0 && !negative && !in_noise &&
                           trial.energy - at.energy < EXACT_RATIO * 0.5 * slope) {
                    // The decrease beyond the model's, grad G . d / 2 for a
                    // full step (d^T H d = -grad G . d: conjugate gradients
                    // from 0 that met no negative curvature), slope = grad G . d.
                    exact = true;
                }
                if (!blocks) {
                    trial = implicit_group_evaluate(g, true);
                }
                at = trial;
                implicit_each_body(g, accept_body, NULL);
                accepted = true;
                converged = solved && change <= p->solver_tol;
                break;
            }
            // The next try at the least of the parabola through G's value
            // here, its value at the base and its slope there, within a
            // tenth and a half of this move.
            const double curve = trial.energy - at.energy - slope;
            if (curve > 0.0) {
                next = fmin(0.5, fmax(BACKTRACK_LEAST, -0.5 * slope / curve)) * alpha;
            }
        }
        if (accepted && g->count > 1) {
            if (converged && wake_all(g, &at)) {
                converged = false; // the settled bodies' turn
            } else if (converged && turn_links(g, &at, &rounds, newton, cg, budget)) {
                converged = false;
                round_start = newton;
            } else if (solved && !converged && !first->ring) {
                // (Rings touch rings only, and a rings' group does not
                // settle: it left more ring points inside others, for a
                // solve that is a few per cent of the pile's.)
                double below = SETTLE * p->solver_tol;
                implicit_each_body(g, settle_body, &below);
            }
        }
        if (!accepted) {
            // No decrease to be had: back to the last iterate. Try again
            // with compressed springs clamped (H positive definite), then
            // with the point preconditioner, whose first direction descends
            // whatever H is; then stop.
            move_along(g, 0.0);
            bool multigrid = false;
            for (int k = 0; k < g->count; k++) {
                multigrid = multigrid || (g->s[k].W->mg && g->s[k].use_mg);
            }
            if (!first->clamp || direction_exact || multigrid) {
                const bool was_clamped = first->clamp && !direction_exact;
                exact = false;
                for (int k = 0; k < g->count; k++) {
                    if (was_clamped) {
                        g->s[k].use_mg = false;
                    }
                    g->s[k].clamp = true;
                    g->s[k].exact = false;
                }
                at = implicit_group_evaluate(g, true);
                implicit_each_body(g, accept_body, NULL);
                continue;
            }
            implicit_group_evaluate(g, false);
            break;
        }
    }
    wake_all(g, &at);
    keep_momentum(g, &at);
    *newton_out = newton;
    *cg_out = cg;
    *change_out = change;
    *residual_out = at.residual;
    return converged;
}

// A body's sub-step h from world time t, up to its solve: the context
// (backward Euler's h until begin_step finds BDF2's history) and the
// step's start. A ring `linked` to another steps with backward Euler under
// BDF2 too, and keeps no history while it is: its links start from the
// force they last pushed with, and that memory with BDF2's kept the
// pile's stack of rings moving for good (docs/contact.md, "Session 41").
static step_ctx begin_body(psb_body *b, const psb_world *w, const body_part *part, double t,
                           double h, bool linked) {
    const psb_params *p = &w->params;
    step_ctx s = {
        .b = b,
        .w = w,
        .part = part,
        .W = b->implicit,
        .t_start = t,
        .dt = h,
        .h = h,
        .inv_h2 = 1.0 / (h * h),
        .keep_history = p->integrator == PSB_BDF2 && !(linked && b->kind == PSB_RING),
        .gravity = body_gravity(b, p, t + h),
        .nrt = body_gas_nrt(b, t + h),
        .kd_h = b->params.spring_damping / h,
        .gas = b->kind != PSB_CLOTH,
        .ring = b->kind == PSB_RING,
        .use_mg = true,
    };
    const int grabbed = b->grab_point >= 0 ? b->rank[b->grab_point] : -1;
    if (grabbed >= 0) {
        s.grab_c = 2.0 * sqrt(b->grab_k * b->mass[grabbed]);
    }
    begin_step(&s, t);
    return s;
}

// A body's sub-step after its solve: v = (x - xb) / h^, then the
// colliders' restitution and friction on the points the penalty left a
// little inside, the pins, shape damping.
static void end_body(step_ctx *s) {
    psb_body *b = s->b;
    const body_part *part = s->part;
    const double h = s->dt;
    const bool bdf2 = s->keep_history;
    implicit_work *W = s->W;
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            b->v[c][i] = (b->x[c][i] - W->xb[c][i]) / s->h;
            if (bdf2) {
                W->end_v[c][i] = b->v[c][i];
            }
        }
    }
    if (part->thread == 0) {
        // Read by the next step's begin_step only, after its first wait.
        W->hist_h = bdf2 ? h : 0.0;
    }
    body_collide_touching(b, s->w, part->i0, part->i1, h);
    implicit_sphere_response(s);
    body_hold_pins(b, part->i0, part->i1);
    if (bdf2) {
        // Where the step leaves the points, the contacts' last push out of
        // a rounding included: only a later move is one (bdf2_targets).
        for (int c = 0; c < 3; c++) {
            for (int i = part->i0; i < part->i1; i++) {
                W->end_x[c][i] = b->x[c][i];
            }
        }
    }
    body_shape_damp(b, part, h);
}

// What the preconditioner was made for (implicit_work.judge), kept when
// it found a body alone still (valid).
static void judge_for_next(const group *g, const step_ctx *s, bool still, double residual) {
    implicit_work *W = s->W;
    W->judge.valid = still && g->count == 1 && g->link_count == 0;
    W->judge.multigrid = s->use_mg && W->mg != NULL;
    W->judge.t = s->t_start + s->dt;
    W->judge.dt = s->dt;
    W->judge.h = s->h;
    W->judge.nrt = s->nrt;
    W->judge.gravity = s->gravity;
    W->judge.force_residual = residual;
    W->quiet = W->judge.valid && s->from_rest;
}

// Solves the group and files its work in its first body's report (the
// gas's state in each body's).
static void solve_and_report(group *g) {
    int newton = 0, cg = 0;
    double change = 0.0, residual = 0.0;
    const bool converged = solve(g, &newton, &cg, &change, &residual);
    for (int k = 0; k < g->count; k++) {
        const step_ctx *s = &g->s[k];
        psb_body *b = s->b;
        if (s->part->thread != 0) {
            continue;
        }
        b->volume = s->volume;
        b->nrt = s->nrt;
        b->pressure = s->pressure;
        s->W->rested = newton == 0;
        judge_for_next(g, s, converged && newton == 0, residual);
        if (k == 0) {
            b->solver.newton += newton;
            b->solver.iterations += cg;
        }
        b->solver.residual = change;
        b->solver.force_residual = residual;
        b->solver.converged = b->solver.converged && converged;
    }
}

// Whether gusts of wind blow on b (they change with time).
static bool gusts_on(const psb_body *b, const psb_world *w) {
    return b->params.wind_drag > 0.0 && psb_params_air_acts(&w->params) &&
           w->params.wind_turbulence > 0.0;
}

// Whether body b, alone, sleeps through the sub-step h from t: its last
// sub-step was still and started from rest (W->quiet), nothing has woken
// it since (body_wake), this one follows that one with the same gravity
// and gas and no gusts of wind (they change with time; a steady wind's
// force and still air's depend only on where the points are and how they
// move), and every point is where that step started and left it, at
// rest. The step would then be that step again, bit for bit: x_n kept,
// v = 0, the same report. A BDF2 body rarely gets here: its velocity is
// a difference over two steps, so a still step leaves it moving by the
// last step's motion.
static bool asleep(psb_body *b, const psb_world *w, const body_part *part, double t, double h) {
    implicit_work *W = b->implicit;
    if (!W->quiet || gusts_on(b, w) || W->judge.t != t || W->judge.dt != h ||
        W->judge.gravity != body_gravity(b, &w->params, t + h) ||
        W->judge.nrt != body_gas_nrt(b, t + h)) {
        return false;
    }
    const step_ctx s = {.b = b, .w = w, .part = part, .W = W};
    for (int ch = part->c0; ch < part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        int moved = 0;
        for (int c = 0; c < 3; c++) {
            for (int i = i0; i < i1; i++) {
                moved += b->x[c][i] != b->x0[c][i] || b->v[c][i] != 0.0;
            }
        }
        W->sums[ch * SUMS] = moved;
    }
    double total[SUMS];
    implicit_reduce(&s, 1, total);
    return total[0] == 0.0;
}

// The sub-step slept through, when b sleeps (asleep): its report filed.
static bool sleep_through(psb_body *b, const psb_world *w, const body_part *part, double t,
                          double h) {
    if (!asleep(b, w, part, t, h)) {
        return false;
    }
    if (part->thread == 0) { // (every thread has read W in asleep's last wait)
        b->implicit->judge.t = t + h;
        b->solver.asleep++;
        b->solver.residual = 0.0;
        b->solver.force_residual = b->implicit->judge.force_residual;
    }
    return true;
}

bool body_implicit_sleep(psb_body *b, const psb_world *w, double t, double h) {
    const body_part whole = body_whole(b);
    return psb_integrator_is_implicit(w->params.integrator) && b->implicit &&
           sleep_through(b, w, &whole, t, h);
}

void body_implicit_step(psb_body *b, const psb_world *w, const body_part *part, double t,
                        double h) {
    psb_profile *prof = part->thread == 0 ? b->profile : NULL;
    const double start = prof ? profile_now() : 0.0;
    if (sleep_through(b, w, part, t, h)) {
        if (prof) {
            prof->integrate += profile_now() - start;
        }
        return;
    }
    step_ctx s = begin_body(b, w, part, t, h, false);
    group g = {.s = &s, .count = 1, .mass = b->params.mass, .threads = 1};
    solve_and_report(&g);
    end_body(&s);
    if (prof) {
        prof->integrate += profile_now() - start;
    }
}

// How long every point of a group's bodies must have kept within
// solver_tol times this of where it was before the group dozes, s: a mean
// speed below the tolerance over that time, which a point jittering in
// place (a period of two steps, seen in the pile) also keeps (README, "A
// body at rest sleeps").
#define DOZE_AFTER 0.5

void body_implicit_note_still(psb_body *b, const psb_world *w, double t, double h) {
    implicit_work *W = b->implicit;
    if (!W) {
        return;
    }
    const double gravity = body_gravity(b, &w->params, t), nrt = body_gas_nrt(b, t);
    const double reach = w->params.solver_tol * DOZE_AFTER;
    bool within = W->still_for >= 0.0 && gravity == W->still_gravity && nrt == W->still_nrt &&
                  !gusts_on(b, w);
    for (int i = 0; i < b->n && within; i++) {
        const double dx = b->x[0][i] - W->still_at[0][i], dy = b->x[1][i] - W->still_at[1][i],
                     dz = b->x[2][i] - W->still_at[2][i];
        within = dx * dx + dy * dy + dz * dz <= reach * reach;
    }
    if (within) {
        W->still_for += h;
        return;
    }
    for (int c = 0; c < 3; c++) { // a new window starts here
        memcpy(W->still_at[c], b->x[c], (size_t)b->n * sizeof(double));
    }
    W->still_for = 0.0;
    W->still_gravity = gravity;
    W->still_nrt = nrt;
}

bool implicit_group_dozes(const psb_world *w, const int *bodies, int count, double t, double h) {
    if (!psb_integrator_is_implicit(w->params.integrator)) {
        return false;
    }
    for (int k = 0; k < count; k++) {
        const psb_body *b = w->bodies[bodies[k]];
        const implicit_work *W = b->implicit;
        if (!W || W->still_for < DOZE_AFTER - 0.5 * h || b->grab_point >= 0 || gusts_on(b, w) ||
            body_gravity(b, &w->params, t + h) != W->still_gravity ||
            body_gas_nrt(b, t + h) != W->still_nrt) {
            return false;
        }
    }
    for (int k = 0; k < count; k++) {
        psb_body *b = w->bodies[bodies[k]];
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < b->n; i++) {
                b->x0[c][i] = b->x[c][i];
                b->v0[c][i] = b->v[c][i] = 0.0;
            }
        }
        b->solver.asleep++;
        b->solver.residual = 0.0;
    }
    return true;
}

// Where a group's sub-step starts: its bodies, their scratch slots, t and h.
typedef struct group_start {
    const psb_world *w;
    const int *bodies;
    int slot;
    double t, h;
} group_start;

static void begin_group_body(group *g, int k, void *at) {
    const group_start *a = at;
    psb_body *b = a->w->bodies[a->bodies[k]];
    a->w->group_part[a->slot + k] = body_whole(b);
    g->s[k] = begin_body(b, a->w, &a->w->group_part[a->slot + k], a->t, a->h, g->link_count > 0);
    g->s[k].linked = g->link_count > 0;
}

static void end_group_body(group *g, int k, void *unused) {
    (void)unused;
    end_body(&g->s[k]);
}

void implicit_group_step(const psb_world *w, const int *bodies, int count, int slot,
                         const int *link, int link_count, double t, double h, int threads) {
    psb_profile *prof = w->bodies[bodies[0]]->profile;
    const double start = prof ? profile_now() : 0.0;
    group all = {.s = w->group_ctx + slot,
                 .count = count,
                 .links = w->links,
                 .link = link,
                 .link_count = link_count,
                 .acting = w->link_acting,
                 .threads = threads};
    group *g = &all;
    group_start start_at = {w, bodies, slot, t, h};
    for (int k = 0; k < count; k++) {
        g->s[k].settled = false; // (a slot's last group's, or never set)
    }
    implicit_each_body(g, begin_group_body, &start_at);
    for (int k = 0; k < count; k++) {
        g->mass += w->bodies[bodies[k]]->params.mass;
    }
    solve_and_report(g);
    implicit_each_body(g, end_group_body, NULL);
    if (prof) {
        prof->integrate += profile_now() - start;
    }
}

void implicit_team_step(const psb_world *w, int body, const body_part *part, const int *link,
                        int link_count, double t, double h) {
    psb_body *b = w->bodies[body];
    psb_profile *prof = part->thread == 0 ? b->profile : NULL;
    const double start = prof ? profile_now() : 0.0;
    step_ctx s = begin_body(b, w, part, t, h, link_count > 0);
    s.linked = true;
    // (The group of one implicit_group_step would make, its mass added to 0.)
    group g = {.s = &s,
               .count = 1,
               .links = w->links,
               .link = link,
               .link_count = link_count,
               .acting = w->link_acting,
               .mass = 0.0 + b->params.mass,
               .threads = 1};
    solve_and_report(&g);
    end_body(&s);
    if (prof) {
        prof->integrate += profile_now() - start;
    }
}
