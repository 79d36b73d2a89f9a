#pragma once
// Memory-aware packing, shared by every planner: what each GPU already holds, whether a shard
// still fits, the least-loaded GPU that can take it, and the DoesNotFitError when none can.
//
// A shard's bytes are counted with the same formulas as plan_memory (plan/memory.hpp): weights,
// optimizer state and the activations of the samples it serves; every GPU starts from
// base_gpu_memory (MLP state and activations, the preset's reserved memory). On top of that a
// planner may keep `headroom` (a fraction of HBM) free, so a plan that fits here also passes
// check_fits.
#include <functional>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {

class MemoryBudget {
 public:
  // headroom_fraction in [0, 1): the part of each GPU's HBM the planner leaves unused.
  MemoryBudget(const PlanningContext& ctx, double headroom_fraction);

  int num_gpus() const { return static_cast<int>(used_.size()); }
  double capacity_bytes() const { return capacity_bytes_; }  // HBM x (1 - headroom)
  double hbm_bytes() const { return hbm_bytes_; }
  double headroom_fraction() const { return headroom_; }
  // What every GPU holds before any shard (base_gpu_memory), but for the bottom MLP's move to
  // one GPU (PlanningContext::bottom_mlp_gpu), which start_bytes adds.
  double base_bytes() const { return base_bytes_; }
  // What `gpu` holds before any shard: base_bytes, and where the scenario runs the bottom MLP
  // on one GPU, its global batch there and no bottom MLP on the others.
  double start_bytes(int gpu) const { return start_[static_cast<std::size_t>(gpu)]; }
  // The room an empty `gpu` has for shards (capacity_bytes - start_bytes); the most any GPU
  // has (what a shard on one GPU can have at most) and the least (what a replica on every GPU
  // can have at most).
  double room_bytes(int gpu) const { return capacity_bytes_ - start_bytes(gpu); }
  double largest_room_bytes() const;
  double smallest_room_bytes() const;
  double used_bytes(int gpu) const { return used_[static_cast<std::size_t>(gpu)]; }
  double free_bytes(int gpu) const { return capacity_bytes_ - used_bytes(gpu); }
  bool fits(int gpu, double bytes) const { return used_bytes(gpu) + bytes <= capacity_bytes_; }
  void add(int gpu, double bytes) { used_[static_cast<std::size_t>(gpu)] += bytes; }

  // Bytes of `shard` serving the batches of `served_gpus` GPUs (plan_memory's per-shard
  // formulas): what it stores in HBM (shard_hbm_stored_bytes: its
  // weights and optimizer state, its cache, or nothing, by its storage) and its activations.
  double shard_bytes(const Shard& shard, double served_gpus) const;
  // What placing `shard` on `gpu` adds there: as shard_bytes, except that the activations are
  // shared with a shard of the same table and columns already placed there with place() (they
  // pool into one output buffer, as plan_memory counts them).
  double bytes_on(int gpu, const Shard& shard, double served_gpus) const;
  bool fits_on(int gpu, const Shard& shard, double served_gpus) const {
    return fits(gpu, bytes_on(gpu, shard, served_gpus));
  }
  // Adds bytes_on(gpu, ...) to `gpu` and records the shard's activation buffer. Planners that
  // never put two shards of one table and column range on one GPU may use add() instead.
  void place(int gpu, const Shard& shard, double served_gpus);

  // Throws DoesNotFitError for `what` needing `bytes` on one of `candidates` (all GPUs when
  // empty), naming the candidate with the most free memory, its need and its capacity.
  [[noreturn]] void fail(const std::string& what, double bytes,
                         std::span<const int> candidates = {}) const;
  // Adds `bytes` to `gpu`, or fails (fail() with `gpu` the one candidate) when they do not fit
  // there; `what()` names what was placed, built only on failure.
  template <typename What>
  void add_or_fail(int gpu, double bytes, What&& what) {
    if (!fits(gpu, bytes)) fail(what(), bytes, std::span<const int>(&gpu, 1));
    add(gpu, bytes);
  }

 private:
  const PlanningContext& ctx_;
  double hbm_bytes_ = 0;
  double headroom_ = 0;
  double capacity_bytes_ = 0;
  double base_bytes_ = 0;
  std::vector<double> start_;  // start_bytes, by GPU
  std::vector<double> used_;
  // Activation buffers placed with place(): (gpu, table, first col, end col) -> served GPUs.
  std::map<std::tuple<int, std::size_t, std::uint32_t, std::uint32_t>, double> buffers_;
};

// Per-GPU load (whatever a planner balances: a cost function, seconds, bytes) with the GPUs
// ordered by (load, id) in a tournament tree: the least-loaded GPU is the root's winner, a load
// change replays its leaf's path in O(log N) without allocating (millions of changes in `oper`
// at 16,384 GPUs), and the least-loaded GPU that still fits is the root's when it has room
// (otherwise the GPUs are walked in order, best first down the tree: O(k log N) for the k GPUs
// without room ahead of it; O(N log N) in the worst case, when most GPUs are full).
class LoadTracker {
 public:
  explicit LoadTracker(int num_gpus);
  double load(int gpu) const { return load_[static_cast<std::size_t>(gpu)]; }
  const std::vector<double>& loads() const { return load_; }
  void add(int gpu, double cost);
  // Two loads of which the second runs beside the first (an input AlltoAll beside the GPU's
  // embedding work): the GPU's load becomes max(Σ cost, Σ beside). Undo with negated values.
  void add(int gpu, double cost, double beside);
  // The least-loaded GPU (ties to the lowest id) with room for `bytes`, or -1.
  int least_loaded_fitting(const MemoryBudget& budget, double bytes) const;
  // The same among `gpus` only (a linear scan).
  int least_loaded_fitting(const MemoryBudget& budget, double bytes,
                           std::span<const int> gpus) const;
  // With the bytes each GPU would take for `shard` (MemoryBudget::bytes_on), among `gpus` or
  // all GPUs when empty.
  int least_loaded_fitting(const MemoryBudget& budget, const Shard& shard, double served_gpus,
                           std::span<const int> gpus = {}) const;

