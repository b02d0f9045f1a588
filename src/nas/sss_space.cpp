// NATS-Bench size search space: naming and network construction (see sss_space.h).
#include "rooflens/nas/sss_space.h"

#include <charconv>
#include <vector>

#include "rooflens/ir/graph_builder.h"

namespace rooflens {
namespace {

// Position of `width` among kSssWidthChoices, or -1.
int width_position(int64_t width) {
  for (int i = 0; i < kSssNumChoices; ++i)
    if (kSssWidthChoices[static_cast<size_t>(i)] == width) return i;
  return -1;
}

std::string choices_text() {
  std::string s;
  for (size_t i = 0; i < kSssWidthChoices.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(kSssWidthChoices[i]);
  }
  return s;
}

std::vector<std::string> split_fields(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char ch : s) {
    if (ch == sep)
      out.emplace_back();
    else
      out.back() += ch;
  }
  return out;
}

// Emits the network into a GraphBuilder. Holds the builder and the current spatial size so
// that the block helpers stay short.
class SssNetBuilder {
 public:
  explicit SssNetBuilder(std::string name) : b_(std::move(name)) {}

  GraphBuilder& builder() { return b_; }

  // ReLU -> conv3x3 (pad 1, no bias) -> BN; nodes `<p>.relu`, `<p>.conv`, `<p>.bn`.
  ValueId conv3(const std::string& p, ValueId x, int64_t cin, int64_t cout, int64_t stride) {
    ValueId r = b_.add1("Relu", p + ".relu", {x});
    ConvSpec spec;
    spec.stride = stride;
    spec.pad = 1;
    ValueId c = b_.conv(p + ".conv", r, cin, cout, 3, spec);
    return b_.batchnorm(p + ".bn", c, cout);
  }

  ValueId conv1x1(const std::string& name, ValueId x, int64_t cin, int64_t cout) {
    ConvSpec spec;
    spec.pad = 0;
    return b_.conv(name, x, cin, cout, 1, spec);
  }

  // The fixed cell (stride 1), Cin -> Cout.
  ValueId cell(const std::string& p, ValueId x0, int64_t cin, int64_t cout) {
    ValueId x1 = conv3(p + ".x1", x0, cin, cout, 1);
    ValueId x2 =
        b_.add1("Add", p + ".x2.add", {conv3(p + ".x2.a", x0, cin, cout, 1), conv3(p + ".x2.b", x1, cout, cout, 1)});
    ValueId skip = x0;
    if (cin != cout) skip = b_.batchnorm(p + ".x3.skip.bn", conv1x1(p + ".x3.skip.conv", x0, cin, cout), cout);
    ValueId s = b_.add1("Add", p + ".x3.add0", {skip, conv3(p + ".x3.a", x1, cout, cout, 1)});
    return b_.add1("Add", p + ".x3.add1", {s, conv3(p + ".x3.b", x2, cout, cout, 1)});
  }

  // The residual block (stride 2), Cin -> Cout.
  ValueId residual(const std::string& p, ValueId x, int64_t cin, int64_t cout) {
    ValueId a = conv3(p + ".a", x, cin, cout, 2);
    ValueId bb = conv3(p + ".b", a, cout, cout, 1);
    ValueId pool = b_.add1("AveragePool", p + ".shortcut.pool", {x},
                           {{"kernel_shape", std::vector<int64_t>{2, 2}},
                            {"strides", std::vector<int64_t>{2, 2}},
                            {"pads", std::vector<int64_t>{0, 0, 0, 0}}});
    ValueId sc = conv1x1(p + ".shortcut.conv", pool, cin, cout);
    return b_.add1("Add", p + ".add", {bb, sc});
  }

 private:
  GraphBuilder b_;
};

}  // namespace

bool sss_index_valid(int64_t index) { return index >= 0 && index < kSssSpaceSize; }

SssWidths sss_widths(int64_t index) {
  ROOFLENS_ASSERT(sss_index_valid(index));
  SssWidths w{};
  for (int i = kSssNumLayers - 1; i >= 0; --i) {
    w[static_cast<size_t>(i)] = kSssWidthChoices[static_cast<size_t>(index % kSssNumChoices)];
    index /= kSssNumChoices;
  }
  return w;
}

std::string sss_arch_string(int64_t index) { return sss_arch_string(sss_widths(index)); }

std::string sss_arch_string(const SssWidths& widths) {
  std::string s;
  for (size_t i = 0; i < widths.size(); ++i) {
    if (i) s += ':';
    s += std::to_string(widths[i]);
  }
  return s;
}

Expected<SssWidths> sss_parse_arch(const std::string& arch) {
  const std::vector<std::string> fields = split_fields(arch, ':');
  if (fields.size() != static_cast<size_t>(kSssNumLayers))
    return Status::invalid("NATS-SSS arch '" + arch + "': expected " + std::to_string(kSssNumLayers) +
                           " widths separated by ':', got " + std::to_string(fields.size()) + " field(s)");
  SssWidths w{};
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& f = fields[i];
    const std::string where = "NATS-SSS arch '" + arch + "': width " + std::to_string(i) + " '" + f + "'";
    int64_t v = 0;
    const char* end = f.data() + f.size();
    auto [ptr, ec] = std::from_chars(f.data(), end, v);
    if (f.empty() || ec != std::errc() || ptr != end) return Status::invalid(where + " is not a decimal integer");
    if (width_position(v) < 0) return Status::invalid(where + " is not one of " + choices_text());
    w[i] = v;
  }
  return w;
}

