// Contact between bodies, once per world step (docs/contact.md): find every
// point of a body inside another body, or within the skin delta of its
// surface, then push the pairs apart (positions, 4 Gauss-Seidel passes) and
// give them restitution (velocities, 4 passes) and friction (one pass), each
// change an equal and opposite pair so that momentum is kept.
//
// What makes it fast, next to the plain version in src/model/model_contact.c:
// each surface's triangles (a ring's edges) sit in a uniform grid built once
// a step, so a point looks only at the cells within its search radius R_p,
// and only at the triangles whose boxes are that near; pairs whose boxes are
// apart and points outside the other body's grown box are skipped. The contacts are still found and
// resolved in the spec's order (body A, body B, A's points by index), so the result is the model's.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ring_rays.h"

#ifdef _OPENMP
#include <omp.h>
#endif

enum {
    POSITION_PASSES = 4, // Gauss-Seidel passes over the contacts' positions
    VELOCITY_PASSES = 4, // ... and over their normal velocities
    CELLS_PER_ELEMENT = 4,
    ITEMS_PER_ELEMENT = 8, // an element in as many cells, on the mean (surface_grid)
};

#define PI 3.14159265358979323846
// Where put_back leaves a point it puts back out of another body: this
// fraction of the skin past the surface.
#define PUT_BACK_GAP 0.01
// The last way out (way_out): a contact's point nearer its feature than
// this fraction of the skin is checked with the other body's winding number;
// at most WAY_OUT_SWEEPS sweeps over the contacts.
#define WAY_OUT_NEAR 0.5
enum { WAY_OUT_SWEEPS = 8, WAY_OUT_CROSSINGS = 8 };
// The ray of a way out stops at the first crossing that leaves the winding
// number at most this far on the side it started (whole numbers about
// another body, whole or halves about its own, where a corner is
// crumpled): 0, or a half, is reached whatever the rounding of the start.
#define WAY_OUT_LEFT 0.75
// A body's own way out (own_way_out): a point with more triangles than
// OWN_LOOP_MAX is not checked; a point whose own winding number is within
// 1/2 - OWN_SLACK of 0 is not through its surface (a crumpled umbrella gives a
// half: own_winding); it and the last way out take turns OWN_ROUNDS times
// at most.
enum { OWN_LOOP_MAX = 32, OWN_ROUNDS = 3 };
#define OWN_SLACK 0.25
// A point the own way out moved in each of OWN_STREAK world steps in a row
// and found through again is a fold the body's own forces make: it is left
// (own_way_out_point).
enum { OWN_STREAK = 8 };
// A shell's last try (own_relax_patch): the points within 1, then 2, then
// PATCH_RINGS rings of the point, at most PATCH_MAX of them and PATCH_MAX
// held round them, relaxed by PATCH_SWEEPS Gauss-Seidel sweeps.
enum { PATCH_RINGS = 3, PATCH_MAX = 64, PATCH_SWEEPS = 64 };

// A ring's edge in crossing_edges' sweep: its least x, and its index.
typedef struct edge_span {
    double lo;
    int e;
} edge_span;

// What contact keeps of a body: where its points were at the start of the
// world step, and, as a surface others (and it) touch, its elements
// (triangles, a ring's edges; none for a cloth of springs only), their
// normals, each point's neighbours and the grid.
typedef struct contact_body {
    double *start[3];    // positions at the start of the world step, internal order, m
    double *vstart[3];   // velocities then, m/s
    unsigned char *mark; // per point: in a contact, to be pushed out of the colliders
    double moved;        // D: the farthest any point moved in this step, m
    double fastest;      // the fastest point's speed at the start of a solved sub-step, m/s
    psb_vec3 mean_v;     // the points' mean velocity then, m/s
    double fastest_rel;  // the fastest point's speed less mean_v then, m/s
    psb_vec3 shift;      // t: the points' mean move in this step, m
    double moved_rel;    // D_rel: the farthest any point moved, less t, m
    psb_vec3 lo, hi;     // the box of the points now, m

    int elements; // triangles (a ring: edges)
    int per;      // corners per element: 3, or 2 on a ring
    int *corner;  // per * elements internal indices
    int *across;  // a triangle's triangle across edge e (corner e to e + 1): 3 per triangle, or -1
    // The points joined to each point by an edge of an element, internal
    // indices: next[next_start[k] .. next_start[k + 1] - 1] for point k.
    int *next_start, *next;
    double *face_n[3];  // unit normal of each element (outward), this step
    double *box[6];     // each element's box, this step: lo x, y, z, hi x, y, z, m
    double *point_n[3]; // pseudo-normal at each point (angle-weighted), this step
    long prepared;      // the world step of the normals and the grid, or -1
    bool touched;       // in a contact of this step
    int way_out;        // the last sweep of way_out that moved one of its points (-1: none)
    // own_way_out's queue of points to check, and per point whether queued.
    int *own_queue;
    unsigned char *own_queued;
    // Per point: whether it is through its own surface in the rest shape
    // (folded_at_rest: 0 not yet found, 1 no, 2 yes); the world step after
    // the last in which the own way out moved it or left it as a fold (0:
    // none), and in how many steps in a row it moved it (own_streak).
    unsigned char *rest_fold;
    long *own_last;
    unsigned char *own_streak;
    // The last check's (last_check): where each point was held when it last
    // looked, m, and per point whether it has moved since.
    double *held[3];
    unsigned char *shifted;
    struct edge_span *span; // a ring's edges by their least x (crossing_edges)
    ring_rays *rays;        // a ring's edges filed for its own winding numbers

    // A ring's links carried over (contact_keep_link_forces): the force the
    // point's link pushed with at the end of the last solved sub-step, N, and
    // the body it pushed against plus 1 (0: none).
    double *kept_force;
    int *kept_against;
    // A 3D body's links carried over the same way: the stretch of the
    // friction's spring (solve_link.anchor) where the last solved sub-step
    // left it, m, and the body it pushed against plus 1 (0: none); a point
    // with two such links keeps the later one's.
    double *kept_slip[3];
    int *slip_against;

    // The grid: dims cells of size cell from origin, element indices of
    // cell c at item[cell_start[c] .. cell_start[c + 1] - 1].
    psb_vec3 origin;
    double cell;
    int dims[3];
    int *cell_start;
    int *item;
    // Per cell, for the links of a body with itself (cell_cones): the unit
    // mean of its elements' normals, and the sine of the widest angle
    // between it and theirs (2 where none is to be skipped).
    double *cone_n[3];
    double *cone_sin;
} contact_body;

// One contact: point p of body a against element e of body b, whose point
// of the surface is sum beta_i x(corner_i), with normal n.
typedef struct contact {
    int a, p;
    int b, e;
    int corner[3];
    double beta[3];
    psb_vec3 n;
    double un0;  // the relative velocity along n at the start of the world step, m/s
    bool pushed; // the position passes had to push the pair apart
    bool inside; // p ended the step inside b, by b's winding number: put back (put_back)
} contact;

// One search's output and stamps: the contacts it found, in the order it
// found them, and per element of the surface searched the last query that
// looked at it (the elements of the largest surface have room).
typedef struct search {
    contact *items;
    int count, capacity;
    int *stamp;
    int stamp_size, query;
    // The links a search for contact inside the solve found, in order.
    solve_link *links;
    int link_count, link_capacity;
} search;

// A search on several threads runs in pieces: body a's points i0 to
// i1 - 1 (in rank order) against body b's surface (the stage's search with
// radius R), their contacts (or links) found into lane `lane` from `start`,
// `found` of them.
enum { SEARCH_PIECE = 1024 }; // points a piece takes at most
typedef struct search_piece {
    int a, b, i0, i1;
    double R;
    int lane, start, found;
} search_piece;

// The contacts of a step; and for a search on several threads, each
// thread's own search (lanes) and its pieces.
struct contact_list {
    contact *items;
    int count, capacity;
    int *stamp; // the search on one thread: its stamps
    int query;
    int stamp_size;
    search *lanes;
    int lane_count;
    search_piece *pieces;
    int piece_room;
};

