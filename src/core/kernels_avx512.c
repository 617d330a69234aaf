// The hot loops for CPUs with AVX-512 (F, DQ, VL) and FMA: a shell's fans
// eight points at a time. This file alone is compiled with those
// instructions enabled; kernels_best() calls into it only when the CPU has
// them, so the build stays portable.
#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__) && defined(__FMA__)
#include <immintrin.h>

#include "kernel_loops.h"

// r = 1 / sqrt(l2): the 14-bit estimate, then two Newton steps
// r <- r (3/2 - (l2/2) r²), each doubling the correct bits (14, 28, 56), so
// r is within a couple of units in the last place.
static inline __m512d rsqrt(__m512d l2) {
    const __m512d three_halves = _mm512_set1_pd(1.5);
    const __m512d half_l2 = _mm512_mul_pd(l2, _mm512_set1_pd(0.5));
    __m512d r = _mm512_rsqrt14_pd(l2);
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(_mm512_mul_pd(half_l2, r), r, three_halves));
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(_mm512_mul_pd(half_l2, r), r, three_halves));
    return r;
}

typedef struct vec {
    __m512d x, y, z;
} vec;

// Row r's neighbours of the block at point i: one contiguous load per
// coordinate when they sit at a common offset, else a gather.
static inline void load_row(const psb_body *b, int r, int i, vec *x, vec *v) {
    const int offset = b->row_offset[r];
    if (offset != FAN_GATHER) {
        const int j = i + offset;
        x->x = _mm512_loadu_pd(b->x[0] + j);
        x->y = _mm512_loadu_pd(b->x[1] + j);
        x->z = _mm512_loadu_pd(b->x[2] + j);
        v->x = _mm512_loadu_pd(b->v[0] + j);
        v->y = _mm512_loadu_pd(b->v[1] + j);
        v->z = _mm512_loadu_pd(b->v[2] + j);
        return;
    }
    const __m256i j = _mm256_load_si256((const __m256i *)(b->row_index + LANES * r));
    x->x = _mm512_i32gather_pd(j, b->x[0], 8);
    x->y = _mm512_i32gather_pd(j, b->x[1], 8);
    x->z = _mm512_i32gather_pd(j, b->x[2], 8);
    v->x = _mm512_i32gather_pd(j, b->v[0], 8);
    v->y = _mm512_i32gather_pd(j, b->v[1], 8);
    v->z = _mm512_i32gather_pd(j, b->v[2], 8);
}

// Row r's neighbours' positions only.
static inline vec load_positions(const psb_body *b, int r, int i) {
    const int offset = b->row_offset[r];
    if (offset != FAN_GATHER) {
        const int j = i + offset;
        return (vec){_mm512_loadu_pd(b->x[0] + j), _mm512_loadu_pd(b->x[1] + j),
                     _mm512_loadu_pd(b->x[2] + j)};
    }
    const __m256i j = _mm256_load_si256((const __m256i *)(b->row_index + LANES * r));
    return (vec){_mm512_i32gather_pd(j, b->x[0], 8), _mm512_i32gather_pd(j, b->x[1], 8),
                 _mm512_i32gather_pd(j, b->x[2], 8)};
}

// G += p x d in the lanes of mask m.
static inline void add_cross(vec *g, vec p, vec d, __mmask8 m) {
    g->x = _mm512_mask3_fmadd_pd(p.y, d.z, g->x, m);
    g->x = _mm512_mask3_fnmadd_pd(p.z, d.y, g->x, m);
    g->y = _mm512_mask3_fmadd_pd(p.z, d.x, g->y, m);
    g->y = _mm512_mask3_fnmadd_pd(p.x, d.z, g->y, m);
    g->z = _mm512_mask3_fmadd_pd(p.x, d.y, g->z, m);
    g->z = _mm512_mask3_fnmadd_pd(p.y, d.x, g->z, m);
}

