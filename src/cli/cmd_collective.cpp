#include "cli/cmd_collective.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cmath>
#include <cstdio>
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

// nccl-tests' -o reductions (src/common.cu, test_opnames).
const std::vector<std::string> kRedops = {"sum", "prod", "max", "min", "avg", "mulsum"};

// The nccl-tests binary of each collective, as its "# Collective test starting" line names it.
const char* test_binary(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::allreduce:
      return "all_reduce_perf";
    case CollectiveOp::allgather:
      return "all_gather_perf";
    case CollectiveOp::reduce_scatter:
      return "reduce_scatter_perf";
    case CollectiveOp::alltoall:
      return "alltoall_perf";
    case CollectiveOp::sendrecv:
      return "sendrecv_perf";
  }
  return "";
}

// nccl-tests' getFloatStr (src/util.cu): the most decimals (2, 1, 0) that fit `width`, else an
// exponent.
std::string nccl_float(double value, int width) {
  char buf[64];
  for (const char* f : {"%*.2f", "%*.1f", "%*.0f"}) {
    if (std::snprintf(buf, sizeof buf, f, width, value) <= width) return buf;
  }
  std::snprintf(buf, sizeof buf, width >= 7 ? "%*.1e" : "%*.0e", width, value);
  return buf;
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
  f.cmd->add_option("-d,--datatype", f.type, "element type (default float): the count column")
      ->check(CLI::IsMember(type_names()));
  f.cmd
      ->add_option("-o,--op", f.redop,
                   "nccl-tests' reduction (default sum): the redop column of allreduce and "
                   "reduce_scatter; no time changes")
      ->check(CLI::IsMember(kRedops));
  f.cmd
      ->add_option("-g,--ngpus", f.gpus_per_thread,
                   "nccl-tests' GPUs a thread: accepted and ignored (the ranks are the "
                   "cluster's GPUs, preset x --nodes)")
      ->check(CLI::PositiveNumber);
  f.cmd
      ->add_option("-n,--iters", f.iters,
                   "nccl-tests' timed iterations: accepted and ignored (a model has none)")
      ->check(CLI::PositiveNumber);
  f.cmd
      ->add_option("-w,--warmup_iters", f.warmup_iters,
                   "nccl-tests' warm-up iterations: accepted and ignored")
      ->check(CLI::NonNegativeNumber);
  f.cmd->add_option("--format", f.format, "text (nccl-tests' columns), json or csv")
      ->check(CLI::IsMember({"text", "json", "csv"}));
  f.cmd->add_flag("--quiet", f.quiet, "errors only on stderr");
}

