// The 2D view: the ring(s) in an orthographic view that follows the ring,
// filled (stencil, so any simple polygon fills right) with an outline, on a
// ground line between the walls; the static spheres' cross-sections with
// z = 0 (what a ring meets); overlays, the pins, the wind and the grab.
#include "render2d.h"

#include "gpu.h"
#include "render3d.h"

#include <math.h>

// Overlay scales, as in 3D: 0.1 s of motion; 8 cm normals; a pressure arrow
// of 8 mm per N/m on an edge of the ring's mean rest length.
#define VELOCITY_SCALE 0.1
#define NORMAL_LENGTH  0.08
#define PRESSURE_SCALE 0.008
// Wind arrows: this many seconds of travel, as in 3D.
#define WIND_SCALE 0.06
// Segments of a sphere's cross-section.
#define CIRCLE_SEGMENTS 64
#define PI              3.14159265358979323846

// The world rectangle the 2D view shows.
typedef struct extent {
    double x0, x1, y0, y1;
} extent;

static extent view_extent(const app *a) {
    const double hw = 0.5 * a->view2d.w / a->view2d_scale, hh = 0.5 * a->view2d.h / a->view2d_scale;
    return (extent){a->view2d_center[0] - hw, a->view2d_center[0] + hw, a->view2d_center[1] - hh,
                    a->view2d_center[1] + hh};
}

// The view follows the rings sideways (the mean of their centres), staying
// inside the walls when they fit, except while the mouse holds a ring (the
// target would slide).
static void follow(app *a) {
    if (a->grab.body >= 0 && a->grab.in_2d) {
        return;
    }
    double x = 0.0;
    int rings = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (a->vertex_base[b] < 0) {
            x += a->state[b].centroid.x;
            rings++;
        }
    }
    if (rings == 0) {
        return;
    }
    x /= rings;
    const psb_params *p = psb_world_params(a->scene.world);
    const double hw = 0.5 * a->view2d.w / a->view2d_scale;
    if (p->walls) {
        const double lo = p->walls_min.x + hw - 0.3, hi = p->walls_max.x - hw + 0.3;
        x = lo <= hi ? fmin(fmax(x, lo), hi) : 0.5 * (p->walls_min.x + p->walls_max.x);
    }
    if (!isfinite(x)) {
        return;
    }
    a->view2d_center[0] += 0.15 * (x - a->view2d_center[0]);
}

static void rect2d(batch *b, double x0, double y0, double x1, double y1, rgba top, rgba bottom) {
    batch_rect(b, (float)x0, (float)y1, (float)x1, (float)y0, top, bottom);
}

static void background(app *a, extent e) {
    const psb_params *p = psb_world_params(a->scene.world);
    const double px = 1.0 / a->view2d_scale;
    if (p->floor) {
        rect2d(&a->tris2d, e.x0, e.y0, e.x1, p->floor_y, rgba_f(0.20f, 0.19f, 0.18f, 1.0f),
               rgba_f(0.13f, 0.12f, 0.12f, 1.0f));
    }
    if (p->walls) {
        const rgba dim = rgba_f(0.0f, 0.0f, 0.0f, 0.35f), line = rgba_f(0.85f, 0.62f, 0.25f, 1.0f);
        rect2d(&a->tris2d, e.x0, e.y0, p->walls_min.x, e.y1, dim, dim);
        rect2d(&a->tris2d, p->walls_max.x, e.y0, e.x1, e.y1, dim, dim);
        rect2d(&a->tris2d, p->walls_min.x - 1.5 * px, e.y0, p->walls_min.x, e.y1, line, line);
        rect2d(&a->tris2d, p->walls_max.x, e.y0, p->walls_max.x + 1.5 * px, e.y1, line, line);
    }
    if (p->floor) {
        const rgba ground = rgba_f(0.85f, 0.62f, 0.25f, 1.0f);
        rect2d(&a->tris2d, e.x0, p->floor_y - 2.0 * a->ui_scale * px, e.x1, p->floor_y, ground,
               ground);
    }
    // Grid every 0.5 m.
    const rgba grid = rgba_f(1.0f, 1.0f, 1.0f, 0.06f);
    for (double x = ceil(e.x0 / 0.5) * 0.5; x <= e.x1 && a->lines2d.count < 400; x += 0.5) {
        batch_line(&a->lines2d, (float)x, (float)e.y0, 0, (float)x, (float)e.y1, 0, grid, grid);
    }
    for (double y = ceil(e.y0 / 0.5) * 0.5; y <= e.y1 && a->lines2d.count < 800; y += 0.5) {
        batch_line(&a->lines2d, (float)e.x0, (float)y, 0, (float)e.x1, (float)y, 0, grid, grid);
    }
}

