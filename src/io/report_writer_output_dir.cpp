// `--out DIR`: every format at once, each file written to "<name>.tmp.<pid>" and renamed into
// place, so a reader never sees a half-written file. Files: docs/report.md.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "shardsim/core/error.hpp"
#include "shardsim/io/report_writer.hpp"

namespace shardsim {

namespace {

namespace fs = std::filesystem;

struct OutputFile {
  std::string name;
  std::string content;
};

std::string fwd_matrix_name(std::size_t index, std::size_t count) {
  return count == 1 ? "comm_matrix_fwd.csv" : fmt::format("comm_matrix_fwd.{}.csv", index);
}
std::string bwd_matrix_name(std::size_t index, std::size_t count) {
  return count == 1 ? "comm_matrix_bwd.csv" : fmt::format("comm_matrix_bwd.{}.csv", index);
}

std::vector<OutputFile> render(std::span<const Report> reports) {
  std::vector<OutputFile> files;
  const std::size_t n = reports.size();

  // report.json: each report says which files hold its communication matrices.
  std::vector<nlohmann::ordered_json> matrix_files;
  for (std::size_t i = 0; i < n; ++i) {
    nlohmann::ordered_json names;
    names["comm_matrix_files"] = {{"fwd", fwd_matrix_name(i, n)}, {"bwd", bwd_matrix_name(i, n)}};
    matrix_files.push_back(std::move(names));
  }
  std::ostringstream json;
  write_json(json, reports, matrix_files);
  files.push_back({"report.json", json.str()});

  std::ostringstream summary;
  write_csv_summary(summary, reports);
  files.push_back({"summary.csv", summary.str()});

  std::ostringstream per_gpu;
  write_per_gpu_csv(per_gpu, reports);
  files.push_back({"per_gpu.csv", per_gpu.str()});

  for (std::size_t i = 0; i < n; ++i) {
    std::ostringstream fwd;
    write_comm_matrix_csv(fwd, reports[i].comm_fwd);
    files.push_back({fwd_matrix_name(i, n), fwd.str()});
    std::ostringstream bwd;
    write_comm_matrix_csv(bwd, reports[i].comm_bwd);
    files.push_back({bwd_matrix_name(i, n), bwd.str()});
  }
  return files;
}

[[noreturn]] void fail(const std::string& dir, std::string problem, std::string hint = {}) {
  throw InputError(SourceLocation{dir}, "--out", std::move(problem), std::move(hint));
}

void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove(p, ec);
}

}  // namespace

std::vector<std::string> output_file_names(std::size_t report_count) {
  std::vector<std::string> names{"report.json", "summary.csv", "per_gpu.csv"};
  for (std::size_t i = 0; i < report_count; ++i) {
    names.push_back(fwd_matrix_name(i, report_count));
    names.push_back(bwd_matrix_name(i, report_count));
  }
  return names;
}

void write_output_dir(const std::string& dir, std::span<const Report> reports, bool force) {
  const fs::path root(dir);
  std::error_code ec;

  // Every check comes before the first write, so a refused run leaves the directory untouched.
  const fs::file_status root_status = fs::status(root, ec);
  if (fs::exists(root_status) && !fs::is_directory(root_status)) {
    fail(dir, "exists and is not a directory", "choose another --out path");
  }
  const std::vector<OutputFile> files = render(reports);
  for (const OutputFile& f : files) {
    const fs::file_status st = fs::symlink_status(root / f.name, ec);
    if (!fs::exists(st)) continue;
    if (fs::is_directory(st)) {
      fail(dir, f.name + " already exists and is a directory", "remove it or choose another --out");
    }
    if (!force) fail(dir, f.name + " already exists", "pass --force to overwrite");
  }

  fs::create_directories(root, ec);
  if (ec) fail(dir, "cannot create the directory: " + ec.message());

  const std::string tmp_suffix = fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  std::vector<fs::path> pending;  // temporaries written and not yet renamed
  auto abandon = [&]() {
    for (const fs::path& p : pending) remove_quietly(p);
  };
  for (const OutputFile& f : files) {
    const fs::path tmp = root / (f.name + tmp_suffix);
    pending.push_back(tmp);
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    os << f.content;
    os.close();
    if (!os) {
      abandon();
      fail(dir, "cannot write " + tmp.filename().string());
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    fs::rename(pending[i], root / files[i].name, ec);
    if (ec) {
      const std::string problem =
          fmt::format("cannot rename {} to {}: {}", pending[i].filename().string(), files[i].name,
                      ec.message());
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(i));
      abandon();
      fail(dir, problem);
    }
  }
  spdlog::info("wrote {} files to {}", files.size(), dir);
}

}  // namespace shardsim
