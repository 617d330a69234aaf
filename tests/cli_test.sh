#!/bin/sh
# End-to-end tests of the psb command line: help, exit statuses and error
# lines, the summary and info formats, the CSV, and the analytic equilibria
# of DESIGN.md section 1 reproduced through `psb sim`.
#
# usage: cli_test.sh PATH/TO/psb        (ctest runs it with the built binary)
set -u

PSB=${1:?usage: cli_test.sh PATH/TO/psb}
if [ ! -x "$PSB" ]; then
    echo "cli_test: '$PSB' is not an executable" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/psb-cli-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM

# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# expect_keys KEY...: the last run's stdout is exactly these key=value lines,
# in this order.
expect_keys() {
    what=$1
    shift
    checks=$((checks + 1))
    got=$(cut -d= -f1 "$tmp/out" | tr '\n' ' ')
    want="$* "
    if [ "$got" != "$want" ]; then
        fail "$what: keys '$got', expected '$want'"
    fi
}

# ---- the top level

run --help
expect_status 0 "psb --help"
expect_in "$tmp/out" '^  sim ' "psb --help lists sim"
expect_in "$tmp/out" '^  info ' "psb --help lists info"
expect_in "$tmp/out" "psb sim --help" "psb --help points to psb sim --help"
expect_in "$tmp/out" "psb info --help" "psb --help points to psb info --help"

run
expect_status 0 "psb without arguments"
expect_in "$tmp/out" "usage: psb" "psb without arguments prints the help"

run --version
expect_status 0 "psb --version"
expect_in "$tmp/out" '^psb [0-9]+\.[0-9]+' "psb --version"

run frobnicate
expect_status 2 "unknown command"
expect_one_error_line "unknown command"

# ---- psb sim --help: every option, each with its unit and default

# unwrap_help: the last run's help with each option's wrapped lines joined
# into one, so that one pattern finds an option's text, range and default.
unwrap_help() {
    awk '/^                  / { sub(/^ +/, " "); line = line $0; next }
        { if (NR > 1) print line; line = $0 } END { print line }' "$tmp/out" >"$tmp/unwrapped"
    mv "$tmp/unwrapped" "$tmp/out"
}

run sim --help
expect_status 0 "psb sim --help"
unwrap_help
for option in shape points subdiv radius columns rows mass ks kd nrt p0 gravity dt substeps \
    time steps integrator floor no-floor restitution friction inflate-time gravity-waits \
    mass-by-area height walls sphere csv csv-every summary scene shape-k shape-damping wind \
    wind-turbulence wind-drag pin threads tol iterations; do
    expect_in "$tmp/out" "^  --$option( |\$)" "psb sim --help mentions --$option"
done
expect_in "$tmp/out" '^  --ks .*\(N/m; default [0-9.e+-]+\)' "--ks shows its unit and default"
expect_in "$tmp/out" '^  --dt .*\(s; default [0-9.e+-]+\)' "--dt shows its unit and default"
expect_in "$tmp/out" '^  --mass .*\(kg; default [0-9.e+-]+\)' "--mass shows its unit and default"
expect_in "$tmp/out" 'euler\|symplectic\|heun\|rk4\|verlet\|implicit\|bdf2' "--integrator lists its choices"
expect_in "$tmp/out" '\(m/s; default 0.001\)' "--tol shows its unit and default"
expect_in "$tmp/out" '\(default 500\)' "--iterations shows its default"
expect_in "$tmp/out" '^  --shape-k .*\(N/m; default 0\)' "--shape-k shows its unit and default"
expect_in "$tmp/out" '^  --shape-damping .*\(1/s; default 0\)' "--shape-damping shows its unit"
expect_in "$tmp/out" '\(m/s; default 0,0,0\)' "--wind shows its unit and default"
expect_in "$tmp/out" '^  --wind-drag .*kg/\(m' "--wind-drag shows its unit"
expect_in "$tmp/out" 'default, pressure, shape, flag, planets, ring or pile' "--scene lists the scenes"
expect_in "$tmp/out" 'ring\|icosphere\|uvsphere\|box\|torus\|cloth' "--shape lists cloth"
# Each number's range, from the core's table for the physics options.
expect_in "$tmp/out" '^  --ks .*\[0, 1e12\] \(N/m; default' "--ks shows its range"
expect_in "$tmp/out" '^  --mass .*\[1e-6, 1e6\] \(kg; default' "--mass shows its range"
expect_in "$tmp/out" '^  --dt .*\[1e-9, 1\] \(s; default' "--dt shows its range"
expect_in "$tmp/out" '^  --wind .*each in \[-1000, 1000\] \(m/s; default' "--wind shows its range"
expect_in "$tmp/out" '^  --radius .*\[0.001, 10000\] \(m; default' "--radius shows its range"

run sim -h
expect_status 0 "psb sim -h"
run help sim
expect_status 0 "psb help sim"
expect_in "$tmp/out" "usage: psb sim" "psb help sim shows the sim help"

run info --help
expect_status 0 "psb info --help"
for option in shape points subdiv radius; do
    expect_in "$tmp/out" "^  --$option( |\$)" "psb info --help mentions --$option"
done

# ---- bad options and values: exit 2 with one line naming the option

run sim --bogus
expect_status 2 "unknown option"
expect_one_error_line "unknown option"
expect_in "$tmp/err" "bogus" "unknown option is named"

# Each case: the option the error line must name, then the arguments.
while read -r name args; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    run sim $args
    expect_status 2 "psb sim $args" &&
        expect_one_error_line "psb sim $args" &&
        expect_in "$tmp/err" "$name" "psb sim $args names $name"
done <<'EOF'
--ks --ks -1
--ks --ks abc
--ks --ks=
--kd --kd 1x
--dt --dt 0
--dt --dt abc
--dt --dt nan
--dt --dt inf
--dt --dt=1e999
--mass --mass 0
--nrt --nrt -5
--integrator --integrator foo
--points --points 2
--points --points 3.5
--subdiv --subdiv 99
--subdiv --subdiv -1
--radius --radius 0
--substeps --substeps 0
--substeps --substeps 1.5
--substeps --substeps automatic
--substeps --substeps 10001
--restitution --restitution 1.5
--friction --friction -1
--time --time 1 --steps 5
--steps --steps -3
--shape --shape cone
--walls --walls 1,2,3
--walls --walls 1,0,0,0,1,1
--sphere --sphere 0,0,0,0
--sphere --sphere 0,0,x,1
--floor --floor 1 --no-floor
--summary --summary=yes
--csv-every --csv-every 0
--ks --ks
--shape-k --shape-k -1
--shape-k --shape-k nan
--shape-damping --shape-damping -0.5
--wind-drag --wind-drag -1
--wind --wind 1,2
--wind --wind 1,2,x
--wind --wind 1,2,3,4
--wind-turbulence --wind-turbulence -2
--pin --pin -1
--pin --pin 1.5
--pin --pin x
--pin --pin 642
--pin --pin 5 --pin 9 --pin 100000
--columns --columns 1
--rows --rows 5000
--scene --scene nosuch
--scene --scene
--scene --scene flag --shape ring
--scene --scene flag --nrt 5
--scene --scene flag --pin 0
whatever.obj --scene default --mesh whatever.obj
--rows --mesh whatever.obj --rows 3
--nrt --shape cloth --nrt 5
--tol --tol 0
--tol --tol nan
--tol --tol -1
--tol --tol inf
--iterations --iterations 0
--iterations --iterations 100001
--iterations --iterations 2.5
--blowup-size --blowup-size 0
--blowup-size --blowup-size nan
EOF

# --blowup-size widens the blow-up guard: 1e4 J of gas in soft springs
# blows a ball up to tens of metres within a second, a "blow-up" every step
# for the default guard of one body diameter, none for 100.
# A run that ended in blow-ups says so in its exit status, 3.
run sim --ks 1 --nrt 10000 --integrator implicit --time 0.5 --summary
expect_status 3 "psb sim --ks 1 --nrt 10000 blows up"
checks=$((checks + 1))
[ "$(value blowups)" -gt 0 ] 2>/dev/null ||
    fail "soft and full of gas: the default guard should reset it (blowups=$(value blowups))"
expect_in "$tmp/err" "blow-ups? detected and recovered from \(exit status 3\)" \
    "a run with blow-ups says so on stderr"
run sim --ks 1 --nrt 10000 --integrator implicit --time 0.5 --blowup-size 100 --summary
expect_status 0 "psb sim --ks 1 --nrt 10000 --blowup-size 100"
expect_value blowups 0 "--blowup-size 100: no blow-up"

