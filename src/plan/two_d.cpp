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

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/plan/peer_sync_pricing.hpp"
#include "shardsim/plan/planners.hpp"
#include "shardsim/plan/sparse_groups.hpp"
#include "shardsim/plan/sync_window.hpp"

namespace shardsim {

namespace {

struct TwoDOptions {
  std::optional<YamlValue> groups;      // M, or
  std::optional<YamlValue> group_size;  // N
  std::string inner_name;
  std::unique_ptr<Planner> inner;
  bool inner_balances_sync = false;  // PlannerInfo::balances_peer_sync of the inner planner
  PeerSync sync;
  GroupLayout layout = GroupLayout::peers_in_host;
  bool sync_aware = true;
  std::optional<YamlValue> sync_where;  // sync_interval as given (or absent): for its errors
};

class TwoDPlanner final : public Planner {
 public:
  explicit TwoDPlanner(TwoDOptions o) : o_(std::move(o)) {}
  std::string name() const override { return "two_d"; }

  void check(const Cluster& cluster, const Workload& workload) const override {
    const SparseGroups layout = layout_of(cluster);
    const auto groups = static_cast<std::size_t>(layout.num_groups());
    check_sync_window(o_.sync, groups, workload, o_.sync_where->location(), o_.sync_where->path());
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
      const YamlValue& where = o_.groups ? *o_.groups : *o_.group_size;
      throw where.error(e.what(), hint(cluster.num_gpus(), cluster.gpus_per_node()));
    }
  }
  // One group as a cluster of its own, the inner planner's view.
  Cluster view_of(const SparseGroups& layout, const Cluster& cluster) const {
    try {
      return layout.view_cluster();
    } catch (const std::invalid_argument& e) {
      const YamlValue& where = o_.groups ? *o_.groups : *o_.group_size;
      throw where.error(e.what(), hint(cluster.num_gpus(), cluster.gpus_per_node()));
    }
  }

  int num_groups(int gpus) const {
    if (o_.groups)
      return static_cast<int>(std::min<std::uint64_t>(o_.groups->as_positive_int(), 1u << 30));
    const std::uint64_t n = o_.group_size->as_positive_int();
    if (n > static_cast<std::uint64_t>(gpus) || gpus % static_cast<int>(n) != 0) {
      throw o_.group_size->error(
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

std::unique_ptr<Planner> make_two_d_planner(const YamlValue& options) {
  const PlannerOptions opts(options, {"groups", "group_size", "inner", "inner_options", "sync",
                                      "sync_interval", "layout", "sync_aware"});
  TwoDOptions o;
  o.groups = opts.find("groups");
  o.group_size = opts.find("group_size");
  const SourceLocation where =
      options.is_null() ? SourceLocation{options.file(), 0, 0} : options.location();
  if (o.groups && o.group_size) {
    throw o.group_size->error("give either `groups` or `group_size`, not both",
                              "groups: M splits the GPUs into M groups; group_size: N into groups "
                              "of N GPUs");
  }
  if (!o.groups && !o.group_size) {
    throw InputError(where, options.path(), "the two_d planner needs `groups` or `group_size`",
                     "e.g. options: {groups: 4, inner: table_wise}");
  }
  if (o.groups) o.groups->as_positive_int();  // validated now, checked against the cluster later
  if (o.group_size) o.group_size->as_positive_int();
  o.inner_name = "hybrid";
  SourceLocation inner_where = where;
  std::string inner_key = options.path() + ".inner";
  if (auto v = opts.find("inner")) {
    o.inner_name = v->as_string();
    inner_where = v->location();
  }
  if (o.inner_name == "two_d") {
    throw InputError(inner_where, inner_key, "two_d cannot be its own inner planner",
                     "name a model-parallel planner, e.g. table_wise, row_wise or hybrid");
  }
  const PlannerInfo& info = find_planner(o.inner_name, inner_where, inner_key);
  o.inner_balances_sync = info.balances_peer_sync;
  // `headroom` (every planner's option) goes to the inner planner, which does the packing.
  std::optional<YamlValue> inner_options = opts.find("inner_options");
  if (opts.has(kHeadroomOption)) {
    const double headroom = opts.headroom(0);
    if (inner_options && !inner_options->is_null()) {
      inner_options->expect_map();
      if (auto h = inner_options->find(kHeadroomOption)) {
        throw h->error("headroom is given twice, here and in the two_d options",
                       "give it once: either beside `groups` or in inner_options");
      }
    }
    const YamlValue base =
        inner_options ? *inner_options
                      : YamlValue::absent(options.file(), options.path() + ".inner_options");
    // emplace, not assignment: assigning a YamlValue assigns its node, and yaml-cpp's
    // assignment writes into the node it refers to (here the scenario's own inner_options), so
    // a second planner made from the same scenario would find headroom given twice.
    inner_options.emplace(
        base.with_entry(kHeadroomOption, headroom, options.path() + ".inner_options"));
  }
  o.inner = info.make(inner_options
                          ? *inner_options
                          : YamlValue::absent(options.file(), options.path() + ".inner_options"));
  o.sync.mode = opts.choice("sync", {"dense", "touched_rows"}, "dense") == "touched_rows"
                    ? PeerSyncMode::touched_rows
                    : PeerSyncMode::dense;
  const std::uint64_t interval = opts.positive_int("sync_interval", 1);
  if (auto v = opts.find("sync_interval")) {
    o.sync_where.emplace(*v);
  } else {
    o.sync_where.emplace(YamlValue::absent(options.file(), options.path() + ".sync_interval"));
  }
  if (interval > 1000000) {
    throw opts.find("sync_interval")->error("expected at most 1000000 iterations between syncs");
  }
  o.sync.interval = static_cast<int>(interval);
  o.layout = opts.choice("layout", {"peers_in_host", "contiguous"}, "peers_in_host") == "contiguous"
                 ? GroupLayout::contiguous
                 : GroupLayout::peers_in_host;
  if (auto v = opts.find("sync_aware")) o.sync_aware = v->as_bool();
  return std::make_unique<TwoDPlanner>(std::move(o));
}

}  // namespace shardsim
