// Table-driven option parsing and help; see options.h.
#include "options.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Column at which the help text starts, and the width it wraps at.
enum { HELP_COLUMN = 30, HELP_WIDTH = 100 };

static void *field_of(const psb_option_group *group, const psb_option *option) {
    return (char *)group->base + option->offset;
}

// Appends formatted text at *used in buf (never past size; keeps it terminated).
static void append(char *buf, size_t size, size_t *used, const char *text) {
    if (*used + 1 >= size) {
        return;
    }
    size_t room = size - *used - 1;
    size_t n = strlen(text);
    if (n > room) {
        n = room;
    }
    memcpy(buf + *used, text, n);
    *used += n;
    buf[*used] = '\0';
}

// "a number >= 0 in N/m", "an integer from 1 to 10000", "one of a, b or c".
static void describe_expected(const psb_option *option, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    if (option->type == PSB_OPT_CHOICE) {
        append(buf, size, &used, "one of ");
        for (int i = 0; i < option->choice_count; i++) {
            if (i > 0) {
                append(buf, size, &used, i + 1 == option->choice_count ? " or " : ", ");
            }
            append(buf, size, &used, option->choice(i));
        }
        return;
    }
    bool is_int = option->type == PSB_OPT_INT;
    bool has_min = isfinite(option->min) && !(is_int && option->min <= INT_MIN);
    bool has_max = isfinite(option->max) && !(is_int && option->max >= INT_MAX);
    const char *what = is_int ? "an integer" : "a number";
    const char *lo = option->min_open ? ">" : ">=";
    const char *hi = option->max_open ? "<" : "<=";
    // Integers in full ("10000000"), other numbers short ("0.001").
    char min[64];
    char max[64];
    snprintf(min, sizeof min, is_int ? "%.0f" : "%g", option->min);
    snprintf(max, sizeof max, is_int ? "%.0f" : "%g", option->max);
    char text[192];
    if (has_min && has_max && !option->min_open && !option->max_open) {
        snprintf(text, sizeof text, "%s from %s to %s", what, min, max);
    } else if (has_min && has_max) {
        snprintf(text, sizeof text, "%s %s %s and %s %s", what, lo, min, hi, max);
    } else if (has_min) {
        snprintf(text, sizeof text, "%s %s %s", what, lo, min);
    } else if (has_max) {
        snprintf(text, sizeof text, "%s %s %s", what, hi, max);
    } else {
        snprintf(text, sizeof text, "%s", what);
    }
    append(buf, size, &used, text);
    if (option->unit && option->unit[0]) {
        append(buf, size, &used, " in ");
        append(buf, size, &used, option->unit);
    }
}

static bool in_range(const psb_option *option, double value) {
    if (option->min_open ? !(value > option->min) : !(value >= option->min)) {
        return false;
    }
    if (option->max_open ? !(value < option->max) : !(value <= option->max)) {
        return false;
    }
    return true;
}

// The whole of text must be a finite number: no leading blanks, no trailing
// characters, no "nan" or "inf", no overflow.
static bool parse_double(const char *text, double *out) {
    if (text[0] == '\0' || isspace((unsigned char)text[0])) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (*end != '\0' || !isfinite(value) || (errno == ERANGE && fabs(value) > 1.0)) {
        return false;
    }
    *out = value;
    return true;
}

bool psb_options_parse_numbers(const char *text, double *values, int count) {
    const char *start = text;
    for (int i = 0; i < count; i++) {
        const char *end = strchr(start, ',');
        size_t len = end ? (size_t)(end - start) : strlen(start);
        char number[64];
        if ((end == NULL) != (i == count - 1) || len >= sizeof number) {
            return false;
        }
        memcpy(number, start, len);
        number[len] = '\0';
        if (!parse_double(number, &values[i])) {
            return false;
        }
        start = end ? end + 1 : start + len;
    }
    return true;
}

static bool parse_int(const char *text, int *out) {
    if (text[0] == '\0' || isspace((unsigned char)text[0])) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (*end != '\0' || errno == ERANGE || value < INT_MIN || value > INT_MAX) {
        return false;
    }
    *out = (int)value;
    return true;
}

