#include "metrics/time_attribution.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace shardsim {

WindowAttribution attribute_window(std::span<const RankedSpan> spans, double begin_s,
                                   double end_s) {
  WindowAttribution out;
  out.by_span_s.assign(spans.size(), 0.0);
  if (end_s <= begin_s) return out;
  // Sweep over the clipped spans' boundaries; the active set is ordered by (rank, index), so
  // its first element owns the time up to the next boundary.
  struct Boundary {
    double t;
    bool opens;
    int index;
  };
  std::vector<Boundary> boundaries;
  boundaries.reserve(2 * spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const double b = std::max(begin_s, spans[i].begin_s);
    const double e = std::min(end_s, spans[i].end_s);
    if (e <= b) continue;
    boundaries.push_back({b, true, static_cast<int>(i)});
    boundaries.push_back({e, false, static_cast<int>(i)});
  }
  // Closings before openings at the same instant: a span ending at t owns nothing after t.
  std::sort(boundaries.begin(), boundaries.end(), [](const Boundary& a, const Boundary& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.opens != b.opens) return !a.opens;
    return a.index < b.index;
  });
  std::set<std::pair<int, int>> active;  // (rank, index)
  double t = begin_s;
  for (const Boundary& x : boundaries) {
    const double length = x.t - t;
    if (length > 0) {
      if (active.empty()) {
        out.unattributed_s += length;
      } else {
        out.by_span_s[static_cast<std::size_t>(active.begin()->second)] += length;
      }
      t = x.t;
    }
    const std::pair<int, int> key{spans[static_cast<std::size_t>(x.index)].rank, x.index};
    if (x.opens) {
      active.insert(key);
    } else {
      active.erase(key);
    }
  }
  out.unattributed_s += end_s - t;
  return out;
}

}  // namespace shardsim
