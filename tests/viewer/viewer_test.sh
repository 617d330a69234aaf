#!/bin/sh
# End-to-end tests of `psb view`, run by ctest under xvfb-run with Mesa's
# software renderer. Each test drives the viewer with --frames and an input
# script, then checks its --report (key=value lines), its stderr and its
# screenshots (check_png).
#
#   viewer_test.sh TEST PSB CHECK_PNG DATA_DIR BUILD_DIR CMAKE
set -u
test_name=$1 psb=$2 check_png=$3 data=$4 build_dir=$5 cmake=$6
# Under AddressSanitizer (.ci/run's second pass) Mesa's drivers leak a few
# kilobytes and are unloaded before the leak check, so their leaks cannot be
# suppressed by name: leave leak detection out here. Every other check of
# the sanitizers (overflows, use after free, undefined behaviour) still runs.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

fail() {
    echo "FAIL ($test_name): $*" >&2
    status=1
}

# get KEY FILE: the value of KEY=... in a report.
get() {
    sed -n "s/^$1=//p" "$2" | head -n 1
}

expect() { # expect KEY VALUE FILE
    value=$(get "$1" "$3")
    [ "$value" = "$2" ] || fail "$1 is '$value', expected '$2'"
}

# untouched WHAT: the last run grabbed and poked nothing and left the camera
# where $camera0 says.
untouched() {
    expect grabs 0 "$tmp/report"
    expect pokes 0 "$tmp/report"
    [ "$(grep '^camera' "$tmp/report")" = "$camera0" ] || fail "$1 moved the camera"
}

# distance A B between two "x,y,z" vectors.
distance() {
    echo "$1 $2" | awk '{ split($1, a, ","); split($2, b, ",");
        printf "%.6f\n", sqrt((a[1]-b[1])^2 + (a[2]-b[2])^2 + (a[3]-b[3])^2) }'
}

# view FRAMES [ARGS...]: runs the viewer with a report into $tmp/report,
# stderr into $tmp/err; it must exit with $want_rc (0: a clean run; 3 for
# a run with blow-ups).
want_rc=0
view() {
    frames=$1
    shift
    "$psb" view --frames "$frames" --report "$@" >"$tmp/report" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne "$want_rc" ]; then
        fail "psb view exited with $rc, expected $want_rc"
        cat "$tmp/err" >&2
    fi
}

sane() { # a run that kept every number finite and every vertex drawn
    expect nonfinite_frames 0 "$tmp/report"
    expect dropped_vertices 0 "$tmp/report"
}

# Checks that the grab pulled the held point most of the way to the cursor.
check_grab() { # check_grab VIEW
    expect grab_view "$1" "$tmp/report"
    start=$(get grab_start "$tmp/report")
    target=$(get grab_target "$tmp/report")
    position=$(get grab_position "$tmp/report")
    pulled=$(distance "$start" "$target")
    left=$(distance "$position" "$target")
    echo "grab: start $start target $target position $position: pulled $pulled, left $left"
    awk -v p="$pulled" -v l="$left" 'BEGIN { exit !(p > 0.25 && l < 0.5 * p) }' ||
        fail "the grabbed point did not follow the cursor (target $pulled m away at the start, $left m at the end)"
}

# check_layout W H [WHAT]: the layout in the report fits a W x H window: the
# HUD strip, the two views, the plots and the body table inside it and
# apart, the HUD's parts inside its strip, the views at least 40 % of the
# height and not narrow; and nothing of the HUD drawn over a view.
check_layout() {
    awk -F'[=,]' -v W="$1" -v H="$2" '
        $1 ~ /^(hud|view2d|view3d|plots|table)$/ && NF == 5 {
            n++; name[n] = $1; x[n] = $2; y[n] = $3; w[n] = $4; h[n] = $5 }
        $1 ~ /^hud_(title|column[0-9]|messages)$/ && NF == 5 {
            m++; part[m] = $1; px[m] = $2; py[m] = $3; pw[m] = $4; ph[m] = $5 }
        $1 == "hud" { hx = $2; hy = $3; hw = $4; hh = $5 }
        $1 == "ui_over_views" { over = $2 }
        function apart(a, b) {
            return x[a] + w[a] <= x[b] || x[b] + w[b] <= x[a] || y[a] + h[a] <= y[b] ||
                y[b] + h[b] <= y[a] }
        END {
            bad = 0
            if (n != 5 || m != 5) { print "the report has " n " parts and " m " HUD parts"; bad = 1 }
            for (i = 1; i <= n; i++) {
                if (x[i] < 0 || y[i] < 0 || x[i] + w[i] > W || y[i] + h[i] > H) {
                    print name[i] " " x[i] "," y[i] "," w[i] "," h[i] " is not inside " W "x" H; bad = 1 }
                for (j = i + 1; j <= n; j++)
                    if (!apart(i, j)) { print name[i] " overlaps " name[j]; bad = 1 }
                if (name[i] ~ /^view/ && (h[i] < 0.4 * H || w[i] < 0.3 * W)) {
                    print name[i] " is only " w[i] "x" h[i]; bad = 1 }
            }
            for (k = 1; k <= m; k++)
                if (px[k] < hx || py[k] < hy || px[k] + pw[k] > hx + hw || py[k] + ph[k] > hy + hh + 0.5) {
                    print part[k] " is not inside the HUD strip"; bad = 1 }
            if (over != 0) { print over " HUD quads or lines drawn over a view"; bad = 1 }
            exit bad }' "$tmp/report" >"$tmp/layout" || fail "${3:-layout} at $1x$2: $(cat "$tmp/layout")"
}

# inside R X0,Y0,X1,Y1: the box lies inside the rectangle R = X,Y,W,H.
inside() {
    echo "$1 $2" | awk '{ split($1, r, ","); split($2, b, ",");
        exit !(b[1] >= r[1] && b[2] >= r[2] && b[3] <= r[1] + r[3] && b[4] <= r[2] + r[4]) }'
}

# framed WHAT: the bodies were drawn inside their views all the run long:
# the rings in the 2D view, the other bodies in the 3D view. A scene with
# rings (or 3D bodies) must report where they were drawn.
framed() {
    v2=$(get view2d "$tmp/report")
    v3=$(get view3d "$tmp/report")
    b2=$(get bodies2d_px "$tmp/report")
    b3=$(get bodies3d_px "$tmp/report")
    if grep -q '^body[0-9]*=.* kind=ring ' "$tmp/report"; then
        [ -n "$b2" ] || fail "$1: the scene has rings, but the report has no bodies2d_px"
    fi
    if grep -Eq '^body[0-9]*=.* kind=(shell|cloth) ' "$tmp/report"; then
        [ -n "$b3" ] || fail "$1: the scene has 3D bodies, but the report has no bodies3d_px"
    fi
    [ -z "$b2" ] || inside "$v2" "$b2" || fail "$1: the rings went to $b2, outside the 2D view $v2"
    [ -z "$b3" ] || inside "$v3" "$b3" || fail "$1: the bodies went to $b3, outside the 3D view $v3"
}

case $test_name in
smoke)
    view 150 --size 1280x720 --screenshot "$tmp/shot.png" --stats
    cat "$tmp/report"
    expect bodies 4 "$tmp/report"
    expect blowups 0 "$tmp/report"
    expect framebuffer 1280x720 "$tmp/report"
    sane
    grep -q '^frames=[0-9]* mean_ms=[0-9.]* p99_ms=[0-9.]*' "$tmp/report" || fail "no --stats line"
    grep -q 'Core Profile' "$tmp/report" || fail "not a core profile context"
    check_layout 1280 720
    expect text_cut 0 "$tmp/report"
    # The ring (amber) on the left; the low, medium and high gas bodies (blue,
    # green, red) on the right.
    v2=$(get view2d "$tmp/report")
    v3=$(get view3d "$tmp/report")
    "$check_png" "$tmp/shot.png" 1280 720 "$v2:37:4000" "$v3:216:1500" "$v3:129:1500" \
        "$v3:0:1500" || fail "the screenshot does not show the ring and the three bodies"
    ;;
grab3d)
    cat >"$tmp/script" <<'END'
# grab the middle sphere once it rests, pull it up and to the right, keep holding
150 mouse_move_body 2
151 mouse_down left
152 mouse_move_by 30 -30
154 mouse_move_by 30 -30
156 mouse_move_by 30 -30
END
    view 200 --input-script "$tmp/script"
    expect grab_body 2 "$tmp/report"
    expect grabs 1 "$tmp/report"
    check_grab 3d
    sane
    ;;
grab2d)
    cat >"$tmp/script" <<'END'
# grab the ring near its top (a press inside it takes its nearest point) and pull it up and left
150 mouse_move_body 0 0 -60
151 mouse_down left
152 mouse_move_by -40 -40
154 mouse_move_by -40 -40
END
    view 200 --input-script "$tmp/script"
    expect grab_body 0 "$tmp/report"
    check_grab 2d
    sane
    ;;
orbit)
    cat >"$tmp/script" <<'END'
# orbit: left drag on empty floor; zoom: wheel; pan: right drag on empty floor
60 mouse_move 1200 500
61 mouse_down left
62 mouse_move_by -60 -10
63 mouse_move_by -60 -10
64 mouse_move_by -60 -10
65 mouse_up left
70 scroll 2
75 mouse_move 700 540
76 mouse_down right
77 mouse_move_by -40 20
78 mouse_up right
END
    view 90 --input-script "$tmp/script" --screenshot "$tmp/orbit.png"
    cat "$tmp/report" | grep camera
    yaw=$(get camera_yaw "$tmp/report")
    pitch=$(get camera_pitch "$tmp/report")
    dist=$(get camera_distance "$tmp/report")
    target=$(get camera_target "$tmp/report")
    view 90 --screenshot "$tmp/still.png"
    [ "$yaw" != "$(get camera_yaw "$tmp/report")" ] || fail "the drag did not orbit (yaw $yaw)"
    [ "$pitch" != "$(get camera_pitch "$tmp/report")" ] || fail "the drag did not tilt (pitch $pitch)"
    awk -v a="$dist" -v b="$(get camera_distance "$tmp/report")" 'BEGIN { exit !(a < b) }' ||
        fail "the wheel did not zoom in (distance $dist)"
    [ "$target" != "$(get camera_target "$tmp/report")" ] || fail "the right drag did not pan"
    expect grabs 0 "$tmp/report"
    "$check_png" --differ "$tmp/orbit.png" "$tmp/still.png" 0.05 || fail "the view did not change"
    ;;
poke)
    cat >"$tmp/script" <<'END'
# right click on the high gas body, shift+click on the low gas one, right click on the ring
150 mouse_move_body 3
151 click right
152 mouse_move_body 1
153 click left shift
154 mouse_move_body 0
155 click right
END
    view 170 --input-script "$tmp/script"
    expect pokes 3 "$tmp/report"
    expect poke_body 0 "$tmp/report"
    expect grabs 0 "$tmp/report"
    expect camera_yaw 0.000000 "$tmp/report"
    sane
    ;;
drop)
    # A bad file on the command line and dropped: reported, the scene runs on.
    view 20 "$data/bad.obj"
    expect load_errors 1 "$tmp/report"
    expect bodies 4 "$tmp/report"
    grep -q 'bad.obj:' "$tmp/err" || fail "no error naming bad.obj on stderr"
    # A good one and a bad one: the good one is loaded, the bad one reported.
    view 20 "$data/box.obj" "$data/bad.obj"
    expect scene files "$tmp/report"
    expect bodies 2 "$tmp/report"
    expect load_errors 1 "$tmp/report"
    grep -q '^message=.*bad.obj' "$tmp/report" || fail "the HUD does not show bad.obj's error"
    cat >"$tmp/script" <<END
