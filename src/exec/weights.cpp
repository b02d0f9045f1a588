// Deterministic contents for stored values (see weights.h): the file's data when present,
// otherwise numbers drawn from a generator seeded by the run seed and the value's name,
// with a range chosen by the value's role (what its consumers use it as).
#include "rooflens/exec/weights.h"

#include "reference/kernels.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string>

namespace rooflens {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Uniform in [lo, hi) from the raw 64-bit stream: std::uniform_real_distribution differs
// between standard libraries, and every backend on every platform must see the same numbers.
std::vector<float> uniform(const std::string& name, uint64_t seed, int64_t n, double lo, double hi) {
  std::mt19937_64 gen(splitmix64(seed ^ fnv1a(name)));
  std::vector<float> out(static_cast<size_t>(n));
  for (auto& v : out) {
    const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;
    v = static_cast<float>(lo + (hi - lo) * u);
  }
  return out;
}

struct Range {
  double lo = -0.5, hi = 0.5;
};

// The range for a use of `v` as input `i` of node `n`; nullopt when the use says nothing.
std::optional<Range> role_of_use(const Node& n, size_t i, const Shape& shape) {
  auto numel = checked_numel(shape).value_or(0);
  auto he = [](int64_t fan_in) {
    const double b = std::sqrt(6.0 / static_cast<double>(std::max<int64_t>(fan_in, 1)));
    return Range{-b, b};
  };
  switch (n.kind) {
    case OpKind::kBatchNormalization:
      if (i == 1 || i == 4) return Range{0.5, 1.5};
      if (i == 2 || i == 3) return Range{-0.1, 0.1};
      return std::nullopt;
    case OpKind::kLayerNormalization:
      if (i == 1) return Range{0.5, 1.5};
      if (i == 2) return Range{-0.1, 0.1};
      return std::nullopt;
    case OpKind::kConv:
      if (i == 1 && !shape.empty() && shape[0] > 0) return he(numel / shape[0]);
      if (i == 2) return Range{-0.1, 0.1};
      return std::nullopt;
    case OpKind::kGemm: {
      if (i == 2) return Range{-0.1, 0.1};
      if (i != 1 || shape.size() != 2) return std::nullopt;
      const auto* gd = std::get_if<GemmDesc>(&n.desc);
      return he(gd && gd->trans_b ? shape[1] : shape[0]);  // B is [N, K] or [K, N]
    }
    case OpKind::kMatMul:
      if (i != 1 || shape.empty()) return std::nullopt;
      return he(shape.size() == 1 ? shape[0] : shape[shape.size() - 2]);  // B is [.., K, N]
    default: return std::nullopt;
  }
}

// The role of `v`, looking through view ops (exporters alias weights with Identity/Reshape).
std::optional<Range> role_of(const Graph& g, ValueId v, int depth = 0) {
  const Value& val = g.value(v);
  for (NodeId c : val.consumers) {
    const Node& n = g.node(c);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] != v) continue;
      if (is_view_op(n.kind) && i == 0 && !n.outputs.empty() && n.outputs[0] != kNoValue && depth < 16) {
        if (auto r = role_of(g, n.outputs[0], depth + 1)) return r;
        continue;
      }
      if (val.shape)
        if (auto r = role_of_use(n, i, *val.shape)) return r;
    }
  }
  return std::nullopt;
}

Expected<Tensor> from_contents(const Value& v, const Shape& shape, int64_t numel) {
  Tensor t;
  t.shape = shape;
  const bool as_ints = dtype_is_integer(v.dtype) || v.dtype == DType::kBool;
  const size_t have = v.ints ? v.ints->size() : v.reals->size();
  if (static_cast<int64_t>(have) != numel)
    return Status::invalid("stored value '" + v.name + "' holds " + std::to_string(have) + " elements, its shape " +
                           shape_str(shape) + " needs " + std::to_string(numel));
  if (as_ints) {
    t.dtype = DType::kI64;
    if (v.ints)
      t.ints = *v.ints;
    else
      for (double d : *v.reals) t.ints.push_back(static_cast<int64_t>(d));
  } else {
    t.dtype = DType::kF32;
    if (v.reals)
      for (double d : *v.reals) t.data.push_back(static_cast<float>(d));
    else
      for (int64_t i : *v.ints) t.data.push_back(static_cast<float>(i));
  }
  return t;
}

}  // namespace

