// The controls: the parameters that the keys and the parameter panel set
// (the gas, the material's stiffness, damping and mass, gravity,
// restitution, friction, the step dt and the integrator), kept across scene
// changes and written into the world by controls_apply. Each is an
// entry of the core's parameter table, which gives its unit, its range and
// its slider's scale and span: the viewer writes no range of its own.
//
// The gas is a multiplier of each body's own nRT (the scenes give bodies
// different amounts on purpose). Stiffness, damping and mass are the
// scene's material's values: a body built with the material takes the
// value, a body built with its own (the flag's cloth, a loaded model's
// stiffness) scales with it, value / material.
#include "controls.h"

#include "status.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct control_info {
    const char *name;  // as scripts and --report name it
    const char *label; // in the panel
    const char *param; // its entry in the core's table
} control_info;

static const control_info infos[CONTROL_COUNT] = {
    [CONTROL_GAS] = {"gas", "gas", "nrt"},
    [CONTROL_KS] = {"ks", "stiffness ks", "ks"},
    [CONTROL_KD] = {"kd", "damping kd", "kd"},
    [CONTROL_MASS] = {"mass", "mass", "mass"},
    [CONTROL_GRAVITY] = {"gravity", "gravity", "gravity"},
    [CONTROL_RESTITUTION] = {"restitution", "restitution", "restitution"},
    [CONTROL_FRICTION] = {"friction", "friction", "friction"},
    [CONTROL_DT] = {"dt", "step dt", "dt"},
    [CONTROL_INTEGRATOR] = {"integrator", "integrator", "integrator"},
};

const char *control_name(control c) {
    return infos[c].name;
}

const char *control_label(control c) {
    return infos[c].label;
}

const psb_param_info *control_param(control c) {
    const psb_param_info *info = psb_param_find(infos[c].param);
    assert(info && "every control names an entry of the core's parameter table");
    return info;
}

int control_find(const char *name) {
    for (int c = 0; c < CONTROL_COUNT; c++) {
        if (strcmp(name, infos[c].name) == 0) {
            return c;
        }
    }
    return -1;
}

// The material the scenes build their bodies with (--mass, --ks, --kd).
static const psb_body_params *material(const app *a) {
    return &a->config.scene_config.params.body;
}

void controls_init(app *a) {
    const psb_params *p = &a->config.scene_config.params;
    a->gas_scale = 1.0;
    a->spring_k = p->body.spring_k;
    a->spring_damping = p->body.spring_damping;
    a->mass = p->body.mass;
    a->gravity = p->gravity;
    a->gravity_on = p->gravity != 0.0;
    a->contact_on = p->body_contact;
    a->restitution = p->restitution;
    a->friction = p->friction;
    a->dt = p->dt;
    a->integrator = p->integrator;
    a->integrator_chosen = a->config.integrator_given;
}

// A body's value of a material parameter: `value` where it was built with
// the material's (material_value), else its own scaled as value /
// material_value.
static double scale_with_material(double built, double material_value, double value) {
    if (built == material_value) {
        return value;
    }
    return material_value > 0.0 ? built * (value / material_value) : built;
}

// The field a control sets (the integrator is an enum: NULL).
static double *field(app *a, control c) {
    switch (c) {
    case CONTROL_GAS:
        return &a->gas_scale;
    case CONTROL_KS:
        return &a->spring_k;
    case CONTROL_KD:
        return &a->spring_damping;
    case CONTROL_MASS:
        return &a->mass;
    case CONTROL_GRAVITY:
        return &a->gravity;
    case CONTROL_RESTITUTION:
        return &a->restitution;
    case CONTROL_FRICTION:
        return &a->friction;
    case CONTROL_DT:
        return &a->dt;
    default:
        return NULL;
    }
}

double control_value(const app *a, control c) {
    if (c == CONTROL_INTEGRATOR) {
        return (double)a->integrator;
    }
    return *field((app *)a, c);
}

// The integrator a scene runs unless one was chosen: loaded models the
// implicit step, the built-in scenes the configured one (psb_scene.h).
static psb_integrator default_integrator(const app *a) {
    const psb_integrator configured = a->config.scene_config.params.integrator;
    return a->models_loaded && !a->config.integrator_given ? PSB_MODEL_INTEGRATOR : configured;
}

