// OBJ parsing: every file in tests/obj gives the outcome its README states;
// positions, winding and triangulation in detail; the number parser against
// strtod, also under a comma-decimal locale; buffers without a final NUL;
// generated errors (long lines, too many corners, missing files).
#include "check.h"
#include <psb/psb_obj.h>

#include <dirent.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef PSB_OBJ_CORPUS
#error "PSB_OBJ_CORPUS must name the tests/obj folder"
#endif

static void corpus_path(char *path, size_t size, const char *file) {
    snprintf(path, size, "%s/%s", PSB_OBJ_CORPUS, file);
}

static psb_status parse_file(const char *file, psb_mesh *mesh, psb_obj_stats *stats,
                             psb_error *err) {
    char path[1024];
    corpus_path(path, sizeof path, file);
    return psb_obj_parse(path, mesh, stats, err);
}

// Parses a corpus file that must load.
static psb_mesh load(const char *file, psb_obj_stats *stats) {
    psb_mesh mesh;
    psb_error err = {0};
    psb_status status = parse_file(file, &mesh, stats, &err);
    CHECK(status == PSB_OK, "%s: %s", file, err.message);
    return mesh;
}

static psb_status parse_text(const char *text, psb_mesh *mesh, psb_error *err) {
    return psb_obj_parse_buffer("text.obj", text, strlen(text), mesh, NULL, err);
}

static bool mesh_is_zero(const psb_mesh *m) {
    return m->kind == 0 && !m->points && m->point_count == 0 && !m->triangles &&
           m->triangle_count == 0;
}

// ---------------------------------------------------------------------------
// The README's tables

// Checks one file against its outcome: `ok v=V t=T`, `error line=L: WORDS`
// or `error: WORDS`.
static void check_outcome(const char *file, const char *outcome) {
    char path[1024];
    corpus_path(path, sizeof path, file);
    psb_mesh mesh;
    psb_obj_stats stats;
    psb_error err = {0};
    psb_status status = psb_obj_parse(path, &mesh, &stats, &err);
    int v, t, line;
    char expected[2048];
    if (sscanf(outcome, "ok v=%d t=%d", &v, &t) == 2) {
        CHECK(status == PSB_OK, "%s: expected %s, got: %s", file, outcome, err.message);
        CHECK(mesh.kind == PSB_SHELL && mesh.point_count == v && mesh.triangle_count == t,
              "%s: expected %s, got v=%d t=%d", file, outcome, mesh.point_count,
              mesh.triangle_count);
        CHECK(status != PSB_OK || (stats.vertices == v && stats.triangles == t),
              "%s: stats v=%d t=%d", file, stats.vertices, stats.triangles);
        for (int i = 0; i < 3 * mesh.triangle_count; i++) {
            if (mesh.triangles[i] < 0 || mesh.triangles[i] >= mesh.point_count) {
                CHECK(false, "%s: triangle index %d out of range", file, mesh.triangles[i]);
                break;
            }
        }
        psb_mesh_free(&mesh);
        return;
    }
    if (sscanf(outcome, "error line=%d: ", &line) == 1) {
        snprintf(expected, sizeof expected, "%s:%d: %s", path, line, strstr(outcome, ": ") + 2);
    } else if (strncmp(outcome, "error: ", 7) == 0) {
        snprintf(expected, sizeof expected, "%s: %s", path, outcome + 7);
    } else {
        CHECK(false, "%s: cannot read the outcome '%s' in the README", file, outcome);
        return;
    }
    CHECK(status == PSB_ERR_PARSE && err.status == PSB_ERR_PARSE, "%s: expected %s, got status %d",
          file, outcome, (int)status);
    CHECK(strncmp(err.message, expected, strlen(expected)) == 0,
          "%s: message '%s' does not start with '%s'", file, err.message, expected);
    CHECK(mesh_is_zero(&mesh), "%s: failure left a mesh behind", file);
    CHECK(stats.vertices == 0 && stats.triangles == 0 && stats.lines == 0,
          "%s: failure left stats behind", file);
}

