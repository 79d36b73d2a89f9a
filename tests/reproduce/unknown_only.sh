#!/usr/bin/env bash
# A misspelt --only stops every reproduction driver with exit 2 and a message naming the
# unknown name, before it runs anything (scripts/reproduce/common.py, accept_only; 2d.py's own
# check). And a helper module (scripts/reproduce/_*.py) is not a paper. Usage: unknown_only.sh
# SHARDSIM OUT_DIR PAPER...
set -uo pipefail
shardsim="$1" out="$2"
shift 2
mkdir -p "$out"
# expect_exit_2 NAME PATTERN ARGS...: `reproduce.sh ARGS` exits 2 with PATTERN in its stderr.
expect_exit_2() {
  local name="$1" pattern="$2"
  shift 2
  local err="$out/$name.err"
  SHARDSIM="$shardsim" bash scripts/reproduce.sh "$@" 2>"$err" >/dev/null
  local rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q "$pattern" "$err"; then
    echo "$name: exit $rc (expected 2 and a message with '$pattern'):"
    cat "$err"
    exit 1
  fi
  echo "$name: $(head -c 200 "$err")"
}
for paper in "$@"; do
  expect_exit_2 "$paper" "no-such-experiment" "$paper" --out "$out/$paper" --force \
    --only no-such-experiment
done
for helper in scripts/reproduce/_*.py; do
  name=$(basename "$helper" .py)
  expect_exit_2 "$name" "unknown paper '$name'" "$name" --out "$out/$name"
done
