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
// term is clamped at 0 for the rest of the sub-step. The preconditioner is
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
// Threads: each thread of the team works on its part's points; every sum
// over points is made chunk by chunk and the chunks added in order, so all
// threads take the same decisions and any team gives the same bits.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "implicit_mg.h"
#include "internal.h"

enum {
    SUMS = 8,           // partial sums a chunk keeps
    MAX_SLOT = SUMS - 1, // the one of them that reduce() combines by max
    NEWTON_MAX = 60,    // Newton iterations a sub-step takes at most
    BACKTRACK_MAX = 16, // halvings of the line search's step at most
};

// Contact penalty stiffness in units of the point's m / h^2: a point that
// would end the step a distance s inside a collider ends it s / (1 + this)
// inside instead, and is then moved out.
#define CONTACT_STIFFNESS 1e4
// How close to a collider's surface (relative to 1 + |its offset|, m) a
// point counts as on it: the line search leaves points exactly there, and a
// sphere's plane, renewed each step, sits a rounding's width off them.
#define TOUCH 1e-9
// Armijo's sufficient decrease: G(x + a d) <= G(x) + ARMIJO a grad G . d.
#define ARMIJO 1e-4
// Inexact Newton: the conjugate gradients reduce the error's energy by
// ETA^2 at most.
#define ETA 0.25

typedef struct implicit_work {
    // Springs per point, both ends (CSR): slots adj_start[i] .. adj_start[i + 1] - 1.
    int *adj_start;
    int *adj_other;   // the other end, internal index
    double *adj_rest; // rest length, m
    double *adj_u0;   // 3 per slot: direction x_i - x_j at the step's start
    double *adj_b;    // 9 per slot: H's block (i, j), springs and gas, row-major, N/m
    // Triangles per point (shells and cloths): for each, its other corners
    // j, k so that (i, j, k) is the triangle's own order.
    int *tri_start;
    int *tri_jk;
    int *tri_slot;    // 2 per: the slots of the springs i-j and i-k (-1: none)
    mg_hierarchy *mg; // the multigrid preconditioner (NULL: point by point)
    // Rings: each point's neighbours along the ring (internal).
    int *ring_next, *ring_prev;
    double *y[3];       // inertial target, m
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
    double *diag; // 6 per point: the Hessian's own block without the gas, N/m
    double *dinv; // 6 per point: its inverse
    double *sums; // SUMS per chunk
} implicit_work;

// What one thread knows during a sub-step; every thread of the team holds
// the same values.
typedef struct step_ctx {
    psb_body *b;
    const psb_world *w;
    const body_part *part;
    implicit_work *W;
    double h, inv_h2;
    double gravity; // m/s², along -y
    double nrt;     // J
    double kd_h;    // kd / h, kg/s²
    bool gas;       // a ring or shell: it holds gas
    bool ring;
    double origin[3]; // for the volume's sum, m
    double volume_start;
    // The gas at the current iterate.
    double volume, pressure, curvature; // m³, Pa, nRT / V² (0 below the volume floor)
    double sigma;                       // Sherman-Morrison: c / (1 + c g . D^-1 g)
    double centre[3], rotation[9];      // the shape fit at the current iterate
    double grab_c;                      // the grab's damping, N s/m
    int base;      // W->gbuf[base] is the gradient at the iterate; evaluate fills the other
    bool use_mg;   // precondition with the multigrid (until it fails in this sub-step)
    bool clamp;    // compressed springs' lateral stiffness held at 0 (after a failure)
    bool negative; // the conjugate gradients met negative curvature
    bool touching; // the last evaluation found points on or in a collider
} step_ctx;

// The gradient of G at the iterate, N.
static double *const *iterate_gradient(const step_ctx *s) {
    return s->W->gbuf[s->base];
}

// The last evaluation becomes the iterate's.
static void accept_evaluation(step_ctx *s) {
    s->base = 1 - s->base;
}

static void free3(double *a[3]) {
    for (int c = 0; c < 3; c++) {
        free(a[c]);
    }
}

void implicit_work_destroy(implicit_work *W) {
    if (!W) {
        return;
    }
    free(W->adj_start);
    free(W->adj_other);
    free(W->adj_rest);
    free(W->adj_u0);
    free(W->adj_b);
    free(W->tri_slot);
    mg_destroy(W->mg);
    free(W->tri_start);
    free(W->tri_jk);
    free(W->ring_next);
    free(W->ring_prev);
    free3(W->y);
    free3(W->gbuf[0]);
    free3(W->gbuf[1]);
    free3(W->d);
    free3(W->r);
    free3(W->z);
    free3(W->p);
    free3(W->q);
    free3(W->xs);
    free3(W->wv);
    free3(W->cn);
    free3(W->plane_n);
    free(W->plane_d);
    free(W->diag);
    free(W->dinv);
    free(W->sums);
    free(W);
}

static bool alloc3(double *a[3], size_t n) {
    for (int c = 0; c < 3; c++) {
        a[c] = calloc(n, sizeof(double));
        if (!a[c]) {
            return false;
        }
    }
    return true;
}

// The slot of point i's spring to j, or -1.
static int find_slot(const implicit_work *W, int i, int j) {
    for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
        if (W->adj_other[slot] == j) {
            return slot;
        }
    }
    return -1;
}