# An unknown scene: the error line lists the scenes there are.
run sim --scene nosuch
expect_in "$tmp/err" "default, pressure, shape, flag, planets, ring or pile" "--scene nosuch lists the scenes"

# ---- hostile values: every option of sim, bench, info and view
#
# Each option (read from the command's --help, so that a new one is in too;
# files and folders aside) with values a script or a typo can give. Each run
# must either be refused (exit 2, one line naming the option and what it
# expected) or finish with finite figures: exit 0, or 3 after blow-ups
# (never 0 with a blow-up on stderr), no nan or inf in what it prints.

hostile_values="nan inf -inf 1e308 -1e308 1e-320 0 -0 0x10 1e 1e999"
# Every option gets the values that tell a parser or range of its own apart
# (the options share one parser, so the rest go to one option of each kind).
hostile_some="nan 1e308 -1e308 1e-320 0x10"
hostile_all_on="sim:mass sim:substeps sim:integrator sim:threads sim:wind bench:damping view:gravity"

# options_of COMMAND: the command's options that take a number or a name.
options_of() {
    "$PSB" "$1" --help | sed -n 's/^  --\([a-z0-9-]*\) \([^ ]*\).*/\1 \2/p' |
        awk '$2 != "FILE" && $2 != "DIR" { print $1 }'
}

# flags_of COMMAND: the command's options that take no value.
flags_of() {
    "$PSB" "$1" --help | sed -n 's/^  --\([a-z0-9-]*\)$/\1/p; s/^  --\([a-z0-9-]*\)  .*/\1/p'
}

# expect_hostile_handled COMMAND OPTION ARGS...: runs psb COMMAND ARGS and
# checks what it did with OPTION's value as above.
expect_hostile_handled() {
    cmd=$1 opt=$2
    shift 2
    what="psb $cmd $*"
    if [ "$cmd" = view ]; then
        # No display: an accepted value gets as far as opening the window.
        env -u DISPLAY -u WAYLAND_DISPLAY "$PSB" view "$@" >"$tmp/out" 2>"$tmp/err"
    else
        "$PSB" "$cmd" "$@" >"$tmp/out" 2>"$tmp/err"
    fi
    status=$?
    checks=$((checks + 1))
    if [ "$status" -eq 2 ] && ! grep -q "no display" "$tmp/err"; then
        if [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ] ||
            ! grep -q -- "--$opt" "$tmp/err" ||
            ! grep -Eq "expected|needs|cannot be used|takes no value" "$tmp/err"; then
            fail "$what: refused without one line naming --$opt and what it expected:" \
                "$(head -c 300 "$tmp/err")"
        fi
        return
    fi
    if [ "$cmd" = view ]; then
        [ "$status" -lt 128 ] || fail "$what: crashed (status $status)"
        return
    fi
    if grep -Eiq '(^|[=, (])[-+]?(nan|inf)' "$tmp/out"; then
        fail "$what: a non-finite figure: $(grep -Ei 'nan|inf' "$tmp/out" | head -n 3 | tr '\n' ' ')"
    elif [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
        fail "$what: exit status $status: $(head -c 300 "$tmp/err")"
    elif [ "$status" -eq 0 ] && grep -q "blew up" "$tmp/err"; then
        fail "$what: exit status 0 after a blow-up"
    elif [ "$status" -eq 3 ] && ! grep -q "blew up" "$tmp/err"; then
        fail "$what: exit status 3 without a blow-up"
    fi
}

# The base arguments of each command: a short run, so that an accepted value
# finishes at once. The option under test comes last, so that it wins.
base_sim="--steps 3 --subdiv 1 --summary"
commands="sim bench info"
if "$PSB" --help | grep -q '^  view '; then
    commands="$commands view"
fi
for cmd in $commands; do
    case $cmd in
    sim) base=$base_sim ;;
    bench) base="--scene icosphere-3 --steps 2 --repeats 1 --format kv" ;;
    view) base="--frames 1" ;;
    *) base="" ;;
    esac
    for opt in $(options_of "$cmd"); do
        case "$cmd $opt" in
        "sim time") args="--subdiv 1 --summary" ;; # --time and --steps exclude each other
        *) args=$base ;;
        esac
        values=$hostile_some
        case " $hostile_all_on " in *" $cmd:$opt "*) values=$hostile_values ;; esac
        for value in $values ""; do
            # shellcheck disable=SC2086 # the base arguments are split on purpose
            expect_hostile_handled "$cmd" "$opt" $args "--$opt=$value"
        done
    done
    for flag in $(flags_of "$cmd"); do
        # shellcheck disable=SC2086
        expect_hostile_handled "$cmd" "$flag" $base "--$flag=1"
    done
done
# Each number of a vector option.
for value in $hostile_values; do
    for args in "--wind $value,0,0" "--wind 0,0,$value" "--walls $value,-1,-1,1,1,1" \
        "--walls -1,-1,-1,1,1,$value" "--sphere $value,0,0,0.5" "--sphere 0,0,0,$value"; do
        opt=${args%% *}
        # shellcheck disable=SC2086
        expect_hostile_handled sim "${opt#--}" $base_sim $args
    done
done

# The refusals name the range, with its unit.
while read -r name range args; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    run $args
    expect_status 2 "psb $args" && expect_one_error_line "psb $args" &&
        expect_in "$tmp/err" "--$name: expected .*$range.*, got" "psb $args names the range"
done <<'EOF2'
mass from.1e-6.to.1e6.in.kg sim --mass 1e308
nrt from.0.to.1e12.in.J sim --nrt 1e308
dt from.1e-9.to.1.in.s sim --dt 1e308 --steps 30
ks from.0.to.1e12.in.N/m sim --ks 1e-320
kd from.0.to.1e9 sim --kd 1e20
p0 from.-1e9.to.1e9.in.Pa sim --p0 1e308
gravity from.-1000.to.1000 sim --gravity 1e308
sphere 0.001.*10000 sim --sphere 0,0,0,1e308
walls from.-10000.to.10000.in.m sim --walls 0,0,0,1e308,1,1
radius from.0.001.to.10000.in.m sim --radius 1e308
radius from.0.001.to.10000.in.m info --radius 1e308
dt from.1e-9.to.1.in.s sim --dt 0x10
damping from.0.to.1e9 bench --damping 1e308
tol from.1e-15.to.1000.in.m/s bench --tol 1e308
EOF2

# In-range extremes, the explicit and the implicit way: finite figures,
# exit 0 or, after blow-ups, 3; the stable-limit advice a finite number.
for integrator in symplectic bdf2; do
    while read -r args; do
        opt=${args%% *}
        # 30000 solves would check nothing the explicit pass does not.
        [ "$integrator $args" = "bdf2 --dt 1 --substeps 10000" ] && continue
        # shellcheck disable=SC2086 # the arguments are split on purpose
        expect_hostile_handled sim "${opt#--}" $base_sim --integrator $integrator $args
        checks=$((checks + 1))
        # (A blow-up's report says that a point "became NaN or infinite".)
        if sed 's/became NaN or infinite//' "$tmp/err" |
            grep -Eiq '(^|[ (])[-+]?(nan|inf)([^a-z]|$)'; then
            fail "psb sim $args: a non-finite figure on stderr: $(head -c 300 "$tmp/err")"
        fi
    done <<'EOF2'
--mass 1e-6
--mass 1e6
--ks 1e12
--ks 1e-300
--kd 1e9
--nrt 1e12
--p0 1e9
--p0 -1e9
--gravity -1000
--dt 1e-9
--dt 1 --substeps 10000
--wind 1000,-1000,1000 --wind-drag 1e6 --wind-turbulence 1000
--friction 1e6 --restitution 1
--shape-k 1e12 --shape-damping 1e6 --mass 1e-6
--radius 1e-3 --mass 1e6 --ks 1e12 --nrt 1e12
--radius 1e4 --mass 1e-6 --ks 1e12 --kd 1e9
--tol 1e-15 --iterations 100000
--tol 1e3
--sphere 0,1.5,0,1e4 --walls -1e4,-1e4,-1e4,1e4,1e4,1e4
--floor -1e4 --height 1e4 --gravity 1000
--inflate-time 1e6 --blowup-size 0.01
--blowup-size 1e6 --nrt 1e12 --ks 0
EOF2
done
run sim --steps 1 --integrator symplectic --ks 1e6 --substeps 20
expect_in "$tmp/err" "stable limit [0-9.e-]+ s .*try --substeps [0-9]+ or more" \
    "the advice for a stiff body is a finite count of sub-steps"
