// `psb info`: the topology report of a generated shape, or of an OBJ file
// after repair, as key=value lines. Exit status 0 when the surface can be
// simulated (closed: it can hold gas), 2 when it cannot or the options or the
// file are bad, 1 when memory runs out.
#include "commands.h"
#include "mesh_options.h"
#include "options.h"
#include "shape_options.h"
#include <psb/psb_mesh.h>
#include <psb/psb_obj.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_REPEAT = 1000 };

// The options of `psb info` that are not shape or repair options.
typedef struct info_options {
    bool timing; // time the parse, repair and check of the file
    int repeat;  // runs to take the median of
} info_options;

static const psb_option timing_table[] = {
    {.name = "timing",
     .type = PSB_OPT_FLAG,
     .offset = offsetof(info_options, timing),
     .help = "FILE only: also print parse_ms repair_ms check_ms total_ms, the medians over "
             "--repeat runs of reading, repairing and checking the file"},
    {.name = "repeat",
     .type = PSB_OPT_INT,
     .offset = offsetof(info_options, repeat),
     .meta = "N",
     .help = "runs for --timing",
     .min = 1,
     .max = MAX_REPEAT},
};

enum { TIMING_OPTION_COUNT = (int)(sizeof timing_table / sizeof timing_table[0]) };

enum { SHAPE_GROUP, REPAIR_GROUP, TIMING_GROUP, GROUP_COUNT };

// Counters of how often each option was given, one array per group.
typedef struct seen_counts {
    int shape[PSB_SHAPE_OPTION_COUNT];
    int repair[PSB_MESH_OPTION_COUNT];
    int timing[TIMING_OPTION_COUNT];
} seen_counts;

static void make_groups(psb_option_group groups[GROUP_COUNT], psb_shape_options *shape,
                        psb_mesh_options *repair, info_options *info, seen_counts *seen) {
    groups[SHAPE_GROUP] = psb_shape_option_group(shape, seen ? seen->shape : NULL);
    groups[REPAIR_GROUP] = psb_mesh_option_group(repair, seen ? seen->repair : NULL);
    groups[TIMING_GROUP] = (psb_option_group){
        "Timing (FILE only)", timing_table, TIMING_OPTION_COUNT, info, seen ? seen->timing : NULL};
}

static info_options default_info_options(void) {
    return (info_options){.timing = false, .repeat = 5};
}

static void print_help(FILE *out) {
    psb_shape_options shape = psb_default_shape_options();
    psb_mesh_options repair = psb_default_mesh_options(false);
    info_options info = default_info_options();
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, &shape, &repair, &info, NULL);
    fprintf(out, "usage: psb info [shape options]\n"
                 "       psb info FILE.obj [mesh repair options] [--timing [--repeat N]]\n"
                 "\n"
                 "Prints the topology report of a generated shape, or of an OBJ file after\n"
                 "repair, as key=value lines: vertices faces edges border_edges holes\n"
                 "nonmanifold_edges pinched_vertices components genus volume closed euler\n"
                 "oriented orientation_conflicts unused_vertices; for a file, then what the\n"
                 "repair did: welded unused_dropped degenerate_dropped duplicates_dropped\n"
                 "faces_flipped components_flipped holes_filled fill_triangles, and what the\n"
                 "file holds: obj_lines obj_vertices obj_faces obj_polygons.\n"
                 "A pinched vertex is one where separate fans of faces meet (two parts of the\n"
                 "surface touching at a point): the Euler characteristic is then odd, and the\n"
                 "genus is that of the surface with each pinched vertex split, one per fan.\n"
                 "A cloth (--shape cloth) is reported as the open surface of its triangles.\n"
                 "Exit status 0 when the surface can be simulated; 2 when it cannot (the reason\n"
                 "on stderr), or when the file cannot be read or parsed (FILE:LINE: what was\n"
                 "expected, on stderr only).\n"
                 "\n");
    psb_options_print_help(out, groups, GROUP_COUNT);
}

static const char *yes_no(bool value) {
    return value ? "yes" : "no";
}

