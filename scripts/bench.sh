#!/usr/bin/env bash
# Builds the benchmarks (Release, in build-bench/) and runs them. Extra arguments go to the
# benchmark binary, e.g. --benchmark_filter=Engine. Results go by hand into the goals table of
# docs/performance.md and, with the machine and this command, docs/notes/performance-diary.md.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
BUILD_DIR=build-bench ./scripts/build.sh -DSHARDSIM_BUILD_TESTS=OFF -DSHARDSIM_BUILD_BENCH=ON
./build-bench/bench/shardsim_bench "$@"