static psb_vec3 v3(double x, double y, double z) {
    return (psb_vec3){x, y, z};
}
static psb_vec3 sub(psb_vec3 a, psb_vec3 b) {
    return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static psb_vec3 add(psb_vec3 a, psb_vec3 b) {
    return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static psb_vec3 scale(double s, psb_vec3 a) {
    return v3(s * a.x, s * a.y, s * a.z);
}
static double dot(psb_vec3 a, psb_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static psb_vec3 cross(psb_vec3 a, psb_vec3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static psb_vec3 unit(psb_vec3 a) {
    const double l = sqrt(dot(a, a));
    return l > 0.0 ? scale(1.0 / l, a) : v3(0.0, 0.0, 0.0);
}
static psb_vec3 point_at(const psb_body *b, int k) {
    return v3(b->x[0][k], b->x[1][k], b->x[2][k]);
}
// Moves point k by d, and BDF2's memory of where it was with it; with
// dt > 0 its velocity by d / dt too (the move is what a change of velocity
// over the step would have done), with dt = 0 not (a point put back out of
// another body: a correction of where it is, not a push).
static void move_point(psb_body *b, int k, psb_vec3 d, double dt) {
    const double from[3] = {b->x[0][k], b->x[1][k], b->x[2][k]};
    b->x[0][k] += d.x;
    b->x[1][k] += d.y;
    b->x[2][k] += d.z;
    if (dt > 0.0) {
        b->v[0][k] += d.x / dt;
        b->v[1][k] += d.y / dt;
        b->v[2][k] += d.z / dt;
    }
    body_shift_history(b, k, from);
}
static void kick_point(psb_body *b, int k, psb_vec3 d) {
    b->v[0][k] += d.x;
    b->v[1][k] += d.y;
    b->v[2][k] += d.z;
}

// ---- making and freeing a body's contact data

static void free3(double *a[3]) {
    for (int c = 0; c < 3; c++) {
        free(a[c]);
        a[c] = NULL;
    }
}

static bool alloc3(double *a[3], int n) {
    for (int c = 0; c < 3; c++) {
        a[c] = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
        if (!a[c]) {
            return false;
        }
    }
    return true;
}

void contact_body_destroy(contact_body *cb) {
    if (cb) {
        free3(cb->start);
        free3(cb->vstart);
        free(cb->mark);
        free(cb->own_queued);
        free(cb->rest_fold);
        free(cb->own_last);
        free(cb->own_streak);
        free3(cb->held);
        free(cb->shifted);
        free(cb->own_queue);
        free(cb->span);
        ring_rays_destroy(cb->rays);
        free(cb->kept_force);
        free(cb->kept_against);
        free3(cb->kept_slip);
        free(cb->slip_against);
        free3(cb->face_n);
        free3(cb->box);
        free3(cb->box + 3);
        free3(cb->point_n);
        free(cb->corner);
        free(cb->across);
        free(cb->next_start);
        free(cb->next);
        free(cb->cell_start);
        free(cb->item);
        free3(cb->cone_n);
        free(cb->cone_sin);
        free(cb);
    }
}

// The triangle across each edge: edge e of triangle t runs from corner e to
// corner e + 1, and the triangle across it has the same two corners (the
// other way round, where the triangles are wound alike). Sorting the
// directed edges by their ends finds them.
typedef struct directed_edge {
    int from, to, slot; // slot: 3 t + e
} directed_edge;

static int compare_edges(const void *pa, const void *pb) {
    const directed_edge *a = pa, *b = pb;
    if (a->from != b->from) {
        return a->from < b->from ? -1 : 1;
    }
    if (a->to != b->to) {
        return a->to < b->to ? -1 : 1;
    }
    return a->slot < b->slot ? -1 : a->slot > b->slot;
}

// The first entry of the sorted edges that runs from `from` to `to`
// (count if none).
static int first_edge(const directed_edge *edges, int count, int from, int to) {
    const directed_edge key = {from, to, -1};
    int lo = 0, hi = count;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (compare_edges(&edges[mid], &key) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// For each edge, the other triangle that has both its corners, the first in
// index order, whichever way it runs them (a cloth's triangles need not all
// be wound alike); -1: none.
static bool find_across(contact_body *cb) {
    const int count = 3 * cb->elements;
    directed_edge *edges = malloc((size_t)(count > 0 ? count : 1) * sizeof *edges);
    if (!edges) {
        return false;
    }
    for (int s = 0; s < count; s++) {
        const int t = s / 3, e = s % 3;
        edges[s] = (directed_edge){cb->corner[3 * t + e], cb->corner[3 * t + (e + 1) % 3], s};
        cb->across[s] = -1;
    }
    qsort(edges, (size_t)count, sizeof *edges, compare_edges);
    for (int s = 0; s < count; s++) {
        const int t = edges[s].slot / 3, from = edges[s].from, to = edges[s].to;
        int best = -1;
        for (int way = 0; way < 2; way++) {
            const int a = way == 0 ? to : from, b = way == 0 ? from : to;
            for (int at = first_edge(edges, count, a, b);
                 at < count && edges[at].from == a && edges[at].to == b; at++) {
                const int u = edges[at].slot / 3;
                if (u != t) {
                    best = best < 0 || u < best ? u : best;
                    break; // by slot: the first is the lowest triangle
                }
            }
        }
        cb->across[edges[s].slot] = best;
    }
    free(edges);
    return true;
}

// Each point's neighbours, the points joined to it by an edge of an element
// (a triangle's three edges, a ring's edge), each once, in increasing
// index: what a body's contacts with itself leave out.
static bool find_next(contact_body *cb, int points) {
    const int per = cb->per, slots = per * (per - 1) * cb->elements;
    cb->next_start = calloc((size_t)points + 1, sizeof(int));
    cb->next = malloc((size_t)(slots > 0 ? slots : 1) * sizeof(int));
    int *fill = malloc((size_t)(points > 0 ? points : 1) * sizeof(int));
    if (!cb->next_start || !cb->next || !fill) {
        free(fill);
        return false;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0; e < cb->elements; e++) {
            const int *k = &cb->corner[per * e];
            for (int i = 0; i < per; i++) {
                for (int j = 0; j < per; j++) {
                    if (i == j) {
                        continue;
                    }
                    if (pass == 0) {
                        cb->next_start[k[i] + 1]++;
                    } else {
                        cb->next[fill[k[i]]++] = k[j];
                    }
                }
            }
        }
        for (int k = 0; pass == 0 && k < points; k++) {
            cb->next_start[k + 1] += cb->next_start[k];
            fill[k] = cb->next_start[k];
        }
    }
    free(fill);
    // Sorted, each neighbour once (a shell names each edge twice).
    int kept = 0;
    for (int k = 0; k < points; k++) {
        int *list = cb->next + cb->next_start[k];
        const int count = cb->next_start[k + 1] - cb->next_start[k];
        for (int i = 1; i < count; i++) { // insertion sort: a handful each
            const int v = list[i];
            int j = i - 1;
            for (; j >= 0 && list[j] > v; j--) {
                list[j + 1] = list[j];
            }
            list[j + 1] = v;
        }
        const int first = kept;
        for (int i = 0; i < count; i++) {
            if (i == 0 || list[i] != list[i - 1]) {
                cb->next[kept++] = list[i];
            }
        }
        cb->next_start[k] = first;
    }
    cb->next_start[points] = kept;
    return true;
}

contact_body *contact_body_create(const psb_body *b) {
    contact_body *cb = calloc(1, sizeof *cb);
    if (!cb || !alloc3(cb->start, b->n_pad) || !alloc3(cb->vstart, b->n_pad) ||
        !(cb->mark = calloc((size_t)b->n_pad, 1)) ||
        !(cb->own_queued = calloc((size_t)b->n_pad, 1)) ||
        !(cb->rest_fold = calloc((size_t)b->n_pad, 1)) ||
        !(cb->own_last = calloc((size_t)b->n_pad, sizeof(long))) ||
        !(cb->own_streak = calloc((size_t)b->n_pad, 1)) || !alloc3(cb->held, b->n_pad) ||
        !(cb->shifted = calloc((size_t)b->n_pad, 1)) ||
        !(cb->own_queue = malloc((size_t)b->n_pad * sizeof(int))) ||
        !(cb->kept_force = calloc((size_t)b->n_pad, sizeof(double))) ||
        !(cb->kept_against = calloc((size_t)b->n_pad, sizeof(int))) ||
        !alloc3(cb->kept_slip, b->n_pad) ||
        !(cb->slip_against = calloc((size_t)b->n_pad, sizeof(int)))) {
        contact_body_destroy(cb);
        return NULL;
    }
    cb->prepared = -1;
    const bool ring = b->kind == PSB_RING;
    cb->per = ring ? 2 : 3;
    cb->elements = ring ? b->n : b->tri_count;
    const int elements = cb->elements;
    const size_t cells = (size_t)CELLS_PER_ELEMENT * (size_t)elements + 8;
    const size_t room = (size_t)(elements > 0 ? elements : 1); // a rope has none
    cb->corner = malloc((size_t)cb->per * room * sizeof(int));
    cb->across = ring ? NULL : malloc(3 * room * sizeof(int));
    cb->span = ring ? malloc(room * sizeof *cb->span) : NULL;
    cb->rays = ring ? ring_rays_create(elements) : NULL;
    cb->cell_start = malloc((cells + 1) * sizeof(int));
    cb->item = malloc((size_t)ITEMS_PER_ELEMENT * room * sizeof(int));
    cb->cone_sin = malloc(cells * sizeof(double));
    if (!cb->corner || (!ring && !cb->across) || (ring && (!cb->span || !cb->rays)) ||
        !cb->cell_start || !cb->item || !cb->cone_sin || !alloc3(cb->cone_n, (int)cells) ||
        !alloc3(cb->face_n, elements) || !alloc3(cb->box, elements) ||
        !alloc3(cb->box + 3, elements) || !alloc3(cb->point_n, b->n_pad)) {
        contact_body_destroy(cb);
        return NULL;
    }
    for (int e = 0; e < elements; e++) {
        if (ring) {
            cb->corner[2 * e] = b->rank[e];
            cb->corner[2 * e + 1] = b->rank[(e + 1) % b->n];
        } else {
            for (int j = 0; j < 3; j++) {
                cb->corner[3 * e + j] = b->rank[b->tris[3 * e + j]];
            }
        }
    }
    if ((!ring && !find_across(cb)) || !find_next(cb, b->n_pad)) {
        contact_body_destroy(cb);
        return NULL;
    }
    return cb;
}

// ---- a surface's normals and grid, once a step

// The unit normals of the elements, and each point's pseudo-normal: the
// normalised sum of its triangles' normals weighted by their angles there
// (a ring: of its two edges' normals).
static void surface_normals(contact_body *cb, const psb_body *b) {
    for (int c = 0; c < 3; c++) {
        memset(cb->point_n[c], 0, (size_t)b->n_pad * sizeof(double));
    }
    for (int e = 0; e < cb->elements; e++) {
        const int *k = &cb->corner[cb->per * e];
        psb_vec3 n;
        if (cb->per == 2) {
            const psb_vec3 d = sub(point_at(b, k[1]), point_at(b, k[0]));
            n = unit(v3(d.y, -d.x, 0.0)); // the edge turned clockwise: outward
            for (int j = 0; j < 2; j++) {
                cb->point_n[0][k[j]] += n.x;
                cb->point_n[1][k[j]] += n.y;
            }
        } else {
            const psb_vec3 x[3] = {point_at(b, k[0]), point_at(b, k[1]), point_at(b, k[2])};
            n = unit(cross(sub(x[1], x[0]), sub(x[2], x[0])));
            for (int j = 0; j < 3; j++) {
                const psb_vec3 u = unit(sub(x[(j + 1) % 3], x[j]));
                const psb_vec3 w = unit(sub(x[(j + 2) % 3], x[j]));
                const double angle = acos(fmin(1.0, fmax(-1.0, dot(u, w))));
                cb->point_n[0][k[j]] += angle * n.x;
                cb->point_n[1][k[j]] += angle * n.y;
                cb->point_n[2][k[j]] += angle * n.z;
            }
        }
        cb->face_n[0][e] = n.x;
        cb->face_n[1][e] = n.y;
        cb->face_n[2][e] = n.z;
    }
    for (int k = 0; k < b->n; k++) {
        const psb_vec3 n = unit(v3(cb->point_n[0][k], cb->point_n[1][k], cb->point_n[2][k]));
        cb->point_n[0][k] = n.x;
        cb->point_n[1][k] = n.y;
        cb->point_n[2][k] = n.z;
    }
}

static int cell_of(double x, double origin, double cell, int dim) {
    const double f = floor((x - origin) / cell);
    return f < 0.0 ? 0 : f >= dim ? dim - 1 : (int)f;
}

// The cells of width `cell` from the grid's origin that element e's box
// overlaps: from[c] to to[c] along each axis.
static void element_cells(const contact_body *cb, int e, double cell, int from[3], int to[3]) {
    for (int c = 0; c < 3; c++) {
        const double o = c == 0 ? cb->origin.x : c == 1 ? cb->origin.y : cb->origin.z;
        from[c] = cell_of(cb->box[c][e], o, cell, cb->dims[c]);
        to[c] = cell_of(cb->box[3 + c][e], o, cell, cb->dims[c]);
    }
}

// The grid of the elements' boxes over the body's box: cells as wide as
// the elements are along their widest axis, on the mean, and no narrower
// than the skin (every search reaches at least that far), widened (by 1.25
// at a time) until there are no more than CELLS_PER_ELEMENT per element and
// the elements fill no more than ITEMS_PER_ELEMENT cells each, on the mean.
// (Cells as wide as the widest element, as until session 35, made a loaded
// model's grid coarse where a few long triangles were: the rocker arm's
// 20088 triangles in 490 cells, the filled bunny's 69664 in 100, and each
// point's search with its own surface looked at all those in its cells.
// The search finds the same nearest element on any grid.)
static void surface_grid(contact_body *cb, const psb_body *b, double skin) {
    double mean = 0.0;
    for (int e = 0; e < cb->elements; e++) {
        const int *k = &cb->corner[cb->per * e];
        double widest = 0.0;
        for (int c = 0; c < 3; c++) {
            double lo = b->x[c][k[0]], hi = lo;
            for (int j = 1; j < cb->per; j++) {
                const double xj = b->x[c][k[j]];
                lo = xj < lo ? xj : lo; // (fmin and fmax are calls here)
                hi = xj > hi ? xj : hi;
            }
            cb->box[c][e] = lo;
            cb->box[3 + c][e] = hi;
            widest = hi - lo > widest ? hi - lo : widest;
        }
        mean += widest;
    }
    mean /= cb->elements > 0 ? cb->elements : 1;
    const psb_vec3 size = sub(cb->hi, cb->lo);
    double cell = fmax(fmax(mean, skin), 1e-9 * (1.0 + fmax(size.x, fmax(size.y, size.z))));
    const double limit = (double)CELLS_PER_ELEMENT * cb->elements + 8.0;
    const long room = (long)ITEMS_PER_ELEMENT * (cb->elements > 0 ? cb->elements : 1);
    cb->origin = cb->lo;
    // A counting sort of the elements by cell: count each cell's (into
    // cell_start[at + 1]), widening the cells while they are too many or
    // the elements overlap too many of them, then fill.
    int cells = 0;
    for (;; cell *= 1.25) {
        if ((floor(size.x / cell) + 1.0) * (floor(size.y / cell) + 1.0) *
                (floor(size.z / cell) + 1.0) >
            limit) {
            continue;
        }
        cb->dims[0] = (int)floor(size.x / cell) + 1;
        cb->dims[1] = (int)floor(size.y / cell) + 1;
        cb->dims[2] = (int)floor(size.z / cell) + 1;
        cells = cb->dims[0] * cb->dims[1] * cb->dims[2];
        memset(cb->cell_start, 0, ((size_t)cells + 1) * sizeof(int));
        long items = 0;
        for (int e = 0; e < cb->elements && items <= room; e++) {
            int from[3], to[3];
            element_cells(cb, e, cell, from, to);
            items += (long)(to[0] - from[0] + 1) * (to[1] - from[1] + 1) * (to[2] - from[2] + 1);
            for (int z = from[2]; z <= to[2] && items <= room; z++) {
                for (int y = from[1]; y <= to[1]; y++) {
                    for (int x = from[0]; x <= to[0]; x++) {
                        cb->cell_start[(z * cb->dims[1] + y) * cb->dims[0] + x + 1]++;
                    }
                }
            }
        }
        if (items <= room) {
            break;
        }
    }
    cb->cell = cell;
    for (int c = 0; c < cells; c++) {
        cb->cell_start[c + 1] += cb->cell_start[c];
    }
    for (int e = 0; e < cb->elements; e++) {
        int from[3], to[3];
        element_cells(cb, e, cell, from, to);
        for (int z = from[2]; z <= to[2]; z++) {
            for (int y = from[1]; y <= to[1]; y++) {
                for (int x = from[0]; x <= to[0]; x++) {
                    cb->item[cb->cell_start[(z * cb->dims[1] + y) * cb->dims[0] + x]++] = e;
                }
            }
        }
    }
    // Filling moved each start to the next cell's: shift back.
    for (int c = cells; c > 0; c--) {
        cb->cell_start[c] = cb->cell_start[c - 1];
    }
    cb->cell_start[0] = 0;
}

// The normal cones of the grid's cells (cone_n, cone_sin), for the links
// of a body with itself: a point whose pseudo-normal n has n . cone_n >=
// cone_sin is at most 90 degrees from every normal in the cell, so that
// none of its elements faces the point (look_in_cell skips the cell
// whole). The widest angle is taken a little wider (CONE_SLACK on its
// cosine), so that rounding cannot skip an element the test on its own
// would keep.
#define CONE_SLACK 1e-6
static void cell_cones(contact_body *cb) {
    const int cells = cb->dims[0] * cb->dims[1] * cb->dims[2];
    for (int at = 0; at < cells; at++) {
        double m[3] = {0.0, 0.0, 0.0};
        for (int s = cb->cell_start[at]; s < cb->cell_start[at + 1]; s++) {
            for (int c = 0; c < 3; c++) {
                m[c] += cb->face_n[c][cb->item[s]];
            }
        }
        const double len = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
        cb->cone_sin[at] = 2.0;
        if (!(len > 0.0)) {
            continue; // empty, or normals that cancel
        }
        double widest = 1.0; // the least cosine
        for (int s = cb->cell_start[at]; s < cb->cell_start[at + 1]; s++) {
            const int e = cb->item[s];
            double cosine = 0.0;
            for (int c = 0; c < 3; c++) {
                cosine += m[c] / len * cb->face_n[c][e];
            }
            widest = cosine < widest ? cosine : widest;
        }
        widest -= CONE_SLACK;
        for (int c = 0; c < 3; c++) {
            cb->cone_n[c][at] = m[c] / len;
        }
        if (widest > 0.0) {
            cb->cone_sin[at] = sqrt(1.0 - widest * widest);
        }
    }
}

static void prepare_surface(contact_body *cb, const psb_body *b, long step, double skin) {
    if (cb->prepared != step) {
        surface_normals(cb, b);
        surface_grid(cb, b, skin);
        cb->prepared = step;
    }
}

// ---- the nearest point of an element

// The point of triangle (a, b, c) nearest p, as barycentric coordinates
// (beta[0] a + beta[1] b + beta[2] c): by which of the seven regions p
// projects into (the face, an edge, a corner), so that a point nearest an
// edge or a corner gets exact zeros (and a one) among its coordinates.
static void nearest_on_triangle(psb_vec3 p, psb_vec3 a, psb_vec3 b, psb_vec3 c, double beta[3]) {
    const psb_vec3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        beta[0] = 1.0, beta[1] = 0.0, beta[2] = 0.0;
        return;
    }
    const psb_vec3 bp = sub(p, b);
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        beta[0] = 0.0, beta[1] = 1.0, beta[2] = 0.0;
        return;
    }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        const double v = d1 / (d1 - d3);
        beta[0] = 1.0 - v, beta[1] = v, beta[2] = 0.0;
        return;
    }
    const psb_vec3 cp = sub(p, c);
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        beta[0] = 0.0, beta[1] = 0.0, beta[2] = 1.0;
        return;
    }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        const double w = d2 / (d2 - d6);
        beta[0] = 1.0 - w, beta[1] = 0.0, beta[2] = w;
        return;
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        beta[0] = 0.0, beta[1] = 1.0 - w, beta[2] = w;
        return;
    }
    const double sum = va + vb + vc;
    if (!(sum > 0.0)) { // a triangle of no area: its first corner
        beta[0] = 1.0, beta[1] = 0.0, beta[2] = 0.0;
        return;
    }
    const double v = vb / sum, w = vc / sum;
    beta[0] = 1.0 - v - w, beta[1] = v, beta[2] = w;
}

// The same on the segment (a, b).
static void nearest_on_segment(psb_vec3 p, psb_vec3 a, psb_vec3 b, double beta[3]) {
    const psb_vec3 ab = sub(b, a);
    const double len2 = dot(ab, ab);
    double t = len2 > 0.0 ? dot(sub(p, a), ab) / len2 : 0.0;
    t = t <= 0.0 ? 0.0 : t >= 1.0 ? 1.0 : t;
    beta[0] = 1.0 - t, beta[1] = t, beta[2] = 0.0;
}

static psb_vec3 surface_point(const psb_body *b, const int *k, const double *beta, int per) {
    psb_vec3 q = v3(0.0, 0.0, 0.0);
    for (int j = 0; j < per; j++) {
        q = add(q, scale(beta[j], point_at(b, k[j])));
    }
    return q;
}

// The pseudo-normal of the feature that the point with coordinates beta on
// element e lies on: a corner's, an edge's (the normalised sum of the two
// triangles' normals) or the element's own.
static psb_vec3 pseudo_normal(const contact_body *cb, int e, const double *beta) {
    const int *k = &cb->corner[cb->per * e];
    // A corner: all the other coordinates exactly 0 (a point of an edge next
    // to a corner may round to 1 and still be on the edge).
    int zeros = 0, nonzero = 0;
    for (int j = 0; j < cb->per; j++) {
        if (beta[j] == 0.0) {
            zeros++;
        } else {
            nonzero = j;
        }
    }
    if (zeros == cb->per - 1) {
        const int c = k[nonzero];
        return v3(cb->point_n[0][c], cb->point_n[1][c], cb->point_n[2][c]);
    }
    const psb_vec3 n = v3(cb->face_n[0][e], cb->face_n[1][e], cb->face_n[2][e]);
    if (cb->per == 3) {
        for (int j = 0; j < 3; j++) {
            if (beta[j] == 0.0) {
                // The edge opposite corner j runs from corner j + 1 to j + 2:
                // edge (j + 1) mod 3.
                const int t = cb->across[3 * e + (j + 1) % 3];
                if (t < 0) {
                    return n;
                }
                return unit(add(n, v3(cb->face_n[0][t], cb->face_n[1][t], cb->face_n[2][t])));
            }
        }
    }
    return n;
}

// Triangle k's unit normal where its corners are now.
static psb_vec3 triangle_now(const psb_body *b, const int *k) {
    const psb_vec3 x0 = point_at(b, k[0]);
    return unit(cross(sub(point_at(b, k[1]), x0), sub(point_at(b, k[2]), x0)));
}

// The pseudo-normal at corner c of triangle e where the points are now: the
// triangles around c, each normal times its angle at c (as
// surface_normals), found by walking across the edges that meet at c, one
// way round from e and, at a border, the other way.
static psb_vec3 corner_now(const contact_body *cb, const psb_body *b, int e, int c) {
    psb_vec3 sum = v3(0.0, 0.0, 0.0);
    for (int way = 0; way < 2; way++) {
        int t = e;
        for (int steps = 0; steps < cb->elements; steps++) {
            const int *k = &cb->corner[3 * t];
            const int j = k[0] == c ? 0 : k[1] == c ? 1 : 2;
            if (way == 0 || t != e) {
                const psb_vec3 u = unit(sub(point_at(b, k[(j + 1) % 3]), point_at(b, c)));
                const psb_vec3 v = unit(sub(point_at(b, k[(j + 2) % 3]), point_at(b, c)));
                const double angle = acos(fmin(1.0, fmax(-1.0, dot(u, v))));
                sum = add(sum, scale(angle, triangle_now(b, k)));
            }
            // Across the edge from c to the next corner (way 0), or from
            // the one before to c (way 1).
            t = cb->across[3 * t + (way == 0 ? j : (j + 2) % 3)];
            if (t == e) {
                return unit(sum); // round: every triangle at c
            }
            if (t < 0) {
                break;
            }
        }
    }
    return unit(sum);
}

void contact_link_normal(const psb_world *w, const solve_link *l, double n[3]) {
    const psb_body *b = w->bodies[l->b];
    const contact_body *cb = b->touch;
    const double *was = l->n;
    if (cb->per != 3) {
        memmove(n, was, 3 * sizeof(double));
        return;
    }
    const int *k = &cb->corner[3 * l->e];
    const int zeros = (l->beta[0] == 0.0) + (l->beta[1] == 0.0) + (l->beta[2] == 0.0);
    psb_vec3 m = triangle_now(b, k);
    if (zeros == 2) {
        const int j = l->beta[0] != 0.0 ? 0 : l->beta[1] != 0.0 ? 1 : 2;
        m = corner_now(cb, b, l->e, k[j]);
    } else if (zeros == 1) {
        // The edge opposite corner z runs from corner z + 1 to z + 2.
        const int z = l->beta[0] == 0.0 ? 0 : l->beta[1] == 0.0 ? 1 : 2;
        const int t = cb->across[3 * l->e + (z + 1) % 3];
        m = t < 0 ? m : unit(add(m, triangle_now(b, &cb->corner[3 * t])));
    }
    if ((b->kind == PSB_CLOTH || l->a == l->b) &&
        m.x * was[0] + m.y * was[1] + m.z * was[2] < 0.0) {
        m = scale(-1.0, m);
    }
    n[0] = m.x;
    n[1] = m.y;
    n[2] = m.z;
}

// ---- finding the contacts

// The velocity of p relative to the point of the surface it touches: now,
// or (start) at the start of the world step.
static psb_vec3 relative_velocity(const psb_world *w, const contact *c, bool start) {
    const psb_body *a = w->bodies[c->a], *b = w->bodies[c->b];
    double *const *va = start ? a->touch->vstart : a->v;
    double *const *vb = start ? b->touch->vstart : b->v;
    psb_vec3 u = v3(va[0][c->p], va[1][c->p], va[2][c->p]);
    for (int j = 0; j < 3; j++) {
        const int k = c->corner[j];
        u = sub(u, scale(c->beta[j], v3(vb[0][k], vb[1][k], vb[2][k])));
    }
    return u;
}

