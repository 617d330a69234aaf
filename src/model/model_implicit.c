// The solved step, written plainly: backward Euler and BDF2 in their
// variational form.
//
// One sub-step finds the positions x that minimise
//
//     G(x) = sum_i m_i / (2 h^2) |x_i - y_i|^2 + E(x)
//
// and sets v = (x - xb) / h. Backward Euler: h is the sub-step, xb = x_n and
// y = x_n + h v_n. BDF2 (from its second sub-step on): h is 2/3 of the
// sub-step, xb = (4 x_n - x_{n-1}) / 3 and y = xb + h (4 v_n - v_{n-1}) / 3.
// E is everything that depends on where the points end:
//   springs   1/2 ks (l - L0)^2 + kd / (2 h) (u0 . ((x_i - x_j) - (xb_i - xb_j)))^2,
//             u0 the spring's direction at the start (its gradient is the
//             damping force kd ((v_i - v_j) . u0) u0);
//   gas       -nRT ln V + P0 V (its gradient is -P dV/dx), straightened to
//             its tangent below a thousandth of the rest volume;
//   gravity   m g y;
//   grab      1/2 k |x - target|^2 + c / (2 h) |x - xb|^2, c = 2 sqrt(k m);
//   struts    1/2 ks (l - L)^2 for each strut shorter than L, the fold
//             limit times its rest distance (none longer).
// The air's force is taken where the step starts, in y (+ h^2 f_air / m).
// At the minimum, M (x - y) / h^2 = F(x, v): the implicit update.
//
// Contacts are constraints: no point may end inside the floor or a wall,
// nor behind the plane that touches its nearest sphere where it started the
// step (the sphere lies behind it); one pressed onto a surface moves only
// along it. The minimum is found by Newton's method: each step solves
// H d = -grad G by conjugate gradients with H applied point by point, then a
// line search along d lowers G. Afterwards the points on a surface get
// restitution and friction, and the pins are held.
//
// With contact inside the solve (psb_params.contact_solve), the bodies
// that links join (model_find_links: a point near another body's surface)
// are solved together: one G, the sum of theirs and of each link's
// k/2 min(0, (x_p - q) . n - hold)^2, one Newton's method over all their
// points (docs/contact.md, "Contact inside the solve").
#include <stdlib.h>

#include "model_internal.h"

// Solved when no point's velocity would change by more than this, m/s.
#define TOLERANCE 1e-9
// Within this of a collider's surface, m, a point touches it.
#define TOUCH_SLACK 1e-9

// A link's stiffness in units of its points' effective mass over the
// sub-step squared, (1 / W) / h^2: a point that would end the sub-step s
// past a link's plane (held by inertia alone) ends it s / (1 + this) past;
// a ring's softer, starting from the force it last pushed with
// (docs/contact.md, "A ring's links start from their last force").
#define LINK_STIFFNESS      100.0
#define RING_LINK_STIFFNESS 10.0

enum { NEWTON_MAX = 200, TRIES_MAX = 40 };
// Links' normals made again where the points are (turn_links): a
// sub-step's rounds at most, and the depth past a link's floor let be, m.
enum { TURN_ROUNDS = 2 };
#define TURN_SLACK 1e-3

typedef struct solve_ctx {
    const psb_model *m;
    model_body *b;
    double h;       // s: the sub-step (backward Euler), 2/3 of it (BDF2)
    double gravity; // m/s^2
    double nrt;     // J
    double grab_c;  // N s/m: the grab spring's damping
    double dt;      // s: the sub-step
    bool bdf2;      // BDF2 asked for (its first sub-step is backward Euler's)
} solve_ctx;

// The bodies solved together, in one G: those that links join (with their
// links' energy k/2 min(0, (x_p - q) . n - hold)² added), or one body alone.
typedef struct group {
    psb_model *m;
    int count;
    solve_ctx *s; // one per body, in increasing index
    int link_count;
    const int *link; // indices into m->links
} group;

