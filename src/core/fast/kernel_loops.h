// Plain C loops shared by every instruction set's kernels: each
// kernels_*.c file includes this header, so the compiler vectorises the
// same source for that file's instruction set (the files are compiled with
// -fopenmp-simd, so `omp simd` works with or without OpenMP threads). The arithmetic is written
// without fused multiply-adds (the build keeps floating-point contraction
// off), so these loops give the same bits on every instruction set.
#ifndef PSB_KERNEL_LOOPS_H
#define PSB_KERNEL_LOOPS_H

#include "internal.h"

// Ring point i's springs to its neighbours p (previous) and q (next) and
// its area gradient; returns its share (x_i - o) . g_i of 2 A. For one
// spring, d = x_j - x_i and r = 1 / |d|:
//   F_i += (ks (1 - L0 r) + kd ((v_j - v_i) . d) r²) d,
// Hooke plus damping along the spring, f = ks (|d| - L0) + kd (v_j - v_i) . u.
// Shoelace: dA/dx_i = 1/2 (y_{i+1} - y_{i-1}, x_{i-1} - x_{i+1}), the outward
// normals times the lengths of the two edges at i, half of each.
static inline double ring_point(const double *restrict X, const double *restrict Y,
                                const double *restrict VX, const double *restrict VY,
                                const double *restrict rest, double *restrict FX,
                                double *restrict FY, double *restrict GX, double *restrict GY,
                                int i, int p, int q, double ks, double kd, double ox, double oy) {
    const double xi = X[i], yi = Y[i], vxi = VX[i], vyi = VY[i];
    // To the next point (spring i) ...
    const double ax = X[q] - xi, ay = Y[q] - yi;
    const double al2 = ax * ax + ay * ay;
    const double ar = 1.0 / sqrt(al2);
    const double adv = (VX[q] - vxi) * ax + (VY[q] - vyi) * ay;
    const double as = al2 > 0.0 ? ks * (1.0 - rest[i] * ar) + kd * adv * (ar * ar) : 0.0;
    // ... and to the previous one (spring p); no direction, no force.
    const double bx = X[p] - xi, by = Y[p] - yi;
    const double bl2 = bx * bx + by * by;
    const double br = 1.0 / sqrt(bl2);
    const double bdv = (VX[p] - vxi) * bx + (VY[p] - vyi) * by;
    const double bs = bl2 > 0.0 ? ks * (1.0 - rest[p] * br) + kd * bdv * (br * br) : 0.0;
    FX[i] = as * ax + bs * bx;
    FY[i] = as * ay + bs * by;
    const double gx = 0.5 * (Y[q] - Y[p]), gy = 0.5 * (X[p] - X[q]);
    GX[i] = gx;
    GY[i] = gy;
    return (xi - ox) * gx + (yi - oy) * gy;
}

// Ring points [lo, hi), none of them the first or the last, so that the
// neighbours are i - 1 and i + 1 and the loop vectorises.
static double ring_run(const double *restrict X, const double *restrict Y,
                       const double *restrict VX, const double *restrict VY,
                       const double *restrict rest, double *restrict FX, double *restrict FY,
                       double *restrict GX, double *restrict GY, int lo, int hi, double ks,
                       double kd, double ox, double oy) {
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int i = lo; i < hi; i++) {
        sum += ring_point(X, Y, VX, VY, rest, FX, FY, GX, GY, i, i - 1, i + 1, ks, kd, ox, oy);
    }
    return sum;
}

