// The model summary of `validate` and `plan` (plan/model_summary.hpp; docs/report.md "Model
// summary"): every number from the memory formulas of plan/memory.cpp.
#include "shardsim/plan/model_summary.hpp"

#include <algorithm>
#include <limits>

#include "plan/storage_tiers.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/plan.hpp"

namespace shardsim {

namespace {

// The largest cluster a scenario may describe (src/hw/cluster.cpp): the node search stops there.
constexpr long long kSummaryMaxGpus = 1LL << 22;

std::vector<TableSizeClass> summary_size_classes() {
  constexpr double kMB = 1e6;
  constexpr double kGB = 1e9;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<TableSizeClass> classes(5);
  const std::pair<const char*, double> bounds[] = {{"< 1 MB", 0.0},
                                                   {"1 MB - 1 GB", kMB},
                                                   {"1 - 10 GB", kGB},
                                                   {"10 - 100 GB", 10 * kGB},
                                                   {">= 100 GB", 100 * kGB}};
  for (std::size_t i = 0; i < classes.size(); ++i) {
    classes[i].label = bounds[i].first;
    classes[i].min_bytes = bounds[i].second;
    classes[i].max_bytes = i + 1 < classes.size() ? bounds[i + 1].second : inf;
  }
  return classes;
}

// One table as the node bound sees it: what it stores, and what moving it to host memory saves
// in HBM (its stored bytes less its cache).
struct SummaryTableBytes {
  double stored_bytes = 0;
  double hbm_saving_bytes = 0;
};

// The memory of `nodes` nodes: what is left for the tables in HBM after every GPU's base memory
// and (pooled plans) the lookup activations of the global batch; negative per GPU: nothing fits.
struct SummaryCapacity {
  bool base_fits = false;
  double table_hbm_bytes = 0;
};

class NodeBoundSearch {
 public:
  NodeBoundSearch(const ModelSummary& s, std::vector<SummaryTableBytes> tables)
      : s_(s), tables_(std::move(tables)) {
    // The best HBM saving per host byte first: the fractional optimum of which rows leave HBM.
    std::stable_sort(
        tables_.begin(), tables_.end(), [](const SummaryTableBytes& a, const SummaryTableBytes& b) {
          return a.hbm_saving_bytes * b.stored_bytes > b.hbm_saving_bytes * a.stored_bytes;
        });
  }

  SummaryCapacity capacity(long long nodes, bool lookup_activations) const {
    const double gpus = static_cast<double>(nodes) * s_.gpus_per_node;
    const double global = s_.global_batch_given ? static_cast<double>(s_.global_batch)
                                                : gpus * static_cast<double>(s_.batch_per_gpu);
    const double per_gpu_free = s_.hbm_bytes_per_gpu - s_.reserved_bytes_per_gpu -
                                s_.dense_bytes_per_gpu -
                                global / gpus * s_.local_activation_bytes_per_sample;
    SummaryCapacity c;
    c.base_fits = per_gpu_free >= 0;
    c.table_hbm_bytes = gpus * per_gpu_free;
    if (lookup_activations) c.table_hbm_bytes -= global * s_.lookup_activation_bytes_per_sample();
    return c;
  }

  bool fits_in_hbm(long long nodes, bool lookup_activations) const {
    const SummaryCapacity c = capacity(nodes, lookup_activations);
    return c.base_fits && s_.stored_bytes() <= c.table_hbm_bytes;
  }

  // Tables (fractions of them: row-wise shards) leave HBM, best saving per host byte first,
  // until what stays and the caches fit; the host bytes they take must fit the nodes' host memory.
  bool fits_with_host(long long nodes) const {
    const SummaryCapacity c = capacity(nodes, true);
    if (!c.base_fits) return false;
    double excess = s_.stored_bytes() - c.table_hbm_bytes;
    if (excess <= 0) return true;
    const double host_capacity = static_cast<double>(nodes) * s_.host_bytes_per_node;
    double host = 0;
    for (const SummaryTableBytes& t : tables_) {
      if (!(t.hbm_saving_bytes > 0)) break;  // sorted: no later table saves anything either
      const double share = std::min(1.0, excess / t.hbm_saving_bytes);
      host += share * t.stored_bytes;
      excess -= share * t.hbm_saving_bytes;
      if (host > host_capacity) return false;
      if (excess <= 0) return true;
    }
    return false;
  }

