// Contact between bodies, written plainly: docs/contact.md, one pair of
// bodies, one point and one triangle at a time, every triangle of the other
// body looked at (no broad phase but its box).
//
// Once per world step, after every body has taken its sub-steps:
//   find     for each ordered pair (A, B), each point p of A near B: the
//            nearest point q of B's surface, on the triangle (a ring: the
//            edge) whose feature (face, edge or corner) q lies on; the
//            signed distance s = ±|p - q|, + where (p - q) . m >= 0 with m
//            the feature's pseudo-normal; p touches B when s < δ (δ the
//            contact thickness, m); against a cloth or its own body, m
//            turned to the side p started the step on, and p's own
//            features (and those nearest it on its neighbours) left out;
//   push     4 Gauss-Seidel passes over the contacts: C = (p - q) . n - δ,
//            if C < 0 then λ = -C / W, p += w_p λ n, x_i -= w_i β_i λ n,
//            W = w_p + sum β_i² w_i (w: inverse masses, 0 when pinned),
//            each velocity changed by its point's move over dt; after each
//            pass the points in a contact are put back out of the floor,
//            the walls and the spheres (the velocity likewise); none with
//            contact inside the solve, whose links moved the points;
//   put back with contact inside the solve: a point behind its feature
//            ((p - q) . n < 0) and inside B (B's winding number about it
//            above 1/2), 4 passes as push's to C = (p - q) . n - δ / 100,
//            positions only, velocities left as they are; then, in sweeps
//            until none moves (8 at most), each contact's point within δ / 2
//            of its feature and inside B by its winding number moved alone
//            to B's nearest surface point q' plus δ / 100 along q' - p, or,
//            where B has folded over itself, on along that ray to the first
//            crossing of B's surface where its winding number comes to 0,
//            and δ / 100 past it; then out of the floor, walls and spheres
//            (positions only); with self_contact (the world's and the
//            body's), a shell's point through its own surface by its own
//            winding number moved out of it the same way (to 0, or a half
//            where its corner is crumpled), or to the middle of its
//            neighbours, or one of those moved, or all of them at once
//            (own_way_out), then the last way out again where that moved a
//            point, and the own way out again where the last moved one,
//            three rounds at most; a ring's point in a loop its crossed
//            edges make (found from the crossing edges' ends) to the
//            middle of its neighbours, or one of those moved, or both;
//   bounce   4 passes: the normal relative velocity un = u . n,
//            u = v_p - sum β_i v_i, set to its target e (-un0) (un0: at the
//            start of the step; 0 below the speed gravity gives in two
//            steps) by an impulse j = (target - un) / W along n, where it
//            is below it, or above it after a push; then friction, one
//            pass: J = (keep - 1) u_t / W with keep = exp(-mu dt).
// Each change is given to p and taken from the corners in the proportions
// w_p and w_i β_i, so momentum is kept.
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"

// How many Gauss-Seidel passes move the positions, and set the normal
// velocities.
enum { POSITION_PASSES = 4, VELOCITY_PASSES = 4 };

#define PI 3.14159265358979323846
// A point put back out of another body ends this fraction of δ past its
// surface.
#define PUT_BACK_GAP 0.01
// The last way out (way_out): a contact's point nearer its feature than
// this fraction of δ is checked with B's winding number; at most
// WAY_OUT_SWEEPS sweeps over the contacts.
#define WAY_OUT_NEAR 0.5
enum { WAY_OUT_SWEEPS = 8, WAY_OUT_CROSSINGS = 8 };
// The ray of a way out stops at the first crossing that leaves the winding
// number at most this far on the side it started (whole numbers about
// another body, whole or halves about its own, where a corner is
// crumpled): 0, or a half, is reached whatever the rounding of the start.
#define WAY_OUT_LEFT 0.75
// A body's own way out (own_way_out): a point with more triangles than
// OWN_LOOP_MAX is not checked; a point whose own winding number is within
// 1/2 - OWN_SLACK of 0 is not through its surface; it and the last way out take
// turns OWN_ROUNDS times at most.
enum { OWN_LOOP_MAX = 32, OWN_ROUNDS = 3 };
#define OWN_SLACK 0.25
// A point the own way out moved in each of OWN_STREAK world steps in a row
// and found through again is a fold the body's own forces make: it is left
// (own_way_out_point).
enum { OWN_STREAK = 8 };
// A shell's last try (relax_patch): the points within 1, then 2, then
// PATCH_RINGS rings of the point, at most PATCH_MAX of them and PATCH_MAX
// held round them, relaxed by PATCH_SWEEPS Gauss-Seidel sweeps.
enum { PATCH_RINGS = 3, PATCH_MAX = 64, PATCH_SWEEPS = 64 };

// With contact inside the solve: how fast a link moves a point that starts a
// sub-step inside another body, or within its skin, back out to the skin, m/s
// (a ring's: only from inside, to the surface; see link_hold).
#define RECOVERY_SPEED 0.3

// ---------------------------------------------------------------------------
// Geometry: normals, closest points, pseudo-normals.

// a / |a|, or 0 when a has no length (a triangle with no area has no
// normal, and adds nothing to a sum of normals).
static psb_vec3 normalized(psb_vec3 a) {
    const double length = norm(a);
    return length > 0.0 ? scale(1.0 / length, a) : (psb_vec3){0.0, 0.0, 0.0};
}

// Triangle t's unit normal, outward: (b - a) x (c - a) / |...|, the corners
// counter-clockwise seen from outside.
static psb_vec3 triangle_normal(const model_body *b, int t) {
    const int *c = &b->tri[3 * t];
    return normalized(cross(sub(b->x[c[1]], b->x[c[0]]), sub(b->x[c[2]], b->x[c[0]])));
}

// A ring's edge k (point k to point k + 1) has the unit normal of its
// direction d turned clockwise, (d_y, -d_x) / |d|: out, as a ring's points
// go counter-clockwise.
static psb_vec3 ring_edge_normal(const model_body *b, int k) {
    const psb_vec3 d = sub(b->x[(k + 1) % b->n], b->x[k]);
    return normalized((psb_vec3){d.y, -d.x, 0.0});
}

// The closest point of triangle (a, b, c) to p, as its barycentric
// coordinates beta (q = beta_0 a + beta_1 b + beta_2 c): the classic test of
// p's region. With ab = b - a, ac = c - a and d1..d6 the projections of
// p - a, p - b and p - c on ab and ac, p is beyond corner a, b or c, or
// beyond edge ab, ac or bc (where the signed areas va, vb, vc of the
// triangles p' b c, a p' c, a b p' of p's projection p' say so), or over the
// face. A corner's coordinates are exactly (1, 0, 0) and an edge's have an
// exact 0: docs/contact.md tells the feature q lies on by these zeros.
static void closest_on_triangle(psb_vec3 p, psb_vec3 a, psb_vec3 b, psb_vec3 c, double beta[3]) {
    const psb_vec3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) { // corner a
        beta[0] = 1.0, beta[1] = 0.0, beta[2] = 0.0;
        return;
    }
    const psb_vec3 bp = sub(p, b);
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) { // corner b
        beta[0] = 0.0, beta[1] = 1.0, beta[2] = 0.0;
        return;
    }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) { // edge ab: q = a + v ab
        const double v = d1 / (d1 - d3);
        beta[0] = 1.0 - v, beta[1] = v, beta[2] = 0.0;
        return;
    }
    const psb_vec3 cp = sub(p, c);
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) { // corner c
        beta[0] = 0.0, beta[1] = 0.0, beta[2] = 1.0;
        return;
    }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) { // edge ac: q = a + w ac
        const double w = d2 / (d2 - d6);
        beta[0] = 1.0 - w, beta[1] = 0.0, beta[2] = w;
        return;
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) { // edge bc: q = b + w (c - b)
        const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        beta[0] = 0.0, beta[1] = 1.0 - w, beta[2] = w;
        return;
    }
    // The face: q = a + v ab + w ac with v = vb / (va + vb + vc), w = vc / (...).
    const double sum = va + vb + vc;
    const double v = vb / sum, w = vc / sum;
    beta[0] = 1.0 - v - w, beta[1] = v, beta[2] = w;
}

// The closest point of the segment from a to b to p: q = a + t (b - a) with
// t = (p - a) . (b - a) / |b - a|², clamped to [0, 1] (0 for a segment of no
// length); beta = (1 - t, t), exactly (1, 0) or (0, 1) at an end.
static void closest_on_segment(psb_vec3 p, psb_vec3 a, psb_vec3 b, double beta[3]) {
    const psb_vec3 d = sub(b, a);
    const double length2 = dot(d, d);
    const double t = length2 > 0.0 ? fmin(fmax(dot(sub(p, a), d) / length2, 0.0), 1.0) : 0.0;
    beta[0] = 1.0 - t, beta[1] = t, beta[2] = 0.0;
}

// The points a feature joins: triangle f's three corners, or a ring's edge
// f, points f and f + 1. Returns how many.
int model_feature_corners(const model_body *b, int f, int corner[3]) {
    if (b->kind == PSB_RING) {
        corner[0] = f, corner[1] = (f + 1) % b->n, corner[2] = -1;
        return 2;
    }
    corner[0] = b->tri[3 * f], corner[1] = b->tri[3 * f + 1], corner[2] = b->tri[3 * f + 2];
    return 3;
}

// q = sum beta_i x_i over the feature's corners, at the positions x (the
// points' now, or where they started the world step).
static psb_vec3 feature_point_of(const model_body *b, const psb_vec3 *x, int f,
                                 const double beta[3]) {
    int corner[3];
    const int count = model_feature_corners(b, f, corner);
    psb_vec3 q = {0.0, 0.0, 0.0};
    for (int k = 0; k < count; k++) {
        q = axpy(q, beta[k], x[corner[k]]);
    }
    return q;
}

static psb_vec3 feature_point(const model_body *b, int f, const double beta[3]) {
    return feature_point_of(b, b->x, f, beta);
}

// The angle of triangle t at its corner point i, rad: between the two edges
// that leave i, atan2(|e1 x e2|, e1 . e2) (0 when an edge has no length).
static double corner_angle(const model_body *b, int t, int i) {
    const int *c = &b->tri[3 * t];
    const int k = c[0] == i ? 0 : c[1] == i ? 1 : 2;
    const psb_vec3 e1 = sub(b->x[c[(k + 1) % 3]], b->x[i]);
    const psb_vec3 e2 = sub(b->x[c[(k + 2) % 3]], b->x[i]);
    return atan2(norm(cross(e1, e2)), dot(e1, e2));
}

// Point i's pseudo-normal: the normalised sum of the unit normals of the
// triangles around it, each times its angle there (a ring: of its two
// edges' normals).
static psb_vec3 point_normal(const model_body *b, int i) {
    if (b->kind == PSB_RING) {
        const int before = (i + b->n - 1) % b->n;
        return normalized(add(ring_edge_normal(b, before), ring_edge_normal(b, i)));
    }
    psb_vec3 sum = {0.0, 0.0, 0.0};
    for (int k = b->around_first[i]; k < b->around_first[i + 1]; k++) {
        const int t = b->around[k];
        sum = axpy(sum, corner_angle(b, t, i), triangle_normal(b, t));
    }
    return normalized(sum);
}

