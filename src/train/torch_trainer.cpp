// The LibTorch half of the training oracle (trainer.h): a torch module interpreting the IR
// graph node by node, and the training and test loops. The only translation unit that
// includes LibTorch (it takes about half a minute to compile).
#include <torch/torch.h>
#include <torch/version.h>

#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "rooflens/passes/infer_shapes.h"
#include "rooflens/train/trainer.h"

namespace rooflens::train {
namespace {

constexpr double kPi = 3.14159265358979323846;
const char* const kSupportedOps = "Conv, BatchNormalization, Relu, Add, AveragePool, GlobalAveragePool, Flatten, Gemm";

const char* auto_pad_name(AutoPad a) {
  switch (a) {
    case AutoPad::kSameUpper: return "SAME_UPPER";
    case AutoPad::kSameLower: return "SAME_LOWER";
    case AutoPad::kValid: return "VALID";
    default: return "NOTSET";
  }
}

Status refuse(const Node& n, const std::string& why) {
  return Status::unsupported(fmt::format("cannot train {} node '{}': {}", n.op_type, n.name, why));
}

// One node of the graph as the module runs it.
struct Step {
  OpKind kind = OpKind::kUnknown;
  std::vector<ValueId> in;  // activation inputs only
  ValueId out = kNoValue;
  size_t module = 0;                         // index into convs_/bns_/linears_ for Conv/BatchNormalization/Gemm
  std::vector<int64_t> kernel, stride, pad;  // AveragePool
  int64_t axis = 1;                          // Flatten
};

// Pads [begin..., end...] (ONNX order) as one symmetric padding per spatial axis, or nullopt.
std::optional<std::vector<int64_t>> symmetric_pads(const std::vector<int64_t>& pads, size_t spatial) {
  if (pads.empty()) return std::vector<int64_t>(spatial, 0);
  if (pads.size() != 2 * spatial) return std::nullopt;
  std::vector<int64_t> p(spatial);
  for (size_t i = 0; i < spatial; ++i) {
    if (pads[i] != pads[i + spatial]) return std::nullopt;
    p[i] = pads[i];
  }
  return p;
}

class IrNetImpl : public torch::nn::Module {
 public:
  // Builds the modules; errors are returned by build(), so the constructor only stores.
  Status build(const Graph& g) {
    if (g.inputs.size() != 1 || g.outputs.size() != 1)
      return Status::invalid(
          fmt::format("graph '{}': the trainer needs exactly one input and one output, it has {} "
                      "and {}",
                      g.name, g.inputs.size(), g.outputs.size()));
    input_ = g.inputs[0];
    output_ = g.outputs[0];
    num_values_ = g.values.size();
    auto order = g.topo_order();
    if (!order) return order.status();
    for (NodeId id : *order) {
      const Node& n = g.node(id);
      if (n.outputs.size() != 1)
        return refuse(n, fmt::format("{} outputs (the trainer handles one)", n.outputs.size()));
      if (n.inputs.empty() || n.inputs[0] == kNoValue) return refuse(n, "no input");
      Step s;
      s.kind = n.kind;
      s.out = n.outputs[0];
      const std::string mname = module_name(n.name);
      auto weight_shape = [&](size_t i) -> std::optional<Shape> {
        if (i >= n.inputs.size() || n.inputs[i] == kNoValue) return std::nullopt;
        return g.value(n.inputs[i]).shape;
      };
      switch (n.kind) {
        case OpKind::kConv: {
          auto w = weight_shape(1);
          if (!w || w->size() != 4)
            return refuse(n, "the weight (input 1) needs a 4-D shape [cout, cin/group, kh, kw]");
          const auto* win = std::get_if<WindowDesc>(&n.desc);
          if (!win || win->rank() != 2) return refuse(n, "shape inference did not resolve a 2-D window");
          if (win->auto_pad != AutoPad::kNotSet)
            return refuse(n, std::string("auto_pad=") + auto_pad_name(win->auto_pad) + " (only explicit pads)");
          auto pads = symmetric_pads(win->pads, 2);
          if (!pads) return refuse(n, "asymmetric pads");
          const int64_t group = win->groups;
          const bool bias = n.inputs.size() > 2 && n.inputs[2] != kNoValue;
          auto opts = torch::nn::Conv2dOptions((*w)[1] * group, (*w)[0], {(*w)[2], (*w)[3]})
                          .stride(win->strides)
                          .padding(*pads)
                          .dilation(win->dilations)
                          .groups(group)
                          .bias(bias);
          s.module = convs_.size();
          convs_.push_back(register_module(mname, torch::nn::Conv2d(opts)));
          s.in = {n.inputs[0]};
          break;
        }
        case OpKind::kBatchNormalization: {
          auto c = weight_shape(1);
          if (!c || c->size() != 1) return refuse(n, "the scale (input 1) needs a 1-D shape [C]");
          // ONNX momentum m keeps m of the running value; torch's momentum is the new share.
          const auto* nd = std::get_if<NormDesc>(&n.desc);
          if (!nd) return refuse(n, "shape inference did not resolve its parameters");
          auto opts = torch::nn::BatchNorm2dOptions((*c)[0]).eps(nd->epsilon).momentum(1.0 - nd->momentum);
          s.module = bns_.size();
          bns_.push_back(register_module(mname, torch::nn::BatchNorm2d(opts)));
          s.in = {n.inputs[0]};
          break;
        }
        case OpKind::kGemm: {
          auto w = weight_shape(1);
          if (!w || w->size() != 2) return refuse(n, "the weight (input 1) needs a 2-D shape");
          const auto* gd = std::get_if<GemmDesc>(&n.desc);
          if (!gd) return refuse(n, "shape inference did not resolve its parameters");
          if (gd->trans_a) return refuse(n, "transA=1");
          if (gd->alpha != 1.0 || gd->beta != 1.0) return refuse(n, "alpha or beta other than 1");
          const bool trans_b = gd->trans_b;
          const int64_t in = trans_b ? (*w)[1] : (*w)[0], out = trans_b ? (*w)[0] : (*w)[1];
          const bool bias = n.inputs.size() > 2 && n.inputs[2] != kNoValue;
          s.module = linears_.size();
          linears_.push_back(register_module(mname, torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias))));
          s.in = {n.inputs[0]};
          break;
        }
        case OpKind::kRelu:
        case OpKind::kGlobalAveragePool: s.in = {n.inputs[0]}; break;
        case OpKind::kAdd:
          if (n.inputs.size() != 2) return refuse(n, "Add needs two inputs");
          s.in = {n.inputs[0], n.inputs[1]};
          break;
        case OpKind::kAveragePool: {
          const auto* win = std::get_if<WindowDesc>(&n.desc);
          if (!win || win->rank() != 2) return refuse(n, "kernel_shape must have 2 entries");
          s.kernel = win->kernel;
          s.stride = win->strides;
          auto pads = symmetric_pads(win->pads, 2);
          if (!pads) return refuse(n, "asymmetric pads");
          s.pad = *pads;
          if (win->ceil_mode) return refuse(n, "ceil_mode=1");
          if (win->auto_pad != AutoPad::kNotSet)
            return refuse(n, std::string("auto_pad=") + auto_pad_name(win->auto_pad));
          count_include_pad_.push_back(win->count_include_pad);
          s.module = count_include_pad_.size() - 1;
          s.in = {n.inputs[0]};
          break;
        }
        case OpKind::kFlatten:
          if (const auto* ad = std::get_if<AxisDesc>(&n.desc))
            s.axis = ad->axis;  // normalised
          else
            return refuse(n, "shape inference did not resolve its axis");
          s.in = {n.inputs[0]};
          break;
        default: return refuse(n, std::string("the trainer builds only ") + kSupportedOps);
      }
      for (ValueId v : s.in)
        if (v == kNoValue || g.value(v).kind == ValueKind::kInitializer)
          return refuse(n, "an activation input is missing or a stored constant");
      steps_.push_back(std::move(s));
    }
    return Status::ok();
  }

