#pragma once
// One-to-many traffic with structure: an owner that sends the same bytes to every other GPU (or
// to every other GPU of its sparse group), as a whole table's or a row-wise block's pooled vectors
// go to every requester. Kept as one number per owner and spread into per-GPU, per-level traffic
// (LevelTraffic) in O(GPUs x levels), or into a unit x unit matrix in O(units²) per group, never
// through the O(GPUs²) pairs (issue 59). Reversed, the same pairs carry gradients back to the
// owners (a gather).
//
// Levels nest (hw/cluster.hpp): two GPUs are `level` apart when `level` is the lowest at which
// they share a container (1: scale-up domain, 2 + k: tier-k group). So the GPUs at level L from g
// are those of g's level-L container less those of its level-(L-1) one, and the bytes g receives
// at level L are the owners' bytes summed over the first less the second.
#include <cstdint>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

class SpreadTraffic {
 public:
  // `group_of` gives each GPU's group (empty: one group of every GPU).
  SpreadTraffic(const Cluster& cluster, std::vector<int> group_of = {});

  // `owner` sends `amount` to every other GPU, or (`in_group`) to every other GPU of its group.
  void add(int owner, double amount, bool in_group);
  bool empty() const { return empty_; }

  // Adds amount x `scale` per pair to `out`: sent by the owners, or (`reversed`) sent to them.
  // With `requester_group` >= 0, only the pairs whose other end (the requester) is in that group.
  void add_to(LevelTraffic& out, double scale, bool reversed, int requester_group = -1) const;
  // The same into a matrix of units (`unit_of` per GPU, `count` units): [unit of sender][unit of
  // receiver], the diagonal holding the traffic inside a unit.
  void add_to_units(ByteMatrix& out, const std::vector<int>& unit_of, int count, double scale,
                    bool reversed) const;

 private:
  void add_to_all(LevelTraffic& out, double scale, bool reversed, int requester_group) const;
  void add_to_groups(LevelTraffic& out, double scale, bool reversed, int requester_group) const;
  // On a direct NVLink mesh LevelTraffic keeps the pairs of each domain: they are added one by one
  // (a domain's few GPUs), and the container sums start at level 2.
  void add_domain_pairs(LevelTraffic& out, double scale, bool reversed, int requester_group) const;
  // Clusters whose domains do not nest in their tier groups: every pair (O(GPUs²)).
  void add_pairs(LevelTraffic& out, double scale, bool reversed, int requester_group) const;
  template <typename Range, typename Level>
  void add_pair_range(LevelTraffic& out, double scale, bool reversed, int requester_group,
                      Range range, Level level) const;

  const Cluster* cluster_;
  int n_ = 0;
  int levels_ = 0;
  std::vector<int> group_of_;                // per GPU (all 0 with one group)
  std::vector<std::vector<int>> container_;  // [level][gpu]: container id (level 1 .. levels-1)
  std::vector<std::vector<int>> members_;    // per group, ascending
  std::vector<int> containers_;              // [level]: how many containers
  std::vector<double> to_all_, to_group_;    // per owner
  bool nested_ = true;
  bool empty_ = true;
};

}  // namespace shardsim
