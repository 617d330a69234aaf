// Forces on a body: gravity, damped springs, gas pressure, the grab spring.
#include <math.h>

#include "internal.h"

// Below this fraction of the rest volume the gas law is evaluated at the
// floor value instead, so P = nRT / V stays finite when a body is crushed
// flat or turned inside out.
#define MIN_VOLUME_FRACTION 1e-3

double body_volume(const psb_body *b, const psb_vec3 *x) {
    // Both formulas hold about any origin on a closed surface; taking the
    // first point as origin keeps the terms small when the body is far from
    // the world's origin, where absolute coordinates would cancel badly.
    const psb_vec3 o = x[0];
    double sum = 0.0;
    if (b->kind == PSB_RING) {
        // Shoelace (Gauss) area: V = 1/2 sum (x_i y_{i+1} - x_{i+1} y_i).
        for (int i = 0; i < b->n; i++) {
            const psb_vec3 c = x[i + 1 == b->n ? 0 : i + 1];
            sum += (x[i].x - o.x) * (c.y - o.y) - (c.x - o.x) * (x[i].y - o.y);
        }
        return 0.5 * sum;
    }
    // Divergence theorem: V = 1/6 sum over faces of x_a . (x_b x x_c).
    for (int t = 0; t < b->tri_count; t++) {
        const psb_vec3 pa = x[b->tris[3 * t]];
        const psb_vec3 pb = x[b->tris[3 * t + 1]];
        const psb_vec3 pc = x[b->tris[3 * t + 2]];
        const double ax = pa.x - o.x, ay = pa.y - o.y, az = pa.z - o.z;
        const double bx = pb.x - o.x, by = pb.y - o.y, bz = pb.z - o.z;
        const double cx = pc.x - o.x, cy = pc.y - o.y, cz = pc.z - o.z;
        sum += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
    }
    return sum / 6.0;
}

double body_gas_nrt(const psb_body *b, double t) {
    const double T = b->params.inflate_time;
    const double age = t - b->start_time;
    if (T <= 0.0 || age >= T) {
        return b->params.gas_nrt;
    }
    // Gas pumping: nRT ramps linearly from 0 to its target over T.
    return b->params.gas_nrt * (age > 0.0 ? age / T : 0.0);
}

double body_gravity(const psb_body *b, const psb_params *p, double t) {
    if (p->gravity_waits_for_gas && b->params.inflate_time > 0.0 &&
        t - b->start_time < b->params.inflate_time) {
        return 0.0;
    }
    return p->gravity;
}

static void add_springs(psb_body *b) {
    const double ks = b->params.spring_k;
    const double kd = b->params.spring_damping;
    const psb_vec3 *x = b->x;
    const psb_vec3 *v = b->v;
    psb_vec3 *f = b->f;
    for (int s = 0; s < b->spring_count; s++) {
        const int i = b->springs[2 * s];
        const int j = b->springs[2 * s + 1];
        const double dx = x[i].x - x[j].x, dy = x[i].y - x[j].y, dz = x[i].z - x[j].z;
        const double len = sqrt(dx * dx + dy * dy + dz * dz);
        if (len <= 0.0) {
            continue; // a zero-length spring has no direction
        }
        const double inv = 1.0 / len;
        const double ux = dx * inv, uy = dy * inv, uz = dz * inv;
        // Hooke plus damping along the spring:
        // f = ks (|d| - L0) + kd (v_i - v_j) . u;  F_i -= f u, F_j += f u.
        const double rel = (v[i].x - v[j].x) * ux + (v[i].y - v[j].y) * uy + (v[i].z - v[j].z) * uz;
        const double fs = ks * (len - b->rest_length[s]) + kd * rel;
        f[i].x -= fs * ux;
        f[i].y -= fs * uy;
        f[i].z -= fs * uz;
        f[j].x += fs * ux;
        f[j].y += fs * uy;
        f[j].z += fs * uz;
    }
}