// Offset of the outline's outer edge at point i: along the mean of the two
// edge normals, lengthened so that the band keeps its width at corners.
static void miter(const psb_vec3 *p, int n, int i, double half, double out[2]) {
    const psb_vec3 a = p[(i + n - 1) % n], b = p[i], c = p[(i + 1) % n];
    double n1[2] = {b.y - a.y, -(b.x - a.x)}, n2[2] = {c.y - b.y, -(c.x - b.x)};
    const double l1 = hypot(n1[0], n1[1]), l2 = hypot(n2[0], n2[1]);
    if (l1 > 0.0) {
        n1[0] /= l1;
        n1[1] /= l1;
    }
    if (l2 > 0.0) {
        n2[0] /= l2;
        n2[1] /= l2;
    }
    double m[2] = {n1[0] + n2[0], n1[1] + n2[1]};
    const double lm = hypot(m[0], m[1]);
    if (lm < 1e-9) {
        out[0] = n2[0] * half;
        out[1] = n2[1] * half;
        return;
    }
    m[0] /= lm;
    m[1] /= lm;
    const double k = half / fmax(m[0] * n2[0] + m[1] * n2[1], 0.3);
    out[0] = m[0] * k;
    out[1] = m[1] * k;
}

static rgba shade(const float c[3], float f, float alpha) {
    return f >= 0.0f ? rgba_f(c[0] + (1.0f - c[0]) * f, c[1] + (1.0f - c[1]) * f,
                              c[2] + (1.0f - c[2]) * f, alpha)
                     : rgba_f(c[0] * (1.0f + f), c[1] * (1.0f + f), c[2] * (1.0f + f), alpha);
}

static float edge_strain(const psb_vec3 *p, int n, const double *rest, int i) {
    const psb_vec3 a = p[i], b = p[(i + 1) % n];
    return rest[i] > 0.0 ? (float)((hypot(b.x - a.x, b.y - a.y) - rest[i]) / rest[i]) : 0.0f;
}

// The fill: a fan from the centroid for the stencil, then a cover quad over
// the ring's bounding box with a top-to-bottom shade.
static void ring_fill(app *a, int b, const psb_vec3 *p, int n) {
    if (a->fill_rings >= MAX_BODIES) {
        return;
    }
    const psb_vec3 c = a->state[b].centroid;
    const int first = a->fill2d.count;
    double x0 = p[0].x, x1 = p[0].x, y0 = p[0].y, y1 = p[0].y;
    const rgba none = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        const psb_vec3 q = p[i], r = p[(i + 1) % n];
        const float tri[3][3] = {
            {(float)c.x, (float)c.y, 0}, {(float)q.x, (float)q.y, 0}, {(float)r.x, (float)r.y, 0}};
        batch_triangle(&a->fill2d, tri, none);
        x0 = fmin(x0, q.x);
        x1 = fmax(x1, q.x);
        y0 = fmin(y0, q.y);
        y1 = fmax(y1, q.y);
    }
    const float *color = a->scene.bodies[b].color;
    const float lift = a->grab.body == b ? 0.15f : 0.0f;
    rect2d(&a->fill2d, x0, y0, x1, y1, shade(color, 0.1f + lift, 1.0f),
           shade(color, -0.35f + lift, 1.0f));
    a->fill_first[a->fill_rings] = first;
    a->fill_count[a->fill_rings] = a->fill2d.count - first;
    a->fill_rings++;
}

