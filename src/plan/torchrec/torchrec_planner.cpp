// `torchrec`: TorchRec's EmbeddingShardingPlanner with its default proposers and partitioner
// (planners.py, proposers.py at pytorch/torchrec@a48cef79; docs/planners.md, "torchrec").
//
//   options  = enumerate_options per table (estimators.hpp)
//   for proposer in [GridSearch, Greedy(max shard perf), Greedy(sum of shard perfs), Uniform]:
//     for each proposal (one option a table) not seen before:
//       partition it (GreedyPerfPartitioner); keep the lowest rating (the largest per-rank
//       perf sum), the first on ties
//   (`host_tables: auto`, the preset having a host: first with the fused kernel only; if nothing
//   fits, again with the UVM kernels too, TorchRec's default search space)
//
// Every estimate is TorchRec's own (bytes ÷ its default bandwidths, no skew, pooling factors
// as a user would give them); the simulator then judges the plan like any other.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <tuple>

#include "plan/peer_sync_pricing.hpp"
#include "plan/planners.hpp"
#include "plan/torchrec/torchrec_planner.hpp"
#include "plan/torchrec/torchrec_stats.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/plan/memory.hpp"

namespace shardsim {

namespace torchrec {

namespace {

// Each table's options sorted by score (stable, ascending): max shard perf with depth, the sum
// without (proposers.py, _sharding_option_score).
std::vector<std::vector<const ShardingOption*>> sorted_by_score(
    const std::vector<std::vector<ShardingOption>>& options, bool use_depth) {
  std::vector<std::vector<const ShardingOption*>> out(options.size());
  for (std::size_t t = 0; t < options.size(); ++t) {
    for (const ShardingOption& o : options[t]) out[t].push_back(&o);
    std::stable_sort(out[t].begin(), out[t].end(), [&](const auto* a, const auto* b) {
      return use_depth ? a->max_shard_perf_s < b->max_shard_perf_s
                       : a->total_perf_s < b->total_perf_s;
    });
  }
  return out;
}

// GreedyProposer.feedback's key: (max shard HBM, summed HBM, max shard DDR, summed DDR).
std::tuple<double, double, double, double> storage_key(const ShardingOption& o) {
  return {o.max_shard_hbm_bytes, o.total_hbm_bytes, o.max_shard_ddr_bytes, o.total_ddr_bytes};
}

// The proposals of the default proposers, in TorchRec's order (planners.py); each proposal is
// one option per table.
class Proposals {
 public:
  explicit Proposals(const std::vector<std::vector<ShardingOption>>& options) : options_(options) {}

  // GridSearchProposer(max_proposals=10000): every combination, lexicographic with the last
  // table fastest, only when there are at most 10,000 of them.
  template <typename F>
  void grid(F&& visit) const {
    const auto by_score = sorted_by_score(options_, true);
    double combos = 1;
    for (const auto& o : by_score) combos *= static_cast<double>(o.size());
    if (combos > 10000) return;
    std::vector<std::size_t> idx(by_score.size(), 0);
    while (true) {
      visit(pick(by_score, idx));
      std::size_t t = idx.size();
      while (t > 0) {
        --t;
        if (++idx[t] < by_score[t].size()) break;
        idx[t] = 0;
        if (t == 0) return;
      }
      if (idx.empty()) return;
    }
  }

  // GreedyProposer(use_depth): start with every table's best option; after each proposal,
  // advance the table whose current option has the largest storage key (strictly larger than
  // the running maximum from zero: the first table wins ties), until none can advance.
  template <typename F>
  void greedy(bool use_depth, F&& visit) const {
    const auto by_score = sorted_by_score(options_, use_depth);
    std::vector<std::size_t> idx(by_score.size(), 0);
    while (true) {
      visit(pick(by_score, idx));
      std::tuple<double, double, double, double> best{0, 0, 0, 0};
      std::size_t chosen = idx.size();
      for (std::size_t t = 0; t < idx.size(); ++t) {
        if (idx[t] + 1 >= by_score[t].size()) continue;
        const auto key = storage_key(*by_score[t][idx[t]]);
        if (key > best) {
          best = key;
          chosen = t;
        }
      }
      if (chosen == idx.size()) return;
      ++idx[chosen];
    }
  }

