// TorchRec's enumerator and estimators (plan/torchrec/estimators.hpp). Section references are
// to the files of pytorch/torchrec@a48cef79 named there.
#include "shardsim/plan/torchrec/estimators.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "shardsim/core/precision.hpp"

namespace shardsim::torchrec {

std::string to_string(ShardingType t) {
  switch (t) {
    case ShardingType::data_parallel:
      return "data_parallel";
    case ShardingType::table_wise:
      return "table_wise";
    case ShardingType::column_wise:
      return "column_wise";
    case ShardingType::table_column_wise:
      return "table_column_wise";
    case ShardingType::row_wise:
      return "row_wise";
    case ShardingType::table_row_wise:
      return "table_row_wise";
  }
  throw std::logic_error("unknown torchrec sharding type");
}

std::string abbreviation(ShardingType t) {
  switch (t) {
    case ShardingType::data_parallel:
      return "DP";
    case ShardingType::table_wise:
      return "TW";
    case ShardingType::column_wise:
      return "CW";
    case ShardingType::table_column_wise:
      return "TWCW";
    case ShardingType::row_wise:
      return "RW";
    case ShardingType::table_row_wise:
      return "TWRW";
  }
  throw std::logic_error("unknown torchrec sharding type");
}

PartitionBy partition_by(ShardingType t) {
  switch (t) {
    case ShardingType::table_wise:
    case ShardingType::column_wise:
      return PartitionBy::device;
    case ShardingType::table_column_wise:
    case ShardingType::table_row_wise:
      return PartitionBy::host;
    case ShardingType::data_parallel:
    case ShardingType::row_wise:
      return PartitionBy::uniform;
  }
  throw std::logic_error("unknown torchrec sharding type");
}

std::vector<RowRange> row_split(std::uint64_t rows, int n) {
  // sharding_plan.py, _calculate_rw_shard_sizes_and_offsets: block = ceil(rows / n).
  const auto un = static_cast<std::uint64_t>(n);
  const std::uint64_t block = (rows + un - 1) / un;
  std::vector<RowRange> out;
  std::uint64_t begin = 0;
  for (std::uint64_t r = 0; r < un; ++r) {
    const std::uint64_t size = std::min(block, rows - begin);
    out.push_back(RowRange{begin, begin + size});
    begin += size;
  }
  return out;
}

std::vector<ColRange> column_split(std::uint32_t dim, std::uint32_t min_column_shard_dim) {
  // sharding_plan.py, _find_base_dim: the first i in [min, dim) with dim % i == 0 and i % 4 == 0,
  // else dim; a block that does not divide dim falls back to one block.
  std::uint32_t block = dim;
  for (std::uint32_t i = min_column_shard_dim; i < dim; ++i) {
    if (dim % i == 0 && i % 4 == 0) {
      block = i;
      break;
    }
  }
  block = std::min(block, dim);
  if (block == 0 || dim % block != 0) block = dim;
  std::vector<ColRange> out;
  for (std::uint32_t c = 0; c < dim; c += block) out.push_back(ColRange{c, c + block});
  if (out.empty()) out.push_back(ColRange{0, dim});
  return out;
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

// _get_tw_sharding_perf (TW, CW and TWCW; emb_dim = the shard's columns).
Perf tw_perf(const TableTerms& t, const Params& p, double emb_dim) {
  const double w = p.world_size;
  const double input_read = std::ceil(t.lookups * w * kIndexBytes);
  const double lookup = t.lookups * w * std::max(emb_dim, 32.0) * t.table_elem_bytes;
  const double fwd_out = t.outputs * w * emb_dim * t.fwd_comm_bytes;
  const double bwd_out = t.outputs * w * emb_dim * t.bwd_comm_bytes;
  const double bw = comms_Bps(p, p.world_size, p.local_world_size);
  Perf perf;
  perf.fwd_comms_s = fwd_out / bw;
  perf.fwd_compute_s = (input_read + lookup + fwd_out) * block_penalty(emb_dim) / p.hbm_Bps;
  if (!p.training) return perf;
  perf.bwd_comms_s = bwd_out / bw;
  perf.bwd_compute_s = perf.fwd_compute_s * p.bwd_compute_multiplier;
  return perf;
}

// _get_rw_sharding_perf.
Perf rw_perf(const TableTerms& t, const Params& p, double emb_dim) {
  const double w = p.world_size;
  const double bi = t.lookups / w;
  const double input_read = std::ceil(bi * w * kIndexBytes);
  const double lookup = bi * w * emb_dim * t.table_elem_bytes;
  const double fwd_out = t.outputs * w * emb_dim * t.fwd_comm_bytes;
  const double bwd_out = t.outputs * w * emb_dim * t.bwd_comm_bytes;
  const double bw = comms_Bps(p, p.world_size, p.local_world_size);
  Perf perf;
  perf.fwd_comms_s = fwd_out / bw;
  perf.fwd_compute_s = (input_read + lookup + fwd_out) / p.hbm_Bps;
  if (!p.training) return perf;
  perf.bwd_comms_s = bwd_out / bw + bwd_out * kBatchedCopyPerfFactor / p.hbm_Bps;
  perf.bwd_compute_s = perf.fwd_compute_s * p.bwd_compute_multiplier;
  return perf;
}

// _get_twrw_sharding_perf (its inter-host term as of torchrec PR #2782). TorchRec passes it no
// is_inference: the backward terms stay in inference too.
Perf twrw_perf(const TableTerms& t, const Params& p, double emb_dim) {
  const double w = p.world_size;
  const double l = p.local_world_size;
  const double bi = t.lookups / l;
  const double input_read = std::ceil(bi * w * kIndexBytes);
  const double lookup = bi * w * emb_dim * t.table_elem_bytes;
  const double fwd_out = t.outputs * w * emb_dim * t.fwd_comm_bytes;
  const double bwd_out = t.outputs * w * emb_dim * t.bwd_comm_bytes;
  const int hosts = static_cast<int>(w / l);
  Perf perf;
  perf.fwd_comms_s = fwd_out / comms_Bps(p, p.local_world_size, p.local_world_size);
  if (p.world_size > p.local_world_size) {
    perf.fwd_comms_s += t.outputs * (w / l) * emb_dim * t.fwd_comm_bytes / comms_Bps(p, hosts, 1);
  }
  perf.fwd_compute_s = (input_read + lookup + fwd_out) / p.hbm_Bps;
  perf.bwd_comms_s = bwd_out / comms_Bps(p, p.local_world_size, p.local_world_size);
  if (p.world_size > p.local_world_size) {
    perf.bwd_comms_s += t.outputs * (w / l) * emb_dim * t.bwd_comm_bytes / comms_Bps(p, hosts, 1);
  }
  perf.bwd_comms_s += bwd_out * kBatchedCopyPerfFactor / p.hbm_Bps;
  perf.bwd_compute_s = perf.fwd_compute_s * p.bwd_compute_multiplier;
  return perf;
}

// _get_dp_sharding_perf (the dense kernel: half the HBM bandwidth, kernel_bw_lookup). No
// is_inference either.
Perf dp_perf(const TableTerms& t, const Params& p, double rows, double emb_dim) {
  const double w = p.world_size;
  const double l = p.local_world_size;
  const double dense_Bps = 0.5 * p.hbm_Bps;
  const double input_read = std::ceil(t.lookups * kIndexBytes);
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

}  // namespace

std::vector<ShardingOption> enumerate_options(std::size_t table, const DlrmModel& model,
                                              const Params& p,
                                              const std::vector<ShardingType>& allowed) {
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

  std::vector<ShardingOption> out;
  for (ShardingType type : kAllShardingTypes) {
    if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) continue;
    ShardingOption o;
    o.table = table;
    o.type = type;
    switch (type) {
      case ShardingType::data_parallel: {
        const Perf perf = dp_perf(t, p, rows, tab.dim);
        for (int r = 0; r < p.world_size; ++r) {
          ShardEstimate s{{0, tab.rows}, {0, tab.dim}, perf, 0, 0, 0};
          s.input_bytes = std::ceil(t.lookups * kIndexBytes);
          s.output_bytes = std::ceil(t.outputs * tab.dim * out_elem);
          add_storage(t, p, rows * tab.dim * elem, s);
          o.shards.push_back(s);
        }
        break;
      }
      case ShardingType::table_wise: {
        ShardEstimate s{{0, tab.rows}, {0, tab.dim}, tw_perf(t, p, tab.dim), 0, 0, 0};
        s.input_bytes = std::ceil(t.lookups * w * kIndexBytes);
        s.output_bytes = std::ceil(t.outputs * w * tab.dim * out_elem);
        add_storage(t, p, rows * tab.dim * elem, s);
        o.shards.push_back(s);
        break;
      }
      case ShardingType::column_wise:
      case ShardingType::table_column_wise: {
        for (ColRange c : column_split(tab.dim, p.min_column_shard_dim)) {
          ShardEstimate s{{0, tab.rows}, c, tw_perf(t, p, c.size()), 0, 0, 0};
          s.input_bytes = std::ceil(t.lookups * w * kIndexBytes);
          s.output_bytes = std::ceil(t.outputs * w * c.size() * out_elem);
          add_storage(t, p, std::ceil(rows * tab.dim * elem * c.size() / tab.dim), s);
          o.shards.push_back(s);
        }
        break;
      }
      case ShardingType::row_wise:
      case ShardingType::table_row_wise: {
        const bool within_host = type == ShardingType::table_row_wise;
        const int n = within_host ? p.local_world_size : p.world_size;
        const double bi = t.lookups / (within_host ? l : w);
        const Perf perf = within_host ? twrw_perf(t, p, tab.dim) : rw_perf(t, p, tab.dim);
        for (RowRange r : row_split(tab.rows, n)) {
          ShardEstimate s{r, {0, tab.dim}, perf, 0, 0, 0};
          if (r.size() > 0) {
            s.input_bytes = std::ceil(bi * w * kIndexBytes);
            s.output_bytes = std::ceil(t.outputs * w * tab.dim * out_elem);
          }
          add_storage(t, p, std::ceil(static_cast<double>(r.size()) * tab.dim * elem), s);
          o.shards.push_back(s);
        }
        break;
      }
    }
    for (const ShardEstimate& sh : o.shards) {
      o.total_perf_s += sh.perf.total_s();
      o.max_shard_perf_s = std::max(o.max_shard_perf_s, sh.perf.total_s());
      o.total_hbm_bytes += sh.hbm_bytes;
      o.max_shard_hbm_bytes = std::max(o.max_shard_hbm_bytes, sh.hbm_bytes);
    }
    for (std::size_t s = 0; s < o.shards.size(); ++s) {
      if (!o.hbm_runs.empty() && o.hbm_runs.back().bytes == o.shards[s].hbm_bytes) {
        o.hbm_runs.back().end = s + 1;
      } else {
        o.hbm_runs.push_back({s, s + 1, o.shards[s].hbm_bytes});
      }
    }
    out.push_back(std::move(o));
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

}  // namespace shardsim::torchrec
