// Scene builders: the default comparison scene, pressure in both modes,
// shape matching against pressure, the flag in the wind, the planets, and a
// bare stage for loaded models. Plain data in, a world out; see psb_scene.h.
#include <psb/psb_scene.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

// Sub-steps are chosen so that h stays below this fraction of the estimate.
#define STABLE_MARGIN 0.9
#define PI            3.14159265358979323846

typedef psb_status (*scene_builder)(psb_scene *scene, psb_error *err);

typedef struct scene_entry {
    const char *name;
    const char *summary;
    scene_builder build;
} scene_entry;

// Display colours, one per body of a scene (the plots draw each body's line
// in it): the ring amber, the spheres from soft (blue) to hard (red), then
// a palette for loaded models. A ring that is compared with a sphere (the
// pressure, shape and planets scenes) takes the sphere's hue, lighter.
static const float ring_color[3] = {0.96f, 0.66f, 0.18f};
static const float gas_colors[3][3] = {
    {0.30f, 0.56f, 0.96f},
    {0.36f, 0.78f, 0.42f},
    {0.92f, 0.32f, 0.32f},
};
static const float model_colors[][3] = {
    {0.70f, 0.48f, 0.92f}, {0.25f, 0.78f, 0.80f}, {0.95f, 0.50f, 0.70f},
    {0.85f, 0.85f, 0.35f}, {0.60f, 0.70f, 0.95f}, {0.95f, 0.60f, 0.35f},
};
enum { MODEL_COLORS = (int)(sizeof model_colors / sizeof model_colors[0]) };
// How far the 2D partner of a 3D body's colour is mixed toward white.
#define PARTNER_LIGHTEN 0.4f

// The colour of the 2D body paired with a 3D body of colour c: the same
// hue, lighter. c' = c + f (1 - c) scales every channel's distance from
// white by 1 - f, which keeps the hue.
static void partner_color(const float c[3], float out[3]) {
    for (int i = 0; i < 3; i++) {
        out[i] = c[i] + PARTNER_LIGHTEN * (1.0f - c[i]);
    }
}

// Colour c in shade s: itself, then lighter (mixed toward white) and darker
// (scaled toward black) copies, each far enough from the others to tell.
static void shade(const float c[3], int s, float out[3]) {
    enum { SHADES = 12 };
    static const float toward_white[SHADES] = {0.0f, 0.4f, 0.0f,  0.2f,  0.0f, 0.6f,
                                               0.0f, 0.3f, 0.75f, 0.25f, 0.5f, 0.2f};
    static const float keep[SHADES] = {1.0f,  1.0f, 0.62f, 1.0f,  0.8f,  1.0f,
                                       0.45f, 0.7f, 1.0f,  0.45f, 0.75f, 0.85f};
    for (int i = 0; i < 3; i++) {
        const float kept = keep[s % SHADES] * c[i];
        out[i] = kept + toward_white[s % SHADES] * (1.0f - kept);
    }
}

// Loaded model k's colour: the palette, then lighter and darker copies of
// it, so that the most bodies a scene holds all differ.
static void model_color(int k, float out[3]) {
    shade(model_colors[k % MODEL_COLORS], k / MODEL_COLORS, out);
}
static const char *const gas_labels[3] = {"low gas", "medium gas", "high gas"};

psb_scene_config psb_default_scene_config(void) {
    psb_scene_config c;
    memset(&c, 0, sizeof c);
    c.params = psb_default_params();
    c.params.integrator = PSB_SCENE_INTEGRATOR;
    c.arena_half = 3.0;
    c.params.walls = true;
    c.params.walls_min = (psb_vec3){-c.arena_half, c.params.floor_y - 1.0, -c.arena_half};
    c.params.walls_max = (psb_vec3){c.arena_half, c.params.floor_y + 50.0, c.arena_half};
    // Pump the gas in over the first second with gravity held off, as the
    // tutorial's demo does: the bodies swell in the air, then fall.
    c.params.body.inflate_time = 1.0;
    c.params.gravity_waits_for_gas = true;
    c.ring_points = 48;
    c.sphere_level = 3;
    c.radius = 0.5;
    c.drop_height = 1.0;
    c.spacing = 2.0; // the high gas sphere swells to a radius of about 0.87 m
    c.gas_scale[0] = 0.1;
    c.gas_scale[1] = 1.0;
    c.gas_scale[2] = 3.0;
    c.auto_substeps = true;
    c.shape_k = 60.0;
    c.shape_damping = 3.0;
    c.flag_wind = (psb_vec3){6.0, 0.0, 0.0};
    c.flag_turbulence = 2.0;
    c.model_gas = true;
    c.model_spring_k = true;
    c.pile_balls = 12;
    // The same material in both modes, and air that brings the bouncing and
    // wobbling to rest within about ten seconds (each body's wind_drag of
    // 1 kg/(m^2 s) against its surface's motion: a 1 kg ball of 0.5 m
    // loses its bounce over a few seconds, a wobble in about 0.3 s).
    c.ring_material = true;
    c.params.still_air = true;
    // Bodies that may touch solved together (with a solved integrator):
    // none ends a step inside another (docs/contact.md).
    c.params.contact_solve = true;
    // A body touches itself (docs/contact.md, "A body against itself"),
    // but a loaded model, for what its fine mesh costs: the filled bunny's
    // first 3 s took 2.5 times as long with it.
    c.params.self_contact = true;
    c.model_self_contact = false;
    return c;
}