run sim --steps 1 --integrator symplectic --ks 1e12
expect_in "$tmp/err" "it would take [0-9.e+]+ sub-steps, past the limit of 10000" \
    "the advice past the limit is a finite count of sub-steps"

# --reference: the plain model runs the same bodies (a ring, and the default
# scene's ring and spheres in still air) and ends where the fast step does,
# to its solver's tolerance; what it lacks is refused by name.
for args in "--shape ring --time 1" "--scene default --time 1" "--shape icosphere --subdiv 2 --integrator rk4 --time 0.5"; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    run sim $args --summary
    fast_volume=$(value volume) fast_kinetic=$(value kinetic)
    # shellcheck disable=SC2086
    run sim $args --summary --reference
    expect_status 0 "psb sim $args --reference"
    checks=$((checks + 1))
    awk -v a="$fast_volume" -v b="$(value volume)" -v c="$fast_kinetic" -v d="$(value kinetic)" \
        'BEGIN { exit !(a > 0 && (a - b) ^ 2 <= (1e-3 * a) ^ 2 && (c - d) ^ 2 <= (1e-2 * c + 1e-3) ^ 2) }' ||
        fail "psb sim $args: --reference ends at volume $(value volume), kinetic $(value kinetic); the fast step at $fast_volume, $fast_kinetic"
done
# The plain model has no guard: a blow-up stops the run and says so, exit 3.
run sim --reference --integrator symplectic --ks 1e12 --substeps 1 --steps 5 --summary
expect_status 3 "--reference that blows up"
expect_in "$tmp/err" "^psb sim: step 2 .*body 0 blew up in the plain model: point [0-9]+ moved .* the run stops" \
    "--reference says where the plain model blew up"
expect_in "$tmp/out" "^blowups=1$" "--reference counts the plain model's blow-up"
run sim --scene flag --steps 1 --reference
expect_status 2 "--reference with gusts"
expect_in "$tmp/err" "^psb sim: --reference: the plain model has no gusts" "--reference names what it lacks"

# Contact inside the solve: on by default (with a solved integrator), in the
# fast step and the plain model; --no-contact-solve leaves it to the stage.
run sim --scene pile --steps 3 --reference --summary
expect_status 0 "psb sim --scene pile --reference"
expect_in "$tmp/out" "^blowups=0$" "--reference runs the pile's first steps"
run sim --scene pile --time 1.6 --summary
expect_status 0 "psb sim --scene pile"
expect_in "$tmp/out" "^blowups=0$" "the pile runs"
[ "$(value links)" -gt 50 ] || fail "--scene pile: links=$(value links), expected the bodies to be linked"
expect_in "$tmp/out" "^full_list_steps=0$" "the dozen's links and contacts fit their lists"
# The dozen balls' group (7704 points) shares its bodies' work between two
# threads, one body each at a time: the same bits as on one.
cp "$tmp/out" "$tmp/pile_one_thread"
run sim --scene pile --time 1.6 --summary --threads 2
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/pile_one_thread" || fail "the solved pile on two threads differs from one thread"
run sim --scene pile --time 1.6 --no-contact-solve --summary
[ "$(value links)" -eq 0 ] || fail "--scene pile --no-contact-solve: links=$(value links)"
[ "$(value contacts)" -gt 50 ] || fail "--scene pile --no-contact-solve: contacts=$(value contacts)"
run sim --scene pile --time 1.6 --integrator symplectic --substeps 40 --summary
[ "$(value links)" -eq 0 ] || fail "--scene pile --integrator symplectic: links=$(value links)"

run sim --help
expect_in "$tmp/out" "^Exit status: 0 when the run finished without blow-ups; 3 when" \
    "psb sim --help documents the exit status after blow-ups"

run sim stray
expect_status 2 "stray argument"
expect_one_error_line "stray argument"

run sim --csv "$tmp/no/such/dir/out.csv" --steps 1
expect_status 2 "unwritable --csv"
expect_one_error_line "unwritable --csv"

run info "$tmp/mesh.obj"
expect_status 2 "psb info on a missing file"
expect_one_error_line "psb info on a missing file"

run info --subdiv 9
expect_status 2 "psb info --subdiv 9"
expect_one_error_line "psb info --subdiv 9"

# ---- psb sim --summary

summary_keys="time steps points volume pressure mean_radius kinetic spring gas gravity_pe energy
    centroid_x centroid_y centroid_z min_y blowups bodies contacts links full_list_steps put_back shape pinned rest_volume gas_nrt spring_k"
implicit_keys="newton_mean newton_max iterations_mean iterations_max residual force_residual unconverged_steps asleep_steps"

# The default integrator is BDF2, solved: the summary ends with the solver's keys.
run sim --summary --time 0.5
expect_status 0 "psb sim --summary --time 0.5"
# shellcheck disable=SC2086
expect_keys "psb sim --summary" $summary_keys $implicit_keys
run sim --steps 1
expect_in "$tmp/out" "bdf2, dt [0-9.e-]+ s in 1 sub-step \(auto\)," "psb sim runs bdf2 by default, 1 sub-step"
run sim --summary --time 0.5 --integrator symplectic
# shellcheck disable=SC2086
expect_keys "psb sim --integrator symplectic --summary" $summary_keys
expect_value points 642 "default shape is the level-3 icosphere"
expect_value blowups 0 "default scene runs without blow-ups"
expect_value bodies 1 "a shape is one body"
expect_value shape 0 "no shape matching by default"
expect_value pinned 0 "no pins by default"

run sim --summary --time 0.5 --dt 0.01
expect_value steps 50 "--time 0.5 --dt 0.01"
expect_close "$(value time)" 0.5 1e-9 "--time 0.5 --dt 0.01 ends at t = 0.5 s"

run sim --summary --steps 7 --dt 0.002 --shape ring --points 9
expect_status 0 "psb sim --steps 7"
expect_value steps 7 "--steps 7"
expect_value points 9 "--shape ring --points 9"
expect_close "$(value time)" 0.014 1e-9 "--steps 7 --dt 0.002 ends at t = 0.014 s"

run sim --time 0.2
expect_status 0 "psb sim without --summary"
expect_in "$tmp/out" "volume" "the human report mentions the volume"

for integrator in euler symplectic heun rk4 verlet implicit bdf2; do
    run sim --summary --time 0.2 --subdiv 1 --integrator "$integrator"
    expect_status 0 "--integrator $integrator"
    expect_value blowups 0 "--integrator $integrator runs without blow-ups"
done

# ---- the implicit integrator: one sub-step of dt, and the solver's report

run sim --integrator implicit --steps 30 --summary
expect_status 0 "--integrator implicit --steps 30"
# shellcheck disable=SC2086
expect_keys "psb sim --integrator implicit --summary" $summary_keys $implicit_keys
expect_value steps 30 "--integrator implicit --steps 30"
expect_value blowups 0 "--integrator implicit runs without blow-ups"
# How well the solver converges is the core tests' business; here the
# figures must only be consistent: some work every step, the most at least
# the mean, a residual >= 0, at most every step unconverged.
checks=$((checks + 1))
awk -v n="$(value newton_mean)" -v nmax="$(value newton_max)" -v i="$(value iterations_mean)" \
    -v imax="$(value iterations_max)" -v r="$(value residual)" -v u="$(value unconverged_steps)" \
    'BEGIN { exit !(n > 0 && nmax >= n && i > 0 && imax >= i && r >= 0 && r < 1e300 &&
                    u ~ /^[0-9]+$/ && u <= 30) }' ||
    fail "--integrator implicit: newton_mean=$(value newton_mean) newton_max=$(value newton_max)" \
        "iterations_mean=$(value iterations_mean) iterations_max=$(value iterations_max)" \
        "residual=$(value residual) unconverged_steps=$(value unconverged_steps)"

# --substeps auto gives implicit one sub-step (the stability estimate is the
# explicit integrators'); a count given is used as given.
run sim --integrator implicit --steps 2
expect_status 0 "--integrator implicit, the report"
expect_in "$tmp/out" "implicit, dt [0-9.e-]+ s in 1 sub-step \(auto\)," \
    "--integrator implicit with --substeps auto takes 1 sub-step"
