// The speed machinery's interface: what the rest of the core calls to run a
// step fast, and the only header of src/core/fast.
//
// The physics is the same as src/model's, where it is written plainly. What
// lives here only makes it fast:
// - fan.c: a shell's springs and triangles stored per point as its "fan"
//   (its neighbours in counter-clockwise order), points reordered for
//   locality and padded to whole blocks of LANES, so that one pass over the
//   fans gathers both the spring forces and the volume gradient;
// - kernels*.c, kernel_loops.h: the hot loops (force pass, symplectic
//   kick and drift, the blow-up guard's scan), one version per instruction
//   set, picked when a world is made;
// - sweep.c: symplectic Euler's sub-steps of one world step fused into
//   skewed sweeps that keep each chunk's data in cache;
// - team.c: the barrier where the threads sharing a body meet;
// - profile_now: the clock of the stage timers (psb_world_set_profiling).
//
// The rest of the core sees psb_body's fields as arrays in internal order
// (internal.h) and calls the functions below; nothing here is public.
#ifndef PSB_FAST_H
#define PSB_FAST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <psb/psb.h>

typedef struct psb_body psb_body;

enum {
    LANES = 8,        // points per block: 8 doubles fill a 512-bit register
    CHUNK_BLOCKS = 8, // blocks per chunk: the unit of work shared out to threads
    CHUNK_POINTS = LANES * CHUNK_BLOCKS,
    FAN_GATHER = INT_MIN, // a fan row whose neighbours do not sit at one common offset
    REUSE_ROWS = 8,       // the first rows of each block keep their springs' coefficients
    // Bodies with fewer points than this step on one thread: below it the
    // threads' start and barriers cost more than they save. The results are
    // the same bits either way.
    PARALLEL_MIN_POINTS = 4096,
    REGULAR_ROWS = 6,     // rows of a regular block (see block_regular_from) ...
    REGULAR_COMPUTED = 3, // ... of which the first this many compute their springs
};

/// A shell's fans (see fan.c), built when the body is made; a ring has none.
typedef struct psb_fans {
    // Block k's rows are row_start[k] ..
    // row_start[k + 1] - 1; row r holds, for each of the block's LANES
    // points, one neighbour (row_index[LANES r + lane], internal) and the
    // rest length of the spring to it (row_rest[LANES r + lane], m), and
    // two lane masks: row_mask[2 r] says which lanes have a spring to that
    // neighbour, row_mask[2 r + 1] which lanes have a triangle (point, this
    // row's neighbour, next row's neighbour), the last row wrapping to the
    // first. row_offset[r] is j - i, when every lane's neighbour j is its
    // own index i plus one common offset, else FAN_GATHER.
    //
    // Every spring appears in the rows of both its ends and gives both the
    // same coefficient s = ks (1 - L0 / |d|) + kd (v_j - v_i) . d / |d|²
    // (d only changes sign), so the end reached second reuses it. The
    // kernels keep the s of row q of a block (q < REUSE_ROWS) for point i in
    // a ring, at ring_slot(q, i) of the calling thread's ring (fans_ring):
    // the sweep meets it again within reach chunks, so a ring of
    // ring_mask + 1 points per row (a power of two, more than reach + 1
    // chunks) holds it until then and stays in cache, where an array of
    // every point's coefficients would be written to memory and read back.
    // Each ring row ends with a copy of its first LANES points, so that LANES
    // consecutive points load at once where they wrap round. A row whose
    // every spring was met earlier in the sweep (row_reuse_from[r], the
    // lowest block they come from, is not -1) reads them from the ring at
    // row_partner[LANES r + lane] instead, or with one contiguous load from
    // row_partner_at[r] when that is not FAN_GATHER, provided that block is
    // in the same thread's share (else it computes them anew, to the same
    // bits). row_reuse_local[r] says that some come from an earlier row of
    // the same block, which only a kernel that walks the block row by row,
    // all lanes at once, may reuse.
    int row_count;
    int reach; // chunks: no point has a neighbour more than this many chunks from its own
    int *row_start;
    int32_t *row_index;
    double *row_rest;
    int32_t *row_offset;
    uint8_t *row_mask;
    int32_t *row_partner;
    int32_t *row_partner_at;
    int32_t *row_reuse_from;
    uint8_t *row_reuse_local;
    // Block k is regular when it has REGULAR_ROWS rows, every lane has a
    // spring and a triangle in each, its first REGULAR_COMPUTED rows compute
    // their springs from neighbours at one common offset each, and the
    // others reuse theirs with one contiguous load each: most blocks of a
    // mesh whose points mostly have six neighbours (74% on icosphere-5, 93%
    // on -7). block_regular_from[k] is then the lowest block the reused
    // springs come from, else -1. The AVX-512 kernel runs regular blocks as
    // straight-line code, to the same bits.
    int32_t *block_regular_from;
    int ring_mask;  // points per ring row, less one
    int ring_span;  // doubles per ring row: ring_mask + 1 + LANES
    int ring_count; // rings: one per thread that may share the body's step
    double *rings;  // ring_count rings of REUSE_ROWS rows, written by each force evaluation
    void *block; // the allocation behind the fan rows
} psb_fans;

/// Chooses the internal order and builds a shell's fans from b->tris and
/// b->rest (or, for a ring, the identity order). Fills order, rank and the
/// fan rows (into b->fans).
psb_status body_build_fans(psb_body *b, psb_error *err);
/// Makes sure body b has a ring for each thread that may share its step
/// when the world runs `threads` (fan rows built first).
psb_status body_size_rings(psb_body *b, int threads, psb_error *err);