// Forces on a ring's points in chunks [c0, c1). Its area is 2D homogeneous
// of degree 2: A = 1/2 sum (x_i - o) . dA/dx_i (see fan.c). z stays 0.
static void ring_forces(psb_body *b, int c0, int c1) {
    const int n = b->n;
    const double ks = b->params.spring_k, kd = b->params.spring_damping;
    const double *X = b->x[0], *Y = b->x[1], *VX = b->v[0], *VY = b->v[1];
    double *FX = b->f[0], *FY = b->f[1], *GX = b->grad[0], *GY = b->grad[1];
    const double ox = X[0], oy = Y[0];
    for (int c = c0; c < c1; c++) {
        const int lo = c * CHUNK_POINTS;
        const int hi = lo + CHUNK_POINTS < n ? lo + CHUNK_POINTS : n;
        // The first and last points wrap round; the rest run straight.
        double first = 0.0, last = 0.0;
        if (lo == 0) {
            first = ring_point(X, Y, VX, VY, b->rest_length, FX, FY, GX, GY, 0, n - 1, 1, ks, kd,
                               ox, oy);
        }
        if (hi == n) {
            last = ring_point(X, Y, VX, VY, b->rest_length, FX, FY, GX, GY, n - 1, n - 2, 0, ks, kd,
                              ox, oy);
        }
        const double run = ring_run(X, Y, VX, VY, b->rest_length, FX, FY, GX, GY, lo > 1 ? lo : 1,
                                    hi < n - 1 ? hi : n - 1, ks, kd, ox, oy);
        b->vol_part[c] = 0.5 * ((first + run) + last);
    }
}

// Asks for the cache lines of x, v, grad (and f, unless the pass folds it)
// that the kick will read pass->ahead points after block i: into L2 (T1), as
// the kick comes a batch later.
static inline void fetch_ahead(const psb_body *b, int i, const force_pass *pass) {
    const int j = i + pass->ahead;
    if (pass->ahead <= 0 || j >= pass->fetch_end || j >= b->n_pad) {
        return;
    }
    for (int c = 0; c < 3; c++) {
        __builtin_prefetch(b->x[c] + j, 0, 2);
        __builtin_prefetch(b->v[c] + j, 0, 2);
        __builtin_prefetch(b->grad[c] + j, 0, 2);
        if (pass->kick_h <= 0.0) {
            __builtin_prefetch(b->f[c] + j, 0, 2);
        }
    }
}

// The arrays of kick_drift; restrict parameters, so that the compiler
// knows they do not overlap and vectorises the loops. folded: the force
// pass already added h f / m to v, so FX, FY, FZ are not read. uniform:
// every point's 1/m is u, so inv_mass is not read.
static inline __attribute__((always_inline)) void
kick_drift_loop(int i0, int end, double *restrict X, double *restrict Y, double *restrict Z,
                double *restrict VX, double *restrict VY, double *restrict VZ,
                const double *restrict FX, const double *restrict FY, const double *restrict FZ,
                const double *restrict GX, const double *restrict GY, const double *restrict GZ,
                const double *restrict inv_mass, const kick_args *a, const bool folded,
                const bool uniform, double u) {
    const double h = a->h, P = a->pressure, hg = a->h * a->gravity;
    const double fl = a->floor_y, e = a->restitution, keep = a->keep;
    if (a->floor) {
        for (int i = i0; i < end; i++) {
            const double k = h * (uniform ? u : inv_mass[i]);
            const double vx = VX[i] + k * (folded ? P * GX[i] : FX[i] + P * GX[i]);
            const double vy = VY[i] + k * (folded ? P * GY[i] : FY[i] + P * GY[i]) - hg;
            const double vz = VZ[i] + k * (folded ? P * GZ[i] : FZ[i] + P * GZ[i]);
            const double y = Y[i] + h * vy;
            // Both outcomes are computed and one is picked, so that the loop
            // has no branch and vectorises.
            const double vx_hit = vx * keep, vy_hit = -e * vy, vz_hit = vz * keep;
            const bool below = y < fl;
            X[i] += h * vx;
            Z[i] += h * vz;
            Y[i] = below ? fl : y;
            VX[i] = below ? vx_hit : vx;
            VY[i] = (below & (vy < 0.0)) ? vy_hit : vy;
            VZ[i] = below ? vz_hit : vz;
        }
        return;
    }
    for (int i = i0; i < end; i++) {
        const double k = h * (uniform ? u : inv_mass[i]);
        VX[i] += k * (folded ? P * GX[i] : FX[i] + P * GX[i]);
        VY[i] += k * (folded ? P * GY[i] : FY[i] + P * GY[i]) - hg;
        VZ[i] += k * (folded ? P * GZ[i] : FZ[i] + P * GZ[i]);
        X[i] += h * VX[i];
        Y[i] += h * VY[i];
        Z[i] += h * VZ[i];
    }
}

