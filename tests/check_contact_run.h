// Runs psb-check-contact (tests/check_contact.c, which shares no code with
// psb) over a folder of frames the library wrote, for the tests that check
// their runs with it.
#ifndef PSB_TESTS_CHECK_CONTACT_RUN_H
#define PSB_TESTS_CHECK_CONTACT_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// psb-check-contact (the program at `check`) over dir, with --self where
/// `self` says (points inside their own body too): the points it finds
/// inside (its summary's "inside N"), -1 where it cannot be run or read.
/// Its other lines (the first reports) go to stdout.
static inline long check_contact_inside(const char *check, const char *dir, bool self) {
    char command[1024];
    snprintf(command, sizeof command, "'%s'%s --max-reports 3 '%s'", check, self ? " --self" : "",
             dir);
    FILE *out = popen(command, "r");
    if (!out) {
        return -1;
    }
    char line[4096];
    long found = -1;
    while (fgets(line, sizeof line, out)) {
        const char *at = strstr(line, "summary:");
        at = at ? strstr(at, ", inside ") : NULL;
        if (at) {
            found = strtol(at + strlen(", inside "), NULL, 10);
        } else {
            fputs(line, stdout);
        }
    }
    pclose(out);
    return found;
}

#endif
