// OPER §3.2: the cost matrix L and Eq. 1-3 over partitions.
#include "plan/oper/oper_model.hpp"

#include <algorithm>
#include <numeric>

#include "shardsim/cost/one_sided_cost.hpp"

namespace shardsim::oper {

CostMatrix::CostMatrix(const Cluster& cluster, const CostParams& p)
    : n_(cluster.num_gpus()),
      levels_(cluster),
      hbm_Bps_(cluster.gpu().hbm_achievable_Bps),
      index_bytes_(p.index_bytes_per_lookup) {
  bw_Bps_.assign(static_cast<std::size_t>(cluster.num_levels()), 0.0);
  overhead_s_.assign(bw_Bps_.size(), 0.0);
  // Pairs by level, node by node (the GPUs of two nodes share one level; of one node, level 1).
  pairs_.assign(bw_Bps_.size(), 0.0);
  const int gpn = cluster.gpus_per_node();
  const double per_node_pair = static_cast<double>(gpn) * gpn;
  for (int a = 0; a < cluster.num_nodes(); ++a) {
    const std::uint8_t* row = levels_.row_of(a * gpn);
    for (int b = 0; b < cluster.num_nodes(); ++b) {
      if (a == b) {
        pairs_[1] += static_cast<double>(gpn) * (gpn - 1);
      } else {
        pairs_[row[b]] += per_node_pair;
      }
    }
  }
  for (int level = 1; level < cluster.num_levels(); ++level) {
    // one_sided_row_s(level, S) = S / bw + overhead: two queries give both terms.
    overhead_s_[level] = one_sided_row_s(cluster, level, 0.0, p);
    bw_Bps_[level] = 1.0 / (one_sided_row_s(cluster, level, 1.0, p) - overhead_s_[level]);
  }
  // Validates the HBM rate once (an InputError for a preset without one).
  (void)local_row_lookup_s(cluster.gpu(), 0.0, p);
}

double CostMatrix::mean_remote_row_s(double row_bytes) const {
  double sum = 0, pairs = 0;
  for (std::size_t l = 1; l < pairs_.size(); ++l) {
    if (pairs_[l] == 0) continue;
    sum += pairs_[l] * (row_bytes / bw_Bps_[l] + overhead_s_[l]);
    pairs += pairs_[l];
  }
  return sum / pairs;
}

double CostMatrix::row_s(int i, int j, double row_bytes) const {
  const int l = level(i, j);
  if (l == 0) return (row_bytes + index_bytes_) / hbm_Bps_;
  return row_bytes / bw_Bps_[l] + overhead_s_[l];
}

std::vector<int> Placement::holders(std::size_t p, int num_gpus) const {
  std::vector<int> out;
  if (on_every_gpu(p)) {
    out.resize(static_cast<std::size_t>(num_gpus));
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  if (fetch[p].empty()) return {owner[p]};
  for (int g = 0; g < num_gpus; ++g) {
    if (fetch[p][g] == g || g == owner[p]) out.push_back(g);
  }
  return out;
}

double ModelTotals::fetch_s(int i) const {
  double s = 0;
  for (int j = 0; j < n; ++j) {
    if (j != i) s += comm(i, j);
  }
  return s;
}

ModelTotals evaluate(std::span<const Partition> partitions, const Placement& placement,
                     const CostMatrix& L) {
  const int n = L.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  ModelTotals t;
  t.n = n;
  t.memory_bytes.assign(un, 0.0);
  t.lookup_s.assign(un, 0.0);
  t.comm_s.assign(un * un, 0.0);
  std::vector<int> fetchers(un);
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    const Partition& part = partitions[p];
    std::fill(fetchers.begin(), fetchers.end(), 0);
    for (int i = 0; i < n; ++i) {
      const int j = placement.source(p, i);
      fetchers[static_cast<std::size_t>(j)] += 1;
      t.comm_s[static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j)] +=
          part.access * L.row_s(i, j, part.row_bytes);
    }
    for (int j = 0; j < n; ++j) {
      if (fetchers[j] > 0 || j == placement.owner[p]) t.memory_bytes[j] += part.bytes;
      t.lookup_s[j] += part.access * fetchers[j] * L.row_s(j, j, part.row_bytes);
    }
  }
  return t;
}

double degree_of_balance(std::span<const double> values) {
  if (values.empty()) return 1;
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  return *mx > 0 ? *mn / *mx : 1.0;
}

}  // namespace shardsim::oper
