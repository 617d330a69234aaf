// OBJ parsing: Wavefront OBJ text -> positions and triangles.
//
// The file is read into memory whole and walked line by line with pointers
// into that buffer: no copies, no allocation per line, numbers read by a
// parser of our own (the C library's strtod follows the locale's decimal
// point). Faces with more than three corners are triangulated by ear clipping
// in the plane that fits them best (triangulate.c), so non-convex polygons
// stay correct.
//
// Positive face indices may refer to vertices defined later in the file; such
// faces are kept aside (their triangle slots reserved, so the file's order is
// kept) and checked and triangulated once every vertex has been read.
#include "triangulate.h"
#include <psb/psb_obj.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Most vertices, triangles or lines a file may have: far beyond any real mesh,
// and small enough that 3 * count and the sizes computed from it cannot overflow.
enum { MAX_COUNT = INT_MAX / 4 };

// A token quoted in a message is cut to this many bytes.
enum { QUOTE_MAX = 40 };

// ---------------------------------------------------------------------------
// Characters and numbers

// Blanks inside a line (the line ends at '\n'; a '\r' before it is a blank).
static bool is_blank(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_digit(unsigned char c) {
    return (unsigned)(c - '0') < 10u;
}

// A byte that has no business in a text file: control characters other than
// the blanks and '\n', and DEL.
static bool is_binary(unsigned char c) {
    return (c < 0x20 && c != '\n' && !is_blank(c)) || c == 0x7f;
}

static const char *skip_blanks(const char *s, const char *end) {
    while (s < end && is_blank((unsigned char)*s)) {
        s++;
    }
    return s;
}

static const char *token_end(const char *s, const char *end) {
    while (s < end && !is_blank((unsigned char)*s)) {
        s++;
    }
    return s;
}

// 10^0 .. 10^308 as the compiler rounds them (correctly); exact up to 10^22.
static const double powers_of_ten[309] = {
    1e0,   1e1,   1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,
    1e13,  1e14,  1e15,  1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23,  1e24,  1e25,
    1e26,  1e27,  1e28,  1e29,  1e30,  1e31,  1e32,  1e33,  1e34,  1e35,  1e36,  1e37,  1e38,
    1e39,  1e40,  1e41,  1e42,  1e43,  1e44,  1e45,  1e46,  1e47,  1e48,  1e49,  1e50,  1e51,
    1e52,  1e53,  1e54,  1e55,  1e56,  1e57,  1e58,  1e59,  1e60,  1e61,  1e62,  1e63,  1e64,
    1e65,  1e66,  1e67,  1e68,  1e69,  1e70,  1e71,  1e72,  1e73,  1e74,  1e75,  1e76,  1e77,
    1e78,  1e79,  1e80,  1e81,  1e82,  1e83,  1e84,  1e85,  1e86,  1e87,  1e88,  1e89,  1e90,
    1e91,  1e92,  1e93,  1e94,  1e95,  1e96,  1e97,  1e98,  1e99,  1e100, 1e101, 1e102, 1e103,
    1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110, 1e111, 1e112, 1e113, 1e114, 1e115, 1e116,
    1e117, 1e118, 1e119, 1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127, 1e128, 1e129,
    1e130, 1e131, 1e132, 1e133, 1e134, 1e135, 1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142,
    1e143, 1e144, 1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151, 1e152, 1e153, 1e154, 1e155,
    1e156, 1e157, 1e158, 1e159, 1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168,
    1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175, 1e176, 1e177, 1e178, 1e179, 1e180, 1e181,
    1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188, 1e189, 1e190, 1e191, 1e192, 1e193, 1e194,
    1e195, 1e196, 1e197, 1e198, 1e199, 1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207,
    1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219, 1e220,
    1e221, 1e222, 1e223, 1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231, 1e232, 1e233,
    1e234, 1e235, 1e236, 1e237, 1e238, 1e239, 1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246,
    1e247, 1e248, 1e249, 1e250, 1e251, 1e252, 1e253, 1e254, 1e255, 1e256, 1e257, 1e258, 1e259,
    1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266, 1e267, 1e268, 1e269, 1e270, 1e271, 1e272,
    1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279, 1e280, 1e281, 1e282, 1e283, 1e284, 1e285,
    1e286, 1e287, 1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298,
    1e299, 1e300, 1e301, 1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308,
};

// Is [s, end) the word "nan", "nan(...)", "inf" or "infinity", in any case,
// as printf writes non-finite numbers?
static bool is_not_finite_word(const char *s, const char *end) {
    char word[9] = {0};
    size_t length = (size_t)(end - s);
    for (size_t i = 0; i < length && i < 8; i++) {
        char c = s[i];
        word[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    if (length >= 4 && memcmp(word, "nan(", 4) == 0 && end[-1] == ')') {
        return true;
    }
    return (length == 3 && (memcmp(word, "nan", 3) == 0 || memcmp(word, "inf", 3) == 0)) ||
           (length == 8 && memcmp(word, "infinity", 8) == 0);
}

typedef enum number_result {
    NUMBER_OK,
    NUMBER_BAD,        // not a decimal number
    NUMBER_NOT_FINITE, // "nan", "inf", or too large for a double
} number_result;

// Reads the whole of [s, end) as a decimal number: [+-] digits [. digits]
// [(e|E) [+-] digits], at least one digit before the exponent. The first 19
// significant digits go into a 64-bit integer m (19 digits always fit), the
// rest only move the decimal point, and the value is m * 10^e computed with
// one rounded product or quotient by a power of ten from the table: exact when
// m < 2^53 and |e| <= 22 (most of an OBJ file), otherwise within about one and
// a half units in the last place (m rounded, 10^e rounded, the product rounded).
static number_result parse_number(const char *s, const char *end, double *out) {
    bool negative = false;
    if (s < end && (*s == '+' || *s == '-')) {
        negative = *s == '-';
        s++;
    }
    if (s < end && !is_digit((unsigned char)*s) && *s != '.') {
        return is_not_finite_word(s, end) ? NUMBER_NOT_FINITE : NUMBER_BAD;
    }
    uint64_t mantissa = 0;
    int digits = 0;   // significant digits in mantissa (leading zeros do not count)
    int exponent = 0; // value = mantissa * 10^exponent
    bool any_digit = false;
    for (; s < end && is_digit((unsigned char)*s); s++) {
        any_digit = true;
        if (digits < 19) {
            mantissa = mantissa * 10 + (uint64_t)(*s - '0');
            digits += mantissa != 0;
        } else {
            exponent++; // a digit too many to keep: it only scales the value
        }
    }
    if (s < end && *s == '.') {
        for (s++; s < end && is_digit((unsigned char)*s); s++) {
            any_digit = true;
            if (digits < 19) {
                mantissa = mantissa * 10 + (uint64_t)(*s - '0');
                digits += mantissa != 0;
                exponent--;
            }
        }
    }
    if (!any_digit) {
        return NUMBER_BAD;
    }
    if (s < end && (*s == 'e' || *s == 'E')) {
        s++;
        bool exponent_negative = false;
        if (s < end && (*s == '+' || *s == '-')) {
            exponent_negative = *s == '-';
            s++;
        }
        if (s == end || !is_digit((unsigned char)*s)) {
            return NUMBER_BAD;
        }
        int written = 0;
        for (; s < end && is_digit((unsigned char)*s); s++) {
            if (written < 100000) { // beyond this the value is 0 or infinite anyway
                written = written * 10 + (*s - '0');
            }
        }
        exponent += exponent_negative ? -written : written;
    }
    if (s != end) {
        return NUMBER_BAD;
    }
    double value = 0.0;
    if (mantissa != 0) {
        double m = (double)mantissa;
        if (exponent >= 0) {
            if (exponent <= 308) {
                value = m * powers_of_ten[exponent];
            } else if (exponent <= 2 * 308) {
                value = m * powers_of_ten[308] * powers_of_ten[exponent - 308];
            } else {
                value = HUGE_VAL;
            }
        } else if (exponent >= -308) {
            value = m / powers_of_ten[-exponent];
        } else if (exponent >= -2 * 308) {
            // m < 10^19, so m / 10^308 is a normal number; the second quotient
            // may be subnormal or 0, as it should.
            value = m / powers_of_ten[308] / powers_of_ten[-exponent - 308];
        }
        if (!isfinite(value)) {
            return NUMBER_NOT_FINITE;
        }
    }
    *out = negative ? -value : value;
    return NUMBER_OK;
}

// Reads an integer [+-]digits at *s (not necessarily the whole token), moving
// *s past it. Digits past 10^15 are read but not added: the value is out of
// range anyway.
static bool parse_integer(const char **s, const char *end, long long *out) {
    const char *p = *s;
    bool negative = false;
    if (p < end && (*p == '+' || *p == '-')) {
        negative = *p == '-';
        p++;
    }
    if (p == end || !is_digit((unsigned char)*p)) {
        return false;
    }
    long long value = 0;
    for (; p < end && is_digit((unsigned char)*p); p++) {
        if (value < 1000000000000000LL) {
            value = value * 10 + (*p - '0');
        }
    }
    *out = negative ? -value : value;
    *s = p;
    return true;
}

// A face corner, the whole of [s, end): v, v/vt, v//vn or v/vt/vn. Only the
// vertex index is kept (its text ends at *vertex_end); vt and vn must be
// integers but are not checked further.
static bool parse_corner(const char *s, const char *end, long long *vertex,
                         const char **vertex_end) {
    long long unused;
    if (!parse_integer(&s, end, vertex)) {
        return false;
    }
    *vertex_end = s;
    if (s == end) {
        return true; // v
    }
    if (*s++ != '/') {
        return false;
    }
    if (s < end && *s != '/') {
        if (!parse_integer(&s, end, &unused)) {
            return false;
        }
        if (s == end) {
            return true; // v/vt
        }
        if (*s++ != '/') {
            return false;
        }
    } else if (s++ == end) {
        return false; // "v/" with nothing after it
    }
    // v//vn or v/vt/vn: the normal index must be there and end the token
    return parse_integer(&s, end, &unused) && s == end;
}

// ---------------------------------------------------------------------------
// The parser's state

// A face with an index past the vertices read so far: checked and
// triangulated after the whole file is read, into its reserved slots.
typedef struct deferred_face {
    int line;              // where it was written
    long long max_index;   // its largest (1-based) vertex index
    size_t first_corner;   // into parser.deferred_corners
    int corner_count;      // >= 3
    size_t first_triangle; // its corner_count - 2 triangles start here
} deferred_face;

typedef struct parser {
    const char *name; // the file's name, for messages
    psb_error *err;
    int line; // the line being read, 1-based
    psb_obj_stats stats;

    psb_vec3 *points;
    size_t point_capacity;
    int *triangles; // 3 per triangle
    size_t triangle_count, triangle_capacity;

    int *corners; // the face being read: PSB_OBJ_MAX_POLYGON vertex indices, 0-based

    deferred_face *deferred;
    size_t deferred_count, deferred_capacity;
    int *deferred_corners;
    size_t deferred_corner_count, deferred_corner_capacity;

    psb_polygon_scratch polygon; // for triangulating faces of more than 3 corners
} parser;

static void parser_free(parser *ps) {
    free(ps->points);
    free(ps->triangles);
    free(ps->corners);
    free(ps->deferred);
    free(ps->deferred_corners);
    psb_polygon_scratch_free(&ps->polygon);
}

// Makes room for `needed` elements of `size` bytes in array (which holds
// *capacity), doubling. Returns the array, perhaps moved, or NULL when memory
// runs out (the array is then unchanged). needed > 0.
static void *reserve(void *array, size_t *capacity, size_t needed, size_t size) {
    if (needed <= *capacity) {
        return array;
    }
    size_t grown = *capacity < 1024 ? 1024 : *capacity;
    while (grown < needed) {
        grown *= 2;
    }
    if (grown > SIZE_MAX / size) {
        return NULL;
    }
    void *p = realloc(array, grown * size);
    if (p) {
        *capacity = grown;
    }
    return p;
}

static psb_status out_of_memory(parser *ps) {
    return psb_error_set(ps->err, PSB_ERR_NOMEM, "%s:%d: out of memory", ps->name, ps->line);
}

// A token for a message: at most QUOTE_MAX bytes of it.
static int quote_length(const char *s, const char *end) {
    return end - s > QUOTE_MAX ? QUOTE_MAX : (int)(end - s);
}

// ---------------------------------------------------------------------------
// Triangulation

// Splits the polygon corners[0..n) (0-based vertex indices, all valid) into
// n - 2 triangles written to out (3 ints each), wound as the polygon is:
// ear clipping in the polygon's plane, or a fan if it has no area.
static psb_status triangulate(parser *ps, const int *corners, int n, int *out) {
    if (!psb_polygon_triangulate(&ps->polygon, ps->points, corners, n, out)) {
        return out_of_memory(ps);
    }
    return PSB_OK;
}

// ---------------------------------------------------------------------------
// Lines

// `v x y z [w]` or `v x y z r g b`: the first three numbers are the position;
// whatever follows them is ignored.
static psb_status parse_vertex(parser *ps, const char *s, const char *end) {
    double xyz[3];
    for (int k = 0; k < 3; k++) {
        s = skip_blanks(s, end);
        if (s == end || *s == '#') {
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: expected 3 numbers after 'v', got %s", ps->name, ps->line,
                                 k == 0   ? "none"
                                 : k == 1 ? "only 1"
                                          : "only 2");
        }
        const char *t = s;
        s = token_end(s, end);
        number_result r = parse_number(t, s, &xyz[k]);
        if (r == NUMBER_BAD) {
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: expected 3 numbers after 'v', got '%.*s'", ps->name,
                                 ps->line, quote_length(t, s), t);
        }
        if (r == NUMBER_NOT_FINITE) {
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: coordinate '%.*s' is not a finite number (NaN or Inf)",
                                 ps->name, ps->line, quote_length(t, s), t);
        }
    }
    if (ps->stats.vertices >= MAX_COUNT) {
        return psb_error_set(ps->err, PSB_ERR_PARSE, "%s:%d: more than %d vertices", ps->name,
                             ps->line, MAX_COUNT);
    }
    size_t count = (size_t)ps->stats.vertices;
    psb_vec3 *points = reserve(ps->points, &ps->point_capacity, count + 1, sizeof *points);
    if (!points) {
        return out_of_memory(ps);
    }
    ps->points = points;
    ps->points[count] = (psb_vec3){xyz[0], xyz[1], xyz[2]};
    ps->stats.vertices++;
    return PSB_OK;
}

