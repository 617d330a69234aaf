// Internal to src/mesh: checks shared by the mesh functions.
#ifndef PSB_MESH_INTERNAL_H
#define PSB_MESH_INTERNAL_H

#include "psb_mesh.h"

/// Checks that mesh is not NULL, its kind is known, its counts are >= 0 with
/// arrays behind them, and every triangle corner is a point index. On a
/// problem returns PSB_ERR_INVALID with a message that starts with fn.
psb_status psb_mesh_check_arrays(const psb_mesh *mesh, const char *fn, psb_error *err);

/// Union-find over 0..n-1 (parent[i] = i to start): the root of i's set,
/// halving the path on the way.
static inline int mesh_set_find(int *parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/// Joins the sets of a and b under the smaller root.
static inline void mesh_set_join(int *parent, int a, int b) {
    a = mesh_set_find(parent, a);
    b = mesh_set_find(parent, b);
    if (a != b) {
        parent[a < b ? b : a] = a < b ? a : b;
    }
}

/// The vertices of a shell's triangles whose faces make more than one fan
/// (*pinched), and the genus of the surface with each of them split into
/// one vertex per fan (*genus; -1 when not closed or no closed surface).
/// False when memory runs out (pinch.c).
bool mesh_find_pinches(const psb_mesh *mesh, bool closed, int *pinched, int *genus);

#endif