static void ring_outline(app *a, int b, const psb_vec3 *p, int n) {
    const double *rest = psb_body_rest_lengths(a->scene.world, b);
    const double half = 1.6 * a->ui_scale / a->view2d_scale;
    const rgba plain = shade(a->scene.bodies[b].color, 0.45f, 1.0f);
    double m0[2], m1[2];
    miter(p, n, 0, half, m0);
    for (int i = 0; i < n; i++) {
        const int j = (i + 1) % n;
        miter(p, n, j, half, m1);
        const rgba c =
            a->overlay[OVERLAY_STRAIN] ? strain_color(edge_strain(p, n, rest, i)) : plain;
        const float q[4][3] = {{(float)(p[i].x + m0[0]), (float)(p[i].y + m0[1]), 0},
                               {(float)(p[j].x + m1[0]), (float)(p[j].y + m1[1]), 0},
                               {(float)(p[j].x - m1[0]), (float)(p[j].y - m1[1]), 0},
                               {(float)(p[i].x - m0[0]), (float)(p[i].y - m0[1]), 0}};
        const float t1[3][3] = {
            {q[0][0], q[0][1], 0}, {q[1][0], q[1][1], 0}, {q[2][0], q[2][1], 0}};
        const float t2[3][3] = {
            {q[0][0], q[0][1], 0}, {q[2][0], q[2][1], 0}, {q[3][0], q[3][1], 0}};
        batch_triangle(&a->tris2d, t1, c);
        batch_triangle(&a->tris2d, t2, c);
        m0[0] = m1[0];
        m0[1] = m1[1];
    }
    if (a->overlay[OVERLAY_WIREFRAME]) {
        // The mass points as small squares.
        const double s = 2.2 * a->ui_scale / a->view2d_scale;
        const rgba dot = rgba_f(0.08f, 0.08f, 0.1f, 1.0f);
        for (int i = 0; i < n; i++) {
            rect2d(&a->tris2d, p[i].x - s, p[i].y - s, p[i].x + s, p[i].y + s, dot, dot);
        }
    }
}

static void ring_overlays(app *a, int b, const psb_vec3 *p, int n) {
    batch *L = &a->lines2d;
    if (a->overlay[OVERLAY_VELOCITY]) {
        const psb_vec3 *v = psb_body_velocities(a->scene.world, b);
        const rgba c0 = rgba_f(1.0f, 0.25f, 0.2f, 1.0f), c1 = rgba_f(1.0f, 0.45f, 0.4f, 1.0f);
        for (int i = 0; i < n; i++) {
            batch_line(L, (float)p[i].x, (float)p[i].y, 0,
                       (float)(p[i].x + VELOCITY_SCALE * v[i].x),
                       (float)(p[i].y + VELOCITY_SCALE * v[i].y), 0, c0, c1);
        }
    }
    if (a->overlay[OVERLAY_NORMALS]) {
        const rgba c0 = rgba_f(0.4f, 0.85f, 1.0f, 0.9f), c1 = rgba_f(0.7f, 0.95f, 1.0f, 0.9f);
        for (int i = 0; i < n; i++) {
            const psb_vec3 q = p[(i + n - 1) % n], r = p[(i + 1) % n];
            const double nx = r.y - q.y, ny = -(r.x - q.x), len = hypot(nx, ny);
            if (len > 0.0) {
                batch_line(L, (float)p[i].x, (float)p[i].y, 0,
                           (float)(p[i].x + NORMAL_LENGTH * nx / len),
                           (float)(p[i].y + NORMAL_LENGTH * ny / len), 0, c0, c1);
            }
        }
    }
    if (a->overlay[OVERLAY_PRESSURE]) {
        // Force on edge i: P L n, drawn from the edge's middle.
        const double s = a->state[b].pressure * PRESSURE_SCALE / fmax(a->mean_face_area[b], 1e-12);
        const rgba c0 = rgba_f(1.0f, 0.3f, 0.9f, 1.0f), c1 = rgba_f(1.0f, 0.65f, 1.0f, 1.0f);
        for (int i = 0; i < n; i++) {
            const psb_vec3 q = p[i], r = p[(i + 1) % n];
            const double mx = 0.5 * (q.x + r.x), my = 0.5 * (q.y + r.y);
            batch_line(L, (float)mx, (float)my, 0, (float)(mx + s * (r.y - q.y)),
                       (float)(my - s * (r.x - q.x)), 0, c0, c1);
        }
    }
    if (a->overlay[OVERLAY_WIREFRAME]) {
        int edge_count = 0;
        const int *edges = psb_body_edges(a->scene.world, b, &edge_count);
        const rgba c = rgba_f(0.05f, 0.06f, 0.08f, 0.9f);
        for (int k = 0; k < edge_count; k++) {
            const psb_vec3 q = p[edges[2 * k]], r = p[edges[2 * k + 1]];
            batch_line(L, (float)q.x, (float)q.y, 0, (float)r.x, (float)r.y, 0, c, c);
        }
    }
}

