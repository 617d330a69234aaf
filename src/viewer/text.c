// HUD text: stb_easy_font's glyphs rasterised once into an atlas at the HUD
// scale (coverage of its segment quads per pixel), then drawn as one quad a
// character. On a software renderer this is several times cheaper than
// stb_easy_font's dozen tiny quads a character. Text is measured,
// shortened and wrapped here too, and the colours the panels draw it in
// are defined here.
#include "text.h"

#include <math.h>
#include <stb/stb_easy_font.h>
#include <stdlib.h>
#include <string.h>

enum {
    GLYPHS = 95, // ' ' .. '~'
    COLUMNS = 16,
    ROWS = 6,
    TEXT_MAX = 512,
};

// stb_easy_font's cell at scale 1: the widest advance and the line height.
#define CELL_W 8.0f
#define CELL_H 12.0f

const rgba ui_white = {235, 237, 240, 255};
const rgba ui_dim = {150, 156, 166, 255};
const rgba ui_warn = {255, 176, 64, 255};
const rgba ui_bad = {255, 92, 82, 255};
const rgba ui_good = {120, 220, 140, 255};
const rgba ui_panel = {10, 11, 14, 255};

// stb_easy_font draws the digit 0 as its letter O with two pixels inside
// that the HUD's scale blurs away, so that "O: parameters" reads as
// "0: parameters". The digit is drawn here instead, a pixel wider than the
// letter (within the same advance) and slashed corner to corner, as a
// character LCD draws it:
//   .###.
//   #...#
//   #..##
//   #.#.#
//   ##..#
//   #...#
//   .###.
// Rectangles x0, y0, x1, y1 in the font's pixels.
static const float zero_rects[][4] = {
    {1, 0, 4, 1}, {0, 1, 1, 6}, {4, 1, 5, 6}, {1, 6, 4, 7}, // the ring
    {3, 2, 4, 3}, {2, 3, 3, 4}, {1, 4, 2, 5},               // the slash
};

// Only the characters the font has; others become '?'.
static int glyph_of(unsigned char c) {
    return c >= 32 && c <= 126 ? c - 32 : '?' - 32;
}

// Adds the coverage of rectangle [x0, x1] x [y0, y1] (pixels) to a cell.
static void cover(unsigned char *cell, int stride, int w, int h, float x0, float y0, float x1,
                  float y1) {
    for (int py = (int)floorf(y0); py < (int)ceilf(y1); py++) {
        for (int px = (int)floorf(x0); px < (int)ceilf(x1); px++) {
            if (px < 0 || py < 0 || px >= w || py >= h) {
                continue;
            }
            const float ox = fminf(x1, (float)px + 1.0f) - fmaxf(x0, (float)px);
            const float oy = fminf(y1, (float)py + 1.0f) - fmaxf(y0, (float)py);
            unsigned char *p = cell + py * stride + px;
            const float v = (float)*p + 255.0f * ox * oy;
            *p = (unsigned char)fminf(v + 0.5f, 255.0f);
        }
    }
}

bool text_atlas_build(app *a, float scale) {
    const int cw = (int)ceilf(CELL_W * scale), ch = (int)ceilf(CELL_H * scale);
    const int tw = COLUMNS * cw, th = ROWS * ch;
    unsigned char *pixels = calloc((size_t)tw * (size_t)th, 1);
    if (!pixels) {
        return false;
    }
    cvert quads[4 * 64];
    for (int g = 0; g < GLYPHS; g++) {
        char text[2] = {(char)(g + 32), '\0'};
        a->text_advance[g] = (float)stb_easy_font_width(text);
        unsigned char *cell = pixels + (g / COLUMNS) * ch * tw + (g % COLUMNS) * cw;
        if (text[0] == '0') {
            for (size_t q = 0; q < sizeof zero_rects / sizeof zero_rects[0]; q++) {
                const float *r = zero_rects[q];
                cover(cell, tw, cw, ch, r[0] * scale, r[1] * scale, r[2] * scale, r[3] * scale);
            }
            continue;
        }
        const int n = stb_easy_font_print(0.0f, 0.0f, text, NULL, quads, (int)sizeof quads);
        for (int q = 0; q < n; q++) {
            const cvert *v = quads + 4 * q;
            cover(cell, tw, cw, ch, v[0].x * scale, v[0].y * scale, v[2].x * scale, v[2].y * scale);
        }
    }
    if (!a->text_texture) {
        glGenTextures(1, &a->text_texture);
    }
    glBindTexture(GL_TEXTURE_2D, a->text_texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, tw, th, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    free(pixels);
    a->text_scale = scale;
    a->text_cell_w = cw;
    a->text_cell_h = ch;
    return true;
}

void text_bind(const app *a, const float *pixels) {
    glUseProgram(a->prog.text);
    glUniformMatrix4fv(a->prog.text_transform, 1, GL_FALSE, pixels);
    glUniform2f(a->prog.text_cell, 1.0f / COLUMNS, 1.0f / ROWS);
    glUniform1i(a->prog.text_columns, COLUMNS);
    glUniform1i(a->prog.text_atlas, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, a->text_texture);
}

float ui_text_width(const app *a, const char *text, float s) {
    float w = 0.0f, line = 0.0f;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            w = fmaxf(w, line);
            line = 0.0f;
        } else {
            line += a->text_advance[glyph_of((unsigned char)*p)] * s;
        }
    }
    return fmaxf(w, line);
}

