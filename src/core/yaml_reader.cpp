#include "shardsim/core/yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "core/yaml_load_check.hpp"
#include "core/yaml_reader_expansion_counter.hpp"
#include "core/yaml_reader_structure_check.hpp"
#include "shardsim/core/text_file.hpp"
#include "shardsim/core/utf8.hpp"

namespace shardsim {

namespace {

// The line and column (1-based) of byte `offset` of `text`.
SourceLocation location_of_byte(std::string_view text, std::size_t offset,
                                const std::string& file) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return SourceLocation{file, line, column};
}

// Refuses a document whose aliases add more than kMaxAliasExpansionNodes nodes, or more scalar
// text than kAliasExpansionBytesPerInputByte times the input (at least kMinAliasExpansionBytes).
void check_alias_expansion(const ExpansionCounter& count, std::size_t input_bytes,
                           const std::string& file) {
  if (count.expanded > count.written + kMaxAliasExpansionNodes) {
    throw InputError(SourceLocation{file, count.worst.line + 1, count.worst.column + 1}, "",
                     fmt::format("aliases expand the document from {} to {} nodes, more than {} "
                                 "extra",
                                 count.written, count.expanded, kMaxAliasExpansionNodes),
                     "write the values out, or alias smaller parts (`*name` repeats the whole "
                     "node anchored `&name`)");
  }
  // Text too: a long string anchored once and aliased thousands of times adds few nodes and
  // many bytes, which every walk over the document copies.
  const std::uint64_t byte_limit = std::max<std::uint64_t>(
      kMinAliasExpansionBytes, kAliasExpansionBytesPerInputByte * input_bytes);
  if (count.expanded_bytes > count.written_bytes + byte_limit) {
    throw InputError(
        SourceLocation{file, count.worst.line + 1, count.worst.column + 1}, "",
        fmt::format("aliases expand the document's text from {} to {} bytes, more than {} "
                    "extra ({} times the input's {} bytes, or {} MiB)",
                    count.written_bytes, count.expanded_bytes, byte_limit,
                    kAliasExpansionBytesPerInputByte, input_bytes, kMinAliasExpansionBytes >> 20),
        "write the values out, or alias smaller parts (`*name` repeats the whole node "
        "anchored `&name`)");
  }
}

}  // namespace

YAML::Node parse_yaml(std::string_view text, const std::string& file) {
  if (const auto bad = first_invalid_utf8(text)) {
    throw InputError(location_of_byte(text, *bad, file), "",
                     fmt::format("the text is not valid UTF-8 (byte {} is 0x{:02x})", *bad,
                                 static_cast<unsigned char>(text[*bad])),
                     "save the file as UTF-8; YAML and the JSON reports hold only Unicode text");
  }
  const YamlLoadCheck load_check = current_yaml_load_check();
  try {
    TextViewBuffer events_text(text);
    std::istream events_in(&events_text);
    YAML::Parser parser(events_in);
    ExpansionCounter count;
    YamlStructureCheck check(file, count, load_check.lists);
    parser.HandleNextDocument(check);
    check_alias_expansion(count, text.size(), file);
    if (load_check.check) {
      load_check.check(
          YamlDocumentCount{text.size(), true, count.written, count.expanded, count.written_bytes,
                            count.expanded_bytes, check.counted()},
          file);
    }
    TextViewBuffer nodes_text(text);
    std::istream nodes_in(&nodes_text);
    return YAML::Load(nodes_in);
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(
        SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, "",
        fmt::format("lists and mappings nest more than {} levels deep", kMaxYamlNestingDepth),
        "shardsim's inputs nest a few levels: close the brackets or outdent");
  } catch (const YAML::Exception& e) {
    SourceLocation where{file, e.mark.is_null() ? 0 : e.mark.line + 1,
                         e.mark.is_null() ? 0 : e.mark.column + 1};
    throw InputError(where, "", "malformed YAML: " + e.msg,
                     "check indentation, colons and matching brackets near this line");
  }
}

