// The messages of a distributed run (run/work_messages.hpp).
#include "shardsim/run/work_messages.hpp"

#include <fmt/format.h>

#include <cstring>
#include <exception>

#include "shardsim/core/content_hash.hpp"
#include "shardsim/core/error.hpp"
#include "shardsim/io/point_checkpoint.hpp"

namespace shardsim {

namespace {

constexpr std::string_view kMagic = "SHARDSIM-MSG\n";
constexpr std::size_t kSum = sizeof(std::uint64_t);

enum class Kind : std::uint8_t { hello = 1, task = 2, result = 3, failure = 4, stop = 5, bye = 6 };

// --- Writing (little-endian as the host writes it: the ranks of one job share an architecture;
// a rank of another would fail the checksum or the checks below, not be misread silently) ---

class Out {
 public:
  std::string bytes;
  template <class T>
  requires std::is_arithmetic_v<T>
  void put(T v) {
    char raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));
    bytes.append(raw, sizeof(T));
  }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    bytes.append(s);
  }
  void put(const InputHashes& h) { put(h.scenario), put(h.hardware), put(h.cost); }
};

// --- Reading: every read bounds-checked; a length past the end is refused before allocating ---

class In {
 public:
  explicit In(std::string_view bytes) : in_(bytes) {}
  template <class T>
  requires std::is_arithmetic_v<T>
  void get(T& v) {
    need(sizeof(T), "a number");
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
  }
  void get(bool& v) {
    std::uint8_t b = 0;
    get(b);
    if (b > 1) throw MessageError("a flag that is neither 0 nor 1");
    v = b == 1;
  }
  void get(std::string& s) {
    std::uint64_t n = 0;
    get(n);
    need(n, "a text");
    s.assign(in_.data() + pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
  }
  void get(InputHashes& h) { get(h.scenario), get(h.hardware), get(h.cost); }
  bool done() const { return pos_ == in_.size(); }

 private:
  void need(std::uint64_t n, const char* what) {
    if (n > in_.size() - pos_) throw MessageError(fmt::format("the message ends inside {}", what));
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

Kind kind_of(const WorkMessage& m) {
  switch (m.index()) {
    case 0:
      return Kind::hello;
    case 1:
      return Kind::task;
    case 2:
      return Kind::result;
    case 3:
      return Kind::failure;
    case 4:
      return Kind::stop;
    default:
      return Kind::bye;
  }
}

}  // namespace

std::string encode_message(const WorkMessage& message) {
  Out o;
  o.bytes.append(kMagic);
  o.put(kWorkProtocolVersion);
  o.put(static_cast<std::uint8_t>(kind_of(message)));
  if (const auto* h = std::get_if<HelloMessage>(&message)) {
    o.put(h->shardsim_version), o.put(h->slots), o.put(h->host);
  } else if (const auto* t = std::get_if<TaskMessage>(&message)) {
    o.put(t->run), o.put(t->label), o.put(t->hashes);
    o.put(static_cast<std::uint8_t>(t->record_timings ? 1 : 0));
  } else if (const auto* r = std::get_if<ResultMessage>(&message)) {
    o.put(r->run), o.put(r->checkpoint);
  } else if (const auto* f = std::get_if<FailureMessage>(&message)) {
    o.put(f->run), o.put(static_cast<std::uint8_t>(f->kind)), o.put(f->file), o.put(f->line);
    o.put(f->column), o.put(f->key), o.put(f->problem), o.put(f->hint), o.put(f->what);
  }
  o.put(fnv1a64(o.bytes));
  return std::move(o.bytes);
}

WorkMessage decode_message(std::string_view bytes) {
  if (bytes.size() < kMagic.size() + sizeof(std::uint32_t) + 1 + kSum ||
      bytes.substr(0, kMagic.size()) != kMagic) {
    throw MessageError("not a shardsim message");
  }
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - kSum, kSum);
  const std::string_view body = bytes.substr(0, bytes.size() - kSum);
  if (fnv1a64(body) != stored) throw MessageError("its checksum does not match (damaged)");
  In in(body.substr(kMagic.size()));
  std::uint32_t version = 0;
  in.get(version);
  if (version != kWorkProtocolVersion) {
    throw MessageError(
        fmt::format("message protocol {}, this shardsim speaks {}", version, kWorkProtocolVersion));
  }
  std::uint8_t kind = 0;
  in.get(kind);
  WorkMessage out;
  switch (static_cast<Kind>(kind)) {
    case Kind::hello: {
      HelloMessage h;
      in.get(h.shardsim_version), in.get(h.slots), in.get(h.host);
      if (h.slots == 0) throw MessageError("a worker with no slots");
      out = std::move(h);
      break;
    }
    case Kind::task: {
      TaskMessage t;
      in.get(t.run), in.get(t.label), in.get(t.hashes), in.get(t.record_timings);
      out = std::move(t);
      break;
    }
    case Kind::result: {
      ResultMessage r;
      in.get(r.run), in.get(r.checkpoint);
      out = std::move(r);
      break;
    }
    case Kind::failure: {
      FailureMessage f;
      std::uint8_t k = 0;
      in.get(f.run), in.get(k);
      if (k < 1 || k > 3) throw MessageError(fmt::format("an unknown failure kind {}", k));
      f.kind = static_cast<FailureKind>(k);
      in.get(f.file), in.get(f.line), in.get(f.column), in.get(f.key), in.get(f.problem);
      in.get(f.hint), in.get(f.what);
      out = std::move(f);
      break;
    }
    case Kind::stop:
      out = StopMessage{};
      break;
    case Kind::bye:
      out = ByeMessage{};
      break;
    default:
      throw MessageError(fmt::format("an unknown message kind {}", kind));
  }
  if (!in.done()) throw MessageError("bytes left after the message");
  return out;
}

std::vector<Report> reports_of(const ResultMessage& result, const InputHashes& hashes,
                               const std::string& label, std::size_t report_count) {
  std::string why;
  std::optional<std::vector<Report>> reports =
      decode_point_checkpoint(result.checkpoint, hashes, label, why);
  if (!reports) throw MessageError("its reports are not taken: " + why);
  if (reports->size() != report_count) {
    throw MessageError(
        fmt::format("it holds {} report(s) where the run makes {}", reports->size(), report_count));
  }
  return std::move(*reports);
}

namespace {
// A DoesNotFitError raised again on rank 0 with the worker's message.
class RemoteDoesNotFit : public DoesNotFitError {
 public:
  explicit RemoteDoesNotFit(std::string what) : DoesNotFitError(-1, 0, 0, ""), what_(what) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};
}  // namespace

void rethrow_failure(const FailureMessage& f) {
  switch (f.kind) {
    case FailureKind::input:
      throw InputError(SourceLocation{f.file, f.line, f.column}, f.key, f.problem, f.hint);
    case FailureKind::does_not_fit:
      throw RemoteDoesNotFit(f.what);
    case FailureKind::other:
      break;
  }
  throw std::runtime_error(f.what);
}

FailureMessage failure_of_current_exception(std::uint64_t run) {
  FailureMessage f;
  f.run = run;
  try {
    throw;
  } catch (const InputError& e) {
    f.kind = FailureKind::input;
    f.file = e.where().file;
    f.line = e.where().line;
    f.column = e.where().column;
    f.key = e.key();
    f.problem = e.problem();
    f.hint = e.hint();
  } catch (const DoesNotFitError& e) {
    f.kind = FailureKind::does_not_fit;
    f.what = e.what();
  } catch (const std::exception& e) {
    f.kind = FailureKind::other;
    f.what = e.what();
  } catch (...) {
    f.kind = FailureKind::other;
    f.what = "an unknown error";
  }
  return f;
}

}  // namespace shardsim