// The topology the solver walks, in internal order.
static bool build_topology(const psb_body *b, implicit_work *W) {
    const int n = b->n;
    W->adj_start = calloc((size_t)n + 1, sizeof(int));
    if (!W->adj_start) {
        return false;
    }
    for (int s = 0; s < b->spring_count; s++) {
        W->adj_start[b->rank[b->springs[2 * s]] + 1]++;
        W->adj_start[b->rank[b->springs[2 * s + 1]] + 1]++;
    }
    for (int i = 0; i < n; i++) {
        W->adj_start[i + 1] += W->adj_start[i];
    }
    const size_t slots = (size_t)W->adj_start[n];
    int *fill = calloc((size_t)n, sizeof(int));
    W->adj_other = malloc((slots ? slots : 1) * sizeof(int));
    W->adj_rest = malloc((slots ? slots : 1) * sizeof(double));
    W->adj_u0 = malloc((slots ? slots : 1) * 3 * sizeof(double));
    W->adj_b = malloc((slots ? slots : 1) * 9 * sizeof(double));
    if (!fill || !W->adj_other || !W->adj_rest || !W->adj_u0 || !W->adj_b) {
        free(fill);
        return false;
    }
    // Slots in spring order at each point, so the layout does not depend
    // on anything but the body.
    for (int s = 0; s < b->spring_count; s++) {
        const int i = b->rank[b->springs[2 * s]], j = b->rank[b->springs[2 * s + 1]];
        const int si = W->adj_start[i] + fill[i]++, sj = W->adj_start[j] + fill[j]++;
        W->adj_other[si] = j;
        W->adj_other[sj] = i;
        W->adj_rest[si] = W->adj_rest[sj] = b->rest_length[s];
    }
    free(fill);
    if (b->kind == PSB_RING) {
        W->ring_next = malloc((size_t)n * sizeof(int));
        W->ring_prev = malloc((size_t)n * sizeof(int));
        if (!W->ring_next || !W->ring_prev) {
            return false;
        }
        for (int pub = 0; pub < n; pub++) {
            const int i = b->rank[pub];
            W->ring_next[i] = b->rank[pub + 1 == n ? 0 : pub + 1];
            W->ring_prev[i] = b->rank[pub == 0 ? n - 1 : pub - 1];
        }
        return true;
    }
    W->tri_start = calloc((size_t)n + 1, sizeof(int));
    W->tri_jk = malloc(((size_t)6 * (size_t)b->tri_count + 1) * sizeof(int));
    W->tri_slot = malloc(((size_t)6 * (size_t)b->tri_count + 1) * sizeof(int));
    int *at = calloc((size_t)n, sizeof(int));
    if (!W->tri_start || !W->tri_jk || !W->tri_slot || !at) {
        free(at);
        return false;
    }
    for (int t = 0; t < 3 * b->tri_count; t++) {
        W->tri_start[b->rank[b->tris[t]] + 1]++;
    }
    for (int i = 0; i < n; i++) {
        W->tri_start[i + 1] += W->tri_start[i];
    }
    for (int t = 0; t < b->tri_count; t++) {
        for (int corner = 0; corner < 3; corner++) {
            const int i = b->rank[b->tris[3 * t + corner]];
            const int j = b->rank[b->tris[3 * t + (corner + 1) % 3]];
            const int k = b->rank[b->tris[3 * t + (corner + 2) % 3]];
            const int slot = W->tri_start[i] + at[i]++;
            W->tri_jk[2 * slot] = j;
            W->tri_jk[2 * slot + 1] = k;
            W->tri_slot[2 * slot] = find_slot(W, i, j);
            W->tri_slot[2 * slot + 1] = find_slot(W, i, k);
        }
    }
    free(at);
    return true;
}

psb_status body_prepare_implicit(psb_body *b, psb_error *err) {
    if (b->implicit) {
        return PSB_OK;
    }
    implicit_work *W = calloc(1, sizeof *W);
    const size_t n = (size_t)b->n_pad;
    bool ok = W && build_topology(b, W) && alloc3(W->y, n) && alloc3(W->gbuf[0], n) &&
              alloc3(W->gbuf[1], n) && alloc3(W->d, n) && alloc3(W->r, n) && alloc3(W->z, n) &&
              alloc3(W->p, n) && alloc3(W->q, n) && alloc3(W->xs, n) && alloc3(W->wv, n) &&
              alloc3(W->cn, n) && alloc3(W->plane_n, n);
    if (ok) {
        W->diag = calloc(6 * n, sizeof(double));
        W->dinv = calloc(6 * n, sizeof(double));
        W->sums = calloc((size_t)b->chunk_count * SUMS, sizeof(double));
        W->plane_d = calloc(n, sizeof(double));
        ok = W->diag && W->dinv && W->sums && W->plane_d;
    }
    if (ok) {
        bool no_memory = false;
        W->mg = mg_create(b->n, W->adj_start, W->adj_other, &no_memory);
        ok = !no_memory;
    }
    if (!ok) {
        implicit_work_destroy(W);
        return psb_error_set(err, PSB_ERR_NOMEM,
                             "out of memory for the implicit solver of a body of %d points", b->n);
    }
    b->implicit = W;
    return PSB_OK;
}

// ---------------------------------------------------------------------------
// Small 3x3 algebra. A symmetric block is kept as (xx xy xz yy yz zz).

static void sym_mul(const double *S, const double v[3], double out[3]) {
    out[0] = S[0] * v[0] + S[1] * v[1] + S[2] * v[2];
    out[1] = S[1] * v[0] + S[3] * v[1] + S[4] * v[2];
    out[2] = S[2] * v[0] + S[4] * v[1] + S[5] * v[2];
}

