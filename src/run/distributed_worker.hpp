#pragma once
// The side of a distributed run on the ranks other than 0 (run/distributed_runs.hpp,
// docs/distributed.md): the worker that runs what rank 0 hands it and sends back the results.
#include "shardsim/run/distributed_runs.hpp"
#include "shardsim/run/message_transport.hpp"

namespace shardsim {

// Says hello to rank 0, runs the runs it hands out (loaded by `load`, `jobs` at a time) until it
// says stop, then says bye; 0. A transport or message failure throws.
int serve_worker(MessageTransport& transport, const RunLoader& load, int jobs);

}  // namespace shardsim