double psb_scene_sphere_spring_k(const psb_scene_config *c, double V0) {
    const double ks_ring = c->params.body.spring_k;
    if (!(ks_ring > 0.0)) {
        return 0.0;
    }
    const double R = c->radius, L0 = 2.0 * R * sin(PI / c->ring_points);
    const double nrt_ring = c->gas_scale[1] * psb_default_gas_nrt(PSB_RING);
    const double nrt_sphere = c->gas_scale[1] * psb_default_gas_nrt(PSB_SHELL);
    // The ring's strain: e (1 + e) = q, q = nRT_r / (pi R ks_r L0).
    const double q = nrt_ring / (PI * R * ks_ring * L0);
    const double e = 0.5 * (sqrt(1.0 + 4.0 * q) - 1.0);
    if (!(e > 0.0)) {
        return ks_ring; // no gas: nothing to match
    }
    return sqrt(3.0) / 4.0 * nrt_sphere * R / (V0 * e * (1.0 + e) * (1.0 + e));
}

int psb_scene_stable_substeps(const psb_world *world) {
    const double h_max = psb_world_stable_substep(world);
    const double dt = psb_world_params(world)->dt;
    // n = ceil(dt / (margin h_stable)), so that dt / n <= margin h_stable,
    // within the core's range for the sub-steps.
    const double needed = ceil(dt / (STABLE_MARGIN * h_max));
    const double most = psb_param_find("substeps")->max;
    if (!(needed >= 1.0)) {
        return 1;
    }
    return needed <= most ? (int)needed : (int)most;
}

psb_status psb_scene_refresh_substeps(psb_scene *scene, psb_error *err) {
    scene->substeps_needed = psb_scene_stable_substeps(scene->world);
    scene->stable_substep = psb_world_stable_substep(scene->world);
    if (!scene->config.auto_substeps) {
        return PSB_OK;
    }
    psb_params params = *psb_world_params(scene->world);
    // The estimate is the explicit integrators' limit; the implicit one is
    // stable at any step and is meant to take dt in one sub-step.
    const int explicit_wanted = scene->config.params.substeps > scene->substeps_needed
                                    ? scene->config.params.substeps
                                    : scene->substeps_needed;
    const int wanted = psb_integrator_is_implicit(params.integrator) ? 1 : explicit_wanted;
    if (params.substeps == wanted) {
        return PSB_OK;
    }
    params.substeps = wanted;
    return psb_world_set_params(scene->world, &params, err);
}

// Where and how a body goes: its centre at (x, ., z) with its lowest point
// `height` above the floor, and its material (NULL: the scene's).
typedef struct placement {
    double x, z, height;
    const psb_body_params *material;
} placement;