// S += a u u^T + b (I - u u^T), for a unit u.
static void sym_add_spring(double *S, const double u[3], double a, double b) {
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
static void sym_inverse(const double *S, double *out) {
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

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void load(double *const a[3], int i, double out[3]) {
    out[0] = a[0][i];
    out[1] = a[1][i];
    out[2] = a[2][i];
}

// v -= (v . n) n: removes the part along a contact constraint's normal n
// (nothing when n is 0).
static void filter(const double n[3], double v[3]) {
    const double vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    v[0] -= vn * n[0];
    v[1] -= vn * n[1];
    v[2] -= vn * n[2];
}

// ---------------------------------------------------------------------------
// Sums over points, deterministic for any team.

// Waits for the team (team of one: nothing).
static void team_sync(const step_ctx *s) {
    if (s->part->team > 1) {
        team_wait(s->part->bar, s->part->team);
    }
}

// The points of chunk ch: [*i0, *i1).
static void chunk_points(const psb_body *b, int ch, int *i0, int *i1) {
    *i0 = ch * CHUNK_POINTS;
    *i1 = (ch + 1) * CHUNK_POINTS < b->n ? (ch + 1) * CHUNK_POINTS : b->n;
}

// After every thread has filed its chunks' partial sums 0..count-1: their
// totals, chunk by chunk in order. Waits before (the sums are in) and after
// (nobody overwrites them while another thread still reads).
static void reduce(const step_ctx *s, int count, double out[SUMS]) {
    team_sync(s);
    const double *sums = s->W->sums;
    for (int k = 0; k < count; k++) {
        out[k] = 0.0;
    }
    out[MAX_SLOT] = 0.0;
    for (int ch = 0; ch < s->b->chunk_count; ch++) {
        for (int k = 0; k < count; k++) {
            out[k] += sums[ch * SUMS + k];
        }
        out[MAX_SLOT] = fmax(out[MAX_SLOT], sums[ch * SUMS + MAX_SLOT]);
    }
    team_sync(s);
}

static bool is_free(const psb_body *b, int i) {
    return b->inv_mass[i] > 0.0;
}

// ---------------------------------------------------------------------------
// The gas: the volume gradient g = dV/dx into b->grad, and the volume.

// g_i for a shell or cloth: 1/6 sum over its triangles (i, j, k) of
// (x_j - x_i) x (x_k - x_i) (a third of their area vectors); for a ring,
// 1/2 (x_next - x_prev) x z^.
static void gas_gradient_at(const step_ctx *s, int i, double g[3]) {
    const psb_body *b = s->b;
    const implicit_work *W = s->W;
    double *const *x = b->x;
    g[0] = g[1] = g[2] = 0.0;
    if (s->ring) {
        const int nx = W->ring_next[i], pv = W->ring_prev[i];
        g[0] = 0.5 * (x[1][nx] - x[1][pv]);
        g[1] = 0.5 * (x[0][pv] - x[0][nx]);
        return;
    }
    const double xi[3] = {x[0][i], x[1][i], x[2][i]};
    for (int t = W->tri_start[i]; t < W->tri_start[i + 1]; t++) {
        const int j = W->tri_jk[2 * t], k = W->tri_jk[2 * t + 1];
        const double a[3] = {x[0][j] - xi[0], x[1][j] - xi[1], x[2][j] - xi[2]};
        const double c[3] = {x[0][k] - xi[0], x[1][k] - xi[1], x[2][k] - xi[2]};
        double ac[3];
        cross(a, c, ac);
        g[0] += ac[0];
        g[1] += ac[1];
        g[2] += ac[2];
    }
    g[0] /= 6.0;
    g[1] /= 6.0;
    g[2] /= 6.0;
}

// Fills b->grad for the part's points and returns the volume: V = 1/3
// sum (x_i - o) . g_i for a shell (V is homogeneous of degree 3), 1/2 for a
// ring (degree 2).
static double gas_volume(step_ctx *s) {
    psb_body *b = s->b;
    team_sync(s); // every point is where it is evaluated
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double sum = 0.0;
        for (int i = i0; i < i1; i++) {
            double g[3];
            gas_gradient_at(s, i, g);
            for (int c = 0; c < 3; c++) {
                b->grad[c][i] = g[c];
                sum += (b->x[c][i] - s->origin[c]) * g[c];
            }
        }
        s->W->sums[ch * SUMS] = sum;
    }
    double total[SUMS];
    reduce(s, 1, total);
    return total[0] / (s->ring ? 2.0 : 3.0);
}

// The gas at volume V: pressure, curvature nRT / V^2 and energy
// -nRT ln(V / V_start) + P0 V (the constant dropped), held linear below the
// volume floor as the force is (body_pressure).
static double gas_at(step_ctx *s, double volume) {
    const psb_body *b = s->b;
    const double floor_volume = 1e-3 * b->rest_volume;
    const double p0 = b->params.outside_pressure;
    s->volume = volume;
    s->pressure = body_pressure(b, s->nrt, volume);
    const double ref = fmax(s->volume_start, floor_volume);
    if (volume > floor_volume) {
        s->curvature = s->nrt / (volume * volume);
        return -s->nrt * log(volume / ref) + p0 * volume;
    }
    s->curvature = 0.0;
    return -s->nrt * (log(floor_volume / ref) + (volume - floor_volume) / floor_volume) +
           p0 * volume;
}

// ---------------------------------------------------------------------------
// Contacts with the world, as a penalty.

// One collider's penalty at a point of depth `depth` along the collider's
// outward normal n: 1/2 kc depth^2 into E and grad, kc n n^T into H. A point
// that lies on the surface (depth 0 within rounding: the step moved it
// there) gets the block alone while the other forces push it in, so that the
// Newton step stops it at the surface instead of carrying it through and
// leaving the line search to pull it back.
//
// The line search keeps its points out of the colliders (world_push_out),
// so a point pressed against one sits on its surface and the surface's
// reaction takes the part of the other forces that pushes it in: that part
// is left out of the gradient the solver works with (rg), and the
// surface's normal becomes the point's constraint cn (one per point: a
// second surface pressed at once is left to its penalty), along which the
// conjugate gradients do not move it (Baraff and Witkin's filter).
static double penalty(double kc, double depth, double slack, const double n[3], double grad[3],
                      double rg[3], double *H, double cn[3], int *touches) {
    double energy = 0.0;
    if (depth >= -slack) {
        ++*touches;
    }
    if (depth > 0.0) {
        for (int c = 0; c < 3; c++) {
            grad[c] -= kc * depth * n[c];
            rg[c] -= kc * depth * n[c];
        }
        energy = 0.5 * kc * depth * depth;
    }
    const double push = rg[0] * n[0] + rg[1] * n[1] + rg[2] * n[2];
    if (depth >= -slack && (depth > 0.0 || push > 0.0)) {
        sym_add_spring(H, n, kc, 0.0);
        if (depth <= slack && push > 0.0 && cn[0] == 0.0 && cn[1] == 0.0 && cn[2] == 0.0) {
            for (int c = 0; c < 3; c++) {
                rg[c] -= push * n[c];
                cn[c] = n[c];
            }
        }
    }
    return energy;
}

// The penalties of the floor, the walls and point i's sphere plane for a
// point at x, added to grad (which holds the other forces' gradient) and
// H; rg starts as a copy of grad and loses the reactions of the surfaces
// it presses on. Counts the surfaces it is in or on into *touches.
static double contact_penalty(const step_ctx *s, int i, double kc, const double x[3],
                              double grad[3], double rg[3], double *H, double cn[3], int *touches) {
    const psb_params *p = &s->w->params;
    double energy = 0.0;
    if (p->floor) {
        const double up[3] = {0.0, 1.0, 0.0};
        energy += penalty(kc, p->floor_y - x[1], TOUCH * (1.0 + fabs(p->floor_y)), up, grad, rg, H,
                          cn, touches);
    }
    if (p->walls) {
        const double lo[3] = {p->walls_min.x, p->walls_min.y, p->walls_min.z};
        const double hi[3] = {p->walls_max.x, p->walls_max.y, p->walls_max.z};
        for (int a = 0; a < (s->ring ? 2 : 3); a++) {
            double n[3] = {0.0, 0.0, 0.0};
            n[a] = 1.0;
            energy +=
                penalty(kc, lo[a] - x[a], TOUCH * (1.0 + fabs(lo[a])), n, grad, rg, H, cn, touches);
            n[a] = -1.0;
            energy +=
                penalty(kc, x[a] - hi[a], TOUCH * (1.0 + fabs(hi[a])), n, grad, rg, H, cn, touches);
        }
    }
    double n[3];
    load(s->W->plane_n, i, n);
    if (n[0] != 0.0 || n[1] != 0.0 || n[2] != 0.0) {
        const double d = s->W->plane_d[i];
        energy += penalty(kc, d - (n[0] * x[0] + n[1] * x[1] + n[2] * x[2]),
                          TOUCH * (1.0 + fabs(d)), n, grad, rg, H, cn, touches);
    }
    return energy;
}

// Moves x, a trial position of point i, out of the floor, the walls and
// its sphere plane (along their normals: each is a half-space).
static void push_out(const step_ctx *s, int i, double x[3]) {
    const psb_params *p = &s->w->params;
    if (p->floor && x[1] < p->floor_y) {
        x[1] = p->floor_y;
    }
    if (p->walls) {
        const double lo[3] = {p->walls_min.x, p->walls_min.y, p->walls_min.z};
        const double hi[3] = {p->walls_max.x, p->walls_max.y, p->walls_max.z};
        for (int a = 0; a < (s->ring ? 2 : 3); a++) {
            x[a] = x[a] < lo[a] ? lo[a] : x[a] > hi[a] ? hi[a] : x[a];
        }
    }
    const implicit_work *W = s->W;
    const double n[3] = {W->plane_n[0][i], W->plane_n[1][i], W->plane_n[2][i]};
    const double in = W->plane_d[i] - (n[0] * x[0] + n[1] * x[1] + n[2] * x[2]);
    if (in > 0.0) {
        for (int c = 0; c < 3; c++) {
            x[c] += in * n[c];
        }
    }
}

// A static sphere is curved; within one step each point sees the nearest
// one as the plane that touches it where the point started (the sphere lies
// behind that plane, so a point outside the plane is outside the sphere):
// n . x >= d, with n the sphere's normal at x_n. Only a point that moves
// toward the sphere by more than its gap in one step meets its plane.
static void sphere_planes(step_ctx *s) {
    const psb_world *w = s->w;
    implicit_work *W = s->W;
    const psb_body *b = s->b;
    for (int i = s->part->i0; i < s->part->i1; i++) {
        const double x[3] = {b->x[0][i], b->x[1][i], b->x[2][i]};
        double best = INFINITY;
        W->plane_n[0][i] = W->plane_n[1][i] = W->plane_n[2][i] = 0.0;
        W->plane_d[i] = 0.0;
        for (int k = 0; k < w->sphere_count; k++) {
            psb_vec3 centre = w->sphere_centre[k];
            double radius = w->sphere_radius[k];
            if (s->ring) {
                // A ring sees the sphere's cross-section with its plane z = 0.
                const double r2 = radius * radius - centre.z * centre.z;
                if (r2 <= 0.0) {
                    continue;
                }
                radius = sqrt(r2);
                centre.z = 0.0;
            }
            const double c[3] = {centre.x, centre.y, centre.z};
            const double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
            const double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            const double gap = dist - radius;
            if (!(gap < best)) {
                continue;
            }
            best = gap;
            double n[3] = {0.0, 1.0, 0.0}; // at the very centre: up
            if (dist > 0.0) {
                n[0] = d[0] / dist;
                n[1] = d[1] / dist;
                n[2] = d[2] / dist;
            }
            for (int e = 0; e < 3; e++) {
                W->plane_n[e][i] = n[e];
            }
            W->plane_d[i] = n[0] * c[0] + n[1] * c[1] + n[2] * c[2] + radius;
        }
    }
}

// After the step: restitution and friction for the points on their sphere
// plane (within rounding), as collide.c does for the floor and the walls.
static void sphere_plane_response(const step_ctx *s) {
    const psb_params *p = &s->w->params;
    const implicit_work *W = s->W;
    psb_body *b = s->b;
    const double keep = exp(-p->friction * s->h);
    for (int i = s->part->i0; i < s->part->i1; i++) {
        const double n[3] = {W->plane_n[0][i], W->plane_n[1][i], W->plane_n[2][i]};
        if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0) {
            continue;
        }
        const double d = W->plane_d[i];
        const double gap = n[0] * b->x[0][i] + n[1] * b->x[1][i] + n[2] * b->x[2][i] - d;
        if (gap > 1e-9 * (1.0 + fabs(d))) {
            continue;
        }
        double vn = n[0] * b->v[0][i] + n[1] * b->v[1][i] + n[2] * b->v[2][i];
        const double vt[3] = {b->v[0][i] - vn * n[0], b->v[1][i] - vn * n[1],
                              b->v[2][i] - vn * n[2]};
        if (vn < 0.0) {
            vn = -p->restitution * vn;
        }
        for (int c = 0; c < 3; c++) {
            b->v[c][i] = keep * vt[c] + vn * n[c];
        }
    }
}

