#pragma once
// Analytic hit rates of a row cache in front of one shard of an embedding table (issue 16,
// memory tiers: a shard in host memory behind an HBM cache, FBGEMM's UVM caching), from the
// table's access profile alone: no row is ever materialised, so a 1e13-row table costs what a
// 1e3-row one does. Steady state under the independent reference model (IRM: every lookup draws
// its row independently from the profile's law). docs/model.md, "Cache hit rates (memory tiers)".
//
//   LRU  Che's approximation (Che, Tung & Wang, IEEE JSAC 20(7), 2002; justified by Fricker,
//        Robert & Roberts, ITC 24, 2012): a row is in the cache iff it was looked up within the
//        last T lookups, T the cache's characteristic time, solving
//            Σ_{k ∈ shard} 1 - (1 - p_k)^T = cache_rows        (the profile's expected_distinct)
//        and a lookup of row k misses with probability (1 - p_k)^T.
//   LFU  the static top-k cache (Breslau, Cao, Fan, Phillips & Shenker, INFOCOM 1999: under the
//        IRM a perfect LFU converges to the cache_rows most popular rows): the hit rate is the
//        mass of the shard's cache_rows hottest rows over the shard's mass.
// A cache serves only its own shard: the rates are fractions of the lookups that land in the
// shard.
#include <optional>
#include <string>
#include <string_view>

#include "shardsim/trace/access_profile.hpp"
#include "shardsim/trace/row_range.hpp"

namespace shardsim {

enum class CachePolicy { lru, lfu };

std::string to_string(CachePolicy policy);  // "lru" | "lfu"
// "lru" | "lfu" (exactly); std::nullopt for anything else.
std::optional<CachePolicy> parse_cache_policy(std::string_view name);

struct CacheHitRate {
  // Fraction of the lookups landing in the shard that the cache serves, in [0, 1]. 0 when the
  // shard receives no lookups (shard_lookup_share == 0) or the cache holds no rows.
  double hit_rate = 0;
  // Probability that one lookup of the table lands in the shard (the profile's mass of the
  // range): hit_rate · shard_lookup_share is the fraction of all the table's lookups served by
  // this shard's cache.
  double shard_lookup_share = 0;
  // LRU: Che's characteristic time T, in lookups of the whole table (the shard sees
  // T · shard_lookup_share of them): the age beyond which a row has left the cache. +infinity
  // when every row of the shard that can be looked up fits; 0 for an empty cache and for LFU.
  double characteristic_table_lookups = 0;
};

// The steady-state hit rate of a cache of `cache_rows` rows (fractional allowed: >= 0; values
// at or above the shard's rows give 1) in front of the rows `rows` (in `space`) of the table
// described by `profile`, under `policy`. Throws std::invalid_argument for a negative or NaN
// cache size; the profile checks the range.
//
// Cost: LRU solves for T by safeguarded regula falsi in log T (6–15 calls of
// expected_distinct); LFU is a few calls of mass() (plus, for a row-id shard under a scattered
// layout, one walk of the profile's hottest ranks). Measured, a 1e9-row power-law table: see
// docs/model.md.
CacheHitRate cache_hit_rate(const AccessProfile& profile, RowRange rows, RowSpace space,
                            double cache_rows, CachePolicy policy);

}  // namespace shardsim
