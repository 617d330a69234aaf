// The yardstick for `psb bench`: a plain textbook implementation of the same
// model (array of structs, springs and faces scattered into force
// accumulators, symplectic Euler, floor), written the way a tutorial would.
// psb's own step is measured against it on the same mesh and step.
#ifndef PSB_BENCH_TEXTBOOK_H
#define PSB_BENCH_TEXTBOOK_H

#include <psb/psb.h>

/// Runs `steps` symplectic Euler steps of size h on the body described by
/// def (springs from its edges, rest lengths from its points, gas, gravity,
/// a floor at floor_y with restitution e and friction rate mu) and returns
/// the wall time in ns, or a negative number if memory ran out. edges holds
/// 2 * edge_count indices.
double psb_textbook_run(const psb_body_def *def, const int *edges, int edge_count, double gravity,
                        double floor_y, double restitution, double friction, double h, long steps);

#endif
