#pragma once
// Data ingestion: each batch's inputs reach the GPU over the node's frontend network and the
// GPU's host link (docs/model.md, "Data ingestion"). Neo §6.2: "Data ingestion goes through the
// regular frontend network and PCIe, without interfering with activations or gradients"; Neo
// Table 2 gives ZionEX's frontend ("Host NW") as 4 x 100 Gbps per node.
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/model/dlrm_model.hpp"

namespace shardsim {

// The bytes of one sample's inputs as the readers deliver them (Neo §7.1's combined format:
// every table's indices concatenated, with one length per table instead of offsets):
//   Σ_t E[pooling_t] · index_bytes_per_lookup   the sparse ids (8 B: int64 ids, before hashing
//                                                 into the table, Neo §8.3)
//   + tables · kInputLengthBytes                 one int32 length per table
//   + (dense_features + 1) · 4                   fp32 dense features and the label
inline constexpr double kInputLengthBytes = 4;      // KJT lengths are int32
inline constexpr double kInputDenseValueBytes = 4;  // fp32 dense features and label
double input_bytes_per_sample(const DlrmModel& model, const CostParams& p);

// One batch's delivery to one GPU: its local batch's inputs cross the node's frontend network
// (shared by the node's GPUs, each receiving the same bytes) and then the GPU's host link.
// The two stages are pipelined across batches, so a batch every `time_s()` is the rate.
struct InputDelivery {
  double bytes_per_gpu = 0;  // per iteration
  double frontend_s = 0;     // the node's GPUs' bytes over the node's frontend
  double host_link_s = 0;    // the GPU's bytes over its host link (PCIe)
  double time_s() const { return frontend_s > host_link_s ? frontend_s : host_link_s; }
};

// Zero time when the preset gives no frontend network (host.frontend_Gbitps): the inputs are
// then not modelled, as before the frontend existed in the presets.
InputDelivery input_delivery(const Cluster& cluster, const DlrmModel& model,
                             std::uint32_t batch_per_gpu, const CostParams& p);

}  // namespace shardsim
