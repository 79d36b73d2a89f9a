#include "shardsim/trace/trace_fit.hpp"

#include <gtest/gtest.h>

#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim {
namespace {

std::string fit_data(const char* name) {
  return std::string(SHARDSIM_SOURCE_DIR) + "/tests/data/" + name;
}

TEST(FitTarget, ReadsThePublishedStatistics) {
  const FitTarget t = load_fit_target(fit_data("dlrm_datasets_2021_t856.yaml"));
  EXPECT_EQ(t.tables, 856u);
  EXPECT_EQ(t.batch_size, 65536.0);
  EXPECT_NEAR(t.pooling, 887017990.0 / (856.0 * 65536.0), 1e-9);
  EXPECT_TRUE(t.open_last_bin);
  EXPECT_EQ(t.open_bin(), 16u);
  ASSERT_EQ(t.overall.rows.size(), 17u);
  EXPECT_NEAR(t.overall.rows[0], 0.473 / 0.999, 1e-12);  // renormalised
  const FitTarget u = load_fit_target(fit_data("dlrm_datasets_2022_t788.yaml"));
  EXPECT_EQ(u.tables, 788u);
  EXPECT_NEAR(u.overall.lookups[16], 0.076 / 1.002, 1e-12);
}

TEST(FitTarget, ReadsJsonWithPerTableTargets) {
  const FitTarget t =
      load_fit_target(std::string(SHARDSIM_SOURCE_DIR) + "/tests/fuzz/fit_target/per_table.json");
  EXPECT_EQ(t.tables, 2u);
  EXPECT_FALSE(t.open_last_bin);
  EXPECT_EQ(t.open_bin(), 0u);
  ASSERT_EQ(t.per_table.size(), 2u);
  EXPECT_EQ(t.per_table[0].name, "a");
  EXPECT_EQ(t.per_table[0].rows, std::optional<std::uint64_t>(50));
  EXPECT_FALSE(t.per_table[1].rows.has_value());
  EXPECT_EQ(t.per_table[1].lookups, 200.0);
  EXPECT_EQ(t.per_table[0].hist.lookups, (std::vector<double>{0.25, 0.75}));
}

void expect_bad_target(const std::string& text, const std::string& key, const std::string& what) {
  try {
    parse_fit_target_text(text, "t.yaml");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "t.yaml");
    EXPECT_GT(e.where().line, 0) << e.what();
    EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(FitTarget, BadTargetsNameLineAndKey) {
  const std::string head = "tables: 1\nbatch_size: 10\nlookups: 20\n";
  const std::string ok_hist =
      "overall: {hist_distinct_by_count: [1], hist_lookups_by_count: [1]}\n";
  expect_bad_target(
      head + "overall: {hist_distinct_by_count: [0.5, 0.3], hist_lookups_by_count: [1]}\n",
      "overall.hist_distinct_by_count", "sum to 0.8");
  expect_bad_target(
      head + "overall: {hist_distinct_by_count: [1.2, -0.2], hist_lookups_by_count: [1]}\n",
      "overall.hist_distinct_by_count[1]", "negative");
  expect_bad_target(head + ok_hist + "pooling_factor: 2\n", "pooling_factor", "pooling");
  expect_bad_target(head + ok_hist + "pooling: 7\n", "pooling", "lookups / (tables x batch_size)");
  expect_bad_target(head + ok_hist + "per_table: [{lookups: 3, hist_distinct_by_count: [1]}]\n",
                    "per_table[0]", "hist_lookups_by_count");
  expect_bad_target(head + ok_hist + "distinct_rows: 50\n", "distinct_rows", "more distinct rows");
  expect_bad_target("tables: 1000000000000\nbatch_size: 10\nlookups: 20\n" + ok_hist, "tables",
                    "at most 1000000");
}

CountShares shares_of(const CountHistograms& h) {
  return CountShares{bin_shares(h.rows), bin_shares(h.lookups)};
}

TEST(TraceFit, RecoversATablesParametersFromItsExpectedHistograms) {
  EmbeddingTable t;
  t.name = "t";
  t.rows = 300'000;
  t.dim = 16;
  t.alpha = 1.15;
  t.q = 20;
  const double n = 2e6;
  const PowerLawProfile p(t, HotRowLayout::clustered, 0);
  FitTarget target;
  target.tables = 2;
  target.batch_size = n;
  target.lookups = 2 * n;
  target.pooling = 1;
  const CountShares s = shares_of(expected_count_histograms(p, n));
  target.overall = s;
  target.per_table = {TableTarget{"known rows", t.rows, n, s}, TableTarget{"free rows", {}, n, s}};
  const auto fits = fit_tables(target, FitOptions{}, 2);
  ASSERT_EQ(fits.size(), 2u);
  for (const TableFit& f : fits) {
    EXPECT_LT(f.after.sum(), 0.02);
    EXPECT_LT(f.after.sum(), f.before.sum());
  }
  EXPECT_EQ(fits[0].fitted.rows, t.rows);
  EXPECT_NEAR(fits[0].fitted.alpha, 1.15, 0.05);
}

TEST(TraceFit, PopulationTablesApportionByLargestRemainder) {
  const std::vector<TableClass> cs{{10, 1.0, 0, 0.5}, {20, 0.5, 1, 0.3}, {30, 0.0, 0, 0.2}};
  const auto tables = population_tables(cs, 7, 2.5, 32, "p");
  ASSERT_EQ(tables.size(), 7u);  // 3.5, 2.1, 1.4 -> 3 + 1, 2, 1
  EXPECT_EQ(tables[3].name, "p0_3");
  EXPECT_EQ(tables[4].name, "p1_0");
  EXPECT_EQ(tables[6].name, "p2_0");
  EXPECT_EQ(tables[6].rows, 30u);
  EXPECT_EQ(tables[0].dim, 32u);
  EXPECT_EQ(tables[0].pooling.value, 2.5);
}

// The done-when, in closed form: a population fitted to the published statistics of
// Meta's 856- and 788-table datasets is within 0.1 L1 on both histograms (docs/traces.md §13
// checks it on sampled traces too). With the CLI's default options; ~10 s of CPU each.
void expect_population_fits(const char* name) {
  const FitTarget target = load_fit_target(fit_data(name));
  const PopulationFit fit = fit_population(target, FitOptions{});
  EXPECT_LE(fit.after.rows, 0.1) << name;
  EXPECT_LE(fit.after.lookups, 0.1) << name;
  std::printf("%s: L1 rows %.4f lookups %.4f, %d evaluations\n", name, fit.after.rows,
              fit.after.lookups, fit.evaluations);
  double shares = 0;
  for (const TableClass& c : fit.classes) {
    std::printf("  rows %llu alpha %.4f q %.4g share %.4f\n",
                static_cast<unsigned long long>(c.rows), c.alpha, c.q, c.share);
    shares += c.share;
  }
  EXPECT_NEAR(shares, 1.0, 1e-12);
}

TEST(TraceFit, PopulationFitsThePublished2021Statistics) {
  expect_population_fits("dlrm_datasets_2021_t856.yaml");
}

TEST(TraceFit, PopulationFitsThePublished2022Statistics) {
  expect_population_fits("dlrm_datasets_2022_t788.yaml");
}

}  // namespace
}  // namespace shardsim
