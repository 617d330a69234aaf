// The implicit step's linear solve: conjugate gradients on H d = -grad G
// with H kept as 3x3 blocks, preconditioned by the multigrid
// (implicit_mg.c) or point by point. implicit.c has the step.
#include <math.h>

#include "implicit_internal.h"

// ---------------------------------------------------------------------------
// Conjugate gradients on H d = -grad G.

// q += B p_j, B a 3x3 block (row-major).
static inline void add_block_times(const double *B, double *const p[3], int j, double q[3]) {
    double pj[3];
    load(p, j, pj);
    q[0] += B[0] * pj[0] + B[1] * pj[1] + B[2] * pj[2];
    q[1] += B[3] * pj[0] + B[4] * pj[1] + B[5] * pj[2];
    q[2] += B[6] * pj[0] + B[7] * pj[1] + B[8] * pj[2];
}

// The end of q = H p at free point i, from its own block's product q and
// its neighbours' sum `other` (the struts are added to it here): the gas's
// rank-one term, the filter where the point is held, the ring's plane;
// stores q_i and returns p_i . q_i.
static inline double finish_point(const step_ctx *s, int i, const double pi[3], double q[3],
                                  double other[3], double c_gp) {
    const psb_body *b = s->b;
    implicit_work *W = s->W;
    if (W->strut_on[i] > 0) { // only the struts that act have blocks
        for (int slot = W->strut_start[i]; slot < W->strut_start[i + 1]; slot++) {
            add_block_times(W->strut_b + 9 * slot, W->p, W->strut_other[slot], other);
        }
    }
    for (int e = 0; e < 3; e++) {
        q[e] += other[e] + c_gp * b->grad[e][i]; // (nRT / V^2) g (g . p)
    }
    double n[3];
    load(W->cn, i, n);
    if (n[0] != 0.0 || n[1] != 0.0 || n[2] != 0.0) {
        filter(n, q); // S H S p: p is filtered already
    }
    if (s->ring) {
        q[2] = 0.0;
    }
    for (int e = 0; e < 3; e++) {
        W->q[e][i] = q[e];
    }
    return pi[0] * q[0] + pi[1] * q[1] + pi[2] * q[2];
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

bool implicit_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// hessian_times with the neighbours' blocks by columns in single
// precision (adj_c): a neighbour is three fused multiply-adds of four
// lanes, one sum for each column, where the scalar loop reads 72 bytes
// and takes nine products and nine additions. On a large body the
// product is bound by the blocks' bytes (the bunny's are 15 MB in
// double); either change alone gained nothing, both together make its
// first frames a quarter faster (docs/implicit.md, "Session 39"). The
// conjugate gradients then solve with blocks rounded to 7 digits, which
// an inexact Newton step does not see: G, its gradient and the
// preconditioner stay in double. Only called where implicit_has_avx2()
// said yes.
__attribute__((target("avx2,fma"))) static void hessian_times_avx2(step_ctx *s, double gp) {
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
            double pi[3], q[3], other[4];
            load(p, i, pi);
            sym_mul(W->diag + 6 * i, pi, q);
            __m256d by_x = _mm256_setzero_pd(), by_y = by_x, by_z = by_x;
            for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
                const int j = W->adj_other[slot];
                const float *C = W->adj_c + 12 * slot;
                by_x = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_load_ps(C)),
                                       _mm256_broadcast_sd(p[0] + j), by_x);
                by_y = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_load_ps(C + 4)),
                                       _mm256_broadcast_sd(p[1] + j), by_y);
                by_z = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm_load_ps(C + 8)),
                                       _mm256_broadcast_sd(p[2] + j), by_z);
            }
            _mm256_storeu_pd(other, _mm256_add_pd(_mm256_add_pd(by_x, by_y), by_z));
            pq += finish_point(s, i, pi, q, other, c_gp);
        }
        W->sums[ch * SUMS] = pq;
    }
}
#else
bool implicit_has_avx2(void) {
    return false;
}

static void hessian_times_avx2(step_ctx *s, double gp) {
    (void)s;
    (void)gp;
}
#endif

