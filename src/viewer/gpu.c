// The GL resources: the programs, the batches and the buffers of the scene
// shown. The batches whose size no scene changes are made once, the others
// and the mesh buffers when the scene changes; the frame (render.c,
// render3d.c) updates them in place (glBufferSubData) each frame.
#include "gpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Fixed capacities of the scene-independent batches, vertices.
enum {
    BG_VERTICES = 64,
    UI_BACK_VERTICES = 4 * 1024,
    // The two plots, each a line of two vertices a segment per body and
    // sample, drawn twice at a UI scale of 2 and up (plots.c), and the rest
    // of the overlay's lines.
    UI_LINE_VERTICES = 2 * 4 * MAX_BODIES * PLOT_SAMPLES + 16 * 1024,
    UI_TEXT_VERTICES = 4 * TEXT_QUADS,
    FLOOR_HALF = 60,        // m
    PIN_MARK_VERTICES = 24, // a pin's marker: an octahedron
    WIND_ARROW_VERTICES = 6 * 64,
    CIRCLE_VERTICES = 3 * 64 + 6 * 64, // a sphere's cross-section in 2D: fan and rim
};

// Sandstone: a grey warm enough to tell from the floor. Pins: a lime no
// body, overlay or palette colour is near.
const float sphere_color[3] = {0.64f, 0.56f, 0.45f};
const float pin_color[3] = {0.78f, 1.0f, 0.2f};

static bool load_programs(app *a, char *error, size_t error_size) {
    programs *p = &a->prog;
    p->color = program_load(a->shader_dir, "color.vert", "color.frag", error, error_size);
    p->mesh =
        p->color ? program_load(a->shader_dir, "mesh.vert", "mesh.frag", error, error_size) : 0;
    p->floor =
        p->mesh ? program_load(a->shader_dir, "floor.vert", "floor.frag", error, error_size) : 0;
    p->text =
        p->floor ? program_load(a->shader_dir, "text.vert", "text.frag", error, error_size) : 0;
    if (!p->text) {
        return false;
    }
    p->text_transform = glGetUniformLocation(p->text, "u_transform");
    p->text_cell = glGetUniformLocation(p->text, "u_cell");
    p->text_columns = glGetUniformLocation(p->text, "u_columns");
    p->text_atlas = glGetUniformLocation(p->text, "u_atlas");
    p->color_transform = glGetUniformLocation(p->color, "u_transform");
    p->mesh_view_proj = glGetUniformLocation(p->mesh, "u_view_proj");
    p->mesh_eye = glGetUniformLocation(p->mesh, "u_eye");
    p->mesh_light = glGetUniformLocation(p->mesh, "u_light_dir");
    p->mesh_floor_y = glGetUniformLocation(p->mesh, "u_floor_y");
    p->floor_view_proj = glGetUniformLocation(p->floor, "u_view_proj");
    p->floor_eye = glGetUniformLocation(p->floor, "u_eye");
    p->floor_arena = glGetUniformLocation(p->floor, "u_arena");
    p->floor_fog = glGetUniformLocation(p->floor, "u_fog_color");
    return true;
}

bool gpu_init(app *a, char *error, size_t error_size) {
    if (!load_programs(a, error, error_size)) {
        return false;
    }
    a->quad_ibo = quad_index_buffer(TEXT_QUADS);
    bool ok = a->quad_ibo != 0;
    ok = ok && batch_create(&a->bg, BG_VERTICES, 0);
    ok = ok && batch_create(&a->tris3d, 0, 0);
    ok = ok && batch_create(&a->pins3d, PIN_MARK_VERTICES * MAX_PIN_MARKS, 0);
    ok = ok && batch_create(&a->lines3d, 0, 0);
    ok = ok && batch_create(&a->fill2d, 0, 0);
    ok = ok && batch_create(&a->tris2d, 0, 0);
    ok = ok && batch_create(&a->lines2d, 0, 0);
    ok = ok && batch_create(&a->ui_back, UI_BACK_VERTICES, a->quad_ibo);
    ok = ok && batch_create(&a->ui_lines, UI_LINE_VERTICES, 0);
    ok = ok && batch_create(&a->ui_text, UI_TEXT_VERTICES, a->quad_ibo);
    if (!ok) {
        snprintf(error, error_size, "out of memory for the vertex buffers");
        return false;
    }

    glGenVertexArrays(1, &a->mesh_vao);
    glGenBuffers(1, &a->mesh_vbo);
    glGenBuffers(1, &a->mesh_ibo);
    glBindVertexArray(a->mesh_vao);
    glBindBuffer(GL_ARRAY_BUFFER, a->mesh_vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(mvert), (void *)offsetof(mvert, p));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(mvert), (void *)offsetof(mvert, n));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(mvert),
                          (void *)offsetof(mvert, color));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, a->mesh_ibo);

    // The floor: two triangles at the floor's height, FLOOR_HALF m each way.
    const float y = (float)a->config.scene_config.params.floor_y, h = FLOOR_HALF;
    const float floor_quad[6][3] = {{-h, y, -h}, {h, y, h},  {h, y, -h},
                                    {-h, y, -h}, {-h, y, h}, {h, y, h}};
    glGenVertexArrays(1, &a->floor_vao);
    glGenBuffers(1, &a->floor_vbo);
    glBindVertexArray(a->floor_vao);
    glBindBuffer(GL_ARRAY_BUFFER, a->floor_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof floor_quad, floor_quad, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), (void *)0);
    glBindVertexArray(0);
    return true;
}

