// What changed between two runs (io/report_diff.hpp).
#include "shardsim/io/report_diff.hpp"
#include "shardsim/core/json_duplicate_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "shardsim/core/error.hpp"
#include "shardsim/core/units.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

namespace {

namespace fs = std::filesystem;
namespace rf = report_format;
using DiffJson = nlohmann::json;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path}, "", "cannot open the file", "check the path");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<DiffJson> objects_of(const std::string& file) {
  const DiffJson::parser_callback_t skip = [](int, DiffJson::parse_event_t event,
                                              DiffJson& parsed) {
    return !(event == DiffJson::parse_event_t::key && parsed == "comm_bytes");
  };
  DiffJson doc = DiffJson::parse(read_text(file), refusing_duplicate_keys(file, skip), false);
  if (doc.is_discarded()) {
    throw InputError(SourceLocation{file}, "", "not JSON", "pass a report.json of `shardsim run`");
  }
  std::vector<DiffJson> out;
  if (doc.is_object() && doc.contains("reports") && doc["reports"].is_array()) {
    for (DiffJson& r : doc["reports"]) out.push_back(std::move(r));
  } else if (doc.is_object() && doc.contains("planner")) {
    out.push_back(std::move(doc));
  } else {
    throw InputError(SourceLocation{file}, "", "holds no shardsim report",
                     "pass a report.json of `shardsim run --format json` or `--out DIR`");
  }
  return out;
}

std::string key_of(const DiffJson& r) {
  const std::string planner = r.value("planner", std::string());
  const std::string point = r.contains("sweep_point") && r["sweep_point"].is_string()
                                ? r["sweep_point"].get<std::string>()
                                : std::string();
  return point.empty() ? planner : planner + " @ " + point;
}

std::optional<double> number_at(const DiffJson& r, std::string_view path) {
  const DiffJson* node = &r;
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t dot = path.find('.', at);
    if (dot == std::string_view::npos) dot = path.size();
    const std::string part(path.substr(at, dot - at));
    if (!node->is_object() || !node->contains(part)) return std::nullopt;
    node = &(*node)[part];
    at = dot + 1;
  }
  if (node->is_boolean()) return node->get<bool>() ? 1.0 : 0.0;
  if (node->is_number()) return node->get<double>();
  return std::nullopt;
}

std::string bottleneck_of(const DiffJson& r) {
  if (!r.contains("bottleneck") || !r["bottleneck"].is_object()) return "n/a";
  const DiffJson& b = r["bottleneck"];
  if (!b.contains("label") || !b["label"].is_string() || !b["share"].is_number()) return "n/a";
  return fmt::format("{} {}%", b["label"].get<std::string>(),
                     static_cast<int>(std::lround(100 * b["share"].get<double>())));
}

std::map<std::string, std::string> values_of(const DiffJson& r) {
  std::map<std::string, std::string> out;
  for (auto it = r["scenario_values"].begin(); it != r["scenario_values"].end(); ++it) {
    out[it.key()] = it.value().dump();
  }
  return out;
}

std::string shown(const MetricInfo& m, std::optional<double> v) {
  if (!v) return "n/a";
  switch (m.unit) {
    case MetricUnit::seconds:
      return rf::fixed(*v / units::ms, 3) + " ms";
    case MetricUnit::bytes:
      return rf::fixed(*v / units::GB, 3) + " GB";
    case MetricUnit::per_second:
      return rf::thousands(*v);
    case MetricUnit::flag:
      return *v != 0 ? "yes" : "no";
    default:
      return rf::fixed(*v, 3);
  }
}

std::string change_text(const MetricInfo& m, const MetricChange& c) {
  if (!c.before || !c.after) return c.before.has_value() == c.after.has_value() ? "" : "changed";
  if (*c.before == *c.after) return "=";
  if (m.unit == MetricUnit::flag) return "changed";
  const double d = *c.after - *c.before;
  const std::string pct =
      *c.before != 0 ? fmt::format(" ({:+.1f}%)", 100 * d / std::fabs(*c.before)) : std::string();
  switch (m.unit) {
    case MetricUnit::seconds:
      return fmt::format("{:+.3f} ms", d / units::ms) + pct;
    case MetricUnit::bytes:
      return fmt::format("{:+.3f} GB", d / units::GB) + pct;
    case MetricUnit::per_second:
      return (d >= 0 ? "+" : "") + rf::thousands(d) + pct;
    default:
      return fmt::format("{:+.3f}", d) + pct;
  }
}

}  // namespace

std::vector<DiffJson> read_report_objects(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw InputError(SourceLocation{path}, "", "no such file or directory",
                     "pass a report.json, or the --out DIR of a run");
  }
  if (!fs::is_directory(path, ec)) return objects_of(path);
  if (fs::exists(fs::path(path) / "report.json", ec)) {
    return objects_of((fs::path(path) / "report.json").string());
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    if (e.path().extension() == ".json" && e.is_regular_file(ec))
      files.push_back(e.path().string());
  }
  if (files.empty()) {
    throw InputError(SourceLocation{path}, "", "the directory holds no report (*.json)",
                     "pass the --out DIR of a run, or a report.json");
  }
  std::sort(files.begin(), files.end());
  std::vector<DiffJson> out;
  for (const std::string& f : files) {
    for (DiffJson& r : objects_of(f)) out.push_back(std::move(r));
  }
  return out;
}

