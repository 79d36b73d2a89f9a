#pragma once
#include <cstdint>
#include <string>

namespace shardsim {

// Arithmetic precision of a kernel (MLPs) or of stored/communicated values. fp8, int8, int4 and
// int2 are storage or wire formats only (docs/model.md, "Table precision"): quantised embedding
// tables (FBGEMM's SparseType INT8/INT4/INT2/FP8) and fp8 communication (FBGEMM's QComms).
enum class Precision { fp32, tf32, fp16, bf16, fp8, int8, int4, int2 };

std::string to_string(Precision p);
// Bytes of one element: tf32 is stored as 4 bytes; fp8 and int8 1, int4 0.5, int2 0.25 (the
// packed values alone, without the row-wise scale and bias of quantised tables).
double bytes_per_element(Precision p);
// int8, int4, int2: integer values with a row-wise scale and bias.
bool is_quantized(Precision p);

// Which FBGEMM table-batched-embedding module stores the rows, which decides the row layout of
// quantised tables: the training TBE (SplitTableBatchedEmbeddingBagsCodegen; int8 rows carry an
// fp32 scale and bias, 8 B, unpadded) or the inference TBE (IntNBitTableBatchedEmbeddingBags-
// Codegen; int8/int4/int2 rows carry an fp16 scale and bias, 4 B, and quantised rows are padded
// to 16 B). Float rows (fp32/fp16/bf16) are dim x element bytes in both.
enum class TableKernel { training, inference };

// Bytes of one stored embedding row of `dim` columns: the one function for a table's row size
// (memory, the kernels' HBM traffic, row transfers, replica and peer syncs, planners' estimates).
//   fp32/fp16/bf16: dim x bytes_per_element
//   int8, training kernel:  dim + 8                       (fp32 scale + bias)
//   int8, inference kernel: round_up(dim + 4, 16)         (fp16 scale + bias, 16 B rows)
//   int4 / int2:            round_up(ceil(dim/2 or dim/4) + 4, 16)
//   fp8:                    round_up(dim, 16)             (no scale or bias)
double embedding_row_bytes(Precision p, std::uint32_t dim, TableKernel kernel);

// Bytes of one element of a pooled embedding the lookup kernel writes (and of its gradient):
// the table's own element for float tables; fp16 (2 B, the inference TBE's default output_dtype)
// for quantised and fp8 tables, whose values are dequantised on the way out.
double pooled_bytes_per_element(Precision table);

}  // namespace shardsim
