// OPER §4.3: Algorithm 1 (inference) and Eq. 4-5 (training).
#include "plan/oper/data_parallel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <span>
#include <stdexcept>

#include "plan/oper/partitioning.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/cost/collective_cost.hpp"

namespace shardsim::oper {

std::vector<double> available_memory(std::span<const double> memory_bytes, double total_bytes,
                                     double extra_memory_ratio,
                                     std::span<const double> free_bytes) {
  const double n = static_cast<double>(memory_bytes.size());
  const double extra = extra_memory_ratio * total_bytes / n;
  const double share = total_bytes / n + extra;
  std::vector<double> out(memory_bytes.size());
  for (std::size_t g = 0; g < out.size(); ++g) {
    out[g] = std::max(0.0, std::min({extra, share - memory_bytes[g], free_bytes[g]}));
  }
  return out;
}

std::vector<std::size_t> sweep_order(std::span<const Partition> partitions) {
  std::vector<std::size_t> order(partitions.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Partition& x = partitions[a];
    const Partition& y = partitions[b];
    const double dx = x.density(), dy = y.density();
    if (dx != dy) return dx > dy;
    if (x.table != y.table) return x.table < y.table;
    return x.ranks.begin < y.ranks.begin;
  });
  return order;
}

namespace {

// Algorithm 1's state: CL (row-major n × n), every GPU's candidates and the result being built.
class Algorithm1 {
 public:
  Algorithm1(std::span<const Partition> partitions, std::span<const int> owner, const CostMatrix& L,
             std::vector<double> available)
      : partitions_(partitions),
        L_(L),
        n_(L.num_gpus()),
        un_(static_cast<std::size_t>(n_)),
        order_(sweep_order(partitions)),
        pos_(partitions.size()),
        cand_(un_),
        dead_(un_) {
    const std::size_t num = partitions.size();
    out_.available = std::move(available);
    out_.placement.owner.assign(owner.begin(), owner.end());
    out_.placement.fetch.assign(num, std::vector<int>(un_));
    for (std::size_t p = 0; p < num; ++p) {
      std::fill(out_.placement.fetch[p].begin(), out_.placement.fetch[p].end(), owner[p]);
    }
    // CL (Eq. 3 with every GPU fetching from the owner); the diagonal holds local lookups.
    out_.comm_s.assign(un_ * un_, 0.0);
    // Candidates: per GPU, per source GPU, the partitions it fetches from there, by sweep
    // position.
    for (std::size_t k = 0; k < num; ++k) pos_[order_[k]] = k;
    for (int g = 0; g < n_; ++g) dead_[g].assign(num, false);
    for (std::size_t p = 0; p < num; ++p) {
      const Partition& part = partitions[p];
      for (int i = 0; i < n_; ++i) {
        cl(i, owner[p]) += part.access * L.row_s(i, owner[p], part.row_bytes);
        if (i != owner[p] && part.access > 0) cand_[i][owner[p]].insert(pos_[p]);
      }
    }
  }

  InferenceDataParallel run() && {
    std::vector<bool> stopped(un_, false);
    int active = n_;
    while (active > 0) {
      for (int gid = 0; gid < n_; ++gid) {
        if (stopped[gid]) continue;
        const int tid = costliest_link(gid);
        if (duplicate_one(gid, tid)) continue;
        stopped[gid] = true;  // Lines 24-26
        --active;
        log_debug(
            "oper Algorithm 1: GPU {} stops after {} copies: its costliest link is to GPU {} "
            "({:.3g} s), and nothing it fetches there fits its {:.0f} free bytes",
            gid,
            std::count_if(out_.steps.begin(), out_.steps.end(),
                          [&](const DuplicationStep& d) { return d.gpu == gid; }),
            tid, tid >= 0 ? cl(gid, tid) : 0.0, out_.available[gid]);
      }
    }
    return std::move(out_);
  }

 private:
  double& cl(int i, int j) {
    return out_.comm_s[static_cast<std::size_t>(i) * un_ + static_cast<std::size_t>(j)];
  }

  // Line 4: the interconnect with the highest communication latency.
  int costliest_link(int gid) {
    int tid = -1;
    for (int j = 0; j < n_; ++j) {
      if (j != gid && (tid < 0 || cl(gid, j) > cl(gid, tid))) tid = j;
    }
    return tid;
  }

