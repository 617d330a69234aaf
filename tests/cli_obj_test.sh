#!/bin/sh
# End-to-end tests of OBJ files through the psb command line: `psb info
# FILE.obj` (report, repairs, exit statuses, error messages), `psb sim --mesh`
# (one body per closed component, the lift, --fit, the aggregated summary),
# --substeps auto, `psb bench --mesh` (the body settles before it is timed,
# so its volume holds), the repo's OBJ corpus, and the real meshes of
# ../shared/meshes-real when that folder exists (skipped with a message when
# not): Spot inflates; the bunny does after --fill-holes.
#
# usage: cli_obj_test.sh PATH/TO/psb OBJ_CORPUS_DIR REAL_MESHES_DIR
set -u

PSB=${1:?usage: cli_obj_test.sh PATH/TO/psb OBJ_CORPUS_DIR REAL_MESHES_DIR}
CORPUS=${2:?usage: cli_obj_test.sh PATH/TO/psb OBJ_CORPUS_DIR REAL_MESHES_DIR}
REAL=${3:?usage: cli_obj_test.sh PATH/TO/psb OBJ_CORPUS_DIR REAL_MESHES_DIR}
if [ ! -x "$PSB" ]; then
    echo "cli_obj_test: '$PSB' is not an executable" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/psb-cli-obj-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' INT TERM

# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# expect_not_in FILE PATTERN WHAT: no line of FILE matches the extended regex.
expect_not_in() {
    checks=$((checks + 1))
    if grep -Eq -- "$2" "$1"; then
        fail "$3: unexpected line matching '$2': $(grep -E -- "$2" "$1" | head -c 300)"
    fi
}

# expect_fixed FILE TEXT WHAT: FILE contains TEXT literally (a path, say).
expect_fixed() {
    checks=$((checks + 1))
    if ! grep -Fq -- "$2" "$1"; then
        fail "$3: '$2' not in: $(head -c 300 "$1")"
    fi
}

# expect_greater A B WHAT: the number A is larger than the number B.
expect_greater() {
    checks=$((checks + 1))
    if ! awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 > b + 0) }'; then
        fail "$3: '$1' is not larger than '$2'"
    fi
}

# expect_keys WHAT KEY...: the last run's stdout is exactly these key=value
# lines, in this order.
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

# kv KEY: KEY's value in the last run's one line of key=value pairs (psb
# bench --format kv).
kv() {
    tr ' ' '\n' <"$tmp/out" | sed -n "s/^$1=//p"
}

# expect_small X LIMIT WHAT: the number X is within LIMIT of 0.
expect_small() {
    checks=$((checks + 1))
    if ! awk -v x="$1" -v limit="$2" 'BEGIN { exit !(x != "" && x + 0 < limit && -x < limit) }'; then
        fail "$3: '$1' is not within $2 of 0"
    fi
}

topology_keys="vertices faces edges border_edges holes nonmanifold_edges pinched_vertices
    components genus volume closed euler oriented orientation_conflicts unused_vertices"
repair_keys="welded unused_dropped degenerate_dropped duplicates_dropped faces_flipped
    components_flipped holes_filled fill_triangles obj_lines obj_vertices obj_faces obj_polygons"
timing_keys="parse_ms repair_ms check_ms total_ms"
summary_keys="time steps points volume pressure mean_radius kinetic spring gas gravity_pe energy
    centroid_x centroid_y centroid_z min_y blowups bodies contacts links full_list_steps put_back shape pinned rest_volume gas_nrt spring_k
    newton_mean newton_max iterations_mean iterations_max residual force_residual unconverged_steps asleep_steps"

# ---- OBJ files of our own, so these checks need nothing else

# The unit cube [0,1]^3 in quads, wound outward.
cube_vertices='v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1'
cube_faces='f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8'

printf '%s\n%s\n' "$cube_vertices" "$cube_faces" >"$tmp/cube.obj"
# The same without its top (y = 1) face: one hole of 4 border edges.
printf '%s\n%s\n' "$cube_vertices" "$(echo "$cube_faces" | grep -v '^f 3 4 8 7$')" >"$tmp/open.obj"
# Every face wound inward: one component to turn outward.
printf '%s\n%s\n' "$cube_vertices" "$(echo "$cube_faces" | awk '{ print $1, $5, $4, $3, $2 }')" \
    >"$tmp/inside_out.obj"
