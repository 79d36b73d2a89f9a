// `prune_fraction` (AdaEmbed what-if, docs/scenario.md): per table and model-wide, the tables as
// loaded are the pruned ones; bad values are InputErrors at the key.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "scenario_test_helpers.hpp"

namespace shardsim {
namespace {

using test::expect_input_error;
using test::tiny_with;

TEST(ScenarioPruning, BadFractionsAreErrorsAtTheKey) {
  // NaN is refused by the reader itself ("expected a number"), the others by the range check.
  for (const std::string bad : {"1.0", "1", "-0.1", ".nan", "1.5"}) {
    SCOPED_TRACE(bad);
    const std::string why = bad == ".nan" ? "expected a number" : "is not in [0, 1)";
    expect_input_error(
        tiny_with(7,
                  "    - {name: a, rows: 1000, dim: 16, pooling: 2, prune_fraction: " + bad + "}"),
        7, "model.tables[0].prune_fraction", why);
    expect_input_error(tiny_with(12, "  prune_fraction: " + bad + "\n  bottom_mlp: [64, 16]"), 12,
                       "model.prune_fraction", why);
  }
  expect_input_error(tiny_with(12, "  prune_fractions: 0.5\n  bottom_mlp: [64, 16]"), 12,
                     "model.prune_fractions", "did you mean 'prune_fraction'?");
}

TEST(ScenarioPruning, ModelDefaultAndTableOverride) {
  // Model-wide 0.5; table a overrides with 0.2, table b takes the default.
  std::vector<std::string> lines = test::tiny_lines();
  lines[6] = "    - {name: a, rows: 1000, dim: 16, pooling: 2, alpha: 1.0, prune_fraction: 0.2}";
  lines[11] = "  prune_fraction: 0.5\n" + lines[11];
  const Scenario sc = load_scenario_text(test::join_lines(lines), "prune.yaml");
  ASSERT_EQ(sc.model.tables.size(), 2u);
  const EmbeddingTable& a = sc.model.tables[0];
  const EmbeddingTable& b = sc.model.tables[1];
  EXPECT_EQ(a.rows, 800u);
  EXPECT_EQ(a.pruning.original_rows, 1000u);
  EXPECT_DOUBLE_EQ(a.pruning.fraction, 0.2);
  EXPECT_EQ(b.rows, 2500u);
  EXPECT_EQ(b.pruning.original_rows, 5000u);
  EXPECT_DOUBLE_EQ(b.pruning.fraction, 0.5);
  // Plain Zipf (alpha 1): the kept mass is H_800 / H_1000, the pooling thinned by it.
  double h800 = 0, h1000 = 0;
  for (int k = 1; k <= 1000; ++k) (k <= 800 ? h800 : h1000) += 1.0 / k;
  h1000 += h800;
  EXPECT_NEAR(a.pruning.lookup_survival, h800 / h1000, 1e-6);
  EXPECT_NEAR(a.pooling.expected(), 2.0 * h800 / h1000, 1e-5);
}

TEST(ScenarioPruning, ZeroPrunesNothing) {
  const Scenario sc = load_scenario_text(
      tiny_with(7, "    - {name: a, rows: 1000, dim: 16, pooling: 2, prune_fraction: 0}"),
      "p.yaml");
  EXPECT_EQ(sc.model.tables[0].rows, 1000u);
  EXPECT_EQ(sc.model.tables[0].pruning.original_rows, 0u);
  EXPECT_EQ(sc.model.tables[0].pooling.keep, 1.0);
}

TEST(ScenarioPruning, ARecordedTraceCannotBePruned) {
  const std::string present = "shardsim_prune_trace_" + std::to_string(::getpid()) + ".bin";
  std::ofstream(present) << "x";
  std::vector<std::string> lines = test::tiny_lines();
  lines[6] = "    - {name: a, rows: 1000, dim: 16, pooling: 2, prune_fraction: 0.5}";
  lines[14] += "\n  trace: {file: " + present + "}";
  expect_input_error(test::join_lines(lines), 7, "model.tables[0].prune_fraction",
                     "recorded trace");
  std::remove(present.c_str());
}

}  // namespace
}  // namespace shardsim
