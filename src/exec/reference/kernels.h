// The reference backend's kernel registry and the context a kernel runs in.
//
// One kernel per op-table entry, `Status run_<Kind>(KernelContext&)`, defined in the file
// of its op family (conv.cpp, gemm.cpp, ... mirroring src/ops/); a missing kernel is a
// link error. Kernels are plain loops over dense row-major fp32 (Tensor::data) or int64
// (Tensor::ints) tensors; output shapes and element types are the ones shape inference
// recorded in the graph, and a kernel writes every element of every output it allocates.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "rooflens/exec/tensor.h"
#include "rooflens/ops/op_hooks.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::ref {

// Parameters are read from the node's descriptor (ir/op_desc.h), which shape inference
// filled with its defaults and checks; errors name the node as shape inference does.
class KernelContext : public InferContext {
 public:
  KernelContext(Graph& g, NodeId id, std::vector<const Tensor*> inputs, std::vector<Tensor>* outputs, uint64_t seed)
      : InferContext(g, id), in_(std::move(inputs)), out_(outputs), seed_(seed) {}

  // A present input (check has_input first for optional ones).
  const Tensor& in(size_t i) const {
    ROOFLENS_ASSERT(i < in_.size() && in_[i] != nullptr);
    return *in_[i];
  }
  // Whether output i exists in the graph (optional outputs may be omitted).
  bool has_out(size_t i) const { return i < num_outputs() && node().outputs[i] != kNoValue; }
  const Value& out_value(size_t i) const { return graph().value(node().outputs.at(i)); }
  // Allocates output i, zero-filled, with its inferred shape; integer and bool element
  // types are held as int64 in Tensor::ints, floating-point types as fp32 in Tensor::data.
  Tensor& alloc_out(size_t i) {
    ROOFLENS_ASSERT(i < out_->size());
    Tensor& t = (*out_)[i];
    t = Tensor{};
    if (!has_out(i)) return t;
    const Value& v = out_value(i);
    t.shape = v.shape.value_or(Shape{});
    const auto n = static_cast<size_t>(t.numel());
    if (dtype_is_integer(v.dtype) || v.dtype == DType::kBool) {
      t.dtype = DType::kI64;
      t.ints.assign(n, 0);
    } else {
      t.dtype = DType::kF32;
      t.data.assign(n, 0.0f);
    }
    return t;
  }
  // The node's descriptor of family D (shape inference set it; asserts that it did).
  template <typename D>
  const D& desc() const {
    const D* d = std::get_if<D>(&node().desc);
    ROOFLENS_ASSERT(d != nullptr);
    return *d;
  }
  // Seed for contents generated at run time (a Constant whose data was stripped).
  uint64_t seed() const { return seed_; }

 private:
  std::vector<const Tensor*> in_;
  std::vector<Tensor>* out_;
  uint64_t seed_;
};

#define ROOFLENS_X(kind, name, family, cat) Status run_##kind(KernelContext& ctx);
ROOFLENS_OP_LIST(ROOFLENS_X)
#undef ROOFLENS_X

// Dispatch through the op table (kind must not be kUnknown).
Status run_kernel(OpKind kind, KernelContext& ctx);

// ---- helpers shared by the family files ----------------------------------------------

inline bool is_int(const Tensor& t) { return t.dtype == DType::kI64; }

// Row-major strides of a shape (in elements).
inline std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Coordinates of a row-major flat index.
inline void unravel(int64_t flat, const Shape& s, std::vector<int64_t>* coords) {
  coords->resize(s.size());
  for (size_t i = s.size(); i-- > 0;) {
    (*coords)[i] = s[i] == 0 ? 0 : flat % s[i];
    flat = s[i] == 0 ? 0 : flat / s[i];
  }
}

// Element i as a double, whatever the storage.
inline double elem(const Tensor& t, int64_t i) {
  return is_int(t) ? static_cast<double>(t.ints[static_cast<size_t>(i)])
                   : static_cast<double>(t.data[static_cast<size_t>(i)]);
}

