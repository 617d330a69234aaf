// Symplectic Euler for a whole world step in skewed sweeps.
//
// A sub-step is two passes over the body: the forces (springs and volume
// gradient, fan.c), and, once the volume and so the pressure are known,
// the kick and drift (v += h F / m, x += h v, the floor, colliders, pins).
// The second pass cannot start before the first has ended, because the
// pressure needs every point's share of the volume; but nothing stops it
// from being put off into the next sub-step's force pass. So each sweep
// does both, one behind the other: it kicks and drifts chunk c + reach with
// the last sub-step's pressure, then computes the forces on chunk c, which
// only reads chunks c - reach .. c + reach, all of them already moved. A
// chunk's positions and velocities are then read from memory once per
// sub-step instead of twice, and what the force pass reads was written a
// moment before and is still in cache.
//
// It is the same arithmetic in the same order on every point as two plain
// passes (integrate.c, step_symplectic), so the result is the same bits;
// only the order in which chunks are visited changes. The world step ends
// with one kick and drift of every chunk, so that between world steps the
// state is whole, as with the plain passes; the blow-up guard scans each
// batch of chunks right after it (world.c).
//
// With threads, each thread owns a run of chunks. The chunks within reach
// of a neighbour's run (its first and last `reach`) are moved at the start
// of the sweep, and the threads wait for each other before computing any
// force; the rest is moved ahead of the forces as above. A second wait
// after the forces lets every thread sum the volume shares, as in world.c.
#include "internal.h"

// Chunks moved ahead of the forces at a time: large enough that the stage
// timers (while profiling) cost nothing to speak of, small enough that what
// is moved is still in cache when its forces are computed.
enum { SWEEP_BATCH = 64 };

bool body_sweeps(const psb_body *b, const psb_world *w) {
    return w->params.integrator == PSB_SYMPLECTIC_EULER && b->kind != PSB_RING &&
           !body_has_extras(b, w);
}

// Undamped springs read no velocities, so the force pass may add a point's
// spring force to its velocity at once (v += h f / m) instead of writing f
// to memory for the kick to read back a whole sweep later; the kick then
// adds h P grad / m alone. Damped springs read their neighbours'
// velocities, which must stay those of the sub-step's start.
bool body_folds(const psb_body *b, const psb_world *w) {
    return b->params.spring_damping == 0.0 && body_sweeps(b, w);
}

// Waits for the other threads, the wait counted in the stage it ends.
static void wait_all(struct team_barrier *bar, int team, psb_profile *prof, double *stage) {
    if (team > 1) {
        const double start = prof ? profile_now() : 0.0;
        team_wait(bar, team);
        if (prof) {
            *stage += profile_now() - start;
        }
    }
}

static void forces(psb_body *b, const psb_world *w, int c, int end, const force_pass *pass,
                   psb_profile *prof) {
    const double start = prof ? profile_now() : 0.0;
    w->kernels->forces(b, c, end, pass);
    if (prof) {
        prof->springs += profile_now() - start;
    }
}

// The gas after a force pass at time t: every thread computes it from all
// the chunks' shares, in chunk order, so they all get the same bits.
static double gas(psb_body *b, double t, bool first_thread, psb_profile *prof) {
    const double start = prof ? profile_now() : 0.0;
    const double volume = body_volume_sum(b);
    const double nrt = body_gas_nrt(b, t);
    const double pressure = body_pressure(b, nrt, volume);
    if (first_thread) {
        b->volume = volume;
        b->nrt = nrt;
        b->pressure = pressure;
    }
    if (prof) {
        prof->gas += profile_now() - start;
    }
    return pressure;
}

// The last kick and drift of the world step, chunk batch by chunk batch,
// each followed by the guard's scan of its points while they are in cache.
static void last_kick(psb_body *b, const psb_world *w, int c0, int c1, double t, double h,
                      double pressure, psb_profile *prof, guard_tally *guard) {
    for (int c = c0; c < c1; c += SWEEP_BATCH) {
        const int end = c + SWEEP_BATCH < c1 ? c + SWEEP_BATCH : c1;
        body_kick_drift(b, w, c, end, t, h, pressure, prof);
        const double start = prof ? profile_now() : 0.0;
        guard->bad += w->kernels->guard_scan(b, c * CHUNK_POINTS, end * CHUNK_POINTS, guard->limit2,
                                             &guard->lo, &guard->hi);
        if (prof) {
            prof->guard += profile_now() - start;
        }
    }
}

void body_sweep_step(psb_body *b, const psb_world *w, int c0, int c1, int thread, int team,
                     struct team_barrier *bar, guard_tally *guard) {
    const bool first_thread = thread == 0;
    const psb_params *p = &w->params;
    const double h = p->dt / p->substeps;
    psb_profile *prof = first_thread ? b->profile : NULL;
    const int reach = b->fans.reach;
    // Chunks [c0, head) and [tail, c1) may be read by the neighbouring
    // threads' forces.
    const int head = c0 + reach < c1 ? c0 + reach : c1;
    const int tail = c1 - reach > head ? c1 - reach : head;
    // While it computes one batch's forces, the pass fetches the next
    // kick batch, SWEEP_BATCH + reach chunks further on (never past tail:
    // the chunks after it are kicked at the start of the sweep).
    const force_pass pass = {.own = c0,
                             .thread = thread,
                             .kick_h = body_folds(b, w) ? h : 0.0,
                             .ahead = (SWEEP_BATCH + reach) * CHUNK_POINTS,
                             .fetch_end = tail * CHUNK_POINTS};
    double pressure = 0.0;
    for (int s = 0; s <= p->substeps; s++) {
        const double t = w->time + s * h; // of this sweep's forces
        int moved = c1;                   // chunks [moved, tail) still wait for their kick
        if (s == p->substeps) {
            last_kick(b, w, c0, c1, t - h, h, pressure, prof, guard);
            return;
        }
        if (s > 0) {
            // The kick and drift of sub-step s - 1.
            body_kick_drift(b, w, c0, head, t - h, h, pressure, prof);
            body_kick_drift(b, w, tail, c1, t - h, h, pressure, prof);
            moved = head;
            wait_all(bar, team, prof, prof ? &prof->integrate : NULL);
        }
        for (int c = c0; c < c1; c += SWEEP_BATCH) {
            const int end = c + SWEEP_BATCH < c1 ? c + SWEEP_BATCH : c1;
            const int needed = end + reach < tail ? end + reach : tail;
            if (moved < needed) {
                body_kick_drift(b, w, moved, needed, t - h, h, pressure, prof);
                moved = needed;
            }
            forces(b, w, c, end, &pass, prof);
        }
        wait_all(bar, team, prof, prof ? &prof->springs : NULL);
        pressure = gas(b, t, first_thread, prof);
    }
}
