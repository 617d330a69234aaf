// The floor: an antialiased grid (0.5 m minor, 1 m major lines) and the arena
// walls' outline, faded into the distance. Kept lean: on a software renderer
// this shader covers half the 3D view.
#version 330 core

in vec3 v_world;

uniform vec3 u_eye;       // camera position, m
uniform float u_arena;    // walls at x, z = +-u_arena, m
uniform vec3 u_fog_color; // colour far away (sRGB)

out vec4 frag_color;

void main() {
    vec2 p = v_world.xz;
    vec2 fw = max(fwidth(p), vec2(1e-5));
    // Distance to the nearest line, in pixels: minor lines every 0.5 m, major every 1 m.
    vec2 minor = abs(fract(p * 2.0 - 0.5) - 0.5) * 0.5 / fw;
    vec2 major = abs(fract(p - 0.5) - 0.5) / fw;
    vec2 wall = abs(abs(p) - vec2(u_arena)) / fw;
    float minor_line = 1.0 - clamp(min(minor.x, minor.y), 0.0, 1.0);
    float major_line = 1.0 - clamp(min(major.x, major.y) - 0.2, 0.0, 1.0);
    bool inside = max(abs(p.x), abs(p.y)) <= u_arena;
    float wall_line = inside ? 1.0 - clamp(min(wall.x, wall.y) - 0.8, 0.0, 1.0) : 0.0;

    vec3 color = inside ? vec3(0.23, 0.25, 0.28) : vec3(0.17, 0.18, 0.20);
    color = mix(color, vec3(0.31, 0.33, 0.37), minor_line);
    color = mix(color, vec3(0.42, 0.45, 0.50), major_line);
    color = mix(color, vec3(0.85, 0.62, 0.25), wall_line);

    float fog = smoothstep(8.0, 30.0, distance(u_eye, v_world));
    frag_color = vec4(mix(color, u_fog_color, fog), 1.0);
}