// Integer contents (shape operands: axes, pads, sizes...), converting float storage.
inline std::vector<int64_t> int_contents(const Tensor& t) {
  if (is_int(t)) return t.ints;
  std::vector<int64_t> v;
  v.reserve(t.data.size());
  for (float f : t.data) v.push_back(static_cast<int64_t>(f));
  return v;
}

// dst[di] = src[si], converting between int64 and fp32 storage when they differ.
inline void copy_elem(const Tensor& src, int64_t si, Tensor* dst, int64_t di) {
  const auto s = static_cast<size_t>(si), d = static_cast<size_t>(di);
  if (is_int(*dst))
    dst->ints[d] = is_int(src) ? src.ints[s] : static_cast<int64_t>(src.data[s]);
  else
    dst->data[d] = is_int(src) ? static_cast<float>(src.ints[s]) : src.data[s];
}

// dst[i] = src[src_index(i)] for every element of dst.
template <typename F>
void copy_mapped(const Tensor& src, Tensor* dst, F src_index) {
  const int64_t n = dst->numel();
  if (is_int(src) != is_int(*dst)) {
    for (int64_t i = 0; i < n; ++i) copy_elem(src, src_index(i), dst, i);
  } else if (is_int(src)) {
    for (int64_t i = 0; i < n; ++i) dst->ints[static_cast<size_t>(i)] = src.ints[static_cast<size_t>(src_index(i))];
  } else {
    for (int64_t i = 0; i < n; ++i) dst->data[static_cast<size_t>(i)] = src.data[static_cast<size_t>(src_index(i))];
  }
}

// Checks that an input is held in fp32 storage (float kernels); the error names the input.
inline Status require_float_tensor(const KernelContext& ctx, size_t i, const char* what) {
  if (is_int(ctx.in(i)))
    return ctx.unsupported(what,
                           "the reference backend computes this op on floating-point "
                           "tensors only, got an integer tensor");
  return Status::ok();
}

// A sliding window (Conv, MaxPool, AveragePool) over r spatial dims, pads resolved
// (auto_pad applied) by shape inference (the node's WindowDesc).
struct Window {
  Shape in, out;                                          // spatial dims of input and output
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: r begins then r ends

  struct Tap {
    int64_t k;                    // flat kernel index
    int64_t offset;               // flat offset in the input's spatial dims
    std::vector<int64_t> coords;  // input spatial coordinates
  };
  // The kernel positions of output position `o` (flat over `out`) that fall inside the
  // input, and how many fall inside the padded input [-pad_begin, in + pad_end).
  void taps(int64_t o, std::vector<Tap>* taps, int64_t* in_padded) const {
    const size_t r = in.size();
    std::vector<int64_t> oc, kc;
    unravel(o, out, &oc);
    const Shape ks(kernel.begin(), kernel.end());
    const int64_t kn = [&] {
      int64_t n = 1;
      for (int64_t k : kernel) n *= k;
      return n;
    }();
    const std::vector<int64_t> ist = strides_of(in);
    taps->clear();
    *in_padded = 0;
    for (int64_t k = 0; k < kn; ++k) {
      unravel(k, ks, &kc);
      bool inside = true, padded = true;
      Tap t{k, 0, std::vector<int64_t>(r)};
      for (size_t d = 0; d < r; ++d) {
        const int64_t ic = oc[d] * strides[d] - pads[d] + kc[d] * dilations[d];
        if (ic < 0 || ic >= in[d]) inside = false;
        if (ic < -pads[d] || ic >= in[d] + pads[d + r]) padded = false;
        t.coords[d] = ic;
        t.offset += ic * ist[d];
      }
      if (padded) ++*in_padded;
      if (inside) taps->push_back(std::move(t));
    }
  }
};

// The window of a Conv/MaxPool/AveragePool node (its WindowDesc) over input shape `x`
// ([N, C, spatial...]) and output shape `y`. Defined in conv.cpp.
Window make_window(const KernelContext& ctx, const Shape& x, const Shape& y);

}  // namespace rooflens::ref
