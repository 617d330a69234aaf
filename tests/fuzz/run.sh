#!/usr/bin/env bash
# Fuzzes the OBJ parser, and the topology report, repair and split behind it,
# with libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer, for a
# bounded time.
#   tests/fuzz/run.sh [SECONDS]   (default: $PSB_FUZZ_SECONDS, else 60)
#   PSB_FUZZ_BUILD_DIR            build folder (default: build-fuzz)
# Seeds are tests/fuzz/corpus and tests/obj, read only; what the fuzzer finds
# grows in BUILD/corpus. Exits non-zero on a crash, a leak, undefined
# behaviour or a hang, with the input saved in BUILD/artifacts/: fix the
# parser and add the input to tests/obj as a regression file (see its README).
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-${PSB_FUZZ_SECONDS:-60}}
build_dir=${PSB_FUZZ_BUILD_DIR:-build-fuzz}
case "$seconds" in
'' | *[!0-9]*)
    echo "usage: tests/fuzz/run.sh [SECONDS]" >&2
    exit 2
    ;;
esac

# clang, and the runtime libraries of libFuzzer and the sanitizers: on Debian
# 12 the clang package alone does not bring libclang_rt.fuzzer, libclang-rt-dev does.
if command -v dpkg-query >/dev/null 2>&1; then
    scripts/install-deps.sh clang libclang-rt-dev
elif ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: clang not found (with libFuzzer: compiler-rt); install it first" >&2
    exit 1
fi

CC=clang cmake -S . -B "$build_dir" -DPSB_FUZZ=ON -DPSB_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build_dir" --target fuzz_obj -j "$(nproc 2>/dev/null || echo 2)"

mkdir -p "$build_dir/corpus" "$build_dir/artifacts"
echo "fuzz: running fuzz_obj for ${seconds} s"
# -max_len: OBJ lines are short and the corpus files small; longer inputs only
# slow the search. -timeout: a single input taking 10 s is a hang.
"$build_dir/fuzz_obj" \
    -max_total_time="$seconds" \
    -max_len=8192 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -dict=tests/fuzz/obj.dict \
    -artifact_prefix="$build_dir/artifacts/" \
    -print_final_stats=1 \
    "$build_dir/corpus" tests/fuzz/corpus tests/obj
echo "fuzz: no crash in ${seconds} s"