static bool boxes_apart(psb_vec3 alo, psb_vec3 ahi, psb_vec3 blo, psb_vec3 bhi, double grow) {
    return ahi.x < blo.x - grow || alo.x > bhi.x + grow || ahi.y < blo.y - grow ||
           alo.y > bhi.y + grow || ahi.z < blo.z - grow || alo.z > bhi.z + grow;
}

// False when the list is full: it starts with room for twice as many
// contacts as the world has points (psb_world_add_body sizes it), which a
// step only reaches with every point touching two bodies at once; then
// grow_room doubles it and the search runs again.
static bool add_contact(search *out, const contact *c) {
    if (out->count == out->capacity) {
        return false;
    }
    out->items[out->count++] = *c;
    return true;
}

// A search for the element of a surface nearest to p within sqrt(R2):
// the nearest so far (best, -1 if none), its squared distance and the
// coordinates of its nearest point.
// On the point's own body (self >= 0, the point's internal index), its own
// elements are left out, and those whose nearest point lies on its
// neighbours only; with facing set (links of a body with itself), also
// those whose normal does not face the point's own normal, facing_n (their
// dot product not below 0).
typedef struct nearest {
    psb_vec3 p;
    double R2;
    int self;
    bool facing;
    psb_vec3 facing_n;
    int best;
    double best_d2, beta[3];
} nearest;

// Whether point c is joined to point k by an edge of an element.
static bool joined(const contact_body *cb, int k, int c) {
    for (int s = cb->next_start[k]; s < cb->next_start[k + 1]; s++) {
        if (cb->next[s] == c) {
            return true;
        }
    }
    return false;
}

// Whether element e is point k's own (k is a corner), on k's own body.
static bool own_element(const contact_body *cb, int e, int k) {
    const int *ek = &cb->corner[cb->per * e];
    for (int j = 0; j < cb->per; j++) {
        if (ek[j] == k) {
            return true;
        }
    }
    return false;
}

// Whether element e has a corner that is point k or joined to it by an edge.
static bool beside(const contact_body *cb, int e, int k) {
    const int *ek = &cb->corner[cb->per * e];
    for (int j = 0; j < cb->per; j++) {
        if (ek[j] == k || joined(cb, k, ek[j])) {
            return true;
        }
    }
    return false;
}

// Whether the nearest point (coordinates beta) of element e to point k
// lies on k's neighbours only: every corner it has a share of is joined to
// k by an edge (a corner, or the edge between two neighbours; its distance
// to k is about an edge's length or a triangle's height, which the springs
// keep): not a contact.
static bool on_neighbours(const contact_body *cb, int e, int k, const double *beta) {
    const int *ek = &cb->corner[cb->per * e];
    for (int j = 0; j < cb->per; j++) {
        if (beta[j] != 0.0 && !joined(cb, k, ek[j])) {
            return false;
        }
    }
    return true;
}

// How far p's coordinate pc lies outside cell i of the grid along an axis
// (origin o), squared; a little slack for the rounding of cell_of.
static double cell_gap2(const contact_body *cb, double pc, double o, int i) {
    const double lo = o + i * cb->cell, hi = lo + cb->cell, slack = 1e-9 * cb->cell;
    const double below = lo - slack - pc, above = pc - hi - slack;
    const double gap = below > 0.0 ? below : above > 0.0 ? above : 0.0;
    return gap * gap;
}

// Looks at the elements of cell (x, y, z) of cb's grid not looked at yet in
// this query. Of equals, the lowest index, as a scan in index order that
// takes only a strictly nearer one: the result does not depend on the order
// the cells are seen in.
static void look_in_cell(const contact_body *cb, const psb_body *b, search *out, nearest *q, int x,
                         int y, int z) {
    const double pc[3] = {q->p.x, q->p.y, q->p.z};
    const int at = (z * cb->dims[1] + y) * cb->dims[0] + x;
    if (q->facing && q->facing_n.x * cb->cone_n[0][at] + q->facing_n.y * cb->cone_n[1][at] +
                             q->facing_n.z * cb->cone_n[2][at] >=
                         cb->cone_sin[at]) {
        return; // no element of the cell faces the point (cell_cones)
    }
    for (int s = cb->cell_start[at]; s < cb->cell_start[at + 1]; s++) {
        const int e = cb->item[s];
        if (out->stamp[e] == out->query) {
            continue;
        }
        out->stamp[e] = out->query;
        // No nearer than its box: skip it when the box is beyond R, or
        // beyond the best so far.
        double box_d2 = 0.0;
        for (int c = 0; c < 3; c++) {
            const double below = cb->box[c][e] - pc[c];
            const double above = pc[c] - cb->box[3 + c][e];
            const double gap = below > 0.0 ? below : above > 0.0 ? above : 0.0;
            box_d2 += gap * gap;
        }
        if (box_d2 > q->R2 || box_d2 > q->best_d2) {
            continue;
        }
        if (q->self >= 0 && own_element(cb, e, q->self)) {
            continue;
        }
        if (q->facing && !(q->facing_n.x * cb->face_n[0][e] + q->facing_n.y * cb->face_n[1][e] +
                               q->facing_n.z * cb->face_n[2][e] <
                           0.0)) {
            continue;
        }
        const int *ek = &cb->corner[cb->per * e];
        double beta[3];
        if (cb->per == 2) {
            nearest_on_segment(q->p, point_at(b, ek[0]), point_at(b, ek[1]), beta);
        } else {
            nearest_on_triangle(q->p, point_at(b, ek[0]), point_at(b, ek[1]), point_at(b, ek[2]),
                                beta);
        }
        if (q->self >= 0 && on_neighbours(cb, e, q->self, beta)) {
            continue;
        }
        const psb_vec3 d = sub(q->p, surface_point(b, ek, beta, cb->per));
        const double d2 = dot(d, d);
        if (d2 < q->best_d2 || (d2 == q->best_d2 && e < q->best)) {
            q->best = e;
            q->best_d2 = d2;
            memcpy(q->beta, beta, sizeof beta);
        }
    }
}

// The element of surface cb (body b) nearest q->p within R, into q.
static void search_grid(const contact_body *cb, const psb_body *b, search *out, nearest *q,
                        double R) {
    int from[3], to[3];
    const double pc[3] = {q->p.x, q->p.y, q->p.z};
    const double oc[3] = {cb->origin.x, cb->origin.y, cb->origin.z};
    for (int c = 0; c < 3; c++) {
        from[c] = cell_of(pc[c] - R, oc[c], cb->cell, cb->dims[c]);
        to[c] = cell_of(pc[c] + R, oc[c], cb->cell, cb->dims[c]);
    }
    if (++out->query == INT_MAX) { // stamps wrap: start them again
        memset(out->stamp, 0, (size_t)out->stamp_size * sizeof(int));
        out->query = 1;
    }
    // The point's own cell first, so that the nearest so far is near and
    // prunes the other cells of the range whole.
    int own[3];
    for (int c = 0; c < 3; c++) {
        own[c] = cell_of(pc[c], oc[c], cb->cell, cb->dims[c]);
        own[c] = own[c] < from[c] ? from[c] : own[c] > to[c] ? to[c] : own[c];
    }
    look_in_cell(cb, b, out, q, own[0], own[1], own[2]);
    // Then the rest of the range, leaving out each slab, row and cell
    // farther from p than the nearest so far (an element nearer than that
    // lies in a cell that is not).
    for (int z = from[2]; z <= to[2]; z++) {
        const double gz = cell_gap2(cb, pc[2], oc[2], z);
        for (int y = from[1]; y <= to[1] && gz <= q->R2 && gz <= q->best_d2; y++) {
            const double gzy = gz + cell_gap2(cb, pc[1], oc[1], y);
            for (int x = from[0]; x <= to[0] && gzy <= q->R2 && gzy <= q->best_d2; x++) {
                const double g = gzy + cell_gap2(cb, pc[0], oc[0], x);
                if (g <= q->R2 && g <= q->best_d2) {
                    look_in_cell(cb, b, out, q, x, y, z);
                }
            }
        }
    }
}

// Where the point of coordinates beta on element e of surface cb was at
// the start of the step.
static psb_vec3 start_point(const contact_body *cb, int e, const double *beta) {
    const int *ek = &cb->corner[cb->per * e];
    psb_vec3 q0 = v3(0.0, 0.0, 0.0);
    for (int j = 0; j < cb->per; j++) {
        q0 = add(q0,
                 scale(beta[j], v3(cb->start[0][ek[j]], cb->start[1][ek[j]], cb->start[2][ek[j]])));
    }
    return q0;
}

// The points of body a from i0 to i1 - 1 (in rank order) that touch body b
// (docs/contact.md), appended to the list in a's point order; R is the
// largest search radius of a point of a (the pair's). False when the list
// is full.
static bool find_pair(const psb_world *w, int ia, int ib, double R, int i0, int i1, search *out) {
    const psb_body *a = w->bodies[ia], *b = w->bodies[ib];
    contact_body *cb = b->touch;
    const bool self = ia == ib, sheet = b->kind == PSB_CLOTH;
    const double delta = w->params.contact_thickness;
    // On its own body, moves are seen from the body carried along by its
    // mean move t: D_rel, and each point's move less t.
    const double reach = w->params.contact_thickness + (self ? cb->moved_rel : cb->moved);
    const psb_vec3 shift = self ? cb->shift : v3(0.0, 0.0, 0.0);
    for (int i = i0; i < i1; i++) {
        const int k = a->rank[i];
        const psb_vec3 p = point_at(a, k);
        if (boxes_apart(p, p, cb->lo, cb->hi, R)) {
            continue;
        }
        // This point's own search radius R_p: the skin, how far it moved,
        // how far b's farthest point moved.
        const psb_vec3 moved = sub(
            sub(p, v3(a->touch->start[0][k], a->touch->start[1][k], a->touch->start[2][k])), shift);
        const double Rp = reach + sqrt(dot(moved, moved));
        if (boxes_apart(p, p, cb->lo, cb->hi, Rp)) {
            continue;
        }
        const double R2 = Rp * Rp;
        nearest q = {.p = p, .R2 = R2, .self = self ? k : -1, .best = -1, .best_d2 = INFINITY};
        search_grid(cb, b, out, &q, Rp);
        const int best = q.best;
        const double best_d2 = q.best_d2;
        const double *best_beta = q.beta;
        if (best < 0 || best_d2 > R2) {
            continue;
        }
        const int *ek = &cb->corner[cb->per * best];
        const psb_vec3 on = surface_point(b, ek, best_beta, cb->per);
        const psb_vec3 d = sub(p, on);
        psb_vec3 m = pseudo_normal(cb, best, best_beta);
        double crossed = 0.0; // how far p moved relative to q in this step
        if (self || sheet) {
            // The side p started the step on: (p(start) - q(start)) . m (m
            // is the feature's, the same from every element that has it).
            const psb_vec3 q0 = start_point(cb, best, best_beta);
            const psb_vec3 p0 =
                v3(a->touch->start[0][k], a->touch->start[1][k], a->touch->start[2][k]);
            if (dot(sub(p0, q0), m) < 0.0) {
                m = scale(-1.0, m); // p came at it from behind
            }
            const psb_vec3 rel = sub(sub(p, p0), sub(on, q0));
            crossed = sqrt(dot(rel, rel));
        }
        // A point of a cloth or of its own body touches it within the skin,
        // or behind it where the nearest point is inside a face (a ring:
        // inside an edge), or no farther behind it than p moved relative to
        // that point in the step: p crossed it; farther behind an edge or a
        // corner, only the plane of an element beside it turned past p. On
        // its own body an element beside p (a corner joined to p) is never
        // taken as crossed: that is the body bending, p popping through its
        // own ring.
        const double distance = sqrt(best_d2);
        const double s = dot(d, m) >= 0.0 ? distance : -distance;
        const bool on_face =
            best_beta[0] != 0.0 && best_beta[1] != 0.0 && (cb->per == 2 || best_beta[2] != 0.0);
        const bool may_cross = !self || !beside(cb, best, k);
        if (!(s < delta) || ((self || sheet) && !(distance < delta) &&
                             !(may_cross && (on_face || distance <= crossed)))) {
            continue;
        }
        contact c = {.a = ia, .p = k, .b = ib, .e = best, .n = m};
        for (int j = 0; j < 3; j++) {
            c.corner[j] = j < cb->per ? ek[j] : ek[0];
            c.beta[j] = j < cb->per ? best_beta[j] : 0.0;
        }
        c.un0 = dot(relative_velocity(w, &c, true), m);
        if (!add_contact(out, &c)) {
            return false;
        }
    }
    return true;
}

// ---- resolving them

static bool takes_part(const psb_body *b) {
    return b->params.contact && b->touch;
}

// Whether body b touches itself: self contact on, for the world and for b.
static bool touches_itself(const psb_world *w, const psb_body *b) {
    return w->params.self_contact && b->params.self_contact;
}

bool world_touches_itself(const psb_world *w) {
    for (int k = 0; w->params.self_contact && k < w->body_count; k++) {
        if (w->bodies[k]->params.self_contact) {
            return true;
        }
    }
    return false;
}

static double inverse_mass_sum(const psb_world *w, const contact *c) {
    const psb_body *a = w->bodies[c->a], *b = w->bodies[c->b];
    double W = a->inv_mass[c->p];
    for (int j = 0; j < 3; j++) {
        W += c->beta[j] * c->beta[j] * b->inv_mass[c->corner[j]];
    }
    return W;
}

// How a correction d of a pair's separation is applied (apply_pair): to the
// positions and, as the move over dt, the velocities (a push); to the
// velocities alone (a kick); to the positions alone (putting back a point
// found inside).
typedef enum { PAIR_PUSH, PAIR_KICK, PAIR_PUT_BACK } pair_change;

// Changes p and the element's corners apart along n by the correction d of
// the pair's separation: p by w_p d, corner i by -w_i beta_i d.
static void apply_pair(psb_world *w, const contact *c, psb_vec3 d, pair_change how) {
    psb_body *a = w->bodies[c->a], *b = w->bodies[c->b];
    const double dt = how == PAIR_PUSH ? w->params.dt : 0.0;
    if (how == PAIR_KICK) {
        kick_point(a, c->p, scale(a->inv_mass[c->p], d));
    } else {
        move_point(a, c->p, scale(a->inv_mass[c->p], d), dt);
    }
    for (int j = 0; j < 3; j++) {
        if (c->beta[j] == 0.0) {
            continue;
        }
        const psb_vec3 dj = scale(-b->inv_mass[c->corner[j]] * c->beta[j], d);
        if (how == PAIR_KICK) {
            kick_point(b, c->corner[j], dj);
        } else {
            move_point(b, c->corner[j], dj, dt);
        }
    }
}

// The pair's separation (p - q) . n brought up to `to` where it is below:
// lambda = -C / W along n, applied as `how`. True when it moved them.
static bool separate(psb_world *w, const contact *c, double to, pair_change how) {
    const double W = inverse_mass_sum(w, c);
    if (W == 0.0) {
        return false;
    }
    const psb_body *a = w->bodies[c->a], *b = w->bodies[c->b];
    const psb_vec3 q = surface_point(b, c->corner, c->beta, 3);
    const double C = dot(sub(point_at(a, c->p), q), c->n) - to;
    if (!(C < 0.0)) {
        return false;
    }
    apply_pair(w, c, scale(-C / W, c->n), how);
    return true;
}

// dt: the velocity changes by the move over dt (0: it does not).
static void push_out_point(psb_world *w, psb_body *b, int k, double dt) {
    if (b->inv_mass[k] == 0.0) {
        return; // a pinned point stays where it is pinned
    }
    const psb_vec3 was = point_at(b, k);
    psb_vec3 x = was;
    point_push_out(w, b->kind == PSB_RING, &x);
    if (x.x != was.x || x.y != was.y || x.z != was.z) {
        move_point(b, k, sub(x, was), dt);
    }
}

// Every point of a contact (put_back: of a contact whose point was put
// back, and then without changing its velocity) out of the floor, the walls
// and the spheres: each once, bodies in order and points in increasing
// index (marked, then swept).
static void push_out_touched(psb_world *w, bool put_back) {
    const struct contact_list *list = w->contacts;
    for (int i = 0; i < list->count; i++) {
        const contact *c = &list->items[i];
        if (put_back && !c->inside) {
            continue;
        }
        w->bodies[c->a]->touch->mark[c->p] = 1;
        for (int j = 0; j < 3; j++) {
            w->bodies[c->b]->touch->mark[c->corner[j]] = 1;
        }
    }
    for (int k = 0; k < w->body_count; k++) {
        psb_body *b = w->bodies[k];
        if (!takes_part(b) || !b->touch->touched) {
            continue;
        }
        for (int i = 0; i < b->n; i++) {
            const int at = b->rank[i];
            if (b->touch->mark[at]) {
                b->touch->mark[at] = 0;
                push_out_point(w, b, at, put_back ? 0.0 : w->params.dt);
            }
        }
    }
}

