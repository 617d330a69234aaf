#!/usr/bin/env bash
# Installs the Debian packages psb needs to build and test. Idempotent: a
# package that is installed already is skipped, and nothing is fetched (no
# `apt-get update`) when everything is present. Uses apt-get directly as
# root, through sudo otherwise. With package names as arguments it installs
# those instead (tests/fuzz/run.sh asks for clang that way).
set -euo pipefail

# Every package psb needs, one per line. Later features add theirs here.
PACKAGES=(
    gcc
    libc6-dev
    make
    cmake
    pkg-config
    # the viewer: window and input, math, PNG and text, the GL loader generator
    libglfw3-dev
    libcglm-dev
    libstb-dev
    python3-glad
    # the viewer's tests: a virtual X server with Mesa's software renderer
    xvfb
    xauth
    libgl1-mesa-dri
)
if [ "$#" -gt 0 ]; then
    PACKAGES=("$@")
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: dpkg-query not found: this script needs Debian (or a derivative)." >&2
    echo "install-deps: install by hand: ${PACKAGES[*]}" >&2
    exit 1
fi

missing=()
for package in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    if [ "$status" != "install ok installed" ]; then
        missing+=("$package")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "install-deps: all ${#PACKAGES[@]} packages present"
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: not root and sudo not found; as root, run:" >&2
    echo "  apt-get update && apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
