// The options of `psb sim`: what they store, the tables that parse them and
// print their help, and the checks that need several of them at once (which
// options go together, what a scene takes from them).
#ifndef PSB_SIM_OPTIONS_H
#define PSB_SIM_OPTIONS_H

#include "mesh_options.h"
#include "options.h"
#include "shape_options.h"
#include <psb/psb.h>
#include <psb/psb_scene.h>

#include <stdbool.h>

enum {
    PSB_SIM_MAX_SPHERES = 256, ///< --sphere may be given this many times
    PSB_SIM_MAX_PINS = 4096,   ///< --pin may be given this many times
};

/// The exit status of `psb sim` (and `psb bench`) after a run that finished
/// but had blow-ups (bodies the core detected going wild and reset): its
/// figures are not the physics asked for. 1 is a failure to read or write,
/// 2 bad options or input.
#define PSB_EXIT_BLOWUPS 3

/// The most sub-steps a world step may have (the core's table's range).
int psb_sim_max_substeps(void);

/// --substeps: a count, or auto.
typedef struct psb_sim_substeps {
    bool automatic; ///< choose from the bodies' stability estimate
    int count;      ///< the count given, when not automatic
} psb_sim_substeps;

/// Static sphere colliders from the repeatable --sphere option.
typedef struct psb_sim_spheres {
    int count;
    psb_vec3 centre[PSB_SIM_MAX_SPHERES]; ///< m
    double radius[PSB_SIM_MAX_SPHERES];   ///< m
} psb_sim_spheres;

/// Points to pin from the repeatable --pin option (public indices of the
/// first body).
typedef struct psb_sim_pins {
    int count;
    int point[PSB_SIM_MAX_PINS];
} psb_sim_pins;

/// Everything `psb sim` reads from its options. The world parameters (with
/// the body's material in params.body) start from the core's defaults; a
/// loaded mesh (--mesh) takes its gas and spring stiffness from
/// psb_mesh_default_material instead, for each of the two not given.
typedef struct psb_sim_options {
    psb_params params;
    bool spring_k_given;       ///< --ks was given: a loaded mesh keeps it (else the mesh's own)
    bool gas_nrt_given;        ///< --nrt was given: a loaded mesh keeps it (else the mesh's own)
    int integrator;            ///< a psb_integrator, stored as the choice table's int
    double time;               ///< s to simulate, unless --steps is given
    int steps;                 ///< world steps to take (from --time unless given)
    psb_sim_substeps substeps; ///< --substeps N or auto
    bool no_floor;             ///< --no-floor
    bool no_body_contact;      ///< --no-body-contact
    bool no_self_contact;      ///< --no-self-contact
    bool no_contact_solve;     ///< bodies that may touch are not solved together
    double height;             ///< m: lowest rest point's height above floor_y at the start
    const char *mesh;          ///< OBJ file to simulate instead of a generated shape, or NULL
    psb_mesh_options repair;   ///< how the OBJ file is repaired
    const char *scene;         ///< scene to run instead of a shape (a name psb_scene_find knows)
    psb_scene_config scene_config; ///< with --scene: its configuration, with the options given
    int balls;                     ///< --balls: the pile scene's balls
    psb_sim_spheres spheres;
    psb_sim_pins pins;
    const char *csv;        ///< file for the CSV, or NULL
    int csv_every;          ///< steps between CSV rows
    const char *export_obj; ///< folder for one OBJ file per body per exported step, or NULL
    int export_every;       ///< --every: steps between exports (step 0, every N-th, the last)
    bool summary;           ///< key=value output
    bool reference;         ///< run the plain model (src/model) instead of the fast step
} psb_sim_options;

/// The defaults: the core's parameters, 5 s, automatic sub-steps, the body
/// 1 m above the floor, no scene, no colliders or pins, no CSV, no export.
psb_sim_options psb_sim_default_options(void);

/// Prints the help of every option (the defaults read from fresh structs).
void psb_sim_options_print_help(FILE *out);

/// Parses argv into shape and sim, checks the combinations and fills what
/// follows from them (the ring's or cloth's gas, the step count, with
/// --scene its configuration); false after printing one line on stderr.
bool psb_sim_options_read(int argc, char **argv, psb_shape_options *shape, psb_sim_options *sim);

#endif
