// Internal to the mesh library (not installed, not public): the border loops
// of a triangle mesh, shared by the topology report (which counts them) and
// the repair (which fills them), so that both see the same loops.
#ifndef PSB_BORDER_LOOPS_H
#define PSB_BORDER_LOOPS_H

#include <psb/psb.h>

/// Border half-edges grouped into loops: loop l is the half-edges
/// order[start[l]] .. order[start[l + 1] - 1], each one starting where the one
/// before it ends. closed[l] is false for a chain that could not be closed
/// (faces on either side disagree in orientation).
typedef struct psb_border_loops {
    int count;    ///< loops (closed or not)
    int holes;    ///< closed loops, plus the chains joined end to end into loops
    int *order;   ///< indices into the from/to arrays, loop by loop
    int *start;   ///< count + 1 offsets into order
    bool *closed; ///< per loop: true if its last half-edge ends where its first starts
} psb_border_loops;

/// Splits the border half-edges from[i] -> to[i] (i < count, vertices in
/// 0..vcount-1) into simple loops: each vertex appears at most once per loop,
/// so a loop through the same vertex twice (two holes touching at a corner)
/// becomes two. Deterministic: the outgoing half-edges of each vertex are taken
/// in order of their end vertex, and walks start at the lowest vertex first.
/// O(vcount + count). PSB_ERR_NOMEM is the only failure (*out is then zeroed).
psb_status psb_border_loops_find(int vcount, const int *from, const int *to, int count,
                                 psb_border_loops *out);

/// Frees the arrays and zeroes the struct.
void psb_border_loops_free(psb_border_loops *loops);

#endif
