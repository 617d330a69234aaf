#!/bin/sh
# The pile's dozen rings (with one ball, to be quick) settle without any
# ring point inside another ring or inside its own ring, at the end of
# every step of 4 s: `psb sim --export-obj` writes every step and
# psb-check-contact, which shares no code with psb, checks them by the
# winding number (docs/contact.md, "The pile's rings"). Before the rings
# were made lighter, 8150 points were found inside over the same run.
#
# usage: pile_rings_test.sh PATH/TO/psb PATH/TO/psb-check-contact
set -u

PSB=${1:?usage: pile_rings_test.sh PATH/TO/psb PATH/TO/psb-check-contact}
CHECK=${2:?usage: pile_rings_test.sh PATH/TO/psb PATH/TO/psb-check-contact}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/psb-pile-rings.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM

mkdir "$tmp/frames" || exit 2
"$PSB" sim --scene pile --balls 1 --time 4 --export-obj "$tmp/frames" --every 1 --summary \
    >"$tmp/out" 2>"$tmp/err" || {
    echo "FAIL: psb sim --scene pile --balls 1: exit status $?: $(head -c 300 "$tmp/err")" >&2
    exit 1
}
grep -q '^blowups=0$' "$tmp/out" || {
    echo "FAIL: the pile blew up: $(grep blowups "$tmp/out")" >&2
    exit 1
}
frames=$(find "$tmp/frames" -name 'body0_step*.obj' | wc -l)
if [ "$frames" -ne 241 ]; then
    echo "FAIL: expected 241 frames of ring 1, found $frames" >&2
    exit 1
fi
if ! "$CHECK" --self --max-reports 5 "$tmp/frames" >"$tmp/check" 2>&1; then
    echo "FAIL: points of the pile's rings inside another ring or their own:" >&2
    cat "$tmp/check" >&2
    exit 1
fi
tail -n 1 "$tmp/check"
echo "pile_rings: no ring point inside another ring or itself over 241 steps"