# Two cubes side by side, the second 2 m along x: two bodies.
{
    printf '%s\n%s\n' "$cube_vertices" "$cube_faces"
    echo "$cube_vertices" | awk '{ print $1, $2 + 2, $3, $4 }'
    echo "$cube_faces" | awk '{ print $1, $2 + 8, $3 + 8, $4 + 8, $5 + 8 }'
} >"$tmp/two_cubes.obj"
# Each face with its own four corners (24 vertices): they must be welded.
echo "$cube_faces" | awk -v verts="$cube_vertices" 'BEGIN { n = split(verts, v, "\n") }
    { for (i = 2; i <= 5; i++) print v[$i]; k = NR * 4; print "f", k - 3, k - 2, k - 1, k }' \
    >"$tmp/seams.obj"
# An index past the end on line 10.
printf '%s\nf 1 2 3\nf 1 2 9\n' "$cube_vertices" >"$tmp/bad_index.obj"

run info "$tmp/cube.obj"
expect_status 0 "info cube.obj"
# shellcheck disable=SC2086 # the key lists are split on purpose
expect_keys "info cube.obj" $topology_keys $repair_keys
expect_value vertices 8 "cube.obj"
expect_value faces 12 "cube.obj: 6 quads, 2 triangles each"
expect_value edges 18 "cube.obj"
expect_value holes 0 "cube.obj"
expect_value closed yes "cube.obj"
expect_value genus 0 "cube.obj"
expect_close "$(value volume)" 1 1e-9 "cube.obj: volume"
expect_value obj_vertices 8 "cube.obj"
expect_value obj_faces 6 "cube.obj"
expect_value obj_polygons 6 "cube.obj"
expect_value obj_lines 14 "cube.obj"

run info "$tmp/cube.obj" --timing --repeat 3
expect_status 0 "info cube.obj --timing"
# shellcheck disable=SC2086
expect_keys "info --timing" $topology_keys $repair_keys $timing_keys
expect_in "$tmp/out" '^total_ms=[0-9]+\.[0-9]+$' "--timing prints total_ms in ms"

run info "$tmp/cube.obj" --fit 2
expect_status 0 "info --fit 2"
# Bounding sphere radius 2: half-diagonal s sqrt(3)/2 = 2, V = s^3.
expect_close "$(value volume)" "$(awk 'BEGIN { s = 4 / sqrt(3); print s * s * s }')" 1e-6 \
    "info --fit 2: volume of the fitted cube"

# psb bench --mesh settles the body before timing it, so that the drift
# figures measure the step and not a cube swelling into a ball: from an even
# stretch its volume drift was 0.26, and it blew up. Settled, it still sags
# and rocks on the floor, undamped, by about 1.5% of its volume.
run bench --mesh "$tmp/cube.obj" --scene mesh --quick --format kv
expect_status 0 "bench --mesh cube.obj"
expect_in "$tmp/out" '^scene=cube\.obj vertices=8 ' "bench --mesh cube.obj: one kv line"
expect_small "$(kv volume_drift)" 5e-2 "bench --mesh cube.obj: volume drift of the settled cube"
expect_not_in "$tmp/err" "did not settle|blew up" "bench --mesh cube.obj settles without blow-ups"

run info "$tmp/open.obj"
expect_status 2 "info on an open mesh"
expect_in "$tmp/err" "hole" "an open mesh is refused with its holes"
expect_value border_edges 4 "open.obj"
expect_value holes 1 "open.obj"
expect_value closed no "open.obj"

run info "$tmp/open.obj" --fill-holes
expect_status 0 "info --fill-holes on an open mesh"
expect_value holes_filled 1 "open.obj --fill-holes"
expect_value closed yes "open.obj --fill-holes"
expect_value holes 0 "open.obj --fill-holes"
expect_close "$(value volume)" 1 1e-9 "open.obj --fill-holes: the filled cube's volume"

run info "$tmp/inside_out.obj"
expect_status 0 "info on an inside-out cube"
expect_value components_flipped 1 "inside_out.obj is turned outward"
expect_close "$(value volume)" 1 1e-9 "inside_out.obj: volume after the turn"