// The solid angle the triangle of corners k (of body b) subtends at p:
// 2 atan2(a . (b x c), |a||b||c| + (a . b)|c| + (b . c)|a| + (c . a)|b|)
// with a, b, c its corners less p (Van Oosterom and Strackee); positive
// from the side its outward normal points away from.
static double solid_angle(double *const x[3], const int *k, psb_vec3 p) {
    // The corners less p: ra, rb and rc.
    const psb_vec3 ra = sub(v3(x[0][k[0]], x[1][k[0]], x[2][k[0]]), p);
    const psb_vec3 rb = sub(v3(x[0][k[1]], x[1][k[1]], x[2][k[1]]), p);
    const psb_vec3 rc = sub(v3(x[0][k[2]], x[1][k[2]], x[2][k[2]]), p);
    const double la = sqrt(dot(ra, ra)), lb = sqrt(dot(rb, rb)), lc = sqrt(dot(rc, rc));
    const double below = la * lb * lc + dot(ra, rb) * lc + dot(rb, rc) * la + dot(rc, ra) * lb;
    return 2.0 * atan2(dot(ra, cross(rb, rc)), below);
}

// The winding number of body b's surface about p: 1 inside a closed one,
// 0 outside. A 3D body: the solid angles its triangles subtend at p, over
// 4 pi; a ring: the angles its edges subtend at p, over 2 pi.
static double winding_number(const contact_body *cb, const psb_body *b, psb_vec3 p) {
    double sum = 0.0;
    for (int e = 0; e < cb->elements; e++) {
        const int *k = &cb->corner[cb->per * e];
        if (cb->per == 2) {
            const psb_vec3 ra = sub(point_at(b, k[0]), p), rb = sub(point_at(b, k[1]), p);
            sum += atan2(ra.x * rb.y - ra.y * rb.x, ra.x * rb.x + ra.y * rb.y);
            continue;
        }
        sum += solid_angle(b->x, k, p);
    }
    return sum / (cb->per == 2 ? 2.0 * PI : 4.0 * PI);
}

// The point of body b's surface nearest p, every element looked at (of
// equals, the first in index order); with own >= 0 (p is b's point own),
// every element but those beside own (a corner own or joined to it). p
// itself where none is looked at.
static psb_vec3 nearest_surface_point(const contact_body *cb, const psb_body *b, psb_vec3 p,
                                      int own) {
    psb_vec3 best = p;
    double best_d2 = INFINITY;
    for (int e = 0; e < cb->elements; e++) {
        if (own >= 0 && beside(cb, e, own)) {
            continue;
        }
        const int *k = &cb->corner[cb->per * e];
        double beta[3];
        if (cb->per == 2) {
            nearest_on_segment(p, point_at(b, k[0]), point_at(b, k[1]), beta);
        } else {
            nearest_on_triangle(p, point_at(b, k[0]), point_at(b, k[1]), point_at(b, k[2]), beta);
        }
        const psb_vec3 q = surface_point(b, k, beta, cb->per);
        const psb_vec3 d = sub(p, q);
        const double d2 = dot(d, d);
        if (d2 < best_d2) {
            best = q;
            best_d2 = d2;
        }
    }
    return best;
}

// Where the ray p + t u (t > t0) first crosses element e of body b's surface:
// its t, or INFINITY where it does not; *change: what the crossing does to
// the winding number along the ray, -1 leaving through the element's outside
// (u along its outward normal), +1 entering. A triangle by Moller and
// Trumbore's test (det = e1 . (u x e2) = -u . (e1 x e2)); a ring's edge
// a -> b in the plane (its outward normal (e.y, -e.x), e = b - a).
static double ray_crossing(const contact_body *cb, const psb_body *b, int e, psb_vec3 p, psb_vec3 u,
                           double t0, int *change) {
    const int *k = &cb->corner[cb->per * e];
    const psb_vec3 a = point_at(b, k[0]), e1 = sub(point_at(b, k[1]), a), w = sub(p, a);
    double t;
    if (cb->per == 2) {
        const double d = u.x * e1.y - u.y * e1.x;
        if (d == 0.0) {
            return INFINITY;
        }
        const double along = (u.x * w.y - u.y * w.x) / d; // where on the edge, 0 to 1
        t = (e1.x * w.y - e1.y * w.x) / d;
        if (!(along >= 0.0 && along <= 1.0)) {
            return INFINITY;
        }
        *change = d > 0.0 ? -1 : 1;
    } else {
        const psb_vec3 e2 = sub(point_at(b, k[2]), a), h = cross(u, e2);
        const double det = dot(e1, h);
        if (det == 0.0) {
            return INFINITY;
        }
        const double f = 1.0 / det, s1 = f * dot(w, h);
        const psb_vec3 g = cross(w, e1);
        const double s2 = f * dot(u, g);
        if (!(s1 >= 0.0 && s2 >= 0.0 && s1 + s2 <= 1.0)) {
            return INFINITY;
        }
        t = f * dot(e2, g);
        *change = det > 0.0 ? 1 : -1;
    }
    return t > t0 ? t : INFINITY;
}

// Where the last way out puts a point p inside body b (winding number
// `winding` about it) that leaves along u: the ray p + t u is followed over
// b's surface, crossing by crossing (those at the same t together), the
// winding number changed by each, to the first crossing where it comes to
// 0, or a half, or past it (WAY_OUT_LEFT); p goes gap past it. On a surface
// that has folded over itself, past the nearest sheet is not outside. With
// own >= 0, p is b's point own (own_way_out: its own triangles left out,
// its winding number about the rest of b, ±1, or a half more where its
// corner is crumpled). `fallback` where no such crossing comes within
// WAY_OUT_CROSSINGS.
static psb_vec3 way_out_to(const contact_body *cb, const psb_body *b, psb_vec3 p, psb_vec3 u,
                           double winding, int own, double gap, psb_vec3 fallback) {
    double inside = winding;
    const double sign = winding > 0.0 ? 1.0 : -1.0;
    double t0 = 0.0;
    for (int crossing = 0; crossing < WAY_OUT_CROSSINGS; crossing++) {
        double first = INFINITY;
        int change = 0;
        for (int e = 0; e < cb->elements; e++) {
            if (own >= 0 && own_element(cb, e, own)) {
                continue;
            }
            int c = 0;
            const double t = ray_crossing(cb, b, e, p, u, t0, &c);
            if (t < first) {
                first = t;
                change = c;
            } else if (t == first && t < INFINITY) {
                change += c;
            }
        }
        if (first == INFINITY) {
            break;
        }
        inside += change;
        t0 = first;
        if (sign * inside <= WAY_OUT_LEFT) {
            return add(p, scale(first + gap, u));
        }
    }
    return fallback;
}

// Moves body a's point k, inside body b by b's winding number `winding`
// about it, out of b alone, positions only: to q, b's nearest surface
// point, plus PUT_BACK_GAP of the skin along u = (q - p) / |q - p| (from
// inside, the way out whether q is on a face, an edge or a corner; n
// where p is on the surface), or, where b's surface has folded over itself
// there, on along u to where the ray leaves it (way_out_to); then out of
// the floor, walls and spheres. False, and nothing moved, where p is no
// farther than `leave` from q (a negative leave moves every point).
static bool take_out(psb_world *w, psb_body *a, int k, const psb_body *b, double winding,
                     psb_vec3 n, double leave) {
    const double gap = PUT_BACK_GAP * w->params.contact_thickness;
    const psb_vec3 p = point_at(a, k);
    const psb_vec3 q = nearest_surface_point(b->touch, b, p, -1);
    const psb_vec3 out = sub(q, p);
    const double l = sqrt(dot(out, out));
    if (!(l > leave)) {
        return false;
    }
    const psb_vec3 u = l > 0.0 ? scale(1.0 / l, out) : n;
    const psb_vec3 to = way_out_to(b->touch, b, p, u, winding, -1, gap, add(q, scale(gap, u)));
    move_point(a, k, sub(to, p), 0.0);
    push_out_point(w, a, k, 0.0);
    return true;
}

// The last way out, after put_back's passes (docs/contact.md, "The last way
// out"): where a surface is pressed out of shape, its contact's feature
// plane is not the way out, and two balls pressed into each other put each
// other back in; so each contact's point within WAY_OUT_NEAR of the skin of
// its feature (a ≠ b, b not a cloth, p not pinned) is checked with b's
// winding number, and one inside is moved alone, positions only, along
// u = (q - p) / |q - p| to q, b's nearest surface point, plus PUT_BACK_GAP
// of the skin (from inside, the way out whether q is on a face, an edge or
// a corner; the contact's n where p is on the surface), or, where b's
// surface has folded over itself there, on along u to where the ray leaves
// it (way_out_to); then out of the floor, walls and spheres. Sweeps until
// one moves nothing, WAY_OUT_SWEEPS at most. A sweep after the first checks
// only the contacts one of whose bodies had a point moved in the sweep
// before or in this one: the others are as they were when last checked,
// and were outside then, so the result is that of checking them all.
// Returns the points moved.
static int way_out(psb_world *w) {
    const struct contact_list *list = w->contacts;
    const double near = WAY_OUT_NEAR * w->params.contact_thickness;
    for (int i = 0; i < list->count; i++) {
        w->bodies[list->items[i].a]->touch->way_out = -1;
        w->bodies[list->items[i].b]->touch->way_out = -1;
    }
    int total = 0;
    for (int sweep = 0; sweep < WAY_OUT_SWEEPS; sweep++) {
        int moved = 0;
        for (int i = 0; i < list->count; i++) {
            const contact *c = &list->items[i];
            psb_body *a = w->bodies[c->a];
            const psb_body *b = w->bodies[c->b];
            if (c->a == c->b || b->kind == PSB_CLOTH || a->inv_mass[c->p] == 0.0 ||
                (sweep > 0 && a->touch->way_out < sweep - 1 && b->touch->way_out < sweep - 1)) {
                continue;
            }
            const psb_vec3 p = point_at(a, c->p);
            if (!(dot(sub(p, surface_point(b, c->corner, c->beta, 3)), c->n) < near)) {
                continue;
            }
            const double winding = winding_number(b->touch, b, p);
            if (!(winding > 0.5)) {
                continue;
            }
            take_out(w, a, c->p, b, winding, c->n, -1.0);
            a->touch->way_out = sweep;
            moved++;
        }
        total += moved;
        if (moved == 0) {
            break;
        }
    }
    return total;
}

// ---- the last check (docs/contact.md, "The last check")

// A box, m.
typedef struct region {
    psb_vec3 lo, hi;
} region;

static void grow_region(region *r, psb_vec3 x) {
    r->lo = v3(fmin(r->lo.x, x.x), fmin(r->lo.y, x.y), fmin(r->lo.z, x.z));
    r->hi = v3(fmax(r->hi.x, x.x), fmax(r->hi.y, x.y), fmax(r->hi.z, x.z));
}

static psb_vec3 held_at(const contact_body *cb, int k) {
    return v3(cb->held[0][k], cb->held[1][k], cb->held[2][k]);
}

// Holds every point of each body that takes part where it is now.
static void hold_points(psb_world *w) {
    for (int kb = 0; kb < w->body_count; kb++) {
        const psb_body *b = w->bodies[kb];
        for (int c = 0; takes_part(b) && c < 3; c++) {
            memcpy(b->touch->held[c], b->x[c], (size_t)b->n * sizeof(double));
        }
    }
}

// The box that every triangle (a ring: edge) of body b's point k swept
// since it was held: k and the points joined to it, where they are and
// where they were held.
static region swept_region(const contact_body *cb, const psb_body *b, int k) {
    region r = {point_at(b, k), point_at(b, k)};
    grow_region(&r, held_at(cb, k));
    for (int j = cb->next_start[k]; j < cb->next_start[k + 1]; j++) {
        grow_region(&r, point_at(b, cb->next[j]));
        grow_region(&r, held_at(cb, cb->next[j]));
    }
    return r;
}

// Room for twice as many regions (64 at first); false: no memory.
static bool more_regions(region **list, int *room) {
    if (*room > INT_MAX / 2) {
        return false;
    }
    const int more = *room > 0 ? 2 * *room : 64;
    region *grown = realloc(*list, (size_t)more * sizeof **list);
    if (!grown) {
        return false;
    }
    *list = grown;
    *room = more;
    return true;
}

// Whether body a's point p is to be checked against body b: it moved
// itself and is in b's box, or it is in the box one of b's moved points
// swept (regions from to to - 1).
static bool to_check(bool moved, psb_vec3 p, region b_box, const region *swept, int from, int to,
                     double reach) {
    if (moved && !boxes_apart(p, p, b_box.lo, b_box.hi, reach)) {
        return true;
    }
    for (int r = from; r < to; r++) {
        if (!boxes_apart(p, p, swept[r].lo, swept[r].hi, reach)) {
            return true;
        }
    }
    return false;
}

// Where the contacts were found, every point outside the other bodies was
// outside them; put_back's moves, each for one contact, may have taken a
// point into a body it had no contact with, or a body's surface over a
// point of another that had none. The last check (after the last way out,
// and after each round with the own way out) looks at what moved since the
// points were last held (hold_points): for each two bodies a and b (a ≠ b,
// b closed: a shell or a ring; rings with rings), each of a's points (not
// pinned) that moved and is in b's box, or is in the box that a triangle
// of a moved point of b swept (swept_region), is checked with b's winding
// number, and one inside (above 1/2) is taken out as the last way out
// takes a contact's point: to b's nearest surface point q, along u = (q -
// p) / |q - p|, or past where the ray leaves a surface folded over itself,
// PUT_BACK_GAP of the skin past it (way_out_to); then out of the floor,
// walls and spheres, positions only. Pairs in order, a's points by index.
// In sweeps until one moves nothing (WAY_OUT_SWEEPS at most), each looking
// at what the one before moved. In the first, a body placed from outside
// the step (psb_body.placed: place_check) counts as moved whole, every
// point, and its whole box as swept. A point within `leave` of b's surface
// is left where it is (place_check leaves those within the skin to the
// contacts, which reach them). Returns the points moved.
static int last_check(psb_world *w, double leave) {
    const int bodies = w->body_count;
    if (bodies < 2) {
        return 0; // no pair
    }
    const double gap = PUT_BACK_GAP * w->params.contact_thickness;
    region *box = malloc((size_t)bodies * sizeof *box);
    region *around = malloc((size_t)bodies * sizeof *around);
    int *first = malloc(((size_t)bodies + 1) * sizeof *first);
    int *shifted = malloc((size_t)bodies * sizeof *shifted);
    region *swept = NULL;
    int room = 0, total = 0;
    for (int sweep = 0; box && around && first && shifted && sweep < WAY_OUT_SWEEPS; sweep++) {
        // What moved since it was held: each body's box now, its moved
        // points, the boxes they swept and the box round those.
        int count = 0;
        bool whole = true;
        for (int kb = 0; kb < bodies; kb++) {
            const psb_body *b = w->bodies[kb];
            first[kb] = count;
            shifted[kb] = 0;
            if (!takes_part(b)) {
                continue;
            }
            contact_body *cb = b->touch;
            box[kb] = (region){point_at(b, 0), point_at(b, 0)};
            for (int k = 1; k < b->n; k++) {
                grow_region(&box[kb], point_at(b, k));
            }
            // A body placed from outside the step (place_check): all of it.
            const bool placed = sweep == 0 && b->placed;
            if (placed && b->kind != PSB_CLOTH) {
                if (count == room && !more_regions(&swept, &room)) {
                    whole = false;
                    break;
                }
                around[kb] = box[kb];
                swept[count++] = box[kb];
            }
            for (int k = 0; k < b->n; k++) {
                const psb_vec3 x = point_at(b, k);
                cb->shifted[k] = placed || x.x != cb->held[0][k] || x.y != cb->held[1][k] ||
                                 x.z != cb->held[2][k];
                shifted[kb] += cb->shifted[k];
                if (placed || !cb->shifted[k] || b->kind == PSB_CLOTH) {
                    continue;
                }
                if (count == room && !more_regions(&swept, &room)) {
                    whole = false;
                    break;
                }
                const region r = swept_region(cb, b, k);
                if (count == first[kb]) {
                    around[kb] = r;
                }
                grow_region(&around[kb], r.lo);
                grow_region(&around[kb], r.hi);
                swept[count++] = r;
            }
        }
        first[bodies] = count;
        if (!whole) {
            break; // no memory: not checked
        }
        hold_points(w);
        int moved = 0;
        for (int ia = 0; ia < bodies; ia++) {
            psb_body *a = w->bodies[ia];
            for (int ib = 0; takes_part(a) && ib < bodies; ib++) {
                const psb_body *b = w->bodies[ib];
                if (ib == ia || !takes_part(b) || b->kind == PSB_CLOTH ||
                    (a->kind == PSB_RING) != (b->kind == PSB_RING) ||
                    ((shifted[ia] == 0 ||
                      boxes_apart(box[ia].lo, box[ia].hi, box[ib].lo, box[ib].hi, gap)) &&
                     (first[ib + 1] == first[ib] ||
                      boxes_apart(box[ia].lo, box[ia].hi, around[ib].lo, around[ib].hi, gap)))) {
                    continue;
                }
                for (int i = 0; i < a->n; i++) {
                    const int k = a->rank[i];
                    const psb_vec3 p = point_at(a, k);
                    if (a->inv_mass[k] == 0.0 || !to_check(a->touch->shifted[k], p, box[ib], swept,
                                                           first[ib], first[ib + 1], gap)) {
                        continue;
                    }
                    const double winding = winding_number(b->touch, b, p);
                    if (!(winding > 0.5)) {
                        continue;
                    }
                    // (not on b's surface, nor left to the contacts)
                    moved += take_out(w, a, k, b, winding, v3(0.0, 0.0, 0.0), leave);
                }
            }
        }
        total += moved;
        if (moved == 0) {
            break;
        }
    }
    free(box);
    free(around);
    free(first);
    free(shifted);
    free(swept);
    return total;
}