ReportDiff diff_reports(const std::vector<DiffJson>& before, const std::vector<DiffJson>& after) {
  ReportDiff d;
  std::map<std::string, const DiffJson*> after_by_key;
  for (const DiffJson& r : after) after_by_key.emplace(key_of(r), &r);
  std::set<std::string> matched;
  for (const DiffJson& b : before) {
    const std::string key = key_of(b);
    const auto it = after_by_key.find(key);
    if (it == after_by_key.end()) {
      d.only_before.push_back(key);
      continue;
    }
    matched.insert(key);
    const DiffJson& a = *it->second;
    ReportPairDiff p;
    p.planner = b.value("planner", std::string());
    p.sweep_point = b.contains("sweep_point") ? b["sweep_point"].get<std::string>() : "";
    for (const ReportField& f : report_fields()) {
      if (!f.compare) continue;
      p.metrics.push_back(
          MetricChange{std::string(f.compare->name), number_at(b, f.path), number_at(a, f.path)});
    }
    p.bottleneck_before = bottleneck_of(b);
    p.bottleneck_after = bottleneck_of(a);
    p.keys_known = b.contains("scenario_values") && a.contains("scenario_values") &&
                   b["scenario_values"].is_object() && a["scenario_values"].is_object();
    if (p.keys_known) {
      const auto vb = values_of(b), va = values_of(a);
      std::set<std::string> keys;
      for (const auto& kv : vb) keys.insert(kv.first);
      for (const auto& kv : va) keys.insert(kv.first);
      for (const std::string& k : keys) {
        const auto x = vb.find(k), y = va.find(k);
        const std::string bx = x == vb.end() ? "(absent)" : x->second;
        const std::string ay = y == va.end() ? "(absent)" : y->second;
        if (bx != ay) p.keys.push_back(KeyChange{k, bx, ay});
      }
    }
    d.pairs.push_back(std::move(p));
  }
  for (const DiffJson& a : after) {
    if (!matched.count(key_of(a))) d.only_after.push_back(key_of(a));
  }
  return d;
}

void write_diff_text(std::ostream& out, const ReportDiff& d) {
  out << fmt::format("diff {} -> {}\n", d.before_origin, d.after_origin);
  for (const ReportPairDiff& p : d.pairs) {
    out << '\n'
        << p.planner << (p.sweep_point.empty() ? "" : " @ " + rf::shown_sweep_point(p.sweep_point))
        << ":\n";
    if (!p.keys_known) {
      out << "  scenario keys: not recorded on both sides (a report before schema 1.1)\n";
    } else if (p.keys.empty()) {
      out << "  scenario keys: no changes\n";
    } else {
      out << "  scenario keys that differ:\n";
      for (const KeyChange& k : p.keys) {
        out << fmt::format("    {}: {} -> {}\n", k.key, k.before, k.after);
      }
    }
    rf::TextTable table({{"metric", rf::TextTable::Align::left},
                         {"before", rf::TextTable::Align::right},
                         {"after", rf::TextTable::Align::right},
                         {"change", rf::TextTable::Align::left}});
    for (const MetricChange& c : p.metrics) {
      const MetricInfo* m = find_metric(c.metric);
      if (!c.before && !c.after) continue;
      table.add_row({c.metric, shown(*m, c.before), shown(*m, c.after), change_text(*m, c)});
    }
    table.add_row({"bound by", p.bottleneck_before, p.bottleneck_after,
                   p.bottleneck_before == p.bottleneck_after ? "=" : "changed"});
    table.write(out, 2);
  }
  for (const std::string& k : d.only_before) out << fmt::format("\nonly before: {}\n", k);
  for (const std::string& k : d.only_after) out << fmt::format("\nonly after: {}\n", k);
}

nlohmann::ordered_json diff_to_json(const ReportDiff& d) {
  nlohmann::ordered_json j;
  j["before"] = d.before_origin;
  j["after"] = d.after_origin;
  j["pairs"] = nlohmann::ordered_json::array();
  for (const ReportPairDiff& p : d.pairs) {
    nlohmann::ordered_json e;
    e["planner"] = p.planner;
    e["sweep_point"] = p.sweep_point;
    e["keys_known"] = p.keys_known;
    e["keys"] = nlohmann::ordered_json::array();
    for (const KeyChange& k : p.keys) {
      e["keys"].push_back({{"key", k.key}, {"before", k.before}, {"after", k.after}});
    }
    e["metrics"] = nlohmann::ordered_json::object();
    for (const MetricChange& c : p.metrics) {
      auto v = [](std::optional<double> x) {
        return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json();
      };
      nlohmann::ordered_json m;
      m["before"] = v(c.before);
      m["after"] = v(c.after);
      m["change"] = c.before && c.after ? v(*c.after - *c.before) : nlohmann::ordered_json();
      m["relative"] = c.before && c.after && *c.before != 0
                          ? v((*c.after - *c.before) / std::fabs(*c.before))
                          : nlohmann::ordered_json();
      e["metrics"][c.metric] = std::move(m);
    }
    e["bottleneck"] = {{"before", p.bottleneck_before}, {"after", p.bottleneck_after}};
    j["pairs"].push_back(std::move(e));
  }
  j["only_before"] = d.only_before;
  j["only_after"] = d.only_after;
  return j;
}

}  // namespace shardsim
