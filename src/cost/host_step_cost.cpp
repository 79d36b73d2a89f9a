// The host's time per iteration (docs/model.md, "Host overhead").
#include "shardsim/cost/host_step_cost.hpp"

namespace shardsim {

double host_step_s(const HostWork& w, const CostParams& p) {
  if (p.host_launch_mode == HostLaunchMode::cuda_graphs) return p.host_graph_iteration_s;
  const double fixed_s = w.forward_only ? p.host_eager_inference_step_s : p.host_eager_step_s;
  return fixed_s + w.embedding_ops * p.host_embedding_op_s +
         (w.peer_loop_calls + w.single_calls) * p.host_collective_call_s +
         static_cast<double>(w.peer_loop_peers) * p.host_collective_peer_s;
}

bool host_step_modelled(const CostParams& p) {
  if (p.host_launch_mode == HostLaunchMode::cuda_graphs) return p.host_graph_iteration_s > 0;
  return p.host_eager_step_s > 0 || p.host_eager_inference_step_s > 0 ||
         p.host_embedding_op_s > 0 || p.host_collective_call_s > 0 || p.host_collective_peer_s > 0;
}

}  // namespace shardsim
