#pragma once
// The message transport over MPI (run/message_transport.hpp; docs/distributed.md): the only
// code that calls MPI, built when CMake finds MPI (SHARDSIM_MPI). MPI_COMM_WORLD, one tag, byte
// messages; MPI errors are returned (MPI_ERRORS_RETURN) and thrown, never an abort.
#include <memory>

#include "shardsim/run/message_transport.hpp"

namespace shardsim {

// Initialises MPI (MPI_Init_thread, MPI_THREAD_SERIALIZED: one thread at a time calls it) and
// catches SIGTERM (MessageTransport::ending). The transport's destruction finalises MPI.
std::unique_ptr<MessageTransport> join_mpi_job();

}  // namespace shardsim
