#pragma once
// Which of several reports (planners, sweep points) is best: the most QPS, the lowest cost per
// million samples at the scenario's price, or the lowest mean iteration time. `run` and `sweep`
// mark it in the brief (`--best`, docs/report.md "The brief").
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/metrics/report.hpp"

namespace shardsim {

enum class BestBy { qps, cost, iteration };

// "qps", "cost", "iteration".
std::string_view best_by_name(BestBy by);
std::optional<BestBy> best_by_from_name(std::string_view name);
std::vector<std::string> best_by_names();

// The default: cost when the reports carry a price (cluster.price_per_gpu_hour), else QPS.
BestBy default_best_by(std::span<const Report> reports);

// The index of the best simulated report that fits (the first on a tie), or nullopt when none
// has the measure (no timing, or no price for `cost`). Over sweep points of other GPU counts the
// lowest iteration time is not the most throughput: QPS is the default for that reason.
std::optional<std::size_t> best_report(std::span<const Report> reports, BestBy by);

}  // namespace shardsim
