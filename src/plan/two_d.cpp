// 2D sparse parallelism (2D paper §3.1, Fig. 3): the T GPUs are split into M groups of N = T/M
// (plan/sparse_groups.hpp); any model-parallel planner (`inner`) shards the tables over one
// group, seen as a cluster of its own with the group's GPUs and the same per-GPU batch, and the
// same placement is repeated in every group. Each group serves only its own members' lookups
// (AlltoAll inside the group, plan/serving.hpp), the global batch splits evenly across groups,
// and the replicas are synchronised across groups after the update (Plan::sync,
// plan/replica_sync.hpp; Algorithm 1). With M = 1 this is exactly the inner planner.
//
// Options (docs/planners.md, "two_d"): `groups` M or `group_size` N (one of them), `inner`
// (default hybrid), `inner_options`, `sync` (dense | touched_rows), `sync_interval` k, `layout`
// (peers_in_host | contiguous), `sync_aware` (default true: the inner planner is told what the
// replica sync will cost each GPU per byte it holds, plan/peer_sync_pricing.hpp, and planners
// that balance a time per GPU balance the sync too).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "plan/peer_sync_pricing.hpp"
#include "plan/planners.hpp"
#include "plan/sparse_groups.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/plan/sync_window.hpp"

namespace shardsim {

namespace {

struct TwoDOptions {
  PlannerOptions given;  // as given: where `groups`, `group_size` and `sync_interval` are
  std::optional<std::uint64_t> groups;      // M, or
  std::optional<std::uint64_t> group_size;  // N
  std::string inner_name;
  std::unique_ptr<Planner> inner;
  bool inner_balances_sync = false;  // PlannerInfo::balances_peer_sync of the inner planner
  PeerSync sync;
  GroupLayout layout = GroupLayout::peers_in_host;
  bool sync_aware = true;
};

class TwoDPlanner final : public Planner {
 public:
  explicit TwoDPlanner(TwoDOptions o) : o_(std::move(o)) {}
  std::string name() const override { return "two_d"; }

  void check(const Cluster& cluster, const Workload& workload) const override {
    const SparseGroups layout = layout_of(cluster);
    const auto groups = static_cast<std::size_t>(layout.num_groups());
    check_sync_window(o_.sync, groups, workload, o_.given.location_of("sync_interval"),
                      o_.given.path_of("sync_interval"));
    o_.inner->check(groups == 1 ? cluster : view_of(layout, cluster), workload);
  }

  Plan plan(const PlanningContext& ctx) const override {
    const SparseGroups layout = layout_of(ctx.cluster);
    const int m = layout.num_groups();
    if (m == 1) {  // one group of all GPUs: exactly full model parallelism
      Plan plan = o_.inner->plan(ctx);
      plan.planner = name();
      return plan;
    }
    const Cluster view = view_of(layout, ctx.cluster);
    const PeerSyncPricing pricing =
        price_peer_sync(ctx.cluster, layout, o_.sync, ctx.cost_params());
    PlanningContext group_ctx{view, ctx.model, ctx.workload, ctx.trace, ctx.cost};
    group_ctx.input_alltoall = ctx.input_alltoall;
    if (o_.sync_aware) group_ctx.peer_sync = &pricing;
    if (o_.sync_aware && !o_.inner_balances_sync && ctx.workload.mode == Mode::training) {
      std::string balancing;  // from the registry, so the hint never drifts from it
      for (const PlannerInfo& p : planner_registry()) {
        if (p.balances_peer_sync) balancing += (balancing.empty() ? "" : ", ") + p.name;
      }
      log_warn(
          "two_d: sync_aware has no effect with the inner planner '{}', which places shards by "
          "its own rule; one GPU may hold far more than its share of the synced bytes, and the "
          "replica sync take longer than Eq. 1 (planners that balance it: {}; "
          "docs/planners.md)",
          o_.inner_name, balancing);
    }
    Plan inner;
    try {
      inner = o_.inner->plan(group_ctx);
    } catch (const DoesNotFitError& e) {
      // The same placement goes to every group: name group 0's GPU.
      throw DoesNotFitError(
          layout.gpu(0, e.gpu()), e.needed_bytes(), e.available_bytes(),
          fmt::format("two_d: every one of the {} groups of {} GPUs holds all tables; in "
                      "group 0, {} (hint: fewer groups give each GPU a smaller share)",
                      m, layout.group_size(), e.what()));
    }
    if (!inner.groups.empty()) {
      throw std::logic_error(fmt::format("inner planner '{}' made groups", o_.inner_name));
    }
    return replicate(inner, layout);
  }

