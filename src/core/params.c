// Parameters: defaults, the table of their ranges (which validation reads)
// and the integrators' names.
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
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
        .contact = true,
        .self_contact = true,
        .fold_limit = 0.5,
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
        .still_air = false,
        .body_contact = true,
        .self_contact = false,
        .contact_thickness = 0.01,
        .contact_friction = 0.5,
        .contact_solve = false,
        .threads = 1,
        .solver_tol = 1e-3,
        .solver_iterations = 500,
        .body = psb_default_body_params(),
    };
}

// ---- the parameter table: every range in one place
//
// Each range is wide enough for any real use of a pressure soft body, and
// finite and narrow enough that nothing the step computes from values
// inside it overflows a double (energies such as 1/2 m v^2 and nRT ln V,
// forces such as ks |d|, the stable sub-step's estimate). The reasons:
// - dt: from a nanosecond (stiff micro bodies) to a second (one implicit
//   step of a slow inflation); a longer step is no animation at all.
// - gravity: up to 100 g either way (a centrifuge); Earth is 9.81 m/s².
// - positions (floor, walls): within 10 km of the origin, far beyond any
//   scene of soft bodies, where a double still resolves 1e-12 m.
// - friction, shape damping: rates up to 1e6 /s, past which exp(-rate h) is
//   0 for any sub-step worth taking.
// - mass: a milligram to a thousand tonnes.
// - ks, shape_k: up to 1e12 N/m, stiffer than a steel rod of 1 m² section
//   and 1 m length (EA/L = 2e11 N/m); kd up to 1e9 N·s/m, the critical
//   damping of such a spring on a thousand tonnes.
// - nRT: up to 1e12 J, a 1000 m³ body at 1e9 Pa; P0 within +-1e9 Pa, ten
//   times the deepest ocean's pressure.
// - wind: up to 1000 m/s (three times the speed of sound), gusts as much.
// - blowup_size: 0.01 body diameters (every real motion counts) to 1e6.
// - solver_tol: 1e-15 m/s (rounding) to 1000 m/s (nothing is solved).
// - contact_thickness: 0 (touching) to 1 m, a skin as thick as a body.
// - contact_friction: 0 to 100, far past any real pair of materials (rubber
//   on rubber is about 1).

static const char *integrator_choice(int value) {
    return psb_integrator_name((psb_integrator)value);
}

#define WORLD(f) .place = PSB_PARAM_WORLD, .offset = offsetof(psb_params, f), .field = #f
#define BODY(f)  .place = PSB_PARAM_BODY, .offset = offsetof(psb_body_params, f), .field = #f

