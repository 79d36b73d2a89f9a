// model.generate: deterministic draws, within their bounds, with the documented statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "io/table_generator.hpp"
#include "scenario_test_helpers.hpp"
#include "shardsim/core/rng.hpp"

namespace shardsim {
namespace {

// The tiny scenario with its two listed tables plus a generate block (inserted after line 11).
std::string with_generate(const std::string& block, const std::string& workload_extra = {}) {
  std::vector<std::string> lines = test::tiny_lines();
  lines[10] += "\n  generate:\n" + block;
  if (!workload_extra.empty()) lines[14] += "\n" + workload_extra;
  return test::join_lines(lines);
}

const std::string kExampleBlock =
    "    count: 2000\n"
    "    rows: {dist: lognormal, median: 1000000, sigma: 2.0, min: 10, max: 2000000000}\n"
    "    dim: [16, 32, 64, 128]\n"
    "    pooling: {dist: uniform, min: 1, max: 40}\n"
    "    alpha: {dist: uniform, min: 0.8, max: 1.3}\n"
    "    q: {dist: loguniform, min: 1, max: 100}\n";

std::vector<EmbeddingTable> generated(const std::string& text) {
  Scenario sc = load_scenario_text(text, "gen.yaml");
  // The first two tables are the listed ones.
  return {sc.model.tables.begin() + 2, sc.model.tables.end()};
}

bool same_tables(const std::vector<EmbeddingTable>& a, const std::vector<EmbeddingTable>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].rows != b[i].rows || a[i].dim != b[i].dim ||
        a[i].pooling.value != b[i].pooling.value || a[i].alpha != b[i].alpha || a[i].q != b[i].q) {
      return false;
    }
  }
  return true;
}

TEST(ScenarioGenerate, DeterministicForOneSeed) {
  const auto a = generated(with_generate(kExampleBlock));
  const auto b = generated(with_generate(kExampleBlock));
  ASSERT_EQ(a.size(), 2000u);
  EXPECT_TRUE(same_tables(a, b));
}

TEST(ScenarioGenerate, SeedComesFromTheWorkloadUnlessGiven) {
  const auto s42 = generated(with_generate(kExampleBlock));
  const auto s7 = generated(with_generate(kExampleBlock, "  seed: 7"));
  EXPECT_FALSE(same_tables(s42, s7));
  // An explicit generate.seed wins over workload.seed.
  const auto g42 = generated(with_generate(kExampleBlock + "    seed: 42\n", "  seed: 7"));
  EXPECT_TRUE(same_tables(s42, g42));
}

TEST(ScenarioGenerate, DrawsStayWithinTheirBounds) {
  const auto t = generated(with_generate(kExampleBlock));
  for (const auto& e : t) {
    EXPECT_GE(e.rows, 10u);
    EXPECT_LE(e.rows, 2000000000u);
    EXPECT_TRUE(e.dim == 16 || e.dim == 32 || e.dim == 64 || e.dim == 128) << e.dim;
    EXPECT_EQ(e.pooling.kind, PoolingSpec::Kind::fixed);
    EXPECT_GE(e.pooling.value, 1.0);
    EXPECT_LE(e.pooling.value, 40.0);
    EXPECT_GE(e.alpha, 0.8);
    EXPECT_LE(e.alpha, 1.3);
    EXPECT_GE(e.q, 1.0);
    EXPECT_LE(e.q, 100.0);
  }
  EXPECT_EQ(t.front().name, "gen0");
  EXPECT_EQ(t.back().name, "gen1999");
}

TEST(ScenarioGenerate, StatisticsMatchTheDistributions) {
  const auto t = generated(with_generate(kExampleBlock));
  const double n = static_cast<double>(t.size());
  // Lognormal rows: the median of log(rows) is log(1e6) = 13.8155. The standard error of a
  // sample median of N(mu, 2^2) with n = 2000 is 1.2533 * 2 / sqrt(2000) = 0.056; allow 0.2.
  std::vector<double> logs;
  for (const auto& e : t) logs.push_back(std::log(static_cast<double>(e.rows)));
  std::nth_element(logs.begin(), logs.begin() + logs.size() / 2, logs.end());
  EXPECT_NEAR(logs[logs.size() / 2], std::log(1e6), 0.2);
  // Uniform alpha on [0.8, 1.3]: mean 1.05, standard error 0.5 / sqrt(12 * 2000) = 0.0032.
  double alpha_sum = 0, pool_sum = 0, logq_sum = 0;
  std::map<std::uint32_t, int> dims;
  for (const auto& e : t) {
    alpha_sum += e.alpha;
    pool_sum += e.pooling.value;
    logq_sum += std::log(e.q);
    ++dims[e.dim];
  }
  EXPECT_NEAR(alpha_sum / n, 1.05, 0.015);
  // Uniform pooling on [1, 40]: mean 20.5, standard error 39 / sqrt(12 * 2000) = 0.25.
  EXPECT_NEAR(pool_sum / n, 20.5, 1.0);
  // Loguniform q on [1, 100]: log q uniform on [0, 4.605], mean 2.303, s.e. 0.03.
  EXPECT_NEAR(logq_sum / n, std::log(100.0) / 2, 0.12);
  // Each of the 4 dims chosen with probability 1/4: 500 +- 19.4 (one s.d.); allow 100.
  ASSERT_EQ(dims.size(), 4u);
  for (const auto& [dim, count] : dims) EXPECT_NEAR(count, 500, 100) << "dim " << dim;
}

