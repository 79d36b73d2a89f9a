// Reading measured collectives from CSV (io/calibration_points.hpp).
#include "shardsim/io/calibration_points.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <sstream>

#include "io/measurement_input.hpp"

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

// One CSV line's fields: a field in double quotes may hold commas, and "" for a quote (as
// Python's csv module and spreadsheets write them); nullopt for an unclosed quote.
std::optional<std::vector<std::string>> points_csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (quoted) {
      if (c != '"') {
        out.back() += c;
      } else if (k + 1 < line.size() && line[k + 1] == '"') {
        out.back() += '"';
        ++k;
      } else {
        quoted = false;
      }
    } else if (c == '"' && out.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return out;
}

const std::vector<std::string> kPointColumns = {"collective", "size_bytes", "time_us", "preset",
                                                "nodes"};

struct PointColumns {
  std::vector<int> required;  // index of each kPointColumns column
  int sets = -1;
  int label = -1;
  int busbw = -1;      // busbw_gbps: the time when time_us is empty
  int ranks = -1;      // the ranks its busbw factor counts
  int unmatched = -1;  // why no preset stands for the point (then it is skipped)
};

int column_named(const std::vector<std::string>& names, const std::string& want) {
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (names[k] == want) return static_cast<int>(k);
  }
  return -1;
}

PointColumns point_header(const std::vector<std::string>& names, const std::string& file) {
  PointColumns c;
  for (const std::string& want : kPointColumns) {
    const int found = column_named(names, want);
    if (found < 0) {
      throw InputError(SourceLocation{file, 1, 0}, want, "the header names no such column",
                       "the header must name collective, size_bytes, time_us, preset and nodes "
                       "(sets, label, busbw_gbps with ranks, and unmatched are optional)");
    }
    c.required.push_back(found);
  }
  c.sets = column_named(names, "sets");
  c.label = column_named(names, "label");
  c.busbw = column_named(names, "busbw_gbps");
  c.ranks = column_named(names, "ranks");
  c.unmatched = column_named(names, "unmatched");
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

const std::string& cell(const std::vector<std::string>& f, int k) {
  static const std::string none;
  return k >= 0 ? f[static_cast<std::size_t>(k)] : none;
}

// The measured time: time_us, else the time nccl-tests' busbw implies for the size
// (size / (busbw / busbw factor of the ranks)).
double time_us_of(const std::vector<std::string>& f, const PointColumns& c, CollectiveOp op,
                  double size_bytes, const SourceLocation& at) {
  const std::string& t = cell(f, c.required[2]);
  if (!t.empty() || cell(f, c.busbw).empty()) {
    const double time_us = positive_field(t, at, "time_us");
    check_measured_time(time_us, at, "time_us");
    return time_us;
  }
  const double busbw_GBps = positive_field(cell(f, c.busbw), at, "busbw_gbps");
  const double ranks = positive_field(cell(f, c.ranks), at, "ranks");
  if (ranks != std::floor(ranks) || ranks < 2 || ranks > 1e7) {
    throw InputError(at, "ranks", fmt::format("expected a whole number >= 2, found '{}'", ranks),
                     "the ranks of the run whose busbw this is");
  }
  const double algbw_GBps = busbw_GBps / busbw_factor(op, static_cast<int>(ranks));
  const double time_us = size_bytes / (algbw_GBps * 1e9) * 1e6;
  check_measured_time(time_us, at, "busbw_gbps");
  return time_us;
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
  check_measured_size(m.size_bytes, at, "size_bytes");
  m.time_s = time_us_of(f, c, m.op, m.size_bytes, at) * 1e-6;
  m.preset = col(3);
  const double nodes = positive_field(col(4), at, "nodes");
  if (nodes != std::floor(nodes) || nodes > 1e6) {
    throw InputError(at, "nodes", fmt::format("expected a whole number, found '{}'", col(4)), "");
  }
  m.nodes = static_cast<int>(nodes);
  for (const std::string& s : csv_split(cell(f, c.sets), ';')) {
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
  m.label = !cell(f, c.label).empty() ? cell(f, c.label) : at.to_string();
  return m;
}

// A row with no preset is left out for the reason its `unmatched` column gives, and only then.
bool unmatched_row(const std::vector<std::string>& f, const PointColumns& c,
                   const SourceLocation& at, CalibrationPoints& out) {
  const std::string& preset = f[static_cast<std::size_t>(c.required[3])];
  const std::string& why = cell(f, c.unmatched);
  if (!preset.empty() && !why.empty()) {
    throw InputError(at, "unmatched",
                     fmt::format("a preset ('{}') and a reason it has none ('{}')", preset, why),
                     "empty one of them: `unmatched` is for points no preset stands for");
  }
  if (!preset.empty()) return false;
  if (why.empty()) {
    throw InputError(at, "preset", "no preset, and no `unmatched` column saying why",
                     "name a built-in preset (`shardsim hw list`), or leave the point out with a "
                     "reason in an `unmatched` column");
  }
  out.unmatched.push_back({at, cell(f, c.label).empty() ? at.to_string() : cell(f, c.label), why});
  return true;
}

}  // namespace

CalibrationPoints parse_calibration_points_file(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.empty()) {
    throw InputError(SourceLocation{file, 1, 0}, "header", "the file is empty",
                     "the first line names the columns: collective,size_bytes,time_us,preset,"
                     "nodes[,sets][,label]");
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto names = points_csv_fields(line);
  if (!names) {
    throw InputError(SourceLocation{file, 1, 0}, "header", "a quote that does not close", "");
  }
  const PointColumns c = point_header(*names, file);
  CalibrationPoints out;
  for (int n = 2; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto f = points_csv_fields(line);
    const SourceLocation at{file, n, 0};
    if (!f) {
      throw InputError(at, "line", "a quote that does not close",
                       "a field in quotes ends with a quote; a quote inside it is written \"\"");
    }
    if (f->size() != names->size()) {
      throw InputError(at, "line",
                       fmt::format("{} fields where the header has {}", f->size(), names->size()),
                       "a field with a comma in it goes in double quotes");
    }
    if (!unmatched_row(*f, c, at, out)) out.points.push_back(point_of(*f, c, at));
  }
  if (out.points.empty()) {
    throw InputError(SourceLocation{file, 1, 0}, "points", "no measurement after the header", "");
  }
  return out;
}

std::vector<MeasuredCollective> parse_calibration_points(const std::string& text,
                                                         const std::string& file) {
  return parse_calibration_points_file(text, file).points;
}

CalibrationPoints read_calibration_points(const std::string& path) {
  return parse_calibration_points_file(
      read_measurement_file(path, "--points", "a CSV of measured collectives"), path);
}

}  // namespace shardsim
