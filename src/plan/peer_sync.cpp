#include "shardsim/plan/peer_sync.hpp"

#include <algorithm>
#include <map>

namespace shardsim {

namespace {
constexpr double kIndexBytes = 8;  // an int64 row index per touched row (as the input indices)
}

bool is_peer_set(const Plan& plan, const ServingMap& serving, std::size_t set) {
  if (plan.groups.size() < 2) return false;
  const auto& shards = serving.sets[set].shards;
  if (shards.size() < 2) return false;
  std::vector<int> groups;
  groups.reserve(shards.size());
  for (std::size_t s : shards) {
    groups.push_back(serving.group_of[static_cast<std::size_t>(plan.shards[s].gpu)]);
  }
  std::sort(groups.begin(), groups.end());
  return std::adjacent_find(groups.begin(), groups.end()) == groups.end();
}

double peer_sync_bytes_per_row(const DlrmModel& model, std::uint32_t cols, PeerSyncMode mode) {
  const double row =
      model.table_row_bytes(cols) + optimizer_state_bytes_per_row(model.optimizer, cols);
  return mode == PeerSyncMode::touched_rows ? row + kIndexBytes : row;
}

double peer_synced_rows(std::size_t table, RowRange rows, RowSpace space, const PeerSync& sync,
                        const DlrmModel& model, const Workload& workload, const TraceSource& trace,
                        int num_gpus) {
  const double all = static_cast<double>(rows.size());
  if (sync.mode != PeerSyncMode::touched_rows) return all;
  // The rows of the block touched by the global batches of the `interval` iterations since the
  // last sync (every group's lookups together: a row any group touched differs).
  const double lookups = static_cast<double>(num_gpus) * workload.batch_per_gpu *
                         model.tables[table].pooling.expected() * std::max(1, sync.interval);
  return std::min(all, trace.profile(table).expected_distinct(rows, space, lookups));
}

PeerSyncs plan_peer_syncs(const Plan& plan, const ServingMap& serving, const DlrmModel& model,
                          const Workload& workload, const TraceSource& trace, int num_gpus) {
  PeerSyncs out;
  out.sync = plan.peer_sync;
  out.sync.interval = std::max(1, out.sync.interval);
  if (workload.mode != Mode::training) return out;
  std::map<std::vector<int>, double> peer;
  std::vector<int> gpus;
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    const ReplicaSet& set = serving.sets[k];
    if (set.shards.size() < 2) continue;
    gpus.clear();
    for (std::size_t s : set.shards) gpus.push_back(plan.shards[s].gpu);
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    if (!is_peer_set(plan, serving, k)) continue;  // gradients: plan/replica_sync.hpp
    const double synced_rows = peer_synced_rows(set.table, set.rows, set.row_space, out.sync, model,
                                                workload, trace, num_gpus);
    peer[gpus] += synced_rows * peer_sync_bytes_per_row(model, set.cols.size(), out.sync.mode);
  }
  for (auto& [g, bytes] : peer) out.peer.push_back(PeerSyncBucket{g, bytes});
  return out;
}

}  // namespace shardsim
