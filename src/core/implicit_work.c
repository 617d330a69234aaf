// The implicit step's workspace (implicit.c has the step): each body's
// scratch and the topology the solver walks, made outside the step; the
// team's sums; a group's bodies run side by side; the world's room for the
// groups' contexts.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "implicit_internal.h"

static void free3(double *a[3]) {
    for (int c = 0; c < 3; c++) {
        free(a[c]);
    }
}

void body_wake(psb_body *b) {
    b->stirred = true;
    if (b->implicit) {
        b->implicit->judge.valid = false;
        b->implicit->quiet = false;
        b->implicit->still_for = -1.0;
    }
}

void implicit_work_destroy(implicit_work *W) {
    if (!W) {
        return;
    }
    free(W->adj_start);
    free(W->adj_other);
    free(W->adj_owner);
    free(W->slot_energy);
    free(W->slot_force);
    free(W->slot_k);
    free(W->adj_rest);
    free(W->adj_u0);
    free(W->adj_b);
    free(W->adj_c);
    free(W->tri_slot);
    free(W->strut_start);
    free(W->strut_other);
    free(W->strut_rest);
    free(W->strut_b);
    free(W->strut_on);
    mg_destroy(W->mg);
    free(W->tri_start);
    free(W->tri_jk);
    free(W->ring_next);
    free(W->ring_prev);
    free3(W->y);
    free3(W->xb);
    free3(W->hist_x);
    free3(W->hist_v);
    free3(W->end_x);
    free3(W->end_v);
    free3(W->gbuf[0]);
    free3(W->gbuf[1]);
    free3(W->d);
    free3(W->r);
    free3(W->z);
    free3(W->p);
    free3(W->q);
    free3(W->xs);
    free3(W->wv);
    free3(W->still_at);
    free3(W->cn);
    free3(W->plane_n);
    free(W->plane_d);
    free3(W->link_g);
    free(W->link_d);
    free(W->diag);
    free(W->dinv);
    free(W->sums);
    free(W);
}

static bool alloc3(double *a[3], size_t n) {
    for (int c = 0; c < 3; c++) {
        a[c] = calloc(n, sizeof(double));
        if (!a[c]) {
            return false;
        }
    }
    return true;
}

// The slot of point i's spring to j, or -1.
int implicit_find_slot(const implicit_work *W, int i, int j) {
    for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
        if (W->adj_other[slot] == j) {
            return slot;
        }
    }
    return -1;
}

void implicit_each_body(group *g, body_work *work, void *arg) {
#ifdef _OPENMP
    if (g->threads > 1) {
#pragma omp parallel for num_threads(g->threads) schedule(dynamic)
        for (int k = 0; k < g->count; k++) {
            if (!g->s[k].settled) {
                work(g, k, arg);
            }
        }
        return;
    }
#endif
    for (int k = 0; k < g->count; k++) {
        if (!g->s[k].settled) {
            work(g, k, arg);
        }
    }
}

double implicit_on_lead(group *g, lead_work *work, const void *arg) {
    const step_ctx *s = &g->s[0];
    if (g->count > 1 || s->part->team == 1) {
        return work(g, arg);
    }
    team_sync(s); // every thread is done with what the work reads and writes
    if (team_lead(s)) {
        s->W->lead_value = work(g, arg);
    }
    team_sync(s);
    return s->W->lead_value;
}

// An edge of a triangle (public indices, lo < hi) and the triangle's
// third corner.
typedef struct flap_edge {
    int lo, hi, far;
} flap_edge;

static int compare_flap_edges(const void *pa, const void *pb) {
    const flap_edge *a = pa, *b = pb;
    if (a->lo != b->lo) {
        return a->lo < b->lo ? -1 : 1;
    }
    if (a->hi != b->hi) {
        return a->hi < b->hi ? -1 : 1;
    }
    return (a->far > b->far) - (a->far < b->far);
}

static bool has_spring(const implicit_work *W, const psb_body *b, int p, int q) {
    return implicit_find_slot(W, b->rank[p], b->rank[q]) >= 0;
}

