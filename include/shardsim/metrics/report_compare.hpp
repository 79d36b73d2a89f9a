#pragma once
// Baseline reports vs candidate reports -> a verdict per metric per pair (docs/regression.md).
// Pure: no files, no printing. Reports are matched by (scenario, planner, sweep point); the
// reports of one key with different seeds form one multi-seed group, compared by their means.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shardsim/metrics/compare_metrics.hpp"

namespace shardsim {

struct CompareOptions {
  // Relative tolerance per metric (index_of(MetricId)); starts at each metric's default.
  std::array<double, kMetricCount> tolerance = default_tolerances();
  // With several seeds, a difference of means counts only when it exceeds this many standard
  // errors of the mean per-seed difference (docs/regression.md, "Several seeds").
  double standard_errors = 2.0;
  // Reports present on one side only do not fail the comparison (they are still listed).
  bool allow_unmatched = false;

  static std::array<double, kMetricCount> default_tolerances();
};

enum class Verdict { ok, improved, regressed, missing };
std::string_view verdict_name(Verdict v);  // "ok", "improved", "regressed", "missing"

enum class PairStatus {
  compared,        // metrics compared
  stale,           // the baseline was produced from other inputs (input hashes differ)
  mismatched,      // the two reports describe different set-ups (seeds, GPUs, mode, ...)
  baseline_only,   // no candidate report with this key
  candidate_only,  // no baseline report with this key
};
std::string_view status_name(PairStatus s);  // "compared", "stale", ..., "candidate_only"

struct MetricComparison {
  MetricId metric = MetricId::qps;
  std::optional<double> baseline;   // the value, or the mean over seeds
  std::optional<double> candidate;  // the value, or the mean over seeds
  // (candidate - baseline) / |baseline|: +-inf when the baseline is 0 and the candidate is
  // not; NaN when either is missing.
  double change = std::numeric_limits<double>::quiet_NaN();
  double tolerance = 0;
  // Standard error of the mean per-seed difference (candidate - baseline), with 2+ seeds;
  // NaN with one seed.
  double standard_error = std::numeric_limits<double>::quiet_NaN();
  Verdict verdict = Verdict::ok;
  std::string note;  // e.g. "beyond tolerance but within 2 standard errors"; empty if none
};

struct PairComparison {
  std::string scenario;
  std::string planner;
  std::string sweep_point;
  PairStatus status = PairStatus::compared;
  std::string reason;                // stale, mismatched, unmatched: what differs or is absent
  std::vector<std::uint64_t> seeds;  // seeds of the pair (baseline's when unmatched), sorted
  std::string baseline_origin;       // where the (first) report came from; empty if none
  std::string candidate_origin;
  std::string baseline_version;  // shardsim_version
  std::string candidate_version;
  std::vector<std::string> notes;         // things worth knowing that change no verdict
  std::vector<MetricComparison> metrics;  // only when compared, in MetricId order
  bool has(Verdict v) const;              // some metric has this verdict
};

struct Comparison {
  std::vector<PairComparison> pairs;  // baseline order, then candidate-only pairs
  bool allow_unmatched = false;       // from CompareOptions
  double standard_errors = 2.0;       // from CompareOptions
  std::size_t count(PairStatus s) const;
  std::size_t pairs_with(Verdict v) const;  // compared pairs with a metric of this verdict
  // A check failed (exit 1): a metric regressed, or a pair is stale or mismatched, or (unless
  // allow_unmatched) a report has no counterpart.
  bool failed() const;
};

// Compares every baseline group with the candidate group of the same key. Two reports of the
// same key and seed on one side (or two reports of one key where one has no seed) are an
// InputError naming both origins.
Comparison compare_reports(std::span<const ReportSummary> baseline,
                           std::span<const ReportSummary> candidate,
                           const CompareOptions& options = {});

}  // namespace shardsim
