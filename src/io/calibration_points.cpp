// Reading measured collectives from CSV (io/calibration_points.hpp).
#include "shardsim/io/calibration_points.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "shardsim/core/text_file.hpp"

namespace shardsim {

namespace {

std::vector<std::string> csv_split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) out.push_back(field);
  if (!line.empty() && line.back() == sep) out.emplace_back();
  return out;
}

const std::vector<std::string> kPointColumns = {"collective", "size_bytes", "time_us", "preset",
                                                "nodes"};

struct PointColumns {
  std::vector<int> required;  // index of each kPointColumns column
  int sets = -1;
  int label = -1;
};

PointColumns point_header(const std::string& line, const std::string& file) {
  const std::vector<std::string> names = csv_split(line, ',');
  PointColumns c;
  for (const std::string& want : kPointColumns) {
    int found = -1;
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (names[k] == want) found = static_cast<int>(k);
    }
    if (found < 0) {
      throw InputError(SourceLocation{file, 1, 0}, want, "the header names no such column",
                       "the header must name collective, size_bytes, time_us, preset and nodes "
                       "(sets and label are optional)");
    }
    c.required.push_back(found);
  }
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (names[k] == "sets") c.sets = static_cast<int>(k);
    if (names[k] == "label") c.label = static_cast<int>(k);
  }
  return c;
}

double positive_field(const std::string& text, const SourceLocation& at,
                      const std::string& column) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !(v > 0) || !std::isfinite(v)) {
    throw InputError(at, column, fmt::format("expected a positive number, found '{}'", text), "");
  }
  return v;
}

MeasuredCollective point_of(const std::vector<std::string>& f, const PointColumns& c,
                            const SourceLocation& at) {
  auto col = [&](std::size_t k) { return f[static_cast<std::size_t>(c.required[k])]; };
  MeasuredCollective m;
  m.where = at;
  const auto op = collective_op_named(col(0));
  if (!op) {
    throw InputError(at, "collective", fmt::format("unknown collective '{}'", col(0)),
                     "one of allreduce, allgather, reduce_scatter, alltoall, sendrecv");
  }
  m.op = *op;
  m.size_bytes = positive_field(col(1), at, "size_bytes");
  m.time_s = positive_field(col(2), at, "time_us") * 1e-6;
  m.preset = col(3);
  const double nodes = positive_field(col(4), at, "nodes");
  if (nodes != std::floor(nodes) || nodes > 1e6) {
    throw InputError(at, "nodes", fmt::format("expected a whole number, found '{}'", col(4)), "");
  }
  m.nodes = static_cast<int>(nodes);
  if (c.sets >= 0) {
    for (const std::string& s : csv_split(f[static_cast<std::size_t>(c.sets)], ';')) {
      if (s.empty()) continue;
      try {
        m.sets.push_back(parse_override(s));
      } catch (const InputError& e) {
        // parse_override speaks of the command line; here the override came from this file.
        throw InputError(
            at, "sets", e.problem(),
            e.hint().empty() ? "write each override as key.path=value, joined by ';'" : e.hint());
      }
    }
  }
  m.label = c.label >= 0 && !f[static_cast<std::size_t>(c.label)].empty()
                ? f[static_cast<std::size_t>(c.label)]
                : at.to_string();
  return m;
}

}  // namespace

std::vector<MeasuredCollective> parse_calibration_points(const std::string& text,
                                                         const std::string& file) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.empty()) {
    throw InputError(SourceLocation{file, 1, 0}, "header", "the file is empty",
                     "the first line names the columns: collective,size_bytes,time_us,preset,"
                     "nodes[,sets][,label]");
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const PointColumns c = point_header(line, file);
  const std::size_t width = csv_split(line, ',').size();
  std::vector<MeasuredCollective> out;
  for (int n = 2; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> f = csv_split(line, ',');
    const SourceLocation at{file, n, 0};
    if (f.size() != width) {
      throw InputError(at, "line",
                       fmt::format("{} fields where the header has {}", f.size(), width),
                       "fields may not contain commas");
    }
    out.push_back(point_of(f, c, at));
  }
  if (out.empty()) {
    throw InputError(SourceLocation{file, 1, 0}, "points", "no measurement after the header", "");
  }
  return out;
}

std::vector<MeasuredCollective> read_calibration_points(const std::string& path) {
  return parse_calibration_points(read_text_file(path, "--points"), path);
}

}  // namespace shardsim
