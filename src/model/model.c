// The model in one place, written plainly: psb's physics as a student reads
// it, and the reference that the fast step in src/core is tested against.
//
// A body is n mass points x_i (m) with velocities v_i (m/s) and masses m_i
// (kg). Every step adds up, on each point,
//   springs   F_i = -[ks (l - L0) + kd (v_i - v_j) . u] u for each spring
//             (i, j), d = x_i - x_j, l = |d|, u = d / l (N; ks in N/m, kd in
//             N s/m), and the opposite on j;
//   gas       F_i = P dV/dx_i with P = nRT / V - P0 (Pa; 2D: N/m): the ideal
//             gas pushing on the faces round i. V is the volume (2D: area)
//             the surface encloses, by the divergence theorem;
//   gravity   F_i = -m_i g y^;
//   grab      F = k (target - x) - 2 sqrt(k m) v on the grabbed point;
//   air       F = c_d |N| ((w - v) . n) n, the wind w (or still air) across
//             the surface round the point (area vector N, normal n);
// then moves the points by an integrator (explicit here; the solved ones in
// model_implicit.c) and puts any point that went into the floor, a wall or
// a sphere back on its surface, its velocity into it reversed by the
// restitution e and the rest kept by exp(-mu h) (friction). Once every body
// has taken its sub-steps, the bodies are kept out of each other
// (model_contact.c). Units are SI.
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"

// ---------------------------------------------------------------------------
// The gas.

// V = 1/6 sum over triangles of x_a . (x_b x x_c) (the divergence theorem:
// each triangle with the origin spans a tetrahedron of a sixth of that
// triple product), or on a ring the shoelace area 1/2 sum (x_i y_{i+1} -
// x_{i+1} y_i). Both hold about any origin of a closed surface; the first
// point as origin keeps the terms small far from the world's origin.
double model_volume(const model_body *b, const psb_vec3 *x) {
    const psb_vec3 o = x[0];
    double sum = 0.0;
    if (b->kind == PSB_RING) {
        for (int i = 0; i < b->n; i++) {
            const psb_vec3 p = sub(x[i], o), q = sub(x[(i + 1) % b->n], o);
            sum += p.x * q.y - q.x * p.y;
        }
        return 0.5 * sum;
    }
    if (b->kind == PSB_CLOTH) {
        return 0.0; // open: it encloses nothing
    }
    for (int t = 0; t < b->tri_count; t++) {
        const int *c = &b->tri[3 * t];
        sum += dot(sub(x[c[0]], o), cross(sub(x[c[1]], o), sub(x[c[2]], o)));
    }
    return sum / 6.0;
}

// g_i = dV/dx_i: on a shell 1/6 (x_b - x_i) x (x_c - x_i) for each
// triangle (i, b, c) (the triangle's area vector, a third of it, with the
// 1/2 of the cross product: 1/3 x 1/2 = 1/6), on a ring 1/2 (y_{i+1} -
// y_{i-1}, x_{i-1} - x_{i+1}): the outward normal of the two half edges at
// i. On a cloth, the same sum is the area vector the wind pushes on.
void model_volume_gradient(const model_body *b, const psb_vec3 *x, psb_vec3 *g) {
    for (int i = 0; i < b->n; i++) {
        g[i] = (psb_vec3){0.0, 0.0, 0.0};
    }
    if (b->kind == PSB_RING) {
        for (int i = 0; i < b->n; i++) {
            const psb_vec3 next = x[(i + 1) % b->n], prev = x[(i + b->n - 1) % b->n];
            g[i] = (psb_vec3){0.5 * (next.y - prev.y), 0.5 * (prev.x - next.x), 0.0};
        }
        return;
    }
    for (int t = 0; t < b->tri_count; t++) {
        const int *c = &b->tri[3 * t];
        for (int k = 0; k < 3; k++) {
            const psb_vec3 at = x[c[k]];
            const psb_vec3 p = sub(x[c[(k + 1) % 3]], at), q = sub(x[c[(k + 2) % 3]], at);
            g[c[k]] = axpy(g[c[k]], 1.0 / 6.0, cross(p, q));
        }
    }
}

