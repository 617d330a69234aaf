// Threads and kernels: the fast step gives the same physics whatever runs it.
//
// - Threads: a world stepped with 1, 2, 3 or 5 threads holds bit-identical
//   positions and velocities (memcmp) after every step, for shells and rings
//   large enough to be shared out, with gravity, floor, walls, a sphere,
//   damping (and without, where the force pass folds the spring forces
//   into the velocities), inflation, area masses and a grabbed point; a blow-up is
//   reported the same way whatever the count. The threads split the points,
//   never a sum (the volume is summed per chunk in chunk order), so the
//   tolerance is zero.
// - Small bodies (under 4096 points) are stepped side by side, one thread
//   each: five of them give the same bits with 1, 2 or 4 threads.
// - Kernels: the scalar, AVX2 and AVX-512 versions of the hot loops (those
//   this CPU runs) agree to 1e-12 relative on one force evaluation and to
//   1e-9 of the body's size after 50 steps (they differ in rounding only:
//   fused multiply-adds, the reciprocal square root's last bits; 2e-8
//   undamped, where they grow faster). The
//   AVX-512 kernel's straight-line path for regular blocks gives the same
//   bits as its general loop.
// - Fans: the volume gradient that the kernels gather per point equals the
//   finite-difference gradient of the divergence-theorem volume, and their
//   volume equals psb_body_measure's, on a closed sphere, on two boxes that
//   share one corner (a non-manifold point) and on a torus; the net gas force
//   on a closed surface is zero.
// - Fan sizes: the big shell's bottom has its edges flipped at random, so
//   its points have 4 to 7 neighbours; its chunks of mixed fan sizes are
//   sorted by size, every chunk has as few rows as its sizes allow, and
//   every check above runs on a body with both kinds of chunk.
//
// This test reaches into the core (internal.h) to pick kernels and to read
// the forces; everything else goes through the public API.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bodies.h"
#include "check.h"
#include "internal.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

typedef struct edge_end {
    int lo, hi, tri, corner; // the edge (lo < hi); it leaves corner `corner` of triangle tri
} edge_end;

static int by_edge(const void *a, const void *b) {
    const edge_end *x = a, *y = b;
    return x->lo != y->lo ? (x->lo > y->lo) - (x->lo < y->lo) : (x->hi > y->hi) - (x->hi < y->hi);
}

// Flips about half the edges below y0 (m) whose four points no earlier flip
// touched, where that leaves both ends at least four neighbours: the bottom
// of an icosphere then has points of 4 to 7 neighbours, like a scanned mesh,
// so its chunks are sorted by fan size (fan.c, group_by_fan_size), while
// the rest keeps the regular blocks. ends, degree and touched are scratch
// (3 per triangle, 1 per point, 1 per point). Returns the flips made.
static int flip_edges(psb_mesh *m, double y0, uint64_t *seed, edge_end *ends, int *degree,
                      bool *touched) {
    const int t_count = m->triangle_count;
    int *t = m->triangles;
    for (int i = 0; i < m->point_count; i++) {
        degree[i] = 0;
        touched[i] = false;
    }
    for (int f = 0; f < t_count; f++) {
        for (int q = 0; q < 3; q++) {
            const int a = t[3 * f + q], b = t[3 * f + (q + 1) % 3];
            ends[3 * f + q] = (edge_end){a < b ? a : b, a < b ? b : a, f, q};
            degree[a]++; // once at each end: b -> a is in the other triangle
        }
    }
    qsort(ends, (size_t)t_count * 3, sizeof *ends, by_edge);
    int flips = 0;
    for (int e = 0; e + 1 < 3 * t_count; e++) {
        const edge_end one = ends[e], two = ends[e + 1];
        if (one.lo != two.lo || one.hi != two.hi || rnd(seed) < 0.0) {
            continue;
        }
        // Triangle one runs a -> b -> c, triangle two b -> a -> d.
        int *t1 = &t[3 * one.tri], *t2 = &t[3 * two.tri];
        const int a = t1[one.corner], b = t1[(one.corner + 1) % 3], c = t1[(one.corner + 2) % 3];
        const int d = t2[(two.corner + 2) % 3];
        if (m->points[a].y > y0 || m->points[b].y > y0 || touched[a] || touched[b] || touched[c] ||
            touched[d] || degree[a] <= 4 || degree[b] <= 4) {
            continue;
        }
        t1[0] = c, t1[1] = a, t1[2] = d;
        t2[0] = d, t2[1] = b, t2[2] = c;
        degree[a]--, degree[b]--, degree[c]++, degree[d]++;
        touched[a] = touched[b] = touched[c] = touched[d] = true;
        flips++;
    }
    return flips;
}

// flip_edges with scratch of its own.
static int scramble_bottom(psb_mesh *m, double y0, uint64_t *seed) {
    edge_end *ends = malloc((size_t)m->triangle_count * 3 * sizeof *ends);
    int *degree = malloc((size_t)m->point_count * sizeof *degree);
    bool *touched = malloc((size_t)m->point_count * sizeof *touched);
    CHECK(ends && degree && touched, "out of memory");
    const int flips =
        ends && degree && touched ? flip_edges(m, y0, seed, ends, degree, touched) : 0;
    free(ends);
    free(degree);
    free(touched);
    return flips;
}