// Mean rest face area of a shell (mean edge length of a ring), for the
// pressure arrows' scale. Bodies are built at rest.
static double mean_element(const psb_world *w, int b) {
    const psb_vec3 *x = psb_body_positions(w, b);
    int tri_count = 0;
    const int *tris = psb_body_triangles(w, b, &tri_count);
    double sum = 0.0;
    if (psb_body_get_kind(w, b) == PSB_RING) {
        const int n = psb_body_point_count(w, b);
        for (int i = 0; i < n; i++) {
            const psb_vec3 p = x[i], q = x[(i + 1) % n];
            sum += hypot(q.x - p.x, q.y - p.y);
        }
        return sum / n;
    }
    for (int t = 0; t < tri_count; t++) {
        const psb_vec3 p = x[tris[3 * t]], q = x[tris[3 * t + 1]], r = x[tris[3 * t + 2]];
        const double e1[3] = {q.x - p.x, q.y - p.y, q.z - p.z};
        const double e2[3] = {r.x - p.x, r.y - p.y, r.z - p.z};
        const double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
        sum += 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    }
    return tri_count > 0 ? sum / tri_count : 1.0;
}

// Appends body b's triangles (as indices into mesh_verts) at index[*k].
static void add_body_indices(const app *a, int b, GLuint *index, int *k) {
    int tri_count = 0;
    const int *tris = psb_body_triangles(a->scene.world, b, &tri_count);
    for (int i = 0; i < 3 * tri_count; i++) {
        index[(*k)++] = (GLuint)(a->vertex_base[b] + tris[i]);
    }
}

// The static spheres: an icosphere per sphere after the bodies' vertices
// (made here once: they never move), its indices at index[*k].
static void add_spheres(app *a, const psb_mesh *unit, GLuint *index, int *k) {
    const psb_world *w = a->scene.world;
    const rgba c = rgba_f(sphere_color[0], sphere_color[1], sphere_color[2], 1.0f);
    int base = a->mesh_vert_count;
    for (int s = 0; s < psb_world_sphere_count(w); s++) {
        psb_vec3 centre;
        double r;
        psb_world_sphere(w, s, &centre, &r);
        for (int i = 0; i < unit->point_count; i++) {
            const psb_vec3 u = unit->points[i];
            mvert *v = a->mesh_verts + base + i;
            v->p[0] = (float)(centre.x + r * u.x);
            v->p[1] = (float)(centre.y + r * u.y);
            v->p[2] = (float)(centre.z + r * u.z);
            v->n[0] = (float)u.x;
            v->n[1] = (float)u.y;
            v->n[2] = (float)u.z;
            v->color = c;
        }
        for (int i = 0; i < 3 * unit->triangle_count; i++) {
            index[(*k)++] = (GLuint)(base + unit->triangles[i]);
        }
        base += unit->point_count;
    }
}