// G at b->x; its gradient into grad.
static double energy(const solve_ctx *s, psb_vec3 *grad) {
    const model_body *b = s->b;
    const double h = s->h, ks = b->params.spring_k, kd = b->params.spring_damping;
    double G = 0.0;
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 from_y = sub(b->x[i], b->y[i]);
        G += b->mass[i] / (2.0 * h * h) * dot(from_y, from_y) + b->mass[i] * s->gravity * b->x[i].y;
        grad[i] = axpy((psb_vec3){0.0, b->mass[i] * s->gravity, 0.0}, b->mass[i] / (h * h), from_y);
    }
    for (int k = 0; k < b->spring_count; k++) {
        const int i = b->spring[2 * k], j = b->spring[2 * k + 1];
        const psb_vec3 d = sub(b->x[i], b->x[j]);
        const double l = norm(d), stretch = l - b->rest[k];
        const double rel = dot(b->u0[k], sub(d, sub(b->xb[i], b->xb[j])));
        G += 0.5 * ks * stretch * stretch + 0.5 * kd / h * rel * rel;
        psb_vec3 pull = scale(kd / h * rel, b->u0[k]);
        if (l > 0.0) {
            pull = axpy(pull, ks * stretch / l, d);
        }
        grad[i] = add(grad[i], pull);
        grad[j] = sub(grad[j], pull);
    }
    // Struts: 1/2 ks (l - L)^2 while shorter than L, the fold limit times
    // the rest distance.
    for (int k = 0; k < b->strut_count; k++) {
        const int i = b->strut[2 * k], j = b->strut[2 * k + 1];
        const psb_vec3 d = sub(b->x[i], b->x[j]);
        const double l = norm(d), short_by = l - b->params.fold_limit * b->strut_rest[k];
        if (short_by < 0.0 && l > 0.0) {
            G += 0.5 * ks * short_by * short_by;
            const psb_vec3 push = scale(ks * short_by / l, d);
            grad[i] = add(grad[i], push);
            grad[j] = sub(grad[j], push);
        }
    }
    if (b->kind != PSB_CLOTH) {
        const double V = model_volume(b, b->x), Vf = model_floor_volume(b);
        G += (V > Vf ? -s->nrt * log(V) : -s->nrt * (log(Vf) + (V - Vf) / Vf)) +
             b->params.outside_pressure * V;
        const double P = model_pressure(b, s->nrt, V);
        model_volume_gradient(b, b->x, b->g);
        for (int i = 0; i < b->n; i++) {
            grad[i] = axpy(grad[i], -P, b->g[i]);
        }
    }
    if (b->grab_point >= 0) {
        const int k = b->grab_point;
        const psb_vec3 to = sub(b->x[k], b->grab_target), moved = sub(b->x[k], b->xb[k]);
        G += 0.5 * b->grab_k * dot(to, to) + 0.5 * s->grab_c / h * dot(moved, moved);
        grad[k] = add(grad[k], add(scale(b->grab_k, to), scale(s->grab_c / h, moved)));
    }
    return G;
}

// Each point's sphere plane: the nearest sphere's tangent plane at x.
static void sphere_planes(const psb_model *m, model_body *b) {
    for (int i = 0; i < b->n; i++) {
        double best = INFINITY;
        b->plane_n[i] = (psb_vec3){0.0, 0.0, 0.0};
        b->plane_d[i] = 0.0;
        for (int k = 0; k < m->sphere_count; k++) {
            psb_vec3 centre;
            double r;
            model_sphere_seen(m, b, k, &centre, &r);
            const double dist = norm(sub(b->x[i], centre));
            if (r > 0.0 && dist - r < best) {
                best = dist - r;
                const psb_vec3 n = dist > 0.0 ? scale(1.0 / dist, sub(b->x[i], centre))
                                              : (psb_vec3){0.0, 1.0, 0.0};
                b->plane_n[i] = n;
                b->plane_d[i] = dot(n, centre) + r;
            }
        }
    }
}

// Point i at x moved out of the floor, the walls and behind its sphere plane.
static void push_out(const solve_ctx *s, int i, psb_vec3 *x) {
    model_push_out(s->m, s->b, x, false);
    const psb_vec3 n = s->b->plane_n[i];
    const double behind = s->b->plane_d[i] - dot(n, *x);
    if (behind > 0.0) {
        *x = axpy(*x, behind, n);
    }
}

// The normals of the surfaces point i at x touches (or is in); returns
// their count.
static int contact_normals(const solve_ctx *s, int i, psb_vec3 x, psb_vec3 n[8]) {
    int count = model_contact_normals(s->m, s->b, x, TOUCH_SLACK, false, n);
    const psb_vec3 plane = s->b->plane_n[i];
    const double d = s->b->plane_d[i];
    if (count < 8 && dot(plane, plane) > 0.0 &&
        dot(plane, x) - d <= TOUCH_SLACK * (1.0 + fabs(d))) {
        n[count++] = plane;
    }
    return count;
}

// w with the normals of the contacts that hold point i taken out; pinned
// points do not move at all.
static psb_vec3 filter(const solve_ctx *s, int i, psb_vec3 w) {
    if (s->b->pinned[i]) {
        return (psb_vec3){0.0, 0.0, 0.0};
    }
    psb_vec3 n[8];
    const int count = contact_normals(s, i, s->b->x[i], n);
    for (int k = 0; k < count; k++) {
        // Held: the gradient presses it into the collider (-grad . n < 0).
        if (dot(s->b->r[i], n[k]) > 0.0) {
            w = axpy(w, -dot(w, n[k]), n[k]);
        }
    }
    return w;
}

