#pragma once
// Power-law profiles shared by the synthetic trace sources of one process.
//
// A sweep builds a trace source per point. Points that differ only in the cluster, the placement
// or a planner's options have the same tables, and each table's profile is the same bits every
// time: the head index of a scattered layout above all (4096 hashed ranks, their probabilities
// and a sort, built on the first row-id query), which was about a third of a NeuroShard sweep's
// time and about half of 2D Table 2's (docs/performance.md, "Profiles shared across sweep
// points"). A profile is a pure function of its key and thread-safe (its lazy parts are
// guarded), so sharing it changes no result.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "shardsim/model/embedding_table.hpp"
#include "shardsim/model/workload.hpp"
#include "shardsim/trace/power_law_profile.hpp"

namespace shardsim::detail {

// The profile PowerLawProfile(table, layout, seed, options) would build, shared with every
// earlier call of the same rows, alpha, q, heavy hitters, layout, seed and head size while
// (a) someone still holds that profile (the sweep points running at once share one), or
// (b) it was asked for since the last-but-one begin_shared_profile_user(), that is by the
//     newest user or the one before (kept for the next point of a sweep), and is among the
//     profiles used last whose PowerLawProfile::memory_bytes add up to at most
//     kSharedProfileBytes (about 8,000 tables of 4096 head ranks).
// Throws as the constructor does.
inline constexpr std::size_t kSharedProfileBytes = std::size_t{1} << 30;
std::shared_ptr<const PowerLawProfile> shared_power_law_profile(const EmbeddingTable& table,
                                                                HotRowLayout layout,
                                                                std::uint64_t seed,
                                                                PowerLawOptions options);

// A new user (a trace source) starts taking profiles: the ones no user took since the
// last-but-one call are no longer kept, unless someone holds them. So a sweep whose points share
// tables keeps them from point to point, and one whose every point has tables of its own (the
// NeuroShard tasks) keeps only its last two points' instead of filling kSharedProfileBytes.
void begin_shared_profile_user();

}  // namespace shardsim::detail
