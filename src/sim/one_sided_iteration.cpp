// One iteration of a one-sided plan (OPER §5): kernel and transfer durations from the iteration's
// lookups. See src/sim/one_sided_iteration.hpp.
#include "sim/one_sided_iteration.hpp"

#include <algorithm>

#include "shardsim/cost/kernel_cost.hpp"
#include "shardsim/cost/one_sided_cost.hpp"

namespace shardsim {

OneSidedIteration one_sided_iteration(const SimulationInputs& in, const OneSidedTraffic& traffic,
                                      const OneSidedTransferTimes& times) {
  const int n = in.cluster.num_gpus();
  const bool training = in.workload.mode == Mode::training;
  const std::vector<double>& get_s = times.get_s;
  OneSidedIteration out;
  out.lookup_fwd_s.assign(n, 0.0);
  out.update_bwd_s.assign(n, 0.0);
  out.lookups_served = traffic.lookups_served;
  const GpuSpec& gpu = in.cluster.gpu();
  std::vector<EmbeddingWork> scratch;
  for (int g = 0; g < n; ++g) {
    // The all-in-one kernel (§5.2): launched once, local lookups and remote gets overlapped.
    const double local_s =
        embedding_forward_s(gpu, traffic.pooling_works, traffic.fwd_works.of(g, scratch), in.cost);
    const double launch_s =
        local_s > 0 ? in.cost.kernels_per_embedding_op * gpu.kernel_launch_s : 0.0;
    out.lookup_fwd_s[g] =
        (local_s > 0 || get_s[g] > 0)
            ? launch_s + overlapped_lookup_s(local_s - launch_s, get_s[g], in.cost)
            : 0.0;
    if (training) {
      out.update_bwd_s[g] =
          embedding_backward_s(gpu, traffic.bwd_works.of(g, scratch), in.model.optimizer, in.cost);
    }
  }
  if (training) {
    const std::vector<double>& put_s = times.put_s;
    out.puts_s = *std::max_element(put_s.begin(), put_s.end());
    out.puts_bytes = traffic.put_bytes.total();
  }
  return out;
}

}  // namespace shardsim
