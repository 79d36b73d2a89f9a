// The trace source interface's defaults (trace/trace_source.hpp).
#include "shardsim/trace/trace_source.hpp"

#include <stdexcept>

namespace shardsim {

std::vector<double> TraceSource::uniform_lookups_by_block(std::size_t table, int iteration,
                                                          int num_gpus,
                                                          std::uint32_t samples_per_gpu,
                                                          std::span<const RowBlock> blocks) const {
  if (!same_draw_for_every_gpu()) {
    throw std::logic_error("uniform_lookups_by_block: this trace's GPUs draw differently");
  }
  const TableIterationDraw d = draw(table, iteration, num_gpus, samples_per_gpu, blocks);
  std::vector<double> out(blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    out[b] = d.lookups_by_block_gpu[b * static_cast<std::size_t>(num_gpus)];
  }
  return out;
}

}  // namespace shardsim
