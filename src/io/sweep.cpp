// `sweep:` (DESIGN.md §3): axes and their Cartesian product.
#include "shardsim/io/sweep.hpp"

#include <fmt/format.h>

#include <limits>

#include "scenario_yaml.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "yaml_path.hpp"

namespace shardsim {

namespace {

struct AxisSource {
  SweepAxis axis;
  std::vector<PathStep> steps;
  YAML::Mark key_mark;  // where the key is written: new keys it creates are placed there
  SourceLocation where;
};

std::vector<AxisSource> read_axes(const YamlValue& sweep, std::size_t max_points) {
  std::vector<AxisSource> axes;
  if (sweep.is_null()) return axes;
  sweep.expect_map();
  std::size_t points = 1;
  for (auto it = sweep.node().begin(); it != sweep.node().end(); ++it) {
    const std::string key = it->first.Scalar();
    const std::string path = "sweep." + key;
    const YamlValue key_node(it->first, sweep.file(), path);
    const YamlValue values(it->second, sweep.file(), path);
    AxisSource a;
    a.where = key_node.location();
    a.key_mark = it->first.Mark();
    a.steps = parse_yaml_path(key, a.where, path);
    if (!a.steps.front().is_index && a.steps.front().key == "sweep") {
      throw key_node.error("a sweep cannot set keys under `sweep` itself",
                           "sweep over scenario keys such as cluster.nodes");
    }
    for (const AxisSource& other : axes) {
      if (other.axis.key == key) {
        throw key_node.error(
            "this key is swept twice",
            fmt::format("merge its values into one list (first at {})", other.where.to_string()));
      }
    }
    if (!values.is_sequence()) {
      throw values.error(
          fmt::format("expected a list of values, found {}",
                      values.is_null() ? "nothing" : (values.is_map() ? "a mapping" : "a scalar")),
          fmt::format("write e.g. '{}: [1, 2, 4]'", key));
    }
    if (values.size() == 0) {
      throw values.error("the list of values is empty", "give at least one value");
    }
    if (points > max_points / values.size()) {  // points x size > max_points, without overflow
      throw values.error(
          fmt::format("the sweep has more than {} points (the axes up to this one make {})",
                      max_points,
                      points > std::numeric_limits<std::size_t>::max() / values.size()
                          ? std::string("too many to count")
                          : std::to_string(points * values.size())),
          "split it into several sweeps or use fewer values; `shardsim sweep` and `validate` "
          "take --max-points N to allow more");
    }
    points *= values.size();
    a.axis.key = key;
    a.axis.values = values.elements();
    axes.push_back(std::move(a));
  }
  return axes;
}

}  // namespace

std::vector<SweepAxis> parse_sweep_axes(const YamlValue& sweep, std::size_t max_points) {
  std::vector<SweepAxis> out;
  for (auto& a : read_axes(sweep, max_points)) out.push_back(std::move(a.axis));
  return out;
}

std::vector<YamlSweepPoint> expand_sweep(const YAML::Node& root, const std::string& file,
                                         std::size_t max_points) {
  const YamlValue doc(root, file, "");
  doc.expect_map();
  const auto sweep = doc.find("sweep");
  const std::vector<AxisSource> axes =
      sweep ? read_axes(*sweep, max_points) : std::vector<AxisSource>{};
  const YAML::Node base = without_key(root, "sweep");
  if (axes.empty()) return {YamlSweepPoint{"", base}};

  std::size_t total = 1;
  for (const auto& a : axes) total *= a.axis.values.size();
  std::vector<YamlSweepPoint> points;
  points.reserve(total);
  // Mixed-radix counter over the axes, last axis fastest (so the first axis is the slowest).
  std::vector<std::size_t> digit(axes.size(), 0);
  for (std::size_t p = 0; p < total; ++p) {
    YamlSweepPoint point{"", base};
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const YAML::Node& value = axes[k].axis.values[digit[k]].node();
      point.document = set_at_path(point.document, axes[k].steps, value, axes[k].key_mark,
                                   axes[k].where, "sweep." + axes[k].axis.key);
      if (k > 0) point.label += ',';
      point.label += axes[k].axis.key + "=" + render_yaml_value(value);
    }
    points.push_back(std::move(point));
    for (std::size_t k = axes.size(); k-- > 0;) {
      if (++digit[k] < axes[k].axis.values.size()) break;
      digit[k] = 0;
    }
  }
  return points;
}

std::vector<SweepPoint> expand_sweep(const ScenarioDocument& document, std::size_t max_points) {
  std::vector<SweepPoint> out;
  for (YamlSweepPoint& p : expand_sweep(document.root().node(), document.file(), max_points)) {
    out.push_back(SweepPoint{std::move(p.label), ScenarioDocument(YamlValue(std::move(p.document),
                                                                            document.file(), ""))});
  }
  return out;
}

}  // namespace shardsim