/// Thread t's ring of a shell's spring coefficients (t < f->ring_count).
static inline double *fans_ring(const psb_fans *f, int t) {
    return f->rings + (size_t)t * REUSE_ROWS * (size_t)f->ring_span;
}

/// Where the coefficient of row q of its block for point i sits in a ring;
/// when ring_mirrored, it is kept at ring_slot + ring_mask + 1 as well.
static inline size_t ring_slot(const psb_fans *f, int q, int i) {
    return (size_t)q * (size_t)f->ring_span + (size_t)(i & f->ring_mask);
}

static inline bool ring_mirrored(const psb_fans *f, int i) {
    return (i & f->ring_mask) < LANES;
}

/// What the fused symplectic Euler update needs besides the body.
typedef struct kick_args {
    double h;           // sub-step, s
    double pressure;    // P, Pa (2D: N/m)
    double gravity;     // acceleration along -y, m/s²
    bool floor;         // a floor at floor_y
    double floor_y;     // m
    double restitution; // e
    double keep;        // exp(-mu h): what friction leaves of the tangential velocity
    bool folded;        // the force pass already added h f / m to v (body_folds): F = P grad
} kick_args;

/// How a force pass runs (psb_kernels.forces).
typedef struct force_pass {
    /// Chunks own .. c0 - 1 were evaluated just before, by the same thread,
    /// in the same pass: their springs' coefficients are reused (own = c0
    /// when there are none).
    int own;
    /// The caller's thread in the body's team (0 alone), whose ring keeps
    /// the coefficients.
    int thread;
    /// > 0 (only for undamped springs on a shell or cloth, body_folds): the
    /// spring forces are not stored; each point's v += (kick_h / m) f
    /// instead, as soon as its f is known, and b->f is left as it was.
    double kick_h;
    /// > 0: while it works on a block, the pass asks for the cache lines
    /// that the kick will read this many points further on (the sweep's next
    /// batch), so that memory works while the pass computes; only for points
    /// before fetch_end (the caller's own, which no other thread writes).
    int ahead;
    int fetch_end;
} force_pass;

/// One instruction set's version of the hot loops. All versions compute the
/// same thing; they may differ in the last bits, so a world picks one when
/// it is created and keeps it.
typedef struct psb_kernels {
    const char *name; // "avx512", "avx2" or "scalar"
    /// Spring forces (damped Hooke) into b->f (or v, pass->kick_h) and the
    /// volume gradient into b->grad for the points of chunks [c0, c1), and
    /// each of those chunks' share of the volume into b->vol_part. Reads
    /// b->x and b->v only.
    void (*forces)(psb_body *b, int c0, int c1, const force_pass *pass);
    /// Symplectic Euler for internal points [i0, i1) (padding skipped):
    /// v += h (F / m - g y^), x += h v, then the floor. F = f + P grad, or
    /// P grad alone when the force pass folded f into v (a->folded).
    void (*kick_drift)(psb_body *b, int i0, int i1, const kick_args *a);
    /// The blow-up guard's scan of internal points [i0, i1): copies x into
    /// x_next, widens the box lo..hi by the points, and returns how many
    /// points are not finite or moved farther than sqrt(limit2) from x_good.
    int (*guard_scan)(psb_body *b, int i0, int i1, double limit2, psb_vec3 *lo, psb_vec3 *hi);
} psb_kernels;

/// The kernels of each instruction set. A version the build or the CPU
/// lacks is NULL (kernels_avx2/avx512 return NULL then).
const psb_kernels *kernels_scalar(void);
const psb_kernels *kernels_avx2(void);
const psb_kernels *kernels_avx512(void);
/// The fastest version this CPU runs.
const psb_kernels *kernels_best(void);

// sweep.c
struct team_barrier;
/// Whether body b's world steps take the skewed sweep (symplectic Euler on
/// a shell or cloth without shape matching or wind).
bool body_sweeps(const psb_body *b, const psb_world *w);
/// Whether body b's symplectic sub-steps fold the spring forces into the
/// velocities during the force pass (a body that sweeps, with undamped
/// springs): v + h f / m + h P grad / m, in that order, in the sweep and in
/// plain sub-steps alike.
bool body_folds(const psb_body *b, const psb_world *w);
/// The blow-up guard's scan of a run of points (kernels' guard_scan): the
/// limit it checks, m², and what it found.
typedef struct guard_tally {
    double limit2;
    psb_vec3 lo, hi; // the box of the points, m
    int bad;         // points not finite or moved farther than the limit
} guard_tally;
/// All the sub-steps of one world step for chunks [c0, c1) of body b, as
/// thread `thread` of `team` meeting at bar (team 1: alone, bar unused);
/// see sweep.c. Each thread writes only its own chunks; thread 0 files the
/// volume, nRT and pressure. The guard scans the chunks' points as the
/// last kick leaves them (its lo and hi start as an empty box).
void body_sweep_step(psb_body *b, const psb_world *w, int c0, int c1, int thread, int team,
                     struct team_barrier *bar, guard_tally *guard);

// team.c
/// A barrier for the threads of a threaded step (NULL: out of memory, or
/// built without OpenMP, where nothing waits).
struct team_barrier *team_barrier_create(void);
void team_barrier_destroy(struct team_barrier *bar);
/// Waits until all `team` threads have called it.
void team_wait(struct team_barrier *bar, int team);

/// A monotonic clock in ns, for the stage timers.
double profile_now(void);

#endif
