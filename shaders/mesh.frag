// Soft bodies: a key light, a sky/ground ambient, a soft specular and a rim,
// darkened near the floor. Colours are sRGB in and out, lit in linear light
// (gamma 2 for speed on software renderers).
#version 330 core

in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;

uniform vec3 u_eye;       // camera position, m
uniform vec3 u_light_dir; // unit vector toward the key light
uniform float u_floor_y;  // floor height, m

out vec4 frag_color;

void main() {
    vec3 n = normalize(v_normal);
    // A body turned inside out in a blow-up still shades sensibly.
    if (!gl_FrontFacing) {
        n = -n;
    }
    vec3 v = normalize(u_eye - v_world);
    vec3 base = v_color.rgb * v_color.rgb;

    float key = max(dot(n, u_light_dir), 0.0);
    vec3 ambient = mix(vec3(0.10, 0.09, 0.08), vec3(0.28, 0.32, 0.40), 0.5 + 0.5 * n.y);
    vec3 h = normalize(u_light_dir + v);
    // (n.h)^48 by squaring: cheaper than pow() on a software renderer.
    float s1 = max(dot(n, h), 0.0), s2 = s1 * s1, s4 = s2 * s2, s8 = s4 * s4, s16 = s8 * s8;
    float spec = s16 * s16 * s16 * 0.35;
    float f = 1.0 - max(dot(n, v), 0.0);
    float rim = f * f * f * 0.25;
    // Contact darkening: surfaces close to the floor and facing down get less light.
    float height = v_world.y - u_floor_y;
    float occlusion = mix(0.45, 1.0, clamp((height + 0.25 * (n.y + 1.0)) / 0.35, 0.0, 1.0));

    vec3 color = base * (ambient + 1.05 * key * vec3(1.0, 0.97, 0.92)) * occlusion;
    color += vec3(spec) * occlusion + rim * vec3(0.55, 0.65, 0.85);
    frag_color = vec4(sqrt(color), v_color.a);
}
