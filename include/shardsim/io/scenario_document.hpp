#pragma once
// A scenario document as read, before validation: the YAML of a scenario file (or of the
// built-in default) with the command line's overrides applied. The run module (run/) loads
// documents, expands their sweep points and seeds, and validates each run with load_scenario
// (scenario_loader.hpp) without seeing YAML itself.
#include <cstdint>
#include <string>
#include <vector>

#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/io/override.hpp"

namespace shardsim {

class ScenarioDocument {
 public:
  // Reads `path` (empty: the built-in default scenario, named kBuiltinDefaultSource) and applies
  // `overrides` in order. A missing file, bad YAML or a bad override is an InputError.
  static ScenarioDocument load(const std::string& path,
                               const std::vector<Override>& overrides = {});
  // Parses `text`, named `file` in messages, and applies `overrides`.
  static ScenarioDocument parse(std::string_view text, const std::string& file,
                                const std::vector<Override>& overrides = {});

  const std::string& file() const { return root_.file(); }
  const YamlValue& root() const { return root_; }
  // Whether the document has a `sweep:` block.
  bool has_sweep() const;
  // The document without its `sweep:` block (unchanged when it has none).
  ScenarioDocument without_sweep() const;
  // The document with `workload.seed = seed` set (as `--set workload.seed=SEED` would).
  ScenarioDocument with_seed(std::uint64_t seed) const;
  // The document with `overrides` applied in order (as --set would).
  ScenarioDocument with_overrides(const std::vector<Override>& overrides) const;

  explicit ScenarioDocument(YamlValue root) : root_(std::move(root)) {}

 private:
  YamlValue root_;  // the whole document: path ""
};

}  // namespace shardsim
