// Topology report: edges, holes, non-manifold edges, winding conflicts,
// components and genus of a ring or a triangle mesh.
//
// Each triangle (a, b, c) walks three half-edges a -> b, b -> c, c -> a. The
// half-edges are filed by the smaller end of their edge with a counting sort,
// then each vertex's short list is sorted by the other end, so equal edges lie
// side by side: O(V + F) apart from those tiny sorts. A closed, consistently
// wound surface uses each edge exactly twice, once in each direction.
//
// Border edges (used by one face) are then walked into loops, the holes; the
// walk lives here too (psb_border_loops_find) so that the repair fills
// exactly the loops this report counts.
#include "border_loops.h"
#include "mesh_internal.h"
#include <psb/psb_mesh.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// One half-edge filed under the smaller end of its edge.
typedef struct half_edge {
    int other;   // the larger end
    int forward; // 1 if walked from the smaller end to the larger, else 0
} half_edge;

static int compare_half_edges(const void *pa, const void *pb) {
    const half_edge *a = pa, *b = pb;
    if (a->other != b->other) {
        return a->other < b->other ? -1 : 1;
    }
    return (a->forward > b->forward) - (a->forward < b->forward);
}

// Sorts a short list by insertion, a long one (a vertex of huge degree) by qsort.
static void sort_half_edges(half_edge *list, int count) {
    if (count > 32) {
        qsort(list, (size_t)count, sizeof *list, compare_half_edges);
        return;
    }
    for (int i = 1; i < count; i++) {
        half_edge h = list[i];
        int j = i;
        while (j > 0 && compare_half_edges(&list[j - 1], &h) > 0) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = h;
    }
}

