// The roofline chart (predict --roofline): its roofs, ridges, layer points and labels.
#include <gtest/gtest.h>

#include "rooflens/perf/model.h"
#include "rooflens/report/predict_report.h"
#include "test_util.h"

namespace rooflens {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(RooflineSvg, RoofsRidgesLayersAndLabels) {
  GraphBuilder b("cnn");
  ValueId x = b.input("x", {8, 3, 32, 32});
  x = b.add1("Relu", "relu0", {b.conv("conv0", x, 3, 32, 3)});
  x = b.add1("Relu", "relu1", {b.conv("conv1", x, 32, 32, 3)});
  b.output(x);
  Graph g = b.finish();
  ModelAnalysis m = test::analyze(g, DType::kF16);
  m.model = "cnn";
  auto d = resolve_device("custom:fp16=100e12,fp32=20e12,bw=1e12,mem=16e9,sms=80,name=Test GPU", {});
  ASSERT_TRUE(d) << d.status().message();
  PerfOptions po;
  po.dtype = "fp16";
  auto p = predict(g, m, *d, po);
  ASSERT_TRUE(p) << p.status().message();

  const std::string svg = report::roofline_svg(*p, *d);
  EXPECT_EQ(svg.rfind("<svg id=\"roofline\"", 0), 0u);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("Roofline: cnn on Test GPU, fp16, batch 8 (predicted)"), std::string::npos);
  size_t roofs = 0;
  for (const auto& pk : d->peaks) roofs += pk.dtype == "fp16";
  ASSERT_GE(roofs, 1u);
  EXPECT_EQ(count(svg, "<polyline class=\"roof\""), roofs);
  EXPECT_EQ(count(svg, "<g class=\"ridge\""), roofs);
  EXPECT_NE(svg.find("ridge 100 FLOP/B"), std::string::npos);  // 100e12 / 1e12
  size_t layers = 0;
  for (const auto& L : p->layers) layers += L.bound != Bound::kNone && L.ai > 0 && L.achieved_flops > 0;
  EXPECT_GE(layers, 2u);
  EXPECT_EQ(count(svg, "class=\"layer\""), layers);
  EXPECT_NE(svg.find("<title>conv1"), std::string::npos);  // hover text names the layer
  EXPECT_NE(svg.find("memory 1 TB/s"), std::string::npos);
  EXPECT_NE(svg.find("arithmetic intensity (FLOP/byte), log scale"), std::string::npos);
  EXPECT_NE(svg.find("bound (layer count)"), std::string::npos);
  EXPECT_NE(svg.find("img/s predicted"), std::string::npos);
}

}  // namespace
}  // namespace rooflens
