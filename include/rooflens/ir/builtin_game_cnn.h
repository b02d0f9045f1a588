// The FoldedCNNs "game" CNN: the specialized classifier the FoldedCNNs paper (Kosaian et
// al., ICML 2021) uses as its arithmetic-intensity test vector (study.md section 3).
//
// Source: github.com/msr-fiddle/folded-cnns, models/game.py (class ConvN, template
// "1_3s_1_convnet") with config/lol/goldnumber-fraction/model_description.json:
// 22x52 RGB input, 11 classes, n-conv-units 1, conv1/convi 32 maps, convn 8 maps.
// Layers (every conv 3x3, pad 1, with bias, as nn.Conv2d's default):
//   conv1 3->32, ReLU, MaxPool k3 s2            22x52 -> 10x25
//   conv2 32->32, ReLU, conv3 32->32, ReLU, conv4 32->32, ReLU, MaxPool k3 s1   -> 8x23
//   conv5 32->8, ReLU, MaxPool k3 s2            -> 3x11
//   Flatten (264), Linear 264->11 (Gemm, transB=1, with bias)
// The folded versions are folded_cnn(build_game_cnn(N), {f}) (passes/folded_cnn.h): the
// paper's ConvN(fold=f) has the same layer widths (int(c * sqrt(f)) truncation).
#pragma once

#include <cstdint>

#include "rooflens/ir/graph.h"

namespace rooflens {

// The game CNN at batch `batch` (input "images" [batch, 3, 22, 52] fp32, output "lin.out"
// [batch, 11]); shapes are not inferred (run infer_shapes). Weights have no data.
Graph build_game_cnn(int64_t batch);

}  // namespace rooflens