// A body placed from outside the step (added, its state set, reset, put
// back by the guard) may be in another body deeper than any contact
// reaches (docs/contact.md, "Bodies placed into each other"). Before the
// contact stage looks for contacts, the last check takes each such body
// whole: every point of it in another body's box, and every point of
// another body in its box, checked with the winding number and moved out
// where it is deeper than the skin (nearer the surface, the contacts find
// it); then what those moves took in, as after put_back. Returns the
// points moved; the marks are cleared.
static int place_check(psb_world *w) {
    int placed = 0;
    for (int k = 0; k < w->body_count; k++) {
        placed += takes_part(w->bodies[k]) && w->bodies[k]->placed;
    }
    int moved = 0;
    if (placed > 0) {
        hold_points(w);
        moved = last_check(w, w->params.contact_thickness);
    }
    for (int k = 0; k < w->body_count; k++) {
        w->bodies[k]->placed = false;
    }
    return moved;
}

// ---- a body's own way out (docs/contact.md, "A body's own way out")

// The winding number of the rest of body b's surface about its own point k,
// put at p (a ring: ring_rays_own_winding); a shell's: the solid angles of the
// triangles that do not use k, over 4 pi, less the fraction of a small sphere
// round p that k's own corner puts inside. That fraction, by Gauss-Bonnet on
// the unit sphere round p: the directions to k's neighbours, in the order its
// triangles run them (outward, counterclockwise), bound the cone outside the
// body on their left; it is (2 pi + the sum of the loop's turns) / 4 pi. On a
// surface that does not cross itself the result is 0; +1 where another part
// of the body encloses p, -1 where p has passed through a sheet into a pocket
// turned inside out. False where k's triangles do not make one loop of at
// most OWN_LOOP_MAX neighbours (not checked). A shell's with its points at x
// (own_winding: where they are).
static bool own_winding_at(const contact_body *cb, double *const x[3], int k, psb_vec3 p,
                           double *s) {
    int from[OWN_LOOP_MAX], to[OWN_LOOP_MAX], count = 0;
    double sum = 0.0;
    for (int e = 0; e < cb->elements; e++) {
        const int *c = &cb->corner[3 * e];
        const int j = c[0] == k ? 0 : c[1] == k ? 1 : c[2] == k ? 2 : -1;
        if (j < 0) {
            sum += solid_angle(x, c, p);
        } else if (count == OWN_LOOP_MAX) {
            return false;
        } else {
            from[count] = c[(j + 1) % 3];
            to[count++] = c[(j + 2) % 3];
        }
    }
    if (count < 3) {
        return false;
    }
    // The loop, edge after edge from its first: loop[i] is its i-th point.
    int loop[OWN_LOOP_MAX];
    loop[0] = from[0];
    int at = to[0];
    for (int i = 1; i < count; i++) {
        int next = -1;
        for (int j = 0; j < count && next < 0; j++) {
            next = from[j] == at ? j : -1;
        }
        if (next < 0 || at == loop[0]) {
            return false;
        }
        loop[i] = at;
        at = to[next];
    }
    if (at != loop[0]) {
        return false;
    }
    double turns = 0.0;
    for (int i = 0; i < count; i++) {
        const int l0 = loop[(i + count - 1) % count], l = loop[i], l1 = loop[(i + 1) % count];
        const psb_vec3 d0 = unit(sub(v3(x[0][l0], x[1][l0], x[2][l0]), p));
        const psb_vec3 d = unit(sub(v3(x[0][l], x[1][l], x[2][l]), p));
        const psb_vec3 d1 = unit(sub(v3(x[0][l1], x[1][l1], x[2][l1]), p));
        // The great circles' directions at d: in from d0, out to d1.
        const psb_vec3 in = sub(scale(dot(d0, d), d), d0), out = sub(d1, scale(dot(d1, d), d));
        turns += atan2(dot(d, cross(in, out)), dot(in, out));
    }
    *s = sum / (4.0 * PI) - (2.0 * PI + turns) / (4.0 * PI);
    return true;
}

static bool own_winding(const contact_body *cb, const psb_body *b, int k, psb_vec3 p, double *s) {
    return cb->per == 2 ? ring_rays_own_winding(cb->rays, b, k, p, s)
                        : own_winding_at(cb, b->x, k, p, s);
}

// Whether shell point k is through its own surface in the rest shape: its
// own winding number there (own_winding_at over shape_q, the rest shape
// about its centroid) off 0 by more than OWN_SLACK, as where a mesh's ear
// passes into its head. Such a point is left where it is: moving it out
// would fight the springs, which hold it there. Found once, the first time
// it is asked (rest_fold: 0 not yet, 1 no, 2 yes).
static bool folded_at_rest(contact_body *cb, const psb_body *b, int k) {
    if (cb->per != 3) {
        return false;
    }
    if (!cb->rest_fold[k]) {
        const psb_vec3 q = v3(b->shape_q[0][k], b->shape_q[1][k], b->shape_q[2][k]);
        double s;
        cb->rest_fold[k] = own_winding_at(cb, b->shape_q, k, q, &s) && fabs(s) > OWN_SLACK ? 2 : 1;
    }
    return cb->rest_fold[k] == 2;
}

// Whether point k's umbrella has turned over: its pseudo-normal faces away
// from the sum of its neighbours' (this step's, surface_normals).
static bool turned_over(const contact_body *cb, int k) {
    psb_vec3 sum = v3(0.0, 0.0, 0.0);
    for (int s = cb->next_start[k]; s < cb->next_start[k + 1]; s++) {
        const int j = cb->next[s];
        sum = add(sum, v3(cb->point_n[0][j], cb->point_n[1][j], cb->point_n[2][j]));
    }
    return dot(sum, v3(cb->point_n[0][k], cb->point_n[1][k], cb->point_n[2][k])) < 0.0;
}

// Marks in own_queued (2, where not yet queued) each corner of a shell's
// triangle that faces away from the corner's pseudo-normal (this step's,
// surface_normals): a crumpled umbrella, whose own triangles cross each other
// or their neighbours' while its pseudo-normal has not turned over.
static void mark_crumpled(contact_body *cb) {
    for (int e = 0; e < cb->elements; e++) {
        for (int j = 0; j < 3; j++) {
            const int k = cb->corner[3 * e + j];
            if (!cb->own_queued[k] && cb->face_n[0][e] * cb->point_n[0][k] +
                                              cb->face_n[1][e] * cb->point_n[1][k] +
                                              cb->face_n[2][e] * cb->point_n[2][k] <
                                          0.0) {
                cb->own_queued[k] = 2;
            }
        }
    }
}

// The middle of point k's neighbours, gap out along the sum of their
// pseudo-normals (this step's, surface_normals).
static psb_vec3 neighbours_middle(const contact_body *cb, const psb_body *b, int k, double gap) {
    psb_vec3 middle = v3(0.0, 0.0, 0.0), up = middle;
    const int first = cb->next_start[k], last = cb->next_start[k + 1];
    for (int i = first; i < last; i++) {
        const int j = cb->next[i];
        middle = add(middle, point_at(b, j));
        up = add(up, v3(cb->point_n[0][j], cb->point_n[1][j], cb->point_n[2][j]));
    }
    return add(scale(1.0 / (last - first), middle), scale(gap, unit(up)));
}

// Moves point k of body b to `to`, positions only, then out of the
// floor, walls and spheres.
static void own_move(psb_world *w, psb_body *b, int k, psb_vec3 to) {
    move_point(b, k, sub(to, point_at(b, k)), 0.0);
    push_out_point(w, b, k, 0.0);
    b->touch->touched = true;
}

// Point k of body b put at x, nothing else (a trial, undone after).
static void set_point(psb_body *b, int k, psb_vec3 x) {
    b->x[0][k] = x.x, b->x[1][k] = x.y, b->x[2][k] = x.z;
}

// The last try for a crumpled umbrella (point k at a half, no one point's
// move undoing it): k's neighbours all moved at once, each to the middle of
// its own neighbours (where they were), then k to the middle of theirs
// where they went; kept only where k's own winding number and each moved
// neighbour's end within OWN_SLACK of 0. Returns 1 if they moved.
static int own_smooth_umbrella(psb_world *w, psb_body *b, int k, double gap) {
    const contact_body *cb = b->touch;
    const int first = cb->next_start[k], count = cb->next_start[k + 1] - first;
    psb_vec3 was[OWN_LOOP_MAX + 1], to[OWN_LOOP_MAX + 1];
    if (count > OWN_LOOP_MAX || b->inv_mass[k] == 0.0) {
        return 0;
    }
    for (int i = 0; i < count; i++) {
        const int j = cb->next[first + i];
        if (cb->next_start[j + 1] - cb->next_start[j] > OWN_LOOP_MAX) {
            return 0; // (its own winding number is not found: own_winding)
        }
        was[i] = point_at(b, j);
        to[i] = b->inv_mass[j] == 0.0 ? was[i] : neighbours_middle(cb, b, j, gap);
    }
    was[count] = point_at(b, k);
    for (int i = 0; i < count; i++) {
        set_point(b, cb->next[first + i], to[i]);
    }
    to[count] = neighbours_middle(cb, b, k, gap);
    double after;
    bool better = own_winding(cb, b, k, to[count], &after) && fabs(after) < OWN_SLACK;
    for (int i = 0; better && i < count; i++) {
        const int j = cb->next[first + i];
        set_point(b, k, to[count]);
        better = own_winding(cb, b, j, to[i], &after) && fabs(after) < OWN_SLACK;
        set_point(b, k, was[count]);
    }
    for (int i = 0; i < count; i++) {
        set_point(b, cb->next[first + i], was[i]);
    }
    if (!better) {
        return 0;
    }
    for (int i = 0; i < count; i++) {
        if (b->inv_mass[cb->next[first + i]] != 0.0) {
            own_move(w, b, cb->next[first + i], to[i]);
        }
    }
    own_move(w, b, k, to[count]);
    return 1;
}

// Whether point j is among the count points of list.
static bool listed(const int *list, int count, int j) {
    for (int i = 0; i < count; i++) {
        if (list[i] == j) {
            return true;
        }
    }
    return false;
}

// A shell's last try for point k, through its own surface where no one
// point's move undoes it: a patch relaxed. The points within `rings` rings
// of k (those not pinned) move together to where each is the middle of its
// neighbours, the ring round them and the pinned points held: a discrete
// harmonic patch, which lays a crumpled or folded disc out flat between its
// held rim as Tutte's embedding does. Found by PATCH_SWEEPS Gauss-Seidel
// sweeps from where they are, in the caller's order; kept only where the own
// winding number of every moved point and of every held one beside them
// ends within OWN_SLACK of 0. Positions only, then out of the floor, walls
// and spheres. Returns 1 if they moved.
static int own_relax_patch(psb_world *w, psb_body *b, int k, int rings) {
    const contact_body *cb = b->touch;
    int inner[PATCH_MAX], held[PATCH_MAX], inner_count = 1, held_count = 0;
    if (b->inv_mass[k] == 0.0) {
        return 0; // (pinned: not moved)
    }
    inner[0] = k;
    // Ring after ring: a neighbour not yet seen joins the patch, or is held
    // (pinned, or in the last ring).
    for (int r = 0, from = 0; r <= rings; r++) {
        const int to = inner_count;
        for (int i = from; i < to; i++) {
            for (int s = cb->next_start[inner[i]]; s < cb->next_start[inner[i] + 1]; s++) {
                const int j = cb->next[s];
                if (listed(inner, inner_count, j) || listed(held, held_count, j)) {
                    continue;
                }
                const bool hold = r == rings || b->inv_mass[j] == 0.0;
                if ((hold ? held_count : inner_count) == PATCH_MAX) {
                    return 0;
                }
                if (hold) {
                    held[held_count++] = j;
                } else {
                    inner[inner_count++] = j;
                }
            }
        }
        from = to;
    }
    // The caller's order (a few dozen, by insertion).
    for (int i = 1; i < inner_count; i++) {
        const int j = inner[i];
        int at = i - 1;
        for (; at >= 0 && b->order[inner[at]] > b->order[j]; at--) {
            inner[at + 1] = inner[at];
        }
        inner[at + 1] = j;
    }
    psb_vec3 was[PATCH_MAX], to[PATCH_MAX];
    for (int i = 0; i < inner_count; i++) {
        was[i] = point_at(b, inner[i]);
    }
    for (int sweep = 0; sweep < PATCH_SWEEPS; sweep++) {
        for (int i = 0; i < inner_count; i++) {
            set_point(b, inner[i], neighbours_middle(cb, b, inner[i], 0.0));
        }
    }
    bool kept = true;
    for (int i = 0; kept && i < inner_count + held_count; i++) {
        const int j = i < inner_count ? inner[i] : held[i - inner_count];
        double after;
        kept = own_winding(cb, b, j, point_at(b, j), &after) && fabs(after) < OWN_SLACK;
    }
    for (int i = 0; i < inner_count; i++) {
        to[i] = point_at(b, inner[i]);
        set_point(b, inner[i], was[i]);
    }
    for (int i = 0; kept && i < inner_count; i++) {
        own_move(w, b, inner[i], to[i]);
    }
    return kept ? 1 : 0;
}

// own_relax_patch over 1, then 2, up to PATCH_RINGS rings: the first kept.
static int own_relax_patches(psb_world *w, psb_body *b, int k) {
    int moved = 0;
    for (int rings = 1; rings <= PATCH_RINGS && !moved; rings++) {
        moved = own_relax_patch(w, b, k, rings);
    }
    return moved;
}

// Point k of body b out of b's own surface, if its own winding number s
// (own_winding) says it is through it: on a shell, toward q, b's nearest
// surface point but its own and its neighbours' triangles, on along that ray
// over the rest of b's triangles to where the winding number comes to 0 or a
// half (way_out_to), else to q plus gap; then (a ring: only) to the middle of
// its neighbours (neighbours_middle): the first where k's own winding number
// is nearer 0 than s by OWN_SLACK. Where none is and s is a half (k's
// umbrella has crumpled: its neighbours' directions make no simple loop from
// anywhere near), or k is a ring's, one neighbour j is moved instead, to the
// middle of its own neighbours: the first, in the caller's order, after whose
// move k's own winding number is so much nearer 0 and j's own is within
// OWN_SLACK of it; else all its neighbours at once (own_smooth_umbrella); a
// shell's, after all these (and at a whole number after the first tries), a
// patch relaxed (own_relax_patches). Positions only, then out of the floor,
// walls and spheres. A shell's point through its own surface in the rest
// shape (folded_at_rest) is not checked; one moved in OWN_STREAK steps in a
// row and through again is left. Returns -1 where k was not through (or
// not checked), else whether a point moved (1) or not (0).
static int own_way_out_point(psb_world *w, psb_body *b, int k, double gap) {
    contact_body *cb = b->touch;
    const psb_vec3 p = point_at(b, k);
    double s;
    if (!own_winding(cb, b, k, p, &s) || !(fabs(s) > 0.5 - OWN_SLACK) || folded_at_rest(cb, b, k)) {
        return -1;
    }
    if (cb->own_streak[k] >= OWN_STREAK && cb->own_last[k] >= w->steps) {
        cb->own_last[k] = w->steps + 1; // a fold its own forces make: left
        return 0;
    }
    psb_vec3 tries[3];
    int count = 0;
    if (cb->per == 3) {
        const psb_vec3 q = nearest_surface_point(cb, b, p, k);
        const psb_vec3 out = sub(q, p);
        const double l = sqrt(dot(out, out));
        if (l > 0.0) {
            const psb_vec3 u = scale(1.0 / l, out), beyond = add(q, scale(gap, u));
            tries[count++] = way_out_to(cb, b, p, u, s, k, gap, beyond);
            tries[count++] = beyond;
        }
    }
    tries[count++] = neighbours_middle(cb, b, k, gap);
    for (int i = 0; b->inv_mass[k] != 0.0 && i < count; i++) {
        double after;
        if (own_winding(cb, b, k, tries[i], &after) && fabs(after) < fabs(s) - OWN_SLACK) {
            own_move(w, b, k, tries[i]);
            return 1;
        }
    }
    if (cb->per == 3 && !(fabs(s) < 1.0 - OWN_SLACK)) {
        return own_relax_patches(w, b, k);
    }
    // The neighbours in the caller's order (a handful, by selection).
    int last = -1;
    for (int n = cb->next_start[k]; n < cb->next_start[k + 1]; n++) {
        int j = -1;
        for (int i = cb->next_start[k]; i < cb->next_start[k + 1]; i++) {
            const int c = cb->next[i];
            if (b->order[c] > last && (j < 0 || b->order[c] < b->order[j])) {
                j = c;
            }
        }
        last = b->order[j];
        if (b->inv_mass[j] == 0.0) {
            continue;
        }
        const psb_vec3 was = point_at(b, j), to = neighbours_middle(cb, b, j, gap);
        double after_k, after_j;
        b->x[0][j] = to.x, b->x[1][j] = to.y, b->x[2][j] = to.z;
        const bool better = own_winding(cb, b, k, p, &after_k) &&
                            fabs(after_k) < fabs(s) - OWN_SLACK &&
                            own_winding(cb, b, j, to, &after_j) && fabs(after_j) < OWN_SLACK;
        b->x[0][j] = was.x, b->x[1][j] = was.y, b->x[2][j] = was.z;
        if (better) {
            own_move(w, b, j, to);
            return 1;
        }
    }
    if (own_smooth_umbrella(w, b, k, gap)) {
        return 1;
    }
    return cb->per == 3 ? own_relax_patches(w, b, k) : 0;
}