// ---------------------------------------------------------------------------
// G, its gradient and the Hessian's blocks at the current x.

typedef struct evaluation {
    double energy;   // G - (its value at x_n's constant terms), J
    double residual; // RMS over free points of |grad G| / m, m/s²
    double net[3];   // sum of grad G over the points, N
    bool touching;   // some point is in or on a collider
} evaluation;

// Springs at point i: adds their half of the energy (each spring is met
// from both ends) and their force, and, when with_derivatives, their blocks.
static double point_springs(const step_ctx *s, int i, bool with_derivatives, double grad[3],
                            double *D) {
    const psb_body *b = s->b;
    implicit_work *W = s->W;
    double *const *x = b->x;
    double *const *x0 = b->x0;
    const double ks = b->params.spring_k;
    double energy = 0.0;
    for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
        const int j = W->adj_other[slot];
        const double d[3] = {x[0][i] - x[0][j], x[1][i] - x[1][j], x[2][i] - x[2][j]};
        const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const double L0 = W->adj_rest[slot];
        const double *u0 = W->adj_u0 + 3 * slot;
        // Damping: kd / (2h) (u0 . (dx_i - dx_j))^2 with dx = x - x_n.
        const double rel = u0[0] * (d[0] - (x0[0][i] - x0[0][j])) +
                           u0[1] * (d[1] - (x0[1][i] - x0[1][j])) +
                           u0[2] * (d[2] - (x0[2][i] - x0[2][j]));
        energy += 0.5 * (0.5 * ks * (len - L0) * (len - L0) + 0.5 * s->kd_h * rel * rel);
        for (int c = 0; c < 3; c++) {
            grad[c] += s->kd_h * rel * u0[c];
        }
        double u[3] = {0.0, 0.0, 0.0};
        if (len > 0.0) { // a spring of length 0 has no direction
            const double f = ks * (len - L0);
            for (int c = 0; c < 3; c++) {
                u[c] = d[c] / len;
                grad[c] += f * u[c];
            }
        }
        if (!with_derivatives) {
            continue;
        }
        double K[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        sym_add_spring(K, u0, s->kd_h, 0.0);
        if (len > 0.0) {
            // ks [u u^T + (1 - L0 / l) (I - u u^T)], the lateral term held
            // at 0 or above for a compressed spring once the step clamps
            const double lateral = ks * (1.0 - L0 / len);
            sym_add_spring(K, u, ks, s->clamp ? fmax(0.0, lateral) : lateral);
        }
        for (int e = 0; e < 6; e++) {
            D[e] += K[e];
        }
        // The block (i, j) of the springs' Hessian is -K.
        static const int sym_of[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
        double *B = W->adj_b + 9 * slot;
        for (int e = 0; e < 9; e++) {
            B[e] = -K[sym_of[e]];
        }
    }
    return energy;
}

// B += scale [a]x, the matrix of v -> a x v.
static void add_cross_matrix(double *B, const double a[3], double scale) {
    B[1] -= scale * a[2];
    B[2] += scale * a[1];
    B[3] += scale * a[2];
    B[5] -= scale * a[0];
    B[6] -= scale * a[1];
    B[7] += scale * a[0];
}

// Adds the gas's -P H_V to point i's blocks (after point_springs wrote
// them). H_V is zero on a point's own block; its block (i, j) is, for a
// shell, the sum over the triangles (i, j, k) and (i, k, j) of point i of
// -[(x_k - x_i) / 6]x and [(x_k - x_i) / 6]x (from d g_i = 1/6 sum
// (dx_j x e_k + e_j x dx_k), e = x - x_i); for a ring, 1/2 Z toward the
// next point and -1/2 Z toward the previous, Z p = p x z^.
static void gas_blocks(const step_ctx *s, int i) {
    const psb_body *b = s->b;
    const implicit_work *W = s->W;
    const double P = s->pressure;
    if (P == 0.0) {
        return;
    }
    if (s->ring) {
        const int slots[2] = {find_slot(W, i, W->ring_next[i]), find_slot(W, i, W->ring_prev[i])};
        for (int side = 0; side < 2; side++) {
            if (slots[side] >= 0) {
                double *B = W->adj_b + 9 * slots[side];
                const double half = side == 0 ? -0.5 * P : 0.5 * P; // -P (+-1/2 Z)
                B[1] += half;
                B[3] -= half;
            }
        }
        return;
    }
    double *const *x = b->x;
    for (int t = W->tri_start[i]; t < W->tri_start[i + 1]; t++) {
        const int j = W->tri_jk[2 * t], k = W->tri_jk[2 * t + 1];
        const double ej[3] = {x[0][j] - x[0][i], x[1][j] - x[1][i], x[2][j] - x[2][i]};
        const double ek[3] = {x[0][k] - x[0][i], x[1][k] - x[1][i], x[2][k] - x[2][i]};
        if (W->tri_slot[2 * t] >= 0) {
            add_cross_matrix(W->adj_b + 9 * W->tri_slot[2 * t], ek, P / 6.0);
        }
        if (W->tri_slot[2 * t + 1] >= 0) {
            add_cross_matrix(W->adj_b + 9 * W->tri_slot[2 * t + 1], ej, -P / 6.0);
        }
    }
}

// Evaluates G at b->x: the energy, residual and gradient (into the buffer
// that is not the iterate's: accept_evaluation makes it so) always; with_derivatives
// also the blocks (adj_k, diag, dinv), D^-1 g (wv)
// and sigma, for the conjugate gradients.
static evaluation evaluate(step_ctx *s, bool with_derivatives) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    double gas_energy = 0.0;
    if (s->gas) {
        gas_energy = gas_at(s, gas_volume(s));
    } else {
        team_sync(s);
        s->pressure = s->curvature = 0.0;
    }
    const double k_shape = b->params.shape_k;
    if (k_shape > 0.0) {
        body_shape_fit(b, s->part, s->centre, s->rotation);
    }
    const int grabbed = b->grab_point >= 0 ? b->rank[b->grab_point] : -1;
    double *const *gr = W->gbuf[1 - s->base];
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double energy = 0.0, res2 = 0.0, gw = 0.0, touching = 0.0;
        double net[3] = {0.0, 0.0, 0.0};
        for (int i = i0; i < i1; i++) {
            double grad[3] = {0.0, 0.0, 0.0};
            double D[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
            energy += point_springs(s, i, with_derivatives && is_free(b, i), grad, D);
            if (with_derivatives && is_free(b, i) && s->gas) {
                gas_blocks(s, i);
            }
            if (!is_free(b, i)) {
                for (int c = 0; c < 3; c++) {
                    gr[c][i] = 0.0;
                    W->wv[c][i] = 0.0;
                }
                continue;
            }
            const double m = b->mass[i];
            const double x[3] = {b->x[0][i], b->x[1][i], b->x[2][i]};
            // Inertia: m / (2 h^2) |x - y|^2; gravity m g (y - y_n).
            const double mh = m * s->inv_h2;
            for (int c = 0; c < 3; c++) {
                const double dy = x[c] - W->y[c][i];
                energy += 0.5 * mh * dy * dy;
                grad[c] += mh * dy;
            }
            D[0] += mh;
            D[3] += mh;
            D[5] += mh;
            energy += m * s->gravity * (x[1] - b->x0[1][i]);
            grad[1] += m * s->gravity;
            // Gas: -P g_i.
            for (int c = 0; c < 3; c++) {
                grad[c] -= s->pressure * b->grad[c][i];
            }
            if (i == grabbed) {
                const double k = b->grab_k;
                const double target[3] = {b->grab_target.x, b->grab_target.y, b->grab_target.z};
                for (int c = 0; c < 3; c++) {
                    const double to = x[c] - target[c], moved = x[c] - b->x0[c][i];
                    energy += 0.5 * k * to * to + 0.5 * s->grab_c / s->h * moved * moved;
                    grad[c] += k * to + s->grab_c / s->h * moved;
                }
                const double kk = k + s->grab_c / s->h;
                D[0] += kk;
                D[3] += kk;
                D[5] += kk;
            }
            if (k_shape > 0.0) {
                double goal[3];
                body_shape_goal(b, s->centre, s->rotation, i, goal);
                for (int c = 0; c < 3; c++) {
                    const double off = goal[c] - x[c];
                    energy += 0.5 * k_shape * off * off;
                    grad[c] -= k_shape * off;
                }
                // The fit's own motion is left out: k_shape I bounds the
                // true block from above, which is what a preconditioner and
                // a Newton step want.
                D[0] += k_shape;
                D[3] += k_shape;
                D[5] += k_shape;
            }
            if (s->ring) {
                grad[2] = 0.0; // a ring stays in its plane
            }
            double rg[3] = {grad[0], grad[1], grad[2]}, cn[3] = {0.0, 0.0, 0.0};
            int touches = 0;
            energy += contact_penalty(s, i, CONTACT_STIFFNESS * mh, x, grad, rg, D, cn, &touches);
            touching += touches;
            res2 += (rg[0] * rg[0] + rg[1] * rg[1] + rg[2] * rg[2]) / m;
            for (int c = 0; c < 3; c++) {
                gr[c][i] = rg[c];
                net[c] += rg[c];
            }
            if (with_derivatives) {
                double *Di = W->diag + 6 * i, *Dinv = W->dinv + 6 * i;
                memcpy(Di, D, sizeof D);
                sym_inverse(D, Dinv);
                double g[3] = {b->grad[0][i], b->grad[1][i], b->grad[2][i]};
                double wg[3];
                filter(cn, g);
                sym_mul(Dinv, g, wg);
                filter(cn, wg);
                for (int c = 0; c < 3; c++) {
                    W->wv[c][i] = wg[c];
                    W->cn[c][i] = cn[c];
                }
                gw += g[0] * wg[0] + g[1] * wg[1] + g[2] * wg[2];
            }
        }
        double *sums = W->sums + ch * SUMS;
        sums[0] = energy;
        sums[1] = res2;
        sums[2] = gw;
        sums[3] = touching;
        sums[4] = net[0];
        sums[5] = net[1];
        sums[6] = net[2];
    }
    double total[SUMS];
    reduce(s, 7, total);
    s->sigma = s->curvature / (1.0 + s->curvature * total[2]);
    s->touching = total[3] > 0.0;
    return (evaluation){total[0] + gas_energy,
                        sqrt(total[1] / b->params.mass),
                        {total[4], total[5], total[6]},
                        total[3] > 0.0};
}