// Adds the big shell of these worlds as body 0: icosphere level 5 (10242
// points), jittered, with edges flipped in its bottom (points of 4 to 7
// neighbours), springs damped by `damping` (N s/m), shape matching
// `shape_k` and `shape_damping` (0: none).
static void add_big_shell(psb_world *w, double damping, bool by_area, double shape_k,
                          double shape_damping) {
    psb_error err;
    psb_mesh m;
    psb_mesh_icosphere(&m, 5, 0.5, &err);
    uint64_t seed = 7;
    for (int i = 0; i < m.point_count; i++) {
        m.points[i].x += 0.002 * rnd(&seed);
        m.points[i].y += 0.002 * rnd(&seed);
        m.points[i].z += 0.002 * rnd(&seed);
    }
    CHECK(scramble_bottom(&m, -0.3, &seed) > 100, "too few edges flipped");
    psb_body_def def = psb_mesh_body_def(&m);
    def.params.mass = 2.0;
    def.params.spring_k = 50.0;
    def.params.spring_damping = damping;
    def.params.gas_nrt = 10.0;
    def.params.inflate_time = 0.05;
    def.params.mass_by_area = by_area;
    def.params.shape_k = shape_k;
    def.params.shape_damping = shape_damping;
    def.offset = (psb_vec3){0.2, 0.55, 0.0};
    def.velocity = (psb_vec3){0.5, -1.0, 0.3};
    CHECK(psb_world_add_body(w, &def, &err) == 0, "icosphere: %s", err.message);
    psb_mesh_free(&m);
}

// Adds the big ring of these worlds as body 1: 5000 points, heavy and soft
// enough for h = 1/1200 s; shape matching as in add_big_shell.
static void add_big_ring(psb_world *w, double shape_k, double shape_damping) {
    psb_error err;
    psb_mesh m;
    psb_mesh_ring(&m, 5000, 0.5, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params.mass = 20.0;
    def.params.spring_k = 1000.0;
    def.params.spring_damping = 0.01;
    def.params.gas_nrt = 0.05;
    def.params.shape_k = shape_k;
    def.params.shape_damping = shape_damping;
    def.offset = (psb_vec3){-1.0, 2.0, 0.0};
    def.velocity = (psb_vec3){1.0, 0.0, 0.0};
    CHECK(psb_world_add_body(w, &def, &err) == 1, "ring: %s", err.message);
    psb_mesh_free(&m);
}

// A busy world with one big shell (level 5, 10242 points), one big ring
// (5000 points) and one small shell that always runs on one thread. The big
// shell's springs have the damping `damping` (N s/m); undamped, its
// symplectic sub-steps fold the spring forces into the velocities in the
// force pass (body_folds). by_area: its points' masses follow their areas,
// else they are equal, and the kick and the fold use one 1/m for them all
// (inv_mass_uniform).
static psb_world *make_world_damped(int threads, psb_integrator integrator, double damping,
                                    bool by_area) {
    psb_params p = psb_default_params();
    p.threads = threads;
    p.integrator = integrator;
    p.dt = 1.0 / 120.0;
    p.substeps = 10;
    p.walls = true;
    p.walls_min = (psb_vec3){-2, -1, -2};
    p.walls_max = (psb_vec3){2, 4, 2};
    p.restitution = 0.5;
    p.friction = 1.0;
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) {
        return NULL;
    }
    CHECK(psb_world_add_sphere(w, (psb_vec3){0.3, -0.2, 0.1}, 0.3, &err) == PSB_OK, "sphere: %s",
          err.message);

    add_big_shell(w, damping, by_area, 0.0, 0.0);
    add_big_ring(w, 0.0, 0.0);

    psb_mesh m;
    psb_mesh_icosphere(&m, 2, 0.3, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    def.offset = (psb_vec3){-1.0, 2.0, 1.0};
    CHECK(psb_world_add_body(w, &def, &err) == 2, "small icosphere: %s", err.message);
    psb_mesh_free(&m);

    psb_body_grab(w, 0, 123, (psb_vec3){0.3, 1.5, 0.2}, 5.0);
    return w;
}

enum { BIG_DAMPED, BIG_UNDAMPED };
static const double big_damping[2] = {0.002, 0.0};

static psb_world *make_world_with(int threads, psb_integrator integrator) {
    return make_world_damped(threads, integrator, big_damping[BIG_DAMPED], true);
}

static void test_thread_counts(psb_integrator integrator, double damping) {
    const int counts[] = {2, 3, 5};
    char name[64];
    snprintf(name, sizeof name, "%s, damping %g", psb_integrator_name(integrator), damping);
    psb_world *one = make_world_damped(1, integrator, damping, damping != 0.0);
    psb_world *many[3];
    for (int c = 0; c < 3; c++) {
        // The last one starts on one thread and is given more afterwards, so
        // that its bodies must grow their per-thread scratch.
        many[c] = make_world_damped(c < 2 ? counts[c] : 1, integrator, damping, damping != 0.0);
    }
    if (one && integrator == PSB_SYMPLECTIC_EULER) {
        CHECK(body_folds(world_body(one, 0), one) == (damping == 0.0),
              "%s: the big sphere folds its forces %s", name,
              damping == 0.0 ? "not at all" : "with damped springs");
    }
    if (many[2]) {
        psb_params p = *psb_world_params(many[2]);
        p.threads = counts[2];
        psb_error err;
        CHECK(psb_world_set_params(many[2], &p, &err) == PSB_OK, "%d threads: %s", counts[2],
              err.message);
    }
    if (many[0]) {
        psb_world_set_profiling(many[0], true); // to see the threads it really used
    }
    bool moved = false;
    for (int k = 0; k < 30 && one; k++) {
        psb_world_step(one);
        for (int c = 0; c < 3; c++) {
            if (!many[c]) {
                continue;
            }
            psb_world_step(many[c]);
            if (!same_bits(one, many[c])) {
                CHECK(false, "%s: %d threads differ from one after step %d", name, counts[c],
                      k + 1);
                psb_world_destroy(many[c]);
                many[c] = NULL;
            }
        }
        if (k == 10) {
            psb_body_release(one, 0);
            for (int c = 0; c < 3; c++) {
                if (many[c]) {
                    psb_body_release(many[c], 0);
                }
            }
        }
    }
#ifdef _OPENMP
    // The comparison above means something only if the step really ran on
    // several threads.
    if (many[0]) {
        CHECK(psb_world_profile(many[0]).threads == 2, "%s: asked for 2 threads, ran on %d", name,
              psb_world_profile(many[0]).threads);
    }
#else
    printf("test_threads: built without OpenMP: every thread count runs on one thread\n");
#endif
    // Euler and Heun add energy to this undamped shell until it blows up;
    // the threads must still agree, recoveries included.
    const bool gains_energy = integrator == PSB_EULER || integrator == PSB_HEUN;
    if (one && !gains_energy) {
        const psb_body_state s = psb_body_measure(one, 0);
        moved = s.centroid.x > 0.25 && isfinite(s.energy);
        CHECK(moved, "%s: the big sphere did not move (centroid x %g)", name, s.centroid.x);
        CHECK(s.blowups == 0 && psb_body_measure(one, 1).blowups == 0, "%s: blow-up: %s", name,
              psb_world_last_event(one));
    }
    psb_world_destroy(one);
    for (int c = 0; c < 3; c++) {
        psb_world_destroy(many[c]);
    }
}

// A big shell and a big ring with shape matching, shape damping and the
// wind (gusts included): their sums over the whole body (shape.c) are made
// chunk by chunk, so any number of threads gives the same bits.
static psb_world *make_world_extras(int threads, psb_integrator integrator) {
    psb_params p = psb_default_params();
    p.threads = threads;
    p.integrator = integrator;
    p.dt = 1.0 / 120.0;
    p.substeps = 10;
    p.wind = (psb_vec3){4.0, 0.0, 1.0};
    p.wind_turbulence = 2.0;
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) {
        return NULL;
    }
    add_big_shell(w, 0.002, false, 30.0, 2.0);
    CHECK(psb_body_pin(w, 0, 4000, psb_body_positions(w, 0)[4000], &err) == PSB_OK, "pin: %s",
          err.message);
    add_big_ring(w, 100.0, 1.0);
    psb_body_grab(w, 0, 123, (psb_vec3){0.3, 1.5, 0.2}, 5.0);
    return w;
}

