// Reading FBGEMM's table-batched embedding benchmark output (io/fbgemm_log.hpp).
#include "shardsim/io/fbgemm_log.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <sstream>

#include "io/measurement_input.hpp"
#include "shardsim/core/error.hpp"

namespace shardsim {

namespace {

constexpr std::string_view kFbgemmHint =
    "give the output of fbgemm_gpu/bench/split_table_batched_embeddings_benchmark.py as it "
    "printed it (lines such as 'INFO:root:Forward, B: 512, E: 100000, T: 32, D: 128, L: 20, W: "
    "False, BW: 590.26 GB/s, T: 1136us')";

// The benchmark's boolean flags: an option that takes no value.
constexpr std::array<std::string_view, 10> kFbgemmFlags = {
    "row-wise", "no-row-wise", "weighted", "stoc",    "mixed",
    "dense",    "fp16",        "ssd",      "compare", "export-trace"};

std::string_view trim_view(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// A number at the start of `s`, followed by nothing but `unit` (and spaces).
std::optional<double> number_with_unit(std::string_view s, std::string_view unit) {
  s = trim_view(s);
  if (s.size() < unit.size() || s.substr(s.size() - unit.size()) != unit) return std::nullopt;
  s = trim_view(s.substr(0, s.size() - unit.size()));
  if (s.empty()) return std::nullopt;
  const std::string text(s);
  std::size_t used = 0;
  try {
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

bool is_flag(std::string_view name) {
  for (std::string_view f : kFbgemmFlags) {
    if (f == name) return true;
  }
  return false;
}

class FbgemmLogParser {
 public:
  explicit FbgemmLogParser(const std::string& file) { log_.file = file; }

  void line(std::string_view raw, int n) {
    const std::string_view text = trim_view(raw);
    if (text.empty()) return;
    any_line_ = true;
    if (text.find("split_table_batched_embeddings_benchmark") != std::string_view::npos) {
      return command_line(text, n);
    }
    if (text.front() == '#') return header(text.substr(1), n);
    for (std::string_view pass : {"ForwardBackward", "Backward", "Forward"}) {
      const std::string marker = std::string(pass) + ", B:";
      const std::size_t at = text.find(marker);
      if (at == std::string_view::npos) continue;
      // "ForwardBackward, B:" also contains "Backward, B:": take the longest name that starts
      // the marker where it is found.
      if (pass != "ForwardBackward" && at >= 7 && text.substr(at - 7, 7) == "Forward") continue;
      return result(text.substr(0, at), pass, text.substr(at + std::string(pass).size() + 2), n);
    }
  }

  FbgemmLog finish() {
    const SourceLocation at{log_.file, 0, 0};
    if (!any_line_) {
      throw InputError(at, "log", "the file is empty", std::string(kFbgemmHint));
    }
    if (pending_iterations_ > 0) {
      throw InputError(SourceLocation{log_.file, first_pending_line_, 0}, "Iteration",
                       fmt::format("{} 'Iteration N:' lines without the 'Average of all "
                                   "iterations' line that follows them: a truncated log",
                                   pending_iterations_),
                       "run the benchmark again, or keep its output to the end");
    }
    if (log_.rows.empty()) {
      throw InputError(at, "rows",
                       "no result lines ('Forward, B: ...', 'ForwardBackward, B: ...', "
                       "'Backward, B: ...'): not the output of "
                       "split_table_batched_embeddings_benchmark, or cut before its results",
                       std::string(kFbgemmHint));
    }
    return std::move(log_);
  }

 private:
  InputError error(int n, const std::string& key, const std::string& why,
                   std::string_view hint = kFbgemmHint) const {
    return InputError(SourceLocation{log_.file, n, 0}, key, why, std::string(hint));
  }

  void set(const std::string& key, const std::string& value, int n) {
    log_.settings[key] = value;
    log_.setting_lines[key] = n;
  }

  // `python .../split_table_batched_embeddings_benchmark.py device --alpha=1.15 --row-wise ...`
  void command_line(std::string_view text, int n) {
    std::istringstream in{std::string(text)};
    std::vector<std::string> t;
    for (std::string s; in >> s;) t.push_back(s);
    std::size_t k = 0;
    while (k < t.size() &&
           t[k].find("split_table_batched_embeddings_benchmark") == std::string::npos) {
      ++k;
    }
    for (++k; k < t.size(); ++k) {
      const std::string& s = t[k];
      if (s.rfind("--", 0) != 0) {
        if (log_.command.empty()) log_.command = s;
        continue;
      }
      const std::string body = s.substr(2);
      const std::size_t eq = body.find('=');
      if (eq != std::string::npos) {
        set(body.substr(0, eq), body.substr(eq + 1), n);
      } else if (is_flag(body) || k + 1 == t.size() || t[k + 1].rfind("--", 0) == 0) {
        set(body, "true", n);
      } else {
        set(body, t[k + 1], n);
        ++k;
      }
    }
  }

  // `# alpha: 1.15` or `# alpha=1.15` (other comment lines are skipped).
  void header(std::string_view text, int n) {
    text = trim_view(text);
    const std::size_t eq = text.find_first_of("=:");
    if (eq == std::string_view::npos || eq == 0) return;
    const std::string_view key = trim_view(text.substr(0, eq));
    const std::string_view value = trim_view(text.substr(eq + 1));
    if (key.find(' ') != std::string_view::npos || value.empty()) return;  // prose, not a setting
    std::string k(key);
    if (k.rfind("--", 0) == 0) k = k.substr(2);
    set(k, std::string(value), n);
  }

  double number(std::string_view value, std::string_view key, int n, std::string_view unit = "") {
    const auto v = number_with_unit(value, unit);
    if (!v) {
      throw error(n, std::string(key),
                  fmt::format("'{}' is not a number{}: a truncated or malformed result line",
                              trim_view(value), unit.empty() ? "" : fmt::format(" of {}", unit)));
    }
    return *v;
  }

  double count(std::string_view value, std::string_view key, int n) {
    const double v = number(value, key, n);
    if (v < 1 || v > 1e15 || v != std::floor(v)) {
      throw error(n, std::string(key),
                  fmt::format("{} = {} is not a positive whole count", key, trim_view(value)));
    }
    return v;
  }

  void result(std::string_view prefix, std::string_view pass, std::string_view fields, int n) {
    if (prefix.find("Iteration") != std::string_view::npos) {
      if (pending_iterations_++ == 0) first_pending_line_ = n;
      return;
    }
    pending_iterations_ = 0;
    FbgemmLogRow r;
    r.line = n;
    r.pass = std::string(pass);
    {
      std::istringstream in{std::string(prefix)};
      std::string last;
      for (std::string s; in >> s;) last = s;
      for (std::string_view p : {"fp32", "fp16", "bf16", "fp8", "int8", "int4", "int2"}) {
        if (last == p) r.precision = last;
      }
    }
    bool seen[5] = {false, false, false, false, false};  // B, E, T (tables), D, L
    bool time = false;
    std::size_t start = 0;
    while (start < fields.size()) {
      std::size_t end = fields.find(", ", start);
      if (end == std::string_view::npos) end = fields.size();
      const std::string_view field = fields.substr(start, end - start);
      start = end + 2;
      const std::size_t colon = field.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string_view key = trim_view(field.substr(0, colon));
      const std::string_view value = field.substr(colon + 1);
      if (key == "B") {
        r.batch = count(value, key, n), seen[0] = true;
      } else if (key == "E") {
        r.rows = count(value, key, n), seen[1] = true;
      } else if (key == "T" && !seen[2]) {
        r.tables = count(value, key, n), seen[2] = true;
      } else if (key == "T" || key == "Time") {
        r.time_us = number(value, key, n, "us"), time = true;
      } else if (key == "D") {
        r.dim = number(value, key, n), seen[3] = true;
      } else if (key == "L") {
        r.bag = number(value, key, n), seen[4] = true;
      } else if (key == "W") {
        r.weighted = trim_view(value) == "True";
      } else if (key == "a" || key == "alpha") {
        r.alpha = number(value, key, n);
      } else if (key == "BW") {
        r.bandwidth_GBps = number(value, key, n, "GB/s");
      }
    }
    const char* names[5] = {"B", "E", "T", "D", "L"};
    for (int k = 0; k < 5; ++k) {
      if (!seen[k]) {
        throw error(n, names[k],
                    fmt::format("a {} line without '{}: ...': a truncated or malformed result "
                                "line",
                                pass, names[k]));
      }
    }
    if (!time) {
      throw error(n, "T",
                  fmt::format("a {} line without its time ('T: ...us' or 'Time: ...us'): "
                              "a truncated line, or an old benchmark that prints none",
                              pass));
    }
    check_measured_time(r.time_us, SourceLocation{log_.file, n, 0}, "T");
    if (!(r.dim > 0) || r.dim > 1e6) {
      throw error(n, "D", fmt::format("D = {} is not an embedding dim", r.dim));
    }
    if (!(r.bag > 0) || r.bag > 1e9) {
      throw error(n, "L", fmt::format("L = {} is not a bag size", r.bag));
    }
    log_.rows.push_back(std::move(r));
  }

  FbgemmLog log_;
  bool any_line_ = false;
  int pending_iterations_ = 0;
  int first_pending_line_ = 0;
};

}  // namespace

FbgemmLog parse_fbgemm_log(std::string_view text, const std::string& file) {
  FbgemmLogParser p(file);
  std::size_t start = 0;
  for (int n = 1; start < text.size(); ++n) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    p.line(text.substr(start, end - start), n);
    start = end + 1;
  }
  return p.finish();
}

FbgemmLog read_fbgemm_log(const std::string& path) {
  return parse_fbgemm_log(read_measurement_file(path, "--kernels", "an FBGEMM benchmark log file"),
                          path);
}

}  // namespace shardsim
