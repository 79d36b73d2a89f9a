#pragma once
// The result of a sizing search (`shardsim size`, docs/report.md "Sizing"), as the writers print
// it (io/sizing_writer.hpp): every probe made, the node counts skipped, the answer and why it is
// the answer (its bound, the runner-up). Plain data: the search is run/sizing_search.hpp, the
// probes' simulations run/scenario_sizing.hpp.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace shardsim {

// What a planner must reach. Neither bound: fitting in memory is enough (`--fit`).
struct SizingTarget {
  std::optional<double> min_qps;          // --target-qps
  std::optional<double> max_iteration_s;  // --max-iteration-ms
};

// One planner's result at one probe.
struct PlannerOutcome {
  std::string planner;
  bool fits = false;  // the plan fits in memory (it was simulated)
  double qps = 0;     // 0 when not simulated
  double iteration_s = std::numeric_limits<double>::quiet_NaN();  // mean; NaN: not simulated
  double memory_max_bytes = 0;       // the fullest GPU's (or what the planner needed)
  double memory_capacity_bytes = 0;  // a GPU's HBM; 0: not known
  // At cluster.price_per_gpu_hour; NaN without a price or without timings.
  double cost_per_million_samples = std::numeric_limits<double>::quiet_NaN();
  // What bounds its iteration (metrics/bottleneck.hpp): kind, "AlltoAll fwd+bwd 66%" and the
  // share; empty / NaN when not simulated.
  std::string bottleneck_kind;
  std::string bottleneck;
  double bottleneck_share = std::numeric_limits<double>::quiet_NaN();
  bool meets = false;  // meets the target (set by the search)
};

struct SizingProbe {
  std::size_t preset = 0;  // index into the presets searched
  int nodes = 0;
  int gpus = 0;
  std::uint32_t batch_per_gpu = 0;
  std::vector<PlannerOutcome> planners;  // in the scenario's order
  bool passes = false;                   // some planner meets the target
};

// The node counts of one preset that could not be probed, and why (the first reason).
struct SkippedNodes {
  std::vector<int> nodes;
  std::string reason;
};

struct SizingAnswer {
  std::size_t probe = 0;    // index into SizingResult::probes
  std::size_t planner = 0;  // index into that probe's planners
};

// What decided the answer's node count: the probe of its preset at the next smaller node count
// probed (`below`), and why it fails there.
enum class SizingDecider {
  smallest,        // no smaller node count of its preset can be probed
  memory,          // below: no planner fits in memory
  qps,             // below: a planner fits, but none reaches the QPS target
  iteration_time,  // below: a planner fits, but none is fast enough per iteration
};

struct SizingBound {
  SizingDecider decided_by = SizingDecider::smallest;
  std::optional<std::size_t> below;  // index into SizingResult::probes
  // The planner quoted at `below`: with `memory`, the one that needs the least memory; with
  // `qps` / `iteration_time`, the fastest that fits.
  std::optional<std::size_t> below_planner;
};

struct SizingResult {
  std::vector<SizingProbe> probes;    // every probe made, by preset then node count
  std::vector<SkippedNodes> skipped;  // per preset
  // Fewest GPUs; ties: higher QPS, then the planner's order, then the preset's. None: no probe
  // passes.
  std::optional<SizingAnswer> answer;
  // With an answer: what decided its node count.
  std::optional<SizingBound> bound;
  // The best passing outcome of another preset/planner combination among the probes made (as
  // `answer` orders them); none when no other combination passes.
  std::optional<SizingAnswer> runner_up;
};

// A sizing search of a scenario, with what was asked.
struct ScenarioSizing {
  std::string scenario;              // the scenario's name
  std::string source;                // its file
  std::vector<std::string> presets;  // the names searched (SizingProbe::preset indexes it)
  std::uint64_t global_batch = 0;    // workload.global_batch; 0: batch_per_gpu as written
  bool priced = false;               // cluster.price_per_gpu_hour is given
  SizingTarget target;               // as asked (--target-qps, --max-iteration-ms)
  double margin_pct = 0;             // --margin: sized for the target x (1 + margin_pct / 100)
  std::string margin_source;         // why that margin when it is the default; empty: given
  SizingTarget sized;                // the target the search used (with the margin)
  int max_nodes = 0;
  bool exhaustive = false;  // every node count probed (the brute force)
  SizingResult result;
  std::size_t probes_kept = 0;       // taken from the store (a resumed search)
  std::size_t probes_simulated = 0;  // simulated by this search
};

// `target` with a margin of `margin_pct` percent: QPS x (1 + m), iteration time / (1 + m).
SizingTarget with_margin(const SizingTarget& target, double margin_pct);

// "3, 5-7, 9-15": sorted node counts as ranges.
std::string node_ranges(const std::vector<int>& nodes);

}  // namespace shardsim
