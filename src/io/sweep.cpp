// `sweep:` (DESIGN.md §3): axes, zip groups, and their Cartesian product.
#include "shardsim/io/sweep.hpp"

#include <fmt/format.h>

#include <limits>

#include "io/scenario_yaml.hpp"
#include "io/yaml_path.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {

namespace {

struct AxisSource {
  SweepAxis axis;
  std::vector<PathStep> steps;
  YAML::Mark key_mark;  // where the key is written: new keys it creates are placed there
  SourceLocation where;
  std::string path;  // "sweep.<key>", or "sweep.zip.<key>" inside a zip group
};

// Keys whose values vary together: one plain axis, or a zip group (docs/scenario.md "sweep").
// Point i of the group sets value i of every key.
struct GroupSource {
  std::vector<AxisSource> axes;
  std::size_t size = 0;
};

std::string kind_of(const YamlValue& v) {
  return v.is_null() ? "nothing" : (v.is_map() ? "a mapping" : "a scalar");
}

// One `key: [values]` entry (of the sweep block or of a zip group), checked but not counted.
AxisSource read_axis(const YAML::Node& key_node_raw, const YAML::Node& values_raw,
                     const std::string& file, const std::string& path_prefix,
                     const std::vector<AxisSource>& earlier) {
  const std::string key = key_node_raw.Scalar();
  const std::string path = path_prefix + key;
  const YamlValue key_node(key_node_raw, file, path);
  const YamlValue values(values_raw, file, path);
  AxisSource a;
  a.where = key_node.location();
  a.key_mark = key_node_raw.Mark();
  a.path = path;
  a.steps = parse_yaml_path(key, a.where, path);
  if (!a.steps.front().is_index && a.steps.front().key == "sweep") {
    throw key_node.error("a sweep cannot set keys under `sweep` itself",
                         "sweep over scenario keys such as cluster.nodes");
  }
  for (const AxisSource& other : earlier) {
    if (other.axis.key == key) {
      throw key_node.error(
          "this key is swept twice",
          fmt::format("merge its values into one list (first at {})", other.where.to_string()));
    }
  }
  if (!values.is_sequence()) {
    throw values.error(fmt::format("expected a list of values, found {}", kind_of(values)),
                       fmt::format("write e.g. '{}: [1, 2, 4]'", key));
  }
  if (values.size() == 0) {
    throw values.error("the list of values is empty", "give at least one value");
  }
  a.axis.key = key;
  a.axis.values = values.elements();
  return a;
}

// A zip group: a mapping of keys to lists of one length (point i takes value i of each).
GroupSource read_zip_group(const YamlValue& zip, const std::string& path_prefix,
                           const std::vector<AxisSource>& earlier, int group_index) {
  if (!zip.is_map()) {
    throw zip.error(fmt::format("expected a mapping of keys to lists of values, found {}",
                                zip.is_sequence() ? "a list" : kind_of(zip)),
                    "write e.g. 'zip: {cluster.nodes: [1, 2], workload.batch_per_gpu: [4096, "
                    "2048]}'");
  }
  if (zip.node().size() == 0) {
    throw zip.error("the zip group is empty", "give at least one key and its list of values");
  }
  GroupSource g;
  std::vector<AxisSource> seen = earlier;
  for (auto it = zip.node().begin(); it != zip.node().end(); ++it) {
    AxisSource a = read_axis(it->first, it->second, zip.file(), path_prefix, seen);
    a.axis.zip_group = group_index;
    if (!g.axes.empty() && a.axis.values.size() != g.size) {
      const YamlValue values(it->second, zip.file(), a.path);
      throw values.error(
          fmt::format("a zip group's lists must have one length: {} has {} values, this has {}",
                      g.axes.front().axis.key, g.size, a.axis.values.size()),
          "point i of a zip group takes value i of every list; give every key as many values, or "
          "move a key out of the zip to sweep it over every point (Cartesian product)");
    }
    g.size = a.axis.values.size();
    seen.push_back(a);
    g.axes.push_back(std::move(a));
  }
  // Two equal points would be one point run twice (and share a label and a checkpoint).
  std::vector<std::string> tuples;
  for (std::size_t i = 0; i < g.size; ++i) {
    std::string t;
    for (const AxisSource& a : g.axes) t += render_yaml_value(a.axis.values[i].node()) + "\n";
    for (std::size_t j = 0; j < tuples.size(); ++j) {
      if (tuples[j] == t) {
        throw g.axes.front().axis.values[i].error(
            fmt::format("the zip group's point {} repeats its point {} (every value equal)", i + 1,
                        j + 1),
            "remove the repeated point");
      }
    }
    tuples.push_back(std::move(t));
  }
  return g;
}

std::vector<GroupSource> read_groups(const YamlValue& sweep, std::size_t max_points) {
  std::vector<GroupSource> groups;
  if (sweep.is_null()) return groups;
  sweep.expect_map();
  std::size_t points = 1;
  std::vector<AxisSource> all;  // every axis so far, to find a key swept twice
  int zip_groups = 0;
  for (auto it = sweep.node().begin(); it != sweep.node().end(); ++it) {
    std::vector<GroupSource> added;
    if (it->first.IsScalar() && it->first.Scalar() == "zip") {
      const YamlValue zip(it->second, sweep.file(), "sweep.zip");
      if (zip.is_sequence()) {
        if (zip.size() == 0) {
          throw zip.error("the list of zip groups is empty",
                          "give one mapping of keys to lists, or a list of such mappings");
        }
        for (std::size_t i = 0; i < zip.size(); ++i) {
          const std::string prefix = fmt::format("sweep.zip[{}].", i);
          added.push_back(read_zip_group(zip.at(i), prefix, all, zip_groups++));
          for (const AxisSource& a : added.back().axes) all.push_back(a);
        }
      } else {
        added.push_back(read_zip_group(zip, "sweep.zip.", all, zip_groups++));
        for (const AxisSource& a : added.back().axes) all.push_back(a);
      }
    } else {
      GroupSource g;
      g.axes.push_back(read_axis(it->first, it->second, sweep.file(), "sweep.", all));
      g.size = g.axes.front().axis.values.size();
      all.push_back(g.axes.front());
      added.push_back(std::move(g));
    }
    for (GroupSource& g : added) {
      if (points > max_points / g.size) {  // points x size > max_points, without overflow
        const YamlValue values(it->second, sweep.file(), g.axes.front().path);
        throw values.error(
            fmt::format("the sweep has more than {} points (the axes up to this one make {})",
                        max_points,
                        points > std::numeric_limits<std::size_t>::max() / g.size
                            ? std::string("too many to count")
                            : std::to_string(points * g.size)),
            "split it into several sweeps or use fewer values; `shardsim sweep` and `validate` "
            "take --max-points N to allow more");
      }
      points *= g.size;
      groups.push_back(std::move(g));
    }
  }
  return groups;
}

}  // namespace

