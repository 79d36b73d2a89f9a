#include "shardsim/cli/cmd_collective.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/cost/collective_predictor.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/io/override.hpp"
#include "shardsim/io/scenario_loader.hpp"

namespace shardsim {

namespace {

// nccl-tests' -d types and their element sizes.
struct DataType {
  const char* name;
  double bytes;
};
constexpr DataType kTypes[] = {{"float", 4}, {"half", 2},  {"bfloat16", 2}, {"double", 8},
                               {"int8", 1},  {"uint8", 1}, {"int32", 4},    {"uint32", 4},
                               {"int64", 8}, {"uint64", 8}};

std::vector<std::string> type_names() {
  std::vector<std::string> v;
  for (const DataType& t : kTypes) v.emplace_back(t.name);
  return v;
}

double element_bytes(const std::string& type) {
  for (const DataType& t : kTypes) {
    if (type == t.name) return t.bytes;
  }
  return 4;  // unreachable: CLI11 checks the name
}

InputError size_error(const std::string& flag, const std::string& text, const std::string& why) {
  return InputError(SourceLocation{}, flag, fmt::format("'{}' is not a size: {}", text, why),
                    "an integer with an optional K, M or G (powers of 1024), e.g. 8, 64K, 1G");
}

}  // namespace

std::uint64_t parse_nccl_size(const std::string& text, const std::string& flag) {
  if (text.empty()) throw size_error(flag, text, "it is empty");
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0) throw size_error(flag, text, "it does not start with a number");
  std::uint64_t unit = 1;
  const std::string suffix = text.substr(digits);
  if (suffix == "K" || suffix == "k") {
    unit = 1ULL << 10;
  } else if (suffix == "M" || suffix == "m") {
    unit = 1ULL << 20;
  } else if (suffix == "G" || suffix == "g") {
    unit = 1ULL << 30;
  } else if (!suffix.empty()) {
    throw size_error(flag, text, fmt::format("unknown unit '{}'", suffix));
  }
  if (digits > 15) throw size_error(flag, text, "it is too large");
  const std::uint64_t value = std::stoull(text.substr(0, digits));
  if (value > (1ULL << 50) / unit) throw size_error(flag, text, "it is above 1 PiB");
  return value * unit;
}

std::vector<std::uint64_t> nccl_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                      double factor, std::uint64_t step) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = min_bytes; s <= max_bytes;) {
    sizes.push_back(s);
    const std::uint64_t next =
        step > 0 ? s + step : static_cast<std::uint64_t>(static_cast<double>(s) * factor);
    if (next <= s) break;  // 0 bytes times any factor, or an overflow
    s = next;
  }
  return sizes;
}

