// The world `psb sim` runs for a generated shape or an OBJ file (not a
// --scene), built from its options in one place, so that every command that
// wants "what `psb sim` would run" (`psb bench --realtime`) gets the same
// bodies, material, drop and sub-steps, and follows them when they change.
// Defined in cmd_sim.c, beside the command that is its first user.
#ifndef PSB_SIM_WORLD_H
#define PSB_SIM_WORLD_H

#include "shape_options.h"
#include "sim_options.h"
#include <psb/psb.h>

#include <stddef.h>

/// Builds the shape (or loads and repairs the OBJ file, one body per closed
/// component), makes the world with the --sphere colliders, adds the bodies
/// with the material of sim->params.body, all lifted together so the lowest
/// point starts sim->height above the floor, pins the --pin points and, with
/// --substeps auto, raises the sub-steps to what the bodies' stability
/// estimate needs (the implicit integrator keeps its one). sim must come from
/// psb_sim_options_read without a scene. Writes what the bodies are ("FILE,
/// 1 closed component, fitted to a radius of 0.5 m") into what. NULL after
/// printing one line on stderr, prefixed "psb sim:" or naming the file;
/// *status then holds the exit status (1 out of memory, 2 bad input).
psb_world *psb_sim_world_create(const psb_shape_options *shape, const psb_sim_options *sim,
                                char *what, size_t what_size, int *status);

#endif
