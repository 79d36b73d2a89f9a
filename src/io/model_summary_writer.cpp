// The model summary as text and JSON (io/model_summary_writer.hpp; docs/report.md "Model
// summary").
#include "shardsim/io/model_summary_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <sstream>
#include <string>

#include "shardsim/io/report_format.hpp"

namespace shardsim {

namespace {

namespace msf = report_format;
using SummaryJson = nlohmann::ordered_json;

// Decimal units, as the fit errors and the resource guard write bytes.
std::string summary_bytes(double bytes) {
  if (bytes >= 1e12) return fmt::format("{:.2f} TB", bytes / 1e12);
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string node_bound_text(const NodeBound& b) {
  if (!b.fits) return "none (no cluster of up to 4,194,304 GPUs holds it)";
  return fmt::format("{} node{} ({} GPUs)", b.nodes, b.nodes == 1 ? "" : "s", b.gpus);
}

SummaryJson node_bound_json(const NodeBound& b) {
  if (!b.fits) return SummaryJson();
  return SummaryJson{{"nodes", b.nodes}, {"gpus", b.gpus}};
}

// What the dense bytes per parameter hold (docs/model.md, "Memory per GPU").
std::string dense_contents(Mode mode, DenseOptimizerKind optimizer) {
  if (mode != Mode::training) return "fp32 weights";
  switch (optimizer) {
    case DenseOptimizerKind::adam:
      return "fp32 weights, gradients and two Adam moments";
    case DenseOptimizerKind::adagrad:
      return "fp32 weights, gradients and one AdaGrad sum";
    case DenseOptimizerKind::momentum:
      return "fp32 weights, gradients and one momentum buffer";
    case DenseOptimizerKind::sgd:
      break;
  }
  return "fp32 weights and gradients (SGD keeps no state)";
}

}  // namespace

void write_model_summary_text(std::ostream& out, const ModelSummary& s,
                              std::optional<double> shardsim_ram_bytes, std::string_view heading,
                              std::string_view line_prefix) {
  const bool training = s.mode == Mode::training;
  std::ostringstream text;
  text << heading << '\n';
  text << fmt::format("  tables: {}, {} rows\n", s.tables, msf::thousands(s.rows));
  msf::TextTable classes({{"weights per table", msf::TextTable::Align::left},
                          {"tables"},
                          {"rows"},
                          {"weights"},
                          {"optimizer"}});
  for (const TableSizeClass& c : s.size_classes) {
    classes.add_row({c.label, std::to_string(c.tables), msf::thousands(c.rows),
                     summary_bytes(c.weight_bytes),
                     training ? summary_bytes(c.optimizer_bytes) : std::string("-")});
  }
  classes.write(text, 4);
  text << fmt::format("  embedding weights: {} ({} rows at their stored size)\n",
                      summary_bytes(s.weight_bytes), to_string(s.table_precision));
  if (training) {
    text << fmt::format("  optimizer state: {} ({})\n", summary_bytes(s.optimizer_bytes),
                        to_string(s.optimizer));
  } else {
    text << "  optimizer state: none (inference)\n";
  }
  text << fmt::format("  dense: {} parameters, {} per GPU ({})\n",
                      msf::thousands(static_cast<double>(s.dense_parameters)),
                      summary_bytes(s.dense_bytes_per_gpu),
                      dense_contents(s.mode, s.dense_optimizer));
  text << fmt::format(
      "  activations per sample: {} in the local batch; {} of lookups (pooled outputs{} {}, "
      "indices {})\n",
      summary_bytes(s.local_activation_bytes_per_sample),
      summary_bytes(s.lookup_activation_bytes_per_sample()), training ? " and gradients" : "",
      summary_bytes(s.lookup_output_bytes_per_sample),
      summary_bytes(s.lookup_index_bytes_per_sample));
  text << fmt::format(
      "  batch: {} per GPU, global {} on {} GPUs{}\n", msf::thousands(s.batch_per_gpu),
      msf::thousands(static_cast<double>(s.global_batch)), s.scenario_nodes * s.gpus_per_node,
      s.global_batch_given ? " (workload.global_batch: fixed as the GPUs change)"
                           : " (workload.batch_per_gpu: fixed per GPU)");
  text << fmt::format(
      "  base memory per GPU: {} (reserved {}, dense {}, local-batch activations {})\n",
      summary_bytes(s.base_bytes_per_gpu), summary_bytes(s.reserved_bytes_per_gpu),
      summary_bytes(s.dense_bytes_per_gpu),
      summary_bytes(s.base_bytes_per_gpu - s.reserved_bytes_per_gpu - s.dense_bytes_per_gpu));
  text << fmt::format(
      "  fewest nodes of {} by memory alone (a lower bound: perfect packing; {} GPUs x {} HBM{} "
      "per node):\n",
      s.preset, s.gpus_per_node, summary_bytes(s.hbm_bytes_per_gpu),
      s.host_bytes_per_node > 0
          ? fmt::format(", {} host memory", summary_bytes(s.host_bytes_per_node))
          : std::string());
  text << fmt::format("    tables in HBM: {}\n", node_bound_text(s.hbm_nodes));
  text << fmt::format("    tables in HBM, one-sided plans (no lookup activations): {}\n",
                      node_bound_text(s.hbm_nodes_one_sided));
  if (s.host_bytes_per_node > 0) {
    text << fmt::format(
        "    tables in host memory allowed (HBM caches of {:g}% of their rows): {}\n",
        s.host_cache_fraction * 100, node_bound_text(s.host_tier_nodes));
  } else {
    text << "    tables in host memory allowed: not computed (the preset has no host block)\n";
  }
  if (shardsim_ram_bytes) {
    text << fmt::format(
        "  shardsim's own RAM: about {} (the resource guard's estimate of the host memory this "
        "program needs to run the scenario, not the GPUs')\n",
        summary_bytes(*shardsim_ram_bytes));
  }
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) out << line_prefix << line << '\n';
}

nlohmann::ordered_json model_summary_to_json(const ModelSummary& s,
                                             std::optional<double> shardsim_ram_bytes) {
  SummaryJson j;
  j["mode"] = to_string(s.mode);
  j["table_precision"] = to_string(s.table_precision);
  j["optimizer"] = to_string(s.optimizer);
  j["tables"] = s.tables;
  j["rows"] = s.rows;
  SummaryJson classes = SummaryJson::array();
  for (const TableSizeClass& c : s.size_classes) {
    classes.push_back(
        {{"class", c.label},
         {"min_bytes", c.min_bytes},
         {"max_bytes", std::isfinite(c.max_bytes) ? SummaryJson(c.max_bytes) : SummaryJson()},
         {"tables", c.tables},
         {"rows", c.rows},
         {"weight_bytes", c.weight_bytes},
         {"optimizer_bytes", c.optimizer_bytes}});
  }
  j["size_classes"] = std::move(classes);
  j["weight_bytes"] = s.weight_bytes;
  j["optimizer_bytes"] = s.optimizer_bytes;
  j["stored_bytes"] = s.stored_bytes();
  j["dense_parameters"] = s.dense_parameters;
  j["dense_bytes_per_gpu"] = s.dense_bytes_per_gpu;
  j["dense_optimizer"] = to_string(s.dense_optimizer);
  j["reserved_bytes_per_gpu"] = s.reserved_bytes_per_gpu;
  j["activation_bytes_per_sample"] = {{"local_batch", s.local_activation_bytes_per_sample},
                                      {"lookup_outputs", s.lookup_output_bytes_per_sample},
                                      {"lookup_indices", s.lookup_index_bytes_per_sample},
                                      {"lookups", s.lookup_activation_bytes_per_sample()}};
  j["batch_per_gpu"] = s.batch_per_gpu;
  j["global_batch"] = s.global_batch;
  j["global_batch_given"] = s.global_batch_given;
  j["base_bytes_per_gpu"] = s.base_bytes_per_gpu;
  j["min_nodes"] = {
      {"preset", s.preset},
      {"gpus_per_node", s.gpus_per_node},
      {"hbm_bytes_per_gpu", s.hbm_bytes_per_gpu},
      {"host_bytes_per_node", s.host_bytes_per_node},
      {"hbm", node_bound_json(s.hbm_nodes)},
      {"hbm_one_sided", node_bound_json(s.hbm_nodes_one_sided)},
      {"host_tier", s.host_bytes_per_node > 0 ? node_bound_json(s.host_tier_nodes) : SummaryJson()},
      {"host_cache_fraction", s.host_cache_fraction}};
  j["shardsim_ram_estimate_bytes"] =
      shardsim_ram_bytes ? SummaryJson(*shardsim_ram_bytes) : SummaryJson();
  return j;
}

}  // namespace shardsim
