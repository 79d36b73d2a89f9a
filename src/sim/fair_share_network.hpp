#pragma once
// Links as shared resources: a flow-level network model with max-min fair sharing
// (docs/model.md, "Link sharing"). Each flow carries bytes over a fixed set of directed links;
// whenever flows start or finish, the rates of the flows connected to them (through shared
// links, transitively) are recomputed by progressive filling: repeatedly take the link whose
// remaining capacity divided by its unassigned flows is smallest, give each of those flows that
// share, and subtract it from every other link they cross (Bertsekas & Gallager, Data
// Networks, §6.5.2). A flow over one link gets that link's capacity divided by its flows.
//
// Only the connected component of the flow/link graph around a change is recomputed, so a
// collective aggregated to one flow per link costs O(flows on the link) per change.
// Utilisation (the summed rate over the capacity) is recorded per link at every change.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "shardsim/sim/network_model.hpp"

namespace shardsim {

// The network of `simulation.link_sharing: aggregated | per_flow | interference`
// (network_model.hpp). With an `interference_loss` L > 0, a link that k > 1 flows share delivers
// capacity · (1 − L·(1 − 1/k)) among them (docs/model.md, "Interference"); utilisation stays
// relative to the full capacity.
class FairShareNetwork final : public NetworkModel {
 public:
  // Capacities in bytes per second, per link id; each must be > 0. interference_loss in [0, 1).
  explicit FairShareNetwork(std::vector<double> capacity_Bps, double interference_loss = 0);

  int num_links() const { return static_cast<int>(capacity_.size()); }
  double capacity_Bps(int link) const { return capacity_[static_cast<std::size_t>(link)]; }

  // Adds a flow of `bytes` (> 0) over `links` (valid ids, at least one) starting at `now`, with
  // a caller's `tag` returned when it completes. Rates are recomputed by update().
  void add_flow(double now, std::span<const int> links, double bytes, int tag) override;
  // Recomputes the rates of every component touched since the last update (added or finished
  // flows). Call once after a batch of add_flow / complete_due at the same time.
  void update(double now) override;
  // The earliest completion time among active flows (infinity when none). Valid after update().
  double next_completion_s() override;
  // Removes the flows that complete at `now` (within a relative 1e-12) and appends their tags
  // to `tags`; then call update(now).
  void complete_due(double now, std::vector<int>& tags) override;

  int active_flows() const { return active_; }
  // The current rate of a flow id (0 when finished), for tests.
  double rate_Bps(int flow) const { return flows_[static_cast<std::size_t>(flow)].rate; }
  int last_flow_id() const { return static_cast<int>(flows_.size()) - 1; }
  // Entries in the completion heap, stale ones included (for tests: at most 2 · active + 1024
  // after update()).
  std::size_t pending_entries() const { return due_.size(); }
  // Utilisation changes, in time order (one sample per link whose summed rate changed).
  const std::vector<LinkSample>& samples() const { return samples_; }
  std::vector<LinkSample> take_samples() override { return std::move(samples_); }

 private:
  struct Flow {
    double remaining = 0;  // bytes left at `updated_s`
    double rate = 0;       // bytes per second since `updated_s`
    double updated_s = 0;
    std::uint32_t first_link = 0;  // into flow_links_ (flows over two or more links)
    std::uint32_t num_links = 0;
    std::uint32_t version = 0;
    int tag = 0;
    int only_link = -1;  // the link of a one-link flow (aggregated demands), kept inline
    int only_pos = -1;   // its index in link_flows_[only_link]
    bool active = false;
  };
  struct Due {
    double time_s;
    int flow;
    std::uint32_t version;
  };
  struct Later {
    bool operator()(const Due& a, const Due& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      return a.flow > b.flow;
    }
  };

  std::span<const int> links_of(const Flow& f) const {
    if (f.num_links == 1) return {&f.only_link, 1};
    return {flow_links_.data() + f.first_link, f.num_links};
  }
  // The flow's index in link_flows_ of each of its links (parallel to links_of).
  std::span<int> positions_of(Flow& f) {
    if (f.num_links == 1) return {&f.only_pos, 1};
    return {flow_link_pos_.data() + f.first_link, f.num_links};
  }
  double effective_capacity_Bps(std::size_t link) const;
  void mark_dirty(int link);
  void solve_component(double now, int seed_link);
  bool solve_single_link(double now, int link);
  // The steps of solve_component, on the component held in comp_links_ and comp_flows_.
  void collect_component(int seed_link);
  void settle_component(double now);
  void fill_component();
  void reschedule_component(double now);
  void sample_component_links(double now);
  void push_due(const Due& d);
  void pop_due();
  bool is_live(const Due& d) const;
  void compact_due();

  std::vector<double> capacity_;
  double interference_loss_ = 0;
  std::vector<std::vector<int>> link_flows_;  // active flow ids per link
  std::vector<double> link_rate_;             // summed rate per link
  std::vector<Flow> flows_;
  std::vector<int> flow_links_;
  std::vector<int> flow_link_pos_;  // parallel to flow_links_: the flow's index on that link
  std::vector<int> free_flow_ids_;  // finished ids, reused (multi-link slots are not)
  // Pending completions, a binary heap under Later with lazy deletion: a rate change pushes a
  // new entry and leaves the old one stale. When stale entries outnumber the live ones the heap
  // is rebuilt from the live ones (compact_due), so a link whose k flows are rescheduled at each
  // completion costs O(k) pushes, not O(k) pops of stale entries later as well. Live entries
  // are unique in (time, flow), so the order completions come out in does not change.
  std::vector<Due> due_;
  std::vector<int> dirty_;
  std::vector<std::uint32_t> link_mark_;  // epoch stamps for the component search
  std::vector<std::uint32_t> flow_mark_;
  std::uint32_t epoch_ = 0;
  std::vector<LinkSample> samples_;
  int active_ = 0;
  // Scratch of solve_component.
  std::vector<int> comp_links_, comp_flows_, stack_;
  std::vector<double> rem_cap_;
  std::vector<double> old_rate_;
  std::vector<int> unassigned_;
  std::vector<char> assigned_;
};

}  // namespace shardsim