// The part's neighbour blocks by columns in single precision into adj_c,
// for the AVX2 product: at a solve's first product, after the contact
// filter (a solve that ends at its start test, as every converged step's
// last does, needs none).
static void copy_columns(step_ctx *s) {
    implicit_work *W = s->W;
    for (int slot = W->adj_start[s->part->i0]; slot < W->adj_start[s->part->i1]; slot++) {
        const double *B = W->adj_b + 9 * slot;
        float *C = W->adj_c + 12 * slot;
        for (int c = 0; c < 3; c++) {
            C[4 * c] = (float)B[c];
            C[4 * c + 1] = (float)B[3 + c];
            C[4 * c + 2] = (float)B[6 + c];
            C[4 * c + 3] = 0.0f;
        }
    }
}

// q = H p for the part's free points, and its share of p . q (slot 0);
// gp = g . p. H = D + sum of the slots' blocks + c g g^T, filtered. (A
// point's neighbours go into two sums in turn, and p . q takes one
// dependent addition a point.)
static void hessian_times(step_ctx *s, double gp) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    if (W->adj_c) {
        if (!s->columns) {
            copy_columns(s); // (each thread its own points' rows, which only it multiplies)
            s->columns = true;
        }
        hessian_times_avx2(s, gp);
        return;
    }
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
            double pi[3], q[3], other[3] = {0.0, 0.0, 0.0};
            load(p, i, pi);
            sym_mul(W->diag + 6 * i, pi, q);
            const int end = W->adj_start[i + 1];
            int slot = W->adj_start[i];
            for (; slot + 1 < end; slot += 2) {
                add_block_times(W->adj_b + 9 * slot, p, W->adj_other[slot], q);
                add_block_times(W->adj_b + 9 * (slot + 1), p, W->adj_other[slot + 1], other);
            }
            if (slot < end) {
                add_block_times(W->adj_b + 9 * slot, p, W->adj_other[slot], q);
            }
            pq += finish_point(s, i, pi, q, other, c_gp);
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
        mg_apply(W->mg, W->r, W->z, s->part); // z = B r, the whole team
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
            if (n[0] != 0.0 || n[1] != 0.0 || n[2] != 0.0) {
                filter(n, z);
            }
            for (int c = 0; c < 3; c++) {
                W->z[c][i] = z[c];
            }
            // (One dependent addition a sum a point; the largest by a
            // compare, which the compiler keeps inline where fmax is a call.)
            rz += r[0] * z[0] + r[1] * z[1] + r[2] * z[2];
            rr += (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) / b->mass[i];
            const double z2 = z[0] * z[0] + z[1] * z[1] + z[2] * z[2];
            zmax = z2 > zmax ? z2 : zmax;
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
            double p[3];
            for (int c = 0; c < 3; c++) {
                const double z = W->z[c][i] - sigma_wr * W->wv[c][i];
                p[c] = z + beta * W->p[c][i];
                W->p[c][i] = p[c];
            }
            gp += b->grad[0][i] * p[0] + b->grad[1][i] * p[1] + b->grad[2][i] * p[2];
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
    implicit_reduce(s, 1, t);
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

