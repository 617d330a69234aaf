# shellcheck shell=sh
# Shared by pile_rings_test.sh, pile_balls_test.sh and self_fold_test.sh
# (sourced, not run).

# pile_start NAME PSB CHECK: the binaries (psb, psb-check-contact) into PSB
# and CHECK, and a scratch folder into tmp, removed at exit; NAME names the
# script in the usage line.
pile_start() {
    usage="usage: $1 PATH/TO/psb PATH/TO/psb-check-contact"
    PSB=${2:?$usage}
    CHECK=${3:?$usage}
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/psb-pile.XXXXXX") || exit 2
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 2' INT TERM
}

# pile_every_step WHAT LAST_BODY SIM_ARGS...: `psb sim --scene pile
# SIM_ARGS... --time 4 --export-obj DIR --every 1` into $tmp/frames; exits
# the script with 1 if it fails, blows up or does not write all 241 frames
# of body LAST_BODY, and if psb-check-contact --self finds any point inside
# another body or its own (WHAT names them in the message).
pile_every_step() {
    what=$1
    last=$2
    shift 2
    mkdir "$tmp/frames" || exit 2
    "$PSB" sim --scene pile "$@" --time 4 --export-obj "$tmp/frames" --every 1 --summary \
        >"$tmp/out" 2>"$tmp/err" || {
        echo "FAIL: psb sim --scene pile $*: exit status $?: $(head -c 300 "$tmp/err")" >&2
        exit 1
    }
    grep -q '^blowups=0$' "$tmp/out" || {
        echo "FAIL: the pile blew up: $(grep blowups "$tmp/out")" >&2
        exit 1
    }
    frames=$(find "$tmp/frames" -name "body${last}_step*.obj" | wc -l)
    if [ "$frames" -ne 241 ]; then
        echo "FAIL: expected 241 frames of body $last, found $frames" >&2
        exit 1
    fi
    if ! "$CHECK" --self --max-reports 5 "$tmp/frames" >"$tmp/check" 2>&1; then
        echo "FAIL: points of the pile's $what inside another body or their own:" >&2
        cat "$tmp/check" >&2
        exit 1
    fi
    tail -n 1 "$tmp/check"
}