static void test_extras_threads(psb_integrator integrator) {
    const char *name = psb_integrator_name(integrator);
    psb_world *one = make_world_extras(1, integrator);
    psb_world *many[2] = {make_world_extras(2, integrator), make_world_extras(3, integrator)};
    if (many[0]) {
        psb_world_set_profiling(many[0], true); // to see the threads it really used
    }
    for (int k = 0; k < 30 && one; k++) {
        psb_world_step(one);
        for (int c = 0; c < 2; c++) {
            if (many[c]) {
                psb_world_step(many[c]);
                if (!same_bits(one, many[c])) {
                    CHECK(false,
                          "%s, shape matching and wind: %d threads differ from one after "
                          "step %d",
                          name, c + 2, k + 1);
                    psb_world_destroy(many[c]);
                    many[c] = NULL;
                }
            }
        }
    }
#ifdef _OPENMP
    if (many[0]) {
        CHECK(psb_world_profile(many[0]).threads == 2, "%s: asked for 2 threads, ran on %d", name,
              psb_world_profile(many[0]).threads);
    }
#endif
    if (one) {
        const psb_body_state s = psb_body_measure(one, 0), r = psb_body_measure(one, 1);
        CHECK(s.shape > 0.0 && r.shape > 0.0, "%s: no shape energy (%g, %g)", name, s.shape,
              r.shape);
        CHECK(s.blowups == 0 && r.blowups == 0, "%s: blow-up: %s", name, psb_world_last_event(one));
    }
    psb_world_destroy(one);
    for (int c = 0; c < 2; c++) {
        psb_world_destroy(many[c]);
    }
}

// A blow-up (a huge kick) is found, reported and recovered the same way.
static void test_threaded_blowup(void) {
    char events[2][512];
    psb_world *w[2] = {make_world_with(1, PSB_SYMPLECTIC_EULER),
                       make_world_with(4, PSB_SYMPLECTIC_EULER)};
    for (int c = 0; c < 2; c++) {
        if (!w[c]) {
            events[c][0] = '\0';
            continue;
        }
        psb_world_step(w[c]);
        psb_body_apply_impulse(w[c], 0, 4000, (psb_vec3){0.0, 1e3, 0.0});
        psb_body_apply_impulse(w[c], 0, 77, (psb_vec3){1e3, 0.0, 0.0});
        const int blown = psb_world_step(w[c]);
        CHECK(blown == 1, "%d threads: %d bodies blew up, expected 1", c ? 4 : 1, blown);
        snprintf(events[c], sizeof events[c], "%s", psb_world_last_event(w[c]));
        psb_world_step(w[c]);
    }
    CHECK(strstr(events[0], "body 0 blew up") != NULL, "unexpected report: %s", events[0]);
    CHECK(strcmp(events[0], events[1]) == 0, "reports differ:\n  %s\n  %s", events[0], events[1]);
    CHECK(w[0] && w[1] && same_bits(w[0], w[1]), "states differ after the recovery");
    psb_world_destroy(w[0]);
    psb_world_destroy(w[1]);
}

