// TorchRec's GreedyPerfPartitioner (plan/torchrec/partitioner.hpp).
#include "plan/torchrec/partitioner.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

namespace shardsim::torchrec {

namespace {

// Each rank's free storage (TorchRec's DeviceHardware.storage: HBM and DDR) and perf.
struct Devices {
  std::vector<double> free_bytes;      // HBM
  std::vector<double> free_ddr_bytes;  // DDR (host memory)
  std::vector<Perf> perf;
  // Storage.fits_in: the shard's HBM and DDR both within the rank's.
  bool fits(int rank, const ShardEstimate& s) const {
    const auto r = static_cast<std::size_t>(rank);
    return s.hbm_bytes <= free_bytes[r] && s.ddr_bytes <= free_ddr_bytes[r];
  }
};

// The device rule over `ranks`: the lowest perf total with room, ties by rank % local, then rank.
// `local` 0: ties by rank alone (v0.3.2's _device_partition, a stable sort by perf).
int pick_device(const Devices& d, const std::vector<int>& ranks, int local,
                const ShardEstimate& shard) {
  const auto slot = [local](int r) { return local > 0 ? r % local : 0; };
  int best = -1;
  for (int r : ranks) {
    if (!d.fits(r, shard)) continue;
    if (best < 0) {
      best = r;
      continue;
    }
    const double pr = d.perf[static_cast<std::size_t>(r)].total_s();
    const double pb = d.perf[static_cast<std::size_t>(best)].total_s();
    if (pr < pb || (pr == pb && (slot(r) < slot(best) || (slot(r) == slot(best) && r < best)))) {
      best = r;
    }
  }
  return best;
}

void assign(Devices& d, int rank, const ShardEstimate& s) {
  d.free_bytes[static_cast<std::size_t>(rank)] -= s.hbm_bytes;
  d.free_ddr_bytes[static_cast<std::size_t>(rank)] -= s.ddr_bytes;
  d.perf[static_cast<std::size_t>(rank)] += s.perf;
}

// The device rule over every rank, as TorchRec's min-heap keeps it: ranks ordered by (perf
// total, rank % L, rank); the first with room wins, the same rank as pick_device. `local` 0:
// (perf total, rank), v0.3.2's sorted(devices, key=perf).
//
// Kept in two parts (issue 59: one order per proposal, 16,384 ranks, thousands of proposals):
// the ranks whose perf has not changed since the order was made, a sorted array built once (at a
// proposal's start every rank has the same perf, so it is the fixed (rank % L, rank) order and
// needs no sort), and the ranks changed since. `pick` walks both in key
// order; a rank leaves the array for good on its first change (perf only grows). The set is a
// heap with lazy deletion: the smallest key is the answer unless that rank is full.
class RankOrder {
 public:
  RankOrder(const Devices& d, int local) : local_(local) {
    const int ranks = static_cast<int>(d.perf.size());
    const int stride = local_ > 0 ? local_ : 1;
    base_.reserve(d.perf.size());
    for (int i = 0; i < stride; ++i) {
      for (int r = i; r < ranks; r += stride) base_.push_back(key(d, r));
    }
    if (!std::is_sorted(base_.begin(), base_.end())) std::sort(base_.begin(), base_.end());
    position_.resize(d.perf.size());
    for (std::size_t i = 0; i < base_.size(); ++i) {
      position_[static_cast<std::size_t>(std::get<2>(base_[i]))] = i;
    }
    moved_.assign(d.perf.size(), 0);
    in_changed_.assign(d.perf.size(), 0);
    changed_perf_.assign(d.perf.size(), 0.0);
  }
  // The first rank in key order with room for `shard`, -1 if none.
  int pick(const Devices& d, const ShardEstimate& shard) {
    // Usually the smallest key has room: the base array's first unchanged rank or the heap's top.
    while (!changed_.empty() && !valid(changed_.front())) pop();
    const bool base_left = head_ < base_.size();
    if (base_left || !changed_.empty()) {
      const bool from_base = base_left && (changed_.empty() || base_[head_] < changed_.front());
      const int r = std::get<2>(from_base ? base_[head_] : changed_.front());
      if (d.fits(r, shard)) return r;
    }
    // Otherwise walk both in key order: the heap's valid entries sorted.
    std::vector<Key> changed;
    for (const Key& k : changed_) {
      if (valid(k)) changed.push_back(k);
    }
    std::sort(changed.begin(), changed.end());
    std::size_t i = head_;
    auto it = changed.begin();
    while (true) {
      while (i < base_.size() && moved_[static_cast<std::size_t>(std::get<2>(base_[i]))]) ++i;
      const bool left = i < base_.size();
      if (!left && it == changed.end()) return -1;
      int r = 0;
      if (left && (it == changed.end() || base_[i] < *it)) {
        r = std::get<2>(base_[i++]);
      } else {
        r = std::get<2>(*it++);
      }
      if (d.fits(r, shard)) return r;
    }
  }
  // Call around every change of rank r's perf.
  void remove(const Devices&, int r) {
    const auto u = static_cast<std::size_t>(r);
    if (moved_[u]) {
      in_changed_[u] = 0;  // its heap entry goes stale
      --valid_;
      return;
    }
    moved_[u] = 1;
    if (position_[u] == head_) {
      while (head_ < base_.size() && moved_[static_cast<std::size_t>(std::get<2>(base_[head_]))]) {
        ++head_;
      }
    }
  }
  void insert(const Devices& d, int r) {
    const auto u = static_cast<std::size_t>(r);
    const Key k = key(d, r);
    in_changed_[u] = 1;
    changed_perf_[u] = std::get<0>(k);
    ++valid_;
    changed_.push_back(k);
    std::push_heap(changed_.begin(), changed_.end(), std::greater<>());
    if (changed_.size() > 4 * valid_ + 64) compact();
  }

