// The Python module's native part, `shardsim._shardsim` (docs/python.md): the library's loaders,
// planners, runners and report writers, called in-process. The Python package (python/shardsim/)
// builds the user-facing API on it. Every simulation runs with the GIL released on a worker
// thread; Ctrl-C in the interpreter asks the run to stop (core/cancellation.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "shardsim/core/cancellation.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/cost/collective_predictor.hpp"
#include "shardsim/cost/cost_params.hpp"
#include "shardsim/hw/describe.hpp"
#include "shardsim/hw/hardware_preset.hpp"
#include "shardsim/io/model_summary_writer.hpp"
#include "shardsim/io/plan_file.hpp"
#include "shardsim/io/report_json_schema.hpp"
#include "shardsim/io/report_writer.hpp"
#include "shardsim/io/scenario_loader.hpp"
#include "shardsim/io/torchrec_plan.hpp"
#include "shardsim/metrics/report_schema.hpp"
#include "shardsim/plan/memory.hpp"
#include "shardsim/plan/model_summary.hpp"
#include "shardsim/plan/plan_validation.hpp"
#include "shardsim/run/resource_estimate.hpp"
#include "shardsim/run/resource_guard.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/run/scenario_plans.hpp"
#include "shardsim/run/scenario_runs.hpp"
#include "shardsim/run/scenario_sizing.hpp"

namespace py = pybind11;

namespace shardsim {
namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

std::vector<Override> to_overrides(const Overrides& o) {
  std::vector<Override> out;
  for (const auto& [k, v] : o) out.push_back(Override{k, v});
  return out;
}

// Runs `f` on a worker thread with the GIL released; checks for Ctrl-C every 50 ms and, on one,
// asks the run to stop, waits for it, and raises KeyboardInterrupt. Exceptions of `f` propagate.
template <class F>
auto interruptible(F&& f) -> decltype(f()) {
  using R = decltype(f());
  clear_cancel();
  std::packaged_task<R()> task(std::forward<F>(f));
  std::future<R> result = task.get_future();
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::thread worker(std::move(task));
    while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        request_cancel();
        break;
      }
    }
    result.wait();
    worker.join();
  }
  clear_cancel();
  if (interrupted) throw py::error_already_set();  // the KeyboardInterrupt PyErr_CheckSignals set
  return result.get();
}

// The scenario's document (text named `file`, or the file `file` when `text` is None).
RunRequest request_of(const std::optional<std::string>& text, const std::string& file,
                      const Overrides& overrides, SweepUse sweep) {
  RunRequest r;
  r.path = file;
  r.text = text;
  r.overrides = to_overrides(overrides);
  r.sweep = sweep;
  return r;
}

Scenario load_one(const std::optional<std::string>& text, const std::string& file,
                  const Overrides& overrides) {
  const std::vector<Override> o = to_overrides(overrides);
  if (text) return load_scenario_text(*text, file, o);
  if (file.empty()) return load_default_scenario(o);
  return load_scenario_file(file, o);
}

std::vector<Report> run_request(const RunRequest& request, int jobs, bool timings) {
  const ScenarioRuns runs = load_runs(request);
  RunSettings settings{jobs, timings, {}};
  settings.plan_guard =
      check_runs(runs.scenarios, RunShape{jobs, false}, ResourceLimits{}, request.path);
  return run_all(runs, settings);
}

std::string plan_text(const Plan& plan, const Scenario& sc, const Cluster& cluster,
                      PlanFormat format) {
  std::ostringstream out;
  write_plan(out, plan, sc.model, cluster, format, PlanFileInfo{sc.name});
  return out.str();
}

struct LoadedScenario {
  explicit LoadedScenario(Scenario s)
      : scenario(std::move(s)), cluster(scenario.cluster.preset, scenario.cluster.nodes) {}
  Scenario scenario;
  Cluster cluster;
  // The planner and its trace source, made on the first plan() and kept (a thousand plans of
  // one scenario build its trace profiles once); one plan at a time.
  std::mutex planning;
  std::unique_ptr<ScenarioPlanner> planner;
  const ScenarioPlanner& planner_locked() {
    if (!planner) planner = std::make_unique<ScenarioPlanner>(scenario);
    return *planner;
  }
};

