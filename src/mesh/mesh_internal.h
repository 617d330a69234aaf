// Internal to src/mesh: checks shared by the mesh functions.
#ifndef PSB_MESH_INTERNAL_H
#define PSB_MESH_INTERNAL_H

#include <psb/psb_mesh.h>

/// Checks that mesh is not NULL, its kind is known, its counts are >= 0 with
/// arrays behind them, and every triangle corner is a point index. On a
/// problem returns PSB_ERR_INVALID with a message that starts with fn.
psb_status psb_mesh_check_arrays(const psb_mesh *mesh, const char *fn, psb_error *err);

/// Union-find root with path halving. The root is always the smallest index
/// of its set (see unite_min), so "the first point" represents a welded group
/// (repair.c), "the first face" a piece of surface (pinch.c).
static inline int find_root(int *parent, int x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/// Joins the sets of a and b; the smaller root becomes the root of both.
static inline void unite_min(int *parent, int a, int b) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a < b) {
        parent[b] = a;
    } else if (b < a) {
        parent[a] = b;
    }
}

/// The vertices of a shell's triangles whose faces make more than one fan
/// (*pinched), and the genus of the surface with each of them split into
/// one vertex per fan (*genus; -1 when not closed or no closed surface).
/// False when memory runs out (pinch.c).
bool mesh_find_pinches(const psb_mesh *mesh, bool closed, int *pinched, int *genus);

#endif
