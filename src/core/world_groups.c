// Contact inside the solve, the world's part (docs/contact.md): each
// solved sub-step, the links between bodies (contact.c), the groups they
// join (union-find), and each group's step (implicit.c), groups side by
// side on the threads. world.c runs the guard after.
#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

bool world_solves_contact(const psb_world *w) {
    const psb_params *p = &w->params;
    return p->contact_solve && p->body_contact && psb_integrator_is_implicit(p->integrator) &&
           (w->body_count >= 2 || world_touches_itself(w));
}

bool world_reserve_groups(psb_world *w, int bodies, int links) {
    if (!implicit_group_reserve(w, bodies)) {
        return false;
    }
    int *group_of = realloc(w->group_of, (size_t)bodies * sizeof *group_of);
    if (group_of) {
        w->group_of = group_of;
    }
    int *index = realloc(w->group_index, (size_t)bodies * sizeof *index);
    if (index) {
        w->group_index = index;
    }
    int *start = realloc(w->group_start, 2 * ((size_t)bodies + 1) * sizeof *start);
    if (start) {
        w->group_start = start;
    }
    if (!index || !start) {
        return false;
    }
    int *member = realloc(w->group_member, (size_t)bodies * sizeof *member);
    if (member) {
        w->group_member = member;
    }
    if (!group_of || !member) {
        return false;
    }
    if (links > w->link_capacity) {
        solve_link *all = realloc(w->links, (size_t)links * sizeof *all);
        if (all) {
            w->links = all;
        }
        int *runs = realloc(w->group_link, (size_t)links * sizeof *runs);
        if (runs) {
            w->group_link = runs;
        }
        unsigned char *acting = realloc(w->link_acting, (size_t)links);
        if (acting) {
            w->link_acting = acting;
        }
        if (!all || !runs || !acting) {
            return false;
        }
        w->link_capacity = links;
    }
    return true;
}

// The root of body k's set (union-find, halving the paths).
static int root_of(int *parent, int k) {
    while (parent[k] != k) {
        parent[k] = parent[parent[k]];
        k = parent[k];
    }
    return k;
}

#ifdef _OPENMP
// One sub-step of h from t of body k alone, shared by `threads` threads;
// with its links to itself when link_count > 0.
static void substep_body_threaded(psb_world *w, int k, const int *link, int link_count, int threads,
                                  double t, double h) {
    psb_body *b = w->bodies[k];
#pragma omp parallel num_threads(threads)
    {
        const body_part part =
            body_share(b, omp_get_thread_num(), omp_get_num_threads(), w->barrier);
        if (link_count > 0) {
            implicit_team_step(w, k, &part, link, link_count, t, h);
        } else {
            body_integrate(b, w, &part, t, h);
        }
    }
}
#endif

