// The hot loops for CPUs with AVX2 and FMA: a shell's fans four points at a
// time (each block of eight in two halves). This file alone is compiled
// with those instructions enabled; kernels_best() calls into it only when
// the CPU has them, so the build stays portable.
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include "kernel_loops.h"

typedef struct vec {
    __m256d x, y, z;
} vec;

// All-ones in the lanes whose bit is set in the low four bits of bits.
static inline __m256d lane_mask(unsigned bits) {
    const __m256i select = _mm256_set_epi64x(8, 4, 2, 1);
    const __m256i hit = _mm256_and_si256(_mm256_set1_epi64x((long long)bits), select);
    return _mm256_castsi256_pd(_mm256_cmpeq_epi64(hit, select));
}

// Row r's neighbours of the half block at point i (lanes `half` .. half + 3).
static inline void load_row(const psb_body *b, int r, int i, int half, vec *x, vec *v) {
    const int offset = b->fans.row_offset[r];
    if (offset != FAN_GATHER) {
        const int j = i + half + offset;
        x->x = _mm256_loadu_pd(b->x[0] + j);
        x->y = _mm256_loadu_pd(b->x[1] + j);
        x->z = _mm256_loadu_pd(b->x[2] + j);
        v->x = _mm256_loadu_pd(b->v[0] + j);
        v->y = _mm256_loadu_pd(b->v[1] + j);
        v->z = _mm256_loadu_pd(b->v[2] + j);
        return;
    }
    const __m128i j = _mm_load_si128((const __m128i *)(b->fans.row_index + LANES * r + half));
    x->x = _mm256_i32gather_pd(b->x[0], j, 8);
    x->y = _mm256_i32gather_pd(b->x[1], j, 8);
    x->z = _mm256_i32gather_pd(b->x[2], j, 8);
    v->x = _mm256_i32gather_pd(b->v[0], j, 8);
    v->y = _mm256_i32gather_pd(b->v[1], j, 8);
    v->z = _mm256_i32gather_pd(b->v[2], j, 8);
}

// Row r's neighbours' positions only, for the half block at point i.
static inline vec load_positions(const psb_body *b, int r, int i, int half) {
    const int offset = b->fans.row_offset[r];
    if (offset != FAN_GATHER) {
        const int j = i + half + offset;
        return (vec){_mm256_loadu_pd(b->x[0] + j), _mm256_loadu_pd(b->x[1] + j),
                     _mm256_loadu_pd(b->x[2] + j)};
    }
    const __m128i j = _mm_load_si128((const __m128i *)(b->fans.row_index + LANES * r + half));
    return (vec){_mm256_i32gather_pd(b->x[0], j, 8), _mm256_i32gather_pd(b->x[1], j, 8),
                 _mm256_i32gather_pd(b->x[2], j, 8)};
}

// G += p x d in the lanes of mask m.
static inline void add_cross(vec *g, vec p, vec d, __m256d m) {
    const vec q = {_mm256_and_pd(p.x, m), _mm256_and_pd(p.y, m), _mm256_and_pd(p.z, m)};
    g->x = _mm256_fnmadd_pd(q.z, d.y, _mm256_fmadd_pd(q.y, d.z, g->x));
    g->y = _mm256_fnmadd_pd(q.x, d.z, _mm256_fmadd_pd(q.z, d.x, g->y));
    g->z = _mm256_fnmadd_pd(q.y, d.x, _mm256_fmadd_pd(q.x, d.y, g->z));
}