static void print_topology(const psb_topology *topo) {
    printf("vertices=%d\n", topo->vertices);
    printf("faces=%d\n", topo->faces);
    printf("edges=%d\n", topo->edges);
    printf("border_edges=%d\n", topo->border_edges);
    printf("holes=%d\n", topo->holes);
    printf("nonmanifold_edges=%d\n", topo->nonmanifold_edges);
    printf("pinched_vertices=%d\n", topo->pinched_vertices);
    printf("components=%d\n", topo->components);
    printf("genus=%d\n", topo->genus);
    printf("volume=%.9g\n", topo->volume);
    printf("closed=%s\n", yes_no(topo->closed));
    printf("euler=%d\n", topo->euler);
    printf("oriented=%s\n", yes_no(topo->oriented));
    printf("orientation_conflicts=%d\n", topo->orientation_conflicts);
    printf("unused_vertices=%d\n", topo->unused_vertices);
}

// ---- a generated shape

static int info_shape(const psb_shape_options *shape) {
    psb_error err = {0};
    psb_mesh mesh = {0};
    if (psb_shape_options_build(shape, &mesh, &err) != PSB_OK) {
        fprintf(stderr, "psb info: cannot build the %s: %s\n", psb_shape_name(shape->shape),
                err.message);
        return err.status == PSB_ERR_NOMEM ? 1 : 2;
    }
    // A cloth is reported as the surface its triangles make (its other
    // springs are no edges of it); open is what it should be.
    const bool cloth = mesh.kind == PSB_CLOTH;
    psb_mesh surface = mesh;
    if (cloth) {
        surface.kind = PSB_SHELL;
        surface.springs = NULL;
        surface.spring_count = 0;
    }
    psb_topology topo;
    psb_status status = psb_mesh_topology(&surface, &topo, &err);
    psb_mesh_free(&mesh);
    if (status != PSB_OK) {
        fprintf(stderr, "psb info: %s\n", err.message);
        return 1;
    }
    print_topology(&topo);
    if (fflush(stdout) != 0) {
        return 1;
    }
    return topo.closed || (cloth && topo.oriented) ? 0 : 2;
}

// ---- an OBJ file

// One parse, repair and check of a file, and how long each stage took.
typedef struct obj_inspection {
    psb_mesh mesh; // as repaired
    psb_obj_stats stats;
    psb_repair_report report;
    psb_topology topology;
    double parse_ms;
    double repair_ms;
    double check_ms;
} obj_inspection;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

// Parses, repairs and checks the file into *out (its mesh freed by the
// caller). When the faces cannot be made to agree (a non-manifold edge), the
// other repairs are still made and reported: the loader gives the reason.
static psb_status inspect(const char *path, const psb_repair_options *repair, obj_inspection *out,
                          psb_error *err) {
    memset(out, 0, sizeof *out);
    const double t0 = now_ms();
    psb_status status = psb_obj_parse(path, &out->mesh, &out->stats, err);
    if (status != PSB_OK) {
        return status;
    }
    const double t1 = now_ms();
    status = psb_mesh_repair(&out->mesh, repair, &out->report, err);
    if (status == PSB_ERR_TOPOLOGY && repair->fix_orientation) {
        psb_repair_options without = *repair;
        without.fix_orientation = false;
        status = psb_mesh_repair(&out->mesh, &without, &out->report, err);
    }
    const double t2 = now_ms();
    if (status == PSB_OK) {
        status = psb_mesh_topology(&out->mesh, &out->topology, err);
    }
    const double t3 = now_ms();
    if (status != PSB_OK) {
        psb_mesh_free(&out->mesh);
        return status;
    }
    out->parse_ms = t1 - t0;
    out->repair_ms = t2 - t1;
    out->check_ms = t3 - t2;
    return PSB_OK;
}

static int compare_doubles(const void *a, const void *b) {
    const double x = *(const double *)a;
    const double y = *(const double *)b;
    return (x > y) - (x < y);
}

