// The default material of loaded meshes (psb_mesh_default_material): the
// formula against a hand computation on a cube, its independence of the
// mesh's resolution and orientation about the vertical, how it scales with
// size, mass and gravity, what it does to a body (an icosphere settles at
// about the design strain), and its refusals.
#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

#include <math.h>
#include <string.h>

static const double G = 9.81;

// The unit cube (half size 0.5), each face split into n x n squares of two
// triangles: V0 = 1 m³, S = 6 m², the footprint (top or bottom face) 1 m²,
// R = sqrt(3)/2 m (a corner), and sum L0² = 24 m² at any n (each triangle has
// two sides 1/n and a diagonal sqrt(2)/n: 4/n² m², 12 n² of them, each edge
// in two).
static void test_cube_by_hand(void) {
    psb_error err = {0};
    for (int n = 1; n <= 4; n *= 2) {
        psb_mesh cube;
        CHECK(psb_mesh_box(&cube, n, (psb_vec3){0.5, 0.5, 0.5}, &err) == PSB_OK, "%s", err.message);
        psb_mesh_material m;
        const double mass = 2.0;
        CHECK(psb_mesh_default_material(&cube, mass, G, &m, &err) == PSB_OK, "%s", err.message);
        CHECK_CLOSE(m.rest_volume, 1.0, 1e-12);
        CHECK_CLOSE(m.area, 6.0, 1e-12);
        CHECK_CLOSE(m.footprint, 1.0, 1e-12);
        CHECK_CLOSE(m.radius, sqrt(3.0) / 2.0, 1e-12);
        CHECK_CLOSE(m.edge_length_sq, 24.0, 1e-12);
        // P = K m g / A_down; nRT = P V0; ks = P R S / (e sum L0²).
        const double pressure = PSB_MESH_WEIGHT_MULTIPLE * mass * G / 1.0;
        CHECK_CLOSE(m.pressure, pressure, 1e-12);
        CHECK_CLOSE(m.gas_nrt, pressure * 1.0, 1e-12);
        CHECK_CLOSE(m.spring_k,
                    pressure * (sqrt(3.0) / 2.0) * 6.0 / (PSB_MESH_DESIGN_STRAIN * 24.0), 1e-12);
        psb_mesh_free(&cube);
    }
    // With the constants as they are (K = 40, e = 0.005), 1 kg: P = 392.4 Pa,
    // nRT = 392.4 J, ks = 392.4 * 0.8660 * 6 / (0.005 * 24) = 16991 N/m.
    psb_mesh cube;
    CHECK(psb_mesh_box(&cube, 1, (psb_vec3){0.5, 0.5, 0.5}, &err) == PSB_OK, "%s", err.message);
    psb_mesh_material m;
    CHECK(psb_mesh_default_material(&cube, 1.0, G, &m, &err) == PSB_OK, "%s", err.message);
    CHECK(PSB_MESH_WEIGHT_MULTIPLE == 40.0 && PSB_MESH_DESIGN_STRAIN == 0.005,
          "the rule's constants changed: update this check, the README and "
          "scripts/loaded_material.sh's table");
    CHECK_CLOSE(m.gas_nrt, 392.4, 1e-12);
    CHECK_CLOSE(m.spring_k, 392.4 * sqrt(3.0) / 2.0 * 6.0 / 0.12, 1e-12);
    psb_mesh_free(&cube);
}

