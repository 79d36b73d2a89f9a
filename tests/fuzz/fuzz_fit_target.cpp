// libFuzzer target: target statistics of `shardsim trace fit` (docs/traces.md §13). A target
// that parses must have positive totals, histograms of non-negative shares that sum to 1, as
// many per-table entries as tables, and, for a small one, closed-form distances in [0, 2].
#include <cmath>

#include "fuzz_support.hpp"
#include "shardsim/trace/fit_target.hpp"
#include "shardsim/trace/trace_fit.hpp"

namespace shardsim::fuzz {
namespace {

void check_shares(const std::vector<double>& v) {
  if (v.empty()) invariant_failed("an empty histogram");
  double sum = 0;
  for (double x : v) {
    if (!(x >= 0) || !std::isfinite(x)) invariant_failed("a bad share");
    sum += x;
  }
  if (std::abs(sum - 1) > 1e-9) invariant_failed("shares that do not sum to 1");
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  using namespace shardsim::fuzz;
  quiet_once();
  expect_clean([&] {
    const FitTarget t = parse_fit_target_text(text_of(data, size), "fuzz.yaml");
    if (t.tables == 0 || !(t.batch_size > 0) || !(t.lookups > 0) || !(t.pooling > 0))
      invariant_failed("bad totals");
    check_shares(t.overall.rows);
    check_shares(t.overall.lookups);
    if (!t.per_table.empty() && t.per_table.size() != t.tables) invariant_failed("per_table");
    for (const TableTarget& tt : t.per_table) {
      check_shares(tt.hist.rows);
      check_shares(tt.hist.lookups);
    }
    // A cheap closed-form comparison (one 1000-row table) must give distances in [0, 2].
    EmbeddingTable table;
    table.name = "t";
    table.rows = 1000;
    table.dim = 4;
    const EmbeddingTable tables[] = {table};
    const HistogramDistances d =
        histogram_distances(expected_overall_histograms(tables, 100.0), t.overall, t.open_bin());
    if (!(d.rows >= 0 && d.rows <= 2 + 1e-9 && d.lookups >= 0 && d.lookups <= 2 + 1e-9))
      invariant_failed("a distance outside [0, 2]");
  });
  return 0;
}
