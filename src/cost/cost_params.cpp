// Loading and overriding CostParams (configs/cost/default.yaml, a scenario's `cost:` map).
#include "shardsim/cost/cost_params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <variant>

#include "shardsim/core/did_you_mean.hpp"
#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/cost/host_framework.hpp"

namespace shardsim {

namespace {

// What values a field accepts.
enum class Range {
  fraction,         // (0, 1]
  fraction_closed,  // [0, 1]
  loss,             // [0, kMaxLoss]: a fraction of a capacity lost
  nonnegative,      // >= 0
  positive,         // > 0
  at_least_one,     // >= 1 (a factor that only slows)
  launch_count,     // integer in [0, kMaxLaunches]
  flow_count,       // integer in [1, kMaxFlowsPerConnection]
  radix_bits,       // integer in [1, 64]: key bits a radix sort pass resolves
  choice,           // a name (collective_model: ideal or nccl; host_launch_mode)
};

constexpr std::int64_t kMaxLaunches = 1000;
constexpr double kMaxLoss = 0.9;
constexpr std::int64_t kMaxFlowsPerConnection = 1024;

struct Field {
  std::string_view name;
  std::variant<double CostParams::*, int CostParams::*, bool CostParams::*,
               CollectiveModelKind CostParams::*, HostLaunchMode CostParams::*,
               NcclAlgorithm CostParams::*, NcclProtocolChoice CostParams::*,
               std::string CostParams::*>
      member;
  Range range;
};

// One row per CostParams field, in configs/cost/default.yaml order. The list passed to
// expect_keys below must name the same keys (a test loads the default file, which has them all).
const std::array<Field, 68>& fields() {
  static const std::array<Field, 68> kFields = {{
      {"repeat_lookup_hbm_fraction", &CostParams::repeat_lookup_hbm_fraction,
       Range::fraction_closed},
      {"index_bytes_per_lookup", &CostParams::index_bytes_per_lookup, Range::nonnegative},
      {"offset_bytes_per_output", &CostParams::offset_bytes_per_output, Range::nonnegative},
      {"backward_index_bytes_per_lookup", &CostParams::backward_index_bytes_per_lookup,
       Range::nonnegative},
      {"backward_sort_pass_bytes_per_lookup", &CostParams::backward_sort_pass_bytes_per_lookup,
       Range::nonnegative},
      {"backward_sort_radix_bits", &CostParams::backward_sort_radix_bits, Range::radix_bits},
      {"kernels_per_embedding_op", &CostParams::kernels_per_embedding_op, Range::launch_count},
      {"kernels_per_embedding_backward", &CostParams::kernels_per_embedding_backward,
       Range::launch_count},
      {"kernel_hbm_efficiency", &CostParams::kernel_hbm_efficiency, Range::fraction},
      {"kernel_dim_half_cols", &CostParams::kernel_dim_half_cols, Range::nonnegative},
      {"kernel_pooling_half", &CostParams::kernel_pooling_half, Range::nonnegative},
      {"kernel_distinct_penalty", &CostParams::kernel_distinct_penalty, Range::nonnegative},
      {"kernel_tables_half", &CostParams::kernel_tables_half, Range::nonnegative},
      {"interaction_hbm_efficiency", &CostParams::interaction_hbm_efficiency, Range::fraction},
      {"dense_arch_layer_width", &CostParams::dense_arch_layer_width, Range::positive},
      {"collective_bandwidth_efficiency", &CostParams::collective_bandwidth_efficiency,
       Range::fraction},
      {"collective_launch_s", &CostParams::collective_launch_s, Range::nonnegative},
      {"small_message_half_bytes_scale_up", &CostParams::small_message_half_bytes_scale_up,
       Range::nonnegative},
      {"small_message_half_bytes_scale_out", &CostParams::small_message_half_bytes_scale_out,
       Range::nonnegative},
      {"collective_model", &CostParams::collective_model, Range::choice},
      {"nccl_ll_base_latency_s", &CostParams::nccl_ll_base_latency_s, Range::nonnegative},
      {"nccl_ll128_base_latency_s", &CostParams::nccl_ll128_base_latency_s, Range::nonnegative},
      {"nccl_simple_base_latency_s", &CostParams::nccl_simple_base_latency_s, Range::nonnegative},
      {"nccl_ll_scale_up_step_s", &CostParams::nccl_ll_scale_up_step_s, Range::nonnegative},
      {"nccl_ll128_scale_up_step_s", &CostParams::nccl_ll128_scale_up_step_s, Range::nonnegative},
      {"nccl_simple_scale_up_step_s", &CostParams::nccl_simple_scale_up_step_s, Range::nonnegative},
      {"nccl_ll_scale_out_step_s", &CostParams::nccl_ll_scale_out_step_s, Range::nonnegative},
      {"nccl_ll128_scale_out_step_s", &CostParams::nccl_ll128_scale_out_step_s, Range::nonnegative},
      {"nccl_simple_scale_out_step_s", &CostParams::nccl_simple_scale_out_step_s,
       Range::nonnegative},
      {"nccl_ll_bandwidth_fraction", &CostParams::nccl_ll_bandwidth_fraction, Range::fraction},
      {"nccl_ll128_bandwidth_fraction", &CostParams::nccl_ll128_bandwidth_fraction,
       Range::fraction},
      {"nccl_simple_bandwidth_fraction", &CostParams::nccl_simple_bandwidth_fraction,
       Range::fraction},
      {"nccl_ll_multi_domain_scale_up_factor", &CostParams::nccl_ll_multi_domain_scale_up_factor,
       Range::nonnegative},
      {"nccl_tree_ll_base_latency_s", &CostParams::nccl_tree_ll_base_latency_s, Range::nonnegative},
      {"nccl_tree_ll128_base_latency_s", &CostParams::nccl_tree_ll128_base_latency_s,
       Range::nonnegative},
      {"nccl_tree_simple_base_latency_s", &CostParams::nccl_tree_simple_base_latency_s,
       Range::nonnegative},
      {"nccl_tree_ll_scale_up_step_s", &CostParams::nccl_tree_ll_scale_up_step_s,
       Range::nonnegative},
      {"nccl_tree_ll128_scale_up_step_s", &CostParams::nccl_tree_ll128_scale_up_step_s,
       Range::nonnegative},
      {"nccl_tree_simple_scale_up_step_s", &CostParams::nccl_tree_simple_scale_up_step_s,
       Range::nonnegative},
      {"nccl_tree_ll_scale_out_step_s", &CostParams::nccl_tree_ll_scale_out_step_s,
       Range::nonnegative},
      {"nccl_tree_ll128_scale_out_step_s", &CostParams::nccl_tree_ll128_scale_out_step_s,
       Range::nonnegative},
      {"nccl_tree_simple_scale_out_step_s", &CostParams::nccl_tree_simple_scale_out_step_s,
       Range::nonnegative},
      {"nccl_tree_size_correction", &CostParams::nccl_tree_size_correction, Range::choice},
      {"nccl_simple_ring_plateau_factor", &CostParams::nccl_simple_ring_plateau_factor,
       Range::at_least_one},
      {"alltoall_peer_scale_up_s", &CostParams::alltoall_peer_scale_up_s, Range::nonnegative},
      {"alltoall_peer_scale_out_s", &CostParams::alltoall_peer_scale_out_s, Range::nonnegative},
      {"alltoall_scale_out_latency_s", &CostParams::alltoall_scale_out_latency_s,
       Range::nonnegative},
      {"collective_jitter_cv", &CostParams::collective_jitter_cv, Range::nonnegative},
      {"ecmp_flows_per_connection", &CostParams::ecmp_flows_per_connection, Range::flow_count},
      {"interference_loss", &CostParams::interference_loss, Range::loss},
      {"nccl_algorithm", &CostParams::nccl_algorithm, Range::choice},
      {"nccl_protocol", &CostParams::nccl_protocol, Range::choice},
      {"one_sided_bandwidth_efficiency", &CostParams::one_sided_bandwidth_efficiency,
       Range::fraction},
      {"one_sided_scale_up_overhead_s", &CostParams::one_sided_scale_up_overhead_s,
       Range::nonnegative},
      {"one_sided_scale_out_overhead_s", &CostParams::one_sided_scale_out_overhead_s,
       Range::nonnegative},
      {"one_sided_overlap_fraction", &CostParams::one_sided_overlap_fraction,
       Range::fraction_closed},
      {"host_launch_mode", &CostParams::host_launch_mode, Range::choice},
      {"host_framework", &CostParams::host_framework, Range::choice},
      {"host_eager_step_s", &CostParams::host_eager_step_s, Range::nonnegative},
      {"host_eager_inference_step_s", &CostParams::host_eager_inference_step_s, Range::nonnegative},
      {"host_embedding_op_s", &CostParams::host_embedding_op_s, Range::nonnegative},
      {"host_collective_call_s", &CostParams::host_collective_call_s, Range::nonnegative},
      {"host_collective_peer_s", &CostParams::host_collective_peer_s, Range::nonnegative},
      {"ddp_bucket_bytes", &CostParams::ddp_bucket_bytes, Range::positive},
      {"host_graph_iteration_s", &CostParams::host_graph_iteration_s, Range::nonnegative},
      {"uvm_fault_batch_s", &CostParams::uvm_fault_batch_s, Range::nonnegative},
      {"uvm_fault_batch_count", &CostParams::uvm_fault_batch_count, Range::at_least_one},
      {"uvm_page_bytes", &CostParams::uvm_page_bytes, Range::positive},
  }};
  return kFields;
}

void check_keys(const YamlValue& node) {
  if (node.is_map() && node.has("host_eager_iteration_s")) {
    throw node.get("host_eager_iteration_s")
        .error("host_eager_iteration_s was replaced by a host model with several terms",
               "host_eager_step_s is the framework's fixed step (2.57 ms; in inference "
               "host_eager_inference_step_s), to which host_embedding_op_s and "
               "host_collective_call_s add per op and call; set all four to 0 to remove the "
               "host's step (docs/model.md, \"Host overhead\")");
  }
  node.expect_keys({"file",
                    "repeat_lookup_hbm_fraction",
                    "index_bytes_per_lookup",
                    "offset_bytes_per_output",
                    "backward_index_bytes_per_lookup",
                    "backward_sort_pass_bytes_per_lookup",
                    "backward_sort_radix_bits",
                    "kernels_per_embedding_op",
                    "kernels_per_embedding_backward",
                    "kernel_hbm_efficiency",
                    "kernel_dim_half_cols",
                    "kernel_pooling_half",
                    "kernel_distinct_penalty",
                    "kernel_tables_half",
                    "interaction_hbm_efficiency",
                    "dense_arch_layer_width",
                    "collective_bandwidth_efficiency",
                    "collective_launch_s",
                    "small_message_half_bytes_scale_up",
                    "small_message_half_bytes_scale_out",
                    "collective_model",
                    "nccl_ll_base_latency_s",
                    "nccl_ll128_base_latency_s",
                    "nccl_simple_base_latency_s",
                    "nccl_ll_scale_up_step_s",
                    "nccl_ll128_scale_up_step_s",
                    "nccl_simple_scale_up_step_s",
                    "nccl_ll_scale_out_step_s",
                    "nccl_ll128_scale_out_step_s",
                    "nccl_simple_scale_out_step_s",
                    "nccl_ll_bandwidth_fraction",
                    "nccl_ll128_bandwidth_fraction",
                    "nccl_simple_bandwidth_fraction",
                    "nccl_ll_multi_domain_scale_up_factor",
                    "nccl_tree_ll_base_latency_s",
                    "nccl_tree_ll128_base_latency_s",
                    "nccl_tree_simple_base_latency_s",
                    "nccl_tree_ll_scale_up_step_s",
                    "nccl_tree_ll128_scale_up_step_s",
                    "nccl_tree_simple_scale_up_step_s",
                    "nccl_tree_ll_scale_out_step_s",
                    "nccl_tree_ll128_scale_out_step_s",
                    "nccl_tree_simple_scale_out_step_s",
                    "nccl_tree_size_correction",
                    "nccl_simple_ring_plateau_factor",
                    "alltoall_peer_scale_up_s",
                    "alltoall_peer_scale_out_s",
                    "alltoall_scale_out_latency_s",
                    "collective_jitter_cv",
                    "ecmp_flows_per_connection",
                    "interference_loss",
                    "nccl_algorithm",
                    "nccl_protocol",
                    "one_sided_bandwidth_efficiency",
                    "one_sided_scale_up_overhead_s",
                    "one_sided_scale_out_overhead_s",
                    "one_sided_overlap_fraction",
                    "host_launch_mode",
                    "host_framework",
                    "host_eager_step_s",
                    "host_eager_inference_step_s",
                    "host_embedding_op_s",
                    "host_collective_call_s",
                    "host_collective_peer_s",
                    "ddp_bucket_bytes",
                    "host_graph_iteration_s",
                    "uvm_fault_batch_s",
                    "uvm_fault_batch_count",
                    "uvm_page_bytes"});
}

double read_double(const YamlValue& v, Range range) {
  switch (range) {
    case Range::fraction: {
      const double x = v.as_positive_double();
      if (x > 1) {
        throw v.error(fmt::format("expected a fraction in (0, 1], found {}", x),
                      "this is a fraction of a peak rate: 1 means 100%");
      }
      return x;
    }
    case Range::loss: {
      const double x = v.as_nonnegative_double();
      if (x > kMaxLoss) {
        throw v.error(fmt::format("expected a loss in [0, {}], found {}", kMaxLoss, x),
                      "the share of a capacity lost: 0 = none, 0.3 = 30% (see "
                      "configs/cost/default.yaml for this key)");
      }
      return x;
    }
    case Range::fraction_closed: {
      const double x = v.as_nonnegative_double();
      if (x > 1) {
        throw v.error(fmt::format("expected a fraction in [0, 1], found {}", x),
                      "a share: 0 = none, 1 = all (see configs/cost/default.yaml for this key)");
      }
      return x;
    }
    case Range::at_least_one: {
      const double x = v.as_positive_double();
      if (x < 1) {
        throw v.error(fmt::format("expected a factor >= 1, found {}", x),
                      "this factor only lengthens a time: 1 switches it off");
      }
      return x;
    }
    case Range::positive:
      return v.as_positive_double();
    case Range::nonnegative:
    case Range::launch_count:
    case Range::flow_count:
    case Range::radix_bits:
    case Range::choice:
      return v.as_nonnegative_double();
  }
  throw std::logic_error("unhandled cost parameter range");
}

// `host_framework`: "auto" or a profile of configs/host/frameworks.yaml.
std::string read_framework(const YamlValue& v) {
  const std::string name = v.as_string();
  const std::vector<std::string> choices = host_framework_choices();
  for (const std::string& c : choices) {
    if (c == name) return name;
  }
  const auto guess = did_you_mean(name, choices);
  throw v.error(fmt::format("unknown host framework '{}'", name),
                fmt::format("{}one of: {} (configs/host/frameworks.yaml)",
                            guess ? fmt::format("did you mean '{}'? ", *guess) : "",
                            fmt::join(choices, ", ")));
}

void read_field(const Field& f, const YamlValue& v, CostParams& out) {
  if (auto* dm = std::get_if<double CostParams::*>(&f.member)) {
    out.*(*dm) = read_double(v, f.range);
    return;
  }
  if (auto* bm = std::get_if<bool CostParams::*>(&f.member)) {
    out.*(*bm) = v.as_bool();
    return;
  }
  if (auto* km = std::get_if<CollectiveModelKind CostParams::*>(&f.member)) {
    out.*(*km) = v.as_choice({"ideal", "nccl"}) == "ideal" ? CollectiveModelKind::ideal
                                                           : CollectiveModelKind::nccl;
    return;
  }
  if (auto* am = std::get_if<NcclAlgorithm CostParams::*>(&f.member)) {
    const std::string a = v.as_choice({"auto", "ring", "tree"});
    out.*(*am) = a == "ring"   ? NcclAlgorithm::ring
                 : a == "tree" ? NcclAlgorithm::tree
                               : NcclAlgorithm::any;
    return;
  }
  if (auto* pm = std::get_if<NcclProtocolChoice CostParams::*>(&f.member)) {
    const std::string a = v.as_choice({"auto", "ll", "ll128", "simple"});
    out.*(*pm) = a == "ll"       ? NcclProtocolChoice::ll
                 : a == "ll128"  ? NcclProtocolChoice::ll128
                 : a == "simple" ? NcclProtocolChoice::simple
                                 : NcclProtocolChoice::any;
    return;
  }
  if (auto* hm = std::get_if<HostLaunchMode CostParams::*>(&f.member)) {
    out.*(*hm) = v.as_choice({"eager", "cuda_graphs"}) == "eager" ? HostLaunchMode::eager
                                                                  : HostLaunchMode::cuda_graphs;
    return;
  }
  if (auto* sm = std::get_if<std::string CostParams::*>(&f.member)) {
    out.*(*sm) = read_framework(v);
    return;
  }
  const std::uint64_t n = v.as_nonnegative_int();
  if (f.range == Range::flow_count) {
    if (n < 1 || n > static_cast<std::uint64_t>(kMaxFlowsPerConnection)) {
      throw v.error(
          fmt::format("expected a flow count in [1, {}], found {}", kMaxFlowsPerConnection, n),
          "flows (queue pairs) between two GPUs across the network: "
          "NCCL_NCHANNELS_PER_NET_PEER x NCCL_IB_QPS_PER_CONNECTION, 2 by default");
    }
    out.*(std::get<int CostParams::*>(f.member)) = static_cast<int>(n);
    return;
  }
  if (f.range == Range::radix_bits) {
    if (n < 1 || n > 64) {
      throw v.error(fmt::format("expected key bits per radix pass in [1, 64], found {}", n),
                    "cub's onesweep radix sort resolves 8 bits of the key per pass");
    }
    out.*(std::get<int CostParams::*>(f.member)) = static_cast<int>(n);
    return;
  }
  if (n > static_cast<std::uint64_t>(kMaxLaunches)) {
    throw v.error(fmt::format("expected a kernel count in [0, {}], found {}", kMaxLaunches, n),
                  "this counts kernel launches per operation");
  }
  out.*(std::get<int CostParams::*>(f.member)) = static_cast<int>(n);
}

CostParams parse_default() {
  constexpr std::string_view kPath = "cost/default.yaml";
  const auto text = find_embedded_config(kPath);
  if (!text) {
    throw std::logic_error("configs/cost/default.yaml was not compiled into the binary");
  }
  const std::string file = "configs/cost/default.yaml";
  const YamlValue root(parse_yaml(*text, file), file, "");
  check_keys(root);
  CostParams p;
  for (const Field& f : fields()) read_field(f, root.get(f.name), p);
  return p;
}

}  // namespace

std::vector<std::string> cost_param_names() {
  std::vector<std::string> out;
  for (const Field& f : fields()) out.emplace_back(f.name);
  return out;
}

CostParams default_cost_params() {
  static const CostParams kDefault = parse_default();
  return kDefault;
}

std::string cost_file_path(const YamlValue& file_value) {
  std::filesystem::path path(file_value.as_string());
  const std::string& from = file_value.location().file;
  if (path.is_relative() && !from.empty() && from.front() != '<') {
    path = std::filesystem::path(from).parent_path() / path;
  }
  return path.lexically_normal().string();
}

namespace {

// `file: PATH` under `cost:`: a cost file (what `shardsim calibrate --out` writes), its path
// relative to the file that names it. Its keys apply first; the map's other keys override them.
CostParams apply_cost_file(CostParams base, const YamlValue& value) {
  const std::string file = cost_file_path(value);
  if (!std::filesystem::is_regular_file(file)) {
    throw value.error(fmt::format("no cost file at '{}'", file),
                      "a path relative to the scenario file, e.g. one `shardsim calibrate "
                      "--out` wrote");
  }
  const YamlValue root(load_yaml_file(file), file, "");
  if (root.is_null()) return base;
  root.expect_map();
  if (root.has("file")) {
    throw root.get("file").error("a cost file may not name another cost file",
                                 "put the keys in this file");
  }
  check_keys(root);
  for (const Field& f : fields()) {
    if (auto v = root.find(f.name)) read_field(f, *v, base);
  }
  return base;
}

}  // namespace

CostParams apply_cost_overrides(CostParams base, const YamlValue& node) {
  if (node.is_null()) return base;
  check_keys(node);
  if (auto file = node.find("file")) base = apply_cost_file(base, *file);
  for (const Field& f : fields()) {
    if (auto v = node.find(f.name)) read_field(f, *v, base);
  }
  return base;
}

double cost_param_value(const CostParams& p, std::string_view name) {
  for (const Field& f : fields()) {
    if (f.name != name) continue;
    if (auto* dm = std::get_if<double CostParams::*>(&f.member)) return p.*(*dm);
    if (auto* im = std::get_if<int CostParams::*>(&f.member)) return p.*(*im);
    break;
  }
  throw std::invalid_argument(fmt::format("'{}' is not a numeric cost parameter", name));
}

}  // namespace shardsim
