#pragma once
// What a one-sided plan (LookupComm::one_sided, OPER §5) moves and computes in one iteration,
// from the lookups each GPU's batch sends to each block: the rows fetched with one-sided gets,
// the gradients returned with one-sided puts, and the work of each GPU's all-in-one lookup
// kernel and of its update kernel. Shared by the plan statistics (expected lookups) and the
// iteration builder (each iteration's drawn lookups), so both agree (docs/model.md,
// "One-sided gets").
#include <cstdint>
#include <vector>

#include "shardsim/core/pair_matrix.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/plan_row_blocks.hpp"
#include "shardsim/plan/serving.hpp"
#include "shardsim/plan/work_lists.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

// Lookups of one iteration: set_lookups[k * n + g] lands in replica set k (ServingMap::sets)
// from GPU g's batch; table_lookups[t * n + g] is all of GPU g's lookups of table t. When every
// GPU's batch makes the same lookups (`uniform`: expectations), one value per set and per table
// (set_lookups[k], table_lookups[t]): not sets x GPUs numbers, which at thousands of GPUs and
// hundreds of thousands of partitions would not fit in memory.
struct IterationLookups {
  int num_gpus = 0;
  bool uniform = false;
  std::vector<double> set_lookups;
  std::vector<double> table_lookups;
  double set(std::size_t k, int g) const {
    return uniform ? set_lookups[k] : set_lookups[k * num_gpus + g];
  }
  double table(std::size_t t, int g) const {
    return uniform ? table_lookups[t] : table_lookups[t * num_gpus + g];
  }
};

// The lookups of `iteration` as the trace draws them over the plan's row blocks: a table's
// lookups from GPU g are the sum of its blocks' (uniform when the trace gives every GPU the same
// draw). What the simulation costs each iteration of a one-sided plan.
IterationLookups drawn_lookups(const ServingMap& serving, const PlanRowBlocks& blocks, int num_gpus,
                               std::uint32_t batch_per_gpu, const TraceSource& trace,
                               int iteration);

// Whether the trace's draws are the expectations (the same every iteration and for every GPU:
// expected mode). Then expected_lookups() is drawn_lookups() itself, bit for bit, and the
// simulation reuses the plan analysis's traffic instead of computing it again.
bool draws_are_expectations(const TraceSource& trace);

// The expectations, as plan statistics and the plan analysis use them: the draw itself when
// draws_are_expectations(); otherwise every GPU's batch looks up batch_per_gpu · E[pooling] of
// each table, split over the blocks by their access mass.
IterationLookups expected_lookups(const ServingMap& serving, const PlanRowBlocks& blocks,
                                  const Cluster& cluster, const DlrmModel& model,
                                  const Workload& workload, const TraceSource& trace);

struct OneSidedTraffic {
  // Forward: rows GPU h sends to requester g (get_bytes.at(h, g)) and how many. A block on one
  // GPU that every GPU looks up the same (expected mode) is a broadcast of its holder, not
  // num_gpus - 1 entries (core/pair_matrix.hpp).
  PairMatrix get_bytes, get_rows;
  // Backward (training): the gradients requester g returns to holder h, one per distinct row
  // its batch touched there (aggregated locally), each with its index.
  PairMatrix put_bytes, put_rows;
  // Per GPU, the works of its fused kernels: forward, the pooled outputs of its whole batch (one
  // work a table, the same on every GPU: `pooling_works`, kept once) then its own lookups of the
  // rows it holds (fwd_works, GPU g's list); backward, the update of the rows it holds with its
  // own lookups' gradients and the gradient rows it received. Equal works of several GPUs are
  // stored once (plan/work_lists.hpp).
  std::vector<EmbeddingWork> pooling_works;
  WorkLists fwd_works, bwd_works;
  // Per GPU, the lookups landing on rows it holds, from every requester (OPER Eq. 2's workload).
  std::vector<double> lookups_served;
};

// Each GPU's transfer times of one iteration (cost/one_sided_cost.hpp, one_sided_transfer_s):
// its gets, and in training its puts (empty in inference).
struct OneSidedTransferTimes {
  std::vector<double> get_s, put_s;
};
OneSidedTransferTimes one_sided_transfer_times(const Cluster& cluster,
                                               const OneSidedTraffic& traffic, Mode mode,
                                               const CostParams& p);

// Rows move at the table precision (a get reads the stored row); gradients at the communication
// precision, each with index_bytes_per_lookup bytes of index.
OneSidedTraffic one_sided_traffic(const Plan& plan, const ServingMap& serving,
                                  const Cluster& cluster, const DlrmModel& model,
                                  const Workload& workload, const TraceSource& trace,
                                  const IterationLookups& lookups, const CostParams& p);

}  // namespace shardsim
