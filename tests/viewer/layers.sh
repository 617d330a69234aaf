#!/bin/sh
# The viewer's calls go one way. The opening comment of src/viewer/app.c
# lists the viewer's files top down, and a file may call only files listed
# below it. This reads that list, then what each object of the viewer's
# library defines and uses (nm), and fails on a call to a function or a
# variable of a file listed above the caller, or of a file the list leaves
# out.
#
#   layers.sh APP_C LIBRARY NM
set -u
app_c=$1 library=$2 nm=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The list: "//   name.c   what it does" lines, in order.
sed -n 's|^//   \([a-z0-9_]*\)\.c .*|\1|p' "$app_c" >"$tmp/order"
[ -s "$tmp/order" ] || { echo "FAIL: no list of files in $app_c" >&2; exit 1; }
# FILE SYMBOL, for what each object defines and for what it uses.
"$nm" -A -g --defined-only "$library" |
    sed -n 's|^.*:\([a-z0-9_]*\)\.c\.o: *[0-9a-fA-F]* [A-Z] \(.*\)$|\1 \2|p' >"$tmp/defined"
"$nm" -A -u "$library" | sed -n 's|^.*:\([a-z0-9_]*\)\.c\.o: *U \(.*\)$|\1 \2|p' >"$tmp/used"
[ -s "$tmp/defined" ] || { echo "FAIL: nm read no symbols from $library" >&2; exit 1; }

awk -v order="$tmp/order" -v defined="$tmp/defined" '
BEGIN {
    while ((getline f <order) > 0) { rank[f] = ++n; names[n] = f }
    while ((getline line <defined) > 0) { split(line, p, " "); home[p[2]] = p[1] }
}
{
    file = $1; name = $2
    if (!(name in home) || home[name] == file) next
    callee = home[name]
    if (!(file in rank) || !(callee in rank)) {
        printf "FAIL: %s.c uses %s of %s.c, and app.c does not list %s\n", file, name, callee,
               (file in rank) ? callee ".c" : file ".c"
        bad++
    } else if (rank[callee] < rank[file]) {
        printf "FAIL: %s.c uses %s of %s.c, which app.c lists above it\n", file, name, callee
        bad++
    }
    calls++
}
END {
    if (bad) exit 1
    printf "%d uses across %d files, every one down the list\n", calls, n
}' "$tmp/used" >&2