// The groups of this sub-step from the links (union-find): each group's
// bodies in increasing index as one run of group_member, its links in the
// order found as one run of group_link, group g's runs starting at
// group_start[2 g] and group_start[2 g + 1] (the next group's starts end
// them); groups in order of their first body. Returns how many.
static int make_groups(psb_world *w) {
    int *root = w->group_of, *start = w->group_start;
    for (int k = 0; k < w->body_count; k++) {
        root[k] = k;
    }
    for (int l = 0; l < w->link_count; l++) {
        const int ra = root_of(root, w->links[l].a), rb = root_of(root, w->links[l].b);
        root[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
    int groups = 0;
    for (int k = 0; k < w->body_count; k++) {
        root[k] = root_of(root, k); // a root is its group's first body
        if (root[k] == k) {
            start[2 * groups] = 0;     // members, counted
            start[2 * groups + 1] = 0; // links, counted
            w->group_index[k] = groups++;
        }
        start[2 * w->group_index[root[k]]]++;
    }
    for (int l = 0; l < w->link_count; l++) {
        start[2 * w->group_index[root[w->links[l].a]] + 1]++;
    }
    // Counts into starts, then fill (each start moving to its end).
    int members = 0, links = 0;
    for (int g = 0; g < groups; g++) {
        const int m = start[2 * g], n = start[2 * g + 1];
        start[2 * g] = members;
        start[2 * g + 1] = links;
        members += m;
        links += n;
    }
    start[2 * groups] = members;
    start[2 * groups + 1] = links;
    for (int k = 0; k < w->body_count; k++) {
        w->group_member[start[2 * w->group_index[root[k]]]++] = k;
    }
    for (int l = 0; l < w->link_count; l++) {
        w->group_link[start[2 * w->group_index[root[w->links[l].a]] + 1]++] = l;
    }
    for (int g = groups; g > 0; g--) { // back to the starts
        start[2 * g] = start[2 * g - 2];
        start[2 * g + 1] = start[2 * g - 1];
    }
    start[0] = start[1] = 0;
    return groups;
}

// The threads group g shares between its bodies' work (1: it runs on one
// thread, beside the other groups): a large body alone, with or without
// links to itself, as for its own step;
// a group of bodies with 4096 points and up between them, each body's work
// on one of them (not while profiling: the stage timers are shared).
static int group_threads(const psb_world *w, int g) {
#ifdef _OPENMP
    const int first = w->group_start[2 * g], count = w->group_start[2 * g + 2] - first;
    if (count == 1) {
        return world_body_threads(w, w->bodies[w->group_member[first]]);
    }
    long points = 0;
    for (int k = 0; k < count; k++) {
        points += w->bodies[w->group_member[first + k]]->n;
    }
    const int threads = w->params.threads < count ? w->params.threads : count;
    return points >= PARALLEL_MIN_POINTS && !w->profiling ? threads : 1;
#else
    (void)w;
    (void)g;
    return 1;
#endif
}

// One sub-step of h from t of group g on `threads` threads: a body alone
// without links as in its own step, bodies joined by links (or a body with
// links to itself) solved together; a body alone with links to itself on
// more than one thread as a team, each thread on its part's points.
static void step_group(psb_world *w, int g, double t, double h, int threads) {
    const int *start = w->group_start;
    const int first = start[2 * g], count = start[2 * g + 2] - first;
    const int *link = w->group_link + start[2 * g + 1];
    const int link_count = start[2 * g + 3] - start[2 * g + 1];
    if ((count > 1 || link_count > 0) &&
        implicit_group_dozes(w, w->group_member + first, count, t, h)) {
        return;
    }
#ifdef _OPENMP
    if (count == 1 && link_count == 0 && threads > 1 &&
        body_implicit_sleep(w->bodies[w->group_member[first]], w, t, h)) {
        return;
    }
    if (count == 1 && threads > 1) {
        substep_body_threaded(w, w->group_member[first], link, link_count, threads, t, h);
        return;
    }
#endif
    if (count == 1 && link_count == 0) {
        psb_body *b = w->bodies[w->group_member[first]];
        const body_part whole = body_whole(b);
        body_integrate(b, w, &whole, t, h);
        return;
    }
    implicit_group_step(w, w->group_member + first, count, first, link, link_count, t, h, threads);
}

// The end of the sub-step of h just solved (ending at t): Coulomb friction
// on its links that had none in the solve, and the rings' links' forces and
// the 3D links' friction stretches kept for the next (contact's time); then
// which bodies keep still (body_implicit_note_still).
static void end_substep(psb_world *w, double t, double h) {
    const double from = w->profiling ? profile_now() : 0.0;
    if (!w->reuse_search) {
        contact_link_friction(w, h);
        contact_keep_link_forces(w);
    }
    if (w->profiling) {
        w->profile.contact += profile_now() - from;
    }
    for (int k = 0; k < w->body_count; k++) {
        body_implicit_note_still(w->bodies[k], w, t, h);
    }
}

// Every body's sub-steps of one world step with contact inside the solve:
// at the start of each sub-step the links between bodies are found, the
// bodies they join put into groups (union-find), and each group solved in
// one G (implicit.c); then the guard as for any step.
void world_step_together(psb_world *w) {
    const psb_params *p = &w->params;
    const double h = p->dt / p->substeps;
    for (int k = 0; k < w->body_count; k++) {
        w->bodies[k]->solver = (psb_solver_report){0, 0, 0.0, 0.0, true, 0};
    }
    for (int s = 0; s < p->substeps; s++) {
        const double t = w->time + s * h;
        const double found_from = w->profiling ? profile_now() : 0.0;
        // (At rest, the last step's links: contact_begin_step.)
        if (!w->reuse_search && !contact_find_links(w, h)) {
            w->list_full = true;
            snprintf(w->last_event, sizeof w->last_event,
                     "more links between bodies at t = %.4g s than memory holds: the rest were "
                     "left out of the solve",
                     t);
        }
        const int groups = make_groups(w);
        if (w->profiling) {
            w->profile.contact += profile_now() - found_from; // finding the links is contact's
        }
        // The large groups first, each on all the threads; then the rest
        // side by side, one thread each. Groups share no body and no link:
        // the same bits either way.
        int left = 0;
        for (int g = 0; g < groups; g++) {
            const int threads = group_threads(w, g);
            if (threads > 1) {
                step_group(w, g, t, h, threads);
            } else {
                left++;
            }
        }
#ifdef _OPENMP
        if (left > 1 && p->threads > 1 && !w->profiling) {
#pragma omp parallel for num_threads(p->threads) schedule(dynamic)
            for (int g = 0; g < groups; g++) {
                if (group_threads(w, g) == 1) {
                    step_group(w, g, t, h, 1);
                }
            }
            end_substep(w, t + h, h);
            continue;
        }
#endif
        for (int g = 0; g < groups; g++) {
            if (left > 0 && group_threads(w, g) == 1) {
                step_group(w, g, t, h, 1);
            }
        }
        end_substep(w, t + h, h);
    }
}