// Whether the point of contact c (of a body with itself) crossed its
// feature's triangle, or one of the three across its edges that is not the
// point's own, in this step: the way from where it started, carried along
// by the feature's point's move (p0 + q - q0), to where it is now, through
// the triangle where it is now. (A point that went through beside its
// feature's triangle is found by the triangles across: the one a contact
// is found against after a step is the nearest, not always the one crossed.
// A point held a skin off its own crease, or a little nearer, is not:
// checking every contact within half the skin, as the last way out does,
// cost the rocker arm, with 6300 of them, 23 times its step.)
static bool crossed_feature(const psb_body *b, const contact *c) {
    const contact_body *cb = b->touch;
    const psb_vec3 p = point_at(b, c->p), q = surface_point(b, c->corner, c->beta, cb->per);
    const psb_vec3 p0 = add(v3(cb->start[0][c->p], cb->start[1][c->p], cb->start[2][c->p]),
                            sub(q, start_point(cb, c->e, c->beta)));
    int change = 0;
    if (ray_crossing(cb, b, c->e, p0, sub(p, p0), 0.0, &change) <= 1.0) {
        return true;
    }
    for (int j = 0; j < 3; j++) {
        const int t = cb->across[3 * c->e + j];
        if (t >= 0 && !own_element(cb, t, c->p) &&
            ray_crossing(cb, b, t, p0, sub(p, p0), 0.0, &change) <= 1.0) {
            return true;
        }
    }
    return false;
}

static int compare_spans(const void *x, const void *y) {
    const edge_span *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 : (a->e > b->e) - (a->e < b->e);
}