// `f c1 c2 c3 ...`: at least 3 corners; see parse_corner for their forms.
// Negative indices count back from the last vertex read so far (-1 is that
// vertex); positive ones past it are checked at the end of the file.
static psb_status parse_face(parser *ps, const char *s, const char *end) {
    int n = 0;
    long long max_forward = 0; // largest index past the vertices read so far
    const long long defined = ps->stats.vertices;
    for (;;) {
        s = skip_blanks(s, end);
        if (s == end || *s == '#') {
            break;
        }
        const char *t = s;
        s = token_end(s, end);
        if (n == PSB_OBJ_MAX_POLYGON) {
            return psb_error_set(ps->err, PSB_ERR_PARSE, "%s:%d: face has more than %d corners",
                                 ps->name, ps->line, PSB_OBJ_MAX_POLYGON);
        }
        long long index;
        const char *index_end;
        if (!parse_corner(t, s, &index, &index_end)) {
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: malformed face corner '%.*s': expected v, v/vt, "
                                 "v//vn or v/vt/vn with integer indices",
                                 ps->name, ps->line, quote_length(t, s), t);
        }
        if (index == 0) {
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: face index 0: OBJ indices start at 1", ps->name, ps->line);
        }
        if (index > MAX_COUNT || index < -(long long)MAX_COUNT) {
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: face index %.*s out of range: a file may have at most "
                                 "%d vertices",
                                 ps->name, ps->line, quote_length(t, index_end), t, MAX_COUNT);
        }
        if (index < 0) {
            if (-index > defined) {
                return psb_error_set(ps->err, PSB_ERR_PARSE,
                                     "%s:%d: face index %lld out of range: %lld vertices "
                                     "defined before this line",
                                     ps->name, ps->line, index, defined);
            }
            ps->corners[n++] = (int)(defined + index);
        } else {
            if (index > defined && index > max_forward) {
                max_forward = index;
            }
            ps->corners[n++] = (int)(index - 1);
        }
    }
    if (n < 3) {
        return psb_error_set(ps->err, PSB_ERR_PARSE,
                             "%s:%d: face has %d corner%s: a face needs at least 3", ps->name,
                             ps->line, n, n == 1 ? "" : "s");
    }
    if (ps->triangle_count + (size_t)(n - 2) > MAX_COUNT) {
        return psb_error_set(ps->err, PSB_ERR_PARSE, "%s:%d: more than %d triangles", ps->name,
                             ps->line, MAX_COUNT);
    }
    size_t first = ps->triangle_count;
    int *triangles = reserve(ps->triangles, &ps->triangle_capacity, 3 * (first + (size_t)(n - 2)),
                             sizeof *triangles);
    if (!triangles) {
        return out_of_memory(ps);
    }
    ps->triangles = triangles;
    ps->triangle_count += (size_t)(n - 2);
    ps->stats.faces++;
    ps->stats.polygons += n > 3;
    int *out = ps->triangles + 3 * first;
    if (max_forward == 0) {
        return triangulate(ps, ps->corners, n, out);
    }
    // Not all its vertices are known yet: keep it for the end, slots reserved.
    deferred_face *deferred =
        reserve(ps->deferred, &ps->deferred_capacity, ps->deferred_count + 1, sizeof *deferred);
    if (!deferred) {
        return out_of_memory(ps);
    }
    ps->deferred = deferred;
    int *deferred_corners =
        reserve(ps->deferred_corners, &ps->deferred_corner_capacity,
                ps->deferred_corner_count + (size_t)n, sizeof *deferred_corners);
    if (!deferred_corners) {
        return out_of_memory(ps);
    }
    ps->deferred_corners = deferred_corners;
    memcpy(ps->deferred_corners + ps->deferred_corner_count, ps->corners,
           (size_t)n * sizeof *ps->corners);
    ps->deferred[ps->deferred_count++] = (deferred_face){
        .line = ps->line,
        .max_index = max_forward,
        .first_corner = ps->deferred_corner_count,
        .corner_count = n,
        .first_triangle = first,
    };
    ps->deferred_corner_count += (size_t)n;
    memset(out, 0, 3 * (size_t)(n - 2) * sizeof *out);
    return PSB_OK;
}