  // Lines 5-21: duplicates on gid the first partition it fetches from tid that fits its memory.
  bool duplicate_one(int gid, int tid) {
    auto it = tid >= 0 ? cand_[gid].find(tid) : cand_[gid].end();
    if (it == cand_[gid].end()) return false;
    std::set<std::size_t>& from_tid = it->second;
    for (auto c = from_tid.begin(); c != from_tid.end();) {
      const std::size_t p = order_[*c];
      const Partition& part = partitions_[p];
      if (!(part.bytes < out_.available[gid])) {  // Line 7; memory only shrinks: never again
        dead_[gid][p] = true;
        c = from_tid.erase(c);
        continue;
      }
      from_tid.erase(c);
      // Lines 9-12: duplicate p on gid.
      out_.placement.fetch[p][gid] = gid;
      cl(gid, tid) -= part.access * L_.row_s(gid, tid, part.row_bytes);
      cl(gid, gid) += part.access * L_.row_s(gid, gid, part.row_bytes);
      out_.available[gid] -= part.bytes;
      out_.steps.push_back(DuplicationStep{gid, tid, p});
      redirect_to(p, gid);
      return true;  // Line 21
    }
    return false;
  }

  // Lines 13-20: every other GPU fetches p from gid if that is cheaper.
  void redirect_to(std::size_t p, int gid) {
    const Partition& part = partitions_[p];
    for (int i = 0; i < n_; ++i) {
      if (i == gid) continue;
      const int oid = out_.placement.fetch[p][i];
      const double now = L_.row_s(i, oid, part.row_bytes);
      const double via = L_.row_s(i, gid, part.row_bytes);
      if (!(via < now)) continue;
      out_.placement.fetch[p][i] = gid;
      cl(i, oid) -= part.access * now;
      cl(i, gid) += part.access * via;
      if (oid != i) {
        auto old = cand_[i].find(oid);
        if (old != cand_[i].end()) old->second.erase(pos_[p]);
      }
      if (!dead_[i][p]) cand_[i][gid].insert(pos_[p]);
    }
  }

  std::span<const Partition> partitions_;
  const CostMatrix& L_;
  int n_;
  std::size_t un_;
  std::vector<std::size_t> order_;
  std::vector<std::size_t> pos_;
  std::vector<std::map<int, std::set<std::size_t>>> cand_;
  std::vector<std::vector<bool>> dead_;  // too big for this GPU's (shrinking) memory
  InferenceDataParallel out_;
};

}  // namespace

InferenceDataParallel inference_data_parallel(std::span<const Partition> partitions,
                                              std::span<const int> owner, const CostMatrix& L,
                                              std::vector<double> available) {
  return Algorithm1(partitions, owner, L, std::move(available)).run();
}

double duplication_threshold(const Cluster& cluster, const CostMatrix& L, double row_bytes,
                             double sync_bytes, const CostParams& p) {
  const int n = L.num_gpus();
  if (n < 2 || !(sync_bytes > 0)) return std::numeric_limits<double>::infinity();
  const double t_p2p = L.mean_remote_row_s(row_bytes);
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  const double ring = 2.0 * (n - 1) / n;
  const double bw_ar = ring * sync_bytes / allreduce_s(cluster, all, sync_bytes, p);
  return row_bytes / (bw_ar * t_p2p);
}

namespace {

// The lowest value, where it is (the first such), and the lowest of the others (infinity for
// none): the lowest over every value but one's, in O(1) while the values stay as they are.
struct LowestTwo {
  double first = std::numeric_limits<double>::infinity();
  std::size_t at = 0;
  double second = std::numeric_limits<double>::infinity();
  double without(std::size_t i) const { return i == at ? second : first; }
};
LowestTwo lowest_two(std::span<const double> values) {
  LowestTwo out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (v < out.first) {
      out.second = out.first;
      out.first = v;
      out.at = i;
    } else if (v < out.second) {
      out.second = v;
    }
  }
  return out;
}

}  // namespace