20 drop $data/bad.obj
40 drop $tmp/no such file.obj
END
    view 60 --input-script "$tmp/script" --screenshot "$tmp/drop.png"
    cat "$tmp/err"
    expect frames 60 "$tmp/report"
    expect load_errors 2 "$tmp/report"
    expect bodies 4 "$tmp/report"
    expect scene default "$tmp/report"
    [ "$(grep -c 'psb view: .*obj' "$tmp/err")" -eq 2 ] || fail "expected two load errors on stderr"
    grep -q '^message=.*no such file.obj' "$tmp/report" || fail "the HUD does not show the last error"
    awk -F= '/^sim_time=/ { exit !($2 > 0.9) }' "$tmp/report" || fail "the simulation stopped"
    # A good file replaces the 3D bodies; Backspace brings the scene back.
    cat >"$tmp/script" <<END
10 drop $data/box.obj
END
    view 30 --input-script "$tmp/script"
    expect scene files "$tmp/report"
    expect bodies 2 "$tmp/report"
    expect load_errors 0 "$tmp/report"
    grep -q '^body1=box.obj' "$tmp/report" || fail "the dropped box is not body 1"
    printf '10 drop %s\n20 key BACKSPACE\n' "$data/box.obj" >"$tmp/script"
    view 30 --input-script "$tmp/script"
    expect scene default "$tmp/report"
    expect bodies 4 "$tmp/report"
    ;;
keys)
    cat >"$tmp/script" <<'END'
# every overlay on, then the controls; P writes psb-screenshot-001.png here
10 key V
11 key N
12 key F
13 key W
14 key C
15 key I
16 key I
17 key G
18 key PLUS
19 key RIGHT_BRACKET
20 key H
21 key P
30 key Z
40 key SPACE
41 key S
END
    (cd "$tmp" && "$psb" view --frames 45 --report --input-script script >report 2>err) ||
        fail "psb view failed"
    # I twice from bdf2, the last: euler, then symplectic.
    expect integrator symplectic "$tmp/report"
    expect gravity 0 "$tmp/report"
    expect gas_scale 1.25 "$tmp/report"
    expect stiffness_scale 1.25 "$tmp/report"
    expect paused 1 "$tmp/report"
    expect steps 41 "$tmp/report"
    sane
    [ -s "$tmp/psb-screenshot-001.png" ] || fail "P wrote no screenshot"
    ;;
resize)
    # Smaller and larger windows keep the layout whole: the strips beside
    # the views, the views large, the bodies in them; so do the window
    # sizes of --size.
    printf '5 resize 900 560\n' >"$tmp/script"
    view 30 --input-script "$tmp/script" --screenshot "$tmp/small.png"
    expect window 900x560 "$tmp/report"
    "$check_png" "$tmp/small.png" 900 560 || fail "the screenshot is not 900x560"
    check_layout 900 560 "after a resize"
    printf '5 resize 1920 1080\n' >"$tmp/script"
    view 30 --input-script "$tmp/script" --screenshot "$tmp/large.png"
    expect window 1920x1080 "$tmp/report"
    check_layout 1920 1080 "after a resize"
    v3=$(get view3d "$tmp/report")
    "$check_png" "$tmp/large.png" 1920 1080 "$v3:216:3000" "$v3:129:3000" "$v3:0:3000" ||
        fail "the large window does not show the three bodies"
    for size in 1024x600 640x480; do
        view 30 --size "$size" --scene pressure
        check_layout "${size%x*}" "${size#*x}" "--size $size"
        framed "--size $size"
    done
    ;;
no_display)
    env -u DISPLAY -u WAYLAND_DISPLAY "$psb" view --frames 1 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    cat "$tmp/err"
    [ $rc -eq 2 ] || fail "exit status $rc, expected 2"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "expected one line on stderr"
    grep -q 'xvfb-run' "$tmp/err" && grep -q 'psb sim' "$tmp/err" ||
        fail "the message does not say to use xvfb-run or psb sim"
    ;;
shaders)
    # A shader that does not compile: the message names the file and shows the log.
    mkdir "$tmp/shaders"
    cp "$data/../../shaders/"*.vert "$data/../../shaders/"*.frag "$tmp/shaders/"
    printf '#version 330 core\nout vec4 c;\nvoid main() { c = undefined_thing; }\n' \
        >"$tmp/shaders/mesh.frag"
    "$psb" view --frames 2 --shaders "$tmp/shaders" >/dev/null 2>"$tmp/err"
    rc=$?
    cat "$tmp/err"
    [ $rc -eq 2 ] || fail "a broken shader: exit status $rc, expected 2"
    grep -q "$tmp/shaders/mesh.frag: compile error" "$tmp/err" || fail "the file is not named"
    grep -q 'undefined_thing' "$tmp/err" || fail "the compiler's log is not shown"
    "$psb" view --frames 2 --shaders "$tmp/none" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && grep -q 'no color.vert' "$tmp/err" || fail "a missing folder: status $rc"
    # After `cmake --install`, the installed psb finds the installed shaders.
    "$cmake" --install "$build_dir" --prefix "$tmp/prefix" >/dev/null || fail "cmake --install"
    "$tmp/prefix/bin/psb" view --frames 2 --report >"$tmp/report" 2>"$tmp/err" ||
        fail "the installed psb view failed: $(cat "$tmp/err")"
    expect shader_dir "$tmp/prefix/bin/../share/psb/shaders" "$tmp/report"
    # ... and the installed meshes, the models scene's four.
    expect meshes_dir "$tmp/prefix/bin/../share/psb/meshes" "$tmp/report"
    expect model_entries 4 "$tmp/report"
    ;;
script_errors)
    printf '10 mouse_move 1 2\n12 mouse_jump 3 4\n' >"$tmp/script"
    "$psb" view --frames 2 --input-script "$tmp/script" >/dev/null 2>"$tmp/err"
    rc=$?
    cat "$tmp/err"
    [ $rc -eq 2 ] && grep -q "script:2: expected an event" "$tmp/err" ||
        fail "a bad script line: status $rc"
    "$psb" view --frames 2 --size 10x10 >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && grep -q 'size' "$tmp/err" || fail "--size 10x10 was accepted"
    "$psb" view --screenshot x.png >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && grep -q 'needs --frames' "$tmp/err" || fail "--screenshot without --frames"
    "$psb" view --help | grep -q 'input-script' || fail "the help lacks --input-script"
    ;;
scenes)
    # Every scene of the table (as `psb view --help` lists them) renders, is
    # not blank, and shows its colours where they belong.
    # (The models scene on a folder of one small model: the real ones are
    # slow under the sanitizers.)
    names=$("$psb" view --help | sed -n 's/^  [0-9][0-9]* \([a-z0-9_-]*\) .*/\1/p')
    [ "$(echo "$names" | wc -w)" -ge 7 ] || fail "the help lists too few scenes: $names"
    mkdir "$tmp/models"
    cp "$data/box.obj" "$tmp/models/"
    for name in $names; do
        view 60 --scene "$name" --screenshot "$tmp/$name.png" --meshes "$tmp/models"
        expect scene "$name" "$tmp/report"
        expect blowups 0 "$tmp/report"
        sane
        v2=$(get view2d "$tmp/report")
        v3=$(get view3d "$tmp/report")
        case $name in
        flag)
            # The red cloth and the lime pins of its two corners in 3D.
            expect spheres 0 "$tmp/report"
            expect pinned 3 "$tmp/report"
            expect wind_on 1 "$tmp/report"
            set -- "$v3:357:4000" "$v3:77:60"
            ;;
        planets)
            # The sandstone spheres: shaded in 3D, their cross-sections in 2D.
            expect spheres 4 "$tmp/report"
            # (the 3D view is pulled back to show the whole arena the balls roll in)
            set -- "$v2:35:8000:0.15:0.4" "$v3:35:4000:0.15:0.4"
            ;;
        pressure)
            # Blue, green, red: three rings on the left (lighter), three spheres on the right.
            set -- "$v2:216:1500:0.15:1" "$v2:129:1500:0.15:1" "$v2:0:1500:0.15:1" \
                "$v3:216:1500" "$v3:129:1500" "$v3:0:1500"
            ;;
        ring)
            set -- "$v2:37:4000"
            ;;
        models)
            # The ring, and the box on the ring's stage.
            expect model_name box.obj "$tmp/report"
            expect bodies 2 "$tmp/report"
            set -- "$v2:37:4000"
            ;;
        *)
            set --
            ;;
        esac
        "$check_png" "$tmp/$name.png" 1280 720 "$@" || fail "scene $name: the picture is wrong"
        check_layout 1280 720 "scene $name"
        framed "scene $name"
    done
    ;;
switch)
    # Digits and Tab switch scenes; the integrator and gravity carry over,
    # each scene brings its own wind.
    cat >"$tmp/script" <<'END'
3 key I
4 key G
5 key 2
END
    view 20 --input-script "$tmp/script"
    expect scene pressure "$tmp/report"
    expect scene_entry 1 "$tmp/report"
    expect bodies 6 "$tmp/report"
    expect integrator euler "$tmp/report"
    expect gravity 0 "$tmp/report"
    cat >"$tmp/script" <<'END'
# flag, B: no wind; Tab: planets (still air); 4: the flag again, in its wind
5 key B
6 key TAB
END
    view 12 --scene flag --input-script "$tmp/script"
    expect scene planets "$tmp/report"
    expect wind_on 0 "$tmp/report"
    printf '5 key B\n6 key TAB\n7 key 4\n' >"$tmp/script"
    view 12 --scene flag --input-script "$tmp/script"
    expect scene flag "$tmp/report"
    expect wind_on 1 "$tmp/report"
    # shift+Tab from the first scene wraps to the last, the models scene
    # (here on a folder of one small model), and Tab goes on to the first.
    mkdir "$tmp/models"
    cp "$data/box.obj" "$tmp/models/"
    printf '5 key TAB shift\n' >"$tmp/script"
    view 10 --input-script "$tmp/script" --meshes "$tmp/models"
    expect scene models "$tmp/report"
    expect scene_entry 7 "$tmp/report"
    printf '5 key TAB\n' >"$tmp/script"
    view 10 --scene models --input-script "$tmp/script" --meshes "$tmp/models"
    expect scene default "$tmp/report"
    # Loaded files are one more entry: Tab leaves them, shift+Tab reloads them.
    printf '5 drop %s\n8 key TAB\n' "$data/box.obj" >"$tmp/script"
    view 12 --input-script "$tmp/script"
    expect scene default "$tmp/report"
    expect scene_entries 9 "$tmp/report"
    printf '5 drop %s\n8 key TAB\n10 key TAB shift\n' "$data/box.obj" >"$tmp/script"
    view 14 --input-script "$tmp/script"
    expect scene files "$tmp/report"
    expect scene_entry 8 "$tmp/report"
    expect bodies 2 "$tmp/report"
    grep -q '^body1=box.obj' "$tmp/report" || fail "shift+Tab did not bring box.obj back"
    ;;
pin)
    # Grab a free point in the middle of the flag, pull it, pin it with T,
    # let go: it stays where it was pinned while the wind blows.
    cat >"$tmp/script" <<'END'
