// One finished sweep point on disk (io/point_checkpoint.hpp). Every struct of a Report is listed
// once, in a `fields` function that both the writer and the reader walk, so the two cannot
// disagree on the layout.
#include "shardsim/io/point_checkpoint.hpp"

#include <fmt/format.h>

#include <array>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "shardsim/core/content_hash.hpp"

namespace shardsim {

namespace {

constexpr std::string_view kMagic = "SHARDSIM-POINT\n";
// 2: reports gained `cost` (cluster.price_per_gpu_hour), the memory tiers (per GPU: cache, host
// memory, host link) and `pruning`.
// 4: no deprecated per-GPU comm sum; 5: the planner's counts of its search (plan_stats);
// 6: the bottom MLP's GPU (bottom_mlp_gpu); 7: the resolved scenario (scenario_values).
constexpr std::uint32_t kFormatVersion = 7;

template <class T, class U>
concept Is = std::same_as<std::remove_const_t<T>, U>;

// --- The field lists (one per struct; `a` is a Writer or a Reader) ---

template <class A, Is<TimeStats> T>
void fields(A& a, T& s) {
  a(s.mean_s), a(s.p50_s), a(s.p99_s), a(s.min_s), a(s.max_s);
}

template <class A, Is<PhaseTime> T>
void fields(A& a, T& p) {
  a(p.phase), a(p.serialized_s), a(p.exposed_s), a(p.waiting_s);
}

template <class A, Is<LinkClassUse> T>
void fields(A& a, T& l) {
  a(l.link_class), a(l.links), a(l.mean_utilization), a(l.max_utilization), a(l.busiest_link);
}

template <class A, Is<GpuReport> T>
void fields(A& a, T& g) {
  a(g.gpu), a(g.node), a(g.lookup_s), a(g.busy_s), a(g.compute_s), a(g.comm_transfer_s);
  a(g.comm_wait_s), a(g.idle_s), a(g.shares);
  a(g.memory_bytes), a(g.memory_capacity_bytes), a(g.weights_bytes), a(g.optimizer_bytes);
  a(g.cache_bytes), a(g.activation_bytes), a(g.reserved_bytes), a(g.host_memory_bytes);
  a(g.host_link_bytes), a(g.lookups), a(g.shards);
  a(g.comm_sent_bytes), a(g.comm_received_bytes);
}

template <class A, Is<GpuTimeShares> T>
void fields(A& a, T& s) {
  a(s.embedding_s), a(s.dense_compute_s), a(s.comm_s), a(s.comm_wait_s), a(s.host_s), a(s.idle_s);
}

template <class A, Is<GroupReport> T>
void fields(A& a, T& g) {
  a(g.group), a(g.num_gpus), a(g.first_gpu), a(g.lookup_max_s), a(g.lookup_mean_s);
  a(g.imbalance_ratio), a(g.memory_max_bytes), a(g.memory_mean_bytes), a(g.lookups);
  a(g.comm_bytes), a(g.sync_s);
}

template <class A, Is<ReplicaSyncReport> T>
void fields(A& a, T& r) {
  a(r.mode), a(r.interval), a(r.peers), a(r.bytes_per_sync), a(r.max_gpu_bytes), a(r.sync_Bps);
  a(r.eq1_s), a(r.simulated_s);
}

template <class A, Is<std::pair<std::string, std::string>> T>
void fields(A& a, T& p) {
  a(p.first), a(p.second);
}

template <class A, Is<InputHashes> T>
void fields(A& a, T& h) {
  a(h.scenario), a(h.hardware), a(h.cost);
}

template <class A, Is<GpuMemory> T>
void fields(A& a, T& m) {
  a(m.weights_bytes), a(m.optimizer_bytes), a(m.cache_bytes), a(m.activation_bytes);
  a(m.dense_bytes), a(m.reserved_bytes), a(m.host_bytes);
}

template <class A, Is<GpuPlanStats> T>
void fields(A& a, T& g) {
  a(g.gpu), a(g.node), a(g.memory), a(g.hbm_used_bytes), a(g.hbm_capacity_bytes), a(g.lookups);
  a(g.input_bytes), a(g.output_bytes), a(g.fwd_compute_s), a(g.bwd_compute_s), a(g.fwd_comm_s);
  a(g.bwd_comm_s), a(g.sync_comm_s), a(g.comm_sent_bytes), a(g.comm_received_bytes);
  a(g.sync_bytes), a(g.shards_by_kind);
}

template <class A, Is<BalanceStat> T>
void fields(A& a, T& b) {
  a(b.min), a(b.mean), a(b.max), a(b.min_gpu), a(b.max_gpu), a(b.lower_bound);
}

template <class A, Is<PlannerCount> T>
void fields(A& a, T& c) {
  a(c.name), a(c.value);
}

template <class A, Is<PlanStats> T>
void fields(A& a, T& p) {
  a(p.planner), a(p.num_gpus), a(p.num_tables), a(p.hbm_capacity_bytes), a(p.gpus);
  a(p.shards_by_kind), a(p.memory_bytes), a(p.lookups), a(p.compute_s), a(p.comm_bytes);
  a(p.comm_s), a(p.total_s), a(p.estimated_degree_of_balance), a(p.alltoall_fwd_s),
      a(p.alltoall_bwd_s);
  a(p.estimated_embedding_s), a(p.planner_counts);
}

template <class A, Is<CostReport> T>
void fields(A& a, T& c) {
  a(c.price_per_gpu_hour), a(c.cost_per_million_samples), a(c.dataset_samples);
  a(c.cost_per_epoch);
}

template <class A, Is<PruningReport> T>
void fields(A& a, T& p) {
  a(p.pruned_tables), a(p.original_rows), a(p.pruned_rows), a(p.dropped_lookup_fraction);
}

template <class A, Is<Report> T>
void fields(A& a, T& r) {
  a(r.scenario), a(r.scenario_source), a(r.planner), a(r.sweep_point), a(r.mode), a(r.preset);
  a(r.num_gpus), a(r.num_nodes), a(r.num_tables), a(r.iterations), a(r.warmup), a(r.seed);
  a(r.global_batch), a(r.bottom_mlp_gpu), a(r.iteration_time), a(r.iteration_times_s), a(r.qps);
  a(r.imbalance_ratio);
  a(r.busy_imbalance_ratio), a(r.degree_of_balance), a(r.critical_gpu), a(r.breakdown),
      a(r.phase_max), a(r.scaling_factor), a(r.groups);
  a(r.replica_sync), a(r.link_utilization), a(r.per_gpu), a(r.memory_max_bytes);
  a(r.memory_mean_bytes), a(r.memory_capacity_bytes), a(r.fits_in_memory), a(r.worst_memory_gpu);
  a(r.fit_error), a(r.comm_granularity), a(r.comm_fwd), a(r.comm_bwd), a(r.planning_time_s);
  a(r.shardsim_version), a(r.input_hashes), a(r.plan_stats);
  a(r.cost), a(r.pruning), a(r.scenario_values);
}

// --- Writing ---

class Writer {
 public:
  std::string bytes;

