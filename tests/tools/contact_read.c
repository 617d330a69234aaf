// One body's OBJ file read into points, triangles and segments.
//
// A reader of its own rather than psb_obj_parse: the checker must not share
// code with what it checks (a bug in the reader would hide itself), it
// needs the `l` lines that psb_obj_parse ignores, and it must take the points
// exactly as written, with no welding or repair.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"

void *cc_alloc(size_t count, size_t size) {
    void *p = calloc(count > 0 ? count : 1, size);
    if (!p) {
        fprintf(stderr, "psb-check-contact: out of memory (%zu x %zu bytes)\n", count, size);
        exit(2);
    }
    return p;
}

// A growable array of ints or points.
typedef struct grow {
    void *data;
    int count, capacity;
    size_t item;
} grow;

static void *grow_push(grow *g) {
    if (g->count == g->capacity) {
        const int capacity = g->capacity > 0 ? 2 * g->capacity : 64;
        void *data = realloc(g->data, (size_t)capacity * g->item);
        if (!data) {
            fprintf(stderr, "psb-check-contact: out of memory\n");
            exit(2);
        }
        g->data = data;
        g->capacity = capacity;
    }
    return (char *)g->data + (size_t)g->count++ * g->item;
}

static void push_int(grow *g, int value) {
    *(int *)grow_push(g) = value;
}

static bool fail(char *err, size_t err_size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return false;
}

// The whole file, NUL-terminated; NULL with the reason in err.
static char *slurp(const char *path, size_t *size, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t capacity = 1 << 16, n = 0;
    char *text = cc_alloc(capacity, 1);
    for (;;) {
        n += fread(text + n, 1, capacity - n - 1, f);
        if (n < capacity - 1) {
            break;
        }
        capacity *= 2;
        char *bigger = realloc(text, capacity);
        if (!bigger) {
            fprintf(stderr, "psb-check-contact: out of memory reading %s\n", path);
            exit(2);
        }
        text = bigger;
    }
    const bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        free(text);
        fail(err, err_size, "%s: cannot read", path);
        return NULL;
    }
    text[n] = '\0';
    *size = n;
    return text;
}

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_spaces(const char *s) {
    while (is_space(*s)) {
        s++;
    }
    return s;
}

// One index of an `f` or `l` line ("7", "-2", "7/3", "7//5", "7/3/5") as a
// 0-based point: a positive index counts from 1, a negative one back from
// the last point read so far. Either must name a point already read (a
// point after its face would be a forward reference, which psb never writes).
static bool read_index(const char **s, int points_so_far, int *out) {
    char *end;
    errno = 0;
    const long i = strtol(*s, &end, 10);
    if (end == *s || errno != 0 || i == 0 || i > (long)points_so_far || i < -(long)points_so_far) {
        return false;
    }
    // Texture and normal indices ("/3", "//5", "/3/5"): not used.
    for (int k = 0; k < 2 && *end == '/'; k++) {
        end += end[1] == '-' ? 2 : 1;
        while (*end >= '0' && *end <= '9') {
            end++;
        }
    }
    if (*end != '\0' && !is_space(*end)) {
        return false;
    }
    *out = i > 0 ? (int)(i - 1) : points_so_far + (int)i;
    *s = end;
    return true;
}

bool cc_body_read(const char *path, cc_body *b, char *err, size_t err_size) {
    memset(b, 0, sizeof *b);
    size_t size = 0;
    char *text = slurp(path, &size, err, err_size);
    if (!text) {
        return false;
    }
    grow points = {.item = sizeof(cc_vec3)}, tris = {.item = sizeof(int)};
    grow segs = {.item = sizeof(int)}, corners = {.item = sizeof(int)};
    bool ok = true;
    int line = 0;
    for (char *s = text; ok && *s != '\0';) {
        char *eol = strchr(s, '\n');
        if (eol) {
            *eol = '\0';
        }
        line++;
        const char *p = skip_spaces(s);
        s = eol ? eol + 1 : s + strlen(s);
        const bool is_v = p[0] == 'v' && is_space(p[1]);
        const bool is_f = p[0] == 'f' && is_space(p[1]);
        const bool is_l = p[0] == 'l' && is_space(p[1]);
        if (is_v) {
            cc_vec3 *v = grow_push(&points);
            double *c[3] = {&v->x, &v->y, &v->z};
            p += 2;
            for (int k = 0; ok && k < 3; k++) {
                char *end;
                *c[k] = strtod(p, &end);
                if (end == p || (*end != '\0' && !is_space(*end)) || !isfinite(*c[k])) {
                    ok = fail(err, err_size, "%s:%d: expected three finite coordinates after 'v'",
                              path, line);
                }
                p = end;
            }
        } else if (is_f || is_l) {
            corners.count = 0;
            p = skip_spaces(p + 2);
            while (ok && *p != '\0') {
                int index;
                if (!read_index(&p, points.count, &index)) {
                    ok = fail(err, err_size,
                              "%s:%d: expected a point index: 1 to %d, or -1 to -%d counting back",
                              path, line, points.count, points.count);
                    break;
                }
                push_int(&corners, index);
                p = skip_spaces(p);
            }
            const int *c = corners.data;
            if (ok && corners.count < (is_f ? 3 : 2)) {
                ok = fail(err, err_size, "%s:%d: expected at least %d indices after '%c'", path,
                          line, is_f ? 3 : 2, is_f ? 'f' : 'l');
            } else if (ok && is_f) {
                // A polygon as a fan from its first corner: the fan of a flat
                // polygon has the polygon's own solid angle, convex or not.
                for (int k = 1; k + 1 < corners.count; k++) {
                    push_int(&tris, c[0]);
                    push_int(&tris, c[k]);
                    push_int(&tris, c[k + 1]);
                }
            } else if (ok) {
                for (int k = 0; k + 1 < corners.count; k++) {
                    push_int(&segs, c[k]);
                    push_int(&segs, c[k + 1]);
                }
            }
        }
    }
    free(text);
    free(corners.data);
    if (ok && points.count == 0) {
        ok = fail(err, err_size, "%s: no 'v' lines: expected a body's points", path);
    }
    if (!ok) {
        free(points.data);
        free(tris.data);
        free(segs.data);
        return false;
    }
    size_t len = strlen(path) + 1;
    b->path = cc_alloc(len, 1);
    memcpy(b->path, path, len);
    b->points = points.data;
    b->point_count = points.count;
    b->tris = tris.data;
    b->tri_count = tris.count / 3;
    b->segs = segs.data;
    b->seg_count = segs.count / 2;
    return true;
}

void cc_body_free(cc_body *b) {
    free(b->path);
    free(b->points);
    free(b->tris);
    free(b->segs);
    free(b->nodes);
    free(b->order);
    free(b->edges);
    free(b->fan_first);
    free(b->fan);
    free(b->local);
    memset(b, 0, sizeof *b);
}
