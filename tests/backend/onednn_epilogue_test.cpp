// The oneDNN backend's fused epilogues against the reference backend: activations, residuals
// and the exported patterns (SiLU, GELU, HardSwish before opset 14) as post-ops of the layer
// that produces their input.
#include "onednn_support.h"

namespace rooflens {
namespace {

TEST(OneDnn, ConvFamiliesWithFusedEpilogues) {
  GraphBuilder b;
  ValueId x = b.input("x", {2, 16, 15, 15});
  ValueId c1 =
      b.add1("Relu", "r1", {b.batchnorm("bn1", b.conv("c1", x, 16, 32, 3, {.stride = 2, .pad = 1, .bias = true}), 32)});
  ValueId dw = b.add1("Clip", "relu6",
                      {b.batchnorm("bn2", b.conv("dw", c1, 32, 32, 3, {.group = 32}), 32), b.reals("lo", {}, {0.0}),
                       b.reals("hi", {}, {6.0})});
  ValueId g4 = b.conv("g4", dw, 32, 32, 3, {.pad = 2, .group = 4, .dilation = 2});
  ValueId sig = b.add1("Sigmoid", "sig", {g4});
  ValueId swish = b.add1("Mul", "swish", {g4, sig});
  ValueId res = b.add1("Add", "res", {b.batchnorm("bn3", b.conv("pw", swish, 32, 32, 1), 32), c1});
  ValueId hs = b.add1("HardSwish", "hs", {res});
  b.output(b.add1("HardSigmoid", "hsig", {b.conv("last", hs, 32, 8, 1)}, {{"alpha", 1.0 / 6}, {"beta", 0.5}}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

// HardSwish as exported before opset 14, x * HardSigmoid(x; 1/6, 0.5), runs as one hardswish
// post-op of the convolution, on no reference kernel; a HardSigmoid of other constants times
// its input (ONNX's default alpha 0.2) is no HardSwish and still computes what it says.
TEST(OneDnn, HardSwishAsExportedBeforeOpset14) {
  for (double alpha : {1.0 / 6, 0.2}) {
    GraphBuilder b;
    ValueId x = b.input("x", {1, 16, 14, 14});
    ValueId c = b.conv("c", x, 16, 24, 3, {.pad = 1, .bias = true});
    ValueId hs = b.add1("HardSigmoid", "hsig", {c}, {{"alpha", alpha}, {"beta", 0.5}});
    b.output(b.add1("Mul", "hswish", {c, hs}));
    Graph g = b.finish();
    SCOPED_TRACE(alpha);
    if (alpha == 0.2) {
      EXPECT_MATCHES_REFERENCE(g);
      continue;
    }
    EXPECT_MATCHES_REFERENCE_WITHOUT_REF_KERNELS(g);
  }
}

TEST(OneDnn, GemmMatMulAndGelu) {
  GraphBuilder b;
  ValueId x = b.input("x", {3, 64});
  ValueId fc = b.add1("Gemm", "fc", {x, b.weight("w", {48, 64}), b.weight("bias", {48})}, {{"transB", int64_t{1}}});
  ValueId t = b.add1("Reshape", "tok", {fc, b.ints("shape", {3, 6, 8})});
  ValueId mm = b.add1("MatMul", "mm", {t, b.weight("w2", {8, 16})});
  ValueId bias = b.add1("Add", "mm.bias", {mm, b.weight("b2", {16})});
  ValueId div = b.add1("Div", "gelu.div", {bias, b.reals("sqrt2", {}, {1.4142135623730951})});
  ValueId erf = b.add1("Erf", "gelu.erf", {div});
  ValueId one = b.add1("Add", "gelu.add", {erf, b.reals("one", {}, {1.0})});
  ValueId mul = b.add1("Mul", "gelu.mul", {bias, one});
  ValueId half = b.add1("Mul", "gelu.half", {mul, b.reals("half", {}, {0.5})});
  ValueId ln = b.add1("LayerNormalization", "ln", {half, b.weight("ln.s", {16}), b.weight("ln.b", {16})},
                      {{"axis", int64_t{-1}}});
  ValueId act =
      b.add1("MatMul", "act", {ln, b.add1("Transpose", "tr", {ln}, {{"perm", std::vector<int64_t>{0, 2, 1}}})});
  b.output(b.add1("Softmax", "sm", {act}, {{"axis", int64_t{-1}}}));
  Graph g = b.finish();
  EXPECT_MATCHES_REFERENCE(g);
}

}  // namespace
}  // namespace rooflens
