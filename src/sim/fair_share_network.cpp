// Max-min fair sharing of links between flows (see fair_share_network.hpp, docs/model.md).
#include "sim/fair_share_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shardsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Completion times within this relative distance of `now` count as `now`: flows of one
// collective that should end together end in one batch despite rounding.
double due_horizon(double now) {
  return now + 1e-12 * std::abs(now) + 1e-18;
}

}  // namespace

FairShareNetwork::FairShareNetwork(std::vector<double> capacity_Bps, double interference_loss)
    : capacity_(std::move(capacity_Bps)), interference_loss_(interference_loss) {
  if (!(interference_loss_ >= 0 && interference_loss_ < 1)) {
    throw std::invalid_argument(
        fmt::format("interference loss {}: must be in [0, 1)", interference_loss_));
  }
  for (std::size_t l = 0; l < capacity_.size(); ++l) {
    if (!(capacity_[l] > 0) || !std::isfinite(capacity_[l])) {
      throw std::invalid_argument(
          fmt::format("link {} has capacity {} B/s: must be finite and > 0", l, capacity_[l]));
    }
  }
  const std::size_t n = capacity_.size();
  link_flows_.resize(n);
  link_rate_.assign(n, 0.0);
  link_mark_.assign(n, 0);
  rem_cap_.assign(n, 0.0);
  unassigned_.assign(n, 0);
}

double FairShareNetwork::effective_capacity_Bps(std::size_t link) const {
  const std::size_t k = link_flows_[link].size();
  if (interference_loss_ == 0 || k <= 1) return capacity_[link];
  return capacity_[link] * (1 - interference_loss_ * (1 - 1 / static_cast<double>(k)));
}

void FairShareNetwork::mark_dirty(int link) {
  dirty_.push_back(link);
}

void FairShareNetwork::add_flow(double now, std::span<const int> links, double bytes, int tag) {
  if (!(bytes > 0) || !std::isfinite(bytes) || links.empty()) {
    throw std::invalid_argument(fmt::format(
        "a flow needs bytes > 0 and at least one link (bytes {}, {} links)", bytes, links.size()));
  }
  int id;
  if (!free_flow_ids_.empty()) {
    id = free_flow_ids_.back();
    free_flow_ids_.pop_back();
  } else {
    id = static_cast<int>(flows_.size());
    flows_.emplace_back();
    flow_mark_.push_back(0);
    assigned_.push_back(0);
  }
  Flow& f = flows_[static_cast<std::size_t>(id)];
  f.remaining = bytes;
  f.rate = 0;
  f.updated_s = now;
  for (int l : links) {
    if (l < 0 || l >= num_links()) {
      throw std::invalid_argument(fmt::format("flow over link {} of {}", l, num_links()));
    }
  }
  f.num_links = static_cast<std::uint32_t>(links.size());
  f.tag = tag;
  f.active = true;
  ++f.version;
  if (links.size() == 1) {
    f.only_link = links.front();
  } else {
    f.first_link = static_cast<std::uint32_t>(flow_links_.size());
    flow_links_.insert(flow_links_.end(), links.begin(), links.end());
    flow_link_pos_.resize(flow_links_.size());
  }
  const std::span<int> pos = positions_of(f);
  for (std::size_t k = 0; k < links.size(); ++k) {
    auto& on_link = link_flows_[static_cast<std::size_t>(links[k])];
    pos[k] = static_cast<int>(on_link.size());
    on_link.push_back(id);
    mark_dirty(links[k]);
  }
  ++active_;
}

void FairShareNetwork::update(double now) {
  if (dirty_.empty()) return;
  ++epoch_;
  for (std::size_t k = 0; k < dirty_.size(); ++k) solve_component(now, dirty_[k]);
  dirty_.clear();
  compact_due();
}

void FairShareNetwork::push_due(const Due& d) {
  due_.push_back(d);
  std::push_heap(due_.begin(), due_.end(), Later{});
}

