#pragma once
// How 2D peer replicas are kept consistent in training, and what that moves: used by the
// iteration builder (which turns each bucket into an AllReduce on the network) and by the plan
// statistics, so both agree.
//
//   peer (2D): a block whose replicas sit in different groups, one per group (2D paper §3):
//     after the update, the replicas' weights and optimizer state are averaged by an AllReduce
//     across the peers (Algorithm 1, lines 9-10; §5 Eq. 1), every `Plan::peer_sync.interval`
//     iterations. `dense`: all rows of the block; `touched_rows`: the expected distinct rows the
//     global batches since the last sync touched (access profile), each with its int64 index.
//
// Replicas of a block inside one sparse group (data-parallel tables, or any plan without
// groups) synchronise their gradients before the update instead: plan/replica_sync.hpp.
// Blocks are bucketed by their (sorted) set of GPUs: one AllReduce per set. Inference has none.
#include <vector>

#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/serving.hpp"
#include "shardsim/trace/trace_source.hpp"

namespace shardsim {

struct PeerSyncBucket {
  std::vector<int> gpus;  // sorted, distinct
  double bytes = 0;       // the AllReduce payload
};

struct PeerSyncs {
  std::vector<PeerSyncBucket> peer;  // after the update of each syncing iteration
  PeerSync sync;                     // the plan's mode and interval
  bool syncs_after(int iteration) const { return sync.syncs_after(iteration); }
};

// Whether replica set `set` of `serving` is a 2D peer set: the plan has two or more groups and
// no two of its replicas share one.
bool is_peer_set(const Plan& plan, const ServingMap& serving, std::size_t set);

// The rows of a block (`rows` of `table`, in `space`) that one peer sync moves: all of them
// (`dense`), or the expected distinct rows the global batches of the `interval` iterations since
// the last sync touched (`touched_rows`; `num_gpus` GPUs each with the workload's batch).
double peer_synced_rows(std::size_t table, RowRange rows, RowSpace space, const PeerSync& sync,
                        const DlrmModel& model, const Workload& workload, const TraceSource& trace,
                        int num_gpus);

// Bytes per row of a peer sync: the weights (table precision) and the optimizer state of `cols`
// columns, plus the row's int64 index when only touched rows are synced.
double peer_sync_bytes_per_row(const DlrmModel& model, std::uint32_t cols, PeerSyncMode mode);

// The buckets of `plan` (empty in inference). `num_gpus` GPUs each with the workload's batch make
// the global batch whose touched rows a `touched_rows` sync moves. O(sets + shards).
PeerSyncs plan_peer_syncs(const Plan& plan, const ServingMap& serving, const DlrmModel& model,
                          const Workload& workload, const TraceSource& trace, int num_gpus);

}  // namespace shardsim