// The air on each point, into f (added): F = c_d |N| ((w - v) . n) n with N
// the point's area vector (dV/dx: a third of its triangles', half of its
// ring edges'), n = N / |N| and c_d the body's wind_drag; w is the steady
// wind (0 in still air). Only what moves across the surface is pushed.
void model_air(const psb_model *m, model_body *b, const psb_vec3 *x, const psb_vec3 *v,
               psb_vec3 *f) {
    const bool surface = b->tri_count > 0 || b->kind == PSB_RING;
    if (!surface || !(b->params.wind_drag > 0.0) || !psb_params_air_acts(&m->params)) {
        return;
    }
    model_volume_gradient(b, x, b->g);
    for (int i = 0; i < b->n; i++) {
        const double area = norm(b->g[i]);
        if (area > 0.0) {
            // c_d |N| ((w - v) . n) n = c_d ((w - v) . N) N / |N|
            const double push =
                b->params.wind_drag * dot(sub(m->params.wind, v[i]), b->g[i]) / area;
            f[i] = axpy(f[i], push, b->g[i]);
        }
    }
}

// nRT ramps from 0 to its target over inflate_time (the gas being pumped in).
double model_gas_nrt(const model_body *b, double t) {
    const double T = b->params.inflate_time, age = t - b->start_time;
    if (T <= 0.0 || age >= T) {
        return b->params.gas_nrt;
    }
    return b->params.gas_nrt * (age > 0.0 ? age / T : 0.0);
}

double model_gravity(const model_body *b, const psb_params *p, double t) {
    const bool pumping = b->params.inflate_time > 0.0 && t - b->start_time < b->params.inflate_time;
    return p->gravity_waits_for_gas && pumping ? 0.0 : p->gravity;
}

// Below a thousandth of the rest volume the gas law is taken at that
// volume, so P stays finite when a body is crushed flat or turned inside out.
double model_floor_volume(const model_body *b) {
    return 1e-3 * b->rest_volume;
}

// P = nRT / V - P0.
double model_pressure(const model_body *b, double nrt, double volume) {
    if (b->kind == PSB_CLOTH) {
        return 0.0;
    }
    return nrt / fmax(volume, model_floor_volume(b)) - b->params.outside_pressure;
}

// ---------------------------------------------------------------------------
// Forces and the explicit integrators.

// F on every point at the positions x and velocities v at time t, into f.
static void forces(const psb_model *m, model_body *b, const psb_vec3 *x, const psb_vec3 *v,
                   double t, psb_vec3 *f) {
    const double g = model_gravity(b, &m->params, t);
    for (int i = 0; i < b->n; i++) {
        f[i] = (psb_vec3){0.0, -b->mass[i] * g, 0.0};
    }
    const double ks = b->params.spring_k, kd = b->params.spring_damping;
    for (int s = 0; s < b->spring_count; s++) {
        const int i = b->spring[2 * s], j = b->spring[2 * s + 1];
        const psb_vec3 d = sub(x[i], x[j]);
        const double l = norm(d);
        if (l <= 0.0) {
            continue; // no direction to push along
        }
        const psb_vec3 u = scale(1.0 / l, d);
        const double tension = ks * (l - b->rest[s]) + kd * dot(sub(v[i], v[j]), u);
        f[i] = axpy(f[i], -tension, u);
        f[j] = axpy(f[j], tension, u);
    }
    if (b->kind != PSB_CLOTH) {
        const double P = model_pressure(b, model_gas_nrt(b, t), model_volume(b, x));
        model_volume_gradient(b, x, b->g);
        for (int i = 0; i < b->n; i++) {
            f[i] = axpy(f[i], P, b->g[i]);
        }
    }
    if (b->grab_point >= 0) {
        const int k = b->grab_point;
        const double c = 2.0 * sqrt(b->grab_k * b->mass[k]);
        f[k] = add(f[k], sub(scale(b->grab_k, sub(b->grab_target, x[k])), scale(c, v[k])));
    }
    model_air(m, b, x, v, f);
}

