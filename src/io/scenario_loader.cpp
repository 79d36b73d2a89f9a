// Scenario YAML -> Scenario (DESIGN.md §3). The reference of every key is docs/scenario.md.
#include "shardsim/io/scenario_loader.hpp"

#include "io/scenario_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>

#include "io/model_loader.hpp"
#include "io/simulation_loader.hpp"
#include "shardsim/core/content_hash.hpp"
#include "shardsim/core/embedded_configs.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/hw/cluster.hpp"
#include "shardsim/io/sweep.hpp"
#include "shardsim/plan/planner.hpp"

namespace shardsim {

namespace {

// The hash of configs/cost/default.yaml as compiled in (InputHashes::cost), computed once.
const std::string& default_cost_params_hash() {
  static const std::string hash = [] {
    const auto text = find_embedded_config("cost/default.yaml");
    return text ? yaml_content_hash(parse_yaml(*text, "configs/cost/default.yaml")) : std::string();
  }();
  return hash;
}

int read_int(const YamlValue& v, bool positive) {
  const std::uint64_t x = positive ? v.as_positive_int() : v.as_nonnegative_int();
  if (x > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw v.error(fmt::format("{} is too large (at most {})", x, std::numeric_limits<int>::max()));
  }
  return static_cast<int>(x);
}

// A path in a scenario is relative to the scenario file's folder.
std::string resolve_relative(const std::string& path, const std::string& scenario_file) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  const std::filesystem::path dir = std::filesystem::path(scenario_file).parent_path();
  return (dir / p).lexically_normal().string();
}

// The hardware of `cluster`: its preset or preset file with `overrides` applied. `preset_hash`
// receives the hash of the preset file the cluster starts from (InputHashes).
HardwarePreset load_cluster_preset(const YamlValue& c, std::string& preset_hash) {
  c.expect_map();
  HardwarePreset result;
  const auto preset = c.find("preset");
  const auto preset_file = c.find("preset_file");
  if (preset && preset_file) {
    throw preset_file->error("give either cluster.preset or cluster.preset_file, not both",
                             "remove one of them");
  }
  if (preset) {
    result = builtin_preset(preset->as_string(), preset->location(), preset->path());
    preset_hash =
        builtin_preset_content_hash(preset->as_string(), preset->location(), preset->path());
  } else if (preset_file) {
    const std::string path = resolve_relative(preset_file->as_string(), c.file());
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      throw preset_file->error(fmt::format("no preset file at '{}'", path),
                               "the path is relative to the scenario file's folder");
    }
    const YAML::Node preset_doc = load_yaml_file(path);
    result = parse_hardware_preset(YamlValue(preset_doc, path, ""));
    preset_hash = yaml_content_hash(preset_doc);
    if (result.source_file.empty()) result.source_file = path;
  } else {
    std::string names;
    for (const auto& n : builtin_preset_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError(c.location(), c.path().empty() ? "preset" : c.path() + ".preset",
                     "missing required key: the cluster needs a hardware preset",
                     fmt::format("add 'preset: NAME' (built-in: {}) or 'preset_file: PATH'",
                                 names.empty() ? "none compiled in" : names));
  }
  if (auto ov = c.find("overrides"); ov && !ov->is_null()) {
    ov->expect_map();
    result = apply_preset_overrides(std::move(result), *ov);
  }
  return result;
}

// `preset_hash` receives the hash of the preset file the cluster starts from (InputHashes).
ClusterSpec load_cluster(const YamlValue& c, std::string& preset_hash) {
  c.expect_map();
  c.expect_keys({"preset", "preset_file", "nodes", "overrides", "price_per_gpu_hour"});
  ClusterSpec spec;
  spec.preset = load_cluster_preset(c, preset_hash);
  const auto nodes = c.find("nodes");
  if (nodes) {
    spec.nodes = read_int(*nodes, true);
    const auto gpus = static_cast<std::int64_t>(spec.nodes) * spec.preset.gpus_per_node;
    if (gpus > std::numeric_limits<int>::max()) {
      throw nodes->error(fmt::format("{} nodes of {} GPUs is too many GPUs", spec.nodes,
                                     spec.preset.gpus_per_node));
    }
  }
  if (auto price = c.find("price_per_gpu_hour")) {
    spec.price_per_gpu_hour = price->as_positive_double();
    if (spec.price_per_gpu_hour > 1e6) {
      throw price->error(
          fmt::format("{} per GPU-hour is implausibly high (at most 1e6)", spec.price_per_gpu_hour),
          "the price is per GPU and per hour, e.g. 2.5");
    }
  }
  // What the Cluster will check (whole scale-up domains, the network's capacity), here, where
  // the line of `nodes:` (or of the cluster, when the default of 1 node is the problem) is known.
  try {
    check_cluster_nodes(spec.preset, spec.nodes);
  } catch (const InputError& e) {
    const YamlValue at = nodes ? *nodes : c;
    throw InputError(at.location(), nodes ? nodes->path() : e.key(), e.problem(), e.hint());
  }
  return spec;
}

// `workload.trace`. A recorded trace (`file`) replaces the synthetic generator; the keys that
// only shape synthetic traces are then ignored with a warning naming them.
TraceOptions load_trace_options(const YamlValue& t) {
  t.expect_map();
  t.expect_keys({"layout", "mode", "unique_in_bag", "reuse", "file"});
  TraceOptions opts;
  if (auto l = t.find("layout")) {
    opts.layout = l->as_choice({"clustered", "scattered"}) == "clustered" ? HotRowLayout::clustered
                                                                          : HotRowLayout::scattered;
  }
  if (auto m = t.find("mode")) {
    opts.mode = m->as_choice({"expected", "sampled"}) == "sampled" ? TraceMode::sampled
                                                                   : TraceMode::expected;
  }
  if (auto u = t.find("unique_in_bag")) opts.unique_in_bag = u->as_bool();
  if (auto r = t.find("reuse")) {
    opts.reuse = r->as_nonnegative_double();
    if (!(opts.reuse < 1.0)) {
      throw r->error(fmt::format("reuse {} is not in [0, 1)", opts.reuse),
                     "reuse is the fraction of lookup positions repeated from the previous "
                     "iteration, e.g. 0.3");
    }
  }
  if (auto f = t.find("file")) {
    const std::string written = f->as_string();
    if (written.empty())
      throw f->error("the trace file path is empty", "omit `file` for synthetic traces");
    // Scenarios often spell out `layout` and `mode` (as the built-in default does), and `--set`
    // cannot remove a key, so these are warnings, not errors: they do not apply to a replay.
    for (const char* synthetic_only : {"layout", "mode", "unique_in_bag", "reuse"}) {
      if (auto k = t.find(synthetic_only)) {
        log_warn(
            "{}: key '{}': ignored: `file` replays a recorded trace, whose rows and bags "
            "are used as recorded",
            k->location().to_string(), k->path());
      }
    }
    opts = TraceOptions{};
    opts.file = resolve_relative(written, t.file());
    std::error_code ec;
    if (!std::filesystem::is_regular_file(opts.file, ec)) {
      throw f->error(fmt::format("no trace file at '{}'", opts.file),
                     "the path is relative to the scenario file's folder; write one with "
                     "`shardsim trace gen SCENARIO --out FILE`");
    }
  }
  return opts;
}

// The valid node counts near `nodes` (at most `count` on each side) for a global batch: those
// whose GPU count divides it. For the hint of a global batch that does not divide.
std::string dividing_node_counts(std::uint64_t global, int gpus_per_node, int nodes) {
  std::vector<std::string> below;
  std::vector<std::string> above;
  for (int n = nodes - 1; n >= 1 && below.size() < 2; --n) {
    if (global % (static_cast<std::uint64_t>(n) * gpus_per_node) == 0)
      below.push_back(std::to_string(n));
  }
  for (std::int64_t n = nodes + 1;
       static_cast<std::uint64_t>(n) * gpus_per_node <= global && above.size() < 2; ++n) {
    if (global % (static_cast<std::uint64_t>(n) * gpus_per_node) == 0)
      above.push_back(std::to_string(n));
  }
  std::string out;
  for (auto it = below.rbegin(); it != below.rend(); ++it) out += (out.empty() ? "" : ", ") + *it;
  for (const auto& a : above) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// `workload`. `gpus` is the cluster's GPU count (the per-GPU batch of a global batch);
// `gpus_per_node` names valid node counts in the hint when it does not divide.
Workload load_workload(const YamlValue& w, int gpus, int gpus_per_node) {
  w.expect_map();
  w.expect_keys({"mode", "batch_per_gpu", "global_batch", "iterations", "warmup", "seed", "trace",
                 "dataset_samples"});
  Workload wl;
  if (auto m = w.find("mode")) {
    wl.mode =
        m->as_choice({"training", "inference"}) == "inference" ? Mode::inference : Mode::training;
  }
  const auto per_gpu = w.find("batch_per_gpu");
  const auto global = w.find("global_batch");
  if (per_gpu && global) {
    throw global->error("give either workload.batch_per_gpu or workload.global_batch, not both",
                        "remove one of them (the global batch is batch_per_gpu x GPUs)");
  }
  if (global) {
    const std::uint64_t g = global->as_positive_int();
    const auto n = static_cast<std::uint64_t>(gpus);
    if (g % n != 0) {
      const std::uint64_t lower = g / n * n;
      const std::uint64_t upper = lower + n;
      const std::string nodes =
          dividing_node_counts(g, gpus_per_node, gpus_per_node > 0 ? gpus / gpus_per_node : 1);
      throw global->error(
          fmt::format("global batch {} does not divide among the cluster's {} GPUs", g, gpus),
          fmt::format("the nearest global batches that do: {}{}; {}",
                      lower > 0 ? fmt::format("{}, ", lower) : "", upper,
                      nodes.empty() ? std::string("no node count of this preset divides it")
                                    : "or node counts whose GPUs divide it: " + nodes));
    }
    const std::uint64_t b = g / n;
    if (b > std::numeric_limits<std::uint32_t>::max()) {
      throw global->error(fmt::format("global batch {} is {} samples per GPU, too many", g, b),
                          "check for extra zeros");
    }
    wl.batch_per_gpu = static_cast<std::uint32_t>(b);
    wl.global_batch_given = true;
  } else {
    if (!per_gpu) {
      throw InputError(w.location(),
                       w.path().empty() ? "batch_per_gpu" : w.path() + ".batch_per_gpu",
                       "missing required key: the workload needs a batch size",
                       "add 'batch_per_gpu: N' (samples per GPU) or 'global_batch: N' (samples "
                       "per iteration over all GPUs)");
    }
    const YamlValue batch = *per_gpu;
    const std::uint64_t b = batch.as_positive_int();
    if (b > std::numeric_limits<std::uint32_t>::max()) {
      throw batch.error(fmt::format("batch size {} is too large", b), "check for extra zeros");
    }
    wl.batch_per_gpu = static_cast<std::uint32_t>(b);
  }
  if (auto it = w.find("iterations")) wl.iterations = read_int(*it, true);
  if (auto wu = w.find("warmup")) wl.warmup = read_int(*wu, false);
  if (auto s = w.find("seed")) wl.seed = s->as_nonnegative_int();
  if (auto t = w.find("trace"); t && !t->is_null()) wl.trace = load_trace_options(*t);
  if (auto d = w.find("dataset_samples")) wl.dataset_samples = d->as_positive_int();
  return wl;
}

PlacementSpec load_placement(const YamlValue& p) {
  p.expect_map();
  p.expect_keys({"planner", "options", "file", "bottom_mlp_gpu"});
  PlacementSpec spec;
  if (auto b = p.find("bottom_mlp_gpu"); b && !b->is_null()) {
    const std::uint64_t g = b->as_nonnegative_int();
    if (g > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      throw b->error(fmt::format("GPU {} is out of range", g), "GPU ids are 0 to num_gpus - 1");
    }
    spec.bottom_mlp_gpu = static_cast<int>(g);
    spec.bottom_mlp_location = b->location();
  }
  if (auto f = p.find("file")) {
    const std::string path = resolve_relative(f->as_string(), p.file());
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      throw f->error(fmt::format("no plan file at '{}'", path),
                     "the path is relative to the scenario file's folder; write one with "
                     "`shardsim plan SCENARIO --planner NAME --out plan.yaml`");
    }
    spec.plan_file = path;
    spec.plan_file_location = f->location();
  }
  const std::string options_path = p.path().empty() ? "options" : p.path() + ".options";
  spec.options = YamlValue::absent(p.file(), options_path);
  if (!p.has("planner") && !spec.plan_file.empty()) {
    if (p.has("options")) {
      throw p.get("options").error("options without a planner",
                                   "planner options apply to placement.planner");
    }
    return spec;
  }
  const YamlValue planner = p.get("planner");
  std::vector<YamlValue> names;
  if (planner.is_sequence()) {
    if (planner.size() == 0) {
      throw planner.error("the list of planners is empty",
                          "name at least one planner, e.g. [table_wise, row_wise]; to run only "
                          "placement.file, remove the key: --set placement.planner=~");
    }
    names = planner.elements();
  } else {
    names.push_back(planner);
  }
  for (const YamlValue& n : names) {
    const std::string name = n.as_string();
    find_planner(name, n.location(), n.path());  // unknown: InputError with "did you mean"
    for (std::size_t i = 0; i < spec.planners.size(); ++i) {
      if (spec.planners[i] == name) {
        throw n.error(fmt::format("planner '{}' is listed twice", name),
                      "each planner is run once; remove the repeat");
      }
    }
    spec.planners.push_back(name);
  }
  if (auto o = p.find("options"); o && !o->is_null()) {
    o->expect_map();
    spec.options = YamlValue(o->node(), p.file(), options_path);
  }
  return spec;
}

// A precision the GPU cannot run (a preset writes its peak as 0, e.g. BF16 on Turing) is the
// user's choice of precision: an error at `model.precision.mlp` now, not in the middle of a run.
// Pruning reshapes the synthetic access profile (docs/model.md "Pruning"); a recorded trace keeps
// its own rows and bags, which would no longer match the pruned tables.
void check_pruning_without_recorded_trace(const Scenario& sc, const YamlValue& model) {
  if (sc.workload.trace.file.empty()) return;
  const auto pruned = std::find_if(sc.model.tables.begin(), sc.model.tables.end(),
                                   [](const EmbeddingTable& t) { return t.pruning.fraction > 0; });
  if (pruned == sc.model.tables.end()) return;
  std::optional<YamlValue> at = model.find("prune_fraction");
  if (auto tables = model.find("tables"); tables && tables->is_sequence()) {
    for (const YamlValue& t : tables->elements()) {
      if (auto f = t.is_map() ? t.find("prune_fraction") : std::nullopt; f && f->as_double() > 0) {
        at = f;
        break;
      }
    }
  }
  const YamlValue& where = at ? *at : model;
  throw where.error(fmt::format("table '{}' is pruned, but workload.trace.file replays a recorded "
                                "trace, whose rows are the unpruned table's",
                                pruned->name),
                    "pruning applies to synthetic traces: remove workload.trace.file, or set "
                    "prune_fraction to 0");
}

void check_precision_support(const Scenario& sc, const YamlValue& model) {
  const GpuSpec& gpu = sc.cluster.preset.gpu;
  const Precision p = sc.model.mlp_precision;
  try {
    if (gpu.peak_flops(p) > 0) return;  // throws when the peak is 0
  } catch (const InputError&) {
  }
  YamlValue at = model;
  std::string key = model.path().empty() ? "model.precision.mlp" : model.path() + ".precision.mlp";
  if (auto prec = model.find("precision"); prec && prec->is_map()) {
    at = *prec;
    if (auto m = prec->find("mlp")) at = *m;
  }
  throw InputError(at.location(), key,
                   fmt::format("GPU {} of preset '{}' has no {} support (its peak is 0)", gpu.name,
                               sc.cluster.preset.name, to_string(p)),
                   "choose a precision this GPU supports in model.precision.mlp (e.g. fp32 or "
                   "fp16), or another hardware preset");
}

// The stored tables follow the workload (docs/model.md, "Table precision"): FBGEMM's training TBE
// stores fp32/fp16/bf16 and int8 rows (SplitTableBatchedEmbeddingBagsCodegen), its inference TBE
// (IntNBitTableBatchedEmbeddingBagsCodegen) also int4, int2 and fp8, which no FBGEMM optimizer
// trains: those are an error at `model.precision.tables` in training.
void apply_table_precision_mode(Scenario& sc, const YamlValue& model) {
  const bool training = sc.workload.mode == Mode::training;
  sc.model.table_kernel = training ? TableKernel::training : TableKernel::inference;
  const Precision p = sc.model.table_precision;
  if (!training || !(p == Precision::int4 || p == Precision::int2 || p == Precision::fp8)) return;
  YamlValue at = model;
  std::string key =
      model.path().empty() ? "model.precision.tables" : model.path() + ".precision.tables";
  if (auto prec = model.find("precision"); prec && prec->is_map()) {
    at = *prec;
    if (auto t = prec->find("tables")) at = *t;
  }
  throw InputError(at.location(), key,
                   fmt::format("{} tables are inference-only: FBGEMM's training TBE stores fp32, "
                               "fp16, bf16 and int8 rows, and only its inference TBE reads {}",
                               to_string(p), to_string(p)),
                   "use int8 (or fp16/bf16) tables for training, or set workload.mode: inference");
}

}  // namespace

