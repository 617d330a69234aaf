// OpenGL helpers: shader files, streamed batches. See gl_util.h.
#include "gl_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Set by CMake: the source tree's shaders and the installed ones.
#ifndef PSB_SHADER_DIR_BUILD
#define PSB_SHADER_DIR_BUILD "shaders"
#endif
#ifndef PSB_SHADER_DIR_INSTALL
#define PSB_SHADER_DIR_INSTALL "/usr/local/share/psb/shaders"
#endif
#ifndef PSB_SHADER_DIR_RELATIVE
#define PSB_SHADER_DIR_RELATIVE "share/psb/shaders"
#endif

// Every shader file the viewer uses; a folder counts only if it has them all.
static const char *const shader_files[] = {"color.vert", "color.frag", "mesh.vert", "mesh.frag",
                                           "floor.vert", "floor.frag", "text.vert", "text.frag"};

enum { MAX_SHADER_BYTES = 1 << 20 };

static bool has_shaders(const char *dir, const char **missing) {
    for (size_t i = 0; i < sizeof shader_files / sizeof shader_files[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, shader_files[i]);
        if (access(path, R_OK) != 0) {
            *missing = shader_files[i];
            return false;
        }
    }
    return true;
}

bool exe_relative_path(const char *relative, char *out, size_t out_size) {
    char exe[4096];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        return false;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) {
        return false;
    }
    *slash = '\0';
    return snprintf(out, out_size, "%s/../%s", exe, relative) < (int)out_size;
}

bool shader_dir_find(const char *dir, char *out, size_t out_size, char *error, size_t error_size) {
    const char *missing = NULL;
    if (dir) {
        if (!has_shaders(dir, &missing)) {
            snprintf(error, error_size, "--shaders %s: no %s there", dir, missing);
            return false;
        }
        snprintf(out, out_size, "%s", dir);
        return true;
    }
    char relative[4096] = "";
    const char *candidates[3] = {NULL, PSB_SHADER_DIR_BUILD, PSB_SHADER_DIR_INSTALL};
    if (exe_relative_path(PSB_SHADER_DIR_RELATIVE, relative, sizeof relative)) {
        candidates[0] = relative;
    }
    for (int i = 0; i < 3; i++) {
        if (candidates[i] && has_shaders(candidates[i], &missing)) {
            snprintf(out, out_size, "%s", candidates[i]);
            return true;
        }
    }
    snprintf(error, error_size,
             "cannot find the shaders (%s and the rest): looked in %s, %s and %s; "
             "point --shaders DIR at the shaders/ folder of the source tree",
             shader_files[0], candidates[0] ? candidates[0] : "(no executable path)",
             PSB_SHADER_DIR_BUILD, PSB_SHADER_DIR_INSTALL);
    return false;
}

// Reads a whole file into a new NUL-terminated string, or NULL.
static char *read_text(const char *path, char *error, size_t error_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(error, error_size, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *text = malloc(MAX_SHADER_BYTES + 1);
    size_t n = text ? fread(text, 1, MAX_SHADER_BYTES + 1, f) : 0;
    const bool bad = ferror(f) != 0;
    fclose(f);
    if (!text || bad || n > MAX_SHADER_BYTES) {
        snprintf(error, error_size, "%s: %s", path,
                 !text ? "out of memory"
                 : bad ? "read error"
                       : "larger than 1 MiB");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

static GLuint compile(const char *dir, const char *name, GLenum type, char *error,
                      size_t error_size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *source = read_text(path, error, error_size);
    if (!source) {
        return 0;
    }
    GLuint shader = glCreateShader(type);
    const char *sources[1] = {source};
    glShaderSource(shader, 1, sources, NULL);
    glCompileShader(shader);
    free(source);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[2048] = "";
        glGetShaderInfoLog(shader, sizeof log, NULL, log);
        snprintf(error, error_size, "%s: compile error:\n%s", path, log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

GLuint program_load(const char *dir, const char *vert, const char *frag, char *error,
                    size_t error_size) {
    GLuint vs = compile(dir, vert, GL_VERTEX_SHADER, error, error_size);
    if (!vs) {
        return 0;
    }
    GLuint fs = compile(dir, frag, GL_FRAGMENT_SHADER, error, error_size);
    if (!fs) {
        glDeleteShader(vs);
        return 0;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        char log[2048] = "";
        glGetProgramInfoLog(program, sizeof log, NULL, log);
        snprintf(error, error_size, "link error (%s/%s + %s):\n%s", dir, vert, frag, log);
        glDeleteProgram(program);
        return 0;
    }
    return program;
}

GLuint quad_index_buffer(int quads) {
    GLuint *index = malloc((size_t)quads * 6 * sizeof *index);
    if (!index) {
        return 0;
    }
    for (int q = 0; q < quads; q++) {
        const GLuint v = 4u * (GLuint)q;
        const GLuint pattern[6] = {v, v + 1, v + 2, v, v + 2, v + 3};
        memcpy(index + 6 * q, pattern, sizeof pattern);
    }
    GLuint ibo = 0;
    glGenBuffers(1, &ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)quads * 6 * sizeof *index), index,
                 GL_STATIC_DRAW);
    free(index);
    return ibo;
}

bool batch_create(batch *b, int cap, GLuint quad_ibo) {
    memset(b, 0, sizeof *b);
    b->quads = quad_ibo != 0;
    glGenVertexArrays(1, &b->vao);
    glGenBuffers(1, &b->vbo);
    glBindVertexArray(b->vao);
    glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(cvert), (void *)offsetof(cvert, x));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(cvert),
                          (void *)offsetof(cvert, color));
    if (quad_ibo) {
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, quad_ibo);
    }
    glBindVertexArray(0);
    return batch_reserve(b, cap);
}

