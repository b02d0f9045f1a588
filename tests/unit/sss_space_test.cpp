// NATS-Bench size search space: index <-> arch string, bad arch strings, the built
// network's shapes, and its MACs and params against the benchmark's stored numbers.
#include "rooflens/nas/sss_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "test_util.h"

namespace rooflens {
namespace {

struct ArchIndex {
  int64_t index;
  const char* arch;
};

// Values from shared/reference/nats-sss.md section 1.
const ArchIndex kKnownIndices[] = {
    {0, "8:8:8:8:8"},      {1, "8:8:8:8:16"},        {11, "8:8:8:16:32"},
    {284, "8:8:40:32:40"}, {4681, "16:16:16:16:16"}, {32767, "64:64:64:64:64"},
};

// The benchmark's stored CIFAR-10 numbers (millions, 6 decimals; nats-sss.md section 2).
struct StoredCounts {
  const char* arch;
  double flop_m;
  double params_m;
};
const StoredCounts kStored[] = {
    {"8:8:8:8:8", 4.481114, 0.011714},
    {"8:8:8:16:32", 6.840650, 0.049202},
    {"8:8:40:32:40", 21.827994, 0.144834},
};

int64_t millions_to_count(double m) { return std::llround(m * 1e6); }

Graph build(const std::string& arch, SssDataset d = SssDataset::kCifar10, int64_t batch = 1) {
  auto g = build_sss_network(arch, d, batch);
  EXPECT_TRUE(g.has_value()) << g.status().message();
  return g.has_value() ? std::move(*g) : Graph{};
}

Shape out_shape(const Graph& g, const std::string& node) {
  auto v = g.find_value(node + ".out");
  EXPECT_TRUE(v.has_value()) << node;
  return v ? test::shape_of(g, *v) : Shape{};
}

bool has_node(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes)
    if (n.name == name) return true;
  return false;
}

// Closed forms written from nats-sss.md section 2, independent of the builder: MACs of every
// conv (stem, cell edges, cell 1x1 skip, residual 3x3s and 1x1 shortcut) and the classifier
// weights, per image; and trainable params (conv/linear weights, linear bias, BN 2 per channel).
int64_t conv_macs(int64_t k, int64_t cin, int64_t cout, int64_t hw) { return k * k * cin * cout * hw * hw; }

int64_t expected_macs(const SssWidths& c, int64_t s, int64_t classes) {
  auto cell = [](int64_t ci, int64_t co, int64_t hw) {
    int64_t m = 2 * conv_macs(3, ci, co, hw) + 3 * conv_macs(3, co, co, hw);
    if (ci != co) m += conv_macs(1, ci, co, hw);
    return m;
  };
  auto res = [](int64_t ci, int64_t co, int64_t hw) {  // hw: output size
    return conv_macs(3, ci, co, hw) + conv_macs(3, co, co, hw) + conv_macs(1, ci, co, hw);
  };
  return conv_macs(3, 3, c[0], s) + cell(c[0], c[0], s) + res(c[0], c[1], s / 2) + cell(c[1], c[2], s / 2) +
         res(c[2], c[3], s / 4) + cell(c[3], c[4], s / 4) + c[4] * classes;
}

int64_t expected_params(const SssWidths& c, int64_t classes) {
  auto conv3 = [](int64_t ci, int64_t co) { return 9 * ci * co + 2 * co; };  // conv + BN
  auto cell = [&](int64_t ci, int64_t co) {
    int64_t p = 2 * conv3(ci, co) + 3 * conv3(co, co);
    if (ci != co) p += ci * co + 2 * co;
    return p;
  };
  auto res = [&](int64_t ci, int64_t co) { return conv3(ci, co) + conv3(co, co) + ci * co; };
  return 9 * 3 * c[0] + 2 * c[0] + cell(c[0], c[0]) + res(c[0], c[1]) + cell(c[1], c[2]) + res(c[2], c[3]) +
         cell(c[3], c[4]) + 2 * c[4] + c[4] * classes + classes;
}

TEST(SssSpace, KnownIndicesRoundTrip) {
  for (const auto& [index, arch] : kKnownIndices) {
    EXPECT_EQ(sss_arch_string(index), arch) << index;
    auto i = sss_index(arch);
    ASSERT_TRUE(i.has_value()) << i.status().message();
    EXPECT_EQ(*i, index) << arch;
  }
}

TEST(SssSpace, EveryIndexRoundTrips) {
  for (int64_t i = 0; i < kSssSpaceSize; ++i) {
    auto back = sss_index(sss_arch_string(i));
    ASSERT_TRUE(back.has_value()) << back.status().message();
    ASSERT_EQ(*back, i);
  }
  EXPECT_FALSE(sss_index_valid(-1));
  EXPECT_FALSE(sss_index_valid(kSssSpaceSize));
}

TEST(SssSpace, BadArchStringsNameTheToken) {
  struct Case {
    const char* arch;
    const char* expect;
  };
  const Case cases[] = {
      {"8:8:8:8", "expected 5 widths separated by ':', got 4"},
      {"8:8:8:8:8:8", "got 6"},
      {"", "got 1"},
      {"8:8:12:8:8", "width 2 '12' is not one of 8, 16, 24, 32, 40, 48, 56, 64"},
      {"8:8:8:8:128", "width 4 '128' is not one of"},
      {"8:x:8:8:8", "width 1 'x' is not a decimal integer"},
      {"8::8:8:8", "width 1 '' is not a decimal integer"},
      {"8:8:8:8:8 ", "width 4 '8 ' is not a decimal integer"},
      {"8:8:-8:8:8", "width 2 '-8' is not one of"},
  };
  for (const Case& c : cases) {
    auto i = sss_index(c.arch);
    ASSERT_FALSE(i.has_value()) << c.arch;
    EXPECT_EQ(i.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(i.status().message().find(c.expect), std::string::npos) << i.status().message();
    auto g = build_sss_network(c.arch, SssDataset::kCifar10, 1);
    ASSERT_FALSE(g.has_value()) << c.arch;
    EXPECT_EQ(g.status().message(), i.status().message());
  }
  auto w = sss_index(SssWidths{8, 8, 8, 8, 9});
  ASSERT_FALSE(w.has_value());
  EXPECT_NE(w.status().message().find("width 4 = 9"), std::string::npos) << w.status().message();

  auto g = build_sss_network("8:8:8:8:8", SssDataset::kCifar10, 0);
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.status().message().find("batch 0 must be at least 1"), std::string::npos) << g.status().message();
}

TEST(SssSpace, Datasets) {
  EXPECT_EQ(sss_dataset_info(SssDataset::kCifar10).classes, 10);
  EXPECT_EQ(sss_dataset_info(SssDataset::kCifar100).classes, 100);
  EXPECT_EQ(sss_dataset_info(SssDataset::kImageNet16_120).classes, 120);
  EXPECT_EQ(sss_dataset_info(SssDataset::kCifar10).image_size, 32);
  EXPECT_EQ(sss_dataset_info(SssDataset::kCifar100).image_size, 32);
  EXPECT_EQ(sss_dataset_info(SssDataset::kImageNet16_120).image_size, 16);
  for (SssDataset d : {SssDataset::kCifar10, SssDataset::kCifar100, SssDataset::kImageNet16_120}) {
    auto back = sss_dataset_from_name(sss_dataset_info(d).name);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, d);
  }
  auto bad = sss_dataset_from_name("imagenet");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.status().message().find("'imagenet'"), std::string::npos);
}