// The static spheres where they cut the plane z = 0: discs of radius
// sqrt(r^2 - cz^2), shaded top to bottom, with a lighter rim.
static void sphere_sections(app *a, extent e) {
    const psb_world *w = a->scene.world;
    const rgba rim = shade(sphere_color, 0.3f, 1.0f);
    const double band = 1.5 * a->ui_scale / a->view2d_scale;
    for (int k = 0; k < psb_world_sphere_count(w); k++) {
        psb_vec3 centre;
        double r;
        psb_world_sphere(w, k, &centre, &r);
        const double r2 = r * r - centre.z * centre.z;
        if (!(r2 > 0.0)) {
            continue; // the sphere misses the plane
        }
        const double q = sqrt(r2);
        if (centre.x + q < e.x0 || centre.x - q > e.x1 || centre.y + q < e.y0 ||
            centre.y - q > e.y1) {
            continue;
        }
        for (int i = 0; i < CIRCLE_SEGMENTS; i++) {
            const double a0 = 2.0 * PI * i / CIRCLE_SEGMENTS;
            const double a1 = 2.0 * PI * (i + 1) / CIRCLE_SEGMENTS;
            const double c0 = cos(a0), s0 = sin(a0), c1 = cos(a1), s1 = sin(a1);
            cvert *v = batch_alloc(&a->tris2d, 3);
            if (!v) {
                return;
            }
            // Lighter at the top of the disc, darker at its bottom.
            v[0] =
                (cvert){(float)centre.x, (float)centre.y, 0.0f, shade(sphere_color, -0.1f, 1.0f)};
            v[1] = (cvert){(float)(centre.x + q * c0), (float)(centre.y + q * s0), 0.0f,
                           shade(sphere_color, (float)(0.18 * s0 - 0.1), 1.0f)};
            v[2] = (cvert){(float)(centre.x + q * c1), (float)(centre.y + q * s1), 0.0f,
                           shade(sphere_color, (float)(0.18 * s1 - 0.1), 1.0f)};
            const double qi = fmax(q - band, 0.0);
            const float rim_q[4][3] = {
                {(float)(centre.x + q * c0), (float)(centre.y + q * s0), 0},
                {(float)(centre.x + q * c1), (float)(centre.y + q * s1), 0},
                {(float)(centre.x + qi * c1), (float)(centre.y + qi * s1), 0},
                {(float)(centre.x + qi * c0), (float)(centre.y + qi * s0), 0}};
            const float t1q[3][3] = {{rim_q[0][0], rim_q[0][1], 0},
                                     {rim_q[1][0], rim_q[1][1], 0},
                                     {rim_q[2][0], rim_q[2][1], 0}};
            const float t2q[3][3] = {{rim_q[0][0], rim_q[0][1], 0},
                                     {rim_q[2][0], rim_q[2][1], 0},
                                     {rim_q[3][0], rim_q[3][1], 0}};
            batch_triangle(&a->tris2d, t1q, rim);
            batch_triangle(&a->tris2d, t2q, rim);
        }
    }
}

// The wind in the plane z = 0, when it blows: arrows every metre along x
// at three heights, each the local wind times WIND_SCALE.
static void wind_arrows(app *a, extent e) {
    const psb_world *w = a->scene.world;
    const psb_params *p = psb_world_params(w);
    if (!psb_params_wind_blows(p)) {
        return;
    }
    const double t = psb_world_time(w);
    const rgba tail = rgba_f(0.75f, 0.9f, 1.0f, 0.0f), head = rgba_f(0.8f, 0.93f, 1.0f, 0.6f);
    for (int j = 0; j < 3; j++) {
        const double y = p->floor_y + 0.45 + j;
        for (double x = floor(e.x0) + 0.5; x <= e.x1; x += 1.0) {
            const psb_vec3 u = psb_world_wind_at(w, (psb_vec3){x, y, 0.0}, t);
            const double vx = WIND_SCALE * u.x, vy = WIND_SCALE * u.y, len = hypot(vx, vy);
            if (!(len > 1e-4) || !isfinite(len)) {
                continue;
            }
            const double ux = vx / len, uy = vy / len, ex = x + vx, ey = y + vy;
            const double b = 0.25 * len, h = 0.12 * len;
            batch_line(&a->lines2d, (float)x, (float)y, 0, (float)ex, (float)ey, 0, tail, head);
            batch_line(&a->lines2d, (float)ex, (float)ey, 0, (float)(ex - b * ux - h * uy),
                       (float)(ey - b * uy + h * ux), 0, head, head);
            batch_line(&a->lines2d, (float)ex, (float)ey, 0, (float)(ex - b * ux + h * uy),
                       (float)(ey - b * uy - h * ux), 0, head, head);
        }
    }
}