// ---------------------------------------------------------------------------
// Conjugate gradients on H d = -grad G.

// q = H p for the part's free points, and its share of p . q (slot 0);
// gp = g . p. H = D + sum of the slots' blocks + c g g^T, filtered.
static void hessian_times(step_ctx *s, double gp) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    double *const *p = W->p;
    const double c_gp = s->curvature * gp;
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double pq = 0.0;
        for (int i = i0; i < i1; i++) {
            if (!is_free(b, i)) {
                W->q[0][i] = W->q[1][i] = W->q[2][i] = 0.0;
                continue;
            }
            double pi[3], q[3];
            load(p, i, pi);
            sym_mul(W->diag + 6 * i, pi, q);
            for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
                double pj[3];
                load(p, W->adj_other[slot], pj);
                const double *B = W->adj_b + 9 * slot;
                q[0] += B[0] * pj[0] + B[1] * pj[1] + B[2] * pj[2];
                q[1] += B[3] * pj[0] + B[4] * pj[1] + B[5] * pj[2];
                q[2] += B[6] * pj[0] + B[7] * pj[1] + B[8] * pj[2];
            }
            for (int e = 0; e < 3; e++) {
                q[e] += c_gp * b->grad[e][i]; // (nRT / V^2) g (g . p)
            }
            double n[3];
            load(W->cn, i, n);
            filter(n, q); // S H S p: p is filtered already
            for (int e = 0; e < 3; e++) {
                W->q[e][i] = q[e];
                pq += pi[e] * q[e];
            }
            if (s->ring) {
                W->q[2][i] = 0.0;
            }
        }
        W->sums[ch * SUMS] = pq;
    }
}

