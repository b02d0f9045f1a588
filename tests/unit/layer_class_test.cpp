// Predicted against measured per layer class (analysis/validation.h): which roof names a
// layer's class, how a model's layers are summed per class and how models are summarized.
#include <gtest/gtest.h>

#include <algorithm>

#include "rooflens/analysis/validation.h"

namespace rooflens {
namespace {

LayerPrediction layer(const std::string& name, const std::string& cls, double t_compute, double t_memory,
                      Bound bound = Bound::kCompute) {
  LayerPrediction l;
  l.name = name;
  l.kernel_class = cls;
  l.t_compute = t_compute;
  l.t_memory = t_memory;
  l.time_s = std::max(t_compute, t_memory);
  l.bound = bound;
  return l;
}

TEST(LayerClass, ComputeBoundLayersByKernelClassMemoryBoundOnesAsMemory) {
  EXPECT_EQ(layer_class(layer("c", "gemm", 2, 1)), "gemm");
  EXPECT_EQ(layer_class(layer("d", "depthwise", 1, 3)), "memory");
  EXPECT_EQ(layer_class(layer("o", "other", 2, 1)), "");
  EXPECT_EQ(layer_class(layer("n", "gemm", 2, 1, Bound::kNone)), "");
}

TEST(LayerClass, TimesPerModelAndMedianRatioOverModels) {
  Prediction a;
  a.model = "a";
  a.layers = {layer("c1", "gemm", 2e-3, 1e-3), layer("c2", "gemm", 1e-3, 0), layer("add", "other", 0, 1e-3),
              layer("unmeasured", "gemm", 5e-3, 0)};
  // add is memory-bound; the unmeasured layer and one measured at 0 s are left out.
  auto ta = layer_class_times(a, {{"c1", 4e-3}, {"c2", 2e-3}, {"add", 3e-3}, {"unmeasured", 0.0}});
  ASSERT_EQ(ta.size(), 2u);
  EXPECT_EQ(ta[0].cls, "gemm");
  EXPECT_EQ(ta[0].layers, 2);
  EXPECT_DOUBLE_EQ(ta[0].predicted_s, 3e-3);
  EXPECT_DOUBLE_EQ(ta[0].measured_s, 6e-3);
  EXPECT_EQ(ta[1].cls, "memory");
  Prediction b;
  b.model = "b";
  b.layers = {layer("c", "gemm", 1e-3, 0)};
  auto tb = layer_class_times(b, {{"c", 1e-3}});
  std::vector<LayerClassTimes> all = ta;
  all.insert(all.end(), tb.begin(), tb.end());
  Prediction c = b;
  c.model = "c";
  auto tc = layer_class_times(c, {{"c", 5e-3}});
  all.insert(all.end(), tc.begin(), tc.end());
  const auto s = summarize_layer_classes(all);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].cls, "gemm");
  EXPECT_EQ(s[0].models, 3);
  EXPECT_EQ(s[0].layers, 4);
  EXPECT_DOUBLE_EQ(s[0].median_ratio, 2.0);  // ratios 2, 1, 5
  EXPECT_EQ(s[1].models, 1);
  EXPECT_DOUBLE_EQ(s[1].median_ratio, 3.0);
}

}  // namespace
}  // namespace rooflens