namespace {

// A value shape inference found computed from stored data alone (folded at load time): its
// producer's reference kernel run once on the producer's stored inputs, as an engine folds it
// when it loads the model, so that every backend sees the same tensor.
Expected<Tensor> computed_at_load(const Graph& g, ValueId id, uint64_t seed) {
  const NodeId pid = g.value(id).producer;
  const Node& p = g.node(pid);
  std::vector<Tensor> ins(p.inputs.size());
  std::vector<const Tensor*> ptrs(p.inputs.size(), nullptr);
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (p.inputs[i] == kNoValue) continue;
    auto t = stored_tensor(g, p.inputs[i], seed);
    if (!t) return t.status();
    ins[i] = std::move(*t);
    ptrs[i] = &ins[i];
  }
  std::vector<Tensor> outs(p.outputs.size());
  // Kernels read the graph only; the context's type is shared with shape inference.
  ref::KernelContext ctx(const_cast<Graph&>(g), pid, std::move(ptrs), &outs, seed);
  ROOFLENS_RETURN_IF_ERROR(
      ref::run_kernel(p.kind, ctx).with_context("computing stored value '" + g.value(id).name + "' at load"));
  for (size_t i = 0; i < p.outputs.size(); ++i)
    if (p.outputs[i] == id) return std::move(outs[i]);
  return Status::internal("stored value '" + g.value(id).name + "' is not an output of its producer");
}

}  // namespace

Expected<Tensor> stored_tensor(const Graph& g, ValueId id, uint64_t seed) {
  if (id < 0 || static_cast<size_t>(id) >= g.values.size())
    return Status::invalid("stored_tensor: value id " + std::to_string(id) + " is not in the graph");
  const Value& v = g.value(id);
  if (!v.shape) return Status::invalid("stored value '" + v.name + "' has no shape (run infer_shapes first)");
  auto numel = checked_numel(*v.shape);
  if (!numel) return Status::invalid("stored value '" + v.name + "': element count overflows");
  if (v.ints || v.reals) return from_contents(v, *v.shape, *numel);
  // A view of stored data holds the same elements as its source, in the same order.
  if (v.producer >= 0) {
    const Node& p = g.node(v.producer);
    if (is_view_op(p.kind) && !p.inputs.empty() && p.inputs[0] != kNoValue && g.value(p.inputs[0]).is_stored) {
      auto src = stored_tensor(g, p.inputs[0], seed);
      if (!src) return src.status();
      if (src->numel() != *numel)
        return Status::invalid("stored value '" + v.name + "' (" + shape_str(*v.shape) + ") is a view of '" +
                               g.value(p.inputs[0]).name + "' (" + shape_str(src->shape) +
                               ") with a different element count");
      src->shape = *v.shape;
      return src;
    }
  }
  if (v.producer >= 0 && g.node(v.producer).folded && op_info(g.node(v.producer).kind).category != OpCategory::kMeta)
    return computed_at_load(g, id, seed);
  if (dtype_is_integer(v.dtype) || v.dtype == DType::kBool)
    return Status::unsupported("stored integer value '" + v.name + "' (" + std::string(dtype_name(v.dtype)) +
                               ") has no data; only float weights can be generated");
  const Range r = role_of(g, id).value_or(Range{});
  Tensor t;
  t.shape = *v.shape;
  t.dtype = DType::kF32;
  t.data = uniform(v.name, seed, *numel, r.lo, r.hi);
  return t;
}

Tensor random_input(const Graph& g, ValueId id, uint64_t seed) {
  const Value& v = g.value(id);
  Tensor t;
  t.shape = v.shape.value_or(Shape{0});
  const int64_t n = t.numel();
  if (dtype_is_integer(v.dtype) || v.dtype == DType::kBool) {
    // Integer inputs are usually indices or ids: zeros are valid for every consumer.
    t.dtype = DType::kI64;
    t.ints.assign(static_cast<size_t>(n), 0);
    return t;
  }
  t.dtype = DType::kF32;
  t.data = uniform(v.name, seed, n, -1.0, 1.0);
  return t;
}

Status fold_batchnorm(const Graph& g, NodeId bn, uint64_t seed, Tensor* w, Tensor* bias) {
  const Node& n = g.node(bn);
  if (n.inputs.size() < 5) return Status::invalid("BatchNormalization node '" + n.name + "' has fewer than 5 inputs");
  Tensor t[4];
  for (int i = 0; i < 4; ++i) {
    auto s = stored_tensor(g, n.inputs[static_cast<size_t>(i) + 1], seed);
    if (!s) return s.status();
    t[i] = std::move(*s);
  }
  const auto* nd = std::get_if<NormDesc>(&n.desc);
  const double eps = nd ? nd->epsilon : 1e-5;
  const size_t m = static_cast<size_t>(w->shape[0]);
  for (const Tensor& p : t)
    if (p.data.size() != m)
      return Status::invalid("BatchNormalization node '" + n.name + "': parameters do not have " + std::to_string(m) +
                             " channels");
  const size_t per = w->data.size() / m;
  for (size_t o = 0; o < m; ++o) {
    const double s = t[0].data[o] / std::sqrt(static_cast<double>(t[3].data[o]) + eps);
    for (size_t i = 0; i < per; ++i) w->data[o * per + i] = static_cast<float>(w->data[o * per + i] * s);
    bias->data[o] = static_cast<float>((bias->data[o] - t[2].data[o]) * s + t[1].data[o]);
  }
  return Status::ok();
}

}  // namespace rooflens
