// Loaded models: OBJ files given on the command line or dropped on the
// window, and the models scene, which shows the OBJ files of the meshes
// folder one at a time ('.' and ',' step through them). Both load a file
// the same way: repaired and fitted as the options say, split into closed
// parts, each a body with its own material, on the ring's stage (files
// given or dropped in the pile scene: onto a new pile).
#include "models.h"

#include "gl_util.h"
#include "stage.h"
#include "status.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// Set by CMake: the source tree's meshes folder, the installed one, and the
// installed one relative to the executable (a moved install).
#ifndef PSB_MESHES_DIR_BUILD
#define PSB_MESHES_DIR_BUILD "meshes"
#endif
#ifndef PSB_MESHES_DIR_INSTALL
#define PSB_MESHES_DIR_INSTALL "/usr/local/share/psb/meshes"
#endif
#ifndef PSB_MESHES_DIR_RELATIVE
#define PSB_MESHES_DIR_RELATIVE "share/psb/meshes"
#endif

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

// What the files loaded so far added to the stage.
typedef struct tally {
    int bodies, files;
    long points;
    char summary[160]; ///< what the repair did to the last file loaded
} tally;

// Adds the closed parts of one OBJ file to next, all or none; false (and
// why, naming the file) if the file cannot be loaded, leaving next as it was.
static bool load_file(app *a, psb_scene *next, const char *path, const psb_repair_options *repair,
                      tally *t, char *why, size_t why_size) {
    psb_mesh *parts = NULL;
    int count = 0;
    psb_error err = {0};
    psb_repair_report report;
    if (psb_mesh_load_obj(path, repair, &parts, &count, &report, NULL, &err) != PSB_OK) {
        a->load_errors++;
        if (err.message[0]) {
            snprintf(why, why_size, "%s", err.message);
        } else {
            snprintf(why, why_size, "%s: cannot load the file", path);
        }
        return false;
    }
    bool ok = next->body_count + count <= PSB_SCENE_MAX_BODIES;
    if (!ok) {
        a->load_errors++;
        snprintf(why, why_size, "%s: %d closed parts: more than the %d bodies a scene holds", path,
                 count, PSB_SCENE_MAX_BODIES);
    }
    const int first = next->body_count;
    for (int k = 0; k < count && ok; k++) {
        char label[sizeof next->bodies[0].label];
        if (count > 1) {
            snprintf(label, sizeof label, "%.52s#%d", base_name(path), k + 1);
        } else {
            snprintf(label, sizeof label, "%.63s", base_name(path));
        }
        if (psb_scene_add_mesh(next, &parts[k], label, &err) != PSB_OK) {
            a->load_errors++;
            snprintf(why, why_size, "%s: %s", path, err.message);
            ok = false;
        }
    }
    long points = 0;
    for (int k = 0; k < count; k++) {
        points += parts[k].point_count;
        psb_mesh_free(&parts[k]);
    }
    free(parts);
    if (ok) {
        t->bodies += next->body_count - first;
        t->files++;
        t->points += points;
        snprintf(t->summary, sizeof t->summary, "welded %d, flipped %d faces, filled %d holes",
                 report.welded, report.faces_flipped, report.holes_filled);
    }
    return ok;
}

