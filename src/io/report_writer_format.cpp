#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "io/yaml_path.hpp"
#include "shardsim/io/report_format.hpp"

namespace shardsim::report_format {

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return std::string(kNotAvailable);
  return fmt::format("{:.{}f}", value, decimals);
}

std::string thousands(double value) {
  if (!std::isfinite(value)) return std::string(kNotAvailable);
  const std::string text = fmt::format("{:.0f}", value);
  const bool negative = !text.empty() && text.front() == '-';
  const std::string_view digits = std::string_view(text).substr(negative ? 1 : 0);
  std::string out;
  out.reserve(text.size() + digits.size() / 3);
  if (negative && digits != "0") out.push_back('-');  // -0.4 rounds to "-0": print "0"
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string duration(double seconds) {
  if (!std::isfinite(seconds)) return std::string(kNotAvailable);
  if (std::abs(seconds) < 1.0) return fixed(seconds * 1e3, 3) + " ms";
  return fixed(seconds, 3) + " s";
}

std::string csv_number(double value) {
  if (!std::isfinite(value)) return {};
  return fmt::format("{}", value);
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size()) {
    throw std::logic_error(
        fmt::format("TextTable row has {} cells for {} columns", cells.size(), columns_.size()));
  }
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::write(std::ostream& out, int indent) const {
  std::vector<std::size_t> width(columns_.size(), 0);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].header.size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  auto write_line = [&](auto cell_of) {
    std::string line(static_cast<std::size_t>(std::max(indent, 0)), ' ');
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cell_of(c);
      if (c > 0) line += "  ";
      const std::string pad(width[c] - cell.size(), ' ');
      line += columns_[c].align == Align::right ? pad + cell : cell + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  write_line([&](std::size_t c) -> const std::string& { return columns_[c].header; });
  for (const auto& row : rows_) {
    write_line([&](std::size_t c) -> const std::string& { return row[c]; });
  }
}

namespace {

bool is_key_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}
// A character of a whole key path (yaml_path.hpp): its keys' characters, '.' and indices.
bool is_key_char(char c) {
  return is_path_key_char(c) || c == '.' || c == '[' || c == ']';
}

// Whether `label` from `at` holds a sweep key and '=' (`model.tables[0].rows=`).
bool key_follows(std::string_view label, std::size_t at) {
  if (at >= label.size() || !is_key_start(label[at])) return false;
  std::size_t i = at;
  while (i < label.size() && is_key_char(label[i])) ++i;
  return i < label.size() && label[i] == '=';
}

std::string shown_value(std::string_view value) {
  if (value.size() <= kShownSweepValueChars) return std::string(value);
  std::size_t keep = kShownSweepValueStart;  // not inside a UTF-8 character
  while (keep > 0 && (static_cast<unsigned char>(value[keep]) & 0xC0) == 0x80) --keep;
  return std::string(value.substr(0, keep)) + "...";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> sweep_point_parts(std::string_view label) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;  // of the current key=value
  int depth = 0;
  char quote = 0;
  const auto flush = [&](std::size_t end) {
    const std::string_view part = label.substr(start, end - start);
    const std::size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      out.emplace_back(std::string(), std::string(part));
    } else {
      out.emplace_back(std::string(part.substr(0, eq)), std::string(part.substr(eq + 1)));
    }
  };
  for (std::size_t i = 0; i < label.size(); ++i) {
    const char c = label[i];
    if (quote) {
      if (quote == '"' && c == '\\') {
        ++i;  // an escape inside double quotes: \" does not end them
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0 && key_follows(label, i + 1)) {
      flush(i);
      start = i + 1;
    }
  }
  if (start < label.size()) flush(label.size());
  return out;
}

std::string shown_sweep_point(std::string_view label) {
  std::string out;
  for (const auto& [key, value] : sweep_point_parts(label)) {
    if (!out.empty()) out += ',';
    out += key.empty() ? shown_value(value) : key + "=" + shown_value(value);
  }
  return out;
}

}  // namespace shardsim::report_format
