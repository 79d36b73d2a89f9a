// Baseline vs candidate reports: matching, staleness, verdicts (docs/regression.md).
#include "shardsim/metrics/report_compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // scenario, planner, sweep point

Key key_of(const ReportSummary& r) {
  return {r.scenario, r.planner, r.sweep_point};
}

std::string describe(const Key& k) {
  const auto& [scenario, planner, point] = k;
  return point.empty() ? fmt::format("scenario '{}' / planner '{}'", scenario, planner)
                       : fmt::format("scenario '{}' / planner '{}' / sweep point '{}'", scenario,
                                     planner, point);
}

// The reports of one key on one side, sorted by seed.
struct Group {
  Key key;
  std::vector<const ReportSummary*> reports;
};

std::vector<Group> group_by_key(std::span<const ReportSummary> reports, const char* side) {
  std::vector<Group> groups;
  std::map<Key, std::size_t> index;
  for (const ReportSummary& r : reports) {
    const Key k = key_of(r);
    auto [it, inserted] = index.emplace(k, groups.size());
    if (inserted) groups.push_back(Group{k, {}});
    Group& g = groups[it->second];
    for (const ReportSummary* other : g.reports) {
      if (!other->seed || !r.seed || *other->seed == *r.seed) {
        throw InputError(
            SourceLocation{r.origin}, "",
            fmt::format("the {} has two reports for {}{} (the other: {})", side, describe(k),
                        r.seed ? fmt::format(" with seed {}", *r.seed) : std::string(),
                        other->origin),
            "give each (scenario, planner, sweep point, seed) once per side");
      }
    }
    g.reports.push_back(&r);
  }
  for (Group& g : groups) {
    std::sort(g.reports.begin(), g.reports.end(),
              [](const ReportSummary* a, const ReportSummary* b) { return *a->seed < *b->seed; });
  }
  return groups;
}

std::vector<std::uint64_t> seeds_of(const Group& g) {
  std::vector<std::uint64_t> seeds;
  for (const ReportSummary* r : g.reports) {
    if (r->seed) seeds.push_back(*r->seed);
  }
  return seeds;
}

std::string seed_list(const std::vector<std::uint64_t>& seeds) {
  if (seeds.empty()) return "none";
  return fmt::format("{}", fmt::join(seeds, ", "));
}

// "fnv1a64:0123..." -> "fnv1a64". Hashes made by different algorithms cannot be compared.
std::string_view algorithm_of(std::string_view hash) {
  const std::size_t colon = hash.find(':');
  return colon == std::string_view::npos ? std::string_view() : hash.substr(0, colon);
}

bool hashes_differ(const std::string& a, const std::string& b) {
  return !a.empty() && !b.empty() && algorithm_of(a) == algorithm_of(b) && a != b;
}

// Why a baseline is stale for a candidate of the same seed: the inputs that changed.
std::vector<std::string> stale_reasons(const ReportSummary& b, const ReportSummary& c) {
  std::vector<std::string> out;
  if (hashes_differ(b.input_hashes.scenario, c.input_hashes.scenario)) {
    out.push_back("the scenario document changed");
  }
  if (hashes_differ(b.input_hashes.hardware, c.input_hashes.hardware)) {
    out.push_back("the hardware preset changed");
  }
  if (hashes_differ(b.input_hashes.cost, c.input_hashes.cost)) {
    out.push_back("the cost parameters changed");
  }
  return out;
}

// Set-up fields both reports carry whose values differ: "num_gpus 16 vs 32".
std::vector<std::string> setup_differences(const ReportSummary& b, const ReportSummary& c) {
  std::vector<std::string> out;
  for (const auto& [name, value] : b.setup) {
    for (const auto& [other_name, other_value] : c.setup) {
      if (name == other_name && value != other_value) {
        out.push_back(fmt::format("{} {} vs {}", name, value, other_value));
      }
    }
  }
  return out;
}

void add_unique(std::vector<std::string>& list, const std::vector<std::string>& items) {
  for (const std::string& s : items) {
    if (std::find(list.begin(), list.end(), s) == list.end()) list.push_back(s);
  }
}

// The values of `metric` on the seeds where both groups have it (the groups hold the same
// seeds, in the same order), and every value each side has.
struct Paired {
  std::vector<double> baseline;
  std::vector<double> candidate;
  std::vector<double> baseline_all;  // every value the baseline has
  std::vector<double> candidate_all;
};

