// The 3D view: the floor, the lit bodies with per-vertex normals recomputed
// every frame (cloths lit on both sides), the static spheres, and the
// overlays (velocities, normals, pressure forces, springs, strain colours,
// the grab, the pins, the wind).
#include "render3d.h"

#include "gpu.h"

#include <math.h>
#include <string.h>

// Overlay scales: velocity arrows show 0.1 s of motion; normals are 6 cm;
// a pressure arrow is 0.3 mm per Pa on a face of the body's mean rest area.
#define VELOCITY_SCALE 0.1f
#define NORMAL_LENGTH  0.06f
#define PRESSURE_SCALE 0.0003f
// Strain shown at full colour, either way.
#define STRAIN_FULL 0.3f
// A pin marker's size, as a fraction of its distance from the eye.
#define PIN_SIZE 0.011f
// Wind arrows show this many seconds of travel (6 m/s: 0.36 m).
#define WIND_SCALE 0.06f

rgba strain_color(float strain) {
    const float t = fminf(fmaxf(strain / STRAIN_FULL, -1.0f), 1.0f);
    const float rest[3] = {0.92f, 0.92f, 0.90f};
    const float far[3] = {t < 0.0f ? 0.15f : 0.90f, t < 0.0f ? 0.35f : 0.15f,
                          t < 0.0f ? 0.95f : 0.12f};
    const float u = fabsf(t);
    return rgba_f(rest[0] + (far[0] - rest[0]) * u, rest[1] + (far[1] - rest[1]) * u,
                  rest[2] + (far[2] - rest[2]) * u, 1.0f);
}

static rgba body_color(const app *a, int b, float lighten) {
    const float *c = a->scene.bodies[b].color;
    return rgba_f(c[0] + (1.0f - c[0]) * lighten, c[1] + (1.0f - c[1]) * lighten,
                  c[2] + (1.0f - c[2]) * lighten, 1.0f);
}

static bool finite_points(const psb_vec3 *x, int n) {
    for (int i = 0; i < n; i++) {
        if (!(isfinite(x[i].x) && isfinite(x[i].y) && isfinite(x[i].z))) {
            return false;
        }
    }
    return true;
}

// Per-vertex strain: the mean of (|d| - L0) / L0 over the point's springs.
static void vertex_strain(app *a, int b, mvert *v) {
    const psb_world *w = a->scene.world;
    const int n = psb_body_point_count(w, b);
    int edge_count = 0;
    const int *edges = psb_body_edges(w, b, &edge_count);
    const double *rest = psb_body_rest_lengths(w, b);
    const psb_vec3 *x = psb_body_positions(w, b);
    float *sum = a->strain_sum + a->vertex_base[b], *count = a->strain_n + a->vertex_base[b];
    memset(sum, 0, (size_t)n * sizeof *sum);
    memset(count, 0, (size_t)n * sizeof *count);
    for (int k = 0; k < edge_count; k++) {
        const int i = edges[2 * k], j = edges[2 * k + 1];
        const double len =
            sqrt((x[i].x - x[j].x) * (x[i].x - x[j].x) + (x[i].y - x[j].y) * (x[i].y - x[j].y) +
                 (x[i].z - x[j].z) * (x[i].z - x[j].z));
        const float s = rest[k] > 0.0 ? (float)((len - rest[k]) / rest[k]) : 0.0f;
        sum[i] += s;
        sum[j] += s;
        count[i] += 1.0f;
        count[j] += 1.0f;
    }
    for (int i = 0; i < n; i++) {
        v[i].color = strain_color(count[i] > 0.0f ? sum[i] / count[i] : 0.0f);
    }
}

