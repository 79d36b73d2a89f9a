#pragma once
// The messages of a run spread over the ranks of an MPI job (docs/distributed.md, "Messages"):
// rank 0 hands out runs, the other ranks return their reports. A message is bytes, framed like a
// point checkpoint (io/point_checkpoint.hpp): "SHARDSIM-MSG\n", the protocol version (u32), the
// kind (u8), the payload, then the 64-bit FNV-1a of everything before it. A run's reports travel
// as the point checkpoint of that run, so rank 0 takes them only for exactly the inputs and the
// sweep point it handed out. Nothing from a peer is trusted: a truncated, damaged, foreign or
// mismatched message is a MessageError, never a crash and never a wrong report.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "shardsim/core/input_hashes.hpp"
#include "shardsim/metrics/report.hpp"

namespace shardsim {

// Worker -> rank 0, once, first: who it is and how many runs it takes at once (--jobs).
struct HelloMessage {
  std::string shardsim_version;
  std::uint32_t slots = 1;
  std::string host;
};

// Rank 0 -> worker: simulate run `run` (an index the worker's loader understands) whose inputs
// rank 0 loaded with `hashes` at sweep point `label`.
struct TaskMessage {
  std::uint64_t run = 0;
  std::string label;
  InputHashes hashes;
  bool record_timings = false;
};

// Worker -> rank 0: the reports of `run`, as its point checkpoint.
struct ResultMessage {
  std::uint64_t run = 0;
  std::string checkpoint;
};

// Worker -> rank 0: `run` failed as it would have in one process (bad input at that point, a
// plan that does not fit where that is an error, anything else), with what rank 0 needs to raise
// the same error.
enum class FailureKind : std::uint8_t { input = 1, does_not_fit = 2, other = 3 };
struct FailureMessage {
  std::uint64_t run = 0;
  FailureKind kind = FailureKind::other;
  std::string file;  // InputError: where, key, problem, hint
  std::int32_t line = 0;
  std::int32_t column = 0;
  std::string key;
  std::string problem;
  std::string hint;
  std::string what;  // the others: the error's message
};

// Rank 0 -> worker: no more runs; finish the runs in hand, send their results, then say bye.
struct StopMessage {};
// Worker -> rank 0, last: it has sent everything and leaves (runs it had not started are dropped).
struct ByeMessage {};

using WorkMessage =
    std::variant<HelloMessage, TaskMessage, ResultMessage, FailureMessage, StopMessage, ByeMessage>;

// A message that cannot be taken: what is wrong with it.
class MessageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint32_t kWorkProtocolVersion = 1;

std::string encode_message(const WorkMessage& message);
// The message `bytes` hold; a MessageError when they are not exactly one valid message of this
// protocol version (bad magic, checksum, version, kind, a count past the end, bytes left over).
WorkMessage decode_message(std::string_view bytes);

// The reports of `result` when it is the checkpoint of exactly the run rank 0 handed out (its
// `hashes`, `label` and shardsim version) with `report_count` reports; a MessageError otherwise.
std::vector<Report> reports_of(const ResultMessage& result, const InputHashes& hashes,
                               const std::string& label, std::size_t report_count);

// The error a failure message stands for, thrown (InputError, DoesNotFitError with the same
// message, or std::runtime_error), as the run would have thrown in one process.
[[noreturn]] void rethrow_failure(const FailureMessage& failure);
// The failure message of the exception being handled (call inside a catch block).
FailureMessage failure_of_current_exception(std::uint64_t run);

}  // namespace shardsim
