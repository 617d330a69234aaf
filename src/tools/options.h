// Table-driven command-line options: one table per group of options both
// parses the arguments and prints the help, so the two cannot drift apart.
//
// Options are written `--name VALUE` or `--name=VALUE`; flags take no value.
// Numbers are parsed strictly: the whole string must be a decimal number
// (no hexadecimal, no "nan" or "inf", nothing too large or too small for a
// double) inside the option's range, or the parse fails with one line that
// names the option, what was expected (the range, with its unit) and what
// was given. A physics option takes its range from the core's parameter
// table (psb_param_table), where every physical range is written once.
#ifndef PSB_OPTIONS_H
#define PSB_OPTIONS_H

#include <psb/psb.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/// The sizes the command line takes for a body or a collider (--radius,
/// --fit, a --sphere's radius, --weld-tolerance's upper end), m: a
/// millimetre to 10 km, the span of the positions in the core's table.
#define PSB_OPT_SIZE_MIN 1e-3
#define PSB_OPT_SIZE_MAX 1e4

/// What an option's value is, and so how it is parsed and stored.
typedef enum psb_option_type {
    PSB_OPT_FLAG,   ///< no value; sets a `bool` to true
    PSB_OPT_NUMBER, ///< a finite `double` in [min, max] (ends open when min_open / max_open)
    PSB_OPT_INT,    ///< an `int` in [min, max]
    PSB_OPT_STRING, ///< a `const char *` pointing into argv
    PSB_OPT_CHOICE, ///< an `int`: the index of one of choice_count names
    PSB_OPT_CUSTOM, ///< parsed by the option's parse function
} psb_option_type;

/// Parses text into field for a PSB_OPT_CUSTOM option. On failure returns
/// false and writes what was expected into expected ("three numbers X,Y,Z in m").
typedef bool (*psb_option_parse_fn)(const char *text, void *field, char *expected,
                                    size_t expected_size);

/// Writes the field's current value (the default, when called by the help)
/// into out; writes "" to show no default.
typedef void (*psb_option_show_fn)(const void *field, char *out, size_t out_size);

/// Name of choice `index` (0 .. choice_count - 1) of a PSB_OPT_CHOICE option.
typedef const char *(*psb_option_choice_fn)(int index);

/// One option. Its value lives at `offset` bytes into the group's base.
/// Unused fields may be left zero, except that a number without a bound
/// needs min = -INFINITY or max = INFINITY. A physics option names its
/// entry of the core's table in `param` and leaves type, unit, min, max and
/// (unless it says more) help to it; it may only leave out an end of the
/// entry's range (min_open, max_open), where the command gives that value no
/// meaning.
typedef struct psb_option {
    const char *name;            ///< without the leading "--"
    const char *param;           ///< a psb_param_find name ("ks"), or NULL: the option then
                                 ///< takes that entry's type (a number, an integer or a
                                 ///< choice), range and unit, and its help where help is NULL;
                                 ///< a PSB_OPT_CUSTOM option (a vector) its unit and help only
    psb_option_type type;        ///< how the value is parsed and stored
    size_t offset;               ///< offsetof(the group's struct, the field)
    const char *meta;            ///< value placeholder in the help ("N", "FILE"); unused by flags
    const char *unit;            ///< unit of the value ("N/m", "s"); NULL for none
    const char *help;            ///< one line: what the option does
    double min;                  ///< lowest allowed value (PSB_OPT_NUMBER, PSB_OPT_INT)
    double max;                  ///< highest allowed value
    bool min_open;               ///< the range excludes min (> rather than >=), also a param's
    bool max_open;               ///< the range excludes max (< rather than <=), also a param's
    bool repeatable;             ///< each use adds a value (the help says so)
    psb_option_choice_fn choice; ///< PSB_OPT_CHOICE: names of the choices
    int choice_count;            ///< PSB_OPT_CHOICE: how many choices
    psb_option_parse_fn parse;   ///< PSB_OPT_CUSTOM: the parser
    psb_option_show_fn show;     ///< PSB_OPT_CUSTOM: shows the default (may be NULL)
    const char *default_text;    ///< shown as the default instead of the value, when not NULL
} psb_option;

/// A table of options that store into one struct, with a title for the help.
typedef struct psb_option_group {
    const char *title;         ///< heading in the help ("Shape", "Simulation")
    const psb_option *options; ///< the table
    int count;                 ///< entries in the table
    void *base;                ///< the struct the offsets point into
    int *seen;                 ///< `count` counters: how often each option was given; may be NULL
} psb_option_group;

/// Where a parse leaves the arguments that are not options.
typedef struct psb_positionals {
    const char **args; ///< room for `capacity` pointers into argv
    int capacity;      ///< size of args
    int count;         ///< how many were found (parsing fails past capacity)
} psb_positionals;

/// True when argv[1 ..] (before a "--") holds -h or --help.
bool psb_options_wants_help(int argc, char **argv);

/// Parses argv[1 .. argc-1] into the groups. Arguments that do not start with
/// "-" (and everything after "--") go to positionals, which may be NULL: then
/// they are errors. On failure returns false and writes one line, starting
/// with `program` ("psb sim") and without a newline, into error.
bool psb_options_parse(const char *program, int argc, char **argv, const psb_option_group *groups,
                       int group_count, psb_positionals *positionals, char *error,
                       size_t error_size);

/// Parses exactly `count` comma-separated finite numbers ("1,2.5,-3") into
/// values, each as strictly as a PSB_OPT_NUMBER. False if anything else.
bool psb_options_parse_numbers(const char *text, double *values, int count);

/// The same, each value also within the range of `param` (psb_param_in_range);
/// on failure writes what was expected, "three numbers X,Y,Z, each a number
/// from -1000 to 1000 in m/s", into expected (`what` names the numbers:
/// "three numbers X,Y,Z").
bool psb_options_parse_param_numbers(const char *text, const psb_param_info *param, double *values,
                                     int count, const char *what, char *expected,
                                     size_t expected_size);

/// --substeps: "auto" (*automatic true) or an integer in the table's range
/// (*count); on failure writes "auto or an integer from 1 to 10000" into
/// expected.
bool psb_options_parse_substeps(const char *text, bool *automatic, int *count, char *expected,
                                size_t expected_size);

/// The core's table entry called name; asserts that there is one.
const psb_param_info *psb_options_param(const char *name);

/// How many times the option called name was given (0 if never, or if its
/// group keeps no counters). The name must be in one of the groups.
int psb_options_seen(const psb_option_group *groups, int group_count, const char *name);

/// Prints one help entry per option, grouped under the titles, each with its
/// value placeholder, help text, unit and the default read from the groups'
/// structs (so print the help from structs that hold the defaults).
void psb_options_print_help(FILE *out, const psb_option_group *groups, int group_count);

#endif