Paired paired_values(const Group& b, const Group& c, MetricId metric) {
  Paired p;
  for (std::size_t i = 0; i < b.reports.size(); ++i) {
    const auto bv = b.reports[i]->value(metric);
    const auto cv = c.reports[i]->value(metric);
    if (bv) p.baseline_all.push_back(*bv);
    if (cv) p.candidate_all.push_back(*cv);
    if (bv && cv) {
      p.baseline.push_back(*bv);
      p.candidate.push_back(*cv);
    }
  }
  return p;
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double relative_change(double baseline, double candidate) {
  if (baseline == candidate) return 0;
  if (baseline == 0)
    return candidate > 0 ? std::numeric_limits<double>::infinity()
                         : -std::numeric_limits<double>::infinity();
  return (candidate - baseline) / std::fabs(baseline);
}

MetricComparison compare_metric(const MetricInfo& info, const std::vector<double>& b,
                                const std::vector<double>& c, const CompareOptions& options) {
  MetricComparison m;
  m.metric = info.id;
  m.tolerance = options.tolerance[index_of(info.id)];
  const double mb = mean_of(b);
  const double mc = mean_of(c);
  m.baseline = mb;
  m.candidate = mc;
  m.change = relative_change(mb, mc);
  // Worse by this fraction (negative: better).
  const double worse_by = info.better == Better::lower ? m.change : -m.change;
  const bool beyond = std::fabs(worse_by) > m.tolerance;

  // Several seeds: the paired differences d_i = c_i - b_i (same seeds on both sides) give the
  // standard error of their mean; a difference within standard_errors * SE is noise.
  bool significant = true;
  const std::size_t n = b.size();
  if (n >= 2 && info.unit != MetricUnit::flag) {
    double sum_sq = 0;
    const double mean_diff = mc - mb;
    for (std::size_t i = 0; i < n; ++i) {
      const double d = (c[i] - b[i]) - mean_diff;
      sum_sq += d * d;
    }
    m.standard_error = std::sqrt(sum_sq / static_cast<double>(n - 1) / static_cast<double>(n));
    significant = std::fabs(mean_diff) > options.standard_errors * m.standard_error;
  }
  if (beyond && significant) {
    m.verdict = worse_by > 0 ? Verdict::regressed : Verdict::improved;
  } else {
    m.verdict = Verdict::ok;
    if (beyond) {
      m.note =
          fmt::format("beyond tolerance but within {:g} standard errors", options.standard_errors);
    }
  }
  return m;
}

PairComparison compare_groups(const Group& b, const Group& c, const CompareOptions& options) {
  PairComparison p;
  std::tie(p.scenario, p.planner, p.sweep_point) = b.key;
  p.baseline_origin = b.reports.front()->origin;
  p.candidate_origin = c.reports.front()->origin;
  p.baseline_version = b.reports.front()->shardsim_version;
  p.candidate_version = c.reports.front()->shardsim_version;
  p.seeds = seeds_of(b);

  const std::vector<std::uint64_t> candidate_seeds = seeds_of(c);
  if (p.seeds != candidate_seeds || b.reports.size() != c.reports.size()) {
    p.status = PairStatus::mismatched;
    p.reason = fmt::format("different seeds: baseline {}, candidate {}", seed_list(p.seeds),
                           seed_list(candidate_seeds));
    return p;
  }

  std::vector<std::string> stale;
  std::vector<std::string> setup;
  bool hashes_unchecked = false;
  for (std::size_t i = 0; i < b.reports.size(); ++i) {
    add_unique(stale, stale_reasons(*b.reports[i], *c.reports[i]));
    add_unique(setup, setup_differences(*b.reports[i], *c.reports[i]));
    hashes_unchecked = hashes_unchecked || b.reports[i]->input_hashes.empty() ||
                       c.reports[i]->input_hashes.empty();
  }
  if (!stale.empty()) {
    p.status = PairStatus::stale;
    p.reason = fmt::format("{}", fmt::join(stale, "; "));
    if (!setup.empty()) p.reason += fmt::format(" ({})", fmt::join(setup, ", "));
    return p;
  }
  if (!setup.empty()) {
    p.status = PairStatus::mismatched;
    p.reason = fmt::format("different set-up: {}", fmt::join(setup, ", "));
    return p;
  }
  if (hashes_unchecked) {
    p.notes.push_back(
        "a report carries no input_hashes, so whether the baseline is stale was not checked");
  }
  if (p.baseline_version != p.candidate_version) {
    p.notes.push_back(fmt::format("shardsim versions differ ({} vs {}); the inputs are the same",
                                  p.baseline_version.empty() ? "unknown" : p.baseline_version,
                                  p.candidate_version.empty() ? "unknown" : p.candidate_version));
  }

  const std::size_t n = b.reports.size();
  for (const MetricInfo& info : comparison_metrics()) {
    const Paired v = paired_values(b, c, info.id);
    if (v.baseline.empty()) {
      // Nothing to compare. A value on one side only is "missing", unless the metric is only
      // compared when both have it.
      if (info.only_when_both || (v.baseline_all.empty() && v.candidate_all.empty())) continue;
      MetricComparison m;
      m.metric = info.id;
      m.tolerance = options.tolerance[index_of(info.id)];
      if (!v.baseline_all.empty()) m.baseline = mean_of(v.baseline_all);
      if (!v.candidate_all.empty()) m.candidate = mean_of(v.candidate_all);
      m.verdict = Verdict::missing;
      m.note = v.baseline_all.empty() ? "the baseline does not have it"
                                      : "the candidate does not have it";
      if (n > 1) m.note += " (on any seed where the other side has it)";
      p.metrics.push_back(std::move(m));
      continue;
    }
    MetricComparison m = compare_metric(info, v.baseline, v.candidate, options);
    if (v.baseline.size() < n) {
      m.note = fmt::format("over the {} of {} seeds where both have it{}{}", v.baseline.size(), n,
                           m.note.empty() ? "" : "; ", m.note);
    }
    p.metrics.push_back(std::move(m));
  }
  return p;
}

PairComparison unmatched(const Group& g, PairStatus status) {
  PairComparison p;
  std::tie(p.scenario, p.planner, p.sweep_point) = g.key;
  p.status = status;
  p.seeds = seeds_of(g);
  const bool baseline = status == PairStatus::baseline_only;
  (baseline ? p.baseline_origin : p.candidate_origin) = g.reports.front()->origin;
  (baseline ? p.baseline_version : p.candidate_version) = g.reports.front()->shardsim_version;
  p.reason = baseline ? "no candidate report for this scenario / planner / sweep point"
                      : "no baseline report for this scenario / planner / sweep point";
  return p;
}

}  // namespace

