// Shape generators: ring, icosphere, UV sphere, box and torus. Every shell is
// closed and welded (a point shared by several faces is one vertex) and its
// triangles run counter-clockwise seen from outside, so its divergence-theorem
// volume is positive. Each generator checks its parameters first and, on any
// failure, leaves *out zeroed.
#include <psb/psb_mesh.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

static psb_status succeed(psb_error *err) {
    if (err) {
        err->status = PSB_OK;
        err->message[0] = '\0';
    }
    return PSB_OK;
}

static bool positive_finite(double x) {
    return isfinite(x) && x > 0.0;
}

// Allocates out's arrays for `points` points and `triangles` triangles
// (0 = ring, no triangle array). Counts must fit the int indices of psb_mesh.
static psb_status mesh_alloc(psb_mesh *out, psb_body_kind kind, long long points,
                             long long triangles, const char *fn, psb_error *err) {
    if (points > INT_MAX || triangles > INT_MAX / 3) {
        return psb_error_set(
            err, PSB_ERR_INVALID,
            "%s: %lld points and %lld triangles are more than int indices can hold; "
            "use fewer segments",
            fn, points, triangles);
    }
    psb_mesh mesh = {.kind = kind, .point_count = (int)points, .triangle_count = (int)triangles};
    mesh.points = malloc((size_t)points * sizeof *mesh.points);
    if (triangles > 0) {
        mesh.triangles = malloc((size_t)triangles * 3 * sizeof *mesh.triangles);
    }
    if (!mesh.points || (triangles > 0 && !mesh.triangles)) {
        free(mesh.points);
        free(mesh.triangles);
        return psb_error_set(err, PSB_ERR_NOMEM,
                             "%s: out of memory for %lld points and %lld triangles", fn, points,
                             triangles);
    }
    *out = mesh;
    return PSB_OK;
}

// Writes triangle (a, b, c) at t; returns the place for the next one.
static int *put_triangle(int *t, int a, int b, int c) {
    t[0] = a;
    t[1] = b;
    t[2] = c;
    return t + 3;
}

static void free_all(void *a, void *b, void *c, void *d) {
    free(a);
    free(b);
    free(c);
    free(d);
}

static psb_vec3 normalized(psb_vec3 v) {
    double len = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    return (psb_vec3){v.x / len, v.y / len, v.z / len};
}

/// Ring: point i at angle 2 pi i / N from +x, counter-clockwise, z = 0.
psb_status psb_mesh_ring(psb_mesh *out, int points, double radius, psb_error *err) {
    static const char fn[] = "psb_mesh_ring";
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (points < 3) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: points must be >= 3, got %d", fn, points);
    }
    if (!positive_finite(radius)) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: radius must be finite and > 0 m, got %g",
                             fn, radius);
    }
    psb_status status = mesh_alloc(out, PSB_RING, points, 0, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    for (int i = 0; i < points; i++) {
        double angle = 2.0 * pi * i / points;
        out->points[i] = (psb_vec3){radius * cos(angle), radius * sin(angle), 0.0};
    }
    return succeed(err);
}

// One midpoint filed under the smaller end of its edge.
typedef struct edge_mid {
    int other; // the larger end
    int mid;   // the midpoint's vertex index
} edge_mid;

