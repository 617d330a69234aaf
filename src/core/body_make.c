// Making a body from its definition: its springs, its points in the
// internal order and its arrays (one allocation), its masses; copying
// between the public and the internal views.
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int compare_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t edge_key(int a, int b) {
    return a < b ? (uint64_t)a << 32 | (uint64_t)b : (uint64_t)b << 32 | (uint64_t)a;
}

// Unique undirected edges of a triangle list and a list of extra springs, as
// sorted keys lo << 32 | hi. Returns the count; *keys receives an array the
// caller frees (NULL on no memory).
static int unique_edges(const int *tris, int tri_count, const int *extra, int extra_count,
                        uint64_t **keys) {
    const int n = tri_count * 3 + extra_count;
    uint64_t *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    *keys = k;
    if (!k) {
        return 0;
    }
    for (int t = 0; t < tri_count; t++) {
        for (int e = 0; e < 3; e++) {
            k[3 * t + e] = edge_key(tris[3 * t + e], tris[3 * t + (e + 1) % 3]);
        }
    }
    for (int e = 0; e < extra_count; e++) {
        k[3 * tri_count + e] = edge_key(extra[2 * e], extra[2 * e + 1]);
    }
    qsort(k, (size_t)n, sizeof *k, compare_u64);
    int unique = 0;
    for (int i = 0; i < n; i++) {
        if (unique == 0 || k[i] != k[unique - 1]) {
            k[unique++] = k[i];
        }
    }
    return unique;
}

// Carves 64-byte aligned arrays out of one allocation.
typedef struct carver {
    unsigned char *base;
    size_t used;
} carver;

static void *carve(carver *c, size_t bytes) {
    void *p = c->base ? c->base + c->used : NULL;
    c->used += (bytes + 63) & ~(size_t)63;
    return p;
}

// Lays out every array of b; with c->base NULL this only adds up the size.
static void lay_out(psb_body *b, carver *c) {
    const size_t n = (size_t)b->n, pad = (size_t)b->n_pad;
    double **soa[] = {b->x,  b->v,  b->f,      b->grad,   b->x0,     b->v0,
                      b->dx, b->dv, b->x_good, b->x_next, b->x_init, b->v_init};
    for (size_t a = 0; a < sizeof soa / sizeof soa[0]; a++) {
        for (int k = 0; k < 3; k++) {
            soa[a][k] = carve(c, pad * sizeof(double));
        }
    }
    b->mass = carve(c, pad * sizeof(double));
    b->inv_mass = carve(c, pad * sizeof(double));
    b->vol_part = carve(c, (size_t)b->chunk_count * sizeof(double));
    b->extra_part = carve(c, (size_t)b->chunk_count * EXTRA_SUMS * sizeof(double));
    b->x_pub = carve(c, n * sizeof(psb_vec3));
    b->v_pub = carve(c, n * sizeof(psb_vec3));
    b->rest = carve(c, n * sizeof(psb_vec3));
    b->mass_pub = carve(c, n * sizeof(double));
    b->order = carve(c, n * sizeof(int));
    b->rank = carve(c, n * sizeof(int));
    b->rest_length = carve(c, (size_t)b->spring_count * sizeof(double));
    b->springs = carve(c, (size_t)b->spring_count * 2 * sizeof(int));
    b->tris = carve(c, (size_t)b->tri_count * 3 * sizeof(int));
    for (int k = 0; k < 3; k++) {
        b->shape_q[k] = carve(c, pad * sizeof(double));
    }
}

static double length(psb_vec3 a) {
    return sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}
