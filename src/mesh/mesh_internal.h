// Internal to src/mesh: checks shared by the mesh functions.
#ifndef PSB_MESH_INTERNAL_H
#define PSB_MESH_INTERNAL_H

#include "psb_mesh.h"

/// Checks that mesh is not NULL, its kind is known, its counts are >= 0 with
/// arrays behind them, and every triangle corner is a point index. On a
/// problem returns PSB_ERR_INVALID with a message that starts with fn.
psb_status psb_mesh_check_arrays(const psb_mesh *mesh, const char *fn, psb_error *err);

#endif
