// Views on the CUDA backend: strides of device values, reshapes without copies, the strided
// copy that materializes a view, and Transpose, Slice and Split as views of their input (no
// kernel runs; a consumer that needs a dense layout copies once, in value_as).
#include <algorithm>
#include <numeric>

#include "cuda_backend.h"

namespace rooflens::cuda {
namespace {

std::vector<int64_t> rowmajor_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

std::vector<int64_t> nhwc_strides(const Shape& s) {  // s = N, C, H, W
  return {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]};
}

// Equal strides wherever the dim has more than one element.
bool same_strides(const Shape& s, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t k = 0; k < s.size(); ++k)
    if (s[k] != 1 && a[k] != b[k]) return false;
  return true;
}

}  // namespace

std::vector<int64_t> strides_of(const DevValue& v) {
  if (!v.strides.empty()) return v.strides;
  if (v.shape.size() == 4 && v.nhwc) return nhwc_strides(v.shape);
  return rowmajor_strides(v.shape);
}

DevValue strided_view(void* ptr, const Shape& shape, Elem e, std::vector<int64_t> strides) {
  DevValue d{ptr, shape, e, false, {}};
  if (same_strides(shape, strides, rowmajor_strides(shape))) return d;
  if (shape.size() == 4 && same_strides(shape, strides, nhwc_strides(shape))) {
    d.nhwc = true;
    return d;
  }
  d.strides = std::move(strides);
  return d;
}

std::optional<std::vector<int64_t>> reshape_strides(const Shape& from, const std::vector<int64_t>& strides,
                                                    const Shape& to) {
  std::vector<int64_t> od, os;  // the source without its size-1 dims
  for (size_t k = 0; k < from.size(); ++k) {
    if (from[k] == 0) return std::nullopt;
    if (from[k] != 1) {
      od.push_back(from[k]);
      os.push_back(strides[k]);
    }
  }
  std::vector<int64_t> ns(to.size(), 1);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < to.size() && oi < od.size()) {
    int64_t np = to[ni], op = od[oi];
    while (np != op) {
      if (np < op) {
        if (nj >= to.size()) return std::nullopt;
        np *= to[nj++];
      } else {
        if (oj >= od.size()) return std::nullopt;
        op *= od[oj++];
      }
    }
    for (size_t ok = oi; ok + 1 < oj; ++ok)  // the merged source dims must be contiguous
      if (os[ok] != od[ok + 1] * os[ok + 1]) return std::nullopt;
    ns[nj - 1] = os[oj - 1];
    for (size_t nk = nj - 1; nk > ni; --nk) ns[nk - 1] = ns[nk] * to[nk];
    ni = nj++;
    oi = oj++;
  }
  if (oi < od.size()) return std::nullopt;
  return ns;
}

std::optional<std::vector<int64_t>> broadcast_strides(const Shape& s, const std::vector<int64_t>& strides,
                                                      const Shape& out) {
  if (s.size() > out.size() || strides.size() != s.size()) return std::nullopt;
  std::vector<int64_t> st(out.size(), 0);
  const size_t lead = out.size() - s.size();
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] != out[lead + k] && s[k] != 1) return std::nullopt;
    st[lead + k] = s[k] == 1 ? 0 : strides[k];
  }
  return st;
}

EwIteration collapse_iteration(const Shape& out, const std::vector<std::vector<int64_t>>& strides) {
  EwIteration it;
  it.strides.resize(strides.size());
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] == 1) continue;
    bool merge = !it.dims.empty();
    for (size_t o = 0; o < strides.size() && merge; ++o) merge = it.strides[o].back() == strides[o][k] * out[k];
    if (merge)
      it.dims.back() *= out[k];
    else
      it.dims.push_back(out[k]);
    for (size_t o = 0; o < strides.size(); ++o) {
      if (merge)
        it.strides[o].back() = strides[o][k];
      else
        it.strides[o].push_back(strides[o][k]);
    }
  }
  return it;
}

std::optional<size_t> collapsed_rank(const Shape& out, const std::vector<Shape>& operands) {
  std::vector<std::vector<int64_t>> st{rowmajor_strides(out)};
  for (const Shape& s : operands) {
    auto b = broadcast_strides(s, rowmajor_strides(s), out);
    if (!b) return std::nullopt;
    st.push_back(std::move(*b));
  }
  return collapse_iteration(out, st).dims.size();
}

Expected<DevValue> CudaBackend::dense(const DevValue& v) {
  if (v.strides.empty() && !(v.shape.size() == 4 && v.nhwc)) return v;
  auto p = alloc(static_cast<size_t>(checked_numel(v.shape).value_or(0)) * elem_bytes());
  if (!p) return p.status();
  DevValue out{*p, v.shape, v.elem, false, {}};
  ROOFLENS_RETURN_IF_ERROR(add_copy(v, out, "layout:view->dense"));
  return out;
}

