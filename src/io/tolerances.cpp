// `--tolerance metric=value` and `--tolerances FILE` (io/tolerances.hpp, docs/regression.md).
#include "shardsim/io/tolerances.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include "shardsim/core/error.hpp"
#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

namespace {

constexpr std::string_view kAll = "all";

std::vector<std::string> tolerance_names() {
  std::vector<std::string> names{std::string(kAll)};
  for (const MetricInfo& m : comparison_metrics()) {
    if (m.unit != MetricUnit::flag) names.emplace_back(m.name);
  }
  return names;
}

// The problem with `name` as a metric that takes a tolerance, or nothing when it is one.
std::optional<std::pair<std::string, std::string>> metric_problem(const std::string& name) {
  const MetricInfo* m = find_metric(name);
  if (name == kAll || (m && m->unit != MetricUnit::flag)) return std::nullopt;
  const std::vector<std::string> names = tolerance_names();
  if (m) {
    return std::pair{fmt::format("'{}' is a yes/no check and takes no tolerance", name),
                     fmt::format("metrics with a tolerance: {}", fmt::join(names, ", "))};
  }
  const auto best = did_you_mean(name, names);
  return std::pair{fmt::format("unknown metric '{}'", name),
                   best ? fmt::format("did you mean '{}'?", *best)
                        : fmt::format("metrics: {}", fmt::join(names, ", "))};
}

// "0.02" -> 0.02, "2%" -> 0.02; nothing when the text is not a finite number >= 0.
std::optional<double> parse_tolerance(std::string_view text) {
  bool percent = false;
  if (!text.empty() && text.back() == '%') {
    percent = true;
    text.remove_suffix(1);
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) ||
      v < 0) {
    return std::nullopt;
  }
  return percent ? v / 100 : v;
}

void set_tolerance(CompareOptions& options, const std::string& name, double value) {
  if (name == kAll) {
    for (const MetricInfo& m : comparison_metrics()) {
      if (m.unit != MetricUnit::flag) options.tolerance[index_of(m.id)] = value;
    }
    return;
  }
  options.tolerance[index_of(find_metric(name)->id)] = value;
}

constexpr const char* kValueHint = "a fraction such as 0.02, or a percentage such as 2%";

}  // namespace

void apply_tolerance_flag(CompareOptions& options, const std::string& text) {
  const SourceLocation where{"--tolerance"};
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(where, text, "expected metric=value", "e.g. --tolerance qps=0.02");
  }
  const std::string name = text.substr(0, eq);
  if (auto problem = metric_problem(name)) {
    throw InputError(where, name, problem->first, problem->second);
  }
  const auto value = parse_tolerance(std::string_view(text).substr(eq + 1));
  if (!value) {
    throw InputError(where, name,
                     fmt::format("expected a tolerance >= 0, found '{}'", text.substr(eq + 1)),
                     kValueHint);
  }
  set_tolerance(options, name, *value);
}

void apply_tolerance_file(CompareOptions& options, const std::string& path) {
  const YamlValue root(load_yaml_file(path), path, "");
  if (root.is_null()) {
    throw root.error("the tolerance file is empty",
                     "write e.g. `tolerances: {qps: 2%}` (docs/regression.md)");
  }
  root.expect_map();
  root.expect_keys({"tolerances", "standard_errors"});
  std::vector<std::string> seen;
  for (const std::string& key : root.keys()) {
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      throw root.get(key).error("this key is written twice", "remove one of them");
    }
    seen.push_back(key);
  }
  if (auto se = root.find("standard_errors")) options.standard_errors = se->as_positive_double();
  const auto tolerances = root.find("tolerances");
  if (!tolerances || tolerances->is_null()) return;
  tolerances->expect_map();
  // `all` first, so the metrics named beside it win whatever the order in the file.
  std::vector<std::pair<std::string, double>> values;
  std::vector<std::string> names;
  const YAML::Node& map = tolerances->node();
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string name = it->first.Scalar();
    const std::string path_of = tolerances->path() + "." + name;
    const YamlValue key(it->first, path, path_of);
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      throw key.error("this metric is written twice", "remove one of them");
    }
    names.push_back(name);
    if (auto problem = metric_problem(name)) throw key.error(problem->first, problem->second);
    const YamlValue value(it->second, path, path_of);
    if (!value.is_scalar()) throw value.error("expected a tolerance", kValueHint);
    const auto v = parse_tolerance(value.node().Scalar());
    if (!v) {
      throw value.error(fmt::format("expected a tolerance >= 0, found '{}'", value.node().Scalar()),
                        kValueHint);
    }
    values.emplace_back(name, *v);
  }
  for (const auto& [name, v] : values) {
    if (name == kAll) set_tolerance(options, name, v);
  }
  for (const auto& [name, v] : values) {
    if (name != kAll) set_tolerance(options, name, v);
  }
}

}  // namespace shardsim
