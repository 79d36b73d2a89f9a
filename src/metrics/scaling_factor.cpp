#include "shardsim/metrics/scaling_factor.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace shardsim {

namespace {

bool has_qps(const Report& r) {
  return r.fits_in_memory && !r.iteration_times_s.empty() && r.qps > 0 && std::isfinite(r.qps);
}

// One text per coordinate list (keys and values cannot hold '\n' unescaped: YAML flow text).
std::string coordinate_key(const SweepCoordinates& c) {
  std::string out;
  for (const auto& [k, v] : c) out += k + '\n' + v + '\n';
  return out;
}

// The reports of one planner and seed, in sweep order, and their points by coordinates.
struct Series {
  std::vector<std::size_t> members;
  std::unordered_map<std::string, std::size_t> by_point;
};

// Whether the values of keys a and b determine each other over the series (a zip group, or
// keys that never vary): then they are one axis, set together.
bool covary(std::size_t a, std::size_t b, const Series& s,
            std::span<const SweepCoordinates> coords) {
  std::unordered_map<std::string, std::string> ab, ba;
  for (const std::size_t i : s.members) {
    const SweepCoordinates& c = coords[i];
    if (c.size() <= std::max(a, b)) return false;
    const auto [x, new_x] = ab.emplace(c[a].second, c[b].second);
    const auto [y, new_y] = ba.emplace(c[b].second, c[a].second);
    if ((!new_x && x->second != c[b].second) || (!new_y && y->second != c[a].second)) {
      return false;
    }
  }
  return true;
}

// The sweep's axes: its keys grouped by covary, each axis its keys' indices in key order.
std::vector<std::vector<std::size_t>> axes_of(const Series& s,
                                              std::span<const SweepCoordinates> coords) {
  const std::size_t keys = coords[s.members.front()].size();
  std::vector<std::vector<std::size_t>> axes;
  std::vector<bool> placed(keys, false);
  for (std::size_t k = 0; k < keys; ++k) {
    if (placed[k]) continue;
    axes.push_back({k});
    for (std::size_t m = k + 1; m < keys; ++m) {
      if (!placed[m] && covary(k, m, s, coords)) {
        axes.back().push_back(m);
        placed[m] = true;
      }
    }
  }
  return axes;
}

// The point of report i with one axis set to its first values (the series' first report's),
// when that point ran with a QPS and another GPU count: the first such axis in key order.
std::optional<std::size_t> reference_of(std::size_t i, const Series& s,
                                        const std::vector<std::vector<std::size_t>>& axes,
                                        std::span<const Report> reports,
                                        std::span<const SweepCoordinates> coords) {
  const SweepCoordinates& first = coords[s.members.front()];
  const SweepCoordinates& mine = coords[i];
  if (first.size() != mine.size()) return std::nullopt;
  for (const std::vector<std::size_t>& axis : axes) {
    SweepCoordinates held = mine;
    bool moved = false;
    for (const std::size_t k : axis) {
      if (held[k].first != first[k].first) return std::nullopt;  // not one sweep's points
      moved = moved || held[k].second != first[k].second;
      held[k].second = first[k].second;
    }
    if (!moved) continue;
    const auto it = s.by_point.find(coordinate_key(held));
    if (it == s.by_point.end()) continue;
    const Report& ref = reports[it->second];
    if (has_qps(ref) && ref.num_gpus != reports[i].num_gpus) return it->second;
  }
  return std::nullopt;
}

}  // namespace

void assign_scaling_factors(std::span<Report> reports, std::span<const SweepCoordinates> coords) {
  if (coords.size() != reports.size()) {
    throw std::invalid_argument("assign_scaling_factors: one coordinate list per report");
  }
  std::map<std::pair<std::string, std::uint64_t>, Series> series;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    reports[i].scaling_factor = std::nan("");
    if (reports[i].sweep_point.empty()) continue;
    Series& s = series[{reports[i].planner, reports[i].seed}];
    s.members.push_back(i);
    s.by_point.emplace(coordinate_key(coords[i]), i);  // the first of two equal points
  }
  for (const auto& entry : series) {
    const Series& s = entry.second;
    const std::vector<std::vector<std::size_t>> axes = axes_of(s, coords);
    for (const std::size_t i : s.members) {
      Report& r = reports[i];
      if (!has_qps(r)) continue;
      const std::optional<std::size_t> ref = reference_of(i, s, axes, reports, coords);
      if (!ref) continue;
      const Report& base = reports[*ref];
      r.scaling_factor = (r.qps / base.qps) / (static_cast<double>(r.num_gpus) / base.num_gpus);
    }
  }
}

void assign_scaling_factors(std::span<Report> reports) {
  std::vector<SweepCoordinates> coords;
  coords.reserve(reports.size());
  for (const Report& r : reports) coords.push_back({{"sweep", r.sweep_point}});
  assign_scaling_factors(reports, coords);
}

}  // namespace shardsim
