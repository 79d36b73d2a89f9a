#!/usr/bin/env bash
# Reproduces a paper's experiments with shardsim and writes, per experiment, a CSV and a
# markdown table that put the paper's numbers beside ours, with the paper's trends checked
# (docs/reproductions/<paper>.md shows and discusses a committed copy).
#
#   scripts/reproduce.sh PAPER [--out DIR] [--force] [--only NAME[,NAME...]] [--jobs N]
#
# PAPER is one of the drivers under scripts/reproduce/ (oper, 2d, neuroshard, adaembed; more papers add a
# <paper>.py). Options after PAPER that the driver adds are its own (see its --help).
# DIR defaults to out/reproduce/PAPER (git-ignored); an existing non-empty DIR is refused unless
# --force (which overwrites the files the run writes and removes nothing else). SHARDSIM=path/to/shardsim uses that binary; otherwise build/shardsim (BUILD_DIR) is
# built first. Needs python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  usage
  exit $([ $# -lt 1 ] && echo 2 || echo 0)
fi
paper="$1"
shift
driver="scripts/reproduce/${paper}.py"
if [ ! -f "$driver" ]; then
  known=$(cd scripts/reproduce && ls -- *.py 2>/dev/null | grep -v '^common\.py$' | sed 's/\.py$//' | tr '\n' ' ' | sed 's/ $//')
  echo "reproduce: unknown paper '$paper' (known: ${known:-none})" >&2
  exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "reproduce: python3 is needed (standard library only)" >&2
  exit 2
fi
if [ -z "${SHARDSIM:-}" ]; then
  build_dir="${BUILD_DIR:-build}"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    generator=()
    if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
    cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" --target shardsim --parallel "${JOBS:-$(nproc)}" >/dev/null
  SHARDSIM="$build_dir/shardsim"
fi
exec python3 "$driver" --shardsim "$SHARDSIM" --paper "$paper" "$@"