void models_load_files(app *a, const char *const *paths, int count) {
    psb_scene next;
    psb_error err = {0};
    // From the pile scene the files drop onto a new pile, as psb sim --scene
    // pile --mesh drops them; from any other, onto the ring's stage.
    const char *stage = strcmp(a->scene_name, "pile") == 0 ? "pile" : "ring";
    if (psb_scene_build(&next, stage, &a->config.scene_config, &err) != PSB_OK) {
        status_message(a, true, "%s", err.message);
        return;
    }
    tally t = {0};
    bool good[PSB_VIEWER_MAX_FILES] = {false};
    for (int i = 0; i < count; i++) {
        char why[MESSAGE_SIZE];
        const bool ok = load_file(a, &next, paths[i], &a->config.repair, &t, why, sizeof why);
        if (!ok) {
            status_message(a, true, "%s", why); // the last one stays in the HUD
        }
        if (i < PSB_VIEWER_MAX_FILES) {
            good[i] = ok;
        }
    }
    if (t.bodies == 0) {
        psb_scene_destroy(&next);
        return; // the message says why; the scene keeps running as it was
    }
    // The files that loaded are the scene list's last entry (Tab comes back to them).
    a->model_path_count = 0;
    for (int i = 0; i < count && i < PSB_VIEWER_MAX_FILES; i++) {
        if (good[i]) {
            snprintf(a->model_paths[a->model_path_count++], PATH_SIZE, "%s", paths[i]);
        }
    }
    a->models_loaded = true;
    a->models_scene = false;
    if (!stage_install(a, &next)) {
        return;
    }
    stage_frame(a);
    if (t.files < count) {
        return; // the HUD keeps the last file's error
    }
    if (t.files == 1) {
        status_message(
            a, false, "loaded %s: %d bod%s, %ld points (%s); Backspace: back to the scene",
            base_name(paths[0]), t.bodies, t.bodies == 1 ? "y" : "ies", t.points, t.summary);
    } else {
        status_message(a, false,
                       "loaded %d files: %d bodies, %ld points; Backspace: back to the scene",
                       t.files, t.bodies, t.points);
    }
}

void models_reload_files(app *a) {
    // The paths are copied: loading rewrites the list.
    char copies[PSB_VIEWER_MAX_FILES][PATH_SIZE];
    const char *paths[PSB_VIEWER_MAX_FILES];
    const int count = a->model_path_count;
    for (int i = 0; i < count; i++) {
        snprintf(copies[i], PATH_SIZE, "%s", a->model_paths[i]);
        paths[i] = copies[i];
    }
    models_load_files(a, paths, count);
}

// Is path a folder? If not, why not into why.
static bool is_folder(const char *path, char *why, size_t why_size) {
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return false;
    }
    snprintf(why, why_size, "not a folder");
    return S_ISDIR(st.st_mode);
}

// The meshes folder, as the shaders' is found: --meshes DIR, else
// share/psb/meshes beside the executable (an installed psb, wherever its
// prefix went), the source tree's meshes/, the install prefix's; the first
// that is a folder. False, and why, when there is none.
static bool find_folder(app *a, char *why, size_t why_size) {
    const char *given = a->config.meshes;
    if (given) {
        char reason[128];
        if (!is_folder(given, reason, sizeof reason)) {
            snprintf(why, why_size, "--meshes %s: %s", given, reason);
            return false;
        }
        snprintf(a->meshes_dir, sizeof a->meshes_dir, "%s", given);
        return true;
    }
    char relative[PATH_SIZE] = "";
    const char *candidates[3] = {NULL, PSB_MESHES_DIR_BUILD, PSB_MESHES_DIR_INSTALL};
    if (exe_relative_path(PSB_MESHES_DIR_RELATIVE, relative, sizeof relative)) {
        candidates[0] = relative;
    }
    for (int i = 0; i < 3; i++) {
        char reason[128];
        if (candidates[i] && is_folder(candidates[i], reason, sizeof reason)) {
            snprintf(a->meshes_dir, sizeof a->meshes_dir, "%s", candidates[i]);
            return true;
        }
    }
    snprintf(why, why_size,
             "found no meshes folder: looked in %s, %s and %s; point --meshes DIR at a folder of "
             "OBJ files",
             candidates[0] ? candidates[0] : "(no executable path)", PSB_MESHES_DIR_BUILD,
             PSB_MESHES_DIR_INSTALL);
    return false;
}

// A name the models scene takes: NAME.obj (any case), not hidden.
static bool obj_name(const char *name) {
    const size_t n = strlen(name);
    if (n <= 4 || name[0] == '.' || name[n - 4] != '.') {
        return false;
    }
    return tolower((unsigned char)name[n - 3]) == 'o' &&
           tolower((unsigned char)name[n - 2]) == 'b' && tolower((unsigned char)name[n - 1]) == 'j';
}

