// Reading nccl-tests output (io/nccl_log.hpp).
#include "shardsim/io/nccl_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>

#include "io/measurement_input.hpp"
#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {

constexpr std::string_view kLogHint =
    "run the test again, or cut the file down to one complete nccl-tests run";

std::vector<std::string> log_tokens(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// The line without an MPI launcher's or Slurm's tag: Open MPI's --tag-output `[1,0]<stdout>:`,
// a rank in brackets `[0] ` (mpirun -prepend-rank, Intel MPI's -l) or srun --label's `0: `.
std::string_view without_launcher_tag(std::string_view line) {
  auto digits_end = [&](std::size_t k) {
    while (k < line.size() && std::isdigit(static_cast<unsigned char>(line[k]))) ++k;
    return k;
  };
  if (!line.empty() && line.front() == '[') {
    std::size_t k = digits_end(1);
    if (k == 1) return line;
    if (k < line.size() && line[k] == ',') {
      const std::size_t job = k + 1;
      k = digits_end(job);
      if (k == job) return line;
    }
    if (k >= line.size() || line[k] != ']') return line;
    std::string_view rest = line.substr(k + 1);
    for (std::string_view stream : {"<stdout>:", "<stderr>:"}) {
      if (rest.substr(0, stream.size()) == stream) return rest.substr(stream.size());
    }
    return !rest.empty() && rest.front() == ' ' ? rest.substr(1) : line;
  }
  const std::size_t start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) return line;
  const std::size_t k = digits_end(start);
  if (k > start && k + 1 < line.size() && line[k] == ':' && line[k + 1] == ' ') {
    return line.substr(k + 2);
  }
  return line;
}

