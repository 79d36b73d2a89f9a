// Report JSON -> ReportSummary, for `shardsim compare` (io/report_reader.hpp).
#include "shardsim/io/report_reader.hpp"
#include "shardsim/core/json_duplicate_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/report_json.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

namespace {

using JsonDoc = nlohmann::json;
namespace fs = std::filesystem;

std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// Where a value sits, for messages: the file and the key path inside it.
struct Where {
  const std::string& file;
  std::string path;

  Where at(std::string_view key) const {
    return Where{file, path.empty() ? std::string(key) : path + "." + std::string(key)};
  }
  Where index(std::size_t i) const { return Where{file, fmt::format("{}[{}]", path, i)}; }
  [[noreturn]] void fail(std::string problem, std::string hint = {}) const {
    throw InputError(SourceLocation{file}, path, std::move(problem), std::move(hint));
  }
};

const char* type_name(const JsonDoc& v) {
  switch (v.type()) {
    case JsonDoc::value_t::null:
      return "null";
    case JsonDoc::value_t::object:
      return "an object";
    case JsonDoc::value_t::array:
      return "an array";
    case JsonDoc::value_t::string:
      return "a string";
    case JsonDoc::value_t::boolean:
      return "a boolean";
    case JsonDoc::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

// The member `key` of `obj`, or nullptr when absent or null.
const JsonDoc* member(const JsonDoc& obj, std::string_view key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<double> number(const JsonDoc& obj, const Where& w, std::string_view key) {
  const JsonDoc* v = member(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_number())
    w.at(key).fail(fmt::format("expected a number or null, found {}", type_name(*v)));
  return finite(v->get<double>());
}

std::optional<std::string> text(const JsonDoc& obj, const Where& w, std::string_view key) {
  const JsonDoc* v = member(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) w.at(key).fail(fmt::format("expected a string, found {}", type_name(*v)));
  return v->get<std::string>();
}

const JsonDoc* object(const JsonDoc& obj, const Where& w, std::string_view key) {
  const JsonDoc* v = member(obj, key);
  if (v && !v->is_object())
    w.at(key).fail(fmt::format("expected an object, found {}", type_name(*v)));
  return v;
}

// A set-up field as text: strings as they are, integers in decimal, booleans as true/false.
std::optional<std::string> setup_text(const JsonDoc& obj, const Where& w, std::string_view key) {
  const JsonDoc* v = member(obj, key);
  if (!v) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_unsigned()) return std::to_string(v->get<std::uint64_t>());
  if (v->is_number_integer()) return std::to_string(v->get<std::int64_t>());
  if (v->is_number_float()) return fmt::format("{}", v->get<double>());
  if (v->is_boolean()) return v->get<bool>() ? "true" : "false";
  w.at(key).fail(fmt::format("expected a string or a number, found {}", type_name(*v)));
}

// The JSON value at a schema path ("qps", "iteration_time_s.mean"), or nullptr when absent or
// null (a parent that is not an object is an error named at its key).
const JsonDoc* at_path(const JsonDoc& obj, const Where& w, std::string_view path) {
  const std::size_t dot = path.find('.');
  if (dot == std::string_view::npos) return member(obj, path);
  const JsonDoc* parent = object(obj, w, path.substr(0, dot));
  if (!parent) return nullptr;
  return member(*parent, path.substr(dot + 1));
}

// A metric's value at its row's path: a number, or 1/0 for a flag.
std::optional<double> metric_value(const JsonDoc& j, const Where& w, const ReportField& f) {
  const std::size_t dot = f.path.find('.');
  const Where at = dot == std::string_view::npos ? w : w.at(f.path.substr(0, dot));
  const std::string_view key = dot == std::string_view::npos ? f.path : f.path.substr(dot + 1);
  const JsonDoc* v = at_path(j, w, f.path);
  if (!v) return std::nullopt;
  if (f.type == FieldType::boolean) {
    if (!v->is_boolean())
      at.at(key).fail(fmt::format("expected true or false, found {}", type_name(*v)));
    return v->get<bool>() ? 1.0 : 0.0;
  }
  if (!v->is_number())
    at.at(key).fail(fmt::format("expected a number or null, found {}", type_name(*v)));
  return finite(v->get<double>());
}

// Reports written before schema 1.0 have no comm_total_bytes / comm_max_gpu_bytes: the two are
// summed from per_gpu[] as they were then.
void legacy_comm_metrics(ReportSummary& s, const JsonDoc& j, const Where& w);

void set(ReportSummary& s, MetricId id, std::optional<double> v) {
  s.values[index_of(id)] = v;
}

std::string origin_of(const std::string& file, const std::string& path) {
  return path.empty() ? file : file + ": " + path;
}

[[noreturn]] void not_a_report(const std::string& file, const std::string& path) {
  throw InputError(SourceLocation{file}, path,
                   "not a shardsim report: expected an object with \"scenario\" and \"planner\", "
                   "or {\"reports\": [...]}",
                   "pass a report JSON written by `shardsim run --format json`, `--out DIR` "
                   "(report.json) or `shardsim baseline`");
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw InputError(SourceLocation{path}, "", "is a directory, not a report file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(SourceLocation{path}, "", "cannot open the file",
                     "check the path and that the file is readable");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(SourceLocation{path}, "", "cannot read the file");
  return ss.str();
}

// Line and column (1-based) of byte `offset` (1-based, as nlohmann counts) of `text`.
SourceLocation location_of(const std::string& file, const std::string& text, std::size_t offset) {
  SourceLocation loc{file, 1, 1};
  const std::size_t end = std::min(offset > 0 ? offset - 1 : 0, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

}  // namespace

ReportSummary summarize_report(const Report& r, std::string origin) {
  // Through the JSON object the writer prints, so a report in memory and its file read alike.
  const JsonDoc j = report_json_object(r, false);
  ReportSummary s = summarize_report_json(j, origin, "");
  s.origin = std::move(origin);
  return s;
}

ReportSummary summarize_report_json(const JsonDoc& j, const std::string& file,
                                    const std::string& path) {
  const Where w{file, path};
  if (!j.is_object() || !j.contains("scenario") || !j.contains("planner")) {
    not_a_report(file, path);
  }
  ReportSummary s;
  s.origin = origin_of(file, path);
  auto required_text = [&](std::string_view key) {
    auto v = text(j, w, key);
    if (!v) w.at(key).fail("missing: every report names its scenario and planner");
    return *v;
  };
  s.scenario = required_text("scenario");
  s.planner = required_text("planner");
  s.sweep_point = text(j, w, "sweep_point").value_or("");
  if (const JsonDoc* seed = member(j, "seed")) {
    if (!seed->is_number_unsigned()) {
      w.at("seed").fail(fmt::format("expected an unsigned integer, found {}", type_name(*seed)));
    }
    s.seed = seed->get<std::uint64_t>();
  }
  for (const ReportField& f : report_fields()) {
    if (f.setup) {
      if (const JsonDoc* v = member(j, f.path);
          v && f.type == FieldType::integer && !v->is_number_integer()) {
        w.at(f.path).fail(fmt::format("expected an integer, found {}", v->dump()));
      }
      if (auto v = setup_text(j, w, f.path)) {
        s.setup.emplace_back(std::string(f.path), *v);
      } else if (!f.setup_absent.empty()) {
        s.setup.emplace_back(std::string(f.path), std::string(f.setup_absent));
      }
    }
    if (f.compare) set(s, f.compare->id, metric_value(j, w, f));
  }
  if (!j.contains("comm_total_bytes")) legacy_comm_metrics(s, j, w);
  s.shardsim_version = text(j, w, "shardsim_version").value_or("");
  if (const JsonDoc* h = object(j, w, "input_hashes")) {
    const Where hw = w.at("input_hashes");
    s.input_hashes.scenario = text(*h, hw, "scenario").value_or("");
    s.input_hashes.hardware = text(*h, hw, "hardware").value_or("");
    s.input_hashes.cost = text(*h, hw, "cost").value_or("");
  }
  return s;
}

namespace {

void legacy_comm_metrics(ReportSummary& s, const JsonDoc& j, const Where& w) {
  const JsonDoc* gpus = member(j, "per_gpu");
  if (!gpus) return;
  const Where gw = w.at("per_gpu");
  if (!gpus->is_array()) gw.fail(fmt::format("expected an array, found {}", type_name(*gpus)));
  double total = 0;
  double max_gpu = 0;
  bool complete = !gpus->empty();
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    const JsonDoc& g = (*gpus)[i];
    const Where ew = gw.index(i);
    if (!g.is_object()) ew.fail(fmt::format("expected an object, found {}", type_name(g)));
    const auto sent = number(g, ew, "comm_sent_bytes");
    const auto received = number(g, ew, "comm_received_bytes");
    if (!sent || !received) {
      complete = false;
      continue;
    }
    total += *sent;
    max_gpu = std::max(max_gpu, *sent + *received);
  }
  if (complete) {
    set(s, MetricId::comm_total_bytes, finite(total));
    set(s, MetricId::comm_max_gpu_bytes, finite(max_gpu));
  }
}

}  // namespace

std::vector<ReportSummary> read_report_file(const std::string& path) {
  const std::string content = read_file(path);
  // Skip what compare never reads: the GPU x GPU matrices dominate the size of large reports.
  const JsonDoc::parser_callback_t skip = [](int /*depth*/, JsonDoc::parse_event_t event,
                                             JsonDoc& parsed) {
    return !(event == JsonDoc::parse_event_t::key &&
             (parsed == "comm_bytes" || parsed == "iteration_times_s"));
  };
  JsonDoc doc;
  try {
    doc = JsonDoc::parse(content, refusing_duplicate_keys(path, skip));
  } catch (const JsonDoc::parse_error& e) {
    throw InputError(location_of(path, content, e.byte), "",
                     fmt::format("malformed JSON: {}", e.what()),
                     "is this a report JSON written by shardsim?");
  }
  std::vector<ReportSummary> out;
  if (doc.is_object() && doc.contains("reports") && !doc.contains("scenario")) {
    const JsonDoc& list = doc["reports"];
    if (!list.is_array()) {
      Where{path, "reports"}.fail(fmt::format("expected an array, found {}", type_name(list)));
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      out.push_back(summarize_report_json(list[i], path, fmt::format("reports[{}]", i)));
    }
    return out;
  }
  out.push_back(summarize_report_json(doc, path, ""));
  return out;
}

std::vector<ReportSummary> read_reports(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return read_report_file(path);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file(ec)) {
      files.push_back(entry.path().string());
    }
  }
  if (ec) throw InputError(SourceLocation{path}, "", "cannot list the directory: " + ec.message());
  if (files.empty()) {
    throw InputError(SourceLocation{path}, "", "the directory holds no report files (*.json)",
                     "write some with `shardsim baseline SCENARIO --out DIR`");
  }
  std::sort(files.begin(), files.end());
  std::vector<ReportSummary> out;
  for (const std::string& f : files) {
    std::vector<ReportSummary> some = read_report_file(f);
    out.insert(out.end(), std::make_move_iterator(some.begin()),
               std::make_move_iterator(some.end()));
  }
  return out;
}

}  // namespace shardsim
