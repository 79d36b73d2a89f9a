// The calibrations' JSON fit summary (cli/calibration_json.hpp).
#include "cli/calibration_json.hpp"

#include <string>

namespace shardsim {

void add_fit_summary_json(nlohmann::ordered_json& out, const CalibrationResult& r,
                          const CostParams& start, double median_start, double median_fitted,
                          std::optional<double> median_left_out) {
  out["median_abs_error"] = {{"start", median_start}, {"fitted", median_fitted}};
  if (median_left_out) out["median_abs_error"]["left_out"] = *median_left_out;
  out["rms_log_error"] = {{"start", r.rms_log_error_before}, {"fitted", r.rms_log_error_after}};
  out["iterations"] = r.iterations;
  out["parameters"] = nlohmann::ordered_json::object();
  for (const std::string& name : r.fitted) {
    out["parameters"][name] = {{"start", cost_param_value(start, name)},
                               {"fitted", cost_param_value(r.params, name)}};
  }
}

}  // namespace shardsim