// One line, [s, end) without its '\n'.
static psb_status parse_line(parser *ps, const char *s, const char *end) {
    s = skip_blanks(s, end);
    if (s == end || *s == '#') {
        return PSB_OK;
    }
    const char *keyword_end = token_end(s, end);
    if (keyword_end - s == 1 && *s == 'v') {
        return parse_vertex(ps, keyword_end, end);
    }
    if (keyword_end - s == 1 && *s == 'f') {
        return parse_face(ps, keyword_end, end);
    }
    ps->stats.ignored_lines++; // vt vn o g s usemtl mtllib l p, and anything else
    return PSB_OK;
}

// Checks and triangulates the faces that referred forward, now that every
// vertex is known. The first (in file order) with an index out of range is
// reported at its line.
static psb_status finish_deferred(parser *ps) {
    for (size_t d = 0; d < ps->deferred_count; d++) {
        const deferred_face *face = &ps->deferred[d];
        if (face->max_index > ps->stats.vertices) {
            ps->line = face->line;
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: face index %lld out of range: the file has %d vertices",
                                 ps->name, face->line, face->max_index, ps->stats.vertices);
        }
    }
    for (size_t d = 0; d < ps->deferred_count; d++) {
        const deferred_face *face = &ps->deferred[d];
        ps->line = face->line;
        psb_status status =
            triangulate(ps, ps->deferred_corners + face->first_corner, face->corner_count,
                        ps->triangles + 3 * face->first_triangle);
        if (status != PSB_OK) {
            return status;
        }
    }
    return PSB_OK;
}

