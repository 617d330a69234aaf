#!/bin/sh
# The default material of loaded meshes, measured: each OBJ file of a folder
# (the checkout's meshes/ unless told otherwise) dropped as
# `psb sim --mesh FILE` drops it, with the gas and spring stiffness the
# loaded-mesh rule gives it (README, "OBJ files"), run for 5 s (300 steps of
# 1/60 s) with the integrator loaded models run by default (implicit; add
# -- --integrator NAME for another) on one thread, and the table of what it
# came to: V/V0 after 5 s (volume over rest volume, summed over the
# file's bodies), the solver's mean Newton and conjugate-gradient iterations
# per step, and the wall time. A file that `psb info` finds open is run with
# --fill-holes (marked * in the table). Not a test: it takes a few minutes.
#
# usage: scripts/loaded_material.sh [PSB [MESHES_DIR]] [-- EXTRA PSB SIM OPTIONS]
#   PSB         the psb binary (default: build/psb beside this script)
#   MESHES_DIR  a folder of OBJ files, each run in name order (default: the
#               checkout's meshes/)
# Extra options (after --) go to every run, e.g. -- --ks 5000 --tol 0.001.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
psb=$here/build/psb
meshes=$here/meshes
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
    echo "loaded_material.sh: no meshes folder '$meshes' (pass one as the second argument)" >&2
    exit 2
fi

echo "psb sim --mesh FILE [--fill-holes] --steps 300" \
    "--threads 1 --summary${*:+ $*}"
printf '%-16s %6s %7s %8s %9s %6s %8s %7s %7s %6s\n' mesh points bodies "nRT J" "ks N/m" \
    "V/V0" newton CG "wall s" blowups
status=0
found=0
for file in "$meshes"/*.obj; do
    [ -f "$file" ] || continue
    found=1
    name=$(basename "$file" .obj)
    fill=
    if ! "$psb" info "$file" >/dev/null 2>&1; then
        fill=--fill-holes
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
if [ $found -eq 0 ]; then
    echo "loaded_material.sh: no OBJ files (*.obj) in '$meshes'" >&2
    exit 2
fi
echo "* holes filled (--fill-holes); nRT and ks are means over a file's bodies"
exit $status
