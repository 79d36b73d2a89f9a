// Chrome trace event format (the JSON object form with "traceEvents"): "M" metadata names
// processes and threads, "X" complete events are spans with ts/dur in microseconds, "C" counter
// events carry link utilisation. Numbers are printed with fixed decimals (nanoseconds), so the
// same simulation always gives the same bytes.
#include "shardsim/io/chrome_trace_writer.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "shardsim/core/error.hpp"
#include "shardsim/io/atomic_files.hpp"

namespace shardsim {

namespace {

std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump();
}

const char* thread_name(Stream s) {
  switch (s) {
    case Stream::dense_compute:
      return "compute: dense (MLPs, interaction)";
    case Stream::sparse_compute:
      return "compute: sparse (embeddings)";
    case Stream::sparse_comm:
      return "comm: pooled-embedding AlltoAll";
    case Stream::dense_comm:
      return "comm: gradient AllReduce";
    case Stream::input_comm:
      return "comm: input AlltoAll";
    case Stream::host:
      return "host: framework step";
    case Stream::ingest:
      return "host: input delivery (frontend network, PCIe)";
  }
  return "?";
}

// Microseconds with nanosecond decimals.
std::string us(double s) {
  return fmt::format("{:.3f}", s * 1e6);
}

}  // namespace

void ChromeTrace::add(const std::string& label, const Cluster& cluster,
                      const SimulationResult& result) {
  fmt::memory_buffer buf;
  auto out = std::back_inserter(buf);
  auto sep = [&]() {
    if (!events_.empty() || buf.size() > 0) buf.push_back(',');
    buf.push_back('\n');
  };
  const int n = cluster.num_gpus();
  const int base = next_pid_;
  const auto& tasks = result.graph.tasks;
  const auto& spans = result.timeline.spans;
  const auto drawn = [&](std::size_t id) { return spans[id].end_s > spans[id].start_s; };
  // The streams each GPU uses: a thread is named only where it has a span to show, so a stream
  // that stays empty (the input delivery without a frontend network, a host step of 0 s) adds no
  // empty row to the viewer.
  std::vector<std::array<bool, kNumStreams>> used(static_cast<std::size_t>(n));
  for (auto& u : used) u.fill(false);
  for (std::size_t id = 0; id < tasks.size(); ++id) {
    if (drawn(id))
      used[static_cast<std::size_t>(tasks[id].gpu)][static_cast<std::size_t>(tasks[id].stream)] =
          true;
  }
  for (int g = 0; g < n; ++g) {
    sep();
    fmt::format_to(out, R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})",
                   base + g,
                   quoted(fmt::format("{} gpu{} (node {})", label, g, cluster.node_of(g))));
    sep();
    fmt::format_to(
        out, R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})",
        base + g, base + g);
    for (int s = 0; s < kNumStreams; ++s) {
      if (!used[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)]) continue;
      sep();
      fmt::format_to(out,
                     R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":{}}}}})",
                     base + g, s, quoted(thread_name(static_cast<Stream>(s))));
    }
  }
  // Which iteration each task belongs to.
  std::vector<int> iteration(tasks.size(), -1);
  for (std::size_t i = 0; i < result.iterations.size(); ++i) {
    for (int id = result.iterations[i].first_task; id < result.iterations[i].end_task; ++id) {
      iteration[static_cast<std::size_t>(id)] = static_cast<int>(i);
    }
  }
  for (std::size_t id = 0; id < tasks.size(); ++id) {
    const Task& t = tasks[id];
    const TaskSpan& sp = spans[id];
    if (!drawn(id)) continue;  // nothing to draw
    sep();
    fmt::format_to(
        out,
        R"({{"name":"{}","cat":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"iteration":{},"warmup":{})",
        to_string(t.phase), is_comm(t.stream) ? "comm" : (on_gpu(t.stream) ? "compute" : "host"),
        base + t.gpu, static_cast<int>(t.stream), us(sp.start_s), us(sp.end_s - sp.start_s),
        iteration[id], iteration[id] < result.warmup ? "true" : "false");
    if (t.collective >= 0) {
      const Collective& c = result.graph.collectives[static_cast<std::size_t>(t.collective)];
      fmt::format_to(out, R"(,"collective":{},"gpus":{},"bytes":{},"idle_network_us":{})",
                     t.collective, c.members.size(), c.bytes, us(c.duration_s));
    }
    fmt::format_to(out, R"(,"ready_us":{}}}}})", us(sp.ready_s));
  }
  // Link utilisation: one counter per link that ever carried bytes, in a "network" process.
  const int net = base + n;
  if (!result.timeline.link_samples.empty()) {
    sep();
    fmt::format_to(out, R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})", net,
                   quoted(label + " network (link utilisation)"));
    sep();
    fmt::format_to(
        out, R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})", net,
        net);
    const auto& links = cluster.links();
    for (const LinkSample& s : result.timeline.link_samples) {
      sep();
      fmt::format_to(
          out, R"({{"name":{},"ph":"C","pid":{},"ts":{},"args":{{"utilization":{:.4f}}}}})",
          quoted(links[static_cast<std::size_t>(s.link)].name), net, us(s.time_s), s.utilization);
    }
  }
  next_pid_ = net + 1;
  events_.append(buf.data(), buf.size());
}

void ChromeTrace::write(std::ostream& out) const {
  out << R"({"displayTimeUnit":"ns","otherData":{"generator":"shardsim )" << SHARDSIM_VERSION
      << R"("},"traceEvents":[)" << events_ << "\n]}\n";
}

void check_trace_out(const std::string& path, bool force) {
  check_file_writable(path, force, "--trace-out");
}

void write_chrome_trace_file(const std::string& path, const ChromeTrace& trace, bool force) {
  // The one atomic writer (io/atomic_files.hpp): temporary, rename, removed on failure or signal.
  write_file_atomically(path, force, "--trace-out", [&](const std::string& temporary) {
    errno = 0;
    std::ofstream os(temporary, std::ios::binary | std::ios::trunc);
    trace.write(os);
    os.close();
    if (!os) {
      throw InputError(
          SourceLocation{path}, "--trace-out",
          fmt::format("cannot write {}: {}", temporary, std::strerror(errno != 0 ? errno : EIO)),
          "check the free space and permissions of the folder");
    }
  });
}

}  // namespace shardsim