static const psb_param_info param_table[] = {
    {WORLD(dt), .name = "dt", .unit = "s", .help = "length of one world step",
     .type = PSB_PARAM_REAL, .count = 1, .min = 1e-9, .max = 1.0, .scale = PSB_SCALE_LOG,
     .typical_min = 1e-4, .typical_max = 0.05},
    {WORLD(substeps), .name = "substeps", .unit = "",
     .help = "integration sub-steps per world step, h = dt / substeps", .type = PSB_PARAM_INT,
     .count = 1, .min = 1, .max = 10000, .scale = PSB_SCALE_LOG, .typical_min = 1,
     .typical_max = 1000},
    {WORLD(integrator), .name = "integrator", .unit = "", .help = "time integrator",
     .type = PSB_PARAM_CHOICE, .count = 1, .min = 0, .max = PSB_INTEGRATOR_COUNT - 1,
     .scale = PSB_SCALE_LINEAR, .typical_min = 0, .typical_max = PSB_INTEGRATOR_COUNT - 1,
     .choice = integrator_choice},
    {WORLD(gravity), .name = "gravity", .unit = "m/s²",
     .help = "gravitational acceleration along -y, 0 = off", .type = PSB_PARAM_REAL, .count = 1,
     .min = -1000.0, .max = 1000.0, .scale = PSB_SCALE_LINEAR, .typical_min = 0.0,
     .typical_max = 30.0},
    {WORLD(floor_y), .name = "floor", .unit = "m", .help = "height of the floor plane",
     .type = PSB_PARAM_REAL, .count = 1, .min = -1e4, .max = 1e4, .scale = PSB_SCALE_LINEAR,
     .typical_min = -5.0, .typical_max = 5.0},
    {WORLD(walls_min), .name = "walls-min", .unit = "m",
     .help = "lower corner of the box the walls keep the points in", .type = PSB_PARAM_REAL,
     .count = 3, .min = -1e4, .max = 1e4, .scale = PSB_SCALE_LINEAR, .typical_min = -10.0,
     .typical_max = 10.0},
    {WORLD(walls_max), .name = "walls-max", .unit = "m",
     .help = "upper corner of the box the walls keep the points in", .type = PSB_PARAM_REAL,
     .count = 3, .min = -1e4, .max = 1e4, .scale = PSB_SCALE_LINEAR, .typical_min = -10.0,
     .typical_max = 10.0},
    {WORLD(restitution), .name = "restitution", .unit = "",
     .help =
         "bounce: a contact reverses the velocity into the surface and keeps this fraction of it",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1.0, .scale = PSB_SCALE_LINEAR,
     .typical_min = 0.0, .typical_max = 1.0},
    {WORLD(friction), .name = "friction", .unit = "1/s",
     .help = "friction rate: a point in contact keeps exp(-rate h) of its velocity along the "
             "surface each sub-step h",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1e6, .scale = PSB_SCALE_LOG,
     .typical_min = 0.1, .typical_max = 100.0},
    {WORLD(blowup_size), .name = "blowup-size", .unit = "body diameters",
     .help = "a point that moves farther than this in one world step counts as a blow-up (the "
             "body is reset)",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.01, .max = 1e6, .scale = PSB_SCALE_LOG,
     .typical_min = 1.0, .typical_max = 1000.0},
    {WORLD(wind), .name = "wind", .unit = "m/s", .help = "wind velocity", .type = PSB_PARAM_REAL,
     .count = 3, .min = -1000.0, .max = 1000.0, .scale = PSB_SCALE_LINEAR, .typical_min = -20.0,
     .typical_max = 20.0},
    {WORLD(wind_turbulence), .name = "wind-turbulence", .unit = "m/s",
     .help = "gusts: each component of the wind varies by up to this much, over metres and seconds",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1000.0, .scale = PSB_SCALE_LINEAR,
     .typical_min = 0.0, .typical_max = 10.0},
    {WORLD(contact_thickness), .name = "contact-thickness", .unit = "m",
     .help = "skin of contact between bodies: a point closer than this to another body is "
             "pushed out",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1.0, .scale = PSB_SCALE_LINEAR,
     .typical_min = 0.0, .typical_max = 0.1},
    {WORLD(contact_friction), .name = "contact-friction", .unit = "",
     .help = "Coulomb friction between 3D bodies (contact inside the solve): a pressed pair is "
             "held, or its sliding slowed, by up to this times the push between them",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 100.0, .scale = PSB_SCALE_LINEAR,
     .typical_min = 0.0, .typical_max = 2.0},
    {WORLD(threads), .name = "threads", .unit = "",
     .help = "threads that share each body's step (bodies of 4096 points and up); the same "
             "result for any count",
     .type = PSB_PARAM_INT, .count = 1, .min = 1, .max = PSB_MAX_THREADS, .scale = PSB_SCALE_LINEAR,
     .typical_min = 1, .typical_max = 16},
    {WORLD(solver_tol), .name = "tol", .unit = "m/s",
     .help = "implicit, bdf2: a step is solved when its last Newton step changed no point's "
             "velocity by more than this",
     .type = PSB_PARAM_REAL, .count = 1, .min = 1e-15, .max = 1e3, .scale = PSB_SCALE_LOG,
     .typical_min = 1e-6, .typical_max = 0.1},
    {WORLD(solver_iterations), .name = "iterations", .unit = "",
     .help = "implicit, bdf2: the most conjugate-gradient iterations per sub-step of one body",
     .type = PSB_PARAM_INT, .count = 1, .min = 1, .max = 100000, .scale = PSB_SCALE_LOG,
     .typical_min = 10, .typical_max = 10000},
    {BODY(mass), .name = "mass", .unit = "kg", .help = "total mass of the body",
     .type = PSB_PARAM_REAL, .count = 1, .min = 1e-6, .max = 1e6, .scale = PSB_SCALE_LOG,
     .typical_min = 0.01, .typical_max = 100.0},
    {BODY(spring_k), .name = "ks", .unit = "N/m", .help = "spring stiffness",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1e12, .scale = PSB_SCALE_LOG,
     .typical_min = 1.0, .typical_max = 1e6},
    {BODY(spring_damping), .name = "kd", .unit = "N·s/m", .help = "spring damping along the spring",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1e9, .scale = PSB_SCALE_LOG,
     .typical_min = 0.01, .typical_max = 100.0},
    {BODY(gas_nrt), .name = "nrt", .unit = "J",
     .help = "gas amount nRT; pressure = nRT / volume - p0", .type = PSB_PARAM_REAL, .count = 1,
     .min = 0.0, .max = 1e12, .scale = PSB_SCALE_LOG, .typical_min = 1.0, .typical_max = 1e5},
    {BODY(outside_pressure), .name = "p0", .unit = "Pa",
     .help = "outside pressure, subtracted from nRT / V (on a ring: N/m)", .type = PSB_PARAM_REAL,
     .count = 1, .min = -1e9, .max = 1e9, .scale = PSB_SCALE_LINEAR, .typical_min = 0.0,
     .typical_max = 1000.0},
    {BODY(inflate_time), .name = "inflate-time", .unit = "s",
     .help = "ramp the gas from 0 to nRT over this time, 0 = at once", .type = PSB_PARAM_REAL,
     .count = 1, .min = 0.0, .max = 1e6, .scale = PSB_SCALE_LINEAR, .typical_min = 0.0,
     .typical_max = 10.0},
    {BODY(shape_k), .name = "shape-k", .unit = "N/m",
     .help = "shape matching: pull points toward the best rigid fit of the rest shape",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1e12, .scale = PSB_SCALE_LOG,
     .typical_min = 1.0, .typical_max = 1e5},
    {BODY(shape_damping), .name = "shape-damping", .unit = "1/s",
     .help = "shape matching: damp the motion that is not rigid", .type = PSB_PARAM_REAL,
     .count = 1, .min = 0.0, .max = 1e6, .scale = PSB_SCALE_LOG, .typical_min = 0.1,
     .typical_max = 100.0},
    {BODY(wind_drag), .name = "wind-drag", .unit = "kg/(m²·s)",
     .help = "how hard the wind pushes: F = C A ((w - v) . n) n per point of area A",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1e6, .scale = PSB_SCALE_LOG,
     .typical_min = 0.01, .typical_max = 100.0},
    {BODY(fold_limit), .name = "fold-limit", .unit = "",
     .help = "implicit, bdf2, 3D bodies: the far corners of two triangles that share an edge "
             "are pushed apart once closer than this times their rest distance, so the surface "
             "cannot fold flat; 0 = off",
     .type = PSB_PARAM_REAL, .count = 1, .min = 0.0, .max = 1.0, .max_open = true,
     .scale = PSB_SCALE_LINEAR, .typical_min = 0.0, .typical_max = 0.9},
};

