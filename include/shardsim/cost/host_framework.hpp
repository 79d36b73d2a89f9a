#pragma once
// What a training framework's host issues in one iteration (docs/model.md, "Host overhead"):
// the profiles of configs/host/frameworks.yaml, compiled in. cost/host_step_cost.hpp prices
// what a plan makes of them.
#include <string>
#include <string_view>
#include <vector>

namespace shardsim {

// How a framework dispatches a GPU's embedding lookups (each with its backward and update).
enum class EmbeddingOpGrouping {
  per_table,  // one module per shard (a torch.nn.EmbeddingBag each)
  per_group,  // one fused kernel per group of shards of one sharding kind and storage tier
  one,        // one fused kernel for every shard of the GPU
};

struct HostFramework {
  std::string name;
  EmbeddingOpGrouping embedding_ops = EmbeddingOpGrouping::per_group;
  int lookup_calls_forward = 0;   // collective calls per sharding kind with pooled lookups
  int lookup_calls_backward = 0;  // the same in the backward (training only)
  // On more than one GPU the host's step runs in series with the GPU's work, not beside it:
  // what follows a collective is dispatched only once it has returned to the host. Set for
  // tensorflow2 (Horovod), a GUESS inferred from its published steps (the profile says why).
  bool collectives_return_to_host = false;
  std::string source;
};

// The profiles of configs/host/frameworks.yaml, in file order. Parsed once.
const std::vector<HostFramework>& host_frameworks();
// The profile named `name`; std::invalid_argument (with a "did you mean") for an unknown name.
const HostFramework& host_framework(std::string_view name);
// "auto" and every profile's name: what `cost.host_framework` accepts.
std::vector<std::string> host_framework_choices();

}  // namespace shardsim
