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

struct TraceOptions {
  HotRowLayout layout = HotRowLayout::scattered;
  TraceMode mode = TraceMode::expected;
};

struct Workload {
  Mode mode = Mode::training;
  std::uint32_t batch_per_gpu = 0;
  int iterations = 10;  // measured iterations (after warm-up)
  int warmup = 2;
  std::uint64_t seed = 42;
  TraceOptions trace;
};

}  // namespace shardsim