  // BatchNorm running statistics recomputed as the exact average over `x` (training-mode
  // passes in batches of `batch`, no gradient); the momentum is restored afterwards.
  void recalibrate_batchnorm(const torch::Tensor& x, int64_t batch) {
    torch::NoGradGuard no_grad;
    std::vector<c10::optional<double>> momentum;
    for (auto& bn : bns_) {
      momentum.push_back(bn->options.momentum());
      bn->options.momentum(c10::nullopt);  // cumulative average over the batches seen
      bn->reset_running_stats();
    }
    train(true);
    for (int64_t lo = 0; lo < x.size(0); lo += batch) forward(x.slice(0, lo, std::min(x.size(0), lo + batch)));
    for (size_t i = 0; i < bns_.size(); ++i) bns_[i]->options.momentum(momentum[i]);
  }

  torch::Tensor forward(const torch::Tensor& x) {
    std::vector<torch::Tensor> v(num_values_);
    v[static_cast<size_t>(input_)] = x;
    auto at = [&](ValueId id) -> const torch::Tensor& { return v[static_cast<size_t>(id)]; };
    for (const Step& s : steps_) {
      torch::Tensor y;
      switch (s.kind) {
        case OpKind::kConv: y = convs_[s.module]->forward(at(s.in[0])); break;
        case OpKind::kBatchNormalization: y = bns_[s.module]->forward(at(s.in[0])); break;
        case OpKind::kGemm: y = linears_[s.module]->forward(at(s.in[0])); break;
        case OpKind::kRelu: y = torch::relu(at(s.in[0])); break;
        case OpKind::kAdd: y = at(s.in[0]) + at(s.in[1]); break;
        case OpKind::kGlobalAveragePool: y = at(s.in[0]).mean({2, 3}, /*keepdim=*/true); break;
        case OpKind::kAveragePool:
          y = torch::avg_pool2d(at(s.in[0]), s.kernel, s.stride, s.pad, /*ceil_mode=*/false,
                                count_include_pad_[s.module]);
          break;
        case OpKind::kFlatten: {
          const torch::Tensor& t = at(s.in[0]);
          int64_t lead = 1;
          for (int64_t d = 0; d < s.axis && d < t.dim(); ++d) lead *= t.size(d);
          y = t.reshape({lead, -1});
          break;
        }
        default: break;  // refused by build()
      }
      v[static_cast<size_t>(s.out)] = std::move(y);
    }
    return v[static_cast<size_t>(output_)];
  }