// Adds mesh as a body with gas nrt where `at` says.
static psb_status place_body(psb_scene *scene, const psb_mesh *mesh, placement at, double nrt,
                             const char *label, const float color[3], psb_error *err) {
    if (scene->body_count >= PSB_SCENE_MAX_BODIES) {
        return psb_error_set(err, PSB_ERR_INVALID, "the scene is full: %d bodies at most",
                             PSB_SCENE_MAX_BODIES);
    }
    if (mesh->point_count < 1) {
        return psb_error_set(err, PSB_ERR_INVALID, "%s: the mesh has no points", label);
    }
    psb_vec3 lo = mesh->points[0], hi = mesh->points[0];
    for (int i = 1; i < mesh->point_count; i++) {
        const psb_vec3 p = mesh->points[i];
        lo = (psb_vec3){fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z)};
        hi = (psb_vec3){fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z)};
    }
    const psb_scene_config *c = &scene->config;
    psb_body_def def = psb_mesh_body_def(mesh);
    def.params = at.material ? *at.material : c->params.body;
    def.params.gas_nrt = nrt;
    def.offset.x = at.x - 0.5 * (lo.x + hi.x);
    def.offset.y = c->params.floor_y + at.height - lo.y;
    def.offset.z = mesh->kind == PSB_RING ? 0.0 : at.z - 0.5 * (lo.z + hi.z);
    const int id = psb_world_add_body(scene->world, &def, err);
    if (id < 0) {
        return err ? err->status : PSB_ERR_INVALID;
    }
    psb_scene_body *info = &scene->bodies[id];
    memset(info, 0, sizeof *info);
    snprintf(info->label, sizeof info->label, "%s", label);
    memcpy(info->color, color, sizeof info->color);
    info->gas_nrt = nrt;
    info->rest_volume = psb_body_measure(scene->world, id).rest_volume;
    scene->body_count = id + 1;
    return PSB_OK;
}

// The same, dropped from the scene's drop height with its material.
static psb_status add_body(psb_scene *scene, const psb_mesh *mesh, double x, double z, double nrt,
                           const char *label, const float color[3], psb_error *err) {
    const placement at = {x, z, scene->config.drop_height, NULL};
    return place_body(scene, mesh, at, nrt, label, color, err);
}

// The ring with the medium gas, its lowest point `height` above the floor.
static psb_status add_ring_at(psb_scene *scene, double height, psb_error *err) {
    const psb_scene_config *c = &scene->config;
    psb_mesh ring;
    psb_status status = psb_mesh_ring(&ring, c->ring_points, c->radius, err);
    if (status != PSB_OK) {
        return status;
    }
    const double nrt = c->gas_scale[1] * psb_default_gas_nrt(PSB_RING);
    const placement at = {0.0, 0.0, height, NULL};
    status = place_body(scene, &ring, at, nrt, "ring (2D)", ring_color, err);
    psb_mesh_free(&ring);
    return status;
}

static psb_status add_ring(psb_scene *scene, psb_error *err) {
    return add_ring_at(scene, scene->config.drop_height, err);
}

// The ring alone: the 2D view's body, and a stage for loaded models.
static psb_status build_ring(psb_scene *scene, psb_error *err) {
    return add_ring(scene, err);
}

// The material of the scene's spheres (the mesh given): the ring's
// (ring_material), or the scene's own.
static psb_body_params sphere_material(const psb_scene_config *c, const psb_mesh *sphere) {
    psb_body_params material = c->params.body;
    if (c->ring_material) {
        material.spring_k = psb_scene_sphere_spring_k(c, fabs(psb_mesh_volume(sphere)));
    }
    return material;
}

// The ring, and three spheres side by side with low, medium and high gas.
static psb_status build_default(psb_scene *scene, psb_error *err) {
    psb_status status = add_ring(scene, err);
    if (status != PSB_OK) {
        return status;
    }
    const psb_scene_config *c = &scene->config;
    psb_mesh sphere;
    status = psb_mesh_icosphere(&sphere, c->sphere_level, c->radius, err);
    if (status != PSB_OK) {
        return status;
    }
    const psb_body_params material = sphere_material(c, &sphere);
    for (int k = 0; k < 3 && status == PSB_OK; k++) {
        const double nrt = c->gas_scale[k] * psb_default_gas_nrt(PSB_SHELL);
        const placement at = {(k - 1) * c->spacing, 0.0, c->drop_height, &material};
        status = place_body(scene, &sphere, at, nrt, gas_labels[k], gas_colors[k], err);
    }
    psb_mesh_free(&sphere);
    return status;
}

// The medium gas for a mesh, scaled by its volume (area) against the default
// sphere's (ring's), so that it starts at the same pressure.
static double medium_gas(const psb_scene *scene, const psb_mesh *mesh) {
    const double r = scene->config.radius;
    const double reference = mesh->kind == PSB_RING ? PI * r * r : 4.0 / 3.0 * PI * r * r * r;
    return scene->config.gas_scale[1] * psb_default_gas_nrt(mesh->kind) *
           fabs(psb_mesh_volume(mesh)) / reference;
}

