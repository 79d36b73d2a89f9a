#include "shardsim/cost/level_traffic.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "shardsim/core/repeated_sum.hpp"
#include "shardsim/hw/level_table.hpp"

namespace shardsim {

LevelTraffic::LevelTraffic(const Cluster& cluster)
    : num_gpus_(cluster.num_gpus()), levels_(cluster.num_levels()) {
  const std::size_t cells = static_cast<std::size_t>(num_gpus_) * static_cast<std::size_t>(levels_);
  sent_.assign(cells, 0.0);
  received_.assign(cells, 0.0);
  if (cluster.preset().scale_up_kind == "nvlink") {
    domain_gpus_ = cluster.gpus_per_scale_up_domain();
    pairs_.assign(static_cast<std::size_t>(num_gpus_) * static_cast<std::size_t>(domain_gpus_),
                  0.0);
  }
}

LevelTraffic LevelTraffic::from_matrix(const Cluster& cluster, const ByteMatrix& bytes) {
  const int n = cluster.num_gpus();
  if (bytes.size() != n) {
    throw std::invalid_argument(fmt::format(
        "AlltoAll byte matrix is {0}x{0} but the cluster has {1} GPUs", bytes.size(), n));
  }
  LevelTraffic t(cluster);
  const LevelTable levels(cluster);
  for (int src = 0; src < n; ++src) {
    const std::uint8_t* row = levels.row_of(src);
    for (int dst = 0; dst < n; ++dst) {
      const double b = bytes.at(src, dst);
      if (!(b >= 0) || !std::isfinite(b)) {
        throw std::invalid_argument(fmt::format(
            "AlltoAll byte matrix entry ({}, {}) = {}: must be finite and >= 0", src, dst, b));
      }
      if (dst == src || b == 0) continue;
      t.add(src, dst, row[levels.node_of(dst)], b);
    }
  }
  return t;
}

LevelTraffic& LevelTraffic::operator+=(const LevelTraffic& other) {
  if (other.sent_.size() != sent_.size() || other.pairs_.size() != pairs_.size()) {
    throw std::invalid_argument("LevelTraffic += a traffic of another cluster");
  }
  for (std::size_t k = 0; k < sent_.size(); ++k) {
    sent_[k] += other.sent_[k];
    received_[k] += other.received_[k];
  }
  for (std::size_t k = 0; k < pairs_.size(); ++k) pairs_[k] += other.pairs_[k];
  return *this;
}

LevelTraffic LevelTraffic::transposed() const {
  LevelTraffic t = *this;
  t.sent_.swap(t.received_);
  if (domain_gpus_ > 0) {
    const auto d = static_cast<std::size_t>(domain_gpus_);
    for (std::size_t src = 0; src < static_cast<std::size_t>(num_gpus_); ++src) {
      const std::size_t base = src / d * d;
      for (std::size_t j = 0; j < d; ++j) {
        t.pairs_[src * d + j] = pairs_[(base + j) * d + src % d];
      }
    }
  }
  return t;
}

void LevelTraffic::add_received_repeated(int gpu, int level, double bytes, std::uint64_t times) {
  double& r = received_[index(gpu, level)];
  r = repeated_sum(r, bytes, times);
}

double LevelTraffic::sent_from(int gpu, int from) const {
  double s = 0;
  for (int l = from; l < levels_; ++l) s += sent_[index(gpu, l)];
  return s;
}

double LevelTraffic::received_from(int gpu, int from) const {
  double s = 0;
  for (int l = from; l < levels_; ++l) s += received_[index(gpu, l)];
  return s;
}

double LevelTraffic::domain_pair(int src, int dst) const {
  if (domain_gpus_ == 0 || src == dst || src / domain_gpus_ != dst / domain_gpus_) return 0;
  return pairs_[static_cast<std::size_t>(src) * static_cast<std::size_t>(domain_gpus_) +
                static_cast<std::size_t>(dst % domain_gpus_)];
}

int LevelTraffic::farthest_level() const {
  int far = 0;
  for (int g = 0; g < num_gpus_; ++g) {
    for (int l = levels_ - 1; l > far; --l) {
      if (sent_[index(g, l)] > 0) far = l;
    }
  }
  return far;
}

double LevelTraffic::total() const {
  double s = 0;
  for (double b : sent_) s += b;
  return s;
}

}  // namespace shardsim
