#!/usr/bin/env bash
# A misspelt --only stops every reproduction driver with exit 2 and a message naming the
# unknown name, before it runs anything (scripts/reproduce/common.py, accept_only; 2d.py's own
# check). And a helper module (scripts/reproduce/_*.py) is not a paper. Usage: unknown_only.sh
# SHARDSIM OUT_DIR PAPER...
set -uo pipefail
shardsim="$1" out="$2"
shift 2
mkdir -p "$out"
for paper in "$@"; do
  err="$out/$paper.err"
  SHARDSIM="$shardsim" bash scripts/reproduce.sh "$paper" --out "$out/$paper" --force \
    --only no-such-experiment 2>"$err" >/dev/null
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "no-such-experiment" "$err"; then
    echo "$paper: exit $rc (expected 2 and a message naming no-such-experiment):"
    cat "$err"
    exit 1
  fi
  echo "$paper: $(head -c 200 "$err")"
done
for helper in scripts/reproduce/_*.py; do
  name=$(basename "$helper" .py)
  err="$out/$name.err"
  SHARDSIM="$shardsim" bash scripts/reproduce.sh "$name" --out "$out/$name" 2>"$err" >/dev/null
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "unknown paper '$name'" "$err"; then
    echo "$name: exit $rc (expected 2: a helper module is not a paper):"
    cat "$err"
    exit 1
  fi
  echo "$name: $(head -c 200 "$err")"
done