// Three gas amounts in both modes: three rings beside three spheres.
static psb_status build_pressure(psb_scene *scene, psb_error *err) {
    const psb_scene_config *c = &scene->config;
    psb_mesh ring, sphere;
    psb_status status = psb_mesh_ring(&ring, c->ring_points, c->radius, err);
    if (status != PSB_OK) {
        return status;
    }
    status = psb_mesh_icosphere(&sphere, c->sphere_level, c->radius, err);
    // On the floor the low gas spreads a ring into a puddle and the high gas
    // swells one to 1.6 times its radius: they stand farther apart than the
    // spheres, so that they do not touch, the high one well clear of the
    // right wall.
    const double ring_spacing = fmax(c->spacing, 3.8 * c->radius);
    const double ring_shift = -0.6 * c->radius;
    for (int k = 0; k < 3 && status == PSB_OK; k++) {
        char label[32];
        snprintf(label, sizeof label, "%s (2D)", gas_labels[k]);
        float color[3];
        partner_color(gas_colors[k], color);
        status = add_body(scene, &ring, (k - 1) * ring_spacing + ring_shift, 0.0,
                          c->gas_scale[k] * psb_default_gas_nrt(PSB_RING), label, color, err);
    }
    const psb_body_params material = sphere_material(c, &sphere);
    for (int k = 0; k < 3 && status == PSB_OK; k++) {
        const placement at = {(k - 1) * c->spacing, 0.0, c->drop_height, &material};
        status = place_body(scene, &sphere, at, c->gas_scale[k] * psb_default_gas_nrt(PSB_SHELL),
                            gas_labels[k], gas_colors[k], err);
    }
    psb_mesh_free(&ring);
    psb_mesh_free(&sphere);
    return status;
}

// Shape matching against pressure on bodies that are not round at rest: a
// square ring and a cube, each with gas only, shape matching only (no gas)
// and both.
static psb_status build_shape(psb_scene *scene, psb_error *err) {
    static const char *const labels[3] = {"gas only", "shape only", "gas + shape"};
    static const float colors[3][3] = {
        {0.30f, 0.56f, 0.96f},
        {0.86f, 0.55f, 0.20f},
        {0.36f, 0.78f, 0.42f},
    };
    const psb_scene_config *c = &scene->config;
    const double half = 0.8 * c->radius;
    const int side_points = (c->ring_points + 3) / 4;
    psb_mesh square, cube;
    psb_status status = psb_mesh_square_ring(&square, 4 * side_points, half, err);
    if (status != PSB_OK) {
        return status;
    }
    status = psb_mesh_box(&cube, 4, (psb_vec3){half, half, half}, err);
    const psb_mesh *meshes[2] = {&square, &cube};
    for (int m = 0; m < 2 && status == PSB_OK; m++) {
        for (int k = 0; k < 3 && status == PSB_OK; k++) {
            psb_body_params material = c->params.body;
            const bool gas = k != 1, shape = k != 0;
            material.shape_k = shape ? c->shape_k : 0.0;
            material.shape_damping = shape ? c->shape_damping : 0.0;
            const placement at = {(k - 1) * c->spacing, 0.0, c->drop_height, &material};
            char label[32];
            snprintf(label, sizeof label, "%s%s", labels[k], m == 0 ? " (2D)" : "");
            float color[3];
            if (m == 0) {
                partner_color(colors[k], color);
            } else {
                memcpy(color, colors[k], sizeof color);
            }
            status = place_body(scene, meshes[m], at, gas ? medium_gas(scene, meshes[m]) : 0.0,
                                label, color, err);
        }
    }
    psb_mesh_free(&square);
    psb_mesh_free(&cube);
    return status;
}

