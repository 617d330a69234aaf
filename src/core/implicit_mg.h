// The implicit step's multigrid preconditioner (implicit_mg.c): internal
// to the core.
#ifndef PSB_IMPLICIT_MG_H
#define PSB_IMPLICIT_MG_H

#include <stdbool.h>

typedef struct mg_hierarchy mg_hierarchy;
struct body_part;

/// Builds the levels for a body of n points joined as the adjacency says
/// (slots start[i] .. start[i + 1] - 1 of point i, their neighbours in col;
/// both must outlive the hierarchy). NULL when n is too small to need one,
/// or with *no_memory set when an allocation failed.
mg_hierarchy *mg_create(int n, const int *start, const int *col, bool *no_memory);
void mg_destroy(mg_hierarchy *hierarchy);
/// Makes every level's operator from the fine one: each point's symmetric
/// own block (6 per point: xx xy xz yy yz zz), each slot's block (9 per
/// slot, row-major), the rank-one term curvature g g^T (g: 3 arrays of
/// points, taken without its part along each point's constraint normal, 3
/// arrays, 0 for none), and which points are free (inv_mass > 0). The
/// arrays must stay as they are until the next call. Called by every thread
/// of the body's team (part: this thread's) once the fine blocks of all
/// points are in; returns when every level is made.
void mg_assemble(mg_hierarchy *hierarchy, const double *diag6, const double *off9,
                 double *const g[3], double *const normal[3], double curvature,
                 const double *inv_mass, const struct body_part *part);
/// z = (the additive multigrid) r for this thread's points (pinned ones get
/// 0). Called by every thread of the team; r must be in for the thread's
/// own points (the others' are waited for).
void mg_apply(mg_hierarchy *hierarchy, double *const r[3], double *const z[3],
              const struct body_part *part);

#endif
