#pragma once
// How an iteration is simulated, beyond the plan: the network model, the pipelining options of
// Neo §4.2, and slow GPUs. The scenario's `simulation:` map (docs/scenario.md).
#include <cstdint>
#include <string>
#include <vector>

namespace shardsim {

// How concurrent collectives share the links (docs/model.md, "Link sharing").
enum class LinkSharing : std::uint8_t {
  aggregated,  // max-min fair sharing; each collective aggregated to one flow per link (default)
  per_flow,    // max-min fair sharing; one flow per GPU pair or ring hop (reference; small N)
  none,        // no sharing: every collective takes its idle-network α-β time
};
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

std::string to_string(LinkSharing s);     // "aggregated" | "per_flow" | "none"
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
  LinkSharing link_sharing = LinkSharing::aggregated;
  InputAlltoall input_alltoall = InputAlltoall::overlapped;
  PooledAlltoall pooled_alltoall = PooledAlltoall::overlapped;
  std::vector<Straggler> stragglers;
  // Coefficient of variation of a per-iteration, per-GPU factor on kernel times (lognormal with
  // mean 1), drawn from the workload seed; 0 = none.
  double jitter_cv = 0;
};

}  // namespace shardsim