// z = (the preconditioner) r for the part's points, filtered, with the
// partial sums w . r (slot 0), r . z (1) and r . M^-1 r (2). With the
// multigrid, z is its answer (which holds the gas's rank-one term
// itself: w . r is 0); without, z = D^-1 r, and the caller takes the
// rank-one term by Sherman-Morrison, z - sigma (w . r) w.
static void precondition(step_ctx *s) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    const bool multigrid = W->mg && s->use_mg;
    if (multigrid) {
        // The multigrid, on thread 0 (the others wait): z = B r.
        team_sync(s);
        if (s->part->thread == 0) {
            mg_apply(W->mg, W->r, W->z);
        }
        team_sync(s);
    }
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double wr = 0.0, rz = 0.0, rr = 0.0, zmax = 0.0;
        for (int i = i0; i < i1; i++) {
            if (!is_free(b, i)) {
                W->z[0][i] = W->z[1][i] = W->z[2][i] = 0.0;
                continue;
            }
            double r[3], z[3], n[3];
            load(W->r, i, r);
            load(W->cn, i, n);
            if (multigrid) {
                load(W->z, i, z);
            } else {
                sym_mul(W->dinv + 6 * i, r, z);
                wr += W->wv[0][i] * r[0] + W->wv[1][i] * r[1] + W->wv[2][i] * r[2];
            }
            filter(n, z);
            for (int c = 0; c < 3; c++) {
                W->z[c][i] = z[c];
                rz += r[c] * z[c];
            }
            rr += (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) / b->mass[i];
            zmax = fmax(zmax, z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
        }
        double *sums = W->sums + ch * SUMS;
        sums[0] = wr;
        sums[1] = rz;
        sums[2] = rr;
        sums[MAX_SLOT] = zmax;
    }
}

// p = z - sigma (w . r) w + beta p for the part's points (beta 0: start),
// with the partial sum g . p (slot 0).
static void new_direction(step_ctx *s, double sigma_wr, double beta) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double gp = 0.0;
        for (int i = i0; i < i1; i++) {
            for (int c = 0; c < 3; c++) {
                const double z = W->z[c][i] - sigma_wr * W->wv[c][i];
                const double p = z + beta * W->p[c][i];
                W->p[c][i] = p;
                gp += b->grad[c][i] * p;
            }
        }
        W->sums[ch * SUMS] = gp;
    }
}

// d = (D + c g g^T)^-1 r, filtered, on the part's points: the point-by-point
// preconditioner's direction, a descent direction whatever H is (D is
// positive definite).
static void point_direction(step_ctx *s) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double wr = 0.0;
        for (int i = i0; i < i1; i++) {
            wr += W->wv[0][i] * W->r[0][i] + W->wv[1][i] * W->r[1][i] + W->wv[2][i] * W->r[2][i];
        }
        W->sums[ch * SUMS] = wr;
    }
    double t[SUMS];
    reduce(s, 1, t);
    const double swr = s->sigma * t[0];
    for (int i = s->part->i0; i < s->part->i1; i++) {
        double r[3], z[3], n[3];
        load(W->r, i, r);
        load(W->cn, i, n);
        sym_mul(W->dinv + 6 * i, r, z);
        for (int c = 0; c < 3; c++) {
            z[c] -= swr * W->wv[c][i];
        }
        filter(n, z);
        for (int c = 0; c < 3; c++) {
            W->d[c][i] = is_free(b, i) ? z[c] : 0.0;
        }
    }
}

// Applies the contact filters to the blocks themselves, for the part's
// points: D_i <- S_i D_i S_i + (n . D_i n) n n^T (the constrained direction
// keeps its stiffness, decoupled) and B_ij <- S_i B_ij S_j, with
// S = I - n n^T for a point pressed on a surface (normal n), else I. The
// conjugate gradients' products are S H S p already (p and q filtered);
// the multigrid builds its coarse levels from these blocks, so that a
// coarse correction does not push a constrained point into its surface
// while its neighbours move.
static void filter_blocks(step_ctx *s) {
    implicit_work *W = s->W;
    static const int sym_of[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
    for (int i = s->part->i0; i < s->part->i1; i++) {
        double ni[3];
        load(W->cn, i, ni);
        const bool held = ni[0] != 0.0 || ni[1] != 0.0 || ni[2] != 0.0;
        if (held) {
            double *D = W->diag + 6 * i, Dn[3];
            sym_mul(D, ni, Dn);
            const double nDn = ni[0] * Dn[0] + ni[1] * Dn[1] + ni[2] * Dn[2];
            for (int r = 0; r < 3; r++) {
                for (int c = r; c < 3; c++) {
                    D[sym_of[3 * r + c]] +=
                        -ni[r] * Dn[c] - Dn[r] * ni[c] + 2.0 * nDn * ni[r] * ni[c];
                }
            }
            sym_inverse(D, W->dinv + 6 * i);
        }
        for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
            double nj[3];
            load(W->cn, W->adj_other[slot], nj);
            if (!held && nj[0] == 0.0 && nj[1] == 0.0 && nj[2] == 0.0) {
                continue;
            }
            double *B = W->adj_b + 9 * slot;
            double nB[3], Bn[3]; // n_i^T B, B n_j
            for (int c = 0; c < 3; c++) {
                nB[c] = ni[0] * B[c] + ni[1] * B[3 + c] + ni[2] * B[6 + c];
                Bn[c] = B[3 * c] * nj[0] + B[3 * c + 1] * nj[1] + B[3 * c + 2] * nj[2];
            }
            const double nBn = nB[0] * nj[0] + nB[1] * nj[1] + nB[2] * nj[2];
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++) {
                    B[3 * r + c] += -ni[r] * nB[c] - Bn[r] * nj[c] + ni[r] * nBn * nj[c];
                }
            }
        }
    }
}

