// The per-GPU rows of the report schema (metrics/report_schema.hpp): each per_gpu[] object of
// the JSON and each row of per_gpu.csv.
#include "shardsim/metrics/report_schema.hpp"

namespace shardsim {

namespace {

using G = const GpuReport&;

FieldValue gpu_int(long long v) {
  return FieldValue(static_cast<std::int64_t>(v));
}

constexpr GpuField kGpuFields[] = {
    {"gpu", FieldType::integer, "", FieldNeeds::always, "the GPU's id",
     [](G g) { return gpu_int(g.gpu); }, "gpu"},
    {"node", FieldType::integer, "", FieldNeeds::always, "its node",
     [](G g) { return gpu_int(g.node); }, "node"},
    {"lookup_s", FieldType::number, "s", FieldNeeds::timing,
     "embedding forward + backward kernel time per iteration (mean)",
     [](G g) { return finite_value(g.lookup_s); }, "lookup_s"},
    {"busy_s", FieldType::number, "s", FieldNeeds::timing, "some stream of it ran a task",
     [](G g) { return finite_value(g.busy_s); }, "busy_s"},
    {"compute_s", FieldType::number, "s", FieldNeeds::timing, "a compute stream ran a kernel",
     [](G g) { return finite_value(g.compute_s); }, "compute_s"},
    {"comm_transfer_s", FieldType::number, "s", FieldNeeds::timing,
     "a collective of its was moving data", [](G g) { return finite_value(g.comm_transfer_s); },
     "comm_transfer_s"},
    {"comm_wait_s", FieldType::number, "s", FieldNeeds::timing,
     "a communication stream had arrived at a collective whose peers had not",
     [](G g) { return finite_value(g.comm_wait_s); }, "comm_wait_s"},
    {"idle_s", FieldType::number, "s", FieldNeeds::timing, "the iteration time minus busy_s",
     [](G g) { return finite_value(g.idle_s); }, "idle_s"},
    {"time_shares_s", FieldType::object, "s", FieldNeeds::timing,
     "the iteration's instants, each given to one kind of work (they add up to the iteration)"},
    {"time_shares_s.embedding", FieldType::number, "s", FieldNeeds::timing, "its embedding kernels",
     [](G g) { return finite_value(g.shares.embedding_s); }, "embedding_share_s"},
    {"time_shares_s.dense_compute", FieldType::number, "s", FieldNeeds::timing,
     "MLPs and interaction", [](G g) { return finite_value(g.shares.dense_compute_s); },
     "dense_compute_share_s"},
    {"time_shares_s.communication", FieldType::number, "s", FieldNeeds::timing,
     "a collective of its was moving data, no kernel ran",
     [](G g) { return finite_value(g.shares.comm_s); }, "comm_share_s"},
    {"time_shares_s.comm_wait", FieldType::number, "s", FieldNeeds::timing,
     "waiting for a collective's peers", [](G g) { return finite_value(g.shares.comm_wait_s); },
     "comm_wait_share_s"},
    {"time_shares_s.host", FieldType::number, "s", FieldNeeds::timing,
     "only the host's step or the input delivery was running",
     [](G g) { return finite_value(g.shares.host_s); }, "host_share_s"},
    {"time_shares_s.idle", FieldType::number, "s", FieldNeeds::timing, "none of the above",
     [](G g) { return finite_value(g.shares.idle_s); }, "idle_share_s"},
    {"memory_bytes", FieldType::number, "bytes", FieldNeeds::always, "its HBM in use",
     [](G g) { return finite_value(g.memory_bytes); }, "memory_bytes"},
    {"memory_capacity_bytes", FieldType::number, "bytes", FieldNeeds::always, "its usable HBM",
     [](G g) { return finite_value(g.memory_capacity_bytes); }, "memory_capacity_bytes"},
    {"weights_bytes", FieldType::number, "bytes", FieldNeeds::always,
     "embedding weights in its HBM", [](G g) { return finite_value(g.weights_bytes); },
     "weights_bytes"},
    {"optimizer_bytes", FieldType::number, "bytes", FieldNeeds::always,
     "optimizer state in its HBM", [](G g) { return finite_value(g.optimizer_bytes); },
     "optimizer_bytes"},
    {"cache_bytes", FieldType::number, "bytes", FieldNeeds::always,
     "HBM caches of its shards in host memory", [](G g) { return finite_value(g.cache_bytes); },
     "cache_bytes"},
    {"activation_bytes", FieldType::number, "bytes", FieldNeeds::always, "activations",
     [](G g) { return finite_value(g.activation_bytes); }, "activation_bytes"},
    {"reserved_bytes", FieldType::number, "bytes", FieldNeeds::always,
     "the reserve (runtime, dense model, workspace)",
     [](G g) { return finite_value(g.reserved_bytes); }, "reserved_bytes"},
    {"host_memory_bytes", FieldType::number, "bytes", FieldNeeds::always,
     "its shards' weights and optimizer state in host memory",
     [](G g) { return finite_value(g.host_memory_bytes); }, "host_memory_bytes"},
    {"host_link_bytes", FieldType::number, "bytes", FieldNeeds::timing,
     "over its host link per iteration (mean), both directions",
     [](G g) { return finite_value(g.host_link_bytes); }, "host_link_bytes"},
    {"lookups", FieldType::number, "count", FieldNeeds::always,
     "embedding lookups it serves per iteration (mean)",
     [](G g) { return finite_value(g.lookups); }, "lookups"},
    {"shards", FieldType::integer, "count", FieldNeeds::always, "shards it holds",
     [](G g) { return gpu_int(g.shards); }, "shards"},
    {"comm_sent_bytes", FieldType::number, "bytes", FieldNeeds::always,
     "bytes it sends per iteration, forward + backward",
     [](G g) { return finite_value(g.comm_sent_bytes); }, "comm_sent_bytes"},
    {"comm_received_bytes", FieldType::number, "bytes", FieldNeeds::always,
     "bytes it receives per iteration, forward + backward",
     [](G g) { return finite_value(g.comm_received_bytes); }, "comm_received_bytes"},
};

}  // namespace

std::span<const GpuField> gpu_fields() {
  return kGpuFields;
}

}  // namespace shardsim