// Symplectic Euler for points [i0, i1): v += h (F / m - g y^), x += h v, and
// the floor: a point below it goes to its surface; its normal velocity, if
// into the floor, becomes -e times itself; friction keeps exp(-mu h) of the
// tangential velocity (collide.c, here for the normal (0, 1, 0)).
static void kick_drift(psb_body *b, int i0, int i1, const kick_args *a) {
    const int end = i1 < b->n ? i1 : b->n;
    // Each case its own loop, without a test inside it.
    if (a->folded && b->inv_mass_uniform > 0.0) {
        kick_drift_loop(i0, end, b->x[0], b->x[1], b->x[2], b->v[0], b->v[1], b->v[2], b->f[0],
                        b->f[1], b->f[2], b->grad[0], b->grad[1], b->grad[2], b->inv_mass, a, true,
                        true, b->inv_mass_uniform);
    } else if (a->folded) {
        kick_drift_loop(i0, end, b->x[0], b->x[1], b->x[2], b->v[0], b->v[1], b->v[2], b->f[0],
                        b->f[1], b->f[2], b->grad[0], b->grad[1], b->grad[2], b->inv_mass, a, true,
                        false, 0.0);
    } else {
        kick_drift_loop(i0, end, b->x[0], b->x[1], b->x[2], b->v[0], b->v[1], b->v[2], b->f[0],
                        b->f[1], b->f[2], b->grad[0], b->grad[1], b->grad[2], b->inv_mass, a, false,
                        false, 0.0);
    }
}

static inline int guard_loop(int i0, int end, const double *restrict X, const double *restrict Y,
                             const double *restrict Z, const double *restrict VX,
                             const double *restrict VY, const double *restrict VZ,
                             const double *restrict GX, const double *restrict GY,
                             const double *restrict GZ, double *restrict NX, double *restrict NY,
                             double *restrict NZ, double limit2, psb_vec3 *lo, psb_vec3 *hi) {
    int bad = 0;
    double lx = lo->x, ly = lo->y, lz = lo->z, hx = hi->x, hy = hi->y, hz = hi->z;
    // GCC vectorises this with the reductions spelt out; clang declines.
#if !defined(__clang__)
#pragma omp simd reduction(+ : bad) reduction(min : lx, ly, lz) reduction(max : hx, hy, hz)
#endif
    for (int i = i0; i < end; i++) {
        const double x = X[i], y = Y[i], z = Z[i];
        const double dx = x - GX[i], dy = y - GY[i], dz = z - GZ[i];
        const double d2 = dx * dx + dy * dy + dz * dz;
        // NaN or infinite: d2 is NaN or infinite too; a velocity w is finite
        // exactly when w - w is 0.
        const double dv = (VX[i] - VX[i]) + (VY[i] - VY[i]) + (VZ[i] - VZ[i]);
        bad += !(d2 <= limit2) | !(dv == 0.0);
        NX[i] = x;
        NY[i] = y;
        NZ[i] = z;
        lx = x < lx ? x : lx;
        ly = y < ly ? y : ly;
        lz = z < lz ? z : lz;
        hx = x > hx ? x : hx;
        hy = y > hy ? y : hy;
        hz = z > hz ? z : hz;
    }
    *lo = (psb_vec3){lx, ly, lz};
    *hi = (psb_vec3){hx, hy, hz};
    return bad;
}

static int guard_scan(psb_body *b, int i0, int i1, double limit2, psb_vec3 *lo, psb_vec3 *hi) {
    const int end = i1 < b->n ? i1 : b->n;
    return guard_loop(i0, end, b->x[0], b->x[1], b->x[2], b->v[0], b->v[1], b->v[2], b->x_good[0],
                      b->x_good[1], b->x_good[2], b->x_next[0], b->x_next[1], b->x_next[2], limit2,
                      lo, hi);
}

#endif
