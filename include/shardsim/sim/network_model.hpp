#pragma once
// Network models by name (SimGrid's pattern: the engine asks the model for rates and the next
// completion and knows no model). A network model turns the iteration's collectives into network
// demands (it emits them: AlltoAll, AllReduce, replica sync) and makes the NetworkModel the engine
// moves their flows through, or none (each collective then takes its idle-network α-β time).
// Chosen by `simulation.link_sharing` (docs/model.md, "Link sharing"); the registry uses the rule
// of the planners' one (core/named_registry.hpp). Adding one is a class implementing
// NetworkModelType and an entry in network_models() (src/sim/network_model.cpp).
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/core/byte_matrix.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/cost/collective_demand.hpp"
#include "shardsim/cost/level_traffic.hpp"
#include "shardsim/plan/plan.hpp"
#include "shardsim/plan/replica_sync.hpp"

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

// A network model: the demands of the iteration's collectives and the network that moves them.
class NetworkModelType {
 public:
  virtual ~NetworkModelType() = default;
  // Whether AlltoAll demands need each group's traffic per GPU pair (besides per GPU and level,
  // which every model gets): the iteration builder then collects it (O(N²): small clusters).
  virtual bool needs_pair_traffic() const = 0;
  // `pairs` is given exactly when needs_pair_traffic().
  virtual CollectiveDemand alltoall_demand(const Cluster& cluster, std::span<const int> group,
                                           const LevelTraffic& traffic, const ByteMatrix* pairs,
                                           const CostParams& p) const = 0;
  virtual CollectiveDemand allreduce_demand(const Cluster& cluster, std::span<const int> gpus,
                                            double bytes, const CostParams& p) const = 0;
  virtual CollectiveDemand replica_sync_demand(const Cluster& cluster,
                                               const ReplicaSyncBucket& bucket, ReplicaSync variant,
                                               const CostParams& p) const = 0;
  // Whether the engine moves the demands over shared links; when not, a collective's demand only
  // gives its idle-network time and concurrent collectives do not slow each other down.
  virtual bool shares_links() const = 0;
  // The network over links of these capacities (bytes per second, each > 0); called only when
  // shares_links().
  virtual std::unique_ptr<NetworkModel> make_network(std::vector<double> capacity_Bps,
                                                     const CostParams& p) const = 0;
};

struct NetworkModelInfo {
  std::string_view name;  // as written in simulation.link_sharing
  std::string_view summary;
  int max_gpus = 0;  // largest cluster it may model (0: any)
  const NetworkModelType& model;
};

inline constexpr std::string_view kDefaultNetworkModel = "aggregated";

std::span<const NetworkModelInfo> network_models();
std::vector<std::string> network_model_names();
// The model called `name`: std::invalid_argument when there is none (the scenario loader
// checks names first, with find_network_model).
const NetworkModelInfo& network_model(std::string_view name);
// An unknown name is an InputError at `where` and `key` with a "did you mean".
const NetworkModelInfo& find_network_model(std::string_view name, const SourceLocation& where,
                                           const std::string& key);

}  // namespace shardsim