// Positions as floats, area-weighted vertex normals, colours.
static void update_body_vertices(app *a, int b) {
    const psb_world *w = a->scene.world;
    const int n = psb_body_point_count(w, b);
    const psb_vec3 *x = psb_body_positions(w, b);
    if (!finite_points(x, n)) {
        // Never hand the renderer a NaN: keep last frame's vertices.
        a->nonfinite_frames++;
        return;
    }
    mvert *v = a->mesh_verts + a->vertex_base[b];
    for (int i = 0; i < n; i++) {
        v[i].p[0] = (float)x[i].x;
        v[i].p[1] = (float)x[i].y;
        v[i].p[2] = (float)x[i].z;
        v[i].n[0] = v[i].n[1] = v[i].n[2] = 0.0f;
    }
    int tri_count = 0;
    const int *tris = psb_body_triangles(w, b, &tri_count);
    for (int t = 0; t < tri_count; t++) {
        const int i0 = tris[3 * t], i1 = tris[3 * t + 1], i2 = tris[3 * t + 2];
        const float *p0 = v[i0].p, *p1 = v[i1].p, *p2 = v[i2].p;
        const float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        const float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        // The cross product is twice the area vector: area-weighted normals.
        const float c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                            e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++) {
            v[i0].n[k] += c[k];
            v[i1].n[k] += c[k];
            v[i2].n[k] += c[k];
        }
    }
    for (int i = 0; i < n; i++) {
        float *nn = v[i].n;
        const float len = sqrtf(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        if (len > 1e-20f) {
            nn[0] /= len;
            nn[1] /= len;
            nn[2] /= len;
        } else {
            nn[0] = nn[2] = 0.0f;
            nn[1] = 1.0f;
        }
    }
    if (a->overlay[OVERLAY_STRAIN]) {
        vertex_strain(a, b, v);
    } else {
        const rgba c = body_color(a, b, a->grab.body == b && !a->grab.in_2d ? 0.18f : 0.0f);
        for (int i = 0; i < n; i++) {
            v[i].color = c;
        }
    }
}

static void body_overlays(app *a, int b) {
    const psb_world *w = a->scene.world;
    const int n = psb_body_point_count(w, b);
    const mvert *v = a->mesh_verts + a->vertex_base[b];
    batch *L = &a->lines3d;
    if (a->overlay[OVERLAY_VELOCITY]) {
        const psb_vec3 *vel = psb_body_velocities(w, b);
        const rgba c0 = rgba_f(1.0f, 0.25f, 0.2f, 1.0f), c1 = rgba_f(1.0f, 0.45f, 0.4f, 1.0f);
        for (int i = 0; i < n; i++) {
            const float *p = v[i].p, s = VELOCITY_SCALE;
            batch_line(L, p[0], p[1], p[2], p[0] + s * (float)vel[i].x, p[1] + s * (float)vel[i].y,
                       p[2] + s * (float)vel[i].z, c0, c1);
        }
    }
    if (a->overlay[OVERLAY_NORMALS]) {
        const rgba c0 = rgba_f(0.4f, 0.85f, 1.0f, 0.9f), c1 = rgba_f(0.7f, 0.95f, 1.0f, 0.9f);
        for (int i = 0; i < n; i++) {
            const float *p = v[i].p, *nn = v[i].n, s = NORMAL_LENGTH;
            batch_line(L, p[0], p[1], p[2], p[0] + s * nn[0], p[1] + s * nn[1], p[2] + s * nn[2],
                       c0, c1);
        }
    }
    if (a->overlay[OVERLAY_PRESSURE]) {
        int tri_count = 0;
        const int *tris = psb_body_triangles(w, b, &tri_count);
        // Arrow = P * (area vector) scaled by the mean rest area: force per face.
        const float s =
            (float)(a->state[b].pressure * PRESSURE_SCALE / fmax(a->mean_face_area[b], 1e-12));
        const rgba c0 = rgba_f(1.0f, 0.3f, 0.9f, 1.0f), c1 = rgba_f(1.0f, 0.65f, 1.0f, 1.0f);
        for (int t = 0; t < tri_count; t++) {
            const float *p0 = v[tris[3 * t]].p, *p1 = v[tris[3 * t + 1]].p,
                        *p2 = v[tris[3 * t + 2]].p;
            const float e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
            const float e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
            const float av[3] = {0.5f * (e1[1] * e2[2] - e1[2] * e2[1]),
                                 0.5f * (e1[2] * e2[0] - e1[0] * e2[2]),
                                 0.5f * (e1[0] * e2[1] - e1[1] * e2[0])};
            const float c[3] = {(p0[0] + p1[0] + p2[0]) / 3.0f, (p0[1] + p1[1] + p2[1]) / 3.0f,
                                (p0[2] + p1[2] + p2[2]) / 3.0f};
            batch_line(L, c[0], c[1], c[2], c[0] + s * av[0], c[1] + s * av[1], c[2] + s * av[2],
                       c0, c1);
        }
    }
    int tri_count = 0;
    psb_body_triangles(w, b, &tri_count);
    // A cloth without triangles is its springs: drawn in its colour.
    const bool bare = tri_count == 0;
    if (a->overlay[OVERLAY_WIREFRAME] || bare) {
        int edge_count = 0;
        const int *edges = psb_body_edges(w, b, &edge_count);
        const rgba plain = bare ? body_color(a, b, 0.15f) : rgba_f(0.05f, 0.06f, 0.08f, 0.75f);
        const bool strain = a->overlay[OVERLAY_STRAIN];
        for (int k = 0; k < edge_count; k++) {
            const float *p = v[edges[2 * k]].p, *q = v[edges[2 * k + 1]].p;
            const rgba c0 = strain ? v[edges[2 * k]].color : plain;
            const rgba c1 = strain ? v[edges[2 * k + 1]].color : plain;
            batch_line(L, p[0], p[1], p[2], q[0], q[1], q[2], c0, c1);
        }
    }
}

