#pragma once
// Finished runs kept between processes, so that an interrupted sweep resumes where it stopped
// (docs/robustness.md, "Resumable sweeps"). run_all asks the store for each run's reports before
// simulating it and hands it each run it simulates as soon as it finishes.
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shardsim/io/scenario.hpp"
#include "shardsim/metrics/report.hpp"

namespace shardsim {

class PointStore {
 public:
  virtual ~PointStore() = default;
  // The reports of the run of `scenario` at sweep point `label`, if kept for exactly its inputs.
  virtual std::optional<std::vector<Report>> load(const Scenario& scenario,
                                                  const std::string& label) = 0;
  // Keeps them; called from several threads with more than one job (distinct runs).
  virtual void store(const Scenario& scenario, const std::string& label,
                     std::span<const Report> reports) = 0;
};

// A sweep's `--out DIR`: one checkpoint file a run under DIR/points/ (io/point_checkpoint.hpp),
// each written atomically when its run finishes. A checkpoint that cannot be written ends the
// sweep (the InputError of the atomic writer); the points already kept stay for a resume.
class CheckpointDir final : public PointStore {
 public:
  // `reuse`: load() takes the checkpoints there (--resume); otherwise it takes none and every
  // run is simulated and stored afresh (--force).
  CheckpointDir(const std::string& out_dir, bool reuse);
  // The folder the checkpoints live in: DIR/points.
  static std::filesystem::path folder_of(const std::string& out_dir);
  // How many checkpoint files DIR/points holds (0 when it does not exist).
  static std::size_t count_in(const std::string& out_dir);
  // Removes the temporaries an interrupted writer left in DIR/points (those whose process is
  // gone); returns how many. Also removes, uncounted, dead temporaries at every other level of
  // DIR and beside it (io/stale_temporaries.hpp).
  std::size_t remove_stale_temporaries() const;
  // After a failed sweep: removes DIR/points if it holds nothing, and DIR too if this store's
  // sweep created it and it is now empty (a failure leaves no empty folders behind).
  void remove_if_empty() const;

  std::optional<std::vector<Report>> load(const Scenario& scenario,
                                          const std::string& label) override;
  void store(const Scenario& scenario, const std::string& label,
             std::span<const Report> reports) override;

 private:
  std::filesystem::path out_dir_;
  std::filesystem::path folder_;
  bool reuse_;
  bool out_dir_existed_;
};

}  // namespace shardsim
