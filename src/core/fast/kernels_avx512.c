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
    const int offset = b->fans.row_offset[r];
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
    const __m256i j = _mm256_load_si256((const __m256i *)(b->fans.row_index + LANES * r));
    x->x = _mm512_i32gather_pd(j, b->x[0], 8);
    x->y = _mm512_i32gather_pd(j, b->x[1], 8);
    x->z = _mm512_i32gather_pd(j, b->x[2], 8);
    v->x = _mm512_i32gather_pd(j, b->v[0], 8);
    v->y = _mm512_i32gather_pd(j, b->v[1], 8);
    v->z = _mm512_i32gather_pd(j, b->v[2], 8);
}

// Row r's neighbours' positions only.
static inline vec load_positions(const psb_body *b, int r, int i) {
    const int offset = b->fans.row_offset[r];
    if (offset != FAN_GATHER) {
        const int j = i + offset;
        return (vec){_mm512_loadu_pd(b->x[0] + j), _mm512_loadu_pd(b->x[1] + j),
                     _mm512_loadu_pd(b->x[2] + j)};
    }
    const __m256i j = _mm256_load_si256((const __m256i *)(b->fans.row_index + LANES * r));
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

// A row's spring coefficients s = ks (1 - L0 r) + kd (dv . d) r² for
// d = x_j - x_i, dv = v_j - v_i (damped only) and r = 1 / |d|; 0 in the
// lanes without a spring or where the length is 0.
static inline __attribute__((always_inline)) __m512d coefficients(vec d, vec vj, vec vi,
                                                                  __m512d rest, __mmask8 springs,
                                                                  __m512d ks, __m512d kd,
                                                                  const bool damped) {
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0);
    const __m512d l2 =
        _mm512_fmadd_pd(d.z, d.z, _mm512_fmadd_pd(d.y, d.y, _mm512_mul_pd(d.x, d.x)));
    const __mmask8 sm = springs & _mm512_cmp_pd_mask(l2, zero, _CMP_GT_OQ);
    const __m512d rr = rsqrt(l2);
    const __m512d hooke = _mm512_mul_pd(ks, _mm512_fnmadd_pd(rest, rr, one));
    if (!damped) {
        return _mm512_maskz_mov_pd(sm, hooke);
    }
    const vec u = {_mm512_sub_pd(vj.x, vi.x), _mm512_sub_pd(vj.y, vi.y), _mm512_sub_pd(vj.z, vi.z)};
    const __m512d dvd =
        _mm512_fmadd_pd(u.z, d.z, _mm512_fmadd_pd(u.y, d.y, _mm512_mul_pd(u.x, d.x)));
    return _mm512_maskz_fmadd_pd(sm, _mm512_mul_pd(kd, dvd), _mm512_mul_pd(rr, rr), hooke);
}

// Keeps a row's coefficients in the ring (see internal.h).
static inline void keep(const psb_body *b, double *ring, int q, int i, __m512d s) {
    const size_t at = ring_slot(&b->fans, q, i);
    _mm512_store_pd(ring + at, s);
    if (ring_mirrored(&b->fans, i)) {
        _mm512_store_pd(ring + at + b->fans.ring_mask + 1, s);
    }
}

// The rows of a regular block (internal.h, block_regular_from) at point i,
// without the general loop's branches: the same operations in the same
// order, so the same bits.
static inline __attribute__((always_inline)) void regular_rows(const psb_body *b, double *ring,
                                                               int i, vec xi, vec vi, __m512d ks,
                                                               __m512d kd, const bool damped,
                                                               vec *f, vec *g) {
    const int r0 = b->fans.row_start[i / LANES];
    vec d[REGULAR_ROWS];
#pragma GCC unroll 8
    for (int q = 0; q < REGULAR_ROWS; q++) {
        const int r = r0 + q;
        const int j = i + b->fans.row_offset[r];
        d[q] = (vec){_mm512_sub_pd(_mm512_loadu_pd(b->x[0] + j), xi.x),
                     _mm512_sub_pd(_mm512_loadu_pd(b->x[1] + j), xi.y),
                     _mm512_sub_pd(_mm512_loadu_pd(b->x[2] + j), xi.z)};
        __m512d s;
        if (q < REGULAR_COMPUTED) {
            vec vj = vi;
            if (damped) {
                vj = (vec){_mm512_loadu_pd(b->v[0] + j), _mm512_loadu_pd(b->v[1] + j),
                           _mm512_loadu_pd(b->v[2] + j)};
            }
            s = coefficients(d[q], vj, vi, _mm512_load_pd(b->fans.row_rest + LANES * r), 0xFF, ks, kd,
                             damped);
            keep(b, ring, q, i, s);
        } else {
            s = _mm512_loadu_pd(ring + b->fans.row_partner_at[r]);
        }
        f->x = _mm512_fmadd_pd(s, d[q].x, f->x);
        f->y = _mm512_fmadd_pd(s, d[q].y, f->y);
        f->z = _mm512_fmadd_pd(s, d[q].z, f->z);
    }
#pragma GCC unroll 8
    for (int q = 0; q < REGULAR_ROWS; q++) {
        add_cross(g, d[q], d[(q + 1) % REGULAR_ROWS], 0xFF);
    }
}

