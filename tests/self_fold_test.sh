#!/bin/sh
# A ball without gas dropped onto the floor from 1 m, one BDF2 step a frame,
# crumples on landing: with contact of a body with itself (--self-contact),
# whose contacts are links of the solve for a 3D body (docs/contact.md, "A
# body against itself, inside the solve"), no point of it may end any step
# of 3 s inside its own body; without it, some must (the check can fail:
# 17261 points were found inside over the 3 s). `psb sim --export-obj`
# writes every step and psb-check-contact --self, which shares no code with
# psb, checks them by the winding number.
#
# usage: self_fold_test.sh PATH/TO/psb PATH/TO/psb-check-contact
set -u

# shellcheck source=tests/pile_lib.sh
. "$(dirname "$0")/pile_lib.sh"
pile_start self_fold_test.sh "$@"

# drop DIR OPTIONS...: the drop, every step into $tmp/DIR; exits with 1 if
# psb sim fails or the ball blows up.
drop() {
    dir=$1
    shift
    mkdir "$tmp/$dir" || exit 2
    "$PSB" sim --shape icosphere --nrt 0 --height 1 --time 3 --integrator bdf2 \
        --dt 0.0166667 --substeps 1 "$@" --export-obj "$tmp/$dir" --every 1 --summary \
        >"$tmp/$dir.out" 2>"$tmp/$dir.err" || {
        echo "FAIL: psb sim $*: exit status $?: $(head -c 300 "$tmp/$dir.err")" >&2
        exit 1
    }
    grep -q '^blowups=0$' "$tmp/$dir.out" || {
        echo "FAIL: the ball blew up ($*): $(grep blowups "$tmp/$dir.out")" >&2
        exit 1
    }
}

drop on --self-contact
if ! "$CHECK" --self --max-reports 5 "$tmp/on" >"$tmp/on.check" 2>&1; then
    echo "FAIL: with --self-contact, points of the ball inside itself:" >&2
    cat "$tmp/on.check" >&2
    exit 1
fi
drop off
if "$CHECK" --self --max-reports 0 "$tmp/off" >"$tmp/off.check" 2>&1; then
    echo "FAIL: without --self-contact no point of the crumpled ball was inside itself:" \
        "the check cannot tell" >&2
    exit 1
fi
inside=$(grep -c -E 'itself|own surface' "$tmp/off.check")
echo "self_fold: none inside itself over 181 steps with --self-contact; $inside without"
