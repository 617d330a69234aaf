// Writing bodies' surfaces as Wavefront OBJ files, one file per body per
// frame, for Blender (File > Import > Wavefront) and for checks outside psb.
// Shared by `psb sim --export-obj` and the viewer's E key, so both write the
// same names and the same format:
//
//   DIR/body<b>_step<s>.obj   b: the body's index in its world; s: the world
//                             step, 6 digits or more (000120)
//
// A file holds three comment lines (psb, the body's index and label; its
// kind, point and element counts; the world step and time), `o body<b>`, one
// `v x y z` line per point in the body's point order (metres, printed with
// %.17g, so that every double reads back to the same bits), then the
// surface with 1-based indices: `f i j k` per triangle of a shell (wound
// counter-clockwise seen from outside) or of a cloth; for a ring one closed
// polyline `l 1 2 ... n 1`; for a cloth without triangles one `l i j` per
// spring. A file is written under a temporary name (the name plus ".tmp")
// and renamed when complete, so a reader never sees half a file.
#ifndef PSB_EXPORT_H
#define PSB_EXPORT_H

#include <psb/psb.h>
#include <psb/psb_scene.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Writes the name body `body` gets at world step `step` into out:
/// "DIR/body<body>_step<step, %06ld>.obj". Returns false if it does not fit.
bool psb_export_obj_path(char *out, size_t out_size, const char *dir, int body, long step);

/// PSB_OK when dir is an existing folder; else PSB_ERR_IO with a message
/// naming dir and what is wrong (does not exist, is not a folder).
psb_status psb_export_obj_check_dir(const char *dir, psb_error *err);

/// Which frame a file is of: its step (in its name and header) and time
/// (in its header, s).
typedef struct psb_export_frame {
    long step;
    double time;
} psb_export_frame;

/// The world's own frame: psb_world_step_count and psb_world_time. (A
/// world whose bodies another stepper moves, as `psb sim --reference`'s
/// plain model does, says its own.)
psb_export_frame psb_export_frame_of(const psb_world *world);

/// Writes body `body` of world as it is now into dir, as frame `frame`
/// (named by psb_export_obj_path with frame.step). label (may be NULL) goes
/// into the header. The name written is copied into path (may be NULL).
/// Fails with PSB_ERR_IO (the file cannot be made, written or renamed: the
/// message names it and says why; no partial file is left) or
/// PSB_ERR_INVALID (a point that is not finite: nothing written).
psb_status psb_export_obj_body(const psb_world *world, int body, const char *label, const char *dir,
                               psb_export_frame frame, char *path, size_t path_size,
                               psb_error *err);

/// Writes every body of world into dir, checking dir first. bodies (may be
/// NULL) holds psb_world_body_count(world) entries whose labels go into the
/// headers: a scene's bodies. *written (may be NULL) receives the number of
/// files written, which on failure is how many were written before it.
psb_status psb_export_obj_frame(const psb_world *world, const psb_scene_body *bodies,
                                const char *dir, psb_export_frame frame, int *written,
                                psb_error *err);

#ifdef __cplusplus
}
#endif

#endif
