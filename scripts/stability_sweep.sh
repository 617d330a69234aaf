#!/usr/bin/env bash
# The implicit step's full stability sweep (issue "Large steps"): every
# combination of ks 1..1e6 N/m, kd 0..100 N s/m, nRT 0..1e4 J and mass
# 0.01..100 kg, on an icosphere of level 3 and on Spot (meshes/spot.obj),
# one step of 1/60 s a frame, 5 s each. A run passes when it has no blow-up,
# every value it prints is finite and, for a body with gas, the volume stays
# above 0 at every step. (Without gas nothing holds the volume up: a soft
# shell folds flat under its own weight, and a volume of 0 or less is the
# physics.) As in the short version of this sweep, a ctest
# (tests/test_implicit.c), a body with gas may move 100 diameters in a step
# before it counts as blown up (--blowup-size 100): 1e4 J of gas in soft
# springs really blows a ball up to tens of metres within a second. This
# one takes tens of minutes.
#
#   scripts/stability_sweep.sh [PSB] [--quick] [--integrator implicit|bdf2]
#
# PSB is the psb executable (default build/psb); --quick runs the icosphere
# only; --integrator picks the implicit integrator swept (default implicit). Prints one line per failing run and a count at the end; exits 1 when
# any run failed. Run from the checkout (it reads meshes/spot.obj).
set -u
psb=build/psb
quick=0
integrator=implicit
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --integrator)
        integrator=${2:-}
        shift
        ;;
    *) psb=$1 ;;
    esac
    shift
done
if [ "$integrator" != implicit ] && [ "$integrator" != bdf2 ]; then
    echo "stability_sweep: --integrator takes implicit or bdf2, not '$integrator'" >&2
    exit 2
fi
if [ ! -x "$psb" ]; then
    echo "stability_sweep: no executable at '$psb' (build first, or give its path)" >&2
    exit 2
fi
bodies=("--subdiv 3")
if [ "$quick" = 0 ]; then
    if [ ! -f meshes/spot.obj ]; then
        echo "stability_sweep: meshes/spot.obj not found: run from the checkout" >&2
        exit 2
    fi
    bodies+=("--mesh meshes/spot.obj")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=0
failed=0
start=$(date +%s)
for body in "${bodies[@]}"; do
    for ks in 1 100 10000 1000000; do
        for kd in 0 1 100; do
            for nrt in 0 100 10000; do
                for mass in 0.01 1 100; do
                    runs=$((runs + 1))
                    what="$body --ks $ks --kd $kd --nrt $nrt --mass $mass"
                    guard=1
                    [ "$nrt" = 0 ] || guard=100
                    # shellcheck disable=SC2086 # $body is two words on purpose
                    if ! "$psb" sim $body --integrator "$integrator" --time 5 --ks "$ks" --kd "$kd" \
                        --nrt "$nrt" --mass "$mass" --blowup-size "$guard" --summary \
                        --csv "$tmp/run.csv" \
                        >"$tmp/out" 2>"$tmp/err"; then
                        echo "FAIL ($what): exit status $?: $(head -c 300 "$tmp/err")"
                        failed=$((failed + 1))
                        continue
                    fi
                    blowups=$(sed -n 's/^blowups=//p' "$tmp/out")
                    # Every printed value finite; the volume (column 2) above 0 at every step.
                    bad=$(awk -F, -v gas="$nrt" 'NR > 1 && gas > 0 && !($2 > 0) { print "volume " $2 " at t=" $1; exit }
                                   NR > 1 { for (i = 1; i <= NF; i++) if ($i ~ /nan|inf/) { print "non-finite at t=" $1; exit } }' "$tmp/run.csv")
                    if grep -qiE '=(-?nan|-?inf)' "$tmp/out"; then
                        bad="non-finite summary: $(grep -iE '=(-?nan|-?inf)' "$tmp/out" | head -3 | tr '\n' ' ')"
                    fi
                    if [ "$blowups" != 0 ] || [ -n "$bad" ]; then
                        echo "FAIL ($what): blowups=$blowups $bad"
                        failed=$((failed + 1))
                    fi
                done
            done
        done
    done
done
echo "stability sweep ($integrator): $runs runs, $failed failed, $(($(date +%s) - start)) s"
[ "$failed" = 0 ]
