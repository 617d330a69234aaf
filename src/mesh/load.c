// Loading an OBJ file for simulation: parse, repair, check, split into one
// closed, outward mesh per connected component, and refuse what cannot hold
// gas with a message that names the file and says what is wrong and where.
#include "mesh_internal.h"
#include <psb/psb_obj.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_parts(psb_mesh *parts, int count) {
    for (int i = 0; parts && i < count; i++) {
        psb_mesh_free(&parts[i]);
    }
    free(parts);
}

static psb_status split_ring(const psb_mesh *mesh, psb_mesh **parts, int *count, psb_error *err) {
    psb_mesh *part = calloc(1, sizeof *part);
    size_t n = (size_t)mesh->point_count;
    psb_vec3 *points = malloc((n > 0 ? n : 1) * sizeof *points);
    if (!part || !points) {
        free(part);
        free(points);
        return psb_error_set(err, PSB_ERR_NOMEM, "psb_mesh_split: out of memory for %zu points", n);
    }
    if (n > 0) {
        memcpy(points, mesh->points, n * sizeof *points);
    }
    *part = (psb_mesh){.kind = PSB_RING, .points = points, .point_count = mesh->point_count};
    *parts = part;
    *count = 1;
    return PSB_OK;
}

/// Splits a shell into one mesh per connected component (triangles sharing a
/// point belong together), in order of each component's first triangle, each
/// with its points renumbered in order of first use (points no triangle uses
/// are left out). A ring gives one copy of itself.
psb_status psb_mesh_split(const psb_mesh *mesh, psb_mesh **parts, int *count, psb_error *err) {
    static const char fn[] = "psb_mesh_split";
    if (!parts || !count) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: parts and count must not be NULL", fn);
    }
    *parts = NULL;
    *count = 0;
    psb_status status = psb_mesh_check_arrays(mesh, fn, err);
    if (status != PSB_OK) {
        return status;
    }
    if (mesh->kind == PSB_RING) {
        return split_ring(mesh, parts, count, err);
    }
    int n = mesh->point_count, m = mesh->triangle_count;
    const int *tris = mesh->triangles;
    size_t nv = (size_t)(n > 0 ? n : 1);
    int *parent = malloc(nv * sizeof *parent);
    int *local = malloc(nv * sizeof *local);     // index of each point in its part, -1: unused
    int *part_of = malloc(nv * sizeof *part_of); // part of each root, -1: none yet
    if (!parent || !local || !part_of) {
        free(parent);
        free(local);
        free(part_of);
        return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory for %d points", fn, n);
    }
    for (int v = 0; v < n; v++) {
        parent[v] = v;
        local[v] = -1;
        part_of[v] = -1;
    }
    for (int i = 0; i < 3 * m; i++) {
        unite_min(parent, tris[i], tris[i - i % 3]);
    }
    int k = 0;
    for (int f = 0; f < m; f++) {
        int root = find_root(parent, tris[3 * f]);
        if (part_of[root] < 0) {
            part_of[root] = k++;
        }
    }
    psb_mesh *out = calloc((size_t)(k > 0 ? k : 1), sizeof *out);
    bool ok = out != NULL;
    // Count each part's points (in order of first use) and triangles.
    for (int f = 0; ok && f < m; f++) {
        psb_mesh *part = &out[part_of[find_root(parent, tris[3 * f])]];
        part->triangle_count++;
        for (int c = 0; c < 3; c++) {
            if (local[tris[3 * f + c]] < 0) {
                local[tris[3 * f + c]] = part->point_count++;
            }
        }
    }
    for (int p = 0; ok && p < k; p++) {
        out[p].kind = PSB_SHELL;
        out[p].points = malloc((size_t)out[p].point_count * sizeof *out[p].points);
        out[p].triangles = malloc((size_t)out[p].triangle_count * 3 * sizeof *out[p].triangles);
        ok = out[p].points && out[p].triangles;
        out[p].triangle_count = 0; // refilled below
    }
    for (int f = 0; ok && f < m; f++) {
        psb_mesh *part = &out[part_of[find_root(parent, tris[3 * f])]];
        for (int c = 0; c < 3; c++) {
            int v = tris[3 * f + c];
            part->points[local[v]] = mesh->points[v];
            part->triangles[3 * part->triangle_count + c] = local[v];
        }
        part->triangle_count++;
    }
    free(parent);
    free(local);
    free(part_of);
    if (!ok) {
        free_parts(out, k);
        return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory for %d parts of %d triangles",
                             fn, k, m);
    }
    if (k == 0) {
        free(out);
        out = NULL;
    }
    *parts = out;
    *count = k;
    if (err) {
        err->status = PSB_OK;
        err->message[0] = '\0';
    }
    return PSB_OK;
}