// One icosphere subdivision on the unit sphere: triangle (a, b, c) becomes
// (a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca), each midpoint pushed out
// to radius 1. The mesh is closed and consistently wound, so each undirected
// edge is walked once as a -> b with a < b: that half-edge makes the midpoint
// and files it under a (counting sort by a into `start`/`slots`); its twin
// b -> a finds it in a's short list (at most 6 entries). O(faces).
// Scratch: mid 3 * fcount, start vcount + 1, slots 3 * fcount / 2.
// Returns the new vertex count.
static int subdivide(psb_vec3 *points, int vcount, const int *tris, int fcount, int *new_tris,
                     int *mid, int *start, edge_mid *slots) {
    memset(start, 0, (size_t)(vcount + 1) * sizeof *start);
    for (int h = 0; h < 3 * fcount; h++) {
        int a = tris[h], b = tris[h - h % 3 + (h + 1) % 3];
        if (a < b) {
            start[a + 1]++;
        }
    }
    for (int v = 0; v < vcount; v++) {
        start[v + 1] += start[v];
    }
    // Fill: start[a] walks from a's first slot to a's last + 1 = start[a + 1].
    int next = vcount;
    for (int h = 0; h < 3 * fcount; h++) {
        int a = tris[h], b = tris[h - h % 3 + (h + 1) % 3];
        if (a < b) {
            points[next] = normalized((psb_vec3){
                points[a].x + points[b].x, points[a].y + points[b].y, points[a].z + points[b].z});
            mid[h] = next;
            slots[start[a]++] = (edge_mid){b, next};
            next++;
        }
    }
    for (int v = vcount; v > 0; v--) {
        start[v] = start[v - 1];
    }
    start[0] = 0;
    for (int h = 0; h < 3 * fcount; h++) {
        int a = tris[h], b = tris[h - h % 3 + (h + 1) % 3];
        if (a > b) {
            for (int s = start[b]; s < start[b + 1]; s++) {
                if (slots[s].other == a) {
                    mid[h] = slots[s].mid;
                    break;
                }
            }
        }
    }
    for (int f = 0; f < fcount; f++) {
        const int *t = tris + 3 * f;
        int ab = mid[3 * f], bc = mid[3 * f + 1], ca = mid[3 * f + 2];
        int *n = new_tris + 12 * f;
        n = put_triangle(n, t[0], ab, ca);
        n = put_triangle(n, t[1], bc, ab);
        n = put_triangle(n, t[2], ca, bc);
        put_triangle(n, ab, bc, ca);
    }
    return next;
}

/// Icosphere: icosahedron subdivided `level` times, on a sphere of `radius` m.
/// V = 10 * 4^level + 2, F = 20 * 4^level, E = 30 * 4^level.
psb_status psb_mesh_icosphere(psb_mesh *out, int level, double radius, psb_error *err) {
    static const char fn[] = "psb_mesh_icosphere";
    // The icosahedron's corners (golden ratio t) and its faces, counter-clockwise
    // seen from outside.
    static const double t = 1.61803398874989484820;
    static const double base_points[12][3] = {
        {-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
        {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1},
    };
    static const int base_tris[20][3] = {
        {0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1},
    };
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (level < 0 || level > 8) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: level must be in 0..8, got %d", fn, level);
    }
    if (!positive_finite(radius)) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: radius must be finite and > 0 m, got %g",
                             fn, radius);
    }
    long long scale = 1LL << (2 * level); // 4^level
    long long vcount = 10 * scale + 2, fcount = 20 * scale;
    psb_mesh mesh;
    psb_status status = mesh_alloc(&mesh, PSB_SHELL, vcount, fcount, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    for (int i = 0; i < 12; i++) {
        mesh.points[i] =
            normalized((psb_vec3){base_points[i][0], base_points[i][1], base_points[i][2]});
    }
    memcpy(mesh.triangles, base_tris, sizeof base_tris);
    if (level > 0) {
        // The last subdivision reads fcount / 4 faces and 3 fcount / 8 edges.
        size_t last_f = (size_t)fcount / 4, last_v = (size_t)(vcount - 2) / 4 + 2;
        int *other = malloc((size_t)fcount * 3 * sizeof *other);
        int *mid = malloc(last_f * 3 * sizeof *mid);
        int *start = malloc((last_v + 1) * sizeof *start);
        edge_mid *slots = malloc(last_f * 3 / 2 * sizeof *slots);
        if (!other || !mid || !start || !slots) {
            free_all(other, mid, start, slots);
            psb_mesh_free(&mesh);
            return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory for level %d", fn, level);
        }
        int *cur = mesh.triangles, *dst = other;
        int v = 12, f = 20;
        for (int l = 0; l < level; l++) {
            v = subdivide(mesh.points, v, cur, f, dst, mid, start, slots);
            f *= 4;
            int *swap = cur;
            cur = dst;
            dst = swap;
        }
        if (cur != mesh.triangles) {
            memcpy(mesh.triangles, cur, (size_t)fcount * 3 * sizeof *cur);
        }
        free_all(other, mid, start, slots);
    }
    for (int i = 0; i < mesh.point_count; i++) {
        psb_vec3 *p = &mesh.points[i];
        *p = (psb_vec3){radius * p->x, radius * p->y, radius * p->z};
    }
    *out = mesh;
    return succeed(err);
}

