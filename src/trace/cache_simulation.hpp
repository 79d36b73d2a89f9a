#pragma once
// Exact simulation of a row cache over a sequence of lookups, to validate the analytic hit rates
// of cache_hit_rate.hpp on sampled traces (tests/trace/cache_hit_rate_test.cpp).
//
//   LRU  a hash map from row id to a node of a doubly linked recency list (nodes in one array,
//        linked by index): O(1) per lookup. A miss on a full cache evicts the least recently
//        used row and inserts the new one.
//   LFU  "perfect LFU" (Breslau, Cao, Fan, Phillips & Shenker, INFOCOM 1999): the count of every
//        row ever looked up is kept, cached or not, over all lookups so far (warm-up included).
//        On a miss the row enters the cache while it has room; on a full cache it replaces the
//        cached row of least count only if its own count (this lookup included) is larger (ties
//        keep the cached row). So the cache always holds a set of `capacity_rows` rows with the
//        highest counts seen so far; under the IRM the counts rank rows by probability as the
//        trace grows, and the cache converges to the static top-k set whose hit rate is the
//        mass of the k hottest rows, the formula of cache_hit_rate's LFU. (An LFU that always
//        admits the missing row, evicting the least-counted one, keeps only k - 1 top rows plus
//        the latest miss; an "in-cache LFU" that forgets counts on eviction does not converge
//        to the top k at all.) The cached rows sit in a binary min-heap on their counts with
//        their heap positions in the hash map: O(log k) per lookup, usually O(1) (a count
//        rises by one).
// Lookups [0, warmup_lookups) update the cache but are not counted.
#include <cstdint>
#include <span>

#include "shardsim/trace/cache_hit_rate.hpp"

namespace shardsim {

struct CacheSimulationResult {
  std::uint64_t counted_lookups = 0;  // lookups after the warm-up
  std::uint64_t hits = 0;             // of those, the ones the cache served
  double hit_rate() const {
    return counted_lookups > 0 ? static_cast<double>(hits) / static_cast<double>(counted_lookups)
                               : 0.0;
  }
};

// Runs `row_ids` in order through an initially empty cache of `capacity_rows` rows.
CacheSimulationResult simulate_cache(std::span<const std::uint64_t> row_ids,
                                     std::uint64_t capacity_rows, CachePolicy policy,
                                     std::uint64_t warmup_lookups);

}  // namespace shardsim
