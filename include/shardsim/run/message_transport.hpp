#pragma once
// How the processes of a distributed run reach each other: numbered ranks (0 coordinates) that
// send each other byte messages (run/work_messages.hpp). The MPI build provides one over MPI
// (src/mpi/, docs/distributed.md); the run module never sees MPI itself.
#include <optional>
#include <string>
#include <string_view>

namespace shardsim {

class MessageTransport {
 public:
  virtual ~MessageTransport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Sends `bytes` to rank `to`; returns once they may be reused. A failure throws.
  virtual void send(int to, std::string_view bytes) = 0;
  struct Received {
    int from = 0;
    std::string bytes;
  };
  // A message that has arrived, if any (never waits). A failure throws.
  virtual std::optional<Received> poll() = 0;
  // Whether the launcher has asked this process to end (mpirun's SIGTERM to every rank when one
  // has died, or the job was cancelled).
  virtual bool ending() const = 0;
  // Ends every rank of the job with `exit_code` (after a failure of the transport itself, when
  // the ranks cannot be told to stop).
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

}  // namespace shardsim
