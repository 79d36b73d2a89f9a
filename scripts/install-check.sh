#!/usr/bin/env bash
# Installs an already-built tree (BUILD_DIR, default build-test) into a scratch prefix, then
# configures, builds and runs tests/install/consumer against it: find_package(shardsim) and the
# run/ API work from the installed files alone. CI runs it after ./scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build-test}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
cmake -S tests/install/consumer -B "$scratch/build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/consumer"
test -x "$scratch/prefix/bin/shardsim"
test -f "$scratch/prefix/share/shardsim/configs/hardware/dgx-a100.yaml"
test ! -e "$scratch/prefix/include/shardsim/cli"
# The Python package, when the build has it: imported from the installed tree alone.
if [ -d "$build_dir/python/shardsim" ]; then
  site="$(find "$scratch/prefix" -type d -path '*dist-packages/shardsim' | head -n 1)"
  test -n "$site"
  (cd "$scratch" && PYTHONPATH="$(dirname "$site")" /usr/bin/python3 -c \
    "import shardsim; r = shardsim.run(shardsim.Scenario.default().set('workload.iterations', 1), planners='table_wise'); assert r[0].qps > 0")
  echo "install-check: the Python package imports and runs from $(dirname "$site")"
fi
echo "install-check: OK (find_package(shardsim) from $scratch/prefix)"
