// Parameters: defaults, validation and the integrators' names.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

psb_status psb_error_set(psb_error *err, psb_status status, const char *fmt, ...) {
    if (err) {
        err->status = status;
        va_list args;
        va_start(args, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, args);
        va_end(args);
    }
    return status;
}

static const char *const integrator_names[PSB_INTEGRATOR_COUNT] = {
    [PSB_EULER] = "euler",   [PSB_SYMPLECTIC_EULER] = "symplectic",
    [PSB_HEUN] = "heun",     [PSB_RK4] = "rk4",
    [PSB_VERLET] = "verlet", [PSB_IMPLICIT] = "implicit",
    [PSB_BDF2] = "bdf2",
};

const char *psb_integrator_name(psb_integrator integrator) {
    if ((int)integrator < 0 || integrator >= PSB_INTEGRATOR_COUNT) {
        return "?";
    }
    return integrator_names[integrator];
}

bool psb_integrator_is_implicit(psb_integrator integrator) {
    return integrator == PSB_IMPLICIT || integrator == PSB_BDF2;
}

bool psb_integrator_parse(const char *name, psb_integrator *out) {
    for (int i = 0; i < PSB_INTEGRATOR_COUNT; i++) {
        if (name && strcmp(name, integrator_names[i]) == 0) {
            *out = (psb_integrator)i;
            return true;
        }
    }
    return false;
}

double psb_default_gas_nrt(psb_body_kind kind) {
    return kind == PSB_RING ? 10.0 : kind == PSB_CLOTH ? 0.0 : 100.0;
}

psb_body_params psb_default_body_params(void) {
    // Soft enough that a 642-point sphere (icosphere level 3) is stable with
    // symplectic Euler at the default sub-step of 1/1200 s.
    return (psb_body_params){
        .mass = 1.0,
        .spring_k = 200.0,
        .spring_damping = 0.1,
        .gas_nrt = psb_default_gas_nrt(PSB_SHELL),
        .outside_pressure = 0.0,
        .inflate_time = 0.0,
        .mass_by_area = false,
        .shape_k = 0.0,
        .shape_damping = 0.0,
        .wind_drag = 1.0,
    };
}

psb_params psb_default_params(void) {
    return (psb_params){
        .dt = 1.0 / 60.0,
        .substeps = 20,
        .integrator = PSB_SYMPLECTIC_EULER,
        .gravity = 9.81,
        .gravity_waits_for_gas = false,
        .floor = true,
        .floor_y = 0.0,
        .walls = false,
        .walls_min = {-5.0, -5.0, -5.0},
        .walls_max = {5.0, 5.0, 5.0},
        .restitution = 0.3,
        .friction = 2.0,
        .blowup_size = 1.0,
        .wind = {0.0, 0.0, 0.0},
        .wind_turbulence = 0.0,
        .threads = 1,
        .solver_tol = 1e-3,
        .solver_iterations = 500,
        .body = psb_default_body_params(),
    };
}

// Each check names the field, what was expected and what was given.
#define REQUIRE(cond, field, expected, value)                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            return psb_error_set(err, PSB_ERR_INVALID, "%s: expected %s, got %g", field, expected, \
                                 (double)(value));                                                 \
        }                                                                                          \
    } while (0)