static psb_status parse_all(parser *ps, const char *data, size_t size) {
    const char *s = data, *end = data + size;
    if (size >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3; // UTF-8 byte order mark
    }
    const char *first = s;
    while (first < end && (is_blank((unsigned char)*first) || *first == '\n')) {
        first++;
    }
    if (first == end) {
        return psb_error_set(ps->err, PSB_ERR_PARSE, "%s: empty file", ps->name);
    }
    ps->corners = malloc(PSB_OBJ_MAX_POLYGON * sizeof *ps->corners);
    if (!ps->corners) {
        return out_of_memory(ps);
    }
    while (s < end) {
        if (ps->line >= MAX_COUNT) {
            return psb_error_set(ps->err, PSB_ERR_PARSE, "%s:%d: more than %d lines", ps->name,
                                 ps->line, MAX_COUNT);
        }
        ps->line++;
        // Find the line's end, no further than one byte past the longest line
        // allowed, refusing control bytes on the way.
        const char *scan_end =
            end - s > (ptrdiff_t)PSB_OBJ_MAX_LINE ? s + PSB_OBJ_MAX_LINE + 1 : end;
        const char *e = s;
        for (; e < scan_end; e++) {
            unsigned char c = (unsigned char)*e;
            if (c < 0x20 || c == 0x7f) {
                if (c == '\n') {
                    break;
                }
                if (is_binary(c)) {
                    return psb_error_set(ps->err, PSB_ERR_PARSE,
                                         "%s:%d: binary data (byte 0x%02x): not a text OBJ file",
                                         ps->name, ps->line, c);
                }
            }
        }
        if (e - s > (ptrdiff_t)PSB_OBJ_MAX_LINE) {
            return psb_error_set(ps->err, PSB_ERR_PARSE,
                                 "%s:%d: line longer than %d bytes: not an OBJ file?", ps->name,
                                 ps->line, PSB_OBJ_MAX_LINE);
        }
        psb_status status = parse_line(ps, s, e);
        if (status != PSB_OK) {
            return status;
        }
        s = e < end ? e + 1 : end;
    }
    ps->stats.lines = ps->line;
    if (ps->stats.faces == 0) {
        return psb_error_set(ps->err, PSB_ERR_PARSE, "%s: no faces (f lines) in %d lines", ps->name,
                             ps->line);
    }
    return finish_deferred(ps);
}