// Five small bodies of different kinds and materials, in walls with a sphere.
static psb_world *make_small_bodies(int threads) {
    psb_params p = psb_default_params();
    p.threads = threads;
    p.substeps = 30;
    p.walls = true;
    p.walls_min = (psb_vec3){-3, -1, -3};
    p.walls_max = (psb_vec3){3, 5, 3};
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) {
        return NULL;
    }
    psb_world_add_sphere(w, (psb_vec3){0.2, 0.5, 0.0}, 0.6, &err);
    psb_mesh m[5];
    psb_mesh_ring(&m[0], 40, 0.5, &err);
    psb_mesh_icosphere(&m[1], 3, 0.4, &err);
    psb_mesh_box(&m[2], 2, (psb_vec3){0.3, 0.2, 0.25}, &err);
    psb_mesh_torus(&m[3], 12, 6, 0.4, 0.15, &err);
    psb_mesh_icosphere(&m[4], 2, 0.3, &err);
    const psb_vec3 at[5] = {
        {-1.0, 2.5, 0.0}, {0.3, 2.0, 0.1}, {1.5, 1.0, -1.0}, {-1.5, 3.0, 1.0}, {1.0, 3.5, 1.0}};
    for (int k = 0; k < 5; k++) {
        psb_body_def def = psb_mesh_body_def(&m[k]);
        def.params.spring_k = 500.0 + 100.0 * k;
        def.params.spring_damping = 0.2 * k;
        def.params.gas_nrt = k == 0 ? 10.0 : 30.0 + 10.0 * k;
        def.params.mass_by_area = k % 2 == 1;
        def.offset = at[k];
        def.velocity = (psb_vec3){0.5 * k - 1.0, 0.0, k == 0 ? 0.0 : 0.3};
        CHECK(psb_world_add_body(w, &def, &err) == k, "body %d: %s", k, err.message);
        psb_mesh_free(&m[k]);
    }
    return w;
}

static void test_small_bodies(void) {
    psb_world *w[3] = {make_small_bodies(1), make_small_bodies(2), make_small_bodies(4)};
    for (int k = 0; k < 60 && w[0] && w[1] && w[2]; k++) {
        for (int c = 0; c < 3; c++) {
            psb_world_step(w[c]);
        }
        CHECK(same_bits(w[0], w[1]) && same_bits(w[0], w[2]),
              "small bodies differ with more threads after step %d", k + 1);
        if (!same_bits(w[0], w[1]) || !same_bits(w[0], w[2])) {
            break;
        }
    }
    for (int c = 0; c < 3; c++) {
        psb_world_destroy(w[c]);
    }
}

// One force evaluation of body 0 with kernels k; returns the body's volume.
static double evaluate(psb_world *w, const psb_kernels *k) {
    w->kernels = k;
    psb_body *b = w->bodies[0];
    body_forces(b, w, psb_world_time(w));
    return b->volume;
}

// 50 steps with each version, in free flight (a contact turns a last-bit
// difference into a different bounce): the trajectories stay together,
// damped and undamped (the kernels' folds). Last-bit differences grow
// faster when nothing damps the springs' fastest modes: on icosphere-5,
// 1e-14 m after 10 steps either way, then 5e-12 m after 50 steps damped
// and 3e-10 (AVX-512) to 2e-9 m (AVX2) undamped. A fold off by 1e-9 of
// h / m drifts 2e-5 m.
static void kernels_stay_together(const psb_kernels *const versions[3], double damping,
                                  bool by_area) {
    const double tolerance = damping != 0.0 ? 1e-9 : 2e-8;
    psb_world *runs[3] = {NULL, NULL, NULL};
    for (int v = 0; v < 3; v++) {
        if (!versions[v]) {
            continue;
        }
        runs[v] = make_world_damped(1, PSB_SYMPLECTIC_EULER, damping, by_area);
        if (runs[v]) {
            psb_params p = *psb_world_params(runs[v]);
            p.gravity = 0.0;
            p.floor = false;
            p.walls = false;
            psb_world_set_params(runs[v], &p, NULL);
            runs[v]->sphere_count = 0;
            runs[v]->kernels = versions[v];
            for (int k = 0; k < 50; k++) {
                psb_world_step(runs[v]);
            }
        }
    }
    for (int v = 1; v < 3; v++) {
        if (!runs[0] || !runs[v]) {
            continue;
        }
        for (int id = 0; id < 3; id++) {
            const psb_vec3 *a = psb_body_positions(runs[0], id);
            const psb_vec3 *b = psb_body_positions(runs[v], id);
            double worst = 0.0;
            for (int i = 0; i < psb_body_point_count(runs[0], id); i++) {
                worst = fmax(worst, norm(sub(a[i], b[i])));
            }
            CHECK(worst <= tolerance,
                  "%s, damping %g, %s masses: body %d drifted %.3g m from the scalar run",
                  versions[v]->name, damping, by_area ? "area" : "equal", id, worst);
        }
    }
    for (int v = 0; v < 3; v++) {
        psb_world_destroy(runs[v]);
    }
}

