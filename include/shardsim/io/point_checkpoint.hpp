#pragma once
// One finished sweep point on disk (docs/robustness.md, "Resumable sweeps"): the reports of one
// point, exactly as they are in memory, so that a sweep resumed from its checkpoints writes the
// same bytes as one that never stopped. Binary (doubles bit for bit), versioned, and closed by a
// checksum: a torn, truncated or foreign file is told apart from a good one, never trusted.
//
// Layout: "SHARDSIM-POINT\n", format version (u32), then the payload: the shardsim version, the
// point's input hashes and label, the report count and each report field by field (little-
// endian, as the host writes it; a checkpoint is a cache for the machine that made it), then the
// 64-bit FNV-1a of everything before it.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shardsim/core/input_hashes.hpp"
#include "shardsim/metrics/report.hpp"

namespace shardsim {

// The file a point's checkpoint has under the sweep's points/ folder: "<16 hex digits>.point",
// from the point's input hashes and label, so the same point keeps its file when other points
// are added to or removed from the sweep.
std::string point_checkpoint_name(const InputHashes& hashes, const std::string& label);

std::string encode_point_checkpoint(const InputHashes& hashes, const std::string& label,
                                    std::span<const Report> reports);

// The reports of a checkpoint of exactly this point (same input hashes, label and shardsim
// version), or nullopt with the reason in `why` (truncated, bad checksum, other inputs, ...).
std::optional<std::vector<Report>> decode_point_checkpoint(std::string_view bytes,
                                                           const InputHashes& hashes,
                                                           const std::string& label,
                                                           std::string& why);

}  // namespace shardsim
