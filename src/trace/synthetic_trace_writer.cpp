#include "shardsim/trace/synthetic_trace_writer.hpp"

#include <mutex>
#include <vector>

#include "shardsim/core/log.hpp"
#include "shardsim/core/parallel_for.hpp"
#include "shardsim/trace/trace_file.hpp"

namespace shardsim {

void stream_synthetic_table(const BagGenerator& generator, const SyntheticTraceShape& shape,
                            const std::function<void(const Bags&)>& sink) {
  Bags bags;
  for (int it = 0; it < shape.iterations; ++it) {
    for (int g = 0; g < shape.gpus; ++g) {
      bags.clear();
      generator.append(it, g, shape.samples_per_gpu, RowSpace::row_id, bags);
      sink(bags);
    }
  }
}

void write_synthetic_trace(const std::string& path, const DlrmModel& model,
                           const Workload& workload, const SyntheticTraceShape& shape, int jobs) {
  const std::size_t n = model.tables.size();
  std::vector<std::unique_ptr<BagGenerator>> generators(n);
  std::vector<TraceTableInfo> tables(n);
  // Pass 1 (cheap: pooling draws only): every table's lookups, which place the sections.
  parallel_for(n, jobs, [&](std::size_t t) {
    generators[t] = std::make_unique<BagGenerator>(model.tables[t], t, workload);
    std::uint64_t lookups = 0;
    for (int it = 0; it < shape.iterations; ++it)
      for (int g = 0; g < shape.gpus; ++g)
        for (std::uint32_t l : generators[t]->lengths(it, g, shape.samples_per_gpu)) lookups += l;
    tables[t] = {model.tables[t].name, model.tables[t].rows, lookups};
  });
  // Pass 2: each table's bags, lengths first, then rows.
  Progress progress("writing the trace", n);
  std::mutex progress_mutex;
  write_trace_file(path, shape.samples(), tables, jobs, [&](std::size_t t, TraceSectionWriter& w) {
    const BagGenerator& gen = *generators[t];
    for (int it = 0; it < shape.iterations; ++it)
      for (int g = 0; g < shape.gpus; ++g)
        w.write_lengths(gen.lengths(it, g, shape.samples_per_gpu));
    stream_synthetic_table(gen, shape, [&](const Bags& b) { w.write_rows(b.rows); });
    std::lock_guard lock(progress_mutex);
    progress.advance();
  });
  progress.finish();
}

}  // namespace shardsim
