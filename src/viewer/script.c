// Scripted input: timed mouse and keyboard events replayed through the same
// handlers as the real ones, so that tests can drive the viewer.
//
// One event per line, `FRAME EVENT ARGS...`, '#' starts a comment:
//   10 mouse_move X Y              cursor to window coordinates (pixels, top left)
//   10 mouse_move_body B [DX DY]   cursor onto body B's centre, plus (DX, DY) pixels
//   10 mouse_move_point B P [DX DY] cursor onto point P of body B, plus (DX, DY) pixels
//   10 mouse_move_by DX DY         cursor moved by (DX, DY) pixels
//   10 mouse_move_panel ROW PART [F]  cursor onto the parameter panel: ROW a control
//                                  (gas, ks, kd, mass, gravity, restitution, friction,
//                                  dt, integrator), PART value|slider|reset (F: 0..1
//                                  along the slider, default 0.5); or "all reset"
//   10 mouse_down left|right|middle [shift] [ctrl] [alt]
//   10 mouse_up left|right|middle
//   10 click left|right|middle [shift] [ctrl] [alt]    down and up
//   10 scroll DY                   wheel steps (> 0 zooms in)
//   10 key NAME [shift] [ctrl] [alt]                    press and release
//   10 key_down NAME [mods] / key_up NAME
//   10 type TEXT                   characters typed (the rest of the line), as into a field
//   10 drop PATH                   a file dropped on the window (rest of the line)
//   10 screenshot PATH             write this frame as PNG (rest of the line)
//   10 resize W H                  resize the window (screen coordinates)
//   10 quit
// Key names: A-Z, 0-9, SPACE, ESCAPE, ENTER, TAB, BACKSPACE, HOME, UP, DOWN,
// LEFT, RIGHT, F1-F12, PLUS, MINUS, EQUAL, LEFT_BRACKET, RIGHT_BRACKET, PERIOD,
// COMMA.
#include "script.h"

#include "controls.h"
#include "input.h"
#include "panel.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    EV_MOVE,
    EV_MOVE_BODY,
    EV_MOVE_POINT,
    EV_MOVE_BY,
    EV_MOVE_PANEL,
    EV_DOWN,
    EV_UP,
    EV_CLICK,
    EV_SCROLL,
    EV_KEY,
    EV_KEY_DOWN,
    EV_KEY_UP,
    EV_TYPE,
    EV_DROP,
    EV_SCREENSHOT,
    EV_RESIZE,
    EV_QUIT,
    EV_COUNT,
};

static const char *const event_names[EV_COUNT] = {
    [EV_MOVE] = "mouse_move",
    [EV_MOVE_BODY] = "mouse_move_body",
    [EV_MOVE_POINT] = "mouse_move_point",
    [EV_MOVE_BY] = "mouse_move_by",
    [EV_MOVE_PANEL] = "mouse_move_panel",
    [EV_DOWN] = "mouse_down",
    [EV_UP] = "mouse_up",
    [EV_CLICK] = "click",
    [EV_SCROLL] = "scroll",
    [EV_KEY] = "key",
    [EV_KEY_DOWN] = "key_down",
    [EV_KEY_UP] = "key_up",
    [EV_TYPE] = "type",
    [EV_DROP] = "drop",
    [EV_SCREENSHOT] = "screenshot",
    [EV_RESIZE] = "resize",
    [EV_QUIT] = "quit",
};

// The parts of a panel row a script can point at.
static bool parse_part(const char *row, const char *name, script_event *ev) {
    static const char *const names[3] = {"value", "slider", "reset"};
    static const panel_part parts[3] = {PART_VALUE, PART_SLIDER, PART_RESET};
    if (strcmp(row, "all") == 0) {
        ev->body = -1;
        ev->code = PART_RESET_ALL;
        return strcmp(name, "reset") == 0;
    }
    ev->body = control_find(row);
    for (int i = 0; i < 3 && ev->body >= 0; i++) {
        if (strcmp(name, names[i]) == 0) {
            ev->code = parts[i];
            return true;
        }
    }
    return false;
}

