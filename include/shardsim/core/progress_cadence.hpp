#pragma once
// How often long loops report their progress (core/log.hpp's Progress, the sweep's "finished"
// lines, trace stats): `default_interval`, unless the environment sets
// SHARDSIM_PROGRESS_INTERVAL_MS, a test hook (tests set 0, so that every step is reported and the
// lines can be checked without runs of seconds; docs/robustness.md). A value that is not a whole
// number of milliseconds is ignored.
#include <chrono>

namespace shardsim {

std::chrono::milliseconds progress_interval(std::chrono::milliseconds default_interval);

}  // namespace shardsim