  // UniformProposer: for each sharding type every table offers, in first-seen order, every
  // table's best option of that type.
  template <typename F>
  void uniform(F&& visit) const {
    for (ShardingType type : kAllShardingTypes) {
      std::vector<const ShardingOption*> proposal;
      for (const auto& table_options : options_) {
        const ShardingOption* best = nullptr;
        for (const ShardingOption& o : table_options) {
          if (o.type != type) continue;
          if (!best || o.max_shard_perf_s < best->max_shard_perf_s) best = &o;
        }
        if (!best) break;
        proposal.push_back(best);
      }
      if (proposal.size() == options_.size() && !proposal.empty()) visit(proposal);
    }
  }

 private:
  static std::vector<const ShardingOption*> pick(
      const std::vector<std::vector<const ShardingOption*>>& by_score,
      const std::vector<std::size_t>& idx) {
    std::vector<const ShardingOption*> p(idx.size());
    for (std::size_t t = 0; t < idx.size(); ++t) p[t] = by_score[t][idx[t]];
    return p;
  }

  const std::vector<std::vector<ShardingOption>>& options_;
};

ShardKind kind_of(const ShardingOption& o, const EmbeddingTable& t, const ShardEstimate& s) {
  if (o.type == ShardingType::data_parallel) return ShardKind::data_parallel;
  if (s.rows.size() != t.rows) return ShardKind::row_wise;
  if (s.cols.size() != t.dim) return ShardKind::column_wise;
  return ShardKind::table_wise;
}

// The shard's storage in the plan: the kernel's FBGEMM embedding location (docs/model.md,
// "Memory tiers"); the cache of fused_uvm_caching holds cache_load_factor of the shard's rows,
// with FBGEMM's default policy (CacheAlgorithm.LRU: TorchRec's CacheParams.algorithm unset).
ShardStorage storage_of(ComputeKernel k, const Params& p) {
  ShardStorage s;
  if (k == ComputeKernel::fused_uvm) s.kind = StorageKind::uvm;
  if (k == ComputeKernel::fused_uvm_caching) {
    s.kind = StorageKind::uvm_caching;
    s.cache_fraction = p.cache_load_factor;
    s.policy = CachePolicy::lru;
  }
  return s;
}

// One run of TorchRec's planner (planners.py, EmbeddingShardingPlanner.plan) over the options
// that `kernels` give every table: each proposal of the default proposers not seen before is
// partitioned and rated; the lowest rating wins (the first on ties). Sets `r`'s options,
// proposals, plans, chosen, partition and rating_s; `smallest` gets the smallest storage of a
// proposal that did not fit, (HBM, DDR) compared as TorchRec's Storage (lowest_storage).
void run_proposers(const PlanningContext& ctx, const TorchrecOptions& o, const Params& p,
                   std::span<const ComputeKernel> kernels, TorchrecResult& r,
                   std::pair<double, double>& smallest) {
  const auto& tables = ctx.model.tables;
  std::vector<std::vector<ShardingOption>>& options = r.options;
  options.assign(tables.size(), {});
  for (std::size_t t = 0; t < tables.size(); ++t) {
    options[t] = enumerate_options(t, ctx.model, p, o.sharding_types, kernels);
    if (ctx.peer_sync != nullptr) {  // inside two_d, sync_aware: not TorchRec's own
      for (ShardingOption& opt : options[t]) {
        add_replica_sync(opt, [&](const ShardEstimate& sh) {
          return peer_sync_time_s(ctx, t, sh.rows, RowSpace::row_id, sh.cols.size());
        });
      }
    }
  }
  r.proposals = 0;
  r.plans = 0;
  r.chosen.clear();
  r.partition = Partition{};
  double best_rating = std::numeric_limits<double>::infinity();
  smallest = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  // The planner's cache: a proposal seen before is not evaluated or counted again. Its key is
  // each table's option index, a byte a table (at most 16 options), not T pointers.
  std::set<std::string> seen;
  const auto visit = [&](const std::vector<const ShardingOption*>& proposal) {
    std::string key(proposal.size(), '\0');
    for (std::size_t t = 0; t < proposal.size(); ++t) {
      key[t] = static_cast<char>(proposal[t] - options[t].data());
    }
    if (!seen.insert(std::move(key)).second) return;
    ++r.proposals;
    std::optional<Partition> part = greedy_perf_partition(
        proposal, p, r.capacity_bytes, r.ddr_capacity_bytes, r.held_bytes_by_rank);
    if (!part) {
      std::pair<double, double> bytes{0, 0};
      for (const ShardingOption* so : proposal) {
        bytes.first += so->total_hbm_bytes;
        bytes.second += so->total_ddr_bytes;
      }
      smallest = std::min(smallest, bytes);
      return;
    }
    ++r.plans;
    const double rating = rating_s(proposal, *part, p.world_size);
    if (rating < best_rating) {
      best_rating = rating;
      r.chosen = proposal;
      r.partition = std::move(*part);
    }
  };
  Proposals proposals(options);
  // Seconds each at hundreds of GPUs (docs/planners.md, "torchrec").
  Progress progress("torchrec: proposers (grid, greedy, greedy by sum, uniform)", 4);
  proposals.grid(visit);
  progress.advance();
  proposals.greedy(true, visit);
  progress.advance();
  proposals.greedy(false, visit);
  progress.advance();
  proposals.uniform(visit);
  progress.finish();
  r.rating_s = best_rating;
  log_debug("torchrec: evaluated {} proposal(s), found {} possible plan(s)", r.proposals, r.plans);
}

}  // namespace

TorchrecResult torchrec_plan_detailed(const PlanningContext& ctx, const TorchrecOptions& o) {
  const auto& tables = ctx.model.tables;
  Params p = o.params;
  p.world_size = ctx.cluster.num_gpus();
  p.local_world_size = ctx.cluster.gpus_per_node();
  p.batch_size = o.batch_size.value_or(static_cast<double>(ctx.workload.batch_per_gpu));
  p.training = ctx.workload.mode == Mode::training;
  // The host (docs/planners.md, "torchrec"): Topology(ddr_cap=...) is per rank, so each rank
  // gets its node's host memory over its GPUs; hbm_to_ddr_mem_bw is the GPU's host link.
  const HostSpec& host = ctx.cluster.preset().host;
  if (o.hbm_to_ddr_Bps) {
    p.hbm_to_ddr_Bps = *o.hbm_to_ddr_Bps;
  } else if (host.present() && host.link.bandwidth_Bps > 0) {
    p.hbm_to_ddr_Bps = host.link.bandwidth_Bps;
  }
  const double capacity =
      shard_capacity_bytes(ctx.cluster.gpu().hbm_capacity_bytes, o.reserved_fraction, ctx.model, p);
  if (!(capacity > 0)) {
    throw DoesNotFitError(
        0, ctx.cluster.gpu().hbm_capacity_bytes - capacity, ctx.cluster.gpu().hbm_capacity_bytes,
        fmt::format("torchrec: its storage reservation ({:.0f}% of HBM, 6 x the dense "
                    "parameters' bytes and 20 copies of the input indices) leaves no HBM for "
                    "embedding shards; lower placement.options.headroom or the batch",
                    o.reserved_fraction * 100));
  }

  TorchrecResult best;
  best.capacity_bytes = capacity;
  best.ddr_capacity_bytes =
      host.present() ? host.memory_bytes_per_node / ctx.cluster.gpus_per_node() : 0.0;
  // The scenario's bottom MLP on one GPU: its global batch there, on top of the reservation
  // (which keeps the dense part for every rank, so the others get nothing back).
  if (ctx.bottom_mlp_gpu >= 0) {
    best.held_bytes_by_rank =
        bottom_mlp_memory_delta_bytes(ctx.bottom_mlp_gpu, p.world_size, ctx.model, ctx.workload);
    for (double& b : best.held_bytes_by_rank) b = std::max(b, 0.0);
  }
  const bool may_use_host = host.present() && o.host_tables != HostTables::never;
  best.uvm_kernels = may_use_host && o.host_tables == HostTables::always;
  std::pair<double, double> smallest;
  run_proposers(ctx, o, p,
                best.uvm_kernels ? std::span<const ComputeKernel>(kAllKernels)
                                 : std::span<const ComputeKernel>(kHbmKernels),
                best, smallest);
  if (best.chosen.empty() && may_use_host && !best.uvm_kernels) {
    log_info(
        "torchrec: no proposal fits in HBM with the fused kernel ({} evaluated); planning again "
        "with TorchRec's UVM kernels (fused_uvm, fused_uvm_caching with cache_load_factor {:g})",
        best.proposals, p.cache_load_factor);
    best.uvm_kernels = true;
    run_proposers(ctx, o, p, kAllKernels, best, smallest);
  }
  if (best.chosen.empty()) {
    const double total = capacity * p.world_size;
    const double total_ddr = best.ddr_capacity_bytes * p.world_size;
    const bool over = smallest.first > total || (best.uvm_kernels && smallest.second > total_ddr);
    const std::string need =
        best.uvm_kernels
            ? fmt::format(
                  "{:.3f} GB of HBM and {:.3f} GB of host memory against {:.3f} GB and "
                  "{:.3f} GB",
                  smallest.first / 1e9, smallest.second / 1e9, total / 1e9, total_ddr / 1e9)
            : fmt::format("{:.3f} GB of shard storage against {:.3f} GB", smallest.first / 1e9,
                          total / 1e9);
    throw DoesNotFitError(
        0, smallest.first / p.world_size, capacity,
        fmt::format("torchrec: no proposal fits ({} evaluated); the smallest needs {} on {} GPUs "
                    "after the reservation; {}",
                    best.proposals, need, p.world_size,
                    over ? "try more GPUs (cluster.nodes)"
                         : "the partitioner could not pack it; allow row_wise in "
                           "placement.options.sharding_types or add GPUs"));
  }
  best.params = p;
  best.hbm_capacity_bytes = ctx.cluster.gpu().hbm_capacity_bytes;
  best.reserved_fraction = o.reserved_fraction;
  best.reserved = reservation(ctx.model, p);

  Plan& plan = best.plan;
  plan.planner = "torchrec";
  for (std::size_t t = 0; t < best.chosen.size(); ++t) {
    const ShardingOption& so = *best.chosen[t];
    int replica = 0;
    for (std::size_t s = 0; s < so.shards.size(); ++s) {
      const ShardEstimate& est = so.shards[s];
      if (est.rows.size() == 0) continue;  // a row-wise rank left without rows
      Shard sh;
      sh.table = so.table;
      sh.rows = est.rows;
      sh.cols = est.cols;
      sh.gpu = best.partition.rank(t, s);
      sh.replica = so.type == ShardingType::data_parallel ? replica++ : 0;
      sh.kind = kind_of(so, tables[so.table], est);
      sh.storage = storage_of(so.kernel, p);
      plan.shards.push_back(sh);
    }
  }
  return best;
}

namespace {

class TorchrecPlanner final : public Planner {
 public:
  explicit TorchrecPlanner(TorchrecOptions o) : o_(std::move(o)) {}
  std::string name() const override { return "torchrec"; }
  Plan plan(const PlanningContext& ctx) const override {
    TorchrecResult r = torchrec_plan_detailed(ctx, o_);
    r.plan.planner_stats = stats_lines(r);
    return std::move(r.plan);
  }