typedef struct key_name {
    const char *name;
    int key;
} key_name;

static const key_name special_keys[] = {
    {"SPACE", GLFW_KEY_SPACE},
    {"ESCAPE", GLFW_KEY_ESCAPE},
    {"ESC", GLFW_KEY_ESCAPE},
    {"ENTER", GLFW_KEY_ENTER},
    {"TAB", GLFW_KEY_TAB},
    {"BACKSPACE", GLFW_KEY_BACKSPACE},
    {"HOME", GLFW_KEY_HOME},
    {"UP", GLFW_KEY_UP},
    {"DOWN", GLFW_KEY_DOWN},
    {"LEFT", GLFW_KEY_LEFT},
    {"RIGHT", GLFW_KEY_RIGHT},
    {"PLUS", GLFW_KEY_KP_ADD},
    {"MINUS", GLFW_KEY_MINUS},
    {"EQUAL", GLFW_KEY_EQUAL},
    {"LEFT_BRACKET", GLFW_KEY_LEFT_BRACKET},
    {"RIGHT_BRACKET", GLFW_KEY_RIGHT_BRACKET},
    {"PERIOD", GLFW_KEY_PERIOD},
    {"COMMA", GLFW_KEY_COMMA},
};

static bool parse_key(const char *name, int *key) {
    const size_t len = strlen(name);
    if (len == 1 && isalpha((unsigned char)name[0])) {
        *key = GLFW_KEY_A + (toupper((unsigned char)name[0]) - 'A');
        return true;
    }
    if (len == 1 && isdigit((unsigned char)name[0])) {
        *key = GLFW_KEY_0 + (name[0] - '0');
        return true;
    }
    if ((name[0] == 'F' || name[0] == 'f') && len >= 2 && len <= 3) {
        char *end = NULL;
        const long n = strtol(name + 1, &end, 10);
        if (*end == '\0' && n >= 1 && n <= 12) {
            *key = GLFW_KEY_F1 + (int)(n - 1);
            return true;
        }
    }
    for (size_t i = 0; i < sizeof special_keys / sizeof special_keys[0]; i++) {
        if (strcasecmp(name, special_keys[i].name) == 0) {
            *key = special_keys[i].key;
            return true;
        }
    }
    return false;
}

static bool parse_button(const char *name, int *button) {
    static const char *const names[3] = {"left", "right", "middle"};
    static const int buttons[3] = {GLFW_MOUSE_BUTTON_LEFT, GLFW_MOUSE_BUTTON_RIGHT,
                                   GLFW_MOUSE_BUTTON_MIDDLE};
    for (int i = 0; i < 3; i++) {
        if (strcasecmp(name, names[i]) == 0) {
            *button = buttons[i];
            return true;
        }
    }
    return false;
}

static bool parse_number(const char *text, float *out) {
    if (!text) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || !isfinite(v)) {
        return false;
    }
    *out = (float)v;
    return true;
}

// Modifier words after the event's own arguments.
static bool parse_mods(char **words, int count, int *mods, const char **bad) {
    *mods = 0;
    for (int i = 0; i < count; i++) {
        if (strcasecmp(words[i], "shift") == 0) {
            *mods |= GLFW_MOD_SHIFT;
        } else if (strcasecmp(words[i], "ctrl") == 0) {
            *mods |= GLFW_MOD_CONTROL;
        } else if (strcasecmp(words[i], "alt") == 0) {
            *mods |= GLFW_MOD_ALT;
        } else {
            *bad = words[i];
            return false;
        }
    }
    return true;
}