// The same computation as fan_forces in kernels.c, four lanes at a time;
// with pass->kick_h > 0, v += (kick_h / m) f instead of storing f.
static void fan_forces(psb_body *b, int c0, int c1, const force_pass *pass) {
    double *ring = fans_ring(&b->fans, pass->thread);
    const double kick_h = pass->kick_h;
    const __m256d ks = _mm256_set1_pd(b->params.spring_k);
    const __m256d kd = _mm256_set1_pd(b->params.spring_damping);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    const __m256d sixth = _mm256_set1_pd(1.0 / 6.0);
    const bool damped = b->params.spring_damping != 0.0;
    const vec o = {_mm256_set1_pd(b->x[0][0]), _mm256_set1_pd(b->x[1][0]),
                   _mm256_set1_pd(b->x[2][0])};
    const int first_block = pass->own * CHUNK_BLOCKS; // springs from before it are not ours
    for (int c = c0; c < c1; c++) {
        const int k0 = c * CHUNK_BLOCKS;
        const int k1 = k0 + CHUNK_BLOCKS < b->block_count ? k0 + CHUNK_BLOCKS : b->block_count;
        __m256d sum = zero;
        for (int k = k0; k < k1; k++) {
            fetch_ahead(b, LANES * k, pass);
            for (int half = 0; half < LANES; half += 4) {
                const int i = LANES * k + half;
                const vec xi = {_mm256_load_pd(b->x[0] + i), _mm256_load_pd(b->x[1] + i),
                                _mm256_load_pd(b->x[2] + i)};
                const vec vi = {_mm256_load_pd(b->v[0] + i), _mm256_load_pd(b->v[1] + i),
                                _mm256_load_pd(b->v[2] + i)};
                vec f = {zero, zero, zero}, g = {zero, zero, zero}, d0 = g, p = g;
                const int r0 = b->fans.row_start[k], r1 = b->fans.row_start[k + 1];
                for (int r = r0; r < r1; r++) {
                    vec d;
                    const __m256d springs = lane_mask(b->fans.row_mask[2 * r] >> half);
                    // Springs met in an earlier block: reuse their coefficients.
                    if (b->fans.row_reuse_from[r] >= first_block && !b->fans.row_reuse_local[r]) {
                        const vec xj = load_positions(b, r, LANES * k, half);
                        d = (vec){_mm256_sub_pd(xj.x, xi.x), _mm256_sub_pd(xj.y, xi.y),
                                  _mm256_sub_pd(xj.z, xi.z)};
                        const int at = b->fans.row_partner_at[r];
                        __m256d s;
                        if (at != FAN_GATHER) {
                            s = _mm256_loadu_pd(ring + at + half);
                        } else {
                            const __m128i from = _mm_load_si128(
                                (const __m128i *)(b->fans.row_partner + LANES * r + half));
                            s = _mm256_i32gather_pd(ring, from, 8);
                        }
                        s = _mm256_and_pd(springs, s);
                        f.x = _mm256_fmadd_pd(s, d.x, f.x);
                        f.y = _mm256_fmadd_pd(s, d.y, f.y);
                        f.z = _mm256_fmadd_pd(s, d.z, f.z);
                    } else {
                        vec xj, vj = vi;
                        if (damped) {
                            load_row(b, r, LANES * k, half, &xj, &vj);
                        } else {
                            // No neighbour's velocity (a fold may be changing it).
                            xj = load_positions(b, r, LANES * k, half);
                        }
                        d = (vec){_mm256_sub_pd(xj.x, xi.x), _mm256_sub_pd(xj.y, xi.y),
                                  _mm256_sub_pd(xj.z, xi.z)};
                        const __m256d l2 = _mm256_fmadd_pd(
                            d.z, d.z, _mm256_fmadd_pd(d.y, d.y, _mm256_mul_pd(d.x, d.x)));
                        // Springs where the mask says so and the length is not 0.
                        const __m256d sm =
                            _mm256_and_pd(springs, _mm256_cmp_pd(l2, zero, _CMP_GT_OQ));
                        const __m256d rr = _mm256_div_pd(one, _mm256_sqrt_pd(l2));
                        const __m256d rest = _mm256_load_pd(b->fans.row_rest + LANES * r + half);
                        // s = ks (1 - L0 r) + kd (dv . d) r², 0 where there is no spring
                        __m256d s = _mm256_mul_pd(ks, _mm256_fnmadd_pd(rest, rr, one));
                        if (damped) {
                            const vec u = {_mm256_sub_pd(vj.x, vi.x), _mm256_sub_pd(vj.y, vi.y),
                                           _mm256_sub_pd(vj.z, vi.z)};
                            const __m256d dvd = _mm256_fmadd_pd(
                                u.z, d.z, _mm256_fmadd_pd(u.y, d.y, _mm256_mul_pd(u.x, d.x)));
                            s = _mm256_fmadd_pd(_mm256_mul_pd(kd, dvd), _mm256_mul_pd(rr, rr), s);
                        }
                        s = _mm256_and_pd(sm, s);
                        if (r - r0 < REUSE_ROWS) {
                            const size_t at = ring_slot(&b->fans, r - r0, i);
                            _mm256_store_pd(ring + at, s);
                            if (ring_mirrored(&b->fans, i)) {
                                _mm256_store_pd(ring + at + b->fans.ring_mask + 1, s);
                            }
                        }
                        f.x = _mm256_fmadd_pd(s, d.x, f.x);
                        f.y = _mm256_fmadd_pd(s, d.y, f.y);
                        f.z = _mm256_fmadd_pd(s, d.z, f.z);
                    }
                    if (r == r0) {
                        d0 = d;
                    } else {
                        add_cross(&g, p, d, lane_mask(b->fans.row_mask[2 * (r - 1) + 1] >> half));
                    }
                    p = d;
                }
                add_cross(&g, p, d0, lane_mask(b->fans.row_mask[2 * (r1 - 1) + 1] >> half));
                if (kick_h > 0.0) {
                    // v += (h / m) f
                    const __m256d hm =
                        _mm256_mul_pd(_mm256_set1_pd(kick_h), _mm256_load_pd(b->inv_mass + i));
                    _mm256_store_pd(b->v[0] + i, _mm256_fmadd_pd(hm, f.x, vi.x));
                    _mm256_store_pd(b->v[1] + i, _mm256_fmadd_pd(hm, f.y, vi.y));
                    _mm256_store_pd(b->v[2] + i, _mm256_fmadd_pd(hm, f.z, vi.z));
                } else {
                    _mm256_store_pd(b->f[0] + i, f.x);
                    _mm256_store_pd(b->f[1] + i, f.y);
                    _mm256_store_pd(b->f[2] + i, f.z);
                }
                _mm256_store_pd(b->grad[0] + i, _mm256_mul_pd(g.x, sixth));
                _mm256_store_pd(b->grad[1] + i, _mm256_mul_pd(g.y, sixth));
                _mm256_store_pd(b->grad[2] + i, _mm256_mul_pd(g.z, sixth));
                sum = _mm256_fmadd_pd(_mm256_sub_pd(xi.x, o.x), g.x, sum);
                sum = _mm256_fmadd_pd(_mm256_sub_pd(xi.y, o.y), g.y, sum);
                sum = _mm256_fmadd_pd(_mm256_sub_pd(xi.z, o.z), g.z, sum);
            }
        }
        double lanes[4];
        _mm256_storeu_pd(lanes, sum);
        b->vol_part[c] = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) / 18.0;
    }
}

static void forces(psb_body *b, int c0, int c1, const force_pass *pass) {
    if (b->kind == PSB_RING) {
        ring_forces(b, c0, c1);
    } else {
        fan_forces(b, c0, c1, pass);
    }
}

const psb_kernels *kernels_avx2(void) {
    static const psb_kernels k = {"avx2", forces, kick_drift, guard_scan};
    __builtin_cpu_init();
    const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return ok ? &k : NULL;
}

#else

#include "internal.h"

const psb_kernels *kernels_avx2(void) {
    return NULL;
}

#endif