60 mouse_move_point 1 82
61 mouse_down left
62 mouse_move_by 30 20
64 mouse_move_by 30 20
66 key T
67 mouse_up left
END
    view 130 --scene flag --input-script "$tmp/script"
    grep -E '^(body1|pin|pinned|unpins|grab)' "$tmp/report"
    expect pinned 4 "$tmp/report"
    expect pins_made 1 "$tmp/report"
    expect pin_body 1 "$tmp/report"
    expect pin_point 82 "$tmp/report"
    expect pin_pinned 1 "$tmp/report"
    grep -q '^body1=.* pinned=3 ' "$tmp/report" || fail "the flag does not hold 3 pins"
    moved=$(distance "$(get pin_at "$tmp/report")" "$(get pin_position "$tmp/report")")
    awk -v d="$moved" 'BEGIN { exit !(d < 1e-9) }' || fail "the pinned point moved $moved m"
    sane
    # T on a pin's marker under the cursor (nothing held) frees it again, even
    # where the cloth folds over the point;
    # so does T while holding one.
    cat >"$tmp/script" <<'END'
60 mouse_move_point 1 82
61 mouse_down left
62 mouse_move_by 30 20
64 key T
65 mouse_up left
80 mouse_move_point 1 82
81 key T
END
    view 90 --scene flag --input-script "$tmp/script"
    expect pinned 3 "$tmp/report"
    expect unpins 1 "$tmp/report"
    expect pin_pinned 0 "$tmp/report"
    printf '60 mouse_move_point 1 82\n61 mouse_down left\n62 key T\n64 key T\n65 mouse_up left\n' \
        >"$tmp/script"
    view 70 --scene flag --input-script "$tmp/script"
    expect pins_made 1 "$tmp/report"
    expect unpins 1 "$tmp/report"
    expect pinned 3 "$tmp/report"
    # Dragging a pinned corner moves its pin with the cursor.
    cat >"$tmp/script" <<'END'
30 mouse_move_point 1 0 3 3
31 mouse_down left
32 mouse_move_by 40 0
34 mouse_move_by 40 0
36 mouse_move_by 40 0
38 mouse_up left
END
    view 60 --scene flag --input-script "$tmp/script"
    expect pinned 3 "$tmp/report"
    expect pin_point 0 "$tmp/report"
    awk -F'[=,]' '/^pin_position=/ { exit !($2 > -0.4) }' "$tmp/report" ||
        fail "the corner's pin did not follow the cursor to the right: $(get pin_position "$tmp/report")"
    # With nothing held and nothing under the cursor, T says what to do.
    printf '5 mouse_move 1200 150\n6 key T\n' >"$tmp/script"
    view 10 --scene flag --input-script "$tmp/script"
    grep -q '^message=T: grab a point first' "$tmp/report" || fail "T without a point: no hint"
    expect pinned 3 "$tmp/report"
    ;;
shape)
    # M: shape matching on for every body (the configured k and rate), then off.
    printf '5 key M\n' >"$tmp/script"
    view 10 --input-script "$tmp/script"
    [ "$(grep -c '^body[0-9]*=.* shape_k=60 shape_damping=3 ' "$tmp/report")" -eq 4 ] ||
        fail "M did not switch shape matching on for the 4 bodies"
    printf '5 key M\n7 key M\n' >"$tmp/script"
    view 10 --input-script "$tmp/script" --shape-k 80 --shape-damping 2
    [ "$(grep -c '^body[0-9]*=.* shape_k=0 shape_damping=0 ' "$tmp/report")" -eq 4 ] ||
        fail "a second M did not switch it off"
    printf '5 key M\n' >"$tmp/script"
    view 10 --input-script "$tmp/script" --shape-k 80 --shape-damping 2
    [ "$(grep -c '^body[0-9]*=.* shape_k=80 shape_damping=2 ' "$tmp/report")" -eq 4 ] ||
        fail "M did not use --shape-k 80 --shape-damping 2"
    # The shape scene mixes on purpose: M switches all off, then all on.
    view 5 --scene shape
    [ "$(grep -c '^body[0-9]*=.* shape_k=0 ' "$tmp/report")" -eq 2 ] ||
        fail "the shape scene should build 2 bodies without shape matching"
    printf '3 key M\n' >"$tmp/script"
    view 5 --scene shape --input-script "$tmp/script"
    [ "$(grep -c '^body[0-9]*=.* shape_k=0 shape_damping=0 ' "$tmp/report")" -eq 6 ] ||
        fail "M in the shape scene did not switch every body off"
    printf '3 key M\n4 key M\n' >"$tmp/script"
    view 5 --scene shape --input-script "$tmp/script"
    [ "$(grep -c '^body[0-9]*=.* shape_k=60 shape_damping=3 ' "$tmp/report")" -eq 6 ] ||
        fail "M twice in the shape scene did not switch every body on"
    ;;
contact)
    # The pile (small bodies, to be quick): the bodies touch and the HUD
    # counts the contacts; K turns contact between bodies off (and the
    # count with it), and a scene change keeps it off.
    small="--subdiv 1 --ring-points 16"
    # shellcheck disable=SC2086
    view 150 --scene pile $small
    expect body_contact 1 "$tmp/report"
    n=$(get contacts "$tmp/report")
    echo "the pile after 150 frames: $n contacts"
    [ "${n:-0}" -gt 20 ] || fail "the pile has $n contacts after 2.5 s"
    # Contact inside the solve is on by default: the bodies are linked;
    # --no-contact-solve leaves it to the stage.
    expect contact_solve 1 "$tmp/report"
    expect full_list_steps 0 "$tmp/report"
    n=$(get put_back "$tmp/report")
    [ "${n:--1}" -ge 0 ] || fail "the report has no put_back count ('$n')"
    # The viewer's pile steps to the same bits as psb sim's: the same
    # contacts, links and points put back after 100 frames (its balls keep
    # the stiffness the scene built them with, not one made again).
    view 100 --scene pile
    "$psb" sim --scene pile --steps 100 --summary >"$tmp/sim" 2>"$tmp/err" ||
        fail "psb sim --scene pile --steps 100 failed"
    [ "$(get contacts "$tmp/sim")" -gt 0 ] 2>/dev/null ||
        fail "psb sim's pile has no contacts after 100 steps to compare"
    for key in contacts links put_back; do
        [ "$(get $key "$tmp/report")" = "$(get $key "$tmp/sim")" ] ||
            fail "the viewer's pile after 100 frames: $key=$(get $key "$tmp/report"), psb sim's $(get $key "$tmp/sim")"
    done
    n=$(get links "$tmp/report")
    [ "${n:-0}" -gt 20 ] || fail "the pile has $n links after 2.5 s"
    # shellcheck disable=SC2086
    view 30 --scene pile $small --no-contact-solve
    expect contact_solve 0 "$tmp/report"
    expect links 0 "$tmp/report"
    # A file dropped in the pile scene lands on a new pile: its bodies and
    # the box's, above the pile's top.
    printf '2 drop %s\n' "$data/box.obj" >"$tmp/script"
    # shellcheck disable=SC2086
    view 40 --scene pile $small --input-script "$tmp/script"
    expect scene files "$tmp/report"
    expect bodies 25 "$tmp/report"
    grep -q "^body24=box" "$tmp/report" || fail "the dropped box is not the pile's 25th body"
    # --balls 50: the stress test's 62 bodies, every one in the report (the
    # table has room for some and says how many more there are), and after
    # 10 s the plots full of all their lines, none left out. (The stage
    # alone, contact inside the solve off: this is the table and the plots,
    # and the solve costs half as much again, too near the timeout with
    # sanitizers.)
    # shellcheck disable=SC2086
    view 610 --scene pile --balls 50 $small --no-contact-solve
    expect bodies 62 "$tmp/report"
    expect dropped_vertices 0 "$tmp/report"
    grep -q "^body61=ball 50 volume=" "$tmp/report" || fail "--balls 50: no ball 50 in the report"
    printf '2 key K\n' >"$tmp/script"
    # shellcheck disable=SC2086
    view 150 --scene pile $small --input-script "$tmp/script"
    expect body_contact 0 "$tmp/report"
    expect contacts 0 "$tmp/report"
    grep -q "^message=contact between bodies off" "$tmp/report" ||
        fail "K says nothing: $(get message "$tmp/report")"
    printf '2 key K\n4 key 1\n' >"$tmp/script"
    view 6 --input-script "$tmp/script"
    expect scene default "$tmp/report"
    expect body_contact 0 "$tmp/report"
    # --no-body-contact starts with it off; K turns it on.
    view 3 --no-body-contact
    expect body_contact 0 "$tmp/report"
    printf '1 key K\n' >"$tmp/script"
    view 3 --no-body-contact --input-script "$tmp/script"
    expect body_contact 1 "$tmp/report"
    # Shift+K with the cursor on a body: that body alone out of contact
    # (the others and the world's switch as they were); again: back in. R
    # keeps it; with nothing under the cursor it says what to do.
    printf '2 mouse_move_body 5\n3 key K shift\n4 key R\n' >"$tmp/script"
    # shellcheck disable=SC2086
    view 6 --scene pile $small --input-script "$tmp/script"
    expect body5_contact 0 "$tmp/report"
    expect body4_contact 1 "$tmp/report"
    expect body_contact 1 "$tmp/report"
    printf '2 mouse_move_body 5\n3 key K shift\n' >"$tmp/script"
    # shellcheck disable=SC2086
    view 5 --scene pile $small --input-script "$tmp/script"
    grep -q "^message=ring 6 (2D): contact off" "$tmp/report" ||
        fail "shift+K on ring 6 says: $(get message "$tmp/report")"
    printf '2 mouse_move_body 5\n3 key K shift\n4 key K shift\n' >"$tmp/script"
    # shellcheck disable=SC2086
    view 6 --scene pile $small --input-script "$tmp/script"
    expect body5_contact 1 "$tmp/report"
    printf '2 mouse_move 5 300\n3 key K shift\n' >"$tmp/script"
    # shellcheck disable=SC2086
    view 5 --scene pile $small --input-script "$tmp/script"
    grep -q "^message=shift+K: point at a body" "$tmp/report" ||
        fail "shift+K on nothing says: $(get message "$tmp/report")"
    [ "$(grep -c '^body[0-9]*_contact=0' "$tmp/report")" -eq 0 ] ||
        fail "shift+K on nothing switched a body off"
    ;;
wind)
    # B: the configured wind (the flag's by default) on and off; it pushes the ring.
    view 90
    expect wind_on 0 "$tmp/report"
    still=$(get body0_centroid "$tmp/report")
    printf '1 key B\n' >"$tmp/script"
    view 90 --input-script "$tmp/script"
    expect wind_on 1 "$tmp/report"
    expect wind 6.000000,0.000000,0.000000 "$tmp/report"
    expect wind_turbulence 2 "$tmp/report"
    blown=$(get body0_centroid "$tmp/report")
    echo "ring centre: still air $still, wind $blown"
    awk -v a="$still" -v b="$blown" 'BEGIN { split(a, p, ","); split(b, q, ",");
        exit !(q[1] > p[1] + 0.1) }' || fail "the wind did not push the ring along +x"
    printf '1 key B\n3 key B\n' >"$tmp/script"
    view 5 --input-script "$tmp/script"
    expect wind_on 0 "$tmp/report"
    expect wind 0.000000,0.000000,0.000000 "$tmp/report"
    # --wind blows in every scene; B in the flag scene stops it.
    view 5 --wind 1,2,3 --wind-turbulence 0.5 --wind-drag 2
    expect wind 1.000000,2.000000,3.000000 "$tmp/report"
    expect wind_turbulence 0.5 "$tmp/report"
    grep -q '^body1=.* wind_drag=2$' "$tmp/report" || fail "--wind-drag 2 not in force"
    printf '3 key B\n' >"$tmp/script"
    view 5 --scene flag --input-script "$tmp/script" --wind 1,2,3
    expect wind_on 0 "$tmp/report"
    printf '3 key B\n4 key B\n' >"$tmp/script"
    view 5 --scene flag --input-script "$tmp/script" --wind 1,2,3
    expect wind 1.000000,2.000000,3.000000 "$tmp/report"
    ;;