// The rows of block k, whatever they hold: the coefficients of springs met
// before in this pass (from first_block on) come from the ring.
static inline __attribute__((always_inline)) void general_rows(const psb_body *b, double *ring,
                                                               int k, vec xi, vec vi, __m512d ks,
                                                               __m512d kd, int first_block,
                                                               const bool damped, vec *f, vec *g) {
    const int i = LANES * k;
    const int r0 = b->fans.row_start[k], r1 = b->fans.row_start[k + 1];
    vec d0 = *g, p = *g;
    for (int r = r0; r < r1; r++) {
        vec d;
        const __mmask8 springs = b->fans.row_mask[2 * r];
        if (b->fans.row_reuse_from[r] >= first_block) {
            // Springs met before: their coefficients, F_i += s d.
            const vec xj = load_positions(b, r, i);
            d = (vec){_mm512_sub_pd(xj.x, xi.x), _mm512_sub_pd(xj.y, xi.y),
                      _mm512_sub_pd(xj.z, xi.z)};
            const int at = b->fans.row_partner_at[r];
            __m512d s;
            if (at != FAN_GATHER) {
                s = _mm512_loadu_pd(ring + at);
            } else {
                const __m256i from =
                    _mm256_load_si256((const __m256i *)(b->fans.row_partner + LANES * r));
                s = _mm512_i32gather_pd(from, ring, 8);
            }
            f->x = _mm512_mask3_fmadd_pd(s, d.x, f->x, springs);
            f->y = _mm512_mask3_fmadd_pd(s, d.y, f->y, springs);
            f->z = _mm512_mask3_fmadd_pd(s, d.z, f->z, springs);
        } else {
            vec xj, vj = vi;
            if (damped) {
                load_row(b, r, i, &xj, &vj);
            } else {
                xj = load_positions(b, r, i);
            }
            d = (vec){_mm512_sub_pd(xj.x, xi.x), _mm512_sub_pd(xj.y, xi.y),
                      _mm512_sub_pd(xj.z, xi.z)};
            const __m512d s = coefficients(d, vj, vi, _mm512_load_pd(b->fans.row_rest + LANES * r),
                                           springs, ks, kd, damped);
            if (r - r0 < REUSE_ROWS) {
                keep(b, ring, r - r0, i, s);
            }
            f->x = _mm512_fmadd_pd(s, d.x, f->x);
            f->y = _mm512_fmadd_pd(s, d.y, f->y);
            f->z = _mm512_fmadd_pd(s, d.z, f->z);
        }
        if (r == r0) {
            d0 = d;
        } else {
            add_cross(g, p, d, b->fans.row_mask[2 * (r - 1) + 1]);
        }
        p = d;
    }
    add_cross(g, p, d0, b->fans.row_mask[2 * (r1 - 1) + 1]);
}

// The same computation as fan_forces in kernels.c, eight lanes at a time.
// Undamped springs (damped false) skip the velocities altogether: no
// neighbour's velocity is loaded, gathered or subtracted, which is also
// what lets them fold f into v (fold: v += (kick_h / m) f, see
// force_pass) without changing what later blocks compute.
static inline __attribute__((always_inline)) void fan_forces_with(psb_body *b, int c0, int c1,
                                                                  const force_pass *pass,
                                                                  const bool damped,
                                                                  const bool fold) {
    double *ring = fans_ring(&b->fans, pass->thread);
    const double kick_h = pass->kick_h;
    const __m512d ks = _mm512_set1_pd(b->params.spring_k);
    const __m512d kd = _mm512_set1_pd(b->params.spring_damping);
    const __m512d zero = _mm512_setzero_pd();
    const __m512d sixth = _mm512_set1_pd(1.0 / 6.0);
    const vec o = {_mm512_set1_pd(b->x[0][0]), _mm512_set1_pd(b->x[1][0]),
                   _mm512_set1_pd(b->x[2][0])};
    const int first_block = pass->own * CHUNK_BLOCKS; // springs from before it are not ours
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
            vec f = {zero, zero, zero}, g = {zero, zero, zero};
            fetch_ahead(b, i, pass);
            if (b->fans.block_regular_from[k] >= first_block) {
                regular_rows(b, ring, i, xi, vi, ks, kd, damped, &f, &g);
            } else {
                general_rows(b, ring, k, xi, vi, ks, kd, first_block, damped, &f, &g);
            }
            if (fold) {
                // v += (h / m) f
                const __m512d hm =
                    b->inv_mass_uniform > 0.0
                        ? _mm512_set1_pd(kick_h * b->inv_mass_uniform)
                        : _mm512_mul_pd(_mm512_set1_pd(kick_h), _mm512_load_pd(b->inv_mass + i));
                const __m512d fs[3] = {f.x, f.y, f.z};
                for (int a = 0; a < 3; a++) {
                    _mm512_store_pd(b->v[a] + i,
                                    _mm512_fmadd_pd(hm, fs[a], _mm512_load_pd(b->v[a] + i)));
                }
            } else {
                _mm512_store_pd(b->f[0] + i, f.x);
                _mm512_store_pd(b->f[1] + i, f.y);
                _mm512_store_pd(b->f[2] + i, f.z);
            }
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

static void forces(psb_body *b, int c0, int c1, const force_pass *pass) {
    if (b->kind == PSB_RING) {
        ring_forces(b, c0, c1);
    } else if (b->params.spring_damping != 0.0) {
        fan_forces_with(b, c0, c1, pass, true, false);
    } else if (pass->kick_h > 0.0) {
        fan_forces_with(b, c0, c1, pass, false, true);
    } else {
        fan_forces_with(b, c0, c1, pass, false, false);
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
