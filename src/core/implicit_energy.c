// The implicit step's G: the gas (volume and its gradient), the contacts
// with the world (penalties, the line search's push out, the sphere planes),
// the springs, and the evaluation of G, its gradient and the Hessian's
// blocks at the current positions. implicit.c has the step.
#include <math.h>
#include <string.h>

#include "implicit_internal.h"

// ---------------------------------------------------------------------------
// The gas: the volume gradient g = dV/dx into b->grad, and the volume.

// g_i for a shell or cloth: 1/6 sum over its triangles (i, j, k) of
// (x_j - x_i) x (x_k - x_i) (a third of their area vectors); for a ring,
// 1/2 (x_next - x_prev) x z^.
void implicit_gas_gradient_at(const step_ctx *s, int i, double g[3]) {
    const psb_body *b = s->b;
    const implicit_work *W = s->W;
    double *const *x = b->x;
    g[0] = g[1] = g[2] = 0.0;
    if (s->ring) {
        const int nx = W->ring_next[i], pv = W->ring_prev[i];
        g[0] = 0.5 * (x[1][nx] - x[1][pv]);
        g[1] = 0.5 * (x[0][pv] - x[0][nx]);
        return;
    }
    const double xi[3] = {x[0][i], x[1][i], x[2][i]};
    for (int t = W->tri_start[i]; t < W->tri_start[i + 1]; t++) {
        const int j = W->tri_jk[2 * t], k = W->tri_jk[2 * t + 1];
        const double a[3] = {x[0][j] - xi[0], x[1][j] - xi[1], x[2][j] - xi[2]};
        const double c[3] = {x[0][k] - xi[0], x[1][k] - xi[1], x[2][k] - xi[2]};
        double ac[3];
        cross(a, c, ac);
        g[0] += ac[0];
        g[1] += ac[1];
        g[2] += ac[2];
    }
    const double sixth = 1.0 / 6.0; // (a product: a division is many times its cost)
    g[0] *= sixth;
    g[1] *= sixth;
    g[2] *= sixth;
}

// Fills b->grad for the part's points and returns the volume: V = 1/3
// sum (x_i - o) . g_i for a shell (V is homogeneous of degree 3), 1/2 for a
// ring (degree 2).
double implicit_gas_volume(step_ctx *s) {
    psb_body *b = s->b;
    team_sync(s); // every point is where it is evaluated
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        double sum = 0.0;
        for (int i = i0; i < i1; i++) {
            double g[3];
            implicit_gas_gradient_at(s, i, g);
            for (int c = 0; c < 3; c++) {
                b->grad[c][i] = g[c];
            }
            sum += (b->x[0][i] - s->origin[0]) * g[0] + (b->x[1][i] - s->origin[1]) * g[1] +
                   (b->x[2][i] - s->origin[2]) * g[2];
        }
        s->W->sums[ch * SUMS] = sum;
    }
    double total[SUMS];
    implicit_reduce(s, 1, total);
    return total[0] / (s->ring ? 2.0 : 3.0);
}

// The gas at volume V: pressure, curvature nRT / V^2 and energy
// -nRT ln(V / V_start) + P0 V (the constant dropped), held linear below the
// volume floor as the force is (body_pressure).
static double gas_at(step_ctx *s, double volume) {
    const psb_body *b = s->b;
    const double floor_volume = 1e-3 * b->rest_volume;
    const double p0 = b->params.outside_pressure;
    s->volume = volume;
    s->pressure = body_pressure(b, s->nrt, volume);
    const double ref = fmax(s->volume_start, floor_volume);
    if (volume > floor_volume) {
        s->curvature = s->nrt / (volume * volume);
        return -s->nrt * log(volume / ref) + p0 * volume;
    }
    s->curvature = 0.0;
    return -s->nrt * (log(floor_volume / ref) + (volume - floor_volume) / floor_volume) +
           p0 * volume;
}

// ---------------------------------------------------------------------------
// Contacts with the world, as a penalty.

