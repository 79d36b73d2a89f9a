#include "shardsim/trace/synthetic_trace_source.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "shardsim/core/rng.hpp"
#include "shardsim/trace/binomial.hpp"
#include "shardsim/trace/row_blocks.hpp"
#include "touched_rows.hpp"

namespace shardsim {

namespace {

constexpr std::uint64_t kLayoutStream = 0x4c41594f5554ULL;  // "LAYOUT"
// Sampled mode warns when its set of touched rows needs more memory than this.
constexpr double kSampledWarnBytes = 1e9;

std::uint64_t key(int v) {
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
}

Rng stream(std::uint64_t seed, std::size_t table, int iteration, int gpu, TraceStream purpose) {
  return Rng(
      stream_seed(seed, {table, key(iteration), key(gpu), static_cast<std::uint64_t>(purpose)}));
}

}  // namespace

std::uint64_t layout_seed(std::uint64_t workload_seed, std::size_t table) {
  return stream_seed(workload_seed, {table, kLayoutStream});
}

struct SyntheticTraceSource::Table {
  Table(const EmbeddingTable& t, HotRowLayout layout, std::uint64_t seed, PowerLawOptions options)
      : spec(t),
        profile(t, layout, seed, options),
        sampler(t),
        pooling_mean(t.pooling.expected()),
        pooling_variance(t.pooling.variance()) {}
  EmbeddingTable spec;
  PowerLawProfile profile;
  ZipfMandelbrotSampler sampler;
  double pooling_mean;
  double pooling_variance;
};

SyntheticTraceSource::SyntheticTraceSource(const DlrmModel& model, const Workload& workload,
                                           SyntheticTraceOptions options)
    : workload_(workload), options_(options) {
  tables_.reserve(model.tables.size());
  for (std::size_t i = 0; i < model.tables.size(); ++i)
    tables_.push_back(std::make_unique<Table>(model.tables[i], workload.trace.layout,
                                              layout_seed(workload.seed, i), options.profile));
}

SyntheticTraceSource::~SyntheticTraceSource() = default;

const SyntheticTraceSource::Table& SyntheticTraceSource::table_at(std::size_t table) const {
  if (table >= tables_.size())
    throw std::out_of_range("trace source: table " + std::to_string(table) + " of " +
                            std::to_string(tables_.size()));
  return *tables_[table];
}

const AccessProfile& SyntheticTraceSource::profile(std::size_t table) const {
  return table_at(table).profile;
}

std::vector<std::uint64_t> SyntheticTraceSource::local_lookups(
    std::size_t table, int iteration, int num_gpus, std::uint32_t samples_per_gpu) const {
  const Table& t = table_at(table);
  if (num_gpus < 1) throw std::invalid_argument("trace source: num_gpus must be >= 1");
  const PoolingSpec& pooling = t.spec.pooling;
  const double batch = samples_per_gpu;
  std::vector<std::uint64_t> lookups(static_cast<std::size_t>(num_gpus), 0);
  for (int g = 0; g < num_gpus; ++g) {
    double total = 0;
    if (pooling.kind == PoolingSpec::Kind::fixed) {
      total = std::round(batch * pooling.value);
    } else {
      Rng rng = stream(workload_.seed, table, iteration, g, TraceStream::pooling);
      if (samples_per_gpu <= options_.exact_pooling_max_samples) {
        for (std::uint32_t s = 0; s < samples_per_gpu; ++s) total += pooling.sample(rng);
      } else {
        // Central limit: the sum of B i.i.d. draws ~ N(B·E, B·Var).
        const double z = rng.normal();
        total = std::max(
            0.0, std::round(batch * t.pooling_mean + std::sqrt(batch * t.pooling_variance) * z));
      }
    }
    lookups[static_cast<std::size_t>(g)] = static_cast<std::uint64_t>(total);
  }
  return lookups;
}

TableIterationDraw SyntheticTraceSource::draw(std::size_t table, int iteration, int num_gpus,
                                              std::uint32_t samples_per_gpu,
                                              std::span<const RowBlock> blocks) const {
  const Table& t = table_at(table);
  const std::vector<std::uint64_t> local =
      local_lookups(table, iteration, num_gpus, samples_per_gpu);
  TableIterationDraw out;
  out.lookups_by_block_gpu.assign(blocks.size() * static_cast<std::size_t>(num_gpus), 0.0);
  out.distinct_by_block.assign(blocks.size(), 0.0);
  if (workload_.trace.mode == TraceMode::sampled)
    split_sampled(t, table, iteration, local, blocks, out);
  else
    split_expected(t, table, iteration, local, blocks, out);
  return out;
}

void SyntheticTraceSource::split_expected(const Table& t, std::size_t table, int iteration,
                                          std::span<const std::uint64_t> local,
                                          std::span<const RowBlock> blocks,
                                          TableIterationDraw& out) const {
  const BlockIndex index(blocks, t.profile.num_rows());  // validates the partition
  const std::size_t num_blocks = blocks.size();
  const std::size_t num_gpus = local.size();
  std::vector<double> mass(num_blocks, 0.0);
  for (std::size_t b = 0; b < num_blocks; ++b)
    if (blocks[b].rows.size() > 0) mass[b] = t.profile.mass(blocks[b].rows, index.space());
  std::vector<std::uint64_t> counts(num_blocks);
  std::uint64_t total = 0;
  if (num_blocks == 1) {
    // One block holds every lookup: the multinomial split is certain (and draws nothing), so
    // skip its random stream. Same numbers, far less work for table-wise plans at scale.
    for (std::size_t g = 0; g < num_gpus; ++g) {
      out.lookups_by_block_gpu[g] = static_cast<double>(local[g]);
      total += local[g];
    }
  }
  for (std::size_t g = 0; num_blocks > 1 && g < num_gpus; ++g) {
    Rng rng =
        stream(workload_.seed, table, iteration, static_cast<int>(g), TraceStream::block_split);
    sample_multinomial(rng, local[g], mass, counts);
    for (std::size_t b = 0; b < num_blocks; ++b)
      out.lookups_by_block_gpu[b * num_gpus + g] = static_cast<double>(counts[b]);
    total += local[g];
  }
  for (std::size_t b = 0; b < num_blocks; ++b)
    if (blocks[b].rows.size() > 0)
      out.distinct_by_block[b] =
          t.profile.expected_distinct(blocks[b].rows, index.space(), static_cast<double>(total));
}

void SyntheticTraceSource::split_sampled(const Table& t, std::size_t table, int iteration,
                                         std::span<const std::uint64_t> local,
                                         std::span<const RowBlock> blocks,
                                         TableIterationDraw& out) const {
  const BlockIndex index(blocks, t.profile.num_rows());
  const bool to_row_id = index.space() == RowSpace::row_id;
  const std::size_t num_gpus = local.size();
  std::uint64_t total = 0;
  for (std::uint64_t l : local) total += l;
  detail::TouchedRows touched(std::min(total, t.profile.num_rows()));
  if (8.0 * static_cast<double>(touched.capacity()) > kSampledWarnBytes)
    spdlog::warn(
        "sampled trace of table '{}': {} lookups need {:.1f} GB to count distinct rows; "
        "use `trace: {{mode: expected}}` for runs this large",
        t.spec.name, total, 8.0 * static_cast<double>(touched.capacity()) / 1e9);
  for (std::size_t g = 0; g < num_gpus; ++g) {
    Rng rng = stream(workload_.seed, table, iteration, static_cast<int>(g), TraceStream::indices);
    for (std::uint64_t i = 0; i < local[g]; ++i) {
      const std::uint64_t rank = t.sampler(rng);
      const std::uint64_t row = to_row_id ? t.profile.row_of_rank(rank) : rank;
      const std::size_t b = index.block_of(row);
      out.lookups_by_block_gpu[b * num_gpus + g] += 1.0;
      if (touched.insert(row)) out.distinct_by_block[b] += 1.0;
    }
  }
}

std::unique_ptr<TraceSource> make_synthetic_trace_source(const DlrmModel& model,
                                                         const Workload& workload,
                                                         SyntheticTraceOptions options) {
  return std::make_unique<SyntheticTraceSource>(model, workload, options);
}

std::unique_ptr<TraceSource> make_synthetic_trace_source(const DlrmModel& model,
                                                         const Workload& workload) {
  return std::make_unique<SyntheticTraceSource>(model, workload);
}

}  // namespace shardsim