 private:
  using Key = std::tuple<double, int, int>;
  Key key(const Devices& d, int r) const {
    return {d.perf[static_cast<std::size_t>(r)].total_s(), local_ > 0 ? r % local_ : 0, r};
  }
  // A heap entry is its rank's current key (equal entries may repeat: harmless to pick).
  bool valid(const Key& k) const {
    const auto u = static_cast<std::size_t>(std::get<2>(k));
    return in_changed_[u] && changed_perf_[u] == std::get<0>(k);
  }
  void pop() {
    std::pop_heap(changed_.begin(), changed_.end(), std::greater<>());
    changed_.pop_back();
  }
  // Drops stale and repeated entries.
  void compact() {
    std::vector<Key> kept;
    for (const Key& k : changed_) {
      if (valid(k)) kept.push_back(k);
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    changed_ = std::move(kept);  // a sorted array is a min-heap
    std::make_heap(changed_.begin(), changed_.end(), std::greater<>());
  }

  int local_;
  std::vector<Key> base_;              // unchanged ranks, in key order
  std::vector<std::size_t> position_;  // rank -> index in base_
  std::vector<char> moved_;            // 1: the rank left base_ (it is in changed_ or removed)
  std::size_t head_ = 0;               // base_[..head_) have all moved
  // The changed ranks: a min-heap of keys with stale entries dropped lazily; in_changed_ and
  // changed_perf_ tell a rank's current entry.
  std::vector<Key> changed_;
  std::vector<char> in_changed_;
  std::vector<double> changed_perf_;
  std::size_t valid_ = 0;
};

// Hosts in ascending order of their ranks' summed perf totals, ties by host index (TorchRec's
// stable sort of the hosts), with each host's free storage (HBM and DDR).
class HostOrder {
 public:
  HostOrder(const Devices& d, int local, int hosts)
      : local_(local),
        perf_(static_cast<std::size_t>(hosts)),
        free_(static_cast<std::size_t>(hosts)),
        free_ddr_(static_cast<std::size_t>(hosts)) {
    std::vector<std::pair<double, int>> keys;
    for (int h = 0; h < hosts; ++h) {
      refresh(d, h);
      keys.push_back({perf_[static_cast<std::size_t>(h)], h});
    }
    std::sort(keys.begin(), keys.end());
    order_ = std::set<std::pair<double, int>>(keys.begin(), keys.end());
  }
  const std::set<std::pair<double, int>>& order() const { return order_; }
  // _cohost_partition: the option's summed storage fits in the host's summed free storage.
  bool holds(int h, const ShardingOption& o) const {
    const auto u = static_cast<std::size_t>(h);
    return o.total_hbm_bytes <= free_[u] && o.total_ddr_bytes <= free_ddr_[u];
  }
  // Call around every change of a rank of host h.
  void remove(int h) { order_.erase({perf_[static_cast<std::size_t>(h)], h}); }
  void update(const Devices& d, int h) {
    refresh(d, h);
    order_.insert({perf_[static_cast<std::size_t>(h)], h});
  }

