#pragma once
// Dotted key paths into a YAML document (`model.tables[2].rows`), and setting a value at one
// without changing any node of the input in place.
//
// Why not YAML::Clone + assignment: yaml-cpp's Clone drops every node's source position (all
// marks become line 1, column 1), so errors in a cloned document would point at the wrong line,
// and assignment through operator[] aliases nodes (it can change the input). set_at_path copies
// only the maps and lists along the path, keeps their source positions, and shares every other
// subtree with the input. Documents built this way must be changed only through set_at_path
// (or apply_overrides), never in place. set_at_path and without_key may be called from several
// threads on one input: they hold a process-wide lock while they build (yaml_path.cpp).
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/core/error.hpp"

namespace shardsim {

// One step of a path: a map key, or a list index written `[i]` after a key.
struct PathStep {
  bool is_index = false;
  std::string key;        // when !is_index
  std::size_t index = 0;  // when is_index
};

// Whether `c` may be part of one key of a path: a letter, a digit, '_' or '-'.
bool is_path_key_char(char c);

// Parses `a.b[2].c`: keys of letters, digits, '_' and '-', separated by '.', each optionally
// followed by one or more `[index]`. A syntax error is an InputError at `where`, naming `key`.
std::vector<PathStep> parse_yaml_path(std::string_view text, const SourceLocation& where,
                                      const std::string& key);
// The path written back as text (`a.b[2].c`), up to (not including) step `count`.
std::string path_to_string(const std::vector<PathStep>& steps, std::size_t count);

// Where the nodes set_at_path and without_key create join their input's memory pool, for many
// documents built from one input. yaml-cpp keeps a document's nodes in one pool; putting a node
// of one pool into a map or list of another copies every entry of the second's pool into the
// first's (memory_holder::merge). Each new map or list along a path is a new pool, so without an
// arena every document built costs the input's size, per level of the path: expanding the 100
// points of a 500 kB sweep took half a minute (docs/performance.md, "Sweep expansion"). With one,
// the input's pool joins the arena's once, and each new node joins it at the cost of its own
// few nodes. Used only under set_at_path's and without_key's lock.
class YamlArena {
 public:
  void adopt(const YAML::Node& node) { pool_.push_back(node); }

 private:
  YAML::Node pool_{YAML::NodeType::Sequence};
};

// Returns a document equal to `root` with `value` set at `steps`, creating missing map keys (a
// null value counts as an empty map). Nodes created for missing keys get the source position
// `new_node_mark` when given (so a later error about them points there), none otherwise. An
// index past the end of a list, an index into a non-list or a key under a scalar or list is an
// InputError at `where` naming `key`. `root` itself is not changed.
YAML::Node set_at_path(const YAML::Node& root, const std::vector<PathStep>& steps,
                       const YAML::Node& value, const std::optional<YAML::Mark>& new_node_mark,
                       const SourceLocation& where, const std::string& key,
                       YamlArena* arena = nullptr);

// `map` without the entry `key` (a shallow copy that keeps the source position). Not a map:
// returned unchanged.
YAML::Node without_key(const YAML::Node& map, std::string_view key, YamlArena* arena = nullptr);

// A deep copy with no source positions (for values that do not come from the scenario file,
// such as `--set` values, whose positions would refer to the flag's text).
YAML::Node without_marks(const YAML::Node& node);

// A short one-line rendering of a value: a scalar as written, anything else in flow style.
std::string render_yaml_value(const YAML::Node& node);

}  // namespace shardsim
