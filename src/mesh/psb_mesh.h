// psb mesh: closed, welded, outward-facing surfaces for bodies, and a
// topology report that says what is wrong when a surface is not closed.
#ifndef PSB_MESH_H
#define PSB_MESH_H

#include "psb.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A surface: a ring (closed polyline, points in order, counter-clockwise in
/// the x-y plane), a triangle mesh (3 indices per triangle, counter-clockwise
/// seen from outside) or a cloth (triangles wound alike, plus springs that
/// are no triangle's edge). Owns its arrays; free with psb_mesh_free().
typedef struct psb_mesh {
    psb_body_kind kind; ///< PSB_RING, PSB_SHELL or PSB_CLOTH
    psb_vec3 *points;   ///< positions, m
    int point_count;
    int *triangles; ///< shell, cloth: 3 per triangle; ring: NULL
    int triangle_count;
    int *springs; ///< cloth: 2 point indices per extra spring; else NULL
    int spring_count;
} psb_mesh;

/// Ring of `points` points (>= 3) on a circle of `radius` m about the origin.
psb_status psb_mesh_ring(psb_mesh *out, int points, double radius, psb_error *err);

/// Ring of `points` points (>= 4, a multiple of 4) evenly spaced along the
/// outline of a square of half side `half` m about the origin,
/// counter-clockwise: a 2D body that is not round at rest.
psb_status psb_mesh_square_ring(psb_mesh *out, int points, double half, psb_error *err);

/// A rectangular cloth (PSB_CLOTH) of `columns` x `rows` points (>= 2 each)
/// in the x-y plane, x from 0 to width and y from 0 down to -height (m),
/// point r * columns + c at column c of row r (row 0 on top). Two triangles
/// per square (wound toward +z), and the springs of a mass-spring cloth:
/// structural (to the right and below: the triangles' edges), shear (both
/// diagonals: one is a triangle edge, the other in springs) and bend (two
/// points to the right and two below).
psb_status psb_mesh_cloth(psb_mesh *out, int columns, int rows, double width, double height,
                          psb_error *err);

/// Icosphere: the icosahedron subdivided `level` times (0..8), projected on a
/// sphere of `radius` m. Vertices: 10 * 4^level + 2 (12, 42, 162, 642, ...).
psb_status psb_mesh_icosphere(psb_mesh *out, int level, double radius, psb_error *err);

/// Latitude-longitude sphere: `stacks` bands (>= 2) from pole to pole and
/// `slices` segments (>= 3) around; one vertex at each pole.
psb_status psb_mesh_uvsphere(psb_mesh *out, int stacks, int slices, double radius, psb_error *err);

/// Box with half sizes `half` (m), each face split into `segments` x
/// `segments` squares (>= 1), two triangles each.
psb_status psb_mesh_box(psb_mesh *out, int segments, psb_vec3 half, psb_error *err);

/// Torus about the y axis: `major` segments (>= 3) around the ring of radius
/// `major_radius`, `minor` (>= 3) around the tube of radius `minor_radius`
/// (0 < minor_radius < major_radius). Genus 1.
psb_status psb_mesh_torus(psb_mesh *out, int major, int minor, double major_radius,
                          double minor_radius, psb_error *err);

/// Frees the arrays and zeroes the struct. Safe on a zeroed struct.
void psb_mesh_free(psb_mesh *mesh);

/// A body definition that points at the mesh's arrays (valid while the mesh
/// lives), with the default material.
psb_body_def psb_mesh_body_def(const psb_mesh *mesh);

/// What a surface is made of, and whether it can hold gas.
typedef struct psb_topology {
    int vertices;              ///< points (all of them, used or not)
    int faces;                 ///< triangles (0 for a ring)
    int edges;                 ///< unique undirected edges
    int border_edges;          ///< edges used by one face only
    int holes;                 ///< boundary loops the border edges form
    int nonmanifold_edges;     ///< edges used by three or more faces
    int orientation_conflicts; ///< edges walked in the same direction by two faces
    int unused_vertices;       ///< points no face (or ring edge) uses
    int components;            ///< connected pieces (by shared vertices)
    int euler;                 ///< V - E + F over the used vertices
    int genus;                 ///< sum over components of (2 - chi) / 2; -1 if not closed
    double volume;             ///< signed volume (2D: area), m³
    bool oriented;             ///< no orientation conflicts
    bool closed;               ///< no border or non-manifold edges, oriented, volume > 0
} psb_topology;

/// Builds the report. Allocates scratch (freed before return); PSB_ERR_NOMEM
/// is the only failure.
psb_status psb_mesh_topology(const psb_mesh *mesh, psb_topology *out, psb_error *err);

/// Signed volume by the divergence theorem, V = 1/6 sum x_a . (x_b x x_c),
/// or for a ring the signed shoelace area. m³ (m²).
double psb_mesh_volume(const psb_mesh *mesh);

#ifdef __cplusplus
}
#endif

#endif
