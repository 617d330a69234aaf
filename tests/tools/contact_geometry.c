// Inside or outside a closed surface: the generalized winding number, and
// the distance to the surface.
//
// 3D: W(p) = Σ Ω_t(p) / 4π over the triangles t, Ω_t the signed solid angle
// of t seen from p, by Van Oosterom and Strackee (1983): with a, b, c the
// corners minus p,
//     tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|)
// (atan2 keeps the quadrant, so |Ω| reaches 2π). 2D: W(p) = Σ θ_s(p) / 2π,
// θ_s the signed angle of segment s seen from p. W is 1 inside a closed
// outward surface, 0 outside, and on the surface the fraction of a small
// sphere (circle) round p that is inside.
//
// The tree makes it fast and keeps it exact. A node's triangles (a patch)
// and a cap, the fan from the centre c of the node's box to the patch's
// boundary edges run backwards, make a closed surface inside the box, whose
// winding number is 0 at any p outside the box. There the patch's winding
// number is minus the cap's: Σ Ω(c, a, b) / 4π over the boundary edges
// a -> b, as many terms as boundary edges instead of one per triangle
// (Jacobson, Kavan and Sorkine-Hornung, 2013, use the same identity).
#include <assert.h>
#include <math.h>

#include "contact.h"

#define PI 3.14159265358979323846

static double length(cc_vec3 a) {
    return sqrt(dot(a, a));
}

// Van Oosterom and Strackee's Ω of triangle (a, b, c), corners relative to
// the eye. The eye in the triangle's plane (det exactly 0) sees it edge on:
// 0, also when the eye is on the triangle itself, where the two sides' ±2π
// average to 0 (so a point on a flat face gets W = 1/2, not 0 or 1 by the
// sign of a zero, as atan2(±0, negative) would give).
static double solid_angle(cc_vec3 a, cc_vec3 b, cc_vec3 c) {
    const double det = dot(a, cross(b, c));
    if (det == 0.0) {
        return 0.0;
    }
    const double la = length(a), lb = length(b), lc = length(c);
    const double den = la * lb * lc + dot(a, b) * lc + dot(b, c) * la + dot(c, a) * lb;
    return 2.0 * atan2(det, den);
}

static bool outside_box(const cc_node *n, cc_vec3 p) {
    return p.x < n->lo.x || p.x > n->hi.x || p.y < n->lo.y || p.y > n->hi.y || p.z < n->lo.z ||
           p.z > n->hi.z;
}

static double winding_2d(const cc_body *b, cc_vec3 p, int skip) {
    double sum = 0.0;
    for (int s = 0; s < b->seg_count; s++) {
        const int i = b->segs[2 * s], j = b->segs[2 * s + 1];
        if (i == skip || j == skip) {
            continue;
        }
        const double ux = b->points[i].x - p.x, uy = b->points[i].y - p.y;
        const double vx = b->points[j].x - p.x, vy = b->points[j].y - p.y;
        const double det = ux * vy - uy * vx;
        // On the segment's line, as for a triangle's plane: 0, not ±π.
        sum += det == 0.0 ? 0.0 : atan2(det, ux * vx + uy * vy);
    }
    return sum / (2.0 * PI);
}

double cc_winding(const cc_body *b, cc_vec3 p, int skip) {
    assert(b->closed && "cc_winding: the body must be closed");
    if (b->ring) {
        return winding_2d(b, p, skip);
    }
    double sum = 0.0;
    // Depth-first; the tree halves its triangles at each level, so its depth
    // is at most 32 and the stack at most one more.
    int stack[64], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const cc_node *n = &b->nodes[stack[--top]];
        const bool outside = outside_box(n, p);
        if (outside && n->edge_count < n->count) {
            const cc_vec3 c = sub(n->centre, p);
            for (int e = n->edge_first; e < n->edge_first + n->edge_count; e++) {
                sum += solid_angle(c, sub(b->points[b->edges[2 * e]], p),
                                   sub(b->points[b->edges[2 * e + 1]], p));
            }
        } else if (outside || n->left < 0) {
            // Outside the box no triangle can use point skip: it is p.
            for (int k = n->first; k < n->first + n->count; k++) {
                const int *t = &b->tris[3 * b->order[k]];
                if (t[0] == skip || t[1] == skip || t[2] == skip) {
                    continue;
                }
                sum += solid_angle(sub(b->points[t[0]], p), sub(b->points[t[1]], p),
                                   sub(b->points[t[2]], p));
            }
        } else {
            stack[top++] = n->right;
            stack[top++] = n->left;
        }
    }
    return sum / (4.0 * PI);
}

