// The NATS-Bench size search space (SSS): 5 searchable channel widths, each one of
// {8, 16, ..., 64}, so 8^5 = 32768 networks. This file names them (index <-> arch string)
// and builds each one as a rooflens IR graph (shared/reference/nats-sss.md sections 1-2).
//
// Counting conventions (checked against the benchmark's stored numbers in
// tests/unit/sss_space_test.cpp):
//
// - Params. The benchmark counts every trainable parameter (torch `parameters()`): conv and
//   linear weights, the linear bias, and BatchNorm weight + bias (2 per channel); BN running
//   mean/var are buffers and do not count. This is exactly what count_params() counts on the
//   built graph (it skips BN inputs 3 and 4), so count_params(graph) equals the stored
//   `params` x 1e6 with no correction.
// - MACs. The benchmark's "flop" field is per image, in millions, and sums only Conv2d and
//   Linear modules: every conv (the stem, cell edges, the cell's 1x1 skip and the residual
//   block's 1x1 shortcut conv) counts k*k*Cin*Cout per output position, and the classifier
//   counts Cin*K plus K for its bias (the counter adds one per output element for a bias).
//   BN, ReLU, additions and pooling count 0 (a pooling hook is registered, but its count is
//   left out of the sum). rooflens' `macs` are the multiply-accumulates of Conv/Gemm only and
//   do not count biases, so benchmark flop = rooflens macs per image + K:
//   sss_benchmark_flop() applies that one correction. Convs here have no bias, so the
//   classifier bias is the only difference.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "rooflens/ir/graph.h"
#include "rooflens/util/status.h"

namespace rooflens {

inline constexpr int kSssNumLayers = 5;          // searchable widths per network
inline constexpr int kSssNumChoices = 8;         // candidate widths per layer
inline constexpr int64_t kSssSpaceSize = 32768;  // 8^5 networks, indices 0..32767
inline constexpr std::array<int64_t, kSssNumChoices> kSssWidthChoices = {8, 16, 24, 32, 40, 48, 56, 64};

// Widths c0..c4 of one network (stem/L0, L1, L2, L3, L4 in that order).
using SssWidths = std::array<int64_t, kSssNumLayers>;

// Index = sum over i of pos(c_i) * 8^(4-i), pos(8) = 0 ... pos(64) = 7; the first width is
// the most significant digit (0 = 8:8:8:8:8, 1 = 8:8:8:8:16, 32767 = 64:64:64:64:64).
// Precondition for the int64_t overloads: 0 <= index < kSssSpaceSize (asserted); check
// user-supplied indices with sss_index_valid() first.
bool sss_index_valid(int64_t index);
SssWidths sss_widths(int64_t index);
std::string sss_arch_string(int64_t index);            // "8:8:40:32:40"
std::string sss_arch_string(const SssWidths& widths);  // widths need not be valid choices

// Parses an arch string ("c0:c1:c2:c3:c4"). Invalid input names the bad token and the rule:
// a field count other than 5, a field that is not a decimal integer, or a width outside
// {8, 16, ..., 64}.
Expected<SssWidths> sss_parse_arch(const std::string& arch);
Expected<int64_t> sss_index(const std::string& arch);
// Invalid input if a width is not one of kSssWidthChoices.
Expected<int64_t> sss_index(const SssWidths& widths);

enum class SssDataset { kCifar10, kCifar100, kImageNet16_120 };

struct SssDatasetInfo {
  const char* name;    // the benchmark's dataset name: "cifar10", "cifar100", "ImageNet16-120"
  int64_t classes;     // 10, 100, 120
  int64_t image_size;  // square RGB input: 32, 32, 16
};

SssDatasetInfo sss_dataset_info(SssDataset dataset);
// Accepts the benchmark's names (and "cifar10-valid", which trains the same network);
// case-sensitive. Invalid input lists the accepted names.
Expected<SssDataset> sss_dataset_from_name(const std::string& name);

// The benchmark's per-image "flop" for a network whose rooflens MACs per image are
// `macs_per_image` (see the header comment): macs + the classifier's K bias additions.
int64_t sss_benchmark_flop(int64_t macs_per_image, SssDataset dataset);

// Builds the network for an arch string, input "x" [batch, 3, S, S] fp32 (S from the
// dataset), output "head.fc.out" [batch, K] logits:
//   stem  conv3x3 (pad 1, no bias) 3 -> c0, BN                      "stem.conv", "stem.bn"
//   L0    cell c0 -> c0                                               "L0.cell.*"
//   L1    residual block c0 -> c1, stride 2                           "L1.res.*"
//   L2    cell c1 -> c2                                               "L2.cell.*"
//   L3    residual block c2 -> c3, stride 2                           "L3.res.*"
//   L4    cell c3 -> c4                                               "L4.cell.*"
//   head  BN, ReLU, GlobalAveragePool, Flatten, Gemm with bias c4 -> K "head.*"
// A conv3 unit (ReLU -> conv3x3 pad 1 no bias -> BN) named P has nodes P.relu, P.conv,
// P.bn. Cell (input x0): x1 = conv3 "x1"(x0); x2 = conv3 "x2.a"(x0) + conv3 "x2.b"(x1)
// (add "x2.add"); x3 = skip(x0) + conv3 "x3.a"(x1) + conv3 "x3.b"(x2) (adds "x3.add0",
// "x3.add1"); skip is x0 itself when Cin == Cout, else conv1x1 "x3.skip.conv" (no bias) ->
// BN "x3.skip.bn" with no ReLU. Residual block: "a" = conv3 stride 2, "b" = conv3 stride 1
// on a's output, shortcut = AveragePool 2x2 stride 2 "shortcut.pool" -> conv1x1 no bias
// "shortcut.conv" (no BN, no ReLU), out = b + shortcut ("add"). Each conv3 unit has its
// own ReLU node, as each torch ReLUConvBN module applies its own (non-inplace) ReLU.
// Invalid input for a bad arch string (see sss_parse_arch) or batch < 1.
Expected<Graph> build_sss_network(const std::string& arch, SssDataset dataset, int64_t batch);
Expected<Graph> build_sss_network(const SssWidths& widths, SssDataset dataset, int64_t batch);

// The input a network is built for: `channels` x `image_size` x `image_size` images and
// `classes` logits. The benchmark's datasets are RGB (sss_net_input(dataset)); the training
// oracle (rooflens/train/train_oracle.h) builds the same network for Fashion-MNIST as
// {"fashion-mnist", 1, 28, 10}: only the stem conv's input channels (1 instead of 3, so
// 18 * c0 fewer weights) and the feature-map sizes (28/14/7 instead of 32/16/8) change;
// every block, node and name is the same.
struct SssNetInput {
  std::string name;         // dataset name, used in the graph's name
  int64_t channels = 3;     // >= 1
  int64_t image_size = 32;  // square; a positive multiple of 4, so that both stride-2 stages halve
                            // it exactly (conv3x3 stride 2 pad 1 and avgpool 2x2 agree in size)
  int64_t classes = 10;     // >= 1
};
SssNetInput sss_net_input(SssDataset dataset);
// Invalid input for bad widths or batch (as above), channels or classes < 1, or an image size
// that is not a positive multiple of 4.
Expected<Graph> build_sss_network(const SssWidths& widths, const SssNetInput& input, int64_t batch);

}  // namespace rooflens
