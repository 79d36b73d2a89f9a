// `--set dotted.key=value` (DESIGN.md §3): parse_override and apply_overrides.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <span>

#include "io/scenario_yaml.hpp"
#include "io/yaml_path.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {

namespace {
std::string trim(std::string_view s) {
  const auto not_space = [](unsigned char c) { return std::isspace(c) == 0; };
  auto b = std::find_if(s.begin(), s.end(), not_space);
  auto e = std::find_if(s.rbegin(), s.rend(), not_space).base();
  return b < e ? std::string(b, e) : std::string();
}
// The node at `steps` below `root`, or an undefined node when some step is missing. Const
// access only: yaml-cpp's non-const operator[] would add the missing keys.
YAML::Node node_at(const YAML::Node& root, std::span<const PathStep> steps) {
  YAML::Node cur = root;
  for (const PathStep& s : steps) {
    const YAML::Node& c = cur;
    if (s.is_index) {
      if (!c.IsSequence() || s.index >= c.size()) return YAML::Node(YAML::NodeType::Undefined);
      cur.reset(c[s.index]);
    } else {
      if (!c.IsMap() || !c[s.key]) return YAML::Node(YAML::NodeType::Undefined);
      cur.reset(c[s.key]);
    }
  }
  return cur;
}

// `root` without the map entry `steps` names; a key that is not there is nothing to remove.
YAML::Node remove_at_path(const YAML::Node& root, const std::vector<PathStep>& steps,
                          const std::string& key, YamlArena& arena) {
  if (steps.back().is_index) {
    throw InputError(SourceLocation{}, key, "'~' removes a key, not a list element",
                     "give the whole list instead, e.g. --set placement.planner=[table_wise]");
  }
  const std::span<const PathStep> parent_steps(steps.data(), steps.size() - 1);
  const YAML::Node parent = node_at(root, parent_steps);
  if (!parent.IsDefined() || !parent.IsMap() || !parent[steps.back().key]) return root;
  const YAML::Node smaller = without_key(parent, steps.back().key, &arena);
  if (parent_steps.empty()) return smaller;
  return set_at_path(root, std::vector<PathStep>(parent_steps.begin(), parent_steps.end()), smaller,
                     std::nullopt, SourceLocation{}, key, &arena);
}

}  // namespace

Override parse_override(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) {
    throw InputError(SourceLocation{}, "--set " + text,
                     fmt::format("'{}' has no '=': expected KEY=VALUE", text),
                     "write --set dotted.key=value, e.g. --set cluster.nodes=4");
  }
  Override o{trim(std::string_view(text).substr(0, eq)),
             trim(std::string_view(text).substr(eq + 1))};
  if (o.key.empty()) {
    throw InputError(SourceLocation{}, "--set " + text, "the key before '=' is empty",
                     "write --set dotted.key=value, e.g. --set workload.batch_per_gpu=2048");
  }
  // Check the path syntax now, so a typo is reported before anything is loaded.
  (void)parse_yaml_path(o.key, SourceLocation{}, "--set " + o.key);
  return o;
}

void apply_overrides(YAML::Node& root, const std::vector<Override>& overrides) {
  YamlArena arena;  // the input's pool is joined once, not once per node copied (yaml_path.hpp)
  for (const Override& o : overrides) {
    const std::string key = "--set " + o.key;
    const std::vector<PathStep> steps = parse_yaml_path(o.key, SourceLocation{}, key);
    // The value is YAML, so `[1, 2]` and `{dist: uniform, min: 1, max: 4}` work. Its source
    // positions would refer to the flag's text, not to the scenario file: drop them.
    YAML::Node parsed;
    try {
      parsed = parse_yaml(o.value, key);
    } catch (const InputError& e) {
      throw InputError(SourceLocation{}, key,
                       fmt::format("the value '{}' is not valid YAML: {}", o.value, e.problem()),
                       "quote strings that contain ':', '#', '[' or '{', e.g. --set "
                       "name='a: b'");
    }
    const YAML::Node value = without_marks(parsed);
    if (root.IsDefined() && !root.IsNull() && !root.IsMap()) {
      throw InputError(SourceLocation{}, key, "the scenario document is not a mapping",
                       "a scenario is a mapping with cluster:, model:, workload:, ...");
    }
    if (value.IsNull()) {  // `--set key=~` (or `null`): remove the key (docs/scenario.md)
      root.reset(remove_at_path(root, steps, key, arena));
      continue;
    }
    root.reset(set_at_path(root, steps, value, std::nullopt, SourceLocation{}, key, &arena));
  }
}

}  // namespace shardsim
