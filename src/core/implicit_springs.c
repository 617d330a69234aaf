// The springs' share of the implicit step's evaluation, slot by slot: each
// slot (a spring seen from one of its ends, implicit_work's adjacency) gets
// its half of the spring's energy, its force on that end and, with the
// blocks, the spring's stiffness K (the block (i, j) is -K). The points'
// pass of implicit_evaluate then adds each point's slots up in slot order
// and writes the blocks (a store of nine doubles a slot breaks the loop
// into single slots; six arrays of one value a slot do not).
//
// One loop over a chunk's slots, the same for every slot, so that the
// compiler runs it several slots at a time (four with AVX2, two with the
// baseline's SSE2). It is compiled twice, once for AVX2 and once for the baseline;
// the core keeps floating-point contraction off (C11), and this file's
// flags (-fno-math-errno, -fno-trapping-math) change no result, so both
// give the same bits as each other and as the per-point loop this
// replaced.
#include <math.h>

#include "implicit_internal.h"

typedef struct slot_arrays {
    const int *owner, *other;
    const double *rest, *u0;
    const double *x, *y, *z;    // positions
    const double *xb, *yb, *zb; // where velocity is measured from
    double *energy, *force, *stiffness;
    size_t stride; // of stiffness: its six arrays' length
} slot_arrays;

// Slots [s0, s1). For a spring from i to j with d = x_i - x_j, length l
// and the step's start direction u0: energy 1/2 (1/2 ks (l - L0)^2 + 1/2
// (kd / h) (u0 . (d - d_b))^2) (each end holds half); force on i (kd / h)
// (u0 . (d - d_b)) u0 + ks (l - L0) u; block (i, j) -K, K = (kd / h) u0
// u0^T + ks [u u^T + (1 - L0 / l) (I - u u^T)], the lateral term held at 0
// or above when `held`. A spring of length 0 has no direction: u, its
// force and its ks part are 0. K's six values (xx xy xz yy yz zz) go to
// stiffness[e * stride + s]. `blocks` and `held` are constants where it is
// inlined, so that each case is one straight loop.
static inline __attribute__((always_inline)) void
slots_loop(int s0, int s1, const int *restrict owner, const int *restrict other,
           const double *restrict rest, const double *restrict U0, const double *restrict X,
           const double *restrict Y, const double *restrict Z, const double *restrict XB,
           const double *restrict YB, const double *restrict ZB, double *restrict energy,
           double *restrict force, double *restrict stiffness, size_t stride, double ks,
           double kd_h, const bool blocks, const bool held) {
#pragma omp simd
    for (int s = s0; s < s1; s++) {
        const int i = owner[s], j = other[s];
        const double d[3] = {X[i] - X[j], Y[i] - Y[j], Z[i] - Z[j]};
        const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const double L0 = rest[s];
        const double u0[3] = {U0[3 * s], U0[3 * s + 1], U0[3 * s + 2]};
        const double rel = u0[0] * (d[0] - (XB[i] - XB[j])) + u0[1] * (d[1] - (YB[i] - YB[j])) +
                           u0[2] * (d[2] - (ZB[i] - ZB[j]));
        energy[s] = 0.5 * (0.5 * ks * (len - L0) * (len - L0) + 0.5 * kd_h * rel * rel);
        const bool has_length = len > 0.0;
        const double inv_len = has_length ? 1.0 / len : 0.0;
        const double damp = kd_h * rel, f = has_length ? ks * (len - L0) : 0.0;
        const double u[3] = {d[0] * inv_len, d[1] * inv_len, d[2] * inv_len};
        for (int c = 0; c < 3; c++) {
            force[3 * s + c] = damp * u0[c] + f * u[c];
        }
        if (blocks) {
            // K = (kd / h) u0 u0^T (as sym_add_spring(K, u0, kd / h, 0) from
            // 0), then + (ks - kept) u u^T + kept I where it has a length.
            const double a = kd_h - 0.0;
            const double k0[6] = {0.0 + (a * u0[0] * u0[0] + 0.0), 0.0 + a * u0[0] * u0[1],
                                  0.0 + a * u0[0] * u0[2],         0.0 + (a * u0[1] * u0[1] + 0.0),
                                  0.0 + a * u0[1] * u0[2],         0.0 + (a * u0[2] * u0[2] + 0.0)};
            const double lateral = ks * (1.0 - L0 * inv_len);
            const double kept = held ? (lateral > 0.0 ? lateral : 0.0) : lateral;
            const double k = ks - kept;
            const double ku[6] = {
                k0[0] + (k * u[0] * u[0] + kept), k0[1] + k * u[0] * u[1],
                k0[2] + k * u[0] * u[2],          k0[3] + (k * u[1] * u[1] + kept),
                k0[4] + k * u[1] * u[2],          k0[5] + (k * u[2] * u[2] + kept)};
            double K[6];
            for (int e = 0; e < 6; e++) {
                K[e] = has_length ? ku[e] : k0[e];
            }
            for (int e = 0; e < 6; e++) {
                stiffness[(size_t)e * stride + s] = K[e];
            }
        }
    }
}