static void test_kernels_agree(void) {
    const psb_kernels *versions[3] = {kernels_scalar(), kernels_avx2(), kernels_avx512()};
    psb_world *ref = make_world_with(1, PSB_SYMPLECTIC_EULER);
    if (!ref) {
        return;
    }
    ref->kernels = versions[0];
    for (int k = 0; k < 3; k++) {
        psb_world_step(ref);
    }
    psb_body *rb = ref->bodies[0];
    const int n_pad = rb->n_pad;
    static double f0[3][10248], g0[3][10248];
    if (n_pad > 10248) {
        CHECK(false, "unexpected size %d", n_pad);
        psb_world_destroy(ref);
        return;
    }
    const double v0 = evaluate(ref, versions[0]);
    for (int c = 0; c < 3; c++) {
        memcpy(f0[c], rb->f[c], (size_t)n_pad * sizeof(double));
        memcpy(g0[c], rb->grad[c], (size_t)n_pad * sizeof(double));
    }
    double fscale = 0.0, gscale = 0.0;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < rb->n; i++) {
            fscale = fmax(fscale, fabs(f0[c][i]));
            gscale = fmax(gscale, fabs(g0[c][i]));
        }
    }
    for (int v = 1; v < 3; v++) {
        if (!versions[v]) {
            continue; // not on this CPU or this build
        }
        const double vol = evaluate(ref, versions[v]);
        CHECK(fabs(vol - v0) <= 1e-12 * v0, "%s: volume %.17g, scalar %.17g", versions[v]->name,
              vol, v0);
        double fd = 0.0, gd = 0.0;
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < rb->n; i++) {
                fd = fmax(fd, fabs(rb->f[c][i] - f0[c][i]));
                gd = fmax(gd, fabs(rb->grad[c][i] - g0[c][i]));
            }
        }
        // Springs near rest cancel to a small net force: compare with the
        // largest force, not each one's own size.
        CHECK(fd <= 1e-12 * fscale, "%s: forces differ by %.3g of the largest", versions[v]->name,
              fd / fscale);
        CHECK(gd <= 1e-12 * gscale, "%s: gradients differ by %.3g of the largest",
              versions[v]->name, gd / gscale);
    }
    psb_world_destroy(ref);
    kernels_stay_together(versions, big_damping[BIG_DAMPED], true);
    kernels_stay_together(versions, big_damping[BIG_UNDAMPED], false);
    kernels_stay_together(versions, big_damping[BIG_UNDAMPED], true);
}

// The kernels' gradient against central differences of the volume.
static void check_gradient(const char *name, psb_mesh *m) {
    psb_params p = psb_default_params();
    p.gravity = 0.0;
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    psb_body_def def = psb_mesh_body_def(m);
    uint64_t seed = 99;
    for (int i = 0; i < m->point_count; i++) {
        m->points[i].x += 0.01 * rnd(&seed);
        m->points[i].y += 0.01 * rnd(&seed);
        m->points[i].z += 0.01 * rnd(&seed);
    }
    const int id = w ? psb_world_add_body(w, &def, &err) : -1;
    CHECK(id == 0, "%s: %s", name, err.message);
    if (id != 0) {
        psb_world_destroy(w);
        return;
    }
    psb_body *b = w->bodies[0];
    const psb_kernels *versions[3] = {kernels_scalar(), kernels_avx2(), kernels_avx512()};
    for (int v = 0; v < 3; v++) {
        if (!versions[v]) {
            continue;
        }
        const double vol = evaluate(w, versions[v]);
        const double exact = psb_body_measure(w, 0).volume;
        CHECK(fabs(vol - exact) <= 1e-13 * fabs(exact), "%s %s: volume %.17g, measured %.17g", name,
              versions[v]->name, vol, exact);
        double worst = 0.0, scale = 0.0;
        psb_vec3 net = {0.0, 0.0, 0.0};
        psb_vec3 *x = b->x_pub;
        for (int i = 0; i < b->n; i++) {
            const int k = b->rank[i];
            const double g[3] = {b->grad[0][k], b->grad[1][k], b->grad[2][k]};
            net = (psb_vec3){net.x + g[0], net.y + g[1], net.z + g[2]};
            double *coord[3] = {&x[i].x, &x[i].y, &x[i].z};
            for (int c = 0; c < 3; c++) {
                // The volume is cubic in each coordinate's neighbourhood
                // (linear in each point, in fact), so central differences
                // are exact up to rounding.
                const double keep = *coord[c], step = 1e-4;
                *coord[c] = keep + step;
                const double up = body_volume(b, x);
                *coord[c] = keep - step;
                const double down = body_volume(b, x);
                *coord[c] = keep;
                worst = fmax(worst, fabs((up - down) / (2.0 * step) - g[c]));
                scale = fmax(scale, fabs(g[c]));
            }
        }
        CHECK(worst <= 1e-9 * scale, "%s %s: gradient off by %.3g of its largest entry", name,
              versions[v]->name, worst / scale);
        CHECK(norm(net) <= 1e-12 * scale * b->n, "%s %s: net gas force %.3g", name,
              versions[v]->name, norm(net));
    }
    psb_world_destroy(w);
}