Scenario load_scenario(const YAML::Node& root, const std::string& file) {
  const YamlValue doc(root, file, "");
  if (doc.is_null()) {
    throw InputError(SourceLocation{file, 0, 0}, "", "the scenario is empty",
                     "start from scenarios/example.yaml; docs/scenario.md lists every key");
  }
  doc.expect_map();
  doc.expect_keys(
      {"name", "cluster", "model", "workload", "placement", "cost", "simulation", "sweep"});

  Scenario sc;
  sc.source = file;
  if (auto n = doc.find("name")) {
    sc.name = n->as_string();
    if (sc.name.empty())
      throw n->error("the scenario name is empty", "omit name: to use the file name");
  } else {
    sc.name = std::filesystem::path(file).stem().string();
    if (sc.name.empty()) sc.name = "scenario";
  }
  sc.hashes.scenario = yaml_content_hash(root);
  sc.values = flatten_yaml(root);
  sc.hashes.cost = default_cost_params_hash();
  sc.cluster = load_cluster(doc.get("cluster"), sc.hashes.hardware);
  sc.workload =
      load_workload(doc.get("workload"), sc.cluster.nodes * sc.cluster.preset.gpus_per_node,
                    sc.cluster.preset.gpus_per_node);
  sc.model = load_model(doc.get("model"), sc.workload.seed);
  check_pruning_without_recorded_trace(sc, doc.get("model"));
  sc.placement = load_placement(doc.get("placement"));
  check_precision_support(sc, doc.get("model"));
  apply_table_precision_mode(sc, doc.get("model"));
  sc.cost = default_cost_params();
  if (auto c = doc.find("cost"); c && !c->is_null()) {
    c->expect_map();
    sc.cost = apply_cost_overrides(sc.cost, *c);
    // A cost file is an input like the defaults: its content joins the cost hash.
    if (auto file = c->find("file")) {
      sc.hashes.cost = content_hash(sc.hashes.cost + "+" +
                                    yaml_content_hash(load_yaml_file(cost_file_path(*file))));
    }
  }
  if (auto s = doc.find("simulation")) {
    sc.simulation = load_simulation_options(*s, sc.cluster.nodes * sc.cluster.preset.gpus_per_node);
  }
  if (auto s = doc.find("sweep")) sc.sweep = parse_sweep_axes(*s);
  return sc;
}