expect_in "$tmp/out" "^  solver +Newton" "the report shows the solver's iterations"
expect_in "$tmp/out" "^  residual +last Newton step changed a velocity by [0-9.e-]+ m/s at most \\(tol 0.001\\), force left [0-9.e-]+ m/s²" "the report shows the residual"
checks=$((checks + 1))
if grep -q "warning" "$tmp/err"; then
    fail "--integrator implicit: a stability warning: $(head -c 300 "$tmp/err")"
fi
run sim --integrator implicit --steps 2 --substeps 4
expect_in "$tmp/out" "implicit, dt [0-9.e-]+ s in 4 sub-steps," "--integrator implicit --substeps 4"
run sim --scene default --integrator implicit --steps 2
expect_status 0 "--scene default --integrator implicit"
expect_in "$tmp/out" "implicit, dt [0-9.e-]+ s in 1 sub-step \(auto\)," \
    "a scene with --integrator implicit takes 1 sub-step"
run sim --scene default --integrator implicit --steps 2 --tol 0.5 --iterations 50
expect_status 0 "--scene default with --tol and --iterations"
expect_in "$tmp/out" "tol 0.5\)" "--scene honours --tol"

# A tolerance out of reach in one iteration: every step is counted.
run sim --integrator implicit --steps 3 --summary --tol 1e-12 --iterations 1
expect_status 0 "--tol 1e-12 --iterations 1"
expect_value unconverged_steps 3 "--tol 1e-12 --iterations 1: no step converges"
expect_value iterations_max 1 "--iterations 1: one CG iteration a step"

# The benchmark reports the solver's work per world step.
run bench --scene icosphere-3 --steps 2 --repeats 1 --integrator implicit --format kv
expect_status 0 "psb bench --integrator implicit"
expect_in "$tmp/out" "integrator=implicit .* newton=[0-9.]+ iterations=[0-9.]+ iterations_max=[0-9]+ residual=[0-9.e+-]+ unconverged=[0-9]+" \
    "psb bench --integrator implicit --format kv prints the solver's keys"
expect_in "$tmp/out" " substeps=1 " "psb bench --integrator implicit: one sub-step a world step"
run bench --scene icosphere-3 --steps 2 --repeats 1 --integrator implicit
expect_status 0 "psb bench --integrator implicit, the table"
expect_in "$tmp/out" "newton +iters +residual" "the table has the solver's columns"
for args in "--tol 0" "--tol nan" "--iterations 0"; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    run bench $args
    name=${args%% *}
    expect_status 2 "psb bench $args" && expect_one_error_line "psb bench $args" &&
        expect_in "$tmp/err" "$name" "psb bench $args names $name"
done

# The realtime mode: every row and column, from the repository's meshes/
# (--iterations 20 bounds the solver's work, so that this takes seconds).
meshes="$(dirname "$0")/../meshes"
run bench --realtime --quick --frames 2 --iterations 20 --meshes "$meshes"
expect_status 0 "psb bench --realtime --quick"
expect_in "$tmp/out" "^model +points +ms 1t +ms 2t +newton +CG +resid m/s +unconv +RT 2t +expl ms +sub +ratio$" \
    "psb bench --realtime: the table's columns"
for model in spot rocker-arm icosphere-5 icosphere-6; do
    expect_in "$tmp/out" "^$model +[0-9]+( +[0-9.e+-]+){10}$" "psb bench --realtime: a row for $model"
done
checks=$((checks + 1))
if grep -Eq "^(stanford-bunny|icosphere-7) " "$tmp/out"; then
    fail "psb bench --realtime --quick runs the bunny or icosphere-7"
fi
run bench --realtime --scene spot --frames 2 --iterations 20 --meshes "$meshes" --format kv
expect_status 0 "psb bench --realtime --scene spot --format kv"
expect_in "$tmp/out" "^model=spot points=2930 frames=2 threads=2 ms_1t=[0-9.]+ ms_2t=[0-9.]+ ms_2t_max=[0-9.]+ newton=[0-9.]+ iterations=[0-9.]+ residual_max=[0-9.e+-]+ unconverged=[0-9]+ realtime=[0-9.]+ explicit_ms=[0-9.]+ explicit_substeps=[0-9]+ explicit_frames=2 explicit_ratio=[0-9.]+ blowups=[0-9]+$" \
    "psb bench --realtime --format kv prints every key"
run bench --realtime --quick --frames 2 --meshes "$tmp/no-such-folder"
expect_status 2 "psb bench --realtime with a missing --meshes folder" &&
    expect_one_error_line "psb bench --realtime with a missing --meshes folder" &&
    expect_in "$tmp/err" "'$tmp/no-such-folder/spot.obj'.*--meshes DIR" \
        "psb bench --realtime: the missing file's path and how to give the folder"
for args in "--realtime --steps 5" "--realtime --integrator rk4" "--realtime --threads 1" \
    "--realtime --scene nope" "--realtime --scene mesh" "--frames 5" "--meshes ."; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    run bench $args
    expect_status 2 "psb bench $args" && expect_one_error_line "psb bench $args"
done

if "$PSB" --help | grep -q '^  view '; then
    run view --help
    expect_in "$tmp/out" '^  --tol ' "psb view --help mentions --tol"
    expect_in "$tmp/out" '^  --iterations ' "psb view --help mentions --iterations"
    expect_in "$tmp/out" 'verlet\|implicit' "psb view --help lists implicit"
    for args in "--tol 0" "--tol nan" "--iterations 0"; do
        # shellcheck disable=SC2086 # the arguments are split on purpose
        run view $args
        name=${args%% *}
        expect_status 2 "psb view $args" && expect_one_error_line "psb view $args" &&
            expect_in "$tmp/err" "$name" "psb view $args names $name"
    done
fi

run sim --summary --time 0.3 --subdiv 1 --walls=-2,-1,-2,2,3,2 --sphere 0,-1,0,0.5 \
    --sphere 3,0,0,1 --inflate-time 0.2 --gravity-waits --mass-by-area
expect_status 0 "colliders, inflation and mass by area"
expect_value blowups 0 "colliders, inflation and mass by area"

# The same run twice gives the same bits.
run sim --summary --time 1 --subdiv 2 --integrator rk4
cp "$tmp/out" "$tmp/first"
run sim --summary --time 1 --subdiv 2 --integrator rk4
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/first" || fail "two identical runs differ"

# Threads share a body of 4096 points and up (icosphere level 5: 10242)
# with the same bits, for any integrator.
for integrator in rk4 symplectic; do
    run sim --summary --steps 3 --subdiv 5 --integrator "$integrator" --threads 1
    cp "$tmp/out" "$tmp/first"
    run sim --summary --steps 3 --subdiv 5 --integrator "$integrator" --threads 2
    expect_status 0 "--threads 2 --integrator $integrator"
    checks=$((checks + 1))
    cmp -s "$tmp/out" "$tmp/first" || fail "--integrator $integrator: 2 threads differ from 1"
done
run sim --threads 0
expect_status 2 "--threads 0"

# A ball dropped on the floor comes to rest on it, never far below it.
run sim --summary --time 4 --subdiv 2 --height 0.5 --floor 0.25 --restitution 0 --kd 3 --substeps 80
expect_status 0 "ball dropped on a raised floor"
checks=$((checks + 1))
awk -v y="$(value min_y)" 'BEGIN { exit !(y > 0.24 && y < 0.3) }' ||
    fail "ball on a floor at 0.25 m: min_y=$(value min_y), expected resting on it"

# Without a floor it keeps falling: h = 1/2 g t^2 = 4.9 m in 1 s.
run sim --summary --time 1 --subdiv 1 --no-floor --gravity 9.8
checks=$((checks + 1))
awk -v y="$(value min_y)" 'BEGIN { exit !(y < -3.5) }' ||
    fail "--no-floor: min_y=$(value min_y), expected the body to fall below -3.5 m"

# ---- psb info

run info --shape icosphere --subdiv 2
expect_status 0 "psb info icosphere"
expect_keys "psb info" vertices faces edges border_edges holes nonmanifold_edges pinched_vertices \
    components genus volume closed euler oriented orientation_conflicts unused_vertices
expect_value vertices 162 "icosphere level 2"
expect_value faces 320 "icosphere level 2"
expect_value edges 480 "icosphere level 2"
expect_value closed yes "icosphere level 2"
expect_value genus 0 "icosphere level 2"
expect_value euler 2 "icosphere level 2"
expect_value border_edges 0 "icosphere level 2"

run info --shape torus --subdiv 1
expect_status 0 "psb info torus"
expect_value genus 1 "torus"
expect_value euler 0 "torus"
expect_value closed yes "torus"