// a_i = F_i / m_i, and 0 on a pinned point (infinitely heavy).
static psb_vec3 accel(const model_body *b, const psb_vec3 *f, int i) {
    return b->pinned[i] ? (psb_vec3){0.0, 0.0, 0.0} : scale(1.0 / b->mass[i], f[i]);
}

// One explicit Runge-Kutta stage from the start (x0, v0): the slope at the
// current (x, v) is added to the sums (sx, sv) with weight w, and the next
// trial state is x = x0 + c v, v = v0 + c a.
static void rk_stage(const psb_model *m, model_body *b, double t, double w, double c) {
    forces(m, b, b->x, b->v, t, b->f);
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 vi = b->v[i], ai = accel(b, b->f, i);
        b->sx[i] = axpy(b->sx[i], w, vi);
        b->sv[i] = axpy(b->sv[i], w, ai);
        b->x[i] = axpy(b->x0[i], c, vi);
        b->v[i] = axpy(b->v0[i], c, ai);
    }
}

// Runge-Kutta methods as weights: stage k is taken at t + at[k] from the
// start moved by c[k] times the last slope, adds weight[k] times its slope
// to the sums, and the step is x0 + (h / total) sum. Heun: slopes at t and
// t + h, averaged; RK4: 1, 2, 2, 1 at t, t + h/2, t + h/2, t + h.
static void runge_kutta(const psb_model *m, model_body *b, double t, double h, int stages,
                        const double at[], const double weight[], double total) {
    for (int i = 0; i < b->n; i++) {
        b->x0[i] = b->x[i];
        b->v0[i] = b->v[i];
        b->sx[i] = b->sv[i] = (psb_vec3){0.0, 0.0, 0.0};
    }
    for (int k = 0; k < stages; k++) {
        const double next = k + 1 < stages ? at[k + 1] * h : 0.0;
        rk_stage(m, b, t + at[k] * h, weight[k], next);
    }
    for (int i = 0; i < b->n; i++) {
        b->x[i] = axpy(b->x0[i], h / total, b->sx[i]);
        b->v[i] = axpy(b->v0[i], h / total, b->sv[i]);
    }
}

static void explicit_step(const psb_model *m, model_body *b, double t, double h) {
    switch (m->params.integrator) {
    case PSB_EULER: // x += h v(t), v += h a(t)
        forces(m, b, b->x, b->v, t, b->f);
        for (int i = 0; i < b->n; i++) {
            b->x[i] = axpy(b->x[i], h, b->v[i]);
            b->v[i] = axpy(b->v[i], h, accel(b, b->f, i));
        }
        return;
    case PSB_SYMPLECTIC_EULER: // v += h a(t), then x += h v(t + h)
        forces(m, b, b->x, b->v, t, b->f);
        for (int i = 0; i < b->n; i++) {
            b->v[i] = axpy(b->v[i], h, accel(b, b->f, i));
            b->x[i] = axpy(b->x[i], h, b->v[i]);
        }
        return;
    case PSB_HEUN: {
        const double at[] = {0.0, 1.0}, weight[] = {1.0, 1.0};
        runge_kutta(m, b, t, h, 2, at, weight, 2.0);
        return;
    }
    case PSB_RK4: {
        const double at[] = {0.0, 0.5, 0.5, 1.0}, weight[] = {1.0, 2.0, 2.0, 1.0};
        runge_kutta(m, b, t, h, 4, at, weight, 6.0);
        return;
    }
    case PSB_VERLET: // v += h/2 a(t); x += h v; v += h/2 a(t + h), damping on the half-step v
        forces(m, b, b->x, b->v, t, b->f);
        for (int i = 0; i < b->n; i++) {
            b->v[i] = axpy(b->v[i], 0.5 * h, accel(b, b->f, i));
            b->x[i] = axpy(b->x[i], h, b->v[i]);
        }
        forces(m, b, b->x, b->v, t + h, b->f);
        for (int i = 0; i < b->n; i++) {
            b->v[i] = axpy(b->v[i], 0.5 * h, accel(b, b->f, i));
        }
        return;
    default:
        return;
    }
}

// ---------------------------------------------------------------------------
// Contacts: the floor y = floor_y, the walls' box and static spheres (a
// ring, in the plane z = 0, meets a sphere's cross-section with it).

