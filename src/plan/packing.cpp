#include "plan/packing.hpp"

#include "plan/peer_sync_pricing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <queue>
#include <stdexcept>
#include <tuple>

#include "shardsim/core/error.hpp"
#include "shardsim/plan/memory.hpp"

namespace shardsim {

namespace {
// 532 B, 12.3 KB, 45.6 MB, 7.891 GB: small shards stay readable next to whole GPUs.
std::string human_bytes(double b) {
  if (b < 1e3) return fmt::format("{:.0f} B", b);
  if (b < 1e6) return fmt::format("{:.1f} KB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.3f} GB", b / 1e9);
}
}  // namespace

MemoryBudget::MemoryBudget(const PlanningContext& ctx, double headroom_fraction)
    : ctx_(ctx),
      hbm_bytes_(ctx.cluster.gpu().hbm_capacity_bytes),
      headroom_(headroom_fraction),
      capacity_bytes_(hbm_bytes_ * (1.0 - headroom_fraction)),
      base_bytes_(base_gpu_memory(ctx.cluster, ctx.model, ctx.workload).total_bytes()),
      start_(static_cast<std::size_t>(ctx.cluster.num_gpus()), base_bytes_) {
  // The scenario's bottom MLP on one GPU (placement.bottom_mlp_gpu): that GPU holds the global
  // batch's bottom layers, the others none of the bottom MLP, as plan_memory counts them.
  if (ctx.bottom_mlp_gpu >= 0) {
    const std::vector<double> delta = bottom_mlp_memory_delta_bytes(
        ctx.bottom_mlp_gpu, ctx.cluster.num_gpus(), ctx.model, ctx.workload);
    for (std::size_t g = 0; g < start_.size(); ++g) start_[g] += delta[g];
  }
  used_ = start_;
}

double MemoryBudget::largest_room_bytes() const {
  return capacity_bytes_ - *std::min_element(start_.begin(), start_.end());
}

double MemoryBudget::smallest_room_bytes() const {
  return capacity_bytes_ - *std::max_element(start_.begin(), start_.end());
}

double MemoryBudget::shard_bytes(const Shard& shard, double served_gpus) const {
  const Mode mode = ctx_.workload.mode;
  const double samples = served_gpus * ctx_.workload.batch_per_gpu;
  return shard_hbm_stored_bytes(shard, ctx_.model, mode) +
         shard_activation_bytes(shard, ctx_.model, mode, samples,
                                ctx_.model.tables[shard.table].pooling.expected());
}

double MemoryBudget::bytes_on(int gpu, const Shard& shard, double served_gpus) const {
  const double full = shard_bytes(shard, served_gpus);
  if (!(served_gpus > 0)) return full;  // no activations to share (one-sided plans)
  const auto it = buffers_.find({gpu, shard.table, shard.cols.begin, shard.cols.end});
  if (it == buffers_.end()) return full;
  const double stored = shard_hbm_stored_bytes(shard, ctx_.model, ctx_.workload.mode);
  if (served_gpus <= it->second) return stored;
  // A buffer for more samples than the one already there grows by the difference.
  return full - (shard_bytes(shard, it->second) - stored);
}

void MemoryBudget::place(int gpu, const Shard& shard, double served_gpus) {
  add(gpu, bytes_on(gpu, shard, served_gpus));
  if (!(served_gpus > 0)) return;  // a buffer for no samples: nothing to share later
  double& served = buffers_[{gpu, shard.table, shard.cols.begin, shard.cols.end}];
  served = std::max(served, served_gpus);
}

void MemoryBudget::fail(const std::string& what, double bytes,
                        std::span<const int> candidates) const {
  int roomiest = -1;
  auto consider = [&](int g) {
    if (roomiest < 0 || used_bytes(g) < used_bytes(roomiest)) roomiest = g;
  };
  if (candidates.empty()) {
    for (int g = 0; g < num_gpus(); ++g) consider(g);
  } else {
    for (int g : candidates) consider(g);
  }
  std::string detail = fmt::format(
      "{} needs {} (weights, optimizer state and activations) but even the emptiest candidate, "
      "GPU {}, has only {} free",
      what, human_bytes(bytes), roomiest, human_bytes(std::max(0.0, free_bytes(roomiest))));
  if (headroom_ > 0) {
    detail +=
        fmt::format(" (the planner keeps {:.0f}% of HBM free: option headroom)", headroom_ * 100);
  }
  detail += "; try more GPUs (cluster.nodes) or a planner that splits tables more finely";
  throw DoesNotFitError(roomiest, used_bytes(roomiest) + bytes, capacity_bytes_, detail);
}

LoadTracker::LoadTracker(int num_gpus) : load_(static_cast<std::size_t>(num_gpus), 0.0) {
  while (leaves_ < load_.size()) leaves_ *= 2;
  winner_.assign(2 * leaves_, -1);
  for (int g = 0; g < num_gpus; ++g) winner_[leaves_ + static_cast<std::size_t>(g)] = g;
  for (std::size_t i = leaves_ - 1; i >= 1; --i) settle(i);
}

void LoadTracker::settle(std::size_t node) {
  const int a = winner_[2 * node], b = winner_[2 * node + 1];
  winner_[node] = before(b, a) ? b : a;
}

void LoadTracker::replay(int gpu) {
  for (std::size_t i = (leaves_ + static_cast<std::size_t>(gpu)) / 2; i >= 1; i /= 2) settle(i);
}

void LoadTracker::add(int gpu, double cost) {
  if (!own_.empty()) {
    add(gpu, cost, 0.0);
    return;
  }
  load_[static_cast<std::size_t>(gpu)] += cost;
  replay(gpu);
}

void LoadTracker::add(int gpu, double cost, double beside) {
  if (own_.empty()) {
    if (beside == 0) {  // one load so far: exactly add(gpu, cost)
      add(gpu, cost);
      return;
    }
    own_ = load_;
    beside_.assign(load_.size(), 0.0);
  }
  const auto i = static_cast<std::size_t>(gpu);
  own_[i] += cost;
  beside_[i] += beside;
  load_[i] = std::max(own_[i], beside_[i]);
  replay(gpu);
}

template <typename Fits>
int LoadTracker::least_fitting(Fits&& fits) const {
  const int top = winner_[1];
  if (top < 0 || fits(top)) return top;
  // The GPUs in (load, id) order, lazily, as a sorted set walks them: best first over disjoint
  // subtrees, each ranked by its winner (a node's winner is also one child's, so the frontier's
  // winners are distinct). O(k log N) for the k GPUs before the one returned.
  const auto later = [this](std::size_t a, std::size_t b) {
    return before(winner_[b], winner_[a]);
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> frontier(later);
  frontier.push(1);
  while (!frontier.empty()) {
    const std::size_t i = frontier.top();
    frontier.pop();
    if (i >= leaves_) {
      if (fits(winner_[i])) return winner_[i];
      continue;
    }
    for (const std::size_t child : {2 * i, 2 * i + 1}) {
      if (winner_[child] >= 0) frontier.push(child);
    }
  }
  return -1;
}

int LoadTracker::least_loaded_fitting(const MemoryBudget& budget, double bytes) const {
  return least_fitting([&](int gpu) { return budget.fits(gpu, bytes); });
}

int LoadTracker::least_loaded_fitting(const MemoryBudget& budget, double bytes,
                                      std::span<const int> gpus) const {
  int best = -1;
  for (int g : gpus) {
    if (!budget.fits(g, bytes)) continue;
    if (best < 0 || load(g) < load(best) || (load(g) == load(best) && g < best)) best = g;
  }
  return best;
}

int LoadTracker::least_loaded_fitting(const MemoryBudget& budget, const Shard& shard,
                                      double served_gpus, std::span<const int> gpus) const {
  if (gpus.empty()) {
    return least_fitting([&](int gpu) { return budget.fits_on(gpu, shard, served_gpus); });
  }
  int best = -1;
  for (int g : gpus) {
    if (!budget.fits_on(g, shard, served_gpus)) continue;
    if (best < 0 || load(g) < load(best) || (load(g) == load(best) && g < best)) best = g;
  }
  return best;
}

void pack_least_loaded(std::span<const PackItem> items, MemoryBudget& budget, LoadTracker& loads,
                       Plan& plan, std::span<const int> gpus) {
  for (const PackItem& item : items) {
    const int g = loads.least_loaded_fitting(budget, item.shard, item.served_gpus, gpus);
    if (g < 0) budget.fail(item.what, budget.shard_bytes(item.shard, item.served_gpus), gpus);
    Shard s = item.shard;
    s.gpu = g;
    budget.place(g, s, item.served_gpus);
    loads.add(g, item.cost);
    plan.shards.push_back(s);
  }
}

void sort_largest_first(std::vector<PackItem>& items, const MemoryBudget& budget) {
  std::vector<std::pair<double, std::size_t>> keyed;
  keyed.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    keyed.emplace_back(budget.shard_bytes(items[i].shard, items[i].served_gpus), i);
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    const PackItem& x = items[a.second];
    const PackItem& y = items[b.second];
    if (x.cost != y.cost) return x.cost > y.cost;
    if (a.first != b.first) return a.first > b.first;
    return std::tie(x.shard.table, x.shard.rows.begin, x.shard.cols.begin, a.second) <
           std::tie(y.shard.table, y.shard.rows.begin, y.shard.cols.begin, b.second);
  });
  std::vector<PackItem> sorted;
  sorted.reserve(items.size());
  for (const auto& k : keyed) sorted.push_back(std::move(items[k.second]));
  items = std::move(sorted);
}