double control_default(const app *a, control c) {
    const psb_params *p = &a->config.scene_config.params;
    switch (c) {
    case CONTROL_GAS:
        return 1.0;
    case CONTROL_KS:
        return p->body.spring_k;
    case CONTROL_KD:
        return p->body.spring_damping;
    case CONTROL_MASS:
        return p->body.mass;
    case CONTROL_GRAVITY:
        return p->gravity;
    case CONTROL_RESTITUTION:
        return p->restitution;
    case CONTROL_FRICTION:
        return p->friction;
    case CONTROL_DT:
        return p->dt;
    default:
        return (double)default_integrator(a);
    }
}

// Body b's value of a body control c when the control is v.
static double body_value(const app *a, control c, int b, double v) {
    switch (c) {
    case CONTROL_GAS:
        return a->scene.bodies[b].gas_nrt * v;
    case CONTROL_KS:
        if (a->ring_matched[b]) {
            // A sphere of the ring's material: the stiffness at which the
            // medium gas stretches it as much as the ring of stiffness v;
            // at the material's own v, the one the scene built it with
            // (the same but for rounding: then the viewer's bodies step
            // to the same bits as psb sim's).
            if (v == material(a)->spring_k) {
                return a->built_spring_k[b];
            }
            psb_scene_config ring = a->scene.config;
            ring.params.body.spring_k = v;
            return psb_scene_sphere_spring_k(&ring, a->scene.bodies[b].rest_volume);
        }
        return scale_with_material(a->built_spring_k[b], material(a)->spring_k, v);
    case CONTROL_KD:
        return scale_with_material(a->built_damping[b], material(a)->spring_damping, v);
    default:
        return scale_with_material(a->built_mass[b], material(a)->mass, v);
    }
}

// How much body b's value grows with the control: its value is k v, or
// does not follow the control at all (k = 0: a constant of its own).
static double body_factor(const app *a, control c, int b) {
    const double m = c == CONTROL_KS   ? material(a)->spring_k
                     : c == CONTROL_KD ? material(a)->spring_damping
                                       : material(a)->mass;
    const double built = c == CONTROL_GAS  ? a->scene.bodies[b].gas_nrt
                         : c == CONTROL_KS ? a->built_spring_k[b]
                         : c == CONTROL_KD ? a->built_damping[b]
                                           : a->built_mass[b];
    if (c == CONTROL_GAS) {
        return built;
    }
    return built == m ? 1.0 : m > 0.0 ? built / m : 0.0;
}

static bool per_body(control c) {
    return c == CONTROL_GAS || c == CONTROL_KS || c == CONTROL_KD || c == CONTROL_MASS;
}

// The values the control may take here: the table's range, narrowed so
// that every body's own value stays in it (body values are k v, k > 0,
// and the body entries' ranges start at 0 or above).
static void allowed(const app *a, control c, double *lo, double *hi) {
    const psb_param_info *info = control_param(c);
    *lo = info->min;
    *hi = info->max;
    for (int b = 0; per_body(c) && b < a->scene.body_count; b++) {
        const double k = body_factor(a, c, b);
        if (k > 0.0) {
            *lo = fmax(*lo, info->min / k);
            *hi = fmin(*hi, info->max / k);
        }
    }
}

void control_span(const app *a, control c, double *lo, double *hi) {
    const psb_param_info *info = control_param(c);
    *lo = info->typical_min;
    *hi = info->typical_max;
    if (c == CONTROL_GAS) {
        // The table's span of nRT as multiples of the material's.
        const double m =
            material(a)->gas_nrt > 0.0 ? material(a)->gas_nrt : psb_default_params().body.gas_nrt;
        *lo /= m;
        *hi /= m;
    }
    const double d = control_default(a, c);
    if (info->scale == PSB_SCALE_LINEAR || d > 0.0) {
        *lo = fmin(*lo, d);
    }
    *hi = fmax(*hi, d);
}

void control_ascii(const char *text, char *out, size_t size) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && n + 3 < size; p++) {
        if (*p < 0x80) {
            out[n++] = (char)*p;
        } else if (p[0] == 0xC2 && (p[1] == 0xB2 || p[1] == 0xB3)) { // ² ³
            out[n++] = '^';
            out[n++] = p[1] == 0xB2 ? '2' : '3';
            p++;
        } else if (p[0] == 0xC2 && p[1] == 0xB7) { // ·
            out[n++] = '*';
            p++;
        } else if (*p >= 0xC0) {
            out[n++] = '?'; // the first byte of another character; the rest are skipped
        }
    }
    if (size > 0) {
        out[n < size ? n : size - 1] = '\0';
    }
}

