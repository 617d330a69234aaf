// A shell's fans: the internal point order and, for every point, its
// neighbours in counter-clockwise order, laid out for the force kernels.
//
// Why fans. The gas force on point i is P dV/dx_i, and for a closed surface
//   dV/dx_i = 1/6 sum over the triangles (i, j, k) at i of (x_j - x_i) x (x_k - x_i),
// each triangle's area vector (u x w) / 2 = A n, a third to each corner (the
// area vector is the same whichever corner it is taken from). Walking the
// neighbours n_0 .. n_{d-1} of i in counter-clockwise order, the triangles
// at i are (i, n_s, n_{s+1}), so one walk reads each neighbour once and
// gives both the springs (i, n_s) and the gradient. Each point then only
// writes its own force: no scattering, and any number of threads can work on
// disjoint points. The price is that every spring is evaluated at both ends
// and every triangle at its three corners; the kernels are fast enough that
// this pays (docs/performance.md).
//
// And the volume: V is homogeneous of degree 3 in the positions (2 for a
// ring), so by Euler's theorem sum_i (x_i - o) . dV/dx_i = 3 V (2 V) for any
// origin o; the kernels get V from the gradient they already hold, with no
// second pass over the triangles. Per triangle this is exactly the
// divergence-theorem sum (its area vector is orthogonal to its edges), so it
// holds for any triangle set, closed or not.
//
// Layout. Points go in blocks of LANES; a block's fans are stored as rows,
// row s holding the s-th neighbour of each of the block's points, so that a
// SIMD kernel handles LANES points at once. A point with fewer neighbours
// than its block's longest fan repeats its first neighbour with its masks
// off. A point whose triangles do not close into one fan (a boundary, a
// non-manifold vertex) lists each triangle as two rows, (j, k) with the
// triangle mask on the first and off on the second. So does every point of
// a cloth, whose springs that are no triangle's edge (shear, bend) follow as
// rows with only the spring mask on.
//
// Order. Points are numbered along breadth-first rings: a breadth-first
// search from the first point gives the levels (graph distance), and each
// level is walked along itself, always turning the same way. Neighbours end
// up close in memory, and along most of a ring, consecutive points see their
// s-th neighbours at one common offset, so the kernels can load a whole row
// with one contiguous load instead of a gather (row_offset). Where sorting
// a chunk's points by fan size gives it fewer rows (scanned meshes, whose
// fans have mixed sizes), they are then sorted, so that blocks pad less.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct scratch {
    int *cstart;   // n + 1: point i's corners are cstart[i] .. cstart[i + 1] - 1
    int *pair;     // 2 per corner: the other two corners (j, k), counter-clockwise
    int *sstart;   // n + 1: point i's slots are nb[sstart[i]] .. (room for 2 per corner and
                   // one per spring end of a cloth)
    int *nb;       // point i's slots (public)
    uint8_t *kind; // per slot: bit 0 spring, bit 1 triangle
    int *slots;    // n: point i's slot count
    bool *cyclic;  // n: the triangles at i close into one fan
    int *level;    // n: breadth-first distance, -1 unseen
    int *queue;    // n
    bool *placed;  // n
    bool *grouped; // n: the point's chunk was sorted by fan size (group_by_fan_size)
} scratch;

static void scratch_free(scratch *s) {
    free(s->cstart);
    free(s->sstart);
    free(s->pair);
    free(s->nb);
    free(s->kind);
    free(s->slots);
    free(s->cyclic);
    free(s->level);
    free(s->queue);
    free(s->placed);
    free(s->grouped);
}

