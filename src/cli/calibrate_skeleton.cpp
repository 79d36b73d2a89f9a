// What the two fits of `shardsim calibrate` share (cli/cmd_calibrate_skeleton.hpp).
#include "cli/cmd_calibrate_skeleton.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "shardsim/io/override.hpp"

namespace shardsim {

std::optional<Scenario> calibrate_scenario(const CalibrateFlags& f, std::optional<int> nodes) {
  if (f.scenario.empty() && f.sets.empty()) return std::nullopt;
  std::vector<Override> overrides;
  if (f.scenario.empty() && !f.preset.empty()) {
    overrides.push_back({"cluster.preset", f.preset});
    if (nodes) overrides.push_back({"cluster.nodes", std::to_string(*nodes)});
  }
  for (const auto& s : f.sets) overrides.push_back(parse_override(s));
  return f.scenario.empty() ? load_default_scenario(overrides)
                            : load_scenario_file(f.scenario, overrides);
}

CostParams calibrate_start_cost(const CalibrateFlags& f) {
  const std::optional<Scenario> s = calibrate_scenario(f, std::nullopt);
  return s ? s->cost : default_cost_params();
}

CalibrationOptions calibrate_options(const CalibrateFlags& f) {
  CalibrationOptions o;
  o.parameters = f.params;
  o.prior_weight = f.prior_weight;
  o.robust_scale = f.robust_scale;
  return o;
}

std::string calibrate_pct(double x, bool sign) {
  return sign ? fmt::format("{:+.1f}%", 100 * x) : fmt::format("{:.1f}%", 100 * x);
}

double median_abs_error(const std::vector<double>& predicted, const std::vector<double>& measured) {
  std::vector<double> e;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    e.push_back(std::abs(predicted[i] / measured[i] - 1));
  }
  std::sort(e.begin(), e.end());
  const std::size_t n = e.size();
  return n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
}

std::string fit_summary_line(const CalibrationResult& r, const std::vector<double>& measured,
                             const std::vector<double>& left_out) {
  return fmt::format(
      "{} points: median |error| {} with the starting parameters, {} fitted to all{}; "
      "RMS log error {:.4f} -> {:.4f} in {} iterations\n",
      measured.size(), calibrate_pct(median_abs_error(r.before_s, measured), false),
      calibrate_pct(median_abs_error(r.after_s, measured), false),
      left_out.empty() ? ""
                       : fmt::format(", {} each left out",
                                     calibrate_pct(median_abs_error(left_out, measured), false)),
      r.rms_log_error_before, r.rms_log_error_after, r.iterations);
}

std::string fitted_params_text(const CalibrationResult& r, const CostParams& start) {
  std::string text;
  for (const std::string& name : r.fitted) {
    text += fmt::format("{}: {:.6g}  # was {:.6g}\n", name, cost_param_value(r.params, name),
                        cost_param_value(start, name));
  }
  return text;
}

}  // namespace shardsim
