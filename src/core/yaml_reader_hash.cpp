// Canonical YAML text and its content hash (core/yaml_reader.hpp): moved here from
// core/content_hash.cpp so that yaml-cpp stays inside core/yaml_reader*.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "shardsim/core/content_hash.hpp"
#include "shardsim/core/yaml_reader.hpp"

namespace shardsim {

namespace {

bool is_integer_literal(std::string_view s) {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string canonical_integer(std::string_view s) {
  bool negative = false;
  if (s.front() == '+' || s.front() == '-') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  const std::size_t first = s.find_first_not_of('0');
  if (first == std::string_view::npos) return "0";  // also "-0"
  return (negative ? "-" : "") + std::string(s.substr(first));
}

// The canonical text of a number that is not an integer literal, or nothing if `s` is not a
// finite number as a whole.
std::optional<std::string> canonical_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string_view body = s;
  if (body.front() == '+') body.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
  if (ec != std::errc() || end != body.data() + body.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (value == std::trunc(value) && std::fabs(value) < kExactIntegers) {
    return fmt::format("{}", static_cast<std::int64_t>(value));
  }
  return fmt::format("{}", value);
}

void append_canonical(std::string& out, const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) {
    out += '~';
    return;
  }
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    if (is_integer_literal(text)) {
      out += canonical_integer(text);
    } else if (auto number = canonical_number(text)) {
      out += *number;
    } else {
      // Inputs are UTF-8 (parse_yaml checks); replace rather than throw all the same.
      out += nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return;
  }
  if (node.IsSequence()) {
    out += '[';
    bool first = true;
    for (const YAML::Node& element : node) {
      if (!first) out += ',';
      append_canonical(out, element);
      first = false;
    }
    out += ']';
    return;
  }
  // A mapping: entries sorted by their canonical key.
  std::vector<std::pair<std::string, std::string>> entries;
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string key;
    append_canonical(key, it->first);
    std::string value;
    append_canonical(value, it->second);
    entries.emplace_back(std::move(key), std::move(value));
  }
  std::sort(entries.begin(), entries.end());
  out += '{';
  bool first = true;
  for (const auto& [key, value] : entries) {
    if (!first) out += ',';
    out += key;
    out += ':';
    out += value;
    first = false;
  }
  out += '}';
}

}  // namespace

std::string canonical_yaml(const YAML::Node& node) {
  std::string out;
  append_canonical(out, node);
  return out;
}

namespace {

void flatten_into(std::vector<std::pair<std::string, std::string>>& out, const std::string& path,
                  const YAML::Node& node, std::size_t max_list) {
  if (node.IsMap()) {
    // Keys sorted as text (a key that is not a plain scalar, even a null one, by its canonical
    // text); the nodes stay where they are and an index is sorted (assigning a YAML::Node, as
    // sorting nodes would, assigns into the document).
    std::vector<std::string> keys;
    std::vector<YAML::Node> values;
    for (const auto& kv : node) {
      keys.push_back(kv.first.IsScalar() ? kv.first.Scalar() : canonical_yaml(kv.first));
      values.push_back(kv.second);
    }
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
    if (keys.empty()) out.emplace_back(path, "{}");
    for (std::size_t i : order) {
      flatten_into(out, path.empty() ? keys[i] : path + "." + keys[i], values[i], max_list);
    }
    return;
  }
  if (node.IsSequence() && node.size() > max_list) {
    out.emplace_back(
        path, "\"" + std::to_string(node.size()) + " entries, " + yaml_content_hash(node) + "\"");
    return;
  }
  if (node.IsSequence() && node.size() > 0) {
    // Lists of plain values on one line ([1, 2, 4]); lists of mappings key by key.
    bool plain = true;
    for (const auto& e : node) plain = plain && !e.IsMap() && !e.IsSequence();
    if (plain) {
      out.emplace_back(path, canonical_yaml(node));
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      flatten_into(out, path + "[" + std::to_string(i) + "]", node[i], max_list);
    }
    return;
  }
  out.emplace_back(path, canonical_yaml(node));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten_yaml(const YAML::Node& node,
                                                              std::size_t max_list) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten_into(out, "", node, max_list);
  return out;
}

std::string yaml_content_hash(const YAML::Node& node) {
  return content_hash(canonical_yaml(node));
}

std::string yaml_content_hash(const YamlValue& value) {
  return yaml_content_hash(value.node());
}

}  // namespace shardsim