run info "$tmp/inside_out.obj" --no-fix-orientation
expect_status 2 "info --no-fix-orientation on an inside-out cube"
expect_value components_flipped 0 "--no-fix-orientation turns nothing"

run info "$tmp/seams.obj"
expect_status 0 "info on a cube with seams"
expect_value welded 16 "seams.obj: 24 corners welded into 8"
expect_value vertices 8 "seams.obj after welding"
expect_value closed yes "seams.obj after welding"

run info "$tmp/seams.obj" --no-weld
expect_status 2 "info --no-weld on a cube with seams"
expect_value welded 0 "--no-weld welds nothing"

run info "$tmp/two_cubes.obj"
expect_status 0 "info on two cubes"
expect_value components 2 "two_cubes.obj"
expect_value pinched_vertices 0 "two_cubes.obj"

# Two cubes that touch at one corner, (1,1,1) of the first the (0,0,0) of
# the second, welded there: one component with a pinched vertex, where the
# two fans of faces meet. Its Euler characteristic is 2 + 2 - 1 = 3, odd;
# split at the pinch it is two spheres, genus 0.
{
    printf '%s\n%s\n' "$cube_vertices" "$cube_faces"
    echo "$cube_vertices" | awk '{ print $1, $2 + 1, $3 + 1, $4 + 1 }'
    echo "$cube_faces" | awk '{ print $1, $2 + 8, $3 + 8, $4 + 8, $5 + 8 }'
} >"$tmp/corner_cubes.obj"
run info "$tmp/corner_cubes.obj"
expect_status 0 "info on two cubes touching at a corner"
expect_value components 1 "corner_cubes.obj: one component"
expect_value pinched_vertices 1 "corner_cubes.obj: the shared corner is pinched"
expect_value euler 3 "corner_cubes.obj: V - E + F"
expect_value genus 0 "corner_cubes.obj: two spheres once split at the pinch"
expect_value closed yes "corner_cubes.obj"

run info "$tmp/bad_index.obj"
expect_status 2 "info on a file with a bad index"
expect_one_error_line "info on a file with a bad index"
expect_fixed "$tmp/err" "$tmp/bad_index.obj:10:" "the bad index's message names FILE:LINE"

run info "$tmp/no_such_file.obj"
expect_status 2 "info on a missing file"
expect_one_error_line "info on a missing file"
expect_fixed "$tmp/err" "$tmp/no_such_file.obj" "the missing file is named"

# ---- option errors: one line, exit 2

while read -r name args; do
    # shellcheck disable=SC2086 # the arguments are split on purpose
    run $args
    expect_status 2 "psb $args" &&
        expect_one_error_line "psb $args" &&
        expect_fixed "$tmp/err" "$name" "psb $args names $name"
done <<EOF
--shape info $tmp/cube.obj --shape box
--subdiv info $tmp/cube.obj --subdiv 2
--fill-holes info --fill-holes
--timing info --timing
--repeat info $tmp/cube.obj --repeat 3
--repeat info $tmp/cube.obj --timing --repeat 0
--fit info $tmp/cube.obj --fit -1
--weld-tolerance info $tmp/cube.obj --weld-tolerance x
--weld-tolerance info $tmp/cube.obj --no-weld --weld-tolerance 0.1
arguments info $tmp/cube.obj $tmp/open.obj
--mesh sim --mesh $tmp/cube.obj --shape ring
--mesh sim --fill-holes
--mesh sim --fit 1
--substeps sim --substeps auto2
EOF

run sim --help
expect_status 0 "psb sim --help"
for option in mesh fill-holes no-weld weld-tolerance keep-unused keep-degenerate keep-duplicates \
    no-fix-orientation fit substeps; do
    expect_in "$tmp/out" "^  --$option( |\$)" "psb sim --help mentions --$option"
done
# The help wraps: join each option's lines before looking for its default.
awk '/^  --/ { if (line != "") print line; line = $0; next } { line = line " " $0 }
    END { print line }' "$tmp/out" >"$tmp/joined"