// Twice the signed area of a, b, c in the plane: positive where c is on
// the left of a -> b.
static double turn(psb_vec3 a, psb_vec3 b, psb_vec3 c) {
    return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

// A ring's seeds for its own way out: the points of each two of its edges
// that cross or touch (neither a corner of the other), marked in own_queued.
// Where no two cross, the ring is one simple loop, and, turning
// counterclockwise as it does unless the whole ring turned over in one step,
// none of its points is through it; where some do, the winding number of the
// region beside the ring changes only at a crossing, so each point through is
// joined along the ring, by points through as well, to the end of an edge
// that crosses another: these and the patches followed from them find them
// all. A sweep along x over the edges sorted by their least x: each edge
// against those whose x range starts within its own.
static void crossing_edges(contact_body *cb, const psb_body *b) {
    const int n = cb->elements;
    for (int e = 0; e < n; e++) {
        const int *k = &cb->corner[2 * e];
        cb->span[e] = (edge_span){fmin(point_at(b, k[0]).x, point_at(b, k[1]).x), e};
    }
    qsort(cb->span, (size_t)n, sizeof *cb->span, compare_spans);
    for (int i = 0; i < n; i++) {
        const int *k = &cb->corner[2 * cb->span[i].e];
        const psb_vec3 a = point_at(b, k[0]), c = point_at(b, k[1]);
        const double hi = fmax(a.x, c.x), low = fmin(a.y, c.y), high = fmax(a.y, c.y);
        for (int j = i + 1; j < n && cb->span[j].lo <= hi; j++) {
            const int *l = &cb->corner[2 * cb->span[j].e];
            if (l[0] == k[0] || l[0] == k[1] || l[1] == k[0] || l[1] == k[1]) {
                continue;
            }
            const psb_vec3 p = point_at(b, l[0]), q = point_at(b, l[1]);
            if (fmax(p.y, q.y) < low || fmin(p.y, q.y) > high ||
                turn(a, c, p) * turn(a, c, q) > 0.0 || turn(p, q, a) * turn(p, q, c) > 0.0) {
                continue;
            }
            cb->own_queued[k[0]] = cb->own_queued[k[1]] = 1;
            cb->own_queued[l[0]] = cb->own_queued[l[1]] = 1;
        }
    }
}

// Around own_way_out_point's check of ring point k: the edges it may move,
// those of k and of its two neighbours (the ring's edges o - 2 to o + 1, o =
// k's public index), marked loose in the ring's filing before (loose), and
// those still in their bins settled after.
static void loosen_ring(contact_body *cb, const psb_body *b, int k, bool loose) {
    const int n = cb->elements, first = (b->order[k] + n - 2) % n;
    if (loose) {
        ring_rays_loosen(cb->rays, b, first, 4);
    } else {
        ring_rays_settle(cb->rays, b, first, 4);
    }
}

// A body's own way out, after the last way out, with self contact on
// (docs/contact.md, "A body's own way out" and "A ring's own way out"): a
// shell's or a ring's point that its own winding number finds through its
// own surface is moved out of it (own_way_out_point). A shell's links with
// itself hold two sheets of it apart, but not a point pushed through its
// own ring's neighbours (its umbrella turned over), nor every point of a
// patch that a landing crumples within a step. Checked, for a shell or ring
// in a contact of the step: a shell's point of each of its contacts with
// itself that crossed its feature in the step (crossed_feature), and each
// of its points whose umbrella has turned over (turned_over) or crumpled
// (mark_crumpled); a ring's ends
// of its edges that cross (crossing_edges); and from each point found
// through, its neighbours, and theirs, as far as points are found through
// (a pocket of the surface pushed through a sheet is joined up). In sweeps
// until one moves nothing, WAY_OUT_SWEEPS at most. Returns the points moved.
static int own_way_out(psb_world *w) {
    const struct contact_list *list = w->contacts;
    const double gap = PUT_BACK_GAP * w->params.contact_thickness;
    int total = 0;
    for (int sweep = 0; sweep < WAY_OUT_SWEEPS; sweep++) {
        int moved = 0;
        for (int i = 0; i < w->body_count; i++) {
            psb_body *b = w->bodies[i];
            if (!takes_part(b) ||
                !(links_itself(w, b) || (b->kind == PSB_RING && touches_itself(w, b))) ||
                !b->touch->touched || b->touch->prepared != w->steps) {
                continue;
            }
            contact_body *cb = b->touch;
            // The points to check, in order: the seeds, then each found
            // through adds its neighbours not yet queued.
            int queued = 0;
            if (cb->per == 2) {
                crossing_edges(cb, b);
                if (!ring_rays_filed(cb->rays)) {
                    ring_rays_file(cb->rays, cb->corner, b);
                }
                for (int j = 0; j < b->n; j++) {
                    if (cb->own_queued[b->rank[j]]) {
                        cb->own_queue[queued++] = b->rank[j];
                    }
                }
            }
            for (int c = 0; cb->per == 3 && c < list->count; c++) {
                const contact *t = &list->items[c];
                if (t->a == i && t->b == i && !cb->own_queued[t->p] && crossed_feature(b, t)) {
                    cb->own_queued[t->p] = 1;
                    cb->own_queue[queued++] = t->p;
                }
            }
            if (cb->per == 3) {
                mark_crumpled(cb);
            }
            for (int j = 0; cb->per == 3 && j < b->n; j++) {
                const int k = b->rank[j];
                if (cb->own_queued[k] == 2 || (!cb->own_queued[k] && turned_over(cb, k))) {
                    cb->own_queued[k] = 1;
                    cb->own_queue[queued++] = k;
                }
            }
            for (int at = 0; at < queued; at++) {
                const int k = cb->own_queue[at];
                if (cb->per == 2) {
                    loosen_ring(cb, b, k, true);
                }
                const int r = own_way_out_point(w, b, k, gap);
                if (cb->per == 2) {
                    loosen_ring(cb, b, k, false);
                }
                moved += r > 0;
                if (r > 0 && cb->own_last[k] != w->steps + 1) {
                    const bool row = cb->own_last[k] == w->steps;
                    cb->own_streak[k] = !row                      ? 1
                                        : cb->own_streak[k] < 255 ? cb->own_streak[k] + 1
                                                                  : 255;
                    cb->own_last[k] = w->steps + 1;
                }
                const int from = queued;
                for (int s = cb->next_start[k]; r >= 0 && s < cb->next_start[k + 1]; s++) {
                    const int j = cb->next[s];
                    if (!cb->own_queued[j]) {
                        cb->own_queued[j] = 1;
                        cb->own_queue[queued++] = j;
                    }
                }
                // (in the caller's order of the points, as the plain model
                // takes them: a handful, by insertion)
                for (int q = from + 1; q < queued; q++) {
                    const int j = cb->own_queue[q];
                    int to = q - 1;
                    for (; to >= from && b->order[cb->own_queue[to]] > b->order[j]; to--) {
                        cb->own_queue[to + 1] = cb->own_queue[to];
                    }
                    cb->own_queue[to + 1] = j;
                }
            }
            for (int at = 0; at < queued; at++) {
                cb->own_queued[cb->own_queue[at]] = 0;
            }
        }
        total += moved;
        if (moved == 0) {
            break;
        }
    }
    // (the points may move before the next own way out)
    for (int i = 0; i < w->body_count; i++) {
        if (w->bodies[i]->kind == PSB_RING && w->bodies[i]->touch) {
            ring_rays_forget(w->bodies[i]->touch->rays);
        }
    }
    return total;
}

// With contact inside the solve: a point the solve left inside another body
// (docs/contact.md, "Points put back") is put back out of it, to
// PUT_BACK_GAP of the skin past its surface, positions only. A contact's
// point is inside when it is behind its feature ((p - q) . n < 0) and
// b's winding number about it is above 1/2 (behind a feature is not enough
// where b's surface has turned over on itself). The moves are as the
// position passes' (POSITION_PASSES Gauss-Seidel passes over those
// contacts, each an equal and opposite pair), but velocities are left as
// they are; so is BDF2's velocity (its history moves along). Then the last
// way out (way_out) for the points the passes left inside.
static void put_back(psb_world *w) {
    struct contact_list *list = w->contacts;
    const double gap = PUT_BACK_GAP * w->params.contact_thickness;
    int takers = 0;
    for (int k = 0; k < w->body_count; k++) {
        takers += takes_part(w->bodies[k]);
    }
    if (takers > 1) {
        hold_points(w);
    }
    int inside = 0;
    for (int i = 0; i < list->count; i++) {
        contact *c = &list->items[i];
        const psb_body *a = w->bodies[c->a], *b = w->bodies[c->b];
        c->inside = false;
        if (c->a == c->b || b->kind == PSB_CLOTH || inverse_mass_sum(w, c) == 0.0) {
            continue;
        }
        const psb_vec3 p = point_at(a, c->p);
        if (dot(sub(p, surface_point(b, c->corner, c->beta, 3)), c->n) < 0.0) {
            c->inside = winding_number(b->touch, b, p) > 0.5;
            inside += c->inside;
        }
    }
    w->put_back += inside;
    for (int pass = 0; pass < POSITION_PASSES && inside > 0; pass++) {
        for (int i = 0; i < list->count; i++) {
            const contact *c = &list->items[i];
            if (c->inside) {
                separate(w, c, gap, PAIR_PUT_BACK);
            }
        }
        push_out_touched(w, true);
    }
    w->put_back += way_out(w);
    if (takers > 1) {
        w->put_back += last_check(w, 0.0);
    }
    // A point moved out of its own body may end inside another, and one
    // moved out of another inside its own: each again while the other moved
    // a point, OWN_ROUNDS times at most.
    for (int round = 0; world_touches_itself(w) && round < OWN_ROUNDS; round++) {
        const int own = own_way_out(w);
        const int others = own > 0 ? way_out(w) + (takers > 1 ? last_check(w, 0.0) : 0) : 0;
        w->put_back += own + others;
        if (others == 0) {
            break;
        }
    }
}

// Pushes the pairs of the list apart and sets their normal velocities.
static void resolve(psb_world *w) {
    const struct contact_list *list = w->contacts;
    const double delta = w->params.contact_thickness;
    // With contact inside the solve, the links have moved the points out
    // of other bodies (at RECOVERY_SPEED at most), and shells out of their
    // own (links_itself): the stage pushes only a ring's or a cloth's
    // contacts with itself, and sets the velocities.
    const bool solving = world_solves_contact(w);
    const int position_passes = !solving || world_touches_itself(w) ? POSITION_PASSES : 0;
    for (int pass = 0; pass < position_passes; pass++) {
        for (int i = 0; i < list->count; i++) {
            contact *c = &list->items[i];
            if ((!solving || (c->a == c->b && !links_itself(w, w->bodies[c->a]))) &&
                separate(w, c, delta, PAIR_PUSH)) {
                c->pushed = true;
            }
        }
        push_out_touched(w, false);
    }
    if (solving) {
        put_back(w);
    }
    // Velocities, VELOCITY_PASSES passes: the normal part as restitution
    // asks of the approach at the start of the step (none below the speed
    // gravity gives in two steps, so that a body at rest on another stays at
    // rest): raised to it, or, for a pair that had to be pushed apart, set to
    // it (what its points moved toward each other in the step was the push's
    // to undo, not a rebound).
    const double e = w->params.restitution;
    const double resting = 2.0 * fabs(w->params.gravity) * w->params.dt;
    for (int pass = 0; pass < VELOCITY_PASSES; pass++) {
        for (int i = 0; i < list->count; i++) {
            const contact *c = &list->items[i];
            const double W = inverse_mass_sum(w, c);
            if (W == 0.0) {
                continue;
            }
            const double target = -c->un0 > resting ? -e * c->un0 : 0.0;
            const double un = dot(relative_velocity(w, c, false), c->n);
            if (un < target || (c->pushed && un > target)) {
                apply_pair(w, c, scale((target - un) / W, c->n), PAIR_KICK);
            }
        }
    }
}

// Friction on the pairs of the list, once a step.
static void rub(psb_world *w) {
    const struct contact_list *list = w->contacts;
    const double keep = exp(-w->params.friction * w->params.dt);
    for (int i = 0; i < list->count; i++) {
        const contact *c = &list->items[i];
        const double W = inverse_mass_sum(w, c);
        if (W == 0.0) {
            continue;
        }
        const psb_vec3 u = relative_velocity(w, c, false);
        const psb_vec3 ut = sub(u, scale(dot(u, c->n), c->n));
        apply_pair(w, c, scale((keep - 1.0) / W, ut), PAIR_KICK);
    }
}

// ---- the stage

// Whether there can be contacts: two bodies, or one against itself.
static bool stage_runs(const psb_world *w) {
    return w->params.body_contact &&
           (w->body_count >= 2 || (world_touches_itself(w) && w->body_count == 1));
}

// Whether every body that takes part in contact is where and as fast as
// it was when the last world step began (its points' x and v, bit for bit)
// and none has been stirred since (body_wake).
static bool unmoved(const psb_world *w) {
    for (int k = 0; k < w->body_count; k++) {
        const psb_body *b = w->bodies[k];
        if (!takes_part(b)) {
            continue;
        }
        if (b->stirred) {
            return false;
        }
        for (int c = 0; c < 3; c++) {
            const size_t bytes = (size_t)b->n * sizeof(double);
            if (memcmp(b->touch->start[c], b->x[c], bytes) != 0 ||
                memcmp(b->touch->vstart[c], b->v[c], bytes) != 0) {
                return false;
            }
        }
    }
    return true;
}

// The links and contacts a step finds are those of the points' positions
// and velocities, the bodies' and the world's parameters (a change stirs
// every body: psb_world_set_params, psb_body_set_params) and what the links
// of the sub-step before kept (contact_keep_link_forces). After a step at
// rest (contact_world_quiet), nothing moved or stirred since, a step would
// find what that one found, but for the last bits of what the links keep
// (traced at rest: a friction stretch moving by one unit in its last place
// a step), so it keeps that step's links and contacts instead, and keeps
// nothing anew (world_groups.c): those bits stay as they were. The pile at
// rest spent its step searching.
void contact_begin_step(psb_world *w) {
    w->reuse_search = stage_runs(w) && w->quiet && !w->search_always && unmoved(w);
    w->reused_steps += w->reuse_search;
    for (int k = 0; k < w->body_count; k++) {
        w->bodies[k]->stirred = false;
    }
    if (!stage_runs(w) || w->reuse_search) {
        return; // contact_step has nothing to do either, or the start is as noted
    }
    for (int k = 0; k < w->body_count; k++) {
        const psb_body *b = w->bodies[k];
        if (takes_part(b)) {
            for (int c = 0; c < 3; c++) {
                memcpy(b->touch->start[c], b->x[c], (size_t)b->n_pad * sizeof(double));
                memcpy(b->touch->vstart[c], b->v[c], (size_t)b->n_pad * sizeof(double));
            }
        }
    }
}

bool contact_world_quiet(const psb_world *w, int blown) {
    if (!world_solves_contact(w) || !stage_runs(w) || blown > 0 || w->list_full) {
        return false;
    }
    for (int k = 0; k < w->body_count; k++) {
        const psb_body *b = w->bodies[k];
        if (takes_part(b) && b->solver.asleep < w->params.substeps) {
            return false; // solved: its links may have turned (implicit_turn_links)
        }
    }
    return unmoved(w);
}

// Each body's box and farthest move since the start of the step.
static void measure_bodies(psb_world *w) {
    for (int k = 0; k < w->body_count; k++) {
        psb_body *b = w->bodies[k];
        if (!takes_part(b)) {
            continue;
        }
        contact_body *cb = b->touch;
        double moved2 = 0.0;
        psb_vec3 lo = point_at(b, 0), hi = lo, sum = v3(0.0, 0.0, 0.0);
        for (int i = 0; i < b->n; i++) {
            const psb_vec3 x = point_at(b, i);
            const psb_vec3 d = sub(x, v3(cb->start[0][i], cb->start[1][i], cb->start[2][i]));
            moved2 = fmax(moved2, dot(d, d));
            sum = add(sum, d);
            lo = v3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
            hi = v3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
        }
        cb->moved = sqrt(moved2);
        cb->lo = lo;
        cb->hi = hi;
        // The move as seen from the body carried along by its mean move,
        // for its contacts with itself.
        cb->shift = scale(1.0 / b->n, sum);
        double rel2 = 0.0;
        for (int i = 0; touches_itself(w, b) && i < b->n; i++) {
            const psb_vec3 x = point_at(b, i);
            const psb_vec3 d =
                sub(sub(x, v3(cb->start[0][i], cb->start[1][i], cb->start[2][i])), cb->shift);
            rel2 = fmax(rel2, dot(d, d));
        }
        cb->moved_rel = sqrt(rel2);
    }
}

// The contacts of every pair of bodies. False when the list is full.
// Whether body a's points look for body b's surface, and the pair's search
// radius R.
static bool pair_near(const psb_world *w, int ia, int ib, double *R) {
    const psb_body *a = w->bodies[ia], *b = w->bodies[ib];
    if ((ib == ia && !touches_itself(w, a)) || !takes_part(a) || !takes_part(b) ||
        b->touch->elements == 0 || (a->kind == PSB_RING) != (b->kind == PSB_RING)) {
        return false;
    }
    if (ib == ia) {
        *R = w->params.contact_thickness + 2.0 * a->touch->moved_rel;
        return true;
    }
    *R = w->params.contact_thickness + a->touch->moved + b->touch->moved;
    return !boxes_apart(a->touch->lo, a->touch->hi, b->touch->lo, b->touch->hi, *R);
}

// Body a's contacts with every other body, in b's order, into out.
static bool find_body(const psb_world *w, int ia, search *out) {
    for (int ib = 0; ib < w->body_count; ib++) {
        double R;
        if (pair_near(w, ia, ib, &R) && !find_pair(w, ia, ib, R, 0, w->bodies[ia]->n, out)) {
            return false;
        }
    }
    return true;
}

// Room for more pieces than the list has (twice as many); false: no memory.
static bool more_pieces(struct contact_list *list) {
    if (list->piece_room > INT_MAX / 2) {
        return false;
    }
    const int room = list->piece_room > 0 ? 2 * list->piece_room : 64;
    search_piece *pieces = realloc(list->pieces, (size_t)room * sizeof *pieces);
    if (!pieces) {
        return false;
    }
    list->pieces = pieces;
    list->piece_room = room;
    return true;
}

// Appends body a's pieces against body b (radius R) to the list's first *n;
// false when there is no room for them (no memory).
static bool add_pieces(struct contact_list *list, int *n, const psb_world *w, int ia, int ib,
                       double R) {
    const int points = w->bodies[ia]->n;
    for (int i0 = 0; i0 < points; i0 += SEARCH_PIECE) {
        if (*n == list->piece_room && !more_pieces(list)) {
            return false;
        }
        const int i1 = points - i0 > SEARCH_PIECE ? i0 + SEARCH_PIECE : points;
        list->pieces[(*n)++] = (search_piece){.a = ia, .b = ib, .i0 = i0, .i1 = i1, .R = R};
    }
    return true;
}

// (The solve's links' search of body a's points i0 to i1 - 1 against body
// b's surface, below.)
static bool find_pair_links(const psb_world *w, int ia, int ib, double h, int i0, int i1,
                            search *out);

#ifdef _OPENMP
// Whether a search can run on the threads (links: the solve's links; its
// lanes have the room the list has).
static bool search_shared(const psb_world *w, bool links) {
    const struct contact_list *list = w->contacts;
    return w->params.threads > 1 && list->lane_count >= w->params.threads &&
           (!links || list->lanes[0].link_capacity >= w->link_capacity);
}

// The list's first n pieces searched on the threads (links: for the
// solve's links in a sub-step of h), each into its thread's lane, each
// thread taking its pieces in increasing order (monotonic); then what they
// found copied into dst, which holds *count of capacity, in the pieces'
// order: the same list as on one thread (a lane has room for as many as
// the list, so the first that do not fit are the same too). False when
// some did not fit.
static bool search_pieces(psb_world *w, int n, bool links, double h, void *dst, int *count,
                          int capacity) {
    struct contact_list *list = w->contacts;
    for (int t = 0; t < list->lane_count; t++) {
        list->lanes[t].count = 0;
        list->lanes[t].link_count = 0;
    }
    bool whole = true;
#pragma omp parallel for num_threads(w->params.threads) schedule(monotonic : dynamic) \
    reduction(&& : whole)
    for (int k = 0; k < n; k++) {
        search_piece *piece = &list->pieces[k];
        search *lane = &list->lanes[omp_get_thread_num()];
        piece->lane = omp_get_thread_num();
        piece->start = links ? lane->link_count : lane->count;
        whole = (links ? find_pair_links(w, piece->a, piece->b, h, piece->i0, piece->i1, lane)
                       : find_pair(w, piece->a, piece->b, piece->R, piece->i0, piece->i1, lane)) &&
                whole;
        piece->found = (links ? lane->link_count : lane->count) - piece->start;
    }
    const size_t size = links ? sizeof(solve_link) : sizeof(contact);
    for (int k = 0; k < n; k++) {
        const search_piece *piece = &list->pieces[k];
        const search *lane = &list->lanes[piece->lane];
        const char *from = links ? (const char *)lane->links : (const char *)lane->items;
        const int room = capacity - *count;
        const int taken = piece->found < room ? piece->found : room;
        memcpy((char *)dst + (size_t)*count * size, from + (size_t)piece->start * size,
               (size_t)taken * size);
        *count += taken;
        whole = whole && taken == piece->found;
    }
    return whole;
}
#endif

// Every contact, in the order of a, then b, then a's points. With threads,
// in pieces of a's points (search_pieces): the same list.
static bool find_all(psb_world *w) {
    struct contact_list *list = w->contacts;
    list->count = 0;
    // The surfaces that will be searched: their normals and grids, first.
    for (int ib = 0; ib < w->body_count; ib++) {
        for (int ia = 0; ia < w->body_count; ia++) {
            double R;
            if (pair_near(w, ia, ib, &R)) {
                prepare_surface(w->bodies[ib]->touch, w->bodies[ib], w->steps,
                                w->params.contact_thickness);
                break;
            }
        }
    }
#ifdef _OPENMP
    if (search_shared(w, false)) {
        int n = 0;
        bool room = true;
        for (int ia = 0; ia < w->body_count && room; ia++) {
            for (int ib = 0; ib < w->body_count && room; ib++) {
                double R;
                room = !pair_near(w, ia, ib, &R) || add_pieces(list, &n, w, ia, ib, R);
            }
        }
        if (room && n > 1) {
            return search_pieces(w, n, false, 0.0, list->items, &list->count, list->capacity);
        }
    }
#endif
    search one = {.items = list->items,
                  .capacity = list->capacity,
                  .stamp = list->stamp,
                  .stamp_size = list->stamp_size,
                  .query = list->query};
    bool whole = true;
    for (int ia = 0; ia < w->body_count && whole; ia++) {
        whole = find_body(w, ia, &one);
    }
    list->count = one.count;
    list->query = one.query;
    return whole;
}

// After a search that filled its list: room for twice as many contacts and
// links (the list, its lanes, the world's links and their groups' scratch),
// so that the search can run again and find them all. False when there is
// no more memory (or the count would pass INT_MAX): what was there is kept,
// and the search's first contacts are all it has.
static bool grow_room(psb_world *w) {
    struct contact_list *list = w->contacts;
    if (list->capacity > INT_MAX / 2) {
        return false;
    }
    const int room = 2 * (list->capacity > 0 ? list->capacity : 1);
    // (Lanes that find no memory leave none: the search then runs on one
    // thread, with the list's new room all the same.)
    contact_list_reserve(list, room, list->stamp_size, 0, 0, w->params.threads);
    return list->capacity >= room && world_reserve_groups(w, w->body_count, room);
}

bool contact_step(psb_world *w) {
    if (stage_runs(w)) {
        w->put_back += place_check(w);
    }
    if (w->reuse_search) {
        return true; // the last step's contacts, which moved nothing
    }
    struct contact_list *list = w->contacts;
    list->count = 0;
    w->contacts_found = 0;
    if (!stage_runs(w)) {
        return true;
    }
    psb_profile *prof = w->profiling ? &w->profile : NULL;
    const double start = prof ? profile_now() : 0.0;
    measure_bodies(w);
    bool whole = find_all(w);
    while (!whole && grow_room(w)) {
        whole = find_all(w);
    }
    w->contacts_found = list->count;
    if (list->count > 0) {
        for (int k = 0; k < w->body_count; k++) {
            if (w->bodies[k]->touch) {
                w->bodies[k]->touch->touched = false;
            }
        }
        for (int i = 0; i < list->count; i++) {
            w->bodies[list->items[i].a]->touch->touched = true;
            w->bodies[list->items[i].b]->touch->touched = true;
        }
        resolve(w);
        rub(w);
        for (int k = 0; k < w->body_count; k++) {
            psb_body *b = w->bodies[k];
            if (takes_part(b) && b->touch->touched) { // the others did not move
                body_publish(b, 0, b->n);
            }
        }
    }
    if (prof) {
        prof->contact += profile_now() - start;
    }
    return whole;
}

// ---- links: contact inside the solve (docs/contact.md)

// A link's stiffness in units of its points' effective mass over the
// sub-step squared (k = LINK_STIFFNESS / (W h^2)): a point that would end a
// sub-step s past a link's plane (held by inertia alone) ends it
// s / (1 + this) past. A ring's links are softer and start from the force
// they last pushed with (RING_LINK_STIFFNESS, docs/contact.md).
#define LINK_STIFFNESS      100.0
#define RING_LINK_STIFFNESS 10.0
// A stiff body's points move together: in a sub-step of h a push on one
// point reaches about r = h sqrt(ks / m) springs across its surface (m its
// mean point mass), a patch of about pi r^2 points, at most all of them. A
// 3D link holds its point against that inertia: each side's masses in W
// count link_drag times, the patch's points over DRAG_PATCH, at least 1.
// The pile's balls move patches of 69 to 163 points and keep the stiffness
// tuned on them; Spot (ks 36800 N/m) moves all its 2930, 14.6 times its
// own, and no longer lands inside the balls (docs/contact.md, "A stiff
// body's links"). A link of a body with itself counts its points' own
// masses: it pushes two parts of one body apart, which its springs resist
// (they are in the solve), not the inertia of a patch dragged along; with
// the patch's, the rocker arm's self links (50 times stiffer) kept its
// solve from converging at rest (docs/contact.md, "A body against itself,
// inside the solve").
#define DRAG_PATCH 200.0
// A link of a body with itself is made where the point's own normal and
// its feature's pseudo-normal face each other (the cosine of the angle
// between them below 0); one whose link pushed at the end of the last
// solved sub-step (contact_keep_link_forces) is made again while that
// cosine is below SELF_KEEP. Without it, where a feature met its point at
// right angles (an edge across a crease's fold), the link's push turned it
// across: the link came and went every other step, and Spot at rest took 3
// Newton steps a frame with its 28 links, none without them
// (docs/contact.md, "Session 36").
#define SELF_KEEP 0.1
// How fast a link moves a point out that starts within the skin or inside
// the other body, m/s: a bounded depenetration (a ring's only from inside:
// link_hold).
#define RECOVERY_SPEED 0.3

// Where a link holds its point (m along n), from where the point starts:
// the skin, or nearer for a point that starts within it or inside. A 3D
// body's point is moved out to the skin at RECOVERY_SPEED. A ring's point,
// whose links carry its load from step to step (contact_keep_link_forces),
// is held where it starts within the skin, and moved out at RECOVERY_SPEED
// only from inside, to the surface: moved out through the skin every step
// the pile's rings jiggled and spun up (docs/contact.md, "The pile's
// rings").
static double link_hold(double start, double delta, double h, bool ring) {
    if (!ring) {
        return fmin(delta, start + RECOVERY_SPEED * h);
    }
    return start >= 0.0 ? fmin(delta, start) : fmin(0.0, start + RECOVERY_SPEED * h);
}

// How many of its points' masses a 3D link of body b counts for each one
// (DRAG_PATCH), in a sub-step of h.
static double link_drag(const psb_body *b, double h) {
    const double patch = PI * h * h * b->params.spring_k * b->n / b->params.mass;
    return fmax(1.0, fmin(b->n, patch) / DRAG_PATCH);
}

// Whether body b's contacts with itself are links of the solve (with
// self_contact on, a shell's; a ring's and a cloth's stay the stage's), once
// contact is solved at all (world_solves_contact).
bool links_itself(const psb_world *w, const psb_body *b) {
    return touches_itself(w, b) && b->kind == PSB_SHELL;
}

static bool add_link(search *out, const solve_link *l) {
    if (out->link_count == out->link_capacity) {
        return false;
    }
    out->links[out->link_count++] = *l;
    return true;
}

// A 3D link's friction (solve_link.friction), from the force it starts
// with, k max(0, hold - start), and its anchor: the pair's relative
// position where it starts, r, less the stretch its point's link against
// the same body kept from the last sub-step (contact_keep_link_forces),
// that stretch turned into the link's plane and held within the
// friction's reach.
static void start_friction(const psb_world *w, const psb_body *a, int ib, solve_link *l, psb_vec3 r,
                           double start) {
    const double f = w->params.contact_friction * l->k * fmax(0.0, l->hold - start);
    const int k = l->p;
    psb_vec3 kept = {0.0, 0.0, 0.0};
    if (f > 0.0 && w->link_forces_kept && a->touch->slip_against[k] == ib + 1) {
        const psb_vec3 n = v3(l->n[0], l->n[1], l->n[2]);
        kept = v3(a->touch->kept_slip[0][k], a->touch->kept_slip[1][k], a->touch->kept_slip[2][k]);
        kept = sub(kept, scale(dot(kept, n), n));
        const double s = sqrt(dot(kept, kept)), reach = f / l->k;
        if (s > reach) {
            kept = scale(reach / s, kept);
        }
    }
    l->friction = f;
    l->anchor[0] = r.x - kept.x;
    l->anchor[1] = r.y - kept.y;
    l->anchor[2] = r.z - kept.z;
}

// The links of body a's points with body b's surface for a solved sub-step
// of h, each point as the plain model's model_find_links does: point p
// within R_p = delta + 2 h (|v_p| + v_B) + 2 |g| h^2 of B's surface links its
// nearest feature (beta, pseudo-normal; against a cloth, turned to p's
// side), held at hold = min(delta, where it starts + RECOVERY_SPEED h); a
// ring's link with RING_LINK_STIFFNESS, its hold raised by the force kept
// from the last sub-step over k (contact_keep_link_forces); a 3D link's
// masses counted link_drag times (but a body's links with itself: once).
// On its own body (a == b, links_itself),
// as the plain model does: moves are seen from the body's mean velocity
// (R_p = delta + 2 h (|v_p - v_mean| + the fastest |v_i - v_mean|)), p's
// own elements, those nearest it on its neighbours only and those whose
// normal does not face p's own pseudo-normal (their dot product not below
// 0: p's own sheet beside it, not another sheet meeting it) are left out,
// the nearest of the rest is a link only where its pseudo-normal faces p's
// too, and n is turned to the side p is on.
static bool find_pair_links(const psb_world *w, int ia, int ib, double h, int i0, int i1,
                            search *out) {
    const psb_body *a = w->bodies[ia], *b = w->bodies[ib];
    const contact_body *cb = b->touch;
    const double delta = w->params.contact_thickness;
    const double fall = 2.0 * fabs(w->params.gravity) * h * h;
    const bool ring = a->kind == PSB_RING;
    const bool self = ia == ib;
    // (On its own body a link counts its points' own masses: DRAG_PATCH.)
    const double drag_a = ring || self ? 1.0 : link_drag(a, h);
    const double drag_b = ring || self ? 1.0 : link_drag(b, h);
    for (int i = i0; i < i1; i++) {
        const int k = a->rank[i];
        const psb_vec3 p = point_at(a, k);
        // (On its own body: less the body's mean velocity, without the fall.)
        const psb_vec3 v =
            sub(v3(a->v[0][k], a->v[1][k], a->v[2][k]), self ? cb->mean_v : v3(0.0, 0.0, 0.0));
        const double reach = delta +
                             2.0 * h * (sqrt(dot(v, v)) + (self ? cb->fastest_rel : cb->fastest)) +
                             (self ? 0.0 : fall);
        if (boxes_apart(p, p, cb->lo, cb->hi, reach)) {
            continue;
        }
        nearest q = {.p = p,
                     .R2 = reach * reach,
                     .self = self ? k : -1,
                     .facing = self,
                     .best = -1,
                     .best_d2 = INFINITY};
        if (self) { // (k is a point of b only on its own body)
            q.facing_n = v3(cb->point_n[0][k], cb->point_n[1][k], cb->point_n[2][k]);
        }
        search_grid(cb, b, out, &q, reach);
        if (q.best < 0 || q.best_d2 > q.R2) {
            continue;
        }
        const int *ek = &cb->corner[cb->per * q.best];
        const psb_vec3 on = surface_point(b, ek, q.beta, cb->per);
        psb_vec3 n = pseudo_normal(cb, q.best, q.beta);
        // On an edge or a corner whose pseudo-normal does not face p's (nor
        // nearly, where p's link pushed in the last sub-step): none.
        const bool kept = self && w->link_forces_kept && a->touch->kept_against[k] == ib + 1;
        if (self && !(dot(q.facing_n, n) < (kept ? SELF_KEEP : 0.0))) {
            continue;
        }
        if ((self || b->kind == PSB_CLOTH) && dot(sub(p, on), n) < 0.0) {
            n = scale(-1.0, n);
        }
        solve_link l = {.a = ia, .p = k, .b = ib, .n = {n.x, n.y, n.z}};
        double W = a->inv_mass[k] / drag_a;
        for (int j = 0; j < 3; j++) {
            l.corner[j] = j < cb->per ? ek[j] : ek[0];
            l.beta[j] = j < cb->per ? q.beta[j] : 0.0;
            W += l.beta[j] * l.beta[j] * b->inv_mass[l.corner[j]] / drag_b;
        }
        if (!(W > 0.0) || !(dot(n, n) > 0.0)) {
            continue;
        }
        l.k = (ring ? RING_LINK_STIFFNESS : LINK_STIFFNESS) / (W * h * h);
        const double start = dot(sub(p, on), n);
        l.hold = link_hold(start, delta, h, ring);
        l.floor = fmin(0.0, start);
        l.e = q.best;
        if (!ring) {
            start_friction(w, a, ib, &l, sub(p, on), start);
        }
        if (ring && w->link_forces_kept && a->touch->kept_against[k] == ib + 1) {
            // Pushing with the force it last had where it is held.
            l.hold += a->touch->kept_force[k] / l.k;
        }
        if (!add_link(out, &l)) {
            return false;
        }
    }
    return true;
}

// Whether body a's points look for links on body b's surface in a sub-step
// of h (their boxes within reach of each other), once the boxes are known.
static bool pair_links_near(const psb_world *w, int ia, int ib, double h) {
    const psb_body *a = w->bodies[ia], *b = w->bodies[ib];
    if ((ia == ib && !links_itself(w, a)) || !takes_part(a) || !takes_part(b) ||
        b->touch->elements == 0 || (a->kind == PSB_RING) != (b->kind == PSB_RING) ||
        !isfinite(a->touch->fastest) || !isfinite(b->touch->fastest)) {
        return false;
    }
    const double R = w->params.contact_thickness +
                     2.0 * h * (a->touch->fastest + b->touch->fastest) +
                     2.0 * fabs(w->params.gravity) * h * h;
    return !boxes_apart(a->touch->lo, a->touch->hi, b->touch->lo, b->touch->hi, R);
}

// Body k's box and fastest point where the sub-step starts (NaN: blown up
// in an earlier sub-step, the guard's, not ours); for a body whose contacts
// with itself are links, also its mean velocity and its fastest point's
// speed less that.
static void measure_for_links(const psb_world *w, psb_body *b) {
    contact_body *cb = b->touch;
    psb_vec3 lo = point_at(b, 0), hi = lo;
    double fastest2 = 0.0;
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 x = point_at(b, i), v = v3(b->v[0][i], b->v[1][i], b->v[2][i]);
        lo = v3(fmin(lo.x, x.x), fmin(lo.y, x.y), fmin(lo.z, x.z));
        hi = v3(fmax(hi.x, x.x), fmax(hi.y, x.y), fmax(hi.z, x.z));
        fastest2 = fmax(fastest2, dot(v, v));
    }
    cb->lo = lo;
    cb->hi = hi;
    cb->fastest = sqrt(fastest2);
    psb_vec3 mean = v3(0.0, 0.0, 0.0);
    for (int i = 0; links_itself(w, b) && i < b->n; i++) {
        mean = add(mean, v3(b->v[0][i], b->v[1][i], b->v[2][i]));
    }
    mean = scale(1.0 / b->n, mean);
    double rel2 = 0.0;
    for (int i = 0; links_itself(w, b) && i < b->n; i++) {
        const psb_vec3 u = sub(v3(b->v[0][i], b->v[1][i], b->v[2][i]), mean);
        rel2 = fmax(rel2, dot(u, u));
    }
    cb->mean_v = mean;
    cb->fastest_rel = sqrt(rel2);
    if (!vec_finite(lo) || !vec_finite(hi) || !isfinite(cb->fastest)) {
        cb->fastest = NAN;
    }
}

