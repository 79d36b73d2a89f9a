// Power-law profiles shared across the trace sources of one process (shared_profiles.hpp).
#include "trace/shared_profiles.hpp"

#include <iterator>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "shardsim/model/validation.hpp"

namespace shardsim::detail {

namespace {

// Everything PowerLawProfile's constructor reads (the table's name only names it in an error).
// A new option must join the key: this assertion fails when PowerLawOptions grows.
static_assert(sizeof(PowerLawOptions) == sizeof(std::uint64_t),
              "PowerLawOptions changed: add its new fields to the key of the shared profiles");
using Key = std::tuple<std::uint64_t, double, double, std::vector<double>, HotRowLayout,
                       std::uint64_t, std::uint64_t>;

struct Entry {
  std::weak_ptr<const PowerLawProfile> live;    // the profile, while anyone holds it
  std::shared_ptr<const PowerLawProfile> kept;  // set while among the last used (the budget)
  std::size_t bytes = 0;                        // PowerLawProfile::memory_bytes
  std::uint64_t last_use = 0;                   // its key in SharedProfiles::order while kept
  std::uint64_t user = 0;                       // SharedProfiles::user when last asked for
};
using Entries = std::map<Key, Entry>;

struct SharedProfiles {
  std::mutex m;
  Entries by_key;
  std::map<std::uint64_t, Entries::iterator> order;  // the kept entries by last use, oldest first
  std::uint64_t uses = 0;
  std::uint64_t user = 0;  // begin_shared_profile_user calls so far
  std::size_t kept_bytes = 0;
  std::size_t entries_after_last_purge = 0;

  // Marks the entry as used last, keeping its profile; drops the profiles used longest ago
  // while the kept ones take more than kSharedProfileBytes (never the one just used).
  void keep(Entries::iterator it, std::shared_ptr<const PowerLawProfile> profile) {
    Entry& e = it->second;
    e.user = user;
    if (e.kept) {
      order.erase(e.last_use);
    } else {
      e.kept = std::move(profile);
      kept_bytes += e.bytes;
    }
    e.last_use = ++uses;
    order.emplace(e.last_use, it);
    while (kept_bytes > kSharedProfileBytes && order.size() > 1) drop_oldest();
  }

  // No longer keeps the profile used longest ago (freed unless someone holds it).
  void drop_oldest() {
    const Entries::iterator oldest = order.begin()->second;
    order.erase(order.begin());
    kept_bytes -= oldest->second.bytes;
    oldest->second.kept.reset();
    if (oldest->second.live.expired()) by_key.erase(oldest);
  }

  // Keeps only the profiles the newest and the previous user asked for. The kept are ordered by
  // last use, so those of older users come first.
  void begin_user() {
    ++user;
    while (!order.empty() && order.begin()->second->second.user + 1 < user) drop_oldest();
  }

  // Entries neither kept nor held: dropped once the map has doubled since the last purge, so
  // that a long sweep over ever new tables does not keep their keys.
  void purge_if_grown() {
    if (by_key.size() < 2 * entries_after_last_purge + 64) return;
    for (auto it = by_key.begin(); it != by_key.end();) {
      it = !it->second.kept && it->second.live.expired() ? by_key.erase(it) : std::next(it);
    }
    entries_after_last_purge = by_key.size();
  }
};

SharedProfiles& shared() {
  static SharedProfiles s;
  return s;
}

}  // namespace

std::shared_ptr<const PowerLawProfile> shared_power_law_profile(const EmbeddingTable& table,
                                                                HotRowLayout layout,
                                                                std::uint64_t seed,
                                                                PowerLawOptions options) {
  // A table the constructor refuses throws from it, before its numbers (a NaN, say) reach the
  // ordered map as a key.
  if (check_table(table))
    return std::make_shared<const PowerLawProfile>(table, layout, seed, options);
  Key key{table.rows, table.alpha, table.q, table.heavy_hitters, layout, seed, options.head_ranks};
  SharedProfiles& s = shared();
  std::lock_guard lock(s.m);
  auto it = s.by_key.find(key);
  if (it != s.by_key.end()) {
    if (auto profile = it->second.live.lock()) {
      s.keep(it, profile);
      return profile;
    }
  } else {
    s.purge_if_grown();
    it = s.by_key.emplace(std::move(key), Entry{}).first;
    it->second.bytes = PowerLawProfile::memory_bytes(table, layout, options);
  }
  // Built under the lock: the constructor is cheap (the head index is built on first use).
  auto profile = std::make_shared<const PowerLawProfile>(table, layout, seed, options);
  it->second.live = profile;
  s.keep(it, profile);
  return profile;
}

void begin_shared_profile_user() {
  SharedProfiles& s = shared();
  std::lock_guard lock(s.m);
  s.begin_user();
}

}  // namespace shardsim::detail
