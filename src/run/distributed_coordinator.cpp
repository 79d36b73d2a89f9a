// Rank 0's side of a distributed run (run/distributed_coordinator.hpp, docs/distributed.md).
#include "run/distributed_coordinator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>

#include "run/rank_loop.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/io/report_format.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/run/work_messages.hpp"

namespace shardsim {

namespace {

constexpr auto kProgressInterval = std::chrono::seconds(2);

// An error about a peer's message: bad input to rank 0 (exit 2), naming the rank.
InputError peer_error(int rank, const std::string& problem, const std::string& hint) {
  return InputError(SourceLocation{fmt::format("MPI rank {}", rank)}, "", problem, hint);
}

}  // namespace

Coordinator::Coordinator(MessageTransport& transport) : t_(transport), peers_(transport.size()) {
  loop_ = std::thread([this] { loop(); });
}

Coordinator::~Coordinator() {
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

void Coordinator::start_local(int jobs) {
  std::lock_guard lock(m_);
  if (!local_.empty()) return;
  local_slots_ = static_cast<std::size_t>(std::max(1, jobs));
  for (std::size_t j = 0; j < local_slots_; ++j) local_.emplace_back([this] { local_worker(); });
}

void Coordinator::simulate(std::span<const RunTask> tasks, bool record_timings,
                           const PlanGuard& guard,
                           const std::function<void(std::size_t, std::vector<Report>)>& finished) {
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
      jobs[k] = Job{.batch = &batch,
                    .k = k,
                    .task = &tasks[k],
                    .estimate = estimated_run_work(*tasks[k].scenario),
                    .record_timings = record_timings,
                    .guard = &guard};
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

void Coordinator::end(Job* job, std::optional<std::vector<Report>> reports,
                      std::exception_ptr error) {
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

void Coordinator::drop_pending(Batch& b, std::size_t from) {
  const auto dropped = std::remove_if(pending_.begin(), pending_.end(),
                                      [&](const Job* j) { return j->batch == &b && j->k >= from; });
  const auto n = static_cast<std::size_t>(pending_.end() - dropped);
  pending_.erase(dropped, pending_.end());
  b.outstanding -= n;
  submitted_ -= n;
}

void Coordinator::local_worker() {
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
                             RunOptions{job->task->label, job->record_timings, {}, *job->guard});
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    std::erase(local_running_, job);
    end(job, std::move(reports), error);
  }
}

bool Coordinator::everyone_here() const {
  return std::all_of(peers_.begin() + 1, peers_.end(), [](const Peer& p) { return p.hello; });
}

void Coordinator::hand_out() {
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

void Coordinator::take(int from, const std::string& bytes) {
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

std::string Coordinator::describe(const Job& job) {
  const std::string file =
      job.batch->several_sources ? fmt::format(" ({})", job.task->scenario->source) : "";
  if (job.task->label.empty()) {
    return fmt::format("run {} of {}{}", job.k + 1, job.batch->total, file);
  }
  if (job.batch->total == 1) return "the run" + file + " at " + job.task->label;
  return fmt::format("run {} of {}{} at {}", job.k + 1, job.batch->total, file,
                     report_format::shown_sweep_point(job.task->label));
}

void Coordinator::die() {
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

void Coordinator::report_progress(Clock::time_point now) {
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

void Coordinator::loop() {
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
      if (!in) cv_.wait_for(lock, kRankIdleWait);
    }
  } catch (...) {  // the transport failed
    std::lock_guard lock(m_);
    if (!loop_error_) loop_error_ = std::current_exception();
    transport_failed_ = true;
    cv_.notify_all();
  }
}

}  // namespace shardsim