// The normals and grid of body ib's surface when some body will search it
// (the stage makes its own again after the step).
static void prepare_for_links(const psb_world *w, int ib, double h) {
    for (int ia = 0; ia < w->body_count; ia++) {
        if (pair_links_near(w, ia, ib, h)) {
            contact_body *cb = w->bodies[ib]->touch;
            surface_normals(cb, w->bodies[ib]);
            surface_grid(cb, w->bodies[ib], w->params.contact_thickness);
            if (links_itself(w, w->bodies[ib])) {
                cell_cones(cb); // (its own points search it facing)
            }
            cb->prepared = -1;
            return;
        }
    }
}

// Body a's links with every other body, in b's order, into out.
static bool find_body_links(const psb_world *w, int ia, double h, search *out) {
    for (int ib = 0; ib < w->body_count; ib++) {
        if (pair_links_near(w, ia, ib, h) &&
            !find_pair_links(w, ia, ib, h, 0, w->bodies[ia]->n, out)) {
            return false;
        }
    }
    return true;
}

// Every body's box and speeds, and the surfaces that will be searched
// made ready, for the links of a sub-step of h: side by side on the
// threads, body by body, when the bodies besides the largest have work
// worth a thread (a large body beside small ones gains nothing, and a
// team started for it spins once done, while a viewer draws).
static void prepare_links(psb_world *w, double h) {
    const int bodies = w->body_count;
    long all = 0, most = 0;
    for (int k = 0; k < bodies; k++) {
        if (takes_part(w->bodies[k])) {
            all += w->bodies[k]->n;
            most = w->bodies[k]->n > most ? w->bodies[k]->n : most;
        }
    }
    const bool share = w->params.threads > 1 && all - most >= PARALLEL_MIN_POINTS / 4;
#pragma omp parallel num_threads(w->params.threads) if (share)
    {
#pragma omp for schedule(static)
        for (int k = 0; k < bodies; k++) {
            if (takes_part(w->bodies[k])) {
                measure_for_links(w, w->bodies[k]);
            }
        }
#pragma omp for schedule(dynamic)
        for (int ib = 0; ib < bodies; ib++) {
            prepare_for_links(w, ib, h);
        }
    }
}

// The links in the order of a, then b, then a's points. With threads, as
// find_all: in pieces of a's points (search_pieces), the same list as on
// one thread, cut at the same link when it is full.
static bool find_links(psb_world *w, double h) {
    w->link_count = 0;
    struct contact_list *list = w->contacts;
    prepare_links(w, h);
#ifdef _OPENMP
    if (search_shared(w, true)) {
        int n = 0;
        bool room = true;
        for (int ia = 0; ia < w->body_count && room; ia++) {
            for (int ib = 0; ib < w->body_count && room; ib++) {
                room = !pair_links_near(w, ia, ib, h) || add_pieces(list, &n, w, ia, ib, 0.0);
            }
        }
        if (room && n > 1) {
            return search_pieces(w, n, true, h, w->links, &w->link_count, w->link_capacity);
        }
    }
#endif
    search one = {.stamp = list->stamp,
                  .stamp_size = list->stamp_size,
                  .query = list->query,
                  .links = w->links,
                  .link_capacity = w->link_capacity};
    bool whole = true;
    for (int ia = 0; ia < w->body_count && whole; ia++) {
        whole = find_body_links(w, ia, h, &one);
    }
    w->link_count = one.link_count;
    list->query = one.query;
    return whole;
}

bool contact_find_links(psb_world *w, double h) {
    bool whole = find_links(w, h);
    while (!whole && grow_room(w)) {
        whole = find_links(w, h);
    }
    return whole;
}

// A link's (x_p - q) . n - hold where the points are now.
static double link_gap_now(const psb_world *w, const solve_link *l) {
    const psb_body *a = w->bodies[l->a], *b = w->bodies[l->b];
    const int corner[3] = {l->corner[0], l->corner[1], l->corner[2]};
    const double beta[3] = {l->beta[0], l->beta[1], l->beta[2]};
    return dot(sub(point_at(a, l->p), surface_point(b, corner, beta, 3)),
               v3(l->n[0], l->n[1], l->n[2])) -
           l->hold;
}

// Friction link l's stretch where the points are now, held within its
// reach (past it the anchor is dragged along), kept on its point with the
// body it pushed against.
static void keep_slip(psb_world *w, const solve_link *l) {
    const psb_body *a = w->bodies[l->a], *b = w->bodies[l->b];
    const int corner[3] = {l->corner[0], l->corner[1], l->corner[2]};
    const double beta[3] = {l->beta[0], l->beta[1], l->beta[2]};
    const psb_vec3 n = v3(l->n[0], l->n[1], l->n[2]);
    psb_vec3 u = sub(sub(point_at(a, l->p), surface_point(b, corner, beta, 3)),
                     v3(l->anchor[0], l->anchor[1], l->anchor[2]));
    u = sub(u, scale(dot(u, n), n));
    const double s = sqrt(dot(u, u)), reach = l->friction / l->k;
    if (s > reach) {
        u = scale(reach / s, u);
    }
    a->touch->kept_slip[0][l->p] = u.x;
    a->touch->kept_slip[1][l->p] = u.y;
    a->touch->kept_slip[2][l->p] = u.z;
    a->touch->slip_against[l->p] = l->b + 1;
}

// The forces the rings' links pushed with at the end of the sub-step just
// solved, each on its point with the body it pushed against: the next
// sub-step's link of that point against that body starts from it
// (find_pair_links), so a ring pressed on another does not sink by its load
// over k each sub-step. A point with two pushing links keeps the later one's.
// And the points of 3D bodies whose links with their own body pushed
// (SELF_KEEP), and the stretch of each 3D link's friction that still pushes
// (keep_slip).
void contact_keep_link_forces(psb_world *w) {
    for (int k = 0; k < w->body_count; k++) {
        const psb_body *b = w->bodies[k];
        if (b->touch) { // (every body: a shell's marks stay off while self contact is)
            memset(b->touch->kept_against, 0, (size_t)b->n_pad * sizeof(int));
            memset(b->touch->slip_against, 0, (size_t)b->n_pad * sizeof(int));
        }
    }
    for (int m = 0; m < w->link_count; m++) {
        const solve_link *l = &w->links[m];
        const psb_body *a = w->bodies[l->a];
        const bool force = a->kind == PSB_RING || l->a == l->b, slip = l->friction > 0.0;
        const double gap = force || slip ? link_gap_now(w, l) : 0.0;
        if (force && gap < 0.0) {
            a->touch->kept_force[l->p] = l->k * -gap;
            a->touch->kept_against[l->p] = l->b + 1;
        }
        if (slip && gap < 0.0) {
            keep_slip(w, l);
        }
    }
    w->link_forces_kept = true;
}

// Coulomb friction on the links of the sub-step of h just solved that had
// none in the solve (solve_link.friction, from the force a link starts
// with: these started outside the skin), one pass in the list's order (the
// same on any thread count). A link that pushes at the end of the solve
// (gap < 0) gave its pair the normal impulse j_n = k (-gap) h; their
// relative velocity along the surface, u_t = u - (u . n) n with
// u = v_p - sum beta_j v_j, is taken down by an impulse of at most mu j_n
// against it, to 0 where that is enough (the pair sticks). It is given to
// p and taken from the corners as every contact impulse is, so momentum is
// kept. Not between rings (2D): there it locks crushed rings into each
// other (docs/contact.md, "Coulomb friction").
void contact_link_friction(psb_world *w, double h) {
    const double mu = w->params.contact_friction;
    if (!(mu > 0.0)) {
        return;
    }
    for (int m = 0; m < w->link_count; m++) {
        const solve_link *l = &w->links[m];
        const contact c = {.a = l->a,
                           .p = l->p,
                           .b = l->b,
                           .corner = {l->corner[0], l->corner[1], l->corner[2]},
                           .beta = {l->beta[0], l->beta[1], l->beta[2]},
                           .n = v3(l->n[0], l->n[1], l->n[2])};
        if (w->bodies[l->a]->kind == PSB_RING) {
            continue; // rings touch rings only
        }
        const double gap = link_gap_now(w, l);
        const double W = inverse_mass_sum(w, &c);
        if (!(gap < 0.0) || !(W > 0.0) || l->friction > 0.0) {
            continue;
        }
        const psb_vec3 u = relative_velocity(w, &c, false);
        const psb_vec3 ut = sub(u, scale(dot(u, c.n), c.n));
        const double slide = sqrt(dot(ut, ut));
        const double most = mu * l->k * -gap * h; // mu j_n
        if (slide > 0.0) {
            apply_pair(w, &c, scale(-fmin(1.0 / W, most / slide), ut), PAIR_KICK);
        }
    }
}

struct contact_list *contact_list_create(void) {
    return calloc(1, sizeof(struct contact_list));
}

static void free_lanes(struct contact_list *list) {
    for (int t = 0; t < list->lane_count; t++) {
        free(list->lanes[t].items);
        free(list->lanes[t].stamp);
        free(list->lanes[t].links);
    }
    free(list->lanes);
    list->lanes = NULL;
    list->lane_count = 0;
}

void contact_list_destroy(struct contact_list *list) {
    if (list) {
        free_lanes(list);
        free(list->items);
        free(list->stamp);
        free(list->pieces);
        free(list);
    }
}

// Lanes for `threads` threads (none for one), each with room for the
// list's capacity of contacts and of links and stamp_size stamps. False: no
// memory (the list keeps no lanes, and searches on one thread).
static bool make_lanes(struct contact_list *list, int threads) {
    free_lanes(list);
    if (threads < 2) {
        return true;
    }
    list->lanes = calloc((size_t)threads, sizeof *list->lanes);
    if (!list->lanes) {
        return false;
    }
    list->lane_count = threads;
    for (int t = 0; t < threads; t++) {
        search *lane = &list->lanes[t];
        const size_t room = (size_t)(list->capacity > 0 ? list->capacity : 1);
        lane->items = malloc(room * sizeof(contact));
        lane->links = malloc(room * sizeof(solve_link));
        lane->stamp = calloc((size_t)(list->stamp_size > 0 ? list->stamp_size : 1), sizeof(int));
        lane->capacity = list->capacity;
        lane->link_capacity = list->capacity;
        lane->stamp_size = list->stamp_size;
        if (!lane->items || !lane->links || !lane->stamp) {
            free_lanes(list);
            return false;
        }
    }
    return true;
}

bool contact_list_reserve(struct contact_list *list, int capacity, int elements, int bodies,
                          long points, int threads) {
    // Lanes smaller than the list would not find what one thread does: on
    // any failure below the list keeps none (and searches on one thread).
    if (capacity > list->capacity) {
        free_lanes(list);
        contact *items = realloc(list->items, (size_t)capacity * sizeof *items);
        if (!items) {
            return false;
        }
        list->items = items;
        list->capacity = capacity;
    }
    if (elements > list->stamp_size) {
        free_lanes(list);
        int *stamp = calloc((size_t)elements, sizeof(int));
        if (!stamp) {
            return false;
        }
        free(list->stamp);
        list->stamp = stamp;
        list->stamp_size = elements;
        list->query = 0;
    }
    // Pieces for each body's points against itself and 7 others (more, when
    // a search needs them, are made then: more_pieces).
    const long pieces = (points / SEARCH_PIECE + bodies) * (bodies < 8 ? bodies : 8);
    if (threads > 1 && pieces > list->piece_room && pieces <= INT_MAX) {
        search_piece *more = realloc(list->pieces, (size_t)pieces * sizeof *more);
        if (!more) {
            return false;
        }
        list->pieces = more;
        list->piece_room = (int)pieces;
    }
    const bool lanes_fit =
        threads < 2 || (list->lane_count == threads && list->lanes[0].capacity == list->capacity &&
                        list->lanes[0].stamp_size == list->stamp_size);
    return lanes_fit || make_lanes(list, threads);
}

int contact_body_elements(const contact_body *cb) {
    return cb ? cb->elements : 0;
}

int psb_world_contact_count(const psb_world *w) {
    return w->contacts_found;
}

int psb_world_link_count(const psb_world *w) {
    return world_solves_contact(w) ? w->link_count : 0;
}
