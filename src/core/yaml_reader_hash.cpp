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

std::string yaml_content_hash(const YAML::Node& node) {
  return content_hash(canonical_yaml(node));
}

std::string yaml_content_hash(const YamlValue& value) {
  return yaml_content_hash(value.node());
}

}  // namespace shardsim
