// libFuzzer target: cost parameters (cost/cost_params.hpp), as a scenario's `cost:` map or as a
// cost file that map names with `file:` (what `shardsim calibrate --out` writes). The first byte
// picks the form (even: the map itself; odd: a file, written to a temporary and named by
// `cost: {file: ...}`); the rest is the YAML text. Invariants for parameters that load: every
// numeric parameter is finite, and every collective of nccl-tests' five on two DGX H100 nodes
// takes a finite, positive time at 8 B, 1 MiB and 1 GiB.
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>

#include "fuzz_support.hpp"
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/cost/collective_predictor.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"

namespace shardsim::fuzz {
namespace {

CostParams load(std::string_view text, bool as_file) {
  if (!as_file) {
    return apply_cost_overrides(default_cost_params(),
                                YamlValue(parse_yaml(text, "fuzz.yaml"), "fuzz.yaml", "cost"));
  }
  static const ScratchFile scratch("shardsim-fuzz-cost", ".yaml");
  const std::string& path = scratch.path;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  const std::string map = "file: " + path + "\n";
  return apply_cost_overrides(default_cost_params(),
                              YamlValue(parse_yaml(map, "fuzz.yaml"), "fuzz.yaml", "cost"));
}

void check(const CostParams& p) {
  for (const std::string& name : cost_param_names()) {
    double v = 0;
    try {
      v = cost_param_value(p, name);
    } catch (const std::invalid_argument&) {
      continue;  // a choice (e.g. collective_model), not a number
    }
    if (!std::isfinite(v)) invariant_failed("a cost parameter that is not finite");
  }
  static const Cluster cluster(builtin_preset("dgx-h100"), 2);
  for (const std::string& op_name : collective_op_names()) {
    const CollectiveOp op = *collective_op_named(op_name);
    for (const double size : {8.0, 1048576.0, 1073741824.0}) {
      const double t = predict_collective(cluster, op, size, p).time_s;
      if (!std::isfinite(t) || !(t > 0)) invariant_failed("a collective time not finite and > 0");
    }
  }
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  using namespace shardsim::fuzz;
  quiet_once();
  if (size == 0) return 0;
  const bool as_file = (data[0] & 1) != 0;
  expect_clean([&] { check(load(text_of(data + 1, size - 1), as_file)); });
  return 0;
}
