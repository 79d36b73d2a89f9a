#pragma once
// Typed, validating access to YAML with error messages that name the file, line, key, what
// was expected and a hint. Every loader (scenario, hardware presets, cost parameters, plans)
// reads YAML through this, so every bad input is reported the same way.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shardsim/core/did_you_mean.hpp"
#include "shardsim/core/error.hpp"

namespace shardsim {

// Most nodes the aliases of one document may add when expanded (docs/robustness.md).
inline constexpr std::uint64_t kMaxAliasExpansionNodes = 1'000'000;
// Most bytes of scalar text the aliases of one document may add when expanded: 16 times the
// input's size, or 16 MiB for a smaller input (docs/robustness.md).
inline constexpr std::uint64_t kAliasExpansionBytesPerInputByte = 16;
inline constexpr std::uint64_t kMinAliasExpansionBytes = 16ull << 20;
// Most levels lists and mappings may nest in one document, aliases expanded (docs/robustness.md):
// below yaml-cpp's own limit, so the error names the depth at the node that exceeds it.
inline constexpr std::size_t kMaxYamlNestingDepth = 100;

// What parse_yaml's pass over a document's events counted before any node is built.
struct YamlDocumentCount {
  std::uint64_t input_bytes = 0;     // the text
  bool events_counted = true;        // false: only the file's size is known (not yet read)
  std::uint64_t written_nodes = 0;   // nodes as written (the nodes YAML::Load builds)
  std::uint64_t expanded_nodes = 0;  // nodes with every alias expanded
  std::uint64_t written_bytes = 0;   // scalar text as written
  std::uint64_t expanded_bytes = 0;  // scalar text with every alias expanded
  struct List {
    std::string path;  // e.g. "model.tables"
    std::uint64_t elements = 0;
    SourceLocation where;  // where the list (or the alias of one) starts
  };
  std::vector<List> lists;  // the lists at YamlLoadCheck::lists that the document has
};

// A check of every document parse_yaml reads, made on its count before any node is built: it
// throws (an InputError) to refuse the document. One for the process, none until installed (the
// resource guard installs one for --max-memory: run/resource_loading_estimate.hpp).
struct YamlLoadCheck {
  std::vector<std::string> lists;  // paths of the lists whose elements are counted
  std::function<void(const YamlDocumentCount&, const std::string& file)> check;
};
// Replaces the process's check; call it before documents are read on other threads.
void set_yaml_load_check(YamlLoadCheck check);

// Parses YAML text (the first document); a syntax error becomes an InputError at the parser's
// line, as do text that is not UTF-8, a document whose aliases expand it by more than
// kMaxAliasExpansionNodes nodes or its text by more than the bytes above, a key written twice in
// one mapping (at the second), nesting deeper than kMaxYamlNestingDepth levels (at the node that
// exceeds it) and a document the installed YamlLoadCheck refuses.
YAML::Node parse_yaml(std::string_view text, const std::string& file);
// Reads and parses a file; a missing or unreadable file is an InputError. The installed
// YamlLoadCheck sees the file's size (events_counted false) before it is read.
YAML::Node load_yaml_file(const std::string& path);

// One YAML node, with the file it came from and its dotted path (e.g. `model.tables[2]`).
class YamlValue {
 public:
  YamlValue(YAML::Node node, std::string file, std::string path);
  YamlValue(const YamlValue&) = default;
  YamlValue(YamlValue&&) = default;
  // Assignment rebinds this value to the other's node. (YAML::Node's own assignment writes the
  // other node's content into the node this one refers to, which would change the document it
  // came from.)
  YamlValue& operator=(const YamlValue& other);
  YamlValue& operator=(YamlValue&& other);
  ~YamlValue() = default;
  // An absent value (is_null()) at `path` in `file`: what an option that is not given reads as.
  static YamlValue absent(std::string file, std::string path);

  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  SourceLocation location() const;
  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_null() const { return !node_.IsDefined() || node_.IsNull(); }

  // An InputError located at this node, naming this node's path.
  [[nodiscard]] InputError error(std::string problem, std::string hint = {}) const;

  // Scalars. Each throws an InputError naming what was expected and what was found.
  std::string as_string() const;
  double as_double() const;           // finite (NaN and inf are rejected)
  double as_positive_double() const;  // > 0
  double as_nonnegative_double() const;
  std::int64_t as_int() const;
  std::uint64_t as_positive_int() const;
  std::uint64_t as_nonnegative_int() const;
  bool as_bool() const;
  // One of `choices`; otherwise an error listing them, with a "did you mean".
  std::string as_choice(std::initializer_list<std::string_view> choices) const;

  // Sequences.
  std::size_t size() const;
  YamlValue at(std::size_t index) const;    // path `path[i]`
  std::vector<YamlValue> elements() const;  // requires a sequence

  // Maps.
  bool has(std::string_view key) const;
  YamlValue get(std::string_view key) const;  // must exist: otherwise "missing required key"
  std::optional<YamlValue> find(std::string_view key) const;
  std::vector<std::string> keys() const;  // in file order
  // Rejects any key not in `allowed`, with a "did you mean" hint. Requires a map.
  void expect_keys(std::initializer_list<std::string_view> allowed) const;
  void expect_map() const;
  void expect_sequence() const;
  // A copy of this mapping (an empty one when this value is null) with `key` set to `value`,
  // added or overridden, named `path`; this value's document is not changed. Requires a mapping
  // or null. The copy's nodes have no line numbers.
  YamlValue with_entry(std::string_view key, double value, std::string path) const;

 private:
  std::string child_path(std::string_view key) const;
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

// Content hashes of YAML documents (core/content_hash.hpp has the hash of text), for telling
// whether two runs had the same inputs (core/input_hashes.hpp); src/core/yaml_reader_hash.cpp.
//
// A canonical one-line text of a YAML document, equal for documents that mean the same:
// - mappings as `{key:value,...}` with keys sorted (by their canonical text), so key order,
//   block or flow style, comments and indentation do not matter;
// - sequences as `[a,b,...]`, in order;
// - scalars that are numbers written as numbers: an integer literal (optional sign, digits) as
//   its digits without leading zeros or '+'; any other finite number as its value, integral
//   values below 2^53 as integers (so `4e7`, `40000000` and `40000000.0` are equal) and others as
//   the shortest text that reads back to the same double;
// - every other scalar as a JSON-quoted string of its text (quoted or not in the YAML);
// - null (`~`, `null`, an empty value, an absent node) as `~`.
std::string canonical_yaml(const YAML::Node& node);
// The document as dotted keys and canonical values, in key order: {a: {b: 1, c: [x, y]}} gives
// ("a.b", "1"), ("a.c[0]", "\"x\""), ("a.c[1]", "\"y\""). A list longer than `max_list` is one
// entry, "<n> entries, fnv1a64:..." (its content hash), so a million tables stay one line.
std::vector<std::pair<std::string, std::string>> flatten_yaml(const YAML::Node& node,
                                                              std::size_t max_list = 64);
// content_hash(canonical_yaml(node)).
std::string yaml_content_hash(const YAML::Node& node);
std::string yaml_content_hash(const YamlValue& value);

}  // namespace shardsim