 private:
  // GPU a before GPU b: the lower load, ties to the lower id (-1, no GPU, is after every GPU).
  bool before(int a, int b) const {
    if (a < 0) return false;
    if (b < 0) return true;
    const double la = load_[static_cast<std::size_t>(a)], lb = load_[static_cast<std::size_t>(b)];
    return la < lb || (la == lb && a < b);
  }
  void settle(std::size_t node);  // its winner, from its two children's
  void replay(int gpu);           // the winners on the path from gpu's leaf to the root
  // The first GPU in (load, id) order for which fits(gpu) holds, or -1.
  template <typename Fits>
  int least_fitting(Fits&& fits) const;

  std::vector<double> load_;
  std::vector<double> own_, beside_;  // the two sums, once add(gpu, cost, beside) was used
  std::size_t leaves_ = 1;            // a power of two, at least the GPU count
  // winner_[leaves_ + g] = g (-1 past the last GPU); winner_[i] = the earlier in (load, id)
  // order of winner_[2i] and winner_[2i + 1]; winner_[1] the least-loaded GPU.
  std::vector<int> winner_;
};

// One shard waiting to be placed: everything but its GPU, its load and how many GPUs' batches
// it serves (for its activation memory; the number of GPUs for a shard with one replica).
struct PackItem {
  Shard shard;
  double cost = 0;
  double served_gpus = 1;
  std::string what;  // for the error message, e.g. "table 'ads' columns [0, 32)"
};

// Places `items` in the given order, each on the least-loaded GPU that fits (among `gpus`, or all
// when empty), appending the shards to `plan`. Throws DoesNotFitError when one fits nowhere.
void pack_least_loaded(std::span<const PackItem> items, MemoryBudget& budget, LoadTracker& loads,
                       Plan& plan, std::span<const int> gpus = {});

// Places `items` balancing two loads at once, for a planner that has no common unit for them
// (a heuristic lookup cost and the seconds of 2D's replica sync, plan/peer_sync_pricing.hpp):
// `second[i]` is item i's second load. Each load is taken as a share of its own total, and a
// GPU's load is the larger of its two shares (the dominant share). Items go largest dominant
// share first (ties as sort_largest_first), each to the GPU with room where its dominant share
// after placing is smallest (ties: the higher dominant share before it, so that an item fills
// the slack of a GPU's other load, then the lower id). With one load (second all zero) this is
// pack_least_loaded after sort_largest_first. A greedy, not an optimum. O(items · N).
void pack_two_shares(std::vector<PackItem> items, std::span<const double> second,
                     MemoryBudget& budget, Plan& plan);

// How table_wise and column_wise pack their items inside a sync-aware two_d: `sync_s[i]` is
// item i's replica-sync seconds (plan/peer_sync_pricing.hpp; all zero elsewhere). A cost in
// seconds takes the sync added to it; a heuristic cost keeps it beside as a second share
// (pack_two_shares). Without a sync, sort_largest_first and pack_least_loaded.
void pack_with_replica_sync(std::vector<PackItem> items, std::span<const double> sync_s,
                            bool cost_in_seconds, MemoryBudget& budget, Plan& plan);

// Sorts items by cost, largest first; ties by bytes (largest first), then by table and rows, so
// the order never depends on the sort's stability.
void sort_largest_first(std::vector<PackItem>& items, const MemoryBudget& budget);

// A shard with its GPU already chosen, and its load.
struct PlacedShard {
  Shard shard;
  double cost = 0;
};
// Splits table `table` over the GPUs of one node, given least-loaded first.
using NodeSplit =
    std::function<std::vector<PlacedShard>(std::size_t table, const std::vector<int>& node_gpus)>;

// Neo §4.1's hierarchical schemes: each table of `order` goes to the least-loaded node (sum of
// its GPUs' loads; ties to the lower id) on whose GPUs all the shards of `split` fit; the shards
// make the plan of `planner`, within the memory budget of `headroom`. Throws DoesNotFitError
// naming the table when no node can take it. O(nodes · GPUs per node) per table in the worst
// case, plus a sort of the nodes per table.
//
// Inside a sync-aware two_d (PlanningContext::peer_sync, training), the replica sync of a
// table's shards (plan/peer_sync_pricing.hpp) is balanced too, as pack_with_replica_sync does
// for single GPUs: added to the load when `cost_in_seconds`, else kept as a second load and the
// node chosen where the larger of its two shares (of all tables' cost, of all tables' sync)
// after taking the table is smallest.
Plan plan_tables_on_nodes(const PlanningContext& ctx, std::span<const std::size_t> order,
                          const NodeSplit& split, const std::string& planner, double headroom,
                          bool cost_in_seconds = false);

// The GPUs of `node`, in id order.
std::vector<int> gpus_of_node(const Cluster& cluster, int node);

}  // namespace shardsim