// One collider's penalty at a point of depth `depth` along the collider's
// outward normal n: 1/2 kc depth^2 into E and grad, kc n n^T into H. A point
// that lies on the surface (depth 0 within rounding: the step moved it
// there) gets the block alone while the other forces push it in, so that the
// Newton step stops it at the surface instead of carrying it through and
// leaving the line search to pull it back.
//
// The line search keeps its points out of the colliders (world_push_out),
// so a point pressed against one sits on its surface and the surface's
// reaction takes the part of the other forces that pushes it in: that part
// is left out of the gradient the solver works with (rg), and the
// surface's normal becomes the point's constraint cn (one per point: a
// second surface pressed at once is left to its penalty), along which the
// conjugate gradients do not move it (Baraff and Witkin's filter).
static double penalty(double kc, double depth, double slack, const double n[3], double grad[3],
                      double rg[3], double *H, double cn[3], int *touches) {
    double energy = 0.0;
    if (depth >= -slack) {
        ++*touches;
    }
    if (depth > 0.0) {
        for (int c = 0; c < 3; c++) {
            grad[c] -= kc * depth * n[c];
            rg[c] -= kc * depth * n[c];
        }
        energy = 0.5 * kc * depth * depth;
    }
    const double push = rg[0] * n[0] + rg[1] * n[1] + rg[2] * n[2];
    if (depth >= -slack && (depth > 0.0 || push > 0.0)) {
        sym_add_spring(H, n, kc, 0.0);
        if (depth <= slack && push > 0.0 && cn[0] == 0.0 && cn[1] == 0.0 && cn[2] == 0.0) {
            for (int c = 0; c < 3; c++) {
                rg[c] -= push * n[c];
                cn[c] = n[c];
            }
        }
    }
    return energy;
}

// The penalties of the floor, the walls and point i's sphere plane for a
// point at x, added to grad (which holds the other forces' gradient) and
// H; rg starts as a copy of grad and loses the reactions of the surfaces
// it presses on. Counts the surfaces it is in or on into *touches.
static double contact_penalty(const step_ctx *s, int i, double kc, const double x[3],
                              double grad[3], double rg[3], double *H, double cn[3], int *touches) {
    const psb_params *p = &s->w->params;
    double energy = 0.0;
    if (p->floor) {
        const double up[3] = {0.0, 1.0, 0.0};
        energy += penalty(kc, p->floor_y - x[1], TOUCH * (1.0 + fabs(p->floor_y)), up, grad, rg, H,
                          cn, touches);
    }
    if (p->walls) {
        const double lo[3] = {p->walls_min.x, p->walls_min.y, p->walls_min.z};
        const double hi[3] = {p->walls_max.x, p->walls_max.y, p->walls_max.z};
        for (int a = 0; a < (s->ring ? 2 : 3); a++) {
            double n[3] = {0.0, 0.0, 0.0};
            n[a] = 1.0;
            energy +=
                penalty(kc, lo[a] - x[a], TOUCH * (1.0 + fabs(lo[a])), n, grad, rg, H, cn, touches);
            n[a] = -1.0;
            energy +=
                penalty(kc, x[a] - hi[a], TOUCH * (1.0 + fabs(hi[a])), n, grad, rg, H, cn, touches);
        }
    }
    double n[3];
    load(s->W->plane_n, i, n);
    if (n[0] != 0.0 || n[1] != 0.0 || n[2] != 0.0) {
        const double d = s->W->plane_d[i];
        energy += penalty(kc, d - (n[0] * x[0] + n[1] * x[1] + n[2] * x[2]),
                          TOUCH * (1.0 + fabs(d)), n, grad, rg, H, cn, touches);
    }
    return energy;
}

// Moves x, a trial position of point i, out of the floor, the walls and
// its sphere plane (along their normals: each is a half-space).
void implicit_push_out(const step_ctx *s, int i, double x[3]) {
    const psb_params *p = &s->w->params;
    if (p->floor && x[1] < p->floor_y) {
        x[1] = p->floor_y;
    }
    if (p->walls) {
        const double lo[3] = {p->walls_min.x, p->walls_min.y, p->walls_min.z};
        const double hi[3] = {p->walls_max.x, p->walls_max.y, p->walls_max.z};
        for (int a = 0; a < (s->ring ? 2 : 3); a++) {
            x[a] = x[a] < lo[a] ? lo[a] : x[a] > hi[a] ? hi[a] : x[a];
        }
    }
    const implicit_work *W = s->W;
    const double n[3] = {W->plane_n[0][i], W->plane_n[1][i], W->plane_n[2][i]};
    const double in = W->plane_d[i] - (n[0] * x[0] + n[1] * x[1] + n[2] * x[2]);
    if (in > 0.0) {
        for (int c = 0; c < 3; c++) {
            x[c] += in * n[c];
        }
    }
}