expect_in "$tmp/joined" '^  --substeps .*default auto\)' "--substeps defaults to auto"
expect_in "$tmp/joined" '^  --fit .*default the --radius value\)' "sim --fit defaults to --radius"

run info --help
expect_status 0 "psb info --help"
for option in fill-holes no-weld weld-tolerance fit timing repeat; do
    expect_in "$tmp/out" "^  --$option( |\$)" "psb info --help mentions --$option"
done

# ---- psb sim --mesh

run sim --mesh "$tmp/cube.obj" --steps 0 --summary
expect_status 0 "sim --mesh cube.obj --steps 0"
# shellcheck disable=SC2086
expect_keys "sim --mesh --summary" $summary_keys
expect_value points 8 "sim --mesh cube.obj"
expect_value bodies 1 "sim --mesh cube.obj"
expect_close "$(value min_y)" 1 1e-12 "sim --mesh: lowest point starts --height 1 above the floor"
# Fitted to the default --radius 0.5: s sqrt(3)/2 = 0.5.
expect_close "$(value volume)" "$(awk 'BEGIN { s = 1 / sqrt(3); print s * s * s }')" 1e-6 \
    "sim --mesh fits to --radius by default"

run sim --mesh "$tmp/cube.obj" --steps 0 --summary --radius 1
expect_close "$(value volume)" "$(awk 'BEGIN { s = 2 / sqrt(3); print s * s * s }')" 1e-6 \
    "sim --mesh --radius 1 fits to 1 m"

run sim --mesh "$tmp/cube.obj" --steps 0 --summary --fit 0 --height 0.25
expect_close "$(value volume)" 1 1e-9 "sim --mesh --fit 0 keeps the file's size"
expect_close "$(value min_y)" 0.25 1e-12 "sim --mesh --height 0.25"

run sim --mesh "$tmp/cube.obj" --time 1 --summary
expect_status 0 "sim --mesh cube.obj runs"
expect_value blowups 0 "sim --mesh cube.obj runs without blow-ups"

run sim --mesh "$tmp/cube.obj" --time 0.1
expect_status 0 "sim --mesh cube.obj, human report"
expect_fixed "$tmp/out" "cube.obj" "the report names the file"

run sim --mesh "$tmp/two_cubes.obj" --steps 0 --summary --fit 0
expect_status 0 "sim --mesh two_cubes.obj"
# shellcheck disable=SC2086
expect_keys "sim --summary with two bodies" $summary_keys
expect_value bodies 2 "two cubes are two bodies"
expect_value points 16 "two cubes: 16 points"
expect_close "$(value volume)" 2 1e-9 "two cubes: volumes summed"
expect_close "$(value min_y)" 1 1e-12 "two cubes lifted together"
expect_close "$(value centroid_x)" 1.5 1e-9 "two cubes: centroid over all points"

run sim --mesh "$tmp/two_cubes.obj" --time 0.5 --summary --csv "$tmp/two.csv" --csv-every 10
expect_status 0 "sim --mesh two_cubes.obj --csv"
expect_value blowups 0 "two cubes run without blow-ups"
checks=$((checks + 1))
awk -F, 'NR > 1 { rows++; if (NF != 14) bad = 1 } END { exit !(rows >= 2 && !bad) }' \
    "$tmp/two.csv" || fail "two cubes CSV: $(head -c 300 "$tmp/two.csv")"
expect_close "$(tail -n 1 "$tmp/two.csv" | cut -d, -f2)" "$(value volume)" 1e-6 \
    "the last CSV row's volume is the summary's"

# Four cubes on the same spot, kept apart by --no-weld: each corner lies on
# the other three cubes, which is more contacts and links than their lists
# first hold (twice the points). The lists grow and none is left out:
# --summary counts no full list, its links are more than twice the points,
# and nothing is said on stderr; the two cubes apart fill nothing either.
expect_value full_list_steps 0 "two cubes apart fill no list"
{
    for c in 0 1 2 3; do echo "$cube_vertices"; done
    for c in 0 8 16 24; do
        echo "$cube_faces" | awk -v o=$c '{ print $1, $2 + o, $3 + o, $4 + o, $5 + o }'
    done
} >"$tmp/four_cubes.obj"
run sim --mesh "$tmp/four_cubes.obj" --no-weld --steps 2 --summary
expect_status 0 "sim --mesh four_cubes.obj --no-weld"
expect_value bodies 4 "four cubes unwelded are four bodies"
expect_value full_list_steps 0 "four cubes on one spot: their lists grew, none left out"
checks=$((checks + 1))
if [ "$(value links)" -le 64 ] || [ "$(value contacts)" -le 64 ]; then
    fail "four cubes of 8 points: $(value links) links, $(value contacts) contacts, not more than 64"