YAML::Node load_yaml_file(const std::string& path) {
  // A file larger than the memory it may take is refused before it is read.
  if (const YamlLoadCheck load_check = current_yaml_load_check(); load_check.check) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) {
      YamlDocumentCount count;
      count.input_bytes = size;
      count.events_counted = false;
      load_check.check(count, path);
    }
  }
  return parse_yaml(read_text_file(path), path);
}

namespace {
const char* type_name(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "a scalar";
}
}  // namespace

YamlValue::YamlValue(YAML::Node node, std::string file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

YamlValue YamlValue::absent(std::string file, std::string path) {
  return YamlValue(YAML::Node(), std::move(file), std::move(path));
}

YamlValue& YamlValue::operator=(const YamlValue& other) {
  if (this != &other) {
    node_.reset(other.node_);
    file_ = other.file_;
    path_ = other.path_;
  }
  return *this;
}

YamlValue& YamlValue::operator=(YamlValue&& other) {
  if (this != &other) {
    node_.reset(other.node_);
    file_ = std::move(other.file_);
    path_ = std::move(other.path_);
  }
  return *this;
}

YamlValue YamlValue::with_entry(std::string_view key, double value, std::string path) const {
  if (!is_null()) expect_map();
  YAML::Node copy = is_null() ? YAML::Node(YAML::NodeType::Map) : YAML::Clone(node_);
  copy[std::string(key)] = value;
  return YamlValue(copy, file_, std::move(path));
}

SourceLocation YamlValue::location() const {
  if (!node_.IsDefined()) return SourceLocation{file_, 0, 0};
  const YAML::Mark m = node_.Mark();
  if (m.is_null()) return SourceLocation{file_, 0, 0};
  return SourceLocation{file_, m.line + 1, m.column + 1};
}

InputError YamlValue::error(std::string problem, std::string hint) const {
  return InputError(location(), path_, std::move(problem), std::move(hint));
}

std::string YamlValue::as_string() const {
  if (!node_.IsScalar()) throw error(fmt::format("expected a string, found {}", type_name(node_)));
  // The file is UTF-8 (parse_yaml), but escapes such as "\ud800" decode to bytes that are not.
  if (const auto bad = first_invalid_utf8(node_.Scalar())) {
    throw error(
        fmt::format("the string is not valid UTF-8 once its escapes are decoded (byte {})", *bad),
        "write text without lone surrogates or invalid escapes");
  }
  return node_.Scalar();
}

double YamlValue::as_double() const {
  if (!node_.IsScalar()) throw error(fmt::format("expected a number, found {}", type_name(node_)));
  const std::string& s = node_.Scalar();
  double v = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end || s.empty()) {
    throw error(fmt::format("expected a number, found '{}'", s));
  }
  if (!std::isfinite(v)) throw error(fmt::format("expected a finite number, found '{}'", s));
  return v;
}

double YamlValue::as_positive_double() const {
  const double v = as_double();
  if (!(v > 0)) throw error(fmt::format("expected a positive number, found {}", node_.Scalar()));
  return v;
}

double YamlValue::as_nonnegative_double() const {
  const double v = as_double();
  if (v < 0) throw error(fmt::format("expected a number >= 0, found {}", node_.Scalar()));
  return v;
}

std::int64_t YamlValue::as_int() const {
  if (!node_.IsScalar()) {
    throw error(fmt::format("expected an integer, found {}", type_name(node_)));
  }
  const std::string& s = node_.Scalar();
  std::int64_t v = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec == std::errc::result_out_of_range) {
    throw error(fmt::format("integer '{}' is out of range", s));
  }
  if (ec != std::errc() || ptr != end || s.empty()) {
    // Accept integral values written in floating-point or exponent form, e.g. 2.5e9.
    double d = 0;
    auto [p2, e2] = std::from_chars(begin, end, d);
    if (e2 == std::errc() && p2 == end && std::isfinite(d) && d == std::floor(d) &&
        std::fabs(d) < 9.2e18) {
      return static_cast<std::int64_t>(d);
    }
    throw error(fmt::format("expected an integer, found '{}'", s));
  }
  return v;
}