// A flag: a cloth pinned at its two left corners, in a gusty wind along +x
// that also swings the ring, hung from a pin at its top, in the 2D view.
static psb_status build_flag(psb_scene *scene, psb_error *err) {
    static const float flag_color[3] = {0.85f, 0.22f, 0.25f};
    psb_scene_config *c = &scene->config;
    psb_params params = *psb_world_params(scene->world);
    params.wind = c->flag_wind;
    params.wind_turbulence = c->flag_turbulence;
    psb_status status = psb_world_set_params(scene->world, &params, err);
    if (status == PSB_OK) {
        status = add_ring_at(scene, 0.6, err);
    }
    if (status == PSB_OK) {
        // The ring hangs from a pin at its top, so the wind swings it.
        const int top = c->ring_points / 4;
        status = psb_body_pin(scene->world, 0, top, psb_body_positions(scene->world, 0)[top], err);
    }
    if (status != PSB_OK) {
        return status;
    }
    enum { COLUMNS = 16, ROWS = 11 };
    const double width = 1.6, height = 1.0, top = 2.4;
    psb_mesh cloth;
    status = psb_mesh_cloth(&cloth, COLUMNS, ROWS, width, height, err);
    if (status != PSB_OK) {
        return status;
    }
    // A light, stiff cloth: 0.25 kg, ks 500 N/m, each point damped on its own scale.
    psb_body_params material = c->params.body;
    material.mass = 0.25;
    material.spring_k = 500.0;
    material.spring_damping = 0.01;
    material.mass_by_area = false;
    material.inflate_time = 0.0;
    const placement at = {0.0, 0.0, top - height, &material}; // left edge at x = -0.8 m
    status = place_body(scene, &cloth, at, 0.0, "flag (cloth)", flag_color, err);
    const int id = scene->body_count - 1;
    for (int k = 0; k < 2 && status == PSB_OK; k++) {
        const int point = k == 0 ? 0 : (ROWS - 1) * COLUMNS; // top and bottom left corners
        status =
            psb_body_pin(scene->world, id, point, psb_body_positions(scene->world, id)[point], err);
    }
    psb_mesh_free(&cloth);
    return status;
}

// Static spheres of different sizes, centred in the plane z = 0 so that the
// 2D view sees them as circles; rings and spheres fall onto them.
static psb_status build_planets(psb_scene *scene, psb_error *err) {
    static const double planets[][4] = {
        // x, y, z, radius (m)
        {-1.5, 0.9, 0.0, 0.7},
        {0.6, 0.5, 0.0, 0.45},
        {1.9, 1.6, 0.0, 0.3},
        {-0.2, 2.4, 0.0, 0.2},
    };
    const psb_scene_config *c = &scene->config;
    psb_status status = PSB_OK;
    for (size_t p = 0; p < sizeof planets / sizeof planets[0] && status == PSB_OK; p++) {
        status = psb_world_add_sphere(
            scene->world,
            (psb_vec3){planets[p][0], c->params.floor_y + planets[p][1], planets[p][2]},
            planets[p][3], err);
    }
    if (status != PSB_OK) {
        return status;
    }
    psb_mesh ring, sphere;
    status = psb_mesh_ring(&ring, c->ring_points, c->radius, err);
    if (status != PSB_OK) {
        return status;
    }
    status = psb_mesh_icosphere(&sphere, c->sphere_level, c->radius, err);
    // Each drops onto a planet a little off its top, so it rolls off: x,
    // height of the lowest point, z (m). The two rings roll apart, to the
    // left and to the right.
    static const double drops[3][3] = {{-1.75, 2.6, 0.1}, {2.05, 3.9, -0.15}, {0.8, 3.3, 0.1}};
    for (int k = 0; k < 2 && status == PSB_OK; k++) {
        char label[32];
        snprintf(label, sizeof label, "ring %d (2D)", k + 1);
        const placement at = {drops[k][0], 0.0, drops[k][1], NULL};
        float color[3];
        partner_color(gas_colors[k], color); // ring k drops where ball k does
        status = place_body(scene, &ring, at, c->gas_scale[1] * psb_default_gas_nrt(PSB_RING),
                            label, color, err);
    }
    const psb_body_params material = sphere_material(c, &sphere);
    for (int k = 0; k < 3 && status == PSB_OK; k++) {
        char label[32];
        snprintf(label, sizeof label, "ball %d", k + 1);
        const placement at = {drops[k][0], drops[k][2], drops[k][1], &material};
        status = place_body(scene, &sphere, at, c->gas_scale[1] * psb_default_gas_nrt(PSB_SHELL),
                            label, gas_colors[k], err);
    }
    psb_mesh_free(&ring);
    psb_mesh_free(&sphere);
    return status;
}

