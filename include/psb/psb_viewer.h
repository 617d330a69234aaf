// psb viewer: a GLFW window with the 2D ring on the left and the 3D bodies on
// the right, live plots, a HUD, overlays, and mouse and keyboard controls.
// The only part of psb that knows OpenGL and GLFW.
#ifndef PSB_VIEWER_H
#define PSB_VIEWER_H

#include <psb/psb_obj.h>
#include <psb/psb_scene.h>

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Most OBJ files one `psb view` command line can name.
enum { PSB_VIEWER_MAX_FILES = 16 };

/// Everything `psb view` can be told. Fill with psb_default_viewer_config().
typedef struct psb_viewer_config {
    int width, height;      ///< window size in screen coordinates (>= 64)
    int frames;             ///< render this many frames, then exit; 0 = until closed
    const char *screenshot; ///< with frames: write the last frame here as PNG; may be NULL
    const char *export_dir; ///< the E key writes each body as an OBJ file into this folder (".")
    const char
        *input_script;   ///< replay timed mouse and keyboard events from this file; may be NULL
    const char *shaders; ///< folder with the GLSL files; NULL = search the usual places
    const char *meshes;  ///< folder of the "models" scene's OBJ files; NULL = search the usual
                         ///< places (share/psb/meshes, the source tree's meshes/)
    const char *scene;   ///< scene name (psb_viewer_scene_name); "default"
    bool stats;          ///< print mean and p99 frame time at exit
    bool report;         ///< print camera, grab and scene state at exit as key=value lines
    bool vsync;          ///< swap interval 1 (default on)
    int msaa;      ///< samples per pixel for antialiasing (0 = off, -1 = 4 on a GPU, off on a CPU
                   ///< renderer)
    bool realtime; ///< with frames or a script, still step by the wall clock (default: one dt
                   ///< per frame, so that runs are repeatable)
    double grab_k; ///< stiffness of the mouse's grab spring, N/m
    double poke_speed;             ///< speed at which a poke's finger goes in, m/s
    psb_scene_config scene_config; ///< parameters, material, sizes of the scene
    bool integrator_given;     ///< scene_config.params.integrator was chosen (--integrator): loaded
                               ///< models run with it too, instead of the implicit step
    psb_repair_options repair; ///< how OBJ files are repaired (fit_radius > 0 advised)
    const char *files[PSB_VIEWER_MAX_FILES]; ///< OBJ files to load at start
    int file_count;                          ///< how many
} psb_viewer_config;

/// 1280 x 720, vsync, automatic MSAA (4x, but none on a software renderer), the default scene and
/// the default repair with models fitted to the scene's sphere radius, grab spring 100 N/m, pokes
/// going in at 4 m/s.
psb_viewer_config psb_default_viewer_config(void);

/// The viewer's scenes: psb_scene_build's (psb_scene_count of them, in
/// their order), then "models", which shows the OBJ files of the meshes
/// folder one at a time on the ring's stage.
int psb_viewer_scene_count(void);
/// The name and one-line summary of scene `index` ("?" when out of range).
const char *psb_viewer_scene_name(int index);
const char *psb_viewer_scene_summary(int index);
/// The index of the scene called name, or -1.
int psb_viewer_scene_find(const char *name);

/// Opens the window and runs until it is closed (or config->frames are
/// drawn). Returns the exit status: 0 after a clean run; 3 when bodies blew
/// up during it (found by the blow-up guard and reset, in any scene shown)
/// and nothing failed, as `psb sim`'s, with a last line on stderr that
/// counts them; 2 when there is no display or the shaders cannot be found or
/// built (a message on stderr says which); 1 when something fails while
/// running (a screenshot that cannot be written).
int psb_viewer_run(const psb_viewer_config *config);

#ifdef __cplusplus
}
#endif

#endif