// A box of half sizes (a, b, c) lying two ways: the footprint is the face
// on the floor, so a flat box gets less pressure than a tall one of the same
// volume; turning it about y changes nothing.
static void test_box_footprint(void) {
    psb_error err = {0};
    psb_mesh flat, tall, turned;
    CHECK(psb_mesh_box(&flat, 2, (psb_vec3){0.4, 0.1, 0.2}, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_box(&tall, 2, (psb_vec3){0.1, 0.4, 0.2}, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_box(&turned, 2, (psb_vec3){0.2, 0.1, 0.4}, &err) == PSB_OK, "%s", err.message);
    psb_mesh_material f, t, u;
    CHECK(psb_mesh_default_material(&flat, 1.0, G, &f, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_default_material(&tall, 1.0, G, &t, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_default_material(&turned, 1.0, G, &u, &err) == PSB_OK, "%s", err.message);
    CHECK_CLOSE(f.footprint, 0.8 * 0.4, 1e-12);
    CHECK_CLOSE(t.footprint, 0.2 * 0.4, 1e-12);
    CHECK_CLOSE(f.pressure * f.footprint, PSB_MESH_WEIGHT_MULTIPLE * G, 1e-12);
    CHECK_CLOSE(t.pressure / f.pressure, 4.0, 1e-12);
    CHECK_CLOSE(u.gas_nrt, f.gas_nrt, 1e-12);
    CHECK_CLOSE(u.spring_k, f.spring_k, 1e-12);
    psb_mesh_free(&flat);
    psb_mesh_free(&tall);
    psb_mesh_free(&turned);
}

// Scaling: a body L times larger at the same mass has P / L², nRT L, ks / L
// (the tension P R / 2 falls as 1 / L); m times heavier, both times m; g's
// sign is ignored and g = 0 stands for PSB_MESH_REFERENCE_GRAVITY.
static void test_scaling(void) {
    psb_error err = {0};
    psb_mesh small, large;
    CHECK(psb_mesh_icosphere(&small, 2, 0.5, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_icosphere(&large, 2, 1.5, &err) == PSB_OK, "%s", err.message);
    psb_mesh_material s, l, heavy, up, none;
    CHECK(psb_mesh_default_material(&small, 1.0, G, &s, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_default_material(&large, 1.0, G, &l, &err) == PSB_OK, "%s", err.message);
    CHECK_CLOSE(l.pressure, s.pressure / 9.0, 1e-12);
    CHECK_CLOSE(l.gas_nrt, 3.0 * s.gas_nrt, 1e-12);
    CHECK_CLOSE(l.spring_k, s.spring_k / 3.0, 1e-12);
    CHECK(psb_mesh_default_material(&small, 4.0, G, &heavy, &err) == PSB_OK, "%s", err.message);
    CHECK_CLOSE(heavy.gas_nrt, 4.0 * s.gas_nrt, 1e-12);
    CHECK_CLOSE(heavy.spring_k, 4.0 * s.spring_k, 1e-12);
    CHECK(psb_mesh_default_material(&small, 1.0, -G, &up, &err) == PSB_OK, "%s", err.message);
    CHECK(up.gas_nrt == s.gas_nrt && up.spring_k == s.spring_k, "gravity's sign changed it");
    CHECK(psb_mesh_default_material(&small, 1.0, 0.0, &none, &err) == PSB_OK, "%s", err.message);
    CHECK_CLOSE(none.gas_nrt, s.gas_nrt * PSB_MESH_REFERENCE_GRAVITY / G, 1e-12);
    // On a sphere R S = 3 V (nearly, for the polyhedron), so ks e sum L0² is
    // about 3 nRT: DESIGN.md's shell equilibrium at the stretch 1 + e.
    CHECK(fabs(s.spring_k * PSB_MESH_DESIGN_STRAIN * s.edge_length_sq / (3.0 * s.gas_nrt) - 1.0) <
              0.1,
          "icosphere: ks e sum L0² = %g, 3 nRT = %g",
          s.spring_k * PSB_MESH_DESIGN_STRAIN * s.edge_length_sq, 3.0 * s.gas_nrt);
    psb_mesh_free(&small);
    psb_mesh_free(&large);
}

// A body with the rule's material, no gravity: an icosphere comes to rest
// stretched by the design strain within 3% (V / V0 = (1 + e)³; level 2 gives
// 0.00499 for 0.005).
static void test_body_settles(void) {
    psb_error err = {0};
    psb_mesh sphere;
    CHECK(psb_mesh_icosphere(&sphere, 2, 0.5, &err) == PSB_OK, "%s", err.message);
    psb_mesh_material m;
    CHECK(psb_mesh_default_material(&sphere, 1.0, G, &m, &err) == PSB_OK, "%s", err.message);
    psb_params params = psb_default_params();
    params.gravity = 0.0;
    params.floor = false;
    params.integrator = PSB_IMPLICIT;
    params.substeps = 1;
    params.solver_tol = 1e-6;
    psb_world *world = psb_world_create(&params, &err);
    CHECK(world != NULL, "%s", err.message);
    if (!world) {
        psb_mesh_free(&sphere);
        return;
    }
    psb_body_def def = psb_mesh_body_def(&sphere);
    def.params.spring_k = m.spring_k;
    def.params.gas_nrt = m.gas_nrt;
    def.params.spring_damping = 1.0;
    CHECK(psb_world_add_body(world, &def, &err) == 0, "%s", err.message);
    for (int k = 0; k < 120; k++) {
        psb_world_step(world);
    }
    const psb_body_state st = psb_body_measure(world, 0);
    const double stretch = cbrt(st.volume / st.rest_volume) - 1.0;
    CHECK(fabs(stretch / PSB_MESH_DESIGN_STRAIN - 1.0) < 0.03,
          "the sphere settled stretched by %g, designed for %g", stretch, PSB_MESH_DESIGN_STRAIN);
    CHECK(st.blowups == 0, "%d blow-ups", st.blowups);
    psb_world_destroy(world);
    psb_mesh_free(&sphere);
}

static void test_refusals(void) {
    psb_error err = {0};
    psb_mesh_material m, untouched;
    memset(&untouched, 0x5a, sizeof untouched);
    m = untouched;
    CHECK(psb_mesh_default_material(NULL, 1.0, G, &m, &err) == PSB_ERR_INVALID, "NULL mesh");
    psb_mesh ring;
    CHECK(psb_mesh_ring(&ring, 12, 0.5, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_default_material(&ring, 1.0, G, &m, &err) == PSB_ERR_INVALID, "a ring");
    CHECK(strstr(err.message, "shell") != NULL, "message: %s", err.message);
    psb_mesh_free(&ring);
    psb_mesh cube;
    CHECK(psb_mesh_box(&cube, 1, (psb_vec3){0.5, 0.5, 0.5}, &err) == PSB_OK, "%s", err.message);
    CHECK(psb_mesh_default_material(&cube, 0.0, G, &m, &err) == PSB_ERR_INVALID, "mass 0");
    CHECK(strstr(err.message, "mass") != NULL, "message: %s", err.message);
    CHECK(psb_mesh_default_material(&cube, 1.0, NAN, &m, &err) == PSB_ERR_INVALID, "gravity NaN");
    // Flattened to a plane: no volume, no footprint.
    for (int i = 0; i < cube.point_count; i++) {
        cube.points[i].y = 0.0;
    }
    CHECK(psb_mesh_default_material(&cube, 1.0, G, &m, &err) == PSB_ERR_TOPOLOGY, "a flat mesh");
    CHECK(strstr(err.message, "volume") != NULL, "message: %s", err.message);
    CHECK(memcmp(&m, &untouched, sizeof m) == 0, "a refusal wrote *out");
    psb_mesh_free(&cube);
}

int main(void) {
    test_cube_by_hand();
    test_box_footprint();
    test_scaling();
    test_body_settles();
    test_refusals();
    return check_done("test_material");
}