 private:
  TorchrecOptions o_;
};

}  // namespace

}  // namespace torchrec

OptionSchema torchrec_planner_options() {
  constexpr double kGiB = 1073741824.0;
  const torchrec::Params d;
  std::vector<std::string> types;
  for (torchrec::ShardingType t : torchrec::kAllShardingTypes)
    types.push_back(torchrec::to_string(t));
  const auto bandwidth = [&](const char* name, std::optional<double> default_GiBps,
                             const char* doc) {
    return OptionSpec::number(name, 1e-3, 1e6, default_GiBps, doc);
  };
  return planner_schema(
      {OptionSpec::choice_list("sharding_types", types, "the sharding types enumerated"),
       OptionSpec::integer("batch_size", OptionKind::positive_int, std::nullopt,
                           "TorchRec's batch (default: the scenario's batch_per_gpu)"),
       bandwidth("hbm_GiBps", d.hbm_Bps / kGiB, "HBM_MEM_BW of its estimates"),
       bandwidth("intra_host_GiBps", d.intra_host_Bps / kGiB, "INTRA_NODE_BANDWIDTH"),
       bandwidth("inter_host_GiBps", d.inter_host_Bps / kGiB, "CROSS_NODE_BANDWIDTH"),
       bandwidth("hbm_to_ddr_GiBps", std::nullopt,
                 "Topology.hbm_to_ddr_mem_bw (default: the preset's host link, else 32)"),
       OptionSpec::choice("host_tables", {"auto", "always", "never"}, "auto",
                          "when its UVM kernels are proposed"),
       OptionSpec::number("cache_load_factor", 0.001, 0.999, d.cache_load_factor,
                          "the UVM-caching kernel's cached fraction of rows"),
       OptionSpec::choice("torchrec_version", {"v0_3_2", "current"}, "current",
                          "the TorchRec followed")},
      0.15);  // HeuristicalStorageReservation's percentage (storage_reservations.py)
}

std::unique_ptr<Planner> make_torchrec_planner(const PlannerOptions& options) {
  torchrec::TorchrecOptions o;
  // Which TorchRec to follow (docs/planners.md, "torchrec"): the 2025 commit, or v0.3.2.
  o.params.version = options.text("torchrec_version") == "v0_3_2" ? torchrec::Version::v0_3_2
                                                                  : torchrec::Version::current;
  o.reserved_fraction = options.number("headroom");
  if (options.has("batch_size")) o.batch_size = static_cast<double>(options.integer("batch_size"));
  constexpr double kGiB = 1073741824.0;
  o.params.hbm_Bps = options.number("hbm_GiBps") * kGiB;
  o.params.intra_host_Bps = options.number("intra_host_GiBps") * kGiB;
  o.params.inter_host_Bps = options.number("inter_host_GiBps") * kGiB;
  if (options.has("hbm_to_ddr_GiBps") && o.params.version == torchrec::Version::v0_3_2) {
    throw options.error("hbm_to_ddr_GiBps",
                        "TorchRec v0.3.2 has no HBM-to-DDR bandwidth (torchrec_version: v0_3_2)",
                        "its UVM kernels read host memory at DDR_MEM_BW (51 GiB/s); drop "
                        "hbm_to_ddr_GiBps or use torchrec_version: current");
  }
  if (options.has("hbm_to_ddr_GiBps")) {
    o.hbm_to_ddr_Bps = options.number("hbm_to_ddr_GiBps") * kGiB;
  }
  const std::string& host_tables = options.text("host_tables");
  o.host_tables = host_tables == "always"  ? torchrec::HostTables::always
                  : host_tables == "never" ? torchrec::HostTables::never
                                           : torchrec::HostTables::automatic;
  // The sharder's fused_params["cache_load_factor"] (UVM_CACHING_RATIO when unset); strictly
  // inside (0, 1), as a shard's cache_fraction (1 would be an HBM table, 0 a uvm one).
  o.params.cache_load_factor = options.number("cache_load_factor");
  o.sharding_types.clear();  // in the order given, each once
  for (const std::string& name : options.list("sharding_types")) {
    for (torchrec::ShardingType t : torchrec::kAllShardingTypes) {
      if (torchrec::to_string(t) == name &&
          std::find(o.sharding_types.begin(), o.sharding_types.end(), t) ==
              o.sharding_types.end()) {
        o.sharding_types.push_back(t);
      }
    }
  }
  return std::make_unique<torchrec::TorchrecPlanner>(std::move(o));
}

}  // namespace shardsim
