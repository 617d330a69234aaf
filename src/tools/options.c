// Table-driven option parsing and help; see options.h.
#include "options.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
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

const psb_param_info *psb_options_param(const char *name) {
    const psb_param_info *info = psb_param_find(name);
    assert(info && "psb_options_param: no parameter of that name in the core's table");
    return info;
}

// The option as it is parsed and shown: a physics option with its entry's
// type, range, unit and help filled in.
static psb_option resolve(const psb_option *option) {
    psb_option r = *option;
    if (!option->param) {
        return r;
    }
    const psb_param_info *info = psb_options_param(option->param);
    r.unit = info->unit;
    if (!r.help) {
        r.help = info->help;
    }
    if (option->type == PSB_OPT_CUSTOM) {
        return r;
    }
    assert(info->count == 1 && "a vector parameter needs a PSB_OPT_CUSTOM option");
    switch (info->type) {
    case PSB_PARAM_REAL:
        r.type = PSB_OPT_NUMBER;
        break;
    case PSB_PARAM_INT:
        r.type = PSB_OPT_INT;
        break;
    case PSB_PARAM_CHOICE:
        // The choices are the values 0 .. max, stored as the option's int.
        r.type = PSB_OPT_CHOICE;
        r.choice = info->choice;
        r.choice_count = (int)info->max + 1;
        break;
    }
    r.min = info->min;
    r.max = info->max;
    r.min_open = info->min_open || option->min_open;
    r.max_open = info->max_open || option->max_open;
    return r;
}

// The range a resolved number or integer option is checked against: its
// entry of the core's table, or one made of the option's own bounds, so that
// the core's psb_param_in_range and psb_param_describe_range serve both.
static psb_param_info range_of(const psb_option *option) {
    if (option->param) {
        psb_param_info range = *psb_options_param(option->param);
        range.min_open = range.min_open || option->min_open;
        range.max_open = range.max_open || option->max_open;
        return range;
    }
    return (psb_param_info){
        .name = option->name,
        .field = option->name,
        .unit = option->unit ? option->unit : "",
        .type = option->type == PSB_OPT_INT ? PSB_PARAM_INT : PSB_PARAM_REAL,
        .count = 1,
        .min = option->min,
        .max = option->max,
        .min_open = option->min_open,
        .max_open = option->max_open,
    };
}

// "a number from 0 to 1e12 in N/m", "an integer >= 1", "one of a, b or c".
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
    const psb_param_info range = range_of(option);
    psb_param_describe_range(&range, buf, size);
}

// What a number's text can be wrong with.
typedef enum number_check {
    NUMBER_OK,
    NUMBER_BAD,  // not a decimal number, or too large for a double
    NUMBER_TINY, // below the smallest normal double (about 2.2e-308), but not 0
} number_check;

// A decimal number and nothing else: [+-] digits [. digits] [e [+-] digits],
// with a digit before the exponent. strtod alone would also take
// hexadecimal ("0x10"), "nan", "inf" and leading blanks.
static bool is_decimal(const char *text) {
    const char *c = text;
    int digits = 0;
    if (*c == '+' || *c == '-') {
        c++;
    }
    for (; isdigit((unsigned char)*c); c++) {
        digits++;
    }
    if (*c == '.') {
        for (c++; isdigit((unsigned char)*c); c++) {
            digits++;
        }
    }
    if (digits == 0) {
        return false;
    }
    if (*c == 'e' || *c == 'E') {
        c++;
        if (*c == '+' || *c == '-') {
            c++;
        }
        if (!isdigit((unsigned char)*c)) {
            return false;
        }
        while (isdigit((unsigned char)*c)) {
            c++;
        }
    }
    return *c == '\0';
}

static number_check parse_double(const char *text, double *out) {
    if (!is_decimal(text)) {
        return NUMBER_BAD;
    }
    errno = 0;
    double value = strtod(text, NULL);
    if (errno == ERANGE || !isfinite(value)) {
        return fabs(value) < 1.0 ? NUMBER_TINY : NUMBER_BAD;
    }
    if (value != 0.0 && fabs(value) < DBL_MIN) {
        return NUMBER_TINY;
    }
    // "-0" is 0: a negative zero would print as "-0" in every result.
    *out = value == 0.0 ? 0.0 : value;
    return NUMBER_OK;
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
        if (parse_double(number, &values[i]) != NUMBER_OK) {
            return false;
        }
        start = end ? end + 1 : start + len;
    }
    return true;
}