/// Parses an OBJ text of `size` bytes (no NUL needed) into a triangle mesh; on
/// failure *out and *stats are zeroed and err says "NAME:LINE: what".
psb_status psb_obj_parse_buffer(const char *name, const char *data, size_t size, psb_mesh *out,
                                psb_obj_stats *stats, psb_error *err) {
    *out = (psb_mesh){0};
    if (stats) {
        *stats = (psb_obj_stats){0};
    }
    parser ps = {
        .name = name ? name : "(buffer)",
        .err = err,
        .polygon = {.max_corners = PSB_OBJ_MAX_POLYGON},
    };
    psb_status status = data || size == 0
                            ? parse_all(&ps, data ? data : "", size)
                            : psb_error_set(err, PSB_ERR_INVALID, "%s: no data", ps.name);
    if (status != PSB_OK) {
        parser_free(&ps);
        return status;
    }
    // Give back the spare capacity; keep the larger block if that fails.
    size_t point_count = (size_t)ps.stats.vertices;
    psb_vec3 *points = realloc(ps.points, point_count * sizeof *points);
    if (points) {
        ps.points = points;
    }
    int *triangles = realloc(ps.triangles, 3 * ps.triangle_count * sizeof *triangles);
    if (triangles) {
        ps.triangles = triangles;
    }
    ps.stats.triangles = (int)ps.triangle_count;
    *out = (psb_mesh){
        .kind = PSB_SHELL,
        .points = ps.points,
        .point_count = ps.stats.vertices,
        .triangles = ps.triangles,
        .triangle_count = (int)ps.triangle_count,
    };
    if (stats) {
        *stats = ps.stats;
    }
    ps.points = NULL;
    ps.triangles = NULL;
    parser_free(&ps);
    return PSB_OK;
}

