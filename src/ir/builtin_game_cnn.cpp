// The FoldedCNNs game CNN (see builtin_game_cnn.h for the source and layer list).
#include "rooflens/ir/builtin_game_cnn.h"

#include <string>
#include <vector>

#include "rooflens/ir/graph_builder.h"

namespace rooflens {

Graph build_game_cnn(int64_t batch) {
  GraphBuilder b("game_cnn");
  ValueId x = b.input("images", {batch, 3, 22, 52});
  ConvSpec conv;
  conv.bias = true;
  conv.pad = 1;
  auto pool = [&](const std::string& name, ValueId in, int64_t stride) {
    return b.add1("MaxPool", name, {in},
                  {{"kernel_shape", std::vector<int64_t>{3, 3}},
                   {"strides", std::vector<int64_t>{stride, stride}},
                   {"pads", std::vector<int64_t>{0, 0, 0, 0}}});
  };
  auto conv_relu = [&](const std::string& name, ValueId in, int64_t cin, int64_t cout) {
    return b.add1("Relu", name + ".relu", {b.conv(name, in, cin, cout, 3, conv)});
  };
  x = conv_relu("conv1", x, 3, 32);
  x = pool("pool1", x, 2);
  x = conv_relu("conv2", x, 32, 32);
  x = conv_relu("conv3", x, 32, 32);
  x = conv_relu("conv4", x, 32, 32);
  x = pool("pool2", x, 1);
  x = conv_relu("conv5", x, 32, 8);
  x = pool("pool3", x, 2);
  x = b.add1("Flatten", "flatten", {x}, {{"axis", int64_t{1}}});
  ValueId y = b.add1("Gemm", "lin", {x, b.weight("lin.weight", {11, 264}), b.weight("lin.bias", {11})},
                     {{"transB", int64_t{1}}});
  b.output(y);
  return b.finish();
}

}  // namespace rooflens