fi
checks=$((checks + 1))
! grep -q "between bodies" "$tmp/err" || fail "a grown list said on stderr: $(cat "$tmp/err")"

run sim --mesh "$tmp/open.obj" --steps 1
expect_status 2 "sim --mesh on an open mesh"
expect_in "$tmp/err" "hole" "sim --mesh names the holes"
run sim --mesh "$tmp/open.obj" --steps 1 --fill-holes --summary
expect_status 0 "sim --mesh --fill-holes on an open mesh"

run sim --mesh "$tmp/bad_index.obj"
expect_status 2 "sim --mesh on a bad file"
expect_one_error_line "sim --mesh on a bad file"
expect_fixed "$tmp/err" "$tmp/bad_index.obj:10:" "sim --mesh: FILE:LINE"

# ---- --substeps auto

# Icosphere level 5 at 1 kg: 10242 points of ~0.1 g need more than 20
# explicit sub-steps.
run sim --subdiv 5 --steps 1 --integrator symplectic
expect_status 0 "sim --subdiv 5 --steps 1"
expect_in "$tmp/out" 'in [0-9]+ sub-steps \(auto\)' "the report shows the chosen count"
checks=$((checks + 1))
n=$(sed -n 's/.* in \([0-9]*\) sub-steps (auto).*/\1/p' "$tmp/out")
if [ -z "$n" ] || [ "$n" -le 20 ]; then
    fail "--substeps auto on 10242 points chose '$n', expected more than 20"
fi
expect_not_in "$tmp/err" "warning" "--substeps auto leaves nothing to warn about"

run sim --subdiv 5 --steps 1 --substeps 20 --integrator symplectic
expect_in "$tmp/out" 'in 20 sub-steps,' "an explicit --substeps is used as given"
expect_in "$tmp/err" "warning.*--substeps" "an explicit too-large step is still warned about"

run sim --steps 1 --integrator symplectic
expect_in "$tmp/out" 'in 20 sub-steps \(auto\)' "the default shape keeps 20 explicit sub-steps"

# ---- the corpus in tests/obj (whatever of it exists)

# corpus_info FILE ARGS...: runs `psb info` on a corpus file when it exists;
# false (with a note) when it does not.
corpus_info() {
    if [ ! -f "$CORPUS/$1" ]; then
        echo "cli_obj_test: $CORPUS/$1 not found: skipped"
        return 1
    fi
    file=$1
    shift
    run info "$CORPUS/$file" "$@"
}

if corpus_info cube_quads.obj; then
    expect_status 0 "info cube_quads.obj"
    expect_value closed yes "cube_quads.obj"
    expect_value obj_polygons 6 "cube_quads.obj"
    run sim --mesh "$CORPUS/cube_quads.obj" --time 0.5 --summary
    expect_status 0 "sim --mesh cube_quads.obj"
    expect_value blowups 0 "sim --mesh cube_quads.obj"
fi
if corpus_info cube_open.obj; then
    expect_status 2 "info cube_open.obj"
    expect_in "$tmp/err" "hole" "cube_open.obj is refused for its hole"
    corpus_info cube_open.obj --fill-holes
    expect_status 0 "info cube_open.obj --fill-holes"
    expect_value holes_filled 1 "cube_open.obj --fill-holes"
fi
if corpus_info cube_split_vertices.obj; then
    expect_status 0 "info cube_split_vertices.obj"
    expect_value welded 16 "cube_split_vertices.obj"
fi
if corpus_info cube_flipped_face.obj; then
    expect_status 0 "info cube_flipped_face.obj"
    expect_value faces_flipped 2 "cube_flipped_face.obj"
fi
if corpus_info cube_inside_out.obj; then
    expect_status 0 "info cube_inside_out.obj"
    expect_value components_flipped 1 "cube_inside_out.obj"
