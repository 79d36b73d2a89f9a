// TorchRec's enumerator and estimators (plan/torchrec/estimators.hpp). Section references are
// to the files of pytorch/torchrec@a48cef79 named there.
#include "plan/torchrec/estimators.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shardsim/core/precision.hpp"
#include "shardsim/core/repeated_sum.hpp"

namespace shardsim::torchrec {

double kernel_Bps(ComputeKernel k, const Params& p) {
  // constants.py, kernel_bw_lookup, the ("cuda", kernel) entries; caching_ratio is the option's
  // cache_load_factor (UVM_CACHING_RATIO when unset). ddr_mem_bw enters only the "cpu" entries;
  // v0.3.2's lookup has no HBM-to-DDR bandwidth and prices the UVM kernels at DDR_MEM_BW
  // (https://github.com/pytorch/torchrec/blob/4957990ca1b55fd8b8ee94c61b63f495506f5872/torchrec/distributed/planner/constants.py).
  const double clf = p.cache_load_factor;
  const double host_Bps = p.version == Version::v0_3_2 ? p.ddr_Bps : p.hbm_to_ddr_Bps;
  switch (k) {
    case ComputeKernel::dense:
      return 0.5 * p.hbm_Bps;
    case ComputeKernel::fused:
      return 1 * p.hbm_Bps;
    case ComputeKernel::fused_uvm:
      return host_Bps / 10;
    case ComputeKernel::fused_uvm_caching:
      return (clf * p.hbm_Bps + (1 - clf) * host_Bps) / 10;
  }
  throw std::logic_error("unknown torchrec compute kernel");
}

namespace {

// One table's quantities in TorchRec's terms (one feature a table, pooled outputs).
struct TableTerms {
  double lookups = 0;  // S: pooling factor · batch size, per rank
  double outputs = 0;  // P: batch size (one pooled vector a sample)
  double table_elem_bytes = 0;
  double fwd_comm_bytes = 0;  // fwd_a2a_dt = fwd_sr_dt (our forward wire precision)
  double bwd_comm_bytes = 0;  // bwd_a2a_dt = bwd_sr_dt
  double optimizer_multiplier = 0;
};

constexpr double kIndexBytes = 8;                  // BIGINT_DTYPE
constexpr double kBatchedCopyPerfFactor = 2.455;   // BATCHED_COPY_PERF_FACTOR
constexpr double kDpElementwisePerfFactor = 9.22;  // DP_ELEMENTWISE_KERNELS_PERF_FACTOR
constexpr double kKjtCopies = 20;                  // storage_reservations.py: 2 batches x 10

// shard_estimators.py, _get_optimizer_multipler: SGD 0, Adam 2, row-wise AdaGrad 1 / dim (one
// value per row), any other 1 (partial row-wise Adam among them).
double optimizer_multiplier(OptimizerKind k, std::uint32_t dim) {
  switch (k) {
    case OptimizerKind::sgd:
      return 0;
    case OptimizerKind::rowwise_adagrad:
      return 1.0 / dim;
    case OptimizerKind::adam:
      return 2;
    case OptimizerKind::adagrad:
    case OptimizerKind::partial_rowwise_adam:
      return 1;
  }
  return 1;
}

// The block-size penalty of the table-wise kernels (shard_estimators.py, _get_tw_sharding_perf:
// FULL_BLOCK_EMB_DIM 128, HALF_BLOCK_PENALTY 1.15, QUARTER_BLOCK_PENALTY 1.75).
double block_penalty(double emb_dim) {
  if (emb_dim >= 128) return 1;
  if (emb_dim >= 64) return 1.15;
  return 1.75;
}

// BasicCommsBandwidths.get_bw for AlltoAll, ReduceScatter and AllGather: the intra-host
// bandwidth when every rank is on one host, else the cross-host one.
double comms_Bps(const Params& p, int world, int local) {
  return world <= local ? p.intra_host_Bps : p.inter_host_Bps;
}

// _get_tw_sharding_perf (TW, CW and TWCW; emb_dim = the shard's columns). device_Bps: the
// kernel's bandwidth (kernel_Bps). Its prefetch_compute prices expected cache fetches, which
// TorchRec counts only from CacheStatistics a user supplies (none here: 0).
Perf tw_perf(const TableTerms& t, const Params& p, double emb_dim, double device_Bps) {
  const double w = p.world_size;
  const double input_read = std::ceil(t.lookups * w * kIndexBytes);
  const double lookup = t.lookups * w * std::max(emb_dim, 32.0) * t.table_elem_bytes;
  const double fwd_out = t.outputs * w * emb_dim * t.fwd_comm_bytes;
  const double bwd_out = t.outputs * w * emb_dim * t.bwd_comm_bytes;
  const double bw = comms_Bps(p, p.world_size, p.local_world_size);
  Perf perf;
  perf.fwd_comms_s = fwd_out / bw;
  perf.fwd_compute_s = (input_read + lookup + fwd_out) * block_penalty(emb_dim) / device_Bps;
  if (!p.training) return perf;
  perf.bwd_comms_s = bwd_out / bw;
  perf.bwd_compute_s = perf.fwd_compute_s * p.bwd_compute_multiplier;
  return perf;
}

// _get_rw_sharding_perf.
Perf rw_perf(const TableTerms& t, const Params& p, double emb_dim, double device_Bps) {
  const double w = p.world_size;
  const double bi = t.lookups / w;
  const double input_read = std::ceil(bi * w * kIndexBytes);
  const double lookup = bi * w * emb_dim * t.table_elem_bytes;
  const double fwd_out = t.outputs * w * emb_dim * t.fwd_comm_bytes;
  const double bwd_out = t.outputs * w * emb_dim * t.bwd_comm_bytes;
  const double bw = comms_Bps(p, p.world_size, p.local_world_size);
  Perf perf;
  perf.fwd_comms_s = fwd_out / bw;
  perf.fwd_compute_s = (input_read + lookup + fwd_out) / device_Bps;
  if (!p.training) return perf;
  perf.bwd_comms_s = bwd_out / bw + bwd_out * kBatchedCopyPerfFactor / device_Bps;
  perf.bwd_compute_s = perf.fwd_compute_s * p.bwd_compute_multiplier;
  return perf;
}

// _get_twrw_sharding_perf (its inter-host term as of torchrec PR #2782: B · (W / L) · dim; v0.3.2
// charges output_write_size · (L / W) = B · L · dim, the same only when W = L²). TorchRec passes
// it no is_inference: the backward terms stay in inference too.
Perf twrw_perf(const TableTerms& t, const Params& p, double emb_dim, double device_Bps) {
  const double w = p.world_size;
  const double l = p.local_world_size;
  const double bi = t.lookups / l;
  const double input_read = std::ceil(bi * w * kIndexBytes);
  const double lookup = bi * w * emb_dim * t.table_elem_bytes;
  const double fwd_out = t.outputs * w * emb_dim * t.fwd_comm_bytes;
  const double bwd_out = t.outputs * w * emb_dim * t.bwd_comm_bytes;
  const int hosts = static_cast<int>(w / l);
  const bool v0_3_2 = p.version == Version::v0_3_2;
  const auto inter_host_bytes = [&](double out_bytes, double elem_bytes) {
    return v0_3_2 ? out_bytes * (l / w) : t.outputs * (w / l) * emb_dim * elem_bytes;
  };
  Perf perf;
  perf.fwd_comms_s = fwd_out / comms_Bps(p, p.local_world_size, p.local_world_size);
  if (p.world_size > p.local_world_size) {
    perf.fwd_comms_s += inter_host_bytes(fwd_out, t.fwd_comm_bytes) / comms_Bps(p, hosts, 1);
  }
  perf.fwd_compute_s = (input_read + lookup + fwd_out) / device_Bps;
  perf.bwd_comms_s = bwd_out / comms_Bps(p, p.local_world_size, p.local_world_size);
  if (p.world_size > p.local_world_size) {
    perf.bwd_comms_s += inter_host_bytes(bwd_out, t.bwd_comm_bytes) / comms_Bps(p, hosts, 1);
  }
  perf.bwd_comms_s += bwd_out * kBatchedCopyPerfFactor / device_Bps;
  perf.bwd_compute_s = perf.fwd_compute_s * p.bwd_compute_multiplier;
  return perf;
}

// _get_dp_sharding_perf (the dense kernel: half the HBM bandwidth, kernel_bw_lookup). No
// is_inference either. v0.3.2 reads the input indices at the table's element size (its caller
// passes output_data_type_size as input_data_type_size), not as 8-byte indices.
Perf dp_perf(const TableTerms& t, const Params& p, double rows, double emb_dim) {
  const double w = p.world_size;
  const double l = p.local_world_size;
  const double dense_Bps = 0.5 * p.hbm_Bps;
  const double index_bytes = p.version == Version::v0_3_2 ? t.table_elem_bytes : kIndexBytes;
  const double input_read = std::ceil(t.lookups * index_bytes);
  const double lookup = t.lookups * emb_dim * t.table_elem_bytes;
  const double out_write = t.outputs * emb_dim * t.table_elem_bytes;
  const double table_bytes = rows * emb_dim * t.table_elem_bytes;
  const double nodes = std::min(w / l, 2.0);
  // get_bw for AllReduce: "1 NIC per GPU", the cross-host bandwidth times the local ranks.
  double all_reduce_s = table_bytes * (2 * nodes - 1) / nodes / (p.inter_host_Bps * l);
  if (w > 2 * l) all_reduce_s *= 2;
  Perf perf;
  perf.fwd_compute_s = (input_read + lookup + out_write) / dense_Bps;
  perf.bwd_compute_s = perf.fwd_compute_s * p.bwd_compute_multiplier;
  perf.bwd_comms_s = all_reduce_s + table_bytes * kDpElementwisePerfFactor / dense_Bps;
  return perf;
}

// calculate_shard_storages for the fused (HBM) and dense kernels, pipeline NONE: the shard's
// tensor, its optimizer state (training) and its input and output (io_cost = input + output).
void add_storage(const TableTerms& t, const Params& p, double tensor_bytes, ShardEstimate& s) {
  const double optimizer = p.training ? std::ceil(tensor_bytes * t.optimizer_multiplier) : 0.0;
  s.hbm_bytes = tensor_bytes + optimizer + (p.training ? s.input_bytes + s.output_bytes : 0.0);
}

// _calculate_tensor_sizes for a sharded (not data-parallel) option:
// ceil(storage · prod(shard size) / prod(table shape)), taken as the exact integer ceiling
// (TorchRec divides Python integers, correctly rounded to a double, then ceils: the same but
// within half an ulp of an integer).
double prorated_ceil_bytes(double storage_bytes, std::uint64_t shard_elems,
                           std::uint64_t table_elems) {
  if (table_elems == 0) return 0;
  const auto num =
      static_cast<unsigned __int128>(static_cast<std::uint64_t>(storage_bytes)) * shard_elems;
  const unsigned __int128 q = num / table_elems + (num % table_elems != 0 ? 1 : 0);
  return static_cast<double>(q);
}

// calculate_shard_storages for the UVM kernels, pipeline NONE (shard_estimators.py,
// https://github.com/pytorch/torchrec/blob/a48cef79ebc333da92af1311c04b041ee21a8e75/torchrec/distributed/planner/shard_estimators.py):
// BaseEmbeddingSharder.storage_usage puts the whole table tensor (T bytes) in DDR; the cached
// kernel (_is_table_cached) keeps hbm = round(T · clf) of it in HBM. Each is prorated to the
// shard (_calculate_tensor_sizes) with its optimizer state (_calculate_optimizer_sizes: the
// same multiplier on each); the cache adds its aux state, ceil(shard rows · (4 + 16 · clf))
// (_calculate_cache_aux_state_sizes: a 4-byte index per row and 16 bytes per cache slot; v0.3.2
// counts none), and HBM holds the input and output (calculate_pipeline_io_cost). In inference
// only the tensors count (_calculate_storage_specific_sizes; io cost 0).
void add_uvm_storage(const TableTerms& t, const Params& p, ComputeKernel kernel,
                     double table_tensor_bytes, std::uint64_t table_elems, std::uint64_t shard_rows,
                     std::uint64_t shard_elems, ShardEstimate& s) {
  const bool cached = kernel == ComputeKernel::fused_uvm_caching;
  // Python's round(): half to even, as nearbyint in the default rounding mode.
  const double hbm_table = cached ? std::nearbyint(table_tensor_bytes * p.cache_load_factor) : 0.0;
  const double hbm_tensor = prorated_ceil_bytes(hbm_table, shard_elems, table_elems);
  const double ddr_tensor = prorated_ceil_bytes(table_tensor_bytes, shard_elems, table_elems);
  if (!p.training) {
    s.hbm_bytes = hbm_tensor;
    s.ddr_bytes = ddr_tensor;
    return;
  }
  const double aux =
      cached && p.version != Version::v0_3_2
          ? std::ceil(static_cast<double>(shard_rows) * (4 + p.cache_load_factor * 16))
          : 0.0;
  s.hbm_bytes = aux + hbm_tensor + std::ceil(hbm_tensor * t.optimizer_multiplier) + s.input_bytes +
                s.output_bytes;
  s.ddr_bytes = ddr_tensor + std::ceil(ddr_tensor * t.optimizer_multiplier);
}

// The option's sums and maxima over its shards, summed shard by shard in order: a run's equal
// values are added as that loop adds them (repeated_sum), bit for bit.
void set_totals(ShardingOption& o) {
  o.total_perf_s = o.max_shard_perf_s = 0;
  o.total_hbm_bytes = o.max_shard_hbm_bytes = 0;
  o.total_ddr_bytes = o.max_shard_ddr_bytes = 0;
  for (const ShardList::Run& run : o.shards.runs()) {
    const ShardEstimate& sh = run.shard;
    const std::uint64_t n = run.end - run.first;
    o.total_perf_s = repeated_sum(o.total_perf_s, sh.perf.total_s(), n);
    o.max_shard_perf_s = std::max(o.max_shard_perf_s, sh.perf.total_s());
    o.total_hbm_bytes = repeated_sum(o.total_hbm_bytes, sh.hbm_bytes, n);
    o.max_shard_hbm_bytes = std::max(o.max_shard_hbm_bytes, sh.hbm_bytes);
    o.total_ddr_bytes = repeated_sum(o.total_ddr_bytes, sh.ddr_bytes, n);
    o.max_shard_ddr_bytes = std::max(o.max_shard_ddr_bytes, sh.ddr_bytes);
  }
}

}  // namespace

std::vector<ShardingOption> enumerate_options(std::size_t table, const DlrmModel& model,
                                              const Params& p,
                                              const std::vector<ShardingType>& allowed,
                                              std::span<const ComputeKernel> kernels) {
  const EmbeddingTable& tab = model.tables.at(table);
  TableTerms t;
  // The pooling factor TorchRec is told (ParameterConstraints.pooling_factors): the table's
  // expected pooling.
  t.lookups = tab.pooling.expected() * p.batch_size;
  t.outputs = p.batch_size;
  // shard_estimators.py: table_data_type_size = tensor.element_size(), 1 for the uint8 /
  // quint4x2 / quint2x4 tensors of quantised (and fp8) tables: TorchRec's planner prices neither
  // the packing nor the scale and bias (core/precision.hpp's embedding_row_bytes does).
  t.table_elem_bytes =
      model.table_precision == Precision::fp8 || is_quantized(model.table_precision)
          ? 1.0
          : bytes_per_element(model.table_precision);
  t.fwd_comm_bytes = bytes_per_element(model.comm_precision);
  t.bwd_comm_bytes = bytes_per_element(model.comm_bwd_precision);
  t.optimizer_multiplier = optimizer_multiplier(model.optimizer, tab.dim);
  const double w = p.world_size;
  const double l = p.local_world_size;
  const double rows = static_cast<double>(tab.rows);
  const double elem = t.table_elem_bytes;
  // output_dtype unset: the table's element; quantised tables output fp16
  // (pooled_bytes_per_element, the output_dtype of the inference TBE).
  const double out_elem = pooled_bytes_per_element(model.table_precision);
  // get_tensor_size_bytes: the whole table's tensor, which the UVM kernels prorate per shard.
  const std::uint64_t table_elems = tab.rows * tab.dim;
  const double table_tensor_bytes = static_cast<double>(table_elems) * elem;

  std::vector<ShardingOption> out;
  const ComputeKernel dense[] = {ComputeKernel::dense};
  for (ShardingType type : kAllShardingTypes) {
    if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) continue;
    // BaseEmbeddingSharder.compute_kernels: data-parallel has the dense kernel only.
    const std::span<const ComputeKernel> type_kernels =
        type == ShardingType::data_parallel ? std::span<const ComputeKernel>(dense) : kernels;
    for (ComputeKernel kernel : type_kernels) {
      ShardingOption o;
      o.table = table;
      o.type = type;
      o.kernel = kernel;
      const double device_Bps = kernel_Bps(kernel, p);
      const bool uvm =
          kernel == ComputeKernel::fused_uvm || kernel == ComputeKernel::fused_uvm_caching;
      // The shard's storage: the fused kernel's (the existing formula), or the UVM kernels'.
      const auto store = [&](double fused_tensor_bytes, const RowRange& r, const ColRange& c,
                             ShardEstimate& s) {
        if (!uvm) {
          add_storage(t, p, fused_tensor_bytes, s);
          return;
        }
        add_uvm_storage(t, p, kernel, table_tensor_bytes, table_elems, r.size(),
                        r.size() * c.size(), s);
      };
      switch (type) {
        case ShardingType::data_parallel: {
          const Perf perf = dp_perf(t, p, rows, tab.dim);
          // The same replica on every rank: estimated once.
          ShardEstimate s{{0, tab.rows}, {0, tab.dim}, perf, 0, 0, 0};
          s.input_bytes = std::ceil(t.lookups * kIndexBytes);
          s.output_bytes = std::ceil(t.outputs * tab.dim * out_elem);
          add_storage(t, p, rows * tab.dim * elem, s);
          o.shards.append_copies(s, static_cast<std::size_t>(p.world_size));
          break;
        }
        case ShardingType::table_wise: {
          ShardEstimate s{{0, tab.rows}, {0, tab.dim}, tw_perf(t, p, tab.dim, device_Bps), 0, 0, 0};
          s.input_bytes = std::ceil(t.lookups * w * kIndexBytes);
          s.output_bytes = std::ceil(t.outputs * w * tab.dim * out_elem);
          store(rows * tab.dim * elem, s.rows, s.cols, s);
          o.shards.push_back(s);
          break;
        }
        case ShardingType::column_wise:
        case ShardingType::table_column_wise: {
          for (ColRange c : column_split(tab.dim, p.min_column_shard_dim, p.version)) {
            ShardEstimate s{{0, tab.rows}, c, tw_perf(t, p, c.size(), device_Bps), 0, 0, 0};
            s.input_bytes = std::ceil(t.lookups * w * kIndexBytes);
            s.output_bytes = std::ceil(t.outputs * w * c.size() * out_elem);
            store(std::ceil(rows * tab.dim * elem * c.size() / tab.dim), s.rows, c, s);
            o.shards.push_back(s);
          }
          break;
        }
        case ShardingType::row_wise:
        case ShardingType::table_row_wise: {
          const bool within_host = type == ShardingType::table_row_wise;
          const int n = within_host ? p.local_world_size : p.world_size;
          const double bi = t.lookups / (within_host ? l : w);
          const Perf perf = within_host ? twrw_perf(t, p, tab.dim, device_Bps)
                                        : rw_perf(t, p, tab.dim, device_Bps);
          for (RowRange r : row_split(tab.rows, n)) {
            ShardEstimate s{r, {0, tab.dim}, perf, 0, 0, 0};
            if (r.size() > 0) {
              s.input_bytes = std::ceil(bi * w * kIndexBytes);
              s.output_bytes = std::ceil(t.outputs * w * tab.dim * out_elem);
            }
            store(std::ceil(static_cast<double>(r.size()) * tab.dim * elem), r, s.cols, s);
            o.shards.push_back(s);
          }
          break;
        }
      }
      set_totals(o);
      for (const ShardList::Run& run : o.shards.runs()) {
        const ShardEstimate& sh = run.shard;
        if (!o.storage_runs.empty() && o.storage_runs.back().hbm_bytes == sh.hbm_bytes &&
            o.storage_runs.back().ddr_bytes == sh.ddr_bytes) {
          o.storage_runs.back().end = run.end;
        } else {
          o.storage_runs.push_back({run.first, run.end, sh.hbm_bytes, sh.ddr_bytes});
        }
      }
      out.push_back(std::move(o));
    }
  }
  return out;
}