options)
    # Bad values of the new options: one line that names the option.
    for bad in "--wind 1,2" "--wind 1,2,x" "--wind-turbulence -1" "--shape-k 0" \
        "--shape-damping -2" "--wind-drag -1" "--scene nowhere"; do
        # shellcheck disable=SC2086
        "$psb" view --frames 1 $bad >/dev/null 2>"$tmp/err"
        rc=$?
        option=${bad%% *}
        [ $rc -eq 2 ] || fail "$bad: exit status $rc, expected 2"
        [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$option" "$tmp/err" ||
            fail "$bad: expected one line naming $option, got: $(cat "$tmp/err")"
    done
    "$psb" view --frames 1 --scene nowhere 2>&1 | grep -q 'planets' ||
        fail "--scene nowhere does not list the scenes"
    "$psb" view --help >"$tmp/help"
    for name in default pressure shape flag planets ring pile models; do
        grep -q "^  [0-9] $name " "$tmp/help" || fail "the help does not list the scene $name"
    done
    ;;
export)
    # E writes every body as it is now, one OBJ file each, into the current
    # folder or --export-dir, named by the world step, as psb sim does.
    printf '10 key E\n' >"$tmp/script"
    (cd "$tmp" && "$psb" view --frames 15 --report --input-script script >report 2>err) ||
        fail "psb view failed"
    cat "$tmp/err"
    files=$(cd "$tmp" && ls body*_step*.obj 2>/dev/null | tr '\n' ' ')
    step=$(echo "$files" | sed -n 's/^body0_step\([0-9]\{6\}\)\.obj .*/\1/p')
    [ -n "$step" ] || fail "E wrote no body0_stepNNNNNN.obj: '$files'"
    want="body0_step$step.obj body1_step$step.obj body2_step$step.obj body3_step$step.obj "
    [ "$files" = "$want" ] || fail "E wrote '$files', expected '$want'"
    grep -q "^message=export: wrote 4 files: \./body0_step$step\.obj" "$tmp/report" ||
        fail "the HUD does not say what E wrote: $(get message "$tmp/report")"
    # The default scene: the ring of 48 points as one closed polyline, three
    # level 3 icospheres of 642 points and 1280 triangles.
    ring="$tmp/body0_step$step.obj"
    [ "$(grep -c '^v ' "$ring")" -eq 48 ] || fail "the ring's file has not 48 v lines"
    awk '$1 == "l" { if (NF != 50 || $2 != 1 || $49 != 48 || $50 != 1) exit 1; n++ }
        END { exit n != 1 }' "$ring" || fail "the ring's file has no closed l line"
    for b in 1 2 3; do
        sphere="$tmp/body${b}_step$step.obj"
        [ "$(grep -c '^v ' "$sphere")" -eq 642 ] || fail "body $b's file has not 642 v lines"
        [ "$(grep -c '^f ' "$sphere")" -eq 1280 ] || fail "body $b's file has not 1280 f lines"
    done
    # --export-dir: the flag scene's two bodies go there; a missing folder is refused.
    mkdir "$tmp/out"
    view 15 --scene flag --input-script "$tmp/script" --export-dir "$tmp/out"
    [ "$(ls "$tmp/out" | wc -l)" -eq 2 ] || fail "E with --export-dir wrote $(ls "$tmp/out")"
    grep -q "^message=export: wrote 2 files: $tmp/out/body0_step" "$tmp/report" ||
        fail "the HUD does not name the --export-dir file"
    "$psb" view --frames 1 --export-dir "$tmp/nowhere" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "--export-dir into a missing folder: exit status $rc, expected 2"
    grep -q -- "--export-dir: folder '.*nowhere': does not exist" "$tmp/err" ||
        fail "--export-dir into a missing folder: $(cat "$tmp/err")"
    ;;
legend)
    # The pressure and shape scenes: the plots' legend lists all 6 bodies; no
    # two share a colour; ring k and 3D body k + 3 share a hue, the ring
    # lighter, its line dashed where the 3D body's is solid; the legend
    # shows the three hues. The planets scene likewise pairs its two rings
    # with the first two of its three balls (ring k drops where ball k does).
    # paired COLOURS PAIRS: each pair "A:B" of lines (1-based) of COLOURS
    # has one hue, A lighter.
    paired() {
        awk -F, -v pairs="$2" 'function hue(r, g, b,   mx, mn) {
                mx = r > g ? (r > b ? r : b) : (g > b ? g : b)
                mn = r < g ? (r < b ? r : b) : (g < b ? g : b)
                if (mx == r) return (60 * (g - b) / (mx - mn) + 360) % 360
                if (mx == g) return 60 * (b - r) / (mx - mn) + 120
                return 60 * (r - g) / (mx - mn) + 240 }
            { h[NR] = hue($1, $2, $3); sum[NR] = $1 + $2 + $3 }
            END { n = split(pairs, list, " ")
                for (k = 1; k <= n; k++) {
                    split(list[k], ab, ":"); a = ab[1]; b = ab[2]
                    d = h[a] - h[b]; d = d < 0 ? -d : d
                    if (d > 1 || sum[a] <= sum[b] + 0.2) exit 1 } }' "$1"
    }
    for name in pressure shape planets; do
        view 30 --scene "$name" --screenshot "$tmp/$name.png"
        grep -E '^(legend|body[0-9]_(color|line))' "$tmp/report"
        rings=3 bodies=6 pairs="1:4 2:5 3:6"
        [ "$name" = planets ] && rings=2 bodies=5 pairs="1:3 2:4"
        expect legend "$(seq -s, 0 $((bodies - 1)))" "$tmp/report"
        for b in $(seq 0 $((bodies - 1))); do
            line=solid
            [ "$b" -lt "$rings" ] && line=dashed
            expect "body${b}_line" "$line" "$tmp/report"
        done
        sed -n 's/^body[0-9]*_color=//p' "$tmp/report" >"$tmp/colours"
        [ "$(sort -u "$tmp/colours" | wc -l)" -eq "$bodies" ] || fail "$name: bodies share a colour"
        paired "$tmp/colours" "$pairs" ||
            fail "$name: a ring does not share its 3D partner's hue, lighter: $(cat "$tmp/colours")"
        legend=$(get legend_rect "$tmp/report")
        hues="216 129 0"
        [ "$name" = shape ] && hues="216 32 129"
        set --
        for h in $hues; do set -- "$@" "$legend:$h:60:0.15:1"; done
        "$check_png" "$tmp/$name.png" 1280 720 "$@" || fail "$name: the legend lacks a colour"
    done
    # The pile's 24 bodies: every one has a row in the body table (the
    # compact table, in groups side by side) and --report says so; each name
    # whole, inside the table, in its own place and drawn in its colour;
    # nothing cut short.
    view 30 --scene pile --screenshot "$tmp/pile.png"
    all=$(seq -s, 0 23)
    expect legend "$all" "$tmp/report"
    expect table_shown "$all" "$tmp/report"
    expect text_cut 0 "$tmp/report"
    table=$(get table "$tmp/report")
    set --
    for b in $(seq 0 23); do
        at=$(get "body${b}_table_name_at" "$tmp/report")
        inside "$table" "$(echo "$at" | awk -F, '{ print $1 "," $2 "," $1 + $3 "," $2 + $4 }')" ||
            fail "pile: body $b's name at '$at' is not in the table $table"
        label=$(sed -n "s/^body$b=\(.*\) volume=.*/\1/p" "$tmp/report")
        expect "body${b}_table_name" "$label" "$tmp/report"
        echo "$at"
        hue=$(get "body${b}_color" "$tmp/report" | awk -F, '{ r = $1; g = $2; b = $3
            mx = r > g ? (r > b ? r : b) : (g > b ? g : b)
            mn = r < g ? (r < b ? r : b) : (g < b ? g : b)
            if (mx == r) h = (60 * (g - b) / (mx - mn) + 360) % 360
            else if (mx == g) h = 60 * (b - r) / (mx - mn) + 120
            else h = 60 * (r - g) / (mx - mn) + 240
            printf "%.0f\n", h }')
        set -- "$@" "$at:$hue:8:0.2:1"
    done >"$tmp/places"
    [ "$(sort -u "$tmp/places" | wc -l)" -eq 24 ] || fail "pile: two names share a place"
    "$check_png" "$tmp/pile.png" 1280 720 "$@" || fail "pile: a name is not drawn in its colour"
    ;;
hud)
    # The help names as many digit keys as there are scenes.
    "$psb" view --help >"$tmp/help"
    scenes=$(grep -c '^  [0-9][0-9]* [a-z]' "$tmp/help")
    grep -q "keys 1-$scenes in the window" "$tmp/help" || fail "the help does not say keys 1-$scenes"
    grep -q '1-9' "$tmp/help" && fail "the help still says 1-9"
    # Explicit Euler at two sub-steps blows up (exit status 3): the HUD shows
    # the report whole.
    want_rc=3
    view 60 --integrator euler --substeps 2
    grep -q '^blowup_shown=body [0-9]* blew up at' "$tmp/report" || fail "no blow-up line"
    expect text_cut 0 "$tmp/report"
    # It clears after a switch to a stable integrator (shift+I: bdf2), and after R.
    printf '40 key I shift\n' >"$tmp/script"
    view 60 --integrator euler --substeps 2 --input-script "$tmp/script"
    expect integrator bdf2 "$tmp/report"
    expect blowup_shown "" "$tmp/report"
    printf '40 key SPACE\n41 key R\n' >"$tmp/script"
    view 60 --integrator euler --substeps 2 --input-script "$tmp/script"
    expect blowup_shown "" "$tmp/report"
    want_rc=0
    # A message expires: G's is shown at once, gone 6 s later.
    printf '5 key G\n' >"$tmp/script"
    view 20 --scene ring --input-script "$tmp/script"
    expect message "gravity off" "$tmp/report"
    expect message_shown 1 "$tmp/report"
    view 380 --scene ring --input-script "$tmp/script"
    expect message "gravity off" "$tmp/report"
    expect message_shown 0 "$tmp/report"
    # The figures come from one window of frames: the physics' part of a
    # frame is at most the frame, and slow motion is said only below real time.
    view 90 --realtime
    grep '^hud_' "$tmp/report"
    expect hud_measured 1 "$tmp/report"
    awk -F= '/^hud_frame_ms=/ { f = $2 } /^hud_physics_ms=/ { p = $2 }
        /^hud_sim_speed=/ { v = $2 } /^hud_slow_motion=/ { slow = $2 }
        END { exit !(p <= f && f > 0 && (slow == 0 || v < 0.95)) }' "$tmp/report" ||
        fail "the HUD's figures contradict each other"
    ;;
