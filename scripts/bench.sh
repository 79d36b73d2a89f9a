#!/usr/bin/env bash
# Builds the benchmarks (Release, in build-bench/) and runs them. Extra arguments go to the
# benchmark binary, e.g. --benchmark_filter=Engine. Results go into docs/performance.md by hand,
# with the machine and this command.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
BUILD_DIR=build-bench ./scripts/build.sh -DSHARDSIM_BUILD_TESTS=OFF -DSHARDSIM_BUILD_BENCH=ON
./build-bench/bench/shardsim_bench "$@"
