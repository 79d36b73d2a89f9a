// A command's runs over the ranks of a job (run/distributed_runs.hpp, docs/distributed.md): the
// runs' loader and the job's ranks, rank 0 coordinating (run/distributed_coordinator.hpp) and the
// others working (run/distributed_worker.hpp).
#include "shardsim/run/distributed_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "run/distributed_coordinator.hpp"
#include "run/distributed_worker.hpp"
#include "shardsim/run/resource_guard.hpp"
#include "shardsim/run/run_scenario.hpp"

namespace shardsim {

double estimated_run_work(const Scenario& s) {
  const double reports = static_cast<double>(std::max<std::size_t>(1, report_count(s)));
  const double iterations = std::max(1, s.workload.iterations + s.workload.warmup);
  const double gpus = std::max(1, s.cluster.nodes * s.cluster.preset.gpus_per_node);
  const double tables = static_cast<double>(std::max<std::size_t>(1, s.model.tables.size()));
  return reports * iterations * gpus * tables;
}

RunLoader run_loader_of(const RunRequest& request) {
  return run_loader_of(1, [request](std::size_t) { return request; });
}

RunLoader run_loader_of(std::size_t requests, std::function<RunRequest(std::size_t)> request_of) {
  struct Documents {
    std::once_flag once;
    std::vector<RunDocument> runs;
    ResourceLimits limits;  // the request's (--max-memory on this rank's command line)
    std::exception_ptr error;
  };
  auto docs = std::make_shared<std::vector<Documents>>(requests);
  return [request_of = std::move(request_of), docs](std::uint64_t run) {
    std::uint64_t first = 0;  // the number of request f's first run
    for (std::size_t f = 0; f < docs->size(); ++f) {
      Documents& d = (*docs)[f];
      std::call_once(d.once, [&] {
        try {
          const RunRequest request = request_of(f);
          d.limits = request.limits;
          d.runs = run_documents(request);
        } catch (...) {
          d.error = std::current_exception();
        }
      });
      if (d.error) std::rethrow_exception(d.error);
      if (run - first < d.runs.size()) {
        const RunDocument& r = d.runs[static_cast<std::size_t>(run - first)];
        Scenario scenario = load_scenario_at_point(r.document, r.label);
        PlanGuard guard = check_runs(std::span<const Scenario>(&scenario, 1), RunShape{}, d.limits,
                                     scenario.source);
        return LoadedRun{std::move(scenario), r.label, std::move(guard)};
      }
      first += d.runs.size();
    }
    throw std::runtime_error(
        fmt::format("rank 0 handed out run {}, but the command has {} runs here", run, first));
  };
}

DistributedRuns::DistributedRuns(std::unique_ptr<MessageTransport> transport)
    : transport_(std::move(transport)) {
  if (coordinates()) coordinator_ = std::make_unique<Coordinator>(*transport_);
}

DistributedRuns::~DistributedRuns() {
  coordinator_.reset();  // before the transport ends
}

int DistributedRuns::rank() const {
  return transport_->rank();
}

int DistributedRuns::size() const {
  return transport_->size();
}

RunExecutor& DistributedRuns::executor(int jobs) {
  if (!coordinator_) throw std::logic_error("DistributedRuns::executor on a rank other than 0");
  coordinator_->start_local(jobs);
  return *coordinator_;
}

int DistributedRuns::serve(const RunLoader& load, int jobs) {
  if (coordinator_) throw std::logic_error("DistributedRuns::serve on rank 0");
  return serve_worker(*transport_, load, jobs);
}

}  // namespace shardsim