// Parses the words of one line (after the frame) into ev; the rest of the
// line after the event name is `rest` (for paths). On failure writes what
// was expected into expected.
static bool parse_event(char **w, int n, const char *rest, script_event *ev, char *expected,
                        size_t expected_size) {
    int type = -1;
    for (int t = 0; t < EV_COUNT; t++) {
        if (strcmp(w[0], event_names[t]) == 0) {
            type = t;
        }
    }
    const char *bad = NULL;
    ev->type = type;
    switch (type) {
    case EV_MOVE:
        snprintf(expected, expected_size, "mouse_move X Y (window pixels)");
        return n == 3 && parse_number(w[1], &ev->x) && parse_number(w[2], &ev->y);
    case EV_MOVE_BY:
        snprintf(expected, expected_size, "mouse_move_by DX DY (pixels)");
        return n == 3 && parse_number(w[1], &ev->x) && parse_number(w[2], &ev->y);
    case EV_MOVE_BODY: {
        snprintf(expected, expected_size, "mouse_move_body BODY [DX DY]");
        float body = -1.0f;
        if (!(n == 2 || n == 4) || !parse_number(w[1], &body) || body < 0.0f ||
            body != floorf(body)) {
            return false;
        }
        ev->body = (int)body;
        return n == 2 || (parse_number(w[2], &ev->x) && parse_number(w[3], &ev->y));
    }
    case EV_MOVE_POINT: {
        snprintf(expected, expected_size, "mouse_move_point BODY POINT [DX DY]");
        float body = -1.0f, point = -1.0f;
        if (!(n == 3 || n == 5) || !parse_number(w[1], &body) || body < 0.0f ||
            body != floorf(body) || !parse_number(w[2], &point) || point < 0.0f ||
            point != floorf(point)) {
            return false;
        }
        ev->body = (int)body;
        ev->code = (int)point;
        return n == 3 || (parse_number(w[3], &ev->x) && parse_number(w[4], &ev->y));
    }
    case EV_MOVE_PANEL:
        snprintf(expected, expected_size,
                 "mouse_move_panel ROW value|slider|reset [F] (ROW: gas, ks, kd, mass, gravity, "
                 "restitution, friction, dt or integrator; F: 0..1 along the slider), or "
                 "mouse_move_panel all reset");
        ev->x = 0.5f;
        if (!(n == 3 || n == 4) || !parse_part(w[1], w[2], ev)) {
            return false;
        }
        return n == 3 || (ev->code == PART_SLIDER && parse_number(w[3], &ev->x) && ev->x >= 0.0f &&
                          ev->x <= 1.0f);
    case EV_TYPE:
        snprintf(expected, expected_size, "type TEXT");
        if (n < 2) {
            return false;
        }
        ev->text = malloc(strlen(rest) + 1);
        if (!ev->text) {
            snprintf(expected, expected_size, "memory for the text");
            return false;
        }
        strcpy(ev->text, rest);
        return true;
    case EV_DOWN:
    case EV_CLICK:
    case EV_UP:
        snprintf(expected, expected_size, "%s left|right|middle%s", w[0],
                 type == EV_UP ? "" : " [shift] [ctrl] [alt]");
        if (n < 2 || !parse_button(w[1], &ev->code) || (type == EV_UP && n != 2)) {
            return false;
        }
        return parse_mods(w + 2, n - 2, &ev->mods, &bad);
    case EV_SCROLL:
        snprintf(expected, expected_size, "scroll DY (wheel steps)");
        return n == 2 && parse_number(w[1], &ev->y);
    case EV_KEY:
    case EV_KEY_DOWN:
    case EV_KEY_UP:
        snprintf(expected, expected_size, "%s NAME [shift] [ctrl] [alt] (see the README for names)",
                 w[0]);
        if (n < 2 || !parse_key(w[1], &ev->code)) {
            return false;
        }
        return parse_mods(w + 2, n - 2, &ev->mods, &bad);
    case EV_DROP:
    case EV_SCREENSHOT:
        snprintf(expected, expected_size, "%s PATH", w[0]);
        if (n < 2) {
            return false;
        }
        ev->text = malloc(strlen(rest) + 1);
        if (!ev->text) {
            snprintf(expected, expected_size, "memory for a path");
            return false;
        }
        strcpy(ev->text, rest);
        return true;
    case EV_RESIZE:
        snprintf(expected, expected_size, "resize W H (screen coordinates, 64..16384)");
        return n == 3 && parse_number(w[1], &ev->x) && parse_number(w[2], &ev->y) &&
               ev->x >= 64.0f && ev->y >= 64.0f && ev->x <= 16384.0f && ev->y <= 16384.0f;
    case EV_QUIT:
        snprintf(expected, expected_size, "quit (no arguments)");
        return n == 1;
    default:
        snprintf(expected, expected_size,
                 "an event: mouse_move, mouse_move_body, mouse_move_point, mouse_move_by, "
                 "mouse_move_panel, mouse_down, mouse_up, click, scroll, key, key_down, key_up, "
                 "type, drop, screenshot, resize or quit");
        return false;
    }
}