// Corners per point, and each point's slots: its fan when the triangles
// close into one cycle, else two slots per triangle (and on a cloth, a slot
// per spring that no triangle at the point has). cstart and sstart are
// filled by the caller.
static void make_slots(const psb_body *b, scratch *s) {
    const int n = b->n;
    const bool cloth = b->kind == PSB_CLOTH;
    int *fill = s->queue; // borrowed: per-point fill position
    memcpy(fill, s->cstart, (size_t)n * sizeof *fill);
    for (int t = 0; t < b->tri_count; t++) {
        const int *c = &b->tris[3 * t];
        for (int q = 0; q < 3; q++) {
            const int at = fill[c[q]]++;
            s->pair[2 * at] = c[(q + 1) % 3];
            s->pair[2 * at + 1] = c[(q + 2) % 3];
        }
    }
    for (int i = 0; i < n; i++) {
        const int first = s->cstart[i], d = s->cstart[i + 1] - first;
        const int *pr = &s->pair[2 * first];
        int *nb = &s->nb[s->sstart[i]];
        uint8_t *kind = &s->kind[s->sstart[i]];
        // Chain: the pair after (j, k) is the one that starts at k.
        bool cyclic = d >= 3 && !cloth;
        int cur = 0;
        for (int step = 0; cyclic && step < d; step++) {
            nb[step] = pr[2 * cur];
            const int k = pr[2 * cur + 1];
            int next = -1, found = 0;
            for (int q = 0; q < d; q++) {
                if (pr[2 * q] == k) {
                    next = q;
                    found++;
                }
            }
            if (found != 1) {
                next = -1; // none, or two: not a simple fan
            }
            if (next < 0 || (next == 0) != (step == d - 1)) {
                cyclic = false;
            }
            cur = next;
        }
        for (int a = 0; cyclic && a < d; a++) {
            for (int c = a + 1; c < d; c++) {
                cyclic = cyclic && nb[a] != nb[c];
            }
        }
        s->cyclic[i] = cyclic;
        if (cyclic) {
            s->slots[i] = d;
            memset(kind, 3, (size_t)d);
            continue;
        }
        s->slots[i] = 2 * d;
        for (int q = 0; q < d; q++) {
            nb[2 * q] = pr[2 * q];
            nb[2 * q + 1] = pr[2 * q + 1];
            kind[2 * q] = 2;
            kind[2 * q + 1] = 0;
        }
        // One spring per distinct neighbour, at its first slot.
        for (int a = 0; a < 2 * d; a++) {
            bool first_time = true;
            for (int c = 0; c < a && first_time; c++) {
                first_time = nb[c] != nb[a];
            }
            kind[a] |= first_time ? 1 : 0;
        }
    }
    if (!cloth) {
        return;
    }
    // A cloth's springs: every one not yet among the point's slots (its
    // triangles' edges already are) gets a slot of its own.
    for (int e = 0; e < 2 * b->spring_count; e++) {
        const int i = b->springs[e], j = b->springs[e ^ 1];
        int *nb = &s->nb[s->sstart[i]];
        bool present = false;
        for (int q = 0; q < s->slots[i] && !present; q++) {
            present = nb[q] == j;
        }
        if (!present) {
            nb[s->slots[i]] = j;
            s->kind[s->sstart[i] + s->slots[i]] = 1;
            s->slots[i]++;
        }
    }
}

// The neighbour after an inner one, walking counter-clockwise round i: the
// way along i's own level that keeps the inner levels on the same side.
static int walk_next(const scratch *s, int i) {
    const int d = s->slots[i];
    const int *nb = &s->nb[s->sstart[i]];
    const int level = s->level[i];
    if (s->cyclic[i]) {
        for (int q = 0; q < d; q++) {
            const int a = nb[q], c = nb[(q + 1) % d];
            if (s->level[a] == level - 1 && s->level[c] == level && !s->placed[c]) {
                return c;
            }
        }
    }
    for (int q = 0; q < d; q++) {
        if (s->level[nb[q]] == level && !s->placed[nb[q]]) {
            return nb[q];
        }
    }
    return -1;
}

// Rows that the blocks of points order[lo .. lo + m - 1] need: each block
// as many as its longest fan.
static int rows_needed(const scratch *s, const int *order, int m) {
    int rows = 0;
    for (int k = 0; k < m; k += LANES) {
        int most = 1;
        for (int lane = k; lane < k + LANES && lane < m; lane++) {
            most = s->slots[order[lane]] > most ? s->slots[order[lane]] : most;
        }
        rows += most;
    }
    return rows;
}

