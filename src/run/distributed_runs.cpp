// A command's runs over the ranks of a job (run/distributed_runs.hpp, docs/distributed.md).
#include "shardsim/run/distributed_runs.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/point_checkpoint.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/run/work_messages.hpp"

namespace shardsim {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kIdleWait = std::chrono::milliseconds(1);
constexpr auto kProgressInterval = std::chrono::seconds(2);
// The exit code of a process ended by SIGTERM, as a shell reports it.
constexpr int kTerminatedExitCode = 128 + SIGTERM;

// Fault injection for the tests of docs/distributed.md, never set in use:
// SHARDSIM_FAULT_INJECT=kill_rank:R:after_point:K kills rank R (SIGKILL) when it is handed its
// (K+1)-th run, so it dies holding that run; corrupt_rank:R:point:K flips one byte in the K-th
// result rank R sends.
struct RankFault {
  enum class Kind { none, kill, corrupt } kind = Kind::none;
  int rank = -1;
  long at = 0;
};

RankFault rank_fault_from_environment() {
  const char* v = std::getenv("SHARDSIM_FAULT_INJECT");
  if (v == nullptr) return {};
  int rank = -1;
  long at = 0;
  if (std::sscanf(v, "kill_rank:%d:after_point:%ld", &rank, &at) == 2) {
    return {RankFault::Kind::kill, rank, at};
  }
  if (std::sscanf(v, "corrupt_rank:%d:point:%ld", &rank, &at) == 2) {
    return {RankFault::Kind::corrupt, rank, at};
  }
  return {};
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "?";
  return buf;
}

// An error about a peer's message: bad input to rank 0 (exit 2), naming the rank.
InputError peer_error(int rank, const std::string& problem, const std::string& hint) {
  return InputError(SourceLocation{fmt::format("MPI rank {}", rank)}, "", problem, hint);
}

}  // namespace

double estimated_run_work(const Scenario& s) {
  const double reports = static_cast<double>(std::max<std::size_t>(1, report_count(s)));
  const double iterations = std::max(1, s.workload.iterations + s.workload.warmup);
  const double gpus = std::max(1, s.cluster.nodes * s.cluster.preset.gpus_per_node);
  const double tables = static_cast<double>(std::max<std::size_t>(1, s.model.tables.size()));
  return reports * iterations * gpus * tables;
}

// --- Rank 0 ---

class Coordinator final : public RunExecutor {
 public:
  explicit Coordinator(MessageTransport& transport) : t_(transport), peers_(transport.size()) {
    loop_ = std::thread([this] { loop(); });
  }