run info --shape ring --points 12 --radius 1
expect_status 0 "psb info ring"
expect_value vertices 12 "ring of 12"
expect_value edges 12 "ring of 12"
expect_value faces 0 "ring of 12"
expect_value closed yes "ring of 12"
# Area of the regular 12-gon in the unit circle: 12/2 sin(2 pi/12) = 3.
expect_close "$(value volume)" 3 1e-9 "ring of 12: area"

run info --shape box --subdiv 2 --radius 0.5
expect_status 0 "psb info box"
expect_close "$(value volume)" 1 1e-9 "unit box: volume"
expect_value closed yes "box"

run info --shape uvsphere --subdiv 1
expect_status 0 "psb info uvsphere"
expect_value closed yes "uvsphere"
# 8 stacks, 16 slices: two poles and 7 rings of 16.
expect_value vertices 114 "uvsphere --subdiv 1"

# ---- --csv

run sim --time 0.5 --dt 0.01 --csv "$tmp/run.csv" --csv-every 10
expect_status 0 "psb sim --csv"
checks=$((checks + 1))
header=$(head -n 1 "$tmp/run.csv")
want_header="t,volume,pressure,kinetic,spring,gas,gravity,energy,mean_radius,centroid_x,centroid_y,centroid_z,min_y,shape"
[ "$header" = "$want_header" ] || fail "CSV header '$header'"
checks=$((checks + 1))
# Rows at steps 0, 10, 20, 30, 40, 50, each with 14 numbers.
awk -F, 'NR > 1 { rows++; if (NF != 14) bad = 1; for (i = 1; i <= NF; i++)
        if ($i !~ /^-?[0-9.]+(e[-+][0-9]+)?$/) bad = 1 }
    END { exit !(rows == 6 && !bad) }' "$tmp/run.csv" ||
    fail "CSV rows: expected 6 rows of 14 numbers, got: $(tail -n +2 "$tmp/run.csv" | head -c 400)"
checks=$((checks + 1))
[ "$(sed -n 2p "$tmp/run.csv" | cut -d, -f1)" = 0 ] || fail "first CSV row is not at t = 0"
expect_close "$(tail -n 1 "$tmp/run.csv" | cut -d, -f1)" 0.5 1e-9 "last CSV row at t = 0.5"

run sim --steps 20 --csv "$tmp/odd.csv" --csv-every 7
checks=$((checks + 1))
# Steps 0, 7, 14 and the final 20.
[ "$(wc -l <"$tmp/odd.csv")" -eq 5 ] || fail "--csv-every 7 over 20 steps: $(wc -l <"$tmp/odd.csv") lines"

# ---- scenes

run sim --scene flag --time 2 --summary
expect_status 0 "psb sim --scene flag"
# shellcheck disable=SC2086
expect_keys "psb sim --scene flag --summary" $summary_keys $implicit_keys
expect_value bodies 2 "the flag scene: the ring and the flag"
expect_value points 224 "the flag scene: a 48-point ring and a 16 x 11 cloth"
checks=$((checks + 1))
[ "$(value pinned)" -ge 2 ] 2>/dev/null ||
    fail "the flag scene pins at least the flag's two left corners: pinned=$(value pinned)"
expect_value blowups 0 "the flag scene runs without blow-ups"
expect_close "$(value time)" 2 1e-9 "--scene flag --time 2"

run sim --scene flag --time 1
expect_status 0 "psb sim --scene flag, the report"
expect_in "$tmp/out" "scene flag" "the report names the scene"
expect_in "$tmp/out" "pinned +[0-9]+ points" "the report counts the pins"
expect_in "$tmp/out" "wind +\(6, 0, 0\) m/s, gusts 2 m/s" "the report shows the flag's wind"

for scene in default pressure shape flag planets ring; do
    run sim --scene "$scene" --time 0.5 --summary
    expect_status 0 "--scene $scene"
    expect_value blowups 0 "--scene $scene runs without blow-ups"
done

# The pile (small bodies, to be quick): the bodies touch, and with
# --no-body-contact they do not; --contact-thickness is checked as the
# options' table says.
run sim --scene pile --time 2.5 --subdiv 1 --points 16 --summary
expect_status 0 "--scene pile"
expect_value bodies 24 "the pile: twelve balls and twelve rings"
expect_value blowups 0 "--scene pile runs without blow-ups"
checks=$((checks + 1))
[ "$(value contacts)" -gt 50 ] || fail "--scene pile: contacts=$(value contacts), expected the bodies to touch"
run sim --scene pile --time 2.5 --subdiv 1 --points 16 --summary --no-body-contact
expect_value contacts 0 "--scene pile --no-body-contact: no contacts"
run sim --scene pile --steps 1 --contact-thickness 2
expect_status 2 "--contact-thickness 2 is out of its range"
expect_in "$tmp/err" "contact-thickness" "the refusal names the option"
# Self contact: on in the scene (the dozen's balls touch themselves; none
# of them folds, so the run is the one without it, to the bit), off with
# --no-self-contact; both switches at once are refused.
run sim --scene pile --time 1 --subdiv 1 --points 16 --summary
cp "$tmp/out" "$tmp/pile_self"
run sim --scene pile --time 1 --subdiv 1 --points 16 --summary --no-self-contact
expect_status 0 "--scene pile --no-self-contact"
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/pile_self" || fail "--scene pile: --no-self-contact changed the dozen's run"
run sim --scene pile --steps 1 --self-contact --no-self-contact
expect_status 2 "--self-contact with --no-self-contact"
expect_one_error_line "--self-contact with --no-self-contact"
expect_in "$tmp/err" "cannot be used together" "the refusal says why"

# --mesh with a scene: the file's bodies join the scene's; on the pile they
# drop onto its top (in the middle of the box, the drop height above the
# highest ball: the exported first frame shows it).
mkdir -p "$tmp/pile_mesh"
run sim --scene pile --subdiv 1 --points 16 --mesh "$(dirname "$0")/obj/cube_quads.obj" \
    --steps 3 --summary --export-obj "$tmp/pile_mesh"
expect_status 0 "--scene pile --mesh FILE"
expect_value bodies 25 "the pile and the file's one body"
checks=$((checks + 1))
# (Bodies 0 to 11 are the rings, 12 to 23 the balls, 24 the file's.)
awk '$1 != "v" { next }
     FILENAME ~ /body24_/ { if (low == "" || $3 < low) low = $3; next }
     { if (high == "" || $3 > high) high = $3 }
     END { exit !(low - high > 0.99 && low - high < 1.01) }' \
    "$tmp"/pile_mesh/body1[2-9]_step000000.obj "$tmp"/pile_mesh/body2[0-4]_step000000.obj ||
    fail "--scene pile --mesh: the model does not start 1 m above the pile's top"
run sim --scene pile --mesh "$(dirname "$0")/obj/err_empty.obj" --steps 1
expect_status 2 "--scene pile --mesh with a bad file"
expect_in "$tmp/err" "err_empty.obj" "the error names the file"

# --balls: fifty balls (nine a layer) and the twelve rings, none touching
# at the start; only with the pile.
run sim --scene pile --balls 50 --steps 1 --subdiv 1 --points 16 --summary
expect_status 0 "--scene pile --balls 50"
expect_value bodies 62 "the pile of fifty: fifty balls and twelve rings"
expect_value contacts 0 "--balls 50: the bodies start apart"
# The contacts' search on two threads (each body's on one of them) finds
# the same contacts in the same order, and the groups of contact inside the
# solve (on by default) run side by side, each on one thread: the same bits
# as on one.
run sim --scene pile --balls 20 --steps 90 --subdiv 1 --points 16 --summary --threads 1
cp "$tmp/out" "$tmp/one_thread"
run sim --scene pile --balls 20 --steps 90 --subdiv 1 --points 16 --summary --threads 2
checks=$((checks + 1))
cmp -s "$tmp/out" "$tmp/one_thread" || fail "the pile on two threads differs from one thread"
[ "$(value contacts)" -gt 3 ] || fail "--balls 20: contacts=$(value contacts), expected the bodies to touch"
[ "$(value links)" -gt 10 ] || fail "--balls 20: links=$(value links), expected the bodies to be linked"
run sim --balls 3 --steps 1
expect_status 2 "--balls without --scene pile" && expect_one_error_line "--balls without the pile" &&
    expect_in "$tmp/err" "--balls needs --scene pile" "the refusal says what --balls needs"