/// UV sphere about the y axis: vertex 0 is the north pole (+y), then
/// stacks - 1 rings of `slices` points (polar angle theta = pi i / stacks,
/// azimuth phi = 2 pi j / slices), then the south pole.
psb_status psb_mesh_uvsphere(psb_mesh *out, int stacks, int slices, double radius, psb_error *err) {
    static const char fn[] = "psb_mesh_uvsphere";
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (stacks < 2) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: stacks must be >= 2, got %d", fn, stacks);
    }
    if (slices < 3) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: slices must be >= 3, got %d", fn, slices);
    }
    if (!positive_finite(radius)) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: radius must be finite and > 0 m, got %g",
                             fn, radius);
    }
    long long rings = stacks - 1;
    if (rings > INT_MAX / slices) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: %d stacks x %d slices: too many points and triangles", fn, stacks,
                             slices);
    }
    psb_mesh mesh;
    psb_status status =
        mesh_alloc(&mesh, PSB_SHELL, rings * slices + 2, 2 * rings * slices, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    int south = mesh.point_count - 1;
    mesh.points[0] = (psb_vec3){0.0, radius, 0.0};
    mesh.points[south] = (psb_vec3){0.0, -radius, 0.0};
    // p = r (sin theta cos phi, cos theta, sin theta sin phi)
    for (int i = 1; i < stacks; i++) {
        double theta = pi * i / stacks;
        for (int j = 0; j < slices; j++) {
            double phi = 2.0 * pi * j / slices;
            mesh.points[1 + (i - 1) * slices + j] =
                (psb_vec3){radius * sin(theta) * cos(phi), radius * cos(theta),
                           radius * sin(theta) * sin(phi)};
        }
    }
    // At (theta, phi) = (pi/2, 0) the outward normal +x = (+phi: +z) x (+theta: -y),
    // so each quad runs (i, j) -> (i, j+1) -> (i+1, j+1) -> (i+1, j).
    int *t = mesh.triangles;
    for (int j = 0; j < slices; j++) {
        int j1 = (j + 1) % slices;
        t = put_triangle(t, 0, 1 + j1, 1 + j);
    }
    for (int i = 1; i < stacks - 1; i++) {
        int row = 1 + (i - 1) * slices, below = row + slices;
        for (int j = 0; j < slices; j++) {
            int j1 = (j + 1) % slices;
            t = put_triangle(t, row + j, row + j1, below + j1);
            t = put_triangle(t, row + j, below + j1, below + j);
        }
    }
    int last = 1 + (stacks - 2) * slices;
    for (int j = 0; j < slices; j++) {
        int j1 = (j + 1) % slices;
        t = put_triangle(t, last + j, last + j1, south);
    }
    *out = mesh;
    return succeed(err);
}

// Vertex index of box lattice point (i, j, k), each in 0..s and at least one
// of them 0 or s. Layer k = 0 and k = s hold (s+1)^2 points each; the s - 1
// layers between hold only their 4 s perimeter points, walked counter-
// clockwise from (0, 0). Total 2 (s+1)^2 + 4 s (s-1) = 6 s^2 + 2.
static int box_index(int s, int i, int j, int k) {
    int layer = (s + 1) * (s + 1);
    if (k == 0) {
        return i * (s + 1) + j;
    }
    if (k == s) {
        return layer + i * (s + 1) + j;
    }
    int ring;
    if (j == 0) {
        ring = i; // 0..s-1 along +x
    } else if (i == s) {
        ring = s + j; // along +y
    } else if (j == s) {
        ring = 2 * s + (s - i); // back along -x
    } else {
        ring = 3 * s + (s - j); // i == 0, back along -y
    }
    return 2 * layer + (k - 1) * 4 * s + ring;
}

