#pragma once
// Network models as named implementations of one interface (SimGrid's pattern: the engine asks
// the model for rates and the next completion and knows no model). A model says how the
// iteration builder turns a collective into a network demand (none at all: the collective takes
// its idle-network α-β time) and, when there are demands, makes the NetworkModel the engine
// moves their flows through. Chosen by `simulation.link_sharing` (docs/model.md, "Link
// sharing"); adding one is a class implementing NetworkModel and an entry in network_models()
// (src/sim/network_model.cpp).
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/sim/simulation_options.hpp"

namespace shardsim {

// One step of a link's utilisation: from time_s on, the link runs at `utilization` of its
// capacity (0..1), until the next sample of the same link.
struct LinkSample {
  double time_s = 0;
  int link = 0;
  double utilization = 0;
};

// The engine's view of a network: flows over links that share them.
class NetworkModel {
 public:
  virtual ~NetworkModel() = default;
  // Adds a flow of `bytes` (> 0) over `links` starting at `now`, with a caller's `tag` returned
  // when it completes. Rates are recomputed by update().
  virtual void add_flow(double now, std::span<const int> links, double bytes, int tag) = 0;
  // Recomputes rates after a batch of add_flow / complete_due at the same time.
  virtual void update(double now) = 0;
  // The earliest completion time among active flows (infinity when none). Valid after update().
  virtual double next_completion_s() = 0;
  // Removes the flows that complete at `now` and appends their tags to `tags`.
  virtual void complete_due(double now, std::vector<int>& tags) = 0;
  // Utilisation changes, in time order.
  virtual std::vector<LinkSample> take_samples() = 0;
};

struct NetworkModelInfo {
  LinkSharing id;
  std::string_view name;  // as written in simulation.link_sharing
  std::string_view summary;
  // Whether collectives become network demands; when not, each takes its idle-network time and
  // concurrent collectives do not slow each other down.
  bool has_demands = true;
  FlowGranularity granularity = FlowGranularity::aggregated;  // of the demands
  int max_gpus = 0;  // largest cluster it may model (0: any)
  // Makes the model over links of these capacities (bytes per second, each > 0); null when the
  // model has no demands.
  std::unique_ptr<NetworkModel> (*make)(std::vector<double> capacity_Bps) = nullptr;
};

std::span<const NetworkModelInfo> network_models();
const NetworkModelInfo& network_model(LinkSharing id);

}  // namespace shardsim