void FairShareNetwork::pop_due() {
  std::pop_heap(due_.begin(), due_.end(), Later{});
  due_.pop_back();
}

bool FairShareNetwork::is_live(const Due& d) const {
  const Flow& f = flows_[static_cast<std::size_t>(d.flow)];
  return f.active && f.version == d.version;
}

void FairShareNetwork::compact_due() {
  if (due_.size() <= 2 * static_cast<std::size_t>(active_) + 1024) return;
  std::erase_if(due_, [this](const Due& d) { return !is_live(d); });
  std::make_heap(due_.begin(), due_.end(), Later{});
}

bool FairShareNetwork::solve_single_link(double now, int link) {
  // Fast path, the common case of aggregated collectives: every flow on the link crosses only
  // this link, so the component is the link and max-min gives each flow capacity / count.
  const auto l = static_cast<std::size_t>(link);
  const std::vector<int>& on_link = link_flows_[l];
  for (int id : on_link) {
    if (flows_[static_cast<std::size_t>(id)].num_links != 1) return false;
  }
  link_mark_[l] = epoch_;
  const double share =
      on_link.empty() ? 0.0 : effective_capacity_Bps(l) / static_cast<double>(on_link.size());
  for (int id : on_link) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    if (f.rate == share) continue;  // its pending completion stays right
    f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.updated_s));
    f.updated_s = now;
    f.rate = share;
    ++f.version;
    push_due(Due{now + f.remaining / f.rate, id, f.version});
  }
  const double sum = share * static_cast<double>(on_link.size());
  if (sum != link_rate_[l]) {
    link_rate_[l] = sum;
    samples_.push_back(LinkSample{now, link, sum / capacity_[l]});
  }
  return true;
}

void FairShareNetwork::solve_component(double now, int seed_link) {
  if (link_mark_[static_cast<std::size_t>(seed_link)] == epoch_) return;
  if (solve_single_link(now, seed_link)) return;
  collect_component(seed_link);
  settle_component(now);
  fill_component();
  reschedule_component(now);
  sample_component_links(now);
}

// The connected component of links and flows around the seed.
void FairShareNetwork::collect_component(int seed_link) {
  comp_links_.clear();
  comp_flows_.clear();
  stack_.clear();
  stack_.push_back(seed_link);
  link_mark_[static_cast<std::size_t>(seed_link)] = epoch_;
  while (!stack_.empty()) {
    const int l = stack_.back();
    stack_.pop_back();
    comp_links_.push_back(l);
    for (int f : link_flows_[static_cast<std::size_t>(l)]) {
      if (flow_mark_[static_cast<std::size_t>(f)] == epoch_) continue;
      flow_mark_[static_cast<std::size_t>(f)] = epoch_;
      comp_flows_.push_back(f);
      for (int m : links_of(flows_[static_cast<std::size_t>(f)])) {
        if (link_mark_[static_cast<std::size_t>(m)] == epoch_) continue;
        link_mark_[static_cast<std::size_t>(m)] = epoch_;
        stack_.push_back(m);
      }
    }
  }
}

// Bytes moved so far at the old rates (kept in old_rate_).
void FairShareNetwork::settle_component(double now) {
  old_rate_.clear();
  for (int id : comp_flows_) {
    Flow& f = flows_[static_cast<std::size_t>(id)];
    f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.updated_s));
    f.updated_s = now;
    assigned_[static_cast<std::size_t>(id)] = 0;
    old_rate_.push_back(f.rate);
  }
}

