// Wind: a steady wind with gusts, and its force on a body's surface.
//
// A surface point of area vector N_i (its share of the neighbouring
// triangles' area vectors: for a closed surface, the volume gradient the
// force pass already computes; for a ring, half of its two edges turned
// outward) feels F_i = c_d |N_i| ((w - v_i) . n_i) n_i with n_i = N_i / |N_i|
// and c_d the body's wind_drag: only the wind's part across the surface
// pushes, relative to how the surface moves.
#include <math.h>

#include "internal.h"

bool psb_params_wind_blows(const psb_params *p) {
    return p->wind.x != 0.0 || p->wind.y != 0.0 || p->wind.z != 0.0 || p->wind_turbulence > 0.0;
}

bool psb_params_air_acts(const psb_params *p) {
    return p->still_air || psb_params_wind_blows(p);
}

psb_vec3 psb_world_wind_at(const psb_world *w, psb_vec3 p, double t) {
    const psb_params *pr = &w->params;
    psb_vec3 u = pr->wind;
    const double a = pr->wind_turbulence;
    if (a > 0.0) {
        // Gusts: a field of waves 1.9-4.4 m long that the wind carries along
        // (taken at s = p - w t) and that changes slowly as it goes (periods
        // of 7-21 s in the air's frame; at a fixed point in a 6 m/s wind a
        // wave passes every 0.3-0.8 s). Each component stays within +-a.
        const double sx = p.x - u.x * t, sy = p.y - u.y * t, sz = p.z - u.z * t;
        const double g = a / 1.5;
        u.x += g * (sin(1.3 * sx + 0.7 * sy + 0.4 * t) +
                    0.5 * sin(2.9 * sz - 1.7 * sx + 0.9 * t + 1.0));
        u.y += g * (sin(1.1 * sy - 0.9 * sz + 0.3 * t + 2.0) + 0.5 * sin(2.3 * sx + 0.5 * t + 4.0));
        u.z += g * (sin(1.9 * sx + 0.5 * sy + 0.6 * t + 3.0) +
                    0.5 * sin(3.1 * sx + 1.1 * sy + 0.8 * t + 5.0));
    }
    return u;
}

void body_wind_forces(psb_body *b, const psb_world *w, double t, int i0, int i1) {
    const psb_body_params *bp = &b->params;
    const bool ring = b->kind == PSB_RING;
    for (int i = i0; i < i1; i++) {
        const double N[3] = {b->grad[0][i], b->grad[1][i], ring ? 0.0 : b->grad[2][i]};
        const double area = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
        if (!(area > 0.0)) {
            continue;
        }
        const psb_vec3 wind =
            psb_world_wind_at(w, (psb_vec3){b->x[0][i], b->x[1][i], b->x[2][i]}, t);
        const double rel[3] = {wind.x - b->v[0][i], wind.y - b->v[1][i],
                               ring ? 0.0 : wind.z - b->v[2][i]};
        // c_d |N| ((w - v) . n) n = c_d ((w - v) . N) N / |N|
        const double s = bp->wind_drag * (rel[0] * N[0] + rel[1] * N[1] + rel[2] * N[2]) / area;
        for (int c = 0; c < (ring ? 2 : 3); c++) {
            b->f[c][i] += s * N[c];
        }
    }
}
