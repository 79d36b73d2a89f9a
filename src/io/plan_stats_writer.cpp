// Plan statistics as text and JSON (docs/report.md, "Plan statistics").
#include "shardsim/io/plan_stats_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "shardsim/core/units.hpp"
#include "shardsim/io/report_format.hpp"

namespace shardsim {

namespace {

namespace rf = report_format;
using Align = rf::TextTable::Align;
using Json = nlohmann::ordered_json;

constexpr std::size_t kMaxGpuRows = 16;
constexpr std::size_t kHeadGpus = 8;
constexpr std::size_t kTailGpus = 4;

constexpr const char* kKindShort[kNumShardKinds] = {"TW", "RW", "CW", "DP", "FG"};

Json num(double v) {
  return std::isfinite(v) ? Json(v) : Json();
}

std::string ms(double s) {
  return rf::fixed(s / units::ms, 3);
}
std::string gb(double b) {
  return rf::fixed(b / units::GB, 2);
}
std::string mb(double b) {
  return rf::fixed(b / units::MB, 1);
}
std::string pct(double v) {
  return rf::fixed(v, 1);
}

std::string kinds_text(const std::array<int, kNumShardKinds>& k) {
  std::string s;
  for (int i = 0; i < kNumShardKinds; ++i) {
    if (k[i] == 0) continue;
    s += fmt::format("{}{} {}", s.empty() ? "" : " ", k[i], kKindShort[i]);
  }
  return s.empty() ? "-" : s;
}

struct Column {
  const char* header;
  double (*value)(const GpuPlanStats&);
  std::string (*format)(double);
};

const Column kColumns[] = {
    {"HBM GB", [](const GpuPlanStats& g) { return g.hbm_used_bytes; }, gb},
    {"HBM %",
     [](const GpuPlanStats& g) {
       return g.hbm_capacity_bytes > 0 ? 100.0 * g.hbm_used_bytes / g.hbm_capacity_bytes
                                       : std::numeric_limits<double>::quiet_NaN();
     },
     pct},
    {"lookups", [](const GpuPlanStats& g) { return g.lookups; }, rf::thousands},
    {"in MB", [](const GpuPlanStats& g) { return g.input_bytes; }, mb},
    {"out MB", [](const GpuPlanStats& g) { return g.output_bytes; }, mb},
    {"fwd comp ms", [](const GpuPlanStats& g) { return g.fwd_compute_s; }, ms},
    {"bwd comp ms", [](const GpuPlanStats& g) { return g.bwd_compute_s; }, ms},
    {"fwd comm ms", [](const GpuPlanStats& g) { return g.fwd_comm_s; }, ms},
    {"bwd comm ms", [](const GpuPlanStats& g) { return g.bwd_comm_s; }, ms},
    {"sync ms", [](const GpuPlanStats& g) { return g.sync_comm_s; }, ms},
    {"total ms", [](const GpuPlanStats& g) { return g.total_s(); }, ms},
};

std::vector<std::string> row(const GpuPlanStats& g) {
  std::vector<std::string> cells{std::to_string(g.gpu), std::to_string(g.node)};
  for (const Column& c : kColumns) cells.push_back(c.format(c.value(g)));
  cells.push_back(kinds_text(g.shards_by_kind));
  return cells;
}

std::vector<std::string> extreme(const PlanStats& st, bool want_max) {
  std::vector<std::string> cells{want_max ? "max" : "min", ""};
  for (const Column& c : kColumns) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < st.gpus.size(); ++i) {
      const double v = c.value(st.gpus[i]), b = c.value(st.gpus[best]);
      if (want_max ? v > b : v < b) best = i;
    }
    cells.push_back(fmt::format("{} @g{}", c.format(c.value(st.gpus[best])), st.gpus[best].gpu));
  }
  return cells;
}

