// A textbook pressure soft body, kept deliberately plain: it is what psb's
// step is compared with in `psb bench`, not code psb runs.
#include "bench_textbook.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

typedef struct point {
    psb_vec3 x, v, f;
    double mass;
} point;

typedef struct spring {
    int i, j;
    double rest;
} spring;

typedef struct face {
    int a, b, c;
} face;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static psb_vec3 sub(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static psb_vec3 cross(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

static double dot(psb_vec3 a, psb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static void step(point *pts, int n, const spring *springs, int spring_count, const face *faces,
                 int face_count, const psb_body_params *bp, double gravity, double floor_y,
                 double restitution, double friction, double h) {
    for (int i = 0; i < n; i++) {
        pts[i].f = (psb_vec3){0.0, -pts[i].mass * gravity, 0.0};
    }
    for (int s = 0; s < spring_count; s++) {
        point *a = &pts[springs[s].i], *b = &pts[springs[s].j];
        const psb_vec3 d = sub(a->x, b->x);
        const double len = sqrt(dot(d, d));
        if (len <= 0.0) {
            continue;
        }
        const psb_vec3 u = {d.x / len, d.y / len, d.z / len};
        const double f =
            bp->spring_k * (len - springs[s].rest) + bp->spring_damping * dot(sub(a->v, b->v), u);
        a->f.x -= f * u.x;
        a->f.y -= f * u.y;
        a->f.z -= f * u.z;
        b->f.x += f * u.x;
        b->f.y += f * u.y;
        b->f.z += f * u.z;
    }
    double volume = 0.0;
    for (int t = 0; t < face_count; t++) {
        volume += dot(pts[faces[t].a].x, cross(pts[faces[t].b].x, pts[faces[t].c].x)) / 6.0;
    }
    const double pressure = bp->gas_nrt / volume - bp->outside_pressure;
    for (int t = 0; t < face_count; t++) {
        point *a = &pts[faces[t].a], *b = &pts[faces[t].b], *c = &pts[faces[t].c];
        const psb_vec3 area = cross(sub(b->x, a->x), sub(c->x, a->x));
        const double k = pressure / 6.0;
        point *corners[3] = {a, b, c};
        for (int q = 0; q < 3; q++) {
            corners[q]->f.x += k * area.x;
            corners[q]->f.y += k * area.y;
            corners[q]->f.z += k * area.z;
        }
    }
    const double keep = exp(-friction * h);
    for (int i = 0; i < n; i++) {
        point *p = &pts[i];
        p->v.x += h * p->f.x / p->mass;
        p->v.y += h * p->f.y / p->mass;
        p->v.z += h * p->f.z / p->mass;
        p->x.x += h * p->v.x;
        p->x.y += h * p->v.y;
        p->x.z += h * p->v.z;
        if (p->x.y < floor_y) {
            p->x.y = floor_y;
            if (p->v.y < 0.0) {
                p->v.y = -restitution * p->v.y;
            }
            p->v.x *= keep;
            p->v.z *= keep;
        }
    }
}

double psb_textbook_run(const psb_body_def *def, const int *edges, int edge_count, double gravity,
                        double floor_y, double restitution, double friction, double h, long steps) {
    const int n = def->point_count;
    point *pts = malloc((size_t)n * sizeof *pts);
    spring *springs = malloc((size_t)edge_count * sizeof *springs);
    face *faces = malloc((size_t)def->triangle_count * sizeof *faces);
    if (!pts || !springs || !faces) {
        free(pts);
        free(springs);
        free(faces);
        return -1.0;
    }
    for (int i = 0; i < n; i++) {
        const psb_vec3 p = def->points[i];
        pts[i] = (point){.x = {p.x + def->offset.x, p.y + def->offset.y, p.z + def->offset.z},
                         .v = def->velocity,
                         .mass = def->params.mass / n};
    }
    const psb_vec3 *rest = def->rest_points ? def->rest_points : def->points;
    for (int s = 0; s < edge_count; s++) {
        const int i = edges[2 * s], j = edges[2 * s + 1];
        springs[s] = (spring){i, j, sqrt(dot(sub(rest[i], rest[j]), sub(rest[i], rest[j])))};
    }
    for (int t = 0; t < def->triangle_count; t++) {
        faces[t] =
            (face){def->triangles[3 * t], def->triangles[3 * t + 1], def->triangles[3 * t + 2]};
    }
    const double start = now_ns();
    for (long k = 0; k < steps; k++) {
        step(pts, n, springs, edge_count, faces, def->triangle_count, &def->params, gravity,
             floor_y, restitution, friction, h);
    }
    const double elapsed = now_ns() - start;
    free(pts);
    free(springs);
    free(faces);
    return elapsed;
}