// The pseudo-normal m of the feature the point q = sum beta_i x_i of
// feature f lies on (Bærentzen and Aanæs 2005), told by which of q's
// coordinates are exactly 0:
//   none   the face: the triangle's unit normal (a ring: the edge's);
//   one    the edge of the other two corners: the normalised sum of the unit
//          normals of the triangle and the one across that edge;
//   two    the corner of the third: the normalised sum of the unit normals
//          of the triangles around it, each times its angle there (a ring:
//          of the two edges at the point).
static psb_vec3 pseudo_normal(const model_body *b, int f, const double beta[3]) {
    if (b->kind == PSB_RING) {
        if (beta[0] == 0.0 || beta[1] == 0.0) { // the point f + 1, or f
            return point_normal(b, beta[0] == 0.0 ? (f + 1) % b->n : f);
        }
        return ring_edge_normal(b, f);
    }
    const int zeros = (beta[0] == 0.0) + (beta[1] == 0.0) + (beta[2] == 0.0);
    if (zeros == 0) {
        return triangle_normal(b, f);
    }
    if (zeros == 1) {
        // The edge opposite corner z is edge z + 1 (corners z + 1 and z + 2).
        const int z = beta[0] == 0.0 ? 0 : beta[1] == 0.0 ? 1 : 2;
        const int other = b->across[3 * f + (z + 1) % 3];
        const psb_vec3 n = triangle_normal(b, f);
        return other >= 0 ? normalized(add(n, triangle_normal(b, other))) : n;
    }
    return point_normal(b, b->tri[3 * f + (beta[0] != 0.0 ? 0 : beta[1] != 0.0 ? 1 : 2)]);
}

psb_vec3 model_link_normal(const psb_model *m, const model_contact *c) {
    const model_body *B = m->bodies[c->b];
    if (B->kind == PSB_RING) {
        return c->n;
    }
    const psb_vec3 n = pseudo_normal(B, c->feature, c->beta);
    return (B->kind == PSB_CLOTH || c->a == c->b) && dot(n, c->n) < 0.0 ? scale(-1.0, n) : n;
}

// Whether point j is joined to point i by an edge: a corner of a triangle
// around i (on a ring, i - 1 or i + 1).
static bool joined(const model_body *b, int i, int j) {
    if (b->kind == PSB_RING) {
        return j == (i + 1) % b->n || j == (i + b->n - 1) % b->n;
    }
    for (int k = b->around_first[i]; k < b->around_first[i + 1]; k++) {
        const int *t = &b->tri[3 * b->around[k]];
        if (j != i && (j == t[0] || j == t[1] || j == t[2])) {
            return true;
        }
    }
    return false;
}

// Whether feature f has a corner that is point i or joined to it by an edge
// (it is in i's two rings of triangles, on i's own body).
static bool beside(const model_body *b, int f, int i) {
    int corner[3];
    const int count = model_feature_corners(b, f, corner);
    for (int j = 0; j < count; j++) {
        if (corner[j] == i || joined(b, i, corner[j])) {
            return true;
        }
    }
    return false;
}

// Whether the nearest point (coordinates beta) of feature f to point i of
// the same body is never i's contact: f is one of i's own (i is a corner),
// or the nearest point lies on i's neighbours only (every corner it has a
// share of is joined to i by an edge: a corner, or the edge between two
// neighbours; its distance to i is about an edge's length or a triangle's
// height, which the springs keep).
static bool own_feature(const model_body *b, int f, int i, const double beta[3]) {
    int corner[3];
    const int count = model_feature_corners(b, f, corner);
    for (int j = 0; j < count; j++) {
        if (corner[j] == i) {
            return true;
        }
    }
    for (int j = 0; j < count; j++) {
        if (beta[j] != 0.0 && !joined(b, i, corner[j])) {
            return false;
        }
    }
    return true;
}

// ---------------------------------------------------------------------------
// Finding the contacts.

// Whether any body touches itself: self contact on for the world and for
// one of its bodies at least.
static bool model_touches_itself(const psb_model *m) {
    for (int b = 0; m->params.self_contact && b < m->body_count; b++) {
        if (m->bodies[b]->params.self_contact) {
            return true;
        }
    }
    return false;
}

// Whether points of body a look for body b's surface: each with contact on;
// rings against rings, 3D bodies against 3D bodies; a body against itself
// only with self_contact on, the world's and its own.
static bool pair_touches(const psb_model *m, int a, int b) {
    const model_body *A = m->bodies[a], *B = m->bodies[b];
    return (a != b || (m->params.self_contact && A->params.self_contact)) && A->params.contact &&
           B->params.contact && (A->kind == PSB_RING) == (B->kind == PSB_RING);
}

// How body b moved in this world step: its points' mean move t and the
// farthest any point moved, D = max_i |x_i - x_i(start) - t| (with t = 0
// when own is false: D_B, the farthest move; true: D_rel, the farthest move
// as seen from the body carried along by t).
static double moved(const model_body *b, bool own, psb_vec3 *t) {
    *t = (psb_vec3){0.0, 0.0, 0.0};
    if (own) {
        for (int i = 0; i < b->n; i++) {
            *t = add(*t, sub(b->x[i], b->x_step[i]));
        }
        *t = scale(1.0 / b->n, *t);
    }
    double most = 0.0;
    for (int i = 0; i < b->n; i++) {
        most = fmax(most, norm(sub(sub(b->x[i], b->x_step[i]), *t)));
    }
    return most;
}

// Appends a contact to a list (the model's contacts, or its links), grown
// as needed. Without memory for it, the contact is dropped (the step has no
// way to fail; those already found are still resolved).
static void append(model_contact **list, int *count, int *capacity, model_contact c) {
    if (*count == *capacity) {
        const int grown_capacity = *capacity > 0 ? 2 * *capacity : 64;
        model_contact *grown = realloc(*list, (size_t)grown_capacity * sizeof *grown);
        if (!grown) {
            return;
        }
        *list = grown;
        *capacity = grown_capacity;
    }
    (*list)[(*count)++] = c;
}

static void add_contact(psb_model *m, model_contact c) {
    append(&m->contacts, &m->contact_count, &m->contact_capacity, c);
}

// u = v_p - sum β_i v_i with the velocities vp of p and vb of B's points:
// how fast p moves relative to the point q of feature f it touches.
static psb_vec3 relative(const model_body *B, int f, const double beta[3], psb_vec3 vp,
                         const psb_vec3 *vb) {
    int corner[3];
    const int count = model_feature_corners(B, f, corner);
    psb_vec3 u = vp;
    for (int j = 0; j < count; j++) {
        u = axpy(u, -beta[j], vb[corner[j]]);
    }
    return u;
}

// Whether p is farther than R from the box of the corners' points (and so
// from any point between them).
static bool beyond(const model_body *b, const int *corner, int count, psb_vec3 p, double R) {
    psb_vec3 lo = b->x[corner[0]], hi = lo;
    for (int j = 1; j < count; j++) {
        const psb_vec3 x = b->x[corner[j]];
        lo = (psb_vec3){fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z)};
        hi = (psb_vec3){fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z)};
    }
    const psb_vec3 gap = {fmax(0.0, fmax(lo.x - p.x, p.x - hi.x)),
                          fmax(0.0, fmax(lo.y - p.y, p.y - hi.y)),
                          fmax(0.0, fmax(lo.z - p.z, p.z - hi.z))};
    return dot(gap, gap) > R * R;
}

// The bounding box of b's points.
static void body_box(const model_body *b, psb_vec3 *lo, psb_vec3 *hi) {
    *lo = b->x[0], *hi = b->x[0];
    for (int i = 1; i < b->n; i++) {
        const psb_vec3 x = b->x[i];
        *lo = (psb_vec3){fmin(lo->x, x.x), fmin(lo->y, x.y), fmin(lo->z, x.z)};
        *hi = (psb_vec3){fmax(hi->x, x.x), fmax(hi->y, x.y), fmax(hi->z, x.z)};
    }
}

// Whether p is outside the box from lo to hi grown by reach on every side.
static bool outside_box(psb_vec3 p, psb_vec3 lo, psb_vec3 hi, double reach) {
    return p.x < lo.x - reach || p.x > hi.x + reach || p.y < lo.y - reach || p.y > hi.y + reach ||
           p.z < lo.z - reach || p.z > hi.z + reach;
}

// The nearest point of B's surface to p: the first feature with the
// smallest |p - q|² (a later one only if strictly nearer), looking only at
// the features whose box is within reach of p, and leaving out, where own
// is a point of B (a body against itself), its own features and those
// nearest it on its neighbours only, and where facing is given (a 3D body's
// links with itself), the triangles whose unit normal does not face it
// (their dot product not below 0). Returns the feature (-1: none), its
// coordinates into beta and |p - q|² into distance2.
static int nearest_feature(const model_body *B, psb_vec3 p, double reach, int own,
                           const psb_vec3 *facing, double beta[3], double *distance2) {
    const int features = B->kind == PSB_RING ? B->n : B->tri_count;
    int nearest = -1;
    *distance2 = INFINITY;
    beta[0] = 0.0, beta[1] = 0.0, beta[2] = 0.0;
    for (int f = 0; f < features; f++) {
        int corner[3];
        double trial[3];
        const int count = model_feature_corners(B, f, corner);
        if (beyond(B, corner, count, p, reach)) {
            continue; // no nearer than its box, and that is beyond reach
        }
        if (B->kind == PSB_RING) {
            closest_on_segment(p, B->x[corner[0]], B->x[corner[1]], trial);
        } else {
            closest_on_triangle(p, B->x[corner[0]], B->x[corner[1]], B->x[corner[2]], trial);
        }
        if (own >= 0 && own_feature(B, f, own, trial)) {
            continue;
        }
        if (facing && !(dot(*facing, triangle_normal(B, f)) < 0.0)) {
            continue;
        }
        const psb_vec3 to = sub(p, feature_point(B, f, trial));
        const double d2 = dot(to, to);
        if (d2 < *distance2) {
            nearest = f;
            *distance2 = d2;
            beta[0] = trial[0], beta[1] = trial[1], beta[2] = trial[2];
        }
    }
    return nearest;
}

