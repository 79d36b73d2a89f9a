#pragma once
// How an iteration is simulated, beyond the plan: the network model, the pipelining options of
// Neo §4.2, and slow GPUs. The scenario's `simulation:` map (docs/scenario.md).
#include <cstdint>
#include <string>
#include <vector>

namespace shardsim {

// The input (index) AlltoAll that sends each GPU's sparse features to the GPUs serving them.
enum class InputAlltoall : std::uint8_t {
  none,        // not modelled (as in Neo App. B Eq. 1)
  serial,      // batch i's, before batch i's embedding lookup
  overlapped,  // batch i+1's, overlapped with batch i's top MLP forward (Neo §4.2; default)
};
// The pooled-embedding AlltoAll of the forward pass.
enum class PooledAlltoall : std::uint8_t {
  serial,      // after the bottom MLP forward
  overlapped,  // overlapped with the bottom MLP forward (Neo §4.2, Eq. 1; default)
};

std::string to_string(InputAlltoall m);   // "none" | "serial" | "overlapped"
std::string to_string(PooledAlltoall m);  // "serial" | "overlapped"

// The per-flow model keeps one flow per GPU pair: O(N²) flows per AlltoAll.
inline constexpr int kPerFlowMaxGpus = 256;

// A GPU whose kernels take `slowdown` times as long (MLPs, interaction, embedding).
struct Straggler {
  int gpu = 0;
  double slowdown = 1;
};

struct SimulationOptions {
  // The network model by name (sim/network_model.hpp, docs/model.md "Link sharing").
  std::string link_sharing = "aggregated";
  InputAlltoall input_alltoall = InputAlltoall::overlapped;
  PooledAlltoall pooled_alltoall = PooledAlltoall::overlapped;
  std::vector<Straggler> stragglers;
  // Coefficient of variation of a per-iteration, per-GPU factor on kernel times (lognormal with
  // mean 1), drawn from the workload seed; 0 = none.
  double jitter_cv = 0;
};

}  // namespace shardsim