Reservation reservation(const DlrmModel& model, const Params& p) {
  // The dense parameters (parameter_multiplier 6.0, fp32) and the KJT:
  // ceil(Σ pooling factor · batch · 8) · 20.
  Reservation r;
  r.dense_bytes = std::round(6.0 * 4.0 * static_cast<double>(model.dense_parameter_count()));
  double indices = 0;
  for (const EmbeddingTable& t : model.tables) indices += t.pooling.expected() * p.batch_size;
  r.kjt_bytes = std::ceil(indices * kIndexBytes) * kKjtCopies;
  return r;
}

double shard_capacity_bytes(double hbm_capacity_bytes, double reserved_fraction,
                            const DlrmModel& model, const Params& p) {
  // int((1 - percentage) * hbm), less the reservation's parts.
  const Reservation r = reservation(model, p);
  return std::floor((1 - reserved_fraction) * hbm_capacity_bytes) - r.dense_bytes - r.kjt_bytes;
}

void add_replica_sync(ShardingOption& o,
                      const std::function<double(const ShardEstimate&)>& sync_s) {
  if (o.type == ShardingType::data_parallel || o.shards.empty()) return;
  std::vector<double> sync(o.shards.size());
  for (std::size_t s = 0; s < o.shards.size(); ++s) sync[s] = sync_s(o.shards[s]);
  if (partition_by(o.type) == PartitionBy::uniform) {
    double sum = 0;
    for (double v : sync) sum += v;
    std::fill(sync.begin(), sync.end(), sum / static_cast<double>(sync.size()));
  }
  ShardList synced;
  for (std::size_t s = 0; s < o.shards.size(); ++s) {
    ShardEstimate sh = o.shards[s];
    sh.perf.replica_sync_s = sync[s];
    synced.push_back(sh);
  }
  o.shards = std::move(synced);
  set_totals(o);
}

}  // namespace shardsim::torchrec
