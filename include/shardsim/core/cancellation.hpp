#pragma once
// A process-wide request to stop the runs in progress early: the Python module sets it when the
// interpreter gets Ctrl-C (docs/python.md). The simulation engine's event loop and the runners
// (between runs) check it and throw Cancelled; nothing is written for a cancelled run.
#include <stdexcept>

namespace shardsim {

class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

void request_cancel();
void clear_cancel();
bool cancel_requested();
// Throws Cancelled when a cancel has been requested.
void throw_if_cancelled();

}  // namespace shardsim