// ---------------------------------------------------------------------------
// Where the mesh is wrong

// One half-edge, for finding an example of a bad edge by sorting.
typedef struct edge_use {
    int lo, hi;  // ends, lo < hi
    int forward; // 1 if walked lo -> hi
} edge_use;

static int compare_uses(const void *pa, const void *pb) {
    const edge_use *a = pa, *b = pb;
    if (a->lo != b->lo) {
        return a->lo < b->lo ? -1 : 1;
    }
    if (a->hi != b->hi) {
        return a->hi < b->hi ? -1 : 1;
    }
    return (a->forward > b->forward) - (a->forward < b->forward);
}

// The first edge (lowest ends) used by 3 or more faces (nonmanifold) or
// walked twice the same way (otherwise). Only run on the way to an error, so
// a sort is fine. False if there is none or memory ran out.
static bool find_bad_edge(const psb_mesh *mesh, bool nonmanifold, int *lo, int *hi) {
    int hcount = 3 * mesh->triangle_count;
    edge_use *uses = malloc((size_t)(hcount > 0 ? hcount : 1) * sizeof *uses);
    if (!uses) {
        return false;
    }
    for (int h = 0; h < hcount; h++) {
        int a = mesh->triangles[h], b = mesh->triangles[h - h % 3 + (h + 1) % 3];
        uses[h] = (edge_use){a < b ? a : b, a < b ? b : a, a < b};
    }
    qsort(uses, (size_t)hcount, sizeof *uses, compare_uses);
    bool found = false;
    for (int i = 0; i < hcount && !found;) {
        int j = i, forward = 0;
        while (j < hcount && uses[j].lo == uses[i].lo && uses[j].hi == uses[i].hi) {
            forward += uses[j++].forward;
        }
        int count = j - i;
        found = nonmanifold ? count >= 3 : forward >= 2 || count - forward >= 2;
        if (found) {
            *lo = uses[i].lo;
            *hi = uses[i].hi;
        }
        i = j;
    }
    free(uses);
    return found;
}

