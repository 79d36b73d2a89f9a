#pragma once
// Every GPU but an owner sends the owner the same bytes: a single-server block's indices in the
// input AlltoAll when every GPU draws alike (expected-mode traces). Added into a LevelTraffic bit
// for bit as the per-pair loop
//   for (g != owner) out.add(g, owner, level(g, owner), bytes);
// adds them, in O(GPUs per scale-up domain + containers + levels) per owner instead of O(GPUs)
// (issue 59). The GPUs of one level-(L-1) container (domain, tier group...) send the same bytes
// at level L to every owner (L >= 2), so their sums are kept once per container until flush().
#include <cstdint>
#include <vector>

#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

class UniformGather {
 public:
  explicit UniformGather(const Cluster& cluster);

  // Whether the containers nest (node in domain in tier-0 group ... in one top group); add()
  // refuses clusters where they do not (the per-pair loop is then the way).
  bool nested() const { return nested_; }
  // Every GPU but `owner` sends `bytes` to `owner`. `out` must be the traffic every add() and
  // flush() of this gather goes to, with no bytes sent at levels >= 2 but theirs.
  void add(LevelTraffic& out, int owner, double bytes);
  // Adds the per-container sums to the sent bytes of every GPU at levels >= 2 and clears them.
  // After it, more add()s would give sums rounded differently from the loop's: do not.
  void flush(LevelTraffic& out);
  bool pending() const { return pending_; }

 private:
  int n_ = 0;
  int levels_ = 0;
  bool nested_ = true;
  bool pending_ = false;
  int domain_gpus_ = 0;
  std::vector<std::vector<int>> container_;  // [level][gpu], levels 1 .. levels-1
  std::vector<std::vector<double>> size_;    // [level][container]: GPUs in it
  // [level][container]: the level-(L-1) containers inside it, ascending.
  std::vector<std::vector<std::vector<int>>> children_;
  std::vector<std::vector<double>> sums_;         // [level][level-(L-1) container]: bytes sent at L
  std::vector<std::vector<int>> domain_members_;  // [domain]: its GPUs, ascending
};

}  // namespace shardsim
