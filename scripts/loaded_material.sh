#!/bin/sh
# The default material of loaded meshes, measured: each real mesh dropped as
# `psb sim --mesh FILE` drops it, with the gas and spring stiffness the
# loaded-mesh rule gives it (README, "OBJ files"), run for 5 s (300 steps of
# 1/60 s) with the integrator loaded models run by default (implicit; add
# -- --integrator NAME for another) on one thread, and the table of what it
# came to: V/V0 after 5 s (volume over rest volume, summed over the
# file's bodies), the solver's mean Newton and conjugate-gradient iterations
# per step, and the wall time. Not a test: it takes a few minutes.
#
# usage: scripts/loaded_material.sh [PSB [MESHES_DIR]] [-- EXTRA PSB SIM OPTIONS]
#   PSB         the psb binary (default: build/psb beside this script)
#   MESHES_DIR  the real meshes (default: ../shared/meshes-real beside the checkout)
# Extra options (after --) go to every run, e.g. -- --ks 5000 --tol 0.001.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
psb=$here/build/psb
meshes=$here/../shared/meshes-real
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    psb=$1
    shift
fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    meshes=$1
    shift
fi
if [ $# -gt 0 ] && [ "$1" = "--" ]; then
    shift
fi
if [ ! -x "$psb" ]; then
    echo "loaded_material.sh: no psb binary at '$psb' (build first, or pass its path)" >&2
    exit 2
fi
if [ ! -d "$meshes" ]; then
    echo "loaded_material.sh: no meshes folder '$meshes' (pass it as the second argument)" >&2
    exit 2
fi

echo "psb sim --mesh FILE [--fill-holes] --steps 300" \
    "--threads 1 --summary${*:+ $*}"
printf '%-16s %6s %7s %8s %9s %6s %8s %7s %7s %6s\n' mesh points bodies "nRT J" "ks N/m" \
    "V/V0" newton CG "wall s" blowups
status=0
for entry in spot: cow: rocker-arm: teapot:--fill-holes suzanne:--fill-holes \
    stanford-bunny:--fill-holes; do
    name=${entry%%:*}
    fill=${entry#*:}
    file=$meshes/$name.obj
    if [ ! -f "$file" ]; then
        echo "loaded_material.sh: $file not found: skipped" >&2
        continue
    fi
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    out=$(nice -n 15 "$psb" sim --mesh "$file" $fill \
        --steps 300 --threads 1 --summary "$@")
    code=$?
    end=$(date +%s.%N)
    if [ $code -ne 0 ]; then
        echo "loaded_material.sh: $name: psb sim exited with status $code" >&2
        status=1
        continue
    fi
    echo "$out" | awk -v name="$name$( [ -n "$fill" ] && echo '*')" -v start="$start" \
        -v end="$end" -F= '
        { v[$1] = $2 }
        END {
            printf "%-16s %6d %7d %8.1f %9.0f %6.3f %8.2f %7.1f %7.1f %6d\n", name, v["points"],
                v["bodies"], v["gas_nrt"], v["spring_k"], v["volume"] / v["rest_volume"],
                v["newton_mean"], v["iterations_mean"], end - start, v["blowups"]
        }'
done
echo "* holes filled (--fill-holes); nRT and ks are means over a file's bodies"
exit $status
