// Shape matching: the rigid fit of a body's rest shape to its points, the
// pull toward it, and the damping of what is not rigid motion.
//
// After Müller et al.'s meshless deformations, as a force. The
// rest shape q_i, taken about its centroid, is moved by the rigid motion
// that fits the current points x_i best: the translation to their centroid
// c, and the rotation R that minimises sum |R q_i - r_i|^2 with r_i = x_i - c.
// Each point is then pulled toward its goal g_i = c + R q_i by a spring of
// stiffness k_shape: F_i = k_shape (g_i - x_i). As c and R are optimal, these
// forces add up to zero and have no torque about c (a body cannot push
// itself along or spin itself up), and they derive from the energy
// 1/2 k_shape sum |g_i - x_i|^2.
//
// In 2D the rotation is an angle, theta = atan2(sum q_i x r_i, sum q_i . r_i).
// In 3D it is the rotation part of the polar decomposition of
// A = sum r_i q_i^T, found with Horn's quaternion method: the unit quaternion
// of the rotation is the eigenvector of the largest eigenvalue of a
// symmetric 4x4 matrix built from A (found here by Jacobi sweeps). Unlike an
// iteration on A itself this needs no inverse, so flat bodies (a ring seen
// in 3D, a cloth) and bodies turned inside out still get a proper rotation.
//
// Shape damping drives each velocity toward the rigid-body field
// u_i = v_c + omega x (x_i - x_c) (v_c the centre-of-mass velocity, omega
// = I^-1 L from the angular momentum and the inertia tensor about the centre
// of mass): v_i <- u_i + (v_i - u_i) exp(-rate h). It removes only the
// deformation's motion: linear and angular momentum stay as they were.
//
#include <math.h>
#include <string.h>

#include "internal.h"

// Jacobi sweeps on the symmetric 4x4 matrix m (destroyed): the eigenvector
// of its largest eigenvalue, into q.
static void largest_eigenvector4(double m[4][4], double q[4]) {
    double v[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    for (int sweep = 0; sweep < 30; sweep++) {
        double off = 0.0, scale = 0.0;
        for (int i = 0; i < 4; i++) {
            scale += fabs(m[i][i]);
            for (int j = i + 1; j < 4; j++) {
                off += fabs(m[i][j]);
            }
        }
        if (off <= 1e-15 * scale || off == 0.0) {
            break;
        }
        for (int p = 0; p < 3; p++) {
            for (int r = p + 1; r < 4; r++) {
                if (m[p][r] == 0.0) {
                    continue;
                }
                // The rotation in the (p, r) plane that zeroes m[p][r].
                const double theta = (m[r][r] - m[p][p]) / (2.0 * m[p][r]);
                const double t =
                    (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 4; k++) {
                    const double mkp = m[k][p], mkr = m[k][r];
                    m[k][p] = c * mkp - s * mkr;
                    m[k][r] = s * mkp + c * mkr;
                }
                for (int k = 0; k < 4; k++) {
                    const double mpk = m[p][k], mrk = m[r][k];
                    m[p][k] = c * mpk - s * mrk;
                    m[r][k] = s * mpk + c * mrk;
                }
                for (int k = 0; k < 4; k++) {
                    const double vkp = v[k][p], vkr = v[k][r];
                    v[k][p] = c * vkp - s * vkr;
                    v[k][r] = s * vkp + c * vkr;
                }
            }
        }
    }
    int best = 0;
    for (int i = 1; i < 4; i++) {
        if (m[i][i] > m[best][best]) {
            best = i;
        }
    }
    for (int k = 0; k < 4; k++) {
        q[k] = v[k][best];
    }
}

// The rotation that maximises sum r_i . R q_i, from S = sum q_i r_i^T
// (row-major: S[3 a + b] = sum q_a r_b), by Horn's method.
static void horn_rotation(const double S[9], double R[9]) {
    const double xx = S[0], xy = S[1], xz = S[2];
    const double yx = S[3], yy = S[4], yz = S[5];
    const double zx = S[6], zy = S[7], zz = S[8];
    double N[4][4] = {
        {xx + yy + zz, yz - zy, zx - xz, xy - yx},
        {yz - zy, xx - yy - zz, xy + yx, zx + xz},
        {zx - xz, xy + yx, -xx + yy - zz, yz + zy},
        {xy - yx, zx + xz, yz + zy, -xx - yy + zz},
    };
    double q[4];
    largest_eigenvector4(N, q);
    const double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
    R[0] = 1 - 2 * (y * y + z * z);
    R[1] = 2 * (x * y - w * z);
    R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);
    R[4] = 1 - 2 * (x * x + z * z);
    R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);
    R[7] = 2 * (y * z + w * x);
    R[8] = 1 - 2 * (x * x + y * y);
}

// Where each sum lives in a chunk's row of b->extra_part: the fit's, then
// shape damping's two rounds (the mass and its moments, then the spin).
// Each round has its own place, so that a thread that starts the next round
// never overwrites sums another thread is still adding up.
enum { FIT_AT = 0, FIT_SUMS = 12, MASS_AT = 12, MASS_SUMS = 7, SPIN_AT = 19, SPIN_SUMS = 12 };