#undef WORLD
#undef BODY

enum { PARAM_COUNT = (int)(sizeof param_table / sizeof param_table[0]) };

// The int and enum fields are read and written as int.
_Static_assert(sizeof(psb_integrator) == sizeof(int), "psb_integrator is stored as an int");

const psb_param_info *psb_param_table(int *count) {
    if (count) {
        *count = PARAM_COUNT;
    }
    return param_table;
}

const psb_param_info *psb_param_find(const char *name) {
    for (int i = 0; name && i < PARAM_COUNT; i++) {
        if (strcmp(name, param_table[i].name) == 0 || strcmp(name, param_table[i].field) == 0) {
            return &param_table[i];
        }
    }
    return NULL;
}

bool psb_param_in_range(const psb_param_info *info, double value) {
    // Subnormal numbers are refused with the infinities: they hold no
    // precision, and squared or divided they underflow to 0 or overflow.
    if (!isfinite(value) || (value != 0.0 && fabs(value) < DBL_MIN)) {
        return false;
    }
    if (info->type != PSB_PARAM_REAL && value != floor(value)) {
        return false;
    }
    const bool above = info->min_open ? value > info->min : value >= info->min;
    const bool below = info->max_open ? value < info->max : value <= info->max;
    return above && below;
}

void psb_param_format(double value, char *out, size_t out_size) {
    if (out_size == 0) {
        return;
    }
    char raw[48];
    snprintf(raw, sizeof raw, "%g", value);
    size_t n = 0;
    for (const char *c = raw; *c && n + 1 < out_size; c++) {
        const bool after_e = c > raw && c[-1] == 'e';
        const bool sign_after_e = c > raw + 1 && c[-2] == 'e' && (c[-1] == '-' || c[-1] == '+');
        if ((after_e && *c == '+') || ((after_e || sign_after_e) && *c == '0' && c[1] != '\0')) {
            continue;
        }
        out[n++] = *c;
    }
    out[n] = '\0';
}

