#!/usr/bin/env bash
# Configures and builds shardsim in BUILD_DIR (default build/). Extra arguments go to cmake.
# Compiles through ccache when `ccache` is on PATH (CCACHE_DISABLE=1 or NO_CCACHE=1: not).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
build_type="${BUILD_TYPE:-Release}"
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi
launcher=""
if [ "${NO_CCACHE:-0}" != 1 ] && command -v ccache >/dev/null 2>&1; then launcher=ccache; fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE="$build_type" \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" "$@" >/dev/null
cmake --build "$build_dir" --parallel "${JOBS:-$(nproc)}"