 private:
  // torch module names may not contain '.'.
  static std::string module_name(const std::string& node) {
    std::string s = node;
    for (char& c : s)
      if (c == '.') c = '_';
    return s;
  }

  ValueId input_ = kNoValue, output_ = kNoValue;
  size_t num_values_ = 0;
  std::vector<Step> steps_;
  std::vector<torch::nn::Conv2d> convs_;
  std::vector<torch::nn::BatchNorm2d> bns_;
  std::vector<torch::nn::Linear> linears_;
  std::vector<bool> count_include_pad_;
};

// The module reads each node's descriptor (kernel, strides, pads...), which shape inference
// resolves (ops/); a graph straight from a builder has none yet, so it is inferred on a copy.
Expected<std::shared_ptr<IrNetImpl>> build_net(const Graph& g) {
  Graph resolved = g;
  if (auto r = infer_shapes(resolved); !r) return r.status();
  auto net = std::make_shared<IrNetImpl>();
  Status s = net->build(resolved);
  if (!s) return s;
  return net;
}

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Fisher-Yates with splitmix64 of (seed, epoch): the same on every platform.
std::vector<int64_t> epoch_order(int64_t n, uint64_t seed, int epoch) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  uint64_t state = seed ^ (0xd1b54a32d192ed03ULL * static_cast<uint64_t>(epoch + 1));
  for (int64_t i = n - 1; i > 0; --i) {
    const uint64_t bound = static_cast<uint64_t>(i + 1);
    const uint64_t limit = ~uint64_t{0} - ~uint64_t{0} % bound;  // rejection: no modulo bias
    uint64_t r;
    do r = splitmix64(state);
    while (r >= limit);
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(r % bound)]);
  }
  return p;
}