fi
if corpus_info cube_degenerate.obj; then
    expect_status 0 "info cube_degenerate.obj"
    expect_value degenerate_dropped 1 "cube_degenerate.obj"
    expect_value unused_dropped 1 "cube_degenerate.obj"
    corpus_info cube_degenerate.obj --keep-degenerate
    expect_value degenerate_dropped 0 "cube_degenerate.obj --keep-degenerate"
fi
if corpus_info cube_duplicate_face.obj; then
    expect_status 0 "info cube_duplicate_face.obj"
    expect_value duplicates_dropped 2 "cube_duplicate_face.obj"
    corpus_info cube_duplicate_face.obj --keep-duplicates
    expect_status 2 "info cube_duplicate_face.obj --keep-duplicates"
fi
if corpus_info cube_unused_vertex.obj; then
    expect_status 0 "info cube_unused_vertex.obj"
    expect_value unused_dropped 1 "cube_unused_vertex.obj"
    corpus_info cube_unused_vertex.obj --keep-unused
    expect_value unused_vertices 1 "cube_unused_vertex.obj --keep-unused"
fi
if corpus_info nonmanifold.obj; then
    expect_status 2 "info nonmanifold.obj"
fi
if corpus_info two_cubes.obj; then
    expect_status 0 "info two_cubes.obj"
    expect_value components 2 "two_cubes.obj"
    run sim --mesh "$CORPUS/two_cubes.obj" --time 0.5 --summary
    expect_status 0 "sim --mesh two_cubes.obj (corpus)"
    expect_value bodies 2 "two_cubes.obj (corpus) is two bodies"
    expect_value blowups 0 "two_cubes.obj (corpus)"
fi

# Every error the corpus README lists (`error line=L: WORDS` or `error:
# WORDS`) comes out of `psb info` as one line, FILE:L: WORDS, and status 2.
if [ -f "$CORPUS/README.md" ]; then
    # shellcheck disable=SC2016 # the backquotes are the README's, not the shell's
    sed -n 's/^| \(err_[^ |]*\.obj\) | `\(error[^`]*\)`.*/\1 \2/p' "$CORPUS/README.md" \
        >"$tmp/errors"
    checks=$((checks + 1))
    [ -s "$tmp/errors" ] || fail "no error rows found in $CORPUS/README.md"
    while read -r file outcome; do
        # "error line=5: WORDS" -> ":5: WORDS"; "error: WORDS" -> ": WORDS".
        want=$(printf '%s\n' "$outcome" | sed 's/^error line=\([0-9]*\):/:\1:/; s/^error:/:/')
        run info "$CORPUS/$file"
        expect_status 2 "info $file"
        expect_one_error_line "info $file"
        checks=$((checks + 1))
        case $(cat "$tmp/err") in
        "$CORPUS/$file$want"*) ;;
        *) fail "info $file: stderr '$(cat "$tmp/err")', expected '$CORPUS/$file$want...'" ;;
        esac
    done <"$tmp/errors"
else
    echo "cli_obj_test: $CORPUS/README.md not found: corpus errors skipped"
fi

# ---- the real meshes

if [ ! -f "$REAL/spot.obj" ]; then
    echo "cli_obj_test: $REAL not found: real-mesh checks skipped"
