// Helpers shared by the test programs: a deterministic random generator,
// small vector arithmetic, a world built from given params and a material
// given in full. All static inline, so a test that uses only some of them
// still builds without warnings.
#ifndef PSB_TEST_BODIES_H
#define PSB_TEST_BODIES_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

/// A small deterministic generator (xorshift64), uniform in [-1, 1).
static inline double rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/// a - b, component by component.
static inline psb_vec3 sub(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

/// a + b, component by component.
static inline psb_vec3 add(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x + b.x, a.y + b.y, a.z + b.z};
}

/// a times the number s.
static inline psb_vec3 scale(psb_vec3 a, double s) {
    return (psb_vec3){a.x * s, a.y * s, a.z * s};
}

/// The cross product a x b.
static inline psb_vec3 cross(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/// The dot product a . b.
static inline double dot(psb_vec3 a, psb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/// The Euclidean length of a.
static inline double norm(psb_vec3 a) {
    return sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}

/// The default parameters without gravity, floor or walls, and one sub-step
/// of h (s) per world step.
static inline psb_params free_params(double h) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    p.floor = false;
    p.walls = false;
    p.dt = h;
    p.substeps = 1;
    return p;
}

/// A world with params p; one check that it was created (NULL if not).
static inline psb_world *make_world(const psb_params *p) {
    psb_error err;
    psb_world *w = psb_world_create(p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    return w;
}

/// Whether two worlds hold the same bits: the same bodies, every point's
/// position and velocity, and the same time.
static inline bool same_bits(const psb_world *a, const psb_world *b) {
    if (psb_world_body_count(a) != psb_world_body_count(b)) {
        return false;
    }
    for (int id = 0; id < psb_world_body_count(a); id++) {
        const int n = psb_body_point_count(a, id);
        if (n != psb_body_point_count(b, id)) {
            return false;
        }
        const size_t bytes = (size_t)n * sizeof(psb_vec3);
        if (memcmp(psb_body_positions(a, id), psb_body_positions(b, id), bytes) != 0 ||
            memcmp(psb_body_velocities(a, id), psb_body_velocities(b, id), bytes) != 0) {
            return false;
        }
    }
    return psb_world_time(a) == psb_world_time(b);
}

/// A material given in full, so the tests do not move with the defaults:
/// mass 1 kg spread evenly, spring constant ks, spring damping kd, gas nRT,
/// no outside pressure and no inflation ramp.
static inline psb_body_params material(double ks, double kd, double nrt) {
    psb_body_params bp = psb_default_body_params();
    bp.mass = 1.0;
    bp.spring_k = ks;
    bp.spring_damping = kd;
    bp.gas_nrt = nrt;
    bp.outside_pressure = 0.0;
    bp.inflate_time = 0.0;
    bp.mass_by_area = false;
    return bp;
}

/// A ring of `points` points or an icosphere of `level`, of radius r (m):
/// the two kinds a test runs side by side. Checks that it was made.
static inline void ring_or_sphere(bool ring, int points, int level, double r, psb_mesh *m) {
    psb_error err = {0};
    const psb_status status =
        ring ? psb_mesh_ring(m, points, r, &err) : psb_mesh_icosphere(m, level, r, &err);
    CHECK(status == PSB_OK, "mesh: %s", err.message);
}

/// Adds mesh m as a body of material bp, moved by offset (m) and moving at
/// velocity (m/s); its id, or -1 (and a failed check) if refused.
static inline int add_moving_mesh(psb_world *w, const psb_mesh *m, psb_body_params bp,
                                  psb_vec3 offset, psb_vec3 velocity) {
    psb_body_def def = psb_mesh_body_def(m);
    def.params = bp;
    def.offset = offset;
    def.velocity = velocity;
    psb_error err;
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id >= 0, "add_body: %s", err.message);
    return id;
}

/// Two copies of shell `ball`, their centres `apart` (m) from each other
/// along x, as one closed mesh: where apart is less than the ball's
/// diameter, a body whose rest shape passes through itself (as a model's
/// ear may pass into its head), each ball's points inside the other there.
/// Its points and triangles, into *points and *triangles (to be freed).
static inline psb_body_def twin_balls(const psb_mesh *ball, double apart, psb_vec3 **points,
                                      int **triangles) {
    const int n = ball->point_count, t = ball->triangle_count;
    *points = malloc(2 * (size_t)n * sizeof **points);
    *triangles = malloc(6 * (size_t)t * sizeof **triangles);
    CHECK(*points && *triangles, "no memory for two balls of %d points", n);
    for (int i = 0; *points && i < n; i++) {
        (*points)[i] = (*points)[n + i] = ball->points[i];
        (*points)[i].x -= 0.5 * apart;
        (*points)[n + i].x += 0.5 * apart;
    }
    for (int i = 0; *triangles && i < 3 * t; i++) {
        (*triangles)[i] = ball->triangles[i];
        (*triangles)[3 * t + i] = ball->triangles[i] + n;
    }
    psb_body_def def = psb_mesh_body_def(ball);
    def.points = *points;
    def.point_count = 2 * n;
    def.triangles = *triangles;
    def.triangle_count = 2 * t;
    return def;
}

#endif