Expected<int64_t> sss_index(const SssWidths& widths) {
  int64_t index = 0;
  for (size_t i = 0; i < widths.size(); ++i) {
    const int pos = width_position(widths[i]);
    if (pos < 0)
      return Status::invalid("NATS-SSS width " + std::to_string(i) + " = " + std::to_string(widths[i]) +
                             " is not one of " + choices_text());
    index = index * kSssNumChoices + pos;
  }
  return index;
}

Expected<int64_t> sss_index(const std::string& arch) {
  auto w = sss_parse_arch(arch);
  if (!w) return w.status();
  return sss_index(*w);
}

SssDatasetInfo sss_dataset_info(SssDataset dataset) {
  switch (dataset) {
    case SssDataset::kCifar10: return {"cifar10", 10, 32};
    case SssDataset::kCifar100: return {"cifar100", 100, 32};
    case SssDataset::kImageNet16_120: return {"ImageNet16-120", 120, 16};
  }
  ROOFLENS_ASSERT(false);
  return {"", 0, 0};
}

Expected<SssDataset> sss_dataset_from_name(const std::string& name) {
  if (name == "cifar10" || name == "cifar10-valid") return SssDataset::kCifar10;
  if (name == "cifar100") return SssDataset::kCifar100;
  if (name == "ImageNet16-120") return SssDataset::kImageNet16_120;
  return Status::invalid("NATS-SSS dataset '" + name +
                         "' is not one of cifar10, cifar10-valid, cifar100, ImageNet16-120");
}

int64_t sss_benchmark_flop(int64_t macs_per_image, SssDataset dataset) {
  return macs_per_image + sss_dataset_info(dataset).classes;
}

Expected<Graph> build_sss_network(const std::string& arch, SssDataset dataset, int64_t batch) {
  auto w = sss_parse_arch(arch);
  if (!w) return w.status();
  return build_sss_network(*w, dataset, batch);
}

Expected<Graph> build_sss_network(const SssWidths& widths, SssDataset dataset, int64_t batch) {
  return build_sss_network(widths, sss_net_input(dataset), batch);
}

SssNetInput sss_net_input(SssDataset dataset) {
  const SssDatasetInfo info = sss_dataset_info(dataset);
  return {info.name, 3, info.image_size, info.classes};
}

Expected<Graph> build_sss_network(const SssWidths& widths, const SssNetInput& input, int64_t batch) {
  auto index = sss_index(widths);
  if (!index) return index.status();
  if (batch < 1)
    return Status::invalid("NATS-SSS network " + sss_arch_string(widths) + ": batch " + std::to_string(batch) +
                           " must be at least 1");
  if (input.channels < 1 || input.classes < 1)
    return Status::invalid("NATS-SSS network " + sss_arch_string(widths) + " for '" + input.name +
                           "': " + std::to_string(input.channels) + " input channels and " +
                           std::to_string(input.classes) + " classes: both must be at least 1");
  if (input.image_size < 4 || input.image_size % 4 != 0)
    return Status::invalid("NATS-SSS network " + sss_arch_string(widths) + " for '" + input.name + "': image size " +
                           std::to_string(input.image_size) +
                           " must be a positive multiple of 4 (two stride-2 stages halve it exactly)");
  std::string name = "nats_sss_" + std::to_string(*index) + "_" + input.name;

  SssNetBuilder nb(std::move(name));
  GraphBuilder& b = nb.builder();
  const auto c = [&](size_t i) { return widths[i]; };
  ValueId x = b.input("x", {batch, input.channels, input.image_size, input.image_size});

  ConvSpec stem;
  stem.pad = 1;
  x = b.batchnorm("stem.bn", b.conv("stem.conv", x, input.channels, c(0), 3, stem), c(0));
  x = nb.cell("L0.cell", x, c(0), c(0));
  x = nb.residual("L1.res", x, c(0), c(1));
  x = nb.cell("L2.cell", x, c(1), c(2));
  x = nb.residual("L3.res", x, c(2), c(3));
  x = nb.cell("L4.cell", x, c(3), c(4));

  x = b.add1("Relu", "head.relu", {b.batchnorm("head.bn", x, c(4))});
  x = b.add1("GlobalAveragePool", "head.gap", {x});
  x = b.add1("Flatten", "head.flatten", {x}, {{"axis", int64_t{1}}});
  ValueId fc_w = b.weight("head.fc.weight", {input.classes, c(4)});
  ValueId fc_b = b.weight("head.fc.bias", {input.classes});
  b.output(b.add1("Gemm", "head.fc", {x, fc_w, fc_b}, {{"transB", int64_t{1}}}));
  return b.finish();
}

}  // namespace rooflens