HardwarePreset load_scenario_preset(const ScenarioDocument& document) {
  const YamlValue& doc = document.root();
  doc.expect_map();
  std::string hash;
  return load_cluster_preset(doc.get("cluster"), hash);
}

std::uint64_t written_global_batch(const ScenarioDocument& document) {
  const YamlValue& doc = document.root();
  doc.expect_map();
  const auto w = doc.find("workload");
  if (!w || !w->is_map()) return 0;
  const auto g = w->find("global_batch");
  return g ? g->as_positive_int() : 0;
}

Scenario load_scenario(const ScenarioDocument& document) {
  return load_scenario(document.root().node(), document.file());
}

Scenario load_scenario_file(const std::string& path, const std::vector<Override>& overrides) {
  YAML::Node doc = load_yaml_file(path);
  apply_overrides(doc, overrides);
  return load_scenario(doc, path);
}

Scenario load_scenario_text(std::string_view text, const std::string& file,
                            const std::vector<Override>& overrides) {
  YAML::Node doc = parse_yaml(text, file);
  apply_overrides(doc, overrides);
  return load_scenario(doc, file);
}

std::string_view default_scenario_text() {
  const auto text = find_embedded_config("scenarios/default.yaml");
  if (!text) {
    // A build problem, not bad input: cmake/EmbedConfigs.cmake always embeds it.
    throw std::logic_error("scenarios/default.yaml was not compiled into this binary");
  }
  return *text;
}

Scenario load_default_scenario(const std::vector<Override>& overrides) {
  return load_scenario_text(default_scenario_text(), std::string(kBuiltinDefaultSource), overrides);
}

}  // namespace shardsim
