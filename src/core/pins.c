// Pinned points: infinitely heavy points held where they were pinned. A body
// keeps a short list of them (internal index and position); the step puts
// them back after every sub-step, so whatever the integrator or a collision
// did to them, they never move.
#include <stdlib.h>

#include "internal.h"

int body_pin_slot(const psb_body *b, int k) {
    for (int s = 0; s < b->pin_count; s++) {
        if (b->pin_index[s] == k) {
            return s;
        }
    }
    return -1;
}

void body_hold_pins(psb_body *b, int i0, int i1) {
    for (int s = 0; s < b->pin_count; s++) {
        const int k = b->pin_index[s];
        if (k < i0 || k >= i1) {
            continue;
        }
        b->x[0][k] = b->pin_pos[s].x;
        b->x[1][k] = b->pin_pos[s].y;
        b->x[2][k] = b->pin_pos[s].z;
        b->v[0][k] = b->v[1][k] = b->v[2][k] = 0.0;
    }
}

psb_status psb_body_pin(psb_world *w, int body, int point, psb_vec3 position, psb_error *err) {
    psb_body *b = world_body(w, body);
    body_check_point(b, point);
    if (!vec_finite(position)) {
        return psb_error_set(err, PSB_ERR_INVALID, "pin position: expected finite coordinates");
    }
    if (b->kind == PSB_RING) {
        position.z = 0.0;
    }
    const int k = b->rank[point];
    int slot = body_pin_slot(b, k);
    if (slot < 0) {
        if (b->pin_count == b->pin_capacity) {
            const int capacity = b->pin_capacity ? 2 * b->pin_capacity : 8;
            int *index = realloc(b->pin_index, (size_t)capacity * sizeof *index);
            if (!index) {
                return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d pins", capacity);
            }
            b->pin_index = index;
            psb_vec3 *pos = realloc(b->pin_pos, (size_t)capacity * sizeof *pos);
            if (!pos) {
                return psb_error_set(err, PSB_ERR_NOMEM, "out of memory for %d pins", capacity);
            }
            b->pin_pos = pos;
            b->pin_capacity = capacity;
        }
        slot = b->pin_count++;
        b->pin_index[slot] = k;
    }
    b->pin_pos[slot] = position;
    b->inv_mass[k] = 0.0;
    body_note_masses(b);
    body_hold_pins(b, k, k + 1);
    body_publish(b, point, point + 1);
    // The guard measures a step's motion from its start: the pin's jump is
    // not the step's.
    for (int c = 0; c < 3; c++) {
        b->x_good[c][k] = b->x[c][k];
    }
    return PSB_OK;
}

void psb_body_unpin(psb_world *w, int body, int point) {
    psb_body *b = world_body(w, body);
    body_check_point(b, point);
    const int k = b->rank[point];
    const int slot = body_pin_slot(b, k);
    if (slot < 0) {
        return;
    }
    b->pin_count--;
    b->pin_index[slot] = b->pin_index[b->pin_count];
    b->pin_pos[slot] = b->pin_pos[b->pin_count];
    b->inv_mass[k] = 1.0 / b->mass[k];
    body_note_masses(b);
}

bool psb_body_is_pinned(const psb_world *w, int body, int point) {
    const psb_body *b = world_body(w, body);
    body_check_point(b, point);
    return body_pin_slot(b, b->rank[point]) >= 0;
}

int psb_body_pin_count(const psb_world *w, int body) {
    return world_body(w, body)->pin_count;
}