// |p - the nearest point of segment ab|, in the x-y plane for a ring.
static double segment_distance(cc_vec3 p, cc_vec3 a, cc_vec3 b) {
    const cc_vec3 ab = sub(b, a), ap = sub(p, a);
    const double len2 = dot(ab, ab);
    double t = len2 > 0.0 ? dot(ap, ab) / len2 : 0.0;
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return length(sub(ap, (cc_vec3){t * ab.x, t * ab.y, t * ab.z}));
}

// |p - the nearest point of triangle abc|: the distance to its plane when
// p's projection falls inside (on the inner side of all three edges, seen
// along the normal n), else the nearest of its three edges.
static double triangle_distance(cc_vec3 p, cc_vec3 a, cc_vec3 b, cc_vec3 c) {
    const cc_vec3 n = cross(sub(b, a), sub(c, a));
    const double n2 = dot(n, n);
    if (n2 > 0.0 && dot(cross(sub(b, a), sub(p, a)), n) >= 0.0 &&
        dot(cross(sub(c, b), sub(p, b)), n) >= 0.0 && dot(cross(sub(a, c), sub(p, c)), n) >= 0.0) {
        return fabs(dot(sub(p, a), n)) / sqrt(n2);
    }
    const double ab = segment_distance(p, a, b), bc = segment_distance(p, b, c);
    return fmin(ab, fmin(bc, segment_distance(p, c, a)));
}

// True when point i is point skip or, with neighbours, one of its neighbours.
static bool near_skip(const cc_body *b, int i, int skip, bool neighbours) {
    if (skip < 0) {
        return false;
    }
    if (i == skip) {
        return true;
    }
    if (!neighbours) {
        return false;
    }
    for (int k = b->fan_first[skip]; k < b->fan_first[skip + 1]; k++) {
        if (b->fan[k] == i) {
            return true;
        }
    }
    return false;
}

double cc_distance(const cc_body *b, cc_vec3 p, int skip, bool neighbours) {
    assert((!neighbours || b->fan) && "cc_distance: neighbours need the fans (prepare with self)");
    double best = -1.0;
    if (b->ring) {
        const cc_vec3 flat = {p.x, p.y, 0.0};
        for (int s = 0; s < b->seg_count; s++) {
            const int i = b->segs[2 * s], j = b->segs[2 * s + 1];
            if (near_skip(b, i, skip, neighbours) || near_skip(b, j, skip, neighbours)) {
                continue;
            }
            const cc_vec3 u = {b->points[i].x, b->points[i].y, 0.0};
            const cc_vec3 v = {b->points[j].x, b->points[j].y, 0.0};
            const double d = segment_distance(flat, u, v);
            best = best < 0.0 || d < best ? d : best;
        }
        return best;
    }
    for (int t = 0; t < b->tri_count; t++) {
        const int *c = &b->tris[3 * t];
        if (near_skip(b, c[0], skip, neighbours) || near_skip(b, c[1], skip, neighbours) ||
            near_skip(b, c[2], skip, neighbours)) {
            continue;
        }
        const double d = triangle_distance(p, b->points[c[0]], b->points[c[1]], b->points[c[2]]);
        best = best < 0.0 || d < best ? d : best;
    }
    return best;
}
