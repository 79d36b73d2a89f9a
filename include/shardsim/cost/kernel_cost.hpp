#pragma once
// Roofline costs of kernels on one GPU. Pure functions: (work, hardware, params) -> seconds.
// Each formula is documented in docs/model.md with its source. Zero work costs zero time (no
// kernel launch), so an empty shard costs nothing.
#include <cstdint>
#include <span>

#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/gpu_spec.hpp"
#include "shardsim/model/dlrm_model.hpp"

namespace shardsim {

// The embedding work of one shard (or a sum over the shards of a GPU) in one iteration.
struct EmbeddingWork {
  double lookups = 0;         // indices processed
  double distinct_rows = 0;   // distinct rows those lookups touch (clamped to <= lookups)
  double pooled_outputs = 0;  // output vectors written (samples x bags served)
  std::uint32_t cols = 0;     // embedding columns of the shard
  Precision precision = Precision::fp32;       // of the stored table
  TableKernel kernel = TableKernel::training;  // the TBE storing it (row layout)
  // Rows the shard stores (its row range; a table's all for column-wise and replicated shards):
  // the ids the backward sorts span. A fused kernel's key bits are those of the sum.
  double rows = 0;
};

// Bits of the backward sort's keys over `key_rows` linearised row ids: floor(log2 rows) + 1,
// 0 for none (FBGEMM TBE's total_hash_size_bits; the sort resolves only these bits).
int sort_key_bits(double key_rows);
// Radix passes of the backward sort over `key_bits` bits: ceil(bits / backward_sort_radix_bits).
int radix_sort_passes(int key_bits, const CostParams& p);

// HBM bytes of the forward: indices + offsets read, rows read (distinct rows fully, repeated
// lookups x repeat_lookup_hbm_fraction) at embedding_row_bytes (a quantised row with its scale
// and bias), pooled outputs written at cols x pooled_bytes_per_element (core/precision.hpp).
double embedding_forward_bytes(const EmbeddingWork& work, const CostParams& p);
// HBM bytes of the fused backward + optimizer: index sort (its passes over the key bits of
// `sort_key_rows`, the rows of the whole fused kernel), output-gradient reads (first read of
// each bag fully, further lookups of the bag x repeat_lookup_hbm_fraction; gradients at the
// pooled output's element), and read + write of each distinct stored row and its optimizer
// state (optimizer_state_bytes_per_row). Lookups over fewer than one key row are a bug upstream
// (std::invalid_argument).
double embedding_backward_bytes(const EmbeddingWork& work, OptimizerKind optimizer,
                                const CostParams& p, double sort_key_rows);

// Forward: bytes / hbm_achievable_Bps + kernels_per_embedding_op launches.
double embedding_forward_s(const GpuSpec& gpu, const EmbeddingWork& work, const CostParams& p);
// Several shards served by ONE fused kernel (Neo §5.1 fuses all tables of a GPU): the bytes of
// all shards, launches counted once. Zero total bytes => 0.
// The same kernel over `first`'s works, then `then`'s (a prefix every GPU shares, then a GPU's
// own), summed in that order.
double embedding_forward_s(const GpuSpec& gpu, std::span<const EmbeddingWork> first,
                           std::span<const EmbeddingWork> then, const CostParams& p);
double embedding_forward_s(const GpuSpec& gpu, std::span<const EmbeddingWork> works,
                           const CostParams& p);

// Backward fused with the optimizer (Neo §5.1): bytes / hbm_achievable_Bps +
// kernels_per_embedding_backward launches; the sort's keys span the rows of all `works`.
double embedding_backward_s(const GpuSpec& gpu, const EmbeddingWork& work, OptimizerKind optimizer,
                            const CostParams& p);
double embedding_backward_s(const GpuSpec& gpu, std::span<const EmbeddingWork> works,
                            OptimizerKind optimizer, const CostParams& p);

// FLOPs of a stack of dense layers, forward: 2 · batch · Σ in·out.
double mlp_forward_flops(std::uint64_t input_width, std::span<const std::uint32_t> layers,
                         double batch);

// A stack of dense layers: input width, then each layer's output width. FLOPs = 2·batch·Σ in·out
// forward, twice that backward; time = FLOPs / (peak(precision) · mlp_efficiency) plus one
// launch per layer forward and two per layer backward (data-gradient and weight-gradient GEMMs).
double mlp_forward_s(const GpuSpec& gpu, std::uint64_t input_width,
                     std::span<const std::uint32_t> layers, double batch, Precision precision,
                     const CostParams& p);
double mlp_backward_s(const GpuSpec& gpu, std::uint64_t input_width,
                      std::span<const std::uint32_t> layers, double batch, Precision precision,
                      const CostParams& p);

// An opaque dense arch (model.dense_arch) of `flops_per_sample` forward FLOPs per sample:
// batch · FLOPs / (peak(precision) · mlp_efficiency · width factor) plus one launch, the width
// factor taken at p.dense_arch_layer_width (1 without gpu.mlp_width_half); backward twice the
// FLOPs and two launches (as an MLP layer's data- and weight-gradient GEMMs). 0 without FLOPs.
double dense_arch_forward_s(const GpuSpec& gpu, double flops_per_sample, double batch,
                            Precision precision, const CostParams& p);
double dense_arch_backward_s(const GpuSpec& gpu, double flops_per_sample, double batch,
                             Precision precision, const CostParams& p);

// The dense optimizer's step after the gradient AllReduce (docs/model.md, "Dense optimizer
// step"): one memory-bound elementwise pass over every dense parameter that reads the fp32
// weight, its gradient and its states and writes the weight and the states,
// 4 · (3 + 2 · states) bytes a parameter (SGD 12, AdaGrad and momentum 20, Adam 28), at
// gpu.hbm_achievable_Bps, plus one launch (a fused multi-tensor kernel). 0 without parameters.
double dense_optimizer_bytes_per_parameter(DenseOptimizerKind k);
double dense_optimizer_step_s(const GpuSpec& gpu, std::uint64_t parameters, DenseOptimizerKind k);

// DLRM dot interaction of `vectors` vectors of width `dim` per sample: a roofline of
// bytes / (hbm_achievable_Bps · interaction_hbm_efficiency) and
// FLOPs / (peak(precision) · mlp_efficiency), whichever is larger, plus one launch.
// Forward per sample: read V·dim, write V(V-1)/2 + dim (pairwise dots and the dense vector);
// 2·V²·dim FLOPs. Backward: read the output gradient and the inputs, write the input gradients;
// the same FLOPs. See docs/model.md; the efficiency is fitted to an H100 (docs/validation/
// kernels.md, "Small kernels").
// The concatenating interaction (model.interaction: concat) of `width` elements per sample: a
// copy, forward and backward alike: batch · 2 · width · e bytes over hbm_achievable_Bps (a
// copy reaches it: docs/validation/kernels.md), plus one launch; no FLOPs.
double concat_interaction_s(const GpuSpec& gpu, double batch, std::uint64_t width,
                            Precision precision);

double interaction_forward_s(const GpuSpec& gpu, double batch, std::uint64_t vectors,
                             std::uint32_t dim, Precision precision, const CostParams& p);
double interaction_backward_s(const GpuSpec& gpu, double batch, std::uint64_t vectors,
                              std::uint32_t dim, Precision precision, const CostParams& p);

}  // namespace shardsim