static int by_frame(const void *pa, const void *pb) {
    const script_event *a = pa, *b = pb;
    if (a->frame != b->frame) {
        return a->frame < b->frame ? -1 : 1;
    }
    return a->line < b->line ? -1 : a->line > b->line;
}

// Splits line into words in place; returns how many (at most max).
static int split(char *line, char **words, int max, char **rest_after_second) {
    int n = 0;
    char *p = line;
    *rest_after_second = NULL;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        if (!*p) {
            break;
        }
        if (n == 2 && !*rest_after_second) {
            *rest_after_second = p;
        }
        words[n++] = p;
        while (*p && *p != ' ' && *p != '\t') {
            p++;
        }
        if (*p) {
            *p++ = '\0';
        }
    }
    return n;
}

static bool add_event(app *a, int *capacity, const script_event *ev) {
    if (a->event_count == *capacity) {
        const int cap = *capacity ? 2 * *capacity : 64;
        script_event *events = realloc(a->events, (size_t)cap * sizeof *events);
        if (!events) {
            return false;
        }
        a->events = events;
        *capacity = cap;
    }
    a->events[a->event_count++] = *ev;
    return true;
}

bool script_load(app *a, const char *path, char *error, size_t error_size) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(error, error_size, "%s: cannot open the input script: %s", path, strerror(errno));
        return false;
    }
    char line[PATH_SIZE + 64];
    int number = 0, capacity = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        number++;
        line[strcspn(line, "\r\n")] = '\0';
        char *hash = strchr(line, '#');
        // '#' starts a comment, except inside a path or typed text.
        if (hash && !strstr(line, " drop ") && !strstr(line, " screenshot ") &&
            !strstr(line, " type ")) {
            *hash = '\0';
        }
        // The rest of the line after the event name, for paths; trailing spaces off.
        char copy[sizeof line];
        snprintf(copy, sizeof copy, "%s", line);
        char *words[16], *rest = NULL;
        const int n = split(line, words, 16, &rest);
        if (n == 0) {
            continue;
        }
        const char *rest_text = "";
        if (rest) {
            rest_text = copy + (rest - line);
            size_t len = strlen(copy);
            while (len > 0 && (copy[len - 1] == ' ' || copy[len - 1] == '\t')) {
                copy[--len] = '\0';
            }
        }
        script_event ev;
        memset(&ev, 0, sizeof ev);
        ev.line = number;
        char *end = NULL;
        const long frame = strtol(words[0], &end, 10);
        char expected[256];
        if (*end != '\0' || frame < 0) {
            snprintf(error, error_size, "%s:%d: expected a frame number >= 0, got '%s'", path,
                     number, words[0]);
            ok = false;
        } else if (n < 2) {
            snprintf(error, error_size, "%s:%d: expected an event after the frame number", path,
                     number);
            ok = false;
        } else if (!parse_event(words + 1, n - 1, rest_text, &ev, expected, sizeof expected)) {
            snprintf(error, error_size, "%s:%d: expected %s", path, number, expected);
            free(ev.text);
            ok = false;
        } else {
            ev.frame = frame;
            if (!add_event(a, &capacity, &ev)) {
                snprintf(error, error_size, "%s:%d: out of memory", path, number);
                free(ev.text);
                ok = false;
            }
        }
    }
    fclose(f);
    if (ok && a->event_count > 0) {
        qsort(a->events, (size_t)a->event_count, sizeof *a->events, by_frame);
    }
    return ok;
}

