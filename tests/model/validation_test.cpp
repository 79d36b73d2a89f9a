#include "shardsim/model/validation.hpp"

#include <gtest/gtest.h>

namespace shardsim {
namespace {

EmbeddingTable good_table() {
  EmbeddingTable t;
  t.name = "item";
  t.rows = 1000;
  t.dim = 64;
  t.pooling.kind = PoolingSpec::Kind::fixed;
  t.pooling.value = 20;
  t.alpha = 0.9;
  t.q = 50;
  t.heavy_hitters = {0.004, 0.003};
  return t;
}

std::string key_of(const EmbeddingTable& t) {
  auto p = check_table(t);
  return p ? p->key : "";
}

TEST(Validation, GoodTablePasses) {
  EXPECT_FALSE(check_table(good_table()).has_value());
}

TEST(Validation, BadTableFieldsNameTheKey) {
  auto t = good_table();
  t.rows = 0;
  EXPECT_EQ(key_of(t), "rows");
  t = good_table();
  t.dim = 0;
  EXPECT_EQ(key_of(t), "dim");
  t = good_table();
  t.alpha = -0.1;
  EXPECT_EQ(key_of(t), "alpha");
  t = good_table();
  t.alpha = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(key_of(t), "alpha");
  t = good_table();
  t.q = -1;
  EXPECT_EQ(key_of(t), "q");
}

TEST(Validation, HeavyHitters) {
  auto t = good_table();
  t.heavy_hitters = {0.6, 0.5};
  EXPECT_EQ(key_of(t), "heavy_hitters");  // sums to 1.1
  t.heavy_hitters = {0.1, 0.2};
  auto p = check_table(t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->key, "heavy_hitters[1]");  // increasing
  EXPECT_FALSE(p->hint.empty());
  t.heavy_hitters = {0.1, -0.01};
  EXPECT_EQ(key_of(t), "heavy_hitters[1]");
  t.rows = 2;
  t.heavy_hitters = {0.5, 0.4};  // every row listed but mass 0.9
  EXPECT_EQ(key_of(t), "heavy_hitters");
  t.heavy_hitters = {0.6, 0.4};
  EXPECT_EQ(key_of(t), "");
  t.heavy_hitters = {0.5, 0.3, 0.2};  // more than rows
  EXPECT_EQ(key_of(t), "heavy_hitters");
}

TEST(Validation, Pooling) {
  PoolingSpec p;
  p.kind = PoolingSpec::Kind::fixed;
  p.value = -1;
  ASSERT_TRUE(check_pooling(p).has_value());
  EXPECT_EQ(check_pooling(p)->key, "value");

  p = {};
  p.kind = PoolingSpec::Kind::uniform;
  p.min = 1;
  p.max = 40;
  EXPECT_FALSE(check_pooling(p).has_value());
  p.max = 0.5;
  EXPECT_EQ(check_pooling(p)->key, "max");
  p.min = 5;
  p.max = 4;
  EXPECT_EQ(check_pooling(p)->key, "max");

  p = {};
  p.kind = PoolingSpec::Kind::lognormal;
  p.mean = 15;
  p.sigma = 0.5;
  EXPECT_FALSE(check_pooling(p).has_value());
  p.mean = 0;
  EXPECT_EQ(check_pooling(p)->key, "mean");
  p.mean = 15;
  p.sigma = -1;
  EXPECT_EQ(check_pooling(p)->key, "sigma");
  p.sigma = 1;
  p.min = 10;
  p.max = 5;
  EXPECT_EQ(check_pooling(p)->key, "min");

  p = {};
  p.kind = PoolingSpec::Kind::normal;
  p.mean = 3;
  p.sigma = std::numeric_limits<double>::infinity();
  EXPECT_EQ(check_pooling(p)->key, "sigma");

  p = {};
  p.kind = PoolingSpec::Kind::histogram;
  EXPECT_EQ(check_pooling(p)->key, "histogram");
  p.histogram = {{1, 0}, {2, 0}};
  EXPECT_EQ(check_pooling(p)->key, "histogram");
  p.histogram = {{1, 1}, {-2, 1}};
  EXPECT_EQ(check_pooling(p)->key, "histogram[1]");
}

TEST(Validation, TablePoolingKeyIsPrefixed) {
  auto t = good_table();
  t.pooling.kind = PoolingSpec::Kind::normal;
  t.pooling.mean = 5;
  t.pooling.sigma = -2;
  EXPECT_EQ(key_of(t), "pooling.sigma");
}

}  // namespace
}  // namespace shardsim
