#pragma once
// The fit summary that both `shardsim calibrate` outputs end their JSON with (collectives:
// cmd_calibrate.cpp; embedding kernels: cmd_calibrate_kernels.cpp): median |error| before, after
// and left out, RMS log error, iterations, and each fitted parameter's start and fitted values.
#include <nlohmann/json.hpp>
#include <optional>

#include "shardsim/cost/calibration.hpp"
#include "shardsim/cost/cost_params.hpp"

namespace shardsim {

// Adds "median_abs_error", "rms_log_error", "iterations" and "parameters" to `out`.
void add_fit_summary_json(nlohmann::ordered_json& out, const CalibrationResult& r,
                          const CostParams& start, double median_start, double median_fitted,
                          std::optional<double> median_left_out);

}  // namespace shardsim