// A dozen balls (config.pile_balls) of three sizes and three gas amounts
// dropped into a box of 1.6 m, four at a time, and a dozen rings of the
// same sizes and gas into the same box in 2D, two at a time: they land on
// each other and settle into a pile (contact between bodies,
// docs/contact.md). More than a dozen balls drop nine at a time, on a 3 by
// 3 square, into a box of 2.6 m.
static psb_status build_pile(psb_scene *scene, psb_error *err) {
    const psb_scene_config *c = &scene->config;
    if (c->pile_balls < 1 || c->pile_balls > PSB_PILE_MAX_BALLS) {
        return psb_error_set(err, PSB_ERR_INVALID, "scene pile_balls: expected 1..%d, got %d",
                             PSB_PILE_MAX_BALLS, c->pile_balls);
    }
    psb_params params = *psb_world_params(scene->world);
    // Balls on a side of a layer's square, and the box around them: the
    // balls' centres 1.7 radii apart; the walls of the dozen's box 0.75
    // radii beyond the outer centres (0.8 m for the default radius of
    // 0.5 m), so that the largest balls start squeezed by them; nine a
    // layer, far enough that the largest, shifted, starts inside.
    const int side = c->pile_balls > 12 ? 3 : 2;
    const double spot = 0.85 * c->radius, layer = 2.0 * c->radius;
    const double half = (side == 2 ? 1.6 : 2.6) * c->radius;
    params.walls = true;
    params.walls_min = (psb_vec3){-half, c->params.floor_y - 1.0, -half};
    params.walls_max = (psb_vec3){half, c->params.floor_y + 50.0, half};
    psb_status status = psb_world_set_params(scene->world, &params, err);
    // Radii as fractions of the config's radius (0.4, 0.3 and 0.35 m), and
    // half, once and twice the medium gas for the size (the scene's low gas
    // is too little to carry the pile: it would be crushed flat); a ring
    // three times that, as a chain of springs has no stiffness against
    // bending and only its gas holds it up under the rings above. A ring
    // weighs half the material's mass: a ring's gas carries the rings above
    // with its pressure (N/m) over the width it touches them, 15 to 50 N/m,
    // and under five rings of 1 kg the lowest were crushed to 0.4 of their
    // area and folded into zig-zags, through themselves and into their
    // neighbours (docs/contact.md, "The pile's rings").
    static const double sizes[3] = {0.8, 0.6, 0.7};
    static const double gas[3] = {0.5, 1.0, 2.0};
    const double ring_gas = 3.0, ring_weight = 0.5;
    for (int kind = 0; kind < 2 && status == PSB_OK; kind++) {
        const bool rings = kind == 0;
        const int count = rings ? 12 : c->pile_balls;
        for (int k = 0; k < count && status == PSB_OK; k++) {
            const int size = k % 3, amount = (k / 3 + k) % 3;
            psb_mesh mesh;
            const double r = sizes[size] * c->radius;
            status = rings ? psb_mesh_ring(&mesh, c->ring_points, r, err)
                           : psb_mesh_icosphere(&mesh, c->sphere_level, r, err);
            if (status != PSB_OK) {
                break;
            }
            // 3D: layers of side by side on a square (four on its corners,
            // or nine); 2D: layers of two. Each layer a little to the side
            // of the one below, so that nothing stacks straight.
            const int per_layer = rings ? 2 : side * side, level = k / per_layer;
            const double shift = 0.1 * c->radius * ((level % 2) ? 1 : -1);
            const int column = rings ? k % 2 : k % side, row = rings ? 0 : (k / side) % side;
            const double first = rings ? -spot : -(side - 1) * spot;
            double x = first + column * 2.0 * spot + shift;
            if (rings) {
                // Inside the walls: a ring's points that start beyond a wall
                // are put back on it with the move as velocity (metres a
                // second), and the dent they make folds the ring.
                x = fmax(-half + r, fmin(half - r, x));
            }
            const double z = rings ? 0.0 : -(side - 1) * spot + row * 2.0 * spot - shift;
            psb_body_params material = rings ? c->params.body : sphere_material(c, &mesh);
            if (rings) {
                material.mass *= ring_weight;
            }
            const placement at = {x, z, c->drop_height + level * layer, &material};
            const double nrt =
                (rings ? ring_gas : 1.0) * gas[amount] * c->gas_scale[1] * medium_gas(scene, &mesh);
            char label[32];
            snprintf(label, sizeof label, "%s %d%s", rings ? "ring" : "ball", k + 1,
                     rings ? " (2D)" : "");
            // The gas amount's hue, a shade of its own for each of the four
            // bodies with that gas (one in each group of three); a ring
            // lighter than the ball of its index.
            static const int shades[4] = {0, 2, 4, 3};
            float color[3];
            shade(gas_colors[amount], shades[(k / 3) % 4], color);
            if (rings) {
                float ball[3];
                memcpy(ball, color, sizeof ball);
                partner_color(ball, color);
            }
            status = place_body(scene, &mesh, at, nrt, label, color, err);
            psb_mesh_free(&mesh);
        }
    }
    return status;
}

