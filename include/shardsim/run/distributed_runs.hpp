#pragma once
// A command's runs spread over the ranks of a job started by an MPI launcher (mpirun, srun;
// docs/distributed.md). Every rank runs the same command line. Rank 0 reads the inputs, hands
// the runs out one at a time, longest first by an estimate, to whichever rank has a free slot
// (itself included: `jobs` slots a rank), checks every reply (run/work_messages.hpp), and writes
// every output as one process would; the other ranks only simulate what they are handed, each
// loading that run for itself from the same files. The outputs do not depend on the number of
// ranks or the order in which runs end.
//
// A rank that dies ends the job: the launcher sends every other rank SIGTERM, and rank 0 then
// names the runs each rank was running and exits with 143 (128 + SIGTERM), before it has written
// any output. Runs already finished stay in a sweep's checkpoints for --resume.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "shardsim/io/scenario.hpp"
#include "shardsim/run/message_transport.hpp"
#include "shardsim/run/run_executor.hpp"
#include "shardsim/run/scenario_runs.hpp"

namespace shardsim {

// What a worker rank simulates for run `run` (RunTask::run): the scenario, its sweep label, and
// the resource guard's second look at its plans (check_runs of this run alone on this rank).
struct LoadedRun {
  Scenario scenario;
  std::string label;
  PlanGuard plan_guard{};
};
// Loads run `run`; may be called from several threads at once. Bad input throws InputError.
using RunLoader = std::function<LoadedRun(std::uint64_t run)>;

class Coordinator;

class DistributedRuns {
 public:
  // Rank 0 starts listening at once (the workers' hellos, the launcher's SIGTERM).
  explicit DistributedRuns(std::unique_ptr<MessageTransport> transport);
  // Rank 0: tells every worker to stop and waits for their last replies; then the transport
  // ends (MPI_Finalize).
  ~DistributedRuns();
  DistributedRuns(const DistributedRuns&) = delete;
  DistributedRuns& operator=(const DistributedRuns&) = delete;

  int rank() const;
  int size() const;
  bool coordinates() const { return rank() == 0; }

  // Rank 0: the executor that hands runs to every rank; rank 0 simulates `jobs` at once itself.
  RunExecutor& executor(int jobs);
  // Ranks > 0: simulates what rank 0 hands out, `jobs` runs at once, until it says stop;
  // returns the exit code (0).
  int serve(const RunLoader& load, int jobs);

 private:
  std::unique_ptr<MessageTransport> transport_;
  std::unique_ptr<Coordinator> coordinator_;
};

// A worker's loader for the runs of `request`, numbered as run_documents numbers them (the
// documents are expanded once, on the first call; each run is loaded when it is handed out).
RunLoader run_loader_of(const RunRequest& request);
// The same over several requests (`baseline`'s scenario files), numbered one request after
// another as run_all_sets numbers them: request_of(f) gives request f, called once, on the first
// call that needs it (a request's runs are counted only when a run at or after them is asked
// for). A request that fails (bad input) fails only the runs at or after it.
RunLoader run_loader_of(std::size_t requests, std::function<RunRequest(std::size_t)> request_of);

// The estimated work of one run, for handing the long runs out first (GUESS: proportional to
// reports x (iterations + warm-up) x GPUs x tables; it orders the runs only, it never changes a
// result).
double estimated_run_work(const Scenario& scenario);

}  // namespace shardsim
