// A ring's own winding numbers by rays (ring_rays.c): internal to the core.
#ifndef PSB_RING_RAYS_H
#define PSB_RING_RAYS_H

#include <stdbool.h>

#include "internal.h"

typedef struct ring_rays ring_rays;

/// Room for a ring of this many edges (its points), made when the body's
/// contact state is; NULL when an allocation failed.
ring_rays *ring_rays_create(int edges);
void ring_rays_destroy(ring_rays *rays);
/// Files ring b's edges (edge e from internal point corner[2 e] to corner[2 e
/// + 1]; the array must outlive the filing) by where they are now, each in
/// every column (of x) and row (of y) its span meets, grown by a bin each
/// way. False where the points are not all finite: ring_rays_own_winding
/// then answers false.
bool ring_rays_file(ring_rays *rays, const int *corner, const psb_body *b);
/// The filing is out of date: ring_rays_own_winding answers false until
/// the next.
void ring_rays_forget(ring_rays *rays);
/// Whether the ring is filed (and not forgotten since).
bool ring_rays_filed(const ring_rays *rays);
/// Marks ring b's edges first to first + count - 1 (on round the ring) as
/// perhaps about to move out of the bins they are filed in: checked one by
/// one from now on. An axis with too many is filed again first.
void ring_rays_loosen(ring_rays *rays, const psb_body *b, int first, int count);
/// The same edges, after their move: those still in their bins are no more
/// checked one by one.
void ring_rays_settle(ring_rays *rays, const psb_body *b, int first, int count);
/// The winding number of the rest of ring b about its own point k, put at
/// p: the angles at p of the edges that do not have k, over 2 pi, less the
/// fraction of a small circle round p that k's corner puts inside (the angle
/// from the direction to its next point counterclockwise round to the one
/// to its previous, over 2 pi: a counterclockwise ring's inside is on its
/// left). A whole number where p is on no other edge: 0 on a
/// counterclockwise ring that does not cross itself, +1 where another part
/// of it encloses p, -1 where p has passed through an edge into a loop
/// turned inside out. Where p is on another edge, that edge counts 0 (as in
/// psb-check-contact): p is half-way between its sides. Found with one ray
/// (ring_rays.c); false where k is on a neighbour, or the ring is not filed.
bool ring_rays_own_winding(const ring_rays *rays, const psb_body *b, int k, psb_vec3 p, double *s);

#endif
