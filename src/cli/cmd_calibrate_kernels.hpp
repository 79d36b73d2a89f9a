#pragma once
// `shardsim calibrate --kernels LOG... (--preset P | --scenario FILE [--set k=v]...)
//   [--kernel-set key=value]... [--params a,b] [--prior-weight W] [--robust-scale C]
//   [--leave-one-out] [--out cost.yaml [--force]] [--format text|json]`:
// fits the embedding kernels' efficiency parameters (cost/kernel_calibration.hpp) to the output
// of FBGEMM's split_table_batched_embeddings_benchmark (io/fbgemm_log.hpp) measured on the
// preset's GPU, prints every point's error before and after (and left out), and writes the
// fitted parameters as a cost file a scenario loads with `cost: {file: ...}` (docs/model.md,
// "Calibration of the embedding kernels").
#include "cli/cmd_calibrate.hpp"

namespace shardsim {

// The flag checks of the --kernels mode (InputError for a missing GPU, --points or nccl logs
// given as well, or a --kernel-set that is not key=value).
void check_kernel_flags(const CalibrateFlags& flags);
// Returns 0; bad input throws InputError before anything is written.
int run_calibrate_kernels(const CalibrateFlags& flags);

}  // namespace shardsim