double control_round(double v, int digits) {
    if (v == 0.0 || !isfinite(v)) {
        return v;
    }
    const double scale = pow(10.0, digits - 1 - floor(log10(fabs(v))));
    const double r = round(v * scale) / scale;
    return isfinite(r) ? r : v;
}

// A number short, as the core's messages write it: "1e12", "0.01667".
static void number(double v, char *out, size_t size) {
    psb_param_format(control_round(v, 4), out, size);
}

void control_format(const app *a, control c, double v, char *out, size_t size) {
    (void)a;
    const psb_param_info *info = control_param(c);
    char n[48], unit[32];
    if (c == CONTROL_INTEGRATOR) {
        snprintf(out, size, "%s", psb_integrator_name((psb_integrator)(int)v));
        return;
    }
    number(v, n, sizeof n);
    if (c == CONTROL_GAS) {
        snprintf(out, size, "x%s", n);
        return;
    }
    control_ascii(info->unit, unit, sizeof unit);
    if (strcmp(unit, "1/s") == 0) {
        snprintf(out, size, "%s/s", n); // "2/s", as the HUD writes a rate
    } else {
        snprintf(out, size, "%s%s%s", n, unit[0] ? " " : "", unit);
    }
}

void control_range_text(const app *a, control c, char *out, size_t size) {
    const psb_param_info *info = control_param(c);
    if (c == CONTROL_INTEGRATOR) {
        psb_param_describe_range(info, out, size);
        return;
    }
    double lo, hi;
    allowed(a, c, &lo, &hi);
    char l[48], h[48], unit[32];
    psb_param_format(lo, l, sizeof l);
    psb_param_format(hi, h, sizeof h);
    control_ascii(info->unit, unit, sizeof unit);
    if (c == CONTROL_GAS) {
        snprintf(out, size, "%s .. %s x each body's nRT", l, h);
    } else {
        snprintf(out, size, "%s .. %s%s%s", l, h, unit[0] ? " " : "", unit);
    }
}

