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

# distance A B between two "x,y,z" vectors.
distance() {
    echo "$1 $2" | awk '{ split($1, a, ","); split($2, b, ",");
        printf "%.6f\n", sqrt((a[1]-b[1])^2 + (a[2]-b[2])^2 + (a[3]-b[3])^2) }'
}

# view FRAMES [ARGS...]: runs the viewer with a report into $tmp/report, stderr into $tmp/err.
view() {
    frames=$1
    shift
    "$psb" view --frames "$frames" --report "$@" >"$tmp/report" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "psb view exited with $rc"
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
75 mouse_move 1200 500
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
    expect scene models "$tmp/report"
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
    expect scene models "$tmp/report"
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
    expect integrator rk4 "$tmp/report"
    expect gravity 0 "$tmp/report"
    expect gas_scale 1.25 "$tmp/report"
    expect stiffness_scale 1.25 "$tmp/report"
    expect paused 1 "$tmp/report"
    expect steps 41 "$tmp/report"
    sane
    [ -s "$tmp/psb-screenshot-001.png" ] || fail "P wrote no screenshot"
    ;;
resize)
    printf '5 resize 900 560\n' >"$tmp/script"
    view 30 --input-script "$tmp/script" --screenshot "$tmp/small.png"
    expect window 900x560 "$tmp/report"
    "$check_png" "$tmp/small.png" 900 560 || fail "the screenshot is not 900x560"
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
*)
    echo "viewer_test.sh: unknown test '$test_name'" >&2
    exit 2
    ;;
esac
[ $status -eq 0 ] && echo "PASS ($test_name)"
exit $status
