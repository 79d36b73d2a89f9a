// Data ingestion (cost/input_delivery_cost.hpp; docs/model.md, "Data ingestion").
#include "shardsim/cost/input_delivery_cost.hpp"

namespace shardsim {

double input_bytes_per_sample(const DlrmModel& model, const CostParams& p) {
  double lookups = 0;
  for (const EmbeddingTable& t : model.tables) lookups += t.pooling.expected();
  return lookups * p.index_bytes_per_lookup +
         static_cast<double>(model.tables.size()) * kInputLengthBytes +
         (static_cast<double>(model.dense_features) + 1) * kInputDenseValueBytes;
}

InputDelivery input_delivery(const Cluster& cluster, const DlrmModel& model,
                             std::uint32_t batch_per_gpu, const CostParams& p) {
  InputDelivery d;
  const HostSpec& host = cluster.preset().host;
  if (!host.delivers_inputs()) return d;
  d.bytes_per_gpu = static_cast<double>(batch_per_gpu) * input_bytes_per_sample(model, p);
  d.frontend_s = d.bytes_per_gpu * cluster.gpus_per_node() / host.frontend_Bps;
  d.host_link_s = d.bytes_per_gpu / host.link.bandwidth_Bps + host.link.latency_s;
  return d;
}

}  // namespace shardsim
