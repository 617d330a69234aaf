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

static void add_pressure(psb_body *b, double pressure) {
    const psb_vec3 *x = b->x;
    psb_vec3 *f = b->f;
    if (b->kind == PSB_RING) {
        // Edge i -> i+1 with d = x_{i+1} - x_i: for a counter-clockwise ring
        // the outward normal times the length is (d_y, -d_x). Force P L n,
        // half to each end. Summed per point this is P dV/dx_i exactly.
        const double half = 0.5 * pressure;
        for (int i = 0; i < b->n; i++) {
            const int j = i + 1 == b->n ? 0 : i + 1;
            const double fx = half * (x[j].y - x[i].y);
            const double fy = -half * (x[j].x - x[i].x);
            f[i].x += fx;
            f[i].y += fy;
            f[j].x += fx;
            f[j].y += fy;
        }
        return;
    }
    // Triangle (a, b, c): area vector A n = (x_b - x_a) x (x_c - x_a) / 2.
    // Force P A n, a third to each corner: P/6 times the cross product.
    const double sixth = pressure / 6.0;
    for (int t = 0; t < b->tri_count; t++) {
        const int ia = b->tris[3 * t], ib = b->tris[3 * t + 1], ic = b->tris[3 * t + 2];
        const double ux = x[ib].x - x[ia].x, uy = x[ib].y - x[ia].y, uz = x[ib].z - x[ia].z;
        const double wx = x[ic].x - x[ia].x, wy = x[ic].y - x[ia].y, wz = x[ic].z - x[ia].z;
        const double fx = sixth * (uy * wz - uz * wy);
        const double fy = sixth * (uz * wx - ux * wz);
        const double fz = sixth * (ux * wy - uy * wx);
        f[ia].x += fx;
        f[ia].y += fy;
        f[ia].z += fz;
        f[ib].x += fx;
        f[ib].y += fy;
        f[ib].z += fz;
        f[ic].x += fx;
        f[ic].y += fy;
        f[ic].z += fz;
    }
}

void body_forces(psb_body *b, const psb_params *p, double t) {
    // Gravity F = m g, along -y.
    const double g = body_gravity(b, p, t);
    for (int i = 0; i < b->n; i++) {
        b->f[i] = (psb_vec3){0.0, -b->mass[i] * g, 0.0};
    }
    add_springs(b);

    // Ideal gas: P = nRT / V - P0.
    const double nrt = body_gas_nrt(b, t);
    const double volume = body_volume(b, b->x);
    const double floor_volume = MIN_VOLUME_FRACTION * b->rest_volume;
    const double pressure =
        nrt / (volume > floor_volume ? volume : floor_volume) - b->params.outside_pressure;
    b->volume = volume;
    b->nrt = nrt;
    b->pressure = pressure;
    if (pressure != 0.0) {
        add_pressure(b, pressure);
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