// Solves H d = -grad G (at the iterate) approximately, from d = 0: until
// r . z, the error's energy as the preconditioner sees it, is at most eta^2
// times its start, or `cap` iterations. *solved says whether it got there.
// When one preconditioner application moves no point faster than `floor`
// (m/s over the step), d stays 0 and it is solved. Returns the iterations
// used, or -1 when the multigrid preconditioner is not positive definite
// on this problem (a very high pressure on a slack body can make its sweeps
// diverge): the caller then solves again without it.
static int conjugate_gradients(step_ctx *s, double eta, double floor, int cap, bool *solved) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    const body_part *part = s->part;
    double *const *gr = iterate_gradient(s);
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            W->d[c][i] = 0.0;
            W->r[c][i] = -gr[c][i];
        }
    }
    const bool multigrid = W->mg && s->use_mg;
    if (multigrid) {
        if (s->touching) {
            team_sync(s); // every point's constraint is known
            filter_blocks(s);
        }
        team_sync(s); // every point's blocks are in
        if (part->thread == 0) {
            mg_assemble(W->mg, W->diag, W->adj_b, b->grad, W->cn, s->curvature, b->inv_mass);
        }
    }
    double t[SUMS];
    precondition(s);
    reduce(s, 3, t);
    double sigma_wr = s->sigma * t[0];
    double rz = t[1] - s->sigma * t[0] * t[0]; // r . (D + c g g^T)^-1 r
    *solved = sqrt(t[MAX_SLOT]) <= floor * s->h;
    if (*solved) {
        return 0;
    }
    if (!(rz > 0.0)) {
        return multigrid ? -1 : 0;
    }
    const double target = eta * eta * rz;
    new_direction(s, sigma_wr, 0.0);
    reduce(s, 1, t);
    int it = 0;
    while (it < cap) {
        hessian_times(s, t[0]);
        reduce(s, 1, t);
        const double pq = t[0];
        it++;
        if (!(pq > 0.0)) {
            // Negative curvature: H is not convex along p. With no progress
            // yet, take the point preconditioner's direction (descent for
            // sure) and let the line search size it; else keep what was
            // found, which lowers the model.
            if (it == 1) {
                point_direction(s);
            }
            s->negative = true;
            break;
        }
        const double alpha = rz / pq;
        for (int c = 0; c < 3; c++) {
            for (int i = part->i0; i < part->i1; i++) {
                W->d[c][i] += alpha * W->p[c][i];
                W->r[c][i] -= alpha * W->q[c][i];
            }
        }
        precondition(s);
        reduce(s, 3, t);
        sigma_wr = s->sigma * t[0];
        const double rz_new = t[1] - s->sigma * t[0] * t[0];
        if (!(rz_new > 0.0)) {
            if (multigrid) {
                return -1;
            }
            break;
        }
        if (rz_new <= target) {
            *solved = true;
            break;
        }
        const double beta = rz_new / rz;
        rz = rz_new;
        new_direction(s, sigma_wr, beta);
        reduce(s, 1, t);
    }
    return it;
}

// ---------------------------------------------------------------------------
// The step.

// The largest velocity change the Newton direction makes: max |d_i| / h,
// m/s (every thread).
static double largest_change(step_ctx *s) {
    const implicit_work *W = s->W;
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(s->b, ch, &i0, &i1);
        double most = 0.0;
        for (int i = i0; i < i1; i++) {
            double d[3];
            load(W->d, i, d);
            most = fmax(most, d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
        W->sums[ch * SUMS + MAX_SLOT] = most;
    }
    double t[SUMS];
    reduce(s, 0, t);
    return sqrt(t[MAX_SLOT]) / s->h;
}

// x = base + alpha d on the part's points, kept out of the colliders, and
// the first-order change of G that the move makes, grad G . (x - base)
// (every thread).
static double move_along(step_ctx *s, double alpha) {
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
                push_out(s, i, x);
            }
            for (int c = 0; c < 3; c++) {
                b->x[c][i] = x[c];
                gd += gr[c][i] * (x[c] - W->xs[c][i]);
            }
        }
        W->sums[ch * SUMS] = gd;
    }
    double t[SUMS];
    reduce(s, 1, t);
    return t[0];
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
            W->d[c][i] = s->h * (b->v[c][i] - b->v0[c][i]);
            b->x0[c][i] = b->x[c][i];
            b->v0[c][i] = b->v[c][i];
            b->f[c][i] = 0.0;
        }
    }
    team_sync(s);
    for (int c = 0; c < 3; c++) {
        s->origin[c] = b->x0[c][0];
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
    const bool wind = b->params.wind_drag > 0.0 && psb_params_wind_blows(&s->w->params) &&
                      (b->tri_count > 0 || s->ring);
    if (s->gas || wind) {
        s->volume_start = s->gas ? gas_volume(s) : 0.0;
        if (!s->gas) {
            // A cloth's area vectors for the wind.
            for (int i = part->i0; i < part->i1; i++) {
                double g[3];
                gas_gradient_at(s, i, g);
                for (int c = 0; c < 3; c++) {
                    b->grad[c][i] = g[c];
                }
            }
        }
        if (wind) {
            body_wind_forces(b, s->w, t, part->i0, part->i1);
        }
    }
    const double h = s->h;
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            W->y[c][i] = b->x[c][i] + h * b->v[c][i] + h * h * b->inv_mass[i] * b->f[c][i];
        }
    }
    if (s->w->sphere_count > 0) {
        sphere_planes(s);
    }
}

