#pragma once
// `shardsim diff A B` (docs/regression.md, "What changed"): what changed between two runs, per
// planner and sweep point: every headline metric (the report schema's compare metrics) before
// and after, the bottleneck before and after, and the scenario keys whose resolved values differ
// (the reports' scenario_values). Unlike `compare` it judges nothing.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace shardsim {

struct MetricChange {
  std::string metric;  // a compare metric's name
  std::optional<double> before, after;
};

struct KeyChange {
  std::string key;     // dotted, as in scenario_values
  std::string before;  // the value's JSON text, or "(absent)"
  std::string after;
};

struct ReportPairDiff {
  std::string planner;
  std::string sweep_point;
  std::vector<MetricChange> metrics;
  std::string bottleneck_before, bottleneck_after;  // "AlltoAll fwd+bwd 84%", "n/a"
  std::vector<KeyChange> keys;
  bool keys_known = true;  // false when a side's report records no scenario_values
};

struct ReportDiff {
  std::string before_origin, after_origin;
  std::vector<ReportPairDiff> pairs;
  std::vector<std::string> only_before, only_after;  // "planner" or "planner @ point"
};

// The report objects of a report JSON file, or of DIR/report.json (a run's --out), or of every
// *.json of a directory; a missing or unreadable file, or one that holds no report, is an
// InputError naming it.
std::vector<nlohmann::json> read_report_objects(const std::string& path);

ReportDiff diff_reports(const std::vector<nlohmann::json>& before,
                        const std::vector<nlohmann::json>& after);

void write_diff_text(std::ostream& out, const ReportDiff& diff);
nlohmann::ordered_json diff_to_json(const ReportDiff& diff);

}  // namespace shardsim