// The three cases (no blocks; blocks; blocks with the lateral term held).
static inline __attribute__((always_inline)) void
slots_cases(const slot_arrays *a, int s0, int s1, double ks, double kd_h, bool blocks, bool held) {
    if (!blocks) {
        slots_loop(s0, s1, a->owner, a->other, a->rest, a->u0, a->x, a->y, a->z, a->xb, a->yb,
                   a->zb, a->energy, a->force, a->stiffness, a->stride, ks, kd_h, false, false);
    } else if (held) {
        slots_loop(s0, s1, a->owner, a->other, a->rest, a->u0, a->x, a->y, a->z, a->xb, a->yb,
                   a->zb, a->energy, a->force, a->stiffness, a->stride, ks, kd_h, true, true);
    } else {
        slots_loop(s0, s1, a->owner, a->other, a->rest, a->u0, a->x, a->y, a->z, a->xb, a->yb,
                   a->zb, a->energy, a->force, a->stiffness, a->stride, ks, kd_h, true, false);
    }
}

static void slots_baseline(const slot_arrays *a, int s0, int s1, double ks, double kd_h,
                           bool blocks, bool held) {
    slots_cases(a, s0, s1, ks, kd_h, blocks, held);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void
slots_avx2(const slot_arrays *a, int s0, int s1, double ks, double kd_h, bool blocks, bool held) {
    slots_cases(a, s0, s1, ks, kd_h, blocks, held);
}
#else
static void slots_avx2(const slot_arrays *a, int s0, int s1, double ks, double kd_h, bool blocks,
                       bool held) {
    slots_baseline(a, s0, s1, ks, kd_h, blocks, held);
}
#endif

void implicit_spring_slots(const step_ctx *s, int i0, int i1, bool blocks) {
    const psb_body *b = s->b;
    implicit_work *W = s->W;
    const slot_arrays a = {W->adj_owner,   W->adj_other,
                           W->adj_rest,    W->adj_u0,
                           b->x[0],        b->x[1],
                           b->x[2],        W->xb[0],
                           W->xb[1],       W->xb[2],
                           W->slot_energy, W->slot_force,
                           W->slot_k,      (size_t)W->adj_start[b->n]};
    const int s0 = W->adj_start[i0], s1 = W->adj_start[i1];
    const double ks = b->params.spring_k;
    const bool held = s->clamp && !s->exact;
    if (W->adj_c && !W->baseline_springs) { // (adj_c: made exactly where the CPU has AVX2 and FMA)
        slots_avx2(&a, s0, s1, ks, s->kd_h, blocks, held);
    } else {
        slots_baseline(&a, s0, s1, ks, s->kd_h, blocks, held);
    }
}