bool gpu_scene_changed(app *a) {
    const psb_world *w = a->scene.world;
    a->gpu_ready = false;
    const int spheres = psb_world_sphere_count(w);
    psb_mesh unit = {0};
    if (spheres > 0 && psb_mesh_icosphere(&unit, SPHERE_LEVEL, 1.0, NULL) != PSB_OK) {
        return false;
    }
    int verts = 0, indices = 0, lines3d = 64 + WIND_ARROW_VERTICES, ring_points = 0, rings = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        const int n = psb_body_point_count(w, b);
        int tri_count = 0, edge_count = 0;
        psb_body_triangles(w, b, &tri_count);
        psb_body_edges(w, b, &edge_count);
        a->mean_face_area[b] = mean_element(w, b);
        if (psb_body_get_kind(w, b) == PSB_RING) {
            a->vertex_base[b] = -1;
            ring_points += n;
            rings++;
            continue;
        }
        a->vertex_base[b] = verts;
        verts += n;
        indices += 3 * tri_count;
        // velocity and normal per point, an arrow per face, a line per spring
        lines3d += 4 * n + 2 * tri_count + 2 * edge_count;
    }
    const int all_verts = verts + spheres * unit.point_count;
    indices += spheres * 3 * unit.triangle_count;
    mvert *mv = realloc(a->mesh_verts, (size_t)(all_verts > 0 ? all_verts : 1) * sizeof *mv);
    if (mv) {
        a->mesh_verts = mv;
    }
    float *ss = realloc(a->strain_sum, (size_t)(verts > 0 ? verts : 1) * sizeof *ss);
    if (ss) {
        a->strain_sum = ss;
    }
    float *sn = realloc(a->strain_n, (size_t)(verts > 0 ? verts : 1) * sizeof *sn);
    if (sn) {
        a->strain_n = sn;
    }
    GLuint *index = malloc((size_t)(indices > 0 ? indices : 1) * sizeof *index);
    if (!mv || !ss || !sn || !index) {
        free(index);
        psb_mesh_free(&unit);
        return false;
    }
    a->mesh_vert_count = verts;
    // Closed surfaces first (drawn culled), then the cloths (two-sided).
    int k = 0;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (psb_body_get_kind(w, b) == PSB_SHELL) {
            add_body_indices(a, b, index, &k);
        }
    }
    if (spheres > 0) {
        add_spheres(a, &unit, index, &k);
    }
    a->mesh_closed_index_count = k;
    for (int b = 0; b < a->scene.body_count; b++) {
        if (psb_body_get_kind(w, b) == PSB_CLOTH) {
            add_body_indices(a, b, index, &k);
        }
    }
    a->mesh_index_count = k;
    psb_mesh_free(&unit);
    glBindVertexArray(a->mesh_vao);
    glBindBuffer(GL_ARRAY_BUFFER, a->mesh_vbo);
    glBufferData(GL_ARRAY_BUFFER,
                 (GLsizeiptr)((size_t)(all_verts > 0 ? all_verts : 1) * sizeof(mvert)), NULL,
                 GL_DYNAMIC_DRAW);
    if (all_verts > verts) {
        // The spheres' vertices, once; the bodies' are updated every frame.
        glBufferSubData(GL_ARRAY_BUFFER, (GLintptr)((size_t)verts * sizeof(mvert)),
                        (GLsizeiptr)((size_t)(all_verts - verts) * sizeof(mvert)),
                        a->mesh_verts + verts);
    }
    glBufferData(GL_ELEMENT_ARRAY_BUFFER,
                 (GLsizeiptr)((size_t)(indices > 0 ? indices : 1) * sizeof *index), index,
                 GL_STATIC_DRAW);
    glBindVertexArray(0);
    free(index);

    // 2D: per ring point a fan triangle, an outline quad, a point marker,
    // a pin marker and four overlay lines; per sphere a disc; plus the
    // background, the grid, the wind and the grab marker.
    bool ok = batch_reserve(&a->lines3d, lines3d);
    ok = ok && batch_reserve(&a->tris3d, 3 * SHADOW_SEGMENTS * (MAX_BODIES + spheres));
    ok = ok && batch_reserve(&a->fill2d, 3 * ring_points + 6 * rings + 6);
    ok = ok && batch_reserve(&a->tris2d, 24 * ring_points + CIRCLE_VERTICES * spheres + 256);
    ok = ok && batch_reserve(&a->lines2d, 8 * ring_points + WIND_ARROW_VERTICES + 1024);
    a->gpu_ready = ok;
    return ok;
}

void gpu_free(app *a) {
    batch *batches[] = {&a->bg,     &a->tris3d,  &a->pins3d,  &a->lines3d,  &a->fill2d,
                        &a->tris2d, &a->lines2d, &a->ui_back, &a->ui_lines, &a->ui_text};
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        batch_destroy(batches[i]);
    }
    glDeleteProgram(a->prog.color);
    glDeleteProgram(a->prog.mesh);
    glDeleteProgram(a->prog.floor);
    glDeleteProgram(a->prog.text);
    glDeleteTextures(1, &a->text_texture);
    glDeleteBuffers(1, &a->quad_ibo);
    glDeleteVertexArrays(1, &a->mesh_vao);
    glDeleteBuffers(1, &a->mesh_vbo);
    glDeleteBuffers(1, &a->mesh_ibo);
    glDeleteVertexArrays(1, &a->floor_vao);
    glDeleteBuffers(1, &a->floor_vbo);
    free(a->mesh_verts);
    free(a->strain_sum);
    free(a->strain_n);
    a->mesh_verts = NULL;
    a->strain_sum = a->strain_n = NULL;
}