// One chunk's sums of a round: chunk c's points, into out[0 .. count).
typedef void chunk_sums(const psb_body *b, int c, const void *ctx, double *out);

// total[0 .. count) = the sums of every chunk, added in chunk order. Alone
// (a team of 1), each chunk's sums are made and added at once; in a team,
// each thread leaves its own chunks' sums in b->extra_part at `at`, and
// once all have, every thread adds them all up. The same bits either way.
static void sum_chunks(const psb_body *b, const body_part *part, int at, int count,
                       chunk_sums *sums, const void *ctx, double *total) {
    for (int j = 0; j < count; j++) {
        total[j] = 0.0;
    }
    if (part->team > 1) {
        for (int c = part->c0; c < part->c1; c++) {
            sums(b, c, ctx, b->extra_part + (size_t)c * EXTRA_SUMS + at);
        }
        team_wait(part->bar, part->team);
    }
    for (int c = 0; c < b->chunk_count; c++) {
        double own[EXTRA_SUMS];
        const double *row = b->extra_part + (size_t)c * EXTRA_SUMS + at;
        if (part->team == 1) {
            sums(b, c, ctx, own);
            row = own;
        }
        for (int j = 0; j < count; j++) {
            total[j] += row[j];
        }
    }
}

// Starts chunk c's sums: out[0 .. count) = 0, and its points [*k0, *k1).
static void chunk_start(const psb_body *b, int c, double *out, int count, int *k0, int *k1) {
    for (int j = 0; j < count; j++) {
        out[j] = 0.0;
    }
    *k0 = c * CHUNK_POINTS;
    *k1 = *k0 + CHUNK_POINTS < b->n ? *k0 + CHUNK_POINTS : b->n;
}

// The fit's sums about o (sums_origin: near the body, so that far from the
// world's origin they do not cancel): sum (x - o), and S = sum q (x - o)^T
// (row-major: S[3 a + c] = sum q_a (x_c - o_c)); as the q sum to zero, S
// is the same about any origin.
static void fit_sums(const psb_body *b, int c, const void *ctx, double *out) {
    const double *o = ctx;
    int k0, k1;
    chunk_start(b, c, out, FIT_SUMS, &k0, &k1);
    for (int k = k0; k < k1; k++) {
        const double r[3] = {b->x[0][k] - o[0], b->x[1][k] - o[1], b->x[2][k] - o[2]};
        for (int a = 0; a < 3; a++) {
            out[a] += r[a];
            for (int d = 0; d < 3; d++) {
                out[3 + 3 * a + d] += b->shape_q[a][k] * r[d];
            }
        }
    }
}

// The origin of the sums: the first point where the world step started
// (the guard's x_good), near the body, and fixed while the threads move
// their points, so that every thread takes the same one.
static void sums_origin(const psb_body *b, double o[3]) {
    for (int c = 0; c < 3; c++) {
        o[c] = b->x_good[c][0];
    }
}

void body_shape_fit(const psb_body *b, const body_part *part, double centre[3], double R[9]) {
    double o[3];
    sums_origin(b, o);
    double sums[FIT_SUMS];
    sum_chunks(b, part, FIT_AT, FIT_SUMS, fit_sums, o, sums);
    for (int c = 0; c < 3; c++) {
        centre[c] = o[c] + sums[c] / b->n;
    }
    const double *S = sums + 3;
    if (b->kind == PSB_RING) {
        // theta = atan2(sum q x r, sum q . r), about z.
        const double theta = atan2(S[1] - S[3], S[0] + S[4]);
        const double cs = cos(theta), sn = sin(theta);
        const double ring[9] = {cs, -sn, 0.0, sn, cs, 0.0, 0.0, 0.0, 1.0};
        memcpy(R, ring, sizeof ring);
        return;
    }
    horn_rotation(S, R);
}

// Point k's goal, centre + R q_k, into g.
void body_shape_goal(const psb_body *b, const double centre[3], const double R[9], int k,
                     double g[3]) {
    const double q[3] = {b->shape_q[0][k], b->shape_q[1][k], b->shape_q[2][k]};
    for (int c = 0; c < 3; c++) {
        g[c] = centre[c] + R[3 * c] * q[0] + R[3 * c + 1] * q[1] + R[3 * c + 2] * q[2];
    }
}

double body_shape_energy(const psb_body *b) {
    const double k = b->params.shape_k;
    if (!(k > 0.0)) {
        return 0.0;
    }
    double centre[3], R[9], sum = 0.0;
    const body_part whole = body_whole(b);
    body_shape_fit(b, &whole, centre, R);
    for (int i = 0; i < b->n; i++) {
        double g[3];
        body_shape_goal(b, centre, R, i, g);
        for (int c = 0; c < 3; c++) {
            sum += (g[c] - b->x[c][i]) * (g[c] - b->x[c][i]);
        }
    }
    return 0.5 * k * sum;
}