// The grab: a line from the held point to the cursor's target and a cross there.
static void grab_marker(app *a) {
    const grab_state *g = &a->grab;
    if (g->body < 0 || g->in_2d) {
        return;
    }
    const psb_vec3 p = psb_body_positions(a->scene.world, g->body)[g->point], t = g->target;
    const rgba c = rgba_f(1.0f, 1.0f, 1.0f, 0.95f);
    batch *L = &a->lines3d;
    batch_line(L, (float)p.x, (float)p.y, (float)p.z, (float)t.x, (float)t.y, (float)t.z, c, c);
    const float s = 0.05f, x = (float)t.x, y = (float)t.y, z = (float)t.z;
    batch_line(L, x - s, y, z, x + s, y, z, c, c);
    batch_line(L, x, y - s, z, x, y + s, z, c, c);
    batch_line(L, x, y, z - s, x, y, z + s, c, c);
}

// A soft round shadow of radius r (at zero height) under (cx, cz), for
// something whose lowest point is `height` above the floor at y.
static void shadow(app *a, float y, float cx, float cz, float r, float height) {
    r *= 1.0f + 0.5f * height;
    const float alpha = 0.55f / (1.0f + 1.5f * height);
    if (!(isfinite(cx) && isfinite(cz) && isfinite(r))) {
        return;
    }
    const rgba centre = rgba_f(0.0f, 0.0f, 0.0f, alpha), rim = rgba_f(0.0f, 0.0f, 0.0f, 0.0f);
    for (int k = 0; k < SHADOW_SEGMENTS; k++) {
        const float a0 = 6.2831853f * (float)k / SHADOW_SEGMENTS;
        const float a1 = 6.2831853f * (float)(k + 1) / SHADOW_SEGMENTS;
        cvert *v = batch_alloc(&a->tris3d, 3);
        if (!v) {
            return;
        }
        v[0] = (cvert){cx, y, cz, centre};
        v[1] = (cvert){cx + r * cosf(a0), y, cz + r * sinf(a0), rim};
        v[2] = (cvert){cx + r * cosf(a1), y, cz + r * sinf(a1), rim};
    }
}

// Soft round shadows under the shells and the static spheres, wider and
// fainter the higher they are above the floor. A cloth's would be a blot.
static void shadows(app *a) {
    const psb_world *w = a->scene.world;
    const double floor_y = psb_world_params(w)->floor_y;
    const float y = (float)floor_y + 0.004f;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (psb_body_get_kind(w, b) != PSB_SHELL) {
            continue;
        }
        const psb_body_state *s = &a->state[b];
        shadow(a, y, (float)s->centroid.x, (float)s->centroid.z, (float)(1.25 * s->mean_radius),
               (float)fmax(0.0, s->min_y - floor_y));
    }
    for (int k = 0; k < psb_world_sphere_count(w); k++) {
        psb_vec3 c;
        double r;
        psb_world_sphere(w, k, &c, &r);
        if (c.y + r > floor_y) {
            shadow(a, y, (float)c.x, (float)c.z, (float)(1.1 * r),
                   (float)fmax(0.0, c.y - r - floor_y));
        }
    }
}

