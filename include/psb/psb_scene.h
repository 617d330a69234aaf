// psb scenes: plain data builders that make a world and its bodies, shared by
// the viewer, the tests and the benchmark, so that all three run exactly the
// same set-up. A scene owns its world; the caller steps and draws it.
#ifndef PSB_SCENE_H
#define PSB_SCENE_H

#include <psb/psb.h>
#include <psb/psb_mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most bodies one scene holds (the HUD, plots and shadows have room for this many).
enum { PSB_SCENE_MAX_BODIES = 64 };
/// Most balls the "pile" scene drops (psb_scene_config.pile_balls): with its
/// twelve rings, the stress test of the contact between bodies.
enum { PSB_PILE_MAX_BALLS = 50 };

/// The integrators that psb view and psb sim run unless told otherwise, one
/// solved step a frame, stable at any step. The built-in scenes run BDF2:
/// second order, it lets their soft bodies squash and wobble where backward
/// Euler stills them, at a few ms a frame. Loaded models, with their stiff
/// own material (psb_mesh_default_material), run backward Euler: BDF2's
/// livelier landing costs them 2 to 4 times the solver's work while they
/// move (5 s of Spot: 36.8 against 165 CG iterations a step), and that is
/// the difference between real time and slow motion. psb_default_params()
/// keeps the library's explicit default, whose worlds set their own
/// sub-steps.
#define PSB_SCENE_INTEGRATOR PSB_BDF2
#define PSB_MODEL_INTEGRATOR PSB_IMPLICIT

/// What a front end needs to know about a body besides its physics.
typedef struct psb_scene_body {
    char label[64];     ///< short name for the HUD and plots ("ring", "low gas", "spot.obj")
    float color[3];     ///< display colour, RGB in [0, 1]
    double gas_nrt;     ///< the body's gas amount as built, J; front ends scale it
    double rest_volume; ///< volume of the rest shape, m³ (2D: m²)
} psb_scene_body;

/// How to build a scene. Fill with psb_default_scene_config().
typedef struct psb_scene_config {
    psb_params params;    ///< world parameters; params.body is the one material of every body
    int ring_points;      ///< points on the 2D ring (>= 3)
    int sphere_level;     ///< icosphere subdivision of the 3D spheres (0..8)
    double radius;        ///< rest radius of the ring and the spheres, m (> 0)
    double drop_height;   ///< start with the lowest point this far above the floor, m (>= 0)
    double spacing;       ///< distance between neighbouring 3D bodies' centres, m (> 0)
    double arena_half;    ///< walls at x, z = +-arena_half, m (> 0); they keep pokes in view
    double gas_scale[3];  ///< low, medium, high gas as multiples of psb_default_gas_nrt(kind)
    bool auto_substeps;   ///< raise params.substeps to what the bodies' stability estimate needs
                          ///< (PSB_IMPLICIT: one sub-step instead)
    double shape_k;       ///< N/m: k_shape of the "shape" scene's shape-matched bodies (>= 0)
    double shape_damping; ///< 1/s: their shape_damping (>= 0)
    psb_vec3 flag_wind;   ///< m/s: the "flag" scene's wind (other scenes: params.wind)
    double
        flag_turbulence; ///< m/s: the "flag" scene's gusts (other scenes: params.wind_turbulence)
    bool model_gas;      ///< psb_scene_add_mesh gives a 3D model the gas of
                         ///< psb_mesh_default_material (else the medium gas scaled by its volume)
    bool model_spring_k; ///< ... and its spring stiffness (else params.body.spring_k)
    bool model_self_contact; ///< ... touches itself where params.self_contact is on (else its
                             ///< body_params.self_contact is off: on a fine mesh it costs 1.5
                             ///< to 2.5 times the step; docs/contact.md)
    bool ring_material;      ///< the spheres are made of the ring's material: their springs'
                             ///< stiffness is the one at which the medium gas stretches a sphere as
                             ///< much as it stretches the ring (psb_scene_sphere_spring_k; else
                             ///< params.body.spring_k, the ring's own)
    int pile_balls;          ///< the "pile" scene's 3D balls, 1..PSB_PILE_MAX_BALLS
} psb_scene_config;

/// A built scene. Bodies are numbered as in its world.
typedef struct psb_scene {
    psb_world *world;                            ///< owned; freed by psb_scene_destroy
    char name[32];                               ///< the scene's name ("default")
    int body_count;                              ///< == psb_world_body_count(world)
    psb_scene_body bodies[PSB_SCENE_MAX_BODIES]; ///< per body, in world order
    psb_scene_config config;                     ///< what it was built from
    int substeps_needed;                         ///< stable sub-step count for all bodies
    double stable_substep; ///< the smallest psb_body_stable_substep over the bodies, s
} psb_scene;