std::size_t sweep_point_count(const std::vector<SweepAxis>& axes) {
  std::size_t points = 1;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    // The keys of a zip group follow each other and share one count.
    if (i > 0 && axes[i].zip_group >= 0 && axes[i].zip_group == axes[i - 1].zip_group) continue;
    points *= axes[i].values.size();
  }
  return points;
}

std::vector<SweepAxis> parse_sweep_axes(const YamlValue& sweep, std::size_t max_points) {
  std::vector<SweepAxis> out;
  for (auto& g : read_groups(sweep, max_points)) {
    for (auto& a : g.axes) out.push_back(std::move(a.axis));
  }
  return out;
}

std::vector<YamlSweepPoint> expand_sweep(const YAML::Node& root, const std::string& file,
                                         std::size_t max_points) {
  const YamlValue doc(root, file, "");
  doc.expect_map();
  const auto sweep = doc.find("sweep");
  const std::vector<GroupSource> groups =
      sweep ? read_groups(*sweep, max_points) : std::vector<GroupSource>{};
  // Every point's document joins one pool (yaml_path.hpp, YamlArena): without it, each point
  // cost the size of the whole input, sweep block included.
  YamlArena arena;
  const YAML::Node base = without_key(root, "sweep", &arena);
  if (groups.empty()) return {YamlSweepPoint{"", base}};

  std::size_t total = 1;
  for (const auto& g : groups) total *= g.size;
  std::vector<YamlSweepPoint> points;
  points.reserve(total);
  // Mixed-radix counter over the groups, last group fastest (so the first is the slowest); the
  // keys of a zip group take the same index.
  std::vector<std::size_t> digit(groups.size(), 0);
  for (std::size_t p = 0; p < total; ++p) {
    YamlSweepPoint point{"", base};
    for (std::size_t k = 0; k < groups.size(); ++k) {
      for (const AxisSource& a : groups[k].axes) {
        const YAML::Node& value = a.axis.values[digit[k]].node();
        point.document =
            set_at_path(point.document, a.steps, value, a.key_mark, a.where, a.path, &arena);
        if (!point.label.empty()) point.label += ',';
        point.label += a.axis.key + "=" + render_yaml_value(value);
      }
    }
    points.push_back(std::move(point));
    for (std::size_t k = groups.size(); k-- > 0;) {
      if (++digit[k] < groups[k].size) break;
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
