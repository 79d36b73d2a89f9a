#include "shardsim/trace/recorded_trace_source.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include "shardsim/core/error.hpp"
#include "shardsim/trace/synthetic_trace_source.hpp"
#include "shardsim/trace/synthetic_trace_writer.hpp"
#include "support/power_law_table.hpp"
#include "support/scratch.hpp"

namespace shardsim::recorded_trace_source_test {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("shardsim_replay_test_" + std::to_string(::getpid()));
  if (fs::create_directories(dir)) testing::ScratchPaths::instance().add(dir);
  return dir / name;
}

EmbeddingTable table(std::string name, std::uint64_t rows, double alpha, PoolingSpec pooling) {
  return testing::power_law_table(std::move(name), rows, alpha, std::move(pooling));
}

PoolingSpec fixed(double v) {
  return PoolingSpec::fixed_at(v);
}
PoolingSpec uniform(double lo, double hi) {
  return PoolingSpec::uniform_between(lo, hi);
}
DlrmModel two_tables() {
  DlrmModel m;
  m.tables = {table("users", 50'000, 1.1, uniform(1, 9)), table("ads", 3000, 0.7, fixed(2))};
  return m;
}

Workload sampled_workload() {
  Workload w;
  w.seed = 9;
  w.trace.mode = TraceMode::sampled;
  w.trace.layout = HotRowLayout::scattered;
  w.trace.unique_in_bag = true;
  w.trace.reuse = 0.25;
  return w;
}

std::vector<RowBlock> blocks_of(std::uint64_t rows, std::uint64_t n,
                                RowSpace space = RowSpace::row_id) {
  std::vector<RowBlock> b;
  for (std::uint64_t i = 0; i < n; ++i) b.push_back({{i * rows / n, (i + 1) * rows / n}, space});
  return b;
}

TEST(RecordedTraceSource, ReplayingAGeneratedTraceReproducesSampledMode) {
  const DlrmModel model = two_tables();
  const Workload w = sampled_workload();
  const SyntheticTraceShape shape{4, 64, 3};
  const fs::path file = scratch("gen.bin");
  write_synthetic_trace(file.string(), model, w, shape, 2);
  const RecordedTraceSource replay(open_recorded_trace(file.string()), model, file.string());
  const SyntheticTraceSource synthetic(model, w);
  ASSERT_EQ(replay.num_samples(), 4u * 64 * 3);
  for (std::size_t t = 0; t < 2; ++t) {
    const auto blocks = blocks_of(model.tables[t].rows, 3);
    for (int it = 0; it < 3; ++it) {
      const auto r = replay.draw(t, it, 4, 64, blocks);
      const auto s = synthetic.draw(t, it, 4, 64, blocks);
      EXPECT_EQ(r.lookups_by_block_gpu, s.lookups_by_block_gpu) << t << " " << it;
      EXPECT_EQ(r.distinct_by_block, s.distinct_by_block) << t << " " << it;
    }
    // Past the end the replay wraps around: iteration 3 is iteration 0 again.
    EXPECT_EQ(replay.draw(t, 3, 4, 64, blocks).lookups_by_block_gpu,
              replay.draw(t, 0, 4, 64, blocks).lookups_by_block_gpu);
    // Rank-space blocks see the same lookups in total.
    const auto by_rank =
        replay.draw(t, 1, 4, 64, blocks_of(model.tables[t].rows, 5, RowSpace::rank));
    const auto by_id = replay.draw(t, 1, 4, 64, blocks);
    EXPECT_EQ(
        std::accumulate(by_rank.lookups_by_block_gpu.begin(), by_rank.lookups_by_block_gpu.end(),
                        0.0),
        std::accumulate(by_id.lookups_by_block_gpu.begin(), by_id.lookups_by_block_gpu.end(), 0.0));
  }
  // The profile is the trace's: its mass of table 1 sums to 1 and its lookups are the file's.
  EXPECT_NEAR(replay.profile(1).mass({0, 3000}, RowSpace::row_id), 1.0, 1e-12);
  EXPECT_EQ(replay.empirical_profile(1).lookups(), 2u * 4 * 64 * 3);
}

TEST(RecordedTraceSource, TheFileDoesNotDependOnThreads) {
  const DlrmModel model = two_tables();
  const SyntheticTraceShape shape{2, 100, 2};
  write_synthetic_trace(scratch("j1.bin").string(), model, sampled_workload(), shape, 1);
  write_synthetic_trace(scratch("j4.bin").string(), model, sampled_workload(), shape, 4);
  std::ifstream a(scratch("j1.bin"), std::ios::binary), b(scratch("j4.bin"), std::ios::binary);
  const std::string sa((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string sb((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(sa.empty());
  EXPECT_EQ(sa, sb);
}

TEST(RecordedTraceSource, TheTraceMustMatchTheModel) {
  const DlrmModel model = two_tables();
  const fs::path file = scratch("match.bin");
  write_synthetic_trace(file.string(), model, sampled_workload(), {1, 10, 1}, 1);
  const auto error_of = [&](const DlrmModel& m) {
    try {
      RecordedTraceSource(open_recorded_trace(file.string(), "workload.trace.file"), m,
                          file.string());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of(model), "");
  DlrmModel fewer = model;
  fewer.tables.pop_back();
  EXPECT_NE(error_of(fewer).find("the trace has 2 tables but the model has 1"), std::string::npos);
  DlrmModel bigger = model;
  bigger.tables[1].rows = 4000;
  const std::string msg = error_of(bigger);
  EXPECT_NE(msg.find("3000 rows in the trace but 4000 in the model"), std::string::npos) << msg;
  EXPECT_NE(msg.find("workload.trace.file"), std::string::npos);
}

TEST(RecordedTraceSource, MakeTraceSourceReplaysCsvFiles) {
  const fs::path csv = scratch("hand.csv");
  {
    std::ofstream out(csv);
    out << "# rows: 10\ntable,sample,row\n0,0,1\n0,0,2\n0,1,1\n0,2,9\n";
  }
  DlrmModel model;
  model.tables = {table("t0", 10, 1.0, fixed(1))};
  Workload w;
  w.trace.file = csv.string();
  const auto source = make_trace_source(model, w);
  // One GPU, 3 samples: bags [1, 2], [1], [9]; blocks [0, 5) and [5, 10).
  const auto d = source->draw(0, 0, 1, 3, blocks_of(10, 2));
  EXPECT_EQ(d.lookups_by_block_gpu, (std::vector<double>{3, 1}));
  EXPECT_EQ(d.distinct_by_block, (std::vector<double>{2, 1}));
  // Two GPUs of 2 samples: GPU 0 takes samples 0, 1; GPU 1 samples 2, 0 (wrapping).
  const auto two = source->draw(0, 0, 2, 2, blocks_of(10, 2));
  EXPECT_EQ(two.lookups_by_block_gpu, (std::vector<double>{3, 2, 0, 1}));
  EXPECT_EQ(two.distinct_by_block, (std::vector<double>{2, 1}));
  // The profile: row 1 has 2 of 4 lookups.
  EXPECT_DOUBLE_EQ(source->profile(0).mass({1, 2}, RowSpace::row_id), 0.5);
  EXPECT_EQ(source->profile(0).rank_of_row(1), 0u);
}

}  // namespace
}  // namespace shardsim::recorded_trace_source_test
