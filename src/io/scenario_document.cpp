// A scenario document as read, before validation (io/scenario_document.hpp).
#include "shardsim/io/scenario_document.hpp"

#include <string>

#include "io/scenario_yaml.hpp"
#include "io/yaml_path.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {

ScenarioDocument ScenarioDocument::load(const std::string& path,
                                        const std::vector<Override>& overrides) {
  if (path.empty()) {
    return parse(default_scenario_text(), std::string(kBuiltinDefaultSource), overrides);
  }
  YAML::Node root = load_yaml_file(path);
  apply_overrides(root, overrides);
  return ScenarioDocument(YamlValue(std::move(root), path, ""));
}

ScenarioDocument ScenarioDocument::parse(std::string_view text, const std::string& file,
                                         const std::vector<Override>& overrides) {
  YAML::Node root = parse_yaml(text, file);
  apply_overrides(root, overrides);
  return ScenarioDocument(YamlValue(std::move(root), file, ""));
}

bool ScenarioDocument::has_sweep() const {
  const YAML::Node& root = root_.node();
  return root.IsMap() && root["sweep"];
}

ScenarioDocument ScenarioDocument::without_sweep() const {
  return ScenarioDocument(YamlValue(without_key(root_.node(), "sweep"), file(), ""));
}

ScenarioDocument ScenarioDocument::with_seed(std::uint64_t seed) const {
  YAML::Node root = root_.node();
  apply_overrides(root, {Override{"workload.seed", std::to_string(seed)}});
  return ScenarioDocument(YamlValue(std::move(root), file(), ""));
}

ScenarioDocument ScenarioDocument::with_overrides(const std::vector<Override>& overrides) const {
  YAML::Node root = root_.node();
  apply_overrides(root, overrides);
  return ScenarioDocument(YamlValue(std::move(root), file(), ""));
}

}  // namespace shardsim
