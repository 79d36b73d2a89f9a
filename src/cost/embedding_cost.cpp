// Roofline costs of the embedding kernels (docs/model.md, "Embedding forward" and "Embedding
// backward + optimizer").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cost/checks.hpp"
#include "cost/kernel_efficiency.hpp"
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {

namespace {

using cost_detail::require_rate;
using cost_detail::require_work;

struct CheckedWork {
  double lookups;
  double distinct_rows;  // <= lookups: a batch cannot touch more rows than it looks up
  double pooled_outputs;
  double row_bytes;     // one stored row: embedding_row_bytes (scale and bias included)
  double vector_bytes;  // one pooled output or its gradient: cols x pooled_bytes_per_element
};

CheckedWork check(const EmbeddingWork& w) {
  const double lookups = require_work(w.lookups, "EmbeddingWork.lookups");
  const double distinct = require_work(w.distinct_rows, "EmbeddingWork.distinct_rows");
  const double pooled = require_work(w.pooled_outputs, "EmbeddingWork.pooled_outputs");
  return {lookups, std::min(distinct, lookups), pooled,
          embedding_row_bytes(w.precision, w.cols, w.kernel),
          static_cast<double>(w.cols) * pooled_bytes_per_element(w.precision)};
}

double hbm_Bps(const GpuSpec& gpu) {
  return require_rate(gpu.hbm_achievable_Bps, "hbm_achievable_GBps", gpu.name,
                      "the embedding roofline (Neo App. B)");
}

}  // namespace

// Forward (Neo App. B: embedding ops are bound by achievable HBM bandwidth; NeuroShard §2.1:
// the cost depends on the index distribution through the number of distinct rows touched):
//   bytes = L·index_bytes + O·offset_bytes + (D + (L − D)·f)·row_bytes + O·vector_bytes
// with L lookups, D distinct rows, O pooled outputs, f = repeat_lookup_hbm_fraction; row_bytes
// the stored row, vector_bytes the pooled output (equal for float tables). Dequantising a
// quantised row is compute the memory-bound roofline ignores (docs/model.md).
double embedding_forward_bytes(const EmbeddingWork& work, const CostParams& p) {
  const CheckedWork w = check(work);
  const double index_bytes = w.lookups * p.index_bytes_per_lookup;
  const double offset_bytes = w.pooled_outputs * p.offset_bytes_per_output;
  const double rows_read =
      w.distinct_rows + (w.lookups - w.distinct_rows) * p.repeat_lookup_hbm_fraction;
  const double row_bytes_read = rows_read * w.row_bytes;
  const double output_bytes_written = w.pooled_outputs * w.vector_bytes;
  return index_bytes + offset_bytes + row_bytes_read + output_bytes_written;
}

int sort_key_bits(double key_rows) {
  require_work(key_rows, "the backward sort's key rows");
  if (key_rows < 1) return 0;
  // FBGEMM: int(log2(float(total_hash_size)) + 1); frexp gives it exactly for any double.
  int exponent = 0;
  std::frexp(std::floor(key_rows), &exponent);
  return exponent;
}

int radix_sort_passes(int key_bits, const CostParams& p) {
  if (key_bits <= 0) return 0;
  const int digit = std::max(1, p.backward_sort_radix_bits);
  return (key_bits + digit - 1) / digit;
}

// Backward fused with the optimizer (Neo §5.1: gradients sorted by row, aggregated in shared
// memory, each touched row updated once; no gradient tensor is materialised):
//   bytes = L·(backward_index_bytes + passes·sort_pass_bytes)  (linearise + sort + segment;
//           passes = ceil(key bits / radix bits), docs/model.md "Embedding backward")
//         + (G + (L − G)·f)·vector_bytes, G = min(L, O)  (each lookup reads its bag's gradient)
//         + 2·D·(row_bytes + state_bytes(row))        (read + write row and optimizer state)
double embedding_backward_bytes(const EmbeddingWork& work, OptimizerKind optimizer,
                                const CostParams& p, double sort_key_rows) {
  const CheckedWork w = check(work);
  const int passes = radix_sort_passes(sort_key_bits(sort_key_rows), p);
  if (w.lookups > 0 && passes == 0) {
    throw std::invalid_argument(
        fmt::format("cost model: {} lookups sort keys over {} rows (EmbeddingWork.rows unset?)",
                    w.lookups, sort_key_rows));
  }
  const double index_bytes = w.lookups * (p.backward_index_bytes_per_lookup +
                                          passes * p.backward_sort_pass_bytes_per_lookup);
  const double first_gradient_reads = std::min(w.lookups, w.pooled_outputs);
  const double gradient_rows_read =
      first_gradient_reads + (w.lookups - first_gradient_reads) * p.repeat_lookup_hbm_fraction;
  const double gradient_bytes_read = gradient_rows_read * w.vector_bytes;
  const double state_bytes_per_row = optimizer_state_bytes_per_row(optimizer, work.cols);
  const double update_bytes = 2.0 * w.distinct_rows * (w.row_bytes + state_bytes_per_row);
  return index_bytes + gradient_bytes_read + update_bytes;
}

namespace {

// One fused kernel over `works`: Σ bytes_i / η_shard(i), over hbm_achievable · η_tables(T) with
// T the shards that have bytes (docs/model.md, "Embedding kernel efficiency"). With neutral
// parameters every η is exactly 1 and this is Σ bytes / hbm_achievable.
template <typename BytesOf>
double fused_kernel_s(const GpuSpec& gpu, std::span<const EmbeddingWork> first,
                      std::span<const EmbeddingWork> then, const CostParams& p, int launches,
                      BytesOf bytes_of) {
  double bytes = 0;
  double effective_bytes = 0;
  std::size_t tables = 0;
  for (const std::span<const EmbeddingWork> works : {first, then}) {
    for (const EmbeddingWork& w : works) {
      const double b = bytes_of(w);
      if (b <= 0) continue;
      bytes += b;
      effective_bytes += b / embedding_shard_efficiency(w, p);
      ++tables;
    }
  }
  if (bytes <= 0) return 0;  // nothing to do: no kernel is launched
  return effective_bytes / (hbm_Bps(gpu) * embedding_fusion_efficiency(tables, p)) +
         launches * gpu.kernel_launch_s;
}

}  // namespace

double embedding_forward_s(const GpuSpec& gpu, std::span<const EmbeddingWork> first,
                           std::span<const EmbeddingWork> then, const CostParams& p) {
  return fused_kernel_s(gpu, first, then, p, p.kernels_per_embedding_op,
                        [&](const EmbeddingWork& w) { return embedding_forward_bytes(w, p); });
}

double embedding_forward_s(const GpuSpec& gpu, std::span<const EmbeddingWork> works,
                           const CostParams& p) {
  return embedding_forward_s(gpu, works, {}, p);
}

double embedding_forward_s(const GpuSpec& gpu, const EmbeddingWork& work, const CostParams& p) {
  return embedding_forward_s(gpu, std::span<const EmbeddingWork>(&work, 1), p);
}

double embedding_backward_s(const GpuSpec& gpu, std::span<const EmbeddingWork> works,
                            OptimizerKind optimizer, const CostParams& p) {
  // One sort over the linearised ids of every table of the fused kernel.
  double key_rows = 0;
  for (const EmbeddingWork& w : works) key_rows += require_work(w.rows, "EmbeddingWork.rows");
  return fused_kernel_s(
      gpu, works, {}, p, p.kernels_per_embedding_backward,
      [&](const EmbeddingWork& w) { return embedding_backward_bytes(w, optimizer, p, key_rows); });
}

double embedding_backward_s(const GpuSpec& gpu, const EmbeddingWork& work, OptimizerKind optimizer,
                            const CostParams& p) {
  return embedding_backward_s(gpu, std::span<const EmbeddingWork>(&work, 1), optimizer, p);
}

}  // namespace shardsim
