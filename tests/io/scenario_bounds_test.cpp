// Upper bounds of a table's access skew and pooling (model/validation.hpp, docs/scenario.md):
// beyond them the scenario is refused at the key, not run with inaccurate or infinite numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/scenario_test_helpers.hpp"
#include "shardsim/model/validation.hpp"

namespace shardsim {
namespace {

using test::expect_input_error;
using test::tiny_with;

std::string table_b(const std::string& extra) {
  return tiny_with(11, "      pooling: 4\n      " + extra);
}

TEST(ScenarioBounds, AlphaBeyondTheAccurateRangeIsRefusedAtTheKey) {
  expect_input_error(table_b("alpha: 1e308"), 12, "model.tables[1].alpha",
                     "expected an exponent <= 50, found 1e+308");
  expect_input_error(table_b("alpha: 50.5"), 12, "model.tables[1].alpha", "<= 50");
  EXPECT_NO_THROW((void)load_scenario_text(table_b("alpha: 50"), "ok.yaml"));
}

TEST(ScenarioBounds, QBeyondExactRanksIsRefusedAtTheKey) {
  expect_input_error(table_b("q: 1e308"), 12, "model.tables[1].q",
                     "expected an offset <= 1e+12, found 1e+308");
  EXPECT_NO_THROW((void)load_scenario_text(table_b("q: 1e12"), "ok.yaml"));
}

TEST(ScenarioBounds, PoolingBeyondAMillionIsRefusedAtTheKey) {
  // Was exit 3 "needs inf GB" at the end of a run.
  expect_input_error(tiny_with(11, "      pooling: 1e308"), 11, "model.tables[1].pooling.value",
                     "expected at most 1000000 lookups a sample, found 1e+308");
  expect_input_error(tiny_with(11, "      pooling: {dist: normal, mean: 4, sigma: 2e6}"), 11,
                     "model.tables[1].pooling.sigma", "at most 1000000");
  expect_input_error(tiny_with(11, "      pooling: {dist: uniform, min: 1, max: 1e7}"), 11,
                     "model.tables[1].pooling.max", "at most 1000000");
  EXPECT_NO_THROW((void)load_scenario_text(tiny_with(11, "      pooling: 1e6"), "ok.yaml"));
}

// Generated tables: the same bounds are the fields' ranges, so a drawn value never exceeds them.
TEST(ScenarioBounds, GeneratedFieldsAreBoundedAlike) {
  const auto generate = [](const std::string& field) {
    std::vector<std::string> lines = test::tiny_lines();
    lines[5] = "  generate: {count: 3, rows: 100, dim: 4, pooling: 1, " + field + "}";
    lines.erase(lines.begin() + 6, lines.begin() + 11);
    return test::join_lines(lines);
  };
  expect_input_error(generate("alpha: {dist: uniform, min: 1, max: 60}"), 6,
                     "model.generate.alpha.max", "out of range");
  expect_input_error(generate("q: 1e13"), 6, "model.generate.q", "out of range");
  EXPECT_NO_THROW((void)load_scenario_text(
      generate("alpha: {dist: lognormal, median: 40, sigma: 3}"), "ok.yaml"));
}

}  // namespace
}  // namespace shardsim
