#pragma once
// What the two fits of `shardsim calibrate` share (collectives: cmd_calibrate.cpp; embedding
// kernels: cmd_calibrate_kernels.cpp): the scenario and starting cost parameters the flags name,
// the fit's options, each point left out in turn, the errors and the text lines both print.
#include <optional>
#include <string>
#include <vector>

#include "cli/cmd_calibrate.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/cost/calibration.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {

// The scenario a calibration starts from: --scenario FILE, or the built-in default scenario on
// --preset (and `nodes`, when given), each with the --set overrides after. nullopt for a plain
// --preset or --points without --set: the preset alone and configs/cost/default.yaml.
std::optional<Scenario> calibrate_scenario(const CalibrateFlags& flags, std::optional<int> nodes);
// The cost parameters the fit starts from (calibrate_scenario's, or the defaults).
CostParams calibrate_start_cost(const CalibrateFlags& flags);
CalibrationOptions calibrate_options(const CalibrateFlags& flags);

// "+12.3%" with `sign`, "12.3%" without (fmt has no percent presentation).
std::string calibrate_pct(double x, bool sign);
// The median of |predicted / measured - 1|.
double median_abs_error(const std::vector<double>& predicted, const std::vector<double>& measured);
// "N points: median |error| A with the starting parameters, B fitted to all[, C each left out];
// RMS log error X -> Y in I iterations" and a newline.
std::string fit_summary_line(const CalibrationResult& r, const std::vector<double>& measured,
                             const std::vector<double>& left_out);
// One "name: fitted  # was start" line per fitted parameter (a cost file's body).
std::string fitted_params_text(const CalibrationResult& r, const CostParams& start);

// Each point predicted by a fit to all the others: fit_predict(others, point) for each point.
template <class Point, class FitPredict>
std::vector<double> leave_each_out(const std::vector<Point>& points, const char* what,
                                   FitPredict fit_predict) {
  std::vector<double> out;
  Progress progress(what, points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    progress.advance();
    std::vector<Point> others;
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (k != i) others.push_back(points[k]);
    }
    out.push_back(fit_predict(others, points[i]));
  }
  progress.finish();
  return out;
}

}  // namespace shardsim