// The ring's pinned points: squares in the pin colour with a dark border.
static void ring_pins(app *a, int b, const psb_vec3 *p, int n) {
    if (psb_body_pin_count(a->scene.world, b) == 0) {
        return;
    }
    const double s = 4.0 * a->ui_scale / a->view2d_scale, in = 0.6 * s;
    const rgba edge = rgba_f(0.1f, 0.02f, 0.06f, 1.0f);
    const rgba fill = rgba_f(pin_color[0], pin_color[1], pin_color[2], 1.0f);
    for (int i = 0; i < n; i++) {
        if (psb_body_is_pinned(a->scene.world, b, i)) {
            rect2d(&a->tris2d, p[i].x - s, p[i].y - s, p[i].x + s, p[i].y + s, edge, edge);
            rect2d(&a->tris2d, p[i].x - in, p[i].y - in, p[i].x + in, p[i].y + in, fill, fill);
        }
    }
}

static void grab_marker(app *a) {
    const grab_state *g = &a->grab;
    if (g->body < 0 || !g->in_2d) {
        return;
    }
    const psb_vec3 p = psb_body_positions(a->scene.world, g->body)[g->point], t = g->target;
    const rgba c = rgba_f(1.0f, 1.0f, 1.0f, 0.95f);
    batch_line(&a->lines2d, (float)p.x, (float)p.y, 0, (float)t.x, (float)t.y, 0, c, c);
    const double s = 3.0 * a->ui_scale / a->view2d_scale;
    rect2d(&a->tris2d, t.x - s, t.y - s, t.x + s, t.y + s, c, c);
}

void render2d_build(app *a) {
    follow(a);
    const extent e = view_extent(a);
    background(a, e);
    sphere_sections(a, e);
    wind_arrows(a, e);
    a->tris2d_back_end = a->tris2d.count;
    a->lines2d_grid_end = a->lines2d.count;
    a->fill_rings = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (a->vertex_base[b] >= 0) {
            continue;
        }
        const psb_vec3 *p = psb_body_positions(a->scene.world, b);
        const int n = psb_body_point_count(a->scene.world, b);
        bool finite = true;
        for (int i = 0; i < n && finite; i++) {
            finite = isfinite(p[i].x) && isfinite(p[i].y);
        }
        if (!finite) {
            a->nonfinite_frames++;
            continue;
        }
        ring_fill(a, b, p, n);
        ring_outline(a, b, p, n);
        ring_overlays(a, b, p, n);
        ring_pins(a, b, p, n);
    }
    grab_marker(a);
}

void render2d_draw(app *a) {
    const extent e = view_extent(a);
    mat4 ortho;
    glm_ortho((float)e.x0, (float)e.x1, (float)e.y0, (float)e.y1, -1.0f, 1.0f, ortho);
    glDisable(GL_DEPTH_TEST);
    glUseProgram(a->prog.color);
    glUniformMatrix4fv(a->prog.color_transform, 1, GL_FALSE, (const float *)ortho);
    batch_draw(&a->tris2d, GL_TRIANGLES, 0, a->tris2d_back_end);
    batch_draw(&a->lines2d, GL_LINES, 0, a->lines2d_grid_end);

    // Fill each ring: the fan inverts the stencil (even-odd: inside ends up
    // set), then the cover quad draws where it is set and clears it again.
    glEnable(GL_STENCIL_TEST);
    glStencilMask(0xff);
    for (int r = 0; r < a->fill_rings; r++) {
        const int fan = a->fill_count[r] - 6;
        glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
        glStencilFunc(GL_ALWAYS, 0, 0xff);
        glStencilOp(GL_KEEP, GL_KEEP, GL_INVERT);
        batch_draw(&a->fill2d, GL_TRIANGLES, a->fill_first[r], fan);
        glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
        glStencilFunc(GL_NOTEQUAL, 0, 0xff);
        glStencilOp(GL_ZERO, GL_ZERO, GL_ZERO);
        batch_draw(&a->fill2d, GL_TRIANGLES, a->fill_first[r] + fan, 6);
    }
    glDisable(GL_STENCIL_TEST);

    batch_draw(&a->tris2d, GL_TRIANGLES, a->tris2d_back_end, a->tris2d.count - a->tris2d_back_end);
    batch_draw(&a->lines2d, GL_LINES, a->lines2d_grid_end, a->lines2d.count - a->lines2d_grid_end);
}
