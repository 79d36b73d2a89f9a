#pragma once
// The groups of 2D sparse parallelism (2D paper §3.1): T GPUs split into M groups of N = T/M;
// each group holds a full replica of the embedding tables, sharded by a model-parallel planner
// over the group's GPUs; GPU v of every group holds the same shards (its M replica peers).
//
// Where the members sit decides where the replica synchronisation runs (§5: "GPUs on the same
// CPU host can maintain replicas of identical segments of sparse embedding tables. When the
// group number are chose from {2, 4, 8}, synchronization will be confined to the same host"):
//
//   peers_in_host (default): as many of a GPU's M peers as possible share its host (node):
//     M_in = gcd(M, G) peers per host, G GPUs per host; the hosts are cut into M_out = M / M_in
//     consecutive blocks. Group m = (m_out, m_in) = m_out·M_in + m_in takes, on every host of
//     block m_out, the G/M_in consecutive GPUs starting at m_in·G/M_in. With M dividing G every
//     group spans every host with G/M GPUs each, and all peers of a shard share a host.
//   contiguous: group m is the GPUs [m·N, (m+1)·N): whole hosts per group (or one part of a
//     host when N < G); the peers of a shard sit on M different hosts.
//
// The inner planner plans one group as a cluster of its own (`view_cluster`): the group's hosts
// with the group's GPUs on each, their NICs (a NIC shared with other groups' GPUs counts with
// the group's share of its bandwidth), and the same switch tiers. docs/planners.md, "two_d".
#include <string>
#include <vector>

#include "shardsim/hw/cluster.hpp"

namespace shardsim {

enum class GroupLayout { peers_in_host, contiguous };
std::string to_string(GroupLayout l);

class SparseGroups {
 public:
  // M groups over `cluster`; std::invalid_argument (with a message a user can act on) when the
  // GPUs cannot be split that way: M < 1, M not dividing the GPU count, or a group shape the
  // layout cannot build (contiguous groups must be whole hosts or divide one).
  SparseGroups(const Cluster& cluster, int num_groups, GroupLayout layout);

  int num_groups() const { return num_groups_; }
  int group_size() const { return group_size_; }  // N = T / M
  GroupLayout layout() const { return layout_; }
  // Replica peers of a GPU on its own host (itself included): M_in.
  int peers_per_host() const { return peers_per_host_; }
  // The shape of one group, as its inner planner sees it.
  int view_nodes() const { return view_nodes_; }
  int view_gpus_per_node() const { return view_gpus_per_node_; }

  // The cluster GPU of `view_gpu` (0 .. N-1) of group `group`. O(1).
  int gpu(int group, int view_gpu) const;
  // Each group's GPUs in view order (member v is gpu(group, v)).
  const std::vector<std::vector<int>>& groups() const { return groups_; }
  // The M GPUs holding the same shards as `view_gpu` of every group, in group order.
  std::vector<int> peers(int view_gpu) const;

  // One group as a cluster of its own (see above): what the inner planner sees.
  Cluster view_cluster() const;

 private:
  HardwarePreset preset_;  // the cluster's
  int nodes_ = 0;
  int gpus_per_node_ = 0;
  int num_groups_ = 1;
  int group_size_ = 0;
  GroupLayout layout_ = GroupLayout::peers_in_host;
  int peers_per_host_ = 1;
  int host_blocks_ = 1;  // M_out (peers_in_host)
  int view_nodes_ = 0;
  int view_gpus_per_node_ = 0;
  std::vector<std::vector<int>> groups_;
};

}  // namespace shardsim