// The first n images as normalised floats [n, 1, rows, cols] and labels [n] (int64).
std::pair<torch::Tensor, torch::Tensor> to_tensors(const ImageDataset& d, int64_t n, double mean, double stdev) {
  auto bytes = torch::from_blob(const_cast<uint8_t*>(d.pixels.data()), {n, 1, d.rows, d.cols}, torch::kUInt8);
  auto x = (bytes.to(torch::kFloat32) / 255.0 - mean) / stdev;
  auto y = torch::from_blob(const_cast<uint8_t*>(d.labels.data()), {n}, torch::kUInt8).to(torch::kInt64);
  return {x.contiguous(), y};
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Status trainer_status() { return Status::ok(); }

bool trainer_available() { return true; }

std::string trainer_versions() {
  return fmt::format("rooflens {}, LibTorch {}.{}.{}", ROOFLENS_VERSION, TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                     TORCH_VERSION_PATCH);
}

Expected<int64_t> torch_param_count(const Graph& net) {
  try {
    auto m = build_net(net);
    if (!m) return m.status();
    int64_t n = 0;
    for (const auto& p : (*m)->parameters()) n += p.numel();
    return n;
  } catch (const c10::Error& e) {
    return Status::internal(fmt::format("LibTorch: {}", e.what_without_backtrace()));
  }
}

Expected<TrainResult> train_and_evaluate(const Graph& net, const ImageDataset& train_set, const ImageDataset& test_set,
                                         const TrainRecipe& recipe, uint64_t seed) {
  ROOFLENS_RETURN_IF_ERROR(validate_recipe(recipe));
  const int64_t n_train = recipe.train_subset > 0 ? recipe.train_subset : train_set.count;
  const int64_t n_test = recipe.test_subset > 0 ? recipe.test_subset : test_set.count;
  if (n_train > train_set.count)
    return Status::invalid(
        fmt::format("train subset {} is larger than {} ({} images)", n_train, train_set.source, train_set.count));
  if (n_test > test_set.count)
    return Status::invalid(
        fmt::format("test subset {} is larger than {} ({} images)", n_test, test_set.source, test_set.count));
  if (test_set.rows != train_set.rows || test_set.cols != train_set.cols)
    return Status::invalid(fmt::format("{} has {}x{} images but {} has {}x{}", train_set.source, train_set.rows,
                                       train_set.cols, test_set.source, test_set.rows, test_set.cols));
  if (net.inputs.size() == 1) {
    const auto& shape = net.value(net.inputs[0]).shape;
    if (!shape || shape->size() != 4 || (*shape)[1] != 1 || (*shape)[2] != train_set.rows ||
        (*shape)[3] != train_set.cols)
      return Status::invalid(fmt::format("graph '{}': input {} does not take the data's 1 x {} x {} images", net.name,
                                         shape ? shape_str(*shape) : std::string("without a shape"), train_set.rows,
                                         train_set.cols));
  }
  const int64_t classes = std::max(train_set.classes, test_set.classes);
  try {
    torch::set_num_threads(recipe.threads);
    torch::manual_seed(seed);
    const auto t0 = std::chrono::steady_clock::now();
    auto built = build_net(net);
    if (!built) return built.status();
    std::shared_ptr<IrNetImpl> model = *built;

    // Normalisation: the mean and standard deviation of the training images used.
    double sum = 0, sum2 = 0;
    const size_t n_px = static_cast<size_t>(n_train * train_set.rows * train_set.cols);
    for (size_t i = 0; i < n_px; ++i) {
      const double v = train_set.pixels[i] / 255.0;
      sum += v;
      sum2 += v * v;
    }
    const double mean = sum / static_cast<double>(n_px);
    const double stdev = std::sqrt(std::max(1e-12, sum2 / static_cast<double>(n_px) - mean * mean));
    auto [x_train, y_train] = to_tensors(train_set, n_train, mean, stdev);

    torch::optim::SGD opt(
        model->parameters(),
        torch::optim::SGDOptions(recipe.lr).momentum(recipe.momentum).nesterov(true).weight_decay(recipe.weight_decay));
    const int64_t steps_per_epoch = (n_train + recipe.batch - 1) / recipe.batch;
    const int64_t total_steps = steps_per_epoch * recipe.epochs;
    int64_t step = 0;
    double last_epoch_loss = 0;
    model->train();
    for (int epoch = 0; epoch < recipe.epochs; ++epoch) {
      const std::vector<int64_t> order = epoch_order(n_train, seed, epoch);
      auto index = torch::from_blob(const_cast<int64_t*>(order.data()), {n_train}, torch::kInt64);
      double loss_sum = 0;
      for (int64_t b = 0; b < steps_per_epoch; ++b, ++step) {
        const double lr = 0.5 * recipe.lr * (1.0 + std::cos(kPi * static_cast<double>(step) / total_steps));
        for (auto& group : opt.param_groups()) static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
        const int64_t lo = b * recipe.batch, hi = std::min(n_train, lo + recipe.batch);
        auto idx = index.slice(0, lo, hi);
        auto xb = x_train.index_select(0, idx), yb = y_train.index_select(0, idx);
        opt.zero_grad();
        auto loss = torch::nn::functional::cross_entropy(model->forward(xb), yb);
        loss.backward();
        opt.step();
        loss_sum += loss.item<double>() * static_cast<double>(hi - lo);
      }
      last_epoch_loss = loss_sum / static_cast<double>(n_train);
    }
    if (recipe.bn_recalibration > 0)
      model->recalibrate_batchnorm(x_train.slice(0, 0, std::min(n_train, recipe.bn_recalibration)), recipe.batch);
    const double train_seconds = seconds_since(t0);

    const auto t1 = std::chrono::steady_clock::now();
    model->eval();
    torch::NoGradGuard no_grad;
    auto [x_test, y_test] = to_tensors(test_set, n_test, mean, stdev);
    int64_t correct = 0;
    // The training batch size: large batches of 28x28 activations only add cache misses.
    for (int64_t lo = 0; lo < n_test; lo += recipe.batch) {
      const int64_t hi = std::min(n_test, lo + recipe.batch);
      auto logits = model->forward(x_test.slice(0, lo, hi));
      if (logits.dim() != 2 || logits.size(1) < classes)
        return Status::invalid(fmt::format("graph '{}': output has shape {} but the data has {} classes", net.name,
                                           fmt::join(logits.sizes(), "x"), classes));
      correct += logits.argmax(1).eq(y_test.slice(0, lo, hi)).sum().item<int64_t>();
    }
    TrainResult r;
    r.eval_seconds = seconds_since(t1);
    r.train_seconds = train_seconds;
    r.accuracy = 100.0 * static_cast<double>(correct) / static_cast<double>(n_test);
    r.final_loss = last_epoch_loss;
    r.train_images = n_train;
    r.test_images = n_test;
    r.threads = torch::get_num_threads();
    r.recipe = recipe.describe();
    r.versions = trainer_versions();
    return r;
  } catch (const c10::Error& e) {
    return Status::internal(fmt::format("LibTorch, training graph '{}': {}", net.name, e.what_without_backtrace()));
  }
}

}  // namespace rooflens::train
