// Generated networks for the kernel table's in-network level (device/kernel_table.h,
// NetworkLevel): whole CNNs at 224x224 built in code, each in the style of a family the zoo
// has but of widths and depths no bundled model has, so that the zoo stays held out when the
// level is measured. Plain 3x3 stacks (VGG, one from 112x112 and one from 224x224), basic and bottleneck residual
// blocks (ResNet), grouped bottlenecks of 16 and of 96 channels per group (ResNeXt, RegNetX), inverted residuals with
// depthwise convolutions and ReLU6 (MobileNetV2), with SiLU, 5x5 depthwise and squeeze-excite (EfficientNet), split,
// concatenated and channel-shuffled units (ShuffleNetV2), dense blocks with concatenation (DenseNet), and a
// Vision Transformer's encoder (layer norms, matrix products over tokens, multi-head attention, GELU).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

struct LevelNetwork {
  std::string name;  // plain, plain_full, basic, bottleneck, grouped, grouped_wide, inverted, inverted_se, shuffle,
                     // dense, transformer
  Graph graph;       // input "x" [batch, 3, 224, 224], fp32; weights without data
};

// Every generated network at `batch` (deterministic).
std::vector<LevelNetwork> level_networks(int64_t batch);

}  // namespace rooflens