// Adds to q = H p acting link l's block other than the points' own (those
// are in diag, and so in hessian_times already), filtered, on free points;
// returns its share of p . q. Its block on the pair's relative move
// r = J p = p_p - sum beta_j p_j is S = l->block (the last evaluation's,
// at the iterate): the whole is J^T S J.
static double link_block_times(const psb_world *w, const solve_link *l) {
    const psb_body *A = w->bodies[l->a], *B = w->bodies[l->b];
    implicit_work *WA = A->implicit, *WB = B->implicit;
    const double *S = l->block;
    double pp[3], pj[3][3], r[3], Sv[3], n[3], add[3];
    load(WA->p, l->p, pp);
    for (int c = 0; c < 3; c++) {
        r[c] = pp[c];
    }
    for (int j = 0; j < 3; j++) {
        load(WB->p, l->corner[j], pj[j]);
        for (int c = 0; c < 3; c++) {
            r[c] -= l->beta[j] * pj[j][c];
        }
    }
    // r^T S r less each point's own p^T S p (times beta_j^2 on a corner).
    sym_mul(S, r, Sv);
    double pq = r[0] * Sv[0] + r[1] * Sv[1] + r[2] * Sv[2];
    sym_mul(S, pp, add);
    pq -= pp[0] * add[0] + pp[1] * add[1] + pp[2] * add[2];
    if (is_free(A, l->p)) {
        load(WA->cn, l->p, n);
        for (int c = 0; c < 3; c++) {
            add[c] = Sv[c] - add[c];
        }
        filter(n, add);
        for (int c = 0; c < 3; c++) {
            WA->q[c][l->p] += add[c];
        }
    }
    for (int j = 0; j < 3; j++) {
        const double beta = l->beta[j];
        const int i = l->corner[j];
        if (beta == 0.0) {
            continue;
        }
        double own[3];
        sym_mul(S, pj[j], own);
        pq -= beta * beta * (pj[j][0] * own[0] + pj[j][1] * own[1] + pj[j][2] * own[2]);
        if (!is_free(B, i)) {
            continue;
        }
        load(WB->cn, i, n);
        for (int c = 0; c < 3; c++) {
            add[c] = -beta * (Sv[c] + beta * own[c]);
        }
        filter(n, add);
        for (int c = 0; c < 3; c++) {
            WB->q[c][i] += add[c];
        }
    }
    return pq;
}

// Adds to q = H p the acting links' blocks other than the points' own,
// filtered, on free points; returns their share of p . q (which links act,
// pushing or rubbing, the last evaluation, at the iterate, says).
// (implicit_on_lead's work.)
static double link_times(group *g, const void *unused) {
    (void)unused;
    const psb_world *w = g->s[0].w;
    double pq = 0.0;
    for (int m = 0; m < g->link_count; m++) {
        if (g->acting[g->link[m]]) {
            pq += link_block_times(w, &g->links[g->link[m]]);
        }
    }
    return pq;
}

// z = (the preconditioner) r on every body of the group; returns r . z
// with each body's rank-one term by Sherman-Morrison (each body's sigma
// (w . r) into its sigma_wr), and whether every body's largest |z| is
// within floor (m/s over its step) into *within (unless NULL).
static void precondition_body(group *g, int k, void *unused) {
    (void)unused;
    precondition(&g->s[k]);
    implicit_reduce(&g->s[k], 3, g->s[k].t);
}

static double precondition_all(group *g, double floor, bool *within) {
    implicit_each_body(g, precondition_body, NULL);
    double rz = 0.0;
    bool all_within = true, first = true;
    for (int k = 0; k < g->count; k++) {
        step_ctx *s = &g->s[k];
        if (s->settled) {
            continue;
        }
        const double *t = s->t;
        s->sigma_wr = s->sigma * t[0];
        const double rz_k = t[1] - s->sigma * t[0] * t[0]; // r . (D + c g g^T)^-1 r
        rz = first ? rz_k : rz + rz_k;
        first = false;
        all_within = all_within && sqrt(t[MAX_SLOT]) <= floor * s->h;
    }
    if (within) {
        *within = all_within;
    }
    return rz;
}

// p = z - sigma (w . r) w + beta p on every body, and each body's g . p.
static void new_direction_body(group *g, int k, void *beta) {
    step_ctx *s = &g->s[k];
    double t[SUMS];
    new_direction(s, s->sigma_wr, *(const double *)beta);
    implicit_reduce(s, 1, t);
    s->gp = t[0];
}

static void new_directions(group *g, double beta) {
    implicit_each_body(g, new_direction_body, &beta);
}

// d = 0 and r = -grad G at the iterate on body k.
static void start_residual(group *g, int k, void *unused) {
    (void)unused;
    step_ctx *s = &g->s[k];
    implicit_work *W = s->W;
    const body_part *part = s->part;
    double *const *gr = iterate_gradient(s);
    s->negative = false;
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            W->d[c][i] = 0.0;
            W->r[c][i] = -gr[c][i];
        }
    }
}