std::uint64_t YamlValue::as_positive_int() const {
  const std::int64_t v = as_int();
  if (v <= 0) throw error(fmt::format("expected a positive integer, found {}", v));
  return static_cast<std::uint64_t>(v);
}

std::uint64_t YamlValue::as_nonnegative_int() const {
  const std::int64_t v = as_int();
  if (v < 0) throw error(fmt::format("expected an integer >= 0, found {}", v));
  return static_cast<std::uint64_t>(v);
}

bool YamlValue::as_bool() const {
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "True" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "False" || s == "no" || s == "off") return false;
    throw error(fmt::format("expected true or false, found '{}'", s));
  }
  throw error(fmt::format("expected true or false, found {}", type_name(node_)));
}

std::string YamlValue::as_choice(std::initializer_list<std::string_view> choices) const {
  const std::string s = as_string();
  std::vector<std::string> cs(choices.begin(), choices.end());
  if (std::find(cs.begin(), cs.end(), s) != cs.end()) return s;
  std::string list;
  for (const auto& c : cs) list += (list.empty() ? "" : ", ") + c;
  auto best = did_you_mean(s, cs);
  throw error(fmt::format("'{}' is not one of: {}", s, list),
              best ? fmt::format("did you mean '{}'?", *best) : std::string{});
}

std::size_t YamlValue::size() const {
  expect_sequence();
  return node_.size();
}

YamlValue YamlValue::at(std::size_t index) const {
  expect_sequence();
  return YamlValue(node_[index], file_, fmt::format("{}[{}]", path_, index));
}

std::vector<YamlValue> YamlValue::elements() const {
  expect_sequence();
  std::vector<YamlValue> out;
  out.reserve(node_.size());
  for (std::size_t i = 0; i < node_.size(); ++i) out.push_back(at(i));
  return out;
}

std::string YamlValue::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool YamlValue::has(std::string_view key) const {
  if (!node_.IsMap()) return false;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) return true;
  }
  return false;
}

std::optional<YamlValue> YamlValue::find(std::string_view key) const {
  expect_map();
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) return YamlValue(it->second, file_, child_path(key));
  }
  return std::nullopt;
}

YamlValue YamlValue::get(std::string_view key) const {
  auto v = find(key);
  if (!v) {
    throw InputError(
        location(), child_path(key), "missing required key",
        fmt::format("add '{}:' under '{}'", key, path_.empty() ? "the top level" : path_));
  }
  return *v;
}

std::vector<std::string> YamlValue::keys() const {
  expect_map();
  std::vector<std::string> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) out.push_back(it->first.Scalar());
  return out;
}

void YamlValue::expect_keys(std::initializer_list<std::string_view> allowed) const {
  expect_map();
  std::vector<std::string> cs(allowed.begin(), allowed.end());
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string k = it->first.Scalar();
    if (std::find(cs.begin(), cs.end(), k) != cs.end()) continue;
    auto best = did_you_mean(k, cs);
    std::string list;
    for (const auto& c : cs) list += (list.empty() ? "" : ", ") + c;
    YamlValue key_node(it->first, file_, child_path(k));
    throw InputError(key_node.location(), child_path(k), "unknown key",
                     best ? fmt::format("did you mean '{}'?", *best)
                          : fmt::format("allowed keys here: {}", list));
  }
}

void YamlValue::expect_map() const {
  if (!node_.IsMap()) throw error(fmt::format("expected a mapping, found {}", type_name(node_)));
}

void YamlValue::expect_sequence() const {
  if (!node_.IsSequence()) throw error(fmt::format("expected a list, found {}", type_name(node_)));
}

}  // namespace shardsim
