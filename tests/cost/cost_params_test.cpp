// Loading configs/cost/default.yaml and applying a scenario's `cost:` overrides.
#include "shardsim/cost/cost_params.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "shardsim/core/embedded_configs.hpp"
#include "support/scratch.hpp"

namespace shardsim {
namespace {

// A scenario fragment with a `cost:` map; returns the YamlValue of that map (path "cost").
// (A YAML::Node shares ownership of its document, so the child outlives `root`.)
YamlValue cost_node(const std::string& yaml) {
  const YAML::Node root = parse_yaml(yaml, "scenario.yaml");
  return YamlValue(root["cost"], "scenario.yaml", "cost");
}

TEST(CostParams, DefaultFileIsCompiledInAndParsed) {
  ASSERT_TRUE(find_embedded_config("cost/default.yaml").has_value());
  const CostParams p = default_cost_params();
  // The values written in configs/cost/default.yaml.
  EXPECT_DOUBLE_EQ(p.repeat_lookup_hbm_fraction, 0.25);
  EXPECT_DOUBLE_EQ(p.index_bytes_per_lookup, 8);
  EXPECT_DOUBLE_EQ(p.offset_bytes_per_output, 8);
  EXPECT_DOUBLE_EQ(p.backward_index_bytes_per_lookup, 36);
  EXPECT_DOUBLE_EQ(p.backward_sort_pass_bytes_per_lookup, 35);
  EXPECT_EQ(p.backward_sort_radix_bits, 8);
  EXPECT_EQ(p.kernels_per_embedding_op, 1);
  EXPECT_EQ(p.kernels_per_embedding_backward, 20);
  EXPECT_DOUBLE_EQ(p.interaction_hbm_efficiency, 0.14);
  EXPECT_DOUBLE_EQ(p.dense_arch_layer_width, 3072);
  EXPECT_DOUBLE_EQ(p.collective_bandwidth_efficiency, 0.85);
  EXPECT_DOUBLE_EQ(p.collective_launch_s, 10e-6);
  EXPECT_DOUBLE_EQ(p.one_sided_bandwidth_efficiency, 0.85);
  EXPECT_DOUBLE_EQ(p.one_sided_scale_up_overhead_s, 0.1e-9);
  EXPECT_DOUBLE_EQ(p.one_sided_scale_out_overhead_s, 5e-9);
  EXPECT_DOUBLE_EQ(p.one_sided_overlap_fraction, 0.8);
  EXPECT_EQ(p.ecmp_flows_per_connection, 2);
  EXPECT_DOUBLE_EQ(p.interference_loss, 0.3);
  EXPECT_EQ(p.nccl_algorithm, NcclAlgorithm::any);
  EXPECT_EQ(p.nccl_protocol, NcclProtocolChoice::any);
}

TEST(CostParams, DefaultFileNamesEveryFieldAndNothingElse) {
  const std::string text(*find_embedded_config("cost/default.yaml"));
  const YamlValue root(parse_yaml(text, "default.yaml"), "default.yaml", "");
  const auto names = cost_param_names();
  EXPECT_EQ(root.keys(), names);  // same keys, same order
  EXPECT_EQ(names.size(), 68u);
}

TEST(CostParams, EveryFieldNameIsAcceptedAsAnOverride) {
  // Guards the field table against the expect_keys list: each name must pass the key check.
  std::string yaml = "cost:\n";
  for (const auto& n : cost_param_names()) {
    const std::string value = n == "collective_model"            ? "ideal"
                              : n == "host_launch_mode"          ? "cuda_graphs"
                              : n == "nccl_algorithm"            ? "tree"
                              : n == "nccl_protocol"             ? "ll128"
                              : n == "nccl_tree_size_correction" ? "false"
                              : n == "interference_loss"         ? "0.5"
                              : n == "host_framework"            ? "oper"
                                                                 : "1";
    yaml += "  " + n + ": " + value + "\n";
  }
  const CostParams p = apply_cost_overrides(default_cost_params(), cost_node(yaml));
  EXPECT_DOUBLE_EQ(p.repeat_lookup_hbm_fraction, 1);
  EXPECT_DOUBLE_EQ(p.backward_index_bytes_per_lookup, 1);
  EXPECT_EQ(p.kernels_per_embedding_backward, 1);
  EXPECT_EQ(p.backward_sort_radix_bits, 1);
  EXPECT_DOUBLE_EQ(p.collective_launch_s, 1);
  EXPECT_EQ(p.collective_model, CollectiveModelKind::ideal);
  EXPECT_DOUBLE_EQ(p.alltoall_peer_scale_out_s, 1);
  EXPECT_EQ(p.host_launch_mode, HostLaunchMode::cuda_graphs);
  EXPECT_DOUBLE_EQ(p.host_graph_iteration_s, 1);
  EXPECT_EQ(p.nccl_algorithm, NcclAlgorithm::tree);
  EXPECT_EQ(p.nccl_protocol, NcclProtocolChoice::ll128);
  EXPECT_DOUBLE_EQ(p.interference_loss, 0.5);
  EXPECT_EQ(p.host_framework, "oper");
  EXPECT_DOUBLE_EQ(p.host_embedding_op_s, 1);
}

TEST(CostParams, HostFrameworkIsAutoOrAProfileName) {
  EXPECT_EQ(default_cost_params().host_framework, "auto");
  for (const char* name : {"auto", "torchrec", "oper", "pytorch"}) {
    const CostParams p = apply_cost_overrides(
        default_cost_params(), cost_node(std::string("cost:\n  host_framework: ") + name + "\n"));
    EXPECT_EQ(p.host_framework, name);
  }
  try {
    apply_cost_overrides(default_cost_params(), cost_node("cost:\n  host_framework: torchrex\n"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "cost.host_framework");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.hint().find("did you mean 'torchrec'"), std::string::npos) << e.hint();
    EXPECT_NE(e.hint().find("configs/host/frameworks.yaml"), std::string::npos) << e.hint();
  }
}

// The key of the one-constant host model names its replacement.
TEST(CostParams, TheReplacedHostKeyNamesTheNewOnes) {
  try {
    apply_cost_overrides(default_cost_params(), cost_node("cost:\n  host_eager_iteration_s: 0\n"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "cost.host_eager_iteration_s");
    EXPECT_NE(e.hint().find("host_eager_step_s"), std::string::npos) << e.hint();
  }
}

TEST(CostParams, OverridesChangeOnlyTheGivenKeys) {
  const CostParams base = default_cost_params();
  const CostParams p = apply_cost_overrides(
      base, cost_node("cost:\n  collective_launch_s: 2.5e-5\n  kernels_per_embedding_op: 3\n"));
  EXPECT_DOUBLE_EQ(p.collective_launch_s, 2.5e-5);
  EXPECT_EQ(p.kernels_per_embedding_op, 3);
  EXPECT_DOUBLE_EQ(p.repeat_lookup_hbm_fraction, base.repeat_lookup_hbm_fraction);
  EXPECT_DOUBLE_EQ(p.collective_bandwidth_efficiency, base.collective_bandwidth_efficiency);
}

TEST(CostParams, EmptyCostMapChangesNothing) {
  const CostParams base = default_cost_params();
  const CostParams p = apply_cost_overrides(base, cost_node("cost:\nother: 1\n"));
  EXPECT_DOUBLE_EQ(p.collective_launch_s, base.collective_launch_s);
}

TEST(CostParams, UnknownKeyIsAnInputErrorWithDidYouMean) {
  try {
    apply_cost_overrides(default_cost_params(),
                         cost_node("cost:\n  repeat_lookup_hbm_fraction: 0.5\n"
                                   "  collective_launch_us: 3\n"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "cost.collective_launch_us");
    EXPECT_EQ(e.where().file, "scenario.yaml");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.hint().find("collective_launch_s"), std::string::npos) << e.what();
  }
}

TEST(CostParams, NegativeValueIsAnInputErrorNamingTheKey) {
  try {
    apply_cost_overrides(default_cost_params(), cost_node("cost:\n  collective_launch_s: -1e-6\n"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "cost.collective_launch_s");
    EXPECT_EQ(e.where().line, 2);
  }
}

TEST(CostParams, OutOfRangeAndMalformedValuesAreInputErrors) {
  const CostParams base = default_cost_params();
  struct Case {
    const char* yaml;
    const char* key;
  };
  const Case cases[] = {
      {"cost:\n  collective_bandwidth_efficiency: 1.5\n", "cost.collective_bandwidth_efficiency"},
      {"cost:\n  collective_bandwidth_efficiency: 0\n", "cost.collective_bandwidth_efficiency"},
      {"cost:\n  interaction_hbm_efficiency: -0.5\n", "cost.interaction_hbm_efficiency"},
      {"cost:\n  dense_arch_layer_width: 0\n", "cost.dense_arch_layer_width"},
      {"cost:\n  repeat_lookup_hbm_fraction: 1.01\n", "cost.repeat_lookup_hbm_fraction"},
      {"cost:\n  index_bytes_per_lookup: eight\n", "cost.index_bytes_per_lookup"},
      {"cost:\n  index_bytes_per_lookup: [8]\n", "cost.index_bytes_per_lookup"},
      {"cost:\n  kernels_per_embedding_op: 1.5\n", "cost.kernels_per_embedding_op"},
      {"cost:\n  kernels_per_embedding_backward: -2\n", "cost.kernels_per_embedding_backward"},
      {"cost:\n  kernels_per_embedding_backward: 100000\n", "cost.kernels_per_embedding_backward"},
      {"cost:\n  backward_sort_radix_bits: 0\n", "cost.backward_sort_radix_bits"},
      {"cost:\n  backward_sort_radix_bits: 65\n", "cost.backward_sort_radix_bits"},
      {"cost:\n  backward_sort_radix_bits: 7.5\n", "cost.backward_sort_radix_bits"},
      {"cost:\n  backward_sort_pass_bytes_per_lookup: -1\n",
       "cost.backward_sort_pass_bytes_per_lookup"},
      {"cost:\n  collective_launch_s: .nan\n", "cost.collective_launch_s"},
      {"cost:\n  ecmp_flows_per_connection: 0\n", "cost.ecmp_flows_per_connection"},
      {"cost:\n  ecmp_flows_per_connection: 2.5\n", "cost.ecmp_flows_per_connection"},
      {"cost:\n  ecmp_flows_per_connection: 5000\n", "cost.ecmp_flows_per_connection"},
      {"cost:\n  interference_loss: 0.95\n", "cost.interference_loss"},
      {"cost:\n  interference_loss: -0.1\n", "cost.interference_loss"},
      {"cost:\n  nccl_algorithm: nvls\n", "cost.nccl_algorithm"},
      {"cost:\n  nccl_protocol: LL128\n", "cost.nccl_protocol"},
  };
  for (const Case& c : cases) {
    try {
      apply_cost_overrides(base, cost_node(c.yaml));
      ADD_FAILURE() << "expected an InputError for " << c.yaml;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), c.key) << c.yaml;
    }
  }
}

TEST(CostParams, BoundaryValuesAreAccepted) {
  const CostParams p = apply_cost_overrides(default_cost_params(),
                                            cost_node("cost:\n  repeat_lookup_hbm_fraction: 0\n"
                                                      "  collective_bandwidth_efficiency: 1\n"
                                                      "  kernels_per_embedding_op: 0\n"
                                                      "  ecmp_flows_per_connection: 1024\n"
                                                      "  interference_loss: 0.9\n"));
  EXPECT_DOUBLE_EQ(p.repeat_lookup_hbm_fraction, 0);
  EXPECT_DOUBLE_EQ(p.collective_bandwidth_efficiency, 1);
  EXPECT_EQ(p.kernels_per_embedding_op, 0);
  EXPECT_EQ(p.ecmp_flows_per_connection, 1024);
  EXPECT_DOUBLE_EQ(p.interference_loss, 0.9);
}

TEST(CostParams, CostMustBeAMap) {
  EXPECT_THROW(apply_cost_overrides(default_cost_params(), cost_node("cost: [1, 2]\n")),
               InputError);
}

}  // namespace
}  // namespace shardsim

