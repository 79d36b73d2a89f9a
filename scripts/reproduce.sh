#!/usr/bin/env bash
# Reproduces a paper's experiments with shardsim and writes, per experiment, a CSV and a
# markdown table that put the paper's numbers beside ours, with the paper's trends checked
# (docs/reproductions/<paper>.md shows and discusses a committed copy).
#
#   scripts/reproduce.sh PAPER [--out DIR] [--force] [--only NAME[,NAME...]] [--jobs N]
#   scripts/reproduce.sh all [--out DIR] [--force] [--jobs N]
#
# PAPER is one of the drivers under scripts/reproduce/ (every <paper>.py there but common.py and
# the helper modules named _*.py: oper, 2d, neuroshard, adaembed, ...). Options after PAPER that the driver adds are its own (see
# its --help). `all` runs every driver into DIR/<paper> and then writes DIR/scoreboard.md and
# DIR/scoreboard.json (every trend check of every paper, agreement per paper and overall); a
# driver that fails makes it exit non-zero after the others ran.
# DIR defaults to out/reproduce/PAPER (out/reproduce for `all`; git-ignored); an existing
# non-empty DIR is refused unless --force (which overwrites the files the run writes and removes
# nothing else). SHARDSIM=path/to/shardsim uses that binary; otherwise build/shardsim (BUILD_DIR)
# is built first. Needs python3 (standard library; python3-matplotlib, if installed, draws PNGs).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  usage
  exit $([ $# -lt 1 ] && echo 2 || echo 0)
fi
paper="$1"
shift
known=$(cd scripts/reproduce && ls -- *.py 2>/dev/null | grep -v -e '^common\.py$' -e '^_' | sed 's/\.py$//' | sort)
driver="scripts/reproduce/${paper}.py"
if [ "$paper" != all ] && { [ "$paper" = common ] || [[ "$paper" == _* ]] || [ ! -f "$driver" ]; }; then
  echo "reproduce: unknown paper '$paper' (known: all $(echo $known))" >&2
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
if [ "$paper" != all ]; then
  exec python3 "$driver" --shardsim "$SHARDSIM" --paper "$paper" "$@"
fi

# all: every driver into DIR/<paper>, then the scoreboard.
out="out/reproduce"
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "reproduce: --out needs a folder" >&2; exit 2; }; out="$2"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    --force) pass+=(--force); shift ;;
    --jobs) [ $# -ge 2 ] || { echo "reproduce: --jobs needs a number" >&2; exit 2; }; pass+=(--jobs "$2"); shift 2 ;;
    --jobs=*) pass+=("$1"); shift ;;
    *) echo "reproduce: all: unknown option '$1' (all takes --out DIR, --force, --jobs N)" >&2; exit 2 ;;
  esac
done
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [[ " ${pass[*]:-} " != *" --force "* ]]; then
  echo "reproduce: $out: the output folder exists and is not empty (hint: pass --force to overwrite its results, or --out a fresh folder)" >&2
  exit 2
fi
mkdir -p "$out"
failed=()
papers=()
start=$(date +%s)
for p in $known; do
  papers+=("$p")
  echo "reproduce all: $p -> $out/$p" >&2
  t0=$(date +%s)
  if python3 "scripts/reproduce/$p.py" --shardsim "$SHARDSIM" --paper "$p" --out "$out/$p" "${pass[@]}"; then
    echo "reproduce all: $p done in $(( $(date +%s) - t0 )) s" >&2
  else
    echo "reproduce all: $p FAILED (exit $?) after $(( $(date +%s) - t0 )) s" >&2
    failed+=("$p")
  fi
done
scoreboard_rc=0
python3 scripts/reproduce/common.py scoreboard "$out" "${papers[@]}" --failed "${failed[@]}" ||
  scoreboard_rc=$?
echo "reproduce all: $(( $(date +%s) - start )) s in all" >&2
if [ ${#failed[@]} -gt 0 ]; then
  echo "reproduce all: failed: ${failed[*]} (the scoreboard lists the others' checks)" >&2
  exit 1
fi
if [ $scoreboard_rc -ne 0 ]; then
  echo "reproduce all: the scoreboard failed (exit $scoreboard_rc)" >&2
  exit 1
fi