static void test_fans(void) {
    psb_error err;
    psb_mesh m;
    psb_mesh_icosphere(&m, 2, 0.5, &err);
    check_gradient("icosphere", &m);
    psb_mesh_free(&m);
    psb_mesh_torus(&m, 16, 8, 0.5, 0.2, &err);
    check_gradient("torus", &m);
    psb_mesh_free(&m);

    // Two boxes meeting at one corner: that corner's triangles form two
    // separate fans, which the kernels take triangle by triangle.
    psb_mesh a, c;
    psb_mesh_box(&a, 1, (psb_vec3){0.5, 0.5, 0.5}, &err);
    psb_mesh_box(&c, 1, (psb_vec3){0.5, 0.5, 0.5}, &err);
    int corner_a = 0, corner_c = 0;
    for (int i = 0; i < a.point_count; i++) {
        if (a.points[i].x > 0 && a.points[i].y > 0 && a.points[i].z > 0) {
            corner_a = i;
        }
        if (c.points[i].x < 0 && c.points[i].y < 0 && c.points[i].z < 0) {
            corner_c = i;
        }
    }
    psb_vec3 points[16];
    int tris[3 * 24];
    int map[8];
    for (int i = 0; i < 8; i++) {
        points[i] = a.points[i];
    }
    int next = 8;
    for (int i = 0; i < 8; i++) {
        if (i == corner_c) {
            map[i] = corner_a;
        } else {
            points[next] =
                (psb_vec3){c.points[i].x + 1.0, c.points[i].y + 1.0, c.points[i].z + 1.0};
            map[i] = next++;
        }
    }
    for (int t = 0; t < 12; t++) {
        for (int q = 0; q < 3; q++) {
            tris[3 * t + q] = a.triangles[3 * t + q];
            tris[3 * (12 + t) + q] = map[c.triangles[3 * t + q]];
        }
    }
    psb_mesh both = {PSB_SHELL, points, next, tris, 24, NULL, 0};
    check_gradient("boxes sharing a corner", &both);
    psb_mesh_free(&a);
    psb_mesh_free(&c);
}

// The skewed sweep (sweep.c) moves the chunks in another order than plain
// sub-steps (a force pass, then a kick and drift pass, integrate.c) but
// does the same arithmetic on every point: the same bits, with a grab, a
// pin (if pin), inflation, walls, a sphere and the floor, with damped
// springs and with undamped ones (whose forces the force pass folds into
// v; with equal masses, unless a pin makes one point infinitely heavy).
static void test_sweep_matches_plain(double damping, bool pin) {
    psb_world *swept = make_world_damped(1, PSB_SYMPLECTIC_EULER, damping, damping != 0.0);
    psb_world *plain = make_world_damped(1, PSB_SYMPLECTIC_EULER, damping, damping != 0.0);
    if (!swept || !plain) {
        psb_world_destroy(swept);
        psb_world_destroy(plain);
        return;
    }
    psb_error err;
    const psb_body *big = world_body(swept, 0);
    const double uniform = big->inv_mass_uniform;
    CHECK(damping != 0.0 ? uniform == 0.0 : uniform == big->inv_mass[0] && uniform > 0.0,
          "damping %g: one 1/m for all of the big sphere's points: %g", damping, uniform);
    for (int k = 0; k < 2 && pin; k++) {
        psb_world *w = k ? plain : swept;
        CHECK(psb_body_pin(w, 0, 4000, psb_body_positions(w, 0)[4000], &err) == PSB_OK, "pin: %s",
              err.message);
    }
    CHECK(big->inv_mass_uniform == (pin ? 0.0 : uniform), "damping %g, %s: 1/m %g for every point",
          damping, pin ? "a pin" : "no pin", big->inv_mass_uniform);
    CHECK(body_sweeps(world_body(swept, 0), swept), "the big sphere does not take the sweep");
    CHECK(!body_sweeps(world_body(swept, 1), swept), "the ring takes the sweep");
    const double h = plain->params.dt / plain->params.substeps;
    for (int step = 0; step < 25; step++) {
        if (step == 12) {
            psb_body_release(swept, 0);
            psb_body_release(plain, 0);
        }
        psb_world_step(swept);
        for (int id = 0; id < plain->body_count; id++) {
            const body_part whole = body_whole(plain->bodies[id]);
            for (int s = 0; s < plain->params.substeps; s++) {
                body_integrate(plain->bodies[id], plain, &whole, plain->time + s * h, h);
            }
        }
        plain->time += plain->params.dt;
        plain->steps++;
    }
    for (int id = 0; id < swept->body_count; id++) {
        const psb_body *a = swept->bodies[id], *b = plain->bodies[id];
        const size_t bytes = (size_t)a->n * sizeof(double);
        bool same = true;
        for (int c = 0; c < 3; c++) {
            same = same && memcmp(a->x[c], b->x[c], bytes) == 0 &&
                   memcmp(a->v[c], b->v[c], bytes) == 0;
        }
        CHECK(same, "damping %g, %s, body %d: the sweep and plain sub-steps differ after 25 steps",
              damping, pin ? "a pin" : "no pin", id);
        CHECK(a->blowups == 0, "body %d blew up: %s", id, psb_world_last_event(swept));
    }
    const psb_body_state s = psb_body_measure(swept, 0);
    CHECK(s.centroid.x > 0.25, "the big sphere did not move (centroid x %g)", s.centroid.x);
    CHECK(body_folds(world_body(swept, 0), swept) == (damping == 0.0),
          "damping %g: the big sphere folds its forces %s", damping,
          damping == 0.0 ? "not at all" : "with damped springs");
    psb_body_unpin(swept, 0, 4000);
    CHECK(big->inv_mass_uniform == uniform, "damping %g: 1/m %g for every point after the unpin",
          damping, big->inv_mass_uniform);
    psb_world_destroy(swept);
    psb_world_destroy(plain);
}