// Stores text as the option's value; false (with the expectation in
// expected) when it is not acceptable.
static bool store_value(const psb_option *option, void *field, const char *text, char *expected,
                        size_t expected_size) {
    switch (option->type) {
    case PSB_OPT_NUMBER: {
        double value = 0.0;
        if (!parse_double(text, &value) || !in_range(option, value)) {
            describe_expected(option, expected, expected_size);
            return false;
        }
        *(double *)field = value;
        return true;
    }
    case PSB_OPT_INT: {
        int value = 0;
        if (!parse_int(text, &value) || !in_range(option, (double)value)) {
            describe_expected(option, expected, expected_size);
            return false;
        }
        *(int *)field = value;
        return true;
    }
    case PSB_OPT_STRING:
        if (text[0] == '\0') {
            snprintf(expected, expected_size, "a non-empty value");
            return false;
        }
        *(const char **)field = text;
        return true;
    case PSB_OPT_CHOICE:
        for (int i = 0; i < option->choice_count; i++) {
            if (strcmp(text, option->choice(i)) == 0) {
                *(int *)field = i;
                return true;
            }
        }
        describe_expected(option, expected, expected_size);
        return false;
    case PSB_OPT_CUSTOM:
        expected[0] = '\0';
        if (!option->parse(text, field, expected, expected_size)) {
            if (expected[0] == '\0') {
                snprintf(expected, expected_size, "%s", option->meta ? option->meta : "a value");
            }
            return false;
        }
        return true;
    case PSB_OPT_FLAG:
        break;
    }
    return false;
}

static const psb_option *find_option(const psb_option_group *groups, int group_count,
                                     const char *name, size_t name_len, int *group_index,
                                     int *option_index) {
    for (int g = 0; g < group_count; g++) {
        for (int i = 0; i < groups[g].count; i++) {
            const psb_option *option = &groups[g].options[i];
            if (strlen(option->name) == name_len && strncmp(option->name, name, name_len) == 0) {
                *group_index = g;
                *option_index = i;
                return option;
            }
        }
    }
    return NULL;
}

bool psb_options_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            return false;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            return true;
        }
    }
    return false;
}

bool psb_options_parse(const char *program, int argc, char **argv, const psb_option_group *groups,
                       int group_count, psb_positionals *positionals, char *error,
                       size_t error_size) {
    bool only_positionals = false;
    if (positionals) {
        positionals->count = 0;
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool is_option = !only_positionals && arg[0] == '-' && arg[1] != '\0';
        if (is_option && strcmp(arg, "--") == 0) {
            only_positionals = true;
            continue;
        }
        if (!is_option) {
            if (!positionals) {
                snprintf(error, error_size, "%s: unexpected argument '%s'", program, arg);
                return false;
            }
            if (positionals->count >= positionals->capacity) {
                snprintf(error, error_size, "%s: too many arguments at '%s'", program, arg);
                return false;
            }
            positionals->args[positionals->count++] = arg;
            continue;
        }
        if (arg[1] != '-') {
            snprintf(error, error_size, "%s: unknown option '%s' (see '%s --help')", program, arg,
                     program);
            return false;
        }
        const char *name = arg + 2;
        const char *equals = strchr(name, '=');
        size_t name_len = equals ? (size_t)(equals - name) : strlen(name);
        int g = 0;
        int k = 0;
        const psb_option *option = find_option(groups, group_count, name, name_len, &g, &k);
        if (!option) {
            snprintf(error, error_size, "%s: unknown option '--%.*s' (see '%s --help')", program,
                     (int)name_len, name, program);
            return false;
        }
        void *field = field_of(&groups[g], option);
        if (option->type == PSB_OPT_FLAG) {
            if (equals) {
                snprintf(error, error_size, "%s: --%s takes no value, got '%s'", program,
                         option->name, arg);
                return false;
            }
            *(bool *)field = true;
        } else {
            const char *value = NULL;
            if (equals) {
                value = equals + 1;
            } else if (i + 1 < argc) {
                value = argv[++i];
            } else {
                char expected[256];
                describe_expected(option, expected, sizeof expected);
                if (option->type == PSB_OPT_STRING || option->type == PSB_OPT_CUSTOM) {
                    snprintf(expected, sizeof expected, "%s", option->meta ? option->meta : "");
                }
                snprintf(error, error_size, "%s: --%s needs a value: %s", program, option->name,
                         expected);
                return false;
            }
            char expected[256];
            if (!store_value(option, field, value, expected, sizeof expected)) {
                snprintf(error, error_size, "%s: --%s: expected %s, got '%s'", program,
                         option->name, expected, value);
                return false;
            }
        }
        if (groups[g].seen) {
            groups[g].seen[k]++;
        }
    }
    return true;
}

