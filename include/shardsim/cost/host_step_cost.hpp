#pragma once
// The host's time per iteration (docs/model.md, "Host overhead"): what the framework's host
// issues for one GPU's process, priced with the host_* cost parameters. A pure function; the
// counts come from the plan (sim/host_work.hpp).
#include <cstdint>

#include "shardsim/cost/cost_params.hpp"

namespace shardsim {

// What one GPU's host dispatches in one iteration, beyond the framework's fixed step.
struct HostWork {
  int embedding_ops = 0;  // embedding modules or fused kernels (each: lookup, backward, update)
  // Collective calls that loop over their peers on the host (PyTorch's NCCL AlltoAll issues one
  // ncclSend and one ncclRecv per peer: torch/csrc/cuda/nccl.cpp), and the sum of their peers.
  int peer_loop_calls = 0;
  std::int64_t peer_loop_peers = 0;
  int single_calls = 0;       // one-call collectives (AllReduce buckets, replica syncs)
  bool forward_only = false;  // inference: the fixed step is host_eager_inference_step_s
  bool operator==(const HostWork&) const = default;
};

// Eager: host_eager_step_s (inference: host_eager_inference_step_s)
//        + embedding_ops · host_embedding_op_s
//        + (peer_loop_calls + single_calls) · host_collective_call_s
//        + peer_loop_peers · host_collective_peer_s.
// CUDA graphs: host_graph_iteration_s (the captured step replays with one launch).
double host_step_s(const HostWork& work, const CostParams& p);

// Whether any iteration can have a host step (a GPU with no work still pays the fixed step).
bool host_step_modelled(const CostParams& p);

}  // namespace shardsim
