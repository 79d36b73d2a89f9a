#!/usr/bin/env bash
# Installs what the tests need, builds with -Wall -Wextra -Werror (in build-test/) and runs the
# whole GoogleTest suite with ctest. SANITIZE=1 builds with ASan+UBSan (in build-asan/) instead;
# that build keeps warnings but not -Werror, because GCC's sanitizer instrumentation raises false
# -Wuninitialized warnings inside Boost.Graph (boost::optional); the plain build enforces them.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
if [ "${SANITIZE:-0}" = 1 ]; then
  export BUILD_DIR="${BUILD_DIR:-build-asan}" BUILD_TYPE=RelWithDebInfo
  extra=(-DSHARDSIM_SANITIZE=ON -DSHARDSIM_WERROR=OFF -DSHARDSIM_BUILD_BENCH=OFF)
else
  export BUILD_DIR="${BUILD_DIR:-build-test}"
  extra=(-DSHARDSIM_WERROR=ON -DSHARDSIM_BUILD_BENCH=ON)
fi
./scripts/build.sh "${extra[@]}"
cd "$BUILD_DIR"
ctest --output-on-failure --parallel "${JOBS:-$(nproc)}" --timeout 600
