#pragma once
// `shardsim calibrate (LOG... [--collective OP] | --points FILE) [--preset P [--nodes N] |
//   --scenario FILE] [--set k=v]... [--params a,b,...] [--prior-weight W] [--leave-one-out]
//   [--out cost.yaml [--force]] [--format text|json]`:
// fits the collective model's parameters to measured collective times (nccl-tests logs of one
// cluster, or a CSV of measurements on several) by least squares (cost/calibration.hpp), prints
// every point's error before and after, and writes the fitted parameters as a cost file that a
// scenario loads with `cost: {file: ...}` (docs/model.md, "Calibration";
// docs/validation/collectives.md, "Calibrating on your own logs"). --set applies to the scenario
// the fit starts from: --scenario's, or the built-in default on --preset (cluster and cost
// keys); with --points only cost keys (each point names its cluster).
// `shardsim calibrate --kernels LOG... (--preset P | --scenario FILE) [--kernel-set k=v]...`
// fits the embedding kernels' efficiency instead, to the output of FBGEMM's table-batched
// embedding benchmark (cli/cmd_calibrate_kernels.hpp; docs/model.md, "Calibration of the
// embedding kernels").
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace shardsim {

struct CalibrateFlags {
  CLI::App* cmd = nullptr;
  std::vector<std::string> logs;
  std::string collective;                // the logs' test when they do not name it (--collective)
  std::vector<std::string> kernels;      // FBGEMM benchmark logs (--kernels)
  std::vector<std::string> kernel_sets;  // key=value settings over the logs' (--kernel-set)
  std::string points;
  std::string preset;
  int nodes = 0;  // 0: the log's host count
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::string> params;
  double prior_weight = 0.1;
  double robust_scale = 0.25;
  bool leave_one_out = false;
  std::string out;
  bool force = false;
  std::string format = "text";
  bool quiet = false;
};

void add_calibrate_command(CLI::App& app, CalibrateFlags& flags);
// Returns 0; bad input (including a refused --out) throws InputError before anything is written.
int run_calibrate_command(const CalibrateFlags& flags);

}  // namespace shardsim
