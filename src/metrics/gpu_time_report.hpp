#pragma once
// Where each GPU's time goes over a simulation's measured iterations (report_builder.cpp's
// per-GPU section). Every instant of an iteration's window on a GPU goes to one task by its
// attribution rank (docs/report.md, "Exposed time"), whatever iteration the task belongs to.
#include <array>
#include <vector>

#include "shardsim/metrics/report.hpp"
#include "shardsim/sim/simulation.hpp"

namespace shardsim {

// Per GPU and phase, seconds summed over the measured iterations.
struct PhaseTimesByGpu {
  std::vector<std::array<double, kNumPhases>> serialized;  // the phase's tasks' spans
  std::vector<std::array<double, kNumPhases>> exposed;     // instants the phase owns
  std::vector<std::array<double, kNumPhases>> waiting;     // exposed waits for peers
};

// Adds each GPU's lookup, busy, compute, transfer, wait and idle times and time shares, summed
// over the measured iterations, into `per_gpu` (one entry per GPU), and returns the per-phase
// times. The caller divides the per-GPU sums by the measured iterations.
PhaseTimesByGpu attribute_gpu_times(std::vector<GpuReport>& per_gpu,
                                    const SimulationResult& result);

}  // namespace shardsim
