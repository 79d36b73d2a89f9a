#include "shardsim/trace/trace_stats.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "shardsim/trace/power_sum.hpp"
#include "trace/count_group_merge.hpp"

namespace shardsim {

namespace {

constexpr double kAlphaMax = 20.0;
constexpr double kAlphaTolerance = 1e-7;

// The log-likelihood terms of one table: Σ c_k ln k over its ranked rows, M and its rows.
struct LikelihoodTerms {
  double sum_c_log_rank = 0;
  double lookups = 0;
  std::uint64_t rows = 0;
};

LikelihoodTerms likelihood_terms(std::span<const CountGroup> groups, std::uint64_t rows) {
  LikelihoodTerms t;
  t.rows = rows;
  double rank = 0;  // ranks before this group
  for (const CountGroup& g : groups) {
    // Σ_{k = rank+1}^{rank+m} ln k = lgamma(rank + m + 1) - lgamma(rank + 1).
    t.sum_c_log_rank += g.count() * (std::lgamma(rank + g.rows + 1) - std::lgamma(rank + 1));
    t.lookups += g.lookups;
    rank += g.rows;
  }
  return t;
}

// Golden-section search for the maximum of a concave function on [lo, hi].
double maximise(const std::function<double(double)>& f, double lo, double hi) {
  const double r = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi;
  double x1 = b - r * (b - a), x2 = a + r * (b - a);
  double f1 = f(x1), f2 = f(x2);
  while (b - a > kAlphaTolerance) {
    if (f1 < f2) {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + r * (b - a);
      f2 = f(x2);
    } else {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - r * (b - a);
      f1 = f(x1);
    }
  }
  return 0.5 * (a + b);
}

std::optional<double> fit_alpha(std::span<const LikelihoodTerms> tables) {
  double lookups = 0;
  for (const auto& t : tables) lookups += t.lookups;
  if (!(lookups > 0)) return std::nullopt;
  const auto loglik = [&](double alpha) {
    double l = 0;
    for (const auto& t : tables)
      if (t.lookups > 0)
        l -= alpha * t.sum_c_log_rank + t.lookups * std::log(power_sum(alpha, 0, 1, t.rows));
    return l;
  };
  return maximise(loglik, 0.0, kAlphaMax);
}

// Histogram bins, top-1% share and totals of one set of count groups.
void fill_counts(std::vector<const CountGroup*> groups, std::uint64_t rows, double lookups,
                 TraceTableStats& s) {
  std::stable_sort(groups.begin(), groups.end(), [](const CountGroup* a, const CountGroup* b) {
    return a->count() > b->count();
  });
  const double top = std::ceil(static_cast<double>(rows) / 100.0);
  double taken_rows = 0, taken_lookups = 0;
  for (const CountGroup* g : groups) {
    if (taken_rows >= top) break;
    const double take = std::min(g->rows, top - taken_rows);
    taken_rows += take;
    taken_lookups += take * g->count();
  }
  s.top1pct_share = lookups > 0 ? taken_lookups / lookups : 0.0;
  for (const CountGroup* g : groups) {
    if (!(g->rows > 0)) continue;
    const auto j = static_cast<std::size_t>(detail::count_octave(g->count()));
    if (s.hist_distinct_by_count.size() <= j) {
      s.hist_distinct_by_count.resize(j + 1, 0.0);
      s.hist_lookups_by_count.resize(j + 1, 0.0);
    }
    s.hist_distinct_by_count[j] += g->rows;
    s.hist_lookups_by_count[j] += lookups > 0 ? g->lookups / lookups : 0.0;
  }
}

}  // namespace

std::optional<double> fit_zipf_alpha(std::span<const CountGroup> groups, std::uint64_t rows) {
  const LikelihoodTerms t = likelihood_terms(groups, rows);
  return fit_alpha(std::span(&t, 1));
}

TraceStats compute_trace_stats(std::span<const EmpiricalProfile* const> profiles,
                               std::span<const std::string> names, std::uint64_t samples) {
  std::vector<TableCounts> tables;
  tables.reserve(profiles.size());
  for (const EmpiricalProfile* p : profiles) tables.push_back(table_counts(*p));
  return compute_trace_stats(tables, names, samples);
}

TraceStats compute_trace_stats(std::span<const TableCounts> tables,
                               std::span<const std::string> names, std::uint64_t samples) {
  TraceStats out;
  std::vector<LikelihoodTerms> terms;
  std::vector<const CountGroup*> all_groups;
  TraceTableStats& o = out.overall;
  o.name = "overall";
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const TableCounts& p = tables[t];
    TraceTableStats s;
    s.name = t < names.size() ? names[t] : "t" + std::to_string(t);
    s.rows = p.rows;
    s.samples = samples;
    s.lookups = p.lookups;
    s.distinct_rows = p.distinct_rows;
    s.distinct_exact = p.exact;
    s.mean_pooling =
        samples > 0 ? static_cast<double>(s.lookups) / static_cast<double>(samples) : 0;
    std::vector<const CountGroup*> groups;
    for (const CountGroup& g : p.groups) groups.push_back(&g);
    fill_counts(groups, s.rows, static_cast<double>(s.lookups), s);
    terms.push_back(likelihood_terms(p.groups, s.rows));
    s.alpha_fit = fit_alpha(std::span(&terms.back(), 1));
    all_groups.insert(all_groups.end(), groups.begin(), groups.end());
    o.rows += s.rows;
    o.samples += s.samples;
    o.lookups += s.lookups;
    o.distinct_rows += s.distinct_rows;
    o.distinct_exact = o.distinct_exact && s.distinct_exact;
    out.tables.push_back(std::move(s));
  }
  o.mean_pooling =
      o.samples > 0 ? static_cast<double>(o.lookups) / static_cast<double>(o.samples) : 0;
  fill_counts(all_groups, o.rows, static_cast<double>(o.lookups), o);
  o.alpha_fit = fit_alpha(terms);
  return out;
}

}  // namespace shardsim
