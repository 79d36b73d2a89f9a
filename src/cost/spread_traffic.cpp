// One-to-many traffic spread over levels without its pairs (cost/spread_traffic.hpp).
#include "shardsim/cost/spread_traffic.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "shardsim/hw/level_table.hpp"

namespace shardsim {

namespace {

// Sent or received at one end of a spread, as the direction says.
void add_end(LevelTraffic& out, bool sender, int gpu, int level, double bytes) {
  if (bytes == 0) return;
  if (sender) {
    out.add_sent(gpu, level, bytes);
  } else {
    out.add_received(gpu, level, bytes);
  }
}

}  // namespace

SpreadTraffic::SpreadTraffic(const Cluster& cluster, std::vector<int> group_of)
    : cluster_(&cluster),
      n_(cluster.num_gpus()),
      levels_(cluster.num_levels()),
      group_of_(std::move(group_of)) {
  const auto un = static_cast<std::size_t>(n_);
  if (group_of_.empty()) group_of_.assign(un, 0);
  if (group_of_.size() != un) throw std::invalid_argument("SpreadTraffic: one group per GPU");
  int groups = 0;
  for (int g : group_of_) {
    if (g < 0) throw std::invalid_argument("SpreadTraffic: a negative group");
    groups = std::max(groups, g + 1);
  }
  members_.resize(static_cast<std::size_t>(groups));
  for (int g = 0; g < n_; ++g) members_[static_cast<std::size_t>(group_of_[g])].push_back(g);
  container_.assign(static_cast<std::size_t>(levels_), {});
  containers_.assign(static_cast<std::size_t>(levels_), 0);
  for (int level = 1; level < levels_; ++level) {
    std::vector<int>& c = container_[static_cast<std::size_t>(level)];
    c.resize(un);
    for (int g = 0; g < n_; ++g) {
      c[g] = level == 1 ? cluster.scale_up_domain_of(g) : cluster.tier_group_of(g, level - 2);
    }
    containers_[static_cast<std::size_t>(level)] = *std::max_element(c.begin(), c.end()) + 1;
  }
  // Nested: the GPUs of one container at a level share their container at every level above.
  for (int level = 2; level < levels_ && nested_; ++level) {
    std::vector<int> parent(static_cast<std::size_t>(containers_[level - 1]), -1);
    for (int g = 0; g < n_; ++g) {
      int& p = parent[static_cast<std::size_t>(container_[level - 1][g])];
      const int here = container_[static_cast<std::size_t>(level)][g];
      if (p < 0) p = here;
      if (p != here) nested_ = false;
    }
  }
  to_all_.assign(un, 0.0);
  to_group_.assign(un, 0.0);
}

void SpreadTraffic::add(int owner, double amount, bool in_group) {
  if (owner < 0 || owner >= n_) throw std::out_of_range("SpreadTraffic: owner outside the cluster");
  if (amount == 0) return;
  (in_group ? to_group_ : to_all_)[static_cast<std::size_t>(owner)] += amount;
  empty_ = false;
}

void SpreadTraffic::add_to(LevelTraffic& out, double scale, bool reversed,
                           int requester_group) const {
  if (out.num_gpus() != n_ || out.num_levels() != levels_) {
    throw std::invalid_argument("SpreadTraffic: a LevelTraffic of another cluster");
  }
  if (empty_) return;
  if (!nested_) {
    add_pairs(out, scale, reversed, requester_group);
    return;
  }
  if (out.has_domain_pairs()) add_domain_pairs(out, scale, reversed, requester_group);
  add_to_all(out, scale, reversed, requester_group);
  add_to_groups(out, scale, reversed, requester_group);
}

// Every owner to every requester: at level L a requester g receives the owners' amounts summed
// over its level-L container less its level-(L-1) one (its own amount at L = 1), and an owner o
// sends its amount times the requesters in its level-L container less those in its (L-1) one.
void SpreadTraffic::add_to_all(LevelTraffic& out, double scale, bool reversed,
                               int requester_group) const {
  const auto in_r = [&](int g) { return requester_group < 0 || group_of_[g] == requester_group; };
  // On a mesh level 1 went pair by pair (add_domain_pairs): its sums only start the levels above.
  const int first = out.has_domain_pairs() ? 2 : 1;
  std::vector<double> amount_below(static_cast<std::size_t>(n_)), count_below(amount_below.size());
  for (int g = 0; g < n_; ++g) {
    amount_below[g] = to_all_[g];
    count_below[g] = in_r(g) ? 1 : 0;
  }
  std::vector<double> a, k;
  for (int level = 1; level < levels_; ++level) {
    const std::vector<int>& c = container_[static_cast<std::size_t>(level)];
    a.assign(static_cast<std::size_t>(containers_[level]), 0.0);
    k.assign(a.size(), 0.0);
    for (int g = 0; g < n_; ++g) {
      a[c[g]] += to_all_[g];
      k[c[g]] += in_r(g) ? 1 : 0;
    }
    for (int g = 0; g < n_; ++g) {
      if (level >= first && in_r(g)) {
        add_end(out, reversed, g, level, (a[c[g]] - amount_below[g]) * scale);
      }
      if (level >= first && to_all_[g] != 0) {
        add_end(out, !reversed, g, level, to_all_[g] * (k[c[g]] - count_below[g]) * scale);
      }
      amount_below[g] = a[c[g]];
      count_below[g] = k[c[g]];
    }
  }
}

// Each owner to the other GPUs of its group: the sums above, over one group's GPUs at a time.
void SpreadTraffic::add_to_groups(LevelTraffic& out, double scale, bool reversed,
                                  int requester_group) const {
  const int first = out.has_domain_pairs() ? 2 : 1;
  std::vector<double> amount_below, count_below, a, k;
  for (std::size_t grp = 0; grp < members_.size(); ++grp) {
    if (requester_group >= 0 && static_cast<int>(grp) != requester_group) continue;
    const std::vector<int>& m = members_[grp];
    bool any = false;
    for (int g : m) any = any || to_group_[g] != 0;
    if (!any) continue;
    amount_below.assign(m.size(), 0.0);
    count_below.assign(m.size(), 1.0);
    for (std::size_t i = 0; i < m.size(); ++i) amount_below[i] = to_group_[m[i]];
    for (int level = 1; level < levels_; ++level) {
      const std::vector<int>& c = container_[static_cast<std::size_t>(level)];
      a.assign(static_cast<std::size_t>(containers_[level]), 0.0);
      k.assign(a.size(), 0.0);
      for (int g : m) {
        a[c[g]] += to_group_[g];
        k[c[g]] += 1;
      }
      for (std::size_t i = 0; i < m.size(); ++i) {
        const int g = m[i];
        if (level >= first) {
          add_end(out, reversed, g, level, (a[c[g]] - amount_below[i]) * scale);
          add_end(out, !reversed, g, level, to_group_[g] * (k[c[g]] - count_below[i]) * scale);
        }
        amount_below[i] = a[c[g]];
        count_below[i] = k[c[g]];
      }
    }
  }
}

// The pairs (o, g) for g in [first(o), last(o)) one by one, at level(o, g).
template <typename Range, typename Level>
void SpreadTraffic::add_pair_range(LevelTraffic& out, double scale, bool reversed,
                                   int requester_group, Range range, Level level) const {
  for (int o = 0; o < n_; ++o) {
    if (to_all_[o] == 0 && to_group_[o] == 0) continue;
    const auto [first, last] = range(o);
    for (int g = first; g < last; ++g) {
      if (g == o) continue;
      if (requester_group >= 0 && group_of_[g] != requester_group) continue;
      double amount = to_all_[o];
      if (group_of_[g] == group_of_[o]) amount += to_group_[o];
      if (amount == 0) continue;
      if (reversed) {
        out.add(g, o, level(g, o), amount * scale);
      } else {
        out.add(o, g, level(o, g), amount * scale);
      }
    }
  }
}

void SpreadTraffic::add_domain_pairs(LevelTraffic& out, double scale, bool reversed,
                                     int requester_group) const {
  const int d = cluster_->gpus_per_scale_up_domain();
  add_pair_range(
      out, scale, reversed, requester_group,
      [&](int o) {
        return std::pair<int, int>{o / d * d, std::min(o / d * d + d, n_)};
      },
      [](int, int) { return 1; });
}

void SpreadTraffic::add_pairs(LevelTraffic& out, double scale, bool reversed,
                              int requester_group) const {
  const LevelTable levels(*cluster_);
  add_pair_range(
      out, scale, reversed, requester_group,
      [&](int) {
        return std::pair<int, int>{0, n_};
      },
      [&](int a, int b) { return levels.level(a, b); });
}

void SpreadTraffic::add_to_units(ByteMatrix& out, const std::vector<int>& unit_of, int count,
                                 double scale, bool reversed) const {
  if (empty_ || count == 0) return;
  if (out.size() != count || unit_of.size() != static_cast<std::size_t>(n_)) {
    throw std::invalid_argument("SpreadTraffic: a unit matrix of another shape");
  }
  const auto uc = static_cast<std::size_t>(count);
  const auto put = [&](int from, int to, double bytes) {
    if (bytes == 0) return;
    if (reversed) {
      out.at(to, from) += bytes;
    } else {
      out.at(from, to) += bytes;
    }
  };
  // Owners of unit U send amount x (GPUs of u, less the owner itself when u = U) to unit u.
  const auto spread = [&](const std::vector<int>& gpus, const std::vector<double>& amount) {
    std::vector<double> sum(uc, 0.0), gpus_in(uc, 0.0);
    for (int g : gpus) {
      sum[static_cast<std::size_t>(unit_of[g])] += amount[g];
      gpus_in[static_cast<std::size_t>(unit_of[g])] += 1;
    }
    for (std::size_t from = 0; from < uc; ++from) {
      if (sum[from] == 0) continue;
      for (std::size_t to = 0; to < uc; ++to) {
        const double pairs = sum[from] * gpus_in[to] - (from == to ? sum[from] : 0.0);
        put(static_cast<int>(from), static_cast<int>(to), pairs * scale);
      }
    }
  };
  std::vector<int> all(static_cast<std::size_t>(n_));
  for (int g = 0; g < n_; ++g) all[g] = g;
  spread(all, to_all_);
  for (const std::vector<int>& m : members_) {
    bool any = false;
    for (int g : m) any = any || to_group_[g] != 0;
    if (any) spread(m, to_group_);
  }
}

}  // namespace shardsim