// A pin's marker: a small octahedron at p, its upper half lighter (it
// faces the light) and its lower half darker, sized to look the same at
// any distance.
static void pin_marker(app *a, psb_vec3 p, const float eye[3]) {
    const float x = (float)p.x, y = (float)p.y, z = (float)p.z;
    const float dist = sqrtf((x - eye[0]) * (x - eye[0]) + (y - eye[1]) * (y - eye[1]) +
                             (z - eye[2]) * (z - eye[2]));
    const float s = PIN_SIZE * dist;
    const float ring[4][3] = {{x + s, y, z}, {x, y, z + s}, {x - s, y, z}, {x, y, z - s}};
    const float top[3] = {x, y + 1.4f * s, z}, bottom[3] = {x, y - 1.4f * s, z};
    const float *c = pin_color;
    const rgba light = rgba_f(c[0] + 0.5f * (1.0f - c[0]), c[1] + 0.5f * (1.0f - c[1]),
                              c[2] + 0.5f * (1.0f - c[2]), 1.0f);
    const rgba dark = rgba_f(0.6f * c[0], 0.6f * c[1], 0.6f * c[2], 1.0f);
    for (int k = 0; k < 4; k++) {
        const float *q = ring[k], *r = ring[(k + 1) % 4];
        const float up[3][3] = {{top[0], top[1], top[2]}, {q[0], q[1], q[2]}, {r[0], r[1], r[2]}};
        const float down[3][3] = {
            {bottom[0], bottom[1], bottom[2]}, {q[0], q[1], q[2]}, {r[0], r[1], r[2]}};
        batch_triangle(&a->pins3d, up, k % 2 ? light : rgba_f(c[0], c[1], c[2], 1.0f));
        batch_triangle(&a->pins3d, down, dark);
    }
}

// Markers on the pinned points of the 3D bodies.
static void pin_markers(app *a) {
    const psb_world *w = a->scene.world;
    float eye[3];
    camera_eye(&a->cam, eye);
    for (int b = 0; b < a->scene.body_count; b++) {
        if (a->vertex_base[b] < 0 || psb_body_pin_count(w, b) == 0) {
            continue;
        }
        const psb_vec3 *x = psb_body_positions(w, b);
        const int n = psb_body_point_count(w, b);
        for (int i = 0; i < n; i++) {
            if (psb_body_is_pinned(w, b, i) && isfinite(x[i].x + x[i].y + x[i].z)) {
                pin_marker(a, x[i], eye);
            }
        }
    }
}

// An arrow from p along v: a shaft and two barbs in the plane of v and up
// (or of v and x when v is vertical).
static void arrow(batch *L, const float p[3], const float v[3], rgba tail, rgba head) {
    const float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(len > 1e-4f)) {
        return;
    }
    const float u[3] = {v[0] / len, v[1] / len, v[2] / len};
    float side[3] = {0.0f, 1.0f, 0.0f};
    if (fabsf(u[1]) > 0.9f) {
        side[0] = 1.0f;
        side[1] = 0.0f;
    }
    // The barb's sideways direction: side minus its part along u.
    const float d = side[0] * u[0] + side[1] * u[1] + side[2] * u[2];
    float n[3] = {side[0] - d * u[0], side[1] - d * u[1], side[2] - d * u[2]};
    const float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const float e[3] = {p[0] + v[0], p[1] + v[1], p[2] + v[2]};
    const float b = 0.25f * len, h = 0.12f * len;
    batch_line(L, p[0], p[1], p[2], e[0], e[1], e[2], tail, head);
    for (int sgn = -1; sgn <= 1; sgn += 2) {
        const float k = (float)sgn * h / nl;
        batch_line(L, e[0], e[1], e[2], e[0] - b * u[0] + k * n[0], e[1] - b * u[1] + k * n[1],
                   e[2] - b * u[2] + k * n[2], head, head);
    }
}

// The wind, when it blows: arrows on a lattice over the arena, each the
// local wind (gusts included) times WIND_SCALE.
static void wind_arrows(app *a) {
    const psb_world *w = a->scene.world;
    const psb_params *p = psb_world_params(w);
    if (!psb_params_wind_blows(p)) {
        return;
    }
    const double t = psb_world_time(w);
    const double half =
        p->walls
            ? 0.8 * fmin(p->walls_max.x - p->walls_min.x, p->walls_max.z - p->walls_min.z) * 0.5
            : 2.4;
    const double cx = p->walls ? 0.5 * (p->walls_min.x + p->walls_max.x) : 0.0;
    const double cz = p->walls ? 0.5 * (p->walls_min.z + p->walls_max.z) : 0.0;
    const rgba tail = rgba_f(0.75f, 0.9f, 1.0f, 0.0f), head = rgba_f(0.8f, 0.93f, 1.0f, 0.7f);
    for (int iy = 0; iy < 3; iy++) {
        for (int iz = 0; iz < 3; iz++) {
            for (int ix = 0; ix < 4; ix++) {
                const psb_vec3 at = {cx + half * (-1.0 + 2.0 * ix / 3.0), p->floor_y + 0.45 + iy,
                                     cz + half * (-1.0 + iz)};
                const psb_vec3 u = psb_world_wind_at(w, at, t);
                const float from[3] = {(float)at.x, (float)at.y, (float)at.z};
                const float v[3] = {WIND_SCALE * (float)u.x, WIND_SCALE * (float)u.y,
                                    WIND_SCALE * (float)u.z};
                if (isfinite(v[0] + v[1] + v[2])) {
                    arrow(&a->lines3d, from, v, tail, head);
                }
            }
        }
    }
}

