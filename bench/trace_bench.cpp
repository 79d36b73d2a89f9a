// Benchmarks of traces and access profiles (issue 3; numbers in docs/performance.md):
//   sampling speed (target >= 100 M indices/s on one core, alpha 1.05 over 10^9 rows),
//   profile queries (target < 1 us), trace file reads (target >= 1 GB/s), and generating and
//   profiling one iteration of a 1000-table model in expected mode (target < 2 s).
// Run: scripts/bench.sh --benchmark_filter=Trace
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "shardsim/core/log.hpp"
#include "shardsim/core/rng.hpp"
#include "shardsim/trace/bag_generator.hpp"
#include "shardsim/trace/empirical_profile.hpp"
#include "shardsim/trace/power_law_profile.hpp"
#include "shardsim/trace/synthetic_trace_source.hpp"
#include "shardsim/trace/trace_file.hpp"
#include "shardsim/trace/zipf_sampler.hpp"

namespace shardsim {
namespace {

EmbeddingTable zipf_table(std::uint64_t rows, double alpha, double pooling = 15) {
  EmbeddingTable t;
  t.name = "t";
  t.rows = rows;
  t.dim = 64;
  t.alpha = alpha;
  t.pooling.kind = PoolingSpec::Kind::fixed;
  t.pooling.value = pooling;
  return t;
}

// Ranks drawn per second, alpha = state.range(0) / 100, 10^9 rows.
void BM_TraceSampleRanks(benchmark::State& state) {
  const ZipfMandelbrotSampler sampler(zipf_table(1'000'000'000, state.range(0) / 100.0));
  Rng rng(1);
  std::vector<std::uint64_t> out(1 << 16);
  for (auto _ : state) {
    sampler.fill(rng, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_TraceSampleRanks)->Arg(105)->Arg(50)->Arg(0)->Arg(150);

// Row ids under the scattered layout (rank draw + the Feistel bijection), 10^9 rows.
void BM_TraceSampleScatteredRowIds(benchmark::State& state) {
  const EmbeddingTable t = zipf_table(1'000'000'000, 1.05);
  const ZipfMandelbrotSampler sampler(t);
  const RowLayout layout(HotRowLayout::scattered, t.rows, 7);
  Rng rng(1);
  std::vector<std::uint64_t> out(1 << 16);
  for (auto _ : state) {
    sampler.fill(rng, out);
    for (auto& r : out) r = layout.row_of_rank(r);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_TraceSampleScatteredRowIds);

// Whole bags (pooling 15) of one GPU's 4096 samples: per-bag streams, layout; with and without
// unique_in_bag (range 0) and reuse 0.3 at iteration 5 (range 1).
void BM_TraceBags(benchmark::State& state) {
  Workload w;
  w.trace.unique_in_bag = state.range(0) != 0;
  w.trace.reuse = state.range(1) != 0 ? 0.3 : 0.0;
  const BagGenerator gen(zipf_table(1'000'000'000, 1.05), 0, w);
  Bags bags;
  std::int64_t items = 0;
  for (auto _ : state) {
    bags.clear();
    gen.append(5, 0, 4096, RowSpace::row_id, bags);
    items += static_cast<std::int64_t>(bags.rows.size());
    benchmark::DoNotOptimize(bags.rows.data());
  }
  state.SetItemsProcessed(items);
}
BENCHMARK(BM_TraceBags)->Args({0, 0})->Args({1, 0})->Args({0, 1});

// One query on a 2.5·10^9-row table (OPER's Syn_Large): mass and expected_distinct of a block
// of 1/64 of the table, in rank space and in scattered row-id space.
void BM_TracePowerLawMass(benchmark::State& state) {
  const PowerLawProfile p(zipf_table(2'500'000'000ULL, 1.05), HotRowLayout::scattered, 3);
  const auto space = state.range(0) == 0 ? RowSpace::rank : RowSpace::row_id;
  const std::uint64_t n = p.num_rows();
  std::uint64_t b = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.mass({b * n / 64, (b + 1) * n / 64}, space));
    b = (b + 1) % 64;
  }
}
BENCHMARK(BM_TracePowerLawMass)->Arg(0)->Arg(1);

void BM_TracePowerLawDistinct(benchmark::State& state) {
  const PowerLawProfile p(zipf_table(2'500'000'000ULL, 1.05), HotRowLayout::scattered, 3);
  const auto space = state.range(0) == 0 ? RowSpace::rank : RowSpace::row_id;
  const std::uint64_t n = p.num_rows();
  std::uint64_t b = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        p.expected_distinct({b * n / 64, (b + 1) * n / 64}, space, 65536.0 * 15));
    b = (b + 1) % 64;
  }
}
BENCHMARK(BM_TracePowerLawDistinct)->Arg(0)->Arg(1);

// A trace file of 8 tables x 4·10^6 lookups (~256 MB) in the temp folder, written once.
const std::string& bench_trace_file() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() /
                           ("shardsim_bench_" + std::to_string(::getpid()) + ".bin"))
                              .string();
    const std::uint64_t samples = 1 << 18, pooling = 16;
    std::vector<TraceTableInfo> tables;
    for (int t = 0; t < 8; ++t)
      tables.push_back({"t" + std::to_string(t), 1'000'000'000, samples * pooling});
    const ZipfMandelbrotSampler sampler(zipf_table(1'000'000'000, 1.05));
    write_trace_file(p, samples, tables, 2, [&](std::size_t t, TraceSectionWriter& w) {
      const std::vector<std::uint32_t> lengths(samples, pooling);
      w.write_lengths(lengths);
      Rng rng(t);
      std::vector<std::uint64_t> rows(1 << 16);
      for (std::uint64_t done = 0; done < samples * pooling; done += rows.size()) {
        sampler.fill(rng, rows);
        w.write_rows(rows);
      }
    });
    std::atexit([] { std::filesystem::remove(bench_trace_file()); });
    return p;
  }();
  return path;
}

// Streaming every table of the file: reads, checksums, checks lengths and row ids (page cache).
void BM_TraceFileRead(benchmark::State& state) {
  const auto trace = open_recorded_trace(bench_trace_file());
  std::uint64_t bytes = 0, sum = 0;
  for (auto _ : state) {
    for (std::size_t t = 0; t < trace->num_tables(); ++t)
      trace->stream_table(
          t, [&](std::span<const std::uint32_t> l) { bytes += l.size_bytes(); },
          [&](std::span<const std::uint64_t> r) {
            bytes += r.size_bytes();
            sum += r.front();
          });
  }
  benchmark::DoNotOptimize(sum);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
}
BENCHMARK(BM_TraceFileRead)->Unit(benchmark::kMillisecond);

// Building the empirical profile of one table of the file (4·10^6 lookups, ~10^6 distinct rows).
void BM_TraceEmpiricalProfileBuild(benchmark::State& state) {
  const auto trace = open_recorded_trace(bench_trace_file());
  for (auto _ : state) benchmark::DoNotOptimize(build_empirical_profile(*trace, 0));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trace->table(0).lookups));
}
BENCHMARK(BM_TraceEmpiricalProfileBuild)->Unit(benchmark::kMillisecond);

// Queries of an empirical profile of that table: mass and expected_distinct of 1/64 row-id
// blocks and rank blocks (range 0: rank, 1: row id; range 1: 0 mass, 1 distinct).
void BM_TraceEmpiricalQuery(benchmark::State& state) {
  static const auto profile = build_empirical_profile(*open_recorded_trace(bench_trace_file()), 0);
  const auto space = state.range(0) == 0 ? RowSpace::rank : RowSpace::row_id;
  const std::uint64_t n = profile->num_rows();
  std::uint64_t b = 0;
  for (auto _ : state) {
    const RowRange r{b * n / 64, (b + 1) * n / 64};
    if (state.range(1) == 0)
      benchmark::DoNotOptimize(profile->mass(r, space));
    else
      benchmark::DoNotOptimize(profile->expected_distinct(r, space, 65536.0 * 15));
    b = (b + 1) % 64;
  }
}
BENCHMARK(BM_TraceEmpiricalQuery)->Args({0, 0})->Args({1, 0})->Args({0, 1})->Args({1, 1});

// The end-to-end goal: one iteration of a 1000-table model in expected mode, 64 K samples
// (8 GPUs x 8192) x pooling 15 per table, each table split in Arg row-wise blocks (1: whole
// tables, as table-wise plans hold them): building every table's profile (the trace source) and
// drawing the iteration. Tables of 10^4 to 10^9 rows (log-uniform), alpha 0.8..1.3, scattered
// layout.
void BM_TraceExpectedIteration1000Tables(benchmark::State& state) {
  setup_logging(Verbosity::quiet);
  DlrmModel model;
  Rng rng(5);
  for (int t = 0; t < 1000; ++t) {
    EmbeddingTable e =
        zipf_table(static_cast<std::uint64_t>(std::exp(rng.uniform(std::log(1e4), std::log(1e9)))),
                   rng.uniform(0.8, 1.3));
    e.name = "t" + std::to_string(t);
    model.tables.push_back(e);
  }
  Workload w;
  w.trace.mode = TraceMode::expected;
  const int gpus = 8;
  const std::uint32_t samples = 8192;
  const auto splits = static_cast<std::uint64_t>(state.range(0));
  for (auto _ : state) {
    // A new seed each time: the tables' layouts differ, so no profile comes from the ones the
    // process shares (trace/shared_profiles.hpp) and each iteration builds its own.
    ++w.seed;
    const SyntheticTraceSource source(model, w);
    double lookups = 0;
    for (std::size_t t = 0; t < model.tables.size(); ++t) {
      const std::uint64_t rows = model.tables[t].rows;
      std::vector<RowBlock> blocks;
      for (std::uint64_t b = 0; b < splits; ++b)
        blocks.push_back({{b * rows / splits, (b + 1) * rows / splits}, RowSpace::row_id});
      const TableIterationDraw d = source.draw(t, 0, gpus, samples, blocks);
      lookups += d.lookups_by_block_gpu.front() + d.distinct_by_block.front();
    }
    benchmark::DoNotOptimize(lookups);
  }
}
BENCHMARK(BM_TraceExpectedIteration1000Tables)
    ->ArgName("blocks")
    ->Arg(8)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace shardsim