// The contacts of A's points with B's surface, in increasing point index.
// A closed surface (a shell, a ring) has an inside; a cloth has two sides,
// and a point touches it on the side it was on at the start of the world
// step, as a body against itself (A = B) does, leaving out each point's own
// features and those whose nearest point lies on its neighbours only
// (docs/contact.md, "A cloth, and a body against itself").
static void find_pair(psb_model *m, int a, int b) {
    const model_body *A = m->bodies[a], *B = m->bodies[b];
    const bool self = a == b, sheet = B->kind == PSB_CLOTH;
    const double delta = m->params.contact_thickness;
    psb_vec3 shift;
    const double moved_b = moved(B, self, &shift); // D_B, or D_rel and t
    psb_vec3 lo, hi;
    body_box(B, &lo, &hi);
    for (int i = 0; i < A->n; i++) {
        const psb_vec3 p = A->x[i];
        // R_p = δ + |p - p(start) - t| + D_B: a point that crossed B's
        // surface in this step is no farther than that from it (t = 0, or
        // on its own body t, the body's mean move). Only a p in B's box
        // grown by R_p is looked at.
        const double reach = delta + norm(sub(sub(p, A->x_step[i]), shift)) + moved_b;
        if (outside_box(p, lo, hi, reach)) {
            continue;
        }
        double nearest2, beta[3];
        const int nearest = nearest_feature(B, p, reach, self ? i : -1, NULL, beta, &nearest2);
        const double distance = sqrt(nearest2);
        if (nearest < 0 || distance > reach) {
            continue;
        }
        psb_vec3 n = pseudo_normal(B, nearest, beta);
        const psb_vec3 q = feature_point(B, nearest, beta);
        double crossed = 0.0; // how far p moved relative to q in this step
        if (self || sheet) {
            // The side p started the step on: (p(start) - q(start)) . m,
            // q(start) the same point of the feature where its corners were
            // then (m: the feature's, the same from every triangle that has
            // it, so that a tie between two of them does not matter).
            const psb_vec3 q0 = feature_point_of(B, B->x_step, nearest, beta);
            if (dot(sub(A->x_step[i], q0), n) < 0.0) {
                n = scale(-1.0, n);
            }
            crossed = norm(sub(sub(p, A->x_step[i]), sub(q, q0)));
        }
        // s = |p - q| outside ((p - q) . n >= 0), -|p - q| inside. A point
        // of a cloth or of its own body touches it within δ, or behind it
        // where q is inside a face (an edge's inside, on a ring), or no
        // farther behind it than p moved relative to q in this step: there
        // p crossed it; farther behind an edge or a corner, only the plane
        // of a feature beside it turned past p. On its own body, a feature
        // beside p (a corner joined to p) is never taken as crossed: that
        // is the body bending, a point popping through its own ring.
        const double s = dot(sub(p, q), n) >= 0.0 ? distance : -distance;
        const bool on_face =
            beta[0] != 0.0 && beta[1] != 0.0 && (B->kind == PSB_RING || beta[2] != 0.0);
        const bool may_cross = !self || !beside(B, nearest, i);
        if (s < delta && (!(self || sheet) || distance < delta ||
                          (may_cross && (on_face || distance <= crossed)))) {
            // un0: the approach at the start of the step, with the
            // velocities the points had then.
            const psb_vec3 u0 = relative(B, nearest, beta, A->v_step[i], B->v_step);
            add_contact(m, (model_contact){.a = a,
                                           .p = i,
                                           .b = b,
                                           .feature = nearest,
                                           .beta = {beta[0], beta[1], beta[2]},
                                           .n = n,
                                           .un0 = dot(u0, n),
                                           .pushed = false});
        }
    }
}

// ---------------------------------------------------------------------------
// Resolving them.

// w: a point's inverse mass, 1/kg; 0 for a pinned one.
static double inverse_mass(const model_body *b, int i) {
    return b->pinned[i] ? 0.0 : 1.0 / b->mass[i];
}

// W = w_p / drag_a + sum β_i² w_i / drag_b: how readily the contact gives
// (an impulse J changes the relative velocity u by W J), A's masses counted
// drag_a times and B's drag_b times (a link of a stiff body: link_drag).
static double link_give(const psb_model *m, const model_contact *c, double drag_a, double drag_b) {
    const model_body *B = m->bodies[c->b];
    int corner[3];
    const int count = model_feature_corners(B, c->feature, corner);
    double W = inverse_mass(m->bodies[c->a], c->p) / drag_a;
    for (int k = 0; k < count; k++) {
        W += c->beta[k] * c->beta[k] * inverse_mass(B, corner[k]) / drag_b;
    }
    return W;
}

// W = w_p + sum β_i² w_i, every mass counted once.
static double contact_give(const psb_model *m, const model_contact *c) {
    return link_give(m, c, 1.0, 1.0);
}

// Every point in a contact (p and the corners; put_back: in a contact
// whose point was put back), each once whatever the number of its contacts,
// bodies in order and points in increasing index, put back out of the
// floor, the walls and the spheres onto the surface it is inside, its
// velocity changed by the move over dt (put_back: left as it is); a pinned
// point stays where it is pinned.
static void push_out_touched(psb_model *m, bool put_back) {
    for (int k = 0; k < m->contact_count; k++) {
        const model_contact *c = &m->contacts[k];
        if (put_back && !c->inside) {
            continue;
        }
        int corner[3];
        const int count = model_feature_corners(m->bodies[c->b], c->feature, corner);
        m->bodies[c->a]->touched[c->p] = true;
        for (int j = 0; j < count; j++) {
            m->bodies[c->b]->touched[corner[j]] = true;
        }
    }
    for (int k = 0; k < m->body_count; k++) {
        model_body *b = m->bodies[k];
        for (int i = 0; i < b->n; i++) {
            if (b->touched[i] && !b->pinned[i]) {
                const psb_vec3 from = b->x[i];
                model_push_out(m, b, &b->x[i], true);
                if (!put_back) {
                    b->v[i] = axpy(b->v[i], 1.0 / m->params.dt, sub(b->x[i], from));
                }
            }
            b->touched[i] = false;
        }
    }
}

// One contact's move: where C = (p - q) . n - to < 0, λ = -C / W moves p
// by w_p λ n and each corner by -w_i β_i λ n, and with `velocity` each
// velocity by its move over dt. True when it moved them.
static bool move_apart(psb_model *m, const model_contact *c, double to, bool velocity) {
    model_body *A = m->bodies[c->a], *B = m->bodies[c->b];
    const double W = contact_give(m, c);
    if (!(W > 0.0)) {
        return false; // everything pinned: nothing can move
    }
    const psb_vec3 q = feature_point(B, c->feature, c->beta);
    const double C = dot(sub(A->x[c->p], q), c->n) - to;
    if (!(C < 0.0)) {
        return false;
    }
    const double lambda = -C / W, dt = m->params.dt;
    const double move_p = inverse_mass(A, c->p) * lambda;
    A->x[c->p] = axpy(A->x[c->p], move_p, c->n);
    if (velocity) {
        A->v[c->p] = axpy(A->v[c->p], move_p / dt, c->n);
    }
    int corner[3];
    const int count = model_feature_corners(B, c->feature, corner);
    for (int j = 0; j < count; j++) {
        const double move = inverse_mass(B, corner[j]) * c->beta[j] * lambda;
        B->x[corner[j]] = axpy(B->x[corner[j]], -move, c->n);
        if (velocity) {
            B->v[corner[j]] = axpy(B->v[corner[j]], -move / dt, c->n);
        }
    }
    return true;
}

// The positions: C = (p - q) . n - δ, with q from the corners where they
// are now; if C < 0, λ = -C / W moves p by w_p λ n and each corner by
// -w_i β_i λ n, which makes C = 0, and each velocity by its move over dt
// (as a change of velocity over the step would have moved it). self_only:
// a body's contacts with itself only, and of those only a body's whose own
// contacts are not links of the solve (a ring's, a cloth's).
static void push_apart(psb_model *m, bool self_only) {
    const double delta = m->params.contact_thickness;
    for (int pass = 0; pass < POSITION_PASSES; pass++) {
        for (int k = 0; k < m->contact_count; k++) {
            model_contact *c = &m->contacts[k];
            const bool pushes =
                !self_only || (c->a == c->b && !model_links_itself(m, m->bodies[c->a]));
            if (pushes && move_apart(m, c, delta, true)) {
                c->pushed = true;
            }
        }
        push_out_touched(m, false);
    }
}

// The solid angle triangle t (its corners' indices) of B subtends at p:
// 2 atan2(a . (b x c), |a||b||c| + (a . b)|c| + (b . c)|a| + (c . a)|b|)
// with a, b, c its corners less p (Van Oosterom and Strackee).
static double solid_angle(const psb_vec3 *x, const int *t, psb_vec3 p) {
    const psb_vec3 a = sub(x[t[0]], p), b = sub(x[t[1]], p), c = sub(x[t[2]], p);
    const double la = norm(a), lb = norm(b), lc = norm(c);
    return 2.0 * atan2(dot(a, cross(b, c)),
                       la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb);
}

// The winding number of B's surface about p, 1 inside and 0 outside: the
// solid angles of its triangles at p summed over 4 pi; a ring: the angle
// of each edge at p, summed over 2 pi.
static double winding_number(const model_body *B, psb_vec3 p) {
    const bool ring = B->kind == PSB_RING;
    const int features = ring ? B->n : B->tri_count;
    double sum = 0.0;
    for (int f = 0; f < features; f++) {
        int corner[3];
        model_feature_corners(B, f, corner);
        if (ring) {
            const psb_vec3 a = sub(B->x[corner[0]], p), b = sub(B->x[corner[1]], p);
            sum += atan2(a.x * b.y - a.y * b.x, a.x * b.x + a.y * b.y);
        } else {
            sum += solid_angle(B->x, corner, p);
        }
    }
    return sum / (ring ? 2.0 * PI : 4.0 * PI);
}

// Where the ray p + t u (t > t0) crosses B's feature f: t (INFINITY: not
// at all), and into *change -1 where it leaves through f's outside, +1
// where it enters. A triangle a, b, c: p + t u = a + s1 (b - a) + s2 (c - a)
// with s1, s2 >= 0, s1 + s2 <= 1, solved by Cramer's rule; it leaves where
// u . ((b - a) x (c - a)) > 0. A ring's edge a -> b in the plane: p + t u =
// a + s (b - a), 0 <= s <= 1; it leaves where u . (e.y, -e.x) > 0, e = b - a.
static double ray_crosses(const model_body *B, int f, psb_vec3 p, psb_vec3 u, double t0,
                          int *change) {
    int corner[3];
    const int count = model_feature_corners(B, f, corner);
    const psb_vec3 a = B->x[corner[0]], e = sub(B->x[corner[1]], a), w = sub(p, a);
    double t;
    if (count == 2) {
        const double d = u.x * e.y - u.y * e.x;
        if (d == 0.0) {
            return INFINITY;
        }
        const double s = (u.x * w.y - u.y * w.x) / d;
        t = (e.x * w.y - e.y * w.x) / d;
        if (!(s >= 0.0 && s <= 1.0)) {
            return INFINITY;
        }
        *change = d > 0.0 ? -1 : 1;
    } else {
        const psb_vec3 e2 = sub(B->x[corner[2]], a);
        // w = -t u + s1 e + s2 e2: det = (-u) . (e x e2).
        const psb_vec3 n = cross(e, e2);
        const double det = -dot(u, n);
        if (det == 0.0) {
            return INFINITY;
        }
        t = dot(w, n) / det;
        const double s1 = -dot(u, cross(w, e2)) / det, s2 = -dot(u, cross(e, w)) / det;
        if (!(s1 >= 0.0 && s2 >= 0.0 && s1 + s2 <= 1.0)) {
            return INFINITY;
        }
        *change = det > 0.0 ? 1 : -1;
    }
    return t > t0 ? t : INFINITY;
}

