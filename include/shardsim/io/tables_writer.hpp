#pragma once
// A model's embedding tables written out as the scenario keys that load them back
// (`shardsim validate SCENARIO --tables-out FILE`, docs/scenario.md "Freezing a generated
// model"): every table, listed and generated, as `model.tables` entries, so that a generated
// model can be frozen, edited table by table, or handed to a script. Pruned tables are written
// as they were before pruning, with their `prune_fraction` (trace/table_pruning.hpp), so that
// loading the list prunes them again to the same tables. Numbers are written in the shortest
// form that reads back to the same double: a scenario whose `generate:` block is replaced by the
// written list loads the same tables, bit for bit.
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "shardsim/model/embedding_table.hpp"

namespace shardsim {

// YAML: the lines of `header` as comments ("# " each), then `tables:` and one flow mapping a
// table, e.g. `  - {name: "gen0", rows: 5150000, dim: 64, pooling: 9.2, alpha: 1.05}`. Keys
// equal to their defaults (alpha 1, q 0, no heavy hitters) are left out. `prune_fraction` is
// written for every table (0 included) when some table is pruned or the model's own
// `prune_fraction` (`model_prune_fraction`, DlrmModel::prune_fraction) is above 0, for none
// otherwise, so that the list means the same under any `model.prune_fraction`.
std::string tables_yaml(std::span<const EmbeddingTable> tables, double model_prune_fraction,
                        std::string_view header);

// JSON: an array of objects with the same keys as the YAML entries (for scripts).
nlohmann::ordered_json tables_json(std::span<const EmbeddingTable> tables,
                                   double model_prune_fraction);

}  // namespace shardsim