namespace {

// The cluster and cost parameters: a preset and its nodes, or a scenario with its --set.
std::pair<Cluster, CostParams> collective_setup(const CollectiveFlags& f) {
  if (f.scenario.empty() == f.preset.empty()) {
    throw InputError(SourceLocation{}, f.scenario.empty() ? "--preset" : "--scenario",
                     f.scenario.empty() ? "no cluster given" : "both a scenario and a preset given",
                     "give --preset NAME [--nodes N], or --scenario FILE [--set key=value]");
  }
  if (!f.sets.empty() && f.scenario.empty()) {
    throw InputError(SourceLocation{}, "--set", "--set overrides a scenario, and none is given",
                     "use --scenario FILE, or --preset and --nodes alone");
  }
  if (f.scenario.empty()) {
    return {Cluster(builtin_preset(f.preset, SourceLocation{}, "--preset"), f.nodes),
            default_cost_params()};
  }
  std::vector<Override> overrides;
  for (const auto& s : f.sets) overrides.push_back(parse_override(s));
  const Scenario s = load_scenario_file(f.scenario, overrides);
  return {Cluster(s.cluster.preset, s.cluster.nodes), s.cost};
}

std::vector<std::uint64_t> collective_sizes(const CollectiveFlags& f) {
  std::vector<std::uint64_t> sizes;
  if (!f.bytes.empty()) {
    for (const auto& b : f.bytes) sizes.push_back(parse_nccl_size(b, "--bytes"));
    return sizes;
  }
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
  return nccl_sizes(lo, hi, f.factor, step);
}

struct CollectiveRow {
  std::uint64_t size_bytes = 0;
  double count = 0;  // elements; nccl-tests' integer column is its floor
  CollectivePrediction pr;
};

void print_collective_json(const CollectiveFlags& f, const Cluster& cluster, CollectiveOp op,
                           const std::vector<CollectiveRow>& rows) {
  nlohmann::ordered_json out;
  out["op"] = f.op;
  out["preset"] = cluster.preset().name;
  out["num_gpus"] = cluster.num_gpus();
  out["num_nodes"] = cluster.num_nodes();
  out["datatype"] = f.type;
  out["busbw_factor"] = busbw_factor(op, cluster.num_gpus());
  out["points"] = nlohmann::ordered_json::array();
  for (const CollectiveRow& r : rows) {
    out["points"].push_back({{"size_bytes", r.size_bytes},
                             {"count", r.count},
                             {"time_s", r.pr.time_s},
                             {"algbw_Bps", r.pr.algbw_Bps},
                             {"busbw_Bps", r.pr.busbw_Bps}});
  }
  std::cout << out.dump(2) << "\n";
}

// nccl-tests' text (src/util.cu: writeDeviceReport's header, writeBenchmarkLine*, and
// writeResultFooter), without the device lines (a model has no devices to list).
void print_collective_text(const CollectiveFlags& f, const Cluster& cluster, CollectiveOp op,
                           const std::vector<CollectiveRow>& rows, std::string_view redop) {
  const char* binary = test_binary(op);
  std::cout << fmt::format(
      "# shardsim collective {}: {} GPUs ({} x {}), cost model prediction on an idle network\n"
      "# (out-of-place and in-place are the same prediction; -n, -w and -g change nothing)\n"
      "# Collective test starting: {}\n"
      "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} agg "
      "iters: 1 validation: 1 graph: 0 unalign: 0\n#\n",
      f.op, cluster.num_gpus(), cluster.num_nodes(), cluster.preset().name, binary,
      f.gpus_per_thread, rows.empty() ? 0 : rows.front().size_bytes,
      rows.empty() ? 0 : rows.back().size_bytes,
      !f.bytes.empty() ? std::string("list(bytes)")
      : f.step.empty() ? fmt::format("{:g}(factor)", f.factor)
                       : fmt::format("{}(bytes)", parse_nccl_size(f.step, "--stepbytes")),
      f.warmup_iters, f.iters);
  std::cout << fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place       "
      "                in-place          \n",
      "", "", "", "", "");
  std::cout << fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  "
      "{:>6} \n",
      "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
      "busbw", "#wrong");
  std::cout << fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  "
      "{:>6} \n",
      "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
      "");
  double busbw_sum_GBps = 0;
  for (const CollectiveRow& r : rows) {
    const std::string body =
        fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", nccl_float(r.pr.time_s * 1e6, 7),
                    nccl_float(r.pr.algbw_Bps / 1e9, 6), nccl_float(r.pr.busbw_Bps / 1e9, 6), 0);
    std::cout << fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}{}{}\n", r.size_bytes,
                             static_cast<std::uint64_t>(r.count), f.type, redop, -1, body, body);
    busbw_sum_GBps += 2 * r.pr.busbw_Bps / 1e9;  // nccl-tests adds both groups' busbw
  }
  char avg[64];
  std::snprintf(avg, sizeof avg, "%g", rows.empty() ? 0.0 : busbw_sum_GBps / (2.0 * rows.size()));
  std::cout << fmt::format("# {:<20} : 0 OK\n# {:<20} : {} \n#\n# Collective test concluded: {}\n",
                           "Out of bounds values", "Avg bus bandwidth", avg, binary);
}

}  // namespace

int run_collective_command(const CollectiveFlags& f) {
  setup_logging(f.quiet ? Verbosity::quiet : Verbosity::normal);
  const CollectiveOp op = *collective_op_named(f.op);
  const auto [cluster, cost] = collective_setup(f);
  const int n = cluster.num_gpus();
  const double elem = element_bytes(f.type);
  const bool reduces = redop_of(op) != "none";
  const std::string_view redop = reduces ? std::string_view(f.redop) : redop_of(op);
  std::vector<CollectiveRow> rows;
  for (std::uint64_t size : collective_sizes(f)) {
    const double bytes = static_cast<double>(size);
    rows.push_back(
        {size, element_count(op, bytes, elem, n), predict_collective(cluster, op, bytes, cost)});
  }
  if (f.format == "json") {
    print_collective_json(f, cluster, op, rows);
  } else if (f.format == "csv") {
    std::cout << "size_bytes,count,type,redop,time_us,algbw_GBps,busbw_GBps\n";
    for (const CollectiveRow& r : rows) {
      std::cout << fmt::format("{},{:.0f},{},{},{:.3f},{:.3f},{:.3f}\n", r.size_bytes,
                               std::floor(r.count), f.type, redop, r.pr.time_s * 1e6,
                               r.pr.algbw_Bps / 1e9, r.pr.busbw_Bps / 1e9);
    }
  } else {
    print_collective_text(f, cluster, op, rows, redop);
  }
  std::cout.flush();
  return 0;
}

}  // namespace shardsim