// The sphere s as the body meets it: a ring, in the plane z = 0, meets its
// cross-section with that plane (radius 0 if they miss).
void model_sphere_seen(const psb_model *m, const model_body *b, int s, psb_vec3 *centre,
                       double *radius) {
    *centre = m->sphere_centre[s];
    *radius = m->sphere_radius[s];
    if (b->kind == PSB_RING) {
        const double r2 = *radius * *radius - centre->z * centre->z;
        *radius = r2 > 0.0 ? sqrt(r2) : 0.0;
        centre->z = 0.0;
    }
}

// Whether a coordinate is below a limit: strictly, or within
// slack (1 + |limit|) of it (a slack relative to the coordinates' size).
static bool below(double value, double limit, double slack) {
    return slack > 0.0 ? value <= limit + slack * (1.0 + fabs(limit)) : value < limit;
}

// The normals (out of the colliders) of those that x is inside, or within
// slack of; returns their count (at most 8). The spheres only if asked (the
// solved step sees them as planes).
int model_contact_normals(const psb_model *m, const model_body *b, psb_vec3 x, double slack,
                          bool with_spheres, psb_vec3 normals[8]) {
    const psb_params *p = &m->params;
    int count = 0;
    if (p->floor && below(x.y, p->floor_y, slack)) {
        normals[count++] = (psb_vec3){0.0, 1.0, 0.0};
    }
    if (p->walls) {
        const double c[3] = {x.x, x.y, x.z};
        const double lo[3] = {p->walls_min.x, p->walls_min.y, p->walls_min.z};
        const double hi[3] = {p->walls_max.x, p->walls_max.y, p->walls_max.z};
        for (int a = 0; a < (b->kind == PSB_RING ? 2 : 3); a++) {
            const double side = below(c[a], lo[a], slack)     ? 1.0
                                : below(-c[a], -hi[a], slack) ? -1.0
                                                              : 0.0;
            if (side != 0.0) {
                psb_vec3 n = {0.0, 0.0, 0.0};
                *(a == 0 ? &n.x : a == 1 ? &n.y : &n.z) = side;
                normals[count++] = n;
            }
        }
    }
    for (int s = 0; with_spheres && s < m->sphere_count && count < 8; s++) {
        psb_vec3 centre;
        double r;
        model_sphere_seen(m, b, s, &centre, &r);
        const psb_vec3 d = sub(x, centre);
        const double dist = norm(d);
        if (r > 0.0 && below(dist, r, slack)) {
            // At the very centre there is no direction: out is up.
            normals[count++] = dist > 0.0 ? scale(1.0 / dist, d) : (psb_vec3){0.0, 1.0, 0.0};
        }
    }
    return count;
}

// Moves x out of the colliders it is inside, onto their surfaces: the
// floor, then each wall, then each sphere (if asked), as the fast step does.
void model_push_out(const psb_model *m, const model_body *b, psb_vec3 *x, bool with_spheres) {
    const psb_params *p = &m->params;
    if (p->floor && x->y < p->floor_y) {
        x->y = p->floor_y;
    }
    if (p->walls) {
        x->x = fmin(fmax(x->x, p->walls_min.x), p->walls_max.x);
        x->y = fmin(fmax(x->y, p->walls_min.y), p->walls_max.y);
        if (b->kind != PSB_RING) {
            x->z = fmin(fmax(x->z, p->walls_min.z), p->walls_max.z);
        }
    }
    for (int s = 0; with_spheres && s < m->sphere_count; s++) {
        psb_vec3 centre;
        double r;
        model_sphere_seen(m, b, s, &centre, &r);
        const psb_vec3 d = sub(*x, centre);
        const double dist = norm(d);
        if (dist < r) {
            *x = axpy(centre, r, dist > 0.0 ? scale(1.0 / dist, d) : (psb_vec3){0.0, 1.0, 0.0});
        }
    }
}

// A point's velocity at a surface of normal n: its normal part, if into
// the surface, becomes -e times itself; its tangential part is kept by
// exp(-mu h) (keep).
psb_vec3 model_bounce(const psb_model *m, psb_vec3 v, psb_vec3 n, double keep) {
    double vn = dot(v, n);
    const psb_vec3 vt = axpy(v, -vn, n);
    vn = vn < 0.0 ? -m->params.restitution * vn : vn;
    return axpy(scale(keep, vt), vn, n);
}

