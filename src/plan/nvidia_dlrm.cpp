// NVIDIA's PyTorch DLRM plan (docs/planners.md, "nvidia_dlrm"): the placement its reference
// implementation makes, DeepLearningExamples 729963d (and 15af494a, April 2021),
// PyTorch/Recommendation/DLRM/dlrm/utils/distributed.py, get_device_mapping:
//   "Bottom MLP running on device 0. Embeddings will be distributed across among all the
//   devices. [...] suboptimal greedy approach with max bucket size is used."
// With more than 4 GPUs, GPU 0 runs only the bottom MLP ("make sure the one with bottom mlp has
// no embeddings") and the tables go into num_gpus - 1 buckets for GPUs 1..N-1; otherwise into N
// buckets for GPUs 0..N-1. distribute_to_buckets: the tables by size, largest first (ties in
// table order: Python's sort is stable), each into the bucket at the front of the list of open
// buckets, which is re-sorted by the sum of its sizes after every table (stable: equal sums keep
// their order); a bucket that reaches ceil(T / buckets) tables closes. The closed buckets, in the
// order they closed, then the open ones, in their last order, go to the GPUs in turn.
// The sizes are the tables' row counts, as the code passes the categorical feature sizes (its
// tables share one dim). The code checks no memory; this planner fails cleanly where a GPU's
// share does not fit (the run would be out of memory), counting the bottom MLP's global batch on
// GPU 0.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "plan/packing.hpp"
#include "plan/planners.hpp"

namespace shardsim {

namespace {

// The GPU count above which GPU 0 holds no table (get_device_mapping: `if num_gpus > 4`).
constexpr int kBottomOnlyAbove = 4;

struct Bucket {
  std::vector<std::size_t> tables;
  std::uint64_t rows = 0;
};

// distribute_to_buckets(sizes, buckets_num) of the reference code: the table indices of each
// bucket, in final order.
std::vector<std::vector<std::size_t>> distribute_to_buckets(std::span<const std::uint64_t> sizes,
                                                            int buckets_num) {
  const std::size_t count = sizes.size();
  const std::size_t max_bucket_size =
      (count + static_cast<std::size_t>(buckets_num) - 1) / static_cast<std::size_t>(buckets_num);
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  std::vector<Bucket> open(static_cast<std::size_t>(buckets_num));
  std::vector<std::vector<std::size_t>> closed;
  for (std::size_t t : order) {
    Bucket& front = open.front();
    front.tables.push_back(t);
    front.rows += sizes[t];
    if (front.tables.size() == max_bucket_size) {
      closed.push_back(std::move(front.tables));
      open.erase(open.begin());
    }
    std::stable_sort(open.begin(), open.end(),
                     [](const Bucket& a, const Bucket& b) { return a.rows < b.rows; });
  }
  for (Bucket& b : open) closed.push_back(std::move(b.tables));
  return closed;
}

class NvidiaDlrmPlanner final : public Planner {
 public:
  explicit NvidiaDlrmPlanner(double headroom) : headroom_(headroom) {}
  std::string name() const override { return "nvidia_dlrm"; }

  Plan plan(const PlanningContext& ctx) const override {
    const int n = ctx.cluster.num_gpus();
    const auto& tables = ctx.model.tables;
    Plan plan;
    plan.planner = name();
    // The bottom MLP on GPU 0 for the global batch (one GPU: data parallel is the same), which
    // the budget counts as it counts a scenario's placement.bottom_mlp_gpu (another GPU there is
    // a conflict that place_bottom_mlp refuses).
    PlanningContext own = ctx;
    if (n > 1 && !ctx.model.bottom_mlp.empty()) {
      plan.bottom_mlp_gpu = 0;
      own.bottom_mlp_gpu = 0;
    }
    MemoryBudget budget(own, headroom_);
    std::vector<std::uint64_t> sizes;
    sizes.reserve(tables.size());
    for (const auto& t : tables) sizes.push_back(t.rows);
    const bool gpu0_free = n > kBottomOnlyAbove;
    const int first_gpu = gpu0_free ? 1 : 0;
    const auto buckets = distribute_to_buckets(sizes, n - first_gpu);
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const int g = first_gpu + static_cast<int>(b);
      for (std::size_t t : buckets[b]) {
        Shard sh = whole_table_shard(t, tables[t].rows, tables[t].dim);
        sh.gpu = g;
        budget.add_or_fail(g, budget.shard_bytes(sh, n), [&] {
          return fmt::format("nvidia_dlrm: table '{}' (its bucket is GPU {})", tables[t].name, g);
        });
        plan.shards.push_back(sh);
      }
    }
    return plan;
  }

 private:
  double headroom_;
};

}  // namespace

OptionSchema nvidia_dlrm_planner_options() {
  return planner_schema({}, 0.0);
}

std::unique_ptr<Planner> make_nvidia_dlrm_planner(const PlannerOptions& options) {
  return std::make_unique<NvidiaDlrmPlanner>(options.number("headroom"));
}

}  // namespace shardsim