 private:
  void refresh(const Devices& d, int h) {
    double perf = 0, free = 0, free_ddr = 0;  // summed in rank order, as TorchRec sums them
    for (int i = 0; i < local_; ++i) {
      const auto r = static_cast<std::size_t>(h * local_ + i);
      perf += d.perf[r].total_s();
      free += d.free_bytes[r];
      free_ddr += d.free_ddr_bytes[r];
    }
    perf_[static_cast<std::size_t>(h)] = perf;
    free_[static_cast<std::size_t>(h)] = free;
    free_ddr_[static_cast<std::size_t>(h)] = free_ddr;
  }

  int local_;
  std::vector<double> perf_, free_, free_ddr_;
  std::set<std::pair<double, int>> order_;
};

}  // namespace

std::optional<Partition> greedy_perf_partition(const std::vector<const ShardingOption*>& proposal,
                                               const Params& p, double capacity_bytes,
                                               double ddr_capacity_bytes,
                                               std::span<const double> held_bytes_by_rank) {
  const int w = p.world_size;
  const int l = p.local_world_size;
  const auto held = [&](std::size_t r) {
    return held_bytes_by_rank.empty() ? 0.0 : held_bytes_by_rank[r];
  };
  Devices d;
  d.free_bytes.assign(static_cast<std::size_t>(w), capacity_bytes);
  d.free_ddr_bytes.assign(static_cast<std::size_t>(w), ddr_capacity_bytes);
  d.perf.assign(static_cast<std::size_t>(w), Perf{});
  Partition out;
  out.rank_of.resize(proposal.size());

  // Uniform options: shard i on rank i. Their shards' perf is the same on every rank, and their
  // storage is added run by run (a difference array): O(runs + W), not O(options · W). Storage
  // only grows, so a rank over capacity at the end is one TorchRec finds full on the way.
  std::vector<std::size_t> others;
  Perf uniform_perf;
  std::vector<double> hbm_step(static_cast<std::size_t>(w) + 1, 0.0);
  std::vector<double> ddr_step(static_cast<std::size_t>(w) + 1, 0.0);
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const ShardingOption& o = *proposal[i];
    if (partition_by(o.type) != PartitionBy::uniform) {
      others.push_back(i);
      continue;
    }
    if (o.shards.empty()) continue;
    uniform_perf += o.shards.front().perf;
    for (const ShardingOption::StorageRun& run : o.storage_runs) {
      hbm_step[run.first] += run.hbm_bytes;
      hbm_step[run.end] -= run.hbm_bytes;
      ddr_step[run.first] += run.ddr_bytes;
      ddr_step[run.end] -= run.ddr_bytes;
    }
  }
  double used = 0, used_ddr = 0;
  for (std::size_t r = 0; r < static_cast<std::size_t>(w); ++r) {
    used += hbm_step[r];
    used_ddr += ddr_step[r];
    if (!(held(r) + used <= capacity_bytes) || !(used_ddr <= ddr_capacity_bytes)) {
      return std::nullopt;
    }
    d.free_bytes[r] = capacity_bytes - held(r) - used;
    d.free_ddr_bytes[r] = ddr_capacity_bytes - used_ddr;
    d.perf[r] = uniform_perf;
  }
  // SortBy.STORAGE (_group_and_sort_non_uniform_sharding_options): largest total_storage first,
  // Storage comparing as the tuple (hbm, ddr); Python's sort is stable under reverse=True.
  std::stable_sort(others.begin(), others.end(), [&](std::size_t a, std::size_t b) {
    const ShardingOption& x = *proposal[a];
    const ShardingOption& y = *proposal[b];
    return std::pair(x.total_hbm_bytes, x.total_ddr_bytes) >
           std::pair(y.total_hbm_bytes, y.total_ddr_bytes);
  });
  // The device rule's ties: rank % L, then rank; v0.3.2: rank alone.
  RankOrder ranks(d, p.version == Version::v0_3_2 ? 0 : l);
  HostOrder hosts(d, l, w / l);
  std::vector<int> local(static_cast<std::size_t>(l));
  std::iota(local.begin(), local.end(), 0);
  for (std::size_t i : others) {
    const ShardingOption& o = *proposal[i];
    if (partition_by(o.type) == PartitionBy::device) {
      for (const ShardEstimate& s : o.shards) {
        const int rank = ranks.pick(d, s);
        if (rank < 0) return std::nullopt;
        ranks.remove(d, rank);
        hosts.remove(rank / l);
        assign(d, rank, s);
        ranks.insert(d, rank);
        hosts.update(d, rank / l);
        out.rank_of[i].push_back(rank);
      }
      continue;
    }
    // By host: the first host, in HostOrder, whose free storage holds the option and whose
    // ranks take its shards.
    int chosen = -1;
    std::vector<int> got;
    Devices trial;
    for (const auto& [perf, h] : hosts.order()) {
      if (!hosts.holds(h, o)) continue;
      // The host's ranks h·L + i as local indices i (rank % L = i, and rank order = i order).
      const auto first = static_cast<std::ptrdiff_t>(h) * l;
      trial.free_bytes.assign(d.free_bytes.begin() + first, d.free_bytes.begin() + first + l);
      trial.free_ddr_bytes.assign(d.free_ddr_bytes.begin() + first,
                                  d.free_ddr_bytes.begin() + first + l);
      trial.perf.assign(d.perf.begin() + first, d.perf.begin() + first + l);
      got.clear();
      for (std::size_t s = 0; s < o.shards.size(); ++s) {
        int k = -1;  // the local index
        if (o.type == ShardingType::table_row_wise) {
          k = s < static_cast<std::size_t>(l) ? static_cast<int>(s) : -1;
          if (k >= 0 && !trial.fits(k, o.shards[s])) k = -1;
        } else {
          k = pick_device(trial, local, l, o.shards[s]);
        }
        if (k < 0) break;
        assign(trial, k, o.shards[s]);
        got.push_back(k);
      }
      if (got.size() != o.shards.size()) continue;
      chosen = h;
      break;
    }
    if (chosen < 0) return std::nullopt;
    const int first = chosen * l;
    hosts.remove(chosen);
    for (int k = 0; k < l; ++k) ranks.remove(d, first + k);
    std::copy(trial.free_bytes.begin(), trial.free_bytes.end(), d.free_bytes.begin() + first);
    std::copy(trial.free_ddr_bytes.begin(), trial.free_ddr_bytes.end(),
              d.free_ddr_bytes.begin() + first);
    std::copy(trial.perf.begin(), trial.perf.end(), d.perf.begin() + first);
    for (int k = 0; k < l; ++k) ranks.insert(d, first + k);
    hosts.update(d, chosen);
    for (int& r : got) r += first;
    out.rank_of[i] = std::move(got);
  }
  out.perf_by_rank = d.perf;
  out.hbm_used_by_rank_bytes.resize(static_cast<std::size_t>(w));
  out.ddr_used_by_rank_bytes.resize(static_cast<std::size_t>(w));
  for (int r = 0; r < w; ++r) {
    const auto u = static_cast<std::size_t>(r);
    out.hbm_used_by_rank_bytes[u] = capacity_bytes - held(u) - d.free_bytes[u];
    out.ddr_used_by_rank_bytes[u] = ddr_capacity_bytes - d.free_ddr_bytes[u];
  }
  return out;
}

double rating_s(const std::vector<const ShardingOption*>& proposal, const Partition& partition,
                int world_size) {
  double uniform = 0;
  for (const ShardingOption* o : proposal) {
    if (partition_by(o->type) == PartitionBy::uniform && !o->shards.empty()) {
      uniform += o->shards.front().perf.total_s();
    }
  }
  std::vector<double> perf(static_cast<std::size_t>(world_size), uniform);
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    if (partition_by(proposal[i]->type) == PartitionBy::uniform) continue;
    for (std::size_t s = 0; s < proposal[i]->shards.size(); ++s) {
      perf[static_cast<std::size_t>(partition.rank(i, s))] += proposal[i]->shards[s].perf.total_s();
    }
  }
  return *std::max_element(perf.begin(), perf.end());
}

}  // namespace shardsim::torchrec