// Where the ray p + t u (t > 0) leaves B, for a point p about which B's
// winding number is `winding` (+1 inside; with own >= 0, p is B's point
// own, its triangles left out, and the winding number its own, ±1, or a
// half more where its corner is crumpled): crossing by crossing (those at
// one t together), to the first where the winding number comes to 0, or a
// half, or past it (WAY_OUT_LEFT), and gap beyond; past the nearest
// sheet of a surface folded over itself is not outside. `fallback` where
// no crossing does within WAY_OUT_CROSSINGS.
static psb_vec3 ray_out(const model_body *B, psb_vec3 p, psb_vec3 u, double winding, int own,
                        double gap, psb_vec3 fallback) {
    const int features = B->kind == PSB_RING ? B->n : B->tri_count;
    const double sign = winding > 0.0 ? 1.0 : -1.0;
    double around = winding;
    double t0 = 0.0;
    for (int crossing = 0; crossing < WAY_OUT_CROSSINGS; crossing++) {
        double first = INFINITY;
        int change = 0;
        for (int f = 0; f < features; f++) {
            int corner[3];
            const int count = model_feature_corners(B, f, corner);
            if (own >= 0 &&
                (corner[0] == own || corner[1] == own || (count == 3 && corner[2] == own))) {
                continue;
            }
            int dc = 0;
            const double t = ray_crosses(B, f, p, u, t0, &dc);
            if (t < first) {
                first = t, change = dc;
            } else if (t == first && t < INFINITY) {
                change += dc;
            }
        }
        if (first == INFINITY) {
            break;
        }
        around += change;
        t0 = first;
        if (sign * around <= WAY_OUT_LEFT) {
            return axpy(p, first + gap, u);
        }
    }
    return fallback;
}

// Moves A's point i, inside B by B's winding number `winding` about it, out
// of B alone, positions only: to B's nearest surface point q' plus
// δ / 100 along u = (q' - p) / |q' - p| (n where p is on the surface), or
// on along that ray out of a fold (ray_out); then out of the floor, walls
// and spheres. False, and nothing moved, where p is no farther than
// `leave` from q' (a negative leave moves every point).
static bool take_out(const psb_model *m, model_body *A, int i, const model_body *B, double winding,
                     psb_vec3 n, double leave) {
    const double gap = PUT_BACK_GAP * m->params.contact_thickness;
    const psb_vec3 p = A->x[i];
    double beta[3], nearest2;
    const int f = nearest_feature(B, p, INFINITY, -1, NULL, beta, &nearest2);
    const psb_vec3 q = feature_point(B, f, beta);
    const double l = norm(sub(q, p));
    if (!(l > leave)) {
        return false;
    }
    const psb_vec3 u = l > 0.0 ? scale(1.0 / l, sub(q, p)) : n;
    A->x[i] = ray_out(B, p, u, winding, -1, gap, axpy(q, gap, u));
    model_push_out(m, A, &A->x[i], true);
    return true;
}

// The last way out, after put_back's passes: in sweeps over the contacts
// until one moves nothing (WAY_OUT_SWEEPS at most), each contact's point p
// (A ≠ B, B not a cloth, p not pinned) with (p - q) . n < WAY_OUT_NEAR δ
// and B's winding number about it above 1/2 is moved alone, to B's nearest
// surface point q' plus PUT_BACK_GAP δ along u = (q' - p) / |q' - p| (n
// where p is on the surface), or on along u to where the ray leaves B,
// then out of the floor, walls and spheres; positions only. Returns the
// points moved.
static int way_out(psb_model *m) {
    const double near = WAY_OUT_NEAR * m->params.contact_thickness;
    int total = 0;
    for (int sweep = 0; sweep < WAY_OUT_SWEEPS; sweep++) {
        int moved = 0;
        for (int k = 0; k < m->contact_count; k++) {
            const model_contact *c = &m->contacts[k];
            model_body *A = m->bodies[c->a];
            const model_body *B = m->bodies[c->b];
            if (c->a == c->b || B->kind == PSB_CLOTH || !(inverse_mass(A, c->p) > 0.0)) {
                continue;
            }
            const psb_vec3 p = A->x[c->p];
            if (!(dot(sub(p, feature_point(B, c->feature, c->beta)), c->n) < near)) {
                continue;
            }
            const double winding = winding_number(B, p);
            if (!(winding > 0.5)) {
                continue;
            }
            moved += take_out(m, A, c->p, B, winding, c->n, -1.0);
        }
        total += moved;
        if (moved == 0) {
            break;
        }
    }
    return total;
}

// ---------------------------------------------------------------------------
// The last check (docs/contact.md, "The last check").

// A box, m.
typedef struct region {
    psb_vec3 lo, hi;
} region;

static void grow_region(region *r, psb_vec3 x) {
    r->lo = (psb_vec3){fmin(r->lo.x, x.x), fmin(r->lo.y, x.y), fmin(r->lo.z, x.z)};
    r->hi = (psb_vec3){fmax(r->hi.x, x.x), fmax(r->hi.y, x.y), fmax(r->hi.z, x.z)};
}

// Every point held where it is now.
static void hold_points(psb_model *m) {
    for (int b = 0; b < m->body_count; b++) {
        model_body *B = m->bodies[b];
        memcpy(B->x_held, B->x, (size_t)B->n * sizeof *B->x_held);
    }
}

// The box that B's point i and its triangles (a ring: its edges, to points
// i - 1 and i + 1) swept since they were held: their corners now and then.
static region swept_by(const model_body *B, int i) {
    region r = {B->x[i], B->x[i]};
    grow_region(&r, B->x_held[i]);
    if (B->kind == PSB_RING) {
        const int next[2] = {(i + B->n - 1) % B->n, (i + 1) % B->n};
        for (int j = 0; j < 2; j++) {
            grow_region(&r, B->x[next[j]]);
            grow_region(&r, B->x_held[next[j]]);
        }
        return r;
    }
    for (int k = B->around_first[i]; k < B->around_first[i + 1]; k++) {
        for (int c = 0; c < 3; c++) {
            grow_region(&r, B->x[B->tri[3 * B->around[k] + c]]);
            grow_region(&r, B->x_held[B->tri[3 * B->around[k] + c]]);
        }
    }
    return r;
}

// Where the contacts were found, a point outside the other bodies was
// outside them; put_back's moves, each for one contact, may take a point
// into a body it has no contact with, or a body's surface over a point of
// another that has none. So, after the last way out and after each round
// with the own way out, in sweeps until one moves nothing (WAY_OUT_SWEEPS
// at most): what moved since the points were last held is found (each
// body's box now, its moved points, and the box each of those and its
// triangles swept), the points are held where they are, and for each pair
// A ≠ B (B a shell or a ring, rings with rings, each with contact on), each
// of A's points (not pinned) that moved and is in B's box, or is in a box
// that one of B's moved points swept (each grown by δ / 100), is checked
// with B's winding number; one above 1/2 is moved alone as the last way
// out moves a contact's point (to B's nearest surface point q' plus
// δ / 100 along q' - p, or on along that ray out of a fold), then out of
// the floor, walls and spheres, positions only. In the first sweep a body
// placed since the last contact stage (place_check) counts as moved whole,
// every point, its whole box swept. A point within `leave` of B's surface
// is left (place_check: within the skin, where the contacts find it).
// Returns the points moved.
static int last_check(psb_model *m, double leave) {
    const int bodies = m->body_count;
    if (bodies < 2) {
        return 0; // no pair
    }
    const double gap = PUT_BACK_GAP * m->params.contact_thickness;
    region *box = malloc((size_t)bodies * sizeof *box);
    region **swept = calloc((size_t)bodies, sizeof *swept);
    int *swept_count = calloc((size_t)bodies, sizeof *swept_count);
    bool ok = box && swept && swept_count;
    for (int b = 0; ok && b < bodies; b++) {
        swept[b] = malloc((size_t)m->bodies[b]->n * sizeof **swept);
        ok = swept[b] != NULL;
    }
    int total = 0;
    for (int sweep = 0; ok && sweep < WAY_OUT_SWEEPS; sweep++) {
        for (int b = 0; b < bodies; b++) {
            model_body *B = m->bodies[b];
            body_box(B, &box[b].lo, &box[b].hi);
            swept_count[b] = 0;
            // A body placed (place_check): all of it, its whole box.
            const bool placed = sweep == 0 && B->placed;
            if (placed) {
                swept[b][swept_count[b]++] = box[b];
            }
            for (int i = 0; i < B->n; i++) {
                B->shifted[i] = placed || B->x[i].x != B->x_held[i].x ||
                                B->x[i].y != B->x_held[i].y || B->x[i].z != B->x_held[i].z;
                if (B->shifted[i] && !placed) {
                    swept[b][swept_count[b]++] = swept_by(B, i);
                }
            }
        }
        hold_points(m);
        int moved = 0;
        for (int a = 0; a < bodies; a++) {
            model_body *A = m->bodies[a];
            for (int b = 0; b < bodies; b++) {
                const model_body *B = m->bodies[b];
                if (a == b || B->kind == PSB_CLOTH || !pair_touches(m, a, b)) {
                    continue;
                }
                for (int i = 0; i < A->n; i++) {
                    const psb_vec3 p = A->x[i];
                    bool look = A->shifted[i] && !outside_box(p, box[b].lo, box[b].hi, gap);
                    for (int r = 0; !look && r < swept_count[b]; r++) {
                        look = !outside_box(p, swept[b][r].lo, swept[b][r].hi, gap);
                    }
                    if (!look || !(inverse_mass(A, i) > 0.0)) {
                        continue;
                    }
                    const double winding = winding_number(B, p);
                    if (!(winding > 0.5)) {
                        continue;
                    }
                    // (not on B's surface, nor left to the contacts)
                    moved += take_out(m, A, i, B, winding, (psb_vec3){0.0, 0.0, 0.0}, leave);
                }
            }
        }
        total += moved;
        if (moved == 0) {
            break;
        }
    }
    for (int b = 0; swept && b < bodies; b++) {
        free(swept[b]);
    }
    free(box);
    free(swept);
    free(swept_count);
    return total;
}

static void carry_history(psb_model *m);

// A body added since the last contact stage may be in another deeper than
// any contact reaches (docs/contact.md, "Bodies placed into each other"):
// before the contacts are found, the last check takes each such body whole
// (its points in another's box, and another's points in its box, by the
// winding number; those deeper than the skin, as nearer the contacts find
// them), and the marks are cleared. BDF2's history moves with the points
// (carry_history, from where they were before: x_found, until the
// contacts are found). Returns the points moved.
static int place_check(psb_model *m) {
    bool placed = false;
    for (int b = 0; b < m->body_count; b++) {
        placed = placed || (m->bodies[b]->params.contact && m->bodies[b]->placed);
    }
    int moved = 0;
    if (placed) {
        for (int b = 0; b < m->body_count; b++) {
            model_body *B = m->bodies[b];
            memcpy(B->x_found, B->x, (size_t)B->n * sizeof *B->x_found);
        }
        hold_points(m);
        moved = last_check(m, m->params.contact_thickness);
        carry_history(m);
    }
    for (int b = 0; b < m->body_count; b++) {
        m->bodies[b]->placed = false;
    }
    return moved;
}

// ---------------------------------------------------------------------------
// A body's own way out (docs/contact.md, "A body's own way out").

