// The message transport over MPI (mpi/mpi_transport.hpp).
#include "shardsim/mpi/mpi_transport.hpp"

#include <mpi.h>

#include <climits>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace shardsim {

namespace {

constexpr int kTag = 19;  // every shardsim message (run/work_messages.hpp)

volatile std::sig_atomic_t terminate_requested = 0;

extern "C" void on_terminate(int) {
  terminate_requested = 1;
}

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::string(text, length)));
}

class MpiTransport final : public MessageTransport {
 public:
  MpiTransport() {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw std::runtime_error(
          "this MPI library does not allow threads to take turns calling it "
          "(MPI_THREAD_SERIALIZED)");
    }
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    struct sigaction action = {};
    action.sa_handler = on_terminate;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
  }
  ~MpiTransport() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void send(int to, std::string_view bytes) override {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
      throw std::runtime_error(fmt::format(
          "a message of {} bytes is more than one MPI message carries here", bytes.size()));
    }
    check(
        MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, kTag, MPI_COMM_WORLD),
        "MPI_Send");
  }

  std::optional<Received> poll() override {
    int flag = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (flag == 0) return std::nullopt;
    int count = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    Received in;
    in.from = status.MPI_SOURCE;
    in.bytes.resize(static_cast<std::size_t>(count));
    check(MPI_Recv(in.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, kTag, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    return in;
  }

  bool ending() const override { return terminate_requested != 0; }

  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; this says so to the compiler
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::unique_ptr<MessageTransport> join_mpi_job() {
  return std::make_unique<MpiTransport>();
}

}  // namespace shardsim