void render3d_build(app *a) {
    for (int b = 0; b < a->scene.body_count; b++) {
        if (a->vertex_base[b] >= 0) {
            update_body_vertices(a, b);
        }
    }
    for (int b = 0; b < a->scene.body_count; b++) {
        if (a->vertex_base[b] >= 0) {
            body_overlays(a, b);
        }
    }
    wind_arrows(a);
    a->lines3d_overlay_end = a->lines3d.count;
    grab_marker(a);
    shadows(a);
    pin_markers(a);
    if (a->mesh_vert_count > 0) {
        glBindBuffer(GL_ARRAY_BUFFER, a->mesh_vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0,
                        (GLsizeiptr)((size_t)a->mesh_vert_count * sizeof(mvert)), a->mesh_verts);
    }
}

void render3d_draw(app *a) {
    const psb_params *params = psb_world_params(a->scene.world);
    mat4 vp;
    camera_view_proj(&a->cam, a->view3d.w / a->view3d.h, vp);
    float eye[3];
    camera_eye(&a->cam, eye);

    // Bodies first, so that the floor behind them fails the depth test early.
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    if (a->mesh_index_count > 0) {
        const float light[3] = {-0.38f, 0.82f, 0.42f};
        const float len = sqrtf(light[0] * light[0] + light[1] * light[1] + light[2] * light[2]);
        glUseProgram(a->prog.mesh);
        glUniformMatrix4fv(a->prog.mesh_view_proj, 1, GL_FALSE, (const float *)vp);
        glUniform3fv(a->prog.mesh_eye, 1, eye);
        glUniform3f(a->prog.mesh_light, light[0] / len, light[1] / len, light[2] / len);
        glUniform1f(a->prog.mesh_floor_y, (float)params->floor_y);
        // Lines drawn on the surface (the wireframe) must win the depth test.
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(1.0f, 1.0f);
        // Closed, outward-wound surfaces: the back faces are never seen.
        // Opaque: no blending (it costs a read per pixel on a CPU renderer).
        glEnable(GL_CULL_FACE);
        glDisable(GL_BLEND);
        glBindVertexArray(a->mesh_vao);
        glDrawElements(GL_TRIANGLES, a->mesh_closed_index_count, GL_UNSIGNED_INT, (void *)0);
        // Cloths are seen from both sides: the shader turns the normal of a
        // back face toward the eye.
        glDisable(GL_CULL_FACE);
        const int cloth = a->mesh_index_count - a->mesh_closed_index_count;
        if (cloth > 0) {
            glDrawElements(GL_TRIANGLES, cloth, GL_UNSIGNED_INT,
                           (void *)((size_t)a->mesh_closed_index_count * sizeof(GLuint)));
        }
        glDisable(GL_POLYGON_OFFSET_FILL);
    }
    if (params->floor) {
        glUseProgram(a->prog.floor);
        glUniformMatrix4fv(a->prog.floor_view_proj, 1, GL_FALSE, (const float *)vp);
        glUniform3fv(a->prog.floor_eye, 1, eye);
        glUniform1f(a->prog.floor_arena, params->walls ? (float)params->walls_max.x : 1e6f);
        glUniform3f(a->prog.floor_fog, 0.115f, 0.125f, 0.150f);
        glBindVertexArray(a->floor_vao);
        glDrawArrays(GL_TRIANGLES, 0, 6);
    }
    glEnable(GL_BLEND);

    glUseProgram(a->prog.color);
    glUniformMatrix4fv(a->prog.color_transform, 1, GL_FALSE, (const float *)vp);
    if (a->pins3d.count > 0) {
        glDisable(GL_BLEND);
        batch_draw(&a->pins3d, GL_TRIANGLES, 0, a->pins3d.count);
        glEnable(GL_BLEND);
    }
    if (params->floor) {
        glDepthMask(GL_FALSE);
        batch_draw(&a->tris3d, GL_TRIANGLES, 0, a->tris3d.count);
        glDepthMask(GL_TRUE);
    }
    batch_draw(&a->lines3d, GL_LINES, 0, a->lines3d_overlay_end);
    glDisable(GL_DEPTH_TEST);
    batch_draw(&a->lines3d, GL_LINES, a->lines3d_overlay_end,
               a->lines3d.count - a->lines3d_overlay_end);
}
