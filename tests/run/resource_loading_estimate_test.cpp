// The resource guard before a document is loaded (run/resource_loading_estimate.hpp): the terms
// against hand counts, and the refusals at model.tables and at the file.
#include "shardsim/run/resource_loading_estimate.hpp"

#include <gtest/gtest.h>

#include <string>

namespace shardsim {
namespace {

YamlDocumentCount listing(std::uint64_t tables) {
  // `{name: tN, rows: 1000, dim: 16, pooling: 2}`: 9 nodes and ~30 B of scalars a table.
  YamlDocumentCount c;
  c.input_bytes = 55 * tables;
  c.written_nodes = c.expanded_nodes = 9 * tables;
  c.written_bytes = c.expanded_bytes = 30 * tables;
  c.lists.push_back({"model.tables", tables, SourceLocation{"many.yaml", 7, 5}});
  return c;
}

TEST(ResourceLoadingEstimate, TextNodesCanonicalTextAndListedTables) {
  // 500,000 tables: 27.5 MB of text, 4.5e6 nodes x 500 B = 2.25 GB, the canonical text
  // 2 x (15 MB + 2 x 4.5e6) = 48 MB, the tables 500,000 x 250 B = 125 MB.
  const ResourceEstimate e = loading_estimate(listing(500000));
  EXPECT_DOUBLE_EQ(e.total_bytes, 27.5e6 + 2.25e9 + 48e6 + 125e6);
  ASSERT_EQ(e.items.size(), 4u);
  EXPECT_EQ(e.items[0].what, "YAML nodes: 4.5e+06 x 500 B");
  EXPECT_DOUBLE_EQ(e.items[0].bytes, 2.25e9);
}

TEST(ResourceLoadingEstimate, RefusedAtTheListedTablesOrAtTheFile) {
  const MemoryLimit limit{100e6, "--max-memory 100M"};
  EXPECT_NO_THROW(check_loading(listing(2000), limit, "many.yaml"));  // ~10 MB
  EXPECT_NO_THROW(check_loading(listing(500000), MemoryLimit{0, "none"}, "many.yaml"));
  try {
    check_loading(listing(500000), limit, "many.yaml");
    ADD_FAILURE() << "2.45 GB against 100 MB";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().to_string(), "many.yaml:7:5");
    EXPECT_EQ(e.key(), "model.tables");
    EXPECT_NE(
        std::string(e.what()).find("lists 500000 tables: loading the scenario would need "
                                   "about 2.45 GB of memory, more than the limit of 100.0 MB"),
        std::string::npos)
        << e.what();
  }
  YamlDocumentCount file_only;
  file_only.input_bytes = 200000000;
  file_only.events_counted = false;
  try {
    check_loading(file_only, limit, "big.yaml");
    ADD_FAILURE() << "200 MB of text against 100 MB";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "--max-memory");
    EXPECT_NE(std::string(e.what()).find("the file holds 200.0 MB of text"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shardsim
