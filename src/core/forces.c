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
    if (b->kind == PSB_CLOTH) {
        return 0.0; // open: it encloses nothing
    }
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

double body_pressure(const psb_body *b, double nrt, double volume) {
    if (b->kind == PSB_CLOTH) {
        return 0.0; // no gas
    }
    // Ideal gas: P = nRT / V - P0, with V held above a floor so that P stays
    // finite when a body is crushed flat or turned inside out.
    const double floor_volume = MIN_VOLUME_FRACTION * b->rest_volume;
    return nrt / (volume > floor_volume ? volume : floor_volume) - b->params.outside_pressure;
}

double body_volume_sum(const psb_body *b) {
    // In chunk order, whatever the number of threads that filled them.
    double sum = 0.0;
    for (int c = 0; c < b->chunk_count; c++) {
        sum += b->vol_part[c];
    }
    return sum;
}

psb_vec3 body_grab_force(const psb_body *b, int k) {
    // Grab spring toward the target, critically damped for the point's
    // mass: F = k (target - x) - 2 sqrt(k m) v.
    const double c = 2.0 * sqrt(b->grab_k * b->mass[k]);
    return (psb_vec3){b->grab_k * (b->grab_target.x - b->x[0][k]) - c * b->v[0][k],
                      b->grab_k * (b->grab_target.y - b->x[1][k]) - c * b->v[1][k],
                      b->grab_k * (b->grab_target.z - b->x[2][k]) - c * b->v[2][k]};
}

double body_part_gas(psb_body *b, const psb_world *w, const body_part *part, double t,
                     double kick_h) {
    psb_profile *prof = part->thread == 0 ? b->profile : NULL;
    const double start = prof ? profile_now() : 0.0;
    if (part->team > 1) {
        team_wait(part->bar, part->team); // every point is where these forces are taken
    }
    // Springs and the volume gradient in one pass over the fans (fast/fan.c).
    const force_pass pass = {.own = part->c0, .thread = part->thread, .kick_h = kick_h};
    w->kernels->forces(b, part->c0, part->c1, &pass);
    if (part->team > 1) {
        team_wait(part->bar, part->team); // every chunk's share of the volume is in
    }
    const double mid = prof ? profile_now() : 0.0;
    // The same sum, in chunk order, on every thread; thread 0 files it.
    const double volume = body_volume_sum(b);
    const double nrt = body_gas_nrt(b, t);
    const double pressure = body_pressure(b, nrt, volume);
    if (part->thread == 0) {
        b->volume = volume;
        b->nrt = nrt;
        b->pressure = pressure;
    }
    if (prof) {
        prof->springs += mid - start;
        prof->gas += profile_now() - mid;
    }
    return pressure;
}

double body_part_forces(psb_body *b, const psb_world *w, const body_part *part, double t) {
    const double pressure = body_part_gas(b, w, part, t, 0.0);
    psb_profile *prof = part->thread == 0 ? b->profile : NULL;
    const double start = prof ? profile_now() : 0.0;
    // Gravity F = m g, along -y.
    const double g = body_gravity(b, &w->params, t);
    if (g != 0.0) {
        for (int k = part->i0; k < part->i1; k++) {
            b->f[1][k] -= b->mass[k] * g;
        }
    }
    const int k = b->grab_point >= 0 ? b->rank[b->grab_point] : -1;
    if (k >= part->i0 && k < part->i1) {
        const psb_vec3 fg = body_grab_force(b, k);
        b->f[0][k] += fg.x;
        b->f[1][k] += fg.y;
        b->f[2][k] += fg.z;
    }
    body_extra_forces(b, w, part, t);
    if (prof) {
        prof->gas += profile_now() - start;
    }
    return pressure;
}

void body_forces(psb_body *b, const psb_world *w, double t) {
    const body_part whole = body_whole(b);
    body_part_forces(b, w, &whole, t);
}

bool body_has_extras(const psb_body *b, const psb_world *w) {
    const psb_body_params *bp = &b->params;
    const bool has_surface = b->tri_count > 0 || b->kind == PSB_RING;
    return bp->shape_k > 0.0 || bp->shape_damping > 0.0 ||
           (bp->wind_drag > 0.0 && has_surface && psb_params_air_acts(&w->params));
}

void body_extra_forces(psb_body *b, const psb_world *w, const body_part *part, double t) {
    if (b->params.shape_k > 0.0) {
        body_shape_forces(b, part);
    }
    if (b->params.wind_drag > 0.0 && psb_params_air_acts(&w->params)) {
        body_wind_forces(b, w, t, part->i0, part->i1);
    }
}
