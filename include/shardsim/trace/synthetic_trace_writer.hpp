#pragma once
// A model's synthetic trace as recorded bags (`shardsim trace gen`, `trace stats SCENARIO`):
// `iterations` iterations of `gpus` local batches of `samples_per_gpu` samples per table, in the
// order RecordedTraceSource replays them (iteration, then GPU, then sample), so replaying the
// file reproduces the sampled-mode draws of the same scenario exactly.
#include <cstdint>
#include <functional>
#include <string>

#include "shardsim/model/dlrm_model.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/trace/bag_generator.hpp"

namespace shardsim {

struct SyntheticTraceShape {
  int gpus = 1;
  std::uint32_t samples_per_gpu = 0;
  int iterations = 1;
  std::uint64_t samples() const {
    return static_cast<std::uint64_t>(gpus) * samples_per_gpu *
           static_cast<std::uint64_t>(iterations);
  }
};

// Calls sink(bags) with each local batch of the table, in replay order.
void stream_synthetic_table(const BagGenerator& generator, const SyntheticTraceShape& shape,
                            const std::function<void(const Bags&)>& sink);

// Writes the model's synthetic trace to a binary trace file at `path` (see trace_file.hpp),
// generating up to `jobs` tables at once; the file does not depend on `jobs`.
void write_synthetic_trace(const std::string& path, const DlrmModel& model,
                           const Workload& workload, const SyntheticTraceShape& shape, int jobs);

}  // namespace shardsim
