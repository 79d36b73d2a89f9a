// The best of several reports (metrics/best_report.hpp).
#include "shardsim/metrics/best_report.hpp"

#include <algorithm>
#include <cmath>

namespace shardsim {

namespace {

struct BestByName {
  BestBy by;
  std::string_view name;
};
constexpr BestByName kBestBy[] = {
    {BestBy::qps, "qps"}, {BestBy::cost, "cost"}, {BestBy::iteration, "iteration"}};

bool simulated(const Report& r) {
  return r.fits_in_memory && !r.iteration_times_s.empty() && std::isfinite(r.qps) && r.qps > 0;
}

// The measure of `r` to maximise, or nullopt when it has none.
std::optional<double> score(const Report& r, BestBy by) {
  if (!simulated(r)) return std::nullopt;
  switch (by) {
    case BestBy::qps:
      return r.qps;
    case BestBy::cost:
      if (!r.cost || !std::isfinite(r.cost->cost_per_million_samples)) return std::nullopt;
      return -r.cost->cost_per_million_samples;
    case BestBy::iteration:
      if (!std::isfinite(r.iteration_time.mean_s)) return std::nullopt;
      return -r.iteration_time.mean_s;
  }
  return std::nullopt;
}

}  // namespace

std::string_view best_by_name(BestBy by) {
  for (const BestByName& b : kBestBy) {
    if (b.by == by) return b.name;
  }
  return "qps";
}

std::optional<BestBy> best_by_from_name(std::string_view name) {
  for (const BestByName& b : kBestBy) {
    if (b.name == name) return b.by;
  }
  return std::nullopt;
}

std::vector<std::string> best_by_names() {
  std::vector<std::string> out;
  for (const BestByName& b : kBestBy) out.emplace_back(b.name);
  return out;
}

BestBy default_best_by(std::span<const Report> reports) {
  const bool priced = std::any_of(reports.begin(), reports.end(),
                                  [](const Report& r) { return r.cost.has_value(); });
  return priced ? BestBy::cost : BestBy::qps;
}

std::optional<std::size_t> best_report(std::span<const Report> reports, BestBy by) {
  std::optional<std::size_t> best;
  std::optional<double> best_score;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const std::optional<double> s = score(reports[i], by);
    if (s && (!best_score || *s > *best_score)) {
      best = i;
      best_score = s;
    }
  }
  return best;
}

}  // namespace shardsim
