// psb-check-contact DIR: no point of any body inside another body (or, with
// --self, inside itself) in the frames `psb sim --export-obj DIR` wrote.
// Exit status 0: none; 1: some point is inside; 2: bad usage or a bad file.
// What it checks and how: docs/check_contact.md.
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact.h"

static const char *const USAGE =
    "usage: psb-check-contact DIR [--tolerance D] [--self] [--max-reports N]\n"
    "  reads every bodyB_stepS.obj in DIR and checks, step by step, every point of\n"
    "  every body against every other closed body of its kind (3D against 3D, rings\n"
    "  against rings) with the generalized winding number\n"
    "  --tolerance D    a point inside by D m or less is touching, not inside (default 0)\n"
    "  --self           also check each closed body's points against itself\n"
    "  --max-reports N  print the first N points found inside (default 20, 0: all)\n"
    "  exit status: 0 no point inside, 1 some point inside, 2 bad usage or bad file\n";

typedef struct options {
    const char *dir;
    double tolerance; // m
    bool self;
    long max_reports;
} options;

// One file of the folder: bodyB_stepS.obj.
typedef struct frame_file {
    int body;
    long step;
    char *name;
} frame_file;

// A point found inside (or touching) a body.
typedef struct finding {
    long step;
    int point, body, in; // point of body, inside body in
    double winding, depth;
    bool touching;
} finding;

typedef struct tally {
    long steps;
    int bodies;
    long pairs;       // point-body pairs looked at
    long windings;    // of them, inside the body's box: winding number computed
    long self_points; // --self: points checked against their own body
    long no_corner;   // --self: points without a corner angle (not manifold), not checked
    long open_files;  // files whose body is not closed: nothing checked against them
    long inside, touching, reported;
    bool any;
    finding deepest;
    int *noted; // bodies already named in a note
    int noted_count;
} tally;

static void fail_usage(const char *fmt, const char *arg) {
    fprintf(stderr, "psb-check-contact: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", USAGE);
    exit(2);
}

static options parse_options(int argc, char **argv) {
    options o = {.max_reports = 20};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (strcmp(a, "--self") == 0) {
            o.self = true;
        } else if (strcmp(a, "--tolerance") == 0 || strcmp(a, "--max-reports") == 0) {
            if (i + 1 == argc) {
                fail_usage("%s needs a value", a);
            }
            const char *v = argv[++i];
            char *end;
            errno = 0;
            if (a[2] == 't') {
                o.tolerance = strtod(v, &end);
                if (end == v || *end != '\0' || !isfinite(o.tolerance) || o.tolerance < 0.0) {
                    fail_usage("--tolerance: expected a distance >= 0 in m, got '%s'", v);
                }
            } else {
                o.max_reports = strtol(v, &end, 10);
                if (end == v || *end != '\0' || errno != 0 || o.max_reports < 0) {
                    fail_usage("--max-reports: expected a count >= 0, got '%s'", v);
                }
            }
        } else if (a[0] == '-') {
            fail_usage("unknown option '%s'", a);
        } else if (o.dir) {
            fail_usage("one folder only: '%s' is a second", a);
        } else {
            o.dir = a;
        }
    }
    if (!o.dir) {
        fail_usage("%s", "expected a folder of bodyB_stepS.obj files");
    }
    return o;
}

// Up to digits decimal digits at *s as a number; false when there are none.
static bool read_number(const char **s, int digits, long *out) {
    long n = 0;
    int k = 0;
    for (; k < digits && (*s)[k] >= '0' && (*s)[k] <= '9'; k++) {
        n = 10 * n + ((*s)[k] - '0');
    }
    *s += k;
    *out = n;
    return k > 0 && !((**s >= '0' && **s <= '9'));
}

// "body<B>_step<S>.obj" exactly, as psb writes them (no ".obj.tmp").
static bool parse_name(const char *name, int *body, long *step) {
    long b;
    const char *s = name;
    if (strncmp(s, "body", 4) != 0) {
        return false;
    }
    s += 4;
    if (!read_number(&s, 9, &b) || strncmp(s, "_step", 5) != 0) {
        return false;
    }
    s += 5;
    if (!read_number(&s, 18, step) || strcmp(s, ".obj") != 0) {
        return false;
    }
    *body = (int)b;
    return true;
}

static int compare_files(const void *l, const void *r) {
    const frame_file *a = l, *b = r;
    if (a->step != b->step) {
        return a->step < b->step ? -1 : 1;
    }
    return (a->body > b->body) - (a->body < b->body);
}

static int compare_ints(const void *l, const void *r) {
    const int a = *(const int *)l, b = *(const int *)r;
    return (a > b) - (a < b);
}

