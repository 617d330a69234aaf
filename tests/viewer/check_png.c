// Checks a screenshot of the viewer: its size, that it is not blank, and
// that given regions hold enough pixels of given hues (the ring on the left,
// the bodies on the right); or that two screenshots differ.
//
//   check_png FILE WIDTH HEIGHT [X,Y,W,H:HUE:MIN[:SMIN:SMAX] ...]
//       a region (pixels, top left) must hold MIN pixels within 14 degrees of
//       HUE (0..360) that are saturated and bright enough to be a body colour
//       (saturation 0.35..1, or SMIN..SMAX for a greyish colour)
//   check_png --differ A B FRACTION [X,Y,W,H]
//       at least FRACTION of the pixels (of the region, if given) differ (by
//       more than 24 in a channel)
//   check_png --same A B X,Y,W,H FRACTION
//       at most FRACTION of the region's pixels differ, by more than 2 in a
//       channel (an opaque panel looks the same whatever is behind it)
// Exit status 0 when every check passes, 1 when one fails (with a line on
// stderr saying which), 2 on bad usage or an unreadable file.
#include <math.h>
#include <stb/stb_image.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Hue in degrees, saturation and value in [0, 1].
static void hsv(const unsigned char *p, double *h, double *s, double *v) {
    const double r = p[0] / 255.0, g = p[1] / 255.0, b = p[2] / 255.0;
    const double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), d = mx - mn;
    *v = mx;
    *s = mx > 0.0 ? d / mx : 0.0;
    if (d <= 0.0) {
        *h = 0.0;
    } else if (mx == r) {
        *h = fmod(60.0 * (g - b) / d + 360.0, 360.0);
    } else if (mx == g) {
        *h = 60.0 * (b - r) / d + 120.0;
    } else {
        *h = 60.0 * (r - g) / d + 240.0;
    }
}

static unsigned char *load(const char *path, int *w, int *h) {
    int channels = 0;
    unsigned char *pixels = stbi_load(path, w, h, &channels, 3);
    if (!pixels) {
        fprintf(stderr, "check_png: %s: cannot read: %s\n", path, stbi_failure_reason());
    }
    return pixels;
}

// Not blank: the luminance varies and there are many distinct colours.
static int check_not_blank(const unsigned char *px, int w, int h) {
    double sum = 0.0, sum2 = 0.0;
    static unsigned char seen[1 << 15];
    memset(seen, 0, sizeof seen);
    int distinct = 0;
    const long n = (long)w * h;
    for (long i = 0; i < n; i++) {
        const unsigned char *p = px + 3 * i;
        const double y = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
        sum += y;
        sum2 += y * y;
        const int key = (p[0] >> 3) << 10 | (p[1] >> 3) << 5 | (p[2] >> 3);
        if (!seen[key]) {
            seen[key] = 1;
            distinct++;
        }
    }
    const double mean = sum / n, sd = sqrt(fmax(sum2 / n - mean * mean, 0.0));
    printf("luminance_mean=%.1f luminance_sd=%.1f colours=%d\n", mean, sd, distinct);
    if (sd < 10.0 || distinct < 100) {
        fprintf(stderr, "check_png: the image looks blank (sd %.1f, %d colours)\n", sd, distinct);
        return 1;
    }
    return 0;
}

static int check_region(const unsigned char *px, int w, int h, const char *spec) {
    int x0, y0, rw, rh, min;
    double hue, s_lo = 0.35, s_hi = 1.0;
    const int fields =
        sscanf(spec, "%d,%d,%d,%d:%lf:%d:%lf:%lf", &x0, &y0, &rw, &rh, &hue, &min, &s_lo, &s_hi);
    if (fields != 6 && fields != 8) {
        fprintf(stderr, "check_png: bad region '%s' (expected X,Y,W,H:HUE:MIN[:SMIN:SMAX])\n",
                spec);
        return 2;
    }
    int count = 0;
    for (int y = y0; y < y0 + rh && y < h; y++) {
        for (int x = x0; x < x0 + rw && x < w; x++) {
            if (x < 0 || y < 0) {
                continue;
            }
            double ph, s, v;
            hsv(px + 3 * ((long)y * w + x), &ph, &s, &v);
            const double dh = fabs(fmod(ph - hue + 540.0, 360.0) - 180.0);
            count += s >= s_lo && s <= s_hi && v >= 0.25 && dh <= 14.0;
        }
    }
    printf("region %s: %d pixels of hue %.0f\n", spec, count, hue);
    if (count < min) {
        fprintf(stderr, "check_png: region %s has %d pixels of hue %.0f, expected >= %d\n", spec,
                count, hue, min);
        return 1;
    }
    return 0;
}

