// Small OpenGL helpers for the viewer: shaders loaded from files with errors
// that name the file, and streamed vertex batches updated in place.
#ifndef PSB_VIEWER_GL_UTIL_H
#define PSB_VIEWER_GL_UTIL_H

#include <glad/gl.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// A colour, 8 bits per channel, sRGB.
typedef struct rgba {
    uint8_t r, g, b, a;
} rgba;

/// One vertex of flat-coloured geometry: the layout stb_easy_font writes.
typedef struct cvert {
    float x, y, z;
    rgba color;
} cvert;

/// A stream of vertices rebuilt every frame in a buffer made once: the CPU
/// array and the GL buffer have the same fixed capacity, and what does not
/// fit is counted and left out, never allocated.
typedef struct batch {
    cvert *v;    ///< CPU copy, cap vertices
    int count;   ///< vertices this frame
    int cap;     ///< capacity
    int dropped; ///< vertices left out this frame for lack of room
    GLuint vao;  ///< position at location 0, colour at 1
    GLuint vbo;  ///< GL_DYNAMIC_DRAW, cap vertices
    bool quads;  ///< drawn as quads (4 vertices each) through the shared quad index buffer
} batch;

/// <the executable's folder>/../relative into out (an installed psb's data,
/// wherever its prefix went); false when the executable's path is unknown
/// or out is too small.
bool exe_relative_path(const char *relative, char *out, size_t out_size);

/// Finds the folder that holds the shaders: dir when given, else next to
/// the executable (../share/psb/shaders), else the source tree the build
/// came from, else the install prefix. On failure writes the places tried.
bool shader_dir_find(const char *dir, char *out, size_t out_size, char *error, size_t error_size);

/// Compiles dir/vert and dir/frag and links them. On failure writes
/// "FILE: compile error:\nLOG" or "link error (A + B):\nLOG" and returns 0.
GLuint program_load(const char *dir, const char *vert, const char *frag, char *error,
                    size_t error_size);

/// A static index buffer that draws `quads` quads as two triangles each.
GLuint quad_index_buffer(int quads);

/// Makes a batch of capacity cap (GL objects and CPU array); quad_ibo != 0
/// makes it a quad batch. False when memory runs out.
bool batch_create(batch *b, int cap, GLuint quad_ibo);

/// Changes the capacity (scene changes only, never per frame).
bool batch_reserve(batch *b, int cap);

/// Frees the GL objects and the array.
void batch_destroy(batch *b);

/// Room for n more vertices, or NULL (and n counted as dropped) if full.
cvert *batch_alloc(batch *b, int n);

/// Starts a new frame.
void batch_clear(batch *b);

/// Copies the frame's vertices into the GL buffer (glBufferSubData).
void batch_upload(const batch *b);

/// Draws vertices [first, first + count) as mode (quad batches: quads).
void batch_draw(const batch *b, GLenum mode, int first, int count);

/// Appends a line from (x0, y0, z0) to (x1, y1, z1) with a colour at each end.
void batch_line(batch *b, float x0, float y0, float z0, float x1, float y1, float z1, rgba c0,
                rgba c1);

/// Appends a triangle.
void batch_triangle(batch *b, const float p[3][3], rgba c);

/// Appends an axis-aligned rectangle in the x-y plane: as a quad (quad
/// batches) or as two triangles; colours top (y0) and bottom (y1).
void batch_rect(batch *b, float x0, float y0, float x1, float y1, rgba top, rgba bottom);

/// rgba from floats in [0, 1].
rgba rgba_f(float r, float g, float b, float a);

#endif
