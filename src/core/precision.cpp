#include "shardsim/core/precision.hpp"

#include <cmath>

namespace shardsim {

std::string to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
    case Precision::fp8:
      return "fp8";
    case Precision::int8:
      return "int8";
    case Precision::int4:
      return "int4";
    case Precision::int2:
      return "int2";
  }
  return "?";
}

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
      return 4.0;
    case Precision::fp16:
    case Precision::bf16:
      return 2.0;
    case Precision::fp8:
    case Precision::int8:
      return 1.0;
    case Precision::int4:
      return 0.5;
    case Precision::int2:
      return 0.25;
  }
  return 4.0;
}

bool is_quantized(Precision p) {
  return p == Precision::int8 || p == Precision::int4 || p == Precision::int2;
}

namespace {
// FBGEMM split_table_batched_embeddings_ops_common.py: DEFAULT_SCALE_BIAS_SIZE_IN_BYTES (fp16
// scale + fp16 bias of the inference TBE) and INT8_EMB_ROW_DIM_OFFSET (fp32 scale + fp32 bias of
// the training TBE's int8 rows); split_table_batched_embeddings_ops_inference.py: row_alignment
// 16 on the GPU.
constexpr double kInferenceScaleBiasBytes = 4;
constexpr double kTrainingInt8ScaleBiasBytes = 8;
constexpr double kInferenceRowAlignmentBytes = 16;

double round_up(double bytes, double alignment) {
  return std::ceil(bytes / alignment) * alignment;
}

// Whole bytes of `dim` packed values of `bits` bits (FBGEMM packs at byte granularity).
double packed_bytes(std::uint32_t dim, unsigned bits) {
  return std::ceil(static_cast<double>(dim) * bits / 8.0);
}
}  // namespace

double embedding_row_bytes(Precision p, std::uint32_t dim, TableKernel kernel) {
  switch (p) {
    case Precision::fp32:
    case Precision::tf32:
    case Precision::fp16:
    case Precision::bf16:
      return static_cast<double>(dim) * bytes_per_element(p);
    case Precision::int8:
      if (kernel == TableKernel::training) return dim + kTrainingInt8ScaleBiasBytes;
      return round_up(dim + kInferenceScaleBiasBytes, kInferenceRowAlignmentBytes);
    case Precision::int4:
      return round_up(packed_bytes(dim, 4) + kInferenceScaleBiasBytes, kInferenceRowAlignmentBytes);
    case Precision::int2:
      return round_up(packed_bytes(dim, 2) + kInferenceScaleBiasBytes, kInferenceRowAlignmentBytes);
    case Precision::fp8:
      return round_up(static_cast<double>(dim), kInferenceRowAlignmentBytes);
  }
  return static_cast<double>(dim) * bytes_per_element(p);
}

double pooled_bytes_per_element(Precision table) {
  switch (table) {
    case Precision::fp32:
    case Precision::tf32:
    case Precision::fp16:
    case Precision::bf16:
      return bytes_per_element(table);
    case Precision::fp8:
    case Precision::int8:
    case Precision::int4:
    case Precision::int2:
      return 2.0;
  }
  return bytes_per_element(table);
}

}  // namespace shardsim
