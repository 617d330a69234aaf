// Mesh ownership, body definitions and the signed volume.
#include <psb/psb_mesh.h>

#include <limits.h>
#include <stdlib.h>

#include "mesh_internal.h"

/// Frees the arrays and zeroes the struct. Safe on NULL and on a zeroed struct.
void psb_mesh_free(psb_mesh *mesh) {
    if (!mesh) {
        return;
    }
    free(mesh->points);
    free(mesh->triangles);
    free(mesh->springs);
    *mesh = (psb_mesh){0};
}

/// The default body definition, pointing at the mesh's arrays (not copied
/// here; psb_world_add_body copies them), with the default gas for its kind.
psb_body_def psb_mesh_body_def(const psb_mesh *mesh) {
    psb_body_def def = psb_default_body_def();
    if (mesh) {
        def.kind = mesh->kind;
        def.points = mesh->points;
        def.point_count = mesh->point_count;
        def.triangles = mesh->kind != PSB_RING ? mesh->triangles : NULL;
        def.triangle_count = mesh->kind != PSB_RING ? mesh->triangle_count : 0;
        def.springs = mesh->kind == PSB_CLOTH ? mesh->springs : NULL;
        def.spring_count = mesh->kind == PSB_CLOTH ? mesh->spring_count : 0;
        def.params.gas_nrt = psb_default_gas_nrt(mesh->kind);
    }
    return def;
}

/// Signed volume, m³ (ring: signed area, m²). Positive for an outward-wound
/// shell or a counter-clockwise ring. Triangles with an index out of range are
/// skipped; NULL arrays count as empty.
double psb_mesh_volume(const psb_mesh *mesh) {
    if (!mesh || !mesh->points || mesh->point_count <= 0) {
        return 0.0;
    }
    const psb_vec3 *p = mesh->points;
    int n = mesh->point_count;
    // About the first point, as the core measures bodies: the same value on
    // a closed surface, without cancellation far from the origin.
    const psb_vec3 o = p[0];
    double sum = 0.0;
    if (mesh->kind == PSB_RING) {
        // Shoelace: A = 1/2 sum (x_i y_{i+1} - x_{i+1} y_i)
        for (int i = 0; i < n; i++) {
            const psb_vec3 *a = &p[i], *b = &p[(i + 1) % n];
            sum += (a->x - o.x) * (b->y - o.y) - (b->x - o.x) * (a->y - o.y);
        }
        return 0.5 * sum;
    }
    if (!mesh->triangles) {
        return 0.0;
    }
    // Divergence theorem: V = 1/6 sum over faces x_a . (x_b x x_c)
    for (int f = 0; f < mesh->triangle_count; f++) {
        const int *t = mesh->triangles + 3 * f;
        if (t[0] < 0 || t[0] >= n || t[1] < 0 || t[1] >= n || t[2] < 0 || t[2] >= n) {
            continue;
        }
        const psb_vec3 a = {p[t[0]].x - o.x, p[t[0]].y - o.y, p[t[0]].z - o.z};
        const psb_vec3 b = {p[t[1]].x - o.x, p[t[1]].y - o.y, p[t[1]].z - o.z};
        const psb_vec3 c = {p[t[2]].x - o.x, p[t[2]].y - o.y, p[t[2]].z - o.z};
        sum += a.x * (b.y * c.z - b.z * c.y) + a.y * (b.z * c.x - b.x * c.z) +
               a.z * (b.x * c.y - b.y * c.x);
    }
    return sum / 6.0;
}

psb_status psb_mesh_check_arrays(const psb_mesh *mesh, const char *fn, psb_error *err) {
    if (!mesh) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: mesh is NULL", fn);
    }
    if (mesh->kind != PSB_RING && mesh->kind != PSB_SHELL) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: kind must be PSB_RING or PSB_SHELL, got %d",
                             fn, (int)mesh->kind);
    }
    int n = mesh->point_count, m = mesh->kind == PSB_SHELL ? mesh->triangle_count : 0;
    if (n < 0 || (n > 0 && !mesh->points) || m < 0 || m > INT_MAX / 3 ||
        (m > 0 && !mesh->triangles)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "%s: %d points and %d triangles with arrays %s/%s; expected counts "
                             ">= 0 and arrays for nonzero counts",
                             fn, n, m, mesh->points ? "set" : "NULL",
                             mesh->triangles ? "set" : "NULL");
    }
    for (int i = 0; i < 3 * m; i++) {
        if (mesh->triangles[i] < 0 || mesh->triangles[i] >= n) {
            return psb_error_set(err, PSB_ERR_INVALID,
                                 "%s: triangle %d corner %d is point %d; expected 0..%d", fn, i / 3,
                                 i % 3, mesh->triangles[i], n - 1);
        }
    }
    return PSB_OK;
}
