// Parameters and definitions: the defaults are the documented ones and
// valid; every invalid value is refused with PSB_ERR_INVALID and a message
// that names the field; a refused change leaves what was there before.
#include <math.h>
#include <string.h>

#include "check.h"
#include <psb/psb.h>
#include <psb/psb_mesh.h>

#define NAN_ (nan(""))
#define INF_ (HUGE_VAL)

static bool same_body_params(const psb_body_params *a, const psb_body_params *b) {
    return a->mass == b->mass && a->spring_k == b->spring_k &&
           a->spring_damping == b->spring_damping && a->gas_nrt == b->gas_nrt &&
           a->outside_pressure == b->outside_pressure && a->inflate_time == b->inflate_time &&
           a->mass_by_area == b->mass_by_area;
}

static bool same_vec(psb_vec3 a, psb_vec3 b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

static bool same_params(const psb_params *a, const psb_params *b) {
    return a->dt == b->dt && a->substeps == b->substeps && a->integrator == b->integrator &&
           a->gravity == b->gravity && a->gravity_waits_for_gas == b->gravity_waits_for_gas &&
           a->floor == b->floor && a->floor_y == b->floor_y && a->walls == b->walls &&
           same_vec(a->walls_min, b->walls_min) && same_vec(a->walls_max, b->walls_max) &&
           a->restitution == b->restitution && a->friction == b->friction &&
           a->blowup_size == b->blowup_size && a->solver_tol == b->solver_tol &&
           a->solver_iterations == b->solver_iterations && same_body_params(&a->body, &b->body);
}

static void test_defaults(void) {
    const psb_params p = psb_default_params();
    psb_error err;
    memset(&err, 0x55, sizeof err);
    CHECK(psb_params_validate(&p, &err) == PSB_OK, "defaults refused: %s", err.message);
    CHECK(psb_params_validate(&p, NULL) == PSB_OK, "defaults refused with err NULL");
    // As documented in psb.h.
    CHECK(fabs(p.dt - 1.0 / 60.0) < 1e-15, "default dt %g", p.dt);
    CHECK(p.substeps == 20, "default substeps %d", p.substeps);
    CHECK(p.integrator == PSB_SYMPLECTIC_EULER, "default integrator %s",
          psb_integrator_name(p.integrator));
    CHECK(p.gravity == 9.81, "default gravity %g", p.gravity);
    CHECK(p.floor && p.floor_y == 0.0, "default floor %d at %g", p.floor, p.floor_y);
    CHECK(p.restitution == 0.3, "default restitution %g", p.restitution);
    CHECK(p.friction == 2.0, "default friction %g", p.friction);
    CHECK(p.blowup_size > 0.0, "default blowup_size %g", p.blowup_size);

    const psb_body_params b = psb_default_body_params();
    CHECK(psb_body_params_validate(&b, &err) == PSB_OK, "body defaults refused: %s", err.message);
    CHECK(same_body_params(&b, &p.body),
          "psb_default_params().body differs from the body defaults");
    CHECK(b.mass == 1.0, "default mass %g", b.mass);
    CHECK(b.gas_nrt == psb_default_gas_nrt(PSB_SHELL), "default gas_nrt %g", b.gas_nrt);
    CHECK(b.outside_pressure == 0.0 && b.inflate_time == 0.0 && !b.mass_by_area,
          "default P0 %g, inflate_time %g, mass_by_area %d", b.outside_pressure, b.inflate_time,
          b.mass_by_area);
    CHECK(b.spring_k > 0.0 && b.spring_damping >= 0.0, "default ks %g kd %g", b.spring_k,
          b.spring_damping);
    CHECK(psb_default_gas_nrt(PSB_RING) > 0.0, "default ring gas %g",
          psb_default_gas_nrt(PSB_RING));

    const psb_body_def def = psb_default_body_def();
    CHECK(same_body_params(&def.params, &b), "psb_default_body_def() material differs");
    CHECK(def.points == NULL && def.rest_points == NULL && def.point_count == 0,
          "default body def has geometry");
    CHECK(same_vec(def.offset, (psb_vec3){0, 0, 0}) && same_vec(def.velocity, (psb_vec3){0, 0, 0}),
          "default body def offset/velocity not zero");
}

static void test_integrator_names(void) {
    const char *names[PSB_INTEGRATOR_COUNT] = {"euler",  "symplectic", "heun", "rk4",
                                               "verlet", "implicit",   "bdf2"};
    for (int i = 0; i < PSB_INTEGRATOR_COUNT; i++) {
        CHECK(strcmp(psb_integrator_name((psb_integrator)i), names[i]) == 0,
              "integrator %d is named %s, expected %s", i, psb_integrator_name((psb_integrator)i),
              names[i]);
        psb_integrator out = PSB_INTEGRATOR_COUNT;
        CHECK(psb_integrator_parse(names[i], &out) && out == (psb_integrator)i, "parse(%s) gave %d",
              names[i], (int)out);
        const bool solved = i == PSB_IMPLICIT || i == PSB_BDF2;
        CHECK(psb_integrator_is_implicit((psb_integrator)i) == solved, "%s: is_implicit %d",
              names[i], (int)psb_integrator_is_implicit((psb_integrator)i));
    }
    CHECK(strcmp(psb_integrator_name(PSB_INTEGRATOR_COUNT), "?") == 0, "name of COUNT is %s",
          psb_integrator_name(PSB_INTEGRATOR_COUNT));
    CHECK(strcmp(psb_integrator_name((psb_integrator)-1), "?") == 0, "name of -1 is %s",
          psb_integrator_name((psb_integrator)-1));
    psb_integrator out = PSB_RK4;
    CHECK(!psb_integrator_parse("rk5", &out) && out == PSB_RK4, "parse(rk5) accepted");
    CHECK(!psb_integrator_parse("", &out), "parse(\"\") accepted");
    CHECK(!psb_integrator_parse("RK4 ", &out), "parse(\"RK4 \") accepted");
}

// One bad world parameter: refused by validate, by world_create and by
// world_set_params (which keeps the old ones), always naming `field`.
static void expect_bad_params(const psb_params *bad, const char *field, const char *what) {
    psb_error err;
    memset(&err, 0, sizeof err);
    const psb_status st = psb_params_validate(bad, &err);
    CHECK(st == PSB_ERR_INVALID, "%s: validate returned %d", what, (int)st);
    CHECK(err.status == PSB_ERR_INVALID, "%s: err.status %d", what, (int)err.status);
    CHECK(strstr(err.message, field) != NULL, "%s: message \"%s\" does not name %s", what,
          err.message, field);
    CHECK(psb_params_validate(bad, NULL) == PSB_ERR_INVALID, "%s: accepted with err NULL", what);

    memset(&err, 0, sizeof err);
    psb_world *w = psb_world_create(bad, &err);
    CHECK(w == NULL, "%s: world_create accepted it", what);
    psb_world_destroy(w);
    CHECK(strstr(err.message, field) != NULL, "%s: world_create message \"%s\" does not name %s",
          what, err.message, field);

    psb_params good = psb_default_params();
    good.dt = 0.01; // not the default, to see that it is kept
    good.gravity = 3.0;
    w = psb_world_create(&good, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (w) {
        memset(&err, 0, sizeof err);
        CHECK(psb_world_set_params(w, bad, &err) == PSB_ERR_INVALID,
              "%s: world_set_params accepted it", what);
        CHECK(strstr(err.message, field) != NULL, "%s: set_params message \"%s\" does not name %s",
              what, err.message, field);
        CHECK(same_params(psb_world_params(w), &good), "%s: refused params changed the world",
              what);
        // The world still steps.
        psb_world_step(w);
        CHECK(psb_world_step_count(w) == 1 && fabs(psb_world_time(w) - 0.01) < 1e-15,
              "%s: world time %g after one step", what, psb_world_time(w));
    }
    psb_world_destroy(w);
}

static void expect_bad_body_params(const psb_body_params *bad, const char *field,
                                   const char *what) {
    psb_error err;
    memset(&err, 0, sizeof err);
    CHECK(psb_body_params_validate(bad, &err) == PSB_ERR_INVALID, "%s: body validate accepted",
          what);
    CHECK(strstr(err.message, field) != NULL, "%s: message \"%s\" does not name %s", what,
          err.message, field);
    CHECK(psb_body_params_validate(bad, NULL) == PSB_ERR_INVALID, "%s: accepted with err NULL",
          what);

    // Nested in the world's parameters.
    psb_params p = psb_default_params();
    p.body = *bad;
    expect_bad_params(&p, field, what);

    // As a body definition's material, and as a change to a live body.
    psb_world *w = psb_world_create(&(psb_params){0}, NULL); // zero params are invalid
    CHECK(w == NULL, "all-zero params accepted");
    psb_params good = psb_default_params();
    w = psb_world_create(&good, &err);
    psb_mesh m;
    psb_mesh_icosphere(&m, 0, 0.5, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    def.params = *bad;
    memset(&err, 0, sizeof err);
    CHECK(psb_world_add_body(w, &def, &err) == -1, "%s: add_body accepted it", what);
    CHECK(strstr(err.message, field) != NULL, "%s: add_body message \"%s\" does not name %s", what,
          err.message, field);
    CHECK(psb_world_body_count(w) == 0, "%s: refused body was added", what);

    def.params = psb_default_body_params();
    def.params.mass = 2.5;
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    if (id == 0) {
        const psb_body_params before = *psb_body_get_params(w, id);
        const double m0 = psb_body_masses(w, id)[0];
        memset(&err, 0, sizeof err);
        CHECK(psb_body_set_params(w, id, bad, &err) == PSB_ERR_INVALID,
              "%s: body_set_params accepted it", what);
        CHECK(strstr(err.message, field) != NULL,
              "%s: body_set_params message \"%s\" does not name %s", what, err.message, field);
        CHECK(same_body_params(psb_body_get_params(w, id), &before),
              "%s: refused body params changed the body", what);
        CHECK(psb_body_masses(w, id)[0] == m0, "%s: refused body params changed the masses", what);
    }
    psb_mesh_free(&m);
    psb_world_destroy(w);
}

static void test_bad_world_params(void) {
    const double non_finite[2] = {NAN_, INF_};
    char what[96];
    for (int k = 0; k < 2; k++) {
        const double bad = non_finite[k];
        const char *tag = k ? "inf" : "nan";
        psb_params p;
#define BAD(field_expr, field_name)                                                                \
    do {                                                                                           \
        p = psb_default_params();                                                                  \
        field_expr;                                                                                \
        snprintf(what, sizeof what, "%s = %s", #field_expr, tag);                                  \
        expect_bad_params(&p, field_name, what);                                                   \
    } while (0)
        BAD(p.dt = bad, "dt");
        BAD(p.dt = -bad, "dt");
        BAD(p.gravity = bad, "gravity");
        BAD(p.gravity = -bad, "gravity");
        BAD(p.floor_y = bad, "floor_y");
        BAD(p.walls_min.x = bad, "walls_min");
        BAD(p.walls_min.z = -bad, "walls_min");
        BAD(p.walls_max.y = bad, "walls_max");
        BAD(p.restitution = bad, "restitution");
        BAD(p.friction = bad, "friction");
        BAD(p.blowup_size = bad, "blowup_size");
        BAD(p.solver_tol = bad, "solver_tol");
#undef BAD
    }
    psb_params p;
#define BAD(field_expr, field_name)                                                                \
    do {                                                                                           \
        p = psb_default_params();                                                                  \
        field_expr;                                                                                \
        expect_bad_params(&p, field_name, #field_expr);                                            \
    } while (0)
    BAD(p.dt = 0.0, "dt");
    BAD(p.dt = -0.01, "dt");
    BAD(p.substeps = 0, "substeps");
    BAD(p.substeps = -3, "substeps");
    BAD(p.substeps = 10001, "substeps");
    BAD(p.integrator = PSB_INTEGRATOR_COUNT, "integrator");
    BAD(p.integrator = (psb_integrator)-1, "integrator");
    BAD(p.restitution = -0.01, "restitution");
    BAD(p.restitution = 1.01, "restitution");
    BAD(p.friction = -1.0, "friction");
    BAD(p.blowup_size = 0.0, "blowup_size");
    BAD(p.blowup_size = -1.0, "blowup_size");
    BAD(p.solver_tol = 0.0, "solver_tol");
    BAD(p.solver_tol = -1e-3, "solver_tol");
    BAD(p.solver_iterations = 0, "solver_iterations");
    BAD(p.solver_iterations = 100001, "solver_iterations");
    // An empty walls box, when walls are on.
    BAD((p.walls = true, p.walls_min.x = 1.0, p.walls_max.x = 1.0), "walls");
    BAD((p.walls = true, p.walls_min.y = 2.0, p.walls_max.y = -2.0), "walls");
#undef BAD

    // The edges of the valid ranges are accepted.
    p = psb_default_params();
    p.substeps = 1;
    p.restitution = 0.0;
    p.friction = 0.0;
    p.gravity = 0.0;
    CHECK(psb_params_validate(&p, NULL) == PSB_OK, "substeps 1, e 0, mu 0, g 0 refused");
    p.substeps = 10000;
    p.restitution = 1.0;
    CHECK(psb_params_validate(&p, NULL) == PSB_OK, "substeps 10000, e 1 refused");
    p.solver_iterations = 1;
    CHECK(psb_params_validate(&p, NULL) == PSB_OK, "solver_iterations 1 refused");
    p.solver_iterations = 100000;
    CHECK(psb_params_validate(&p, NULL) == PSB_OK, "solver_iterations 100000 refused");
    for (int i = 0; i < PSB_INTEGRATOR_COUNT; i++) {
        p.integrator = (psb_integrator)i;
        CHECK(psb_params_validate(&p, NULL) == PSB_OK, "integrator %d refused", i);
    }
    // Walls off: their corners do not matter as long as they are finite.
    p = psb_default_params();
    p.walls = false;
    p.walls_min = (psb_vec3){1, 1, 1};
    p.walls_max = (psb_vec3){-1, -1, -1};
    CHECK(psb_params_validate(&p, NULL) == PSB_OK, "inverted walls refused while walls are off");
}

static void test_bad_body_params(void) {
    const double non_finite[2] = {NAN_, INF_};
    char what[96];
    psb_body_params b;
    for (int k = 0; k < 2; k++) {
        const double bad = non_finite[k];
        const char *tag = k ? "inf" : "nan";
#define BAD(field_expr, field_name)                                                                \
    do {                                                                                           \
        b = psb_default_body_params();                                                             \
        field_expr;                                                                                \
        snprintf(what, sizeof what, "%s = %s", #field_expr, tag);                                  \
        expect_bad_body_params(&b, field_name, what);                                              \
    } while (0)
        BAD(b.mass = bad, "mass");
        BAD(b.spring_k = bad, "spring_k");
        BAD(b.spring_damping = bad, "spring_damping");
        BAD(b.gas_nrt = bad, "gas_nrt");
        BAD(b.outside_pressure = bad, "outside_pressure");
        BAD(b.outside_pressure = -bad, "outside_pressure");
        BAD(b.inflate_time = bad, "inflate_time");
#undef BAD
    }
#define BAD(field_expr, field_name)                                                                \
    do {                                                                                           \
        b = psb_default_body_params();                                                             \
        field_expr;                                                                                \
        expect_bad_body_params(&b, field_name, #field_expr);                                       \
    } while (0)
    BAD(b.mass = 0.0, "mass");
    BAD(b.mass = -1.0, "mass");
    BAD(b.spring_k = -1.0, "spring_k");
    BAD(b.spring_damping = -0.5, "spring_damping");
    BAD(b.gas_nrt = -1.0, "gas_nrt");
    BAD(b.inflate_time = -1.0, "inflate_time");
#undef BAD

    // Zero is a real value for stiffness, damping, gas and inflation.
    b = psb_default_body_params();
    b.spring_k = 0.0;
    b.spring_damping = 0.0;
    b.gas_nrt = 0.0;
    b.inflate_time = 0.0;
    b.outside_pressure = 0.0;
    CHECK(psb_body_params_validate(&b, NULL) == PSB_OK,
          "zero ks, kd, nRT, P0, inflate_time refused");
}

// Bad body definitions: refused with -1, a message, and nothing added.
static void expect_bad_def(psb_world *w, const psb_body_def *def, const char *field,
                           const char *what) {
    const int before = psb_world_body_count(w);
    psb_error err;
    memset(&err, 0, sizeof err);
    CHECK(psb_world_add_body(w, def, &err) == -1, "%s: accepted", what);
    CHECK(err.status == PSB_ERR_INVALID, "%s: status %d", what, (int)err.status);
    CHECK(err.message[0] != '\0', "%s: empty message", what);
    CHECK(strstr(err.message, field) != NULL, "%s: message \"%s\" does not name %s", what,
          err.message, field);
    CHECK(psb_world_body_count(w) == before, "%s: the world has %d bodies, had %d", what,
          psb_world_body_count(w), before);
    CHECK(psb_world_add_body(w, def, NULL) == -1, "%s: accepted with err NULL", what);
}

static void test_bad_defs(void) {
    psb_params p = psb_default_params();
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    CHECK(w != NULL, "world: %s", err.message);
    if (!w) {
        return;
    }
    psb_mesh m;
    psb_mesh_icosphere(&m, 0, 0.5, &err);
    psb_vec3 pts[12];
    int tris[60];
    memcpy(pts, m.points, sizeof pts);
    memcpy(tris, m.triangles, sizeof tris);
    psb_body_def good = psb_mesh_body_def(&m);
    good.points = pts;
    good.triangles = tris;

    psb_body_def d = good;
    d.points = NULL;
    expect_bad_def(w, &d, "points", "NULL points");
    d = good;
    d.point_count = 3;
    expect_bad_def(w, &d, "point_count", "a shell of 3 points");
    d = good;
    d.triangles = NULL;
    expect_bad_def(w, &d, "triangles", "a shell without triangles");
    d = good;
    d.triangle_count = 3;
    expect_bad_def(w, &d, "triangles", "a shell of 3 triangles");
    d = good;
    tris[7] = 12;
    expect_bad_def(w, &d, "triangles", "a triangle index past the points");
    tris[7] = -1;
    expect_bad_def(w, &d, "triangles", "a negative triangle index");
    tris[7] = m.triangles[7];
    pts[5].y = NAN_;
    expect_bad_def(w, &d, "points", "a NaN point");
    pts[5].y = INF_;
    expect_bad_def(w, &d, "points", "an infinite point");
    pts[5] = m.points[5];
    psb_vec3 rest[12];
    memcpy(rest, m.points, sizeof rest);
    rest[2].z = NAN_;
    d.rest_points = rest;
    expect_bad_def(w, &d, "rest_points", "a NaN rest point");
    d = good;
    d.offset.x = NAN_;
    expect_bad_def(w, &d, "offset", "a NaN offset");
    d = good;
    d.velocity.z = INF_;
    expect_bad_def(w, &d, "velocity", "an infinite velocity");
    d = good;
    d.kind = (psb_body_kind)7;
    expect_bad_def(w, &d, "kind", "an unknown kind");
    d = good;
    d.params.mass = -1.0;
    expect_bad_def(w, &d, "mass", "a negative mass");

    psb_mesh ring;
    psb_mesh_ring(&ring, 8, 0.5, &err);
    psb_body_def r = psb_mesh_body_def(&ring);
    r.point_count = 2;
    expect_bad_def(w, &r, "point_count", "a ring of 2 points");
    r.point_count = 8;
    r.points = NULL;
    expect_bad_def(w, &r, "points", "a ring with NULL points");

    // Inside-out rest shapes enclose no positive volume: a clockwise ring,
    // a shell with every triangle wound backwards.
    psb_vec3 cw[8];
    for (int i = 0; i < 8; i++) {
        cw[i] = ring.points[7 - i];
    }
    r = psb_mesh_body_def(&ring);
    r.points = cw;
    expect_bad_def(w, &r, "", "a clockwise ring");
    int backwards[60];
    for (int t = 0; t < 20; t++) {
        backwards[3 * t] = tris[3 * t];
        backwards[3 * t + 1] = tris[3 * t + 2];
        backwards[3 * t + 2] = tris[3 * t + 1];
    }
    d = good;
    d.triangles = backwards;
    expect_bad_def(w, &d, "", "an inside-out shell");

    // The input arrays were not changed, and the good definitions still work.
    CHECK(memcmp(pts, m.points, sizeof pts) == 0 && memcmp(tris, m.triangles, sizeof tris) == 0,
          "add_body changed its input");
    CHECK(psb_world_add_body(w, &good, &err) == 0, "good shell refused: %s", err.message);
    r = psb_mesh_body_def(&ring);
    CHECK(psb_world_add_body(w, &r, &err) == 1, "good ring refused: %s", err.message);
    CHECK(psb_world_body_count(w) == 2, "body count %d", psb_world_body_count(w));

    // A live body refuses non-finite state and keeps its own.
    psb_vec3 x[12], v[12];
    memcpy(x, psb_body_positions(w, 0), sizeof x);
    memcpy(v, psb_body_velocities(w, 0), sizeof v);
    psb_vec3 bad[12];
    memcpy(bad, x, sizeof bad);
    bad[11].x = NAN_;
    memset(&err, 0, sizeof err);
    CHECK(psb_body_set_state(w, 0, bad, NULL, &err) == PSB_ERR_INVALID, "NaN position accepted");
    CHECK(strstr(err.message, "positions") != NULL, "set_state message \"%s\"", err.message);
    psb_vec3 fast[12] = {{0, 0, 0}};
    fast[3].y = INF_;
    CHECK(psb_body_set_state(w, 0, x, fast, &err) == PSB_ERR_INVALID, "Inf velocity accepted");
    CHECK(strstr(err.message, "velocities") != NULL, "set_state message \"%s\"", err.message);
    CHECK(memcmp(psb_body_positions(w, 0), x, sizeof x) == 0 &&
              memcmp(psb_body_velocities(w, 0), v, sizeof v) == 0,
          "refused set_state changed the body");

    // Static spheres: a non-positive or non-finite radius, a non-finite centre.
    const double radii[] = {0.0, -1.0, NAN_, INF_};
    for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++) {
        memset(&err, 0, sizeof err);
        CHECK(psb_world_add_sphere(w, (psb_vec3){0, 0, 0}, radii[k], &err) == PSB_ERR_INVALID,
              "sphere radius %g accepted", radii[k]);
        CHECK(strstr(err.message, "radius") != NULL, "sphere message \"%s\"", err.message);
    }
    memset(&err, 0, sizeof err);
    CHECK(psb_world_add_sphere(w, (psb_vec3){0, NAN_, 0}, 1.0, &err) == PSB_ERR_INVALID,
          "NaN sphere centre accepted");
    CHECK(strstr(err.message, "centre") != NULL, "sphere message \"%s\"", err.message);
    CHECK(psb_world_sphere_count(w) == 0, "refused spheres were added");

    psb_mesh_free(&ring);
    psb_mesh_free(&m);
    psb_world_destroy(w);
}

// psb_body_set_params with good values takes effect, masses included.
static void test_set_params_applies(void) {
    psb_params p = psb_default_params();
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    psb_mesh m;
    psb_mesh_icosphere(&m, 1, 0.5, &err);
    psb_body_def def = psb_mesh_body_def(&m);
    const int id = psb_world_add_body(w, &def, &err);
    CHECK(id == 0, "add_body: %s", err.message);
    if (id == 0) {
        psb_body_params b = *psb_body_get_params(w, id);
        b.mass = 4.2;
        b.spring_k = 123.0;
        CHECK(psb_body_set_params(w, id, &b, &err) == PSB_OK, "set_params: %s", err.message);
        CHECK(same_body_params(psb_body_get_params(w, id), &b), "set_params did not apply");
        double total = 0.0;
        const double *mass = psb_body_masses(w, id);
        for (int i = 0; i < m.point_count; i++) {
            total += mass[i];
        }
        CHECK(fabs(total - 4.2) < 1e-12, "masses add up to %.17g after a change to 4.2 kg", total);
        b.mass_by_area = true;
        CHECK(psb_body_set_params(w, id, &b, &err) == PSB_OK, "set_params: %s", err.message);
        total = 0.0;
        for (int i = 0; i < m.point_count; i++) {
            total += mass[i];
        }
        CHECK(fabs(total - 4.2) < 1e-12, "masses by area add up to %.17g", total);
    }
    // A good world change applies too.
    p.dt = 0.005;
    p.integrator = PSB_RK4;
    CHECK(psb_world_set_params(w, &p, &err) == PSB_OK, "world set_params: %s", err.message);
    CHECK(same_params(psb_world_params(w), &p), "world set_params did not apply");
    psb_mesh_free(&m);
    psb_world_destroy(w);
}

// mass_by_area: each point gets the total mass times its share of the
// surface around it in the rest shape (a third of each triangle it is a
// corner of; half of each edge of a ring). The uniform split gives M / N.
static void test_mass_by_area(void) {
    psb_params p = psb_default_params();
    psb_error err;
    psb_world *w = psb_world_create(&p, &err);
    psb_mesh box, ring;
    // A flat box: its big faces' points carry much more area than its rims'.
    psb_mesh_box(&box, 3, (psb_vec3){1.0, 0.1, 0.6}, &err);
    psb_mesh_ring(&ring, 9, 1.0, &err);
    // Uneven spacing on the ring: squeeze the points toward angle 0.
    for (int i = 0; i < 9; i++) {
        const double a = 2.0 * 3.14159265358979323846 * (i / 9.0) * (i / 9.0);
        ring.points[i] = (psb_vec3){cos(a), sin(a), 0.0};
    }
    const psb_mesh *meshes[2] = {&box, &ring};
    for (int k = 0; k < 2; k++) {
        const psb_mesh *mesh = meshes[k];
        const int n = mesh->point_count;
        double share[128];
        double total = 0.0;
        for (int i = 0; i < n; i++) {
            share[i] = 0.0;
        }
        if (mesh->kind == PSB_RING) {
            for (int i = 0; i < n; i++) {
                const psb_vec3 a = mesh->points[i], b = mesh->points[(i + 1) % n];
                const double len = sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y));
                share[i] += 0.5 * len;
                share[(i + 1) % n] += 0.5 * len;
                total += len;
            }
        } else {
            for (int t = 0; t < mesh->triangle_count; t++) {
                const int *c = &mesh->triangles[3 * t];
                const psb_vec3 a = mesh->points[c[0]], b = mesh->points[c[1]],
                               d = mesh->points[c[2]];
                const psb_vec3 u = {b.x - a.x, b.y - a.y, b.z - a.z};
                const psb_vec3 v = {d.x - a.x, d.y - a.y, d.z - a.z};
                const psb_vec3 cr = {u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z,
                                     u.x * v.y - u.y * v.x};
                const double area = 0.5 * sqrt(cr.x * cr.x + cr.y * cr.y + cr.z * cr.z);
                for (int j = 0; j < 3; j++) {
                    share[c[j]] += area / 3.0;
                }
                total += area;
            }
        }
        psb_body_def def = psb_mesh_body_def(mesh);
        def.params.mass = 3.0;
        def.params.mass_by_area = true;
        const int id = psb_world_add_body(w, &def, &err);
        CHECK(id == k, "add_body: %s", err.message);
        if (id != k || n > 128) {
            continue;
        }
        const double *mass = psb_body_masses(w, id);
        double worst = 0.0, lo = INFINITY, hi = 0.0;
        for (int i = 0; i < n; i++) {
            worst = fmax(worst, fabs(mass[i] - 3.0 * share[i] / total));
            lo = fmin(lo, mass[i]);
            hi = fmax(hi, mass[i]);
        }
        const char *name = k ? "ring" : "flat box";
        CHECK(worst <= 1e-12, "%s: masses by area off by up to %.3g kg", name, worst);
        CHECK(hi > 2.0 * lo, "%s: masses by area range only %g..%g kg", name, lo, hi);
        // Back to uniform.
        psb_body_params bp = def.params;
        bp.mass_by_area = false;
        CHECK(psb_body_set_params(w, id, &bp, &err) == PSB_OK, "set_params: %s", err.message);
        worst = 0.0;
        for (int i = 0; i < n; i++) {
            worst = fmax(worst, fabs(mass[i] - 3.0 / n));
        }
        CHECK(worst <= 1e-15, "%s: uniform masses off by %.3g kg", name, worst);
    }
    psb_mesh_free(&box);
    psb_mesh_free(&ring);
    psb_world_destroy(w);
}

// ---- the table of parameters and their ranges (psb_param_table)

// The message names `field` (body fields as "body.<field>" in the world's
// parameters) and the params were left as they were.
static void expect_refused_value(const psb_param_info *info, int component, double value) {
    psb_params p = psb_default_params();
    const psb_params before = p;
    psb_error err;
    memset(&err, 0, sizeof err);
    CHECK(!psb_param_in_range(info, value), "%s: %g is in range", info->name, value);
    CHECK(psb_param_set(&p, info, component, value, &err) == PSB_ERR_INVALID, "%s: set %g accepted",
          info->name, value);
    CHECK(strstr(err.message, info->field) != NULL && strstr(err.message, "expected") != NULL,
          "%s: set %g: message \"%s\" names neither the field nor the range", info->name, value,
          err.message);
    CHECK(memcmp(&p, &before, sizeof p) == 0, "%s: a refused set %g changed the params", info->name,
          value);
    // The same value written straight into the struct: validate refuses it
    // through the table, naming the field.
    if (info->type == PSB_PARAM_REAL) {
        double *field =
            (double *)((char *)(info->place == PSB_PARAM_BODY ? (void *)&p.body : (void *)&p) +
                       info->offset);
        field[info->count == 3 ? component : 0] = value;
        memset(&err, 0, sizeof err);
        CHECK(psb_params_validate(&p, &err) == PSB_ERR_INVALID, "%s = %g: validate accepted",
              info->field, value);
        CHECK(strstr(err.message, info->field) != NULL, "%s = %g: message \"%s\"", info->field,
              value, err.message);
        if (info->place == PSB_PARAM_BODY) {
            CHECK(strstr(err.message, "body.") == err.message,
                  "%s = %g: the world's message \"%s\" does not say body.", info->field, value,
                  err.message);
            CHECK(psb_body_params_validate(&p.body, NULL) == PSB_ERR_INVALID,
                  "%s = %g: body validate accepted", info->field, value);
        }
    }
}

static void test_param_table(void) {
    int count = 0;
    const psb_param_info *table = psb_param_table(&count);
    CHECK(table != NULL && count > 0, "no table (%d entries)", count);
    CHECK(psb_param_table(NULL) == table, "the table moved");
    const psb_params defaults = psb_default_params();
    for (int i = 0; i < count; i++) {
        const psb_param_info *e = &table[i];
        CHECK(e->name && e->name[0] && e->field && e->field[0] && e->unit && e->help && e->help[0],
              "entry %d lacks a name, field, unit or help", i);
        for (int j = 0; j < i; j++) {
            CHECK(strcmp(e->name, table[j].name) != 0 && strcmp(e->field, table[j].field) != 0,
                  "%s: named twice", e->name);
        }
        CHECK(psb_param_find(e->name) == e && psb_param_find(e->field) == e,
              "%s: psb_param_find(\"%s\") or (\"%s\") does not find it", e->name, e->name,
              e->field);
        // Finite ranges, typical spans inside them, and room for a slider.
        CHECK(isfinite(e->min) && isfinite(e->max) && e->min < e->max, "%s: range %g .. %g",
              e->name, e->min, e->max);
        CHECK(e->typical_min >= e->min && e->typical_max <= e->max &&
                  e->typical_min < e->typical_max,
              "%s: typical %g .. %g outside %g .. %g", e->name, e->typical_min, e->typical_max,
              e->min, e->max);
        CHECK(e->scale != PSB_SCALE_LOG || e->typical_min > 0.0, "%s: a log scale from %g", e->name,
              e->typical_min);
        CHECK(e->count == 1 || (e->count == 3 && e->type == PSB_PARAM_REAL), "%s: count %d",
              e->name, e->count);
        CHECK((e->type == PSB_PARAM_CHOICE) == (e->choice != NULL), "%s: choice names", e->name);
        // The default is in range, and what get reads is the field itself.
        for (int c = 0; c < e->count; c++) {
            const double value = psb_param_get(&defaults, e, c);
            CHECK(psb_param_in_range(e, value), "%s: the default %g is out of range", e->name,
                  value);
            if (e->place == PSB_PARAM_BODY) {
                CHECK(psb_body_param_get(&defaults.body, e, c) == value,
                      "%s: body get %g, world get %g", e->name,
                      psb_body_param_get(&defaults.body, e, c), value);
            }
        }
        // Both ends (when closed) are accepted, set and read back, and the
        // result validates.
        for (int c = 0; c < e->count; c++) {
            const double ends[2] = {e->min, e->max};
            const bool open[2] = {e->min_open, e->max_open};
            for (int k = 0; k < 2; k++) {
                psb_params p = psb_default_params();
                psb_error err;
                if (open[k]) {
                    expect_refused_value(e, c, ends[k]);
                    continue;
                }
                CHECK(psb_param_set(&p, e, c, ends[k], &err) == PSB_OK, "%s = %g refused: %s",
                      e->name, ends[k], err.message);
                CHECK(psb_param_get(&p, e, c) == ends[k], "%s: set %g, got %g back", e->name,
                      ends[k], psb_param_get(&p, e, c));
                CHECK(psb_params_validate(&p, &err) == PSB_OK, "%s = %g: %s", e->name, ends[k],
                      err.message);
            }
            // Beyond the ends, the extremes of a double, and no number at all.
            const double span = e->max - e->min;
            const double bad[] = {
                e->min - 0.5 * span, e->max + 0.5 * span, 1e308, -1e308, NAN_, INF_, -INF_};
            for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
                expect_refused_value(e, c, bad[k]);
            }
            // A subnormal number holds no precision: refused even where 0 is allowed.
            if (e->min <= 0.0 && e->max > 0.0) {
                expect_refused_value(e, c, 1e-320);
            }
            if (e->type != PSB_PARAM_REAL) {
                expect_refused_value(e, c, 0.5 * (e->min + e->max) + 0.25);
            }
        }
    }
    CHECK(psb_param_find("no-such-thing") == NULL && psb_param_find(NULL) == NULL,
          "psb_param_find finds what is not there");

    // Every number of psb_params and psb_body_params that a user may set.
    const char *fields[] = {// psb_params
                            "dt", "substeps", "integrator", "gravity", "floor_y", "walls_min",
                            "walls_max", "restitution", "friction", "blowup_size", "wind",
                            "wind_turbulence", "threads", "solver_tol", "solver_iterations",
                            "contact_thickness", "contact_friction",
                            // psb_body_params
                            "mass", "spring_k", "spring_damping", "gas_nrt", "outside_pressure",
                            "inflate_time", "shape_k", "shape_damping", "wind_drag", "fold_limit"};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        CHECK(psb_param_find(fields[k]) != NULL, "no entry for %s", fields[k]);
    }
    CHECK(count == (int)(sizeof fields / sizeof fields[0]), "%d entries, expected %d", count,
          (int)(sizeof fields / sizeof fields[0]));

    // The ranges in words, as the messages and the command line give them.
    const struct {
        const char *name;
        const char *words;
    } described[] = {
        {"ks", "a number from 0 to 1e12 in N/m"},
        {"mass", "a number from 1e-6 to 1e6 in kg"},
        {"substeps", "an integer from 1 to 10000"},
        {"integrator", "one of euler, symplectic, heun, rk4, verlet, implicit or bdf2"},
        {"restitution", "a number from 0 to 1"},
    };
    for (size_t k = 0; k < sizeof described / sizeof described[0]; k++) {
        char words[256];
        psb_param_describe_range(psb_param_find(described[k].name), words, sizeof words);
        CHECK(strcmp(words, described[k].words) == 0, "%s: \"%s\", expected \"%s\"",
              described[k].name, words, described[k].words);
    }
    const struct {
        double value;
        const char *text;
    } formatted[] = {{1e12, "1e12"}, {1e-6, "1e-6"}, {0.001, "0.001"},
                     {200, "200"},   {-1e9, "-1e9"}, {1e-100, "1e-100"}};
    for (size_t k = 0; k < sizeof formatted / sizeof formatted[0]; k++) {
        char text[48];
        psb_param_format(formatted[k].value, text, sizeof text);
        CHECK(strcmp(text, formatted[k].text) == 0, "%g formats as \"%s\", expected \"%s\"",
              formatted[k].value, text, formatted[k].text);
    }

    // Get and set by entry: a vector's components, an int, an enum, a body field.
    psb_params p = psb_default_params();
    const psb_param_info *wind = psb_param_find("wind");
    CHECK(psb_param_set(&p, wind, 2, -7.5, NULL) == PSB_OK && p.wind.z == -7.5 && p.wind.x == 0.0,
          "wind.z set to %g", p.wind.z);
    CHECK(psb_param_set(&p, psb_param_find("substeps"), 0, 42, NULL) == PSB_OK && p.substeps == 42,
          "substeps set to %d", p.substeps);
    CHECK(psb_param_set(&p, psb_param_find("integrator"), 0, PSB_RK4, NULL) == PSB_OK &&
              p.integrator == PSB_RK4,
          "integrator set to %d", (int)p.integrator);
    CHECK(psb_param_set(&p, psb_param_find("kd"), 0, 3.5, NULL) == PSB_OK &&
              p.body.spring_damping == 3.5,
          "kd set to %g", p.body.spring_damping);
    psb_body_params b = psb_default_body_params();
    CHECK(psb_body_param_set(&b, psb_param_find("nrt"), 0, 250.0, NULL) == PSB_OK &&
              b.gas_nrt == 250.0 && psb_body_param_get(&b, psb_param_find("nrt"), 0) == 250.0,
          "nrt set to %g", b.gas_nrt);
    CHECK(psb_body_param_set(&b, psb_param_find("mass"), 0, 0.0, NULL) == PSB_ERR_INVALID &&
              b.mass == 1.0,
          "mass 0 accepted (mass now %g)", b.mass);
    CHECK(psb_params_validate(&p, NULL) == PSB_OK, "params set through the table refused");
}

int main(void) {
    test_defaults();
    test_integrator_names();
    test_bad_world_params();
    test_bad_body_params();
    test_bad_defs();
    test_set_params_applies();
    test_mass_by_area();
    test_param_table();
    return check_done("test_params");
}
