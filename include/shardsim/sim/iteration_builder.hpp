#pragma once
// Plan x Cluster x Model x batch sample -> the task DAG of one iteration (DESIGN.md §2).
// Training follows Neo App. B Eq. 1; inference is the forward pass only. Durations come from the
// cost model (pure functions); lookups per shard come from the trace source.
#include <array>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/replica_sync.hpp"
#include "shardsim/plan/serving.hpp"
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
};

// What one iteration added to the graph, and its per-GPU embedding statistics.
struct IterationTasks {
  int first_task = 0;  // tasks [first_task, end_task) belong to this iteration
  int end_task = 0;
  // The last task of each stream of each GPU (-1 if none): the next iteration waits for them.
  std::vector<std::array<int, kNumStreams>> last_by_gpu;
  std::vector<double> lookups_by_gpu;   // lookups served by each GPU's shards
  std::vector<double> lookup_s_by_gpu;  // embedding forward + backward kernel time per GPU
};

class IterationBuilder {
 public:
  // Keeps references to the cluster, model, workload, plan and trace of `in` (they must outlive
  // the builder) and a copy of the cost parameters.
  explicit IterationBuilder(const SimulationInputs& in);
  // Not copyable or movable: `in_.cost` refers to this object's own `cost_`.
  IterationBuilder(const IterationBuilder&) = delete;
  IterationBuilder& operator=(const IterationBuilder&) = delete;

  // Appends iteration `iteration`'s tasks to `graph`; its first tasks on each GPU depend on
  // `previous`'s last tasks on that GPU (nullptr for the first iteration).
  IterationTasks append(TaskGraph& graph, int iteration, const IterationTasks* previous) const;

  // Bytes GPU i -> GPU j per iteration (pooled embeddings forward; their gradients backward).
  // They do not depend on the trace: every sample has one bag per table.
  const ByteMatrix& comm_fwd() const { return comm_fwd_; }
  const ByteMatrix& comm_bwd() const { return comm_bwd_; }
  const ServingMap& serving() const { return serving_; }

 private:
  struct Dense {
    double bottom_fwd_s = 0, interaction_fwd_s = 0, top_fwd_s = 0;
    double top_bwd_s = 0, interaction_bwd_s = 0, bottom_bwd_s = 0;
    double mlp_allreduce_s = 0, mlp_allreduce_bytes = 0;
  };
  struct TableBlocks {  // distinct row blocks of a table, and each replica set's block
    std::vector<RowBlock> blocks;
  };

  const CostParams cost_;  // the builder's own copy; `in_.cost` refers to it
  const SimulationInputs in_;
  ServingMap serving_;
  std::vector<TableBlocks> table_blocks_;
  std::vector<std::size_t> block_of_set_;
  std::vector<std::vector<std::size_t>> sets_of_table_;
  std::vector<double> served_gpus_by_shard_;
  ByteMatrix comm_fwd_, comm_bwd_;
  std::vector<std::vector<int>> a2a_groups_;  // GPUs of each AlltoAll (one per sparse group)
  std::vector<double> a2a_fwd_s_, a2a_bwd_s_, a2a_fwd_bytes_, a2a_bwd_bytes_;
  // One collective per set of GPUs holding the same replicas (plan/replica_sync.hpp).
  std::vector<ReplicaSyncBucket> replica_syncs_;
  Dense dense_;
};

}  // namespace shardsim