static void free_all(void *a, void *b, void *c, void *d, void *e) {
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

// Union by size.
static void unite(int *parent, int *size, int a, int b) {
    a = find_root(parent, a);
    b = find_root(parent, b);
    if (a == b) {
        return;
    }
    if (size[a] < size[b]) {
        int swap = a;
        a = b;
        b = swap;
    }
    parent[b] = a;
    size[a] += size[b];
}

/// Splits border half-edges into simple loops; see border_loops.h.
psb_status psb_border_loops_find(int vcount, const int *from, const int *to, int count,
                                 psb_border_loops *out) {
    *out = (psb_border_loops){0};
    size_t nv = (size_t)(vcount > 0 ? vcount : 0), nc = (size_t)(count > 0 ? count : 1);
    int *first = malloc((nv + 1) * sizeof *first); // outgoing half-edges of v: first[v]..first[v+1]
    int *cursor = malloc((nv > 0 ? nv : 1) * sizeof *cursor); // next unused outgoing half-edge
    int *mark = malloc((nv > 0 ? nv : 1) * sizeof *mark);     // position on the path, or -1
    int *outgoing = malloc(nc * sizeof *outgoing);
    int *stack = malloc(nc * sizeof *stack); // the path walked so far, as half-edges
    out->order = malloc(nc * sizeof *out->order);
    out->start = malloc((nc + 1) * sizeof *out->start);
    out->closed = malloc(nc * sizeof *out->closed);
    if (!first || !cursor || !mark || !outgoing || !stack || !out->order || !out->start ||
        !out->closed) {
        free_all(first, cursor, mark, outgoing, stack);
        psb_border_loops_free(out);
        return PSB_ERR_NOMEM;
    }

    // Two stable counting sorts (by end, then by start) file the outgoing
    // half-edges of each vertex in order of their end vertex.
    memset(first, 0, (nv + 1) * sizeof *first);
    for (int i = 0; i < count; i++) {
        first[to[i] + 1]++;
    }
    for (size_t v = 0; v < nv; v++) {
        first[v + 1] += first[v];
    }
    for (int i = 0; i < count; i++) {
        stack[first[to[i]]++] = i;
    }
    memset(first, 0, (nv + 1) * sizeof *first);
    for (int i = 0; i < count; i++) {
        first[from[i] + 1]++;
    }
    for (size_t v = 0; v < nv; v++) {
        first[v + 1] += first[v];
        cursor[v] = first[v];
        mark[v] = -1;
    }
    for (int i = 0; i < count; i++) {
        int e = stack[i];
        outgoing[cursor[from[e]]++] = e;
    }
    for (size_t v = 0; v < nv; v++) {
        cursor[v] = first[v];
    }

    // Walk from each vertex in turn. Reaching a vertex already on the path
    // closes a simple loop: it is cut off the path and the walk goes on from
    // that vertex. A walk that ends where no border half-edge leaves is an
    // open chain.
    int loops = 0, written = 0;
    for (int s = 0; s < vcount; s++) {
        while (cursor[s] < first[s + 1]) {
            int cur = s, top = 0;
            mark[s] = 0;
            for (;;) {
                if (cursor[cur] == first[cur + 1]) {
                    if (top > 0) {
                        out->start[loops] = written;
                        out->closed[loops++] = false;
                        for (int i = 0; i < top; i++) {
                            out->order[written++] = stack[i];
                            mark[to[stack[i]]] = -1;
                        }
                    }
                    mark[s] = -1;
                    break;
                }
                int e = outgoing[cursor[cur]++], next = to[e];
                stack[top++] = e;
                if (mark[next] < 0) {
                    mark[next] = top;
                    cur = next;
                    continue;
                }
                int p = mark[next];
                out->start[loops] = written;
                out->closed[loops++] = true;
                for (int i = p; i < top; i++) {
                    out->order[written++] = stack[i];
                    if (i < top - 1) {
                        mark[to[stack[i]]] = -1;
                    }
                }
                top = p;
                cur = next;
            }
        }
    }
    out->start[loops] = written;
    out->count = loops;

    // Chains (from faces that disagree in orientation) would close into
    // loops if read without direction: count the groups their ends join.
    for (int v = 0; v < vcount; v++) {
        first[v] = v;  // now union-find parents
        cursor[v] = 1; // and sizes
    }
    out->holes = loops;
    for (int l = 0; l < loops; l++) {
        if (!out->closed[l]) {
            out->holes--;
            int a = from[out->order[out->start[l]]], b = to[out->order[out->start[l + 1] - 1]];
            unite(first, cursor, a, b);
        }
    }
    for (int l = 0; l < loops; l++) {
        int root = find_root(first, from[out->order[out->start[l]]]);
        if (!out->closed[l] && mark[root] < 0) {
            mark[root] = 0;
            out->holes++;
        }
    }
    free_all(first, cursor, mark, outgoing, stack);
    return PSB_OK;
}

/// Frees the loops' arrays and zeroes the struct.
void psb_border_loops_free(psb_border_loops *loops) {
    free(loops->order);
    free(loops->start);
    free(loops->closed);
    *loops = (psb_border_loops){0};
}

// The holes: border edges (runs of length 1 in the filed lists) walked into loops.
static psb_status count_holes(int vcount, const int *start, const half_edge *list, int border,
                              int *holes) {
    *holes = 0;
    if (border == 0) {
        return PSB_OK;
    }
    int *from = malloc((size_t)border * sizeof *from);
    int *to = malloc((size_t)border * sizeof *to);
    if (!from || !to) {
        free(from);
        free(to);
        return PSB_ERR_NOMEM;
    }
    int k = 0;
    for (int v = 0; v < vcount; v++) {
        const half_edge *l = list + start[v];
        int n = start[v + 1] - start[v];
        for (int i = 0; i < n; i++) {
            bool alone = (i == 0 || l[i - 1].other != l[i].other) &&
                         (i == n - 1 || l[i + 1].other != l[i].other);
            if (alone) {
                from[k] = l[i].forward ? v : l[i].other;
                to[k++] = l[i].forward ? l[i].other : v;
            }
        }
    }
    psb_border_loops loops;
    psb_status status = psb_border_loops_find(vcount, from, to, k, &loops);
    *holes = loops.holes;
    psb_border_loops_free(&loops);
    free(from);
    free(to);
    return status;
}

static psb_status ring_topology(const psb_mesh *mesh, psb_topology *out) {
    int n = mesh->point_count;
    out->vertices = n;
    out->edges = n;
    out->components = n > 0 ? 1 : 0;
    out->euler = 0; // V - E
    out->volume = psb_mesh_volume(mesh);
    out->oriented = true;
    out->closed = n >= 3 && out->volume > 0.0;
    out->genus = out->closed ? 0 : -1;
    return PSB_OK;
}

/// The topology report; see psb_mesh.h. Fails with PSB_ERR_INVALID on a
/// malformed mesh struct (negative count, NULL array with a nonzero count,
/// index out of range) and PSB_ERR_NOMEM; *out is then zeroed.
psb_status psb_mesh_topology(const psb_mesh *mesh, psb_topology *out, psb_error *err) {
    static const char fn[] = "psb_mesh_topology";
    if (!out) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: out is NULL", fn);
    }
    memset(out, 0, sizeof *out);
    if (!mesh) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: mesh is NULL", fn);
    }
    int vcount = mesh->point_count, fcount = mesh->triangle_count;
    if (mesh->kind != PSB_RING && mesh->kind != PSB_SHELL) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: kind must be PSB_RING or PSB_SHELL, got %d",
                             fn, (int)mesh->kind);
    }
    if (vcount < 0 || (vcount > 0 && !mesh->points)) {
        return psb_error_set(
            err, PSB_ERR_INVALID,
            "%s: point_count is %d with points %s; expected a count >= 0 and an array "
            "for a nonzero count",
            fn, vcount, mesh->points ? "set" : "NULL");
    }
    if (mesh->kind == PSB_RING) {
        ring_topology(mesh, out);
        if (err) {
            err->status = PSB_OK;
            err->message[0] = '\0';
        }
        return PSB_OK;
    }
    if (fcount < 0 || fcount > INT_MAX / 3 || (fcount > 0 && !mesh->triangles)) {
        return psb_error_set(
            err, PSB_ERR_INVALID,
            "%s: triangle_count is %d with triangles %s; expected a count in 0..%d and "
            "an array for a nonzero count",
            fn, fcount, mesh->triangles ? "set" : "NULL", INT_MAX / 3);
    }
    const int *tris = mesh->triangles;
    int hcount = 3 * fcount;
    for (int h = 0; h < hcount; h++) {
        if (tris[h] < 0 || tris[h] >= vcount) {
            return psb_error_set(
                err, PSB_ERR_INVALID,
                "%s: triangle %d corner %d is point %d; expected an index in 0..%d", fn, h / 3,
                h % 3, tris[h], vcount - 1);
        }
    }

    size_t nv = (size_t)vcount;
    int *start = malloc((nv + 1) * sizeof *start);
    half_edge *list = malloc((size_t)(hcount > 0 ? hcount : 1) * sizeof *list);
    int *parent = malloc((nv > 0 ? nv : 1) * sizeof *parent);
    int *aux = malloc((nv > 0 ? nv : 1) * sizeof *aux);           // union sizes, then component ids
    int *counts = malloc((nv > 0 ? nv : 1) * 3 * sizeof *counts); // per component V, E, F
    if (!start || !list || !parent || !aux || !counts) {
        free_all(start, list, parent, aux, counts);
        return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory for %d points and %d triangles",
                             fn, vcount, fcount);
    }

    // Components: union the corners of every face. A vertex is used when some
    // face names it (its size counter starts at 0 and is bumped below).
    for (int v = 0; v < vcount; v++) {
        parent[v] = v;
        aux[v] = 1;
    }
    for (int f = 0; f < fcount; f++) {
        unite(parent, aux, tris[3 * f], tris[3 * f + 1]);
        unite(parent, aux, tris[3 * f], tris[3 * f + 2]);
    }
    memset(start, 0, (nv + 1) * sizeof *start); // doubles as the "used" mark for now
    for (int h = 0; h < hcount; h++) {
        start[tris[h]] = 1;
    }
    int used = 0, components = 0;
    for (int v = 0; v < vcount; v++) {
        aux[v] = -1;
    }
    for (int v = 0; v < vcount; v++) {
        if (!start[v]) {
            continue;
        }
        used++;
        int root = find_root(parent, v);
        if (aux[root] < 0) {
            aux[root] = components++;
        }
    }
    memset(counts, 0, (size_t)components * 3 * sizeof *counts);
    for (int v = 0; v < vcount; v++) {
        if (start[v]) {
            counts[3 * aux[find_root(parent, v)]]++;
        }
    }
    for (int f = 0; f < fcount; f++) {
        counts[3 * aux[find_root(parent, tris[3 * f])] + 2]++;
    }

    // File every half-edge under its smaller end: counting sort into start[].
    memset(start, 0, (nv + 1) * sizeof *start);
    for (int h = 0; h < hcount; h++) {
        int a = tris[h], b = tris[h - h % 3 + (h + 1) % 3];
        start[(a < b ? a : b) + 1]++;
    }
    for (int v = 0; v < vcount; v++) {
        start[v + 1] += start[v];
    }
    for (int h = 0; h < hcount; h++) {
        int a = tris[h], b = tris[h - h % 3 + (h + 1) % 3];
        int lo = a < b ? a : b;
        list[start[lo]++] = (half_edge){a < b ? b : a, a < b};
    }
    // start[v] now marks the end of v's list, the start of v + 1's: shift back.
    for (int v = vcount; v > 0; v--) {
        start[v] = start[v - 1];
    }
    start[0] = 0;

    // Runs of equal (smaller end, larger end) are one undirected edge.
    // A degenerate triangle (a repeated corner) makes a loop edge a -> a,
    // which is counted like any other edge and so leaves the mesh not closed.
    int edges = 0, border = 0, nonmanifold = 0, conflicts = 0;
    for (int v = 0; v < vcount; v++) {
        half_edge *l = list + start[v];
        int n = start[v + 1] - start[v];
        sort_half_edges(l, n);
        for (int i = 0; i < n;) {
            int j = i, forward = 0;
            while (j < n && l[j].other == l[i].other) {
                forward += l[j].forward;
                j++;
            }
            int uses = j - i, backward = uses - forward;
            edges++;
            border += uses == 1;
            nonmanifold += uses >= 3;
            conflicts += forward >= 2 || backward >= 2;
            counts[3 * aux[find_root(parent, v)] + 1]++;
            i = j;
        }
    }

    int holes = 0;
    if (count_holes(vcount, start, list, border, &holes) != PSB_OK) {
        free_all(start, list, parent, aux, counts);
        return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory for %d border edges", fn,
                             border);
    }

    out->vertices = vcount;
    out->faces = fcount;
    out->edges = edges;
    out->border_edges = border;
    out->holes = holes;
    out->nonmanifold_edges = nonmanifold;
    out->orientation_conflicts = conflicts;
    out->unused_vertices = vcount - used;
    out->components = components;
    out->euler = (int)((long long)used - edges + fcount); // chi = V - E + F
    out->volume = psb_mesh_volume(mesh);
    out->oriented = conflicts == 0;
    out->closed = border == 0 && nonmanifold == 0 && out->oriented && out->volume > 0.0;
    // genus = sum over components of (2 - chi_c) / 2. A closed orientable
    // surface has an even chi_c <= 2; two pieces pinched at a vertex are
    // counted below.
    out->genus = out->closed ? 0 : -1;
    for (int c = 0; out->closed && c < components; c++) {
        long long chi = (long long)counts[3 * c] - counts[3 * c + 1] + counts[3 * c + 2];
        if (chi > 2 || chi % 2 != 0) {
            out->genus = -1;
            break;
        }
        out->genus += (int)((2 - chi) / 2);
    }

    free_all(start, list, parent, aux, counts);
    // Two pieces touching at a vertex (an odd chi): the genus of the surface
    // with each such vertex split, one per fan of faces.
    int genus = -1;
    if (!mesh_find_pinches(mesh, out->closed, &out->pinched_vertices, &genus)) {
        return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory for %d triangles", fn, fcount);
    }
    if (out->pinched_vertices > 0) {
        out->genus = genus;
    }
    if (err) {
        err->status = PSB_OK;
        err->message[0] = '\0';
    }
    return PSB_OK;
}
