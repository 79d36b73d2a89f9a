#include "plan/neuroshard/cost_model.hpp"

#include <algorithm>
#include <limits>

#include "plan/shard_estimate.hpp"
#include "shardsim/core/precision.hpp"

namespace shardsim::neuroshard {

ComputeCost::ComputeCost(const PlanningContext& ctx, bool use_cache)
    : ctx_(ctx), use_cache_(use_cache) {
  const double served = ctx.cluster.num_gpus();
  table_work_.reserve(ctx.model.tables.size());
  for (std::size_t t = 0; t < ctx.model.tables.size(); ++t) {
    const auto& table = ctx.model.tables[t];
    table_work_.push_back(expected_work(ctx, t, RowRange{0, table.rows}, RowSpace::row_id,
                                        ColRange{0, table.dim}, served));
  }
}

double ComputeCost::evaluate(std::span<const std::uint64_t> keys) {
  scratch_.clear();
  for (std::uint64_t k : keys) {
    EmbeddingWork w = table_work_[static_cast<std::size_t>(k >> 32)];
    w.cols = static_cast<std::uint32_t>(k & 0xffffffffULL);
    scratch_.push_back(w);
  }
  const CostParams& p = ctx_.cost_params();
  const GpuSpec& gpu = ctx_.cluster.gpu();
  double s = embedding_forward_s(gpu, scratch_, p);
  if (ctx_.workload.mode == Mode::training) {
    s += embedding_backward_s(gpu, scratch_, ctx_.model.optimizer, p);
  }
  return s;
}

double ComputeCost::set_s(std::span<const std::uint64_t> keys) {
  ++queries_;
  if (!use_cache_ || keys.empty()) return evaluate(keys);
  if (const auto cached = cache_.find(keys)) {
    ++hits_;
    return *cached;
  }
  const double s = evaluate(keys);
  cache_.insert(keys, s);
  return s;
}

double ComputeCost::single_s(const SubTable& s) {
  const std::uint64_t key = s.cost_key();
  return set_s(std::span<const std::uint64_t>(&key, 1));
}

std::vector<double> AnalyticBackend::comm_s(std::span<const std::uint64_t> dims_per_gpu) const {
  const Cluster& cl = ctx_.cluster;
  const int n = cl.num_gpus();
  const double domain = cl.gpus_per_scale_up_domain();
  std::vector<double> domain_dims(static_cast<std::size_t>(cl.num_scale_up_domains()), 0.0);
  double total_dims = 0;
  for (int g = 0; g < n; ++g) {
    const double d = static_cast<double>(dims_per_gpu[static_cast<std::size_t>(g)]);
    domain_dims[static_cast<std::size_t>(cl.scale_up_domain_of(g))] += d;
    total_dims += d;
  }
  // Bytes of one column of pooled outputs for one GPU's batch.
  const double column_bytes = static_cast<double>(ctx_.workload.batch_per_gpu) *
                              bytes_per_element(ctx_.model.comm_precision);
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  for (int g = 0; g < n; ++g) {
    const double own = static_cast<double>(dims_per_gpu[static_cast<std::size_t>(g)]);
    const double in_domain = domain_dims[static_cast<std::size_t>(cl.scale_up_domain_of(g))];
    const double sent_up = own * column_bytes * (domain - 1);
    const double sent_off = own * column_bytes * (n - domain);
    const double received_up = (in_domain - own) * column_bytes;
    const double received_off = (total_dims - in_domain) * column_bytes;
    out[static_cast<std::size_t>(g)] =
        gpu_alltoall_share_s(cl, ctx_.cost_params(), sent_up, received_up, sent_off, received_off);
  }
  return out;
}

double AnalyticBackend::cost_s(const Candidate& c) const {
  std::vector<std::uint64_t> dims(c.compute_s.size(), 0);
  for (std::size_t i = 0; i < c.subs.size(); ++i) {
    dims[static_cast<std::size_t>(c.gpu_of[i])] += c.subs[i].dim();
  }
  const std::vector<double> comm = comm_s(dims);
  const double compute = *std::max_element(c.compute_s.begin(), c.compute_s.end());
  const double comm_max = *std::max_element(comm.begin(), comm.end());
  const double directions = ctx_.workload.mode == Mode::training ? 2 : 1;
  return compute + directions * comm_max;
}

SimulationBackend::SimulationBackend(const PlanningContext& ctx) : ctx_(ctx) {}

double SimulationBackend::cost_s(const Candidate& c) const {
  return ctx_.evaluator->iteration_s(candidate_plan(ctx_, c.subs, c.gpu_of));
}

Plan candidate_plan(const PlanningContext& ctx, std::span<const SubTable> subs,
                    std::span<const int> gpu_of) {
  Plan plan;
  plan.planner = "neuroshard";
  plan.shards.reserve(subs.size());
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const auto& table = ctx.model.tables[subs[i].table];
    const bool whole = subs[i].cols.begin == 0 && subs[i].cols.end == table.dim;
    Shard sh = whole_table_shard(subs[i].table, table.rows, table.dim,
                                 whole ? ShardKind::table_wise : ShardKind::column_wise);
    sh.cols = subs[i].cols;
    sh.gpu = gpu_of[i];
    plan.shards.push_back(sh);
  }
  return plan;
}

}  // namespace shardsim::neuroshard