// The struts' ends (public indices, 2 per strut) into *ends: on a shell
// one for each edge that exactly two triangles share, between their far
// corners, unless a spring or an earlier strut joins them already; none
// on a ring or a cloth (docs/contact.md, "Struts"). Returns the count, or
// -1 when out of memory. Needs the springs' slots.
static int find_struts(const psb_body *b, const implicit_work *W, int **ends) {
    *ends = NULL;
    if (b->kind != PSB_SHELL) {
        return 0;
    }
    const int count = 3 * b->tri_count;
    flap_edge *edges = malloc(((size_t)count + 1) * sizeof *edges);
    if (!edges) {
        return -1;
    }
    for (int t = 0; t < b->tri_count; t++) {
        for (int c = 0; c < 3; c++) {
            const int i = b->tris[3 * t + c], j = b->tris[3 * t + (c + 1) % 3];
            edges[3 * t + c] =
                (flap_edge){i < j ? i : j, i < j ? j : i, b->tris[3 * t + (c + 2) % 3]};
        }
    }
    qsort(edges, (size_t)count, sizeof *edges, compare_flap_edges);
    // The far corners of each shared edge, as edges of their own (far 0),
    // written over the front of the list as it is read.
    int found = 0;
    for (int e = 0; e < count;) {
        int run = 1;
        while (e + run < count && edges[e + run].lo == edges[e].lo &&
               edges[e + run].hi == edges[e].hi) {
            run++;
        }
        const int p = edges[e].far, q = edges[e + 1 < count ? e + 1 : e].far;
        e += run;
        if (run == 2 && p != q && !has_spring(W, b, p, q)) {
            edges[found++] = (flap_edge){p < q ? p : q, p < q ? q : p, 0};
        }
    }
    qsort(edges, (size_t)found, sizeof *edges, compare_flap_edges);
    int *pairs = malloc(2 * ((size_t)found + 1) * sizeof *pairs);
    if (!pairs) {
        free(edges);
        return -1;
    }
    int kept = 0;
    for (int e = 0; e < found; e++) {
        if (e > 0 && edges[e].lo == edges[e - 1].lo && edges[e].hi == edges[e - 1].hi) {
            continue; // two edges with the same far corners: one strut
        }
        pairs[2 * kept] = edges[e].lo;
        pairs[2 * kept + 1] = edges[e].hi;
        kept++;
    }
    free(edges);
    *ends = pairs;
    return kept;
}

// The struts' slots (internal order), in the order find_struts gives
// them at each point.
static bool build_struts(const psb_body *b, implicit_work *W) {
    const int n = b->n;
    int *ends;
    const int count = find_struts(b, W, &ends);
    W->strut_start = calloc((size_t)n + 1, sizeof(int));
    W->strut_on = calloc((size_t)n + 1, sizeof(int));
    W->strut_other = malloc(2 * ((size_t)(count > 0 ? count : 0) + 1) * sizeof(int));
    W->strut_rest = malloc(2 * ((size_t)(count > 0 ? count : 0) + 1) * sizeof(double));
    W->strut_b = calloc(18 * ((size_t)(count > 0 ? count : 0) + 1), sizeof(double));
    int *fill = calloc((size_t)n + 1, sizeof(int));
    const bool ok = count >= 0 && W->strut_start && W->strut_on && W->strut_other &&
                    W->strut_rest && W->strut_b && fill;
    for (int k = 0; ok && k < 2 * count; k++) {
        W->strut_start[b->rank[ends[k]] + 1]++;
    }
    for (int i = 0; ok && i < n; i++) {
        W->strut_start[i + 1] += W->strut_start[i];
    }
    for (int k = 0; ok && k < count; k++) {
        const int p = ends[2 * k], q = ends[2 * k + 1];
        const int i = b->rank[p], j = b->rank[q];
        const int si = W->strut_start[i] + fill[i]++, sj = W->strut_start[j] + fill[j]++;
        W->strut_other[si] = j;
        W->strut_other[sj] = i;
        const psb_vec3 a = b->rest[p], c = b->rest[q];
        W->strut_rest[si] = W->strut_rest[sj] =
            sqrt((a.x - c.x) * (a.x - c.x) + (a.y - c.y) * (a.y - c.y) + (a.z - c.z) * (a.z - c.z));
    }
    free(fill);
    free(ends);
    return ok;
}