static void run_event(app *a, const script_event *ev) {
    switch (ev->type) {
    case EV_MOVE:
        input_cursor(a, ev->x, ev->y);
        break;
    case EV_MOVE_BODY: {
        double x, y;
        if (input_body_screen_pos(a, ev->body, &x, &y)) {
            input_cursor(a, x + ev->x, y + ev->y);
        } else {
            fprintf(stderr, "psb view: script line %d: body %d is not on screen\n", ev->line,
                    ev->body);
        }
        break;
    }
    case EV_MOVE_POINT: {
        double x, y;
        if (input_point_screen_pos(a, ev->body, ev->code, &x, &y)) {
            input_cursor(a, x + ev->x, y + ev->y);
        } else {
            fprintf(stderr, "psb view: script line %d: point %d of body %d is not on screen\n",
                    ev->line, ev->code, ev->body);
        }
        break;
    }
    case EV_MOVE_BY:
        input_cursor(a, a->cursor_x + ev->x, a->cursor_y + ev->y);
        break;
    case EV_MOVE_PANEL: {
        double x, y;
        if (panel_part_pos(a, ev->body, (panel_part)ev->code, ev->x, &x, &y)) {
            input_cursor(a, x, y);
        } else {
            fprintf(stderr,
                    "psb view: script line %d: that part of the parameter panel is not "
                    "shown (O shows the panel)\n",
                    ev->line);
        }
        break;
    }
    case EV_TYPE:
        for (const char *c = ev->text; *c; c++) {
            panel_char(a, (unsigned char)*c);
        }
        break;
    case EV_DOWN:
        input_button(a, ev->code, GLFW_PRESS, ev->mods);
        break;
    case EV_UP:
        input_button(a, ev->code, GLFW_RELEASE, 0);
        break;
    case EV_CLICK:
        input_button(a, ev->code, GLFW_PRESS, ev->mods);
        input_button(a, ev->code, GLFW_RELEASE, ev->mods);
        break;
    case EV_SCROLL:
        input_scroll(a, 0.0, ev->y);
        break;
    case EV_KEY:
        input_key(a, ev->code, GLFW_PRESS, ev->mods);
        input_key(a, ev->code, GLFW_RELEASE, ev->mods);
        break;
    case EV_KEY_DOWN:
        input_key(a, ev->code, GLFW_PRESS, ev->mods);
        break;
    case EV_KEY_UP:
        input_key(a, ev->code, GLFW_RELEASE, ev->mods);
        break;
    case EV_DROP: {
        const char *paths[1] = {ev->text};
        input_drop(a, 1, paths);
        break;
    }
    case EV_SCREENSHOT:
        snprintf(a->screenshot_path, sizeof a->screenshot_path, "%s", ev->text);
        a->screenshot_now = true;
        break;
    case EV_RESIZE:
        glfwSetWindowSize(a->window, (int)ev->x, (int)ev->y);
        break;
    case EV_QUIT:
        glfwSetWindowShouldClose(a->window, GLFW_TRUE);
        break;
    default:
        break;
    }
}

void script_run_frame(app *a) {
    while (a->next_event < a->event_count && a->events[a->next_event].frame <= a->frame) {
        run_event(a, &a->events[a->next_event]);
        a->next_event++;
    }
}

void script_free(app *a) {
    for (int i = 0; i < a->event_count; i++) {
        free(a->events[i].text);
    }
    free(a->events);
    a->events = NULL;
    a->event_count = 0;
}
