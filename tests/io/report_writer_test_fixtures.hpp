#pragma once
// Hand-built reports for the report-writer tests. Every number is chosen so the expected text
// can be written out by hand in the tests (see the comments next to each value).
#include <cmath>
#include <string>
#include <vector>

#include "shardsim/metrics/report.hpp"

namespace shardsim::test {

// GPU i of n (nodes of 2 GPUs):
//   lookup_s  = (i+1) ms          -> 4 GPUs: 1,2,3,4 ms; mean 2.5 ms; imbalance 4/2.5 = 1.6
//   comm_transfer_s = (n-i) * 0.5 ms (busy 4 ms, comm wait i * 0.1 ms)
//                 -> 4 GPUs: 2.0,1.5,1.0,0.5 ms; DoB 0.5/2.0 = 0.25
//   compute_s = 3 ms, idle_s = i * 0.25 ms
//   memory    = (i+1) * 10 GB of 80 GB -> 12.5 %, 25 %, 37.5 %, 50 %
//   lookups   = 1,234,567 for GPU 0, (i+1) * 1e6 otherwise
//   shards    = 3 + 2i
//   comm sent = (i+1) * 1 MB, received = (i+1) * 2 MB
inline GpuReport make_gpu(int i, int n) {
  GpuReport g;
  g.gpu = i;
  g.node = i / 2;
  g.lookup_s = (i + 1) * 1e-3;
  g.busy_s = 4e-3;
  g.comm_transfer_s = (n - i) * 0.5e-3;
  g.comm_wait_s = i * 0.1e-3;
  g.compute_s = 3e-3;
  g.idle_s = i * 0.25e-3;
  g.memory_bytes = (i + 1) * 10e9;
  g.memory_capacity_bytes = 80e9;
  g.weights_bytes = (i + 1) * 6e9;
  g.optimizer_bytes = (i + 1) * 1e9;
  g.activation_bytes = (i + 1) * 2e9;
  g.reserved_bytes = (i + 1) * 1e9;
  g.cache_bytes = i * 0.5e9;
  g.host_memory_bytes = i * 100e9;
  g.host_link_bytes = i * 1e8;
  g.lookups = i == 0 ? 1234567.0 : (i + 1) * 1e6;
  g.shards = 3 + 2 * i;
  g.comm_sent_bytes = (i + 1) * 1e6;
  g.comm_received_bytes = (i + 1) * 2e6;
  return g;
}

// comm_fwd(i, j) = 1000 (i+1) + j bytes off the diagonal, 0 on it; comm_bwd = 2 x comm_fwd.
inline Report make_report(int gpus = 4, std::string planner = "table_wise",
                          std::string sweep_point = "") {
  Report r;
  r.scenario = "example";
  r.scenario_source = "scenarios/example.yaml";
  r.planner = std::move(planner);
  r.sweep_point = std::move(sweep_point);
  r.mode = "training";
  r.preset = "dgx-a100";
  r.num_gpus = gpus;
  r.num_nodes = (gpus + 1) / 2;
  r.num_tables = 103;
  r.iterations = 10;
  r.warmup = 2;
  r.seed = 42;
  r.global_batch = 16384;
  r.iteration_time = {0.0123456, 0.0123, 0.0130, 0.0120, 0.0131};  // mean p50 p99 min max
  r.iteration_times_s = {0.0120, 0.0123, 0.0131};
  r.qps = 1234567.8;  // text: "1,234,568"
  r.imbalance_ratio = 1.6;
  r.degree_of_balance = 0.25;
  r.breakdown = {{"embedding_lookup_fwd", 0.004, 0.003}, {"alltoall_fwd", 0.002, 0.0005}};
  for (int i = 0; i < gpus; ++i) r.per_gpu.push_back(make_gpu(i, gpus));
  r.memory_max_bytes = gpus * 10e9;               // GPU n-1
  r.memory_mean_bytes = (gpus + 1) * 10e9 / 2.0;  // mean of 10, 20, ..., 10n GB
  r.memory_capacity_bytes = 80e9;
  r.fits_in_memory = true;
  r.worst_memory_gpu = gpus - 1;
  r.comm_fwd = ByteMatrix(gpus);
  r.comm_bwd = ByteMatrix(gpus);
  for (int i = 0; i < gpus; ++i) {
    for (int j = 0; j < gpus; ++j) {
      if (i == j) continue;
      r.comm_fwd.at(i, j) = 1000.0 * (i + 1) + j;
      r.comm_bwd.at(i, j) = 2 * (1000.0 * (i + 1) + j);
    }
  }
  r.planning_time_s = 0.0425;  // text: "42.500 ms"
  r.shardsim_version = "0.1.0-test";
  return r;
}

// A report whose plan did not fit: GPU 2 needs 90 GB of 80 GB; never simulated.
inline Report make_unfit_report(int gpus = 4, std::string planner = "row_wise") {
  Report r = make_report(gpus, std::move(planner));
  r.fits_in_memory = false;
  r.per_gpu[2].memory_bytes = 90e9;
  r.memory_max_bytes = 90e9;
  r.worst_memory_gpu = 2;
  r.fit_error = "the plan does not fit: GPU 2 needs 90.000 GB but has 80.000 GB available";
  return r;
}

// A planner that could not place the tables at all: no plan, so no per-GPU figures and no
// matrices; only the failing GPU's need (GPU 1: 120 GB of 80 GB). Fields the metrics module
// leaves at their defaults (degree_of_balance, memory_mean_bytes) are 0 here.
inline Report make_unplaced_report(int gpus = 4, std::string planner = "table_wise") {
  Report r = make_report(gpus, std::move(planner));
  r.fits_in_memory = false;
  r.per_gpu.clear();
  r.comm_fwd = ByteMatrix();
  r.comm_bwd = ByteMatrix();
  r.breakdown.clear();
  r.iteration_times_s.clear();
  r.degree_of_balance = 0;
  r.memory_mean_bytes = 0;
  r.memory_max_bytes = 120e9;
  r.worst_memory_gpu = 1;
  r.fit_error = "the plan does not fit: GPU 1 needs 120.000 GB but has 80.000 GB available";
  return r;
}

// The fixture report with every optional part present (every report schema row has a value
// other than a default Report's: tests/io/report_schema_test.cpp) and numbers that only read back
// exactly if every bit does (0.1 + 0.2 is not 0.3).
inline Report make_full_report() {
  Report r = make_report(4, "two_d", "cluster.nodes=2");
  r.qps = 0.1 + 0.2;
  r.iteration_time.mean_s = 1.0 / 3.0;
  r.phase_max = {{"alltoall_fwd", 2.0 / 3.0, 1.0 / 7.0}};
  GroupReport g;
  g.group = 1, g.num_gpus = 2, g.first_gpu = 2, g.lookup_max_s = 1e-3 / 3, g.lookup_mean_s = 2e-4;
  g.imbalance_ratio = 1.25, g.memory_max_bytes = 3e9, g.memory_mean_bytes = 2.5e9, g.lookups = 7;
  g.comm_bytes = 11, g.sync_s = 1e-5 / 3;
  r.groups = {g, g};
  r.groups[0].group = 0;
  ReplicaSyncReport s;
  s.mode = "touched_rows", s.interval = 4, s.peers = 2, s.bytes_per_sync = 1e8 / 3;
  s.max_gpu_bytes = 5e7, s.sync_Bps = 2.5e10, s.eq1_s = 1e-2 / 3, s.simulated_s = 4e-3;
  r.replica_sync = s;
  r.link_utilization = {{"scale_up", 16, 0.1, 0.7, "gpu0->nvswitch0"},
                        {"gpu_nic", 8, 0.0, 0.0, ""}};
  PlanStats p;
  p.planner = "two_d", p.num_gpus = 4, p.num_tables = 103, p.hbm_capacity_bytes = 80e9;
  GpuPlanStats gp;
  gp.gpu = 3, gp.node = 1, gp.memory.weights_bytes = 1e9 / 7, gp.hbm_used_bytes = 2e9;
  gp.fwd_compute_s = 1e-3 / 9, gp.sync_comm_s = 1e-6, gp.shards_by_kind = {1, 2, 3, 4, 5};
  p.gpus = {gp};
  p.shards_by_kind = {5, 4, 3, 2, 1};
  p.memory_bytes = {1, 2, 3, 0, 3, 2.5};
  p.total_s = {1e-3, 2e-3, 3e-3, 1, 2, 1e-3 / 3};
  p.estimated_degree_of_balance = 0.5, p.alltoall_fwd_s = 1e-4 / 3, p.estimated_embedding_s = 5e-3;
  p.planner_counts = {{"cache_queries", 9}, {"cache_hits", 7}};
  r.plan_stats = p;
  r.input_hashes = {"fnv1a64:0000000000000001", "fnv1a64:0000000000000002",
                    "fnv1a64:0000000000000003"};
  r.pruning = PruningReport{3, 3000000, 1350000, 0.1 + 0.2};
  r.bottom_mlp_gpu = 1;
  r.cost = CostReport{3.5, 0.1 + 0.2, 4500000000ULL, 1.0 / 3.0};
  r.scaling_factor = 0.75;
  r.scenario_values = {
      {"cluster.nodes", "2"}, {"model.precision.comms", "\"fp16\""}, {"placement.file", "~"}};
  r.busy_imbalance_ratio = 1.0 / 9.0 + 1;
  r.critical_gpu = 2;
  for (GpuReport& g : r.per_gpu) {
    g.shares = {1e-3 / 3, 2e-3 / 3, 3e-4, 4e-4, 5e-5 / 3, 6e-6};
  }
  r.planning_time_s = 1.0 / 7.0;
  return r;
}

}  // namespace shardsim::test
