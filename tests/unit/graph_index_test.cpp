// The IR's lookup structures: a node's attribute map (sorted flat vector) and the graph's
// value-name index (open addressing over ids).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {
namespace {

TEST(AttrMap, KeepsNamesSortedAndFindsThem) {
  AttrMap a;
  a.insert_or_assign("strides", std::vector<int64_t>{2, 2});
  a.insert_or_assign("group", int64_t{4});
  a.insert_or_assign("auto_pad", std::string("NOTSET"));
  std::vector<std::string> names;
  for (const auto& [name, value] : a) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"auto_pad", "group", "strides"}));
  ASSERT_NE(a.find("group"), a.end());
  EXPECT_EQ(std::get<int64_t>(a.find("group")->second), 4);
  EXPECT_EQ(a.find("pads"), a.end());
  EXPECT_EQ(a.find(""), a.end());
  EXPECT_EQ(a.count("strides"), 1u);
  EXPECT_EQ(a.size(), 3u);
}

TEST(AttrMap, AssignsOverAndDefaultsLikeStdMap) {
  AttrMap a;
  auto [it, inserted] = a.insert_or_assign("alpha", 0.5);
  EXPECT_TRUE(inserted);
  auto [it2, inserted2] = a.insert_or_assign("alpha", 0.25);
  EXPECT_FALSE(inserted2);
  EXPECT_EQ(std::get<double>(it2->second), 0.25);
  EXPECT_EQ(a.size(), 1u);
  // operator[] inserts a value-initialised variant (int 0), as std::map does.
  EXPECT_EQ(std::get<int64_t>(a["beta"]), 0);
  a["beta"] = int64_t{3};
  EXPECT_EQ(std::get<int64_t>(a.find("beta")->second), 3);
  EXPECT_EQ(a.size(), 2u);
}

TEST(AttrMap, BuildsFromListsAndMaps) {
  AttrMap from_list = {{"b", int64_t{1}}, {"a", int64_t{2}}, {"b", int64_t{3}}};  // first "b" kept
  ASSERT_EQ(from_list.size(), 2u);
  EXPECT_EQ(from_list.begin()->first, "a");
  EXPECT_EQ(std::get<int64_t>(from_list.find("b")->second), 1);
  std::map<std::string, AttrValue> m = {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"group", int64_t{2}}};
  Node n;
  n.attrs = m;
  EXPECT_EQ(std::get<int64_t>(n.attrs.find("group")->second), 2);
  EXPECT_EQ(std::get<std::vector<int64_t>>(n.attrs.find("kernel_shape")->second), (std::vector<int64_t>{3, 3}));
  EXPECT_TRUE(n.attrs.find("missing") == n.attrs.end());
}

Value named(std::string name) {
  Value v;
  v.name = std::move(name);
  return v;
}

TEST(GraphNameIndex, FindsEveryValueAcrossGrowth) {
  Graph g;
  EXPECT_FALSE(g.find_value("x"));
  const int n = 5000;
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(g.add_value(named("/layer" + std::to_string(i % 97) + "/block/Conv_output_" + std::to_string(i))), i);
  for (int i = 0; i < n; ++i) {
    auto id = g.find_value("/layer" + std::to_string(i % 97) + "/block/Conv_output_" + std::to_string(i));
    ASSERT_TRUE(id);
    EXPECT_EQ(*id, i);
  }
  EXPECT_FALSE(g.find_value("/layer0/block/Conv_output_"));
  EXPECT_FALSE(g.find_value(""));
  const Graph copy = g;  // ids, not pointers: a copy answers the same
  EXPECT_EQ(copy.find_value("/layer3/block/Conv_output_3"), std::optional<ValueId>(3));
}

TEST(GraphNameIndex, ShortAndEmptyNamesAndTheNewestOfTwins) {
  Graph g;
  const ValueId e = g.add_value(named(""));
  const ValueId a = g.add_value(named("a"));
  const ValueId eight = g.add_value(named("12345678"));
  EXPECT_EQ(g.find_value(""), std::optional<ValueId>(e));
  EXPECT_EQ(g.find_value("a"), std::optional<ValueId>(a));
  EXPECT_EQ(g.find_value("12345678"), std::optional<ValueId>(eight));
  EXPECT_FALSE(g.find_value("1234567"));
  const ValueId a2 = g.add_value(named("a"));  // the same name again: the newest wins
  EXPECT_EQ(g.find_value("a"), std::optional<ValueId>(a2));
}

}  // namespace
}  // namespace rooflens
