// The per-layer loop of the performance model (perf/layer_sequence.h): the sequence an
// analysed graph fills, the L2 reuse it hands each layer, and that predict() is that loop.
#include <vector>

#include "rooflens/device/device.h"
#include "rooflens/perf/layer_sequence.h"
#include "rooflens/perf/model.h"
#include "test_util.h"

namespace rooflens {
namespace {

DeviceSpec custom(const std::string& spec) {
  auto d = resolve_device(spec, {});
  EXPECT_TRUE(d.has_value()) << d.status().message();
  return *d;
}

LayerWork costed(int64_t flops, int64_t bytes) {
  LayerWork w;
  w.costed = true;
  w.flops = flops;
  w.bytes = bytes;
  w.out_elems = bytes / 2;
  return w;
}

TEST(LayerSequence, HandsEachLayerTheBytesStillInL2) {
  // L2 of 4 MB: tensors written up to 2 MB ago (itself included) are still there.
  const DeviceSpec d = custom("custom:fp16=100e12,bw=1e12,mem=16e9,l2=4e6");
  PerfOptions o;
  auto lm = LayerModel::make(d, o, DType::kF16);
  ASSERT_TRUE(lm) << lm.status().message();
  LayerSequence s;
  s.add_layer(costed(1000, 3000), 1'000'000);  // 0 writes 1 MB
  s.add_layer(costed(1000, 3000), 500'000);    // 1 writes 0.5 MB
  s.add_input({0, 1'000'000});
  s.add_layer(LayerWork{}, 0);  // 2: not costed
  s.add_input({1, 500'000});
  s.add_layer(costed(1000, 3000), 900'000);  // 3 reads 0 (1 + 0.5 + 0 MB ago) and 1 (0.5 + 0 MB ago)
  s.add_input({0, 1'000'000});
  s.add_input({1, 500'000});
  s.add_layer(costed(1000, 3000), 10);  // 4 reads 0 again: 1 + 0.5 + 0 + 0.9 MB ago, evicted
  s.add_input({0, 1'000'000});
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s.inputs(3).size(), 2u);
  std::vector<int64_t> reused(s.size(), -1);
  const double total = time_layers(*lm, s, [&](size_t i, int64_t r) {
    reused[i] = r;
    return static_cast<double>(i + 1);
  });
  EXPECT_EQ(reused, (std::vector<int64_t>{0, 1'000'000, 0, 1'500'000, 0}));
  EXPECT_EQ(total, 1.0 + 2.0 + 4.0 + 5.0);  // layer 2 is not costed: not summed

  // A device without L2 reuses nothing.
  const DeviceSpec no_l2 = custom("custom:fp16=100e12,bw=1e12,mem=16e9");
  auto lm0 = LayerModel::make(no_l2, o, DType::kF16);
  ASSERT_TRUE(lm0);
  time_layers(*lm0, s, [&](size_t i, int64_t r) {
    EXPECT_EQ(r, 0) << i;
    return 0.0;
  });
}

TEST(LayerSequence, PredictIsTheLoopOverTheGraphsSequence) {
  // a -> b -> c, then Concat(a, c): the Concat reads a from two layers back.
  GraphBuilder b;
  ValueId x = b.input("x", {4, 64, 28, 28});
  ValueId a = b.conv("a", x, 64, 64, 3);
  ValueId c = b.conv("c", b.conv("b", a, 64, 64, 3), 64, 64, 3);
  b.output(b.add1("Concat", "cat", {a, c}, {{"axis", int64_t{1}}}));
  Graph g = b.finish();
  const ModelAnalysis m = test::analyze(g, DType::kF16);
  auto db = load_device_dir(std::string(ROOFLENS_SOURCE_DIR) + "/data/devices");
  ASSERT_TRUE(db) << db.status().message();
  auto d = resolve_device("v100", *db);
  ASSERT_TRUE(d);
  const PerfOptions o;

  const LayerSequence s = graph_layer_sequence(g, m);
  ASSERT_EQ(s.size(), m.layers.size());
  const size_t cat = s.size() - 1;
  ASSERT_EQ(s.inputs(cat).size(), 2u);
  EXPECT_EQ(s.inputs(cat)[0].bytes, 4 * 64 * 28 * 28 * 2);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s.bytes_out(i), m.layers[i].cost.bytes_out);

  auto lm = LayerModel::make(*d, o, m.dtype);
  ASSERT_TRUE(lm);
  const double total =
      time_layers(*lm, s, [&](size_t i, int64_t reused) { return lm->time(s.work(i), reused).time_s; });
  auto p = predict(g, m, *d, o);
  ASSERT_TRUE(p) << p.status().message();
  EXPECT_EQ(total, p->time_s);  // the same doubles, summed in the same order
}

}  // namespace
}  // namespace rooflens