// After a sub-step h: every point inside a collider, or within slack of one,
// goes onto its surface and bounces off it (model_bounce): the floor first,
// then each wall, then each sphere, each seeing where the last left it.
void model_contact_response(const psb_model *m, model_body *b, double h, double slack,
                            bool with_spheres) {
    const psb_params *p = &m->params;
    const double keep = exp(-p->friction * h);
    for (int i = 0; i < b->n; i++) {
        psb_vec3 *x = &b->x[i], *v = &b->v[i];
        if (p->floor && below(x->y, p->floor_y, slack)) {
            x->y = fmax(x->y, p->floor_y);
            *v = model_bounce(m, *v, (psb_vec3){0.0, 1.0, 0.0}, keep);
        }
        for (int a = 0; p->walls && a < (b->kind == PSB_RING ? 2 : 3); a++) {
            double *c = a == 0 ? &x->x : a == 1 ? &x->y : &x->z;
            const double lo = a == 0 ? p->walls_min.x : a == 1 ? p->walls_min.y : p->walls_min.z;
            const double hi = a == 0 ? p->walls_max.x : a == 1 ? p->walls_max.y : p->walls_max.z;
            const double side = below(*c, lo, slack) ? 1.0 : below(-*c, -hi, slack) ? -1.0 : 0.0;
            if (side != 0.0) {
                *c = fmin(fmax(*c, lo), hi);
                const psb_vec3 n = {a == 0 ? side : 0.0, a == 1 ? side : 0.0, a == 2 ? side : 0.0};
                *v = model_bounce(m, *v, n, keep);
            }
        }
        for (int s = 0; with_spheres && s < m->sphere_count; s++) {
            psb_vec3 centre;
            double r;
            model_sphere_seen(m, b, s, &centre, &r);
            const double dist = norm(sub(*x, centre));
            if (r > 0.0 && below(dist, r, slack)) {
                const psb_vec3 n =
                    dist > 0.0 ? scale(1.0 / dist, sub(*x, centre)) : (psb_vec3){0.0, 1.0, 0.0};
                *x = dist < r ? axpy(centre, r, n) : *x;
                *v = model_bounce(m, *v, n, keep);
            }
        }
    }
}

void model_hold_pins(model_body *b) {
    for (int i = 0; i < b->n; i++) {
        if (b->pinned[i]) {
            b->x[i] = b->pin_at[i];
            b->v[i] = (psb_vec3){0.0, 0.0, 0.0};
        }
    }
}

// ---------------------------------------------------------------------------
// The world.

void psb_model_step(psb_model *m) {
    const psb_params *p = &m->params;
    const double h = p->dt / p->substeps;
    m->report = (psb_solver_report){0, 0, 0.0, 0.0, psb_integrator_is_implicit(p->integrator), 0};
    // Contact inside the solve: every body's sub-step at once, those that
    // may touch solved together (model_implicit.c).
    const bool together = model_solves_contact(m);
    m->link_count = 0;
    for (int k = 0; k < m->body_count; k++) {
        model_body *b = m->bodies[k];
        for (int i = 0; i < b->n; i++) {
            b->x_step[i] = b->x[i]; // where the world step starts: for contact
            b->v_step[i] = b->v[i];
        }
        for (int s = 0; s < p->substeps && !together; s++) {
            const double t = m->time + s * h;
            if (psb_integrator_is_implicit(p->integrator)) {
                model_implicit_step(m, b, t, h); // contacts and pins inside
                continue;
            }
            explicit_step(m, b, t, h);
            model_contact_response(m, b, h, 0.0, true);
            model_hold_pins(b);
        }
    }
    for (int s = 0; s < p->substeps && together; s++) {
        model_implicit_world_step(m, m->time + s * h, h);
    }
    m->link_forces_kept = m->link_forces_kept && together;
    model_body_contact(m); // model_contact.c: the bodies against each other
    m->time += p->dt;
    m->steps++;
}
