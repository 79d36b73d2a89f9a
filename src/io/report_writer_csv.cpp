// CSV writers: one summary row per report, one row per GPU, and the GPU x GPU byte matrices.
// Columns and their units: docs/report.md. Numbers print as the shortest text that reads back
// to the same double; a value that does not exist (a plan that did not fit was never timed) is
// an empty field.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <ostream>
#include <string_view>

#include "report_fields.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/sim/task.hpp"

namespace shardsim {

namespace {

namespace rf = report_format;

// Joins already-formatted fields into one CSV line.
void write_line(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out << ',';
    out << fields[i];
  }
  out << '\n';
}

std::string cell(double v) {
  return rf::csv_number(v);
}
std::string timed_cell(const Report& r, double v) {
  return report_has_timing(r) ? cell(v) : std::string();
}
std::string planned_cell(const Report& r, double v) {
  return report_has_plan(r) ? cell(v) : std::string();
}
std::string text_cell(const std::string& s) {
  return rf::csv_field(s);
}

}  // namespace

void write_csv_summary(std::ostream& out, std::span<const Report> reports) {
  // The cost columns exist only when some report has a price (docs/report.md "Cost").
  bool cost = false;
  for (const Report& r : reports) cost = cost || r.cost.has_value();
  std::vector<std::string> header{"scenario",
                                  "planner",
                                  "sweep_point",
                                  "mode",
                                  "preset",
                                  "num_gpus",
                                  "num_nodes",
                                  "num_tables",
                                  "iterations",
                                  "warmup",
                                  "seed",
                                  "global_batch",
                                  "iteration_mean_s",
                                  "iteration_p50_s",
                                  "iteration_p99_s",
                                  "iteration_min_s",
                                  "iteration_max_s",
                                  "qps",
                                  "imbalance_ratio",
                                  "degree_of_balance",
                                  "memory_max_bytes",
                                  "memory_mean_bytes",
                                  "memory_capacity_bytes",
                                  "worst_memory_gpu",
                                  "fits_in_memory",
                                  "fit_error",
                                  "planning_time_s",
                                  "shardsim_version",
                                  "scaling_factor",
                                  "num_groups",
                                  "replica_sync_s",
                                  "busy_imbalance_ratio",
                                  "critical_gpu"};
  // The breakdown on the critical GPU (one column pair per phase, empty when the phase did not
  // run) and the plan statistics, as in the JSON (docs/report.md).
  for (int p = 0; p < kNumPhases; ++p) {
    const std::string phase = to_string(static_cast<Phase>(p));
    header.push_back("serialized_" + phase + "_s");
    header.push_back("exposed_" + phase + "_s");
  }
  header.emplace_back("exposed_idle_s");
  for (const char* c :
       {"estimated_embedding_s", "estimated_alltoall_fwd_s", "estimated_alltoall_bwd_s",
        "estimated_degree_of_balance", "estimated_total_max_over_mean", "memory_gap_to_bound"}) {
    header.emplace_back(c);
  }
  if (cost) {
    for (const char* c : {"price_per_gpu_hour", "cost_per_million_samples", "cost_per_epoch"})
      header.emplace_back(c);
  }
  write_line(out, header);
  for (const Report& r : reports) {
    std::vector<std::string> cells{
        text_cell(r.scenario),
        text_cell(r.planner),
        text_cell(r.sweep_point),
        text_cell(r.mode),
        text_cell(r.preset),
        std::to_string(r.num_gpus),
        std::to_string(r.num_nodes),
        std::to_string(r.num_tables),
        std::to_string(r.iterations),
        std::to_string(r.warmup),
        std::to_string(r.seed),
        std::to_string(r.global_batch),
        timed_cell(r, r.iteration_time.mean_s),
        timed_cell(r, r.iteration_time.p50_s),
        timed_cell(r, r.iteration_time.p99_s),
        timed_cell(r, r.iteration_time.min_s),
        timed_cell(r, r.iteration_time.max_s),
        timed_cell(r, r.qps),
        timed_cell(r, r.imbalance_ratio),
        planned_cell(r, r.degree_of_balance),
        cell(r.memory_max_bytes),
        planned_cell(r, r.memory_mean_bytes),
        cell(r.memory_capacity_bytes),
        std::to_string(r.worst_memory_gpu),
        r.fits_in_memory ? "true" : "false",
        text_cell(r.fits_in_memory ? std::string() : r.fit_error),
        cell(r.planning_time_s),
        text_cell(r.shardsim_version.empty() ? std::string(SHARDSIM_VERSION) : r.shardsim_version),
        timed_cell(r, r.scaling_factor),
        std::to_string(r.groups.empty() ? 1 : r.groups.size()),
        r.replica_sync ? timed_cell(r, r.replica_sync->simulated_s) : std::string(),
        timed_cell(r, r.busy_imbalance_ratio),
        report_has_timing(r) ? std::to_string(r.critical_gpu) : std::string()};
    for (int p = 0; p < kNumPhases; ++p) {
      const std::string phase = to_string(static_cast<Phase>(p));
      const auto it = std::find_if(r.breakdown.begin(), r.breakdown.end(),
                                   [&](const PhaseTime& x) { return x.phase == phase; });
      cells.push_back(it == r.breakdown.end() ? std::string() : cell(it->serialized_s));
      cells.push_back(it == r.breakdown.end() ? std::string() : cell(it->exposed_s));
    }
    {
      const auto idle = std::find_if(r.breakdown.begin(), r.breakdown.end(),
                                     [](const PhaseTime& x) { return x.phase == "idle"; });
      cells.push_back(idle != r.breakdown.end() ? cell(idle->exposed_s)
                      : report_has_timing(r)    ? cell(0)
                                                : std::string());
    }
    if (r.plan_stats) {
      const PlanStats& st = *r.plan_stats;
      cells.push_back(cell(st.estimated_embedding_s));
      cells.push_back(cell(st.alltoall_fwd_s));
      cells.push_back(cell(st.alltoall_bwd_s));
      cells.push_back(cell(st.estimated_degree_of_balance));
      cells.push_back(cell(st.total_s.max_over_mean()));
      cells.push_back(cell(st.memory_bytes.gap_to_bound()));
    } else {
      for (int k = 0; k < 6; ++k) cells.emplace_back();
    }
    if (cost) {
      cells.push_back(r.cost ? cell(r.cost->price_per_gpu_hour) : std::string());
      cells.push_back(r.cost ? cell(r.cost->cost_per_million_samples) : std::string());
      cells.push_back(r.cost ? cell(r.cost->cost_per_epoch) : std::string());
    }
    write_line(out, cells);
  }
}