py::dict field_row(const ReportField& f) {
  py::dict d;
  d["path"] = std::string(f.path);
  d["unit"] = std::string(f.unit);
  d["section"] = std::string(f.section);
  d["description"] = std::string(f.description);
  d["metric"] = f.compare ? py::object(py::str(std::string(f.compare->name))) : py::none();
  return d;
}

void translate(std::exception_ptr p) {
  const py::module_ errors = py::module_::import("shardsim._errors");
  try {
    if (p) std::rethrow_exception(p);
  } catch (const InputError& e) {
    const SourceLocation& w = e.where();
    py::object err = errors.attr("InputError")(e.what(), w.file, w.line, w.column, e.key(),
                                               e.problem(), e.hint());
    PyErr_SetObject(errors.attr("InputError").ptr(), err.ptr());
  } catch (const DoesNotFitError& e) {
    py::object err =
        errors.attr("DoesNotFitError")(e.what(), e.gpu(), e.needed_bytes(), e.available_bytes());
    PyErr_SetObject(errors.attr("DoesNotFitError").ptr(), err.ptr());
  } catch (const Cancelled&) {
    PyErr_SetString(PyExc_KeyboardInterrupt, "cancelled");
  }
}

}  // namespace
}  // namespace shardsim

PYBIND11_MODULE(_shardsim, m) {
  using namespace shardsim;
  m.doc() = "shardsim's native part; use the `shardsim` package (docs/python.md)";
  m.attr("version") = SHARDSIM_VERSION;
  m.attr("report_schema_version") = std::string(kReportSchemaVersion);
  py::register_exception_translator(&translate);
  setup_logging(Verbosity::normal);

  m.def(
      "set_verbosity",
      [](const std::string& v) {
        if (v != "quiet" && v != "normal" && v != "verbose") {
          throw InputError(SourceLocation{}, "verbosity", "expected quiet, normal or verbose",
                           "shardsim.set_verbosity('quiet')");
        }
        setup_logging(v == "quiet"    ? Verbosity::quiet
                      : v == "normal" ? Verbosity::normal
                                      : Verbosity::verbose);
      },
      py::arg("verbosity"));

  py::class_<Report>(m, "NativeReport")
      .def("json", [](const Report& r) { return report_to_json(r).dump(); })
      .def("text", [](const Report& r) {
        std::ostringstream out;
        write_text(out, std::span<const Report>(&r, 1));
        return out.str();
      });

  m.def("reports_text", [](const std::vector<Report>& reports) {
    std::ostringstream out;
    write_text(out, reports);
    return out.str();
  });
  m.def("reports_json", [](const std::vector<Report>& reports) {
    std::ostringstream out;
    write_json(out, reports);
    return out.str();
  });
  m.def("reports_csv", [](const std::vector<Report>& reports) {
    std::ostringstream out;
    write_csv_summary(out, reports);
    return out.str();
  });

  // A loaded, validated scenario: what `plan`, `simulate` and the TorchRec conversions use
  // (loaded once; `run` and `sweep` load the document again, as the CLI does, for sweeps).
  py::class_<LoadedScenario, std::shared_ptr<LoadedScenario>>(m, "NativeScenario")
      .def(py::init([](const std::optional<std::string>& text, const std::string& file,
                       const Overrides& overrides) {
             return std::make_shared<LoadedScenario>(load_one(text, file, overrides));
           }),
           py::arg("text"), py::arg("file"), py::arg("overrides"))
      .def("summary_json",
           [](const LoadedScenario& s) {
             const Scenario& sc = s.scenario;
             const ModelSummary sum =
                 summarize_model(sc.model, sc.workload, sc.cluster.preset, sc.cluster.nodes);
             nlohmann::ordered_json j =
                 model_summary_to_json(sum, estimate_memory({&sc, 1}, RunShape{}).total_bytes);
             j["cluster"] = {{"preset", sc.cluster.preset.name},
                             {"nodes", s.cluster.num_nodes()},
                             {"gpus_per_node", s.cluster.gpus_per_node()},
                             {"num_gpus", s.cluster.num_gpus()}};
             return j.dump();
           })
      // One planner's plan: (planner, plan JSON text, plan YAML text, fit error or "").
      .def(
          "plan",
          [](LoadedScenario& s, const std::string& planner_name) {
            return interruptible([&] {
              const Scenario& sc = s.scenario;
              const std::lock_guard lock(s.planning);
              const ScenarioPlanner& planner = s.planner_locked();
              ScenarioPlan p = planner_name.empty() ? planner.plans().at(0)
                                                    : planner.plan_with(planner_name, "planner");
              if (!p.plan) throw *p.unplaced;
              std::string fit_error;
              try {
                check_fits(plan_memory(*p.plan, s.cluster, sc.model, sc.workload), s.cluster);
              } catch (const DoesNotFitError& e) {
                fit_error = e.what();
              }
              return std::tuple{p.planner, plan_text(*p.plan, sc, s.cluster, PlanFormat::json),
                                plan_text(*p.plan, sc, s.cluster, PlanFormat::yaml), fit_error};
            });
          },
          py::arg("planner"))
      // Simulates plans given as plan documents (JSON or YAML text), named by `names`.
      .def(
          "run_plans",
          [](const LoadedScenario& s, const std::vector<std::string>& plans,
             const std::vector<std::string>& names) {
            return interruptible([&] {
              std::vector<Plan> parsed;
              for (std::size_t i = 0; i < plans.size(); ++i) {
                parsed.push_back(
                    read_plan_text(plans[i], names.at(i), s.scenario.model, s.cluster));
                parsed.back().planner = names.at(i);
              }
              return run_scenario_plans(s.scenario, std::move(parsed));
            });
          },
          py::arg("plans"), py::arg("names"))
      // A TorchRec plan (format shardsim-torchrec-1) checked and returned as a shardsim plan.
      .def(
          "torchrec_to_plan",
          [](const LoadedScenario& s, const std::string& torchrec_json, const std::string& name) {
            Plan plan = read_plan_text(torchrec_json, name, s.scenario.model, s.cluster);
            plan.planner = name;
            validate_plan(plan, s.cluster, s.scenario.model, name);
            return plan_text(plan, s.scenario, s.cluster, PlanFormat::json);
          },
          py::arg("plan"), py::arg("name"))
      // A shardsim plan document as TorchRec's ShardingPlan (io/torchrec_plan.hpp).
      .def(
          "plan_to_torchrec",
          [](const LoadedScenario& s, const std::string& plan_json, const std::string& name) {
            Plan plan = read_plan_text(plan_json, name, s.scenario.model, s.cluster);
            plan.planner = name;
            return torchrec_plan_json(plan, s.scenario.model, s.cluster).dump();
          },
          py::arg("plan"), py::arg("name"));

  m.def(
      "run",
      [](const std::optional<std::string>& text, const std::string& file,
         const Overrides& overrides, bool sweep, int jobs, bool timings) {
        const RunRequest req =
            request_of(text, file, overrides, sweep ? SweepUse::require : SweepUse::ignore);
        return interruptible([&] { return run_request(req, jobs, timings); });
      },
      py::arg("text"), py::arg("file"), py::arg("overrides"), py::arg("sweep"), py::arg("jobs"),
      py::arg("timings"));

  // `shardsim size`: the fewest GPUs that meet the target, as a dict of the probes.
  m.def(
      "size",
      [](const std::optional<std::string>& text, const std::string& file,
         const Overrides& overrides, std::optional<double> min_qps,
         std::optional<double> max_iteration_s, const std::vector<std::string>& presets,
         int max_nodes, int jobs, std::optional<double> margin_pct) {
        SizingRequest req;
        req.path = file;
        req.text = text;
        req.overrides = to_overrides(overrides);
        req.presets = presets;
        req.max_nodes = max_nodes;
        req.target = SizingTarget{min_qps, max_iteration_s};
        if (margin_pct) {
          req.margin_pct = *margin_pct;
        } else {
          const SizingMargin m = default_sizing_margin();
          req.margin_pct = m.pct;
          req.margin_source = m.source;
        }
        req.jobs = jobs;
        const ScenarioSizing sz = interruptible([&] { return size_scenario(req); });
        py::list probes;
        for (const SizingProbe& p : sz.result.probes) {
          py::list planners;
          for (const PlannerOutcome& o : p.planners) {
            py::dict d;
            d["planner"] = o.planner;
            d["fits"] = o.fits;
            d["qps"] = o.qps;
            d["iteration_s"] = o.iteration_s;
            d["memory_max_bytes"] = o.memory_max_bytes;
            planners.append(d);
          }
          py::dict d;
          d["preset"] = sz.presets.at(p.preset);
          d["nodes"] = p.nodes;
          d["gpus"] = p.gpus;
          d["batch_per_gpu"] = p.batch_per_gpu;
          d["passes"] = p.passes;
          d["planners"] = planners;
          probes.append(d);
        }
        py::dict out;
        out["scenario"] = sz.scenario;
        out["presets"] = sz.presets;
        out["probes"] = probes;
        if (sz.result.answer) {
          const SizingProbe& p = sz.result.probes.at(sz.result.answer->probe);
          py::dict a;
          a["preset"] = sz.presets.at(p.preset);
          a["nodes"] = p.nodes;
          a["gpus"] = p.gpus;
          a["planner"] = p.planners.at(sz.result.answer->planner).planner;
          a["qps"] = p.planners.at(sz.result.answer->planner).qps;
          out["answer"] = a;
        } else {
          out["answer"] = py::none();
        }
        return out;
      },
      py::arg("text"), py::arg("file"), py::arg("overrides"), py::arg("min_qps"),
      py::arg("max_iteration_s"), py::arg("presets"), py::arg("max_nodes"), py::arg("jobs"),
      py::arg("margin_pct"));

  // `shardsim collective`: the cost model's time of one collective over a preset's cluster.
  m.def(
      "collective",
      [](const std::string& op_name, const std::string& preset, int nodes,
         const std::vector<double>& sizes) {
        const auto op = collective_op_named(op_name);
        if (!op) {
          throw InputError(SourceLocation{}, "op", fmt::format("unknown collective '{}'", op_name),
                           fmt::format("one of {}", fmt::join(collective_op_names(), ", ")));
        }
        if (nodes < 1) throw InputError(SourceLocation{}, "nodes", "expected at least 1 node");
        const Cluster cluster(builtin_preset(preset, SourceLocation{}, "preset"), nodes);
        const CostParams cost = default_cost_params();
        py::list out;
        for (double size : sizes) {
          if (!(size >= 0) || !std::isfinite(size)) {
            throw InputError(SourceLocation{}, "sizes",
                             fmt::format("{} is not a size in bytes", size));
          }
          const CollectivePrediction c = predict_collective(cluster, *op, size, cost);
          py::dict d;
          d["size_bytes"] = c.size_bytes;
          d["time_s"] = c.time_s;
          d["algbw_Bps"] = c.algbw_Bps;
          d["busbw_Bps"] = c.busbw_Bps;
          out.append(d);
        }
        return out;
      },
      py::arg("op"), py::arg("preset"), py::arg("nodes"), py::arg("sizes"));

  m.def("report_fields", [] {
    py::list rows;
    for (const ReportField& f : report_fields()) {
      if (f.path.front() != '#') rows.append(field_row(f));
    }
    return rows;
  });
  m.def("report_json_schema", [] { return report_json_schema().dump(); });
  m.def("presets", [] { return builtin_preset_names(); });
  m.def("describe_preset", [](const std::string& name) {
    return describe_preset(builtin_preset(name, SourceLocation{}, "preset"));
  });
  m.def("default_scenario_text", [] { return std::string(default_scenario_text()); });
}
