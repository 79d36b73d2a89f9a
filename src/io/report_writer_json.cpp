// The JSON report, written row by row of the report schema (metrics/report_schema.hpp); the
// fields: docs/report-fields.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string_view>

#include "io/report_balance.hpp"
#include "io/report_fields.hpp"
#include "io/report_json.hpp"
#include "io/report_values.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/plan_stats_writer.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

namespace {

using OrderedJson = nlohmann::ordered_json;

// A number, or null when it is not finite (NaN, inf), so the object in memory reads the same
// as its printed form (nlohmann prints non-finite numbers as null).
OrderedJson num(double value) {
  return std::isfinite(value) ? OrderedJson(value) : OrderedJson();
}

// A value that only exists when the plan fit and was simulated: null otherwise.
OrderedJson timed(const Report& r, double value) {
  return report_has_timing(r) ? num(value) : OrderedJson();
}

// A JSON number as nlohmann prints one (shortest text that reads back to the same double, with
// ".0" on whole numbers), or null when not finite. Used where the writer streams numbers itself.
void append_json_number(fmt::memory_buffer& buf, double value) {
  if (!std::isfinite(value)) {
    buf.append(std::string_view("null"));
    return;
  }
  const std::size_t start = buf.size();
  fmt::format_to(std::back_inserter(buf), "{}", value);
  const std::string_view text(buf.data() + start, buf.size() - start);
  if (text.find_first_of(".eE") == std::string_view::npos) buf.append(std::string_view(".0"));
}

OrderedJson matrix_to_json(const ByteMatrix& m) {
  OrderedJson rows = OrderedJson::array();
  for (int i = 0; i < m.size(); ++i) {
    OrderedJson row = OrderedJson::array();
    for (int j = 0; j < m.size(); ++j) row.push_back(num(m.at(i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

// One per_gpu[] object, from the schema's GPU rows.
OrderedJson gpu_to_json(const Report& r, const GpuReport& g) {
  OrderedJson j;
  for (const GpuField& f : gpu_fields()) {
    const std::size_t dot = f.path.find('.');
    if (dot != std::string_view::npos) {
      const std::string parent(f.path.substr(0, dot));
      if (!j[parent].is_null())
        j[parent][std::string(f.path.substr(dot + 1))] = field_json(gpu_field_value(r, g, f));
      continue;
    }
    if (f.value) {
      j[std::string(f.path)] = field_json(gpu_field_value(r, g, f));
    } else {
      // An object made of the rows "path.*": null when the report lacks what it needs.
      j[std::string(f.path)] = report_meets(r, f.needs) ? OrderedJson::object() : OrderedJson();
    }
  }
  return j;
}

OrderedJson spread_to_json(const Spread& s) {
  OrderedJson j;
  if (s.count == 0) {  // no GPUs, no plan: nothing to measure
    for (const char* key :
         {"min", "mean", "max", "max_minus_min", "max_over_mean", "min_gpu", "max_gpu"}) {
      j[key] = nullptr;
    }
    return j;
  }
  j["min"] = num(s.min);
  j["mean"] = num(s.mean);
  j["max"] = num(s.max);
  j["max_minus_min"] = num(s.max_minus_min());
  j["max_over_mean"] = num(s.max_over_mean());  // null when the mean is 0
  j["min_gpu"] = s.min_gpu;
  j["max_gpu"] = s.max_gpu;
  return j;
}

// Per phase, the largest time any GPU spent in it (2D Fig. 6): {"phase": {"max": s,
// "exposed": s}}; null when not simulated.
OrderedJson phase_max_to_json(const Report& r) {
  if (!report_has_timing(r)) return OrderedJson();
  OrderedJson j = OrderedJson::object();
  for (const PhaseTime& p : r.phase_max) {
    OrderedJson phase;
    phase["max"] = num(p.serialized_s);
    phase["exposed"] = num(p.exposed_s);
    phase["waiting"] = num(p.waiting_s);
    j[p.phase] = std::move(phase);
  }
  return j;
}

OrderedJson groups_to_json(const Report& r) {
  OrderedJson list = OrderedJson::array();
  for (const GroupReport& g : r.groups) {
    OrderedJson j;
    j["group"] = g.group;
    j["num_gpus"] = g.num_gpus;
    j["first_gpu"] = g.first_gpu;
    j["lookup_max_s"] = timed(r, g.lookup_max_s);
    j["lookup_mean_s"] = timed(r, g.lookup_mean_s);
    j["imbalance_ratio"] = timed(r, g.imbalance_ratio);
    j["memory_max_bytes"] = num(g.memory_max_bytes);
    j["memory_mean_bytes"] = num(g.memory_mean_bytes);
    j["lookups"] = num(g.lookups);
    j["comm_sent_bytes"] = num(g.comm_bytes);
    j["sync_s"] = timed(r, g.sync_s);
    list.push_back(std::move(j));
  }
  return list;
}

OrderedJson replica_sync_to_json(const Report& r) {
  if (!r.replica_sync) return OrderedJson();
  const ReplicaSyncReport& rs = *r.replica_sync;
  OrderedJson j;
  j["mode"] = rs.mode;
  j["interval"] = rs.interval;
  j["peers"] = rs.peers;
  j["bytes_per_sync"] = num(rs.bytes_per_sync);
  j["max_gpu_bytes_per_sync"] = num(rs.max_gpu_bytes);
  j["sync_Bps"] = num(rs.sync_Bps);
  j["eq1_s"] = num(rs.eq1_s);
  j["simulated_s"] = timed(r, rs.simulated_s);
  return j;
}

OrderedJson breakdown_to_json(const Report& r) {
  if (!report_has_timing(r)) return OrderedJson();
  // Phases in the order first seen. Two entries for one phase would be a metrics bug: keep
  // both amounts (summed) rather than drop one, and say so.
  std::vector<PhaseTime> phases;
  for (const PhaseTime& p : r.breakdown) {
    auto same = std::find_if(phases.begin(), phases.end(),
                             [&](const PhaseTime& q) { return q.phase == p.phase; });
    if (same == phases.end()) {
      phases.push_back(p);
      continue;
    }
    log_warn("report '{}' / '{}': phase '{}' appears twice in the breakdown; summing", r.scenario,
             r.planner, p.phase);
    same->serialized_s += p.serialized_s;
    same->exposed_s += p.exposed_s;
    same->waiting_s += p.waiting_s;
  }
  OrderedJson j = OrderedJson::object();
  for (const PhaseTime& p : phases) {
    OrderedJson phase;
    phase["serialized"] = num(p.serialized_s);
    phase["exposed"] = num(p.exposed_s);
    phase["waiting"] = num(p.waiting_s);
    j[p.phase] = std::move(phase);
  }
  return j;
}

OrderedJson comm_bytes_to_json(const Report& r, bool with_matrices) {
  if (!with_matrices) return OrderedJson();
  OrderedJson comm;
  comm["granularity"] = r.comm_granularity;
  const bool none = r.comm_granularity == "none";
  comm["fwd"] = none ? OrderedJson() : matrix_to_json(r.comm_fwd);
  comm["bwd"] = none ? OrderedJson() : matrix_to_json(r.comm_bwd);
  return comm;
}

OrderedJson input_hashes_to_json(const Report& r) {
  if (r.input_hashes.empty()) return OrderedJson();
  auto hash = [](const std::string& h) { return h.empty() ? OrderedJson() : OrderedJson(h); };
  OrderedJson h;
  h["scenario"] = hash(r.input_hashes.scenario);
  h["hardware"] = hash(r.input_hashes.hardware);
  h["cost"] = hash(r.input_hashes.cost);
  return h;
}

OrderedJson pruning_to_json(const PruningReport& p) {
  OrderedJson pr;
  pr["pruned_tables"] = p.pruned_tables;
  pr["original_rows"] = p.original_rows;
  pr["pruned_rows"] = p.pruned_rows;
  pr["dropped_lookup_fraction"] = p.dropped_lookup_fraction;
  return pr;
}

OrderedJson link_utilization_to_json(const Report& r) {
  OrderedJson links = OrderedJson::array();
  for (const LinkClassUse& u : r.link_utilization) {
    OrderedJson l;
    l["class"] = u.link_class;
    l["links"] = u.links;
    l["mean_utilization"] = num(u.mean_utilization);
    l["max_utilization"] = num(u.max_utilization);
    l["busiest_link"] = u.busiest_link.empty() ? OrderedJson() : OrderedJson(u.busiest_link);
    links.push_back(std::move(l));
  }
  return links;
}

// The value of a structured row (an array, or an object the schema describes with a JSON
// Schema fragment rather than child rows). Each is written here; a row without a writer is a
// logic error that the schema tests catch on their first report.
OrderedJson structured_to_json(const Report& r, std::string_view path, bool with_matrices) {
  if (path == "iteration_times_s") {
    OrderedJson times = OrderedJson::array();
    for (double t : r.iteration_times_s) times.push_back(num(t));
    return times;
  }
  if (path == "breakdown_s") return breakdown_to_json(r);
  if (path == "phase_max_s") return phase_max_to_json(r);
  if (path == "link_utilization") return link_utilization_to_json(r);
  if (path == "memory_bytes.per_gpu") {
    OrderedJson mem = OrderedJson::array();
    for (const GpuReport& g : r.per_gpu) mem.push_back(num(g.memory_bytes));
    return mem;
  }
  if (path == "balance") {
    // OPER §6.4: memory, lookup workload and communication balance.
    OrderedJson balance;
    balance["memory_bytes"] = spread_to_json(spread_of(r.per_gpu, gpu_memory_bytes));
    balance["lookups"] = spread_to_json(spread_of(r.per_gpu, gpu_lookups));
    balance["comm_bytes"] = spread_to_json(spread_of(r.per_gpu, gpu_comm_bytes));
    return balance;
  }
  if (path == "per_gpu") {
    OrderedJson per_gpu = OrderedJson::array();
    for (const GpuReport& g : r.per_gpu) per_gpu.push_back(gpu_to_json(r, g));
    return per_gpu;
  }
  if (path == "groups") return groups_to_json(r);
  if (path == "replica_sync") return replica_sync_to_json(r);
  if (path == "pruning") return r.pruning ? pruning_to_json(*r.pruning) : OrderedJson();
  // Without matrices, null holds the key's place; write_json streams the matrices there.
  if (path == "comm_bytes") return comm_bytes_to_json(r, with_matrices);
  if (path == "input_hashes") return input_hashes_to_json(r);
  if (path == "scenario_values") {
    OrderedJson values = OrderedJson::object();
    for (const auto& [key, value] : r.scenario_values) {
      // Canonical values are JSON but for null (~); a list holding ~ stays its text.
      if (value == "~") {
        values[key] = nullptr;
        continue;
      }
      OrderedJson v = OrderedJson::parse(value, nullptr, false);
      values[key] = v.is_discarded() ? OrderedJson(value) : std::move(v);
    }
    return values;
  }
  if (path == "plan_stats") return r.plan_stats ? plan_stats_to_json(*r.plan_stats) : OrderedJson();
  throw std::logic_error(
      fmt::format("report schema: no JSON writer for structured field '{}'", path));
}

// The JSON value of row `f` (and, for an object row, of its child rows).
OrderedJson row_to_json(const Report& r, const ReportField& f, bool with_matrices) {
  if (!report_meets(r, f.needs)) return OrderedJson();
  if (f.value) return field_json(f.value(r));
  const std::vector<const ReportField*> children = child_fields(f.path);
  if (children.empty()) return structured_to_json(r, f.path, with_matrices);
  OrderedJson obj = OrderedJson::object();
  for (const ReportField* c : children) {
    if (c->present && !c->present(r)) continue;
    obj[std::string(c->path.substr(f.path.size() + 1))] = row_to_json(r, *c, with_matrices);
  }
  return obj;
}

}  // namespace

// The report object, row by row of the schema (top-level rows; child rows inside their object).
nlohmann::ordered_json report_json_object(const Report& r, bool with_matrices) {
  OrderedJson j;
  for (const ReportField& f : report_fields()) {
    if (f.path.front() == '#' || f.path.find('.') != std::string_view::npos) continue;
    if (f.present && !f.present(r)) continue;
    j[std::string(f.path)] = row_to_json(r, f, with_matrices);
  }
  return j;
}

namespace {

// Pretty printing that stays small for thousands of GPUs: objects and arrays of containers one
// element per line (indent 2), arrays of plain values on one line; the GPU x GPU matrices are
// streamed from the Report row by row rather than built as JSON values.
std::string spaces(int n) {
  return std::string(static_cast<std::size_t>(n), ' ');
}

bool is_flat_array(const OrderedJson& v) {
  if (!v.is_array()) return false;
  for (const OrderedJson& e : v) {
    if (e.is_structured()) return false;
  }
  return true;
}

void print_value(std::ostream& out, const OrderedJson& v, int indent) {
  if (!v.is_structured() || v.empty()) {
    out << v.dump();
    return;
  }
  if (is_flat_array(v)) {
    out << '[';
    bool first = true;
    for (const OrderedJson& e : v) {
      out << (first ? "" : ", ") << e.dump();
      first = false;
    }
    out << ']';
    return;
  }
  const bool object = v.is_object();
  out << (object ? '{' : '[');
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    out << (first ? "\n" : ",\n") << spaces(indent + 2);
    if (object) out << OrderedJson(it.key()).dump() << ": ";
    print_value(out, it.value(), indent + 2);
    first = false;
  }
  out << '\n' << spaces(indent) << (object ? '}' : ']');
}

void print_matrix(std::ostream& out, const ByteMatrix& m, int indent) {
  if (m.size() == 0) {
    out << "[]";
    return;
  }
  out << '[';
  fmt::memory_buffer row;
  for (int i = 0; i < m.size(); ++i) {
    row.clear();
    row.append(std::string_view(i == 0 ? "\n" : ",\n"));
    row.append(spaces(indent + 2));
    row.push_back('[');
    for (int j = 0; j < m.size(); ++j) {
      if (j > 0) row.append(std::string_view(", "));
      append_json_number(row, m.at(i, j));
    }
    row.push_back(']');
    out.write(row.data(), static_cast<std::streamsize>(row.size()));
  }
  out << '\n' << spaces(indent) << ']';
}

void print_report(std::ostream& out, const Report& r, const OrderedJson& extra, int indent) {
  OrderedJson j = report_json_object(r, false);
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  out << '{';
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out << (first ? "\n" : ",\n") << spaces(indent + 2) << OrderedJson(it.key()).dump() << ": ";
    first = false;
    if (it.key() == "comm_bytes") {
      const int inner = indent + 2;
      const bool none = r.comm_granularity == "none";
      out << "{\n"
          << spaces(inner + 2) << "\"granularity\": " << OrderedJson(r.comm_granularity).dump();
      out << ",\n" << spaces(inner + 2) << "\"fwd\": ";
      if (none) {
        out << "null";
      } else {
        print_matrix(out, r.comm_fwd, inner + 2);
      }
      out << ",\n" << spaces(inner + 2) << "\"bwd\": ";
      if (none) {
        out << "null";
      } else {
        print_matrix(out, r.comm_bwd, inner + 2);
      }
      out << '\n' << spaces(inner) << '}';
    } else {
      print_value(out, it.value(), indent + 2);
    }
  }
  out << '\n' << spaces(indent) << '}';
}

}  // namespace

nlohmann::ordered_json report_to_json(const Report& r) {
  return report_json_object(r, true);
}

nlohmann::ordered_json reports_to_json(std::span<const Report> reports) {
  if (reports.size() == 1) return report_to_json(reports.front());
  OrderedJson list = OrderedJson::array();
  for (const Report& r : reports) list.push_back(report_to_json(r));
  OrderedJson j;
  j["reports"] = std::move(list);
  return j;
}

void write_json(std::ostream& out, std::span<const Report> reports) {
  write_json(out, reports, {});
}

void write_json(std::ostream& out, std::span<const Report> reports,
                std::span<const nlohmann::ordered_json> extra_fields) {
  if (!extra_fields.empty() && extra_fields.size() != reports.size()) {
    throw std::logic_error(fmt::format("write_json: {} extra field sets for {} reports",
                                       extra_fields.size(), reports.size()));
  }
  const OrderedJson no_extra = OrderedJson::object();
  auto extra = [&](std::size_t i) -> const OrderedJson& {
    return extra_fields.empty() ? no_extra : extra_fields[i];
  };
  if (reports.size() == 1) {
    print_report(out, reports.front(), extra(0), 0);
  } else if (reports.empty()) {
    out << "{\n  \"reports\": []\n}";
  } else {
    out << "{\n  \"reports\": [";
    for (std::size_t i = 0; i < reports.size(); ++i) {
      out << (i == 0 ? "\n" : ",\n") << spaces(4);
      print_report(out, reports[i], extra(i), 4);
    }
    out << "\n  ]\n}";
  }
  out << '\n';
}

}  // namespace shardsim