void pack_two_shares(std::vector<PackItem> items, std::span<const double> second,
                     MemoryBudget& budget, Plan& plan) {
  const std::size_t n_items = items.size();
  double total_first = 0, total_second = 0;
  for (std::size_t i = 0; i < n_items; ++i) {
    total_first += items[i].cost;
    total_second += second[i];
  }
  const auto share = [](double v, double total) { return total > 0 ? v / total : 0.0; };
  struct Keyed {
    double dominant, bytes;
    std::size_t index;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(n_items);
  for (std::size_t i = 0; i < n_items; ++i) {
    const double a = share(items[i].cost, total_first), b = share(second[i], total_second);
    keyed.push_back({std::max(a, b), budget.shard_bytes(items[i].shard, items[i].served_gpus), i});
  }
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& x, const Keyed& y) {
    if (x.dominant != y.dominant) return x.dominant > y.dominant;
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    const Shard& p = items[x.index].shard;
    const Shard& q = items[y.index].shard;
    return std::tie(p.table, p.rows.begin, p.cols.begin, x.index) <
           std::tie(q.table, q.rows.begin, q.cols.begin, y.index);
  });
  const int n = budget.num_gpus();
  // Each GPU's raw sums, turned into shares only to compare: sums of raw costs are exact where
  // the costs are (integers such as dim x pooling), so ties are ties, as in pack_least_loaded.
  std::vector<double> first_load(static_cast<std::size_t>(n), 0.0);
  std::vector<double> second_load(static_cast<std::size_t>(n), 0.0);
  const auto dominant = [&](double first, double second_sum) {
    return std::max(share(first, total_first), share(second_sum, total_second));
  };
  for (const Keyed& k : keyed) {
    const PackItem& item = items[k.index];
    const double cost = item.cost, extra = second[k.index];
    int best = -1;
    double best_after = 0, best_before = 0;
    for (int g = 0; g < n; ++g) {
      const auto i = static_cast<std::size_t>(g);
      const double before = dominant(first_load[i], second_load[i]);
      const double after = dominant(first_load[i] + cost, second_load[i] + extra);
      // On a tie, the GPU whose dominant share rises less (the item fills the slack of its
      // other load), then the lower id: g only wins when strictly better.
      if (best >= 0 && (after > best_after || (after == best_after && before <= best_before))) {
        continue;
      }
      if (!budget.fits_on(g, item.shard, item.served_gpus)) continue;
      best = g;
      best_after = after;
      best_before = before;
    }
    if (best < 0) budget.fail(item.what, budget.shard_bytes(item.shard, item.served_gpus));
    Shard s = item.shard;
    s.gpu = best;
    budget.place(best, s, item.served_gpus);
    first_load[static_cast<std::size_t>(best)] += cost;
    second_load[static_cast<std::size_t>(best)] += extra;
    plan.shards.push_back(s);
  }
}