// q = H p: the Hessian of one body's G at b->x applied to p (not filtered).
static void hessian_times(const solve_ctx *s, const psb_vec3 *p, psb_vec3 *q) {
    const model_body *b = s->b;
    const double h = s->h, ks = b->params.spring_k, kd = b->params.spring_damping;
    for (int i = 0; i < b->n; i++) {
        q[i] = scale(b->mass[i] / (h * h), p[i]);
    }
    // A spring: K (p_i - p_j) with K = ks [u u^T + (1 - L0/l) (I - u u^T)] +
    // kd / h u0 u0^T, the lateral term held at 0 on a compressed spring so
    // that K stays positive semi-definite.
    for (int k = 0; k < b->spring_count; k++) {
        const int i = b->spring[2 * k], j = b->spring[2 * k + 1];
        const psb_vec3 d = sub(b->x[i], b->x[j]), w = sub(p[i], p[j]);
        const double l = norm(d);
        psb_vec3 Kw = scale(kd / h * dot(b->u0[k], w), b->u0[k]);
        if (l > 0.0) {
            const psb_vec3 u = scale(1.0 / l, d);
            const double along = dot(u, w), lateral = fmax(0.0, 1.0 - b->rest[k] / l);
            Kw = add(Kw, scale(ks, add(scale(along, u), scale(lateral, axpy(w, -along, u)))));
        }
        q[i] = add(q[i], Kw);
        q[j] = sub(q[j], Kw);
    }
    // A strut that acts: ks u u^T (p_i - p_j), its lateral term (1 - L/l,
    // negative on a strut shorter than L) held at 0.
    for (int k = 0; k < b->strut_count; k++) {
        const int i = b->strut[2 * k], j = b->strut[2 * k + 1];
        const psb_vec3 d = sub(b->x[i], b->x[j]);
        const double l = norm(d);
        if (l < b->params.fold_limit * b->strut_rest[k] && l > 0.0) {
            const psb_vec3 u = scale(1.0 / l, d);
            const psb_vec3 Kw = scale(ks * dot(u, sub(p[i], p[j])), u);
            q[i] = add(q[i], Kw);
            q[j] = sub(q[j], Kw);
        }
    }
    // The gas: (nRT / V^2) g (g . p) - P H_V p, g = dV/dx. H_V p is the
    // change of g along p: on a shell 1/6 (p_b x x_c + x_b x p_c) for each
    // triangle (a, b, c) at a; on a ring 1/2 (p_{i+1}.y - p_{i-1}.y,
    // p_{i-1}.x - p_{i+1}.x).
    if (b->kind != PSB_CLOTH) {
        const double V = model_volume(b, b->x), Vf = model_floor_volume(b);
        const double P = model_pressure(b, s->nrt, V);
        model_volume_gradient(b, b->x, b->g);
        double gp = 0.0;
        for (int i = 0; i < b->n; i++) {
            gp += dot(b->g[i], p[i]);
        }
        const double c = V > Vf ? s->nrt / (V * V) : 0.0;
        for (int i = 0; i < b->n; i++) {
            q[i] = axpy(q[i], c * gp, b->g[i]);
        }
        if (b->kind == PSB_RING) {
            for (int i = 0; i < b->n; i++) {
                const psb_vec3 next = p[(i + 1) % b->n], prev = p[(i + b->n - 1) % b->n];
                q[i] = axpy(q[i], -0.5 * P, (psb_vec3){next.y - prev.y, prev.x - next.x, 0.0});
            }
        } else {
            const psb_vec3 o = b->x[0];
            for (int t = 0; t < b->tri_count; t++) {
                const int *v = &b->tri[3 * t];
                for (int k = 0; k < 3; k++) {
                    const int j = v[(k + 1) % 3], l = v[(k + 2) % 3];
                    const psb_vec3 dg =
                        add(cross(p[j], sub(b->x[l], o)), cross(sub(b->x[j], o), p[l]));
                    q[v[k]] = axpy(q[v[k]], -P / 6.0, dg);
                }
            }
        }
    }
    if (b->grab_point >= 0) {
        q[b->grab_point] = axpy(q[b->grab_point], b->grab_k + s->grab_c / h, p[b->grab_point]);
    }
}

// The preconditioner's scale at point i: an upper bound of H's diagonal
// without the struts (few act, and only in a fold).
static double diagonal(const solve_ctx *s, int i) {
    const model_body *b = s->b;
    const double springs = b->degree[i] * (b->params.spring_k + b->params.spring_damping / s->h);
    const double grab = i == b->grab_point ? b->grab_k + s->grab_c / s->h : 0.0;
    return b->mass[i] / (s->h * s->h) + springs + grab + b->link_k[i];
}

