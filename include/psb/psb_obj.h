// psb OBJ loading: parse Wavefront OBJ files, weld, check and repair them into
// closed, outward-facing triangle meshes ready to become bodies.
//
// Loading runs in three stages, each usable alone:
//   psb_obj_parse   file -> raw positions and triangles (polygons triangulated)
//   psb_mesh_repair raw  -> welded, cleaned, consistently oriented, outward, (holes filled)
//   psb_mesh_split  one mesh -> one mesh per connected component
// psb_mesh_load_obj runs all three and refuses what cannot hold gas. Nothing
// here prints or exits; on failure the outputs are left empty, so whatever the
// caller loaded before stays as it was.
#ifndef PSB_OBJ_H
#define PSB_OBJ_H

#include <psb/psb_mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Limits the parser enforces, so a hostile file gives an error, not a crash.
enum {
    PSB_OBJ_MAX_LINE = 65536,   ///< bytes in one line
    PSB_OBJ_MAX_POLYGON = 4096, ///< corners of one face
};

/// What psb_obj_parse read (all counts are of the file as written).
typedef struct psb_obj_stats {
    int lines;         ///< lines read
    int vertices;      ///< `v` lines
    int faces;         ///< `f` lines
    int polygons;      ///< faces with more than 3 corners (triangulated)
    int triangles;     ///< triangles after triangulation
    int ignored_lines; ///< `vt vn o g s usemtl mtllib l p` and unknown keywords
} psb_obj_stats;

/// Parses an OBJ file into a triangle mesh: positions as written (no
/// welding), polygons triangulated so that non-convex ones stay correct.
/// Errors name the file and line: "FILE:LINE: what was expected" (or
/// "FILE: ..." for the whole file: missing, unreadable, empty, no faces,
/// binary). On failure *out is zeroed. stats may be NULL.
psb_status psb_obj_parse(const char *path, psb_mesh *out, psb_obj_stats *stats, psb_error *err);

/// The same from a buffer in memory (name is used in messages). The buffer
/// need not be NUL-terminated; a NUL byte inside it is an error.
psb_status psb_obj_parse_buffer(const char *name, const char *data, size_t size, psb_mesh *out,
                                psb_obj_stats *stats, psb_error *err);

/// What the repair does; fill with psb_default_repair_options().
typedef struct psb_repair_options {
    bool weld;             ///< merge vertices with equal positions (default on)
    double weld_tolerance; ///< m: also merge vertices closer than this (default 0: exact only)
    bool drop_unused;      ///< drop vertices no triangle uses (default on)
    bool drop_degenerate;  ///< drop zero-area triangles (default on)
    bool drop_duplicates;  ///< drop triangles that repeat another's corners (default on);
                           ///< a triangle and its mirror image (a two-sided fin) both go
    bool fix_orientation;  ///< make faces agree across each component, outward (default on)
    bool fill_holes;       ///< close every boundary loop with triangles (default off)
    double fit_radius;     ///< m: > 0 centres the mesh on its bounding box and scales it so its
                           ///< farthest point is this far from the centre; 0 = as it is (default)
} psb_repair_options;

/// Weld, drop unused/degenerate/duplicate, fix orientation; no hole filling, no fit.
psb_repair_options psb_default_repair_options(void);

/// What the repair changed.
typedef struct psb_repair_report {
    int welded;             ///< vertices merged into another
    int unused_dropped;     ///< vertices dropped because no triangle used them
    int degenerate_dropped; ///< zero-area triangles dropped
    int duplicates_dropped; ///< repeated triangles dropped
    int faces_flipped;      ///< triangles flipped to agree with their neighbours
    int components_flipped; ///< components turned outside-in -> outward (negative volume)
    int holes_filled;       ///< boundary loops closed
    int fill_triangles;     ///< triangles added to close them
    double fit_scale;       ///< scale applied by fit_radius (1 if none)
} psb_repair_report;

/// Repairs mesh in place as options say. Does not refuse open or
/// non-manifold results: check them with psb_mesh_topology (orientation is
/// not walked across non-manifold edges). On failure (PSB_ERR_INVALID for a
/// bad mesh or options, non-finite points included; PSB_ERR_NOMEM) the mesh
/// is left unchanged. report may be NULL.
psb_status psb_mesh_repair(psb_mesh *mesh, const psb_repair_options *options,
                           psb_repair_report *report, psb_error *err);

/// Splits a shell into one mesh per connected component, in order of each
/// component's first triangle (vertices renumbered in order of first use;
/// unused vertices are left out). A ring gives one copy; a mesh without
/// triangles gives *count = 0 and *parts = NULL. *parts receives an array of
/// *count meshes; free each with psb_mesh_free and the array with free().
psb_status psb_mesh_split(const psb_mesh *mesh, psb_mesh **parts, int *count, psb_error *err);

/// Loads an OBJ file for simulation: parse, repair, split into components,
/// and refuse what cannot hold gas: open meshes (with the number of holes
/// and border edges, and a hint about --fill-holes), non-manifold edges
/// (with where: the points' positions), zero or negative volume. On success
/// *parts holds *count closed, outward meshes (free as for psb_mesh_split).
/// report and stats may be NULL; report is filled even when the mesh is
/// refused. Positions in messages are in the file's coordinates (the fit
/// comes after the checks).
psb_status psb_mesh_load_obj(const char *path, const psb_repair_options *options, psb_mesh **parts,
                             int *count, psb_repair_report *report, psb_obj_stats *stats,
                             psb_error *err);

#ifdef __cplusplus
}
#endif

#endif
