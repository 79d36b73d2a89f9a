// Benchmarks of traces and access profiles (issue 3; numbers in docs/performance.md):
//   sampling speed (target >= 100 M indices/s on one core, alpha 1.05 over 10^9 rows),
//   profile queries (target < 1 us), trace file reads (target >= 1 GB/s), and generating and
//   profiling one iteration of a 1000-table model in expected mode (target < 2 s).
// Run: scripts/bench.sh --benchmark_filter=Trace
#include <benchmark/benchmark.h>
#include <unistd.h>

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

}  // namespace
}  // namespace shardsim
