// The dense optimizer's step (docs/model.md, "Dense optimizer step").
#include "shardsim/cost/kernel_cost.hpp"

namespace shardsim {

// torch.optim's update of an fp32 parameter reads the weight, the gradient and every state and
// writes the weight and every state: (2 + states) reads and (1 + states) writes of 4 bytes.
double dense_optimizer_bytes_per_parameter(DenseOptimizerKind k) {
  const int states = dense_optimizer_states(k);
  return 4.0 * (3 + 2 * states);
}

double dense_optimizer_step_s(const GpuSpec& gpu, std::uint64_t parameters, DenseOptimizerKind k) {
  if (parameters == 0) return 0;
  return static_cast<double>(parameters) * dense_optimizer_bytes_per_parameter(k) /
             gpu.hbm_achievable_Bps +
         gpu.kernel_launch_s;
}

}  // namespace shardsim