/// Box [-half, half], each face a segments x segments grid of squares, two
/// triangles each; edge and corner points are shared by the faces that meet there.
psb_status psb_mesh_box(psb_mesh *out, int segments, psb_vec3 half, psb_error *err) {
    static const char fn[] = "psb_mesh_box";
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (segments < 1) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: segments must be >= 1, got %d", fn,
                             segments);
    }
    if (segments > 100000) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: segments must be <= 100000, got %d", fn,
                             segments);
    }
    const double h[3] = {half.x, half.y, half.z};
    static const char *const names[3] = {"half.x", "half.y", "half.z"};
    for (int a = 0; a < 3; a++) {
        if (!positive_finite(h[a])) {
            return psb_error_set(err, PSB_ERR_INVALID, "%s: %s must be finite and > 0 m, got %g",
                                 fn, names[a], h[a]);
        }
    }
    long long s = segments;
    psb_mesh mesh;
    psb_status status = mesh_alloc(&mesh, PSB_SHELL, 6 * s * s + 2, 12 * s * s, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    int *t = mesh.triangles;
    for (int face = 0; face < 6; face++) {
        // Normal along axis a, sign +1 or -1; tangents (u, v) with u x v = normal:
        // e_b x e_c = e_a for (a, b, c) cyclic, and e_c x e_b = -e_a.
        int a = face / 2, sign = face % 2 ? -1 : 1;
        int b = (a + 1) % 3, c = (a + 2) % 3;
        int u = sign > 0 ? b : c, v = sign > 0 ? c : b;
        int corner[4];
        for (int iu = 0; iu < segments; iu++) {
            for (int iv = 0; iv < segments; iv++) {
                // Quad (iu, iv) -> (iu+1, iv) -> (iu+1, iv+1) -> (iu, iv+1).
                static const int du[4] = {0, 1, 1, 0}, dv[4] = {0, 0, 1, 1};
                for (int q = 0; q < 4; q++) {
                    int l[3];
                    l[a] = sign > 0 ? segments : 0;
                    l[u] = iu + du[q];
                    l[v] = iv + dv[q];
                    int index = box_index(segments, l[0], l[1], l[2]);
                    // x = h (2 i - s) / s: exactly -h, 0 and h at i = 0, s/2, s.
                    double x[3];
                    for (int d = 0; d < 3; d++) {
                        x[d] = (double)(2 * l[d] - segments) / segments * h[d];
                    }
                    mesh.points[index] = (psb_vec3){x[0], x[1], x[2]};
                    corner[q] = index;
                }
                t = put_triangle(t, corner[0], corner[1], corner[2]);
                t = put_triangle(t, corner[0], corner[2], corner[3]);
            }
        }
    }
    *out = mesh;
    return succeed(err);
}

/// Torus about the y axis: point (i, j) at phi = 2 pi i / major around y and
/// theta = 2 pi j / minor around the tube, index i * minor + j.
psb_status psb_mesh_torus(psb_mesh *out, int major, int minor, double major_radius,
                          double minor_radius, psb_error *err) {
    static const char fn[] = "psb_mesh_torus";
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (major < 3) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: major (segments around the ring) must be >= 3, got %d", fn,
                             major);
    }
    if (minor < 3) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: minor (segments around the tube) must be >= 3, got %d", fn,
                             minor);
    }
    if (!positive_finite(major_radius)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: major_radius must be finite and > 0 m, got %g", fn, major_radius);
    }
    if (!positive_finite(minor_radius)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: minor_radius must be finite and > 0 m, got %g", fn, minor_radius);
    }
    if (minor_radius >= major_radius) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: minor_radius (%g m) must be < major_radius (%g m)", fn,
                             minor_radius, major_radius);
    }
    long long n = (long long)major * minor;
    psb_mesh mesh;
    psb_status status = mesh_alloc(&mesh, PSB_SHELL, n, 2 * n, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    // p = ((R + r cos theta) cos phi, r sin theta, (R + r cos theta) sin phi)
    for (int i = 0; i < major; i++) {
        double phi = 2.0 * pi * i / major;
        for (int j = 0; j < minor; j++) {
            double theta = 2.0 * pi * j / minor;
            double rho = major_radius + minor_radius * cos(theta);
            mesh.points[i * minor + j] =
                (psb_vec3){rho * cos(phi), minor_radius * sin(theta), rho * sin(phi)};
        }
    }
    // At phi = theta = 0 the outward normal +x = (+theta: +y) x (+phi: +z), so
    // each quad runs (i, j) -> (i, j+1) -> (i+1, j+1) -> (i+1, j).
    int *t = mesh.triangles;
    for (int i = 0; i < major; i++) {
        int i1 = (i + 1) % major;
        for (int j = 0; j < minor; j++) {
            int j1 = (j + 1) % minor;
            int p00 = i * minor + j, p01 = i * minor + j1;
            int p11 = i1 * minor + j1, p10 = i1 * minor + j;
            t = put_triangle(t, p00, p01, p11);
            t = put_triangle(t, p00, p11, p10);
        }
    }
    *out = mesh;
    return succeed(err);
}

