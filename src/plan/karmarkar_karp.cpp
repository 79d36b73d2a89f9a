// Karmarkar–Karp placement (Neo §4.1: "the largest differencing method ... takes the two largest
// numbers from the input and replaces them by their difference"), in its multi-way form for N
// GPUs (Karmarkar & Karp 1982; the k-way LDM as described by Korf 2009, "Multi-way number
// partitioning"): every table starts as an N-way partition with the table alone in one subset;
// the two partitions with the largest spread (max − min subset sum) are merged by joining the
// largest subset of one with the smallest of the other, the second largest with the second
// smallest, and so on; after T − 1 merges one partition remains, whose subsets go to GPUs 0..N−1
// in decreasing order of their sums.
//
// LDM ignores memory. A repair pass then moves tables off every GPU that is over capacity (the
// largest in bytes first) to the least-loaded GPU with room, so the plan always fits or the
// planner fails with DoesNotFitError. O(T log T + T·N) time, O(T + N) memory per partition.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <queue>

#include "plan/packing.hpp"
#include "plan/planners.hpp"
#include "plan/table_cost.hpp"

namespace shardsim {

namespace {

// An N-way partition with only its non-empty subsets stored, largest sum first (the other
// N − size() subsets are empty).
struct Partition {
  struct Subset {
    double sum = 0;
    std::vector<std::size_t> tables;
  };
  std::vector<Subset> subsets;
  double spread(std::size_t n) const {
    if (subsets.empty()) return 0;
    return subsets.front().sum - (subsets.size() < n ? 0.0 : subsets.back().sum);
  }
};

void sort_subsets(Partition& p) {
  std::sort(p.subsets.begin(), p.subsets.end(), [](const auto& a, const auto& b) {
    if (a.sum != b.sum) return a.sum > b.sum;
    return a.tables.front() < b.tables.front();  // deterministic on ties
  });
}

// Joins the i-th largest subset of `a` with the i-th smallest of `b` (empty subsets included).
Partition merge(Partition a, Partition b, std::size_t n) {
  Partition out;
  const std::size_t pa = a.subsets.size(), pb = b.subsets.size();
  for (std::size_t i = 0; i < n; ++i) {
    // b's i-th smallest is its (n - 1 - i)-th largest; it exists when that index < pb.
    const std::size_t j = n - 1 - i;
    const bool has_a = i < pa, has_b = j < pb;
    if (!has_a && !has_b) continue;
    Partition::Subset s;
    if (has_a) s = std::move(a.subsets[i]);
    if (has_b) {
      s.sum += b.subsets[j].sum;
      s.tables.insert(s.tables.end(), b.subsets[j].tables.begin(), b.subsets[j].tables.end());
    }
    out.subsets.push_back(std::move(s));
  }
  sort_subsets(out);
  return out;
}

class KarmarkarKarpPlanner final : public Planner {
 public:
  KarmarkarKarpPlanner(TableCost cost, double headroom) : cost_(cost), headroom_(headroom) {}
  std::string name() const override { return "karmarkar_karp"; }

  Plan plan(const PlanningContext& ctx) const override {
    const auto& tables = ctx.model.tables;
    const int n = ctx.cluster.num_gpus();
    const auto un = static_cast<std::size_t>(n);
    const TableCosts costs(ctx, cost_);

    // Largest differencing: a max-heap of partitions by spread (ties: by first table id).
    std::vector<Partition> parts;
    parts.reserve(tables.size());
    for (std::size_t t = 0; t < tables.size(); ++t) {
      parts.push_back(Partition{{Partition::Subset{costs.table(t), {t}}}});
    }
    auto key = [&](std::size_t i) {
      return std::make_pair(parts[i].spread(un), -static_cast<double>(i));
    };
    auto less = [&](std::size_t a, std::size_t b) { return key(a) < key(b); };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(less)> heap(less);
    for (std::size_t i = 0; i < parts.size(); ++i) heap.push(i);
    while (heap.size() > 1) {
      const std::size_t a = heap.top();
      heap.pop();
      const std::size_t b = heap.top();
      heap.pop();
      parts.push_back(merge(std::move(parts[a]), std::move(parts[b]), un));
      heap.push(parts.size() - 1);
    }

    std::vector<int> gpu_of(tables.size(), 0);
    if (!heap.empty()) {
      const Partition& final_partition = parts[heap.top()];
      for (std::size_t g = 0; g < final_partition.subsets.size(); ++g) {
        for (std::size_t t : final_partition.subsets[g].tables) gpu_of[t] = static_cast<int>(g);
      }
    }

    // Memory: account every table where LDM put it, then repair overfull GPUs.
    MemoryBudget budget(ctx, headroom_);
    LoadTracker loads(n);
    std::vector<Shard> shards(tables.size());
    std::vector<double> bytes(tables.size());
    std::vector<std::vector<std::size_t>> on_gpu(un);
    for (std::size_t t = 0; t < tables.size(); ++t) {
      Shard& sh = shards[t];
      sh.table = t;
      sh.rows = {0, tables[t].rows};
      sh.cols = {0, tables[t].dim};
      sh.gpu = gpu_of[t];
      sh.kind = ShardKind::table_wise;
      bytes[t] = budget.shard_bytes(sh, n);
      budget.add(sh.gpu, bytes[t]);
      loads.add(sh.gpu, costs.table(t));
      on_gpu[sh.gpu].push_back(t);
    }
    for (int g = 0; g < n; ++g) {
      auto& held = on_gpu[g];
      std::sort(held.begin(), held.end(), [&](std::size_t a, std::size_t b) {
        return bytes[a] > bytes[b] || (bytes[a] == bytes[b] && a < b);
      });
      for (std::size_t k = 0; k < held.size() && budget.free_bytes(g) < 0; ++k) {
        const std::size_t t = held[k];
        budget.add(g, -bytes[t]);
        loads.add(g, -costs.table(t));
        const int to = loads.least_loaded_fitting(budget, bytes[t]);
        if (to < 0) {
          budget.add(g, bytes[t]);
          budget.fail(fmt::format("karmarkar_karp: table '{}'", tables[t].name), bytes[t]);
        }
        shards[t].gpu = to;
        budget.add(to, bytes[t]);
        loads.add(to, costs.table(t));
      }
    }
    Plan plan;
    plan.planner = name();
    plan.shards = std::move(shards);
    return plan;
  }

 private:
  TableCost cost_;
  double headroom_;
};

}  // namespace

OptionSchema karmarkar_karp_planner_options() {
  return planner_schema({table_cost_option()}, 0.0);
}

std::unique_ptr<Planner> make_karmarkar_karp_planner(const PlannerOptions& options) {
  return std::make_unique<KarmarkarKarpPlanner>(table_cost_of(options), options.number("headroom"));
}

}  // namespace shardsim
