#!/usr/bin/env bash
# Installs what the tests need, builds with -Wall -Wextra -Werror (in build-test/) and runs the
# whole GoogleTest suite with ctest. SANITIZE=1 builds with ASan+UBSan (in build-asan/) instead;
# that build keeps warnings but not -Werror, because GCC's sanitizer instrumentation raises false
# -Wuninitialized warnings inside Boost.Graph (boost::optional); the plain build enforces them.
# Both are unity builds (cmake/Unity.cmake): a full build takes about half the CPU time, an
# incremental one recompiles a whole module. UNITY=0 builds file by file.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
if [ "${UNITY:-1}" = 1 ]; then unity=ON; else unity=OFF; fi
if [ "${SANITIZE:-0}" = 1 ]; then
  # -O1 -g1: the optimisation ASan recommends, with line tables for its reports; about half the
  # compile time of -O2 -g, which keeps .ci/run under 30 minutes on 2 cores.
  export BUILD_DIR="${BUILD_DIR:-build-asan}" BUILD_TYPE=RelWithDebInfo
  extra=(-DSHARDSIM_SANITIZE=ON -DSHARDSIM_WERROR=OFF -DSHARDSIM_BUILD_BENCH=OFF
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG")
else
  export BUILD_DIR="${BUILD_DIR:-build-test}"
  extra=(-DSHARDSIM_WERROR=ON -DSHARDSIM_BUILD_BENCH=ON)
fi
./scripts/build.sh -DSHARDSIM_UNITY="$unity" "${extra[@]}"
cd "$BUILD_DIR"
ctest --output-on-failure --parallel "${JOBS:-$(nproc)}" --timeout 600