  ~Coordinator() override {
    {
      std::lock_guard lock(m_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (std::thread& th : local_) th.join();
    loop_.join();
    if (transport_failed_) {
      // The workers cannot be told to stop: end them all.
      log_error("the MPI job is aborted: its messages cannot be sent or received");
      t_.abort(static_cast<int>(ExitCode::internal));
    }
  }

  void start_local(int jobs) {
    std::lock_guard lock(m_);
    if (!local_.empty()) return;
    local_slots_ = static_cast<std::size_t>(std::max(1, jobs));
    for (std::size_t j = 0; j < local_slots_; ++j) local_.emplace_back([this] { local_worker(); });
  }

  void simulate(std::span<const RunTask> tasks, bool record_timings,
                const std::function<void(std::size_t, std::vector<Report>)>& finished) override {
    Batch batch;
    batch.total = tasks.size();
    batch.several_sources = std::any_of(tasks.begin(), tasks.end(), [&](const RunTask& t) {
      return t.scenario->source != tasks.front().scenario->source;
    });
    batch.outstanding = tasks.size();
    std::vector<Job> jobs(tasks.size());
    {
      std::lock_guard lock(m_);
      if (loop_error_) std::rethrow_exception(loop_error_);
      for (std::size_t k = 0; k < tasks.size(); ++k) {
        jobs[k] =
            Job{&batch, k, &tasks[k], estimated_run_work(*tasks[k].scenario), record_timings, -1};
        pending_.push_back(&jobs[k]);
      }
      // Longest first; ties in the order given.
      std::stable_sort(pending_.begin(), pending_.end(),
                       [](const Job* a, const Job* b) { return a->estimate > b->estimate; });
      submitted_ += tasks.size();
      if (!started_) {
        started_ = true;
        start_ = last_progress_ = Clock::now();
      }
    }
    cv_.notify_all();
    std::unique_lock lock(m_);
    while (true) {
      cv_.wait(lock, [&] {
        return !batch.finished.empty() || batch.outstanding == 0 || loop_error_ != nullptr;
      });
      while (!batch.finished.empty()) {
        auto [k, reports] = std::move(batch.finished.front());
        batch.finished.pop_front();
        lock.unlock();
        std::exception_ptr failed;
        try {
          finished(k, std::move(reports));  // e.g. the point store's write
        } catch (...) {
          failed = std::current_exception();
        }
        lock.lock();
        if (failed) {  // that run's error, as in one process (the jobs here must end first)
          batch.errors[k] = failed;
          if (!batch.lowest_error || k < *batch.lowest_error) batch.lowest_error = k;
          drop_pending(batch, k + 1);
        }
      }
      if (loop_error_) {
        // Nothing more arrives from the workers; this batch's jobs on rank 0 end before its
        // jobs (on this stack) go.
        drop_pending(batch, 0);
        const auto queued = std::remove_if(local_queue_.begin(), local_queue_.end(),
                                           [&](const Job* j) { return j->batch == &batch; });
        for (auto it = queued; it != local_queue_.end(); ++it) {
          std::erase(local_running_, *it);
          --batch.outstanding;
        }
        local_queue_.erase(queued, local_queue_.end());
        cv_.wait(lock, [&] {
          return std::none_of(local_running_.begin(), local_running_.end(),
                              [&](const Job* j) { return j->batch == &batch; });
        });
        for (Peer& p : peers_) {
          std::erase_if(p.running, [&](const Job* j) { return j->batch == &batch; });
        }
        std::rethrow_exception(loop_error_);
      }
      if (batch.outstanding == 0) break;
    }
    if (batch.lowest_error) std::rethrow_exception(batch.errors.at(*batch.lowest_error));
  }

 private:
  struct Batch;
  struct Job {
    Batch* batch = nullptr;
    std::size_t k = 0;
    const RunTask* task = nullptr;
    double estimate = 0;
    bool record_timings = false;
    int rank = -1;  // where it runs; -1: not handed out
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
  void end(Job* job, std::optional<std::vector<Report>> reports, std::exception_ptr error) {
    Batch& b = *job->batch;
    --b.outstanding;
    ++ended_;
    if (reports) {
      b.finished.emplace_back(job->k, std::move(*reports));
    } else {
      b.errors[job->k] = error;
      if (!b.lowest_error || job->k < *b.lowest_error) b.lowest_error = job->k;
      // As one process would: nothing after the failing run is started any more.
      drop_pending(b, job->k + 1);
    }
    cv_.notify_all();
  }

  // Drops the jobs of `b` not yet handed out whose k is at least `from` (under the lock).
  void drop_pending(Batch& b, std::size_t from) {
    const auto dropped = std::remove_if(pending_.begin(), pending_.end(), [&](const Job* j) {
      return j->batch == &b && j->k >= from;
    });
    const auto n = static_cast<std::size_t>(pending_.end() - dropped);
    pending_.erase(dropped, pending_.end());
    b.outstanding -= n;
    submitted_ -= n;
  }

  void local_worker() {
    std::unique_lock lock(m_);
    while (true) {
      // The coordinator thread hands rank 0 its runs as it hands them to the others.
      cv_.wait(lock, [&] { return stopping_ || !local_queue_.empty(); });
      if (stopping_) return;
      Job* job = local_queue_.front();
      local_queue_.pop_front();
      lock.unlock();
      std::optional<std::vector<Report>> reports;
      std::exception_ptr error;
      try {
        reports = run_scenario(*job->task->scenario,
                               RunOptions{job->task->label, job->record_timings, {}});
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      std::erase(local_running_, job);
      end(job, std::move(reports), error);
    }
  }

  bool everyone_here() const {
    return std::all_of(peers_.begin() + 1, peers_.end(), [](const Peer& p) { return p.hello; });
  }

  // Hands pending jobs to free slots, rank 0's first, then rank 1's, ... (under the lock): the
  // longest run to rank 0, the next to rank 1, ... Not before every rank has said hello, so
  // that the first runs spread over all of them.
  void hand_out() {
    if (!everyone_here()) return;
    while (local_running_.size() < local_slots_ && !pending_.empty()) {
      Job* job = pending_.front();
      pending_.erase(pending_.begin());
      job->rank = 0;
      local_running_.push_back(job);
      local_queue_.push_back(job);
      log_debug("MPI rank 0: {}", describe(*job));
      cv_.notify_all();
    }
    for (int r = 1; r < t_.size(); ++r) {
      Peer& p = peers_[static_cast<std::size_t>(r)];
      while (p.hello && !p.stop_sent && p.running.size() < p.slots && !pending_.empty()) {
        Job* job = pending_.front();
        pending_.erase(pending_.begin());
        job->rank = r;
        p.running.push_back(job);
        log_debug("MPI rank {} ({}): {}", r, p.host, describe(*job));
        t_.send(r, encode_message(TaskMessage{job->task->run, job->task->label,
                                              job->task->scenario->hashes, job->record_timings}));
      }
    }
  }

  // Takes one message from rank `from` (under the lock). A message that cannot be taken throws
  // InputError naming the rank.
  void take(int from, const std::string& bytes) {
    if (from <= 0 || from >= t_.size()) {
      throw peer_error(from, "a message from a rank outside the job", "");
    }
    Peer& p = peers_[static_cast<std::size_t>(from)];
    WorkMessage message;
    try {
      message = decode_message(bytes);
    } catch (const MessageError& e) {
      throw peer_error(from, fmt::format("a malformed message: {}", e.what()),
                       "the ranks' messages are damaged in transit, or a rank runs another "
                       "shardsim build: run the same build on every rank");
    }
    if (auto* hello = std::get_if<HelloMessage>(&message)) {
      if (p.hello) throw peer_error(from, "a second hello", "");
      if (hello->shardsim_version != SHARDSIM_VERSION) {
        throw peer_error(from,
                         fmt::format("it runs shardsim {} on {}; rank 0 runs {}",
                                     hello->shardsim_version, hello->host, SHARDSIM_VERSION),
                         "run the same shardsim build on every rank");
      }
      p.hello = true;
      p.slots = hello->slots;
      p.host = hello->host;
      return;
    }
    if (std::holds_alternative<ByeMessage>(message)) {
      if (!p.stop_sent) throw peer_error(from, "a bye before it was told to stop", "");
      p.bye = true;
      p.running.clear();  // what it had not started is dropped
      return;
    }
    const std::uint64_t run = std::holds_alternative<ResultMessage>(message)
                                  ? std::get<ResultMessage>(message).run
                              : std::holds_alternative<FailureMessage>(message)
                                  ? std::get<FailureMessage>(message).run
                                  : throw peer_error(from, "a message rank 0 does not take",
                                                     "run the same build on every rank");
    const auto it = std::find_if(p.running.begin(), p.running.end(),
                                 [&](const Job* j) { return j->task->run == run; });
    if (it == p.running.end()) {
      if (stopping_ || loop_error_) return;  // a run of a batch that has already failed
      throw peer_error(from, fmt::format("a reply for run {}, which it was not running", run),
                       "a mismatched message: run the same build on every rank");
    }
    Job* job = *it;
    p.running.erase(it);
    if (const auto* result = std::get_if<ResultMessage>(&message)) {
      std::vector<Report> reports;
      try {
        reports = reports_of(*result, job->task->scenario->hashes, job->task->label,
                             report_count(*job->task->scenario));
      } catch (const MessageError& e) {
        throw peer_error(
            from,
            fmt::format("a mismatched result for run {} ({}): {}", run, describe(*job), e.what()),
            "every rank must read the same scenario, preset and cost files with the same "
            "shardsim build (a shared file system)");
      }
      end(job, std::move(reports), nullptr);
      return;
    }
    std::exception_ptr error;
    try {
      rethrow_failure(std::get<FailureMessage>(message));
    } catch (...) {
      error = std::current_exception();
    }
    end(job, std::nullopt, error);
  }

  // "run 3 of 6 at cluster.nodes=4"; with the scenario file when the batch has several
  // (`baseline`): "run 3 of 6 (scenarios/a.yaml) at cluster.nodes=4".
  static std::string describe(const Job& job) {
    const std::string file =
        job.batch->several_sources ? fmt::format(" ({})", job.task->scenario->source) : "";
    if (job.task->label.empty()) {
      return fmt::format("run {} of {}{}", job.k + 1, job.batch->total, file);
    }
    if (job.batch->total == 1) return "the run" + file + " at " + job.task->label;
    return fmt::format("run {} of {}{} at {}", job.k + 1, job.batch->total, file,
                       report_format::shown_sweep_point(job.task->label));
  }

  // The launcher is ending the job (a rank died, or it was cancelled): say what was running and
  // leave at once, before any output is written.
  [[noreturn]] void die() {
    std::vector<std::string> running;
    {
      std::lock_guard lock(m_);
      for (const Job* j : local_running_) running.push_back("rank 0: " + describe(*j));
      for (int r = 1; r < t_.size(); ++r) {
        const Peer& p = peers_[static_cast<std::size_t>(r)];
        for (const Job* j : p.running) {
          running.push_back(fmt::format("rank {} ({}): {}", r, p.host, describe(*j)));
        }
      }
      log_error(
          "the MPI job is ending (SIGTERM: the launcher ends every rank when one has died, or "
          "the job was cancelled); {} of {} runs had finished; running: {}; no output was written",
          ended_, submitted_,
          running.empty() ? std::string("none") : fmt::format("{}", fmt::join(running, "; ")));
    }
    std::_Exit(kTerminatedExitCode);
  }

  void report_progress(Clock::time_point now) {
    if (!started_ || now - last_progress_ < kProgressInterval) return;
    last_progress_ = now;
    std::size_t running = local_running_.size();
    for (const Peer& p : peers_) running += p.running.size();
    const double elapsed_s = std::chrono::duration<double>(now - start_).count();
    const double rate = static_cast<double>(ended_) / elapsed_s;
    const std::size_t left = submitted_ - ended_;
    const std::string eta = ended_ == 0 ? std::string("unknown")
                                        : fmt::format("{:.0f} s", static_cast<double>(left) / rate);
    log_info("{} ranks: {}/{} runs done, {} running, {:.2f} runs/s, time left about {}", t_.size(),
             ended_, submitted_, running, rate, eta);
    reported_ = true;
  }

  void loop() {
    try {
      while (true) {
        if (t_.ending()) die();
        std::optional<MessageTransport::Received> in = t_.poll();
        std::unique_lock lock(m_);
        if (in) {
          try {
            take(in->from, in->bytes);
          } catch (const InputError&) {
            // A message that cannot be taken fails the runs waiting; the loop goes on, to stop
            // the workers cleanly.
            if (!loop_error_) loop_error_ = std::current_exception();
            cv_.notify_all();
          }
        }
        if (stopping_) {
          bool all_gone = true;
          for (int r = 1; r < t_.size(); ++r) {
            Peer& p = peers_[static_cast<std::size_t>(r)];
            if (!p.stop_sent) {
              t_.send(r, encode_message(StopMessage{}));
              p.stop_sent = true;
            }
            all_gone = all_gone && p.bye;
          }
          if (all_gone) break;
        } else if (!loop_error_) {
          hand_out();
          const auto now = Clock::now();
          report_progress(now);
          if (reported_ && ended_ == submitted_ && pending_.empty()) {
            log_info("{} ranks: {} runs done in {:.1f} s", t_.size(), ended_,
                     std::chrono::duration<double>(now - start_).count());
            reported_ = false;
          }
        }
        if (!in) cv_.wait_for(lock, kIdleWait);
      }
    } catch (...) {  // the transport failed
      std::lock_guard lock(m_);
      if (!loop_error_) loop_error_ = std::current_exception();
      transport_failed_ = true;
      cv_.notify_all();
    }
  }

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

// --- Ranks > 0 ---

namespace {

class Worker {
 public:
  Worker(MessageTransport& t, const RunLoader& load, int jobs)
      : t_(t), load_(load), jobs_(std::max(1, jobs)), fault_(rank_fault_from_environment()) {}

  int serve() {
    t_.send(0, encode_message(
                   HelloMessage{SHARDSIM_VERSION, static_cast<std::uint32_t>(jobs_), host_name()}));
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs_; ++j) threads.emplace_back([this] { compute(); });
    try {
      exchange();
    } catch (...) {
      {
        std::lock_guard lock(m_);
        tasks_.clear();
        stopping_ = true;
      }
      cv_.notify_all();
      for (std::thread& th : threads) th.join();
      throw;
    }
    for (std::thread& th : threads) th.join();
    t_.send(0, encode_message(ByeMessage{}));
    return 0;
  }

 private:
  // Takes rank 0's messages and sends the results until rank 0 has said stop and every run in
  // hand has been sent.
  void exchange() {
    bool stopped = false;
    while (true) {
      if (t_.ending()) std::_Exit(kTerminatedExitCode);
      std::optional<MessageTransport::Received> in = t_.poll();
      if (in) {
        if (in->from != 0) throw std::runtime_error("a message from a rank other than 0");
        const WorkMessage m = decode_message(in->bytes);  // rank 0 is trusted no more than others
        if (const auto* task = std::get_if<TaskMessage>(&m)) {
          ++received_;
          if (fault_.kind == RankFault::Kind::kill && fault_.rank == t_.rank() &&
              received_ == fault_.at + 1) {
            std::raise(SIGKILL);
          }
          std::lock_guard lock(m_);
          tasks_.push_back(*task);
          cv_.notify_one();
        } else if (std::holds_alternative<StopMessage>(m)) {
          stopped = true;
          std::lock_guard lock(m_);
          tasks_.clear();  // not started: dropped
          stopping_ = true;
          cv_.notify_all();
        } else {
          throw std::runtime_error("rank 0 sent a message a worker does not take");
        }
      }
      std::deque<std::string> out;
      bool idle = false;
      {
        std::lock_guard lock(m_);
        out.swap(outbox_);
        idle = busy_ == 0 && tasks_.empty();
      }
      for (std::string& bytes : out) t_.send(0, bytes);
      if (stopped && idle && out.empty()) {
        std::lock_guard lock(m_);
        if (outbox_.empty() && busy_ == 0) break;
      }
      if (!in && out.empty()) std::this_thread::sleep_for(kIdleWait);
    }
  }

  void compute() {
    std::unique_lock lock(m_);
    while (true) {
      cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping
      const TaskMessage task = std::move(tasks_.front());
      tasks_.pop_front();
      ++busy_;
      lock.unlock();
      std::string bytes = run(task);
      lock.lock();
      ++sent_;
      if (fault_.kind == RankFault::Kind::corrupt && fault_.rank == t_.rank() &&
          sent_ == fault_.at) {
        bytes[bytes.size() / 2] ^= 0x5a;
      }
      outbox_.push_back(std::move(bytes));
      --busy_;
    }
  }

  std::string run(const TaskMessage& task) {
    try {
      LoadedRun loaded = load_(task.run);
      if (loaded.label != task.label || !(loaded.scenario.hashes == task.hashes)) {
        throw InputError(
            SourceLocation{loaded.scenario.source}, "",
            fmt::format("MPI rank {} loaded run {} from other inputs than rank 0 (sweep point "
                        "'{}', scenario {}; rank 0: '{}', {})",
                        t_.rank(), task.run, loaded.label, loaded.scenario.hashes.scenario,
                        task.label, task.hashes.scenario),
            "every rank must read the same scenario, preset and cost files (a shared file "
            "system) and run the same command line");
      }
      const std::vector<Report> reports =
          run_scenario(loaded.scenario, RunOptions{task.label, task.record_timings, {}});
      return encode_message(ResultMessage{
          task.run, encode_point_checkpoint(loaded.scenario.hashes, task.label, reports)});
    } catch (...) {
      return encode_message(failure_of_current_exception(task.run));
    }
  }

  MessageTransport& t_;
  const RunLoader& load_;
  int jobs_;
  RankFault fault_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<TaskMessage> tasks_;
  std::deque<std::string> outbox_;
  int busy_ = 0;
  bool stopping_ = false;
  long received_ = 0;
  long sent_ = 0;
};

}  // namespace

RunLoader run_loader_of(const RunRequest& request) {
  return run_loader_of(1, [request](std::size_t) { return request; });
}

RunLoader run_loader_of(std::size_t requests, std::function<RunRequest(std::size_t)> request_of) {
  struct Documents {
    std::once_flag once;
    std::vector<RunDocument> runs;
    std::exception_ptr error;
  };
  auto docs = std::make_shared<std::vector<Documents>>(requests);
  return [request_of = std::move(request_of), docs](std::uint64_t run) {
    std::uint64_t first = 0;  // the number of request f's first run
    for (std::size_t f = 0; f < docs->size(); ++f) {
      Documents& d = (*docs)[f];
      std::call_once(d.once, [&] {
        try {
          d.runs = run_documents(request_of(f));
        } catch (...) {
          d.error = std::current_exception();
        }
      });
      if (d.error) std::rethrow_exception(d.error);
      if (run - first < d.runs.size()) {
        const RunDocument& r = d.runs[static_cast<std::size_t>(run - first)];
        return LoadedRun{load_scenario_at_point(r.document, r.label), r.label};
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
  return Worker(*transport_, load, jobs).serve();
}

}  // namespace shardsim