// The Newton iterations; returns whether they converged: a Newton step
// solved to its inexact tolerance moved no point's velocity by more than
// solver_tol. *change_out: that step's largest velocity change (m/s);
// *residual_out: the RMS force residual per unit mass at the end (m/s²).
static bool solve(step_ctx *s, int *newton_out, int *cg_out, double *change_out,
                  double *residual_out) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    const body_part *part = s->part;
    const psb_params *p = &s->w->params;
    // Start from the lowest in G of x_n, free flight, and the last step's
    // motion carried on (x_n + h v_n + h (v_n - v_{n-1})): every Newton
    // step then lowers G, so the step ends no higher than x_n.
    evaluation at = evaluate(s, false);
    int best = 0;
    for (int i = part->i0; i < part->i1; i++) {
        for (int c = 0; c < 3; c++) {
            W->xs[c][i] = b->x[c][i];
        }
    }
    for (int guess = 1; guess <= 2; guess++) {
        for (int i = part->i0; i < part->i1; i++) {
            double x[3];
            for (int c = 0; c < 3; c++) {
                x[c] = guess == 1 ? W->y[c][i] - (c == 1 ? s->h * s->h * s->gravity : 0.0)
                                  : W->y[c][i] + W->d[c][i];
            }
            if (is_free(b, i)) {
                push_out(s, i, x);
                for (int c = 0; c < 3; c++) {
                    b->x[c][i] = x[c];
                }
            }
        }
        const evaluation e = evaluate(s, false);
        if (e.energy < at.energy) {
            at = e;
            best = guess;
        }
    }
    for (int i = part->i0; i < part->i1; i++) {
        double x[3];
        for (int c = 0; c < 3; c++) {
            x[c] = best == 0   ? W->xs[c][i]
                   : best == 1 ? W->y[c][i] - (c == 1 ? s->h * s->h * s->gravity : 0.0)
                               : W->y[c][i] + W->d[c][i];
        }
        if (is_free(b, i)) {
            push_out(s, i, x);
            for (int c = 0; c < 3; c++) {
                b->x[c][i] = x[c];
            }
        }
    }
    at = evaluate(s, true);
    accept_evaluation(s);
    int newton = 0, cg = 0;
    double change = 0.0, first_change = 0.0; // Newton steps' largest velocity change, m/s
    bool converged = false;
    while (!converged && newton < NEWTON_MAX && cg < p->solver_iterations) {
        // Inexact Newton: the first solve loose, the later ones tighter as
        // the steps shrink (Eisenstat and Walker's choice 2, on the moves).
        const double eta = newton == 0 ? ETA : fmin(ETA, sqrt(change / first_change));
        const double floor = 0.5 * p->solver_tol;
        const int left = p->solver_iterations - cg;
        bool solved = false;
        int used = conjugate_gradients(s, eta, floor, left, &solved);
        if (used < 0) {
            s->use_mg = false;
            used = conjugate_gradients(s, eta, floor, left, &solved);
        }
        cg += used;
        if (used == 0 && solved) {
            converged = true;
            change = 0.0;
            break;
        }
        newton++;
        change = largest_change(s);
        if (newton == 1) {
            first_change = change;
        }
        // Met negative curvature: from the next evaluation on, clamp.
        s->clamp = s->clamp || s->negative;
        for (int c = 0; c < 3; c++) {
            for (int i = part->i0; i < part->i1; i++) {
                W->xs[c][i] = b->x[c][i];
            }
        }
        double alpha = 1.0;
        bool accepted = false;
        for (int tries = 0; tries < BACKTRACK_MAX; tries++, alpha *= 0.5) {
            const double slope = move_along(s, alpha);
            if (!(slope < 0.0)) {
                // Uphill where the colliders turned the move aside: a
                // shorter move reaches fewer of them.
                continue;
            }
            const evaluation trial = evaluate(s, true);
            // Near the solution the decrease falls below G's rounding (G is a
            // sum of energies of order J; the decrease, of order residual^2
            // m h^2): there a step that lowers the residual is taken.
            const double noise = 1e-13 * (fabs(at.energy) + fabs(trial.energy) + 1.0);
            const bool in_noise = -slope < noise && trial.energy <= at.energy + noise;
            if (trial.energy <= at.energy + ARMIJO * slope ||
                (in_noise && trial.residual < at.residual)) {
                at = trial;
                accept_evaluation(s);
                accepted = true;
                converged = solved && change <= p->solver_tol;
                break;
            }
        }
        if (!accepted) {
            // No decrease to be had: back to the last iterate. Try again
            // with compressed springs clamped (H positive definite), then
            // with the point preconditioner, whose first direction descends
            // whatever H is; then stop.
            move_along(s, 0.0);
            if (!s->clamp || (s->W->mg && s->use_mg)) {
                if (s->clamp) {
                    s->use_mg = false;
                }
                s->clamp = true;
                at = evaluate(s, true);
                accept_evaluation(s);
                continue;
            }
            evaluate(s, false);
            break;
        }
    }
    // The energy is invariant under a translation of the body, but for the
    // linear gravity and wind, while no point touches a collider, nothing is
    // grabbed and nothing pinned. Then G(x + t) = G(x) + t . net + |t|^2
    // sum m / (2 h^2) exactly, and its minimum over t, at
    // t = -net h^2 / sum m, zeroes the residual's sum: the step then keeps
    // the body's momentum (changed by the external forces only) to
    // rounding, however loose the tolerance.
    if (!at.touching && b->grab_point < 0 && b->pin_count == 0 &&
        (at.net[0] != 0.0 || at.net[1] != 0.0 || at.net[2] != 0.0)) {
        const double scale = -s->h * s->h / b->params.mass;
        const double shift[3] = {scale * at.net[0], scale * at.net[1], scale * at.net[2]};
        for (int c = 0; c < 3; c++) {
            for (int i = part->i0; i < part->i1; i++) {
                b->x[c][i] += shift[c];
            }
        }
        const evaluation moved = evaluate(s, false);
        if (moved.touching) {
            // It would have moved a point into a collider: undo.
            for (int c = 0; c < 3; c++) {
                for (int i = part->i0; i < part->i1; i++) {
                    b->x[c][i] -= shift[c];
                }
            }
        } else {
            at = moved;
        }
    }
    *newton_out = newton;
    *cg_out = cg;
    *change_out = change;
    *residual_out = at.residual;
    return converged;
}

void body_implicit_step(psb_body *b, const psb_world *w, const body_part *part, double t,
                        double h) {
    psb_profile *prof = part->thread == 0 ? b->profile : NULL;
    const double start = prof ? profile_now() : 0.0;
    const psb_params *p = &w->params;
    step_ctx s = {
        .b = b,
        .w = w,
        .part = part,
        .W = b->implicit,
        .h = h,
        .inv_h2 = 1.0 / (h * h),
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
    int newton = 0, cg = 0;
    double change = 0.0, residual = 0.0;
    const bool converged = solve(&s, &newton, &cg, &change, &residual);
    if (part->thread == 0) {
        b->volume = s.volume;
        b->nrt = s.nrt;
        b->pressure = s.pressure;
        b->solver.newton += newton;
        b->solver.iterations += cg;
        b->solver.residual = change;
        b->solver.force_residual = residual;
        b->solver.converged = b->solver.converged && converged;
    }
    // v = (x - x_n) / h, then the colliders' restitution and friction on
    // the points the penalty left a little inside, the pins, shape damping.
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            b->v[c][i] = (b->x[c][i] - b->x0[c][i]) / h;
        }
    }
    body_collide_touching(b, w, part->i0, part->i1, h);
    sphere_plane_response(&s);
    body_hold_pins(b, part->i0, part->i1);
    body_shape_damp(b, part, h);
    if (prof) {
        prof->integrate += profile_now() - start;
    }
}
