// `simulation:` of a scenario (docs/scenario.md).
#include "io/simulation_loader.hpp"

#include <fmt/format.h>

#include <cmath>

#include "shardsim/sim/network_model.hpp"

namespace shardsim {

namespace {

std::vector<Straggler> load_stragglers(const YamlValue& list, int num_gpus) {
  if (!list.is_sequence()) {
    throw list.error("expected a list of stragglers", "e.g. stragglers: [{gpu: 3, slowdown: 1.5}]");
  }
  std::vector<Straggler> out;
  for (const YamlValue& e : list.elements()) {
    e.expect_map();
    e.expect_keys({"gpu", "slowdown"});
    const YamlValue gpu = e.get("gpu");
    const std::uint64_t id = gpu.as_nonnegative_int();
    if (id >= static_cast<std::uint64_t>(num_gpus)) {
      throw gpu.error(fmt::format("GPU {} does not exist: the cluster has {} GPUs (0 to {})", id,
                                  num_gpus, num_gpus - 1),
                      "GPU ids are global: node x gpus_per_node + local index");
    }
    for (const Straggler& s : out) {
      if (s.gpu == static_cast<int>(id)) {
        throw gpu.error(fmt::format("GPU {} is listed twice", id),
                        "give each slow GPU one entry with its total slowdown");
      }
    }
    const YamlValue slow = e.get("slowdown");
    const double f = slow.as_positive_double();
    if (f < 1 || !std::isfinite(f)) {
      throw slow.error(fmt::format("expected a slowdown >= 1, found {}", f),
                       "a straggler's kernels take `slowdown` times as long: 1.5 = 50% slower");
    }
    out.push_back(Straggler{static_cast<int>(id), f});
  }
  return out;
}

}  // namespace

SimulationOptions load_simulation_options(const YamlValue& node, int num_gpus) {
  SimulationOptions o;
  if (node.is_null()) return o;
  node.expect_map();
  node.expect_keys({"link_sharing", "pipeline", "stragglers", "jitter"});
  if (auto s = node.find("link_sharing")) {
    const NetworkModelInfo& m = find_network_model(s->as_string(), s->location(), s->path());
    if (m.max_gpus > 0 && num_gpus > m.max_gpus) {
      throw s->error(fmt::format("network model '{}' models at most {} GPUs (one flow per GPU "
                                 "pair); {} GPUs is more than its limit of {}",
                                 m.name, m.max_gpus, num_gpus, m.max_gpus),
                     "use link_sharing: aggregated (the per-flow model is a reference for small "
                     "clusters)");
    }
    o.link_sharing = std::string(m.name);
  }
  if (auto p = node.find("pipeline"); p && !p->is_null()) {
    p->expect_map();
    p->expect_keys({"input_alltoall", "pooled_alltoall"});
    if (auto i = p->find("input_alltoall")) {
      const std::string v = i->as_choice({"none", "serial", "overlapped"});
      o.input_alltoall = v == "none"     ? InputAlltoall::none
                         : v == "serial" ? InputAlltoall::serial
                                         : InputAlltoall::overlapped;
    }
    if (auto a = p->find("pooled_alltoall")) {
      o.pooled_alltoall = a->as_choice({"serial", "overlapped"}) == "serial"
                              ? PooledAlltoall::serial
                              : PooledAlltoall::overlapped;
    }
  }
  if (auto s = node.find("stragglers"); s && !s->is_null()) {
    o.stragglers = load_stragglers(*s, num_gpus);
  }
  if (auto j = node.find("jitter"); j && !j->is_null()) {
    j->expect_map();
    j->expect_keys({"cv"});
    const YamlValue cv = j->get("cv");
    o.jitter_cv = cv.as_nonnegative_double();
    if (o.jitter_cv > 1) {
      throw cv.error(
          fmt::format("expected a coefficient of variation in [0, 1], found {}", o.jitter_cv),
          "cv is the standard deviation of the kernel-time factor over its mean 1: "
          "0.05 = 5% jitter");
    }
  }
  return o;
}

}  // namespace shardsim