// The benchmark's "flop" = Conv2d + Linear modules only, the Linear's bias counted as one
// per output; rooflens MACs leave biases out, so stored flop = MACs + K. Params need no
// correction: both count BN weight+bias and skip running statistics.
TEST(SssSpace, MatchesTheBenchmarksStoredCounts) {
  for (const StoredCounts& s : kStored) {
    SCOPED_TRACE(s.arch);
    Graph g = build(s.arch);
    ModelAnalysis m = test::analyze(g);
    ASSERT_TRUE(m.unknown_nodes.empty());
    ASSERT_TRUE(m.unresolved_nodes.empty());
    const SssWidths w = *sss_parse_arch(s.arch);
    // rooflens MACs: every conv including the 1x1 shortcut and skip, plus the classifier's
    // weights; nothing from pooling, BN, ReLU or additions.
    EXPECT_EQ(m.totals.macs, expected_macs(w, 32, 10));
    EXPECT_EQ(sss_benchmark_flop(m.totals.macs, SssDataset::kCifar10), millions_to_count(s.flop_m));
    EXPECT_EQ(m.totals.macs + 10, millions_to_count(s.flop_m));
    EXPECT_EQ(count_params(g), millions_to_count(s.params_m));
    EXPECT_EQ(count_params(g), expected_params(w, 10));
  }
}