orbit_rate)
    # Orbit at 0.4 degrees a pixel, as Blender's: a 60 px drag turns the camera
    # by 24 degrees (0.418879 rad); 60 px up lowers it by as much, and the eye
    # stays above the floor; a wheel step zooms by 1.2.
    view 5
    yaw0=$(get camera_yaw "$tmp/report")
    pitch0=$(get camera_pitch "$tmp/report")
    distance0=$(get camera_distance "$tmp/report")
    printf '10 mouse_move 1200 500\n11 mouse_down left\n12 mouse_move_by 60 0\n13 mouse_up left\n' \
        >"$tmp/script"
    view 15 --input-script "$tmp/script"
    awk -v a="$yaw0" -v b="$(get camera_yaw "$tmp/report")" \
        'BEGIN { d = a - b - 0.418879; exit !(d < 1e-5 && d > -1e-5) }' ||
        fail "a 60 px drag right turned the yaw from $yaw0 to $(get camera_yaw "$tmp/report")"
    printf '10 mouse_move 1200 500\n11 mouse_down left\n12 mouse_move_by 0 -60\n13 mouse_up left\n' \
        >"$tmp/script"
    view 15 --input-script "$tmp/script"
    pitch=$(get camera_pitch "$tmp/report")
    awk -v a="$pitch0" -v b="$pitch" 'BEGIN { d = a - b - 0.418879; exit !(d < 1e-5 && d > -1e-5) }' ||
        fail "a 60 px drag up tilted the pitch from $pitch0 to $pitch"
    awk -v p="$pitch" 'BEGIN { exit !(p > 0.05) }' || fail "60 px brought the eye down to $pitch rad"
    printf '10 mouse_move 1200 500\n11 scroll 1\n' >"$tmp/script"
    view 15 --input-script "$tmp/script"
    awk -v a="$distance0" -v b="$(get camera_distance "$tmp/report")" \
        'BEGIN { d = a / 1.2 - b; exit !(d < 1e-4 && d > -1e-4) }' ||
        fail "a wheel step zoomed from $distance0 to $(get camera_distance "$tmp/report")"
    ;;
frame_models)
    # A loaded model is framed once, on load, for its whole run: the box from
    # the floor to its top as it starts (it swells in the air, drops, lands
    # and rests where it is) fills 70-85 % of the 3D view's height or width
    # and lies inside the view; the camera then stays where it is, and the
    # model is drawn inside the view all the run long (framed), from its
    # first frame high in the air to its rest; at rest it still fills a
    # quarter of the view. A long box, 2.5 times deeper (along z) than wide,
    # is seen from its side (yaw 90 degrees), not end-on, as the rocker arm
    # is; Z frames the box where it rests again after an orbit and a zoom.
    # (Small meshes: this runs under the sanitizers too; models_real checks
    # Spot's drop.)
    fills() { # fills WHAT LO HI: the framed box covers LO..HI of the view, inside it
        grep -E '^(camera|bodies3d|framed3d)' "$tmp/report"
        awk -F'[=,]' -v lo="$2" -v hi="$3" '/^framed3d_cover=/ { c = $2 }
            /^framed3d_ndc=/ { inside = $2 > -0.98 && $3 > -0.98 && $4 < 0.98 && $5 < 0.98 }
            END { exit !(c >= lo && c <= hi && inside) }' "$tmp/report" ||
            fail "$1: the framed box covers $(get framed3d_cover "$tmp/report") of the view" \
                "at $(get framed3d_ndc "$tmp/report")"
    }
    awk '/^v / { print "v", $2, $3, 2.5 * $4; next } { print }' "$data/box.obj" >"$tmp/long.obj"
    view 2 "$tmp/long.obj"
    camera_start=$(grep '^camera' "$tmp/report")
    view 120 "$tmp/long.obj"
    expect camera_yaw 1.570796 "$tmp/report"
    expect camera_pitch 0.500000 "$tmp/report"
    [ "$(grep '^camera' "$tmp/report")" = "$camera_start" ] || fail "the camera moved by itself"
    fills "the long box on load" 0.7 0.85
    framed "the long box's drop"
    awk -F= '/^bodies3d_cover=/ { exit !($2 >= 0.25) }' "$tmp/report" ||
        fail "the long box at rest covers only $(get bodies3d_cover "$tmp/report") of the view"
    awk -F'[=,]' '/^bodies3d_lo=/ { exit !($3 < 0.01) }' "$tmp/report" ||
        fail "the long box has not landed: $(get bodies3d_lo "$tmp/report")"
    sane
    # A cube is as deep as wide: seen from the front, and so again after
    # an orbit, a zoom and Z, which frames it where it rests.
    cat >"$tmp/script" <<'END'
100 mouse_move 1250 480
101 mouse_down left
102 mouse_move_by 80 40
103 mouse_up left
104 scroll -3
140 key Z
END
    view 150 "$data/box.obj" --input-script "$tmp/script"
    expect camera_yaw 0.000000 "$tmp/report"
    expect camera_pitch 0.500000 "$tmp/report"
    fills "the box after Z" 0.7 0.85
    awk -F= '/^bodies3d_cover=/ { exit !($2 >= 0.6) }' "$tmp/report" ||
        fail "Z framed the box at rest to cover only $(get bodies3d_cover "$tmp/report")"
    # Several models at once stand side by side (along x, 1 m apart at
    # least: more than the two fitted radii), and are framed together.
    view 120 "$data/box.obj" "$tmp/long.obj"
    expect bodies 3 "$tmp/report"
    awk -F'[=,]' '/^body1_centroid=/ { x1 = $2; z1 = $4 } /^body2_centroid=/ { x2 = $2; z2 = $4 }
        END { dx = x1 - x2; dz = z1 - z2
            exit !((dx > 1 || dx < -1) && dz < 0.1 && dz > -0.1) }' "$tmp/report" ||
        fail "the two models are not side by side: $(grep '^body[12]_centroid' "$tmp/report")"
    fills "two models" 0.7 0.85
    framed "two models' drop"
    sane
    ;;
models)
    # The models scene shows the OBJ files of its folder (--meshes) one at a
    # time, sorted by name, on the ring's stage: '.' the next, ',' the
    # previous, both wrapping; each loaded as `psb view FILE` loads it, with
    # its holes filled. The HUD's title row says which of how many, and
    # its name. A file that does not load, an empty or a missing folder:
    # said in the HUD and on stderr, and the ring runs on. Small models: this
    # runs under the sanitizers too (models_real loads Spot).
    mkdir "$tmp/models" "$tmp/empty"
    cp "$data/box.obj" "$tmp/models/b-box.obj"
    cp "$data/box.obj" "$tmp/models/a-box.obj"
    awk '/^f/ && !open { open = 1; next } { print }' "$data/box.obj" >"$tmp/models/c-open.obj"
    cp "$data/bad.obj" "$tmp/models/d-bad.obj"
    echo "not a model" >"$tmp/models/notes.txt"
    view 20 --scene models --meshes "$tmp/models"
    expect scene models "$tmp/report"
    expect scene_entry 7 "$tmp/report"
    expect meshes_dir "$tmp/models" "$tmp/report"
    expect model_entries 4 "$tmp/report"
    expect model_entry 0 "$tmp/report"
    expect model_name a-box.obj "$tmp/report"
    expect integrator implicit "$tmp/report"
    grep -q '^body0=ring (2D) ' "$tmp/report" || fail "the ring is not on the stage"
    grep -q '^body1=a-box.obj ' "$tmp/report" || fail "a-box.obj is not body 1"
    case $(get title_shown "$tmp/report") in
    "scene 8/8 models: model 1/4 a-box.obj "*) ;;
    *) fail "the HUD's title row says '$(get title_shown "$tmp/report")'" ;;
    esac
    grep -E '^(body|camera)' "$tmp/report" >"$tmp/scene_model"
    view 20 "$tmp/models/a-box.obj"
    grep -E '^(body|camera)' "$tmp/report" | diff "$tmp/scene_model" - ||
        fail "the models scene does not load a-box.obj as psb view a-box.obj does"
    # '.' twice: the open box, its hole filled.
    printf '5 key PERIOD\n8 key PERIOD\n' >"$tmp/script"
    view 12 --scene models --meshes "$tmp/models" --input-script "$tmp/script"
    expect model_entry 2 "$tmp/report"
    expect model_name c-open.obj "$tmp/report"
    expect bodies 2 "$tmp/report"
    expect load_errors 0 "$tmp/report"
    grep -q '^message=model 3/4: c-open.obj, 1 body, 8 points (.*filled 1 holes)' "$tmp/report" ||
        fail "the open box: $(get message "$tmp/report")"
    # ',' from the first: the last, which does not load; the ring runs on.
    printf '5 key COMMA\n' >"$tmp/script"
    view 40 --scene models --meshes "$tmp/models" --input-script "$tmp/script"
    cat "$tmp/err"
    expect model_entry 3 "$tmp/report"
    expect model_name d-bad.obj "$tmp/report"
    expect bodies 1 "$tmp/report"
    expect load_errors 1 "$tmp/report"
    expect message_shown 1 "$tmp/report"
    grep -q "^message=model 4/4: $tmp/models/d-bad.obj:5: " "$tmp/report" ||
        fail "the HUD does not say why d-bad.obj did not load: $(get message "$tmp/report")"
    [ "$(grep -c "^psb view: model 4/4: .*d-bad.obj:5: " "$tmp/err")" -eq 1 ] ||
        fail "stderr does not say once why d-bad.obj did not load"
    expect title_shown "scene 8/8 models: model 4/4 d-bad.obj (not loaded)   '.' and ',': the next and the previous" "$tmp/report"
    awk -F= '/^sim_time=/ { exit !($2 > 0.5) }' "$tmp/report" || fail "the ring stopped"
    sane
    # ... and '.' from there wraps to the first.
    printf '5 key COMMA\n7 key PERIOD\n' >"$tmp/script"
    view 10 --scene models --meshes "$tmp/models" --input-script "$tmp/script"
    expect model_name a-box.obj "$tmp/report"
    expect bodies 2 "$tmp/report"
    # Key 7 shows the scene; '.' elsewhere only says how to get there;
    # files dropped in it go back to it, at the same model, on Backspace.
    printf '3 key PERIOD\n' >"$tmp/script"
    view 5 --input-script "$tmp/script" --meshes "$tmp/models"
    expect scene default "$tmp/report"
    grep -q "^message='.' and ',' step through the models scene's models: 8 shows it" \
        "$tmp/report" || fail "'.' outside the models scene: $(get message "$tmp/report")"
    printf '3 key 8\n5 key PERIOD\n7 drop %s\n9 key BACKSPACE\n' "$data/box.obj" >"$tmp/script"
    view 12 --input-script "$tmp/script" --meshes "$tmp/models"
    expect scene models "$tmp/report"
    expect model_name b-box.obj "$tmp/report"
    # (Backspace in the models scene itself loads nothing again: the world
    # runs on as without it.)
    printf '3 key 8\n5 key PERIOD\n' >"$tmp/script"
    view 12 --input-script "$tmp/script" --meshes "$tmp/models"
    steps=$(get steps "$tmp/report")
    printf '3 key 8\n5 key PERIOD\n10 key BACKSPACE\n' >"$tmp/script"
    view 12 --input-script "$tmp/script" --meshes "$tmp/models"
    expect steps "$steps" "$tmp/report"
    # A missing folder and one without OBJ files: the ring alone, and why.
    for dir in "$tmp/none" "$tmp/empty"; do
        view 30 --scene models --meshes "$dir"
        cat "$tmp/err"
        expect scene models "$tmp/report"
        expect bodies 1 "$tmp/report"
        expect model_entries 0 "$tmp/report"
        expect model_entry -1 "$tmp/report"
        expect message_shown 1 "$tmp/report"
        awk -F= '/^sim_time=/ { exit !($2 > 0.3) }' "$tmp/report" || fail "$dir: the ring stopped"
        [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$dir: expected one line on stderr"
    done
    grep -q "^message=models: $tmp/empty: no OBJ files (\*\.obj) in the folder" "$tmp/report" ||
        fail "an empty folder: $(get message "$tmp/report")"
    view 3 --scene models --meshes "$tmp/none"
    grep -q "^psb view: models: --meshes $tmp/none: No such file or directory" "$tmp/err" ||
        fail "a missing folder: $(cat "$tmp/err")"
    ;;
models_real)
    # Without --meshes the models scene finds the source tree's meshes/
    # (the installed one: the shaders test); one short run of Spot, from a
    # folder of its own, framed from its side (it is deeper than wide) for
    # its whole drop; a name too long for the HUD's title row is
    # shortened in the middle there.
    view 1
    expect meshes_dir "$(cd "$data/../.." && pwd)/meshes" "$tmp/report"
    expect model_entries "$(ls "$data/../../meshes/"*.obj | wc -l)" "$tmp/report"
    mkdir "$tmp/spot"
    cp "$data/../../meshes/spot.obj" "$tmp/spot/"
    view 20 --scene models --meshes "$tmp/spot"
    expect model_name spot.obj "$tmp/report"
    expect bodies 2 "$tmp/report"
    expect camera_yaw 1.570796 "$tmp/report"
    # ... all of it in the view from its first frame, high in the air (it
    # once showed only its feet).
    framed "Spot's start"
    grep -q '^message=model 1/1: spot.obj, 1 body, 2930 points ' "$tmp/report" ||
        fail "Spot: $(get message "$tmp/report")"
    expect blowups 0 "$tmp/report"
    sane
    mkdir "$tmp/long"
    long=a-model-with-a-name-far-too-long-for-the-title-row-of-the-hud-so-it-is-shortened.obj
    cp "$data/box.obj" "$tmp/long/$long"
    view 3 --scene models --meshes "$tmp/long"
    expect model_name "$long" "$tmp/report"
    expect text_cut 0 "$tmp/report"
    case $(get title_shown "$tmp/report") in
    "scene 8/8 models: model 1/1 a-model-with"*...*"-shortened.obj") ;;
    *) fail "the title row shows '$(get title_shown "$tmp/report")'" ;;
    esac
    ;;
