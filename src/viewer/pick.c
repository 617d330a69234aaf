// Picking: which body and point lie under a pixel of a view. In 3D the
// camera's ray through the pixel against every body's triangles (a static
// sphere in front hides what is behind it); in 2D the nearest ring point to
// the cursor, inside the ring or near its outline. And the 2D poke, which
// pushes against the ring's outward normal at the picked point.
#include "pick.h"

#include "poke.h"

#include <math.h>

// A 2D press this close to the ring's outline (or inside it) grabs it, px.
#define PICK_2D_PX 24.0

static float aspect3d(const app *a) {
    return a->view3d.h > 0 ? a->view3d.w / a->view3d.h : 1.0f;
}

bool pick_ray3d(const app *a, double fx, double fy, double o[3], double d[3]) {
    const rect r = a->view3d;
    const float nx = (float)(2.0 * (fx - r.x) / r.w - 1.0);
    const float ny = (float)(1.0 - 2.0 * (fy - r.y) / r.h);
    return camera_ray(&a->cam, aspect3d(a), nx, ny, o, d);
}

// Moller-Trumbore: distance along the ray to triangle (p0, p1, p2), or -1;
// barycentric weights of p1 and p2 in *u, *v.
static double ray_triangle(const double o[3], const double d[3], psb_vec3 p0, psb_vec3 p1,
                           psb_vec3 p2, double *u, double *v) {
    const double e1[3] = {p1.x - p0.x, p1.y - p0.y, p1.z - p0.z};
    const double e2[3] = {p2.x - p0.x, p2.y - p0.y, p2.z - p0.z};
    const double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2],
                         d[0] * e2[1] - d[1] * e2[0]};
    const double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (fabs(det) < 1e-14) {
        return -1.0;
    }
    const double inv = 1.0 / det;
    const double s[3] = {o[0] - p0.x, o[1] - p0.y, o[2] - p0.z};
    *u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
    if (*u < 0.0 || *u > 1.0) {
        return -1.0;
    }
    const double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2],
                         s[0] * e1[1] - s[1] * e1[0]};
    *v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
    if (*v < 0.0 || *u + *v > 1.0) {
        return -1.0;
    }
    return (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
}

// Does the ray pass within the body's bounding sphere (centroid, largest
// distance of a point from it)?
static bool ray_near_body(const app *a, int b, const double o[3], const double d[3]) {
    const psb_vec3 *x = psb_body_positions(a->scene.world, b);
    const int n = psb_body_point_count(a->scene.world, b);
    const psb_vec3 c = a->state[b].centroid;
    double r2 = 0.0;
    for (int i = 0; i < n; i++) {
        const double dx = x[i].x - c.x, dy = x[i].y - c.y, dz = x[i].z - c.z;
        r2 = fmax(r2, dx * dx + dy * dy + dz * dz);
    }
    const double w[3] = {c.x - o[0], c.y - o[1], c.z - o[2]};
    const double t = w[0] * d[0] + w[1] * d[1] + w[2] * d[2];
    const double dist2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2] - t * t;
    return dist2 <= r2 * 1.0001;
}

// Distance along the ray (unit d) to the static sphere (c, r), or -1 if missed.
static double ray_sphere(const double o[3], const double d[3], psb_vec3 c, double r) {
    const double w[3] = {o[0] - c.x, o[1] - c.y, o[2] - c.z};
    // |o + t d - c|^2 = r^2: t^2 + 2 b t + k = 0 with b = w . d, k = |w|^2 - r^2.
    const double b = w[0] * d[0] + w[1] * d[1] + w[2] * d[2];
    const double k = w[0] * w[0] + w[1] * w[1] + w[2] * w[2] - r * r;
    const double disc = b * b - k;
    if (disc < 0.0) {
        return -1.0;
    }
    const double t = -b - sqrt(disc);
    return t > 0.0 ? t : -1.0;
}

bool pick_3d(const app *a, const double o[3], const double d[3], int *body, int *point,
             double hit[3]) {
    const psb_world *w = a->scene.world;
    double best = INFINITY;
    *body = -1;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (a->vertex_base[b] < 0 || !ray_near_body(a, b, o, d)) {
            continue;
        }
        int tri_count = 0;
        const int *tris = psb_body_triangles(w, b, &tri_count);
        const psb_vec3 *x = psb_body_positions(w, b);
        for (int t = 0; t < tri_count; t++) {
            const int *c = tris + 3 * t;
            double u = 0.0, v = 0.0;
            const double dist = ray_triangle(o, d, x[c[0]], x[c[1]], x[c[2]], &u, &v);
            if (dist > 0.0 && dist < best) {
                best = dist;
                *body = b;
                const double w0 = 1.0 - u - v;
                *point = w0 >= u && w0 >= v ? c[0] : u >= v ? c[1] : c[2];
            }
        }
    }
    for (int k = 0; k < psb_world_sphere_count(w) && *body >= 0; k++) {
        psb_vec3 c;
        double r;
        psb_world_sphere(w, k, &c, &r);
        const double dist = ray_sphere(o, d, c, r);
        if (dist > 0.0 && dist < best) {
            *body = -1;
        }
    }
    if (*body < 0) {
        return false;
    }
    for (int i = 0; i < 3; i++) {
        hit[i] = o[i] + best * d[i];
    }
    return true;
}

// Is (x, y) inside ring b (even-odd rule)?
static bool inside_ring(const psb_vec3 *p, int n, double x, double y) {
    bool in = false;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        if ((p[i].y > y) != (p[j].y > y) &&
            x < (p[j].x - p[i].x) * (y - p[i].y) / (p[j].y - p[i].y) + p[i].x) {
            in = !in;
        }
    }
    return in;
}

// Within PICK_2D_PX pixels of a ring point counts as on the ring.
bool pick_2d(const app *a, double x, double y, int *body, int *point) {
    double best = INFINITY;
    *body = -1;
    const double reach = PICK_2D_PX * a->ui_scale / a->view2d_scale;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (psb_body_get_kind(a->scene.world, b) != PSB_RING) {
            continue;
        }
        const psb_vec3 *p = psb_body_positions(a->scene.world, b);
        const int n = psb_body_point_count(a->scene.world, b);
        const bool in = inside_ring(p, n, x, y);
        for (int i = 0; i < n; i++) {
            const double d = hypot(p[i].x - x, p[i].y - y);
            if ((in || d <= reach) && d < best) {
                best = d;
                *body = b;
                *point = i;
            }
        }
    }
    return *body >= 0;
}

void pick_poke2d(app *a, int b, int i) {
    const psb_vec3 *p = psb_body_positions(a->scene.world, b);
    const int n = psb_body_point_count(a->scene.world, b);
    const psb_vec3 prev = p[(i + n - 1) % n], next = p[(i + 1) % n];
    // Counter-clockwise ring: the outward normal of the chord prev -> next is (dy, -dx).
    double nx = next.y - prev.y, ny = -(next.x - prev.x);
    const double len = hypot(nx, ny);
    if (!(len > 0.0)) {
        return;
    }
    const double centre[3] = {p[i].x, p[i].y, 0.0}, dir[3] = {-nx / len, -ny / len, 0.0};
    poke_start(a, b, centre, dir);
    a->drag = DRAG_POKE;
}