void pack_with_replica_sync(std::vector<PackItem> items, std::span<const double> sync_s,
                            bool cost_in_seconds, MemoryBudget& budget, Plan& plan) {
  if (sync_s.size() != items.size()) {
    throw std::invalid_argument(fmt::format(
        "pack_with_replica_sync: {} sync times for {} items; give one per item (0 outside two_d)",
        sync_s.size(), items.size()));
  }
  double total_sync_s = 0;
  for (double v : sync_s) total_sync_s += v;
  if (total_sync_s > 0 && !cost_in_seconds) {
    pack_two_shares(std::move(items), sync_s, budget, plan);
    return;
  }
  if (cost_in_seconds) {
    for (std::size_t i = 0; i < items.size(); ++i) items[i].cost += sync_s[i];
  }
  sort_largest_first(items, budget);
  LoadTracker loads(budget.num_gpus());
  pack_least_loaded(items, budget, loads, plan);
}

Plan plan_tables_on_nodes(const PlanningContext& ctx, std::span<const std::size_t> order,
                          const NodeSplit& split, const std::string& planner, double headroom,
                          bool cost_in_seconds) {
  const Cluster& cluster = ctx.cluster;
  MemoryBudget budget(ctx, headroom);
  LoadTracker loads(cluster.num_gpus());
  Plan plan;
  plan.planner = planner;
  const int nodes = cluster.num_nodes();
  std::vector<std::vector<int>> node_gpus(static_cast<std::size_t>(nodes));
  for (int node = 0; node < nodes; ++node) node_gpus[node] = gpus_of_node(cluster, node);
  // Per table: its shards' cost and replica-sync seconds, which do not depend on the node (the
  // split cuts the same rows and columns on any node). The sync is 0 outside a sync-aware two_d.
  std::vector<double> table_cost(ctx.model.tables.size(), 0.0);
  std::vector<double> table_sync(ctx.model.tables.size(), 0.0);
  double total_cost = 0, total_sync = 0;
  for (std::size_t t : order) {
    for (const PlacedShard& s : split(t, node_gpus[0])) {
      table_cost[t] += s.cost;
      table_sync[t] +=
          peer_sync_time_s(ctx, t, s.shard.rows, s.shard.row_space, s.shard.cols.size());
    }
    total_cost += table_cost[t];
    total_sync += table_sync[t];
  }
  const bool two_shares = total_sync > 0 && !cost_in_seconds;
  const auto share = [](double v, double total) { return total > 0 ? v / total : 0.0; };
  std::vector<double> node_load(static_cast<std::size_t>(nodes), 0.0);
  std::vector<double> node_sync(static_cast<std::size_t>(nodes), 0.0);
  // The node's rank for table t: its load (cost, plus the sync when the cost is in seconds),
  // or with a heuristic cost the larger of its two shares after taking t (pack_two_shares).
  const auto key = [&](int node, std::size_t t) {
    const auto i = static_cast<std::size_t>(node);
    if (!two_shares) return node_load[i];
    return std::max(share(node_load[i] + table_cost[t], total_cost),
                    share(node_sync[i] + table_sync[t], total_sync));
  };
  std::vector<int> node_order(static_cast<std::size_t>(nodes));
  for (std::size_t t : order) {
    for (int node = 0; node < nodes; ++node) node_order[node] = node;
    std::sort(node_order.begin(), node_order.end(), [&](int a, int b) {
      const double ka = key(a, t), kb = key(b, t);
      return ka < kb || (ka == kb && a < b);
    });
    bool placed = false;
    double worst_bytes = 0;
    int worst_gpu = 0;
    for (int node : node_order) {
      std::vector<int> gpus = node_gpus[node];
      std::stable_sort(gpus.begin(), gpus.end(),
                       [&](int a, int b) { return loads.load(a) < loads.load(b); });
      const std::vector<PlacedShard> shards = split(t, gpus);
      // The shards of one table may share a GPU: sum their bytes per GPU before checking.
      std::vector<std::pair<int, double>> need;
      for (const PlacedShard& s : shards) {
        const double b = budget.shard_bytes(s.shard, cluster.num_gpus());
        auto it = std::find_if(need.begin(), need.end(),
                               [&](const auto& p) { return p.first == s.shard.gpu; });
        if (it == need.end()) {
          need.emplace_back(s.shard.gpu, b);
        } else {
          it->second += b;
        }
      }
      bool fits = true;
      for (const auto& [g, b] : need) {
        if (!budget.fits(g, b)) {
          fits = false;
          if (b > worst_bytes) {
            worst_bytes = b;
            worst_gpu = g;
          }
        }
      }
      if (!fits) continue;
      for (const auto& [g, b] : need) budget.add(g, b);
      for (const PlacedShard& s : shards) {
        const double sync_s =
            cost_in_seconds
                ? peer_sync_time_s(ctx, t, s.shard.rows, s.shard.row_space, s.shard.cols.size())
                : 0.0;
        loads.add(s.shard.gpu, s.cost + sync_s);
        node_load[node] += s.cost + sync_s;
        plan.shards.push_back(s.shard);
      }
      node_sync[node] += table_sync[t];
      placed = true;
      break;
    }
    if (!placed) {
      const int g = worst_gpu;
      budget.fail(fmt::format("{}: table '{}' (its largest part on one GPU)", planner,
                              ctx.model.tables[t].name),
                  worst_bytes, std::span<const int>(&g, 1));
    }
  }
  return plan;
}

std::vector<int> gpus_of_node(const Cluster& cluster, int node) {
  std::vector<int> out;
  const int gpn = cluster.gpus_per_node();
  for (int i = 0; i < gpn; ++i) out.push_back(node * gpn + i);
  return out;
}

}  // namespace shardsim
