#pragma once
// What the message loops of a distributed run share, rank 0's (run/distributed_coordinator.hpp)
// and the other ranks' (run/distributed_worker.hpp).
#include <chrono>
#include <csignal>

namespace shardsim {

// How long a rank's loop waits when no message came.
inline constexpr auto kRankIdleWait = std::chrono::milliseconds(1);
// The exit code of a process ended by SIGTERM, as a shell reports it.
inline constexpr int kTerminatedExitCode = 128 + SIGTERM;

}  // namespace shardsim