void body_shape_forces(psb_body *b, const body_part *part) {
    const double k = b->params.shape_k;
    double centre[3], R[9];
    body_shape_fit(b, part, centre, R);
    for (int i = part->i0; i < part->i1; i++) {
        double g[3];
        body_shape_goal(b, centre, R, i, g);
        for (int c = 0; c < 3; c++) {
            b->f[c][i] += k * (g[c] - b->x[c][i]);
        }
    }
}

// Solves the symmetric 3x3 system I w = L; false when I is (nearly) singular.
static bool solve3(const double I[9], const double L[3], double w[3]) {
    const double c00 = I[4] * I[8] - I[5] * I[7];
    const double c01 = I[5] * I[6] - I[3] * I[8];
    const double c02 = I[3] * I[7] - I[4] * I[6];
    const double det = I[0] * c00 + I[1] * c01 + I[2] * c02;
    const double tr = I[0] + I[4] + I[8];
    if (!(fabs(det) > 1e-12 * tr * tr * tr)) {
        return false;
    }
    const double inv[9] = {
        c00, I[2] * I[7] - I[1] * I[8], I[1] * I[5] - I[2] * I[4],
        c01, I[0] * I[8] - I[2] * I[6], I[2] * I[3] - I[0] * I[5],
        c02, I[1] * I[6] - I[0] * I[7], I[0] * I[4] - I[1] * I[3],
    };
    for (int r = 0; r < 3; r++) {
        w[r] = (inv[3 * r] * L[0] + inv[3 * r + 1] * L[1] + inv[3 * r + 2] * L[2]) / det;
    }
    return true;
}

// Shape damping's first round: the mass of chunk c's free points (pinned
// ones, of infinite mass, are left out: they do not move anyway), sum
// m (x - o) and sum m v.
static void mass_sums(const psb_body *b, int c, const void *ctx, double *out) {
    const double *o = ctx;
    int k0, k1;
    chunk_start(b, c, out, MASS_SUMS, &k0, &k1);
    for (int k = k0; k < k1; k++) {
        if (b->inv_mass[k] == 0.0) {
            continue;
        }
        const double m = b->mass[k];
        out[0] += m;
        for (int d = 0; d < 3; d++) {
            out[1 + d] += m * (b->x[d][k] - o[d]);
            out[4 + d] += m * b->v[d][k];
        }
    }
}

// The centre of mass and its velocity, for the second round.
typedef struct motion {
    double xc[3], vc[3];
} motion;

// The second round: chunk c's angular momentum L and inertia tensor I
// (row-major) about the centre of mass.
static void spin_sums(const psb_body *b, int c, const void *ctx, double *out) {
    const motion *mo = ctx;
    int k0, k1;
    chunk_start(b, c, out, SPIN_SUMS, &k0, &k1);
    double *L = out, *I = out + 3;
    for (int k = k0; k < k1; k++) {
        if (b->inv_mass[k] == 0.0) {
            continue;
        }
        const double m = b->mass[k];
        double r[3], u[3];
        for (int d = 0; d < 3; d++) {
            r[d] = b->x[d][k] - mo->xc[d];
            u[d] = b->v[d][k] - mo->vc[d];
        }
        L[0] += m * (r[1] * u[2] - r[2] * u[1]);
        L[1] += m * (r[2] * u[0] - r[0] * u[2]);
        L[2] += m * (r[0] * u[1] - r[1] * u[0]);
        const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        for (int a = 0; a < 3; a++) {
            for (int d = 0; d < 3; d++) {
                I[3 * a + d] += m * ((a == d ? r2 : 0.0) - r[a] * r[d]);
            }
        }
    }
}

void body_shape_damp(psb_body *b, const body_part *part, double h) {
    const double rate = b->params.shape_damping;
    if (!(rate > 0.0)) {
        return;
    }
    double o[3];
    sums_origin(b, o);
    double mass[MASS_SUMS];
    sum_chunks(b, part, MASS_AT, MASS_SUMS, mass_sums, o, mass);
    const double M = mass[0];
    if (!(M > 0.0)) {
        return;
    }
    motion mo;
    for (int d = 0; d < 3; d++) {
        mo.xc[d] = o[d] + mass[1 + d] / M;
        mo.vc[d] = mass[4 + d] / M;
    }
    double spin[SPIN_SUMS];
    sum_chunks(b, part, SPIN_AT, SPIN_SUMS, spin_sums, &mo, spin);
    double w[3] = {0, 0, 0};
    if (!solve3(spin + 3, spin, w)) {
        w[0] = w[1] = w[2] = 0.0; // a line of points: only the linear part
    }
    const double keep = exp(-rate * h);
    for (int k = part->i0; k < part->i1; k++) {
        if (b->inv_mass[k] == 0.0) {
            continue;
        }
        const double *xc = mo.xc, *vc = mo.vc;
        const double r[3] = {b->x[0][k] - xc[0], b->x[1][k] - xc[1], b->x[2][k] - xc[2]};
        const double u[3] = {vc[0] + w[1] * r[2] - w[2] * r[1], vc[1] + w[2] * r[0] - w[0] * r[2],
                             vc[2] + w[0] * r[1] - w[1] * r[0]};
        for (int c = 0; c < 3; c++) {
            b->v[c][k] = u[c] + (b->v[c][k] - u[c]) * keep;
        }
    }
}