Json balance_json(const BalanceStat& b) {
  Json j;
  j["min"] = num(b.min);
  j["mean"] = num(b.mean);
  j["max"] = num(b.max);
  j["min_gpu"] = b.min_gpu;
  j["max_gpu"] = b.max_gpu;
  j["max_minus_min"] = num(b.max_minus_min());
  j["max_over_mean"] = num(b.max_over_mean());
  j["lower_bound"] = num(b.lower_bound);
  j["gap_to_bound"] = num(b.gap_to_bound());
  return j;
}

}  // namespace

void write_plan_stats_text(std::ostream& out, const PlanStats& st, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  out << pad << "plan statistics (estimated from the plan and the cost model, per iteration):\n";
  std::vector<rf::TextTable::Column> cols{{"GPU", Align::right}, {"node", Align::right}};
  for (const Column& c : kColumns) cols.push_back({c.header, Align::right});
  cols.push_back({"shards", Align::left});
  rf::TextTable table(std::move(cols));
  const std::size_t n = st.gpus.size();
  if (n <= kMaxGpuRows) {
    for (const GpuPlanStats& g : st.gpus) table.add_row(row(g));
  } else {
    for (std::size_t i = 0; i < kHeadGpus; ++i) table.add_row(row(st.gpus[i]));
    table.add_row({"..."});
    for (std::size_t i = n - kTailGpus; i < n; ++i) table.add_row(row(st.gpus[i]));
    table.add_row(extreme(st, false));
    table.add_row(extreme(st, true));
  }
  table.write(out, indent + 2);
  out << '\n';

  rf::TextTable bal({{"balance", Align::left},
                     {"min", Align::right},
                     {"mean", Align::right},
                     {"max", Align::right},
                     {"max-min", Align::right},
                     {"max/mean", Align::right},
                     {"bound", Align::right},
                     {"gap", Align::right}});
  auto add = [&](const char* name, const BalanceStat& b, std::string (*f)(double)) {
    const double gap = b.gap_to_bound();
    bal.add_row({name, fmt::format("{} @g{}", f(b.min), b.min_gpu), f(b.mean),
                 fmt::format("{} @g{}", f(b.max), b.max_gpu), f(b.max_minus_min()),
                 rf::fixed(b.max_over_mean(), 3), f(b.lower_bound),
                 std::isfinite(gap) ? rf::fixed(100.0 * gap, 1) + "%" : rf::fixed(gap, 1)});
  };
  add("memory GB", st.memory_bytes, gb);
  add("lookups", st.lookups, rf::thousands);
  add("compute ms", st.compute_s, ms);
  add("comm MB", st.comm_bytes, mb);
  add("comm ms", st.comm_s, ms);
  add("total ms", st.total_s, ms);
  bal.write(out, indent + 2);
  out << '\n';
  out << pad
      << fmt::format(
             "  estimated embedding time {} ms (slowest GPU); AlltoAll fwd {} ms, "
             "bwd {} ms; estimated DoB {} (min/max estimated comm time; the report's DoB is "
             "measured)\n",
             ms(st.estimated_embedding_s), ms(st.alltoall_fwd_s), ms(st.alltoall_bwd_s),
             rf::fixed(st.estimated_degree_of_balance, 3));
  out << pad
      << fmt::format(
             "  shards: {} ({}; TW table-wise, RW row-wise, CW column-wise, DP "
             "data-parallel replicas, FG fine-grained)\n",
             [&] {
               int total = 0;
               for (int k : st.shards_by_kind) total += k;
               return total;
             }(),
             kinds_text(st.shards_by_kind));
  if (!st.planner_counts.empty()) {
    std::string counts;
    for (const PlannerCount& c : st.planner_counts) {
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", c.name,
                            rf::thousands(static_cast<double>(c.value)));
    }
    out << pad << "  the planner's own counts: " << counts << '\n';
  }
}

