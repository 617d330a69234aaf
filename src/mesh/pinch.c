// Pinched vertices: where two parts of a surface touch at a single point.
//
// A vertex is pinched when its faces make more than one fan: groups of
// faces joined to each other through the edges at the vertex. Around every
// vertex of a closed surface the faces make exactly one fan; where two parts
// of a surface touch at a single point (the cow's file has such a vertex),
// that point has two, and the Euler characteristic V - E + F comes out one
// short of a surface's, odd, with no genus. Split each pinched vertex into
// one vertex per fan and the surface is whole again: that one's genus is
// the one to report.
#include <stdlib.h>

#include "mesh_internal.h"

// One corner's view of one edge at its vertex: the edge's other end.
typedef struct corner_edge {
    int other;  // the vertex at the edge's other end
    int corner; // 3 f + j: corner j of face f
} corner_edge;

static int compare_corner_edges(const void *a, const void *b) {
    const corner_edge *x = a, *y = b;
    return x->other != y->other ? (x->other > y->other) - (x->other < y->other)
                                : (x->corner > y->corner) - (x->corner < y->corner);
}

// The two edges at vertex v of each of its corners (list[start[v] ..
// start[v + 1]]) into around, sorted by their other end, so that the
// corners that share an edge are neighbours; returns how many.
static int edges_around(const int *tris, const int *start, const int *list, int v,
                        corner_edge *around) {
    int n = 0;
    for (int k = start[v]; k < start[v + 1]; k++) {
        const int c = list[k], base = c - c % 3;
        around[n++] = (corner_edge){tris[base + (c + 1) % 3], c};
        around[n++] = (corner_edge){tris[base + (c + 2) % 3], c};
    }
    qsort(around, (size_t)n, sizeof *around, compare_corner_edges);
    return n;
}

bool mesh_find_pinches(const psb_mesh *mesh, bool closed, int *pinched, int *genus_out) {
    *pinched = 0;
    *genus_out = -1;
    const int nv = mesh->point_count, nf = mesh->kind == PSB_RING ? 0 : mesh->triangle_count;
    const int *tris = mesh->triangles;
    const size_t corners = 3 * (size_t)nf;
    if (nf == 0 || nv == 0) {
        return true;
    }
    int *start = calloc((size_t)nv + 1, sizeof *start); // vertex v's corners: list[start[v] ..]
    int *list = malloc(corners * sizeof *list);
    int *fan = malloc(corners * sizeof *fan);      // corners in one fan share a set
    int *face = malloc((size_t)nf * sizeof *face); // faces joined by edges share a set
    int *stamp = malloc(corners * sizeof *stamp);  // the last vertex that counted a fan
    // Per component (the root face): V with the pinches split, E, F.
    int *counts = calloc(3 * (size_t)nf, sizeof *counts);
    corner_edge *around = NULL;
    bool ok = start && list && fan && face && stamp && counts;
    int most = 0;
    if (ok) {
        for (size_t c = 0; c < corners; c++) {
            start[tris[c] + 1]++;
        }
        for (int v = 0; v < nv; v++) {
            most = start[v + 1] > most ? start[v + 1] : most;
            start[v + 1] += start[v];
        }
        for (size_t c = 0; c < corners; c++) {
            list[start[tris[c]]++] = (int)c;
            fan[c] = (int)c;
            stamp[c] = -1;
        }
        for (int v = nv; v > 0; v--) {
            start[v] = start[v - 1];
        }
        start[0] = 0;
        for (int f = 0; f < nf; f++) {
            face[f] = f;
        }
        around = malloc(2 * (size_t)(most > 0 ? most : 1) * sizeof *around);
        ok = around != NULL;
    }
    for (int v = 0; ok && v < nv; v++) {
        // Corners that share an edge at v are in one fan, their faces in
        // one piece of the surface.
        const int n = edges_around(tris, start, list, v, around);
        for (int i = 1; i < n; i++) {
            if (around[i].other == around[i - 1].other && around[i].other != v) {
                unite_min(fan, around[i].corner, around[i - 1].corner);
                unite_min(face, around[i].corner / 3, around[i - 1].corner / 3);
            }
        }
    }
    if (ok) {
        for (int v = 0; v < nv; v++) {
            int fans = 0;
            for (int k = start[v]; k < start[v + 1]; k++) {
                const int root = find_root(fan, list[k]);
                if (stamp[root] != v) {
                    stamp[root] = v;
                    fans++;
                    counts[3 * find_root(face, list[k] / 3)]++; // one vertex per fan
                }
            }
            *pinched += fans > 1;
        }
        // Each edge once, from its smaller end, in the piece of a face on it.
        for (int v = 0; v < nv; v++) {
            const int n = edges_around(tris, start, list, v, around);
            for (int i = 0; i < n; i++) {
                if (around[i].other > v && (i == 0 || around[i].other != around[i - 1].other)) {
                    counts[3 * find_root(face, around[i].corner / 3) + 1]++;
                }
            }
        }
        for (int f = 0; f < nf; f++) {
            counts[3 * find_root(face, f) + 2]++;
        }
        // genus = sum over the pieces of (2 - chi) / 2, chi = V - E + F even and <= 2.
        int genus = 0;
        for (int f = 0; closed && f < nf && genus >= 0; f++) {
            if (find_root(face, f) != f) {
                continue;
            }
            const long long chi = (long long)counts[3 * f] - counts[3 * f + 1] + counts[3 * f + 2];
            genus = chi > 2 || chi % 2 != 0 ? -1 : genus + (int)((2 - chi) / 2);
        }
        *genus_out = closed ? genus : -1;
    }
    free(start);
    free(list);
    free(fan);
    free(face);
    free(stamp);
    free(counts);
    free(around);
    return ok;
}
