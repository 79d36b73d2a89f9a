#pragma once
// A small planning set-up for planner tests: a hand preset cluster, a model built table by
// table, a workload and a trace source (uniform access, or the synthetic power-law one).
#include <memory>
#include <string>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan_validation.hpp"
#include "shardsim/plan/planner.hpp"
#include "shardsim/trace/trace_source.hpp"
#include "support/hand_preset.hpp"
#include "support/uniform_trace.hpp"

namespace shardsim::testing {

struct TableSpec {
  std::uint64_t rows;
  std::uint32_t dim;
  double pooling = 1;
  double alpha = 0;  // 0: uniform access
};

inline DlrmModel model_of(const std::vector<TableSpec>& specs) {
  DlrmModel m;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EmbeddingTable t;
    t.name = "t" + std::to_string(i);
    t.rows = specs[i].rows;
    t.dim = specs[i].dim;
    t.pooling.value = specs[i].pooling;
    t.alpha = specs[i].alpha;
    m.tables.push_back(t);
  }
  m.dense_features = 4;
  m.bottom_mlp = {8};
  m.top_mlp = {1};
  return m;
}

// The options a planner needs to run at all, plus `extra`: two_d needs its number of groups.
// Used by tests that loop over every planner.
inline OptionValues options_for(const std::string& planner, OptionValues extra = {}) {
  OptionValues out;
  if (planner == "two_d") out.emplace_back("groups", 2);
  for (auto& e : extra) out.push_back(std::move(e));
  return out;
}

class PlanFixture {
 public:
  // `synthetic`: the power-law trace source (tables' alpha, workload's layout); otherwise
  // uniform access (UniformTrace).
  PlanFixture(HardwarePreset preset, int nodes, DlrmModel model, std::uint32_t batch_per_gpu = 16,
              bool synthetic = false, HotRowLayout layout = HotRowLayout::scattered)
      : cluster(std::move(preset), nodes), model(std::move(model)) {
    workload.batch_per_gpu = batch_per_gpu;
    workload.trace.layout = layout;
    cost = hand_cost_params();
    if (synthetic) {
      trace = make_synthetic_trace_source(this->model, workload);
    } else {
      std::vector<std::uint64_t> rows;
      std::vector<double> pooling;
      for (const auto& t : this->model.tables) {
        rows.push_back(t.rows);
        pooling.push_back(t.pooling.expected());
      }
      trace = std::make_unique<UniformTrace>(rows, pooling);
    }
  }

  PlanningContext ctx() const {
    PlanningContext c{cluster, model, workload, *trace, &cost};
    c.input_alltoall = input_alltoall;
    return c;
  }

  Plan plan(const std::string& planner, OptionValues options = {}) const {
    return make_planner(planner, std::move(options))->plan(ctx());
  }

  // The plan, validated.
  Plan valid_plan(const std::string& planner, OptionValues options = {}) const {
    Plan p = plan(planner, std::move(options));
    validate_plan(p, cluster, model, "plan from " + planner);
    return p;
  }

  std::vector<double> memory_bytes(const Plan& p) const {
    std::vector<double> out;
    for (const GpuMemory& g : plan_memory(p, cluster, model, workload)) {
      out.push_back(g.total_bytes());
    }
    return out;
  }

  Cluster cluster;
  DlrmModel model;
  Workload workload;
  CostParams cost;
  std::unique_ptr<TraceSource> trace;
  bool input_alltoall = true;  // PlanningContext::input_alltoall
};

// Sum of `value(shard)` per GPU.
template <typename F>
std::vector<double> per_gpu(const Plan& p, int gpus, F value) {
  std::vector<double> out(static_cast<std::size_t>(gpus), 0.0);
  for (const Shard& s : p.shards) out[s.gpu] += value(s);
  return out;
}

}  // namespace shardsim::testing
