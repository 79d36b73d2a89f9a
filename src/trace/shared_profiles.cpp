// Power-law profiles shared across the trace sources of one process (shared_profiles.hpp).
#include "shared_profiles.hpp"

#include <deque>
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

struct SharedProfiles {
  std::mutex m;
  std::map<Key, std::shared_ptr<const PowerLawProfile>> by_key;
  std::deque<Key> order;  // oldest first: the first out when more than kSharedProfiles are kept
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
  if (const auto it = s.by_key.find(key); it != s.by_key.end()) return it->second;
  // Built under the lock: the constructor is cheap (the head index is built on first use).
  auto profile = std::make_shared<const PowerLawProfile>(table, layout, seed, options);
  s.by_key.emplace(key, profile);
  s.order.push_back(std::move(key));
  if (s.order.size() > kSharedProfiles) {
    s.by_key.erase(s.order.front());
    s.order.pop_front();
  }
  return profile;
}

}  // namespace shardsim::detail