// The folder's body files, sorted by step, then body.
static frame_file *list_files(const char *dir, int *count) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "psb-check-contact: cannot open folder '%s': %s\n", dir, strerror(errno));
        exit(2);
    }
    int n = 0, capacity = 64;
    frame_file *files = cc_alloc((size_t)capacity, sizeof *files);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        frame_file f;
        if (!parse_name(e->d_name, &f.body, &f.step)) {
            continue;
        }
        if (n == capacity) {
            capacity *= 2;
            frame_file *bigger = realloc(files, (size_t)capacity * sizeof *files);
            if (!bigger) {
                fprintf(stderr, "psb-check-contact: out of memory\n");
                exit(2);
            }
            files = bigger;
        }
        const size_t len = strlen(e->d_name) + 1;
        f.name = cc_alloc(len, 1);
        memcpy(f.name, e->d_name, len);
        files[n++] = f;
    }
    closedir(d);
    if (n == 0) {
        fprintf(stderr, "psb-check-contact: no bodyB_stepS.obj files in '%s'\n", dir);
        exit(2);
    }
    qsort(files, (size_t)n, sizeof *files, compare_files);
    for (int i = 1; i < n; i++) {
        if (files[i].step == files[i - 1].step && files[i].body == files[i - 1].body) {
            fprintf(stderr, "psb-check-contact: %s and %s: two files for body %d at step %ld\n",
                    files[i - 1].name, files[i].name, files[i].body, files[i].step);
            exit(2);
        }
    }
    *count = n;
    return files;
}

// Whether a note about this body was already printed; marks it.
static bool noted_before(tally *t, int body) {
    for (int k = 0; k < t->noted_count; k++) {
        if (t->noted[k] == body) {
            return true;
        }
    }
    int *more = realloc(t->noted, (size_t)(t->noted_count + 1) * sizeof *more);
    if (!more) {
        fprintf(stderr, "psb-check-contact: out of memory\n");
        exit(2);
    }
    t->noted = more;
    t->noted[t->noted_count++] = body;
    return false;
}

static void print_finding(const finding *f) {
    char depth[64] = "depth unknown";
    if (f->depth >= 0.0) {
        snprintf(depth, sizeof depth, "depth %.6g", f->depth);
    }
    if (f->body != f->in) {
        printf("step %ld: point %d of body %d is inside body %d (winding number %.6g, %s)\n",
               f->step, f->point, f->body, f->in, f->winding, depth);
    } else if (f->winding > 0.0) {
        printf("step %ld: point %d of body %d is inside body %d itself (winding number %+.6g, "
               "%s)\n",
               f->step, f->point, f->body, f->in, f->winding, depth);
    } else {
        printf("step %ld: point %d of body %d has passed through body %d's own surface "
               "(winding number %+.6g, %s)\n",
               f->step, f->point, f->body, f->in, f->winding, depth);
    }
}

// Within this of a body's surface a point is touching it, m: the
// tolerance, and at least 1e-12 of the body's size (rounding), so a point
// exactly on the surface is never inside.
static double touch_distance(const options *o, const cc_body *in) {
    return fmax(o->tolerance, 1e-12 * in->size);
}

// A point with winding number above 1/2 (self: off its corner's by more
// than 1/2): inside, or touching when its depth is within touch_distance.
static void found(const options *o, tally *t, finding f, const cc_body *in) {
    const double touch = touch_distance(o, in);
    f.touching = f.depth >= 0.0 && f.depth <= touch;
    if (!t->any || f.depth > t->deepest.depth) {
        t->deepest = f;
        t->any = true;
    }
    if (f.touching) {
        t->touching++;
        return;
    }
    t->inside++;
    if (o->max_reports == 0 || t->reported < o->max_reports) {
        print_finding(&f);
        t->reported++;
    }
}

static bool in_box(const cc_body *b, cc_vec3 p) {
    return p.x >= b->lo.x && p.x <= b->hi.x && p.y >= b->lo.y && p.y <= b->hi.y &&
           (b->ring || (p.z >= b->lo.z && p.z <= b->hi.z));
}

static bool boxes_meet(const cc_body *a, const cc_body *b) {
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y &&
           (b->ring || (a->lo.z <= b->hi.z && b->lo.z <= a->hi.z));
}

// Every point of a against the closed body b: a box test for the pair, one
// for each point, and only then the winding number.
static void check_pair(const options *o, tally *t, long step, const cc_body *a, const cc_body *b) {
    t->pairs += a->point_count;
    if (!boxes_meet(a, b)) {
        return;
    }
    for (int i = 0; i < a->point_count; i++) {
        const cc_vec3 p = a->points[i];
        if (!in_box(b, p)) {
            continue;
        }
        t->windings++;
        const double w = cc_winding(b, p, -1);
        if (w > 0.5) {
            const double depth = cc_distance(b, p, -1, false);
            found(o, t, (finding){step, i, a->index, b->index, w, depth, false}, b);
        }
    }
}

