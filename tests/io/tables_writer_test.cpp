// The tables writer (io/tables_writer.hpp, `shardsim validate --tables-out`): a model's tables,
// listed, generated and pruned, written as `model.tables` entries load back as the same tables,
// bit for bit; the JSON form carries the same keys.
#include "shardsim/io/tables_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/trace/table_pruning.hpp"

namespace shardsim {
namespace {

// Every pooling form, skew keys, a name that needs quoting, generated tables with fractional
// pooling and drawn skew, and pruning both per table and model-wide.
const char* kModel = R"(name: frozen
cluster: {preset: dgx-a100, nodes: 1}
model:
  tables:
    - {name: "a: b # c", rows: 1000, dim: 16, pooling: 2.5, alpha: 1.07, q: 3.5}
    - {name: u, rows: 5000, dim: 32, pooling: {dist: uniform, min: 1, max: 9}}
    - {name: n, rows: 7000, dim: 8, pooling: {dist: normal, mean: 4.2, sigma: 1.3, min: 1}}
    - {name: l, rows: 9000, dim: 4, pooling: {dist: lognormal, mean: 15, sigma: 0.7, max: 200}}
    - {name: h, rows: 800, dim: 64, pooling: {dist: histogram, bins: [[1, 0.5], [10, 0.25]]}}
    - {name: hh, rows: 100000, dim: 16, pooling: 3, heavy_hitters: [0.2, 0.1, 0.05]}
    - {name: p, rows: 100000, dim: 16, pooling: 3, heavy_hitters: [0.2, 0.1], prune_fraction: 0.99999}
    - {name: p0, rows: 3, dim: 16, pooling: 1, prune_fraction: 0}
  generate:
    count: 20
    rows: {dist: lognormal, median: 50000, sigma: 1.0, min: 10}
    dim: [4, 8, 64]
    pooling: {dist: lognormal, median: 9, sigma: 1.0, min: 1, max: 200}
    alpha: {dist: uniform, min: 0.8, max: 1.2}
    q: {dist: uniform, min: 0, max: 2}
    seed: 11
  prune_fraction: 0.3
  bottom_mlp: [64, 16]
  top_mlp: [64, 1]
workload: {batch_per_gpu: 512, seed: 5}
placement: {planner: table_wise}
)";

// The scenario with its model's tables replaced by `tables_block` (the writer's output).
std::string with_tables(const std::string& tables_block) {
  std::string text = kModel;
  const auto begin = text.find("  tables:\n");
  const auto end = text.find("  prune_fraction: 0.3\n");
  std::string indented;
  for (std::size_t at = 0; at < tables_block.size();) {
    const auto next = tables_block.find('\n', at);
    const std::string line = tables_block.substr(at, next - at);
    if (line.rfind('#', 0) != 0) indented += "  " + line + "\n";  // under model:
    at = next + 1;
  }
  return text.substr(0, begin) + indented + text.substr(end);
}

void expect_same_tables(const std::vector<EmbeddingTable>& a,
                        const std::vector<EmbeddingTable>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].name);
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].rows, b[i].rows);
    EXPECT_EQ(a[i].dim, b[i].dim);
    EXPECT_EQ(a[i].alpha, b[i].alpha);  // bit for bit, not near
    EXPECT_EQ(a[i].q, b[i].q);
    EXPECT_EQ(a[i].heavy_hitters, b[i].heavy_hitters);
    const PoolingSpec& p = a[i].pooling;
    const PoolingSpec& r = b[i].pooling;
    EXPECT_EQ(p.kind, r.kind);
    EXPECT_EQ(p.value, r.value);
    EXPECT_EQ(p.min, r.min);
    EXPECT_EQ(p.max, r.max);
    EXPECT_EQ(p.mean, r.mean);
    EXPECT_EQ(p.sigma, r.sigma);
    EXPECT_EQ(p.histogram, r.histogram);
    EXPECT_EQ(p.keep, r.keep);
    EXPECT_EQ(a[i].pruning.fraction, b[i].pruning.fraction);
    EXPECT_EQ(a[i].pruning.original_rows, b[i].pruning.original_rows);
    EXPECT_EQ(a[i].pruning.lookup_survival, b[i].pruning.lookup_survival);
  }
}