// The same, and body k's multigrid's levels made from its blocks (filtered
// first where points touch a collider).
static void start_body(group *g, int k, void *unused) {
    start_residual(g, k, unused);
    step_ctx *s = &g->s[k];
    implicit_work *W = s->W;
    const body_part *part = s->part;
    const bool multigrid = W->mg && s->use_mg;
    if (multigrid && s->touching) {
        team_sync(s); // every point's constraint is known
        filter_blocks(s);
    }
    s->columns = false; // the blocks may be new: copied again at the first product
    if (multigrid) {
        team_sync(s); // every point's blocks are in
        mg_assemble(W->mg, W->diag, W->adj_b, s->b->grad, W->cn, s->curvature, s->b->inv_mass,
                    part);
    }
}

static void hessian_body(group *g, int k, void *unused) {
    (void)unused;
    hessian_times(&g->s[k], g->s[k].gp);
    implicit_reduce(&g->s[k], 1, g->s[k].t);
}

// Negative curvature met at iteration *it: at the first, the point
// preconditioner's direction.
static void negative_body(group *g, int k, void *it) {
    if (*(const int *)it == 1) {
        point_direction(&g->s[k]);
    }
    g->s[k].negative = true;
}

// d += alpha p, r -= alpha q.
static void advance_body(group *g, int k, void *alpha) {
    const double a = *(const double *)alpha;
    implicit_work *W = g->s[k].W;
    const body_part *part = g->s[k].part;
    for (int c = 0; c < 3; c++) {
        for (int i = part->i0; i < part->i1; i++) {
            W->d[c][i] += a * W->p[c][i];
            W->r[c][i] -= a * W->q[c][i];
        }
    }
}

// Solves H d = -grad G (at the iterate) over the group approximately,
// from d = 0: until r . z, the error's energy as the preconditioner sees
// it, is at most eta^2 times its start, or `cap` iterations. *solved says
// whether it got there. When one preconditioner application moves no
// point faster than `floor` (m/s over the step), d stays 0 and it is
// solved. Returns the iterations used, or -1 when the multigrid
// preconditioner is not positive definite on this problem (a very high
// pressure on a slack body can make its sweeps diverge): the caller then
// solves again without it. Each body is preconditioned on its own, the
// links' stiffness on its points' own blocks. A settled body takes no part:
// its d and p stay 0, so its links act on the others as a fixed wall.
int implicit_conjugate_gradients(group *g, double eta, double floor, int cap, bool *solved) {
    bool multigrid = false;
    for (int k = 0; k < g->count; k++) {
        multigrid = multigrid || (g->s[k].W->mg && g->s[k].use_mg);
    }
    implicit_each_body(g, start_body, NULL);
    double rz = precondition_all(g, floor, solved);
    if (*solved) {
        return 0;
    }
    if (!(rz > 0.0)) {
        return multigrid ? -1 : 0;
    }
    const double target = eta * eta * rz;
    new_directions(g, 0.0);
    int it = 0;
    while (it < cap) {
        implicit_each_body(g, hessian_body, NULL);
        double pq = unsettled_sum(g);
        if (g->link_count > 0) {
            pq += implicit_on_lead(g, link_times, NULL);
        }
        it++;
        if (!(pq > 0.0)) {
            // Negative curvature: H is not convex along p. With no progress
            // yet, take the point preconditioner's direction (descent for
            // sure) and let the line search size it; else keep what was
            // found, which lowers the model.
            implicit_each_body(g, negative_body, &it);
            break;
        }
        double alpha = rz / pq;
        implicit_each_body(g, advance_body, &alpha);
        const double rz_new = precondition_all(g, floor, NULL);
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
        new_directions(g, beta);
    }
    return it;
}

bool implicit_preconditioned_within(group *g, double floor) {
    implicit_each_body(g, start_residual, NULL);
    bool within = false;
    precondition_all(g, floor, &within);
    return within;
}