bool psb_options_parse_param_numbers(const char *text, const psb_param_info *param, double *values,
                                     int count, const char *what, char *expected,
                                     size_t expected_size) {
    char range[192];
    psb_param_describe_range(param, range, sizeof range);
    snprintf(expected, expected_size, "%s, each %s", what, range);
    if (!psb_options_parse_numbers(text, values, count)) {
        return false;
    }
    for (int i = 0; i < count; i++) {
        if (!psb_param_in_range(param, values[i])) {
            return false;
        }
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

bool psb_options_parse_substeps(const char *text, bool *automatic, int *count, char *expected,
                                size_t expected_size) {
    const psb_param_info *range = psb_options_param("substeps");
    char words[96];
    psb_param_describe_range(range, words, sizeof words);
    snprintf(expected, expected_size, "auto or %s", words);
    *automatic = strcmp(text, "auto") == 0;
    return *automatic || (parse_int(text, count) && psb_param_in_range(range, *count));
}

// Stores text as the option's value; false (with the expectation in
// expected) when it is not acceptable.
static bool store_value(const psb_option *option, void *field, const char *text, char *expected,
                        size_t expected_size) {
    switch (option->type) {
    case PSB_OPT_NUMBER: {
        double value = 0.0;
        const psb_param_info range = range_of(option);
        const number_check check = parse_double(text, &value);
        if (check != NUMBER_OK || !psb_param_in_range(&range, value)) {
            describe_expected(option, expected, expected_size);
            if (check == NUMBER_TINY) {
                // Say what to give instead: 0 where the range has it.
                size_t used = strlen(expected);
                append(expected, expected_size, &used,
                       psb_param_in_range(&range, 0.0)
                           ? " (and 0 rather than a number below 2.2e-308, the smallest a "
                             "double holds in full)"
                           : " (a number below 2.2e-308 is too small for a double to hold in "
                             "full)");
            }
            return false;
        }
        *(double *)field = value;
        return true;
    }
    case PSB_OPT_INT: {
        int value = 0;
        const psb_param_info range = range_of(option);
        if (!parse_int(text, &value) || !psb_param_in_range(&range, (double)value)) {
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
        const psb_option *found = find_option(groups, group_count, name, name_len, &g, &k);
        if (!found) {
            snprintf(error, error_size, "%s: unknown option '--%.*s' (see '%s --help')", program,
                     (int)name_len, name, program);
            return false;
        }
        const psb_option resolved = resolve(found);
        const psb_option *option = &resolved;
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

// The range an option takes, for its help: " [0, 1e12]", " (0, 1]", " [1, ∞)"
// for a number or an integer, ", each in [-1000, 1000]" for a vector of a
// physics parameter, "" for other options.
static void describe_interval(const psb_option *option, char *buf, size_t size) {
    buf[0] = '\0';
    const bool vector = option->type == PSB_OPT_CUSTOM && option->param;
    if (option->type != PSB_OPT_NUMBER && option->type != PSB_OPT_INT && !vector) {
        return;
    }
    const psb_param_info range = range_of(option);
    const bool is_int = range.type != PSB_PARAM_REAL;
    const bool has_min = isfinite(range.min) && !(is_int && range.min <= INT_MIN);
    const bool has_max = isfinite(range.max) && !(is_int && range.max >= INT_MAX);
    char min[48] = "-∞";
    char max[48] = "∞";
    // Integers in full ("10000000"), other numbers short ("1e12").
    if (has_min && is_int) {
        snprintf(min, sizeof min, "%.0f", range.min);
    } else if (has_min) {
        psb_param_format(range.min, min, sizeof min);
    }
    if (has_max && is_int) {
        snprintf(max, sizeof max, "%.0f", range.max);
    } else if (has_max) {
        psb_param_format(range.max, max, sizeof max);
    }
    snprintf(buf, size, "%s%s%s, %s%s", vector ? ", each in " : " ",
             has_min && !range.min_open ? "[" : "(", min, max,
             has_max && !range.max_open ? "]" : ")");
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
            const psb_option resolved = resolve(&groups[g].options[i]);
            const psb_option *option = &resolved;
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
            char interval[128];
            describe_interval(option, interval, sizeof interval);
            append(text, sizeof text, &text_used, interval);
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