static int compare_names(const void *x, const void *y) {
    return strcmp(((const model_name *)x)->text, ((const model_name *)y)->text);
}

bool models_list(app *a, char *why, size_t why_size) {
    char scratch[MESSAGE_SIZE];
    if (!why) {
        why = scratch;
        why_size = sizeof scratch;
    }
    a->model_count = 0;
    a->meshes_dir[0] = '\0';
    if (!find_folder(a, why, why_size)) {
        return false;
    }
    DIR *dir = opendir(a->meshes_dir);
    if (!dir) {
        snprintf(why, why_size, "%s: cannot open the folder: %s", a->meshes_dir, strerror(errno));
        return false;
    }
    // Every regular file (or link to one) named *.obj; the list grows by
    // doubling, and is kept until the next listing.
    int capacity = 0;
    free(a->model_names);
    a->model_names = NULL;
    bool full = false;
    for (struct dirent *e = readdir(dir); e && !full; e = readdir(dir)) {
        char path[2 * PATH_SIZE];
        struct stat st;
        if (!obj_name(e->d_name) || strlen(e->d_name) >= sizeof a->model_names[0].text ||
            snprintf(path, sizeof path, "%s/%s", a->meshes_dir, e->d_name) >= (int)sizeof path ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            continue;
        }
        if (a->model_count == capacity) {
            const int grown = capacity ? 2 * capacity : 16;
            model_name *names = realloc(a->model_names, (size_t)grown * sizeof *names);
            if (!names) {
                full = true;
                break;
            }
            a->model_names = names;
            capacity = grown;
        }
        snprintf(a->model_names[a->model_count++].text, sizeof a->model_names[0].text, "%s",
                 e->d_name);
    }
    closedir(dir);
    if (full) {
        a->model_count = 0;
        snprintf(why, why_size, "%s: out of memory for the list of its files", a->meshes_dir);
        return false;
    }
    if (a->model_count == 0) {
        snprintf(why, why_size, "%s: no OBJ files (*.obj) in the folder", a->meshes_dir);
        return false;
    }
    qsort(a->model_names, (size_t)a->model_count, sizeof *a->model_names, compare_names);
    if (a->model_entry >= a->model_count) {
        a->model_entry = 0;
    }
    return true;
}

void models_show(app *a, int entry) {
    char why[MESSAGE_SIZE];
    const bool listed = models_list(a, why, sizeof why);
    psb_scene next;
    psb_error err = {0};
    if (psb_scene_build(&next, "ring", &a->config.scene_config, &err) != PSB_OK) {
        status_message(a, true, "scene %s: %s", MODELS_SCENE, err.message);
        return;
    }
    snprintf(a->scene_name, sizeof a->scene_name, "%s", MODELS_SCENE);
    a->models_scene = true;
    a->models_loaded = false;
    if (!listed) {
        // The ring alone on the stage, and why.
        if (stage_install(a, &next)) {
            stage_frame(a);
            status_message(a, true, "models: %s", why);
        }
        return;
    }
    const int n = a->model_count;
    a->model_entry = (entry % n + n) % n;
    const char *name = a->model_names[a->model_entry].text;
    char path[2 * PATH_SIZE];
    snprintf(path, sizeof path, "%s/%s", a->meshes_dir, name);
    // As `psb view FILE` loads it, with the holes filled: the bunny is open.
    psb_repair_options repair = a->config.repair;
    repair.fill_holes = true;
    tally t = {0};
    a->models_loaded = load_file(a, &next, path, &repair, &t, why, sizeof why);
    if (!stage_install(a, &next)) {
        return;
    }
    stage_frame(a);
    if (!a->models_loaded) {
        status_message(a, true, "model %d/%d: %s ('.' and ',': the next and the previous)",
                       a->model_entry + 1, n, why);
        return;
    }
    status_message(a, false,
                   "model %d/%d: %s, %d bod%s, %ld points (%s); '.' and ',': the next and the "
                   "previous",
                   a->model_entry + 1, n, name, t.bodies, t.bodies == 1 ? "y" : "ies", t.points,
                   t.summary);
}