// The topology the solver walks, in internal order.
static bool build_topology(const psb_body *b, implicit_work *W) {
    const int n = b->n;
    W->adj_start = calloc((size_t)n + 1, sizeof(int));
    if (!W->adj_start) {
        return false;
    }
    for (int s = 0; s < b->spring_count; s++) {
        W->adj_start[b->rank[b->springs[2 * s]] + 1]++;
        W->adj_start[b->rank[b->springs[2 * s + 1]] + 1]++;
    }
    for (int i = 0; i < n; i++) {
        W->adj_start[i + 1] += W->adj_start[i];
    }
    const size_t slots = (size_t)W->adj_start[n];
    int *fill = calloc((size_t)n, sizeof(int));
    W->adj_other = malloc((slots ? slots : 1) * sizeof(int));
    W->adj_rest = malloc((slots ? slots : 1) * sizeof(double));
    W->adj_u0 = malloc((slots ? slots : 1) * 3 * sizeof(double));
    W->adj_b = malloc((slots ? slots : 1) * 9 * sizeof(double));
    W->adj_owner = malloc((slots ? slots : 1) * sizeof(int));
    W->slot_energy = malloc((slots ? slots : 1) * sizeof(double));
    W->slot_force = malloc((slots ? slots : 1) * 3 * sizeof(double));
    W->slot_k = malloc((slots ? slots : 1) * 6 * sizeof(double));
    const bool avx2 = implicit_has_avx2(); // (adj_c: the product's blocks for it)
    if (avx2) {
        W->adj_c = aligned_alloc(16, (slots ? slots : 1) * 12 * sizeof(float));
    }
    if (!fill || !W->adj_other || !W->adj_rest || !W->adj_u0 || !W->adj_b || !W->adj_owner ||
        !W->slot_energy || !W->slot_force || !W->slot_k || (avx2 && !W->adj_c)) {
        free(fill);
        return false;
    }
    // Slots in spring order at each point, so the layout does not depend
    // on anything but the body.
    for (int s = 0; s < b->spring_count; s++) {
        const int i = b->rank[b->springs[2 * s]], j = b->rank[b->springs[2 * s + 1]];
        const int si = W->adj_start[i] + fill[i]++, sj = W->adj_start[j] + fill[j]++;
        W->adj_other[si] = j;
        W->adj_other[sj] = i;
        W->adj_rest[si] = W->adj_rest[sj] = b->rest_length[s];
    }
    free(fill);
    for (int i = 0; i < n; i++) {
        for (int slot = W->adj_start[i]; slot < W->adj_start[i + 1]; slot++) {
            W->adj_owner[slot] = i;
        }
    }
    if (!build_struts(b, W)) {
        return false;
    }
    if (b->kind == PSB_RING) {
        W->ring_next = malloc((size_t)n * sizeof(int));
        W->ring_prev = malloc((size_t)n * sizeof(int));
        if (!W->ring_next || !W->ring_prev) {
            return false;
        }
        for (int pub = 0; pub < n; pub++) {
            const int i = b->rank[pub];
            W->ring_next[i] = b->rank[pub + 1 == n ? 0 : pub + 1];
            W->ring_prev[i] = b->rank[pub == 0 ? n - 1 : pub - 1];
        }
        return true;
    }
    W->tri_start = calloc((size_t)n + 1, sizeof(int));
    W->tri_jk = malloc(((size_t)6 * (size_t)b->tri_count + 1) * sizeof(int));
    W->tri_slot = malloc(((size_t)6 * (size_t)b->tri_count + 1) * sizeof(int));
    int *at = calloc((size_t)n, sizeof(int));
    if (!W->tri_start || !W->tri_jk || !W->tri_slot || !at) {
        free(at);
        return false;
    }
    for (int t = 0; t < 3 * b->tri_count; t++) {
        W->tri_start[b->rank[b->tris[t]] + 1]++;
    }
    for (int i = 0; i < n; i++) {
        W->tri_start[i + 1] += W->tri_start[i];
    }
    for (int t = 0; t < b->tri_count; t++) {
        for (int corner = 0; corner < 3; corner++) {
            const int i = b->rank[b->tris[3 * t + corner]];
            const int j = b->rank[b->tris[3 * t + (corner + 1) % 3]];
            const int k = b->rank[b->tris[3 * t + (corner + 2) % 3]];
            const int slot = W->tri_start[i] + at[i]++;
            W->tri_jk[2 * slot] = j;
            W->tri_jk[2 * slot + 1] = k;
            W->tri_slot[2 * slot] = implicit_find_slot(W, i, j);
            W->tri_slot[2 * slot + 1] = implicit_find_slot(W, i, k);
        }
    }
    free(at);
    return true;
}