static const scene_entry scenes[] = {
    {"default", "the 2D ring and three 3D spheres with low, medium and high gas", build_default},
    {"pressure", "low, medium and high gas in both modes: three rings beside three spheres",
     build_pressure},
    {"shape",
     "shape matching against pressure: a square ring and a cube with gas only, shape "
     "matching only, and both",
     build_shape},
    {"flag", "a cloth pinned at two corners in a gusty wind along +x; the ring hangs in it",
     build_flag},
    {"planets", "static spheres of different sizes that rings and balls fall onto and roll over",
     build_planets},
    {"ring", "the 2D ring alone (a stage for loaded models)", build_ring},
    {"pile",
     "a dozen balls (--balls N: up to 50) and a dozen rings of three sizes and gas amounts "
     "dropped into a box: they settle into a pile",
     build_pile},
};

enum { SCENE_COUNT = (int)(sizeof scenes / sizeof scenes[0]) };

int psb_scene_count(void) {
    return SCENE_COUNT;
}

const char *psb_scene_name(int index) {
    return index >= 0 && index < SCENE_COUNT ? scenes[index].name : "?";
}

const char *psb_scene_summary(int index) {
    return index >= 0 && index < SCENE_COUNT ? scenes[index].summary : "?";
}

int psb_scene_find(const char *name) {
    for (int i = 0; i < SCENE_COUNT; i++) {
        if (strcmp(name, scenes[i].name) == 0) {
            return i;
        }
    }
    return -1;
}

static psb_status check_config(const psb_scene_config *c, psb_error *err) {
    if (c->ring_points < 3) {
        return psb_error_set(err, PSB_ERR_INVALID, "scene ring_points: expected >= 3, got %d",
                             c->ring_points);
    }
    if (c->sphere_level < 0 || c->sphere_level > 8) {
        return psb_error_set(err, PSB_ERR_INVALID, "scene sphere_level: expected 0..8, got %d",
                             c->sphere_level);
    }
    if (!(c->radius > 0.0 && isfinite(c->radius)) || !(c->spacing > 0.0 && isfinite(c->spacing)) ||
        !(c->arena_half > 0.0 && isfinite(c->arena_half))) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "scene radius, spacing, arena_half: expected finite numbers > 0 (m)");
    }
    if (!(c->drop_height >= 0.0 && isfinite(c->drop_height))) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "scene drop_height: expected a finite number >= 0 (m), got %g",
                             c->drop_height);
    }
    for (int k = 0; k < 3; k++) {
        if (!(c->gas_scale[k] >= 0.0 && isfinite(c->gas_scale[k]))) {
            return psb_error_set(err, PSB_ERR_INVALID,
                                 "scene gas_scale[%d]: expected a finite number >= 0, got %g", k,
                                 c->gas_scale[k]);
        }
    }
    if (!(c->shape_k >= 0.0 && isfinite(c->shape_k)) ||
        !(c->shape_damping >= 0.0 && isfinite(c->shape_damping))) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "scene shape_k, shape_damping: expected finite numbers >= 0 (N/m, "
                             "1/s), got %g and %g",
                             c->shape_k, c->shape_damping);
    }
    if (!(isfinite(c->flag_wind.x) && isfinite(c->flag_wind.y) && isfinite(c->flag_wind.z)) ||
        !(c->flag_turbulence >= 0.0 && isfinite(c->flag_turbulence))) {
        return psb_error_set(err, PSB_ERR_INVALID,
                             "scene flag_wind, flag_turbulence: expected a finite vector (m/s) and "
                             "a finite number >= 0 (m/s)");
    }
    return psb_body_params_validate(&c->params.body, err);
}

psb_status psb_scene_build(psb_scene *out, const char *name, const psb_scene_config *config,
                           psb_error *err) {
    memset(out, 0, sizeof *out);
    const int index = psb_scene_find(name);
    if (index < 0) {
        char names[256] = "";
        for (int i = 0; i < SCENE_COUNT; i++) {
            const size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", scenes[i].name);
        }
        return psb_error_set(err, PSB_ERR_INVALID, "unknown scene '%s' (expected one of: %s)", name,
                             names);
    }
    psb_status status = check_config(config, err);
    if (status != PSB_OK) {
        return status;
    }
    out->config = *config;
    out->world = psb_world_create(&config->params, err);
    if (!out->world) {
        return err ? err->status : PSB_ERR_INVALID;
    }
    snprintf(out->name, sizeof out->name, "%s", name);
    status = scenes[index].build(out, err);
    if (status == PSB_OK) {
        status = psb_scene_refresh_substeps(out, err);
    }
    if (status != PSB_OK) {
        psb_scene_destroy(out);
    }
    return status;
}

