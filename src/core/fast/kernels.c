// The hot loops in portable C, and the choice of the fastest version the
// CPU runs (kernels_avx2.c, kernels_avx512.c).
#include "kernel_loops.h"

// Springs and volume gradient of a shell's points in chunks [c0, c1), one
// point at a time (fan.c describes the rows). For point i and neighbour j,
// d = x_j - x_i and r = 1 / |d|:
//   F_i += (ks (1 - L0 r) + kd ((v_j - v_i) . d) r²) d      (spring, damped)
//   G_i += d_s x d_{s+1}  over the triangles (i, n_s, n_{s+1})
// and dV/dx_i = G_i / 6. The chunk's volume share is sum (x_i - o) . G_i / 18
// (1/3 from Euler's theorem, 1/6 from G). With pass->kick_h > 0,
// v_i += (kick_h / m_i) F_i instead of storing F_i (force_pass).
static void fan_forces(psb_body *b, int c0, int c1, const force_pass *pass) {
    double *ring = fans_ring(&b->fans, pass->thread);
    const double kick_h = pass->kick_h;
    const double ks = b->params.spring_k, kd = b->params.spring_damping;
    const double *X = b->x[0], *Y = b->x[1], *Z = b->x[2];
    const double *VX = b->v[0], *VY = b->v[1], *VZ = b->v[2];
    const double ox = X[0], oy = Y[0], oz = Z[0];
    const int first_block = pass->own * CHUNK_BLOCKS; // springs from before it are not ours
    for (int c = c0; c < c1; c++) {
        const int k0 = c * CHUNK_BLOCKS;
        const int k1 = k0 + CHUNK_BLOCKS < b->block_count ? k0 + CHUNK_BLOCKS : b->block_count;
        double sum = 0.0;
        for (int k = k0; k < k1; k++) {
            const int r0 = b->fans.row_start[k], r1 = b->fans.row_start[k + 1];
            fetch_ahead(b, LANES * k, pass);
            for (int lane = 0; lane < LANES; lane++) {
                const int i = LANES * k + lane;
                const double xi = X[i], yi = Y[i], zi = Z[i];
                const double vxi = VX[i], vyi = VY[i], vzi = VZ[i];
                double fx = 0.0, fy = 0.0, fz = 0.0, gx = 0.0, gy = 0.0, gz = 0.0;
                double d0x = 0.0, d0y = 0.0, d0z = 0.0, px = 0.0, py = 0.0, pz = 0.0;
                for (int r = r0; r < r1; r++) {
                    const int slot = LANES * r + lane;
                    const int j = b->fans.row_index[slot];
                    const double dx = X[j] - xi, dy = Y[j] - yi, dz = Z[j] - zi;
                    double s = 0.0;
                    if (b->fans.row_reuse_from[r] >= first_block && !b->fans.row_reuse_local[r]) {
                        s = ring[b->fans.row_partner[slot]]; // met in an earlier block
                    } else {
                        const double l2 = dx * dx + dy * dy + dz * dz;
                        if (l2 > 0.0) {
                            const double rr = 1.0 / sqrt(l2);
                            s = ks * (1.0 - b->fans.row_rest[slot] * rr);
                            if (kd != 0.0) {
                                // Undamped springs read no neighbour's
                                // velocity (a fold may be changing it).
                                const double dvd =
                                    (VX[j] - vxi) * dx + (VY[j] - vyi) * dy + (VZ[j] - vzi) * dz;
                                s += kd * dvd * (rr * rr);
                            }
                        }
                        s = b->fans.row_mask[2 * r] >> lane & 1 ? s : 0.0;
                        if (r - r0 < REUSE_ROWS) {
                            const size_t at = ring_slot(&b->fans, r - r0, i);
                            ring[at] = s;
                            if (ring_mirrored(&b->fans, i)) {
                                ring[at + (size_t)b->fans.ring_mask + 1] = s;
                            }
                        }
                    }
                    if (b->fans.row_mask[2 * r] >> lane & 1) {
                        fx += s * dx;
                        fy += s * dy;
                        fz += s * dz;
                    }
                    if (r == r0) {
                        d0x = dx;
                        d0y = dy;
                        d0z = dz;
                    } else if (b->fans.row_mask[2 * (r - 1) + 1] >> lane & 1) {
                        gx += py * dz - pz * dy;
                        gy += pz * dx - px * dz;
                        gz += px * dy - py * dx;
                    }
                    px = dx;
                    py = dy;
                    pz = dz;
                }
                if (b->fans.row_mask[2 * (r1 - 1) + 1] >> lane & 1) {
                    gx += py * d0z - pz * d0y;
                    gy += pz * d0x - px * d0z;
                    gz += px * d0y - py * d0x;
                }
                if (kick_h > 0.0) {
                    const double hm = kick_h * b->inv_mass[i];
                    b->v[0][i] = vxi + hm * fx;
                    b->v[1][i] = vyi + hm * fy;
                    b->v[2][i] = vzi + hm * fz;
                } else {
                    b->f[0][i] = fx;
                    b->f[1][i] = fy;
                    b->f[2][i] = fz;
                }
                b->grad[0][i] = gx / 6.0;
                b->grad[1][i] = gy / 6.0;
                b->grad[2][i] = gz / 6.0;
                sum += (xi - ox) * gx + (yi - oy) * gy + (zi - oz) * gz;
            }
        }
        b->vol_part[c] = sum / 18.0;
    }
}

static void forces(psb_body *b, int c0, int c1, const force_pass *pass) {
    if (b->kind == PSB_RING) {
        ring_forces(b, c0, c1);
    } else {
        fan_forces(b, c0, c1, pass);
    }
}

const psb_kernels *kernels_scalar(void) {
    static const psb_kernels k = {"scalar", forces, kick_drift, guard_scan};
    return &k;
}

const psb_kernels *kernels_best(void) {
    const psb_kernels *k = kernels_avx512();
    if (!k) {
        k = kernels_avx2();
    }
    return k ? k : kernels_scalar();
}