// ---------------------------------------------------------------------------
// The links between the bodies of a group.

// The corners of link c's feature, into corner; returns how many.
static int link_corners(const psb_model *m, const model_contact *c, int corner[3]) {
    return model_feature_corners(m->bodies[c->b], c->feature, corner);
}

// q = sum β_i x_i, link c's point on its feature.
static psb_vec3 feature_point_at(const psb_model *m, const model_contact *c) {
    const model_body *B = m->bodies[c->b];
    int corner[3];
    const int count = link_corners(m, c, corner);
    psb_vec3 q = {0.0, 0.0, 0.0};
    for (int j = 0; j < count; j++) {
        q = axpy(q, c->beta[j], B->x[corner[j]]);
    }
    return q;
}

// (x_p - q) . n - δ: below 0, the link pushes.
static double link_gap(const psb_model *m, const model_contact *c) {
    return dot(sub(m->bodies[c->a]->x[c->p], feature_point_at(m, c)), c->n) - c->hold;
}

// A link's plane keeps its feature's pseudo-normal from the sub-step's
// start, and a feature that turns in the step (a ball landing on another)
// leaves it off the surface. At a solution: if a 3D link, along its
// feature's pseudo-normal where the points are now, would have its point
// deeper by more than TURN_SLACK than its floor and than along its own n,
// every 3D link takes that normal; returns whether they did (then G has
// changed).
static bool turn_links(const group *g) {
    bool deeper = false;
    for (int l = 0; l < g->link_count && !deeper; l++) {
        const model_contact *was = &g->m->links[g->link[l]];
        model_contact c = *was;
        c.n = model_link_normal(g->m, &c);
        const double now = link_gap(g->m, &c) + c.hold;
        deeper = g->m->bodies[c.b]->kind != PSB_RING && now < c.floor - TURN_SLACK &&
                 now < link_gap(g->m, was) + was->hold - TURN_SLACK;
    }
    for (int l = 0; l < g->link_count && deeper; l++) {
        model_contact *c = &g->m->links[g->link[l]];
        c->n = model_link_normal(g->m, c);
    }
    return deeper;
}

// A link's energy at gap d (link_gap), over k: d² / 2 where d < 0 (the
// link pushes), else 0; its first and second derivatives into d1 and d2.
static double link_energy(double d, double *d1, double *d2) {
    if (d >= 0.0) {
        *d1 = 0.0, *d2 = 0.0;
        return 0.0;
    }
    *d1 = d, *d2 = 1.0;
    return 0.5 * d * d;
}

// A link's friction where the points are (friction_energy): its gradient
// on the pair's relative position, a w, and its Hessian there,
// a (I - n n^T), less a w^ w^T when it slides (along = w^): a = k while it
// holds, f / |w| while it slides.
typedef struct friction_terms {
    psb_vec3 grad, along;
    double a;
    bool slides;
} friction_terms;

// Link c's Coulomb friction at the bodies' x (c->friction, f): the
// stretch w = (I - n n^T) (x_p - q - anchor) is held by a spring of the
// link's k up to f / k, past which the pair slides against f. Returns its
// energy, k |w|² / 2 or f (|w| - f / (2 k)); its terms into t.
static double friction_energy(const psb_model *m, const model_contact *c, friction_terms *t) {
    const model_body *A = m->bodies[c->a];
    const psb_vec3 r = sub(A->x[c->p], feature_point_at(m, c));
    psb_vec3 w = sub(r, c->anchor);
    w = axpy(w, -dot(w, c->n), c->n);
    const double s = norm(w), reach = c->friction / c->k;
    t->slides = s > reach;
    t->a = t->slides ? c->friction / s : c->k;
    t->along = t->slides ? scale(1.0 / s, w) : (psb_vec3){0.0, 0.0, 0.0};
    t->grad = scale(t->a, w);
    return t->slides ? c->friction * (s - 0.5 * reach) : 0.5 * c->k * s * s;
}

// The friction's Hessian (friction_energy's t) times v, a relative move.
static psb_vec3 friction_times(const model_contact *c, const friction_terms *t, psb_vec3 v) {
    psb_vec3 out = scale(t->a, axpy(v, -dot(v, c->n), c->n));
    return t->slides ? axpy(out, -t->a * dot(t->along, v), t->along) : out;
}