 private:
  // The groups on `cluster`; a count or size that does not split it is an InputError at the key.
  SparseGroups layout_of(const Cluster& cluster) const {
    try {
      return SparseGroups(cluster, num_groups(cluster.num_gpus()), o_.layout);
    } catch (const std::invalid_argument& e) {
      throw o_.given.error(count_key(), e.what(),
                           hint(cluster.num_gpus(), cluster.gpus_per_node()));
    }
  }
  // One group as a cluster of its own, the inner planner's view.
  Cluster view_of(const SparseGroups& layout, const Cluster& cluster) const {
    try {
      return layout.view_cluster();
    } catch (const std::invalid_argument& e) {
      throw o_.given.error(count_key(), e.what(),
                           hint(cluster.num_gpus(), cluster.gpus_per_node()));
    }
  }

  const char* count_key() const { return o_.groups ? "groups" : "group_size"; }

  int num_groups(int gpus) const {
    if (o_.groups) return static_cast<int>(std::min<std::uint64_t>(*o_.groups, 1u << 30));
    const std::uint64_t n = *o_.group_size;
    if (n > static_cast<std::uint64_t>(gpus) || gpus % static_cast<int>(n) != 0) {
      throw o_.given.error(
          "group_size",
          fmt::format("a group size of {} does not divide the cluster's {} GPUs", n, gpus),
          "use a divisor of the GPU count, or give `groups` instead");
    }
    return gpus / static_cast<int>(n);
  }

  static std::string hint(int gpus, int per_node) {
    std::string divisors;
    for (int d = 1; d <= gpus && divisors.size() < 60; ++d) {
      if (gpus % d == 0) divisors += (divisors.empty() ? "" : ", ") + std::to_string(d);
    }
    return fmt::format("the cluster has {} GPUs ({} per host); groups must divide it: {}...", gpus,
                       per_node, divisors);
  }

  // The inner plan in every group: group g's copy of view GPU v's shards goes to gpu(g, v);
  // replica r of a block becomes replica g·R + r (R: the inner plan's replicas of the block).
  Plan replicate(const Plan& inner, const SparseGroups& layout) const {
    Plan out;
    out.planner = name();
    out.groups = layout.groups();
    out.peer_sync = o_.sync;
    // Replicas per block in the inner plan (1 unless it replicates, e.g. data-parallel tables).
    using Block =
        std::tuple<std::size_t, std::uint64_t, std::uint64_t, int, std::uint32_t, std::uint32_t>;
    std::map<Block, int> replicas;
    std::vector<int> replicas_of_shard;
    replicas_of_shard.reserve(inner.shards.size());
    auto block = [](const Shard& s) {
      return Block{s.table,      s.rows.begin, s.rows.end, static_cast<int>(s.row_space),
                   s.cols.begin, s.cols.end};
    };
    for (const Shard& s : inner.shards) {
      int& r = replicas[block(s)];
      r = std::max(r, s.replica + 1);
    }
    for (const Shard& s : inner.shards) replicas_of_shard.push_back(replicas[block(s)]);
    const std::size_t per_group = inner.shards.size();
    out.shards.reserve(per_group * static_cast<std::size_t>(layout.num_groups()));
    for (int g = 0; g < layout.num_groups(); ++g) {
      for (std::size_t i = 0; i < per_group; ++i) {
        Shard copy = inner.shards[i];
        copy.gpu = layout.gpu(g, copy.gpu);
        copy.replica = g * replicas_of_shard[i] + copy.replica;
        out.shards.push_back(copy);
      }
      for (const FetchOverride& f : inner.fetch_overrides) {
        out.fetch_overrides.push_back(FetchOverride{
            static_cast<std::size_t>(g) * per_group + f.shard, layout.gpu(g, f.requesting_gpu)});
      }
    }
    return out;
  }