# psb bench --scene pile, pile-50: one row with the frame's time, the
# contact's share and the solver's work.
run bench --scene pile --quick --frames 2 --format kv
expect_status 0 "psb bench --scene pile"
expect_in "$tmp/out" "^scene=pile bodies=24 points=8280 frames=2 threads=1 ms_per_frame=[0-9.]+ .* contact_share=0[.][0-9]+ contacts=[0-9.]+ newton=[0-9.]+ iterations=[0-9.]+ unconverged=[0-9]+ blowups=0$" \
    "psb bench --scene pile --format kv: the row's keys"
# --no-self-contact: the dozen's balls and rings do not touch themselves
# (the same bits on the dozen: its contacts are the same); only on the pile.
run bench --scene pile --quick --frames 2 --format kv --no-self-contact
expect_status 0 "psb bench --scene pile --no-self-contact"
expect_in "$tmp/out" "^scene=pile bodies=24 points=8280 frames=2 threads=1 .* blowups=0$" \
    "psb bench --scene pile --no-self-contact: the row"
run bench --scene icosphere-3 --no-self-contact
expect_status 2 "psb bench --no-self-contact without the pile" &&
    expect_one_error_line "bench --no-self-contact without the pile" &&
    expect_in "$tmp/err" "--no-self-contact needs --scene pile" "the refusal says what it needs"
run bench --scene pile-50 --frames 1 --repeats 1
expect_status 0 "psb bench --scene pile-50"
expect_in "$tmp/out" "^pile-50 +62 +32676 +1 +1( +[0-9.]+){5} +[0-9]+% +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+$" \
    "psb bench --scene pile-50: a row of fifty balls and twelve rings"
# --mesh: a file dropped onto the pile, in the row's name and its points.
run bench --scene pile --quick --frames 2 --format kv --mesh "$(dirname "$0")/obj/cube_quads.obj"
expect_status 0 "psb bench --scene pile --mesh FILE"
expect_in "$tmp/out" "^scene=pile[+]cube_quads bodies=25 points=8[0-9]{3} frames=2 " \
    "psb bench --scene pile --mesh: the pile and the file's body"
run bench --scene pile --quick --frames 2 --mesh "$(dirname "$0")/obj/err_empty.obj"
expect_status 1 "psb bench --scene pile --mesh with a bad file" &&
    expect_one_error_line "bench pile --mesh bad file" &&
    expect_in "$tmp/err" "err_empty.obj" "the error names the file"
run bench --scene pile --integrator implicit
expect_status 2 "psb bench --scene pile --integrator" && expect_one_error_line "bench pile --integrator" &&
    expect_in "$tmp/err" "cannot be used together" "the pile runs its own integrator"

# The options given change the scene: a 20-point ring and level-1 spheres.
run sim --scene default --points 20 --subdiv 1 --steps 3 --summary
expect_status 0 "--scene default --points 20 --subdiv 1"
expect_value points 146 "--scene default --points 20 --subdiv 1: 20 + 3 x 42 points"
expect_value bodies 4 "the default scene: a ring and three spheres"
expect_value steps 3 "--scene with --steps"
run sim --scene shape --steps 30 --summary --shape-k 80
expect_status 0 "--scene shape --shape-k 80"
checks=$((checks + 1))
awk -v e="$(value shape)" 'BEGIN { exit !(e > 0) }' ||
    fail "--scene shape: shape=$(value shape), expected shape energy in the matched bodies"
run sim --scene flag --steps 10 --dt 0.01 --integrator verlet --substeps 60 --csv "$tmp/scene.csv"
expect_status 0 "--scene flag with --dt, --integrator, --substeps and --csv"
expect_in "$tmp/out" "verlet, dt 0.01 s in 60 sub-steps," \
    "--scene honours --dt, --integrator and --substeps"
checks=$((checks + 1))
[ "$(wc -l <"$tmp/scene.csv")" -eq 12 ] || fail "--scene --csv: $(wc -l <"$tmp/scene.csv") lines"

# The flag lies in the x-y plane: only the gusts push it out of it.
run sim --scene flag --time 1 --summary --wind 0,0,0 --wind-turbulence 0
expect_value centroid_z 0 "--scene flag in still air stays in its plane"
run sim --scene flag --time 1 --summary
checks=$((checks + 1))
[ "$(value centroid_z)" != 0 ] || fail "--scene flag: the gusts did not move the flag out of its plane"

# ---- shape matching, wind, pins

# Without gas a shell keeps its volume only with shape matching.
run sim --subdiv 2 --nrt 0 --steps 0 --summary
rest_volume=$(value volume)
run sim --subdiv 2 --nrt 0 --time 4 --summary --shape-k 100 --shape-damping 1
expect_status 0 "--shape-k 100 without gas"
expect_value blowups 0 "--shape-k 100 without gas"
expect_close "$(value volume)" "$rest_volume" 0.03 "--shape-k 100 without gas keeps the volume"
checks=$((checks + 1))
awk -v e="$(value shape)" 'BEGIN { exit !(e > 0) }' ||
    fail "--shape-k 100 on the floor: shape=$(value shape), expected some shape energy"
run sim --subdiv 2 --nrt 0 --time 4 --summary
checks=$((checks + 1))
awk -v v="$(value volume)" -v v0="$rest_volume" 'BEGIN { exit !(v < 0.5 * v0) }' ||
    fail "without gas or shape matching: volume $(value volume) of $rest_volume, expected a collapse"

# Wind up through a level cloth lifts it (no gravity, no floor); with
# --wind-drag 0 it stays put.
run sim --shape cloth --columns 6 --rows 6 --no-floor --gravity 0 --time 1 --summary --wind 0,3,0
expect_status 0 "--shape cloth --wind 0,3,0"
checks=$((checks + 1))
awk -v y="$(value centroid_y)" 'BEGIN { exit !(y > 1.5) }' ||
    fail "--wind 0,3,0 under a level cloth: centroid_y=$(value centroid_y), expected it blown up"
run sim --shape cloth --columns 6 --rows 6 --no-floor --gravity 0 --time 1 --summary \
    --wind 0,3,0 --wind-drag 0
expect_value centroid_y 1 "--wind-drag 0: the wind does nothing"

# A cloth falls onto a sphere and drapes over it. (Balanced on the top it
# is at an unstable rest: friction here is a rate, which holds no static
# load, and the solved step's tolerance breaks the symmetry, so after about
# 2 s it starts to slide off; the explicit integrators' exact symmetry keeps
# it there.)
run sim --shape cloth --sphere 0,0.5,0,0.4 --height 1.2 --time 1.5 --summary
expect_status 0 "--shape cloth over a sphere"
expect_value blowups 0 "--shape cloth over a sphere"
expect_value points 384 "--shape cloth: 24 x 16 points"
expect_value volume 0 "a cloth encloses nothing"
checks=$((checks + 1))
awk -v y="$(value centroid_y)" 'BEGIN { exit !(y > 0.4) }' ||
    fail "cloth over a sphere: centroid_y=$(value centroid_y), expected it held up by the sphere"

run info --shape cloth --columns 5 --rows 4
expect_status 0 "psb info --shape cloth"
expect_value vertices 20 "a 5 x 4 cloth"
expect_value faces 24 "a 5 x 4 cloth"
expect_value holes 1 "a cloth has one border loop"
expect_value closed no "a cloth is open"

# Pins hold points still: a triangle pinned at all three corners does not
# move, and its pinned points carry no gravity energy.
run sim --shape ring --points 3 --no-floor --steps 0 --summary
start_centroid_y=$(value centroid_y)
run sim --shape ring --points 3 --no-floor --time 1 --summary --pin 0 --pin 1 --pin 2
expect_status 0 "--pin on every point"
expect_value pinned 3 "--pin 0 --pin 1 --pin 2"
expect_value kinetic 0 "every point pinned: nothing moves"
expect_value gravity_pe 0 "pinned points carry no gravity energy"
expect_value centroid_y "$start_centroid_y" "every point pinned: the ring stays where it was"
# One pin at the top: the ring hangs from it instead of falling 4.9 m.
run sim --shape ring --points 12 --no-floor --steps 0 --summary
start_centroid_y=$(value centroid_y)
run sim --shape ring --points 12 --no-floor --time 1 --summary --pin 3 --kd 1
expect_value pinned 1 "--pin 3"
checks=$((checks + 1))
awk -v y="$(value centroid_y)" -v y0="$start_centroid_y" 'BEGIN { exit !(y > y0 - 1) }' ||
    fail "a ring pinned at its top fell to centroid_y=$(value centroid_y)"
