// The traffic and kernel work of a one-sided plan in one iteration (OPER §5; docs/model.md,
// "One-sided gets").
#include "shardsim/plan/one_sided_traffic.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "shardsim/cost/one_sided_cost.hpp"

namespace shardsim {

namespace {

// A whole table is the same rows in either space; rank space needs no row-id index.
RowSpace query_space(const ReplicaSet& set, const AccessProfile& profile) {
  return set.rows.begin == 0 && set.rows.end == profile.num_rows() ? RowSpace::rank : set.row_space;
}

// expected_distinct of one block for a number of lookups of the whole table, cached by that
// number (every GPU's batch has the same expected lookups, so one query usually serves all).
class DistinctCache {
 public:
  DistinctCache(const AccessProfile& profile, RowRange rows, RowSpace space)
      : profile_(profile), rows_(rows), space_(space) {}
  double operator()(double table_lookups) {
    if (!(table_lookups > 0)) return 0;
    // The last query first: a block on every GPU asks the same number 16,384 times in a row.
    if (table_lookups == last_lookups_) return last_distinct_;
    auto [it, fresh] = cache_.try_emplace(table_lookups, 0.0);
    if (fresh) it->second = profile_.expected_distinct(rows_, space_, table_lookups);
    last_lookups_ = table_lookups;
    last_distinct_ = it->second;
    return it->second;
  }

 private:
  const AccessProfile& profile_;
  RowRange rows_;
  RowSpace space_;
  std::unordered_map<double, double> cache_;
  double last_lookups_ = -1, last_distinct_ = 0;  // -1: no query yet (queries are > 0)
};

}  // namespace

OneSidedTransferTimes one_sided_transfer_times(const Cluster& cluster,
                                               const OneSidedTraffic& traffic, Mode mode,
                                               const CostParams& p) {
  OneSidedTransferTimes out;
  out.get_s = one_sided_transfer_s(cluster, traffic.get_bytes, traffic.get_rows, p);
  if (mode == Mode::training) {
    out.put_s = one_sided_transfer_s(cluster, traffic.put_bytes, traffic.put_rows, p);
  }
  return out;
}

IterationLookups drawn_lookups(const ServingMap& serving, const PlanRowBlocks& blocks, int num_gpus,
                               std::uint32_t batch_per_gpu, const TraceSource& trace,
                               int iteration) {
  const int n = num_gpus;
  const auto un = static_cast<std::size_t>(n);
  IterationLookups out;
  out.num_gpus = n;
  out.uniform = trace.same_draw_for_every_gpu();
  const std::size_t per = out.uniform ? 1 : un;
  out.set_lookups.assign(serving.sets.size() * per, 0.0);
  out.table_lookups.assign(blocks.of_table.size() * per, 0.0);
  for (std::size_t t = 0; t < blocks.of_table.size(); ++t) {
    const auto& of_table = blocks.of_table[t];
    if (of_table.empty()) continue;  // a table the plan does not place (validated elsewhere)
    double* table = out.table_lookups.data() + t * per;
    if (out.uniform) {
      // One GPU's lookups of each block, not the draw's blocks x GPUs copies of them.
      const std::vector<double> by_block =
          trace.uniform_lookups_by_block(t, iteration, n, batch_per_gpu, of_table);
      for (double l : by_block) table[0] += l;
      for (std::size_t k : blocks.sets_of_table[t]) {
        out.set_lookups[k] = by_block[blocks.block_of_set[k]];
      }
      continue;
    }
    const TableIterationDraw draw = trace.draw(t, iteration, n, batch_per_gpu, of_table);
    for (std::size_t b = 0; b < of_table.size(); ++b) {
      for (std::size_t g = 0; g < un; ++g) table[g] += draw.lookups_by_block_gpu[b * un + g];
    }
    for (std::size_t k : blocks.sets_of_table[t]) {
      std::copy_n(draw.lookups_by_block_gpu.begin() +
                      static_cast<std::ptrdiff_t>(blocks.block_of_set[k] * un),
                  un, out.set_lookups.begin() + static_cast<std::ptrdiff_t>(k * un));
    }
  }
  return out;
}

bool draws_are_expectations(const TraceSource& trace) {
  return trace.same_draw_every_iteration() && trace.same_draw_for_every_gpu();
}

IterationLookups expected_lookups(const ServingMap& serving, const PlanRowBlocks& blocks,
                                  const Cluster& cluster, const DlrmModel& model,
                                  const Workload& workload, const TraceSource& trace) {
  const int n = cluster.num_gpus();
  if (draws_are_expectations(trace)) {
    return drawn_lookups(serving, blocks, n, workload.batch_per_gpu, trace, 0);
  }
  IterationLookups out;
  out.num_gpus = n;
  out.uniform = true;
  out.table_lookups.assign(model.tables.size(), 0.0);
  out.set_lookups.assign(serving.sets.size(), 0.0);
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    out.table_lookups[t] = workload.batch_per_gpu * model.tables[t].pooling.expected();
  }
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    const ReplicaSet& set = serving.sets[k];
    const AccessProfile& profile = trace.profile(set.table);
    const double mass = profile.mass(set.rows, query_space(set, profile));
    out.set_lookups[k] = out.table_lookups[set.table] * mass;
  }
  return out;
}