// Volume and its gradient in one pass over the surface: returns V and
// leaves g_i = dV/dx_i in b->grad (zeroed by the caller), so that the gas
// force on point i is P g_i. Both are taken about the first point (see
// body_volume), which changes neither on a closed surface.
static double volume_and_gradient(psb_body *b) {
    const psb_vec3 *x = b->x;
    psb_vec3 *g = b->grad;
    const psb_vec3 o = x[0];
    double sum = 0.0;
    if (b->kind == PSB_RING) {
        // Edge i -> j = i+1, d = x_j - x_i: V gains 1/2 (x_i y_j - x_j y_i);
        // the edge's share of the gradient is 1/2 (d_y, -d_x) at each end,
        // for a counter-clockwise ring its outward normal times its length,
        // half to each end.
        for (int i = 0; i < b->n; i++) {
            const int j = i + 1 == b->n ? 0 : i + 1;
            sum += (x[i].x - o.x) * (x[j].y - o.y) - (x[j].x - o.x) * (x[i].y - o.y);
            const double gx = 0.5 * (x[j].y - x[i].y);
            const double gy = -0.5 * (x[j].x - x[i].x);
            g[i].x += gx;
            g[i].y += gy;
            g[j].x += gx;
            g[j].y += gy;
        }
        return 0.5 * sum;
    }
    // Triangle (a, b, c), u = x_b - x_a, w = x_c - x_a: its area vector is
    // A n = (u x w) / 2 and V gains 1/6 (x_a - o) . (u x w). A third of the
    // area vector goes to each corner: g = (u x w) / 6.
    for (int t = 0; t < b->tri_count; t++) {
        const int ia = b->tris[3 * t], ib = b->tris[3 * t + 1], ic = b->tris[3 * t + 2];
        const psb_vec3 a = x[ia];
        const double ux = x[ib].x - a.x, uy = x[ib].y - a.y, uz = x[ib].z - a.z;
        const double wx = x[ic].x - a.x, wy = x[ic].y - a.y, wz = x[ic].z - a.z;
        const double cx = uy * wz - uz * wy, cy = uz * wx - ux * wz, cz = ux * wy - uy * wx;
        sum += (a.x - o.x) * cx + (a.y - o.y) * cy + (a.z - o.z) * cz;
        const double gx = cx / 6.0, gy = cy / 6.0, gz = cz / 6.0;
        g[ia].x += gx;
        g[ia].y += gy;
        g[ia].z += gz;
        g[ib].x += gx;
        g[ib].y += gy;
        g[ib].z += gz;
        g[ic].x += gx;
        g[ic].y += gy;
        g[ic].z += gz;
    }
    return sum / 6.0;
}

void body_forces(psb_body *b, const psb_params *p, double t) {
    psb_profile *prof = b->profile;
    double start = prof ? profile_now() : 0.0;
    // Gravity F = m g, along -y; the gradient starts from zero.
    const double g = body_gravity(b, p, t);
    for (int i = 0; i < b->n; i++) {
        b->f[i] = (psb_vec3){0.0, -b->mass[i] * g, 0.0};
        b->grad[i] = (psb_vec3){0.0, 0.0, 0.0};
    }
    add_springs(b);
    if (prof) {
        const double now = profile_now();
        prof->springs += now - start;
        start = now;
    }

    // Ideal gas: P = nRT / V - P0, applied as P dV/dx_i by body_force().
    const double nrt = body_gas_nrt(b, t);
    const double volume = volume_and_gradient(b);
    const double floor_volume = MIN_VOLUME_FRACTION * b->rest_volume;
    b->volume = volume;
    b->nrt = nrt;
    b->pressure =
        nrt / (volume > floor_volume ? volume : floor_volume) - b->params.outside_pressure;
    if (prof) {
        prof->gas += profile_now() - start;
    }

    if (b->grab_point >= 0) {
        // Grab spring toward the target, critically damped for the point's
        // mass: F = k (target - x) - 2 sqrt(k m) v.
        const int i = b->grab_point;
        const double c = 2.0 * sqrt(b->grab_k * b->mass[i]);
        b->f[i].x += b->grab_k * (b->grab_target.x - b->x[i].x) - c * b->v[i].x;
        b->f[i].y += b->grab_k * (b->grab_target.y - b->x[i].y) - c * b->v[i].y;
        b->f[i].z += b->grab_k * (b->grab_target.z - b->x[i].z) - c * b->v[i].z;
    }
}
