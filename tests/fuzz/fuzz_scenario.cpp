// libFuzzer target: scenario YAML -> load_scenario (every key checked) -> sweep points -> and,
// when the scenario is small, the whole pipeline (plan, simulate, report writers) with at most
// two iterations, and the Chrome trace of every simulated plan. Anything but a report, an
// InputError or a DoesNotFitError is a finding. Every loaded model's tables are also written out
// (`validate --tables-out`, io/tables_writer.hpp) and loaded back in place of its tables and
// generate block: tables that differ in any field are a finding.
// The input is named <tests/fuzz/fixtures>/fuzz.yaml, so relative paths in it (preset_file,
// placement.file, workload.trace.file) resolve to the small valid files kept there.
#include <sstream>

#include "fuzz_support.hpp"
#include "io/scenario_yaml.hpp"
#include "shardsim/core/yaml_reader.hpp"
#include "shardsim/io/chrome_trace_writer.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/io/tables_writer.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim::fuzz {
namespace {

// Small enough that one run takes milliseconds: the fuzzer looks for wrong answers to bad input,
// not for slow answers to big input (resource limits are the resource guard's job).
bool small(const Scenario& s) {
  const long gpus = static_cast<long>(s.cluster.nodes) * s.cluster.preset.gpus_per_node;
  if (gpus > 32 || s.model.tables.size() > 32 || s.workload.batch_per_gpu > 512) return false;
  double lookups = 0;
  for (const auto& t : s.model.tables) lookups += t.pooling.expected();
  return lookups * s.workload.batch_per_gpu * static_cast<double>(gpus) <= 1e6;
}

// The written tables, loaded back in place of the model's tables and generate block, are the
// loaded ones, field for field.
void check_tables_round_trip(const std::string& file, const YAML::Node& doc, const Scenario& s) {
  const std::string written = tables_yaml(s.model.tables, s.model.prune_fraction, "round trip");
  if (written.find("\xEF\xBF\xBD") != std::string::npos) return;  // a name that was not UTF-8
  YAML::Node frozen = YAML::Clone(doc);
  frozen.remove("sweep");  // load_scenario does not apply it; its keys may name `generate`
  frozen["model"].remove("generate");
  frozen["model"]["tables"] = parse_yaml(written, file)["tables"];
  Scenario back;
  try {
    back = load_scenario(frozen, file);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n%s", e.what(), written.c_str());
    invariant_failed("the written tables do not load");
  }
  if (back.model.tables != s.model.tables) {
    invariant_failed("the written tables load back as other tables");
  }
}

void run_one(const std::string& file, const YAML::Node& doc) {
  Scenario s = load_scenario(doc, file);
  check_tables_round_trip(file, doc, s);
  if (!small(s)) return;
  s.workload.warmup = std::min(s.workload.warmup, 1);
  s.workload.iterations = std::min(s.workload.iterations, 1);
  ChromeTrace trace;
  RunOptions options;
  options.on_simulated = [&](const SimulationInputs& in, const SimulationResult& result) {
    trace.add(in.plan.planner, in.cluster, result);
  };
  const std::vector<Report> reports = run_scenario(s, options);
  std::ostringstream sink;
  trace.write(sink);
  write_json(sink, reports);
  write_text(sink, reports);
  write_csv_summary(sink, reports);
  write_per_gpu_csv(sink, reports);
}

}  // namespace
}  // namespace shardsim::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::quiet_once();
  static const std::string file = fuzz::fixtures_dir() + "/fuzz.yaml";
  fuzz::expect_clean([&] {
    const YAML::Node doc = parse_yaml(fuzz::text_of(data, size), file);
    const Scenario first = load_scenario(doc, file);
    const std::size_t points = sweep_point_count(first.sweep);
    if (points <= 1) {
      fuzz::run_one(file, doc);
      return;
    }
    if (points > 8) return;
    for (const YamlSweepPoint& p : expand_sweep(doc, file)) fuzz::run_one(file, p.document);
  });
  return 0;
}
