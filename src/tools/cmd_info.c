// `psb info`: builds a shape from the shape options and prints its topology
// report as key=value lines. Exit status 0 when the surface is closed (it
// can hold gas), 2 when it is not or the options are bad.
#include "commands.h"
#include "options.h"
#include "psb_mesh.h"
#include "shape_options.h"

#include <stdio.h>

static void print_help(FILE *out) {
    psb_shape_options shape = psb_default_shape_options();
    psb_option_group group = psb_shape_option_group(&shape, NULL);
    fprintf(out, "usage: psb info [options]\n"
                 "\n"
                 "Prints the topology report of a generated shape as key=value lines:\n"
                 "vertices faces edges border_edges nonmanifold_edges components genus volume\n"
                 "closed, then euler oriented orientation_conflicts unused_vertices.\n"
                 "Exit status 0 when the surface is closed, 2 when it is not.\n"
                 "\n");
    psb_options_print_help(out, &group, 1);
}

static const char *yes_no(bool value) {
    return value ? "yes" : "no";
}

int psb_cmd_info(int argc, char **argv) {
    if (psb_options_wants_help(argc, argv)) {
        print_help(stdout);
        return 0;
    }
    psb_shape_options shape = psb_default_shape_options();
    psb_option_group group = psb_shape_option_group(&shape, NULL);
    const char *files[1];
    psb_positionals positionals = {.args = files, .capacity = 1, .count = 0};
    char error[512];
    if (!psb_options_parse("psb info", argc, argv, &group, 1, &positionals, error, sizeof error)) {
        fprintf(stderr, "%s\n", error);
        return 2;
    }
    if (positionals.count > 0) {
        fprintf(stderr, "psb info: reading mesh files ('%s') is not supported yet; use --shape\n",
                files[0]);
        return 2;
    }
    psb_error err = {0};
    psb_mesh mesh = {0};
    if (psb_shape_options_build(&shape, &mesh, &err) != PSB_OK) {
        fprintf(stderr, "psb info: cannot build the %s: %s\n", psb_shape_name(shape.shape),
                err.message);
        return err.status == PSB_ERR_NOMEM ? 1 : 2;
    }
    psb_topology topo;
    psb_status status = psb_mesh_topology(&mesh, &topo, &err);
    psb_mesh_free(&mesh);
    if (status != PSB_OK) {
        fprintf(stderr, "psb info: %s\n", err.message);
        return 1;
    }
    printf("vertices=%d\n", topo.vertices);
    printf("faces=%d\n", topo.faces);
    printf("edges=%d\n", topo.edges);
    printf("border_edges=%d\n", topo.border_edges);
    printf("nonmanifold_edges=%d\n", topo.nonmanifold_edges);
    printf("components=%d\n", topo.components);
    printf("genus=%d\n", topo.genus);
    printf("volume=%.9g\n", topo.volume);
    printf("closed=%s\n", yes_no(topo.closed));
    printf("euler=%d\n", topo.euler);
    printf("oriented=%s\n", yes_no(topo.oriented));
    printf("orientation_conflicts=%d\n", topo.orientation_conflicts);
    printf("unused_vertices=%d\n", topo.unused_vertices);
    if (fflush(stdout) != 0) {
        return 1;
    }
    return topo.closed ? 0 : 2;
}