TEST(SssSpace, ShapesAtEachStage) {
  struct Case {
    const char* arch;
    SssDataset dataset;
    int64_t batch;
  };
  for (const Case& c : {Case{"8:8:40:32:40", SssDataset::kCifar10, 1}, Case{"8:8:40:32:40", SssDataset::kCifar100, 2},
                        Case{"64:16:40:56:24", SssDataset::kImageNet16_120, 3}}) {
    SCOPED_TRACE(c.arch);
    Graph g = build(c.arch, c.dataset, c.batch);
    ModelAnalysis m = test::analyze(g);
    ASSERT_TRUE(m.unresolved_nodes.empty());
    const SssWidths w = *sss_parse_arch(c.arch);
    const SssDatasetInfo info = sss_dataset_info(c.dataset);
    const int64_t n = c.batch, s = info.image_size;
    ASSERT_EQ(g.inputs.size(), 1u);
    EXPECT_EQ(test::shape_of(g, g.inputs[0]), (Shape{n, 3, s, s}));
    EXPECT_EQ(out_shape(g, "stem.bn"), (Shape{n, w[0], s, s}));
    EXPECT_EQ(out_shape(g, "L0.cell.x3.add1"), (Shape{n, w[0], s, s}));
    EXPECT_EQ(out_shape(g, "L1.res.shortcut.pool"), (Shape{n, w[0], s / 2, s / 2}));
    EXPECT_EQ(out_shape(g, "L1.res.add"), (Shape{n, w[1], s / 2, s / 2}));
    EXPECT_EQ(out_shape(g, "L2.cell.x2.b.conv"), (Shape{n, w[2], s / 2, s / 2}));
    EXPECT_EQ(out_shape(g, "L2.cell.x3.add1"), (Shape{n, w[2], s / 2, s / 2}));
    EXPECT_EQ(out_shape(g, "L3.res.add"), (Shape{n, w[3], s / 4, s / 4}));
    EXPECT_EQ(out_shape(g, "L4.cell.x3.add1"), (Shape{n, w[4], s / 4, s / 4}));
    EXPECT_EQ(out_shape(g, "head.gap"), (Shape{n, w[4], 1, 1}));
    EXPECT_EQ(out_shape(g, "head.flatten"), (Shape{n, w[4]}));
    ASSERT_EQ(g.outputs.size(), 1u);
    EXPECT_EQ(test::shape_of(g, g.outputs[0]), (Shape{n, info.classes}));
    // The cell's skip is a 1x1 conv + BN only where the cell changes width.
    EXPECT_FALSE(has_node(g, "L0.cell.x3.skip.conv"));
    EXPECT_EQ(has_node(g, "L2.cell.x3.skip.conv"), w[1] != w[2]);
    EXPECT_EQ(has_node(g, "L4.cell.x3.skip.bn"), w[3] != w[4]);
    EXPECT_EQ(m.totals.macs, n * expected_macs(w, s, info.classes));
    EXPECT_EQ(count_params(g), expected_params(w, info.classes));
  }
}

TEST(SssSpace, NodeNamesSayWhereTheyAre) {
  Graph g = build("8:8:8:16:32");
  for (const char* name : {"stem.conv",
                           "stem.bn",
                           "L0.cell.x1.relu",
                           "L0.cell.x1.conv",
                           "L0.cell.x1.bn",
                           "L0.cell.x2.a.conv",
                           "L0.cell.x2.b.conv",
                           "L0.cell.x2.add",
                           "L0.cell.x3.a.conv",
                           "L0.cell.x3.b.conv",
                           "L0.cell.x3.add0",
                           "L0.cell.x3.add1",
                           "L1.res.a.relu",
                           "L1.res.a.conv",
                           "L1.res.b.bn",
                           "L1.res.shortcut.pool",
                           "L1.res.shortcut.conv",
                           "L1.res.add",
                           "L4.cell.x3.skip.conv",
                           "L4.cell.x3.skip.bn",
                           "head.bn",
                           "head.relu",
                           "head.gap",
                           "head.flatten",
                           "head.fc"})
    EXPECT_TRUE(has_node(g, name)) << name;
  // The residual shortcut has no BN or ReLU; the cell skip has no ReLU.
  EXPECT_FALSE(has_node(g, "L1.res.shortcut.bn"));
  EXPECT_FALSE(has_node(g, "L4.cell.x3.skip.relu"));
  int convs = 0;
  for (const Node& n : g.nodes) convs += n.op_type == "Conv";
  // stem 1 + cells 3 x 5 + the L4 skip 1 + residual blocks 2 x 3.
  EXPECT_EQ(convs, 1 + 15 + 1 + 6);
}

// MACs grow strictly with every width. Building and analysing one network takes about
// 0.6 ms (RelWithDebInfo, 2 shared cores), so the whole space would take ~20 s: instead 512
// base networks spread over the space, each against its 5 one-step-wider neighbours
// (2304 networks, 2240 pairs, about 1.5 s).
TEST(SssSpace, MacsAreMonotoneInEachWidth) {
  std::vector<int64_t> macs(kSssSpaceSize, -1);
  auto macs_of = [&](int64_t index) {
    int64_t& m = macs[static_cast<size_t>(index)];
    if (m < 0) {
      auto g = build_sss_network(sss_arch_string(index), SssDataset::kCifar10, 1);
      EXPECT_TRUE(g.has_value()) << g.status().message();
      m = test::analyze(*g).totals.macs;
      EXPECT_EQ(m, expected_macs(sss_widths(index), 32, 10)) << sss_arch_string(index);
    }
    return m;
  };
  constexpr int64_t kStep = 64;  // 512 bases: 0, 64, ... spread over the first widths
  int64_t pairs = 0;
  for (int64_t base = 0; base < kSssSpaceSize; base += kStep) {
    // Vary the two low digits too (a scrambled 0..63), so every layer takes every width.
    const int64_t index = base + (base / kStep * 37 + 11) % kStep;
    const SssWidths w = sss_widths(index);
    for (size_t layer = 0; layer < w.size(); ++layer) {
      if (w[layer] == kSssWidthChoices.back()) continue;
      SssWidths wider = w;
      wider[layer] += 8;
      const int64_t up = *sss_index(wider);
      ASSERT_LT(macs_of(index), macs_of(up)) << sss_arch_string(index) << " -> " << sss_arch_string(up);
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 1500);
}

}  // namespace
}  // namespace rooflens