// G of the group at the bodies' x, its gradient into each body's r (trial:
// into q, for a line search's trial).
static double group_energy(const group *g, bool trial) {
    double G = 0.0;
    for (int k = 0; k < g->count; k++) {
        model_body *b = g->s[k].b;
        G += energy(&g->s[k], trial ? b->q : b->r);
    }
    for (int l = 0; l < g->link_count; l++) {
        const model_contact *c = &g->m->links[g->link[l]];
        double d1, d2;
        const double E = link_energy(link_gap(g->m, c), &d1, &d2);
        if (d1 != 0.0) {
            model_body *A = g->m->bodies[c->a], *B = g->m->bodies[c->b];
            psb_vec3 *ga = trial ? A->q : A->r, *gb = trial ? B->q : B->r;
            G += c->k * E;
            ga[c->p] = axpy(ga[c->p], c->k * d1, c->n);
            int corner[3];
            const int count = link_corners(g->m, c, corner);
            for (int j = 0; j < count; j++) {
                gb[corner[j]] = axpy(gb[corner[j]], -c->k * d1 * c->beta[j], c->n);
            }
        }
        if (c->friction > 0.0) {
            friction_terms t;
            G += friction_energy(g->m, c, &t);
            model_body *A = g->m->bodies[c->a], *B = g->m->bodies[c->b];
            psb_vec3 *ga = trial ? A->q : A->r, *gb = trial ? B->q : B->r;
            ga[c->p] = add(ga[c->p], t.grad);
            int corner[3];
            const int count = link_corners(g->m, c, corner);
            for (int j = 0; j < count; j++) {
                gb[corner[j]] = axpy(gb[corner[j]], -c->beta[j], t.grad);
            }
        }
    }
    return G;
}

// q = H p over the group, filtered: each body's own, then each pushing
// link's k J^T J p with J p = (p_p - sum β_i p_i) . n, and each friction
// link's (friction_times on the pair's relative move).
static void group_hessian_times(const group *g) {
    for (int k = 0; k < g->count; k++) {
        hessian_times(&g->s[k], g->s[k].b->p, g->s[k].b->q);
    }
    for (int l = 0; l < g->link_count; l++) {
        const model_contact *c = &g->m->links[g->link[l]];
        double d1, d2;
        link_energy(link_gap(g->m, c), &d1, &d2);
        if (!(d2 > 0.0) && !(c->friction > 0.0)) {
            continue;
        }
        model_body *A = g->m->bodies[c->a], *B = g->m->bodies[c->b];
        int corner[3];
        const int count = link_corners(g->m, c, corner);
        psb_vec3 w = A->p[c->p]; // the pair's relative move
        for (int j = 0; j < count; j++) {
            w = axpy(w, -c->beta[j], B->p[corner[j]]);
        }
        psb_vec3 Hw = scale(c->k * d2 * dot(w, c->n), c->n);
        if (c->friction > 0.0) {
            friction_terms t;
            friction_energy(g->m, c, &t);
            Hw = add(Hw, friction_times(c, &t, w));
        }
        A->q[c->p] = add(A->q[c->p], Hw);
        for (int j = 0; j < count; j++) {
            B->q[corner[j]] = axpy(B->q[corner[j]], -c->beta[j], Hw);
        }
    }
    for (int k = 0; k < g->count; k++) {
        model_body *b = g->s[k].b;
        for (int i = 0; i < b->n; i++) {
            b->q[i] = filter(&g->s[k], i, b->q[i]);
        }
    }
}

