#pragma once
// An output set replacing the one in an existing directory as a whole (io/atomic_files.cpp,
// docs/robustness.md "Outputs"), and the hook that kills a writer at each of its renames.
#include <filesystem>
#include <span>
#include <string>

#include "shardsim/io/atomic_files.hpp"

namespace shardsim {

// Builds the new directory beside `dir` ("<dir>.tmp.<pid>": hard links of everything `dir`
// holds other than `files` and dead temporaries, then `files` written whole) and exchanges the
// two in one atomic step (Linux renameat2 RENAME_EXCHANGE); the earlier directory, now under
// the temporary name, is removed. A reader of `dir` sees the earlier set or the new one, never
// a mix. Returns false, having changed nothing, where that cannot be done: no renameat2 or a
// file system without exchange, a `dir` holding the working directory, a mount point inside,
// a file that cannot be linked, more than 100,000 entries to link. A failed write is an
// InputError at `dir` naming `key`, with nothing changed.
bool swap_in_output_set(const std::filesystem::path& dir, std::span<const FileContent> files,
                        const std::string& key);

// Fault injection for the tests of docs/robustness.md "Outputs", never set in use:
// SHARDSIM_FAULT_INJECT=kill_at_output_rename:K kills the process with SIGKILL (no clean-up)
// at the K-th step of its output writes that moves files into place (before each rename, and
// after the exchange of an output set before the earlier one is removed);
// term_at_output_rename:K sends it SIGTERM there instead (the clean-up handlers run).
void output_rename_step();

}  // namespace shardsim
