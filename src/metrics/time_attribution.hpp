#pragma once
// Attributes every instant of a time window to exactly one piece of work: where several
// overlap, the one of the lowest rank wins (then the lowest index), and instants no piece
// covers are unattributed. The report's exposed breakdown and per-GPU time shares are built
// on it (docs/report.md, "Exposed time"), so that they add up to the iteration time.
#include <span>
#include <vector>

namespace shardsim {

struct RankedSpan {
  double begin_s = 0;
  double end_s = 0;
  int rank = 0;  // lower wins
};

struct WindowAttribution {
  std::vector<double> by_span_s;  // time attributed to each span, indexed like the input
  double unattributed_s = 0;      // time no span covers
};

// Every instant of [begin_s, end_s) goes to one span or to `unattributed_s`, so the sum of
// `by_span_s` and `unattributed_s` is end_s - begin_s (up to rounding). O(k log k).
WindowAttribution attribute_window(std::span<const RankedSpan> spans, double begin_s, double end_s);

}  // namespace shardsim
