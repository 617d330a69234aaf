// The scene list: the viewer's scenes (psb_scene's, then the models scene
// of models.c), then the OBJ files given or dropped last, if any; which
// entry is shown, and going to another (digits, Tab, Backspace). A
// built-in scene is built here and handed to the stage (stage.c).
#include "scenes.h"

#include "models.h"
#include "stage.h"
#include "status.h"

#include <string.h>

int psb_viewer_scene_count(void) {
    return psb_scene_count() + 1;
}

const char *psb_viewer_scene_name(int index) {
    return index == psb_scene_count() ? MODELS_SCENE : psb_scene_name(index);
}

const char *psb_viewer_scene_summary(int index) {
    return index == psb_scene_count()
               ? "the meshes folder's models, one at a time on the ring's stage, holes filled "
                 "('.' and ',': the next and the previous)"
               : psb_scene_summary(index);
}

int psb_viewer_scene_find(const char *name) {
    return strcmp(name, MODELS_SCENE) == 0 ? psb_scene_count() : psb_scene_find(name);
}

int scenes_entry(const app *a) {
    if (a->models_scene) {
        return psb_viewer_scene_find(MODELS_SCENE);
    }
    return a->models_loaded ? psb_viewer_scene_count() : psb_viewer_scene_find(a->scene.name);
}

int scenes_entries(const app *a) {
    return psb_viewer_scene_count() + (a->model_path_count > 0);
}

// Builds and shows the scene called name (a psb_viewer_scene_name); on
// failure says why and keeps the scene.
static void load_scene(app *a, const char *name) {
    if (strcmp(name, MODELS_SCENE) == 0) {
        models_show(a, a->model_entry);
        return;
    }
    psb_scene next;
    psb_error err = {0};
    if (psb_scene_build(&next, name, &a->config.scene_config, &err) != PSB_OK) {
        status_message(a, true, "scene %s: %s", name, err.message);
        return;
    }
    snprintf(a->scene_name, sizeof a->scene_name, "%s", name);
    a->models_loaded = false;
    a->models_scene = false;
    if (!stage_install(a, &next)) {
        return;
    }
    stage_frame(a);
    const int index = psb_scene_find(name);
    status_message(a, false, "scene '%s': %s", name, psb_scene_summary(index));
}

void scenes_switch(app *a, int entry) {
    if (entry >= 0 && entry < psb_viewer_scene_count()) {
        load_scene(a, psb_viewer_scene_name(entry));
    } else if (entry == psb_viewer_scene_count() && a->model_path_count > 0) {
        models_reload_files(a);
    }
}

void scenes_load_builtin(app *a) {
    char name[sizeof a->scene_name];
    snprintf(name, sizeof name, "%s", a->scene_name);
    load_scene(a, name);
}