OneSidedTraffic one_sided_traffic(const Plan& plan, const ServingMap& serving,
                                  const Cluster& cluster, const DlrmModel& model,
                                  const Workload& workload, const TraceSource& trace,
                                  const IterationLookups& lookups, const CostParams& p) {
  const int n = cluster.num_gpus();
  const auto un = static_cast<std::size_t>(n);
  const bool training = workload.mode == Mode::training;
  const double batch = workload.batch_per_gpu;
  const double grad_elem = bytes_per_element(model.comm_precision);
  const auto& shards = plan.shards;

  OneSidedTraffic out;
  out.get_bytes = PairMatrix(n);
  out.get_rows = PairMatrix(n);
  out.put_bytes = PairMatrix(n);
  out.put_rows = PairMatrix(n);
  out.fwd_works = WorkLists(n);
  out.bwd_works = WorkLists(n);
  out.lookups_served.assign(un, 0.0);

  // Each GPU's works: at most one lookup and one update per shard it holds. Reserved up front:
  // millions of shards at thousands of GPUs.
  std::vector<std::size_t> shards_on(un, 0);
  for (const Shard& sh : shards) ++shards_on[static_cast<std::size_t>(sh.gpu)];
  for (int g = 0; g < n; ++g) {
    out.fwd_works.reserve(g, shards_on[static_cast<std::size_t>(g)]);
    if (training) out.bwd_works.reserve(g, shards_on[static_cast<std::size_t>(g)]);
  }
  // Every GPU pools all of its own bags (one per sample per table), wherever the rows came from:
  // the same works on every GPU, first in its forward kernel.
  out.pooling_works.reserve(model.tables.size());
  for (const EmbeddingTable& t : model.tables) {
    out.pooling_works.push_back(
        EmbeddingWork{0, 0, batch, t.dim, model.table_precision, model.table_kernel});
  }

  // The backward's work of each (GPU, table, columns), an index into bwd_works[gpu]: several
  // shards of one table on one GPU are one table of the fused kernel, updated from the same
  // bags (read once, as the forward pools them once), so their work is summed, not costed
  // shard by shard. A dense id per (table, columns) pair, per set:
  std::vector<std::uint64_t> cols_id_of_set(serving.sets.size());
  bool cols_runs = true;  // the sets of each (table, columns) pair are adjacent
  {
    std::map<std::tuple<std::size_t, std::uint32_t, std::uint32_t>, std::uint64_t> ids;
    for (std::size_t k = 0; k < serving.sets.size(); ++k) {
      const ReplicaSet& set = serving.sets[k];
      const auto [it, fresh] =
          ids.try_emplace({set.table, set.cols.begin, set.cols.end}, ids.size());
      cols_id_of_set[k] = it->second;
      if (!fresh && k > 0 && cols_id_of_set[k - 1] != it->second) cols_runs = false;
    }
  }
  struct BwdWork {
    std::uint64_t cols_id = ~std::uint64_t{0};
    std::size_t index = 0;   // into bwd_works' list of the GPU
    bool bags_read = false;  // its bags' gradients are counted
  };
  // When the pairs come in runs (every plan a planner makes), a GPU's work of the current pair
  // is its last one; otherwise a map keyed by (pair, GPU). No map entry per shard: a block
  // copied to every GPU of 4096 is 4096 shards.
  std::vector<BwdWork> last_bwd(training ? un : 0);
  std::unordered_map<std::uint64_t, BwdWork> bwd_work_of;
  // Per shard of the current set, by its position in the set: own lookups, their distinct rows,
  // gradient rows received and the table lookups it serves.
  std::vector<std::uint32_t> position(shards.size(), 0);
  std::vector<double> own, own_distinct, received, served_table;
  // Uniform lookups, a set with one holder h: every other GPU gets the same rows from h and
  // puts the same gradients back, a broadcast and a gather of the pair matrices.
  for (std::size_t k = 0; k < serving.sets.size(); ++k) {
    const ReplicaSet& set = serving.sets[k];
    const AccessProfile& profile = trace.profile(set.table);
    DistinctCache distinct(profile, set.rows, query_space(set, profile));
    const double row_bytes = model.table_row_bytes(set.cols.size());
    const double grad_bytes = set.cols.size() * grad_elem + p.index_bytes_per_lookup;
    const std::uint64_t cols_id = cols_id_of_set[k];
    const std::size_t m = set.shards.size();
    own.assign(m, 0.0);
    own_distinct.assign(m, 0.0);
    received.assign(m, 0.0);
    served_table.assign(m, 0.0);
    for (std::size_t i = 0; i < m; ++i) position[set.shards[i]] = static_cast<std::uint32_t>(i);
    if (lookups.uniform && m == 1) {
      const auto h = shards[set.shards.front()].gpu;
      const auto uh = static_cast<std::size_t>(h);
      const double l = lookups.set(k, 0);
      const double table_l = lookups.table(set.table, 0);
      const double others = n - 1.0;
      out.lookups_served[uh] += n * l;
      served_table[0] = n * table_l;
      own[0] = l;
      own_distinct[0] = std::min(distinct(table_l), l);
      if (others > 0 && l > 0) {
        out.get_rows.add_to_every_other(h, l);
        out.get_bytes.add_to_every_other(h, l * row_bytes);
      }
      if (training && others > 0) {
        const double d = std::min(distinct(table_l), l);
        if (l > 0) {
          out.put_rows.add_from_every_other(h, d);
          out.put_bytes.add_from_every_other(h, d * grad_bytes);
        }
        received[0] = others * d;
      }
    } else {
      for (int g = 0; g < n; ++g) {
        const std::size_t s = serving.server(k, g);
        const std::size_t i = position[s];
        const int h = shards[s].gpu;
        const double l = lookups.set(k, g);
        const double table_l = lookups.table(set.table, g);
        out.lookups_served[static_cast<std::size_t>(h)] += l;
        served_table[i] += table_l;
        if (h == g) {
          own[i] += l;
          own_distinct[i] = std::min(distinct(table_l), l);
          continue;
        }
        out.get_rows.add(h, g, l);
        out.get_bytes.add(h, g, l * row_bytes);
        if (training) {
          const double d = std::min(distinct(table_l), l);
          out.put_rows.add(g, h, d);
          out.put_bytes.add(g, h, d * grad_bytes);
          received[i] += d;
        }
      }
    }
    for (std::size_t i = 0; i < m; ++i) {
      const int h = shards[set.shards[i]].gpu;
      const auto uh = static_cast<std::size_t>(h);
      if (own[i] > 0) {
        out.fwd_works.push(h, EmbeddingWork{own[i], own_distinct[i], 0, set.cols.size(),
                                            model.table_precision, model.table_kernel});
      }
      const double updates = own[i] + received[i];
      if (training && updates > 0) {
        BwdWork* work = &last_bwd[uh];
        if (work->cols_id != cols_id && !cols_runs) {
          work = &bwd_work_of.try_emplace(cols_id * un + uh).first->second;
        }
        // The GPU's first shard of this (table, columns) starts its work; later ones add to a
        // copy, written back. Either way GPUs whose works are equal share one entry
        // (plan/work_lists.hpp): a block on every GPU is one push a GPU, no set.
        const bool first = work->cols_id != cols_id;
        EmbeddingWork w =
            first
                ? EmbeddingWork{0, 0, 0, set.cols.size(), model.table_precision, model.table_kernel}
                : out.bwd_works.at(h, work->index);
        bool bags_read = !first && work->bags_read;
        // Own lookups read their bags' gradients (one bag per sample, once per GPU, table and
        // columns); each received row is a gradient read once.
        if (own[i] > 0 && !bags_read) {
          w.pooled_outputs += batch;
          bags_read = true;
        }
        w.pooled_outputs += received[i];
        w.lookups += updates;
        // The rows the update's sort spans. A shard with no updates is not counted: its rows
        // would widen the keys only where they are a large share of the GPU's (an approximation).
        w.rows += static_cast<double>(set.rows.size());
        w.distinct_rows += std::min(distinct(served_table[i]), updates);
        if (first) {
          *work = BwdWork{cols_id, out.bwd_works.push(h, w), bags_read};
        } else {
          work->bags_read = bags_read;
          out.bwd_works.set(h, work->index, w);
        }
      }
    }
  }
  return out;
}

}  // namespace shardsim
