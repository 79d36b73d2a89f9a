// `--set dotted.key=value` (DESIGN.md §3): parse_override and apply_overrides.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "scenario_yaml.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "yaml_path.hpp"

namespace shardsim {

namespace {
std::string trim(std::string_view s) {
  const auto not_space = [](unsigned char c) { return std::isspace(c) == 0; };
  auto b = std::find_if(s.begin(), s.end(), not_space);
  auto e = std::find_if(s.rbegin(), s.rend(), not_space).base();
  return b < e ? std::string(b, e) : std::string();
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
    root.reset(set_at_path(root, steps, value, std::nullopt, SourceLocation{}, key));
  }
}

}  // namespace shardsim
