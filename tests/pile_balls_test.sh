#!/bin/sh
# The pile scene as it starts (a dozen balls and a dozen rings): no point of
# any body inside another body or inside its own, at the end of every step
# of 4 s. `psb sim --export-obj` writes every step and psb-check-contact,
# which shares no code with psb, checks them by the winding number. Before
# the struts (psb_body_params.fold_limit), ball 8 folded into itself as it
# landed: 67 of its points were found inside it over steps 116 to 134
# (docs/contact.md, "Struts").
#
# usage: pile_balls_test.sh PATH/TO/psb PATH/TO/psb-check-contact
set -u

PSB=${1:?usage: pile_balls_test.sh PATH/TO/psb PATH/TO/psb-check-contact}
CHECK=${2:?usage: pile_balls_test.sh PATH/TO/psb PATH/TO/psb-check-contact}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/psb-pile-balls.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM

mkdir "$tmp/frames" || exit 2
"$PSB" sim --scene pile --time 4 --threads 2 --export-obj "$tmp/frames" --every 1 --summary \
    >"$tmp/out" 2>"$tmp/err" || {
    echo "FAIL: psb sim --scene pile: exit status $?: $(head -c 300 "$tmp/err")" >&2
    exit 1
}
grep -q '^blowups=0$' "$tmp/out" || {
    echo "FAIL: the pile blew up: $(grep blowups "$tmp/out")" >&2
    exit 1
}
frames=$(find "$tmp/frames" -name 'body23_step*.obj' | wc -l)
if [ "$frames" -ne 241 ]; then
    echo "FAIL: expected 241 frames of ball 12 (body 23), found $frames" >&2
    exit 1
fi
if ! "$CHECK" --self --max-reports 5 "$tmp/frames" >"$tmp/check" 2>&1; then
    echo "FAIL: points of the pile inside another body or their own:" >&2
    cat "$tmp/check" >&2
    exit 1
fi
tail -n 1 "$tmp/check"
echo "pile_balls: no point inside another body or itself over 241 steps"
