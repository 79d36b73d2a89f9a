// Host-link traffic of shards in host memory (plan/host_tier.hpp; docs/model.md "Memory tiers").
#include "shardsim/plan/host_tier.hpp"

#include <algorithm>
#include <cmath>

#include "shardsim/cost/host_link_cost.hpp"
#include "shardsim/trace/cache_hit_rate.hpp"

namespace shardsim {

namespace {

HostTierShard shard_traffic(const Shard& sh, double served_gpus, const DlrmModel& model,
                            const Workload& workload, const AccessProfile& profile,
                            const CostParams& cost) {
  HostTierShard h;
  const EmbeddingTable& table = model.tables[sh.table];
  const double row_bytes = model.table_row_bytes(sh.cols.size());
  const double state_bytes = optimizer_state_bytes_per_row(model.optimizer, sh.cols.size());
  const bool training = workload.mode == Mode::training;
  // Table lookups of the samples the shard serves; the shard receives its mass of them.
  const double table_lookups = served_gpus * workload.batch_per_gpu * table.pooling.expected();
  h.lookups = table_lookups * profile.mass(sh.rows, sh.row_space);
  if (!(h.lookups > 0)) return h;
  h.distinct_rows =
      std::min(h.lookups, profile.expected_distinct(sh.rows, sh.row_space, table_lookups));
  // UVM faults: the host pages of the distinct rows the forward reads from host memory (all
  // of them for uvm, the misses for uvm_caching), once an iteration; the backward touches the
  // same pages, already mapped.
  const auto add_faults = [&](double rows_read) {
    h.uvm_faults = uvm_pages_touched(rows_read, static_cast<double>(sh.rows.size()), row_bytes,
                                     cost.uvm_page_bytes);
    h.uvm_fault_s = uvm_fault_s(h.uvm_faults, cost);
  };
  if (sh.storage.kind == StorageKind::uvm) {
    h.fetched_rows =
        h.distinct_rows + (h.lookups - h.distinct_rows) * cost.repeat_lookup_hbm_fraction;
    h.h2d_forward_bytes = h.fetched_rows * row_bytes;
    if (training) {
      h.h2d_backward_bytes = h.distinct_rows * (row_bytes + state_bytes);
      h.d2h_backward_bytes = h.distinct_rows * (row_bytes + state_bytes);
    }
    add_faults(h.distinct_rows);
    return h;
  }
  const double cache_rows =
      std::ceil(static_cast<double>(sh.rows.size()) * sh.storage.cache_fraction);
  const CacheHitRate e =
      cache_hit_rate(profile, sh.rows, sh.row_space, cache_rows, sh.storage.policy);
  h.cache_hit_rate = e.hit_rate;
  if (sh.storage.policy == CachePolicy::lru && !std::isfinite(e.characteristic_table_lookups)) {
    h.fetched_rows = 0;  // every row that can be looked up stays cached
  } else if (sh.storage.policy == CachePolicy::lru && e.characteristic_table_lookups > 0) {
    const double t = e.characteristic_table_lookups;
    h.fetched_rows = profile.expected_distinct(sh.rows, sh.row_space, t + table_lookups) -
                     profile.expected_distinct(sh.rows, sh.row_space, t);
  } else {
    h.fetched_rows = (1.0 - e.hit_rate) * h.lookups;
  }
  h.fetched_rows = std::clamp(h.fetched_rows, 0.0, h.distinct_rows);
  h.h2d_forward_bytes = h.fetched_rows * row_bytes;
  add_faults(h.fetched_rows);
  if (training) {
    h.h2d_backward_bytes = h.distinct_rows * state_bytes;
    h.d2h_backward_bytes = h.fetched_rows * row_bytes + h.distinct_rows * state_bytes;
  }
  return h;
}

}  // namespace

HostTierShard host_tier_shard(const Shard& shard, double served_gpus, const DlrmModel& model,
                              const Workload& workload, const AccessProfile& profile,
                              const CostParams& cost) {
  if (!shard.storage.in_host()) return {};
  return shard_traffic(shard, served_gpus, model, workload, profile, cost);
}

HostTierTraffic host_tier_traffic(const Plan& plan, const std::vector<double>& served_gpus_by_shard,
                                  const DlrmModel& model, const Workload& workload,
                                  const TraceSource& trace, const CostParams& cost) {
  HostTierTraffic out;
  const bool any = std::any_of(plan.shards.begin(), plan.shards.end(),
                               [](const Shard& s) { return s.storage.in_host(); });
  if (!any) return out;
  out.shards.resize(plan.shards.size());
  for (std::size_t s = 0; s < plan.shards.size(); ++s) {
    const Shard& sh = plan.shards[s];
    if (!sh.storage.in_host()) continue;
    out.shards[s] = shard_traffic(sh, served_gpus_by_shard.at(s), model, workload,
                                  trace.profile(sh.table), cost);
  }
  return out;
}

std::vector<GpuHostLink> host_link_by_gpu(const Plan& plan, const HostTierTraffic& traffic,
                                          const Cluster& cluster,
                                          std::span<const double> lookup_scale) {
  std::vector<GpuHostLink> out(static_cast<std::size_t>(cluster.num_gpus()));
  if (traffic.empty()) return out;
  for (std::size_t s = 0; s < plan.shards.size(); ++s) {
    const HostTierShard& h = traffic.shards[s];
    const double scale = lookup_scale.empty() ? 1.0 : lookup_scale[s];
    GpuHostLink& g = out[static_cast<std::size_t>(plan.shards[s].gpu)];
    g.h2d_forward_bytes += scale * h.h2d_forward_bytes;
    g.h2d_backward_bytes += scale * h.h2d_backward_bytes;
    g.d2h_backward_bytes += scale * h.d2h_backward_bytes;
    g.uvm_fault_s += scale * h.uvm_fault_s;
  }
  const HostSpec& host = cluster.preset().host;
  for (GpuHostLink& g : out) {
    g.forward_s = host_link_s(g.h2d_forward_bytes, 0, host) + g.uvm_fault_s;
    g.backward_s = host_link_s(g.h2d_backward_bytes, g.d2h_backward_bytes, host);
  }
  return out;
}

}  // namespace shardsim