float ui_text(app *a, float x, float y, float s, rgba color, const char *text) {
    batch *b = &a->ui_text;
    // Cells are drawn at the atlas's own size times s / scale, corners on whole pixels.
    const float k = s / a->text_scale;
    const float w = (float)a->text_cell_w * k, h = (float)a->text_cell_h * k;
    float pen = 0.0f, row = roundf(y), widest = 0.0f;
    for (const char *p = text; *p && p - text < TEXT_MAX; p++) {
        if (*p == '\n') {
            widest = fmaxf(widest, pen);
            pen = 0.0f;
            row += roundf(CELL_H * s);
            continue;
        }
        const int g = glyph_of((unsigned char)*p);
        if (g != 0) { // a space draws nothing
            cvert *v = batch_alloc(b, 4);
            if (!v) {
                break;
            }
            const float x0 = roundf(x + pen), code = (float)(4 * g);
            v[0] = (cvert){x0, row, code, color};
            v[1] = (cvert){x0 + w, row, code + 1.0f, color};
            v[2] = (cvert){x0 + w, row + h, code + 2.0f, color};
            v[3] = (cvert){x0, row + h, code + 3.0f, color};
        }
        pen += a->text_advance[g] * s;
    }
    return fmaxf(widest, pen);
}

bool ui_text_elide(const app *a, const char *text, float s, float max_w, char *out, size_t size) {
    if (size == 0) {
        return true;
    }
    const size_t len = strlen(text);
    for (size_t keep = len;; keep--) {
        // The first (keep + 1) / 2 characters and the last keep / 2.
        const size_t head = (keep + 1) / 2, tail = keep / 2;
        const bool cut = keep < len;
        const size_t n = head + tail + (cut ? 3 : 0);
        if (n < size) {
            memcpy(out, text, head);
            if (cut) {
                memcpy(out + head, "...", 3);
            }
            memcpy(out + n - tail, text + len - tail, tail);
            out[n] = '\0';
            if (ui_text_width(a, out, s) <= max_w) {
                return cut;
            }
        }
        if (keep == 0) {
            // Not even the dots fit: nothing at all.
            out[0] = '\0';
            return len > 0;
        }
    }
}

int ui_wrap(app *a, float x, float y, float s, rgba color, const char *text, float max_w,
            int max_lines, bool draw) {
    char line[TEXT_MAX];
    int lines = 0;
    const char *p = text;
    while (*p && lines < max_lines) {
        int len = 0, cut = 0;
        while (p[len] && p[len] != '\n' && len < TEXT_MAX - 1) {
            memcpy(line, p, (size_t)len + 1);
            line[len + 1] = '\0';
            if (ui_text_width(a, line, s) > max_w) {
                break;
            }
            len++;
            if (p[len] == ' ' || p[len] == '\0' || p[len] == '\n') {
                cut = len;
            }
        }
        if (cut == 0) {
            cut = len > 0 ? len : 1;
        }
        memcpy(line, p, (size_t)cut);
        line[cut] = '\0';
        if (draw) {
            ui_text(a, x, y + (float)lines * CELL_H * s, s, color, line);
        }
        lines++;
        p += cut;
        while (*p == ' ' || *p == '\n') {
            p++;
        }
    }
    if (draw && *p) {
        a->text_cut++;
    }
    return lines;
}
