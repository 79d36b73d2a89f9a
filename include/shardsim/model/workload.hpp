#pragma once
#include <cstdint>
#include <string>

namespace shardsim {

enum class Mode { training, inference };
std::string to_string(Mode m);

enum class HotRowLayout { clustered, scattered };
enum class TraceMode { expected, sampled };
std::string to_string(HotRowLayout l);  // "clustered" | "scattered"
std::string to_string(TraceMode m);     // "expected" | "sampled"

// `workload.trace` (docs/scenario.md, docs/traces.md).
struct TraceOptions {
  HotRowLayout layout = HotRowLayout::scattered;
  TraceMode mode = TraceMode::expected;
  // Every bag holds distinct rows: a draw that repeats a row of its bag is drawn again
  // (successive sampling), as in FBGEMM's TBE benchmark requests.
  bool unique_in_bag = false;
  // Temporal reuse: each lookup position of iteration i > 0 repeats, with this probability, the
  // row at the same position (GPU, sample, slot in the bag) of iteration i - 1. In [0, 1).
  double reuse = 0;
  // A recorded trace to replay instead of the synthetic one (already resolved against the
  // scenario file's folder); empty: synthetic.
  std::string file;
};

struct Workload {
  Mode mode = Mode::training;
  std::uint32_t batch_per_gpu = 0;
  // Whether batch_per_gpu was derived from `workload.global_batch` (global / GPUs).
  bool global_batch_given = false;
  // `workload.dataset_samples`: samples in one epoch, for the report's cost per epoch; 0: none.
  std::uint64_t dataset_samples = 0;
  int iterations = 10;  // measured iterations (after warm-up)
  int warmup = 2;
  std::uint64_t seed = 42;
  TraceOptions trace;
};

}  // namespace shardsim