static psb_vec3 sub(psb_vec3 a, psb_vec3 b) {
    return (psb_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}

void body_update_masses(psb_body *b) {
    const double total = b->params.mass;
    double *mass = b->mass_pub;
    for (int i = 0; i < b->n; i++) {
        mass[i] = 0.0;
    }
    double sum = 0.0;
    if (b->params.mass_by_area) {
        // Area around each point in the rest shape: a third of each triangle
        // (a half of each edge on a ring).
        if (b->kind == PSB_RING) {
            for (int i = 0; i < b->n; i++) {
                const int j = i + 1 == b->n ? 0 : i + 1;
                const double half = 0.5 * length(sub(b->rest[j], b->rest[i]));
                mass[i] += half;
                mass[j] += half;
                sum += 2.0 * half;
            }
        } else {
            for (int t = 0; t < b->tri_count; t++) {
                const int *c = &b->tris[3 * t];
                const psb_vec3 u = sub(b->rest[c[1]], b->rest[c[0]]);
                const psb_vec3 w = sub(b->rest[c[2]], b->rest[c[0]]);
                const psb_vec3 cr = {u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z,
                                     u.x * w.y - u.y * w.x};
                const double third = length(cr) / 6.0; // area / 3
                for (int k = 0; k < 3; k++) {
                    mass[c[k]] += third;
                }
                sum += 3.0 * third;
            }
        }
    }
    // A point whose triangles all have zero area would get no mass (and an
    // infinite acceleration): give it the smallest area any point has.
    double smallest = INFINITY;
    for (int i = 0; i < b->n; i++) {
        if (mass[i] > 0.0) {
            smallest = fmin(smallest, mass[i]);
        }
    }
    if (sum > 0.0) {
        for (int i = 0; i < b->n; i++) {
            if (!(mass[i] > 0.0)) {
                mass[i] = smallest;
                sum += smallest;
            }
        }
    }
    for (int i = 0; i < b->n; i++) {
        // Uniform split, also the fallback if the rest shape has no area.
        mass[i] = sum > 0.0 ? total * mass[i] / sum : total / b->n;
    }
    // The internal copy; the padding points stay massless and still.
    for (int k = 0; k < b->n_pad; k++) {
        b->mass[k] = k < b->n ? mass[b->order[k]] : 0.0;
        b->inv_mass[k] = k < b->n ? 1.0 / b->mass[k] : 0.0;
    }
    for (int s = 0; s < b->pin_count; s++) {
        b->inv_mass[b->pin_index[s]] = 0.0; // pinned: infinitely heavy
    }
    body_note_masses(b);
}

// One 1/m for the whole body lets the kick read no array of them.
void body_note_masses(psb_body *b) {
    double u = b->n > 0 ? b->inv_mass[0] : 0.0;
    for (int k = 1; k < b->n && u > 0.0; k++) {
        u = b->inv_mass[k] == u ? u : 0.0;
    }
    b->inv_mass_uniform = u;
}

void body_publish(psb_body *b, int i0, int i1) {
    // In public order: the writes stream, the reads jump (they are cheaper).
    const int end = i1 < b->n ? i1 : b->n;
    for (int i = i0; i < end; i++) {
        const int k = b->rank[i];
        b->x_pub[i] = (psb_vec3){b->x[0][k], b->x[1][k], b->x[2][k]};
        b->v_pub[i] = (psb_vec3){b->v[0][k], b->v[1][k], b->v[2][k]};
    }
}

void body_snapshot(psb_body *b) {
    psb_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (int k = 0; k < b->n; k++) {
        const psb_vec3 p = {b->x[0][k], b->x[1][k], b->x[2][k]};
        lo = (psb_vec3){fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z)};
        hi = (psb_vec3){fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z)};
    }
    for (int c = 0; c < 3; c++) {
        memcpy(b->x_good[c], b->x[c], (size_t)b->n_pad * sizeof(double));
    }
    b->good_size = length(sub(hi, lo));
    b->placed = true;
}

void body_unpublish(psb_body *b) {
    for (int k = 0; k < b->n; k++) {
        const psb_vec3 x = b->x_pub[b->order[k]], v = b->v_pub[b->order[k]];
        b->x[0][k] = x.x;
        b->x[1][k] = x.y;
        b->x[2][k] = x.z;
        b->v[0][k] = v.x;
        b->v[1][k] = v.y;
        b->v[2][k] = v.z;
    }
}