  template <class T>
  requires std::is_arithmetic_v<T>
  void operator()(T value) {
    char raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    bytes.append(raw, sizeof(T));
  }
  void operator()(const std::string& s) {
    count(s.size());
    bytes.append(s);
  }
  template <class T>
  void operator()(const std::vector<T>& v) {
    count(v.size());
    for (const T& x : v) (*this)(x);
  }
  template <class T, std::size_t N>
  void operator()(const std::array<T, N>& v) {
    for (const T& x : v) (*this)(x);
  }
  template <class T>
  void operator()(const std::optional<T>& v) {
    (*this)(v.has_value());
    if (v) (*this)(*v);
  }
  void operator()(const ByteMatrix& m) {
    (*this)(static_cast<std::int32_t>(m.size()));
    for (int i = 0; i < m.size(); ++i) {
      for (int j = 0; j < m.size(); ++j) (*this)(m.at(i, j));
    }
  }
  template <class T>
  requires std::is_class_v<T>
  void operator()(const T& value) { fields(*this, value); }

 private:
  void count(std::size_t n) { (*this)(static_cast<std::uint64_t>(n)); }
};

// --- Reading: every read is bounds-checked; a count larger than the bytes left is refused before
// anything is allocated ---

struct Truncated {
  std::string what;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : in_(bytes) {}
  bool done() const { return pos_ == in_.size(); }