/// Square outline: `points` / 4 points per side, counter-clockwise from the
/// corner (half, -half).
psb_status psb_mesh_square_ring(psb_mesh *out, int points, double half, psb_error *err) {
    static const char fn[] = "psb_mesh_square_ring";
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (points < 4 || points % 4 != 0) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: points must be a multiple of 4 and >= 4, got %d", fn, points);
    }
    if (!positive_finite(half)) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: half must be finite and > 0 m, got %g", fn,
                             half);
    }
    psb_status status = mesh_alloc(out, PSB_RING, points, 0, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    const int side = points / 4;
    // Each side from its start corner toward the next, counter-clockwise.
    const double corner[4][2] = {{half, -half}, {half, half}, {-half, half}, {-half, -half}};
    for (int s = 0; s < 4; s++) {
        const double *a = corner[s], *b = corner[(s + 1) % 4];
        for (int k = 0; k < side; k++) {
            const double t = (double)k / side;
            out->points[s * side + k] =
                (psb_vec3){a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), 0.0};
        }
    }
    return succeed(err);
}

psb_status psb_mesh_cloth(psb_mesh *out, int columns, int rows, double width, double height,
                          psb_error *err) {
    static const char fn[] = "psb_mesh_cloth";
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (columns < 2 || rows < 2 || columns > 4096 || rows > 4096) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: columns and rows must be in 2..4096, got %d and %d", fn, columns,
                             rows);
    }
    if (!positive_finite(width) || !positive_finite(height)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: width and height must be finite and > 0 m, got %g and %g", fn,
                             width, height);
    }
    const int squares = (columns - 1) * (rows - 1);
    psb_status status =
        mesh_alloc(out, PSB_CLOTH, (long long)columns * rows, 2LL * squares, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    // Extra springs: the second diagonal of each square, and bend springs
    // two apart along rows and columns.
    const int extra = squares + rows * (columns - 2) + columns * (rows - 2);
    out->kind = PSB_CLOTH;
    out->springs = malloc((size_t)(extra > 0 ? extra : 1) * 2 * sizeof *out->springs);
    if (!out->springs) {
        psb_mesh_free(out);
        return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory for %d springs", fn, extra);
    }
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < columns; c++) {
            out->points[r * columns + c] =
                (psb_vec3){width * c / (columns - 1), -height * r / (rows - 1), 0.0};
        }
    }
    int *t = out->triangles, *s = out->springs;
    for (int r = 0; r + 1 < rows; r++) {
        for (int c = 0; c + 1 < columns; c++) {
            const int a = r * columns + c, b = a + 1, d = a + columns, e = d + 1;
            // a b      (row r, y higher)
            // d e      counter-clockwise seen from +z: a d e, a e b
            t = put_triangle(t, a, d, e);
            t = put_triangle(t, a, e, b);
            *s++ = b;
            *s++ = d;
        }
    }
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c + 2 < columns; c++) {
            *s++ = r * columns + c;
            *s++ = r * columns + c + 2;
        }
    }
    for (int r = 0; r + 2 < rows; r++) {
        for (int c = 0; c < columns; c++) {
            *s++ = r * columns + c;
            *s++ = (r + 2) * columns + c;
        }
    }
    out->spring_count = extra;
    return succeed(err);
}