void add_collective_command(CLI::App& app, CollectiveFlags& f) {
  f.cmd = app.add_subcommand(
      "collective",
      "predict a collective over the whole cluster, size by size, as nccl-tests prints it");
  f.cmd->add_option("op", f.op, "the collective")
      ->required()
      ->check(CLI::IsMember(collective_op_names()));
  f.cmd->add_option("--preset", f.preset, "hardware preset (`shardsim hw list`)");
  f.cmd->add_option("--nodes", f.nodes, "nodes of the preset (default 1)")
      ->check(CLI::PositiveNumber);
  f.cmd->add_option("--scenario", f.scenario,
                    "take the cluster and cost parameters from this scenario instead");
  f.cmd->add_option("--set", f.sets, "override a scenario value: dotted.key=value (repeatable)")
      ->take_all();
  f.cmd->add_option("-b,--minbytes", f.min_bytes, "smallest size (default 8)");
  f.cmd->add_option("-e,--maxbytes", f.max_bytes, "largest size (default 128M)");
  f.cmd->add_option("-f,--stepfactor", f.factor, "multiply the size by this (default 2)")
      ->check(CLI::Range(1.0 + 1e-9, 1e9));
  f.cmd->add_option("-i,--stepbytes", f.step, "add this many bytes instead of multiplying");
  f.cmd->add_option("--bytes", f.bytes, "exactly these sizes (comma-separated), not -b/-e")
      ->delimiter(',');
  f.cmd->add_option("-d,--datatype", f.type, "element type (default float)")
      ->check(CLI::IsMember(type_names()));
  f.cmd->add_option("--format", f.format, "text (nccl-tests' columns), json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  f.cmd->add_flag("--quiet", f.quiet, "errors only on stderr");
}

int run_collective_command(const CollectiveFlags& f) {
  setup_logging(f.quiet ? Verbosity::quiet : Verbosity::normal);
  const CollectiveOp op = *collective_op_named(f.op);
  if (f.scenario.empty() == f.preset.empty()) {
    throw InputError(SourceLocation{}, f.scenario.empty() ? "--preset" : "--scenario",
                     f.scenario.empty() ? "no cluster given" : "both a scenario and a preset given",
                     "give --preset NAME [--nodes N], or --scenario FILE [--set key=value]");
  }
  if (!f.sets.empty() && f.scenario.empty()) {
    throw InputError(SourceLocation{}, "--set", "--set overrides a scenario, and none is given",
                     "use --scenario FILE, or --preset and --nodes alone");
  }
  std::optional<Cluster> cluster;
  CostParams cost = default_cost_params();
  if (!f.scenario.empty()) {
    std::vector<Override> overrides;
    for (const auto& s : f.sets) overrides.push_back(parse_override(s));
    const Scenario s = load_scenario_file(f.scenario, overrides);
    cluster.emplace(s.cluster.preset, s.cluster.nodes);
    cost = s.cost;
  } else {
    cluster.emplace(builtin_preset(f.preset, SourceLocation{}, "--preset"), f.nodes);
  }
  std::vector<std::uint64_t> sizes;
  if (!f.bytes.empty()) {
    for (const auto& b : f.bytes) sizes.push_back(parse_nccl_size(b, "--bytes"));
  } else {
    const std::uint64_t lo = parse_nccl_size(f.min_bytes, "--minbytes");
    const std::uint64_t hi = parse_nccl_size(f.max_bytes, "--maxbytes");
    if (hi < lo) {
      throw InputError(SourceLocation{}, "--maxbytes",
                       fmt::format("{} bytes is below --minbytes ({} bytes)", hi, lo),
                       "give -e at least -b");
    }
    const std::uint64_t step = f.step.empty() ? 0 : parse_nccl_size(f.step, "--stepbytes");
    if (!f.step.empty() && step == 0) {
      throw InputError(SourceLocation{}, "--stepbytes", "a step of 0 bytes never ends",
                       "give a positive step, or use -f");
    }
    sizes = nccl_sizes(lo, hi, f.factor, step);
  }
  const int n = cluster->num_gpus();
  const double elem = element_bytes(f.type);
  const std::string_view redop = redop_of(op);
  if (f.format == "json") {
    nlohmann::ordered_json out;
    out["op"] = f.op;
    out["preset"] = cluster->preset().name;
    out["num_gpus"] = n;
    out["num_nodes"] = cluster->num_nodes();
    out["datatype"] = f.type;
    out["busbw_factor"] = busbw_factor(op, n);
    out["points"] = nlohmann::ordered_json::array();
    for (std::uint64_t size : sizes) {
      const CollectivePrediction pr =
          predict_collective(*cluster, op, static_cast<double>(size), cost);
      out["points"].push_back({{"size_bytes", size},
                               {"count", element_count(op, static_cast<double>(size), elem, n)},
                               {"time_s", pr.time_s},
                               {"algbw_Bps", pr.algbw_Bps},
                               {"busbw_Bps", pr.busbw_Bps}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (f.format == "csv") {
    std::cout << "size_bytes,count,type,redop,time_us,algbw_GBps,busbw_GBps\n";
  } else {
    std::cout << fmt::format(
        "# shardsim collective {}: {} GPUs ({} x {}), cost model prediction "
        "on an idle network\n",
        f.op, n, cluster->num_nodes(), cluster->preset().name);
    std::cout << fmt::format("#{:>12} {:>13} {:>9} {:>7} {:>7} {:>10} {:>8} {:>8}\n", "size",
                             "count", "type", "redop", "root", "time", "algbw", "busbw");
    std::cout << fmt::format("#{:>12} {:>13} {:>9} {:>7} {:>7} {:>10} {:>8} {:>8}\n", "(B)",
                             "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)");
  }
  for (std::uint64_t size : sizes) {
    const CollectivePrediction pr =
        predict_collective(*cluster, op, static_cast<double>(size), cost);
    const double count = element_count(op, static_cast<double>(size), elem, n);
    if (f.format == "csv") {
      std::cout << fmt::format("{},{:.0f},{},{},{:.3f},{:.3f},{:.3f}\n", size, count, f.type, redop,
                               pr.time_s * 1e6, pr.algbw_Bps / 1e9, pr.busbw_Bps / 1e9);
    } else {
      std::cout << fmt::format(" {:>12} {:>13.0f} {:>9} {:>7} {:>7} {:>10.2f} {:>8.2f} {:>8.2f}\n",
                               size, count, f.type, redop, -1, pr.time_s * 1e6, pr.algbw_Bps / 1e9,
                               pr.busbw_Bps / 1e9);
    }
  }
  std::cout.flush();
  return 0;
}

}  // namespace shardsim
