#pragma once
// Rank 0's side of a distributed run (run/distributed_runs.hpp, docs/distributed.md): the
// coordinator that hands the runs to every rank's slots, longest first, and takes their results.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shardsim/run/distributed_runs.hpp"

namespace shardsim {

class Coordinator final : public RunExecutor {
 public:
  // Starts the loop that talks to the other ranks.
  explicit Coordinator(MessageTransport& transport);
  // Stops the loop and rank 0's runs; aborts the job when its messages could not be exchanged.
  ~Coordinator() override;

  // Starts rank 0's own `jobs` run threads (once).
  void start_local(int jobs);

  // Runs `tasks` over the ranks, longest first; `finished` takes each run's reports on this
  // thread. Throws the error of the lowest failed run, or of a message that could not be taken.
  void simulate(std::span<const RunTask> tasks, bool record_timings, const PlanGuard& guard,
                const std::function<void(std::size_t, std::vector<Report>)>& finished) override;

 private:
  using Clock = std::chrono::steady_clock;
  struct Batch;
  struct Job {
    Batch* batch = nullptr;
    std::size_t k = 0;
    const RunTask* task = nullptr;
    double estimate = 0;
    bool record_timings = false;
    const PlanGuard* guard = nullptr;  // rank 0's runs; the other ranks load their own
    int rank = -1;                     // where it runs; -1: not handed out
  };
  struct Batch {
    std::size_t total = 0;
    bool several_sources = false;  // its runs come from more than one scenario file
    std::size_t outstanding = 0;   // not yet ended
    std::deque<std::pair<std::size_t, std::vector<Report>>> finished;
    std::map<std::size_t, std::exception_ptr> errors;
    std::optional<std::size_t> lowest_error;
  };
  struct Peer {
    bool hello = false;
    bool bye = false;
    bool stop_sent = false;
    std::uint32_t slots = 0;
    std::string host;
    std::vector<Job*> running;
  };

  // Ends `job` (under the lock) with its reports or its error.
  void end(Job* job, std::optional<std::vector<Report>> reports, std::exception_ptr error);

  // Drops the jobs of `b` not yet handed out whose k is at least `from` (under the lock).
  void drop_pending(Batch& b, std::size_t from);

  // One of rank 0's run threads: runs the jobs handed to rank 0.
  void local_worker();

  // Whether every other rank has said hello.
  bool everyone_here() const;

  // Hands pending jobs to free slots, rank 0's first, then rank 1's, ... (under the lock): the
  // longest run to rank 0, the next to rank 1, ... Not before every rank has said hello, so
  // that the first runs spread over all of them.
  void hand_out();

  // Takes one message from rank `from` (under the lock). A message that cannot be taken throws
  // InputError naming the rank.
  void take(int from, const std::string& bytes);

  // "run 3 of 6 at cluster.nodes=4"; with the scenario file when the batch has several
  // (`baseline`): "run 3 of 6 (scenarios/a.yaml) at cluster.nodes=4".
  static std::string describe(const Job& job);

  // The launcher is ending the job (a rank died, or it was cancelled): say what was running and
  // leave at once, before any output is written.
  [[noreturn]] void die();

  // Logs the runs done, running and left, every kProgressInterval: 2 s (under the lock).
  void report_progress(Clock::time_point now);

  // The coordinator thread: takes the other ranks' messages, hands out runs, and at the end
  // tells every rank to stop and waits for its bye.
  void loop();

  MessageTransport& t_;
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Job*> pending_;        // handed out from the front
  std::vector<Job*> local_running_;  // handed to rank 0 (queued or running)
  std::deque<Job*> local_queue_;     // handed to rank 0, not yet started
  std::size_t local_slots_ = 0;
  std::vector<Peer> peers_;  // by rank; [0] unused
  std::vector<std::thread> local_;
  std::thread loop_;
  bool stopping_ = false;
  std::exception_ptr loop_error_;  // a message that could not be taken, or a transport failure
  bool transport_failed_ = false;
  std::size_t submitted_ = 0;
  std::size_t ended_ = 0;
  bool started_ = false;
  bool reported_ = false;
  Clock::time_point start_;
  Clock::time_point last_progress_;
};

}  // namespace shardsim
