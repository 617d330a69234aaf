// The psb executable: dispatches to its sub-commands.
#include "commands.h"
#ifdef PSB_HAVE_VIEWER
#include "cmd_view.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The build passes the project's version; this is only for builds that don't.
#ifndef PSB_VERSION
#define PSB_VERSION "unknown"
#endif

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
#ifdef PSB_HAVE_VIEWER
    {"view", psb_cmd_view, "open the viewer: the 2D ring and 3D bodies, live plots (also: psb)"},
#endif
    {"sim", psb_cmd_sim, "run a shape or an OBJ file's bodies headless, print the final state"},
    {"bench", psb_cmd_bench, "time the simulation step on fixed scenes (ns per vertex-step)"},
    {"info", psb_cmd_info, "print the topology report of a generated shape or an OBJ file"},
};

enum { COMMAND_COUNT = (int)(sizeof commands / sizeof commands[0]) };

static void print_help(FILE *out) {
    fprintf(out,
            "psb %s: pressure soft bodies\n"
            "\n"
            "usage: psb COMMAND [options]\n"
            "\n"
            "commands:\n",
            PSB_VERSION);
    for (int i = 0; i < COMMAND_COUNT; i++) {
        fprintf(out, "  %-8s%s\n", commands[i].name, commands[i].summary);
    }
    fprintf(out, "  %-8s%s\n", "help", "show this help, or a command's: 'psb help sim'");
    fprintf(out, "\n"
                 "options:\n"
                 "  -h, --help     show this help\n"
                 "  --version      print the version\n"
                 "\n"
                 "Each command lists its options, units and defaults: 'psb sim --help',\n"
                 "'psb info --help'.\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
#ifdef PSB_HAVE_VIEWER
        // `psb` alone opens the viewer when there is a display to open it
        // on; on a headless machine it shows the help instead.
        if (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY")) {
            char *view_argv[] = {"view", NULL};
            return psb_cmd_view(1, view_argv);
        }
        print_help(stdout);
        fprintf(stderr,
                "psb: no display, so no viewer: run 'xvfb-run -a psb view', or 'psb sim'\n");
        return 0;
#else
        print_help(stdout);
        return 0;
#endif
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 && argc > 2) {
        // `psb help sim` is `psb sim --help`.
        for (int i = 0; i < COMMAND_COUNT; i++) {
            if (strcmp(argv[2], commands[i].name) == 0) {
                char *help_argv[] = {argv[2], "--help", NULL};
                return commands[i].run(2, help_argv);
            }
        }
        fprintf(stderr, "psb: unknown command '%s' (see 'psb --help')\n", argv[2]);
        return 2;
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        printf("psb %s\n", PSB_VERSION);
        return 0;
    }
    for (int i = 0; i < COMMAND_COUNT; i++) {
        if (strcmp(name, commands[i].name) == 0) {
            return commands[i].run(argc - 1, argv + 1);
        }
    }
#ifndef PSB_HAVE_VIEWER
    if (strcmp(name, "view") == 0) {
        fprintf(stderr, "psb view: this psb was built without the viewer "
                        "(-DPSB_BUILD_VIEWER=OFF); 'psb sim' runs headless\n");
        return 2;
    }
#endif
    fprintf(stderr, "psb: unknown command '%s' (see 'psb --help')\n", name);
    return 2;
}