// A static sphere is curved; within one step each point sees the nearest
// one as the plane that touches it where the point started (the sphere lies
// behind that plane, so a point outside the plane is outside the sphere):
// n . x >= d, with n the sphere's normal at x_n. Only a point that moves
// toward the sphere by more than its gap in one step meets its plane.
void implicit_sphere_planes(step_ctx *s) {
    const psb_world *w = s->w;
    implicit_work *W = s->W;
    const psb_body *b = s->b;
    for (int i = s->part->i0; i < s->part->i1; i++) {
        const double x[3] = {b->x[0][i], b->x[1][i], b->x[2][i]};
        double best = INFINITY;
        W->plane_n[0][i] = W->plane_n[1][i] = W->plane_n[2][i] = 0.0;
        W->plane_d[i] = 0.0;
        for (int k = 0; k < w->sphere_count; k++) {
            psb_vec3 centre = w->sphere_centre[k];
            double radius = w->sphere_radius[k];
            if (s->ring) {
                // A ring sees the sphere's cross-section with its plane z = 0.
                const double r2 = radius * radius - centre.z * centre.z;
                if (r2 <= 0.0) {
                    continue;
                }
                radius = sqrt(r2);
                centre.z = 0.0;
            }
            const double c[3] = {centre.x, centre.y, centre.z};
            const double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
            const double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            const double gap = dist - radius;
            if (!(gap < best)) {
                continue;
            }
            best = gap;
            double n[3] = {0.0, 1.0, 0.0}; // at the very centre: up
            if (dist > 0.0) {
                n[0] = d[0] / dist;
                n[1] = d[1] / dist;
                n[2] = d[2] / dist;
            }
            for (int e = 0; e < 3; e++) {
                W->plane_n[e][i] = n[e];
            }
            W->plane_d[i] = n[0] * c[0] + n[1] * c[1] + n[2] * c[2] + radius;
        }
    }
}

// After the step: restitution and friction for the points on their sphere
// plane (within rounding), as collide.c does for the floor and the walls.
void implicit_sphere_response(const step_ctx *s) {
    const psb_params *p = &s->w->params;
    const implicit_work *W = s->W;
    psb_body *b = s->b;
    const double keep = exp(-p->friction * s->dt);
    for (int i = s->part->i0; i < s->part->i1; i++) {
        const double n[3] = {W->plane_n[0][i], W->plane_n[1][i], W->plane_n[2][i]};
        if (n[0] == 0.0 && n[1] == 0.0 && n[2] == 0.0) {
            continue;
        }
        const double d = W->plane_d[i];
        const double gap = n[0] * b->x[0][i] + n[1] * b->x[1][i] + n[2] * b->x[2][i] - d;
        if (gap > 1e-9 * (1.0 + fabs(d))) {
            continue;
        }
        double vn = n[0] * b->v[0][i] + n[1] * b->v[1][i] + n[2] * b->v[2][i];
        const double vt[3] = {b->v[0][i] - vn * n[0], b->v[1][i] - vn * n[1],
                              b->v[2][i] - vn * n[2]};
        if (vn < 0.0) {
            vn = -p->restitution * vn;
        }
        for (int c = 0; c < 3; c++) {
            b->v[c][i] = keep * vt[c] + vn * n[c];
        }
    }
}

// ---------------------------------------------------------------------------
// G, its gradient and the Hessian's blocks at the current x.