namespace shardsim {
namespace {

// `cost: {file: ...}`: a cost file's keys, then the map's own; paths relative to the file that
// names it; a missing or nested file is an InputError at the `file:` line.
TEST(CostFile, KeysApplyUnderTheInlineOnes) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("cost_file_" + std::to_string(::getpid()));
  testing::ScratchPaths::instance().add(dir);
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "fit.yaml") << "collective_launch_s: 2.0e-5\n"
                                          << "collective_bandwidth_efficiency: 0.5\n";
  std::ofstream(dir / "nested.yaml") << "file: sub/fit.yaml\n";
  const auto node = [&](const std::string& text) {
    const std::string file = (dir / "scenario.yaml").string();
    return YamlValue(parse_yaml(text, file), file, "").get("cost");
  };
  const CostParams base = default_cost_params();
  const CostParams p = apply_cost_overrides(
      base, node("cost:\n  file: sub/fit.yaml\n  collective_bandwidth_efficiency: 0.75\n"));
  EXPECT_DOUBLE_EQ(p.collective_launch_s, 2.0e-5);            // from the file
  EXPECT_DOUBLE_EQ(p.collective_bandwidth_efficiency, 0.75);  // inline wins
  EXPECT_DOUBLE_EQ(p.index_bytes_per_lookup, base.index_bytes_per_lookup);
  try {
    apply_cost_overrides(base, node("cost:\n  file: missing.yaml\n"));
    ADD_FAILURE() << "a missing cost file was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(std::string(e.what()).find("missing.yaml"), std::string::npos) << e.what();
  }
  EXPECT_THROW(apply_cost_overrides(base, node("cost:\n  file: nested.yaml\n")), InputError);
}

}  // namespace
}  // namespace shardsim