// Point i's neighbours, the other corners of its triangles (a ring: points
// i - 1 and i + 1), each once, in increasing index, into next (room for 2
// OWN_LOOP_MAX); their number, or -1 where i has more than OWN_LOOP_MAX
// triangles.
static int neighbours(const model_body *B, int i, int *next) {
    if (B->kind == PSB_RING) {
        const int before = (i + B->n - 1) % B->n, after = (i + 1) % B->n;
        next[0] = before < after ? before : after;
        next[1] = before < after ? after : before;
        return 2;
    }
    if (B->around_first[i + 1] - B->around_first[i] > OWN_LOOP_MAX) {
        return -1;
    }
    int count = 0;
    for (int k = B->around_first[i]; k < B->around_first[i + 1]; k++) {
        const int *t = &B->tri[3 * B->around[k]];
        for (int j = 0; j < 3; j++) {
            bool seen = t[j] == i;
            for (int l = 0; l < count && !seen; l++) {
                seen = next[l] == t[j];
            }
            if (!seen) {
                int at = count++;
                for (; at > 0 && next[at - 1] > t[j]; at--) {
                    next[at] = next[at - 1];
                }
                next[at] = t[j];
            }
        }
    }
    return count;
}

// Point i's pseudo-normal where the contacts were found (x_found): the
// normalised sum of its triangles' unit normals, each times its angle at i
// (a ring: of its two edges' unit normals).
static psb_vec3 found_normal(const model_body *B, int i) {
    psb_vec3 sum = {0.0, 0.0, 0.0};
    if (B->kind == PSB_RING) {
        for (int k = i + B->n - 1; k <= i + B->n; k++) {
            const psb_vec3 d = sub(B->x_found[(k + 1) % B->n], B->x_found[k % B->n]);
            sum = add(sum, normalized((psb_vec3){d.y, -d.x, 0.0}));
        }
        return normalized(sum);
    }
    for (int k = B->around_first[i]; k < B->around_first[i + 1]; k++) {
        const int *t = &B->tri[3 * B->around[k]];
        const int c = t[0] == i ? 0 : t[1] == i ? 1 : 2;
        const psb_vec3 e1 = sub(B->x_found[t[(c + 1) % 3]], B->x_found[i]);
        const psb_vec3 e2 = sub(B->x_found[t[(c + 2) % 3]], B->x_found[i]);
        const psb_vec3 n = normalized(cross(sub(B->x_found[t[1]], B->x_found[t[0]]),
                                            sub(B->x_found[t[2]], B->x_found[t[0]])));
        sum = axpy(sum, atan2(norm(cross(e1, e2)), dot(e1, e2)), n);
    }
    return normalized(sum);
}

// The winding number of the rest of ring B about its point i, were i at p:
// the angles at p of the edges that do not have i, over 2 pi, less the part
// of a small circle round p that i's corner holds inside, the angle from
// the direction to point i + 1 counterclockwise round to the one to point
// i - 1, over 2 pi; an edge whose line passes through p counts 0 (as in
// psb-check-contact). A whole number where p is on no other edge: 0 on a
// counterclockwise ring that does not cross itself. False where i is on a
// neighbour.
static bool own_winding_ring(const model_body *B, int i, psb_vec3 p, double *s) {
    double sum = 0.0;
    for (int f = 0; f < B->n; f++) {
        const int g = (f + 1) % B->n;
        if (f != i && g != i) {
            const psb_vec3 a = sub(B->x[f], p), b = sub(B->x[g], p);
            const double det = a.x * b.y - a.y * b.x;
            sum += det == 0.0 ? 0.0 : atan2(det, a.x * b.x + a.y * b.y);
        }
    }
    const psb_vec3 u = sub(B->x[(i + B->n - 1) % B->n], p), v = sub(B->x[(i + 1) % B->n], p);
    if ((u.x == 0.0 && u.y == 0.0) || (v.x == 0.0 && v.y == 0.0)) {
        return false;
    }
    double corner = atan2(v.x * u.y - v.y * u.x, v.x * u.x + v.y * u.y);
    corner += corner < 0.0 ? 2.0 * PI : 0.0;
    *s = (sum - corner) / (2.0 * PI);
    return true;
}

// The winding number of the rest of B's surface about its point i, were i at
// p: the solid angles at p of the triangles that do not have i, over 4 pi,
// less the part of a small sphere round p that i's corner holds inside:
// the directions d_j from p to i's neighbours, in the order its triangles
// run them (b -> c for each triangle i, b, c), make a loop on the unit
// sphere with the outside on its left, and the part is (2 pi + the sum of
// its turns) / 4 pi (Gauss-Bonnet), each turn at d the angle about d from
// the way the loop arrives from d0, (d0 . d) d - d0, to the way it leaves
// for d1, d1 - (d1 . d) d. 0 where the surface does not cross itself, +1
// where another part encloses p, -1 where p has gone through a sheet into
// a pocket turned inside out. False where i's triangles do not make one loop, or more than
// OWN_LOOP_MAX. Of a shell whose points are at x (own_winding: where they
// are).
static bool own_winding_at(const model_body *B, const psb_vec3 *x, int i, psb_vec3 p, double *s) {
    int from[OWN_LOOP_MAX], to[OWN_LOOP_MAX], count = 0;
    double sum = 0.0;
    for (int f = 0; f < B->tri_count; f++) {
        const int *t = &B->tri[3 * f];
        if (t[0] != i && t[1] != i && t[2] != i) {
            sum += solid_angle(x, t, p);
            continue;
        }
        if (count == OWN_LOOP_MAX) {
            return false;
        }
        const int j = t[0] == i ? 0 : t[1] == i ? 1 : 2;
        from[count] = t[(j + 1) % 3];
        to[count] = t[(j + 2) % 3];
        count++;
    }
    if (count < 3) {
        return false;
    }
    int loop[OWN_LOOP_MAX];
    loop[0] = from[0];
    int now = to[0];
    for (int n = 1; n < count; n++) {
        if (now == loop[0]) {
            return false;
        }
        int e = 0;
        while (e < count && from[e] != now) {
            e++;
        }
        if (e == count) {
            return false;
        }
        loop[n] = now;
        now = to[e];
    }
    if (now != loop[0]) {
        return false;
    }
    double turns = 0.0;
    for (int n = 0; n < count; n++) {
        const psb_vec3 d0 = normalized(sub(x[loop[(n + count - 1) % count]], p));
        const psb_vec3 d = normalized(sub(x[loop[n]], p));
        const psb_vec3 d1 = normalized(sub(x[loop[(n + 1) % count]], p));
        const psb_vec3 in = sub(scale(dot(d0, d), d), d0), out = sub(d1, scale(dot(d1, d), d));
        turns += atan2(dot(d, cross(in, out)), dot(in, out));
    }
    *s = sum / (4.0 * PI) - (2.0 * PI + turns) / (4.0 * PI);
    return true;
}

static bool own_winding(const model_body *B, int i, psb_vec3 p, double *s) {
    return B->kind == PSB_RING ? own_winding_ring(B, i, p, s) : own_winding_at(B, B->x, i, p, s);
}

// Whether shell point i is through its own surface in the rest shape: its
// own winding number there (own_winding_at) off 0 by more than OWN_SLACK, as
// where a mesh's ear passes into its head. Such a point is left where it
// is: moving it out would fight the springs, which hold it there. Found
// once, the first time it is asked (rest_fold: 0 not yet, 1 no, 2 yes).
static bool folded_at_rest(model_body *B, int i) {
    if (B->kind == PSB_RING) {
        return false;
    }
    if (!B->rest_fold[i]) {
        double s;
        B->rest_fold[i] =
            own_winding_at(B, B->rest_x, i, B->rest_x[i], &s) && fabs(s) > OWN_SLACK ? 2 : 1;
    }
    return B->rest_fold[i] == 2;
}

// Where point i of B, through B's own surface by its own winding number s,
// is taken (below): toward q, the nearest point of B's triangles that have
// neither i nor a neighbour of i for a corner, and on along that ray, over
// the triangles that do not have i, crossing by crossing (those at one t
// together), to the first where the winding number comes to 0, or a half,
// or past it (WAY_OUT_LEFT), PUT_BACK_GAP δ beyond; q plus that gap where no
// crossing does within WAY_OUT_CROSSINGS. Into tries: that, and q plus the
// gap; their number (0 where no triangle is far enough from i, and on a
// ring, whose flattened sides lie a skin apart: docs/contact.md, "A ring's
// own way out").
static int own_tries(const model_body *B, int i, psb_vec3 p, double s, double gap,
                     psb_vec3 tries[2]) {
    if (B->kind == PSB_RING) {
        return 0;
    }
    double best2 = INFINITY, beta[3] = {0.0, 0.0, 0.0};
    psb_vec3 q = p;
    for (int f = 0; f < B->tri_count; f++) {
        if (beside(B, f, i)) {
            continue;
        }
        const int *t = &B->tri[3 * f];
        closest_on_triangle(p, B->x[t[0]], B->x[t[1]], B->x[t[2]], beta);
        const psb_vec3 on = feature_point(B, f, beta);
        const double d2 = dot(sub(p, on), sub(p, on));
        if (d2 < best2) {
            best2 = d2;
            q = on;
        }
    }
    const double l = norm(sub(q, p));
    if (!(l > 0.0)) {
        return 0;
    }
    const psb_vec3 u = scale(1.0 / l, sub(q, p));
    tries[1] = axpy(q, gap, u);
    tries[0] = ray_out(B, p, u, s, i, gap, tries[1]);
    return 2;
}

// The middle of point i's neighbours, PUT_BACK_GAP δ out along the sum of
// their pseudo-normals where the contacts were found.
static psb_vec3 middle_of_neighbours(const psb_model *m, const model_body *B, int i) {
    int next[3 * OWN_LOOP_MAX];
    const int n = neighbours(B, i, next);
    psb_vec3 middle = {0.0, 0.0, 0.0}, up = {0.0, 0.0, 0.0};
    for (int j = 0; j < n; j++) {
        middle = add(middle, B->x[next[j]]);
        up = add(up, found_normal(B, next[j]));
    }
    return axpy(scale(1.0 / n, middle), PUT_BACK_GAP * m->params.contact_thickness, normalized(up));
}

// The last try for a crumpled umbrella (i at a half, no one point's move
// undoing it): i's neighbours all moved at once, each to the middle of its
// own neighbours where they were, then i to the middle of theirs where they
// went; kept only where i's own winding number and each moved neighbour's
// end within OWN_SLACK of 0. Returns 1 if they moved.
static int smooth_umbrella(psb_model *m, model_body *B, int i) {
    int next[3 * OWN_LOOP_MAX], around[3 * OWN_LOOP_MAX];
    const int n = neighbours(B, i, next);
    if (n <= 0 || !(inverse_mass(B, i) > 0.0)) {
        return 0;
    }
    psb_vec3 was[3 * OWN_LOOP_MAX + 1], to[3 * OWN_LOOP_MAX + 1];
    for (int k = 0; k < n; k++) {
        if (neighbours(B, next[k], around) <= 0) {
            return 0; // (its own winding number is not found: own_winding)
        }
        was[k] = B->x[next[k]];
        to[k] = inverse_mass(B, next[k]) > 0.0 ? middle_of_neighbours(m, B, next[k]) : was[k];
    }
    was[n] = B->x[i];
    for (int k = 0; k < n; k++) {
        B->x[next[k]] = to[k];
    }
    to[n] = middle_of_neighbours(m, B, i);
    B->x[i] = to[n];
    double after;
    bool better = own_winding(B, i, to[n], &after) && fabs(after) < OWN_SLACK;
    for (int k = 0; better && k < n; k++) {
        better = own_winding(B, next[k], to[k], &after) && fabs(after) < OWN_SLACK;
    }
    for (int k = 0; !better && k <= n; k++) {
        B->x[k < n ? next[k] : i] = was[k];
    }
    for (int k = 0; better && k <= n; k++) {
        if (k == n || inverse_mass(B, next[k]) > 0.0) {
            model_push_out(m, B, &B->x[k < n ? next[k] : i], true);
        }
    }
    return better ? 1 : 0;
}