// Median of n values (sorts them).
static double median(double *values, int n) {
    qsort(values, (size_t)n, sizeof *values, compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

static void print_repair(const psb_repair_report *report, const psb_obj_stats *stats) {
    printf("welded=%d\n", report->welded);
    printf("unused_dropped=%d\n", report->unused_dropped);
    printf("degenerate_dropped=%d\n", report->degenerate_dropped);
    printf("duplicates_dropped=%d\n", report->duplicates_dropped);
    printf("faces_flipped=%d\n", report->faces_flipped);
    printf("components_flipped=%d\n", report->components_flipped);
    printf("holes_filled=%d\n", report->holes_filled);
    printf("fill_triangles=%d\n", report->fill_triangles);
    printf("obj_lines=%d\n", stats->lines);
    printf("obj_vertices=%d\n", stats->vertices);
    printf("obj_faces=%d\n", stats->faces);
    printf("obj_polygons=%d\n", stats->polygons);
}

static int info_file(const char *path, const psb_repair_options *repair, const info_options *info) {
    const int runs = info->timing ? info->repeat : 1;
    double *times = malloc(4 * (size_t)runs * sizeof *times);
    if (!times) {
        fprintf(stderr, "psb info: out of memory\n");
        return 1;
    }
    double *parse = times;
    double *repair_time = times + runs;
    double *check = times + 2 * runs;
    double *total = times + 3 * runs;
    psb_error err = {0};
    obj_inspection last = {0};
    for (int run = 0; run < runs; run++) {
        psb_mesh_free(&last.mesh);
        psb_status status = inspect(path, repair, &last, &err);
        if (status != PSB_OK) {
            // The message names the file (and the line) itself.
            fprintf(stderr, "%s\n", err.message);
            free(times);
            return status == PSB_ERR_NOMEM ? 1 : 2;
        }
        parse[run] = last.parse_ms;
        repair_time[run] = last.repair_ms;
        check[run] = last.check_ms;
        total[run] = last.parse_ms + last.repair_ms + last.check_ms;
    }
    psb_mesh_free(&last.mesh);
    print_topology(&last.topology);
    print_repair(&last.report, &last.stats);
    if (info->timing) {
        printf("parse_ms=%.3f\n", median(parse, runs));
        printf("repair_ms=%.3f\n", median(repair_time, runs));
        printf("check_ms=%.3f\n", median(check, runs));
        printf("total_ms=%.3f\n", median(total, runs));
    }
    free(times);
    if (fflush(stdout) != 0) {
        return 1;
    }
    // Whether it can be simulated is the loader's call: the same repair, then
    // one closed, outward component after another.
    psb_mesh *parts = NULL;
    int count = 0;
    psb_status loaded = psb_mesh_load_obj(path, repair, &parts, &count, NULL, NULL, &err);
    if (loaded != PSB_OK) {
        fprintf(stderr, "%s\n", err.message);
        return loaded == PSB_ERR_NOMEM ? 1 : 2;
    }
    for (int i = 0; i < count; i++) {
        psb_mesh_free(&parts[i]);
    }
    free(parts);
    return 0;
}

// ---- the command

int psb_cmd_info(int argc, char **argv) {
    if (psb_options_wants_help(argc, argv)) {
        print_help(stdout);
        return 0;
    }
    psb_shape_options shape = psb_default_shape_options();
    psb_mesh_options repair = psb_default_mesh_options(false);
    info_options info = default_info_options();
    seen_counts seen;
    memset(&seen, 0, sizeof seen);
    psb_option_group groups[GROUP_COUNT];
    make_groups(groups, &shape, &repair, &info, &seen);
    const char *files[1];
    psb_positionals positionals = {.args = files, .capacity = 1, .count = 0};
    char error[512];
    if (!psb_options_parse("psb info", argc, argv, groups, GROUP_COUNT, &positionals, error,
                           sizeof error) ||
        !psb_mesh_options_check(seen.repair, "psb info", error, sizeof error)) {
        fprintf(stderr, "%s\n", error);
        return 2;
    }
    const bool timing = psb_options_seen(groups, GROUP_COUNT, "timing") > 0;
    if (psb_options_seen(groups, GROUP_COUNT, "repeat") > 0 && !timing) {
        fprintf(stderr, "psb info: --repeat needs --timing\n");
        return 2;
    }
    if (positionals.count == 0) {
        const char *given = psb_mesh_options_first_given(seen.repair);
        if (!given && timing) {
            given = "timing";
        }
        if (given) {
            fprintf(stderr, "psb info: --%s needs a FILE.obj\n", given);
            return 2;
        }
        return info_shape(&shape);
    }
    for (int i = 0; i < PSB_SHAPE_OPTION_COUNT; i++) {
        if (seen.shape[i] > 0) {
            fprintf(stderr, "psb info: a FILE ('%s') and --%s cannot be used together\n", files[0],
                    groups[SHAPE_GROUP].options[i].name);
            return 2;
        }
    }
    psb_repair_options options = psb_mesh_options_repair(&repair, 0.0);
    return info_file(files[0], &options, &info);
}