// Sorts each chunk's points by fan size (slots), keeping the ring order
// among equal sizes, where that gives the chunk fewer rows: on a scanned
// mesh, whose points have 3 to 9 or more neighbours, a block of points in
// ring order pads every fan to its longest (7.7 rows per point on the
// rocker arm, against 6.0 slots), sorted it pads little (6.3). Chunks of a
// regular mesh, where every block already has fans of one size (or one
// point of five among sixes), are left in ring order, so that their rows
// keep one common offset. Points stay in their chunk, so no neighbour is
// farther in chunks than before. Marks the points of sorted chunks.
static void group_by_fan_size(psb_body *b, scratch *s) {
    int sorted[CHUNK_POINTS];
    for (int lo = 0; lo < b->n; lo += CHUNK_POINTS) {
        const int m = b->n - lo < CHUNK_POINTS ? b->n - lo : CHUNK_POINTS;
        const int *order = &b->order[lo];
        for (int a = 0; a < m; a++) { // insertion sort: stable
            int c = a;
            for (; c > 0 && s->slots[sorted[c - 1]] > s->slots[order[a]]; c--) {
                sorted[c] = sorted[c - 1];
            }
            sorted[c] = order[a];
        }
        const bool sort = rows_needed(s, sorted, m) < rows_needed(s, order, m);
        for (int a = 0; a < m; a++) {
            s->grouped[order[a]] = sort;
        }
        if (sort) {
            memcpy(&b->order[lo], sorted, (size_t)m * sizeof(int));
        }
    }
}

// Breadth-first rings, each walked along itself (see the top of the file),
// then grouped by fan size where that pays.
static void make_order(psb_body *b, scratch *s) {
    const int n = b->n;
    for (int i = 0; i < n; i++) {
        s->level[i] = -1;
        s->placed[i] = false;
    }
    int placed = 0;
    for (int root = 0; root < n; root++) {
        if (s->level[root] >= 0) {
            continue;
        }
        // One connected piece: its levels, then its rings.
        int head = 0, tail = 0;
        s->queue[tail++] = root;
        s->level[root] = 0;
        while (head < tail) {
            const int i = s->queue[head++];
            const int *nb = &s->nb[s->sstart[i]];
            for (int q = 0; q < s->slots[i]; q++) {
                if (s->level[nb[q]] < 0) {
                    s->level[nb[q]] = s->level[i] + 1;
                    s->queue[tail++] = nb[q];
                }
            }
        }
        for (int q = 0; q < tail; q++) {
            for (int i = s->queue[q]; i >= 0 && !s->placed[i]; i = walk_next(s, i)) {
                s->placed[i] = true;
                b->order[placed++] = i;
            }
        }
    }
    group_by_fan_size(b, s);
    for (int k = 0; k < n; k++) {
        b->rank[b->order[k]] = k;
    }
}