// The middle of point i's neighbours, as they are.
static psb_vec3 plain_middle(const model_body *B, int i) {
    int next[3 * OWN_LOOP_MAX];
    const int n = neighbours(B, i, next);
    psb_vec3 middle = {0.0, 0.0, 0.0};
    for (int j = 0; j < n; j++) {
        middle = add(middle, B->x[next[j]]);
    }
    return scale(1.0 / n, middle);
}

// A shell's last try for point i, through its own surface where no one
// point's move undoes it: a patch relaxed. The points within `rings` rings
// of i (those not pinned) move together to where each is the middle of its
// neighbours, the ring round them and the pinned points held (a discrete
// harmonic patch, laid out between its held rim as Tutte's embedding lays out
// a disc): PATCH_SWEEPS Gauss-Seidel sweeps from where they are, in index
// order. Kept only where the own winding number of every moved point and of
// every held one beside them ends within OWN_SLACK of 0; then out of the
// floor, walls and spheres. Returns 1 if they moved.
static int relax_patch(psb_model *m, model_body *B, int i, int rings) {
    // Per point: 1 in the patch, 2 held, 0 neither.
    unsigned char *role = calloc((size_t)B->n, 1);
    int *list = malloc((size_t)B->n * sizeof *list);
    psb_vec3 *was = malloc((size_t)B->n * sizeof *was);
    int moved = 0;
    if (!role || !list || !was || !(inverse_mass(B, i) > 0.0)) {
        goto done; // (no memory, or pinned: not moved)
    }
    int count = 0, roles[3] = {0, 1, 0};
    role[i] = 1;
    list[count++] = i;
    for (int r = 0, from = 0; r <= rings; r++) {
        const int to = count;
        for (int k = from; k < to; k++) {
            if (role[list[k]] != 1) {
                continue;
            }
            int next[3 * OWN_LOOP_MAX];
            const int n = neighbours(B, list[k], next);
            if (n < 0) {
                goto done; // (not checked: own_winding would not be)
            }
            for (int j = 0; j < n; j++) {
                if (!role[next[j]]) {
                    role[next[j]] = r == rings || !(inverse_mass(B, next[j]) > 0.0) ? 2 : 1;
                    list[count++] = next[j];
                    if (++roles[role[next[j]]] > PATCH_MAX) {
                        goto done; // (too large: not moved)
                    }
                }
            }
        }
        from = to;
    }
    for (int k = 0; k < B->n; k++) {
        was[k] = B->x[k];
    }
    for (int sweep = 0; sweep < PATCH_SWEEPS; sweep++) {
        for (int k = 0; k < B->n; k++) {
            if (role[k] == 1) {
                B->x[k] = plain_middle(B, k);
            }
        }
    }
    bool kept = true;
    for (int k = 0; kept && k < B->n; k++) {
        double after;
        kept = !role[k] || (own_winding(B, k, B->x[k], &after) && fabs(after) < OWN_SLACK);
    }
    for (int k = 0; k < B->n; k++) {
        if (role[k] == 1 && !kept) {
            B->x[k] = was[k];
        } else if (role[k] == 1) {
            model_push_out(m, B, &B->x[k], true);
        }
    }
    moved = kept;
done:
    free(role);
    free(list);
    free(was);
    return moved;
}

// relax_patch over 1, then 2, up to PATCH_RINGS rings: the first kept.
static int relax_patches(psb_model *m, model_body *B, int i) {
    int moved = 0;
    for (int rings = 1; rings <= PATCH_RINGS && !moved; rings++) {
        moved = relax_patch(m, B, i, rings);
    }
    return moved;
}

// Point i of B out of B's own surface where its own winding number s says it
// has gone through (|s| above 1/2 less OWN_SLACK): to the first of own_tries'
// places, then the middle of its neighbours, where its own winding number is
// nearer 0 than s by OWN_SLACK. Where none is and s is a half (i's umbrella
// crumpled), or i is a ring's, the first neighbour j (in index order) that,
// moved to the middle of its own neighbours, brings i's own winding number so
// much nearer 0 and has its own within OWN_SLACK of 0, is moved there
// instead; else all its neighbours at once (smooth_umbrella); a shell's,
// after all these (and at a whole number after own_tries), a patch relaxed
// (relax_patches). A point moved goes out of the floor, walls and spheres;
// positions only. A shell's point through its own surface in the rest shape
// (folded_at_rest) is not checked; one moved in OWN_STREAK steps in a row and
// through again is left. -1: i not through (or not checked); else 1 if a
// point moved, 0 if not.
static int own_way_out_point(psb_model *m, model_body *B, int i) {
    const double gap = PUT_BACK_GAP * m->params.contact_thickness;
    const psb_vec3 p = B->x[i];
    double s;
    if (!own_winding(B, i, p, &s) || !(fabs(s) > 0.5 - OWN_SLACK) || folded_at_rest(B, i)) {
        return -1;
    }
    if (B->own_streak[i] >= OWN_STREAK && B->own_last[i] >= m->steps) {
        B->own_last[i] = m->steps + 1; // a fold its own forces make: left
        return 0;
    }
    psb_vec3 tries[3];
    int count = own_tries(B, i, p, s, gap, tries);
    tries[count++] = middle_of_neighbours(m, B, i);
    for (int k = 0; inverse_mass(B, i) > 0.0 && k < count; k++) {
        double after;
        if (own_winding(B, i, tries[k], &after) && fabs(after) < fabs(s) - OWN_SLACK) {
            B->x[i] = tries[k];
            model_push_out(m, B, &B->x[i], true);
            return 1;
        }
    }
    if (B->kind != PSB_RING && !(fabs(s) < 1.0 - OWN_SLACK)) {
        return relax_patches(m, B, i);
    }
    int next[3 * OWN_LOOP_MAX];
    const int n = neighbours(B, i, next);
    for (int k = 0; k < n; k++) {
        const int j = next[k];
        if (!(inverse_mass(B, j) > 0.0)) {
            continue;
        }
        int around[3 * OWN_LOOP_MAX];
        if (neighbours(B, j, around) <= 0) {
            continue; // (not checked: own_winding would not be)
        }
        const psb_vec3 was = B->x[j];
        B->x[j] = middle_of_neighbours(m, B, j);
        double after_i, after_j;
        if (own_winding(B, i, p, &after_i) && fabs(after_i) < fabs(s) - OWN_SLACK &&
            own_winding(B, j, B->x[j], &after_j) && fabs(after_j) < OWN_SLACK) {
            model_push_out(m, B, &B->x[j], true);
            return 1;
        }
        B->x[j] = was;
    }
    if (smooth_umbrella(m, B, i)) {
        return 1;
    }
    return B->kind != PSB_RING ? relax_patches(m, B, i) : 0;
}

// Whether point i's umbrella has turned over: its pseudo-normal where the
// contacts were found faces away from the sum of its neighbours'.
static bool turned_over(const model_body *B, int i) {
    int next[3 * OWN_LOOP_MAX];
    const int n = neighbours(B, i, next);
    psb_vec3 sum = {0.0, 0.0, 0.0};
    if (n < 0) {
        return false; // (not checked: own_winding would not be)
    }
    for (int j = 0; j < n; j++) {
        sum = add(sum, found_normal(B, next[j]));
    }
    return dot(sum, found_normal(B, i)) < 0.0;
}

// Whether point i's umbrella has crumpled: one of its triangles, where the
// contacts were found, faces away from its pseudo-normal there (its own
// triangles cross each other or their neighbours' while its pseudo-normal
// has not turned over).
static bool crumpled(const model_body *B, int i) {
    const psb_vec3 n = found_normal(B, i);
    for (int k = B->around_first[i]; k < B->around_first[i + 1]; k++) {
        const int *t = &B->tri[3 * B->around[k]];
        const psb_vec3 c =
            cross(sub(B->x_found[t[1]], B->x_found[t[0]]), sub(B->x_found[t[2]], B->x_found[t[0]]));
        if (dot(normalized(c), n) < 0.0) {
            return true;
        }
    }
    return false;
}

// Whether contact c's point (of B, against B itself) crossed its
// feature's triangle, or one of the three across its edges that is not the
// point's own, in this step: the segment from where it started plus its
// feature point's move (x_step, then now) to where it is now meets the
// triangle where it is now.
static bool crossed_feature(const model_body *B, const model_contact *c) {
    int corner[3];
    model_feature_corners(B, c->feature, corner);
    psb_vec3 q0 = {0.0, 0.0, 0.0};
    for (int j = 0; j < 3; j++) {
        q0 = axpy(q0, c->beta[j], B->x_step[corner[j]]);
    }
    const psb_vec3 p0 = add(B->x_step[c->p], sub(feature_point(B, c->feature, c->beta), q0));
    int change = 0;
    if (ray_crosses(B, c->feature, p0, sub(B->x[c->p], p0), 0.0, &change) <= 1.0) {
        return true;
    }
    for (int j = 0; j < 3; j++) {
        const int t = B->across[3 * c->feature + j];
        const int *k = &B->tri[3 * (t >= 0 ? t : 0)];
        if (t >= 0 && k[0] != c->p && k[1] != c->p && k[2] != c->p &&
            ray_crosses(B, t, p0, sub(B->x[c->p], p0), 0.0, &change) <= 1.0) {
            return true;
        }
    }
    return false;
}