  template <class T>
  requires std::is_arithmetic_v<T>
  void operator()(T& value) {
    need(sizeof(T), "a number");
    std::memcpy(&value, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
  }
  void operator()(bool& value) {
    std::uint8_t b = 0;
    (*this)(b);
    if (b > 1) throw Truncated{"a flag that is neither 0 nor 1"};
    value = b == 1;
  }
  void operator()(std::string& s) {
    const std::size_t n = count(1);
    s.assign(in_.data() + pos_, n);
    pos_ += n;
  }
  // Element by element: memory grows only with elements actually read, so a forged count costs
  // no more than the bytes behind it.
  template <class T>
  void operator()(std::vector<T>& v) {
    const std::size_t n = count(1);
    v.clear();
    for (std::size_t k = 0; k < n; ++k) (*this)(v.emplace_back());
  }
  template <class T, std::size_t N>
  void operator()(std::array<T, N>& v) {
    for (T& x : v) (*this)(x);
  }
  template <class T>
  void operator()(std::optional<T>& v) {
    bool present = false;
    (*this)(present);
    v.reset();
    if (present) (*this)(v.emplace());
  }
  void operator()(ByteMatrix& m) {
    std::int32_t n = 0;
    (*this)(n);
    if (n < 0) throw Truncated{"a negative matrix size"};
    const auto cells = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
    need(cells * sizeof(double), "a matrix");
    m = ByteMatrix(n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) (*this)(m.at(i, j));
    }
  }
  template <class T>
  requires std::is_class_v<T>
  void operator()(T& value) { fields(*this, value); }

 private:
  // A count of elements of at least `min_bytes` each, no more than the bytes left allow.
  std::size_t count(std::uint64_t min_bytes) {
    std::uint64_t n = 0;
    (*this)(n);
    need(n * min_bytes, "a list");
    return static_cast<std::size_t>(n);
  }
  void need(std::uint64_t bytes, const char* what) {
    if (bytes > in_.size() - pos_) throw Truncated{fmt::format("the file ends inside {}", what)};
  }

  std::string_view in_;
  std::size_t pos_ = 0;
};

std::string payload_header(const InputHashes& hashes, const std::string& label) {
  Writer w;
  w(std::string(SHARDSIM_VERSION));
  w(hashes);
  w(label);
  return w.bytes;
}

}  // namespace

std::string point_checkpoint_name(const InputHashes& hashes, const std::string& label) {
  const std::string key = payload_header(hashes, label);
  return fmt::format("{:016x}.point", fnv1a64(key));
}

std::string encode_point_checkpoint(const InputHashes& hashes, const std::string& label,
                                    std::span<const Report> reports) {
  Writer w;
  w.bytes.append(kMagic);
  w(kFormatVersion);
  w.bytes.append(payload_header(hashes, label));
  w(static_cast<std::uint64_t>(reports.size()));
  for (const Report& r : reports) w(r);
  w(fnv1a64(w.bytes));
  return std::move(w.bytes);
}

std::optional<std::vector<Report>> decode_point_checkpoint(std::string_view bytes,
                                                           const InputHashes& hashes,
                                                           const std::string& label,
                                                           std::string& why) {
  constexpr std::size_t kSum = sizeof(std::uint64_t);
  if (bytes.size() < kMagic.size() + sizeof(kFormatVersion) + kSum ||
      bytes.substr(0, kMagic.size()) != kMagic) {
    why = "not a shardsim point checkpoint";
    return std::nullopt;
  }
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - kSum, kSum);
  const std::string_view body = bytes.substr(0, bytes.size() - kSum);
  if (fnv1a64(body) != stored) {
    why = "its checksum does not match (a torn or damaged file)";
    return std::nullopt;
  }
  try {
    Reader r(body.substr(kMagic.size()));
    std::uint32_t version = 0;
    r(version);
    if (version != kFormatVersion) {
      why = fmt::format("checkpoint format {}, this shardsim reads {}", version, kFormatVersion);
      return std::nullopt;
    }
    std::string made_by;
    InputHashes made_from;
    std::string made_for;
    r(made_by), r(made_from), r(made_for);
    if (made_by != SHARDSIM_VERSION) {
      why = fmt::format("written by shardsim {}, this is {}", made_by, SHARDSIM_VERSION);
      return std::nullopt;
    }
    if (!(made_from == hashes) || made_for != label) {
      why = "made from other inputs";
      return std::nullopt;
    }
    std::vector<Report> reports;
    r(reports);
    if (!r.done()) {
      why = "bytes left after the last report";
      return std::nullopt;
    }
    return reports;
  } catch (const Truncated& t) {
    why = t.what;
    return std::nullopt;
  }
}

}  // namespace shardsim