void psb_param_describe_range(const psb_param_info *info, char *out, size_t out_size) {
    if (out_size == 0) {
        return;
    }
    if (info->type == PSB_PARAM_CHOICE && info->choice) {
        size_t used = (size_t)snprintf(out, out_size, "one of");
        const int first = (int)info->min, last = (int)info->max;
        for (int v = first; v <= last && used < out_size; v++) {
            const char *sep = v == first ? " " : v == last ? " or " : ", ";
            used += (size_t)snprintf(out + used, out_size - used, "%s%s", sep, info->choice(v));
        }
        return;
    }
    const bool whole = info->type != PSB_PARAM_REAL;
    const bool has_min = isfinite(info->min) && !(whole && info->min <= INT_MIN);
    const bool has_max = isfinite(info->max) && !(whole && info->max >= INT_MAX);
    const char *what = whole ? "an integer" : "a number";
    // Integers in full ("10000"), other numbers short ("1e12", "0.001").
    char min[48], max[48];
    if (whole) {
        snprintf(min, sizeof min, "%.0f", info->min);
        snprintf(max, sizeof max, "%.0f", info->max);
    } else {
        psb_param_format(info->min, min, sizeof min);
        psb_param_format(info->max, max, sizeof max);
    }
    const char *lo = info->min_open ? ">" : ">=";
    const char *hi = info->max_open ? "<" : "<=";
    const char *in = info->unit && info->unit[0] ? " in " : "";
    const char *unit = info->unit ? info->unit : "";
    if (has_min && has_max && !info->min_open && !info->max_open) {
        snprintf(out, out_size, "%s from %s to %s%s%s", what, min, max, in, unit);
    } else if (has_min && has_max) {
        snprintf(out, out_size, "%s %s %s and %s %s%s%s", what, lo, min, hi, max, in, unit);
    } else if (has_min) {
        snprintf(out, out_size, "%s %s %s%s%s", what, lo, min, in, unit);
    } else if (has_max) {
        snprintf(out, out_size, "%s %s %s%s%s", what, hi, max, in, unit);
    } else {
        snprintf(out, out_size, "%s%s%s", what, in, unit);
    }
}

// The address of the entry's field in a psb_params or a psb_body_params.
static const void *param_address(const void *base, const psb_param_info *info) {
    return (const char *)base + info->offset;
}

static double read_value(const void *field, const psb_param_info *info, int component) {
    if (info->type != PSB_PARAM_REAL) {
        return (double)*(const int *)field;
    }
    if (info->count == 3) {
        const psb_vec3 *v = field;
        return component == 0 ? v->x : component == 1 ? v->y : v->z;
    }
    return *(const double *)field;
}

static void write_value(void *field, const psb_param_info *info, int component, double value) {
    if (info->type != PSB_PARAM_REAL) {
        *(int *)field = (int)value;
    } else if (info->count == 3) {
        psb_vec3 *v = field;
        *(component == 0 ? &v->x : component == 1 ? &v->y : &v->z) = value;
    } else {
        *(double *)field = value;
    }
}