TEST(TablesWriter, WrittenTablesLoadBackBitForBit) {
  const Scenario original = load_scenario_text(kModel, "frozen.yaml");
  ASSERT_EQ(original.model.tables.size(), 28u);
  // The model really holds what the round trip must keep: fractional draws and pruned tables.
  EXPECT_NE(original.model.tables[8].pooling.value,
            std::floor(original.model.tables[8].pooling.value));
  EXPECT_GT(original.model.tables[8].pruning.original_rows, 0u);  // model-wide 0.3
  EXPECT_EQ(original.model.tables[6].rows, 1u);                   // 0.99999 of 100000
  EXPECT_EQ(original.model.tables[6].heavy_hitters.size(), 1u);   // cut to the kept row
  EXPECT_EQ(original.model.tables[7].pruning.original_rows, 0u);  // its own 0 wins
  EXPECT_EQ(original.model.prune_fraction, 0.3);

  const std::string yaml = tables_yaml(original.model.tables, original.model.prune_fraction,
                                       "header line\n\nafter a blank");
  EXPECT_EQ(yaml.rfind("# header line\n#\n# after a blank\ntables:\n", 0), 0u) << yaml;
  EXPECT_NE(yaml.find(R"(name: "a: b # c")"), std::string::npos) << yaml;
  const Scenario reloaded = load_scenario_text(with_tables(yaml), "reloaded.yaml");
  expect_same_tables(original.model.tables, reloaded.model.tables);
  // Written again, the same bytes: the output is a fixed point.
  EXPECT_EQ(tables_yaml(reloaded.model.tables, reloaded.model.prune_fraction,
                        "header line\n\nafter a blank"),
            yaml);
}

TEST(TablesWriter, DefaultsAreLeftOut) {
  const Scenario s = load_scenario_text(kModel, "frozen.yaml");
  const std::string yaml = tables_yaml(std::span(s.model.tables).subspan(1, 1), 0.3, "");
  EXPECT_EQ(yaml,
            "tables:\n  - {name: \"u\", rows: 5000, dim: 32, pooling: {dist: uniform, "
            "min: 1, max: 9}, prune_fraction: 0.3}\n");
}

TEST(TablesWriter, AModelDefaultWithNoTablePrunedStillWritesEachTablesZero) {
  // model.prune_fraction 0.5, but every table says 0: nothing is pruned, and the list must say
  // so, or loading it under the same model.prune_fraction would prune every table.
  std::string text = kModel;
  text = text.substr(0, text.find("  tables:\n")) +
         "  tables:\n"
         "    - {name: a, rows: 1000, dim: 16, pooling: 2, prune_fraction: 0}\n"
         "    - {name: b, rows: 2000, dim: 16, pooling: 2, prune_fraction: 0}\n"
         "  prune_fraction: 0.5\n" +
         text.substr(text.find("  bottom_mlp"));
  const Scenario s = load_scenario_text(text, "zeros.yaml");
  ASSERT_EQ(s.model.tables[0].rows, 1000u);
  EXPECT_EQ(s.model.prune_fraction, 0.5);
  const std::string yaml = tables_yaml(s.model.tables, s.model.prune_fraction, "");
  EXPECT_EQ(yaml,
            "tables:\n"
            "  - {name: \"a\", rows: 1000, dim: 16, pooling: 2, prune_fraction: 0}\n"
            "  - {name: \"b\", rows: 2000, dim: 16, pooling: 2, prune_fraction: 0}\n");
  EXPECT_EQ(tables_yaml(s.model.tables, 0, ""),
            "tables:\n"
            "  - {name: \"a\", rows: 1000, dim: 16, pooling: 2}\n"
            "  - {name: \"b\", rows: 2000, dim: 16, pooling: 2}\n");
}

TEST(TablesWriter, JsonHasTheSameKeys) {
  const Scenario s = load_scenario_text(kModel, "frozen.yaml");
  const nlohmann::ordered_json j = tables_json(s.model.tables, s.model.prune_fraction);
  ASSERT_EQ(j.size(), s.model.tables.size());
  EXPECT_EQ(j[0]["name"], "a: b # c");
  EXPECT_EQ(j[0]["pooling"], 2.5);
  EXPECT_EQ(j[0]["q"], 3.5);
  EXPECT_EQ(j[3]["pooling"]["dist"], "lognormal");
  EXPECT_EQ(j[3]["pooling"]["max"], 200.0);
  EXPECT_EQ(j[4]["pooling"]["bins"][1][0], 10.0);
  EXPECT_EQ(j[6]["rows"], 100000u);  // as written, before pruning
  EXPECT_EQ(j[6]["heavy_hitters"].size(), 2u);
  EXPECT_EQ(j[6]["prune_fraction"], 0.99999);
  EXPECT_EQ(j[7]["prune_fraction"], 0.0);  // its own 0, against the model's 0.3
  EXPECT_FALSE(j[1].contains("alpha"));    // the default 1
  for (std::size_t i = 8; i < j.size(); ++i) {
    EXPECT_EQ(j[i]["pooling"].get<double>(), unpruned_table(s.model.tables[i]).pooling.value);
    EXPECT_EQ(j[i]["alpha"].get<double>(), s.model.tables[i].alpha);
  }
}

TEST(TablesWriter, UnprunedTableUndoesPruning) {
  EmbeddingTable t;
  t.name = "t";
  t.rows = 1000;
  t.dim = 8;
  t.pooling = PoolingSpec::fixed_at(4);
  t.alpha = 1.1;
  t.heavy_hitters = {0.3, 0.2};
  const EmbeddingTable pruned = prune_coldest_rows(t, 0.999);
  ASSERT_EQ(pruned.rows, 1u);
  ASSERT_LT(pruned.pooling.keep, 1.0);
  const EmbeddingTable back = unpruned_table(pruned);
  EXPECT_EQ(back.rows, 1000u);
  EXPECT_EQ(back.heavy_hitters, t.heavy_hitters);
  EXPECT_EQ(back.pooling.keep, 1.0);
  EXPECT_EQ(back.pruning.fraction, 0.999);
  EXPECT_EQ(back.pruning.original_rows, 0u);
  const EmbeddingTable again = prune_coldest_rows(back, back.pruning.fraction);
  EXPECT_EQ(again.rows, pruned.rows);
  EXPECT_EQ(again.heavy_hitters, pruned.heavy_hitters);
  EXPECT_EQ(again.pooling.keep, pruned.pooling.keep);
  // Not pruned: returned as it is.
  EXPECT_EQ(unpruned_table(t).rows, 1000u);
  EXPECT_EQ(unpruned_table(t).pruning.fraction, 0.0);
}

}  // namespace
}  // namespace shardsim