void control_bodies_text(const app *a, control c, char *out, size_t size) {
    out[0] = '\0';
    if (!per_body(c) || a->scene.body_count == 0) {
        return;
    }
    const psb_param_info *info = control_param(c);
    double lo = INFINITY, hi = -INFINITY;
    for (int b = 0; b < a->scene.body_count; b++) {
        const double v = body_value(a, c, b, control_value(a, c));
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    char l[48], h[48], unit[32];
    number(lo, l, sizeof l);
    number(hi, h, sizeof h);
    control_ascii(info->unit, unit, sizeof unit);
    if (lo == hi) {
        snprintf(out, size, "every body: %s %s", l, unit);
    } else {
        snprintf(out, size, "the bodies: %s .. %s %s", l, h, unit);
    }
}

bool control_check(const app *a, control c, double v, char *why, size_t size) {
    const psb_param_info *info = control_param(c);
    char range[200], shown[64];
    control_range_text(a, c, range, sizeof range);
    control_format(a, c, v, shown, sizeof shown);
    if (!psb_param_in_range(info, v)) {
        char words[200];
        psb_param_describe_range(info, words, sizeof words);
        if (c == CONTROL_GAS) {
            snprintf(why, size, "gas %s refused: the gas may be %s", shown, range);
        } else {
            snprintf(why, size, "%s %s refused: %s is %s", infos[c].label, shown, infos[c].name,
                     words);
        }
        return false;
    }
    for (int b = 0; per_body(c) && b < a->scene.body_count; b++) {
        const double value = body_value(a, c, b, v);
        if (!psb_param_in_range(info, value)) {
            char own[48], unit[32];
            number(value, own, sizeof own);
            control_ascii(info->unit, unit, sizeof unit);
            snprintf(why, size, "%s %s refused: %s would get %s %s; here it may be %s",
                     infos[c].label, shown, a->scene.bodies[b].label, own, unit, range);
            return false;
        }
    }
    return true;
}

// The control set to v (checked), and the flags that go with it.
static void put(app *a, control c, double v) {
    if (c == CONTROL_INTEGRATOR) {
        a->integrator = (psb_integrator)(int)v;
        a->integrator_chosen = true;
        return;
    }
    *field(a, c) = v;
    if (c == CONTROL_GRAVITY) {
        a->gravity_on = true; // setting the gravity means wanting it
    }
}

// What the HUD says after a change: "stiffness ks 250 N/m", "gravity 3
// m/s^2", "integrator rk4, 20 sub-steps".
static void say(app *a, control c, const char *extra) {
    char shown[64];
    control_format(a, c, control_value(a, c), shown, sizeof shown);
    if (c == CONTROL_INTEGRATOR || c == CONTROL_DT) {
        const int n = psb_world_params(a->scene.world)->substeps;
        status_message(a, false, "%s %s%s, %d sub-step%s", infos[c].label, shown, extra, n,
                       n == 1 ? "" : "s");
    } else {
        status_message(a, false, "%s %s%s", infos[c].label, shown, extra);
    }
}

bool control_set(app *a, control c, double v, char *why, size_t size) {
    if (!control_check(a, c, v, why, size)) {
        status_message(a, true, "%s", why);
        return false;
    }
    const double old = control_value(a, c);
    const bool old_on = a->gravity_on, old_chosen = a->integrator_chosen;
    put(a, c, v);
    if (!controls_apply(a)) {
        // The world refused what the table allows (a rule across fields):
        // back to what was in force.
        snprintf(why, size, "%s", a->message);
        put(a, c, old);
        a->gravity_on = old_on;
        a->integrator_chosen = old_chosen;
        controls_apply(a);
        status_message(a, true, "%s", why);
        return false;
    }
    say(a, c, "");
    return true;
}

void control_scale(app *a, control c, double factor) {
    char why[MESSAGE_SIZE];
    control_set(a, c, control_value(a, c) * factor, why, sizeof why);
}

// Control c back to its default, without applying it.
static void put_default(app *a, control c) {
    put(a, c, control_default(a, c));
    if (c == CONTROL_INTEGRATOR) {
        a->integrator_chosen = a->config.integrator_given;
    } else if (c == CONTROL_GRAVITY) {
        a->gravity_on = a->config.scene_config.params.gravity != 0.0;
    }
}

void control_reset(app *a, control c) {
    put_default(a, c);
    controls_apply(a);
    say(a, c, " (its default)");
}

void controls_reset(app *a) {
    for (int c = 0; c < CONTROL_COUNT; c++) {
        put_default(a, (control)c);
    }
    controls_apply(a);
    status_message(a, false, "every parameter back to its default");
}

bool controls_apply(app *a) {
    psb_scene *s = &a->scene;
    const psb_scene_config *c = &a->config.scene_config;
    psb_error err = {0};
    bool ok = true;
    for (int b = 0; b < s->body_count; b++) {
        psb_body_params p = *psb_body_get_params(s->world, b);
        p.gas_nrt = body_value(a, CONTROL_GAS, b, a->gas_scale);
        p.spring_k = body_value(a, CONTROL_KS, b, a->spring_k);
        p.spring_damping = body_value(a, CONTROL_KD, b, a->spring_damping);
        p.mass = body_value(a, CONTROL_MASS, b, a->mass);
        if (a->shape != SHAPE_AS_BUILT) {
            const bool on = a->shape == SHAPE_ALL_ON;
            p.shape_k = on ? c->shape_k : 0.0;
            p.shape_damping = on ? c->shape_damping : 0.0;
        }
        if (psb_body_set_params(s->world, b, &p, &err) != PSB_OK) {
            status_message(a, true, "%s", err.message);
            ok = false;
        }
    }
    psb_params params = *psb_world_params(s->world);
    params.gravity = a->gravity_on ? a->gravity : 0.0;
    params.body_contact = a->contact_on;
    params.restitution = a->restitution;
    params.friction = a->friction;
    params.dt = a->dt;
    params.integrator = a->integrator;
    params.wind = a->wind_on ? a->wind : (psb_vec3){0.0, 0.0, 0.0};
    params.wind_turbulence = a->wind_on ? a->wind_turbulence : 0.0;
    if (psb_world_set_params(s->world, &params, &err) != PSB_OK ||
        psb_scene_refresh_substeps(s, &err) != PSB_OK) {
        status_message(a, true, "%s", err.message);
        ok = false;
    }
    // A blow-up's cause is gone once the step is within its stable limit
    // (the implicit steps are stable at any h).
    const psb_params *now = psb_world_params(s->world);
    if (psb_integrator_is_implicit(now->integrator) ||
        now->dt / now->substeps <= s->stable_substep) {
        status_blowup_clear(a);
    }
    return ok;
}