// Progressive filling: the link with the smallest fair share fixes its unassigned flows.
void FairShareNetwork::fill_component() {
  for (int l : comp_links_) {
    rem_cap_[static_cast<std::size_t>(l)] = effective_capacity_Bps(static_cast<std::size_t>(l));
    unassigned_[static_cast<std::size_t>(l)] =
        static_cast<int>(link_flows_[static_cast<std::size_t>(l)].size());
  }
  std::size_t left = comp_flows_.size();
  while (left > 0) {
    int best = -1;
    double best_share = kInf;
    for (int l : comp_links_) {
      const int u = unassigned_[static_cast<std::size_t>(l)];
      if (u == 0) continue;
      const double share = std::max(0.0, rem_cap_[static_cast<std::size_t>(l)]) / u;
      if (share < best_share) {
        best_share = share;
        best = l;
      }
    }
    for (int id : link_flows_[static_cast<std::size_t>(best)]) {
      if (assigned_[static_cast<std::size_t>(id)]) continue;
      assigned_[static_cast<std::size_t>(id)] = 1;
      --left;
      Flow& f = flows_[static_cast<std::size_t>(id)];
      f.rate = best_share;
      for (int m : links_of(f)) {
        rem_cap_[static_cast<std::size_t>(m)] -= best_share;
        --unassigned_[static_cast<std::size_t>(m)];
      }
    }
  }
}

// A new completion for every flow whose rate changed.
void FairShareNetwork::reschedule_component(double now) {
  for (std::size_t k = 0; k < comp_flows_.size(); ++k) {
    const int id = comp_flows_[k];
    Flow& f = flows_[static_cast<std::size_t>(id)];
    // Same rate: its pending completion is still right (the same instant, reached from an
    // earlier point), so it keeps its entry.
    if (f.rate == old_rate_[k] && f.rate > 0) continue;
    ++f.version;
    const double t = f.rate > 0 ? now + f.remaining / f.rate : kInf;
    push_due(Due{t, id, f.version});
  }
}

// A utilisation sample for every link whose summed rate changed.
void FairShareNetwork::sample_component_links(double now) {
  for (int l : comp_links_) {
    double sum = 0;
    for (int id : link_flows_[static_cast<std::size_t>(l)]) {
      sum += flows_[static_cast<std::size_t>(id)].rate;
    }
    if (sum != link_rate_[static_cast<std::size_t>(l)]) {
      link_rate_[static_cast<std::size_t>(l)] = sum;
      samples_.push_back(LinkSample{now, l, sum / capacity_[static_cast<std::size_t>(l)]});
    }
  }
}

double FairShareNetwork::next_completion_s() {
  while (!due_.empty()) {
    const Due& d = due_.front();
    if (is_live(d)) return d.time_s;
    pop_due();  // stale: the flow finished or its rate changed since
  }
  return kInf;
}

void FairShareNetwork::complete_due(double now, std::vector<int>& tags) {
  const double horizon = due_horizon(now);
  while (!due_.empty() && due_.front().time_s <= horizon) {
    const Due d = due_.front();
    pop_due();
    if (!is_live(d)) continue;
    Flow& f = flows_[static_cast<std::size_t>(d.flow)];
    f.active = false;
    f.rate = 0;
    f.remaining = 0;
    --active_;
    tags.push_back(f.tag);
    // Swap-remove from each link, by the flow's stored index there (no search); the flow moved
    // into its slot learns its new index.
    const std::span<const int> links = links_of(f);
    const std::span<int> pos = positions_of(f);
    for (std::size_t k = 0; k < links.size(); ++k) {
      const int l = links[k];
      auto& on_link = link_flows_[static_cast<std::size_t>(l)];
      const int moved = on_link.back();
      on_link[static_cast<std::size_t>(pos[k])] = moved;
      Flow& m = flows_[static_cast<std::size_t>(moved)];
      const std::span<const int> m_links = links_of(m);
      const std::span<int> m_pos = positions_of(m);
      for (std::size_t j = 0; j < m_links.size(); ++j) {
        if (m_links[j] == l) m_pos[j] = pos[k];
      }
      on_link.pop_back();
      mark_dirty(l);
    }
    free_flow_ids_.push_back(d.flow);
  }
}

}  // namespace shardsim