/// The defaults: the world and material of psb_default_params() with walls
/// at +-3 m and the gas pumped in over 1 s before gravity acts (as in the
/// tutorial's demo); a ring of 48 points and level 3 icospheres of radius
/// 0.5 m, 1 m above the floor and 2 m apart; gas 0.1, 1 and 3 times the
/// kind's default (low, medium, high); automatic sub-steps; k_shape 60 N/m
/// and shape_damping 3/s for the shape scene; the flag in a wind of 6 m/s
/// along +x with gusts of 2 m/s; no wind elsewhere; loaded 3D models with
/// their own gas and spring stiffness (model_gas, model_spring_k); a pile
/// of 12 balls.
psb_scene_config psb_default_scene_config(void);

/// The spring stiffness (N/m) that makes the config's spheres, of rest
/// volume V0 (m³, the icosphere's), of the ring's material: the medium gas
/// stretches a sphere by the same strain e as the ring, both of the config's
/// radius R. A ring of n springs ks_r (rest length L0) holds
/// nRT_r / (pi R (1 + e)) = ks_r L0 e; a triangle net of springs ks is a
/// membrane of modulus 2 ks / sqrt(3), and a sphere holds
/// nRT_s R / (2 V0 (1 + e)^2) = (2 / sqrt(3)) ks e. 0 when the ring's ks is
/// 0; the ring's ks when it has no gas.
double psb_scene_sphere_spring_k(const psb_scene_config *config, double sphere_volume);

/// Number of scenes, and the name and one-line summary of each.
int psb_scene_count(void);
const char *psb_scene_name(int index);
const char *psb_scene_summary(int index);

/// The index of the scene called name, or -1.
int psb_scene_find(const char *name);

/// Builds the scene called name. On failure *out is zeroed and err says why.
/// Scenes:
/// - "default": the ring and three spheres with low, medium and high gas;
/// - "pressure": the same three gas amounts in both modes, three rings
///   beside three spheres, to compare 2D and 3D;
/// - "shape": shape matching against pressure, on a square ring and a cube
///   each: gas only, shape matching only (no gas), and both;
/// - "flag": a cloth pinned at its two left corners in a wind along +x;
/// - "planets": static spheres of different sizes that a ring and three
///   spheres fall onto, bounce off and roll over;
/// - "ring": the ring alone (a stage for loaded models);
/// - "pile": twelve balls (config.pile_balls) and twelve rings of three
///   sizes and three gas amounts dropped into a box of 1.6 m, where they
///   settle into a pile; more than twelve balls drop nine a layer into a
///   box of 2.6 m.
psb_status psb_scene_build(psb_scene *out, const char *name, const psb_scene_config *config,
                           psb_error *err);

/// Adds a closed mesh as a 3D body (or a ring as a 2D body) with the scene's
/// material, placed in the next free spot of the arena and lifted to the
/// drop height; on the "pile" scene, in the middle of the box with its
/// lowest point the drop height above the highest point of the bodies of
/// its mode (dropped onto the pile, wherever the pile has got to). A 3D
/// body's gas and spring stiffness are its own, from its size, the
/// material's mass and the world's gravity
/// (psb_mesh_default_material), each unless config.model_gas or
/// config.model_spring_k says otherwise; else (and for a ring) the gas is the
/// medium gas scaled by its volume (so that it starts at the pressure the
/// medium sphere, or the ring, starts at) and the stiffness the material's. Recomputes
/// substeps_needed and, with auto_substeps, the world's sub-step count. A refused mesh changes
/// nothing.
psb_status psb_scene_add_mesh(psb_scene *scene, const psb_mesh *mesh, const char *label,
                              psb_error *err);

/// The smallest sub-step count n with dt / n <= 0.9 h_stable
/// (psb_world_stable_substep: 0.9 leaves a margin under that estimate), at
/// least 1 and at most the core's range for the sub-steps: the count that
/// the scenes' and `psb sim`'s automatic sub-steps choose.
int psb_scene_stable_substeps(const psb_world *world);

/// Recomputes substeps_needed after a change of the bodies' material (a
/// stiffer spring needs a smaller sub-step) or of the integrator and, with
/// auto_substeps, sets the world's sub-step count to the larger of
/// config.params.substeps and it, or to 1 when the world's integrator is
/// PSB_IMPLICIT (stable at any step; substeps_needed is still the explicit
/// integrators' count).
psb_status psb_scene_refresh_substeps(psb_scene *scene, psb_error *err);

/// Frees the world and zeroes the scene. Safe on a zeroed scene.
void psb_scene_destroy(psb_scene *scene);

#ifdef __cplusplus
}
#endif

#endif
