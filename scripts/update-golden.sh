#!/usr/bin/env bash
# Regenerates the golden baselines under tests/golden/ (docs/regression.md): one
# `shardsim baseline` per line of tests/golden/golden.list, overwriting the old files.
# Review `git diff tests/golden/`, then commit it with the change that moved the numbers.
#   SHARDSIM=path/to/shardsim ./scripts/update-golden.sh   # use a binary you built
#   ./scripts/update-golden.sh                             # builds build/shardsim first
set -euo pipefail
cd "$(dirname "$0")/.."
list=tests/golden/golden.list
if [ -z "${SHARDSIM:-}" ]; then
  build_dir="${BUILD_DIR:-build}"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    generator=()
    if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
    cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" --target shardsim --parallel "${JOBS:-$(nproc)}"
  SHARDSIM="$build_dir/shardsim"
fi

written=()
while read -r scenario args; do
  case "$scenario" in '' | '#'*) continue ;; esac
  # scenarios/papers/x/y.yaml -> tests/golden/papers/x/y.json (as tests/CMakeLists.txt names it)
  rel="${scenario#scenarios/}"
  rel="${rel%.*}"
  out="tests/golden/$(dirname "$rel")"
  # shellcheck disable=SC2086 # the flags of a line are split on spaces, as documented
  "$SHARDSIM" baseline "$scenario" $args --out "$out" --force --quiet --jobs "${JOBS:-$(nproc)}"
  written+=("tests/golden/$rel.json")
done <"$list"

# Golden files no line writes any more, and scenarios without a golden baseline.
while IFS= read -r f; do
  keep=0
  for w in "${written[@]}"; do [ "$f" = "$w" ] && keep=1; done
  [ "$keep" = 1 ] || echo "warning: $f has no line in $list; delete it (git rm $f)" >&2
done < <(find tests/golden -name '*.json' | sed 's|^\./||' | sort)
for s in scenarios/*.yaml scenarios/papers/*/*.yaml; do
  [ -f "$s" ] || continue
  grep -q "^$s\([[:space:]]\|$\)" "$list" ||
    echo "note: $s has no golden baseline; add a line to $list to guard it" >&2
done
echo "updated ${#written[@]} golden file(s); review: git diff --stat tests/golden/"