// Twice the signed area of a, b, c in the plane: positive where c is left
// of a -> b.
static double turn(psb_vec3 a, psb_vec3 b, psb_vec3 c) {
    return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// A ring's seeds: the points of each two of its edges that cross or touch,
// neither a corner of the other, marked in `mark`. Where none cross, no point
// is through the ring (unless the whole ring turned over in one step); where
// some do, each point through is joined along the ring, by points through, to
// an end of such an edge (the winding number beside the ring changes only at
// a crossing). Every pair looked at.
static void crossing_edges(const model_body *B, bool *mark) {
    for (int e = 0; e < B->n; e++) {
        const int e1 = (e + 1) % B->n;
        const psb_vec3 a = B->x[e], c = B->x[e1];
        for (int f = e + 1; f < B->n; f++) {
            const int f1 = (f + 1) % B->n;
            if (f == e1 || f1 == e) {
                continue;
            }
            const psb_vec3 p = B->x[f], q = B->x[f1];
            if (turn(a, c, p) * turn(a, c, q) <= 0.0 && turn(p, q, a) * turn(p, q, c) <= 0.0 &&
                fmax(p.y, q.y) >= fmin(a.y, c.y) && fmin(p.y, q.y) <= fmax(a.y, c.y) &&
                fmax(p.x, q.x) >= fmin(a.x, c.x) && fmin(p.x, q.x) <= fmax(a.x, c.x)) {
                mark[e] = mark[e1] = mark[f] = mark[f1] = true;
            }
        }
    }
}

// A body's own way out, with self contact on, after the last way out: in
// sweeps until one moves nothing (WAY_OUT_SWEEPS at most), for each shell or
// ring in a contact that takes part in contact with itself, a queue of its
// points: a shell's point of each of its contacts with itself (in their
// order) that crossed its feature in the step (crossed_feature), then each
// whose umbrella has turned over or crumpled (turned_over, crumpled, in index
// order); a ring's ends
// of its edges that cross (crossing_edges, in index order); each is taken out
// of the body's own surface if through it (own_way_out_point), and where it
// was found through, its neighbours not yet queued are queued after the
// others (in index order). Returns the points moved.
static int own_way_out(psb_model *m) {
    int total = 0;
    for (int sweep = 0; sweep < WAY_OUT_SWEEPS; sweep++) {
        int moved = 0;
        for (int b = 0; b < m->body_count; b++) {
            model_body *B = m->bodies[b];
            bool in_contact = false;
            for (int k = 0; k < m->contact_count && !in_contact; k++) {
                in_contact = m->contacts[k].a == b || m->contacts[k].b == b;
            }
            if (!(model_links_itself(m, B) || B->kind == PSB_RING) || !pair_touches(m, b, b) ||
                !in_contact) {
                continue;
            }
            int *queue = malloc((size_t)B->n * sizeof *queue);
            bool *queued = calloc((size_t)B->n, sizeof *queued);
            if (!queue || !queued) {
                free(queue);
                free(queued);
                continue; // (no memory: not checked)
            }
            int count = 0;
            if (B->kind == PSB_RING) {
                crossing_edges(B, queued);
                for (int i = 0; i < B->n; i++) {
                    if (queued[i]) {
                        queue[count++] = i;
                    }
                }
            }
            for (int k = 0; B->kind != PSB_RING && k < m->contact_count; k++) {
                const model_contact *c = &m->contacts[k];
                if (c->a == b && c->b == b && !queued[c->p] && crossed_feature(B, c)) {
                    queued[c->p] = true;
                    queue[count++] = c->p;
                }
            }
            for (int i = 0; B->kind != PSB_RING && i < B->n; i++) {
                if (!queued[i] && (turned_over(B, i) || crumpled(B, i))) {
                    queued[i] = true;
                    queue[count++] = i;
                }
            }
            for (int at = 0; at < count; at++) {
                const int i = queue[at], r = own_way_out_point(m, B, i);
                moved += r > 0;
                if (r > 0 && B->own_last[i] != m->steps + 1) {
                    const bool row = B->own_last[i] == m->steps;
                    B->own_streak[i] = !row                     ? 1
                                       : B->own_streak[i] < 255 ? B->own_streak[i] + 1
                                                                : 255;
                    B->own_last[i] = m->steps + 1;
                }
                int next[3 * OWN_LOOP_MAX];
                const int n = r >= 0 ? neighbours(B, i, next) : 0;
                for (int j = 0; j < n; j++) {
                    if (!queued[next[j]]) {
                        queued[next[j]] = true;
                        queue[count++] = next[j];
                    }
                }
            }
            free(queue);
            free(queued);
        }
        total += moved;
        if (moved == 0) {
            break;
        }
    }
    return total;
}

// With contact inside the solve, a point the solve left inside another body
// (behind its contact's feature, and B's winding number about it above 1/2)
// is put back out: the push's passes on those contacts to C = (p - q) . n -
// PUT_BACK_GAP δ, each move given to the positions only; then the last way
// out (way_out) for those the passes left inside.
static void put_back(psb_model *m) {
    const double gap = PUT_BACK_GAP * m->params.contact_thickness;
    int takers = 0;
    for (int b = 0; b < m->body_count; b++) {
        takers += m->bodies[b]->params.contact;
    }
    if (takers > 1) {
        hold_points(m);
    }
    int inside = 0;
    for (int k = 0; k < m->contact_count; k++) {
        model_contact *c = &m->contacts[k];
        const model_body *A = m->bodies[c->a], *B = m->bodies[c->b];
        c->inside = false;
        if (c->a != c->b && B->kind != PSB_CLOTH && contact_give(m, c) > 0.0 &&
            dot(sub(A->x[c->p], feature_point(B, c->feature, c->beta)), c->n) < 0.0) {
            c->inside = winding_number(B, A->x[c->p]) > 0.5;
            inside += c->inside;
        }
    }
    m->put_back += inside;
    for (int pass = 0; pass < POSITION_PASSES && inside > 0; pass++) {
        for (int k = 0; k < m->contact_count; k++) {
            const model_contact *c = &m->contacts[k];
            if (c->inside) {
                move_apart(m, c, gap, false);
            }
        }
        push_out_touched(m, true);
    }
    m->put_back += way_out(m);
    if (takers > 1) {
        m->put_back += last_check(m, 0.0);
    }
    // A point taken out of its own body may end inside another, and one
    // taken out of another inside its own: each again while the other moved
    // one, OWN_ROUNDS times at most.
    for (int round = 0; model_touches_itself(m) && round < OWN_ROUNDS; round++) {
        const int own = own_way_out(m);
        const int others = own > 0 ? way_out(m) + (takers > 1 ? last_check(m, 0.0) : 0) : 0;
        m->put_back += own + others;
        if (others == 0) {
            break;
        }
    }
}

// The impulse J given to p and taken from the corners: v_p += w_p J,
// v_i -= w_i β_i J (equal and opposite: w_p m_p = 1 and sum β_i = 1).
static void give_impulse(psb_model *m, const model_contact *c, psb_vec3 J) {
    model_body *A = m->bodies[c->a], *B = m->bodies[c->b];
    A->v[c->p] = axpy(A->v[c->p], inverse_mass(A, c->p), J);
    int corner[3];
    const int count = model_feature_corners(B, c->feature, corner);
    for (int j = 0; j < count; j++) {
        B->v[corner[j]] = axpy(B->v[corner[j]], -inverse_mass(B, corner[j]) * c->beta[j], J);
    }
}

// The relative velocity u = v_p - sum β_i v_i of a contact now.
static psb_vec3 relative_velocity(const psb_model *m, const model_contact *c) {
    const model_body *B = m->bodies[c->b];
    return relative(B, c->feature, c->beta, m->bodies[c->a]->v[c->p], B->v);
}

// The velocities. The normal part, in VELOCITY_PASSES passes: un = u . n
// goes to its target, e (-un0) for an approach at the start of the step
// faster than gravity gives in two steps (2 |g| dt), else 0 (a body resting
// on another is pressed into it by its weight in every step: no approach
// to bounce off); where un is below the target, or above it after a push
// (what the points moved toward each other was the push's to undo, not a
// rebound), by the impulse j = (target - un) / W along n. Then friction,
// one pass: u_t -> keep u_t (J = (keep - 1) u_t / W), keep = exp(-mu dt) as
// on the floor.
static void bounce(psb_model *m) {
    const psb_params *p = &m->params;
    const double keep = exp(-p->friction * p->dt);
    for (int pass = 0; pass < VELOCITY_PASSES; pass++) {
        for (int k = 0; k < m->contact_count; k++) {
            const model_contact *c = &m->contacts[k];
            const double W = contact_give(m, c);
            if (!(W > 0.0)) {
                continue;
            }
            const double approach = -c->un0;
            const double target =
                approach > 2.0 * fabs(p->gravity) * p->dt ? p->restitution * approach : 0.0;
            const double un = dot(relative_velocity(m, c), c->n);
            if (un < target || (c->pushed && un > target)) {
                give_impulse(m, c, scale((target - un) / W, c->n));
            }
        }
    }
    for (int k = 0; k < m->contact_count; k++) {
        const model_contact *c = &m->contacts[k];
        const double W = contact_give(m, c);
        if (!(W > 0.0)) {
            continue;
        }
        const psb_vec3 u = relative_velocity(m, c);
        const psb_vec3 ut = axpy(u, -dot(u, c->n), c->n);
        give_impulse(m, c, scale((keep - 1.0) / W, ut));
    }
}

// A point the contacts moved takes BDF2's history along: its last
// sub-step's start moves as it did (hist_x += x - x_found), and so does
// where that sub-step left it (end_x, if the point was still there). The
// move is then no reset, and the change of velocity a kick (model_implicit.c):
// with a reset's history, the own velocity of the moved points only, the
// bodies' momentum would not be kept.
static void carry_history(psb_model *m) {
    for (int k = 0; k < m->body_count; k++) {
        model_body *b = m->bodies[k];
        for (int i = 0; i < b->n; i++) {
            const psb_vec3 from = b->x_found[i], to = b->x[i];
            b->hist_x[i] = add(b->hist_x[i], sub(to, from));
            if (b->end_x[i].x == from.x && b->end_x[i].y == from.y && b->end_x[i].z == from.z) {
                b->end_x[i] = to;
            }
        }
    }
}

void model_body_contact(psb_model *m) {
    m->contact_count = 0;
    if (!m->params.body_contact) {
        return;
    }
    m->put_back += place_check(m);
    for (int a = 0; a < m->body_count; a++) {
        for (int b = 0; b < m->body_count; b++) {
            if (pair_touches(m, a, b)) {
                find_pair(m, a, b);
            }
        }
    }
    if (m->contact_count == 0) {
        return;
    }
    for (int k = 0; k < m->body_count; k++) {
        model_body *b = m->bodies[k];
        for (int i = 0; i < b->n; i++) {
            b->x_found[i] = b->x[i];
        }
    }
    // With contact inside the solve, the links have moved the points out of
    // other bodies (at RECOVERY_SPEED at most), and out of their own
    // (model_links_itself): the stage pushes only a ring's or a cloth's
    // contacts with itself, and sets the velocities.
    const bool solving = model_solves_contact(m);
    if (!solving || model_touches_itself(m)) {
        push_apart(m, solving);
    }
    if (solving) {
        put_back(m);
    }
    bounce(m);
    carry_history(m);
}

long psb_model_put_back_count(const psb_model *m) {
    return m->put_back;
}

int psb_model_contact_count(const psb_model *m) {
    return m->contact_count;
}

// ---------------------------------------------------------------------------
// Links: contacts held inside the solved step (model_implicit.c).

// A stiff body's points move together: in a sub-step of h a push on one
// point reaches about r = h sqrt(ks / m) springs across its surface (m the
// body's mean point mass), a patch of about pi r² points, at most all of
// them. A 3D link between two bodies holds its point against that inertia:
// each side's masses count link_drag times, the patch's points over
// DRAG_PATCH, at least 1 (docs/contact.md, "A stiff body's links"); a
// body's links with itself count them once.
#define DRAG_PATCH 200.0
#define PI         3.14159265358979323846

static double link_drag(const model_body *b, double h) {
    const double patch = PI * h * h * b->params.spring_k * b->n / b->params.mass;
    return fmax(1.0, fmin(b->n, patch) / DRAG_PATCH);
}

// A link of a body with itself is made where p's own normal and the
// feature's pseudo-normal face each other (their dot product below 0), or,
// where p's link with its own body pushed at the end of the last solved
// sub-step, while their dot product is below this: where a feature turns
// across right angles to p under its link's push, the link came and went
// every other step, and shook a body at rest.
#define SELF_KEEP 0.1

// Where a link holds its point, from where it starts (start, along n): the
// skin δ, or for a 3D body's point that starts nearer (within the skin, or
// inside) where it starts plus RECOVERY_SPEED h, so that it is moved out
// over some steps. A ring's point that starts within the skin is held where
// it starts, and one that starts inside is moved out at RECOVERY_SPEED to
// the surface: its links carry its load (model_keep_link_forces), and moved
// out through the skin every step the pile's rings jiggled and spun up.
static double link_hold(double start, double delta, double h, bool ring) {
    if (!ring) {
        return fmin(delta, start + RECOVERY_SPEED * h);
    }
    return start >= 0.0 ? fmin(delta, start) : fmin(0.0, start + RECOVERY_SPEED * h);
}

// v less its part along the unit n.
static psb_vec3 tangential(psb_vec3 v, psb_vec3 n) {
    return axpy(v, -dot(v, n), n);
}

// v, shortened to `reach` where it is longer.
static psb_vec3 within_reach(psb_vec3 v, double reach) {
    const double s = norm(v);
    return s > reach ? scale(reach / s, v) : v;
}

// A 3D link c's friction, mu times the force it starts with (k times how
// far its hold is past where it starts), and its anchor: the pair's
// relative position r = x_p - q where it starts, less the stretch the
// point's link against the same body kept from the last sub-step, that
// turned into c's plane and within the friction's reach.
static void link_friction_start(const psb_model *m, model_contact *c, psb_vec3 r, double start) {
    const model_body *A = m->bodies[c->a];
    c->friction = m->params.contact_friction * c->k * fmax(0.0, c->hold - start);
    psb_vec3 kept = {0.0, 0.0, 0.0};
    if (c->friction > 0.0 && m->link_forces_kept && A->slip_against[c->p] == c->b + 1) {
        kept = within_reach(tangential(A->kept_slip[c->p], c->n), c->friction / c->k);
    }
    c->anchor = sub(r, kept);
}

// The links of A's points with B's surface where the points are at the start
// of a solved sub-step of h: each point p of A within R_p of B's surface,
// R_p = δ + 2 h (|v_p| + v_B) + 2 |g| h² (v_B: the fastest of B's points),
// about twice what p and B's surface move relative to each other in the
// sub-step, links its nearest feature: the point q = sum β_i x_i, held at
// these β, and the normal n (B's pseudo-normal there; against a cloth, turned
// to the side p is on). In the solve the link is the energy
// k/2 min(0, (x_p - q) . n - hold)², k = kappa / (W h²) (W: link_give, the
// masses of a stiff body counted as the patch they move with, but in its
// links with itself): a plane that moves
// with the feature's corners, pushing p and the corners apart; hold as
// link_hold says. A ring's link: k = ring_kappa / (W h²), and its hold
// raised by F / k, F the force p's link against B pushed with at the end of
// the last solved sub-step (model_keep_link_forces; 0 where it had none), so
// that it starts pushing with F where it is held.
// On its own body (a = b, model_links_itself), the velocities in R_p are
// taken less the body's mean velocity and without the fall (the whole body
// falls alike), p's own features and those nearest it on its neighbours
// only are left out, and so are the triangles whose normal does not face
// p's own pseudo-normal (their dot product not below 0: p's own sheet
// beside it, not another sheet of the body meeting p's); the nearest of
// the rest is a link only where its pseudo-normal faces p's too, and n is
// turned to p's side.
static void find_pair_links(psb_model *m, int a, int b, double h, double kappa, double ring_kappa) {
    const model_body *A = m->bodies[a], *B = m->bodies[b];
    const double delta = m->params.contact_thickness;
    const bool ring = A->kind == PSB_RING, self = a == b;
    // On its own body a link counts its points' own masses (the fast
    // path's DRAG_PATCH says why).
    const double drag_a = ring || self ? 1.0 : link_drag(A, h);
    const double drag_b = ring || self ? 1.0 : link_drag(B, h);
    // On its own body, velocities are seen from the body's mean velocity.
    psb_vec3 mean = {0.0, 0.0, 0.0};
    for (int i = 0; self && i < B->n; i++) {
        mean = add(mean, B->v[i]);
    }
    mean = scale(self ? 1.0 / B->n : 0.0, mean);
    double fastest = 0.0;
    for (int i = 0; i < B->n; i++) {
        fastest = fmax(fastest, norm(sub(B->v[i], mean)));
    }
    const double fall = self ? 0.0 : 2.0 * fabs(m->params.gravity) * h * h;
    psb_vec3 lo, hi;
    body_box(B, &lo, &hi);
    for (int i = 0; i < A->n; i++) {
        const psb_vec3 p = A->x[i];
        const double reach = delta + 2.0 * h * (norm(sub(A->v[i], mean)) + fastest) + fall;
        if (outside_box(p, lo, hi, reach)) {
            continue;
        }
        double nearest2, beta[3];
        const psb_vec3 own = self ? point_normal(A, i) : (psb_vec3){0.0, 0.0, 0.0};
        const int nearest =
            nearest_feature(B, p, reach, self ? i : -1, self ? &own : NULL, beta, &nearest2);
        if (nearest < 0 || sqrt(nearest2) > reach) {
            continue;
        }
        psb_vec3 n = pseudo_normal(B, nearest, beta);
        const bool kept = self && m->link_forces_kept && A->kept_against[i] == b + 1;
        if (self && !(dot(own, n) < (kept ? SELF_KEEP : 0.0))) {
            continue; // on an edge or a corner whose pseudo-normal does not face p's
        }
        if ((self || B->kind == PSB_CLOTH) &&
            dot(sub(p, feature_point(B, nearest, beta)), n) < 0.0) {
            n = scale(-1.0, n);
        }
        const double start = dot(sub(p, feature_point(B, nearest, beta)), n);
        model_contact c = {.a = a,
                           .p = i,
                           .b = b,
                           .feature = nearest,
                           .beta = {beta[0], beta[1], beta[2]},
                           .n = n,
                           .hold = link_hold(start, delta, h, ring),
                           .floor = fmin(0.0, start)};
        const double W = link_give(m, &c, drag_a, drag_b);
        if (W > 0.0 && dot(n, n) > 0.0) {
            c.k = (ring ? ring_kappa : kappa) / (W * h * h);
            if (ring && m->link_forces_kept && A->kept_against[i] == b + 1) {
                c.hold += A->kept_force[i] / c.k;
            }
            if (!ring) {
                link_friction_start(m, &c, sub(p, feature_point(B, nearest, beta)), start);
            }
            append(&m->links, &m->link_count, &m->link_capacity, c);
        }
    }
}

// Coulomb friction on the links, after the groups' solves of a sub-step of
// h, on those that had none in the solve (c->friction: they started
// outside the skin), one pass in the links' order: a link that pushes where the
// solve left the points, d = (x_p - q) . n - hold < 0, gave the normal
// impulse j_n = k (-d) h; the relative velocity along the surface,
// u_t = u - (u . n) n, goes down by an impulse
// J = -min(1 / W, mu j_n / |u_t|) u_t (to 0 where that is enough: the pair
// sticks), given to p and taken from the corners. Not between rings (2D),
// where it locks crushed rings into each other (docs/contact.md, "Coulomb
// friction").
void model_link_friction(psb_model *m, double h) {
    const double mu = m->params.contact_friction;
    for (int l = 0; l < m->link_count && mu > 0.0; l++) {
        const model_contact *c = &m->links[l];
        const model_body *A = m->bodies[c->a], *B = m->bodies[c->b];
        if (A->kind == PSB_RING) {
            continue; // rings touch rings only
        }
        const double d =
            dot(sub(A->x[c->p], feature_point(B, c->feature, c->beta)), c->n) - c->hold;
        const double W = contact_give(m, c);
        if (!(d < 0.0) || !(W > 0.0) || c->friction > 0.0) {
            continue;
        }
        const psb_vec3 u = relative_velocity(m, c);
        const psb_vec3 ut = axpy(u, -dot(u, c->n), c->n);
        const double slide = norm(ut);
        if (slide > 0.0) {
            give_impulse(m, c, scale(-fmin(1.0 / W, mu * c->k * -d * h / slide), ut));
        }
    }
}

// The rings' links' forces where the solve left the points, each kept on
// its point with the body it pushed against (a point with two pushing links
// keeps the later one's); the points of 3D bodies whose links with their
// own body pushed (SELF_KEEP); and the stretch of each 3D link's friction
// that still pushes, the same way.
void model_keep_link_forces(psb_model *m) {
    for (int k = 0; k < m->body_count; k++) {
        model_body *B = m->bodies[k];
        for (int i = 0; i < B->n; i++) {
            B->kept_against[i] = 0;
            B->slip_against[i] = 0;
        }
    }
    for (int l = 0; l < m->link_count; l++) {
        const model_contact *c = &m->links[l];
        model_body *A = m->bodies[c->a];
        const psb_vec3 r = sub(A->x[c->p], feature_point(m->bodies[c->b], c->feature, c->beta));
        const double d = dot(r, c->n) - c->hold;
        if (d < 0.0 && c->friction > 0.0) {
            // The friction's stretch, within its reach (past it the anchor
            // is dragged along).
            A->kept_slip[c->p] =
                within_reach(tangential(sub(r, c->anchor), c->n), c->friction / c->k);
            A->slip_against[c->p] = c->b + 1;
        }
        if (A->kind != PSB_RING && c->a != c->b) {
            continue;
        }
        if (d < 0.0) {
            A->kept_force[c->p] = c->k * -d;
            A->kept_against[c->p] = c->b + 1;
        }
    }
    m->link_forces_kept = true;
}

void model_find_links(psb_model *m, double h, double kappa, double ring_kappa) {
    m->link_count = 0;
    if (!m->params.body_contact) {
        return;
    }
    for (int a = 0; a < m->body_count; a++) {
        for (int b = 0; b < m->body_count; b++) {
            if ((a != b || model_links_itself(m, m->bodies[a])) && pair_touches(m, a, b)) {
                find_pair_links(m, a, b, h, kappa, ring_kappa);
            }
        }
    }
}

bool model_links_itself(const psb_model *m, const model_body *b) {
    return m->params.self_contact && b->params.self_contact && b->kind == PSB_SHELL;
}

bool model_solves_contact(const psb_model *m) {
    return m->params.contact_solve && m->params.body_contact &&
           psb_integrator_is_implicit(m->params.integrator);
}

int psb_model_link_count(const psb_model *m) {
    return m->link_count;
}

int psb_model_self_link_count(const psb_model *m) {
    int count = 0;
    for (int l = 0; l < m->link_count; l++) {
        count += m->links[l].a == m->links[l].b;
    }
    return count;
}
