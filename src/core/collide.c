// Collisions with the world: floor plane, box walls, static spheres.
//
// A point inside a collider with outward normal n and depth d > 0 is moved
// out by d n; its velocity is split into v_n and v_t; v_n <- -e v_n if it
// was approaching (restitution e), and v_t <- v_t exp(-mu h) (friction rate mu).
#include <math.h>

#include "internal.h"

// Slack within which a point on a collider's surface counts as touching it
// for the implicit step (which leaves its points there to rounding): this
// times 1 + |the surface's coordinate|, m, as the step's own contacts take
// it (TOUCH in implicit_internal.h).
#define TOUCH_SLACK 1e-9

static void resolve(psb_vec3 *x, psb_vec3 *v, psb_vec3 n, double depth, double e, double keep) {
    depth = depth > 0.0 ? depth : 0.0; // a point touching the surface stays where it is
    x->x += depth * n.x;
    x->y += depth * n.y;
    x->z += depth * n.z;
    double vn = v->x * n.x + v->y * n.y + v->z * n.z;
    const psb_vec3 vt = {v->x - vn * n.x, v->y - vn * n.y, v->z - vn * n.z};
    if (vn < 0.0) {
        vn = -e * vn;
    }
    v->x = vt.x * keep + vn * n.x;
    v->y = vt.y * keep + vn * n.y;
    v->z = vt.z * keep + vn * n.z;
}

static double *component(psb_vec3 *v, int axis) {
    return axis == 0 ? &v->x : axis == 1 ? &v->y : &v->z;
}

// Box walls: one axis at a time, the point must stay in [lo, hi]; within
// slack (1 + |wall|) of a wall counts as touching it.
static void resolve_walls(const psb_params *p, psb_vec3 *x, psb_vec3 *v, bool ring, double keep,
                          double slack) {
    const double lo[3] = {p->walls_min.x, p->walls_min.y, p->walls_min.z};
    const double hi[3] = {p->walls_max.x, p->walls_max.y, p->walls_max.z};
    const int axes = ring ? 2 : 3; // a ring lives in the x-y plane
    for (int a = 0; a < axes; a++) {
        const double c = *component(x, a);
        psb_vec3 n = {0.0, 0.0, 0.0};
        double depth = 0.0;
        bool touch = false;
        if (c < lo[a] + slack * (1.0 + fabs(lo[a]))) {
            depth = lo[a] - c;
            *component(&n, a) = 1.0;
            touch = true;
        } else if (c > hi[a] - slack * (1.0 + fabs(hi[a]))) {
            depth = c - hi[a];
            *component(&n, a) = -1.0;
            touch = true;
        }
        if (touch && (depth > 0.0 || slack > 0.0)) {
            resolve(x, v, n, depth, p->restitution, keep);
        }
    }
}

static void resolve_sphere(psb_vec3 centre, double radius, const psb_params *p, psb_vec3 *x,
                           psb_vec3 *v, bool ring, double keep, double slack) {
    if (ring) {
        // A ring sees the sphere's cross-section with its plane z = 0.
        const double r2 = radius * radius - centre.z * centre.z;
        if (r2 <= 0.0) {
            return;
        }
        radius = sqrt(r2);
        centre.z = 0.0;
    }
    const psb_vec3 d = {x->x - centre.x, x->y - centre.y, x->z - centre.z};
    const double dist2 = d.x * d.x + d.y * d.y + d.z * d.z;
    if (slack > 0.0 ? dist2 >= (radius + slack) * (radius + slack) : dist2 >= radius * radius) {
        return;
    }
    const double dist = sqrt(dist2);
    // At the very centre there is no direction: push up.
    const psb_vec3 n =
        dist > 0.0 ? (psb_vec3){d.x / dist, d.y / dist, d.z / dist} : (psb_vec3){0.0, 1.0, 0.0};
    resolve(x, v, n, radius - dist, p->restitution, keep);
}

void point_push_out(const psb_world *w, bool ring, psb_vec3 *x) {
    const psb_params *p = &w->params;
    psb_vec3 v = {0.0, 0.0, 0.0};
    if (p->floor && x->y < p->floor_y) {
        x->y = p->floor_y;
    }
    if (p->walls) {
        resolve_walls(p, x, &v, ring, 1.0, 0.0);
    }
    for (int s = 0; s < w->sphere_count; s++) {
        resolve_sphere(w->sphere_centre[s], w->sphere_radius[s], p, x, &v, ring, 1.0, 0.0);
    }
}

bool world_has_obstacles(const psb_world *w) {
    return w->params.walls || w->sphere_count > 0;
}

// The points [i0, i1) of b out of the colliders, with restitution and
// friction for those inside, or touching within slack.
static void collide_range(psb_body *b, const psb_world *w, int i0, int i1, double h,
                          bool with_floor, bool with_spheres, double slack) {
    const psb_params *p = &w->params;
    const double keep = exp(-p->friction * h);
    const bool ring = b->kind == PSB_RING;
    const bool floor = with_floor && p->floor;
    const int end = i1 < b->n ? i1 : b->n;
    for (int k = i0; k < end; k++) {
        psb_vec3 x = {b->x[0][k], b->x[1][k], b->x[2][k]};
        psb_vec3 v = {b->v[0][k], b->v[1][k], b->v[2][k]};
        if (floor && (x.y < p->floor_y ||
                      (slack > 0.0 && x.y <= p->floor_y + slack * (1.0 + fabs(p->floor_y))))) {
            resolve(&x, &v, (psb_vec3){0.0, 1.0, 0.0}, p->floor_y - x.y, p->restitution, keep);
            x.y = fmax(x.y, p->floor_y); // not a rounding below; one touching stays put
        }
        if (p->walls) {
            resolve_walls(p, &x, &v, ring, keep, slack);
        }
        for (int s = 0; with_spheres && s < w->sphere_count; s++) {
            resolve_sphere(w->sphere_centre[s], w->sphere_radius[s], p, &x, &v, ring, keep, slack);
        }
        b->x[0][k] = x.x;
        b->x[1][k] = x.y;
        b->x[2][k] = x.z;
        b->v[0][k] = v.x;
        b->v[1][k] = v.y;
        b->v[2][k] = v.z;
    }
}

void body_collide(psb_body *b, const psb_world *w, int i0, int i1, double h, bool with_floor) {
    collide_range(b, w, i0, i1, h, with_floor, true, 0.0);
}

void body_collide_touching(psb_body *b, const psb_world *w, int i0, int i1, double h) {
    collide_range(b, w, i0, i1, h, true, false, TOUCH_SLACK);
}