int psb_options_seen(const psb_option_group *groups, int group_count, const char *name) {
    int g = 0;
    int k = 0;
    const psb_option *option = find_option(groups, group_count, name, strlen(name), &g, &k);
    assert(option && "psb_options_seen: no option of that name");
    if (!option || !groups[g].seen) {
        return 0;
    }
    return groups[g].seen[k];
}

// "(N/m; default 2000)", "(default icosphere)", "(m)" or "".
static void describe_default(const psb_option_group *group, const psb_option *option, char *buf,
                             size_t size) {
    const void *field = (const char *)group->base + option->offset;
    char value[128] = "";
    switch (option->default_text ? PSB_OPT_STRING : option->type) {
    case PSB_OPT_FLAG:
        snprintf(value, sizeof value, "%s", *(const bool *)field ? "on" : "off");
        break;
    case PSB_OPT_NUMBER:
        snprintf(value, sizeof value, "%g", *(const double *)field);
        break;
    case PSB_OPT_INT:
        snprintf(value, sizeof value, "%d", *(const int *)field);
        break;
    case PSB_OPT_STRING: {
        const char *text =
            option->default_text ? option->default_text : *(const char *const *)field;
        snprintf(value, sizeof value, "%s", text ? text : "");
        break;
    }
    case PSB_OPT_CHOICE: {
        int index = *(const int *)field;
        if (index >= 0 && index < option->choice_count) {
            snprintf(value, sizeof value, "%s", option->choice(index));
        }
        break;
    }
    case PSB_OPT_CUSTOM:
        if (option->show) {
            option->show(field, value, sizeof value);
        }
        break;
    }
    size_t used = 0;
    buf[0] = '\0';
    bool has_unit = option->unit && option->unit[0];
    bool has_value = value[0] != '\0';
    bool repeat = option->repeatable;
    if (!has_unit && !has_value && !repeat) {
        return;
    }
    append(buf, size, &used, " (");
    if (has_unit) {
        append(buf, size, &used, option->unit);
    }
    if (has_value) {
        append(buf, size, &used, has_unit ? "; default " : "default ");
        append(buf, size, &used, value);
    }
    if (repeat) {
        append(buf, size, &used, has_unit || has_value ? "; repeatable" : "repeatable");
    }
    append(buf, size, &used, ")");
}

// Prints text from the help column on, wrapped at HELP_WIDTH, continuing
// lines indented to the help column. The cursor is at `column` already.
static void print_wrapped(FILE *out, const char *text, int column) {
    if (column > HELP_COLUMN - 2) {
        fputc('\n', out);
        column = 0;
    }
    fprintf(out, "%*s", HELP_COLUMN - column, "");
    column = HELP_COLUMN;
    const char *word = text;
    while (*word) {
        while (*word == ' ') {
            word++;
        }
        size_t len = strcspn(word, " ");
        if (len == 0) {
            break;
        }
        if (column > HELP_COLUMN && column + 1 + (int)len > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_COLUMN, "");
            column = HELP_COLUMN;
        } else if (column > HELP_COLUMN) {
            fputc(' ', out);
            column++;
        }
        fprintf(out, "%.*s", (int)len, word);
        column += (int)len;
        word += len;
    }
    fputc('\n', out);
}

void psb_options_print_help(FILE *out, const psb_option_group *groups, int group_count) {
    for (int g = 0; g < group_count; g++) {
        fprintf(out, "%s%s:\n", g > 0 ? "\n" : "", groups[g].title);
        for (int i = 0; i < groups[g].count; i++) {
            const psb_option *option = &groups[g].options[i];
            char left[256];
            size_t used = 0;
            left[0] = '\0';
            append(left, sizeof left, &used, "  --");
            append(left, sizeof left, &used, option->name);
            if (option->type == PSB_OPT_CHOICE) {
                append(left, sizeof left, &used, " ");
                for (int c = 0; c < option->choice_count; c++) {
                    append(left, sizeof left, &used, c > 0 ? "|" : "");
                    append(left, sizeof left, &used, option->choice(c));
                }
            } else if (option->type != PSB_OPT_FLAG && option->meta) {
                append(left, sizeof left, &used, " ");
                append(left, sizeof left, &used, option->meta);
            }
            char text[768];
            size_t text_used = 0;
            text[0] = '\0';
            append(text, sizeof text, &text_used, option->help);
            char tail[256];
            describe_default(&groups[g], option, tail, sizeof tail);
            append(text, sizeof text, &text_used, tail);
            fputs(left, out);
            print_wrapped(out, text, (int)used);
        }
    }
    fputs("  -h, --help", out);
    print_wrapped(out, "show this help and exit", 12);
}
