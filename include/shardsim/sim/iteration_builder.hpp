#pragma once
// Plan x Cluster x Model x batch sample -> the task DAG of one iteration (DESIGN.md §2).
// Training follows Neo App. B Eq. 1 with the pipelining options of Neo §4.2; inference is the
// forward pass only. Durations and network demands come from the cost model (pure functions);
// lookups per shard come from the trace source.
#include <array>
#include <vector>

#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/level_table.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/serving.hpp"
#include "shardsim/sim/comm_traffic.hpp"
#include "shardsim/sim/simulation_options.hpp"
#include "shardsim/sim/task.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct SimulationInputs {
  const Cluster& cluster;
  const DlrmModel& model;
  const Workload& workload;
  const Plan& plan;
  const TraceSource& trace;
  const CostParams& cost;
  SimulationOptions options = {};
};

// What one iteration added to the graph, and its per-GPU embedding statistics.
struct IterationTasks {
  int first_task = 0;  // tasks [first_task, end_task) belong to this iteration
  int end_task = 0;
  // The last task of each stream of each GPU (-1 if none): the next iteration waits for them.
  std::vector<std::array<int, kNumStreams>> last_by_gpu;
  // Each GPU's interaction forward: the next batch's input AlltoAll starts after it, with the
  // top MLP forward (Neo §4.2). -1 if none.
  std::vector<int> interaction_fwd_by_gpu;
  std::vector<double> lookups_by_gpu;   // lookups served by each GPU's shards
  std::vector<double> lookup_s_by_gpu;  // embedding forward + backward kernel time per GPU
  // Indices into TaskGraph::demands of the demands every iteration shares (added by the first).
  std::vector<int> shared_demands;
};

class IterationBuilder {
 public:
  // Keeps references to the cluster, model, workload, plan and trace of `in` (they must outlive
  // the builder) and copies of the cost parameters and options. Bad options (a straggler on a
  // GPU the cluster lacks, per-flow sharing on too many GPUs) are std::invalid_argument: the
  // scenario loader reports them as input errors first.
  explicit IterationBuilder(const SimulationInputs& in);
  // Not copyable or movable: `in_.cost` refers to this object's own `cost_`.
  IterationBuilder(const IterationBuilder&) = delete;
  IterationBuilder& operator=(const IterationBuilder&) = delete;

  // Appends iteration `iteration`'s tasks to `graph`; its first tasks on each GPU depend on
  // `previous`'s last tasks on that GPU (nullptr for the first iteration).
  IterationTasks append(TaskGraph& graph, int iteration, const IterationTasks* previous) const;

  // The pooled-embedding traffic per iteration (forward: owner -> requester; backward: the
  // gradients of the same vectors). It does not depend on the trace: every sample has one bag
  // per table.
  const CommTraffic& comm() const { return comm_; }
  const ServingMap& serving() const { return serving_; }
  // The capacity of each link for the engine (bandwidth x collective efficiency).
  const std::vector<double>& link_capacity_Bps() const { return link_capacity_Bps_; }

 private:
  struct Dense {
    double bottom_fwd_s = 0, interaction_fwd_s = 0, top_fwd_s = 0;
    double top_bwd_s = 0, interaction_bwd_s = 0, bottom_bwd_s = 0;
  };
  // A collective the builder issues every iteration with the same traffic.
  struct SharedCollective {
    std::vector<int> gpus;
    double bytes = 0;
    double duration_s = 0;  // idle-network α-β time
    int demand_slot = -1;   // index into shared_demands_, -1 without a network demand
  };
  struct TableBlocks {  // distinct row blocks of a table, and each replica set's block
    std::vector<RowBlock> blocks;
  };

  // Makes a SharedCollective from a demand (keeping the demand unless link sharing is off).
  SharedCollective share(std::vector<int> gpus, CollectiveDemand demand);
  // The AlltoAll demand of one group's traffic (per-flow needs the matrix).
  CollectiveDemand alltoall_demand(const LevelTraffic& traffic, const ByteMatrix* matrix) const;
  // Multiplies kernel times of `gpu` in `iteration` (stragglers and jitter).
  double slowdown(int gpu, int iteration) const;

  const CostParams cost_;  // the builder's own copy; `in_.cost` refers to it
  const SimulationInputs in_;
  ServingMap serving_;
  LevelTable levels_;
  std::vector<TableBlocks> table_blocks_;
  std::vector<std::size_t> block_of_set_;
  std::vector<std::vector<std::size_t>> sets_of_table_;
  std::vector<double> served_gpus_by_shard_;
  std::vector<double> slowdown_by_gpu_;
  std::vector<double> link_capacity_Bps_;
  CommTraffic comm_;
  std::vector<std::vector<int>> a2a_groups_;  // GPUs of each AlltoAll (one per sparse group)
  std::vector<SharedCollective> a2a_fwd_, a2a_bwd_;
  std::vector<SharedCollective> replica_syncs_;
  SharedCollective mlp_allreduce_;
  std::vector<CollectiveDemand> shared_demands_;
  Dense dense_;
};

}  // namespace shardsim