// The same computation as fan_forces in kernels.c, eight lanes at a time.
// Undamped springs (damped false) skip the velocities altogether: no
// neighbour's velocity is loaded, gathered or subtracted.
static inline __attribute__((always_inline)) void fan_forces_with(psb_body *b, int c0, int c1,
                                                                  int own, const bool damped) {
    const __m512d ks = _mm512_set1_pd(b->params.spring_k);
    const __m512d kd = _mm512_set1_pd(b->params.spring_damping);
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    const __m512d sixth = _mm512_set1_pd(1.0 / 6.0);
    const vec o = {_mm512_set1_pd(b->x[0][0]), _mm512_set1_pd(b->x[1][0]),
                   _mm512_set1_pd(b->x[2][0])};
    const int first_block = own * CHUNK_BLOCKS; // springs from before it are not ours
    for (int c = c0; c < c1; c++) {
        const int k0 = c * CHUNK_BLOCKS;
        const int k1 = k0 + CHUNK_BLOCKS < b->block_count ? k0 + CHUNK_BLOCKS : b->block_count;
        __m512d sum = zero;
        for (int k = k0; k < k1; k++) {
            const int i = LANES * k;
            const vec xi = {_mm512_load_pd(b->x[0] + i), _mm512_load_pd(b->x[1] + i),
                            _mm512_load_pd(b->x[2] + i)};
            vec vi = {zero, zero, zero};
            if (damped) {
                vi = (vec){_mm512_load_pd(b->v[0] + i), _mm512_load_pd(b->v[1] + i),
                           _mm512_load_pd(b->v[2] + i)};
            }
            vec f = {zero, zero, zero}, g = {zero, zero, zero}, d0 = g, p = g;
            const int r0 = b->row_start[k], r1 = b->row_start[k + 1];
            for (int r = r0; r < r1; r++) {
                vec d;
                const __mmask8 springs = b->row_mask[2 * r];
                if (b->row_reuse_from[r] >= first_block) {
                    // Springs met before: their coefficients, F_i += s d.
                    const vec xj = load_positions(b, r, i);
                    d = (vec){_mm512_sub_pd(xj.x, xi.x), _mm512_sub_pd(xj.y, xi.y),
                              _mm512_sub_pd(xj.z, xi.z)};
                    const int offset = b->row_partner_offset[r];
                    __m512d s;
                    if (offset != FAN_GATHER) {
                        s = _mm512_loadu_pd(b->spring_s + i + offset);
                    } else {
                        const __m256i from =
                            _mm256_load_si256((const __m256i *)(b->row_partner + LANES * r));
                        s = _mm512_i32gather_pd(from, b->spring_s, 8);
                    }
                    f.x = _mm512_mask3_fmadd_pd(s, d.x, f.x, springs);
                    f.y = _mm512_mask3_fmadd_pd(s, d.y, f.y, springs);
                    f.z = _mm512_mask3_fmadd_pd(s, d.z, f.z, springs);
                } else {
                    vec xj, vj = {zero, zero, zero};
                    if (damped) {
                        load_row(b, r, i, &xj, &vj);
                    } else {
                        xj = load_positions(b, r, i);
                    }
                    d = (vec){_mm512_sub_pd(xj.x, xi.x), _mm512_sub_pd(xj.y, xi.y),
                              _mm512_sub_pd(xj.z, xi.z)};
                    const __m512d l2 = _mm512_fmadd_pd(
                        d.z, d.z, _mm512_fmadd_pd(d.y, d.y, _mm512_mul_pd(d.x, d.x)));
                    // Springs where the mask says so and the length is not 0.
                    const __mmask8 sm = springs & _mm512_cmp_pd_mask(l2, zero, _CMP_GT_OQ);
                    const __m512d rr = rsqrt(l2);
                    const __m512d rest = _mm512_load_pd(b->row_rest + LANES * r);
                    // s = ks (1 - L0 r) + kd (dv . d) r², 0 where there is no spring
                    const __m512d hooke = _mm512_mul_pd(ks, _mm512_fnmadd_pd(rest, rr, one));
                    __m512d s = _mm512_maskz_mov_pd(sm, hooke);
                    if (damped) {
                        const vec u = {_mm512_sub_pd(vj.x, vi.x), _mm512_sub_pd(vj.y, vi.y),
                                       _mm512_sub_pd(vj.z, vi.z)};
                        const __m512d dvd = _mm512_fmadd_pd(
                            u.z, d.z, _mm512_fmadd_pd(u.y, d.y, _mm512_mul_pd(u.x, d.x)));
                        s = _mm512_maskz_fmadd_pd(sm, _mm512_mul_pd(kd, dvd),
                                                  _mm512_mul_pd(rr, rr), hooke);
                    }
                    if (r - r0 < REUSE_ROWS) {
                        _mm512_store_pd(b->spring_s + (size_t)(r - r0) * b->n_pad + i, s);
                    }
                    f.x = _mm512_fmadd_pd(s, d.x, f.x);
                    f.y = _mm512_fmadd_pd(s, d.y, f.y);
                    f.z = _mm512_fmadd_pd(s, d.z, f.z);
                }
                if (r == r0) {
                    d0 = d;
                } else {
                    add_cross(&g, p, d, b->row_mask[2 * (r - 1) + 1]);
                }
                p = d;
            }
            add_cross(&g, p, d0, b->row_mask[2 * (r1 - 1) + 1]);
            _mm512_store_pd(b->f[0] + i, f.x);
            _mm512_store_pd(b->f[1] + i, f.y);
            _mm512_store_pd(b->f[2] + i, f.z);
            _mm512_store_pd(b->grad[0] + i, _mm512_mul_pd(g.x, sixth));
            _mm512_store_pd(b->grad[1] + i, _mm512_mul_pd(g.y, sixth));
            _mm512_store_pd(b->grad[2] + i, _mm512_mul_pd(g.z, sixth));
            sum = _mm512_fmadd_pd(_mm512_sub_pd(xi.x, o.x), g.x, sum);
            sum = _mm512_fmadd_pd(_mm512_sub_pd(xi.y, o.y), g.y, sum);
            sum = _mm512_fmadd_pd(_mm512_sub_pd(xi.z, o.z), g.z, sum);
        }
        b->vol_part[c] = _mm512_reduce_add_pd(sum) / 18.0;
    }
}

static void forces(psb_body *b, int c0, int c1, int own) {
    if (b->kind == PSB_RING) {
        ring_forces(b, c0, c1);
    } else if (b->params.spring_damping != 0.0) {
        fan_forces_with(b, c0, c1, own, true);
    } else {
        fan_forces_with(b, c0, c1, own, false);
    }
}

const psb_kernels *kernels_avx512(void) {
    static const psb_kernels k = {"avx512", forces, kick_drift, guard_scan};
    __builtin_cpu_init();
    const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
    return ok ? &k : NULL;
}

#else

#include "internal.h"

const psb_kernels *kernels_avx512(void) {
    return NULL;
}

#endif
