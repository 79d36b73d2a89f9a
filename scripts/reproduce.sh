#!/usr/bin/env bash
# Reproduces a paper's tables and figures with shardsim, our numbers beside the paper's:
#   scripts/reproduce.sh <paper> [driver options]
# Papers and their drivers (each writes under out/reproduce/<name>/, git-ignored):
#   2d   2D sparse parallelism: Tables 1-2, Fig. 6 (scripts/reproduce_2d.py; docs/reproductions/2d.md)
# The shardsim binary: $SHARDSIM if set, else build/shardsim (built here first).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "usage: scripts/reproduce.sh <paper> [options]   (papers: 2d; options: <paper> --help)" >&2
  exit 2
}
[ $# -ge 1 ] || usage
paper="$1"
shift
case "$paper" in
  2d) driver=scripts/reproduce_2d.py ;;
  -h | --help) usage ;;
  *)
    echo "scripts/reproduce.sh: unknown paper '$paper'" >&2
    usage
    ;;
esac
if [ -z "${SHARDSIM:-}" ]; then
  build_dir="${BUILD_DIR:-build}"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    generator=()
    if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
    cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" --target shardsim --parallel "${JOBS:-$(nproc)}" >/dev/null
  export SHARDSIM="$build_dir/shardsim"
fi
exec python3 "$driver" "$@"
