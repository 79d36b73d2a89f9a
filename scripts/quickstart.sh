#!/usr/bin/env bash
# Installs what shardsim needs, builds it (Release, in build/) and runs the built-in default
# scenario, printing its report. Safe to run again: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/deps.sh
BUILD_DIR=build ./scripts/build.sh -DSHARDSIM_BUILD_BENCH=OFF -DSHARDSIM_BUILD_TESTS=OFF
echo
echo "== build/shardsim run   (the built-in default scenario) =="
./build/shardsim run
