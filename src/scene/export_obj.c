// Bodies' surfaces as Wavefront OBJ files; see psb_export.h.
#include <psb/psb_export.h>

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

// Room for DIR/body<b>_step<s>.obj.tmp; a longer folder name is refused.
enum { EXPORT_PATH_SIZE = 4096 };

static const char *kind_name(psb_body_kind kind) {
    return kind == PSB_RING ? "ring" : kind == PSB_SHELL ? "shell" : "cloth";
}

bool psb_export_obj_path(char *out, size_t out_size, const char *dir, int body, long step) {
    // "out/" and "out" name the same folder: no doubled slash in messages.
    const size_t len = strlen(dir);
    const char *sep = len > 0 && dir[len - 1] == '/' ? "" : "/";
    const int n = snprintf(out, out_size, "%s%sbody%d_step%06ld.obj", dir, sep, body, step);
    return n > 0 && (size_t)n < out_size;
}

psb_status psb_export_obj_check_dir(const char *dir, psb_error *err) {
    struct stat st;
    if (stat(dir, &st) != 0) {
        return psb_error_set(err, PSB_ERR_IO, "folder '%s': %s", dir,
                             errno == ENOENT ? "does not exist" : strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        return psb_error_set(err, PSB_ERR_IO, "'%s' is not a folder", dir);
    }
    return PSB_OK;
}

// The label as one comment line can hold it: control characters (a newline
// in a file name) would end the comment and break the file.
static void clean_label(char *out, size_t out_size, const char *label) {
    size_t i = 0;
    for (; label[i] != '\0' && i + 1 < out_size; i++) {
        const unsigned char c = (unsigned char)label[i];
        out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    out[i] = '\0';
}

// The header, `o`, the points and the surface. False at the first write
// that fails; errno then says why.
static bool write_body(FILE *f, const psb_world *world, int body, const char *label,
                       psb_export_frame frame) {
    const psb_body_kind kind = psb_body_get_kind(world, body);
    const int n = psb_body_point_count(world, body);
    const psb_vec3 *x = psb_body_positions(world, body);
    int tri_count = 0, spring_count = 0;
    const int *tris = psb_body_triangles(world, body, &tri_count);
    const int *springs = psb_body_edges(world, body, &spring_count);

    char name[128] = "";
    if (label && label[0] != '\0') {
        char clean[96];
        clean_label(clean, sizeof clean, label);
        snprintf(name, sizeof name, ": %s", clean);
    }
    char elements[96];
    if (kind == PSB_RING) {
        snprintf(elements, sizeof elements, "%d edges as one closed polyline", n);
    } else if (tri_count > 0) {
        snprintf(elements, sizeof elements, "%d triangles", tri_count);
    } else {
        snprintf(elements, sizeof elements, "%d springs as lines (no triangles)", spring_count);
    }
    if (fprintf(f,
                "# psb body %d%s\n"
                "# %s: %d points, %s\n"
                "# world step %ld, t = %.9g s; positions in m\n"
                "o body%d\n",
                body, name, kind_name(kind), n, elements, frame.step, frame.time, body) < 0) {
        return false;
    }
    // %.17g: every double reads back to the same bits, so a check over the
    // files (no point inside another body) sees exactly what the step left.
    for (int i = 0; i < n; i++) {
        if (fprintf(f, "v %.17g %.17g %.17g\n", x[i].x, x[i].y, x[i].z) < 0) {
            return false;
        }
    }
    if (kind == PSB_RING) {
        // The ring's edges join consecutive points, the last back to the first.
        if (fputc('l', f) == EOF) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (fprintf(f, " %d", i + 1) < 0) {
                return false;
            }
        }
        return fputs(" 1\n", f) != EOF;
    }
    if (tri_count > 0) {
        for (int t = 0; t < tri_count; t++) {
            const int *c = &tris[3 * t];
            if (fprintf(f, "f %d %d %d\n", c[0] + 1, c[1] + 1, c[2] + 1) < 0) {
                return false;
            }
        }
        return true;
    }
    // A cloth without triangles is only its net of springs.
    for (int s = 0; s < spring_count; s++) {
        if (fprintf(f, "l %d %d\n", springs[2 * s] + 1, springs[2 * s + 1] + 1) < 0) {
            return false;
        }
    }
    return true;
}

psb_export_frame psb_export_frame_of(const psb_world *world) {
    return (psb_export_frame){psb_world_step_count(world), psb_world_time(world)};
}

psb_status psb_export_obj_body(const psb_world *world, int body, const char *label, const char *dir,
                               psb_export_frame frame, char *path, size_t path_size,
                               psb_error *err) {
    assert(world && dir && "psb_export_obj_body: world and dir must not be NULL");
    char final_path[EXPORT_PATH_SIZE], tmp_path[EXPORT_PATH_SIZE + 8];
    const long step = frame.step;
    if (!psb_export_obj_path(final_path, sizeof final_path, dir, body, step)) {
        return psb_error_set(err, PSB_ERR_IO, "folder name too long (%zu characters): '%.64s...'",
                             strlen(dir), dir);
    }
    if (path && path_size > 0) {
        snprintf(path, path_size, "%s", final_path);
    }
    const int n = psb_body_point_count(world, body);
    const psb_vec3 *x = psb_body_positions(world, body);
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i].x) || !isfinite(x[i].y) || !isfinite(x[i].z)) {
            return psb_error_set(err, PSB_ERR_INVALID,
                                 "%s: not written: point %d of body %d is not finite", final_path,
                                 i, body);
        }
    }
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp", final_path);
    FILE *f = fopen(tmp_path, "w");
    if (!f) {
        return psb_error_set(err, PSB_ERR_IO, "cannot create '%s': %s", tmp_path, strerror(errno));
    }
    errno = 0;
    bool failed = !write_body(f, world, body, label, frame);
    int why = errno;
    // Data still in the buffer meets a full disk only here.
    if (fclose(f) != 0 && !failed) {
        failed = true;
        why = errno;
    }
    if (failed) {
        remove(tmp_path);
        return psb_error_set(err, PSB_ERR_IO, "cannot write '%s': %s", tmp_path,
                             strerror(why != 0 ? why : EIO));
    }
    if (rename(tmp_path, final_path) != 0) {
        why = errno;
        remove(tmp_path);
        return psb_error_set(err, PSB_ERR_IO, "cannot rename '%s' to '%s': %s", tmp_path,
                             final_path, strerror(why));
    }
    return PSB_OK;
}

psb_status psb_export_obj_frame(const psb_world *world, const psb_scene_body *bodies,
                                const char *dir, psb_export_frame frame, int *written,
                                psb_error *err) {
    if (written) {
        *written = 0;
    }
    const psb_status ok = psb_export_obj_check_dir(dir, err);
    if (ok != PSB_OK) {
        return ok;
    }
    for (int b = 0; b < psb_world_body_count(world); b++) {
        const psb_status status = psb_export_obj_body(world, b, bodies ? bodies[b].label : NULL,
                                                      dir, frame, NULL, 0, err);
        if (status != PSB_OK) {
            return status;
        }
        if (written) {
            *written += 1;
        }
    }
    return PSB_OK;
}
