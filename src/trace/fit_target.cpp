// Target statistics for `shardsim trace fit` (docs/traces.md §13).
#include "shardsim/trace/fit_target.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shardsim {

namespace {

constexpr double kShareSumTolerance = 0.01;
constexpr std::size_t kMaxBins = 64;
constexpr std::uint64_t kMaxTables = 1'000'000;  // as trace files (docs/traces.md §9)

std::vector<double> parse_shares(const YamlValue& v) {
  v.expect_sequence();
  if (v.size() == 0) throw v.error("the histogram is empty", "one share per power-of-two bin");
  if (v.size() > kMaxBins)
    throw v.error(fmt::format("{} bins; at most {} (counts up to 2^63)", v.size(), kMaxBins));
  std::vector<double> out;
  double sum = 0;
  for (const YamlValue& e : v.elements()) {
    const double x = e.as_double();
    if (x < 0) throw e.error(fmt::format("a negative share {}", x), "shares are >= 0");
    out.push_back(x);
    sum += x;
  }
  if (std::abs(sum - 1.0) > kShareSumTolerance)
    throw v.error(fmt::format("the shares sum to {:.4f}, not 1", sum),
                  "give each bin's share of the total (rounding may leave 1 +- 0.01)");
  for (double& x : out) x /= sum;
  return out;
}

CountShares parse_hist(const YamlValue& v) {
  v.expect_map();
  v.expect_keys({"hist_distinct_by_count", "hist_lookups_by_count"});
  return CountShares{parse_shares(v.get("hist_distinct_by_count")),
                     parse_shares(v.get("hist_lookups_by_count"))};
}

}  // namespace

std::size_t FitTarget::open_bin() const {
  return open_last_bin ? std::max(overall.rows.size(), overall.lookups.size()) - 1 : 0;
}

FitTarget parse_fit_target(const YamlValue& doc) {
  doc.expect_map();
  doc.expect_keys({"source", "tables", "batch_size", "lookups", "distinct_rows", "pooling",
                   "open_last_bin", "overall", "per_table"});
  FitTarget t;
  t.file = doc.file();
  if (auto s = doc.find("source")) t.source = s->as_string();
  const YamlValue tables = doc.get("tables");
  t.tables = tables.as_positive_int();
  if (t.tables > kMaxTables)
    throw tables.error(fmt::format("{} tables; at most {}", t.tables, kMaxTables),
                       "check for extra zeros");
  t.batch_size = doc.get("batch_size").as_positive_double();
  t.lookups = doc.get("lookups").as_positive_double();
  if (auto d = doc.find("distinct_rows")) {
    t.distinct_rows = d->as_positive_double();
    if (t.distinct_rows > t.lookups)
      throw d->error("more distinct rows than lookups", "check the totals");
  }
  t.pooling = t.lookups / (static_cast<double>(t.tables) * t.batch_size);
  if (auto p = doc.find("pooling")) {
    t.pooling = p->as_positive_double();
    const double implied = t.lookups / (static_cast<double>(t.tables) * t.batch_size);
    if (std::abs(t.pooling / implied - 1) > 0.01)
      throw p->error(fmt::format("pooling {} but lookups / (tables x batch_size) is {:.4g}",
                                 t.pooling, implied),
                     "drop `pooling`, or fix the totals");
  }
  if (auto o = doc.find("open_last_bin")) t.open_last_bin = o->as_bool();
  t.overall = parse_hist(doc.get("overall"));
  if (t.open_last_bin && t.overall.rows.size() != t.overall.lookups.size())
    throw doc.get("overall").error(
        "with open_last_bin both histograms need the same number of bins",
        "pad the shorter with zeros up to the open bin");
  if (auto pt = doc.find("per_table")) {
    pt->expect_sequence();
    if (pt->size() != t.tables)
      throw pt->error(fmt::format("{} tables listed but tables is {}", pt->size(), t.tables));
    for (const YamlValue& e : pt->elements()) {
      e.expect_map();
      e.expect_keys({"name", "rows", "lookups", "hist_distinct_by_count", "hist_lookups_by_count"});
      TableTarget tt;
      if (auto n = e.find("name")) tt.name = n->as_string();
      if (auto r = e.find("rows")) tt.rows = r->as_positive_int();
      tt.lookups = e.get("lookups").as_positive_double();
      tt.hist = CountShares{parse_shares(e.get("hist_distinct_by_count")),
                            parse_shares(e.get("hist_lookups_by_count"))};
      t.per_table.push_back(std::move(tt));
    }
  }
  return t;
}

FitTarget load_fit_target(const std::string& path) {
  return parse_fit_target(YamlValue(load_yaml_file(path), path, ""));
}

FitTarget parse_fit_target_text(std::string_view text, const std::string& file) {
  return parse_fit_target(YamlValue(parse_yaml(text, file), file, ""));
}

}  // namespace shardsim