TEST(ScenarioGenerate, StreamsAreKeyedByTableAndField) {
  // Table i's rows come from Rng(stream_seed(seed, {i, rows})): recompute table 3's by hand.
  // lognormal(median 1e6, sigma 2) = exp(log(1e6) + 2 * z), rounded and clipped to [10, 2e9].
  const auto t = generated(with_generate(kExampleBlock));
  Rng rng(stream_seed(42, {3, static_cast<std::uint64_t>(GeneratedField::rows)}));
  const double x = std::exp(std::log(1e6) + 2.0 * rng.normal());
  const double expect = std::clamp(std::nearbyint(x), 10.0, 2e9);
  EXPECT_EQ(t[3].rows, static_cast<std::uint64_t>(expect));
  // Changing one field's distribution leaves the other fields' draws unchanged.
  std::string other = kExampleBlock;
  other.replace(other.find("max: 1.3}"), 9, "max: 2.0}");
  const auto u = generated(with_generate(other));
  ASSERT_EQ(t.size(), u.size());
  bool some_alpha_differs = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t[i].rows, u[i].rows);
    EXPECT_EQ(t[i].dim, u[i].dim);
    EXPECT_EQ(t[i].pooling.value, u[i].pooling.value);
    some_alpha_differs |= t[i].alpha != u[i].alpha;
  }
  EXPECT_TRUE(some_alpha_differs);
}

TEST(ScenarioGenerate, ConstantsIntegersAndDefaults) {
  const auto t = generated(with_generate(
      "    count: 300\n    rows: {dist: uniform, min: 10, max: 12}\n    dim: 8\n    pooling: 3\n"
      "    name_prefix: x_\n"));
  std::map<std::uint64_t, int> rows;
  for (const auto& e : t) {
    ++rows[e.rows];
    EXPECT_EQ(e.dim, 8u);
    EXPECT_DOUBLE_EQ(e.pooling.value, 3);
    EXPECT_DOUBLE_EQ(e.alpha, 1.0);  // default, as for listed tables
    EXPECT_DOUBLE_EQ(e.q, 0.0);
  }
  // Whole numbers 10, 11, 12 only, each drawn (rounding the uniform gives 10 and 12 a quarter
  // each and 11 a half).
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows.begin()->first, 10u);
  EXPECT_EQ(rows.rbegin()->first, 12u);
  EXPECT_EQ(t.front().name, "x_0");
}

TEST(ScenarioGenerate, GenerateAloneIsEnough) {
  std::vector<std::string> lines = test::tiny_lines();
  lines[5] = "  generate: {count: 3, rows: 100, dim: 4, pooling: 1}";
  lines.erase(lines.begin() + 6, lines.begin() + 11);
  const Scenario sc = load_scenario_text(test::join_lines(lines), "g.yaml");
  ASSERT_EQ(sc.model.tables.size(), 3u);
  EXPECT_EQ(sc.model.tables[2].name, "gen2");
}

TEST(ScenarioGenerate, BadGenerateBlocks) {
  using test::expect_input_error;
  // The generate block starts on line 13 (after the 11 lines and "  generate:").
  expect_input_error(with_generate("    count: 0\n    rows: 1\n    dim: 4\n    pooling: 1\n"), 13,
                     "model.generate.count", "positive");
  expect_input_error(with_generate("    count: 2\n    rows: 1\n    dim: [4, 6]\n    pooling: 1\n"),
                     15, "model.generate.dim[1]", "multiple of 4");
  expect_input_error(
      with_generate("    count: 2\n    rows: {dist: uniform, min: 0, max: 9}\n    dim: 4\n"
                    "    pooling: 1\n"),
      14, "model.generate.rows.min", "out of range");
  expect_input_error(
      with_generate("    count: 2\n    rows: {dist: lognormal, median: 100, sigma: 1, max: 1e15}\n"
                    "    dim: 4\n    pooling: 1\n"),
      14, "model.generate.rows.max", "out of range");
  expect_input_error(with_generate("    count: 2\n    rows: 5\n    dim: 4\n    pooling: 1\n"
                                   "    alpha: {dist: uniform, min: 1.5, max: 1.0}\n"),
                     17, "model.generate.alpha", "greater than max");
  expect_input_error(with_generate("    count: 2\n    rows: 5\n    dim: 4\n    pooling: 1\n"
                                   "    q: {dist: loguniform, min: 0, max: 10}\n"),
                     17, "model.generate.q.min", "min > 0");
  expect_input_error(
      with_generate("    count: 2\n    rows: 5\n    dim: 4\n    pooling: {dist: normal, min: 1}\n"),
      16, "model.generate.pooling.dist", "not one of");
  expect_input_error(
      with_generate("    count: 2\n    rows: {dist: uniform, min: 10.2, max: 10.7}\n    dim: 4\n"
                    "    pooling: 1\n"),
      14, "model.generate.rows", "no whole number");
  expect_input_error(with_generate("    count: 2\n    rows: 5\n    dim: 4\n    pooling: 1\n"
                                   "    cout: 3\n"),
                     17, "model.generate.cout", "unknown key");
  expect_input_error(with_generate("    count: 2\n    rows: 2.5\n    dim: 4\n    pooling: 1\n"), 14,
                     "model.generate.rows", "whole number");
  // A generated name colliding with a listed one ("gen0" on line 8): at the generate block.
  std::string clash = with_generate("    count: 2\n    rows: 5\n    dim: 4\n    pooling: 1\n");
  clash.replace(clash.find("    - name: b"), 13, "    - name: gen0");
  expect_input_error(clash, 13, "model.generate", "duplicate table name 'gen0'");
}

}  // namespace
}  // namespace shardsim
