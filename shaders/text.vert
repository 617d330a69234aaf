// HUD text: one quad per character from the glyph atlas. The vertex's z
// carries 4 * glyph + corner, from which the atlas cell's corner follows.
#version 330 core

layout(location = 0) in vec3 a_position; // x, y in pixels; z = 4 * glyph + corner
layout(location = 1) in vec4 a_color;

uniform mat4 u_transform; // pixels to clip space
uniform vec2 u_cell;      // one atlas cell in texture coordinates
uniform int u_columns;    // cells per atlas row

out vec2 v_uv;
out vec4 v_color;

void main() {
    int code = int(a_position.z + 0.5);
    int glyph = code / 4;
    int corner = code - 4 * glyph;
    vec2 cell = vec2(float(glyph % u_columns), float(glyph / u_columns));
    vec2 offset = vec2(corner == 1 || corner == 2 ? 1.0 : 0.0, corner >= 2 ? 1.0 : 0.0);
    v_uv = (cell + offset) * u_cell;
    v_color = a_color;
    gl_Position = u_transform * vec4(a_position.xy, 0.0, 1.0);
}