Status CudaBackend::add_copy(const DevValue& src, const DevValue& dst, const std::string& impl) {
  if (src.shape != dst.shape)
    return Status::internal("copy between shapes " + shape_str(src.shape) + " and " + shape_str(dst.shape));
  if (src.elem != dst.elem) return Status::internal("copy between storage types");
  const std::vector<int64_t> ss = strides_of(src), ds = strides_of(dst);
  // Dims of more than one element, the destination's innermost last (coalesced writes).
  std::vector<size_t> order;
  for (size_t k = 0; k < src.shape.size(); ++k)
    if (src.shape[k] != 1) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ds[a] > ds[b]; });
  if (order.size() > static_cast<size_t>(kMaxCopyRank))
    return Status::unsupported("a copy over more than " + std::to_string(kMaxCopyRank) + " dims");
  CopyShape c;
  c.rank = std::max<int>(1, static_cast<int>(order.size()));
  c.dims[0] = 1;
  for (size_t k = 0; k < order.size(); ++k) {
    c.dims[k] = src.shape[order[k]];
    c.src_strides[k] = ss[order[k]];
    c.dst_strides[k] = ds[order[k]];
  }
  const void* xp = src.ptr;
  void* yp = dst.ptr;
  const CopyPlan plan = plan_strided_copy(c, src.elem == Elem::kF32 ? 4 : 2, xp, yp);
  add_step([=](cudaStream_t s) { return cuda_status(launch_strided_copy(plan, xp, yp, s), impl); }, impl);
  return Status::ok();
}

namespace {

Status transpose(CudaBackend& b, const Node& n) {
  const auto& perm = std::get<TransposeDesc>(n.desc).perm;
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  const std::vector<int64_t> st = strides_of(*x);
  std::vector<int64_t> out(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out[k] = st[static_cast<size_t>(perm[k])];
  b.set_value(n.outputs[0], strided_view(x->ptr, *b.graph().value(n.outputs[0]).shape, x->elem, std::move(out)));
  return Status::ok();
}

// The part of `x` that starts at `first` with extents `extent` and steps `step` (>= 1).
DevValue part_of(const DevValue& x, const std::vector<int64_t>& first, const std::vector<int64_t>& step,
                 const Shape& extent, size_t elem_bytes) {
  std::vector<int64_t> st = strides_of(x);
  int64_t offset = 0;
  for (size_t d = 0; d < st.size(); ++d) {
    offset += first[d] * st[d];
    st[d] *= step[d];
  }
  return strided_view(static_cast<char*>(x.ptr) + offset * static_cast<int64_t>(elem_bytes), extent, x.elem,
                      std::move(st));
}

Status slice(CudaBackend& b, const Node& n) {
  const auto& d = std::get<SliceDesc>(n.desc);
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  b.set_value(n.outputs[0], part_of(*x, d.first, d.step, *b.graph().value(n.outputs[0]).shape, b.elem_bytes()));
  return Status::ok();
}

Status split(CudaBackend& b, const Node& n) {
  const auto& d = std::get<AxisDesc>(n.desc);
  auto x = b.value(n.inputs[0]);
  if (!x) return x.status();
  const size_t r = x->shape.size(), a = static_cast<size_t>(d.axis);
  std::vector<int64_t> first(r, 0), step(r, 1);
  for (size_t i = 0; i < n.outputs.size() && i < d.split.size(); ++i) {
    Shape ext = x->shape;
    ext[a] = d.split[i];
    if (n.outputs[i] != kNoValue) b.set_value(n.outputs[i], part_of(*x, first, step, ext, b.elem_bytes()));
    first[a] += d.split[i];
  }
  return Status::ok();
}

}  // namespace

std::string view_node_refusal(const Graph& g, const Node& n) {
  switch (n.kind) {
    case OpKind::kTranspose: return {};
    case OpKind::kSlice: {
      for (int64_t s : std::get<SliceDesc>(n.desc).step)
        if (s < 1) return "Slice with a negative step (the CUDA backend's views take steps >= 1)";
      return {};
    }
    case OpKind::kSplit: {
      const auto& d = std::get<AxisDesc>(n.desc);
      if (d.split.size() < n.outputs.size()) return "Split whose part sizes are not known before run time";
      (void)g;
      return {};
    }
    default: return n.op_type + " is not a view";
  }
}

Status lower_view_node(CudaBackend& b, const Node& n) {
  switch (n.kind) {
    case OpKind::kTranspose: return transpose(b, n);
    case OpKind::kSlice: return slice(b, n);
    case OpKind::kSplit: return split(b, n);
    default: return Status::unsupported(n.op_type + " is not a view");
  }
}

}  // namespace rooflens::cuda
