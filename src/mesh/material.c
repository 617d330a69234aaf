// The default material of a loaded mesh: a gas amount from its weight and
// footprint, and a spring stiffness from the tension that gas makes.
#include <psb/psb_mesh.h>

#include <math.h>

#include "mesh_internal.h"

static psb_vec3 sub(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

static double dot(psb_vec3 a, psb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static psb_vec3 cross(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

psb_status psb_mesh_default_material(const psb_mesh *mesh, double mass, double gravity,
                                     psb_mesh_material *out, psb_error *err) {
    psb_status status = psb_mesh_check_arrays(mesh, "psb_mesh_default_material", err);
    if (status != PSB_OK) {
        return status;
    }
    if (mesh->kind != PSB_SHELL) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "psb_mesh_default_material: the mesh is not a shell (closed "
                             "triangle mesh)");
    }
    if (!(mass > 0.0 && isfinite(mass)) || !isfinite(gravity)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "psb_mesh_default_material: mass %g kg must be > 0 and gravity "
                             "%g m/s² finite",
                             mass, gravity);
    }
    if (mesh->point_count < 4 || mesh->triangle_count < 4) {
        return psb_error_set(err, PSB_ERR_TOPOLOGY,
                             "psb_mesh_default_material: %d points and %d triangles enclose no "
                             "volume: a closed mesh has at least 4 of each",
                             mesh->point_count, mesh->triangle_count);
    }
    psb_mesh_material m = {0};
    // R: the bounding sphere about the bounding box's centre, as --fit makes it.
    psb_vec3 lo = mesh->points[0], hi = mesh->points[0];
    for (int i = 1; i < mesh->point_count; i++) {
        const psb_vec3 p = mesh->points[i];
        lo = (psb_vec3){fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z)};
        hi = (psb_vec3){fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z)};
    }
    const psb_vec3 centre = {0.5 * (lo.x + hi.x), 0.5 * (lo.y + hi.y), 0.5 * (lo.z + hi.z)};
    double r2 = 0.0;
    for (int i = 0; i < mesh->point_count; i++) {
        const psb_vec3 d = sub(mesh->points[i], centre);
        r2 = fmax(r2, dot(d, d));
    }
    m.radius = sqrt(r2);
    // Per triangle: the area vector A n = (b - a) x (c - a) / 2, its length
    // (the area), its y part (the floor's normal), and the squared lengths of
    // its edges: on a closed mesh every edge (spring) is in two triangles,
    // so the springs' sum of L0² is half the triangles' sum.
    double down = 0.0, edges = 0.0;
    for (int t = 0; t < mesh->triangle_count; t++) {
        const int *tri = &mesh->triangles[3 * t];
        const psb_vec3 a = mesh->points[tri[0]], b = mesh->points[tri[1]], c = mesh->points[tri[2]];
        const psb_vec3 ab = sub(b, a), bc = sub(c, b), ca = sub(a, c);
        const psb_vec3 an = cross(ab, sub(c, a));
        m.area += 0.5 * sqrt(dot(an, an));
        down += 0.5 * fabs(an.y);
        edges += dot(ab, ab) + dot(bc, bc) + dot(ca, ca);
    }
    // Over a closed surface the y parts cancel: the downward-facing half of
    // sum |A_y| is the surface's projection on the floor, each layer counted.
    m.footprint = 0.5 * down;
    m.edge_length_sq = 0.5 * edges;
    m.rest_volume = psb_mesh_volume(mesh);
    if (!(m.footprint > 0.0 && m.edge_length_sq > 0.0 && m.rest_volume > 0.0 &&
          isfinite(m.footprint + m.edge_length_sq + m.rest_volume + m.area + m.radius))) {
        return psb_error_set(err, PSB_ERR_TOPOLOGY,
                             "psb_mesh_default_material: the mesh encloses no volume (%g m³, "
                             "footprint %g m²): it cannot hold gas",
                             m.rest_volume, m.footprint);
    }
    const double g = gravity != 0.0 ? fabs(gravity) : PSB_MESH_REFERENCE_GRAVITY;
    // P A_down = K m g: the gas pushing on the lower half carries K weights.
    m.pressure = PSB_MESH_WEIGHT_MULTIPLE * mass * g / m.footprint;
    m.gas_nrt = m.pressure * m.rest_volume;
    // A sphere of radius R at pressure P has the membrane tension T = P R / 2
    // (N/m). The springs stretched evenly by a strain e store
    // E = 1/2 ks e² sum L0², and dE = T dS with dS = 2 S de, so their tension
    // is T = ks e sum L0² / (2 S). Equal at e = PSB_MESH_DESIGN_STRAIN:
    // ks = P R S / (e sum L0²). (On a sphere P R S = 3 P V: the shell
    // equilibrium ks e sum L0² = 3 nRT of DESIGN.md, to first order in e.)
    m.spring_k = m.pressure * m.radius * m.area / (PSB_MESH_DESIGN_STRAIN * m.edge_length_sq);
    *out = m;
    return PSB_OK;
}