run sim --shape ring --points 12 --no-floor --time 1 --summary --kd 1
checks=$((checks + 1))
awk -v y="$(value centroid_y)" -v y0="$start_centroid_y" 'BEGIN { exit !(y < y0 - 4) }' ||
    fail "an unpinned ring did not fall: centroid_y=$(value centroid_y)"

# ---- analytic equilibria (DESIGN.md section 1), no gravity, no floor

# Ring of N points at radius r0 (edge L0 = 2 r0 s, s = sin(pi/N)):
# r = (ks s L0 + sqrt(ks^2 s^2 L0^2 + 8 ks s^2 nRT/N)) / (4 ks s^2).
ring_radius() {
    awk -v n="$1" -v r0="$2" -v ks="$3" -v nrt="$4" 'BEGIN {
        s = sin(atan2(0, -1) / n); l0 = 2 * r0 * s
        printf "%.12g\n", (ks * s * l0 + sqrt(ks^2 * s^2 * l0^2 + 8 * ks * s^2 * nrt / n)) \
            / (4 * ks * s^2) }'
}

# Icosahedron of circumradius r0 (edge L0 = r0 / sin(2 pi/5), 30 edges):
# ks sigma (sigma - 1) 30 L0^2 = 3 nRT, radius sigma r0.
icosahedron_radius() {
    awk -v r0="$1" -v ks="$2" -v nrt="$3" 'BEGIN {
        l0 = r0 / sin(2 * atan2(0, -1) / 5); sum = 30 * l0^2
        sigma = (1 + sqrt(1 + 12 * nrt / (ks * sum))) / 2
        printf "%.12g\n", sigma * r0 }'
}

# points radius ks nrt kd mass integrator
while read -r n r0 ks nrt kd mass integrator; do
    run sim --summary --gravity 0 --no-floor --time 10 --shape ring --points "$n" \
        --radius "$r0" --ks "$ks" --nrt "$nrt" --kd "$kd" --mass "$mass" \
        --integrator "$integrator"
    what="ring N=$n r0=$r0 ks=$ks nRT=$nrt ($integrator)"
    expect_status 0 "$what"
    expect_value blowups 0 "$what"
    expect_close "$(value mean_radius)" "$(ring_radius "$n" "$r0" "$ks" "$nrt")" 1e-3 "$what"
done <<'EOF'
16 0.5 500 20 1 1 rk4
40 1 3000 400 5 1 verlet
7 0.3 150 5 0.5 0.5 heun
EOF

# radius ks nrt kd mass integrator
while read -r r0 ks nrt kd mass integrator; do
    run sim --summary --gravity 0 --no-floor --time 6 --shape icosphere --subdiv 0 \
        --radius "$r0" --ks "$ks" --nrt "$nrt" --kd "$kd" --mass "$mass" \
        --integrator "$integrator"
    what="icosahedron r0=$r0 ks=$ks nRT=$nrt ($integrator)"
    expect_status 0 "$what"
    expect_value blowups 0 "$what"
    expect_close "$(value mean_radius)" "$(icosahedron_radius "$r0" "$ks" "$nrt")" 1e-3 "$what"
done <<'EOF'
0.5 800 30 3 1 symplectic
1.2 500 2000 10 1 rk4
0.2 50 5 0.5 0.2 verlet
EOF

# ---- a loaded mesh's own gas and stiffness (psb_mesh_default_material)

# The unit cube in quads (two triangles a face), fitted to a 0.5 m radius:
# side s = 1/sqrt(3), V0 = s³, footprint s², S = 6 s², R = 0.5 m, sum L0² =
# 24 s². With K = 40 and e = 0.005 (README), 1 kg, g = 9.81:
# P = K m g / s², nRT = P V0, ks = P R S / (e sum L0²) = P R / (4 e).
printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n%s\n' \
    'f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8' >"$tmp/cube.obj"
cube_p=$(awk 'BEGIN { printf "%.12g", 40 * 9.81 * 3 }')
cube_nrt=$(awk -v p="$cube_p" 'BEGIN { s = 1 / sqrt(3); printf "%.12g", p * s * s * s }')
cube_ks=$(awk -v p="$cube_p" 'BEGIN { printf "%.12g", p * 0.5 / (4 * 0.005) }')
run sim --mesh "$tmp/cube.obj" --steps 0 --summary
expect_status 0 "sim --mesh cube.obj"
expect_close "$(value gas_nrt)" "$cube_nrt" 1e-6 "a loaded cube's gas: P V0 with P s² = 40 m g"
expect_close "$(value spring_k)" "$cube_ks" 1e-6 "a loaded cube's ks: P R S / (0.005 sum L0²)"
run sim --mesh "$tmp/cube.obj" --steps 0 --summary --ks 321
expect_value spring_k 321 "--ks wins over the loaded mesh's own"
expect_close "$(value gas_nrt)" "$cube_nrt" 1e-6 "--ks alone keeps the mesh's own gas"
run sim --mesh "$tmp/cube.obj" --steps 0 --summary --nrt 7
expect_value gas_nrt 7 "--nrt wins over the loaded mesh's own"
expect_close "$(value spring_k)" "$cube_ks" 1e-6 "--nrt alone keeps the mesh's own ks"
run sim --mesh "$tmp/cube.obj" --steps 0 --summary --mass 2 --gravity 0
expect_close "$(value gas_nrt)" "$(awk -v n="$cube_nrt" 'BEGIN { printf "%.12g", 2 * n }')" 1e-6 \
    "--mass 2: twice the gas (and no gravity counts as 9.81)"
run sim --mesh "$tmp/cube.obj" --steps 0
expect_in "$tmp/out" "gas and springs from its size and weight" "the report says whose material"
# Generated shapes keep the generic material.
run sim --steps 0 --summary
expect_value spring_k 200 "an icosphere keeps ks 200 N/m"
expect_value gas_nrt 100 "an icosphere keeps nRT 100 J"

# ---- psb sim --export-obj DIR --every N: one OBJ file per body per exported step

# expect_same GOT WANT WHAT: GOT is exactly WANT.
expect_same() {
    checks=$((checks + 1))
    if [ "$1" != "$2" ]; then
        fail "$3: got '$1', expected '$2'"
    fi
}

# expect_files DIR WHAT NAME...: DIR holds exactly these files (no .tmp left over).
expect_files() {
    dir=$1 what=$2
    shift 2
    expect_same "$(cd "$dir" && LC_ALL=C ls -A | tr '\n' ' ' | sed 's/ $//')" "$*" \
        "$what: the files written"
}

# obj_lines FILE KEYWORD: how many lines of FILE are KEYWORD lines (v, f, l).
obj_lines() {
    grep -c "^$2 " "$1"
}

# expect_obj FILE POINTS TRIANGLES WHAT: POINTS v lines, TRIANGLES f lines,
# every f index one of the points.
expect_obj() {
    expect_same "$(obj_lines "$1" v)" "$2" "$4: v lines = points"
    expect_same "$(obj_lines "$1" f)" "$3" "$4: f lines = triangles"
    checks=$((checks + 1))
    awk -v n="$2" '$1 == "f" { if (NF != 4) exit 1; for (i = 2; i <= 4; i++)
            if ($i !~ /^[0-9]+$/ || $i < 1 || $i > n) exit 1 }' "$1" ||
        fail "$4: an f line that is not three indices from 1 to $2"
}

# expect_closed_ring FILE POINTS WHAT: one line element `l 1 2 ... POINTS 1`.
expect_closed_ring() {
    expect_same "$(obj_lines "$1" l)" 1 "$3: one l line"
    checks=$((checks + 1))
    awk -v n="$2" '$1 == "l" { if (NF != n + 2) exit 1; for (i = 2; i <= n + 1; i++)
            if ($i != i - 1) exit 1; if ($NF != 1) exit 1 }' "$1" ||
        fail "$3: the l line is not 1 2 ... $2 1: $(grep '^l ' "$1" | head -c 200)"
}

# expect_centroid WHAT FILE...: the mean of the files' v lines is the last
# run's --summary centroid, to 1e-6 m in each coordinate.
expect_centroid() {
    what=$1
    shift
    checks=$((checks + 1))
    mean=$(awk '$1 == "v" { x += $2; y += $3; z += $4; n++ }
        END { if (n) printf "%.12g %.12g %.12g\n", x / n, y / n, z / n }' "$@")
    if ! echo "$mean $(value centroid_x) $(value centroid_y) $(value centroid_z)" | awk '{
            if (NF != 6) exit 1
            for (i = 1; i <= 3; i++) { d = $i - $(i + 3); if (d < 0) d = -d; if (d > 1e-6) exit 1 } }'
    then
        fail "$what: the v lines' mean ($mean) is not the summary's centroid" \
            "($(value centroid_x) $(value centroid_y) $(value centroid_z))"
    fi
}

