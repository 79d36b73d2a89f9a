#pragma once
// The bytes each GPU sends and receives at each level of the topology: everything the
// aggregated AlltoAll(v) cost needs from a per-pair byte matrix, in O(N x levels) memory
// instead of O(N²). Levels as in hw/cluster.hpp (1 = scale-up domain, 2 + k = lowest common
// switch at tier k). On a direct NVLink mesh, where each pair has its own link, the bytes of
// every pair inside a scale-up domain are kept too (N x GPUs per domain).
#include <cstdint>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/hw/cluster.hpp"

namespace shardsim {

class LevelTraffic {
 public:
  LevelTraffic() = default;
  // All zeros, shaped for `cluster`.
  explicit LevelTraffic(const Cluster& cluster);

  // One matrix, validated (square of the cluster's size, entries finite and >= 0:
  // std::invalid_argument otherwise), in one O(N²) pass. The diagonal is local and ignored.
  static LevelTraffic from_matrix(const Cluster& cluster, const ByteMatrix& bytes);

  // Adds `bytes` from `src` to `dst`, which are `level` apart (LevelTable::level). Level 0 (the
  // same GPU) is local and ignored.
  void add(int src, int dst, int level, double bytes) {
    if (level == 0) return;
    sent_[index(src, level)] += bytes;
    received_[index(dst, level)] += bytes;
    if (level == 1 && domain_gpus_ > 0) {
      pairs_[static_cast<std::size_t>(src) * static_cast<std::size_t>(domain_gpus_) +
             static_cast<std::size_t>(dst % domain_gpus_)] += bytes;
    }
  }
  // One end of traffic whose other ends are counted elsewhere (cost/spread_traffic.hpp): bytes
  // `gpu` sends, or receives, at `level` >= 1. Not for the pairs inside a direct-mesh domain.
  void add_sent(int gpu, int level, double bytes) { sent_[index(gpu, level)] += bytes; }
  void add_received(int gpu, int level, double bytes) { received_[index(gpu, level)] += bytes; }
  // add_received `times` times over, each addition rounded as a loop of them rounds it
  // (core/repeated_sum.hpp), in O(log) steps: a uniform gather's bytes at one level.
  void add_received_repeated(int gpu, int level, double bytes, std::uint64_t times);
  LevelTraffic& operator+=(const LevelTraffic& other);
  // The same pairs in the other direction (gradients back to the owners).
  LevelTraffic transposed() const;

  int num_gpus() const { return num_gpus_; }
  int num_levels() const { return levels_; }
  double sent(int gpu, int level) const { return sent_[index(gpu, level)]; }
  double received(int gpu, int level) const { return received_[index(gpu, level)]; }
  // Bytes at levels >= `from` (from = 2: everything that leaves the scale-up domain).
  double sent_from(int gpu, int from) const;
  double received_from(int gpu, int from) const;
  double sent_total(int gpu) const { return sent_from(gpu, 1); }
  double received_total(int gpu) const { return received_from(gpu, 1); }
  // Direct NVLink mesh only (0 otherwise): bytes from `src` to `dst` of the same domain.
  double domain_pair(int src, int dst) const;
  bool has_domain_pairs() const { return domain_gpus_ > 0; }
  // The farthest level with any bytes (0 when nothing crosses between GPUs).
  int farthest_level() const;
  double total() const;

 private:
  std::size_t index(int gpu, int level) const {
    return static_cast<std::size_t>(gpu) * static_cast<std::size_t>(levels_) +
           static_cast<std::size_t>(level);
  }
  int num_gpus_ = 0;
  int levels_ = 0;
  int domain_gpus_ = 0;           // GPUs per scale-up domain on a direct mesh, else 0
  std::vector<double> sent_;      // [gpu * levels + level]
  std::vector<double> received_;  // [gpu * levels + level]
  std::vector<double> pairs_;     // mesh only: [src * domain_gpus + dst % domain_gpus]
};

}  // namespace shardsim
