#pragma once
// What bounds a simulated iteration (docs/report.md, "The brief"): the kind of work with the
// largest exposed time on the critical GPU, and its share of the iteration. Exposed times add
// up to the iteration (metrics/time_attribution.hpp), so the shares of all kinds add up to 1.
#include <optional>
#include <string>
#include <string_view>

#include "shardsim/metrics/report.hpp"

namespace shardsim {

struct Bottleneck {
  std::string kind;   // "alltoall", "embedding", "dense", "host", ... (kBottleneckKinds)
  std::string label;  // "AlltoAll fwd+bwd", for people
  double exposed_s = 0;
  double share = 0;  // exposed_s / the mean iteration time
};

// The kinds, the phases each gathers, and their labels, in the order ties are broken.
struct BottleneckKind {
  std::string_view kind;
  std::string_view label;
  std::string_view phases;  // space-separated phase names (sim/task.hpp's Phase, and "idle")
};
extern const BottleneckKind kBottleneckKinds[10];

// Nothing when the report was not simulated (or has no breakdown).
std::optional<Bottleneck> report_bottleneck(const Report& r);

// "AlltoAll fwd+bwd 66%" (the bottleneck's share of the iteration), or "host-bound: 2.700 ms
// host step, 55% exposed"; "n/a" when not simulated.
std::string bottleneck_text(const Report& r);

}  // namespace shardsim