TrainingDataParallel training_data_parallel(const PlanningContext& ctx,
                                            std::span<const Partition> partitions,
                                            std::span<const int> owner, const CostMatrix& L,
                                            std::vector<double> available, double sync_bytes,
                                            DuplicationUnit unit) {
  if (available.size() != static_cast<std::size_t>(L.num_gpus())) {
    throw std::invalid_argument("training_data_parallel: one available memory per GPU expected");
  }
  const CostParams& cost = ctx.cost_params();
  std::map<double, double> threshold_by_row;  // row bytes -> A threshold
  TrainingDataParallel out;
  // Decisions in sweep order; the output keeps the input order, hot prefixes cut off in place.
  std::vector<std::uint64_t> cut(partitions.size(), 0);  // duplicated prefix length
  // The lowest available memory, kept up to date as duplications take it: most candidates at
  // thousands of GPUs fit nowhere, and each is refused without a pass over the GPUs.
  LowestTwo low = lowest_two(available);
  for (std::size_t p : sweep_order(partitions)) {
    const Partition& part = partitions[p];
    auto [it, fresh] = threshold_by_row.try_emplace(part.row_bytes, 0.0);
    if (fresh) it->second = duplication_threshold(ctx.cluster, L, part.row_bytes, sync_bytes, cost);
    const double theta = it->second;
    if (!std::isfinite(theta) || !(part.density() > 0)) continue;
    std::uint64_t hot = 0;
    if (unit == DuplicationUnit::partitions) {
      // Eq. 4-5 with the partition as e_k: f · Batch = its access per row, S_k its rows.
      const double rows = static_cast<double>(part.ranks.size());
      if (rows > 0 && part.access / rows > theta) hot = part.ranks.size();
    } else {
      const AccessProfile& profile = ctx.trace.profile(part.table);
      const double table_access =
          ctx.workload.batch_per_gpu * ctx.model.tables[part.table].pooling.expected();
      // The first rank of the partition whose own access is <= theta (ranks are hottest first).
      std::uint64_t lo = part.ranks.begin, hi = part.ranks.end;
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (table_access * profile.mass({mid, mid + 1}, RowSpace::rank) > theta) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      hot = lo - part.ranks.begin;
    }
    if (hot == 0) continue;
    const double bytes = static_cast<double>(hot) * row_footprint_bytes(ctx, part.table);
    // Fits on every GPU but the owner; then taken from each: passes over the GPUs on either
    // side of the owner that vectorise (41,562 duplications x 4096 GPUs at issue 21's scale).
    const auto o = static_cast<std::size_t>(owner[p]);
    if (!(bytes < low.without(o))) continue;
    const std::span<double> before(available.data(), o);
    const std::span<double> after(available.data() + o + 1, available.size() - o - 1);
    for (double& a : before) a -= bytes;
    for (double& a : after) a -= bytes;
    low = lowest_two(available);
    cut[p] = hot;
  }
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    const Partition& part = partitions[p];
    if (cut[p] == 0) {
      out.partitions.push_back(part);
      out.placement.owner.push_back(owner[p]);
      out.placement.fetch.emplace_back();
      out.placement.everywhere.push_back(false);
      out.duplicated.push_back(false);
      continue;
    }
    const AccessProfile& profile = ctx.trace.profile(part.table);
    const double table_access =
        ctx.workload.batch_per_gpu * ctx.model.tables[part.table].pooling.expected();
    const double fp = row_footprint_bytes(ctx, part.table);
    Partition hot = part;
    hot.ranks = {part.ranks.begin, part.ranks.begin + cut[p]};
    if (cut[p] < part.ranks.size())
      hot.access = table_access * profile.mass(hot.ranks, RowSpace::rank);
    hot.bytes = static_cast<double>(cut[p]) * fp;
    out.partitions.push_back(hot);
    out.placement.owner.push_back(owner[p]);
    out.placement.fetch.emplace_back();
    out.placement.everywhere.push_back(true);
    out.duplicated.push_back(true);
    if (cut[p] < part.ranks.size()) {
      Partition rest = part;
      rest.ranks = {hot.ranks.end, part.ranks.end};
      rest.access = std::max(0.0, part.access - hot.access);
      rest.bytes = static_cast<double>(rest.ranks.size()) * fp;
      out.partitions.push_back(rest);
      out.placement.owner.push_back(owner[p]);
      out.placement.fetch.emplace_back();
      out.placement.everywhere.push_back(false);
      out.duplicated.push_back(false);
    }
  }
  out.available = std::move(available);
  return out;
}

}  // namespace shardsim::oper