// Reads the README's table rows `| name.obj | `outcome` | ... |`, checks each
// file, and returns how many there were; listed[] receives their names.
static int check_readme(char listed[][64], int capacity) {
    char path[1024], row[4096];
    corpus_path(path, sizeof path, "README.md");
    FILE *file = fopen(path, "r");
    CHECK(file != NULL, "cannot open %s", path);
    if (!file) {
        return 0;
    }
    int count = 0;
    while (fgets(row, sizeof row, file)) {
        char name[64], outcome[512];
        if (sscanf(row, "| %63[^ |] | `%511[^`]`", name, outcome) != 2) {
            continue;
        }
        size_t length = strlen(name);
        if (length < 5 || strcmp(name + length - 4, ".obj") != 0) {
            continue;
        }
        check_outcome(name, outcome);
        if (count < capacity) {
            strcpy(listed[count], name);
        }
        count++;
    }
    fclose(file);
    return count;
}

// Every .obj file in the folder is in the README, and every row names a file.
static void test_corpus(void) {
    char listed[256][64];
    int count = check_readme(listed, 256);
    CHECK(count >= 50, "only %d files in the README's tables", count);
    DIR *dir = opendir(PSB_OBJ_CORPUS);
    CHECK(dir != NULL, "cannot list %s", PSB_OBJ_CORPUS);
    if (!dir) {
        return;
    }
    int files = 0;
    for (struct dirent *entry = readdir(dir); entry; entry = readdir(dir)) {
        size_t length = strlen(entry->d_name);
        if (length < 5 || strcmp(entry->d_name + length - 4, ".obj") != 0) {
            continue;
        }
        files++;
        bool found = false;
        for (int i = 0; i < count && i < 256; i++) {
            found = found || strcmp(listed[i], entry->d_name) == 0;
        }
        CHECK(found, "%s is in tests/obj but not in its README", entry->d_name);
    }
    closedir(dir);
    CHECK(files == count, "%d .obj files but %d README rows", files, count);
}

// ---------------------------------------------------------------------------
// Geometry of the triangulation