else
    for name in spot cow rocker-arm; do
        run info "$REAL/$name.obj"
        expect_status 0 "info $name.obj"
        expect_value closed yes "$name.obj"
        expect_value components 1 "$name.obj"
    done
    run info "$REAL/rocker-arm.obj"
    expect_value genus 1 "rocker-arm.obj has a hole through it"
    expect_value pinched_vertices 0 "rocker-arm.obj"
    # The cow: closed and oriented, but with an odd Euler characteristic
    # (1), from one vertex where two fans of faces meet: a pinch, not a
    # genus of -1.
    run info "$REAL/cow.obj"
    expect_value euler 1 "cow.obj"
    expect_value pinched_vertices 1 "cow.obj has a pinched vertex"
    expect_value genus 0 "cow.obj split at its pinch is a sphere"

    for name in teapot stanford-bunny; do
        run info "$REAL/$name.obj"
        expect_status 2 "info $name.obj"
        expect_in "$tmp/err" "hole" "$name.obj is refused for its holes"
        expect_in "$tmp/err" "fill-holes" "$name.obj: the message suggests --fill-holes"
        run info "$REAL/$name.obj" --fill-holes
        expect_status 0 "info $name.obj --fill-holes"
        expect_value closed yes "$name.obj --fill-holes"
    done
    run info "$REAL/teapot.obj"
    expect_value welded 403 "teapot.obj: 3644 vertices welded to 3241"

    run info "$REAL/suzanne.obj"
    expect_status 2 "info suzanne.obj"
    checks=$((checks + 1))
    [ -s "$tmp/err" ] || fail "suzanne.obj is refused without a reason"

    # Spot inflates: its volume after 2 s without gravity is above its rest
    # volume at the fitted size (the --radius default, 0.5 m).
    run info "$REAL/spot.obj" --fit 0.5
    rest=$(value volume)
    run sim --mesh "$REAL/spot.obj" --gravity 0 --no-floor --time 2 --summary
    expect_status 0 "sim --mesh spot.obj"
    expect_value blowups 0 "Spot inflates without blow-ups"
    expect_value bodies 1 "Spot is one body"
    expect_greater "$(value volume)" "$rest" "Spot inflates: volume above its fitted rest volume"

    # A stiff model's links with itself count its points' own masses, not
    # the patch a push drags along (docs/contact.md, "Session 35: self links
    # on loaded models"): dropped with --self-contact, Spot's solve takes
    # fewer than 6 Newton steps a frame over 3 s (9.3 when its self links
    # counted the patch), and misses its tolerance in at most 4 frames more
    # than without self contact (9 and 8 since session 36's kept links; 17
    # then).
    run sim --mesh "$REAL/spot.obj" --time 3 --threads 1 --summary
    expect_status 0 "sim --mesh spot.obj, dropped"
    plain_unconverged=$(value unconverged_steps)
    run sim --mesh "$REAL/spot.obj" --time 3 --threads 1 --self-contact --summary
    expect_status 0 "sim --mesh spot.obj --self-contact"
    expect_value blowups 0 "Spot with self contact"
    expect_greater 6 "$(value newton_mean)" "Spot with self contact: Newton steps a frame"
    expect_greater "$((plain_unconverged + 5))" "$(value unconverged_steps)" \
        "Spot with self contact: frames unconverged, against $plain_unconverged without"

    run info "$REAL/stanford-bunny.obj" --fill-holes --fit 0.5
    rest=$(value volume)
    # The filled bunny has 34834 light points (29 mg each at 1 kg), some with
    # many springs: --substeps auto takes thousands of sub-steps per step, so
    # only one step (1/60 s), in which it already inflates well past its rest
    # volume.
    run sim --mesh "$REAL/stanford-bunny.obj" --fill-holes --gravity 0 --no-floor --steps 1 \
        --summary
    expect_status 0 "sim --mesh stanford-bunny.obj --fill-holes"
    expect_value blowups 0 "the bunny inflates without blow-ups"
    expect_greater "$(value volume)" "$rest" "the bunny inflates after --fill-holes"

    run sim --mesh "$REAL/stanford-bunny.obj" --steps 1
    expect_status 2 "sim --mesh stanford-bunny.obj without --fill-holes"
    expect_in "$tmp/err" "hole" "sim refuses the bunny for its holes"

    # psb bench --mesh times each real mesh from its settled shape: an even
    # stretch left the teapot to double its volume during the timed repeats
    # (a volume drift of 1.1), and Spot and Suzanne to grow by 40-70%.
    for name in teapot spot suzanne; do
        run bench --mesh "$REAL/$name.obj" --scene mesh --quick --format kv
        expect_status 0 "bench --mesh $name.obj"
        expect_small "$(kv volume_drift)" 2e-2 "bench --mesh $name.obj: volume drift"
        expect_small "$(kv energy_drift)" 1e-2 "bench --mesh $name.obj: energy drift"
        expect_not_in "$tmp/err" "did not settle|blew up" "bench --mesh $name.obj: no blow-ups"
    done
fi

echo "cli_obj_test: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
