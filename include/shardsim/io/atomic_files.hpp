#pragma once
// Writing a set of files into a directory so that a reader never sees a half-written file and
// nothing is overwritten without --force (used by `--out DIR` and `shardsim baseline`).
#include <span>
#include <string>

namespace shardsim {

struct FileContent {
  std::string name;  // relative to the directory
  std::string content;
};

// Writes `files` under `dir`, creating it and its parents. Every check comes before the first
// write, so a refused call leaves the directory untouched: a `dir` that exists and is not a
// directory, a target that is a directory (even with `force`), or an existing target without
// `force` is an InputError at `dir` naming `key` (the flag, e.g. "--out"). Each file is written
// to "<name>.tmp.<pid>" and renamed into place; if a write fails the temporaries are removed
// (files already renamed stay).
void write_files_atomically(const std::string& dir, std::span<const FileContent> files, bool force,
                            const std::string& key);

}  // namespace shardsim