// Loads two pictures of the same size into *a and *b (freed by the
// caller); 0, or 2 when one cannot be read, 1 when their sizes differ.
static int load_pair(const char *a_path, const char *b_path, unsigned char **a, unsigned char **b,
                     int *w, int *h) {
    int bw, bh;
    *a = load(a_path, w, h);
    *b = load(b_path, &bw, &bh);
    if (!*a || !*b) {
        return 2;
    }
    if (*w != bw || *h != bh) {
        fprintf(stderr, "check_png: sizes differ: %dx%d and %dx%d\n", *w, *h, bw, bh);
        return 1;
    }
    return 0;
}

// The fraction of the pixels of the region (clipped to the picture) where
// some channel of a and b differs by more than `tolerance`; 1 for none.
static double changed_fraction(const unsigned char *a, const unsigned char *b, int w, int h, int x0,
                               int y0, int rw, int rh, int tolerance) {
    long changed = 0, n = 0;
    for (int y = y0 < 0 ? 0 : y0; y < y0 + rh && y < h; y++) {
        for (int x = x0 < 0 ? 0 : x0; x < x0 + rw && x < w; x++) {
            const long i = 3 * ((long)y * w + x);
            changed += abs(a[i] - b[i]) > tolerance || abs(a[i + 1] - b[i + 1]) > tolerance ||
                       abs(a[i + 2] - b[i + 2]) > tolerance;
            n++;
        }
    }
    return n > 0 ? (double)changed / (double)n : 1.0;
}

// Reads "X,Y,W,H" into r; false (and a message) if it is not one.
static bool region_of(const char *spec, int r[4]) {
    if (sscanf(spec, "%d,%d,%d,%d", &r[0], &r[1], &r[2], &r[3]) != 4 || r[2] <= 0 || r[3] <= 0) {
        fprintf(stderr, "check_png: bad region '%s' (expected X,Y,W,H)\n", spec);
        return false;
    }
    return true;
}

static int differ(const char *a_path, const char *b_path, double fraction, const char *spec) {
    int r[4] = {0, 0, 0, 0};
    if (spec && !region_of(spec, r)) {
        return 2;
    }
    unsigned char *a, *b;
    int w, h;
    int status = load_pair(a_path, b_path, &a, &b, &w, &h);
    if (status == 0) {
        if (!spec) {
            r[2] = w;
            r[3] = h;
        }
        const double f = changed_fraction(a, b, w, h, r[0], r[1], r[2], r[3], 24);
        printf("changed_fraction=%.4f\n", f);
        status = f >= fraction ? 0 : 1;
        if (status) {
            fprintf(stderr, "check_png: only %.4f of the pixels%s%s differ, expected >= %g\n", f,
                    spec ? " of region " : "", spec ? spec : "", fraction);
        }
    }
    stbi_image_free(a);
    stbi_image_free(b);
    return status;
}

static int same(const char *a_path, const char *b_path, const char *spec, double fraction) {
    int r[4];
    if (!region_of(spec, r)) {
        return 2;
    }
    const int x0 = r[0], y0 = r[1], rw = r[2], rh = r[3];
    unsigned char *a, *b;
    int w, h;
    int status = load_pair(a_path, b_path, &a, &b, &w, &h);
    if (status == 0) {
        const double f = changed_fraction(a, b, w, h, x0, y0, rw, rh, 2);
        printf("region %s: changed_fraction=%.5f\n", spec, f);
        status = f <= fraction ? 0 : 1;
        if (status) {
            fprintf(stderr, "check_png: %.5f of region %s differs, expected <= %g\n", f, spec,
                    fraction);
        }
    }
    stbi_image_free(a);
    stbi_image_free(b);
    return status;
}

int main(int argc, char **argv) {
    if (argc == 6 && strcmp(argv[1], "--same") == 0) {
        return same(argv[2], argv[3], argv[4], atof(argv[5]));
    }
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "--differ") == 0) {
        return differ(argv[2], argv[3], atof(argv[4]), argc == 6 ? argv[5] : NULL);
    }
    if (argc < 4) {
        fprintf(stderr, "usage: check_png FILE WIDTH HEIGHT [X,Y,W,H:HUE:MIN[:SMIN:SMAX] ...]\n"
                        "       check_png --differ A B FRACTION [X,Y,W,H]\n"
                        "       check_png --same A B X,Y,W,H FRACTION\n");
        return 2;
    }
    int w, h;
    unsigned char *px = load(argv[1], &w, &h);
    if (!px) {
        return 2;
    }
    int status = 0;
    if (w != atoi(argv[2]) || h != atoi(argv[3])) {
        fprintf(stderr, "check_png: %s is %dx%d, expected %sx%s\n", argv[1], w, h, argv[2],
                argv[3]);
        status = 1;
    }
    if (check_not_blank(px, w, h)) {
        status = 1;
    }
    for (int i = 4; i < argc; i++) {
        const int r = check_region(px, w, h, argv[i]);
        status = r > status ? r : status;
    }
    stbi_image_free(px);
    return status;
}
