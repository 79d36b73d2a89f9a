#!/usr/bin/env bash
# Installs what the tests need, builds with -Wall -Wextra -Werror (GCC, Release, in build-test/)
# and runs the whole GoogleTest suite with ctest.
#
# SANITIZE=1 builds with clang and ASan+UBSan (in build-asan/; the library at -O1 -g1, the tests'
# own code at -O0; assertions on) instead. The library also carries libFuzzer's coverage
# instrumentation and the build holds the fuzz targets, so `BUILD_DIR=build-asan ./scripts/fuzz.sh`
# then fuzzes without compiling anything again (CI does: .ci/run). That build keeps warnings but
# not -Werror; the plain build enforces them. It leaves out a few long tests that the plain build
# runs (below).
#
# Both are unity builds (cmake/Unity.cmake): a full build takes about half the CPU time, an
# incremental one recompiles a whole module. UNITY=0 builds file by file.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${UNITY:-1}" = 1 ]; then unity=ON; else unity=OFF; fi
if [ "${SANITIZE:-0}" = 1 ]; then
  SHARDSIM_WITH_FUZZ=1 ./scripts/deps.sh  # clang and its sanitizer runtimes
  # -O1 -g1: the optimisation ASan recommends, with line tables for its reports.
  export BUILD_DIR="${BUILD_DIR:-build-asan}" BUILD_TYPE=Sanitize
  extra=(-DCMAKE_CXX_COMPILER=clang++ -DSHARDSIM_FUZZ=ON "-DCMAKE_CXX_FLAGS_SANITIZE=-O1 -g1"
    -DSHARDSIM_WERROR=OFF -DSHARDSIM_BUILD_TESTS=ON -DSHARDSIM_BUILD_BENCH=OFF
    -DSHARDSIM_PYTHON=OFF)  # a sanitized extension would need the ASan runtime preloaded
else
  ./scripts/deps.sh
  export BUILD_DIR="${BUILD_DIR:-build-test}"
  extra=(-DSHARDSIM_WERROR=ON -DSHARDSIM_BUILD_TESTS=ON -DSHARDSIM_BUILD_BENCH=ON)
fi
./scripts/build.sh -DSHARDSIM_UNITY="$unity" "${extra[@]}"
cd "$BUILD_DIR"
skip=()
if [ "${SANITIZE:-0}" = 1 ]; then
  # Left to the plain build: tests whose extra length under the sanitizers checks nothing new.
  # The Python drivers' smoke runs (labels reproduce, plot: a driver's own checks; every paper
  # scenario still runs sanitized, one iteration each, in tests/cli/paper_scenarios_test.cpp's
  # PaperScenarioRun; plot.smoke's runs of the default scenario are the CLI tests'), and the 10-s
  # population fits to Meta's published statistics (the fit's code runs sanitized in
  # trace_fit_cli_test.cpp's `trace fit` runs). Together 165 s of the sanitized suite's 717 s of
  # test time (docs/performance.md, "CI time again"). And the five large agreement tests of the
  # trace models against sampling (68 s sanitized): numbers checked against numbers, whose code
  # runs sanitized in the small tests of the same suites (ExpectedCountHistograms,
  # CacheHitRate, PowerLawProfile, ZipfSampler). And three tests whose time is waiting or
  # volume, not code (together 58 s unsanitized): the two MPI jobs that wait out a killed rank
  # (MpiBaseline.ARunFailingOnAWorker... runs the failure path sanitized) and the half-million
  # table document (the guard's YAML counting runs sanitized in MemoryBombs' other tests).
  big_agreements='ExpectedCountHistograms\.AgreesWithSampledTraceStats|CacheHitRate\.AgreesWithExactSimulationOnSampledTraces|CacheHitRate\.AgreesOnASubRangeShardAndHeavyHitters|PowerLawProfile\.ExpectedDistinctMatchesBruteForce|ZipfSampler\.KolmogorovSmirnovOnABillionRows'
  slow_waits='MpiSweep\.AKilledRankEndsTheJobNamingItsRunAndTheRestResumes|MpiBaseline\.AKilledRankEndsTheJobNamingItsRunAndWritesNothing|MemoryBombs\.HalfAMillionListedTablesAreRefusedAtTheListBeforeTheirNodesAreBuilt'
  # And five whose sanitized length is volume (59 s sanitized on 2026-12-02): two more MPI
  # byte-identity runs (MpiBaseline.OneTwoAndThreeRanks... keeps the launcher sanitized), the
  # determinism of simulation options, and the 200-table TorchRec parity fixtures (the parity
  # code runs sanitized on the 26-table fixtures).
  slow_waits+='|MpiSweep\.OneTwoAndThreeRanksWriteTheBytesOfOneProcess|MpiSize\.TwoAndThreeRanksPrintTheBytesOfOneProcess|Determinism\.SimulationOptionsGiveByteIdenticalReportsAndChromeTraces|TorchrecFixtures/TorchrecParity\..*/b_200t16g'
  # The validation label too (labels reproduce, plot, validation): numbers judged against
  # published measurements (66 s sanitized), whose code runs sanitized in the cost model's tests.
  skip=(--label-exclude '^(reproduce|plot|validation)$'
        --exclude-regex "^(TraceFit\.PopulationFitsThePublished|($big_agreements|$slow_waits)$)")
fi
ctest --output-on-failure --parallel "${JOBS:-$(nproc)}" --timeout 600 "${skip[@]}"