  // The smallest node count for which `fits` holds (it is monotone in the node count).
  template <typename Fits>
  NodeBound smallest(Fits fits) const {
    NodeBound b;
    const long long max_nodes = std::max(1LL, kSummaryMaxGpus / s_.gpus_per_node);
    if (!fits(max_nodes)) return b;
    long long lo = 1;
    long long hi = max_nodes;
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (fits(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    b.fits = true;
    b.nodes = static_cast<int>(lo);
    b.gpus = static_cast<int>(lo * s_.gpus_per_node);
    return b;
  }

 private:
  const ModelSummary& s_;
  std::vector<SummaryTableBytes> tables_;
};

}  // namespace

ModelSummary summarize_model(const DlrmModel& model, const Workload& workload,
                             const HardwarePreset& preset, int nodes) {
  ModelSummary s;
  const Mode mode = workload.mode;
  s.mode = mode;
  s.table_precision = model.table_precision;
  s.optimizer = model.optimizer;
  s.dense_optimizer = model.dense_optimizer;
  s.tables = model.tables.size();
  s.size_classes = summary_size_classes();
  s.preset = preset.name;
  s.gpus_per_node = preset.gpus_per_node;
  s.scenario_nodes = nodes;
  s.hbm_bytes_per_gpu = preset.gpu.hbm_capacity_bytes;
  s.host_bytes_per_node = preset.host.memory_bytes_per_node;
  const StorageTierOptions tier;  // the memory-aware planners' defaults: cache fraction, policy
  s.host_cache_fraction = tier.cache_fraction;

  ShardStorage cached;
  cached.kind = StorageKind::uvm_caching;
  cached.cache_fraction = tier.cache_fraction;
  cached.policy = tier.policy;
  std::vector<SummaryTableBytes> bytes(model.tables.size());
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    const EmbeddingTable& table = model.tables[t];
    Shard whole = whole_table_shard(t, table.rows, table.dim);
    const double weights = shard_weight_bytes(whole, model);
    const double optimizer = shard_optimizer_bytes(whole, model, mode);
    s.rows += static_cast<double>(table.rows);
    s.weight_bytes += weights;
    s.optimizer_bytes += optimizer;
    for (TableSizeClass& c : s.size_classes) {
      if (weights >= c.min_bytes && weights < c.max_bytes) {
        ++c.tables;
        c.rows += static_cast<double>(table.rows);
        c.weight_bytes += weights;
        c.optimizer_bytes += optimizer;
        break;
      }
    }
    // One sample's lookup activations at the GPU serving the whole table: without pooling the
    // outputs (and gradients) alone, the rest is the indices.
    const double outputs = shard_activation_bytes(whole, model, mode, 1.0, 0.0);
    const double all = shard_activation_bytes(whole, model, mode, 1.0, table.pooling.expected());
    s.lookup_output_bytes_per_sample += outputs;
    s.lookup_index_bytes_per_sample += all - outputs;
    whole.storage = cached;
    bytes[t].stored_bytes = weights + optimizer;
    bytes[t].hbm_saving_bytes = weights + optimizer - shard_cache_bytes(whole, model);
  }

  s.dense_parameters = model.dense_parameter_count();
  const GpuMemory base = base_gpu_memory(preset, model, workload);
  s.dense_bytes_per_gpu = base.dense_bytes;
  s.reserved_bytes_per_gpu = base.reserved_bytes;
  s.base_bytes_per_gpu = base.total_bytes();
  Workload one_sample = workload;
  one_sample.batch_per_gpu = 1;
  s.local_activation_bytes_per_sample = base_gpu_memory(preset, model, one_sample).activation_bytes;

  s.batch_per_gpu = workload.batch_per_gpu;
  s.global_batch_given = workload.global_batch_given;
  s.global_batch = static_cast<std::uint64_t>(workload.batch_per_gpu) *
                   static_cast<std::uint64_t>(nodes) *
                   static_cast<std::uint64_t>(preset.gpus_per_node);

  if (preset.gpus_per_node <= 0) return s;
  const NodeBoundSearch search(s, std::move(bytes));
  s.hbm_nodes = search.smallest([&](long long n) { return search.fits_in_hbm(n, true); });
  s.hbm_nodes_one_sided =
      search.smallest([&](long long n) { return search.fits_in_hbm(n, false); });
  if (preset.host.present()) {
    s.host_tier_nodes = search.smallest([&](long long n) { return search.fits_with_host(n); });
  }
  return s;
}

}  // namespace shardsim