run sim --help
expect_in "$tmp/out" '^  --export-obj DIR ' "psb sim --help mentions --export-obj"
expect_in "$tmp/out" '^  --every N .*\(default 1\)' "psb sim --help mentions --every and its default"

# A ring: step 0, every 2nd step and the last (5).
mkdir "$tmp/ring"
run sim --shape ring --points 16 --steps 5 --every 2 --export-obj "$tmp/ring" --summary
expect_status 0 "export a ring"
expect_files "$tmp/ring" "export a ring, --steps 5 --every 2" \
    body0_step000000.obj body0_step000002.obj body0_step000004.obj body0_step000005.obj
expect_obj "$tmp/ring/body0_step000005.obj" 16 0 "the ring's file"
expect_closed_ring "$tmp/ring/body0_step000005.obj" 16 "the ring's file"
expect_centroid "the ring's last file" "$tmp/ring/body0_step000005.obj"
expect_in "$tmp/ring/body0_step000000.obj" '^# world step 0, t = 0 s' "step 0's header"
expect_in "$tmp/ring/body0_step000005.obj" '^# ring: 16 points' "the ring's header"

# With --reference the plain model steps, not the world: the files still
# take the model's step and time.
mkdir "$tmp/ringref"
run sim --shape ring --points 16 --steps 5 --every 2 --export-obj "$tmp/ringref" --reference
expect_status 0 "export a ring run by the plain model"
expect_files "$tmp/ringref" "export with --reference, --steps 5 --every 2" \
    body0_step000000.obj body0_step000002.obj body0_step000004.obj body0_step000005.obj
expect_in "$tmp/ringref/body0_step000005.obj" '^# world step 5, t = 0.08333' \
    "--reference: the last file's header has the model's step and time"

# An icosphere of level 1 (42 points, 80 triangles); --every a divisor of --steps.
mkdir "$tmp/ico"
run sim --shape icosphere --subdiv 1 --steps 6 --every 3 --export-obj "$tmp/ico" --summary
expect_status 0 "export an icosphere"
expect_files "$tmp/ico" "export an icosphere, --steps 6 --every 3" \
    body0_step000000.obj body0_step000003.obj body0_step000006.obj
expect_obj "$tmp/ico/body0_step000006.obj" 42 80 "the icosphere's file"
expect_centroid "the icosphere's last file" "$tmp/ico/body0_step000006.obj"
# The default --every is 1; --steps 0 writes the initial state only.
mkdir "$tmp/ico1" "$tmp/ico0"
run sim --shape icosphere --subdiv 0 --steps 2 --export-obj "$tmp/ico1"
expect_files "$tmp/ico1" "export every step by default" \
    body0_step000000.obj body0_step000001.obj body0_step000002.obj
run sim --shape icosphere --subdiv 0 --steps 0 --export-obj "$tmp/ico0" --summary
expect_files "$tmp/ico0" "export with --steps 0" body0_step000000.obj
expect_centroid "the initial state" "$tmp/ico0/body0_step000000.obj"

# A cloth of 4 x 3 points: its 2 (4 - 1) (3 - 1) = 12 triangles.
mkdir "$tmp/cloth"
run sim --shape cloth --columns 4 --rows 3 --steps 3 --every 10 --export-obj "$tmp/cloth" --summary
expect_status 0 "export a cloth"
expect_files "$tmp/cloth" "export a cloth, --steps 3 --every 10" \
    body0_step000000.obj body0_step000003.obj
expect_obj "$tmp/cloth/body0_step000003.obj" 12 12 "the cloth's file"
expect_centroid "the cloth's last file" "$tmp/cloth/body0_step000003.obj"

# Two bodies, the flag scene's ring and cloth: one file each per step; the
# summary's centroid is over all points of both.
mkdir "$tmp/flag"
run sim --scene flag --steps 3 --every 2 --export-obj "$tmp/flag" --summary
expect_status 0 "export the flag scene"
expect_value bodies 2 "the flag scene has two bodies"
expect_files "$tmp/flag" "export the flag scene, --steps 3 --every 2" \
    body0_step000000.obj body0_step000002.obj body0_step000003.obj \
    body1_step000000.obj body1_step000002.obj body1_step000003.obj
ring_points=$(obj_lines "$tmp/flag/body0_step000003.obj" v)
cloth_points=$(obj_lines "$tmp/flag/body1_step000003.obj" v)
expect_same "$((ring_points + cloth_points))" "$(value points)" "the flag scene's v lines = points"
expect_closed_ring "$tmp/flag/body0_step000003.obj" "$ring_points" "the flag scene's ring"
expect_in "$tmp/flag/body1_step000003.obj" '^# psb body 1: flag' "the cloth's label in its header"
expect_centroid "the flag scene's last files" "$tmp/flag/body0_step000003.obj" \
    "$tmp/flag/body1_step000003.obj"

# An OBJ file of two closed components: one body, and one file, each.
awk '{ print } $1 == "v" { v[++n] = $0 } END {
        for (i = 1; i <= n; i++) { split(v[i], c, " "); print "v", c[2] + 3, c[3], c[4] }
        print "f 9 12 11 10\nf 13 14 15 16\nf 9 10 14 13\nf 10 11 15 14\nf 11 12 16 15\nf 12 9 13 16" }' \
    "$tmp/cube.obj" >"$tmp/two_cubes.obj"
mkdir "$tmp/mesh"
run sim --mesh "$tmp/two_cubes.obj" --steps 2 --every 5 --export-obj "$tmp/mesh" --summary
expect_status 0 "export an OBJ file of two cubes"
expect_value bodies 2 "two cubes are two bodies"
expect_files "$tmp/mesh" "export two cubes, --steps 2 --every 5" \
    body0_step000000.obj body0_step000002.obj body1_step000000.obj body1_step000002.obj
expect_obj "$tmp/mesh/body0_step000002.obj" 8 12 "the first cube's file"
expect_obj "$tmp/mesh/body1_step000002.obj" 8 12 "the second cube's file"
expect_centroid "the two cubes' last files" "$tmp/mesh/body0_step000002.obj" \
    "$tmp/mesh/body1_step000002.obj"

# Refusals: one line that names the problem, before anything is written.
run sim --steps 1 --export-obj "$tmp/nowhere"
expect_status 2 "--export-obj into a missing folder"
expect_one_error_line "--export-obj into a missing folder"
expect_in "$tmp/err" "--export-obj: folder '.*nowhere': does not exist" "a missing folder is named"
run sim --steps 1 --export-obj "$tmp/cube.obj"
expect_status 2 "--export-obj into a file"
expect_in "$tmp/err" "--export-obj: '.*cube.obj' is not a folder" "a file is not a folder"
run sim --steps 1 --export-obj "$tmp/ico0" --every 0
expect_status 2 "--every 0"
expect_one_error_line "--every 0"
expect_in "$tmp/err" "--every" "--every 0 is named"
run sim --steps 1 --every 3
expect_status 2 "--every without --export-obj"
expect_one_error_line "--every without --export-obj"
expect_in "$tmp/err" "--every needs --export-obj" "--every without --export-obj says what is missing"
# A file that cannot be made (its temporary name is taken by a folder) and
# one that cannot be written (a file size limit, standing in for a full
# disk): status 1, the path and the reason, the run stopped, nothing half
# written left behind.
mkdir -p "$tmp/taken/body0_step000000.obj.tmp"
run sim --steps 3 --export-obj "$tmp/taken"
expect_status 1 "--export-obj where the file cannot be made"
expect_one_error_line "--export-obj where the file cannot be made"
expect_in "$tmp/err" "cannot create '.*body0_step000000.obj.tmp'" "the file that cannot be made"
mkdir "$tmp/full"
(
    trap '' XFSZ
    ulimit -f 1 && run sim --shape icosphere --subdiv 1 --steps 3 --export-obj "$tmp/full"
    echo "$status" >"$tmp/full_status"
)
status=$(cat "$tmp/full_status")
expect_status 1 "--export-obj past a file size limit"
expect_one_error_line "--export-obj past a file size limit"
expect_in "$tmp/err" "cannot write '.*body0_step000000.obj.tmp': File too large" \
    "a failed write names the file and the reason"
expect_files "$tmp/full" "a failed write leaves nothing behind"

echo "cli_test: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
