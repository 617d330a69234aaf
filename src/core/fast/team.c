// The barrier where the threads of a threaded step meet (world.c, sweep.c).
//
// It spins briefly (between threads that each have a core, a barrier
// completes in microseconds), then sleeps: on a busy machine the thread
// everyone waits for may have lost its core, and a sleeping thread frees its
// own for it. OpenMP's barriers spin far longer and lose whole time slices
// there; waiting passively all the time costs about 30% on a quiet machine.
#include <stdlib.h>

#include "internal.h"

#ifdef _OPENMP
#include <pthread.h>
#include <stdatomic.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

enum { BARRIER_SPINS = 2000 };

struct team_barrier {
    _Alignas(64) atomic_int arrived; // threads at the barrier
    atomic_int generation;           // counts the completed barriers
    pthread_mutex_t lock;
    pthread_cond_t wake;
};

struct team_barrier *team_barrier_create(void) {
    struct team_barrier *bar = aligned_alloc(_Alignof(struct team_barrier), sizeof *bar);
    if (!bar) {
        return NULL;
    }
    atomic_init(&bar->arrived, 0);
    atomic_init(&bar->generation, 0);
    pthread_mutex_init(&bar->lock, NULL);
    pthread_cond_init(&bar->wake, NULL);
    return bar;
}

void team_barrier_destroy(struct team_barrier *bar) {
    if (bar) {
        pthread_mutex_destroy(&bar->lock);
        pthread_cond_destroy(&bar->wake);
        free(bar);
    }
}

void team_wait(struct team_barrier *bar, int team) {
    // Read before arriving: it cannot change until this thread has arrived.
    const int generation = atomic_load(&bar->generation);
    if (atomic_fetch_add(&bar->arrived, 1) == team - 1) {
        atomic_store(&bar->arrived, 0);
        pthread_mutex_lock(&bar->lock);
        atomic_fetch_add(&bar->generation, 1);
        pthread_cond_broadcast(&bar->wake);
        pthread_mutex_unlock(&bar->lock);
        return;
    }
    for (int spins = 0; spins < BARRIER_SPINS; spins++) {
        if (atomic_load(&bar->generation) != generation) {
            return;
        }
        CPU_RELAX();
    }
    pthread_mutex_lock(&bar->lock);
    while (atomic_load(&bar->generation) == generation) {
        pthread_cond_wait(&bar->wake, &bar->lock);
    }
    pthread_mutex_unlock(&bar->lock);
}

#else
// Without OpenMP every step runs on one thread and never waits.
struct team_barrier *team_barrier_create(void) {
    return NULL;
}

void team_barrier_destroy(struct team_barrier *bar) {
    (void)bar;
}

void team_wait(struct team_barrier *bar, int team) {
    (void)bar;
    (void)team;
}
#endif