// "walls_min.y", "mass", for a message.
static void component_name(const psb_param_info *info, int component, char *out, size_t size) {
    if (info->count == 3) {
        snprintf(out, size, "%s.%c", info->field, "xyz"[component]);
    } else {
        snprintf(out, size, "%s", info->field);
    }
}

// Checks every component of the entry's field in base (the struct of its place).
// Refuses value for component c of the entry unless it is in range: the
// message names the field, the range and the value.
static psb_status check_value(const psb_param_info *info, int c, double value, psb_error *err) {
    if (psb_param_in_range(info, value)) {
        return PSB_OK;
    }
    char name[64], range[192], given[32];
    component_name(info, c, name, sizeof name);
    psb_param_describe_range(info, range, sizeof range);
    psb_param_format(value, given, sizeof given);
    return psb_error_set(err, PSB_ERR_INVALID, "%s: expected %s, got %s", name, range, given);
}

static psb_status check_param(const void *base, const psb_param_info *info, psb_error *err) {
    const void *field = param_address(base, info);
    for (int c = 0; c < info->count; c++) {
        if (check_value(info, c, read_value(field, info, c), err) != PSB_OK) {
            return PSB_ERR_INVALID;
        }
    }
    return PSB_OK;
}

static psb_status set_param(void *base, const psb_param_info *info, int component, double value,
                            psb_error *err) {
    assert((component >= 0 && component < info->count) &&
           "psb_param_set: component out of the entry's range");
    if (check_value(info, component, value, err) != PSB_OK) {
        return PSB_ERR_INVALID;
    }
    write_value((char *)base + info->offset, info, component, value);
    return PSB_OK;
}

double psb_param_get(const psb_params *params, const psb_param_info *info, int component) {
    assert((component >= 0 && component < info->count) &&
           "psb_param_get: component out of the entry's range");
    const void *base = info->place == PSB_PARAM_BODY ? (const void *)&params->body : params;
    return read_value(param_address(base, info), info, component);
}

psb_status psb_param_set(psb_params *params, const psb_param_info *info, int component,
                         double value, psb_error *err) {
    void *base = info->place == PSB_PARAM_BODY ? (void *)&params->body : params;
    return set_param(base, info, component, value, err);
}

double psb_body_param_get(const psb_body_params *params, const psb_param_info *info,
                          int component) {
    assert((info->place == PSB_PARAM_BODY) && "psb_body_param_get: not a body parameter");
    assert((component >= 0 && component < info->count) &&
           "psb_body_param_get: component out of the entry's range");
    return read_value(param_address(params, info), info, component);
}

psb_status psb_body_param_set(psb_body_params *params, const psb_param_info *info, int component,
                              double value, psb_error *err) {
    assert((info->place == PSB_PARAM_BODY) && "psb_body_param_set: not a body parameter");
    return set_param(params, info, component, value, err);
}

static void clear_error(psb_error *err) {
    if (err) {
        err->status = PSB_OK;
        err->message[0] = '\0';
    }
}

psb_status psb_body_params_validate(const psb_body_params *bp, psb_error *err) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        if (param_table[i].place == PSB_PARAM_BODY &&
            check_param(bp, &param_table[i], err) != PSB_OK) {
            return PSB_ERR_INVALID;
        }
    }
    clear_error(err);
    return PSB_OK;
}

psb_status psb_params_validate(const psb_params *p, psb_error *err) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        if (param_table[i].place == PSB_PARAM_WORLD &&
            check_param(p, &param_table[i], err) != PSB_OK) {
            return PSB_ERR_INVALID;
        }
    }
    if (p->walls && !(p->walls_min.x < p->walls_max.x && p->walls_min.y < p->walls_max.y &&
                      p->walls_min.z < p->walls_max.z)) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "walls_min/walls_max: expected walls_min < walls_max on every axis");
    }
    psb_status status = psb_body_params_validate(&p->body, err);
    if (status != PSB_OK && err) {
        // Name the nested field as the caller spells it.
        char inner[sizeof err->message];
        memcpy(inner, err->message, sizeof inner);
        snprintf(err->message, sizeof err->message, "body.%.*s", (int)sizeof inner - 8, inner);
    }
    return status;
}
