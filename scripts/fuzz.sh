#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (in build-fuzz/, ASan + UBSan + libFuzzer) and runs each
# for SECONDS (default $FUZZ_SECONDS, else 60), FUZZ_PARALLEL of them at once:
#   ./scripts/fuzz.sh [SECONDS] [TARGET...]
# Targets: scenario, plan, trace, measurements, checkpoint, fit_target, cost, messages (default:
# all). Environment:
#   FUZZ_SECONDS  seconds per target when no SECONDS is given
#   FUZZ_OPT      optimisation flags (default "-O2 -g": fast fuzzing for long runs);
#                 "-O0 -gline-tables-only" compiles ~3x faster and runs ~2x slower.
#   BUILD_DIR     the build folder (default build-fuzz; use one per FUZZ_OPT). A folder already
#                 configured with SHARDSIM_FUZZ=ON keeps its configuration unless FUZZ_OPT or
#                 FUZZ_CXX is given: BUILD_DIR=build-asan after SANITIZE=1 ./scripts/test.sh
#                 (clang, ASan+UBSan+fuzzer instrumentation, -O1 -g1) fuzzes what that built (CI).
#   JOBS          parallel compile jobs (default: all cores)
#   FUZZ_PARALLEL targets fuzzed at once, one process each (default: all cores)
#   FUZZ_SEED     libFuzzer's random seed (default: a new one each run); CI fixes it, so that a
#                 landing's fuzz step is repeatable and a finding reproduces with the same seed
# Assertions stay on (no -DNDEBUG): a failed assert is a finding. Seeds come from tests/fuzz/<target>/ (read only);
# what the fuzzer adds goes to build-fuzz/corpus/<target>/, and an input that crashes, leaks or
# times out to build-fuzz/artifacts/<target>/. Exit status 1 if any target found something.
# docs/robustness.md describes the targets and what fuzzing has found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-${FUZZ_SECONDS:-60}}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(scenario plan trace measurements checkpoint fit_target cost messages); fi
# Up to FUZZ_PARALLEL targets at once (default: one a core): each libFuzzer process is single
# threaded and runs for the same time, so the targets start and end together in waves.
parallel="${FUZZ_PARALLEL:-$(nproc)}"
if ! [[ "$parallel" =~ ^[1-9][0-9]*$ ]]; then
  echo "FUZZ_PARALLEL must be a whole number of at least 1, not '$parallel'" >&2
  exit 2
fi
SHARDSIM_WITH_FUZZ=1 ./scripts/deps.sh
build_dir="${BUILD_DIR:-build-fuzz}"
if [ -n "${FUZZ_OPT:-}${FUZZ_CXX:-}" ] ||
    ! grep -qs '^SHARDSIM_FUZZ:BOOL=ON$' "$build_dir/CMakeCache.txt"; then
  generator=()
  if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi
  launcher=""
  if [ "${NO_CCACHE:-0}" != 1 ] && command -v ccache >/dev/null 2>&1; then launcher=ccache; fi
  cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_CXX_FLAGS_FUZZ="${FUZZ_OPT:--O2 -g}" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" \
    -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++}" -DSHARDSIM_FUZZ=ON -DSHARDSIM_WERROR=OFF \
    -DSHARDSIM_BUILD_TESTS=OFF -DSHARDSIM_BUILD_BENCH=OFF >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
cmake --build "$build_dir" --parallel "${JOBS:-$(nproc)}" --target "${build_targets[@]}"

seed=()
if [ -n "${FUZZ_SEED:-}" ]; then seed=(-seed="$FUZZ_SEED"); fi
failed=()
pids=()
running=()
# Waits for the oldest target still running and prints its result.
finish_oldest() {
  local t="${running[0]}" pid="${pids[0]}"
  running=("${running[@]:1}")
  pids=("${pids[@]:1}")
  echo "== fuzz_$t for ${seconds}s =="
  if ! wait "$pid"; then
    failed+=("$t")
    tail -n 60 "$build_dir/fuzz_$t.log"
  else
    grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+ +DONE)" \
      "$build_dir/fuzz_$t.log" || true
  fi
}
for t in "${targets[@]}"; do
  corpus="$build_dir/corpus/$t"
  artifacts="$build_dir/artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  # -rss_limit_mb: the loaders' own limits keep memory far below this; -timeout: one input.
  "$build_dir/tests/fuzz/fuzz_$t" "${seed[@]}" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=2560 -max_len=8192 -print_final_stats=1 -dict="tests/fuzz/$t.dict" \
    -artifact_prefix="$artifacts/" "$corpus" "tests/fuzz/$t" 2>"$build_dir/fuzz_$t.log" &
  pids+=($!)
  running+=("$t")
  if [ ${#pids[@]} -ge "$parallel" ]; then finish_oldest; fi
done
while [ ${#pids[@]} -gt 0 ]; do finish_oldest; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]} (inputs under $build_dir/artifacts/)" >&2
  exit 1
fi
echo "fuzzing: no findings in ${targets[*]} (${seconds}s each)"