std::array<double, kMetricCount> CompareOptions::default_tolerances() {
  std::array<double, kMetricCount> t{};
  for (const MetricInfo& m : comparison_metrics()) t[index_of(m.id)] = m.default_tolerance;
  return t;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::ok:
      return "ok";
    case Verdict::improved:
      return "improved";
    case Verdict::regressed:
      return "regressed";
    case Verdict::missing:
      return "missing";
  }
  return "?";
}

std::string_view status_name(PairStatus s) {
  switch (s) {
    case PairStatus::compared:
      return "compared";
    case PairStatus::stale:
      return "stale";
    case PairStatus::mismatched:
      return "mismatched";
    case PairStatus::baseline_only:
      return "baseline_only";
    case PairStatus::candidate_only:
      return "candidate_only";
  }
  return "?";
}

bool PairComparison::has(Verdict v) const {
  return std::any_of(metrics.begin(), metrics.end(),
                     [v](const MetricComparison& m) { return m.verdict == v; });
}

std::size_t Comparison::count(PairStatus s) const {
  return static_cast<std::size_t>(std::count_if(
      pairs.begin(), pairs.end(), [s](const PairComparison& p) { return p.status == s; }));
}

std::size_t Comparison::pairs_with(Verdict v) const {
  return static_cast<std::size_t>(
      std::count_if(pairs.begin(), pairs.end(), [v](const PairComparison& p) { return p.has(v); }));
}

bool Comparison::failed() const {
  if (pairs_with(Verdict::regressed) > 0) return true;
  if (count(PairStatus::stale) > 0 || count(PairStatus::mismatched) > 0) return true;
  return !allow_unmatched &&
         (count(PairStatus::baseline_only) > 0 || count(PairStatus::candidate_only) > 0);
}

Comparison compare_reports(std::span<const ReportSummary> baseline,
                           std::span<const ReportSummary> candidate,
                           const CompareOptions& options) {
  const std::vector<Group> base = group_by_key(baseline, "baseline");
  const std::vector<Group> cand = group_by_key(candidate, "candidate");
  Comparison out;
  out.allow_unmatched = options.allow_unmatched;
  out.standard_errors = options.standard_errors;
  std::vector<bool> used(cand.size(), false);
  for (const Group& b : base) {
    const auto it =
        std::find_if(cand.begin(), cand.end(), [&](const Group& c) { return c.key == b.key; });
    if (it == cand.end()) {
      out.pairs.push_back(unmatched(b, PairStatus::baseline_only));
      continue;
    }
    used[static_cast<std::size_t>(it - cand.begin())] = true;
    out.pairs.push_back(compare_groups(b, *it, options));
  }
  for (std::size_t i = 0; i < cand.size(); ++i) {
    if (!used[i]) out.pairs.push_back(unmatched(cand[i], PairStatus::candidate_only));
  }
  return out;
}

}  // namespace shardsim