nlohmann::ordered_json plan_stats_to_json(const PlanStats& st) {
  Json j;
  j["planner"] = st.planner;
  j["estimated_embedding_s"] = num(st.estimated_embedding_s);
  j["alltoall_fwd_s"] = num(st.alltoall_fwd_s);
  j["alltoall_bwd_s"] = num(st.alltoall_bwd_s);
  j["estimated_degree_of_balance"] = num(st.estimated_degree_of_balance);
  Json kinds;
  for (int k = 0; k < kNumShardKinds; ++k) {
    kinds[to_string(static_cast<ShardKind>(k))] = st.shards_by_kind[k];
  }
  j["shards_by_kind"] = std::move(kinds);
  if (!st.planner_counts.empty()) {
    Json counts = Json::object();
    for (const PlannerCount& c : st.planner_counts) counts[c.name] = c.value;
    j["planner_counts"] = std::move(counts);
  }
  Json bal;
  bal["memory_bytes"] = balance_json(st.memory_bytes);
  bal["lookups"] = balance_json(st.lookups);
  bal["compute_s"] = balance_json(st.compute_s);
  bal["comm_bytes"] = balance_json(st.comm_bytes);
  bal["comm_s"] = balance_json(st.comm_s);
  bal["total_s"] = balance_json(st.total_s);
  j["balance"] = std::move(bal);

  // Per GPU as columns: one array per field, GPUs in id order (compact for thousands of GPUs).
  Json per = Json::object();
  auto column = [&](const char* key, auto value) {
    Json a = Json::array();
    for (const GpuPlanStats& g : st.gpus) a.push_back(value(g));
    per[key] = std::move(a);
  };
  column("gpu", [](const GpuPlanStats& g) { return Json(g.gpu); });
  column("node", [](const GpuPlanStats& g) { return Json(g.node); });
  column("hbm_used_bytes", [](const GpuPlanStats& g) { return num(g.hbm_used_bytes); });
  column("hbm_capacity_bytes", [](const GpuPlanStats& g) { return num(g.hbm_capacity_bytes); });
  column("weights_bytes", [](const GpuPlanStats& g) { return num(g.memory.weights_bytes); });
  column("optimizer_bytes", [](const GpuPlanStats& g) { return num(g.memory.optimizer_bytes); });
  column("cache_bytes", [](const GpuPlanStats& g) { return num(g.memory.cache_bytes); });
  column("activation_bytes", [](const GpuPlanStats& g) { return num(g.memory.activation_bytes); });
  column("dense_bytes", [](const GpuPlanStats& g) { return num(g.memory.dense_bytes); });
  column("reserved_bytes", [](const GpuPlanStats& g) { return num(g.memory.reserved_bytes); });
  column("host_memory_bytes", [](const GpuPlanStats& g) { return num(g.memory.host_bytes); });
  column("lookups", [](const GpuPlanStats& g) { return num(g.lookups); });
  column("input_bytes", [](const GpuPlanStats& g) { return num(g.input_bytes); });
  column("output_bytes", [](const GpuPlanStats& g) { return num(g.output_bytes); });
  column("fwd_compute_s", [](const GpuPlanStats& g) { return num(g.fwd_compute_s); });
  column("bwd_compute_s", [](const GpuPlanStats& g) { return num(g.bwd_compute_s); });
  column("fwd_comm_s", [](const GpuPlanStats& g) { return num(g.fwd_comm_s); });
  column("bwd_comm_s", [](const GpuPlanStats& g) { return num(g.bwd_comm_s); });
  column("sync_comm_s", [](const GpuPlanStats& g) { return num(g.sync_comm_s); });
  column("total_s", [](const GpuPlanStats& g) { return num(g.total_s()); });
  column("comm_sent_bytes", [](const GpuPlanStats& g) { return num(g.comm_sent_bytes); });
  column("comm_received_bytes", [](const GpuPlanStats& g) { return num(g.comm_received_bytes); });
  column("sync_bytes", [](const GpuPlanStats& g) { return num(g.sync_bytes); });
  for (int k = 0; k < kNumShardKinds; ++k) {
    const std::string key = "shards_" + to_string(static_cast<ShardKind>(k));
    Json a = Json::array();
    for (const GpuPlanStats& g : st.gpus) a.push_back(g.shards_by_kind[k]);
    per[key] = std::move(a);
  }
  j["per_gpu"] = std::move(per);
  return j;
}

}  // namespace shardsim