readme)
    # The README's examples of scripted input run as written, here in this
    # test's X server with this build's psb for build/psb: every block of
    # shell code that runs `build/psb view` with --input-script, and what
    # each prints is what it says.
    awk '/^```sh$/ { block = ""; inside = 1; next }
        /^```$/ && inside { if (block ~ /build\/psb view/ && block ~ /--input-script/) print block
            inside = 0; next }
        inside { block = block $0 "\n" }' "$data/../../README.md" |
        sed 's|xvfb-run -a -s "-screen 0 1280x720x24" build/psb|"$psb"|' >"$tmp/readme.sh"
    cat "$tmp/readme.sh"
    [ "$(grep -c '^"$psb" view' "$tmp/readme.sh")" -ge 2 ] || fail "the README's examples are not found"
    (cd "$tmp" && psb="$psb" sh -e readme.sh) >"$tmp/out" 2>"$tmp/err" ||
        fail "the README's examples failed: $(cat "$tmp/err")"
    cat "$tmp/out"
    grep -q '^grab_body=2$' "$tmp/out" || fail "the drag example does not hold body 2"
    grep -q '^pins_made=1$' "$tmp/out" && grep -q '^pin_pinned=1$' "$tmp/out" ||
        fail "the pin example pinned nothing"
    [ -s "$tmp/drag.png" ] || fail "the drag example wrote no drag.png"
    ;;
table_names)
    # A name too long for the body table's column is shortened in the middle,
    # both ends kept, within the column; the cursor on it shows it whole.
    long="$tmp/a-model-with-a-rather-long-name.obj"
    cp "$data/box.obj" "$long"
    view 5 "$long"
    at=$(get body1_table_name_at "$tmp/report")
    echo "the name is at $at"
    inside "$(get table "$tmp/report")" "$(echo "$at" | awk -F, '{ print $1 "," $2 "," $1 + $3 "," $2 + $4 }')" ||
        fail "the name at $at is not in the table $(get table "$tmp/report")"
    echo "$at" | awk -F, '{ printf "10 mouse_move %d %d\n", $1 + $3 / 2, $2 + $4 / 2 }' >"$tmp/script"
    view 20 "$long" --input-script "$tmp/script"
    grep -E '^(body1_table|tooltip)' "$tmp/report"
    name=$(get body1_table_name "$tmp/report")
    case $name in
    a-model*...*.obj) ;;
    *) fail "the table shows '$name', not a-model...obj" ;;
    esac
    awk -F'[=,]' '/^body1_table_name_px=/ { exit !($2 <= $3 && $2 > 0.8 * $3) }' "$tmp/report" ||
        fail "the name does not fill its column: $(get body1_table_name_px "$tmp/report")"
    expect tooltip a-model-with-a-rather-long-name.obj "$tmp/report"
    # Names that fit are shown whole, and without the cursor on them no tooltip.
    expect body0_table_name "ring (2D)" "$tmp/report"
    view 5 "$long"
    expect tooltip "" "$tmp/report"
    ;;
poke_dent | poke_dent_more)
    # A right click dents each body of the default scene by at least a tenth
    # of its mean radius (the finger stays 0.3 s); with gravity off, so that
    # no bounce blurs it, the dent is gone (below 3 %) 1.5 s after: every
    # body under the scenes' bdf2 (poke_dent), the stiffest sphere under
    # implicit and symplectic and two bodies with gravity (poke_dent_more).
    # Two cases of a few runs each: they run under the sanitizers too.
    dented() { # dented WHAT [bounce]: dent_max >= 0.1, and dent < 0.03 unless bouncing
        awk -F= -v held="${2:-}" '/^poke_dent=/ { d = $2 } /^poke_dent_max=/ { m = $2 }
            END { exit !(m >= 0.1 && (held == "bounce" || d < 0.03)) }' "$tmp/report" ||
            fail "$1: dent $(get poke_dent_max "$tmp/report") at most, $(get poke_dent "$tmp/report") at the end"
    }
    runs="bdf2:0 bdf2:1 bdf2:2 bdf2:3"
    [ "$test_name" = poke_dent_more ] && runs="implicit:3 symplectic:3"
    for run in $runs; do
        integrator=${run%:*}
        b=${run#*:}
        printf '1 key G
120 mouse_move_body %s
121 click right
' "$b" >"$tmp/script"
        view 230 --integrator "$integrator" --input-script "$tmp/script"
        echo "$integrator, body $b: $(grep '^poke_dent' "$tmp/report" | tr '\n' ' ')"
        expect poke_body "$b" "$tmp/report"
        dented "$integrator, body $b"
        sane
    done
    # With gravity, as the scene runs: at least a tenth too (the ring and the
    # stiffest sphere).
    for b in 0 3; do
        [ "$test_name" = poke_dent_more ] || break
        printf '150 mouse_move_body %s
151 click right
' "$b" >"$tmp/script"
        view 175 --input-script "$tmp/script"
        dented "body $b with gravity" bounce
    done
    ;;
layout)
    # Paused, every overlay on, a message and a blow-up report in the HUD:
    # the PAUSED badge, the overlays and the texts stay in the HUD strip,
    # beside what they describe; nothing is cut short at 1280x720.
    cat >"$tmp/script" <<'END'
30 key V
31 key N
32 key F
33 key W
34 key C
40 key SPACE
END
    want_rc=3
    view 45 --input-script "$tmp/script" --integrator euler --substeps 2
    want_rc=0
    check_layout 1280 720 "paused, overlays on, a blow-up"
    expect paused 1 "$tmp/report"
    expect message_shown 1 "$tmp/report"
    grep -q '^blowup_shown=body' "$tmp/report" || fail "no blow-up line"
    expect text_cut 0 "$tmp/report"
    badge=$(get paused_rect "$tmp/report")
    echo "PAUSED at $badge"
    inside "$(get hud_title "$tmp/report" | awk -F, '{ print $1 "," $2 - 5 "," $3 "," $4 + 10 }')" \
        "$(echo "$badge" | awk -F, '{ print $1 "," $2 "," $1 + $3 "," $2 + $4 }')" ||
        fail "the PAUSED badge $badge is not in the HUD's title row $(get hud_title "$tmp/report")"
    # The strips are opaque and the views hold only what they show: the
    # HUD's text colours (white, amber) never appear in an empty 2D view,
    # but do in the strip.
    printf '10 key SPACE\n' >"$tmp/script"
    view 12 --scene flag --input-script "$tmp/script" --screenshot "$tmp/flag.png"
    hud=$(get hud "$tmp/report")
    "$check_png" "$tmp/flag.png" 1280 720 "$hud:37:200" || fail "the HUD shows no amber text"
    ;;
help_opaque)
    # The help is an opaque panel: over two different scenes, paused at
    # different moments, the panel's pixels are the same.
    printf '40 key H\n' >"$tmp/script"
    view 45 --input-script "$tmp/script" --screenshot "$tmp/a.png"
    help=$(get help_rect "$tmp/report")
    echo "help panel at $help"
    [ "$(echo "$help" | cut -d, -f3)" != 0 ] || fail "the help panel is not shown"
    check_layout 1280 720 "with the help"
    printf '20 key H\n' >"$tmp/script"
    view 25 --scene pressure --input-script "$tmp/script" --screenshot "$tmp/b.png"
    expect help_rect "$help" "$tmp/report"
    # (The help covers most of the views: the strips' texts and plots differ.)
    "$check_png" --differ "$tmp/a.png" "$tmp/b.png" 0.01 || fail "the two pictures are alike"
    "$check_png" --same "$tmp/a.png" "$tmp/b.png" "$help" 0.001 ||
        fail "what is behind the help panel shows through it"
    # It fits the window: at the HUD's scale in two columns at 1280x600,
    # smaller in a small window; every row shown where the HUD has room.
    printf '1 key H\n' >"$tmp/script"
    for size in 1280x600 640x480; do
        view 3 --size "$size" --input-script "$tmp/script"
        help=$(get help_rect "$tmp/report")
        echo "help at $size: $help, scale $(get help_scale "$tmp/report")"
        inside "0,0,${size%x*},${size#*x}" "$(echo "$help" | awk -F, '{ print $1 "," $2 "," $1 + $3 "," $2 + $4 }')" ||
            fail "the help $help does not fit $size"
    done
    expect help_scale 0.75 "$tmp/report"
    view 3 --size 1280x600 --input-script "$tmp/script"
    expect help_scale 1.5 "$tmp/report"
    expect text_cut 0 "$tmp/report"
    # It is opaque to the mouse too: the wheel, drags and presses over it
    # (on a sphere, on the panel's ks slider) zoom, grab, poke, orbit and
    # set nothing; a press closes it and does nothing else.
    view 3
    camera0=$(grep '^camera' "$tmp/report")
    cat >"$tmp/script" <<'END'
2 key O
4 key H
10 mouse_move_panel ks slider 0.9
11 scroll 2
12 mouse_down left
13 mouse_move_by -100 0
14 mouse_up left
15 key H
20 mouse_move_body 2
21 scroll 2
22 mouse_down right
23 mouse_move_by 40 0
24 mouse_up right
25 key H
26 mouse_down left
27 mouse_move_by 60 -40
28 mouse_up left
END
    view 30 --input-script "$tmp/script"
    untouched "a drag over the help"
    expect param_ks 200 "$tmp/report"
    expect help_rect 0,0,0,0 "$tmp/report"
    ;;
pick)
    # The mouse maps through the views where they are now: the cursor put on
    # a body (as the script computes it) is on that body's colour in the
    # picture, and a right click there pokes it: the medium gas sphere in
    # 3D, the ring in 2D (while they swell in the air). A press on the
    # strips (HUD, plots, table) grabs, orbits and zooms nothing.
    around() { echo "$1" | awk -F, '{ printf "%d,%d,9,9\n", $1 - 4, $2 - 4 }'; }
    for target in 2:129 0:37; do
        b=${target%:*}
        printf '40 mouse_move_body %s\n40 screenshot %s\n41 click right\n' "$b" "$tmp/on$b.png" \
            >"$tmp/script"
        view 45 --input-script "$tmp/script"
        expect pokes 1 "$tmp/report"
        expect poke_body "$b" "$tmp/report"
        cursor=$(get cursor "$tmp/report")
        "$check_png" "$tmp/on$b.png" 1280 720 "$(around "$cursor"):${target#*:}:40" ||
            fail "the cursor at $cursor is not on body $b"
    done
    # Drags and the wheel over the strips do nothing.
    view 5
    camera0=$(grep '^camera' "$tmp/report")
    for spot in "640 60" "300 650" "1000 650"; do
        printf '10 mouse_move %s\n11 mouse_down left\n12 mouse_move_by 60 30\n13 mouse_up left\n14 scroll 2\n15 mouse_down right\n16 mouse_move_by 40 0\n17 mouse_up right\n' \
            "$spot" >"$tmp/script"
        view 20 --input-script "$tmp/script"
        untouched "a drag at $spot"
    done
    ;;
framing)
    # The bodies stay inside their views as the scenes run: the rings that
    # spread and bounce on landing, the balls that roll off the planets
    # toward the walls (the camera once lost them at the view's bottom
    # after 2.5 s). Few frames: this runs under the sanitizers too.
    for run in pressure:120 planets:160; do
        name=${run%:*}
        view "${run#*:}" --scene "$name"
        echo "$name: 2D $(get bodies2d_px "$tmp/report") in $(get view2d "$tmp/report"), 3D $(get bodies3d_px "$tmp/report") in $(get view3d "$tmp/report")"
        framed "scene $name after ${run#*:} frames"
    done
    ;;
panel_layout)
    # The parameter panel is hidden until O shows it; then it has a column of
    # its own right of the views, as tall as they are: inside the window and
    # apart from the HUD, the views, the plots and the table at every size,
    # nothing drawn over a view, the bodies inside their (narrower) views,
    # no text cut short where there is room.
    check_panel() { # check_panel W H WHAT
        awk -F'[=,]' -v W="$1" -v H="$2" '
            $1 ~ /^(hud|view2d|view3d|plots|table|panel)$/ && NF == 5 {
                n++; name[n] = $1; x[n] = $2; y[n] = $3; w[n] = $4; h[n] = $5 }
            $1 == "ui_over_views" { over = $2 }
            function apart(a, b) {
                return x[a] + w[a] <= x[b] || x[b] + w[b] <= x[a] || y[a] + h[a] <= y[b] ||
                    y[b] + h[b] <= y[a] }
            END {
                bad = 0
                if (n != 6) { print "the report has " n " parts"; bad = 1 }
                for (i = 1; i <= n; i++) {
                    if (w[i] <= 0 || h[i] <= 0 || x[i] < 0 || y[i] < 0 || x[i] + w[i] > W ||
                        y[i] + h[i] > H) {
                        print name[i] " " x[i] "," y[i] "," w[i] "," h[i] " is not inside " W "x" H
                        bad = 1 }
                    for (j = i + 1; j <= n; j++)
                        if (!apart(i, j)) { print name[i] " overlaps " name[j]; bad = 1 }
                    if (name[i] ~ /^view/ && (h[i] < 0.4 * H || w[i] < 0.25 * W)) {
                        print name[i] " is only " w[i] "x" h[i]; bad = 1 }
                }
                if (over != 0) { print over " quads or lines of text drawn over a view"; bad = 1 }
                exit bad }' "$tmp/report" >"$tmp/layout" || fail "$3 at $1x$2: $(cat "$tmp/layout")"
    }
    view 5
    expect panel 0,0,0,0 "$tmp/report"
    expect panel_shown 0 "$tmp/report"
    camera0=$(grep '^camera' "$tmp/report")
    for size in 1280x720 1024x600 900x560 640x480; do
        printf '2 key O\n' >"$tmp/script"
        view 40 --size "$size" --scene pressure --input-script "$tmp/script" \
            --screenshot "$tmp/panel.png"
        expect panel_shown 1 "$tmp/report"
        check_panel "${size%x*}" "${size#*x}" "the panel"
        framed "with the panel at $size"
        # Its heading (amber) in it; its sliders' fills (blue) where it has
        # room for them (640x480 has one line a row: name and field).
        panel=$(get panel "$tmp/report")
        set -- "$panel:37:40"
        case $size in
        640x480) ;;
        *)
            expect text_cut 0 "$tmp/report"
            set -- "$@" "$panel:215:300"
            ;;
        esac
        "$check_png" "$tmp/panel.png" "${size%x*}" "${size#*x}" "$@" ||
            fail "the panel at $size does not show its heading and sliders"
    done
    # Presses, drags and the wheel over the panel (beside a field, then out
    # into the 3D view) pick, grab, poke and orbit nothing and change no
    # value; F2 hides the panel again.
    cat >"$tmp/script" <<'END'
2 key O
10 mouse_move_panel ks value
11 mouse_move_by -150 0
12 mouse_down left
13 mouse_move_by -300 20
14 mouse_up left
15 mouse_move_by 300 -20
16 scroll 2
17 mouse_down right
18 mouse_move_by -300 0
19 mouse_up right
20 key F2
END
    view 25 --input-script "$tmp/script"
    untouched "a drag over the panel"
    expect param_ks 200 "$tmp/report"
    expect panel_shown 0 "$tmp/report"
    expect panel 0,0,0,0 "$tmp/report"
    ;;
panel_drag)
    # A press on a slider sets the value under the cursor and follows the
    # drag, live: ks (a log slider) from its middle 40 px right, and --report
    # shows it in force: the ring (of the material) takes it, the spheres
    # (of the ring's material) the stiffness `--ks` would give them (psb sim
    # reports the mean over the ring and the three). A drag on a field (the gravity, a
    # linear slider) changes its value; the integrator's slider picks by
    # place (the middle: rk4); a slider dragged out of the panel, into the 3D
    # view, still drags the slider (the camera stays), and the gas's far left
    # is 0.
    view 5
    camera0=$(grep '^camera' "$tmp/report")
    ks3=$(sed -n 's/^body3=.* spring_k=\([^ ]*\) .*/\1/p' "$tmp/report")
    cat >"$tmp/script" <<'END'
2 key O
10 mouse_move_panel ks slider 0.5
11 mouse_down left
12 mouse_move_by 20 0
13 mouse_move_by 20 0
14 mouse_up left
20 mouse_move_panel gravity value
21 mouse_down left
22 mouse_move_by -30 0
23 mouse_up left
30 mouse_move_panel gas slider 0.5
31 mouse_down left
32 mouse_move_by -400 10
33 mouse_up left
40 mouse_move_panel integrator slider 0.5
41 click left
END
    view 44 --input-script "$tmp/script"
    grep -E '^(param_|gravity|integrator|gas_scale|body[0-9]=|body[0-9]_gas)' "$tmp/report"
    ks=$(get param_ks "$tmp/report")
    awk -v k="$ks" 'BEGIN { exit !(k > 2000 && k < 1e5) }' ||
        fail "the ks slider dragged from its middle (1000) 40 px right gave $ks"
    grep -q "^body0=.* spring_k=$ks " "$tmp/report" || fail "the ring does not run with ks $ks"
    mean=$("$psb" sim --scene default --ks "$ks" --steps 0 --summary | sed -n 's/^spring_k=//p')
    awk -v a="$ks3" -v b="$(sed -n 's/^body3=.* spring_k=\([^ ]*\) .*/\1/p' "$tmp/report")" \
        -v k="$ks" -v m="$mean" 'BEGIN { d = b / ((4 * m - k) / 3) - 1;
            exit !(b != a && d < 1e-4 && d > -1e-4) }' ||
        fail "the sphere's stiffness went from $ks3 to what --ks $ks does not give (mean $mean)"
    g=$(get param_gravity "$tmp/report")
    awk -v g="$g" 'BEGIN { exit !(g > 1 && g < 9) }' || fail "a drag left on the gravity gave $g"
    expect gravity "$g" "$tmp/report"
    expect gas_scale 0 "$tmp/report"
    expect body2_gas_nrt 0 "$tmp/report"
    expect integrator rk4 "$tmp/report"
    expect panel_shows_integrator rk4 "$tmp/report"
    expect grabs 0 "$tmp/report"
    [ "$(grep '^camera' "$tmp/report")" = "$camera0" ] || fail "a slider drag moved the camera"
    # A click on the top pixels of a field (1 px under its edge) is on that
    # field, not on the slider of the row above: it opens mass for typing,
    # and kd stays.
    printf '2 key O\n10 mouse_move_panel mass value\n11 mouse_move_by 0 -8\n12 click left\n' \
        >"$tmp/script"
    view 14 --input-script "$tmp/script"
    expect line_h 18 "$tmp/report"
    expect param_kd 0.1 "$tmp/report"
    expect panel_edit mass "$tmp/report"
    ;;
panel_type)
    # A click on a field types a value: Enter applies it, Esc cancels; a
    # value out of the table's range (or not a number) is refused, the field
    # stays open with the range shown (and the HUD's message says it), the
    # value unchanged; the keys typed meanwhile (q, e, r) do nothing else.
    cat >"$tmp/script" <<'END'
2 key O
10 mouse_move_panel ks value
11 click left
12 type 1e13
13 key ENTER
END
    view 16 --input-script "$tmp/script" --screenshot "$tmp/refused.png"
    grep -E '^(param_ks|panel_|message)' "$tmp/report"
    expect param_ks 200 "$tmp/report"
    expect panel_refused 1 "$tmp/report"
    expect panel_edit ks "$tmp/report"
    expect panel_shows_ks 1e13 "$tmp/report"
    grep -q '^panel_note=.*0 \.\. 1e12 N/m' "$tmp/report" || fail "the panel does not show ks's range"
    grep -q '^message=.*0 to 1e12' "$tmp/report" || fail "the HUD does not say ks's range"
    grep -q '^body0=.* spring_k=200 ' "$tmp/report" || fail "the refused ks reached the world"
    cat >"$tmp/script" <<'END'
2 key O
10 mouse_move_panel restitution value
11 click left
12 type 1.5
13 key ENTER
14 type abc
15 key ENTER
16 type 1
17 key ENTER
20 mouse_move_panel friction value
21 click left
22 type 7
23 key ESCAPE
30 mouse_move_panel mass value
31 click left
32 type 2e-7
33 key ENTER
34 key BACKSPACE
35 type 0.5q
36 key Q
37 key ENTER
38 key ESCAPE
40 mouse_move_panel integrator value
41 click left
42 type rk4
43 key ENTER
50 mouse_move_panel dt value
51 click left
52 type 0.01
53 key ENTER
60 mouse_move_panel kd value
61 click left
62 type 0.5e
63 key E
64 key R
65 key BACKSPACE
66 key ENTER
END
    view 70 --input-script "$tmp/script"
    grep -E '^(param_|panel_|restitution|friction|dt|integrator|frames)' "$tmp/report"
    expect frames 70 "$tmp/report"
    expect restitution 1 "$tmp/report"
    expect friction 2 "$tmp/report"
    expect param_mass 1 "$tmp/report"
    grep -q '^body0_mass=1$' "$tmp/report" || fail "a refused mass reached the world"
    expect integrator rk4 "$tmp/report"
    expect dt 0.01 "$tmp/report"
    expect param_kd 0.5 "$tmp/report"
    grep -q '^body0_spring_damping=0.5$' "$tmp/report" || fail "the typed kd is not in force"
    # Refused: 1.5, abc, 2e-7, 0.5q; applied: 1, rk4, 0.01, 0.5.
    expect panel_refused 4 "$tmp/report"
    expect panel_applied 4 "$tmp/report"
    expect panel_edit "" "$tmp/report"
    # Enter with nothing typed (the field shows dt to 6 digits) changes
    # nothing, nor does Enter on an emptied field: both cancel. Text longer
    # than the field keeps (31 characters) is refused, not cut and applied.
    cat >"$tmp/script" <<'END'
2 key O
10 mouse_move_panel dt value
11 click left
12 key ENTER
20 mouse_move_panel kd value
21 click left
22 key BACKSPACE
23 key ENTER
30 mouse_move_panel ks value
31 click left
32 type 1000000000000000000000000000000000
33 key ENTER
END
    view 36 --input-script "$tmp/script" --screenshot "$tmp/long.png"
    grep -E '^(param_|panel_|dt)' "$tmp/report"
    expect param_dt 0.0166666667 "$tmp/report"
    expect dt 0.0166666667 "$tmp/report"
    expect param_kd 0.1 "$tmp/report"
    expect param_ks 200 "$tmp/report"
    expect panel_applied 0 "$tmp/report"
    expect panel_refused 1 "$tmp/report"
    expect panel_edit ks "$tmp/report"
    grep -q "^panel_note=refused '1000000000000000000000000000000\.\.\.': too long" "$tmp/report" ||
        fail "the long value is not refused as too long: $(get panel_note "$tmp/report")"
    ;;
panel_keys)
    # The keys and the panel set the same values: +, ], G and I (with the
    # panel hidden, then shown) show in its fields and in the world.
    cat >"$tmp/script" <<'END'
2 key PLUS
3 key RIGHT_BRACKET
4 key G
5 key I
6 key O
8 key PLUS
END
    view 12 --input-script "$tmp/script"
    grep -E '^(param_|panel_shows|gravity|integrator|gas_scale|stiffness)' "$tmp/report"
    expect param_gas 1.5625 "$tmp/report"
    expect panel_shows_gas x1.563 "$tmp/report"
    expect param_ks 250 "$tmp/report"
    expect panel_shows_ks "250 N/m" "$tmp/report"
    expect stiffness_scale 1.25 "$tmp/report"
    expect gravity 0 "$tmp/report"
    expect param_gravity 9.81 "$tmp/report"
    expect integrator euler "$tmp/report"
    expect panel_shows_integrator euler "$tmp/report"
    # A row's reset puts that row back, the others stay.
    printf '2 key O\n3 key RIGHT_BRACKET\n4 key PLUS\n5 mouse_move_panel ks reset\n6 click left\n' \
        >"$tmp/script"
    view 8 --input-script "$tmp/script"
    expect param_ks 200 "$tmp/report"
    expect param_gas 1.25 "$tmp/report"
    expect panel_resets 1 "$tmp/report"
    # "reset all" puts every value back to the command line's, and
    # psb_default_params()'s where it says nothing.
    cat >"$tmp/script" <<'END'
2 key O
3 key PLUS
4 key LEFT_BRACKET
5 key G
6 key I
7 mouse_move_panel mass value
8 click left
9 type 3
10 key ENTER
11 mouse_move_panel friction slider 0.9
12 click left
13 mouse_move_panel restitution slider 0.1
14 click left
15 mouse_move_panel dt slider 0.2
16 click left
17 mouse_move_panel kd slider 0.8
18 click left
20 mouse_move_panel all reset
21 click left
END
    view 24 --input-script "$tmp/script" --ks 300 --gravity 5
    grep -E '^(param_|gravity|integrator|dt|restitution|friction|gas_scale)' "$tmp/report"
    expect param_gas 1 "$tmp/report"
    expect param_ks 300 "$tmp/report"
    expect param_kd 0.1 "$tmp/report"
    expect param_mass 1 "$tmp/report"
    expect param_gravity 5 "$tmp/report"
    expect gravity 5 "$tmp/report"
    expect restitution 0.3 "$tmp/report"
    expect friction 2 "$tmp/report"
    expect dt 0.0166666667 "$tmp/report"
    expect integrator bdf2 "$tmp/report"
    expect panel_resets 1 "$tmp/report"
    grep -q '^body0=.* spring_k=300 ' "$tmp/report" || fail "reset all: the ring's ks is not 300"
    [ "$(grep -c '^body[0-9]*_mass=1$' "$tmp/report")" -eq 4 ] || fail "reset all: a mass is not 1"
    # The values carry over a scene change, to every body: mass 2 for the
    # pressure scene's six, and the flag's cloth (0.25 kg of its own) doubles.
    printf '2 key O\n3 mouse_move_panel mass value\n4 click left\n5 type 2\n6 key ENTER\n7 key 2\n' \
        >"$tmp/script"
    view 9 --input-script "$tmp/script"
    expect scene pressure "$tmp/report"
    [ "$(grep -c '^body[0-9]*_mass=2$' "$tmp/report")" -eq 6 ] || fail "the pressure scene's masses are not 2"
    printf '2 key O\n3 mouse_move_panel mass value\n4 click left\n5 type 2\n6 key ENTER\n' \
        >"$tmp/script"
    view 8 --scene flag --input-script "$tmp/script"
    expect body1_mass 0.5 "$tmp/report"
    expect body0_mass 2 "$tmp/report"
    ;;
plots_time)
    # The plots' time axis reads "-10 s ... now": the newest sample is drawn
    # at the right edge, "now", from the first second on (it was drawn at
    # its time t for the first 10 s, a tenth of the way across at 1 s), and
    # after 10 s too. The spheres' solid lines reach that edge: their
    # colours in the last 6 % of the V/V0 plot.
    for frames in 60 620; do
        view "$frames" --screenshot "$tmp/plots.png"
        area=$(get plot_ratio_area "$tmp/report")
        newest=$(get plot_newest_x "$tmp/report")
        echo "after $frames frames: V/V0 plot at $area, t at its right edge" \
            "$(get plot_t_end "$tmp/report") s, newest sample at x $newest"
        echo "$area $newest" | awk '{ split($1, r, ","); d = $2 - (r[1] + r[3])
            exit !(NF == 2 && r[3] > 100 && d < 0.5 && d > -0.5) }' ||
            fail "after $frames frames the newest sample is at x $newest, not at the right edge of $area"
        awk -F= -v t="$(get sim_time "$tmp/report")" \
            '/^plot_t_end=/ { d = t - $2; exit !(d >= 0 && d < 0.02) }' "$tmp/report" ||
            fail "after $frames frames the right edge is at $(get plot_t_end "$tmp/report") s"
        edge=$(echo "$area" | awk -F, '{ printf "%d,%d,%d,%d\n", $1 + 0.94 * $3, $2, 0.06 * $3 + 1, $4 }')
        "$check_png" "$tmp/plots.png" 1280 720 "$edge:216:3" "$edge:129:3" "$edge:0:3" ||
            fail "after $frames frames the lines do not reach the right edge ($edge)"
    done
    ;;
glyphs)
    # The letter O and the digit 0 look different wherever text is drawn
    # (the font drew 0 as O with two faint pixels inside, so that the HUD's
    # "O: parameters" read "0: parameters"): two runs alike but for a
    # model's name, OOOOOO.obj or 000000.obj, differ in a tenth of the
    # pixels where the body table shows the name at least.
    for name in OOOOOO 000000; do
        cp "$data/box.obj" "$tmp/$name.obj"
        view 2 "$tmp/$name.obj" --screenshot "$tmp/$name.png"
        expect body1_table_name "$name.obj" "$tmp/report"
        at=$(get body1_table_name_at "$tmp/report")
    done
    # The six letters' place: six glyphs of 6 px at scale 1.
    glyphs=$(echo "$at" | awk -F, -v s="$(get ui_scale "$tmp/report")" \
        '{ printf "%d,%d,%d,%d\n", $1, $2, 36 * s, $4 }')
    "$check_png" --differ "$tmp/OOOOOO.png" "$tmp/000000.png" 0.1 "$glyphs" ||
        fail "O and 0 look alike at $glyphs"
    ;;
blowup_status)
    # psb view's exit status says that a run had blow-ups, as psb sim's
    # does: 3, and a last line on stderr that counts them (as --report's
    # blowups does), after the first ten said one by one; still 3 after
    # a switch to a stable integrator and another scene, whose world is
    # clean; 1 where the run also failed (a screenshot that cannot be
    # written); 0 for a clean run.
    want_rc=3
    view 60 --integrator euler --substeps 2
    n=$(get blowups "$tmp/report")
    echo "$n blow-ups; stderr ends: $(tail -n 2 "$tmp/err")"
    [ "${n:-0}" -gt 10 ] || fail "explicit Euler at 2 sub-steps: $n blow-ups"
    expect run_blowups "$n" "$tmp/report"
    [ "$(tail -n 1 "$tmp/err")" = "psb view: $n blow-ups detected and recovered from (exit status 3)" ] ||
        fail "the last line on stderr: $(tail -n 1 "$tmp/err")"
    [ "$(grep -c ' blew up at ' "$tmp/err")" -le 10 ] || fail "more than 10 blow-ups said one by one"
    grep -q '^psb view: more blow-ups: not reported one by one$' "$tmp/err" ||
        fail "stderr does not say that it stops saying each blow-up"
    printf '30 key I shift\n31 key 2\n' >"$tmp/script"
    view 60 --integrator euler --substeps 2 --input-script "$tmp/script"
    expect scene pressure "$tmp/report"
    expect integrator bdf2 "$tmp/report"
    expect blowups 0 "$tmp/report"
    awk -F= '/^run_blowups=/ { exit !($2 > 0) }' "$tmp/report" ||
        fail "the run's blow-ups were forgotten: $(get run_blowups "$tmp/report")"
    want_rc=1
    view 30 --integrator euler --substeps 2 --screenshot "$tmp/none/shot.png"
    want_rc=0
    view 30
    expect run_blowups 0 "$tmp/report"
    [ ! -s "$tmp/err" ] || fail "a clean run wrote on stderr: $(cat "$tmp/err")"
    ;;
*)
    echo "viewer_test.sh: unknown test '$test_name'" >&2
    exit 2
    ;;
esac
[ $status -eq 0 ] && echo "PASS ($test_name)"
exit $status