static psb_vec3 sub(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static psb_vec3 cross(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

static double dot(psb_vec3 a, psb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static double length(psb_vec3 a) {
    return sqrt(dot(a, a));
}

// The vector area of the polygon through all of the mesh's points in order:
// 1/2 sum p_i x p_{i+1} (its length is the area of a planar polygon).
static psb_vec3 polygon_area(const psb_mesh *m) {
    psb_vec3 sum = {0, 0, 0};
    for (int i = 0; i < m->point_count; i++) {
        psb_vec3 c = cross(m->points[i], m->points[(i + 1) % m->point_count]);
        sum = (psb_vec3){sum.x + c.x / 2, sum.y + c.y / 2, sum.z + c.z / 2};
    }
    return sum;
}

static psb_vec3 triangle_area(const psb_mesh *m, int f) {
    const int *t = m->triangles + 3 * f;
    psb_vec3 a = m->points[t[0]], b = m->points[t[1]], c = m->points[t[2]];
    psb_vec3 n = cross(sub(b, a), sub(c, a));
    return (psb_vec3){n.x / 2, n.y / 2, n.z / 2};
}

// The triangles cover exactly the polygon: their areas add up to its area
// and each is wound like it (its area vector along the polygon's).
static void check_covers_polygon(const char *what, const psb_mesh *m) {
    psb_vec3 polygon = polygon_area(m);
    double area = length(polygon), sum = 0.0;
    int against = 0;
    for (int f = 0; f < m->triangle_count; f++) {
        psb_vec3 t = triangle_area(m, f);
        sum += length(t);
        against += dot(t, polygon) <= 0.0;
    }
    CHECK(area > 0.0, "%s: polygon has no area", what);
    CHECK(fabs(sum - area) <= 1e-12 * area, "%s: triangles cover %.17g, polygon %.17g", what, sum,
          area);
    CHECK(against == 0, "%s: %d triangles not wound like the polygon", what, against);
    CHECK(m->triangle_count == m->point_count - 2, "%s: %d triangles for %d corners", what,
          m->triangle_count, m->point_count);
}

static bool has_triangle(const psb_mesh *m, int f, int a, int b, int c) {
    const int *t = m->triangles + 3 * f;
    return t[0] == a && t[1] == b && t[2] == c;
}

static void test_triangulation(void) {
    psb_obj_stats stats;
    psb_mesh m = load("quad.obj", &stats);
    CHECK(m.triangle_count == 2 && has_triangle(&m, 0, 0, 1, 2) && has_triangle(&m, 1, 0, 2, 3),
          "quad: expected (0 1 2) (0 2 3)");
    CHECK(stats.faces == 1 && stats.polygons == 1 && stats.triangles == 2 && stats.lines == 6,
          "quad stats: faces %d polygons %d triangles %d lines %d", stats.faces, stats.polygons,
          stats.triangles, stats.lines);
    psb_mesh_free(&m);

    m = load("pentagon.obj", NULL);
    CHECK(has_triangle(&m, 0, 0, 1, 2) && has_triangle(&m, 1, 0, 2, 3) &&
              has_triangle(&m, 2, 0, 3, 4),
          "convex pentagon: expected the fan from corner 0");
    check_covers_polygon("pentagon", &m);
    psb_mesh_free(&m);

    // The arrowhead's only inside diagonal joins corners 1 and 3 (0-based).
    m = load("nonconvex_quad.obj", NULL);
    check_covers_polygon("nonconvex_quad", &m);
    bool diagonal = m.triangle_count == 2;
    for (int f = 0; f < m.triangle_count; f++) {
        const int *t = m.triangles + 3 * f;
        bool has1 = t[0] == 1 || t[1] == 1 || t[2] == 1;
        bool has3 = t[0] == 3 || t[1] == 3 || t[2] == 3;
        diagonal = diagonal && has1 && has3;
    }
    CHECK(diagonal, "nonconvex_quad: the diagonal must run from corner 1 to corner 3");
    psb_mesh_free(&m);

    m = load("nonconvex_polygon.obj", NULL);
    check_covers_polygon("nonconvex_polygon", &m);
    // Area 7 in the x-y plane; the plane z = x/2 + y/4 stretches it by
    // |(-1/2, -1/4, 1)| = sqrt(1 + 1/4 + 1/16).
    CHECK_CLOSE(length(polygon_area(&m)), 7.0 * sqrt(1.3125), 1e-12);
    psb_mesh_free(&m);

    m = load("star_polygon.obj", NULL);
    check_covers_polygon("star_polygon", &m);
    int up = 0;
    for (int f = 0; f < m.triangle_count; f++) {
        up += triangle_area(&m, f).z >= 0.0;
    }
    CHECK(up == 0, "star_polygon: %d triangles face +z, the star faces -z", up);
    psb_mesh_free(&m);

    m = load("collinear_corner.obj", NULL);
    check_covers_polygon("collinear_corner", &m);
    for (int f = 0; f < m.triangle_count; f++) {
        CHECK(length(triangle_area(&m, f)) > 0.1, "collinear_corner: triangle %d has no area", f);
    }
    psb_mesh_free(&m);

    // Without area there is nothing to clip: a fan, wound as written.
    m = load("collinear_polygon.obj", NULL);
    CHECK(has_triangle(&m, 0, 0, 1, 2) && has_triangle(&m, 2, 0, 3, 4), "collinear: a fan");
    psb_mesh_free(&m);
    m = load("bowtie_polygon.obj", NULL);
    CHECK(has_triangle(&m, 0, 0, 1, 2) && has_triangle(&m, 1, 0, 2, 3), "bow tie: a fan");
    psb_mesh_free(&m);
}

// Builds an OBJ of one polygon through the n points (x_i, y_i, z_i) in order.
static char *polygon_text(int n, const double *xyz) {
    size_t size = (size_t)n * 96 + 64;
    char *text = malloc(size);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        at += (size_t)snprintf(text + at, size - at, "v %.17g %.17g %.17g\n", xyz[3 * i],
                               xyz[3 * i + 1], xyz[3 * i + 2]);
    }
    at += (size_t)snprintf(text + at, size - at, "f");
    for (int i = 0; i < n; i++) {
        at += (size_t)snprintf(text + at, size - at, " %d", i + 1);
    }
    snprintf(text + at, size - at, "\n");
    return text;
}

// Large non-convex polygons of up to PSB_OBJ_MAX_POLYGON corners: a comb with
// deep teeth, a spiral strip, and a star-shaped polygon with random radii
// (half its corners reflex). Ear clipping must finish them within its budget:
// a fan instead would not cover them.
static void test_large_polygons(void) {
    int n = PSB_OBJ_MAX_POLYGON;
    double *xyz = calloc(3 * (size_t)n, sizeof *xyz);
    // Comb, counter-clockwise: along the teeth's tips and gaps left to right,
    // then the back of the comb right to left.
    int teeth = (n - 2) / 4, k = 0;
    for (int t = 0; t < teeth; t++) {
        double x = 2.0 * t;
        double corners[4][2] = {{x, 0}, {x + 1, 0}, {x + 1, 9}, {x + 2, 9}};
        for (int c = 0; c < 4; c++) {
            xyz[3 * k] = corners[c][0];
            xyz[3 * k + 1] = corners[c][1];
            k++;
        }
    }
    xyz[3 * k] = 2.0 * teeth;
    xyz[3 * k + 1] = 10;
    k++;
    xyz[3 * k] = 0;
    xyz[3 * k + 1] = 10;
    k++;
    char *text = polygon_text(k, xyz);
    psb_mesh m;
    psb_error err;
    CHECK(parse_text(text, &m, &err) == PSB_OK, "comb: %s", err.message);
    check_covers_polygon("comb", &m);
    psb_mesh_free(&m);
    free(text);

    // A spiral strip of 16 turns: few ears at a time, at its two ends.
    int half = n / 2;
    for (int i = 0; i < half; i++) {
        double a = 0.05 * i, b = 0.05 * (half - 1 - i);
        xyz[3 * i] = (1.0 + a) * cos(a);
        xyz[3 * i + 1] = (1.0 + a) * sin(a);
        xyz[3 * i + 2] = 0.0;
        xyz[3 * (half + i)] = (1.3 + b) * cos(b);
        xyz[3 * (half + i) + 1] = (1.3 + b) * sin(b);
        xyz[3 * (half + i) + 2] = 0.0;
    }
    text = polygon_text(n, xyz);
    CHECK(parse_text(text, &m, &err) == PSB_OK, "spiral: %s", err.message);
    check_covers_polygon("spiral", &m);
    psb_mesh_free(&m);
    free(text);

    uint64_t state = 12345;
    for (int i = 0; i < n; i++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        double r = 1.0 + (double)(state >> 11) / 9007199254740992.0;
        double a = 2.0 * 3.14159265358979323846 * i / n;
        xyz[3 * i] = r * cos(a);
        xyz[3 * i + 1] = r * sin(a);
        xyz[3 * i + 2] = 0.25 * xyz[3 * i] - 0.5 * xyz[3 * i + 1]; // a tilted plane
    }
    text = polygon_text(n, xyz);
    CHECK(parse_text(text, &m, &err) == PSB_OK, "random star: %s", err.message);
    check_covers_polygon("random star", &m);
    psb_mesh_free(&m);
    free(text);
    free(xyz);
}

// ---------------------------------------------------------------------------
// Indices, positions, statistics

static void test_indices_and_positions(void) {
    psb_mesh m = load("negative_indices.obj", NULL);
    CHECK(has_triangle(&m, 0, 0, 1, 2) && has_triangle(&m, 1, 0, 2, 3),
          "negative indices: expected (0 1 2) (0 2 3)");
    psb_mesh_free(&m);

    m = load("forward_reference.obj", NULL);
    CHECK(m.triangle_count == 4 && has_triangle(&m, 0, 0, 1, 2) && has_triangle(&m, 1, 1, 2, 3) &&
              has_triangle(&m, 2, 1, 3, 4) && has_triangle(&m, 3, 0, 2, 3),
          "forward references: triangles in the file's order");
    psb_mesh_free(&m);

    m = load("slashes_forms.obj", NULL);
    CHECK(has_triangle(&m, 0, 0, 1, 2) && has_triangle(&m, 1, 0, 1, 2) &&
              has_triangle(&m, 2, 0, 2, 3) && has_triangle(&m, 3, 0, 2, 3) &&
              has_triangle(&m, 4, 0, 1, 2),
          "slashes: vt and vn indices must not change the vertex indices");
    psb_mesh_free(&m);

    const char *same[] = {
        "triangle.obj",      "crlf.obj",         "tabs.obj",           "no_final_newline.obj",
        "vertex_colors.obj", "w_coordinate.obj", "comments_blank.obj", "ignored_keywords.obj",
        "utf8_bom.obj"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        m = load(same[i], NULL);
        bool ok = m.point_count == 3 && m.triangle_count == 1 && has_triangle(&m, 0, 0, 1, 2);
        ok = ok && m.points[0].x == 0 && m.points[0].y == 0 && m.points[0].z == 0;
        ok = ok && m.points[1].x == 1 && m.points[1].y == 0 && m.points[1].z == 0;
        ok = ok && m.points[2].x == 0 && m.points[2].y == 1 && m.points[2].z == 0;
        CHECK(ok, "%s: expected the triangle (0,0,0) (1,0,0) (0,1,0)", same[i]);
        psb_mesh_free(&m);
    }

    psb_obj_stats stats;
    m = load("ignored_keywords.obj", &stats);
    CHECK(stats.ignored_lines == 13 && stats.lines == 17 && stats.vertices == 3 &&
              stats.faces == 1 && stats.polygons == 0 && stats.triangles == 1,
          "ignored_keywords stats: ignored %d lines %d", stats.ignored_lines, stats.lines);
    psb_mesh_free(&m);
    m = load("no_final_newline.obj", &stats);
    CHECK(stats.lines == 4, "no final newline: %d lines", stats.lines);
    psb_mesh_free(&m);
    m = load("comments_blank.obj", &stats);
    CHECK(stats.lines == 11 && stats.ignored_lines == 0, "comments: %d lines, %d ignored",
          stats.lines, stats.ignored_lines);
    psb_mesh_free(&m);

    m = load("number_formats.obj", NULL);
    psb_vec3 expected[4] = {
        {1, -0.0, 0.5},
        {5, 100, 0.01},
        {-15, 1.25, -2.5},
        {strtod("123456789012345678901234567890", NULL),
         strtod("0.000000000000000000000000000012345", NULL), 1e-300},
    };
    for (int i = 0; i < 4 && i < m.point_count; i++) {
        psb_vec3 p = m.points[i], e = expected[i];
        CHECK(fabs(p.x - e.x) <= 1e-15 * fabs(e.x) && fabs(p.y - e.y) <= 1e-15 * fabs(e.y) &&
                  fabs(p.z - e.z) <= 1e-15 * fabs(e.z),
              "number_formats vertex %d: (%.17g %.17g %.17g), expected (%.17g %.17g %.17g)", i, p.x,
              p.y, p.z, e.x, e.y, e.z);
    }
    CHECK(m.point_count == 4 && signbit(m.points[0].y), "-0 must keep its sign");
    psb_mesh_free(&m);

    // Closed meshes: volumes from the file as written.
    const struct {
        const char *file;
        double volume;
    } volumes[] = {{"tetra.obj", 1.0 / 6.0},         {"cube_quads.obj", 1.0},
                   {"cube_split_vertices.obj", 1.0}, {"cube_inside_out.obj", -1.0},
                   {"two_cubes.obj", 2.0},           {"cube_unused_vertex.obj", 1.0}};
    for (size_t i = 0; i < sizeof volumes / sizeof volumes[0]; i++) {
        m = load(volumes[i].file, NULL);
        CHECK_CLOSE(psb_mesh_volume(&m), volumes[i].volume, 1e-14);
        psb_mesh_free(&m);
    }
    psb_topology topology;
    psb_error err;
    m = load("cube_quads.obj", &stats);
    CHECK(stats.faces == 6 && stats.polygons == 6 && stats.triangles == 12,
          "cube stats: faces %d polygons %d", stats.faces, stats.polygons);
    CHECK(psb_mesh_topology(&m, &topology, &err) == PSB_OK && topology.closed &&
              topology.genus == 0 && topology.border_edges == 0,
          "cube_quads must be closed: border %d", topology.border_edges);
    psb_mesh_free(&m);
    m = load("cube_open.obj", NULL);
    CHECK(psb_mesh_topology(&m, &topology, &err) == PSB_OK && !topology.closed &&
              topology.border_edges == 4,
          "cube_open: %d border edges, expected 4", topology.border_edges);
    psb_mesh_free(&m);
}

// ---------------------------------------------------------------------------
// Generated errors and edge cases

// Expects text to fail with PSB_ERR_PARSE and a message starting "text.obj:LINE: WORDS".
static void check_text_error(const char *what, const char *text, size_t size, int line,
                             const char *words) {
    psb_mesh m = {.kind = PSB_RING, .point_count = 7, .triangle_count = 9};
    psb_obj_stats stats = {.lines = 5, .vertices = 3};
    psb_error err = {0};
    psb_status status = psb_obj_parse_buffer("text.obj", text, size, &m, &stats, &err);
    char expected[256];
    snprintf(expected, sizeof expected, "text.obj:%d: %s", line, words);
    CHECK(status == PSB_ERR_PARSE, "%s: status %d", what, (int)status);
    CHECK(strncmp(err.message, expected, strlen(expected)) == 0,
          "%s: message '%s' does not start with '%s'", what, err.message, expected);
    CHECK(mesh_is_zero(&m), "%s: the mesh must be zeroed on failure", what);
    CHECK(stats.lines == 0 && stats.vertices == 0, "%s: the stats must be zeroed on failure", what);
    psb_mesh_free(&m);
}

static void test_generated_errors(void) {
    // A line of exactly PSB_OBJ_MAX_LINE bytes is fine; one byte more is not.
    size_t max = PSB_OBJ_MAX_LINE;
    char *text = malloc(max + 256);
    const char *head = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    const char *tail = "\nf 1 2 3\n";
    size_t at = strlen(head);
    memcpy(text, head, at);
    text[at] = '#';
    memset(text + at + 1, 'x', max - 1);
    memcpy(text + at + max, tail, strlen(tail) + 1);
    psb_mesh m;
    psb_error err;
    CHECK(parse_text(text, &m, &err) == PSB_OK, "a line of %zu bytes: %s", max, err.message);
    psb_mesh_free(&m);
    text[at + max] = 'x';
    memcpy(text + at + max + 1, tail, strlen(tail) + 1);
    check_text_error("long line", text, strlen(text), 4, "line longer than");
    // A huge line with no end at all stops the scan early.
    memset(text + at, ' ', max + 100);
    check_text_error("long unterminated line", text, at + max + 100, 4, "line longer than");
    free(text);

    // Exactly PSB_OBJ_MAX_POLYGON corners are fine; one more is not.
    size_t size = 64 + 8 * (size_t)(PSB_OBJ_MAX_POLYGON + 1);
    text = malloc(size);
    at = (size_t)snprintf(text, size, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf");
    for (int i = 0; i < PSB_OBJ_MAX_POLYGON; i++) {
        at += (size_t)snprintf(text + at, size - at, " %d", i % 3 + 1);
    }
    CHECK(parse_text(text, &m, &err) == PSB_OK, "%d corners: %s", PSB_OBJ_MAX_POLYGON, err.message);
    CHECK(m.triangle_count == PSB_OBJ_MAX_POLYGON - 2, "%d corners: %d triangles",
          PSB_OBJ_MAX_POLYGON, m.triangle_count);
    psb_mesh_free(&m);
    snprintf(text + at, size - at, " 1\n");
    check_text_error("too many corners", text, strlen(text), 4, "face has more than 4096 corners");
    free(text);

    // Line numbers count CR LF lines; a CR is not part of a token.
    const char *crlf = "v 0 0 0\r\nv 1 0 0\r\nv x 0 0\r\nf 1 2 3\r\n";
    check_text_error("crlf", crlf, strlen(crlf), 3, "expected 3 numbers after 'v', got 'x'");
    const char *bare = "v 0 0 0\nv 1 0 0\nv\nf 1 2 3\n";
    check_text_error("bare v", bare, strlen(bare), 3, "expected 3 numbers after 'v', got none");
    const char *junk = "v 0 0 0\nv 1 0 0\nv 0 1 0x\nf 1 2 3\n";
    check_text_error("junk after a number", junk, strlen(junk), 3, "expected 3 numbers");
    const char *exp = "v 0 0 0\nv 1 0 0\nv 0 1 1e\nf 1 2 3\n";
    check_text_error("empty exponent", exp, strlen(exp), 3, "expected 3 numbers");
    const char *dot = "v 0 0 0\nv 1 0 0\nv 0 1 .\nf 1 2 3\n";
    check_text_error("lone point", dot, strlen(dot), 3, "expected 3 numbers");
    const char *infinity = "v 0 0 0\nv 1 0 0\nv 0 1 Infinity\nf 1 2 3\n";
    check_text_error("Infinity", infinity, strlen(infinity), 3, "coordinate 'Infinity'");
    const char *huge = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999999\n";
    check_text_error("huge index", huge, strlen(huge), 4,
                     "face index 99999999999999999999999 out of range");
    const char *del = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 \x7f\n";
    check_text_error("DEL", del, strlen(del), 4, "binary data (byte 0x7f)");
    // The first bad face in the file is the one reported, forward or not.
    const char *first = "f 1 2 7\nf 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 8\n";
    check_text_error("first bad face", first, strlen(first), 1, "face index 7 out of range");

    // A NUL inside a buffer is an error even where a string would end.
    const char nul[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\0";
    check_text_error("NUL at the end", nul, sizeof nul - 1, 5, "binary data (byte 0x00)");

    // Missing files and directories are I/O errors naming the file.
    psb_obj_stats stats;
    psb_status status = psb_obj_parse(PSB_OBJ_CORPUS "/no_such_file.obj", &m, &stats, &err);
    CHECK(status == PSB_ERR_IO && strstr(err.message, "no_such_file.obj: cannot open: "),
          "missing file: %s", err.message);
    CHECK(mesh_is_zero(&m), "missing file: mesh zeroed");
    status = psb_obj_parse(PSB_OBJ_CORPUS, &m, &stats, &err);
    CHECK(status == PSB_ERR_IO && strstr(err.message, PSB_OBJ_CORPUS ": cannot read: "),
          "directory: %s", err.message);
    CHECK(mesh_is_zero(&m), "directory: mesh zeroed");
    status = psb_obj_parse_buffer("text.obj", NULL, 0, &m, NULL, &err);
    CHECK(status == PSB_ERR_PARSE && strcmp(err.message, "text.obj: empty file") == 0,
          "empty buffer: %s", err.message);
}

// The buffer is read only within its size: no terminating NUL needed, and
// the bytes after it never count.
static void test_buffer_bounds(void) {
    const char text[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 39";
    size_t size = sizeof text - 2; // "... f 1 2 3", the '9' lies past the end
    char *exact = malloc(size);    // no NUL: a sanitizer catches any read past it
    memcpy(exact, text, size);
    psb_mesh m;
    psb_error err;
    CHECK(psb_obj_parse_buffer("exact.obj", exact, size, &m, NULL, &err) == PSB_OK,
          "unterminated buffer: %s", err.message);
    CHECK(m.triangle_count == 1 && has_triangle(&m, 0, 0, 1, 2), "unterminated: (0 1 2)");
    psb_mesh_free(&m);
    // Ending inside a number: "v 0 1 0.2" with "5" past the end.
    const char text2[] = "f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0.25";
    size = sizeof text2 - 2;
    char *exact2 = malloc(size);
    memcpy(exact2, text2, size);
    CHECK(psb_obj_parse_buffer("exact.obj", exact2, size, &m, NULL, &err) == PSB_OK,
          "unterminated number: %s", err.message);
    CHECK(m.point_count == 3 && m.points[2].z == 0.2, "unterminated number: z = %g",
          m.point_count == 3 ? m.points[2].z : 0.0);
    psb_mesh_free(&m);
    free(exact);
    free(exact2);
}

// ---------------------------------------------------------------------------
// Numbers

static uint64_t next_random(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

// Writes a number in one of many forms into out.
static void random_number(uint64_t *state, char *out, size_t size) {
    uint64_t r = next_random(state);
    double mantissa = (double)(next_random(state) >> 11) / 9007199254740992.0;
    int scale = (int)(next_random(state) % 41) - 20;
    double value = (r & 1 ? -1.0 : 1.0) * mantissa * pow(10.0, scale);
    switch ((r >> 1) % 10) {
    case 0:
        snprintf(out, size, "%.17g", value);
        break;
    case 1:
        snprintf(out, size, "%.6f", value);
        break;
    case 2:
        snprintf(out, size, "%.3e", value);
        break;
    case 3:
        snprintf(out, size, "%.12E", value * 1e250);
        break;
    case 4:
        snprintf(out, size, "%+.9g", value * 1e-250);
        break;
    case 5:
        snprintf(out, size, "%025.10f", value);
        break;
    case 6:
        snprintf(out, size, "%lld", (long long)((r & 1 ? -1e15 : 1e15) * mantissa));
        break;
    case 7:
        snprintf(out, size, "%.17e", mantissa * 1e300);
        break;
    default: {
        // A digit string with the point anywhere and an exponent.
        size_t at = 0;
        if (r & 64) {
            out[at++] = r & 128 ? '-' : '+';
        }
        int digits = 1 + (int)(next_random(state) % 30);
        int point = (int)(next_random(state) % (uint64_t)(digits + 1));
        for (int i = 0; i < digits; i++) {
            if (i == point) {
                out[at++] = '.';
            }
            out[at++] = (char)('0' + next_random(state) % 10);
        }
        int exponent = (int)(next_random(state) % 540) - 270;
        snprintf(out + at, size - at, "%c%d", r & 256 ? 'e' : 'E', exponent);
        break;
    }
    }
}

// Parses count random numbers as vertex coordinates; compares them with
// strtod in the locale in force when called with reference = NULL, and
// with reference[] otherwise. Returns the parsed values (malloc'd).
static double *check_numbers(const char *what, int count, const double *reference) {
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    size_t size = (size_t)count * 64 + 64;
    char *text = malloc(size);
    char(*numbers)[48] = malloc((size_t)count * sizeof *numbers);
    size_t at = 0;
    for (int i = 0; i < count; i++) {
        random_number(&state, numbers[i], sizeof numbers[i]);
        // An OBJ file has a decimal point whatever printf's locale writes.
        for (char *c = strchr(numbers[i], ','); c; c = strchr(c, ',')) {
            *c = '.';
        }
        if (i % 3 == 0) {
            at += (size_t)snprintf(text + at, size - at, "v");
        }
        at += (size_t)snprintf(text + at, size - at, " %s", numbers[i]);
        if (i % 3 == 2) {
            at += (size_t)snprintf(text + at, size - at, "\n");
        }
    }
    snprintf(text + at, size - at, "f 1 2 3\n");
    psb_mesh m;
    psb_error err;
    psb_status status = parse_text(text, &m, &err);
    CHECK(status == PSB_OK, "%s: %s", what, err.message);
    double *values = calloc((size_t)count, sizeof *values);
    int wrong = 0, exact = 0, short_forms = 0, short_exact = 0;
    for (int i = 0; status == PSB_OK && i < count; i++) {
        const psb_vec3 *p = &m.points[i / 3];
        double got = i % 3 == 0 ? p->x : i % 3 == 1 ? p->y : p->z;
        double want = reference ? reference[i] : strtod(numbers[i], NULL);
        values[i] = got;
        bool close = fabs(got - want) <= 1e-15 * fabs(want) ||
                     (fabs(want) < 1e-300 && fabs(got - want) <= 1e-315);
        if (!close && wrong++ < 5) {
            fprintf(stderr, "%s: '%s' read as %.17g, strtod %.17g\n", what, numbers[i], got, want);
        }
        exact += got == want;
        // Up to 15 significant digits and a small exponent: exactly strtod's.
        if (strlen(numbers[i]) <= 12 && !strchr(numbers[i], 'e') && !strchr(numbers[i], 'E')) {
            short_forms++;
            short_exact += got == want;
        }
    }
    CHECK(wrong == 0, "%s: %d of %d numbers differ from strtod by more than 1e-15", what, wrong,
          count);
    CHECK(short_exact == short_forms, "%s: %d of %d short numbers not exactly strtod's", what,
          short_forms - short_exact, short_forms);
    printf("%s: %d numbers, %d exactly as %s, %d within 1e-15\n", what, count, exact,
           reference ? "in the C locale" : "strtod", count - wrong);
    if (status == PSB_OK) {
        psb_mesh_free(&m);
    }
    free(numbers);
    free(text);
    return values;
}

static void test_numbers(void) {
    const int count = 30000;
    double *in_c = check_numbers("numbers (C locale)", count, NULL);

    // Under a locale that writes 2,5 the parser must still read 2.5.
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8"};
    const char *found = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !found; i++) {
        if (setlocale(LC_NUMERIC, names[i]) && strcmp(localeconv()->decimal_point, ",") == 0) {
            found = names[i];
        }
    }
    if (!found) {
        printf("comma-decimal locale: skipped (none of de_DE.UTF-8, fr_FR.UTF-8 is "
               "installed)\n");
    } else {
        CHECK(strtod("2.5", NULL) == 2.0, "%s: strtod should stop at the point", found);
        double *in_comma = check_numbers("numbers (comma locale)", count, in_c);
        free(in_comma);
        psb_mesh m = load("number_formats.obj", NULL);
        CHECK(m.point_count == 4 && m.points[0].z == 0.5 && m.points[2].y == 1.25,
              "%s: number_formats.obj read differently", found);
        psb_mesh_free(&m);
        printf("comma-decimal locale %s: numbers read as in the C locale\n", found);
    }
    setlocale(LC_NUMERIC, "C");
    free(in_c);
}

int main(void) {
    test_corpus();
    test_triangulation();
    test_large_polygons();
    test_indices_and_positions();
    test_generated_errors();
    test_buffer_bounds();
    test_numbers();
    return check_done("test_obj_parse");
}