void body_implicit_scalar_product(psb_body *b) {
    if (b->implicit) {
        free(b->implicit->adj_c);
        b->implicit->adj_c = NULL;
    }
}

void body_implicit_baseline_springs(psb_body *b) {
    if (b->implicit) {
        b->implicit->baseline_springs = true;
    }
}

psb_status body_prepare_implicit(psb_body *b, psb_error *err) {
    if (b->implicit) {
        return PSB_OK;
    }
    implicit_work *W = calloc(1, sizeof *W);
    const size_t n = (size_t)b->n_pad;
    bool ok = W && build_topology(b, W) && alloc3(W->y, n) && alloc3(W->gbuf[0], n) &&
              alloc3(W->gbuf[1], n) && alloc3(W->d, n) && alloc3(W->r, n) && alloc3(W->z, n) &&
              alloc3(W->p, n) && alloc3(W->q, n) && alloc3(W->xs, n) && alloc3(W->wv, n) &&
              alloc3(W->still_at, n) && alloc3(W->cn, n) && alloc3(W->plane_n, n) &&
              alloc3(W->xb, n) && alloc3(W->hist_x, n) && alloc3(W->hist_v, n) &&
              alloc3(W->end_x, n) && alloc3(W->end_v, n) && alloc3(W->link_g, n);
    if (ok) {
        W->still_for = -1.0; // (no window yet)
        W->diag = calloc(6 * n, sizeof(double));
        W->dinv = calloc(6 * n, sizeof(double));
        W->sums = calloc((size_t)b->chunk_count * SUMS, sizeof(double));
        W->plane_d = calloc(n, sizeof(double));
        W->link_d = calloc(6 * n, sizeof(double));
        ok = W->diag && W->dinv && W->sums && W->plane_d && W->link_d;
    }
    if (ok) {
        bool no_memory = false;
        W->mg = mg_create(b->n, W->adj_start, W->adj_other, &no_memory);
        ok = !no_memory;
    }
    if (!ok) {
        implicit_work_destroy(W);
        return psb_error_set(err, PSB_ERR_NOMEM,
                             "out of memory for the implicit solver of a body of %d points", b->n);
    }
    b->implicit = W;
    return PSB_OK;
}

// Waits before (the sums are in) and after (nobody overwrites them while
// another thread still reads).
void implicit_reduce(const step_ctx *s, int count, double out[SUMS]) {
    team_sync(s);
    const double *sums = s->W->sums;
    for (int k = 0; k < count; k++) {
        out[k] = 0.0;
    }
    out[MAX_SLOT] = 0.0;
    for (int ch = 0; ch < s->b->chunk_count; ch++) {
        for (int k = 0; k < count; k++) {
            out[k] += sums[ch * SUMS + k];
        }
        out[MAX_SLOT] = fmax(out[MAX_SLOT], sums[ch * SUMS + MAX_SLOT]);
    }
    team_sync(s);
}

bool implicit_group_reserve(psb_world *w, int bodies) {
    const size_t room = (size_t)(bodies > 0 ? bodies : 1);
    step_ctx *ctx = realloc(w->group_ctx, room * sizeof *ctx);
    if (ctx) {
        w->group_ctx = ctx;
    }
    body_part *part = realloc(w->group_part, room * sizeof *part);
    if (part) {
        w->group_part = part;
    }
    return ctx && part;
}