psb_status psb_body_params_validate(const psb_body_params *bp, psb_error *err) {
    REQUIRE(isfinite(bp->mass) && bp->mass > 0, "mass", "a finite number > 0 (kg)", bp->mass);
    REQUIRE(isfinite(bp->spring_k) && bp->spring_k >= 0, "spring_k", "a finite number >= 0 (N/m)",
            bp->spring_k);
    REQUIRE(isfinite(bp->spring_damping) && bp->spring_damping >= 0, "spring_damping",
            "a finite number >= 0 (N*s/m)", bp->spring_damping);
    REQUIRE(isfinite(bp->gas_nrt) && bp->gas_nrt >= 0, "gas_nrt", "a finite number >= 0 (J)",
            bp->gas_nrt);
    REQUIRE(isfinite(bp->outside_pressure), "outside_pressure", "a finite number (Pa)",
            bp->outside_pressure);
    REQUIRE(isfinite(bp->inflate_time) && bp->inflate_time >= 0, "inflate_time",
            "a finite number >= 0 (s)", bp->inflate_time);
    REQUIRE(isfinite(bp->shape_k) && bp->shape_k >= 0, "shape_k", "a finite number >= 0 (N/m)",
            bp->shape_k);
    REQUIRE(isfinite(bp->shape_damping) && bp->shape_damping >= 0, "shape_damping",
            "a finite number >= 0 (1/s)", bp->shape_damping);
    REQUIRE(isfinite(bp->wind_drag) && bp->wind_drag >= 0, "wind_drag",
            "a finite number >= 0 (kg/(m^2 s))", bp->wind_drag);
    if (err) {
        err->status = PSB_OK;
        err->message[0] = '\0';
    }
    return PSB_OK;
}

psb_status psb_params_validate(const psb_params *p, psb_error *err) {
    REQUIRE(isfinite(p->dt) && p->dt > 0, "dt", "a finite number > 0 (s)", p->dt);
    REQUIRE(p->substeps >= 1 && p->substeps <= 10000, "substeps", "an integer in 1..10000",
            p->substeps);
    REQUIRE((int)p->integrator >= 0 && p->integrator < PSB_INTEGRATOR_COUNT, "integrator",
            "one of 0..5 (euler, symplectic, heun, rk4, verlet, implicit)", p->integrator);
    REQUIRE(isfinite(p->gravity), "gravity", "a finite number (m/s^2)", p->gravity);
    REQUIRE(isfinite(p->floor_y), "floor_y", "a finite number (m)", p->floor_y);
    if (!vec_finite(p->walls_min) || !vec_finite(p->walls_max)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "walls_min/walls_max: expected finite corners (m)");
    }
    if (p->walls && !(p->walls_min.x < p->walls_max.x && p->walls_min.y < p->walls_max.y &&
                      p->walls_min.z < p->walls_max.z)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "walls_min/walls_max: expected walls_min < walls_max on every axis");
    }
    REQUIRE(isfinite(p->restitution) && p->restitution >= 0 && p->restitution <= 1, "restitution",
            "a number in [0, 1]", p->restitution);
    REQUIRE(isfinite(p->friction) && p->friction >= 0, "friction", "a finite number >= 0 (1/s)",
            p->friction);
    REQUIRE(isfinite(p->blowup_size) && p->blowup_size > 0, "blowup_size",
            "a finite number > 0 (body diameters)", p->blowup_size);
    if (!vec_finite(p->wind)) {
        return psb_error_set(err, PSB_ERR_INVALID, "wind: expected a finite vector (m/s)");
    }
    REQUIRE(isfinite(p->wind_turbulence) && p->wind_turbulence >= 0, "wind_turbulence",
            "a finite number >= 0 (m/s)", p->wind_turbulence);
    REQUIRE(isfinite(p->solver_tol) && p->solver_tol > 0, "solver_tol", "a finite number > 0 (m/s)",
            p->solver_tol);
    REQUIRE(p->solver_iterations >= 1 && p->solver_iterations <= 100000, "solver_iterations",
            "an integer in 1..100000", p->solver_iterations);
    REQUIRE(p->threads >= 1 && p->threads <= PSB_MAX_THREADS, "threads", "an integer in 1..256",
            p->threads);
    psb_status status = psb_body_params_validate(&p->body, err);
    if (status != PSB_OK && err) {
        // Name the nested field as the caller spells it.
        char inner[sizeof err->message];
        memcpy(inner, err->message, sizeof inner);
        snprintf(err->message, sizeof err->message, "body.%.*s", (int)sizeof inner - 8, inner);
    }
    return status;
}