  TwoDOptions o_;
};

}  // namespace

OptionSchema two_d_planner_options() {
  const auto positive = [](const char* name, std::optional<std::uint64_t> d, const char* doc) {
    return OptionSpec::integer(name, OptionKind::positive_int, d, doc);
  };
  return planner_schema(
      {positive("groups", std::nullopt, "M groups (or group_size)"),
       positive("group_size", std::nullopt, "N GPUs a group (or groups)"),
       OptionSpec::planner("inner", "hybrid", "the planner of one group (not two_d)"),
       OptionSpec::planner_options("inner_options", "inner", "the inner planner's options"),
       OptionSpec::choice("sync", {"dense", "touched_rows"}, "dense",
                          "sync every row, or the rows touched since the last sync"),
       positive("sync_interval", 1, "sync every k iterations, k <= 1e6"),
       OptionSpec::choice("layout", {"peers_in_host", "contiguous"}, "peers_in_host",
                          "a GPU's peers on its host, or whole hosts per group"),
       OptionSpec::boolean("sync_aware", true,
                           "tell the inner planner what each synced byte costs")},
      std::nullopt);  // headroom: the inner planner's
}

namespace {

// The inner planner's options: `inner_options`, with two_d's `headroom` (the inner planner does
// the packing).
PlannerOptions inner_options_of(const PlannerOptions& options, const PlannerInfo& inner) {
  PlannerOptions out = options.has("inner_options")
                           ? options.nested("inner_options")
                           : PlannerOptions(inner.options, {}, options.location_of("inner_options"),
                                            options.path_of("inner_options"));
  if (out.schema() != &inner.options) {
    throw std::invalid_argument("two_d: inner_options of another planner than `inner`");
  }
  if (options.has(kHeadroomOption)) {
    if (out.has(kHeadroomOption)) {
      throw out.error(kHeadroomOption, "headroom is given twice, here and in the two_d options",
                      "give it once: either beside `groups` or in inner_options");
    }
    out.set(kHeadroomOption, options.number(kHeadroomOption));
  }
  return out;
}

}  // namespace

std::unique_ptr<Planner> make_two_d_planner(const PlannerOptions& options) {
  TwoDOptions o;
  o.given = options;
  if (options.has("groups")) o.groups = options.integer("groups");
  if (options.has("group_size")) o.group_size = options.integer("group_size");
  if (o.groups && o.group_size) {
    throw options.error("group_size", "give either `groups` or `group_size`, not both",
                        "groups: M splits the GPUs into M groups; group_size: N into groups "
                        "of N GPUs");
  }
  if (!o.groups && !o.group_size) {
    throw InputError(options.location(), options.path(),
                     "the two_d planner needs `groups` or `group_size`",
                     "e.g. options: {groups: 4, inner: table_wise}");
  }
  o.inner_name = options.text("inner");
  if (o.inner_name == "two_d") {
    throw options.error("inner", "two_d cannot be its own inner planner",
                        "name a model-parallel planner, e.g. table_wise, row_wise or hybrid");
  }
  const PlannerInfo& info =
      find_planner(o.inner_name, options.location_of("inner"), options.path_of("inner"));
  o.inner_balances_sync = info.balances_peer_sync;
  o.inner = info.make(inner_options_of(options, info));
  o.sync.mode =
      options.text("sync") == "touched_rows" ? PeerSyncMode::touched_rows : PeerSyncMode::dense;
  const std::uint64_t interval = options.integer("sync_interval");
  if (interval > 1000000) {
    throw options.error("sync_interval", "expected at most 1000000 iterations between syncs");
  }
  o.sync.interval = static_cast<int>(interval);
  o.layout =
      options.text("layout") == "contiguous" ? GroupLayout::contiguous : GroupLayout::peers_in_host;
  o.sync_aware = options.boolean("sync_aware");
  return std::make_unique<TwoDPlanner>(std::move(o));
}

}  // namespace shardsim
