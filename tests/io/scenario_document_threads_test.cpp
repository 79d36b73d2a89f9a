// Documents derived from one scenario by several threads at once, as `size` and the MPI ranks do
// (io/scenario_document.hpp). yaml-cpp nodes that share a subtree also share its memory, and
// building a new document from them merges that memory: without the lock in yaml_path.cpp two
// threads deriving documents from one input corrupt it (seen as a crash of `mpirun -n 3
// shardsim size`, CI stop 34).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "scenario_test_helpers.hpp"
#include "shardsim/io/scenario_document.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {
namespace {

TEST(ScenarioDocumentThreads, ManyThreadsDeriveAndLoadFromOneDocument) {
  const ScenarioDocument base = ScenarioDocument::parse(test::tiny_text(), "tiny.yaml");
  // As `size` does: one document per preset first, then every probe derived from those.
  std::vector<ScenarioDocument> derived;
  for (const int seed : {1, 2, 3})
    derived.push_back(base.with_seed(static_cast<std::uint64_t>(seed)));
  constexpr int kThreads = 8;
  constexpr int kRounds = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const ScenarioDocument& from = derived[static_cast<std::size_t>((t + r) % 3)];
        const int batch = 64 * (1 + (t + r) % 4);
        const ScenarioDocument d =
            from.with_overrides({Override{"workload.batch_per_gpu", std::to_string(batch)}});
        const ScenarioDocument e = d.without_sweep().with_seed(static_cast<std::uint64_t>(r));
        const Scenario sc = load_scenario(e);
        if (sc.workload.batch_per_gpu != static_cast<std::uint32_t>(batch) ||
            sc.workload.seed != static_cast<std::uint64_t>(r)) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  // The inputs are unchanged.
  EXPECT_EQ(load_scenario(base).workload.seed,
            load_scenario(ScenarioDocument::parse(test::tiny_text(), "tiny.yaml")).workload.seed);
  EXPECT_EQ(load_scenario(derived[1]).workload.seed, 2u);
}

}  // namespace
}  // namespace shardsim
