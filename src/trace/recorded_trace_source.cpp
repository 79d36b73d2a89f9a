#include "shardsim/trace/recorded_trace_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "shardsim/core/error.hpp"
#include "shardsim/core/log.hpp"
#include "shardsim/trace/synthetic_trace_source.hpp"
#include "trace/row_blocks.hpp"
#include "trace/touched_rows.hpp"

namespace shardsim {

namespace {

constexpr std::uint64_t kCheckpointSamples = 4096;

// (a · b) mod m without overflow.
std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t m) {
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(a % m) * (b % m) % m);
}

}  // namespace

RecordedTraceSource::RecordedTraceSource(std::unique_ptr<RecordedTrace> trace,
                                         const DlrmModel& model, const std::string& path,
                                         const std::string& key, EmpiricalProfileOptions options)
    : trace_(std::move(trace)), key_(key) {
  const auto fail = [&](const std::string& problem, const std::string& hint) {
    throw InputError(SourceLocation{path}, key_, problem, hint);
  };
  if (trace_->num_tables() != model.tables.size())
    fail(fmt::format("the trace has {} tables but the model has {}", trace_->num_tables(),
                     model.tables.size()),
         "a trace replays the model it was recorded for: same tables, same order");
  if (trace_->num_samples() == 0) fail("the trace has no samples", "record at least one sample");
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    const TraceTableInfo& info = trace_->table(t);
    if (info.rows != model.tables[t].rows)
      fail(fmt::format("table {} ('{}') has {} rows in the trace but {} in the model ('{}')", t,
                       info.name, info.rows, model.tables[t].rows, model.tables[t].name),
           "a trace replays the model it was recorded for: same tables, same rows");
    if (info.name != model.tables[t].name && !info.name.empty())
      log_warn("trace table {} is named '{}' but model table {} is '{}'", t, info.name, t,
               model.tables[t].name);
  }
  Progress progress("reading the trace file", model.tables.size());
  for (std::size_t t = 0; t < model.tables.size(); ++t) {
    std::vector<std::uint64_t> checkpoints(1, 0);
    std::uint64_t seen = 0, cum = 0;
    EmpiricalProfileBuilder builder(trace_->table(t).rows, options);
    trace_->stream_table(
        t,
        [&](std::span<const std::uint32_t> lengths) {
          for (std::uint32_t l : lengths) {
            cum += l;
            if (++seen % kCheckpointSamples == 0) checkpoints.push_back(cum);
          }
        },
        [&](std::span<const std::uint64_t> rows) { builder.add(rows); });
    if (builder.wants_second_pass())
      trace_->stream_table(
          t, [](std::span<const std::uint32_t>) {},
          [&](std::span<const std::uint64_t> rows) { builder.add_again(rows); });
    profiles_.push_back(builder.finish());
    checkpoints_.push_back(std::move(checkpoints));
    progress.advance();
  }
  progress.finish();
}

RecordedTraceSource::~RecordedTraceSource() = default;

const EmpiricalProfile& RecordedTraceSource::empirical_profile(std::size_t table) const {
  if (table >= profiles_.size())
    throw std::out_of_range("trace source: table " + std::to_string(table) + " of " +
                            std::to_string(profiles_.size()));
  return *profiles_[table];
}

const AccessProfile& RecordedTraceSource::profile(std::size_t table) const {
  return empirical_profile(table);
}

void RecordedTraceSource::read_samples(std::size_t table, std::uint64_t first, std::uint64_t count,
                                       std::vector<std::uint32_t>& lengths,
                                       std::vector<std::uint64_t>& rows) const {
  // Position of the first bag: the checkpoint before it plus the lengths in between.
  const std::uint64_t k = first / kCheckpointSamples;
  const std::uint64_t from = k * kCheckpointSamples;
  std::vector<std::uint32_t> before(first - from);
  trace_->read_lengths(table, from, before);
  std::uint64_t position = checkpoints_[table][k];
  for (std::uint32_t l : before) position += l;
  const std::size_t old = lengths.size();
  lengths.resize(old + count);
  trace_->read_lengths(table, first, std::span(lengths).subspan(old));
  std::uint64_t n = 0;
  for (std::size_t i = old; i < lengths.size(); ++i) n += lengths[i];
  const std::size_t start = rows.size();
  rows.resize(start + n);
  trace_->read_rows(table, position, std::span(rows).subspan(start));
}

TableIterationDraw RecordedTraceSource::draw(std::size_t table, int iteration, int num_gpus,
                                             std::uint32_t samples_per_gpu,
                                             std::span<const RowBlock> blocks) const {
  const EmpiricalProfile& prof = empirical_profile(table);
  if (num_gpus < 1) throw std::invalid_argument("trace source: num_gpus must be >= 1");
  if (iteration < 0) throw std::invalid_argument("trace source: negative iteration");
  const BlockIndex index(blocks, prof.num_rows());
  const auto gpus = static_cast<std::size_t>(num_gpus);
  const std::uint64_t s = trace_->num_samples();
  const std::uint64_t batch = static_cast<std::uint64_t>(num_gpus) * samples_per_gpu;
  if ((static_cast<unsigned __int128>(iteration) + 1) * batch > s && !warned_wrap_.exchange(true))
    log_warn(
        "the trace has {} samples a table; iteration {} of {} GPUs x {} samples goes past them, so "
        "the replay wraps around to the trace's first samples",
        s, iteration, num_gpus, samples_per_gpu);

  // Each GPU's samples, in at most two contiguous runs (wrapping at S), possibly repeated when
  // a local batch is longer than the whole trace.
  std::vector<std::vector<std::uint32_t>> lengths(gpus);
  std::vector<std::vector<std::uint64_t>> rows(gpus);
  std::uint64_t total = 0;
  for (std::size_t g = 0; g < gpus; ++g) {
    std::uint64_t first = (mul_mod(static_cast<std::uint64_t>(iteration), batch, s) +
                           mul_mod(g, samples_per_gpu, s)) %
                          s;
    for (std::uint64_t left = samples_per_gpu; left > 0;) {
      const std::uint64_t n = std::min(left, s - first);
      read_samples(table, first, n, lengths[g], rows[g]);
      left -= n;
      first = (first + n) % s;
    }
    total += rows[g].size();
  }

  TableIterationDraw out;
  out.lookups_by_block_gpu.assign(blocks.size() * gpus, 0.0);
  out.distinct_by_block.assign(blocks.size(), 0.0);
  detail::TouchedRows touched(std::min(total, prof.num_rows()));
  const bool by_rank = index.space() == RowSpace::rank;
  for (std::size_t g = 0; g < gpus; ++g) {
    for (const std::uint64_t row : rows[g]) {
      const std::size_t b = index.block_of(by_rank ? prof.rank_of_row(row) : row);
      out.lookups_by_block_gpu[b * gpus + g] += 1.0;
      if (touched.insert(row)) out.distinct_by_block[b] += 1.0;
    }
  }
  return out;
}

std::unique_ptr<TraceSource> make_trace_source(const DlrmModel& model, const Workload& workload) {
  if (workload.trace.file.empty()) return make_synthetic_trace_source(model, workload);
  return std::make_unique<RecordedTraceSource>(
      open_recorded_trace(workload.trace.file, "workload.trace.file"), model, workload.trace.file,
      "workload.trace.file");
}

}  // namespace shardsim