// The AVX-512 kernel runs regular blocks (internal.h, block_regular_from)
// as straight-line code: the same bits as its general loop, damped or not.
static void test_regular_blocks(void) {
    const psb_kernels *k = kernels_avx512();
    if (!k) {
        printf("test_threads: no AVX-512 here: regular blocks not tried\n");
        return;
    }
    psb_world *w = make_world_with(1, PSB_SYMPLECTIC_EULER);
    if (!w) {
        return;
    }
    w->kernels = k;
    psb_body *b = w->bodies[0];
    int regular = 0;
    for (int q = 0; q < b->block_count; q++) {
        regular += b->fans.block_regular_from[q] >= 0;
    }
    CHECK(regular > b->block_count / 2, "only %d regular blocks of %d", regular, b->block_count);
    int32_t *keep = malloc((size_t)b->block_count * sizeof *keep);
    const size_t bytes = (size_t)b->n_pad * sizeof(double);
    double *f[3], *g[3];
    for (int c = 0; c < 3; c++) {
        f[c] = malloc(bytes);
        g[c] = malloc(bytes);
    }
    if (keep && f[0] && f[1] && f[2] && g[0] && g[1] && g[2]) {
        memcpy(keep, b->fans.block_regular_from, (size_t)b->block_count * sizeof *keep);
        const double damping[2] = {b->params.spring_damping, 0.0};
        for (int d = 0; d < 2; d++) {
            b->params.spring_damping = damping[d];
            const double v0 = evaluate(w, k);
            for (int c = 0; c < 3; c++) {
                memcpy(f[c], b->f[c], bytes);
                memcpy(g[c], b->grad[c], bytes);
            }
            for (int q = 0; q < b->block_count; q++) {
                b->fans.block_regular_from[q] = -1;
            }
            const double v1 = evaluate(w, k);
            bool same = memcmp(&v0, &v1, sizeof v0) == 0;
            for (int c = 0; c < 3; c++) {
                same = same && memcmp(f[c], b->f[c], bytes) == 0 &&
                       memcmp(g[c], b->grad[c], bytes) == 0;
            }
            CHECK(same, "damping %g: regular blocks differ from the general loop", damping[d]);
            memcpy(b->fans.block_regular_from, keep, (size_t)b->block_count * sizeof *keep);
        }
    }
    free(keep);
    for (int c = 0; c < 3; c++) {
        free(f[c]);
        free(g[c]);
    }
    psb_world_destroy(w);
}