// Appends to a message, "; " between the parts.
static void append(char *buffer, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void append(char *buffer, size_t size, const char *fmt, ...) {
    size_t used = strlen(buffer);
    if (used > 0 && used + 2 < size) {
        memcpy(buffer + used, "; ", 3);
        used += 2;
    }
    if (used + 1 >= size) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(buffer + used, size - used, fmt, args);
    va_end(args);
}

// Appends "e.g. between points at (x, y, z) and (x, y, z)" for an example edge.
static void append_where(char *buffer, size_t size, const psb_mesh *mesh, bool nonmanifold) {
    int lo, hi;
    if (find_bad_edge(mesh, nonmanifold, &lo, &hi)) {
        psb_vec3 a = mesh->points[lo], b = mesh->points[hi];
        size_t used = strlen(buffer);
        snprintf(buffer + used, size - used,
                 ", e.g. between points at (%.6g, %.6g, %.6g) and (%.6g, %.6g, %.6g)", a.x, a.y,
                 a.z, b.x, b.y, b.z);
    }
}

static const char *plural(int n) {
    return n == 1 ? "" : "s";
}

// Everything that keeps the whole mesh from holding gas, in one message
// (empty if nothing): non-manifold edges, holes, orientation conflicts, and
// when the surface is otherwise closed, a volume that is not positive.
static void describe_problems(const psb_mesh *mesh, const psb_topology *t,
                              const psb_repair_options *o, char *buffer, size_t size) {
    buffer[0] = '\0';
    if (t->nonmanifold_edges > 0) {
        append(buffer, size, "%d non-manifold edge%s (used by 3 or more faces)",
               t->nonmanifold_edges, plural(t->nonmanifold_edges));
        append_where(buffer, size, mesh, true);
    }
    if (t->border_edges > 0) {
        append(buffer, size, "the mesh is %s: %d hole%s, %d border edge%s%s",
               o->fill_holes ? "still open after filling holes" : "open", t->holes,
               plural(t->holes), t->border_edges, plural(t->border_edges),
               o->fill_holes ? "" : "; use --fill-holes to close them");
    }
    if (t->orientation_conflicts > 0) {
        append(buffer, size, "%d orientation conflict%s (edges walked the same way by two faces)",
               t->orientation_conflicts, plural(t->orientation_conflicts));
        append_where(buffer, size, mesh, false);
        if (!o->fix_orientation && t->nonmanifold_edges == 0) {
            append(buffer, size, "turn on orientation repair to make the faces agree");
        }
    }
    if (buffer[0] == '\0' && !(t->volume > 0.0)) {
        append(buffer, size, "the mesh encloses %s (volume %g m^3)%s",
               t->volume < 0.0 ? "a negative volume: it is inside out" : "no volume", t->volume,
               t->volume < 0.0 && !o->fix_orientation
                   ? "; turn on orientation repair to turn it outward"
                   : "");
    }
}

// Checks each component's volume. The whole mesh has passed the edge checks,
// and no edge joins two components, so each one is closed; but with
// orientation repair off, one of them can still be inside out, or a sheet of
// no thickness that encloses nothing.
static psb_status check_parts(const char *path, const psb_mesh *parts, int count, psb_error *err) {
    for (int p = 0; p < count; p++) {
        double volume = psb_mesh_volume(&parts[p]);
        if (!(volume > 0.0)) {
            return psb_error_set(err, PSB_ERR_TOPOLOGY,
                                 "%s: component %d of %d (%d points, %d triangles) encloses %s "
                                 "(volume %g m^3)",
                                 path, p + 1, count, parts[p].point_count, parts[p].triangle_count,
                                 volume < 0.0 ? "a negative volume: it is inside out" : "no volume",
                                 volume);
        }
    }
    return PSB_OK;
}

// Repair (without the fit), the checks, the fit, the split: everything after
// parsing. On failure *mesh is still the caller's to free.
static psb_status load_mesh(const char *path, psb_mesh *mesh, const psb_repair_options *o,
                            psb_mesh **parts, int *count, psb_repair_report *report,
                            psb_error *err) {
    // The fit comes after the checks, so that the places in their messages
    // are in the file's own coordinates.
    psb_repair_options repair = *o;
    repair.fit_radius = 0.0;
    psb_status status = psb_mesh_repair(mesh, &repair, report, err);
    if (status != PSB_OK) {
        return status;
    }
    if (mesh->triangle_count == 0) {
        return psb_error_set(err, PSB_ERR_TOPOLOGY,
                             "%s: no triangles left after repair (%d degenerate and %d duplicate "
                             "triangles dropped)",
                             path, report->degenerate_dropped, report->duplicates_dropped);
    }
    psb_topology t;
    status = psb_mesh_topology(mesh, &t, err);
    if (status != PSB_OK) {
        return status;
    }
    char problems[sizeof err->message];
    describe_problems(mesh, &t, o, problems, sizeof problems);
    if (problems[0] != '\0') {
        return psb_error_set(err, PSB_ERR_TOPOLOGY, "%s: %s", path, problems);
    }
    if (o->fit_radius > 0.0) {
        psb_repair_options fit = {.fit_radius = o->fit_radius};
        psb_repair_report fitted;
        status = psb_mesh_repair(mesh, &fit, &fitted, err);
        if (status != PSB_OK) {
            return status;
        }
        report->fit_scale = fitted.fit_scale;
    }
    status = psb_mesh_split(mesh, parts, count, err);
    if (status != PSB_OK) {
        return status;
    }
    status = check_parts(path, *parts, *count, err);
    if (status != PSB_OK) {
        free_parts(*parts, *count);
        *parts = NULL;
        *count = 0;
    }
    return status;
}

/// Loads an OBJ file for simulation; see psb_obj.h. The report says what the
/// repair did even when the mesh is then refused (zeroed if parsing failed).
psb_status psb_mesh_load_obj(const char *path, const psb_repair_options *options, psb_mesh **parts,
                             int *count, psb_repair_report *report, psb_obj_stats *stats,
                             psb_error *err) {
    static const char fn[] = "psb_mesh_load_obj";
    psb_repair_report r = {.fit_scale = 1.0};
    if (report) {
        *report = r;
    }
    if (!parts || !count) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: parts and count must not be NULL", fn);
    }
    *parts = NULL;
    *count = 0;
    if (!path) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: path is NULL", fn);
    }
    psb_repair_options o = options ? *options : psb_default_repair_options();
    psb_mesh mesh = {0};
    psb_status status = psb_obj_parse(path, &mesh, stats, err);
    if (status == PSB_OK) {
        status = load_mesh(path, &mesh, &o, parts, count, &r, err);
    }
    psb_mesh_free(&mesh);
    if (report) {
        *report = r;
    }
    if (status == PSB_OK && err) {
        err->status = PSB_OK;
        err->message[0] = '\0';
    }
    return status;
}
