// The side of a distributed run on the ranks other than 0 (run/distributed_worker.hpp,
// docs/distributed.md).
#include "run/distributed_worker.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "run/rank_loop.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/point_checkpoint.hpp"
#include "shardsim/run/run_scenario.hpp"
#include "shardsim/run/work_messages.hpp"

namespace shardsim {

namespace {

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
      if (!in && out.empty()) std::this_thread::sleep_for(kRankIdleWait);
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
      const std::vector<Report> reports = run_scenario(
          loaded.scenario, RunOptions{task.label, task.record_timings, {}, loaded.plan_guard});
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

int serve_worker(MessageTransport& transport, const RunLoader& load, int jobs) {
  return Worker(transport, load, jobs).serve();
}

}  // namespace shardsim
