// Pinned points: infinitely heavy points held where they were pinned. A body
// keeps a short list of them (internal index and position); the step puts
// them back after every sub-step, so whatever the integrator or a collision
// did to them, they never move. (psb_body_pin and its kin, which make and
// free pins, are in body.c.)
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
