// What bounds an iteration (metrics/bottleneck.hpp).
#include "shardsim/metrics/bottleneck.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shardsim {

const BottleneckKind kBottleneckKinds[10] = {
    {"alltoall", "AlltoAll fwd+bwd", "alltoall_fwd alltoall_bwd"},
    {"embedding", "embedding kernels", "embedding_lookup_fwd embedding_update_bwd"},
    {"dense", "MLPs + interaction",
     "bottom_mlp_fwd top_mlp_fwd top_mlp_bwd bottom_mlp_bwd interaction_fwd interaction_bwd "
     "dense_optimizer"},
    {"mlp_allreduce", "MLP AllReduce", "mlp_allreduce"},
    {"replica_allreduce", "DP-table AllReduce", "embedding_replica_allreduce"},
    {"replica_sync", "2D replica sync", "embedding_replica_sync"},
    {"input_alltoall", "input AlltoAll", "input_alltoall"},
    {"host", "host step", "host_step"},
    {"input_ingest", "input delivery", "input_ingest"},
    {"idle", "idle", "idle"},
};

namespace {

bool has_phase(std::string_view list, std::string_view phase) {
  for (std::size_t at = 0; at < list.size();) {
    std::size_t end = list.find(' ', at);
    if (end == std::string_view::npos) end = list.size();
    if (list.substr(at, end - at) == phase) return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

std::optional<Bottleneck> report_bottleneck(const Report& r) {
  if (!r.fits_in_memory || r.breakdown.empty() || !(r.iteration_time.mean_s > 0)) {
    return std::nullopt;
  }
  std::optional<Bottleneck> best;
  for (const BottleneckKind& k : kBottleneckKinds) {
    double exposed = 0;
    for (const PhaseTime& p : r.breakdown) {
      if (has_phase(k.phases, p.phase)) exposed += p.exposed_s;
    }
    if (!best || exposed > best->exposed_s) {
      best = Bottleneck{std::string(k.kind), std::string(k.label), exposed,
                        exposed / r.iteration_time.mean_s};
    }
  }
  return best;
}

std::string bottleneck_text(const Report& r) {
  const std::optional<Bottleneck> b = report_bottleneck(r);
  if (!b) return "n/a";
  const int percent = static_cast<int>(std::lround(100 * b->share));
  if (b->kind == "host") {
    double host_s = 0;
    for (const PhaseTime& p : r.breakdown) {
      if (p.phase == "host_step") host_s = p.serialized_s;
    }
    return fmt::format("host-bound: {:.3f} ms host step, {}% exposed", host_s * 1e3, percent);
  }
  return fmt::format("{} {}%", b->label, percent);
}

}  // namespace shardsim