bool batch_reserve(batch *b, int cap) {
    cvert *v = realloc(b->v, (size_t)(cap > 0 ? cap : 1) * sizeof *v);
    if (!v) {
        return false;
    }
    b->v = v;
    b->cap = cap;
    b->count = 0;
    glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)(cap > 0 ? cap : 1) * sizeof(cvert)), NULL,
                 GL_DYNAMIC_DRAW);
    return true;
}

void batch_destroy(batch *b) {
    if (b->vao) {
        glDeleteVertexArrays(1, &b->vao);
        glDeleteBuffers(1, &b->vbo);
    }
    free(b->v);
    memset(b, 0, sizeof *b);
}

cvert *batch_alloc(batch *b, int n) {
    if (b->count + n > b->cap) {
        b->dropped += n;
        return NULL;
    }
    cvert *v = b->v + b->count;
    b->count += n;
    return v;
}

void batch_clear(batch *b) {
    b->count = 0;
    b->dropped = 0;
}

void batch_upload(const batch *b) {
    if (b->count > 0) {
        glBindBuffer(GL_ARRAY_BUFFER, b->vbo);
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)((size_t)b->count * sizeof(cvert)), b->v);
    }
}

void batch_draw(const batch *b, GLenum mode, int first, int count) {
    if (count <= 0) {
        return;
    }
    glBindVertexArray(b->vao);
    if (b->quads) {
        // Quad q uses vertices 4q .. 4q + 3 and indices 6q .. 6q + 5.
        glDrawElements(GL_TRIANGLES, count / 4 * 6, GL_UNSIGNED_INT,
                       (void *)((size_t)first / 4 * 6 * sizeof(GLuint)));
    } else {
        glDrawArrays(mode, first, count);
    }
}

void batch_line(batch *b, float x0, float y0, float z0, float x1, float y1, float z1, rgba c0,
                rgba c1) {
    cvert *v = batch_alloc(b, 2);
    if (v) {
        v[0] = (cvert){x0, y0, z0, c0};
        v[1] = (cvert){x1, y1, z1, c1};
    }
}

void batch_triangle(batch *b, const float p[3][3], rgba c) {
    cvert *v = batch_alloc(b, 3);
    if (v) {
        for (int i = 0; i < 3; i++) {
            v[i] = (cvert){p[i][0], p[i][1], p[i][2], c};
        }
    }
}

void batch_rect(batch *b, float x0, float y0, float x1, float y1, rgba top, rgba bottom) {
    if (b->quads) {
        cvert *v = batch_alloc(b, 4);
        if (v) {
            v[0] = (cvert){x0, y0, 0, top};
            v[1] = (cvert){x1, y0, 0, top};
            v[2] = (cvert){x1, y1, 0, bottom};
            v[3] = (cvert){x0, y1, 0, bottom};
        }
        return;
    }
    cvert *v = batch_alloc(b, 6);
    if (v) {
        v[0] = (cvert){x0, y0, 0, top};
        v[1] = (cvert){x1, y0, 0, top};
        v[2] = (cvert){x1, y1, 0, bottom};
        v[3] = (cvert){x0, y0, 0, top};
        v[4] = (cvert){x1, y1, 0, bottom};
        v[5] = (cvert){x0, y1, 0, bottom};
    }
}

rgba rgba_f(float r, float g, float b, float a) {
    const float c[4] = {r, g, b, a};
    uint8_t out[4];
    for (int i = 0; i < 4; i++) {
        const float x = c[i] < 0.0f ? 0.0f : c[i] > 1.0f ? 1.0f : c[i];
        out[i] = (uint8_t)(x * 255.0f + 0.5f);
    }
    return (rgba){out[0], out[1], out[2], out[3]};
}
