#pragma once
// A planning set-up for OPER tests with per-row access given by hand (ExplicitTrace) on the hand
// preset, and cost parameters without protocol losses, so that OPER's L matrix is round:
//   L[i][i] = (S + 8 B) / 1000 GB/s, L[i][j] = S / 100 GB/s inside a node, S / 10 GB/s across.
#include <memory>
#include <vector>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/plan/planner.hpp"
#include "support/explicit_trace.hpp"
#include "support/hand_model.hpp"
#include "support/hand_preset.hpp"

namespace shardsim::testing {

inline CostParams oper_hand_cost() {
  CostParams c = hand_cost_params();
  c.one_sided_bandwidth_efficiency = 1.0;
  c.one_sided_scale_up_overhead_s = 0;
  c.one_sided_scale_out_overhead_s = 0;
  return c;
}

struct OperFixture {
  // Tables of dim `dim` with the given per-row weights (hottest first), pooling 1.
  OperFixture(int gpus_per_node, int nodes, const std::vector<std::vector<double>>& weights,
              std::uint32_t batch_per_gpu, Mode mode = Mode::inference, std::uint32_t dim = 4)
      : cluster(hand_preset(gpus_per_node), nodes),
        trace(weights, std::vector<double>(weights.size(), 1.0)),
        cost(oper_hand_cost()) {
    for (std::size_t t = 0; t < weights.size(); ++t) {
      EmbeddingTable table;
      table.name = "t" + std::to_string(t);
      table.rows = weights[t].size();
      table.dim = dim;
      table.pooling.value = 1;
      model.tables.push_back(table);
    }
    model.dense_features = 4;
    model.bottom_mlp = {8};
    model.top_mlp = {1};
    workload.mode = mode;
    workload.batch_per_gpu = batch_per_gpu;
  }
  PlanningContext ctx() const { return PlanningContext{cluster, model, workload, trace, &cost}; }

  Cluster cluster;
  DlrmModel model;
  Workload workload;
  ExplicitTrace trace;
  CostParams cost;
};

}  // namespace shardsim::testing