static int by_size(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

// The big shell's scrambled bottom (scramble_bottom): every chunk has as few rows
// as its points' fan sizes allow (the sizes sorted, each block as long as
// its longest fan), and chunks of mixed sizes were sorted.
static void test_grouped_fans(void) {
    psb_world *w = make_world_with(1, PSB_SYMPLECTIC_EULER);
    if (!w) {
        return;
    }
    const psb_body *b = w->bodies[0];
    int sorted_mixed = 0, worst = 0;
    for (int c = 0; c < b->chunk_count; c++) {
        int size[CHUNK_POINTS], m = 0, rows = 0;
        for (int k = c * CHUNK_BLOCKS; k < (c + 1) * CHUNK_BLOCKS && k < b->block_count; k++) {
            rows += b->fans.row_start[k + 1] - b->fans.row_start[k];
            for (int lane = 0; lane < LANES && LANES * k + lane < b->n; lane++) {
                int d = 0;
                for (int r = b->fans.row_start[k]; r < b->fans.row_start[k + 1]; r++) {
                    d += ((b->fans.row_mask[2 * r] | b->fans.row_mask[2 * r + 1]) >> lane) & 1;
                }
                size[m++] = d;
            }
        }
        bool rising = true;
        for (int q = 1; q < m; q++) {
            rising = rising && size[q - 1] <= size[q];
        }
        sorted_mixed += rising && size[0] != size[m - 1];
        qsort(size, (size_t)m, sizeof size[0], by_size);
        int fewest = 0;
        for (int q = 0; q < m; q += LANES) {
            fewest += size[q + LANES < m ? q + LANES - 1 : m - 1];
        }
        worst = rows - fewest > worst ? rows - fewest : worst;
    }
    CHECK(worst == 0, "a chunk has %d rows more than its fan sizes need", worst);
    CHECK(sorted_mixed >= 10, "only %d chunks of mixed fan sizes were sorted", sorted_mixed);
    psb_world_destroy(w);
}

// Two worlds, each with the same ball of icosphere `level` (radius 0.5 m)
// thrown from 0.7 m at velocity v, stepped by the implicit integrator at
// one step of 1/60 s to solver_tol: for tests that run one of them
// another way and compare. False (and nothing left) if they could not be made.
static bool twin_drops(int level, psb_body_params body, psb_vec3 v, double solver_tol,
                       psb_world *w[2], int id[2]) {
    psb_mesh m;
    psb_error err;
    w[0] = w[1] = NULL;
    if (psb_mesh_icosphere(&m, level, 0.5, &err) != PSB_OK) {
        CHECK(false, "icosphere: %s", err.message);
        return false;
    }
    psb_params p = psb_default_params();
    p.integrator = PSB_IMPLICIT;
    p.dt = 1.0 / 60.0;
    p.substeps = 1;
    p.walls = false;
    p.solver_tol = solver_tol;
    for (int k = 0; k < 2; k++) {
        w[k] = make_world(&p);
        id[k] = w[k] ? add_moving_mesh(w[k], &m, body, (psb_vec3){0, 0.7, 0}, v) : -1;
    }
    psb_mesh_free(&m);
    if (!w[0] || !w[1] || id[0] < 0 || id[1] < 0) {
        CHECK(false, "could not make the two worlds");
        psb_world_destroy(w[0]);
        psb_world_destroy(w[1]);
        return false;
    }
    return true;
}

// The implicit step's conjugate-gradient product has an AVX2 version
// (the neighbours' blocks by columns in single precision: implicit_cg.c)
// and the scalar one, which CPUs without AVX2 run. Both solve the same
// step: a ball of icosphere level 4 dropped on the floor, each step solved
// to 1e-9 m/s, run with each, ends within 1e-7 m of the other at every
// point, every step converged. (The runs must differ somewhere, in the
// last bits: otherwise the scalar loop was not what the second ran.)
static void test_implicit_products_agree(void) {
    if (!implicit_has_avx2()) {
        printf("test_threads: no AVX2 and FMA here: the implicit product's check skipped\n");
        return;
    }
    psb_world *w[2];
    int id[2];
    if (!twin_drops(4, material(2000.0, 1.0, 100.0), (psb_vec3){0.5, 0, 0}, 1e-9, w, id)) {
        return;
    }
    body_implicit_scalar_product(world_body(w[1], id[1])); // the second runs the scalar one
    const int n = psb_body_point_count(w[0], id[0]);
    double farthest = 0.0;
    bool differ = false;
    for (int step = 0; step < 90; step++) {
        for (int k = 0; k < 2; k++) {
            CHECK(psb_world_step(w[k]) == 0, "blow-up: %s", psb_world_last_event(w[k]));
            CHECK(psb_body_solver_report(w[k], id[k]).converged,
                  "step %d with the %s product: not converged", step, k ? "scalar" : "AVX2");
        }
        const psb_vec3 *a = psb_body_positions(w[0], id[0]);
        const psb_vec3 *b = psb_body_positions(w[1], id[1]);
        for (int i = 0; i < n; i++) {
            const double d =
                sqrt((a[i].x - b[i].x) * (a[i].x - b[i].x) + (a[i].y - b[i].y) * (a[i].y - b[i].y) +
                     (a[i].z - b[i].z) * (a[i].z - b[i].z));
            farthest = fmax(farthest, d);
            differ = differ || d != 0.0;
        }
    }
    CHECK(farthest < 1e-7, "AVX2 and scalar products: points %.3g m apart", farthest);
    CHECK(differ, "the AVX2 and scalar runs gave the same bits: the scalar product did not run");
    printf("test_threads: implicit products, AVX2 against scalar: %.3g m apart at most\n",
           farthest);
    psb_world_destroy(w[0]);
    psb_world_destroy(w[1]);
}

// The springs' slot loop (implicit_springs.c) in its AVX2 and baseline
// copies: the same arithmetic without contraction, so a drop that runs
// each ends at the same bits, step after step.
static void test_implicit_springs_agree(void) {
    if (!implicit_has_avx2()) {
        printf("test_threads: no AVX2 and FMA here: the springs' loops' check skipped\n");
        return;
    }
    psb_world *w[2];
    int id[2];
    // kd 5: the damping's part of every slot's force and block counts too
    if (!twin_drops(3, material(500.0, 5.0, 50.0), (psb_vec3){0.5, -1.0, 0},
                    psb_default_params().solver_tol, w, id)) {
        return;
    }
    body_implicit_baseline_springs(world_body(w[1], id[1]));
    const int n = psb_body_point_count(w[0], id[0]);
    int first_differ = -1, newton = 0;
    for (int step = 0; step < 90 && first_differ < 0; step++) {
        for (int k = 0; k < 2; k++) {
            CHECK(psb_world_step(w[k]) == 0, "blow-up: %s", psb_world_last_event(w[k]));
        }
        newton += psb_body_solver_report(w[0], id[0]).newton;
        const psb_vec3 *a = psb_body_positions(w[0], id[0]);
        const psb_vec3 *b = psb_body_positions(w[1], id[1]);
        if (memcmp(a, b, (size_t)n * sizeof *a) != 0) {
            first_differ = step;
        }
    }
    CHECK(first_differ < 0, "the AVX2 and baseline springs' loops differ from step %d",
          first_differ);
    CHECK(newton > 0, "the drop took no Newton step: nothing was compared");
    if (first_differ < 0) {
        printf("test_threads: the springs' loops, AVX2 against baseline: the same bits over 90 "
               "steps (%d Newton steps)\n",
               newton);
    }
    psb_world_destroy(w[0]);
    psb_world_destroy(w[1]);
}

int main(void) {
    test_fans();
    test_grouped_fans();
    test_regular_blocks();
    test_sweep_matches_plain(big_damping[BIG_DAMPED], true);
    test_sweep_matches_plain(big_damping[BIG_UNDAMPED], true);
    test_sweep_matches_plain(big_damping[BIG_UNDAMPED], false);
    test_kernels_agree();
    test_thread_counts(PSB_SYMPLECTIC_EULER, big_damping[BIG_DAMPED]);
    test_thread_counts(PSB_SYMPLECTIC_EULER, big_damping[BIG_UNDAMPED]);
    test_thread_counts(PSB_VERLET, big_damping[BIG_DAMPED]);
    test_thread_counts(PSB_VERLET, big_damping[BIG_UNDAMPED]);
    test_thread_counts(PSB_RK4, big_damping[BIG_DAMPED]);
    test_thread_counts(PSB_HEUN, big_damping[BIG_UNDAMPED]);
    test_thread_counts(PSB_EULER, big_damping[BIG_DAMPED]);
    test_extras_threads(PSB_SYMPLECTIC_EULER);
    test_extras_threads(PSB_RK4);
    test_small_bodies();
    test_threaded_blowup();
    test_implicit_products_agree();
    test_implicit_springs_agree();
    return check_done("test_threads");
}