void write_per_gpu_csv(std::ostream& out, std::span<const Report> reports) {
  write_line(out, {"planner",
                   "sweep_point",
                   "gpu",
                   "node",
                   "lookup_s",
                   "busy_s",
                   "compute_s",
                   "comm_transfer_s",
                   "comm_wait_s",
                   "idle_s",
                   "embedding_share_s",
                   "dense_compute_share_s",
                   "comm_share_s",
                   "comm_wait_share_s",
                   "host_share_s",
                   "idle_share_s",
                   "memory_bytes",
                   "memory_capacity_bytes",
                   "weights_bytes",
                   "optimizer_bytes",
                   "cache_bytes",
                   "activation_bytes",
                   "reserved_bytes",
                   "host_memory_bytes",
                   "host_link_bytes",
                   "lookups",
                   "shards",
                   "comm_sent_bytes",
                   "comm_received_bytes"});
  for (const Report& r : reports) {
    for (const GpuReport& g : r.per_gpu) {
      write_line(out, {text_cell(r.planner),
                       text_cell(r.sweep_point),
                       std::to_string(g.gpu),
                       std::to_string(g.node),
                       timed_cell(r, g.lookup_s),
                       timed_cell(r, g.busy_s),
                       timed_cell(r, g.compute_s),
                       timed_cell(r, g.comm_transfer_s),
                       timed_cell(r, g.comm_wait_s),
                       timed_cell(r, g.idle_s),
                       timed_cell(r, g.shares.embedding_s),
                       timed_cell(r, g.shares.dense_compute_s),
                       timed_cell(r, g.shares.comm_s),
                       timed_cell(r, g.shares.comm_wait_s),
                       timed_cell(r, g.shares.host_s),
                       timed_cell(r, g.shares.idle_s),
                       cell(g.memory_bytes),
                       cell(g.memory_capacity_bytes),
                       cell(g.weights_bytes),
                       cell(g.optimizer_bytes),
                       cell(g.cache_bytes),
                       cell(g.activation_bytes),
                       cell(g.reserved_bytes),
                       cell(g.host_memory_bytes),
                       timed_cell(r, g.host_link_bytes),
                       cell(g.lookups),
                       std::to_string(g.shards),
                       cell(g.comm_sent_bytes),
                       cell(g.comm_received_bytes)});
    }
  }
}

void write_comm_matrix_csv(std::ostream& out, const ByteMatrix& m) {
  // Formatted row by row into one buffer: a 4096-GPU matrix has 16.7 M cells.
  fmt::memory_buffer line;
  line.append(std::string_view("src\\dst"));
  for (int j = 0; j < m.size(); ++j) fmt::format_to(std::back_inserter(line), ",{}", j);
  line.push_back('\n');
  out.write(line.data(), static_cast<std::streamsize>(line.size()));
  for (int i = 0; i < m.size(); ++i) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{}", i);
    for (int j = 0; j < m.size(); ++j) {
      line.push_back(',');
      const double v = m.at(i, j);
      if (std::isfinite(v)) fmt::format_to(std::back_inserter(line), "{}", v);  // as csv_number
    }
    line.push_back('\n');
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
}

}  // namespace shardsim