std::optional<double> log_number(const std::string& t) {
  std::size_t used = 0;
  try {
    const double v = std::stod(t, &used);
    if (used == t.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> nccl_test_op(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
  name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
  const std::pair<const char*, const char*> known[] = {{"allreduce", "allreduce"},
                                                       {"allgather", "allgather"},
                                                       {"reducescatter", "reduce_scatter"},
                                                       {"alltoall", "alltoall"},
                                                       {"sendrecv", "sendrecv"}};
  for (const auto& [needle, op] : known) {
    if (name.find(needle) != std::string::npos) return std::string(op);
  }
  return std::nullopt;
}

namespace {

// Where each column of a result row is, from the header's names. Out-of-place first, then
// in-place (the second time/algbw/busbw/#wrong).
struct NcclColumns {
  int size = -1, count = -1, type = -1, redop = -1, root = -1;
  int time[2] = {-1, -1}, algbw[2] = {-1, -1}, busbw[2] = {-1, -1}, wrong[2] = {-1, -1};
  // Older versions' `error` column holds the largest relative error of the results (e.g. 2e-06),
  // not a count: a number to check, not to judge (their verdict is the "Out of bounds" line).
  bool relative_error = false;
  std::size_t width = 0;
};

std::optional<NcclColumns> nccl_columns_of(const std::vector<std::string>& names) {
  NcclColumns l;
  int seen_time = 0, seen_algbw = 0, seen_busbw = 0, seen_wrong = 0;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string& n = names[k];
    const int i = static_cast<int>(k);
    if (n == "size") l.size = i;
    if (n == "count") l.count = i;
    if (n == "type") l.type = i;
    if (n == "redop") l.redop = i;
    if (n == "root") l.root = i;
    if (n == "time" && seen_time < 2) l.time[seen_time++] = i;
    if (n == "algbw" && seen_algbw < 2) l.algbw[seen_algbw++] = i;
    if (n == "busbw" && seen_busbw < 2) l.busbw[seen_busbw++] = i;
    if ((n == "#wrong" || n == "error") && seen_wrong < 2) l.wrong[seen_wrong++] = i;
    if (n == "error") l.relative_error = true;
  }
  if (l.size != 0 || l.count < 0 || l.type < 0 || l.time[0] < 0 || l.busbw[0] < 0) {
    return std::nullopt;
  }
  l.width = names.size();
  return l;
}

class NcclLogParser {
 public:
  NcclLogParser(const std::string& file, std::optional<std::string> told_op)
      : told_op_(std::move(told_op)) {
    log_.file = file;
  }

  void line(std::string_view raw, int n) {
    std::string_view text = without_launcher_tag(raw);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.empty()) return;
    if (text.front() == '#') return comment(text.substr(1), n);
    const std::vector<std::string> t = log_tokens(text);
    if (t.empty() || !std::all_of(t[0].begin(), t[0].end(), ::isdigit)) return;  // not ours
    row(t, n);
  }

  NcclLog finish() {
    const SourceLocation at{log_.file, 0, 0};
    if (!any_line_) throw InputError(at, "log", "the file is empty", "give an nccl-tests log");
    if (log_.rows.empty()) {
      throw InputError(at, "rows", "no result rows: truncated, or not nccl-tests output",
                       std::string(kLogHint));
    }
    log_.ranks = static_cast<int>(ranks_.size());
    log_.hosts = static_cast<int>(log_.host_names.size());
    log_.op = op();
    return std::move(log_);
  }

  void saw_line() { any_line_ = true; }

 private:
  InputError error(int n, const std::string& key, const std::string& why,
                   std::string_view hint = kLogHint) const {
    return InputError(SourceLocation{log_.file, n, 0}, key, why, std::string(hint));
  }

  void comment(std::string_view text, int n) {
    const std::vector<std::string> t = log_tokens(text);
    if (t.empty()) return;
    if (t[0] == "nThread") {
      if (++headers_ > 1)
        throw error(n, "log", "mixed runs: a second test header in one file; split the log");
      return;
    }
    if (t.size() >= 4 && t[0] == "Collective" && t[1] == "test" && t[2] == "starting:") {
      const auto op = nccl_test_op(t[3]);
      if (named_op_ && op && *op != *named_op_) {
        throw error(
            n, "log",
            fmt::format("mixed runs: {} and {} in one file; split the log", *named_op_, *op));
      }
      if (op) named_op_ = op, named_line_ = n;
      return;
    }
    if (t[0] == "Rank" && t.size() >= 2) return rank(t, n);
    if (t[0] == "size") {
      layout_ = nccl_columns_of(t);
      if (!layout_)
        throw error(n, "header", "a result table header without size, count, type, time or busbw");
      return;
    }
    if (t.size() >= 5 && t[0] == "Out" && t[1] == "of" && t[2] == "bounds" &&
        t.back() == "FAILED") {
      throw error(n, "#wrong",
                  fmt::format("the run reported {} out-of-bounds values (FAILED): its times are "
                              "not to be trusted",
                              t.size() >= 6 ? t[t.size() - 2] : "some"),
                  "do not calibrate on a run that failed its correctness check");
    }
  }

  void rank(const std::vector<std::string>& t, int n) {
    const auto on = std::find(t.begin(), t.end(), "on");
    if (on == t.end() || on + 1 == t.end() || !log_number(t[1])) {
      throw error(n, "ranks", "a rank line without 'Rank N ... on HOST'");
    }
    const double rank = *log_number(t[1]);
    if (rank < 0 || rank > 1e7 || rank != std::floor(rank)) {
      throw error(n, "ranks", fmt::format("'{}' is not a rank number", t[1]));
    }
    const std::string& host = *(on + 1);
    const auto [seen, fresh] = ranks_.emplace(static_cast<int>(rank), host);
    if (!fresh && seen->second != host) {
      throw error(n, "ranks",
                  fmt::format("rank {} is on host '{}' here and on '{}' above: mixed runs",
                              seen->first, host, seen->second),
                  "split the log, one run per file");
    }
    if (std::find(log_.host_names.begin(), log_.host_names.end(), host) == log_.host_names.end()) {
      log_.host_names.push_back(host);
    }
  }

  double field(const std::vector<std::string>& t, int k, int n, const char* name) const {
    const auto v = log_number(t[static_cast<std::size_t>(k)]);
    if (!v) {
      throw error(n, name,
                  fmt::format("'{}' is not a number: a truncated or malformed result row",
                              t[static_cast<std::size_t>(k)]));
    }
    return *v;
  }

  // A time column: positive, finite and under an hour where the row moved bytes (a 0 B row,
  // nccl-tests' size rounded down to nothing, is not timed and is left out of a fit).
  double timed(const std::vector<std::string>& t, int k, int n, double size_bytes) const {
    const double v = field(t, k, n, "time");
    if (size_bytes > 0) check_measured_time(v, SourceLocation{log_.file, n, 0}, "time");
    return v;
  }

  void check_wrong(const std::vector<std::string>& t, int k, int n) const {
    if (k < 0) return;
    const std::string& w = t[static_cast<std::size_t>(k)];
    if (w == "N/A") return;
    const auto v = log_number(w);
    if (layout_->relative_error) {
      if (!v || *v < 0) throw error(n, "error", fmt::format("'{}' is not a relative error", w));
      return;
    }
    if (!v) throw error(n, "#wrong", fmt::format("'{}' is not a count of wrong results", w));
    if (*v != 0) {
      throw error(n, "#wrong", fmt::format("the run reported {} wrong results at this size", w),
                  "do not calibrate on a run that failed its correctness check");
    }
  }

  void row(const std::vector<std::string>& t, int n) {
    if (!layout_) throw error(n, "header", "a result row before the column header");
    const NcclColumns& l = *layout_;
    if (t.size() != l.width) {
      throw error(n, "row",
                  fmt::format("{} fields where the header has {}: a truncated or malformed "
                              "result row",
                              t.size(), l.width));
    }
    NcclLogRow r;
    r.line = n;
    r.size_bytes = field(t, l.size, n, "size");
    r.count = field(t, l.count, n, "count");
    r.type = t[static_cast<std::size_t>(l.type)];
    r.redop = l.redop >= 0 ? t[static_cast<std::size_t>(l.redop)] : "";
    if (l.root >= 0) {
      const double root = field(t, l.root, n, "root");
      if (root < -1 || root > 1e7 || root != std::floor(root)) {
        throw error(
            n, "root",
            fmt::format("'{}' is not a root rank (or -1)", t[static_cast<std::size_t>(l.root)]));
      }
      r.root = static_cast<int>(root);
    }
    check_measured_size(r.size_bytes, SourceLocation{log_.file, n, 0}, "size");
    r.time_us = timed(t, l.time[0], n, r.size_bytes);
    r.algbw_GBps = l.algbw[0] >= 0 ? field(t, l.algbw[0], n, "algbw") : 0;
    r.busbw_GBps = field(t, l.busbw[0], n, "busbw");
    check_wrong(t, l.wrong[0], n);
    if (l.time[1] >= 0) r.in_place_time_us = timed(t, l.time[1], n, r.size_bytes);
    if (l.algbw[1] >= 0) r.in_place_algbw_GBps = field(t, l.algbw[1], n, "algbw");
    if (l.busbw[1] >= 0) r.in_place_busbw_GBps = field(t, l.busbw[1], n, "busbw");
    check_wrong(t, l.wrong[1], n);
    if (!log_.rows.empty()) {
      const NcclLogRow& prev = log_.rows.back();
      // Equal sizes are one run's: nccl-tests rounds each size down to whole elements a rank, so
      // the smallest sizes of a sweep can repeat (0, 0, 4, 8, ... for -b 1 on floats).
      if (r.size_bytes < prev.size_bytes || r.type != prev.type || r.redop != prev.redop) {
        throw error(n, "size",
                    fmt::format("mixed runs: this row ({} B, {}, {}) does not continue the one at "
                                "line {} ({} B, {}, {}); split the log",
                                r.size_bytes, r.type, r.redop, prev.line, prev.size_bytes,
                                prev.type, prev.redop));
      }
    }
    log_.rows.push_back(std::move(r));
  }

  // nccl-tests' -d types.
  double element_bytes(const std::string& type, int n) const {
    const std::pair<const char*, double> types[] = {
        {"float", 4}, {"half", 2},  {"bfloat16", 2}, {"double", 8}, {"int8", 1},
        {"uint8", 1}, {"int32", 4}, {"uint32", 4},   {"int64", 8},  {"uint64", 8}};
    for (const auto& [name, bytes] : types) {
      if (type == name) return bytes;
    }
    throw error(n, "type", fmt::format("unknown element type '{}'", type),
                "name the file after the test (all_reduce_perf.log, ...) so the rows need not "
                "tell it");
  }

  // The test: named in the log (which the caller's must match), else the caller's, else in the
  // file name, else told by the rows.
  std::string op() const {
    if (named_op_ && told_op_ && *named_op_ != *told_op_) {
      throw error(
          named_line_, "op",
          fmt::format("the log names its test {}, and --collective says {}", *named_op_, *told_op_),
          "drop --collective, or give the log of that test");
    }
    if (named_op_) return *named_op_;
    if (told_op_) return *told_op_;
    const std::string stem = log_.file.substr(log_.file.find_last_of('/') + 1);
    if (auto op = nccl_test_op(stem)) return *op;
    const NcclLogRow& r = log_.rows.front();
    // count = size / element for a whole buffer per rank, size / element / ranks for a share.
    const bool full = std::abs(r.count * element_bytes(r.type, r.line) - r.size_bytes) < 0.5;
    if (r.redop == "sum" || r.redop == "prod" || r.redop == "max" || r.redop == "min" ||
        r.redop == "avg") {
      return full ? "allreduce" : "reduce_scatter";
    }
    if (full) return "sendrecv";
    throw error(r.line, "op", "cannot tell allgather from alltoall: the log does not name its test",
                "give --collective allgather (or alltoall), keep the '# Collective test starting' "
                "line, or name the file after the test (all_gather_perf.log, alltoall_perf.log)");
  }

  NcclLog log_;
  std::map<int, std::string> ranks_;  // rank -> its host
  std::optional<NcclColumns> layout_;
  std::optional<std::string> named_op_;
  int named_line_ = 0;
  std::optional<std::string> told_op_;
  int headers_ = 0;
  bool any_line_ = false;
};

}  // namespace

NcclLog parse_nccl_log(std::string_view text, const std::string& file,
                       std::optional<std::string> op) {
  NcclLogParser p(file, std::move(op));
  std::size_t start = 0;
  for (int n = 1; start < text.size(); ++n) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) p.saw_line();
    p.line(line, n);
    start = end + 1;
  }
  return p.finish();
}

NcclLog read_nccl_log(const std::string& path, std::optional<std::string> op) {
  return parse_nccl_log(read_measurement_file(path, "LOG", "an nccl-tests log file"), path,
                        std::move(op));
}

}  // namespace shardsim
