# Shared by the command-line tests (sourced, not run): the check counters
# and the helpers that run psb and check what it did. The sourcing script
# sets PSB (the binary) and tmp (a scratch folder) first.

checks=0
failures=0

fail() {
    failures=$((failures + 1))
    echo "FAIL: $*" >&2
}

# run ARGS...: runs psb, leaving stdout in $tmp/out, stderr in $tmp/err and
# the exit status in $status.
run() {
    "$PSB" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}

# expect_status WANT WHAT: the last run's exit status was WANT.
expect_status() {
    checks=$((checks + 1))
    if [ "$status" -ne "$1" ]; then
        fail "$2: exit status $status, expected $1; stderr: $(head -c 300 "$tmp/err")"
        return 1
    fi
    return 0
}

# expect_one_error_line WHAT: the last run wrote exactly one line on stderr
# and nothing on stdout.
expect_one_error_line() {
    checks=$((checks + 1))
    lines=$(wc -l <"$tmp/err")
    if [ "$lines" -ne 1 ] || [ -s "$tmp/out" ]; then
        fail "$1: expected one line on stderr and no output, got $lines line(s): $(head -c 300 "$tmp/err")"
    fi
}

# expect_in FILE PATTERN WHAT: FILE has a line matching the extended regex.
expect_in() {
    checks=$((checks + 1))
    if ! grep -Eq -- "$2" "$1"; then
        fail "$3: no line matching '$2' in: $(head -c 300 "$1")"
    fi
}

# value KEY: KEY's value in the key=value lines of the last run's stdout.
value() {
    sed -n "s/^$1=//p" "$tmp/out"
}

# expect_value KEY WANT WHAT: the last run printed KEY=WANT exactly.
expect_value() {
    checks=$((checks + 1))
    got=$(value "$1")
    if [ "$got" != "$2" ]; then
        fail "$3: $1=$got, expected $2"
    fi
}

# expect_close GOT WANT RELTOL WHAT: |GOT - WANT| <= RELTOL |WANT|.
expect_close() {
    checks=$((checks + 1))
    if ! awk -v got="$1" -v want="$2" -v tol="$3" 'BEGIN {
            if (got == "") exit 1
            d = got - want; if (d < 0) d = -d
            w = want; if (w < 0) w = -w
            exit !(d <= tol * w) }'; then
        fail "$4: got '$1', expected $2 within a relative $3"
    fi
}