static double distance(psb_vec3 a, psb_vec3 b) {
    const double dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

// The rotation of a sorted point's fan (group_by_fan_size) that ends with
// its longest run of neighbours that come earlier in the order, or -1 if it
// has none (or no later one). Their springs were met earlier in the sweep,
// so a row where every lane has such a neighbour reuses the coefficients
// (pair_springs): with each fan's earlier run at its end, a block of
// equal fans reuses as many rows as its shortest run.
static int earlier_run_last(const psb_body *b, const scratch *s, int k) {
    const int i = b->order[k], d = s->slots[i];
    const int *nb = &s->nb[s->sstart[i]];
    int best = -1, best_run = 0;
    for (int q = 0; q < d; q++) {
        if (b->rank[nb[q]] < k || b->rank[nb[(q + d - 1) % d]] > k) {
            continue; // the run must end just before q
        }
        int run = 0;
        while (run < d && b->rank[nb[(q + 2 * d - 1 - run) % d]] < k) {
            run++;
        }
        if (run > best_run) {
            best_run = run;
            best = q;
        }
    }
    return best;
}

// The rotation of internal point k's fan that starts at point k + 1 (or
// opposite k - 1), so that consecutive points of a ring walk their fans in
// step and see their s-th neighbours at one common offset. Points of a
// sorted chunk are no longer in ring order; their fans end with their
// earlier neighbours instead.
static int fan_rotation(const psb_body *b, const scratch *s, int k) {
    const int i = b->order[k], d = s->slots[i];
    const int *nb = &s->nb[s->sstart[i]];
    if (!s->cyclic[i]) {
        return 0;
    }
    const int last = s->grouped[i] ? earlier_run_last(b, s, k) : -1;
    if (last >= 0) {
        return last;
    }
    for (int q = 0; q < d; q++) {
        if (b->rank[nb[q]] == k + 1) {
            return q;
        }
    }
    for (int q = 0; q < d; q++) {
        if (b->rank[nb[q]] == k - 1) {
            return (q + d / 2) % d;
        }
    }
    return 0;
}

static void *carve(unsigned char *base, size_t *used, size_t bytes) {
    void *p = base ? base + *used : NULL;
    *used += (bytes + 63) & ~(size_t)63;
    return p;
}

// Carves the rows out of base; returns the bytes needed (base NULL: only that).
static size_t lay_out_rows(psb_body *b, unsigned char *base) {
    size_t used = 0;
    b->fans.row_start = carve(base, &used, (size_t)(b->block_count + 1) * sizeof(int));
    b->fans.row_index = carve(base, &used, (size_t)b->fans.row_count * LANES * sizeof(int32_t));
    b->fans.row_rest = carve(base, &used, (size_t)b->fans.row_count * LANES * sizeof(double));
    b->fans.row_offset = carve(base, &used, (size_t)b->fans.row_count * sizeof(int32_t));
    b->fans.row_mask = carve(base, &used, (size_t)b->fans.row_count * 2);
    b->fans.row_partner = carve(base, &used, (size_t)b->fans.row_count * LANES * sizeof(int32_t));
    b->fans.row_partner_at = carve(base, &used, (size_t)b->fans.row_count * sizeof(int32_t));
    b->fans.row_reuse_from = carve(base, &used, (size_t)b->fans.row_count * sizeof(int32_t));
    b->fans.row_reuse_local = carve(base, &used, (size_t)b->fans.row_count);
    b->fans.block_regular_from = carve(base, &used, (size_t)b->block_count * sizeof(int32_t));
    return used;
}

// Fills block k's rows.
static void fill_block(psb_body *b, const scratch *s, int k) {
    const int r0 = b->fans.row_start[k], rows = b->fans.row_start[k + 1] - r0;
    for (int lane = 0; lane < LANES; lane++) {
        const int p = LANES * k + lane; // internal index
        if (p >= b->n) {
            for (int r = 0; r < rows; r++) {
                b->fans.row_index[LANES * (r0 + r) + lane] = p;
                b->fans.row_rest[LANES * (r0 + r) + lane] = 0.0;
            }
            continue;
        }
        const int i = b->order[p], d = s->slots[i];
        const int *nb = &s->nb[s->sstart[i]];
        const uint8_t *kind = &s->kind[s->sstart[i]];
        const int rot = fan_rotation(b, s, p);
        for (int r = 0; r < rows; r++) {
            const int q = r < d ? (r + rot) % d : rot; // past the fan: the first neighbour again
            const uint8_t bits = r < d ? kind[q] : 0;
            const int row = r0 + r;
            b->fans.row_index[LANES * row + lane] = b->rank[nb[q]];
            b->fans.row_rest[LANES * row + lane] = bits & 1 ? distance(b->rest[i], b->rest[nb[q]]) : 0.0;
            b->fans.row_mask[2 * row] |= (uint8_t)((bits & 1) << lane);
            b->fans.row_mask[2 * row + 1] |= (uint8_t)(((bits >> 1) & 1) << lane);
        }
    }
    for (int r = r0; r < r0 + rows; r++) {
        const int32_t *idx = &b->fans.row_index[LANES * r];
        const int32_t offset = idx[0] - LANES * k;
        bool common = true;
        for (int lane = 1; lane < LANES; lane++) {
            common = common && idx[lane] - (LANES * k + lane) == offset;
        }
        b->fans.row_offset[r] = common ? offset : FAN_GATHER;
    }
}

// Pairs each spring slot with the ring slot of the same spring at the
// other end, and marks the rows whose springs all come from slots that the
// sweep meets earlier (an earlier block, or an earlier row of the same
// block) and that keep their coefficients (one of the first REUSE_ROWS rows
// of their block).
static void pair_springs(psb_body *b) {
    // The ring slots must fit an int.
    const bool possible = (long long)REUSE_ROWS * b->fans.ring_span <= INT_MAX;
    for (int k = 0; k < b->block_count; k++) {
        const int r0 = b->fans.row_start[k], r1 = b->fans.row_start[k + 1];
        for (int r = r0; r < r1; r++) {
            int from = INT_MAX;
            bool reuse = possible, local = false;
            // One contiguous load when every lane's partner is in the same
            // row of its block and at its own index plus one offset.
            int first_row = -1, first_offset = 0;
            bool common = true;
            for (int lane = 0; lane < LANES; lane++) {
                const int slot = LANES * r + lane, i = LANES * k + lane;
                b->fans.row_partner[slot] = i & b->fans.ring_mask; // harmless without a spring
                if (!(b->fans.row_mask[2 * r] >> lane & 1)) {
                    common = false;
                    continue;
                }
                const int j = b->fans.row_index[slot];
                const int kj = j / LANES, lj = j % LANES;
                int partner = -1;
                for (int q = b->fans.row_start[kj]; q < b->fans.row_start[kj + 1] && partner < 0; q++) {
                    if (b->fans.row_index[LANES * q + lj] == i && (b->fans.row_mask[2 * q] >> lj & 1)) {
                        partner = q - b->fans.row_start[kj];
                    }
                }
                if (partner < 0 || partner >= REUSE_ROWS || !possible) {
                    reuse = false; // (no partner cannot happen for springs from triangles)
                    common = false;
                    continue;
                }
                b->fans.row_partner[slot] = (int32_t)ring_slot(&b->fans, partner, j);
                if (lane == 0) {
                    first_row = partner;
                    first_offset = j - i;
                }
                common = common && partner == first_row && j - i == first_offset;
                const bool earlier = kj < k || (kj == k && partner < r - r0);
                reuse = reuse && j < i && earlier;
                local = local || kj == k;
                from = kj < from ? kj : from;
            }
            reuse = reuse && from != INT_MAX;
            b->fans.row_reuse_from[r] = reuse ? from : -1;
            b->fans.row_reuse_local[r] = local;
            b->fans.row_partner_at[r] = reuse && common ? b->fans.row_partner[LANES * r] : FAN_GATHER;
        }
    }
}

// Marks the regular blocks (internal.h, block_regular_from).
static void find_regular_blocks(psb_body *b) {
    const int all_lanes = (1 << LANES) - 1;
    for (int k = 0; k < b->block_count; k++) {
        const int r0 = b->fans.row_start[k];
        bool regular = b->fans.row_start[k + 1] - r0 == REGULAR_ROWS;
        int from = INT_MAX;
        for (int q = 0; q < REGULAR_ROWS && regular; q++) {
            const int r = r0 + q;
            regular = b->fans.row_offset[r] != FAN_GATHER && b->fans.row_mask[2 * r] == all_lanes &&
                      b->fans.row_mask[2 * r + 1] == all_lanes;
            if (q < REGULAR_COMPUTED) {
                regular = regular && b->fans.row_reuse_from[r] < 0;
            } else {
                regular =
                    regular && b->fans.row_reuse_from[r] >= 0 && b->fans.row_partner_at[r] != FAN_GATHER;
                from = regular && b->fans.row_reuse_from[r] < from ? b->fans.row_reuse_from[r] : from;
            }
        }
        b->fans.block_regular_from[k] = regular ? from : -1;
    }
}

// The rings' size: a power of two of points per row, more than the
// farthest a reused coefficient lies behind the point that reuses it
// (neighbours are at most reach chunks apart, so less than reach + 1
// chunks), and no more than the body needs.
static void size_ring(psb_body *b) {
    const long long behind = (long long)(b->fans.reach + 2) * CHUNK_POINTS;
    const long long need = behind < b->n_pad ? behind : b->n_pad;
    long long points = LANES;
    while (points < need) {
        points *= 2;
    }
    b->fans.ring_mask = (int)(points - 1);
    b->fans.ring_span = (int)points + LANES;
}

psb_status body_size_rings(psb_body *b, int threads, psb_error *err) {
    if (b->kind == PSB_RING) {
        return PSB_OK; // no fans, no coefficients kept
    }
    int count = b->n >= PARALLEL_MIN_POINTS ? threads : 1;
    count = count < b->chunk_count ? count : b->chunk_count;
    if (count <= b->fans.ring_count) {
        return PSB_OK;
    }
    const size_t doubles = (size_t)count * REUSE_ROWS * (size_t)b->fans.ring_span;
    double *rings = aligned_alloc(64, doubles * sizeof(double));
    if (!rings) {
        return psb_error_set(err, PSB_ERR_NOMEM,
                             "out of memory for the spring coefficients of %d threads", count);
    }
    memset(rings, 0, doubles * sizeof(double));
    free(b->fans.rings);
    b->fans.rings = rings;
    b->fans.ring_count = count;
    return PSB_OK;
}

psb_status body_build_fans(psb_body *b, psb_error *err) {
    const int n = b->n;
    if (b->kind == PSB_RING) {
        // A ring's neighbours are i - 1 and i + 1 already.
        for (int i = 0; i < n; i++) {
            b->order[i] = i;
            b->rank[i] = i;
        }
        b->fans.row_count = 0;
        b->fans.block = NULL;
        return PSB_OK;
    }
    const size_t corners = (size_t)b->tri_count * 3;
    const size_t spring_ends = b->kind == PSB_CLOTH ? 2 * (size_t)b->spring_count : 0;
    const size_t slots = 2 * corners + spring_ends;
    scratch s = {
        .cstart = calloc((size_t)n + 1, sizeof(int)),
        .sstart = calloc((size_t)n + 1, sizeof(int)),
        .pair = malloc((2 * corners + 1) * sizeof(int)),
        .nb = malloc((slots + 1) * sizeof(int)),
        .kind = malloc(slots + 1),
        .slots = malloc((size_t)n * sizeof(int)),
        .cyclic = malloc((size_t)n * sizeof(bool)),
        .level = malloc((size_t)n * sizeof(int)),
        .queue = malloc((size_t)n * sizeof(int)),
        .placed = malloc((size_t)n * sizeof(bool)),
        .grouped = malloc((size_t)n * sizeof(bool)),
    };
    if (!s.cstart || !s.sstart || !s.pair || !s.nb || !s.kind || !s.slots || !s.cyclic ||
        !s.level || !s.queue || !s.placed || !s.grouped) {
        scratch_free(&s);
        return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for the fans of %d points", n);
    }
    for (int t = 0; t < b->tri_count; t++) {
        for (int c = 0; c < 3; c++) {
            s.cstart[b->tris[3 * t + c] + 1]++;
        }
    }
    for (int e = 0; spring_ends && e < 2 * b->spring_count; e++) {
        s.sstart[b->springs[e] + 1]++;
    }
    for (int i = 0; i < n; i++) {
        s.sstart[i + 1] += s.sstart[i] + 2 * (s.cstart[i + 1]);
        s.cstart[i + 1] += s.cstart[i];
    }
    make_slots(b, &s);
    make_order(b, &s);

    // Rows per block: its longest fan.
    long long rows = 0;
    for (int k = 0; k < b->block_count; k++) {
        int most = 1;
        for (int lane = 0; lane < LANES && LANES * k + lane < n; lane++) {
            const int d = s.slots[b->order[LANES * k + lane]];
            most = d > most ? d : most;
        }
        rows += most;
    }
    if (rows > INT_MAX / LANES) {
        scratch_free(&s);
        return psb_error_set(err, PSB_ERR_INVALID,
                             "triangles: too many triangles meet at some points (%lld fan rows)",
                             rows);
    }
    b->fans.row_count = (int)rows;
    const size_t bytes = lay_out_rows(b, NULL);
    unsigned char *base = aligned_alloc(64, bytes);
    b->fans.block = base;
    if (!base) {
        scratch_free(&s);
        return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for the fans of %d points", n);
    }
    memset(base, 0, bytes);
    lay_out_rows(b, base);
    b->fans.row_start[0] = 0;
    for (int k = 0; k < b->block_count; k++) {
        int most = 1;
        for (int lane = 0; lane < LANES && LANES * k + lane < n; lane++) {
            const int d = s.slots[b->order[LANES * k + lane]];
            most = d > most ? d : most;
        }
        b->fans.row_start[k + 1] = b->fans.row_start[k] + most;
    }
    for (int k = 0; k < b->block_count; k++) {
        fill_block(b, &s, k);
    }
    b->fans.reach = 0;
    for (int k = 0; k < b->block_count; k++) {
        for (int r = b->fans.row_start[k]; r < b->fans.row_start[k + 1]; r++) {
            for (int lane = 0; lane < LANES; lane++) {
                const int far = b->fans.row_index[LANES * r + lane] / CHUNK_POINTS - k / CHUNK_BLOCKS;
                b->fans.reach = far > b->fans.reach ? far : -far > b->fans.reach ? -far : b->fans.reach;
            }
        }
    }
    size_ring(b);
    pair_springs(b);
    find_regular_blocks(b);
    scratch_free(&s);
    return PSB_OK;
}
