#!/usr/bin/env bash
# Installs what shardsim needs, builds it (Release, in build/; BUILD_DIR=dir to use another
# build directory) and runs the built-in default scenario, printing its report. Safe to run
# again: a second run only rebuilds what changed. A unity build (cmake/Unity.cmake), as the
# tests' is: a first build takes about half the CPU time of a file-by-file one (UNITY=0: that).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
build_dir="${BUILD_DIR:-build}"
if [ "${UNITY:-1}" = 1 ]; then unity=ON; else unity=OFF; fi
BUILD_DIR="$build_dir" ./scripts/build.sh -DSHARDSIM_BUILD_BENCH=OFF -DSHARDSIM_BUILD_TESTS=OFF \
  -DSHARDSIM_UNITY="$unity"
echo
echo "== $build_dir/shardsim run   (the built-in default scenario) =="
"./$build_dir/shardsim" run
if [ -d "$build_dir/python/shardsim" ]; then
  echo
  echo "== the Python module (docs/python.md) =="
  PYTHONPATH="$build_dir/python" /usr/bin/python3 -c \
    "import shardsim; r = shardsim.run(shardsim.Scenario.default(), planners='table_wise')[0]; print(f'PYTHONPATH=$build_dir/python /usr/bin/python3: import shardsim -> {r.planner}: {r.qps:,.0f} samples/s')"
fi