// Each point of a closed body against the rest of it. The winding number
// of the whole surface at one of its own points is the fraction of a small
// sphere round it that its own corner puts inside (1/2 on a flat patch,
// 1/8 at a cube's corner), not 0 or 1. So: leave out the triangles that use
// the point (they contain it: their solid angle from it is 0/0), sum the
// rest, and subtract the corner's fraction (found from the point's fan,
// contact_body.c). What remains is a whole number: 0 when no other part of
// the body encloses the point, +1 when one does (the point is in a doubly
// covered part), -1 when the surface has passed through itself there (a
// pocket turned inside out); half-way (1/2) when it lies on another part of
// the surface. Off 0 by more than 1/2 counts. Its depth: when the point is
// within touch_distance of a triangle that does not use it (the surface
// folded flat onto it), that distance, and the point is touching; else the
// distance to the triangles that use neither it nor its neighbours (those
// are always about an edge away), which is the depth past the sheet it went
// through up to about an edge length.
static void check_self(const options *o, tally *t, long step, const cc_body *b) {
    for (int i = 0; i < b->point_count; i++) {
        t->self_points++;
        if (b->local[i] < 0.0) {
            t->no_corner++;
            continue;
        }
        const cc_vec3 p = b->points[i];
        const double w = cc_winding(b, p, i) - b->local[i];
        if (fabs(w) > 0.5) {
            double depth = cc_distance(b, p, i, false);
            if (!(depth >= 0.0 && depth <= touch_distance(o, b))) {
                const double far = cc_distance(b, p, i, true);
                depth = far >= 0.0 ? far : depth;
            }
            found(o, t, (finding){step, i, b->index, b->index, w, depth, false}, b);
        }
    }
}

static void check_step(const options *o, tally *t, long step, const cc_body *bodies, int count) {
    for (int a = 0; a < count; a++) {
        for (int b = 0; b < count; b++) {
            if (a != b && bodies[b].closed && bodies[a].ring == bodies[b].ring) {
                check_pair(o, t, step, &bodies[a], &bodies[b]);
            }
        }
    }
    if (o->self) {
        for (int b = 0; b < count; b++) {
            if (bodies[b].closed) {
                check_self(o, t, step, &bodies[b]);
            }
        }
    }
}

static void load_body(const options *o, tally *t, const frame_file *f, cc_body *b) {
    const size_t len = strlen(o->dir) + strlen(f->name) + 2;
    char *path = cc_alloc(len, 1);
    snprintf(path, len, "%s/%s", o->dir, f->name);
    char err[512];
    if (!cc_body_read(path, b, err, sizeof err)) {
        fprintf(stderr, "psb-check-contact: %s\n", err);
        exit(2);
    }
    free(path);
    b->index = f->body;
    b->step = f->step;
    cc_body_prepare(b, o->self);
    if (!b->closed) {
        t->open_files++;
        if (!noted_before(t, b->index)) {
            printf("note: body %d (%s) is not closed: %s; nothing is checked against it, its "
                   "points are checked\n",
                   b->index, f->name, b->why_open);
        }
    } else if (b->reversed && !noted_before(t, -1 - b->index)) {
        printf("note: body %d (%s) has a negative %s: its faces are taken reversed\n", b->index,
               f->name, b->ring ? "area" : "volume");
    }
}

static void print_summary(const options *o, const tally *t) {
    printf("summary: steps %ld, bodies %d, point-body pairs %ld (in a box, winding number "
           "computed: %ld)",
           t->steps, t->bodies, t->pairs, t->windings);
    if (o->self) {
        printf(", points against their own body %ld (without a corner angle, not checked: %ld)",
               t->self_points, t->no_corner);
    }
    if (t->open_files > 0) {
        printf(", files not closed %ld", t->open_files);
    }
    printf(", inside %ld, touching %ld (tolerance %g m)", t->inside, t->touching, o->tolerance);
    if (t->any) {
        const finding *f = &t->deepest;
        printf(", deepest: point %d of body %d in body %d at step %ld, depth %.6g m (%s)\n",
               f->point, f->body, f->in, f->step, f->depth, f->touching ? "touching" : "inside");
    } else {
        printf(", deepest: none\n");
    }
    if (t->inside > t->reported) {
        printf("(%ld more points inside not listed: --max-reports 0 lists all)\n",
               t->inside - t->reported);
    }
}

int main(int argc, char **argv) {
    const options o = parse_options(argc, argv);
    int file_count = 0;
    frame_file *files = list_files(o.dir, &file_count);
    tally t = {0};

    int *indices = cc_alloc((size_t)file_count, sizeof *indices);
    for (int i = 0; i < file_count; i++) {
        indices[i] = files[i].body;
    }
    qsort(indices, (size_t)file_count, sizeof *indices, compare_ints);
    for (int i = 0; i < file_count; i++) {
        t.bodies += i == 0 || indices[i] != indices[i - 1];
    }
    free(indices);

    // One step at a time: its bodies are read, checked and freed together.
    cc_body *bodies = cc_alloc((size_t)file_count, sizeof *bodies);
    for (int first = 0; first < file_count;) {
        int end = first;
        while (end < file_count && files[end].step == files[first].step) {
            end++;
        }
        for (int i = first; i < end; i++) {
            load_body(&o, &t, &files[i], &bodies[i - first]);
        }
        check_step(&o, &t, files[first].step, bodies, end - first);
        for (int i = first; i < end; i++) {
            cc_body_free(&bodies[i - first]);
        }
        t.steps++;
        first = end;
    }
    print_summary(&o, &t);

    for (int i = 0; i < file_count; i++) {
        free(files[i].name);
    }
    free(files);
    free(bodies);
    free(t.noted);
    return t.inside > 0 ? 1 : 0;
}
