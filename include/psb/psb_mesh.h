// psb mesh: closed, welded, outward-facing surfaces for bodies, and a
// topology report that says what is wrong when a surface is not closed.
#ifndef PSB_MESH_H
#define PSB_MESH_H

#include <psb/psb.h>

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
    int pinched_vertices;      ///< vertices where two or more fans of faces meet (two parts
                               ///< of the surface touching at a point)
    int orientation_conflicts; ///< edges walked in the same direction by two faces
    int unused_vertices;       ///< points no face (or ring edge) uses
    int components;            ///< connected pieces (by shared vertices)
    int euler;                 ///< V - E + F over the used vertices
    int genus;     ///< sum over components of (2 - chi) / 2, with each pinched vertex split into
                   ///< one per fan; -1 if not closed
    double volume; ///< signed volume (2D: area), m³
    bool oriented; ///< no orientation conflicts
    bool closed;   ///< no border or non-manifold edges, oriented, volume > 0
} psb_topology;

/// Builds the report. Allocates scratch (freed before return); PSB_ERR_NOMEM
/// is the only failure.
psb_status psb_mesh_topology(const psb_mesh *mesh, psb_topology *out, psb_error *err);

/// Signed volume by the divergence theorem, V = 1/6 sum x_a . (x_b x x_c),
/// or for a ring the signed shoelace area. m³ (m²).
double psb_mesh_volume(const psb_mesh *mesh);

/// The default material of a loaded mesh (`psb sim --mesh`, `psb view FILE`):
/// the gas whose push on the body's lower half carries K = 40 times its
/// weight, P A_down = K m g, so that it rests on a patch of about 1/K of its
/// footprint (thin legs need a large K to carry it at all) ...
#define PSB_MESH_WEIGHT_MULTIPLE 40.0
/// ... and springs stiff enough that the membrane tension of that pressure,
/// T = P R / 2 (a sphere of the body's bounding radius R), stretches them
/// by e = 0.5%: ks = P R S / (e sum L0²). Concave and flat parts still
/// bulge out, which costs little stretch: see README, "OBJ files".
#define PSB_MESH_DESIGN_STRAIN 0.005
/// g, m/s², the rule uses in a world without gravity (so that a body in
/// zero g still holds its shape).
#define PSB_MESH_REFERENCE_GRAVITY 9.81

/// A loaded mesh's default material and the figures it comes from.
typedef struct psb_mesh_material {
    double gas_nrt;        ///< J: nRT = P V0, the gas that has pressure P at the rest volume
    double spring_k;       ///< N/m: ks = P R S / (e sum L0²), e = PSB_MESH_DESIGN_STRAIN
    double pressure;       ///< Pa: P = K m g / A_down, K = PSB_MESH_WEIGHT_MULTIPLE
    double footprint;      ///< m²: A_down = 1/2 sum over triangles of |A_t . y|, the
                           ///< downward-facing surface projected on the floor (each layer
                           ///< counted: the footprint itself on a convex body)
    double rest_volume;    ///< m³: V0
    double area;           ///< m²: S, the surface area
    double radius;         ///< m: R, the farthest point from the bounding box's centre
    double edge_length_sq; ///< m²: sum of L0² over the springs (the mesh's edges)
} psb_mesh_material;

/// The default gas amount and spring stiffness of a closed mesh of total
/// mass `mass` (kg, > 0) in a world of gravity `gravity` (m/s² along -y; 0
/// uses PSB_MESH_REFERENCE_GRAVITY, a sign is ignored), at the mesh's size as
/// it is (fit it first). PSB_ERR_INVALID for a bad mesh, mass or gravity (a
/// programmer's error: the message says which), PSB_ERR_TOPOLOGY for a mesh
/// that encloses no volume; *out is untouched then. err may be NULL.
psb_status psb_mesh_default_material(const psb_mesh *mesh, double mass, double gravity,
                                     psb_mesh_material *out, psb_error *err);

#ifdef __cplusplus
}
#endif

#endif