// Spots for added models: a row along x through the middle, then rows
// behind and in front of it, all inside the walls.
static void model_spot(const psb_scene *scene, int model, double *x, double *z) {
    const psb_scene_config *c = &scene->config;
    const int per_row = 1 + 2 * (int)floor((c->arena_half - 0.5 * c->spacing) / c->spacing);
    const int row = model / (per_row > 0 ? per_row : 1);
    const int col = model % (per_row > 0 ? per_row : 1);
    // 0, -1, +1, -2, +2, ... spacings from the middle
    const int side = (col + 1) / 2 * (col % 2 ? -1 : 1);
    const int row_side = (row + 1) / 2 * (row % 2 ? -1 : 1);
    *x = side * c->spacing;
    *z = row_side * c->spacing;
}

// How high above the floor the highest point of the scene's bodies of
// kind's mode (3D, or 2D for a ring) is now; 0 with none.
static double pile_top(const psb_scene *scene, psb_body_kind kind) {
    const bool ring = kind == PSB_RING;
    double top = scene->config.params.floor_y;
    for (int b = 0; b < scene->body_count; b++) {
        if ((psb_body_get_kind(scene->world, b) == PSB_RING) != ring) {
            continue;
        }
        const psb_vec3 *x = psb_body_positions(scene->world, b);
        for (int i = 0; i < psb_body_point_count(scene->world, b); i++) {
            top = fmax(top, x[i].y);
        }
    }
    return top - scene->config.params.floor_y;
}

psb_status psb_scene_add_mesh(psb_scene *scene, const psb_mesh *mesh, const char *label,
                              psb_error *err) {
    int models = 0;
    for (int b = 0; b < scene->body_count; b++) {
        models += psb_body_get_kind(scene->world, b) == mesh->kind;
    }
    // The 3D spot count starts after the spheres of a scene that has them.
    // On the pile, every model drops onto its top, in the middle of the box.
    double x = 0.0, z = 0.0, height = scene->config.drop_height;
    if (strcmp(scene->name, "pile") == 0) {
        height += pile_top(scene, mesh->kind);
    } else {
        model_spot(scene, models, &x, &z);
    }
    // The medium gas, scaled with the model's volume so that it starts at the
    // pressure of the medium sphere (ring): nRT / V the same.
    const psb_body_kind kind = mesh->kind;
    const double r = scene->config.radius;
    const double reference = kind == PSB_RING ? PI * r * r : 4.0 / 3.0 * PI * r * r * r;
    const double volume = psb_mesh_volume(mesh);
    if (!(volume > 0.0 && isfinite(volume))) {
        return psb_error_set(err, PSB_ERR_TOPOLOGY,
                             "%s: the mesh encloses no volume (%g): it cannot hold gas", label,
                             volume);
    }
    double nrt = scene->config.gas_scale[1] * psb_default_gas_nrt(kind) * volume / reference;
    psb_body_params material = scene->config.params.body;
    if (kind == PSB_SHELL && (scene->config.model_gas || scene->config.model_spring_k)) {
        psb_mesh_material own;
        const psb_status found =
            psb_mesh_default_material(mesh, material.mass, scene->config.params.gravity, &own, err);
        if (found != PSB_OK) {
            return found;
        }
        nrt = scene->config.model_gas ? own.gas_nrt : nrt;
        material.spring_k = scene->config.model_spring_k ? own.spring_k : material.spring_k;
    }
    material.self_contact = scene->config.model_self_contact;
    const placement at = {x, z, height, &material};
    float color[3];
    model_color(scene->body_count, color);
    const psb_status status = place_body(scene, mesh, at, nrt, label, color, err);
    if (status != PSB_OK) {
        return status;
    }
    return psb_scene_refresh_substeps(scene, err);
}

void psb_scene_destroy(psb_scene *scene) {
    psb_world_destroy(scene->world);
    memset(scene, 0, sizeof *scene);
}