// Reads a whole file into a malloc'd buffer.
static psb_status read_file(const char *path, char **data, size_t *size, psb_error *err) {
    *data = NULL;
    *size = 0;
    FILE *file = fopen(path, "rb");
    if (!file) {
        return psb_error_set(err, PSB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    // Start with the size the file says it has (a guess only: a directory or
    // a pipe may say anything), then grow by doubling.
    size_t capacity = 1 << 16;
    if (fseek(file, 0, SEEK_END) == 0) {
        long length = ftell(file);
        if (length > 0 && length < (1L << 30)) {
            capacity = (size_t)length + 1;
        }
    }
    rewind(file);
    char *buffer = malloc(capacity);
    size_t length = 0;
    while (buffer) {
        if (length == capacity) {
            char *grown = capacity <= SIZE_MAX / 2 ? realloc(buffer, capacity * 2) : NULL;
            if (!grown) {
                free(buffer);
                buffer = NULL;
                break;
            }
            buffer = grown;
            capacity *= 2;
        }
        size_t got = fread(buffer + length, 1, capacity - length, file);
        length += got;
        if (got == 0) {
            break;
        }
    }
    if (!buffer) {
        fclose(file);
        return psb_error_set(err, PSB_ERR_NOMEM, "%s: out of memory reading the file", path);
    }
    if (ferror(file)) {
        int error = errno;
        fclose(file);
        free(buffer);
        return psb_error_set(err, PSB_ERR_IO, "%s: cannot read: %s", path, strerror(error));
    }
    fclose(file);
    *data = buffer;
    *size = length;
    return PSB_OK;
}

/// Reads the file whole, then parses it as psb_obj_parse_buffer does.
psb_status psb_obj_parse(const char *path, psb_mesh *out, psb_obj_stats *stats, psb_error *err) {
    *out = (psb_mesh){0};
    if (stats) {
        *stats = (psb_obj_stats){0};
    }
    char *data;
    size_t size;
    psb_status status = read_file(path, &data, &size, err);
    if (status != PSB_OK) {
        return status;
    }
    status = psb_obj_parse_buffer(path, data, size, out, stats, err);
    free(data);
    return status;
}