// Each point's share of the pushing links' diagonal, k for p and k β_i² for
// a corner, and of the friction links' (their largest, friction_terms.a):
// the preconditioner's.
static void link_diagonal(const group *g) {
    for (int k = 0; k < g->count; k++) {
        model_body *b = g->s[k].b;
        for (int i = 0; i < b->n; i++) {
            b->link_k[i] = 0.0;
        }
    }
    for (int l = 0; l < g->link_count; l++) {
        const model_contact *c = &g->m->links[g->link[l]];
        double d1, d2;
        link_energy(link_gap(g->m, c), &d1, &d2);
        if (d2 > 0.0) {
            g->m->bodies[c->a]->link_k[c->p] += c->k * d2;
            model_body *B = g->m->bodies[c->b];
            int corner[3];
            const int count = link_corners(g->m, c, corner);
            for (int j = 0; j < count; j++) {
                B->link_k[corner[j]] += c->k * d2 * c->beta[j] * c->beta[j];
            }
        }
        if (c->friction > 0.0) { // (its largest: a)
            friction_terms t;
            friction_energy(g->m, c, &t);
            g->m->bodies[c->a]->link_k[c->p] += t.a;
            model_body *B = g->m->bodies[c->b];
            int corner[3];
            const int count = link_corners(g->m, c, corner);
            for (int j = 0; j < count; j++) {
                B->link_k[corner[j]] += t.a * c->beta[j] * c->beta[j];
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Newton's method.

// d ~ -H^-1 r by preconditioned conjugate gradients over the group, to a
// hundredth of the first residual (Newton's next step corrects the rest);
// stops early on negative curvature. Returns the iterations taken.
static int conjugate_gradients(const group *g) {
    double rz = 0.0, r0 = 0.0;
    int n = 0;
    link_diagonal(g);
    for (int k = 0; k < g->count; k++) {
        const solve_ctx *s = &g->s[k];
        model_body *b = s->b;
        n += b->n;
        for (int i = 0; i < b->n; i++) {
            b->d[i] = (psb_vec3){0.0, 0.0, 0.0};
            b->q[i] = scale(-1.0, filter(s, i, b->r[i])); // the residual of H d = -r at d = 0
            b->z[i] = scale(1.0 / diagonal(s, i), b->q[i]);
            b->p[i] = b->z[i];
            rz += dot(b->q[i], b->z[i]);
            r0 += dot(b->q[i], b->q[i]);
        }
        // Keeps the residual in xs while q holds H p.
        for (int i = 0; i < b->n; i++) {
            b->xs[i] = b->q[i];
        }
    }
    int it = 0;
    for (; it < 5 * n + 100 && rz > 0.0; it++) {
        group_hessian_times(g);
        double pq = 0.0;
        for (int k = 0; k < g->count; k++) {
            const model_body *b = g->s[k].b;
            for (int i = 0; i < b->n; i++) {
                pq += dot(b->p[i], b->q[i]);
            }
        }
        if (!(pq > 0.0)) {
            if (it == 0) {
                for (int k = 0; k < g->count; k++) {
                    model_body *b = g->s[k].b;
                    for (int i = 0; i < b->n; i++) {
                        b->d[i] = b->p[i]; // steepest descent, preconditioned
                    }
                }
            }
            break;
        }
        const double alpha = rz / pq;
        double rz_next = 0.0, rr = 0.0;
        for (int k = 0; k < g->count; k++) {
            const solve_ctx *s = &g->s[k];
            model_body *b = s->b;
            for (int i = 0; i < b->n; i++) {
                b->d[i] = axpy(b->d[i], alpha, b->p[i]);
                b->xs[i] = axpy(b->xs[i], -alpha, b->q[i]);
                b->z[i] = scale(1.0 / diagonal(s, i), b->xs[i]);
                rz_next += dot(b->xs[i], b->z[i]);
                rr += dot(b->xs[i], b->xs[i]);
            }
        }
        if (rr <= 1e-4 * r0) {
            it++;
            break;
        }
        for (int k = 0; k < g->count; k++) {
            model_body *b = g->s[k].b;
            for (int i = 0; i < b->n; i++) {
                b->p[i] = axpy(b->z[i], rz_next / rz, b->p[i]);
            }
        }
        rz = rz_next;
    }
    return it;
}

// The largest velocity change a Newton step would still make: max over
// points of |filtered gradient| h / m, m/s.
static double residual(const group *g) {
    double most = 0.0;
    for (int k = 0; k < g->count; k++) {
        const solve_ctx *s = &g->s[k];
        for (int i = 0; i < s->b->n; i++) {
            most = fmax(most, norm(filter(s, i, s->b->r[i])) * s->h / s->b->mass[i]);
        }
    }
    return most;
}

// Newton's method on G from the bodies' x; each body's r holds the gradient.
static void solve(const group *g, int *newton_out, int *cg_out, bool *converged) {
    double G = group_energy(g, false);
    int newton = 0, cg = 0, rounds = 0;
    *converged = residual(g) <= TOLERANCE;
    while (newton < NEWTON_MAX) {
        if (*converged) {
            // Solved: once more with the links' normals made again, if a
            // feature's turn lets a point in.
            if (rounds == TURN_ROUNDS || g->link_count == 0 || !turn_links(g)) {
                break;
            }
            rounds++;
            G = group_energy(g, false);
            *converged = residual(g) <= TOLERANCE;
            continue;
        }
        cg += conjugate_gradients(g);
        newton++;
        // The line search from here (x0: where it starts): no body's point
        // moved by more than a tenth of its body's size at first (far from
        // the minimum the quadratic model is far off), then shorter moves
        // until G falls enough (Armijo) or, in G's rounding, the residual
        // does: each at the least of the parabola through G at x0, its
        // slope there and G at the last move, between a tenth and a half of
        // that move (a half where the move went uphill).
        double alpha = 1.0;
        for (int k = 0; k < g->count; k++) {
            model_body *b = g->s[k].b;
            double longest = 0.0;
            for (int i = 0; i < b->n; i++) {
                b->x0[i] = b->x[i];
                longest = fmax(longest, norm(b->d[i]));
            }
            if (longest > 0.1 * b->rest_size) {
                alpha = fmin(alpha, 0.1 * b->rest_size / longest);
            }
        }
        const double r_before = residual(g);
        bool accepted = false;
        double next = alpha;
        for (int tries = 0; tries < TRIES_MAX && !accepted; tries++) {
            alpha = next;
            next = 0.5 * alpha;
            double slope = 0.0;
            for (int k = 0; k < g->count; k++) {
                model_body *b = g->s[k].b;
                for (int i = 0; i < b->n; i++) {
                    b->x[i] = axpy(b->x0[i], alpha, b->d[i]);
                    if (!b->pinned[i]) {
                        push_out(&g->s[k], i, &b->x[i]);
                    }
                    slope += dot(b->r[i], sub(b->x[i], b->x0[i]));
                }
            }
            if (!(slope < 0.0)) {
                continue;
            }
            const double G_trial = group_energy(g, true);
            const double noise = 1e-13 * (fabs(G) + fabs(G_trial) + 1.0);
            bool lower = G_trial <= G + 1e-4 * slope;
            if (!lower && -slope < noise && G_trial <= G + noise) {
                for (int k = 0; k < g->count; k++) {
                    model_body *b = g->s[k].b;
                    for (int i = 0; i < b->n; i++) {
                        b->p[i] = b->r[i];
                        b->r[i] = b->q[i];
                    }
                }
                lower = residual(g) < r_before;
                for (int k = 0; !lower && k < g->count; k++) {
                    model_body *b = g->s[k].b;
                    for (int i = 0; i < b->n; i++) {
                        b->r[i] = b->p[i];
                    }
                }
            }
            if (lower) {
                accepted = true;
                G = group_energy(g, false);
            } else if (G_trial - G - slope > 0.0) {
                next = alpha * fmin(0.5, fmax(0.1, -0.5 * slope / (G_trial - G - slope)));
            }
        }
        if (!accepted) {
            for (int k = 0; k < g->count; k++) {
                model_body *b = g->s[k].b;
                for (int i = 0; i < b->n; i++) {
                    b->x[i] = b->x0[i];
                }
            }
            group_energy(g, false);
            break;
        }
        *converged = residual(g) <= TOLERANCE;
    }
    *newton_out = newton;
    *cg_out = cg;
}

// A body's sub-step of dt from t, up to its solve: the targets y and xb,
// BDF2's history, the sphere planes and the solve's start. A ring in a
// group with links steps with backward Euler under BDF2 too, and keeps
// no history.
static solve_ctx begin_step(psb_model *m, model_body *b, double t, double dt, bool linked) {
    const bool bdf2_asked = m->params.integrator == PSB_BDF2 && !(linked && b->kind == PSB_RING);
    // BDF2 needs the last sub-step's start; the first is backward Euler's.
    const bool bdf2 = bdf2_asked && b->hist_h == dt;
    solve_ctx s = {
        .m = m,
        .b = b,
        .h = bdf2 ? 2.0 * dt / 3.0 : dt,
        .gravity = model_gravity(b, &m->params, t + dt),
        .nrt = model_gas_nrt(b, t + dt),
        .grab_c = b->grab_point >= 0 ? 2.0 * sqrt(b->grab_k * b->mass[b->grab_point]) : 0.0,
        .dt = dt,
        .bdf2 = bdf2_asked,
    };
    for (int i = 0; i < b->n; i++) {
        b->link_k[i] = 0.0;
    }
    for (int k = 0; k < b->spring_count; k++) {
        const psb_vec3 d = sub(b->x[b->spring[2 * k]], b->x[b->spring[2 * k + 1]]);
        const double l = norm(d);
        b->u0[k] = l > 0.0 ? scale(1.0 / l, d) : (psb_vec3){0.0, 0.0, 0.0};
    }
    // The air, taken at the step's start: a force held through the step.
    for (int i = 0; i < b->n; i++) {
        b->f[i] = (psb_vec3){0.0, 0.0, 0.0};
    }
    model_air(m, b, b->x, b->v, b->f);
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 x = b->x[i], v = b->v[i];
        if (bdf2) {
            // A velocity changed since the last solve (a bounce, a poke) by
            // `kick` counts as a kick before the last step: v_{n-1} + kick,
            // x_{n-1} - dt kick. A point moved since takes the history of
            // its own velocity.
            const bool moved = x.x != b->end_x[i].x || x.y != b->end_x[i].y || x.z != b->end_x[i].z;
            const psb_vec3 kick = sub(v, b->end_v[i]);
            const psb_vec3 x_prev = moved ? axpy(x, -dt, v) : axpy(b->hist_x[i], -dt, kick);
            const psb_vec3 v_prev = moved ? v : add(b->hist_v[i], kick);
            b->xb[i] = scale(1.0 / 3.0, sub(scale(4.0, x), x_prev));
            b->y[i] = axpy(b->xb[i], s.h / 3.0, sub(scale(4.0, v), v_prev));
        } else {
            b->xb[i] = x;
            b->y[i] = axpy(x, dt, v);
        }
        if (!b->pinned[i]) {
            b->y[i] = axpy(b->y[i], s.h * s.h / b->mass[i], b->f[i]); // + h^2 f_air / m
        }
        b->hist_x[i] = x;
        b->hist_v[i] = v;
    }
    sphere_planes(m, b);
    // Start from the lower in G of staying put and free flight (kept out of
    // the colliders).
    const double G_stay = energy(&s, b->r);
    for (int i = 0; i < b->n; i++) {
        b->xs[i] = b->x[i];
        if (!b->pinned[i]) {
            b->x[i] = axpy(b->y[i], -s.h * s.h * s.gravity, (psb_vec3){0.0, 1.0, 0.0});
            push_out(&s, i, &b->x[i]);
        }
    }
    if (energy(&s, b->r) > G_stay) {
        for (int i = 0; i < b->n; i++) {
            b->x[i] = b->xs[i];
        }
    }
    return s;
}

// The group's solve, counted in the model's report.
static void solve_group(const group *g) {
    int newton = 0, cg = 0;
    bool converged = false;
    solve(g, &newton, &cg, &converged);
    g->m->report.newton += newton;
    g->m->report.iterations += cg;
    g->m->report.converged = g->m->report.converged && converged;
}

// A body's sub-step after its solve: velocities, bounces, friction, pins.
static void end_step(psb_model *m, const solve_ctx *sc) {
    const solve_ctx s = *sc;
    model_body *b = s.b;
    const double dt = s.dt;
    const bool bdf2_asked = s.bdf2;
    for (int i = 0; i < b->n; i++) {
        b->v[i] = scale(1.0 / s.h, sub(b->x[i], b->xb[i]));
        b->end_v[i] = b->v[i];
    }
    b->hist_h = bdf2_asked ? dt : 0.0;
    // Bounces and friction on the surfaces the points end on.
    model_contact_response(m, b, dt, TOUCH_SLACK, false);
    const double keep = exp(-m->params.friction * dt);
    for (int i = 0; i < b->n; i++) {
        psb_vec3 n[8];
        const int count = contact_normals(&s, i, b->x[i], n);
        if (count > 0 && n[count - 1].x == b->plane_n[i].x && n[count - 1].y == b->plane_n[i].y &&
            n[count - 1].z == b->plane_n[i].z) {
            b->v[i] = model_bounce(m, b->v[i], b->plane_n[i], keep);
        }
    }
    model_hold_pins(b);
    for (int i = 0; i < b->n; i++) {
        b->end_x[i] = b->x[i]; // a move after this is not the step's
    }
}

void model_implicit_step(psb_model *m, model_body *b, double t, double dt) {
    solve_ctx s = begin_step(m, b, t, dt, false);
    const group g = {.m = m, .count = 1, .s = &s, .link_count = 0, .link = NULL};
    solve_group(&g);
    end_step(m, &s);
}

// The root of body k's set (union-find, halving the paths).
static int root_of(int *parent, int k) {
    while (parent[k] != k) {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    return k;
}

void model_implicit_world_step(psb_model *m, double t, double h) {
    model_find_links(m, h, LINK_STIFFNESS, RING_LINK_STIFFNESS);
    const int bodies = m->body_count;
    int *parent = malloc((size_t)bodies * sizeof *parent);
    int *link = malloc((size_t)(m->link_count > 0 ? m->link_count : 1) * sizeof *link);
    solve_ctx *s = malloc((size_t)bodies * sizeof *s);
    if (!parent || !link || !s) {
        free(parent), free(link), free(s);
        m->link_count = 0; // without memory for groups, each body alone
        for (int k = 0; k < bodies; k++) {
            model_implicit_step(m, m->bodies[k], t, h);
        }
        return;
    }
    for (int k = 0; k < bodies; k++) {
        parent[k] = k;
    }
    for (int l = 0; l < m->link_count; l++) {
        const int ra = root_of(parent, m->links[l].a), rb = root_of(parent, m->links[l].b);
        parent[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
    // Each group in order of its first body, its bodies in increasing index.
    for (int first = 0; first < bodies; first++) {
        if (root_of(parent, first) != first) {
            continue;
        }
        group g = {.m = m, .count = 0, .s = s, .link_count = 0, .link = link};
        for (int l = 0; l < m->link_count; l++) {
            if (root_of(parent, m->links[l].a) == first) {
                link[g.link_count++] = l;
            }
        }
        for (int k = first; k < bodies; k++) {
            if (root_of(parent, k) == first) {
                s[g.count++] = begin_step(m, m->bodies[k], t, h, g.link_count > 0);
            }
        }
        solve_group(&g);
        for (int k = 0; k < g.count; k++) {
            end_step(m, &s[k]);
        }
    }
    model_link_friction(m, h);
    model_keep_link_forces(m);
    free(parent), free(link), free(s);
}