psb_body *body_create(const psb_body_def *def, const psb_params *world_params, double time,
                      psb_error *err) {
    (void)world_params;
    if (psb_body_def_validate(def, err) != PSB_OK) {
        return NULL;
    }
    psb_body *b = calloc(1, sizeof *b);
    if (!b) {
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a body of %d points",
                      def->point_count);
        return NULL;
    }
    b->kind = def->kind;
    b->n = def->point_count;
    b->n_pad = (b->n + LANES - 1) / LANES * LANES;
    b->block_count = b->n_pad / LANES;
    b->chunk_count = (b->block_count + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS;
    b->tri_count = def->kind == PSB_RING ? 0 : def->triangle_count;
    b->params = def->params;
    b->grab_point = -1;
    b->start_time = time;

    uint64_t *edge_keys = NULL;
    if (def->kind != PSB_RING) {
        b->spring_count = unique_edges(def->triangles, b->tri_count, def->springs,
                                       def->kind == PSB_CLOTH ? def->spring_count : 0, &edge_keys);
        if (!edge_keys) {
            free(b);
            psb_error_set(err, PSB_ERR_NOMEM, "out of memory for the edges of %d triangles",
                          def->triangle_count);
            return NULL;
        }
    } else {
        b->spring_count = b->n;
    }

    carver c = {NULL, 0};
    lay_out(b, &c);
    c.base = aligned_alloc(64, c.used);
    b->block = c.base;
    if (!c.base) {
        free(edge_keys);
        free(b);
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a body of %d points",
                      def->point_count);
        return NULL;
    }
    // Everything starts at zero, the padding points included.
    memset(c.base, 0, c.used);
    c.used = 0;
    lay_out(b, &c);

    const bool ring = def->kind == PSB_RING;
    for (int i = 0; i < b->n; i++) {
        const psb_vec3 p = def->points[i];
        const psb_vec3 r = def->rest_points ? def->rest_points[i] : p;
        b->x_pub[i] =
            (psb_vec3){p.x + def->offset.x, p.y + def->offset.y, ring ? 0.0 : p.z + def->offset.z};
        b->rest[i] =
            (psb_vec3){r.x + def->offset.x, r.y + def->offset.y, ring ? 0.0 : r.z + def->offset.z};
        b->v_pub[i] = (psb_vec3){def->velocity.x, def->velocity.y, ring ? 0.0 : def->velocity.z};
    }
    if (ring) {
        for (int i = 0; i < b->n; i++) {
            b->springs[2 * i] = i;
            b->springs[2 * i + 1] = i + 1 == b->n ? 0 : i + 1;
        }
    } else {
        if (b->tri_count > 0) {
            memcpy(b->tris, def->triangles, (size_t)b->tri_count * 3 * sizeof(int));
        }
        for (int s = 0; s < b->spring_count; s++) {
            b->springs[2 * s] = (int)(edge_keys[s] >> 32);
            b->springs[2 * s + 1] = (int)(edge_keys[s] & 0xffffffffu);
        }
        free(edge_keys);
    }

    // Every point must belong to the surface, or it would float free.
    unsigned char *used = calloc((size_t)b->n, 1);
    if (!used) {
        body_destroy(b);
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int s = 0; s < 2 * b->spring_count; s++) {
        used[b->springs[s]] = 1;
    }
    for (int i = 0; i < b->n; i++) {
        if (!used[i]) {
            free(used);
            body_destroy(b);
            psb_error_set(err, PSB_ERR_INVALID, "points[%d]: used by no %s", i,
                          def->kind == PSB_CLOTH ? "spring or triangle" : "triangle");
            return NULL;
        }
    }
    free(used);

    psb_vec3 lo = b->rest[0], hi = b->rest[0];
    for (int s = 0; s < b->spring_count; s++) {
        b->rest_length[s] = length(sub(b->rest[b->springs[2 * s]], b->rest[b->springs[2 * s + 1]]));
    }
    for (int i = 0; i < b->n; i++) {
        lo = (psb_vec3){fmin(lo.x, b->rest[i].x), fmin(lo.y, b->rest[i].y),
                        fmin(lo.z, b->rest[i].z)};
        hi = (psb_vec3){fmax(hi.x, b->rest[i].x), fmax(hi.y, b->rest[i].y),
                        fmax(hi.z, b->rest[i].z)};
    }
    b->rest_size = length(sub(hi, lo));
    b->rest_volume = body_volume(b, b->rest);
    if (b->kind != PSB_CLOTH && !(b->rest_volume > 0.0)) {
        const double v = b->rest_volume;
        body_destroy(b);
        psb_error_set(err, PSB_ERR_INVALID,
                      "%s: the rest shape encloses %s %g; expected a finite number > 0 (a "
                      "closed surface of non-zero size, wound counter-clockwise seen from "
                      "outside, with coordinates small enough to multiply)",
                      ring ? "points" : "triangles", ring ? "an area of" : "a volume of", v);
        return NULL;
    }
    if (body_build_fans(b, err) != PSB_OK ||
        body_size_rings(b, world_params->threads, err) != PSB_OK) {
        body_destroy(b);
        return NULL;
    }
    body_update_masses(b);
    body_unpublish(b);
    // The rest shape about its centroid, for shape matching.
    psb_vec3 centre = {0.0, 0.0, 0.0};
    for (int i = 0; i < b->n; i++) {
        centre = (psb_vec3){centre.x + b->rest[i].x - b->rest[0].x,
                            centre.y + b->rest[i].y - b->rest[0].y,
                            centre.z + b->rest[i].z - b->rest[0].z};
    }
    centre = (psb_vec3){b->rest[0].x + centre.x / b->n, b->rest[0].y + centre.y / b->n,
                        b->rest[0].z + centre.z / b->n};
    for (int k = 0; k < b->n; k++) {
        const psb_vec3 r = b->rest[b->order[k]];
        b->shape_q[0][k] = r.x - centre.x;
        b->shape_q[1][k] = r.y - centre.y;
        b->shape_q[2][k] = r.z - centre.z;
    }
    for (int k = 0; k < 3; k++) {
        memcpy(b->x_init[k], b->x[k], (size_t)b->n_pad * sizeof(double));
        memcpy(b->v_init[k], b->v[k], (size_t)b->n_pad * sizeof(double));
    }
    body_snapshot(b);
    b->touch = contact_body_create(b);
    if (!b->touch) {
        body_destroy(b);
        psb_error_set(err, PSB_ERR_NOMEM, "out of memory for a body's contact data");
        return NULL;
    }
    b->volume = body_volume(b, b->x_pub);
    b->nrt = body_gas_nrt(b, time);
    return b;
}

void body_destroy(psb_body *b) {
    if (b) {
        implicit_work_destroy(b->implicit);
        contact_body_destroy(b->touch);
        free(b->pin_index);
        free(b->pin_pos);
        free(b->fans.block);
        free(b->fans.rings);
        free(b->block);
        free(b);
    }
}