// Springs at point i, from its slots (implicit_spring_slots ran over its
// chunk): adds their half of the energy (each spring is met from both
// ends) and their force, and, when with_derivatives, their stiffness K to
// its own block D and -K as the block (i, j). In slot order, one addition
// to each sum a slot.
static double point_springs(const step_ctx *s, int i, bool with_derivatives, double grad[3],
                            double *D) {
    implicit_work *W = s->W;
    const size_t stride = (size_t)W->adj_start[s->b->n];
    double energy = 0.0;
    for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
        energy += W->slot_energy[slot];
        const double *f = W->slot_force + 3 * slot;
        for (int c = 0; c < 3; c++) {
            grad[c] += f[c];
        }
        if (!with_derivatives) {
            continue;
        }
        double K[6];
        for (int e = 0; e < 6; e++) {
            K[e] = W->slot_k[(size_t)e * stride + (size_t)slot];
            D[e] += K[e];
        }
        static const int sym_of[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
        double *B = W->adj_b + 9 * slot;
        for (int e = 0; e < 9; e++) {
            B[e] = -K[sym_of[e]];
        }
    }
    return energy;
}

// Struts at point i: their half of the energy 1/2 ks (l - L)^2, L the
// fold limit times the rest distance, for each strut shorter than L, and
// their force; when with_derivatives, their blocks and how many act.
static double point_struts(const step_ctx *s, int i, bool with_derivatives, double grad[3],
                           double *D) {
    const psb_body *b = s->b;
    implicit_work *W = s->W;
    double *const *x = b->x;
    const double ks = b->params.spring_k, limit = b->params.fold_limit;
    double energy = 0.0;
    int on = 0;
    // A point whose struts all were slack at the last evaluation of the
    // blocks has them all 0 already (calloc, then this), so only a point
    // that had some acting clears the slack ones' blocks: most points'
    // struts never act, and clearing 72 bytes a slot was 6 % of the
    // evaluation's samples on the rocker arm.
    const bool dirty = W->strut_on[i] > 0;
    if (!(limit > 0.0) || !(ks > 0.0)) { // none can act
        if (with_derivatives) {
            if (dirty) {
                memset(W->strut_b + 9 * W->strut_start[i], 0,
                       9 * (size_t)(W->strut_start[i + 1] - W->strut_start[i]) * sizeof(double));
            }
            W->strut_on[i] = 0;
        }
        return 0.0;
    }
    for (int slot = W->strut_start[i]; slot < W->strut_start[i + 1]; slot++) {
        const int j = W->strut_other[slot];
        const double L = limit * W->strut_rest[slot];
        const double d[3] = {x[0][i] - x[0][j], x[1][i] - x[1][j], x[2][i] - x[2][j]};
        const double len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        double *B = W->strut_b + 9 * slot;
        if (!(len2 < L * L) || len2 == 0.0) { // slack, or no direction to push along
            if (with_derivatives && dirty) {
                memset(B, 0, 9 * sizeof *B);
            }
            continue;
        }
        const double len = sqrt(len2), u[3] = {d[0] / len, d[1] / len, d[2] / len};
        energy += 0.25 * ks * (len - L) * (len - L);
        for (int c = 0; c < 3; c++) {
            grad[c] += ks * (len - L) * u[c];
        }
        if (!with_derivatives) {
            continue;
        }
        // As a compressed spring's: ks [u u^T + (1 - L / l) (I - u u^T)],
        // the lateral term (negative here) held at 0 once the step clamps.
        double K[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        const double lateral = ks * (1.0 - L / len);
        sym_add_spring(K, u, ks, s->clamp && !s->exact ? 0.0 : lateral);
        for (int e = 0; e < 6; e++) {
            D[e] += K[e];
        }
        static const int sym_of[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
        for (int e = 0; e < 9; e++) {
            B[e] = -K[sym_of[e]];
        }
        on++;
    }
    if (with_derivatives) {
        W->strut_on[i] = on;
    }
    return energy;
}

// B += scale [a]x, the matrix of v -> a x v.
static void add_cross_matrix(double *B, const double a[3], double scale) {
    B[1] -= scale * a[2];
    B[2] += scale * a[1];
    B[3] += scale * a[2];
    B[5] -= scale * a[0];
    B[6] -= scale * a[1];
    B[7] += scale * a[0];
}

// Adds the gas's -P H_V to point i's blocks (after point_springs wrote
// them). H_V is zero on a point's own block; its block (i, j) is, for a
// shell, the sum over the triangles (i, j, k) and (i, k, j) of point i of
// -[(x_k - x_i) / 6]x and [(x_k - x_i) / 6]x (from d g_i = 1/6 sum
// (dx_j x e_k + e_j x dx_k), e = x - x_i); for a ring, 1/2 Z toward the
// next point and -1/2 Z toward the previous, Z p = p x z^.
static void gas_blocks(const step_ctx *s, int i) {
    const psb_body *b = s->b;
    const implicit_work *W = s->W;
    const double P = s->pressure;
    if (P == 0.0) {
        return;
    }
    if (s->ring) {
        if (s->clamp && !s->exact) {
            // Clamped: left out. A ring's -P H_V is P/2 across each edge,
            // indefinite, and as large as the springs' stiffness once a
            // ring is crushed (P many times its rest pressure); with it,
            // the clamped model of a pile of rings stays indefinite and
            // its conjugate gradients run thousands of iterations.
            return;
        }
        const int slots[2] = {implicit_find_slot(W, i, W->ring_next[i]),
                              implicit_find_slot(W, i, W->ring_prev[i])};
        for (int side = 0; side < 2; side++) {
            if (slots[side] >= 0) {
                double *B = W->adj_b + 9 * slots[side];
                const double half = side == 0 ? -0.5 * P : 0.5 * P; // -P (+-1/2 Z)
                B[1] += half;
                B[3] -= half;
            }
        }
        return;
    }
    double *const *x = b->x;
    for (int t = W->tri_start[i]; t < W->tri_start[i + 1]; t++) {
        const int j = W->tri_jk[2 * t], k = W->tri_jk[2 * t + 1];
        const double ej[3] = {x[0][j] - x[0][i], x[1][j] - x[1][i], x[2][j] - x[2][i]};
        const double ek[3] = {x[0][k] - x[0][i], x[1][k] - x[1][i], x[2][k] - x[2][i]};
        if (W->tri_slot[2 * t] >= 0) {
            add_cross_matrix(W->adj_b + 9 * W->tri_slot[2 * t], ek, P / 6.0);
        }
        if (W->tri_slot[2 * t + 1] >= 0) {
            add_cross_matrix(W->adj_b + 9 * W->tri_slot[2 * t + 1], ej, -P / 6.0);
        }
    }
}

// Evaluates G at b->x: the energy, residual and gradient (into the buffer
// that is not the iterate's: accept_evaluation makes it so) always; with_derivatives
// also the blocks (adj_k, diag, dinv), D^-1 g (wv)
// and sigma, for the conjugate gradients.
evaluation implicit_evaluate(step_ctx *s, bool with_derivatives) {
    psb_body *b = s->b;
    implicit_work *W = s->W;
    double gas_energy = 0.0;
    if (s->gas) {
        gas_energy = gas_at(s, implicit_gas_volume(s));
    } else {
        team_sync(s);
        s->pressure = s->curvature = 0.0;
    }
    const double k_shape = b->params.shape_k;
    if (k_shape > 0.0) {
        body_shape_fit(b, s->part, s->centre, s->rotation);
    }
    const int grabbed = b->grab_point >= 0 ? b->rank[b->grab_point] : -1;
    double *const *gr = W->gbuf[1 - s->base];
    for (int ch = s->part->c0; ch < s->part->c1; ch++) {
        int i0, i1;
        chunk_points(b, ch, &i0, &i1);
        implicit_spring_slots(s, i0, i1, with_derivatives);
        double energy = 0.0, res2 = 0.0, gw = 0.0, touching = 0.0;
        double net[3] = {0.0, 0.0, 0.0};
        for (int i = i0; i < i1; i++) {
            double grad[3] = {0.0, 0.0, 0.0};
            double D[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
            // The point's own energy, added to the chunk's once: one
            // dependent addition a point for the chunk's sum.
            double own = point_springs(s, i, with_derivatives && is_free(b, i), grad, D);
            own += point_struts(s, i, with_derivatives && is_free(b, i), grad, D);
            if (with_derivatives && is_free(b, i) && s->gas) {
                gas_blocks(s, i);
            }
            if (!is_free(b, i)) {
                energy += own;
                for (int c = 0; c < 3; c++) {
                    gr[c][i] = 0.0;
                    W->wv[c][i] = 0.0;
                }
                continue;
            }
            const double m = b->mass[i];
            const double x[3] = {b->x[0][i], b->x[1][i], b->x[2][i]};
            // Inertia: m / (2 h^2) |x - y|^2; gravity m g (y - y_n).
            const double mh = m * s->inv_h2;
            for (int c = 0; c < 3; c++) {
                const double dy = x[c] - W->y[c][i];
                own += 0.5 * mh * dy * dy;
                grad[c] += mh * dy;
            }
            D[0] += mh;
            D[3] += mh;
            D[5] += mh;
            own += m * s->gravity * (x[1] - b->x0[1][i]);
            grad[1] += m * s->gravity;
            // Gas: -P g_i.
            for (int c = 0; c < 3; c++) {
                grad[c] -= s->pressure * b->grad[c][i];
            }
            if (i == grabbed) {
                const double k = b->grab_k;
                const double target[3] = {b->grab_target.x, b->grab_target.y, b->grab_target.z};
                for (int c = 0; c < 3; c++) {
                    const double to = x[c] - target[c], moved = x[c] - W->xb[c][i];
                    own += 0.5 * k * to * to + 0.5 * s->grab_c / s->h * moved * moved;
                    grad[c] += k * to + s->grab_c / s->h * moved;
                }
                const double kk = k + s->grab_c / s->h;
                D[0] += kk;
                D[3] += kk;
                D[5] += kk;
            }
            if (k_shape > 0.0) {
                double goal[3];
                body_shape_goal(b, s->centre, s->rotation, i, goal);
                for (int c = 0; c < 3; c++) {
                    const double off = goal[c] - x[c];
                    own += 0.5 * k_shape * off * off;
                    grad[c] -= k_shape * off;
                }
                // The fit's own motion is left out: k_shape I bounds the
                // true block from above, which is what a preconditioner and
                // a Newton step want.
                D[0] += k_shape;
                D[3] += k_shape;
                D[5] += k_shape;
            }
            if (s->linked) {
                for (int c = 0; c < 3; c++) {
                    grad[c] += W->link_g[c][i];
                }
                for (int e = 0; e < 6; e++) {
                    D[e] += W->link_d[6 * i + e];
                }
            }
            if (s->ring) {
                grad[2] = 0.0; // a ring stays in its plane
            }
            double rg[3] = {grad[0], grad[1], grad[2]}, cn[3] = {0.0, 0.0, 0.0};
            int touches = 0;
            own += contact_penalty(s, i, CONTACT_STIFFNESS * mh, x, grad, rg, D, cn, &touches);
            energy += own;
            touching += touches;
            res2 += (rg[0] * rg[0] + rg[1] * rg[1] + rg[2] * rg[2]) / m;
            for (int c = 0; c < 3; c++) {
                gr[c][i] = rg[c];
                net[c] += rg[c];
            }
            if (with_derivatives) {
                double *Di = W->diag + 6 * i, *Dinv = W->dinv + 6 * i;
                memcpy(Di, D, sizeof D);
                sym_inverse(D, Dinv);
                double g[3] = {b->grad[0][i], b->grad[1][i], b->grad[2][i]};
                double wg[3];
                filter(cn, g);
                sym_mul(Dinv, g, wg);
                filter(cn, wg);
                for (int c = 0; c < 3; c++) {
                    W->wv[c][i] = wg[c];
                    W->cn[c][i] = cn[c];
                }
                gw += g[0] * wg[0] + g[1] * wg[1] + g[2] * wg[2];
            } else if (s->keep_normals) {
                for (int c = 0; c < 3; c++) {
                    W->cn[c][i] = cn[c];
                }
            }
        }
        double *sums = W->sums + ch * SUMS;
        sums[0] = energy;
        sums[1] = res2;
        sums[2] = gw;
        sums[3] = touching;
        sums[4] = net[0];
        sums[5] = net[1];
        sums[6] = net[2];
    }
    double total[SUMS];
    implicit_reduce(s, 7, total);
    s->sigma = s->curvature / (1.0 + s->curvature * total[2]);
    s->touching = total[3] > 0.0;
    return (evaluation){total[0] + gas_energy,
                        sqrt(total[1] / b->params.mass),
                        {total[4], total[5], total[6]},
                        total[3] > 0.0};
}

// ---------------------------------------------------------------------------
// A group: the bodies' own G and the links between them.

// Adds a k n n^T to the symmetric block S.
static void sym_add_normal(double *S, const double n[3], double a) {
    S[0] += a * n[0] * n[0];
    S[1] += a * n[0] * n[1];
    S[2] += a * n[0] * n[2];
    S[3] += a * n[1] * n[1];
    S[4] += a * n[1] * n[2];
    S[5] += a * n[2] * n[2];
}

// Link l's (x_p - q) . n - hold at the bodies' positions: below 0, it
// pushes p out along n and the feature's corners in.
static double link_gap(const psb_world *w, const solve_link *l) {
    const psb_body *A = w->bodies[l->a], *B = w->bodies[l->b];
    double gap = -l->hold;
    for (int c = 0; c < 3; c++) {
        double q = 0.0;
        for (int j = 0; j < 3; j++) {
            q += l->beta[j] * B->x[c][l->corner[j]];
        }
        gap += (A->x[c][l->p] - q) * l->n[c];
    }
    return gap;
}

// Link l's Coulomb friction at the bodies' positions (solve_link.friction,
// f): the stretch w = (I - n n^T) (r - anchor) of the pair's relative
// position r = x_p - sum beta_j x_j is held by a spring of the link's
// stiffness k up to the friction's reach f / k, past which it slides
// against f: its energy k |w|^2 / 2 within the reach, f (|w| - reach / 2)
// past it (J); its gradient on r added to grad (N) and its Hessian on r to
// the symmetric block S, k (I - n n^T) within the reach, f / |w| (I - n n^T
// - w^ w^T) past it: convex, and smooth to the first derivative.
static double link_friction(const psb_world *w, const solve_link *l, double grad[3], double S[6]) {
    const psb_body *A = w->bodies[l->a], *B = w->bodies[l->b];
    const double *n = l->n;
    double u[3];
    for (int c = 0; c < 3; c++) {
        u[c] = A->x[c][l->p] - l->anchor[c];
        for (int j = 0; j < 3; j++) {
            u[c] -= l->beta[j] * B->x[c][l->corner[j]];
        }
    }
    const double un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    for (int c = 0; c < 3; c++) {
        u[c] -= un * n[c];
    }
    const double s = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const double f = l->friction, reach = f / l->k;
    const bool holds = s <= reach;
    const double a = holds ? l->k : f / s; // along the plane (sliding: none along w)
    S[0] += a * (1.0 - n[0] * n[0]);
    S[1] -= a * n[0] * n[1];
    S[2] -= a * n[0] * n[2];
    S[3] += a * (1.0 - n[1] * n[1]);
    S[4] -= a * n[1] * n[2];
    S[5] += a * (1.0 - n[2] * n[2]);
    if (!holds) {
        const double t[3] = {u[0] / s, u[1] / s, u[2] / s};
        sym_add_normal(S, t, -a);
    }
    for (int c = 0; c < 3; c++) {
        grad[c] += a * u[c];
    }
    return holds ? 0.5 * l->k * s * s : f * (s - 0.5 * reach);
}

// Adds a term of link l on the pair's relative move r (J r = x_p - sum
// beta_j x_j) to the bodies' link_g and link_d: its gradient on r, grad,
// and its Hessian on r, the symmetric block S, give p grad and S, and
// corner j -beta_j grad and beta_j^2 S.
static void add_on_pair(const psb_world *w, const solve_link *l, const double grad[3],
                        const double S[6]) {
    implicit_work *WA = w->bodies[l->a]->implicit, *WB = w->bodies[l->b]->implicit;
    for (int c = 0; c < 3; c++) {
        WA->link_g[c][l->p] += grad[c];
    }
    for (int e = 0; e < 6; e++) {
        WA->link_d[6 * l->p + e] += S[e];
    }
    for (int j = 0; j < 3; j++) {
        const double beta = l->beta[j];
        if (beta == 0.0) {
            continue;
        }
        const int i = l->corner[j];
        for (int c = 0; c < 3; c++) {
            WB->link_g[c][i] -= beta * grad[c];
        }
        for (int e = 0; e < 6; e++) {
            WB->link_d[6 * i + e] += beta * beta * S[e];
        }
    }
}

// The links' energy, J: k/2 min(0, gap)^2 and, where a link has friction,
// that (link_friction), whether or not it pushes at the iterate (its
// force is the one it started with); their gradient and own blocks into
// each body's link_g and link_d, and each acting link's whole block on its
// pair's relative move into its block (implicit_on_lead's work).
static double link_terms(group *g, const void *unused) {
    (void)unused;
    const psb_world *w = g->s[0].w;
    for (int k = 0; k < g->count; k++) {
        implicit_work *W = g->s[k].W;
        const size_t n = (size_t)g->s[k].b->n_pad;
        for (int c = 0; c < 3; c++) {
            memset(W->link_g[c], 0, n * sizeof(double));
        }
        memset(W->link_d, 0, 6 * n * sizeof(double));
    }
    double energy = 0.0;
    for (int m = 0; m < g->link_count; m++) {
        solve_link *l = &g->links[g->link[m]];
        const double gap = link_gap(w, l);
        const bool acts = gap < 0.0 || l->friction > 0.0;
        g->acting[g->link[m]] = acts;
        if (!acts) {
            continue;
        }
        double grad[3] = {0.0, 0.0, 0.0};
        memset(l->block, 0, sizeof l->block);
        if (gap < 0.0) {
            energy += 0.5 * l->k * gap * gap;
            for (int c = 0; c < 3; c++) {
                grad[c] = l->k * gap * l->n[c];
            }
            sym_add_normal(l->block, l->n, l->k);
        }
        if (l->friction > 0.0) {
            energy += link_friction(w, l, grad, l->block);
        }
        add_on_pair(w, l, grad, l->block);
    }
    return energy;
}

// Whether 3D link l's point, along its feature's pseudo-normal where the
// points are now, is more than slack deeper than its floor and than it is
// along the link's own n: the feature's turn lets it in.
static bool turned_in(const psb_world *w, const solve_link *l, double slack) {
    const psb_body *A = w->bodies[l->a], *B = w->bodies[l->b];
    if (B->kind == PSB_RING) {
        return false;
    }
    double n[3];
    contact_link_normal(w, l, n);
    double now = 0.0, was = 0.0;
    for (int c = 0; c < 3; c++) {
        double q = 0.0;
        for (int j = 0; j < 3; j++) {
            q += l->beta[j] * B->x[c][l->corner[j]];
        }
        now += (A->x[c][l->p] - q) * n[c];
        was += (A->x[c][l->p] - q) * l->n[c];
    }
    return now < l->floor - slack && now < was - slack;
}

// implicit_turn_links on one thread (implicit_on_lead's work): 1 if the
// links turned, else 0.
static double turn_links(group *g, const void *slack) {
    const psb_world *w = g->s[0].w;
    bool deeper = false;
    for (int m = 0; m < g->link_count && !deeper; m++) {
        deeper = turned_in(w, &g->links[g->link[m]], *(const double *)slack);
    }
    for (int m = 0; m < g->link_count && deeper; m++) {
        solve_link *l = &g->links[g->link[m]];
        contact_link_normal(w, l, l->n); // (a ring's as it is)
    }
    return deeper ? 1.0 : 0.0;
}

bool implicit_turn_links(group *g, double slack) {
    return implicit_on_lead(g, turn_links, &slack) != 0.0;
}

static void evaluate_body(group *g, int k, void *with_derivatives) {
    g->s[k].eval = implicit_evaluate(&g->s[k], *(const bool *)with_derivatives);
}

evaluation implicit_group_evaluate(group *g, bool with_derivatives) {
    if (g->count == 1 && g->link_count == 0) {
        return implicit_evaluate(&g->s[0], with_derivatives);
    }
    evaluation all = {implicit_on_lead(g, link_terms, NULL), 0.0, {0.0, 0.0, 0.0}, false};
    implicit_each_body(g, evaluate_body, &with_derivatives);
    double res2 = 0.0;
    for (int k = 0; k < g->count; k++) {
        const evaluation e = g->s[k].eval;
        all.energy += e.energy;
        res2 += e.residual * e.residual * g->s[k].b->params.mass;
        for (int c = 0; c < 3; c++) {
            all.net[c] += e.net[c];
        }
        all.touching = all.touching || e.touching;
    }
    all.residual = sqrt(res2 / g->mass);
    return all;
}
