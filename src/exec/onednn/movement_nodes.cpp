// Data movement and views of the oneDNN backend, one node each: Concat (with a host pass for
// channels of channels-last tensors, applying a BatchNormalization + ReLU that only reads it),
// Transpose (channel shuffle as a host pass), Slice and Split (channel slices of
// channels-last tensors as host copies, strided Slices as a host copy), Pad, the views
// (Reshape, Flatten, Squeeze, ...), Gather and Expand. Called by the layer dispatcher
// (nodes.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "epilogue.h"
#include "nodes_internal.h"
#include "rooflens/ir/patterns.h"
#include "rooflens/ops/shape_math.h"

namespace rooflens::onednn {

using dnnl::memory;

namespace {

// Channels-last generalised to rank r >= 4 with a split channel: dim 0 outermost, then the
// last two (spatial) dims, then dims 1..r-3 row-major innermost. Merging dims 1..r-3 of it
// gives acdb.
memory::desc md_split_channels_last(const Shape& s) {
  const size_t r = s.size();
  memory::dims st(r);
  int64_t acc = 1;
  for (size_t i = r - 2; i-- > 1;) {
    st[i] = acc;
    acc *= s[i];
  }
  st[r - 1] = acc;
  st[r - 2] = acc * s[r - 1];
  st[0] = st[r - 2] * s[r - 2];
  return memory::desc(memory::dims(s.begin(), s.end()), memory::data_type::f32, st);
}

// oneDNN's concat of `srcs` along `axis` into a new tensor of layout `dst_md`, as `out`.
Status onednn_concat(OneDnnBackend& b, ValueId out, const memory::desc& dst_md, int axis,
                     const std::vector<memory>& srcs) {
  std::vector<memory::desc> mds;
  for (const memory& m : srcs) mds.push_back(m.get_desc());
  dnnl::concat::primitive_desc pd(dst_md, axis, mds, b.engine());
  memory dst = b.new_buffer(pd.dst_desc());
  std::unordered_map<int, memory> args = {{DNNL_ARG_DST, dst}};
  for (size_t i = 0; i < srcs.size(); ++i) args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = srcs[i];
  dnnl::concat prim(pd);
  b.add_primitive(prim, args, pd.impl_info_str());
  b.set_mem(out, dst);
  return Status::ok();
}

// The BatchNormalization + ReLU that only reads this Concat (ir/patterns.h), when they form
// a layer of their own: its per-channel scale and shift (C of each) and the ReLU's output,
// and both nodes marked built; relu_out kNoValue otherwise.
struct NormRelu {
  ValueId relu_out = kNoValue;
  std::vector<float> scale_shift;
};
Expected<NormRelu> norm_relu_reading(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const NodeId bn_id = concat_feeding_norm_relu(g, static_cast<NodeId>(&n - g.nodes.data()));
  if (bn_id < 0) return NormRelu{};
  const Node& bn = g.node(bn_id);
  const NodeId relu_id = g.value(bn.outputs[0]).consumers[0];
  const std::vector<NodeId>& layer = b.layer_nodes_of(bn_id);
  if (layer != std::vector<NodeId>{bn_id, relu_id}) return NormRelu{};
  Tensor p[4];
  for (size_t i = 0; i < 4; ++i) {
    auto t = b.stored(bn.inputs[i + 1]);
    if (!t) return t.status();
    p[i] = std::move(*t);
  }
  const size_t C = static_cast<size_t>(shape_of(g, n.outputs[0])[1]);
  for (const Tensor& t : p)
    if (t.data.size() != C) return NormRelu{};
  const double eps = std::get<NormDesc>(bn.desc).epsilon;
  NormRelu r;
  r.scale_shift.resize(2 * C);
  for (size_t c = 0; c < C; ++c) {
    const double s = p[0].data[c] / std::sqrt(static_cast<double>(p[3].data[c]) + eps);
    r.scale_shift[c] = static_cast<float>(s);
    r.scale_shift[C + c] = static_cast<float>(p[1].data[c] - p[2].data[c] * s);
  }
  r.relu_out = g.node(relu_id).outputs[0];
  b.mark_built(bn_id);
  b.mark_built(relu_id);
  return r;
}

// Copies a strided view of `src` (dims/strides in elements, offset) into a new row-major tensor.
Status copy_view(OneDnnBackend& b, const memory& src, const memory::desc& view, const Shape& out_shape, ValueId out) {
  memory v(view, b.engine(), src.get_data_handle());
  memory dst = b.new_buffer(md_rowmajor(out_shape));
  b.add_reorder(v, dst);
  b.set_mem(out, dst);
  return Status::ok();
}

Status slice_like(OneDnnBackend& b, ValueId in, ValueId out, const std::vector<int64_t>& offsets) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, in);
  const Shape& ys = shape_of(g, out);
  auto cl = b.mem(in);
  if (!cl) return cl.status();
  if (xs.size() == 4 && cl->get_desc() == md_channels_last(xs) && offsets[0] == 0 && offsets[2] == 0 &&
      offsets[3] == 0 && ys[0] == xs[0] && ys[2] == xs[2] && ys[3] == xs[3]) {
    // A channel slice of a channels-last activation stays channels-last: per pixel, one
    // contiguous run of channels.
    memory s = *cl, dst = b.new_buffer(md_channels_last(ys));
    const int64_t C = xs[1], Cy = ys[1], c0 = offsets[1], pixels = xs[0] * xs[2] * xs[3];
    b.add_step(
        [s, dst, C, Cy, c0, pixels](dnnl::stream&) {
          const float* x = static_cast<const float*>(s.get_data_handle());
          float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
          for (int64_t p = 0; p < pixels; ++p)
            std::memcpy(y + p * Cy, x + p * C + c0, static_cast<size_t>(Cy) * sizeof(float));
        },
        "host:channel_slice", {s, dst});
    b.set_mem(out, dst);
    return Status::ok();
  }
  auto src = b.rowmajor(in);
  if (!src) return src.status();
  memory::desc sub =
      md_rowmajor(shape_of(g, in))
          .submemory_desc(memory::dims(ys.begin(), ys.end()), memory::dims(offsets.begin(), offsets.end()));
  return copy_view(b, *src, sub, ys, out);
}

// A host copy from the row-major input of `n` into a new row-major output: output element
// (i0, i1, ...) reads input element map[0][i0] + map[1][i1] + ..., each map[d] holding the
// input offset (index x row-major stride) that output index i_d reads along axis d. Strided
// Slices and non-constant Pads are such copies.
Status host_index_copy(OneDnnBackend& b, const Node& n, std::vector<std::vector<int64_t>> map,
                       const std::string& label) {
  const Shape& ys = shape_of(b.graph(), n.outputs[0]);
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  const size_t r = ys.size();
  const int64_t inner = r ? ys[r - 1] : 1, total = checked_numel(ys).value_or(0);
  const int64_t rows = inner > 0 ? total / inner : 0;
  memory s = *src, dst = b.new_buffer(md_rowmajor(ys));
  b.add_step(
      [s, dst, ys, map, inner, rows, r](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
        const std::vector<int64_t>& last = map[r - 1];
#pragma omp parallel for
        for (int64_t row = 0; row < rows; ++row) {
          int64_t rem = row, off = 0;
          for (size_t d = r - 1; d-- > 0;) {
            off += map[d][static_cast<size_t>(rem % ys[d])];
            rem /= ys[d];
          }
          for (int64_t i = 0; i < inner; ++i) y[row * inner + i] = x[off + last[static_cast<size_t>(i)]];
        }
      },
      label, {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

// A Slice with a step other than 1 on some dim (Swin's patch merging reads x[:, 0::2, 1::2, :]):
// output index i_d reads input index first_d + i_d x step_d, negative steps included.
Status strided_slice(OneDnnBackend& b, const Node& n, const SliceDesc& sd) {
  const Graph& g = b.graph();
  if (g.value(n.outputs[0]).dtype != DType::kF32) return Status::unsupported("strided Slice of a non-fp32 tensor");
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  std::vector<std::vector<int64_t>> map(ys.size());
  int64_t stride = 1;
  for (size_t d = ys.size(); d-- > 0;) {
    for (int64_t o = 0; o < ys[d]; ++o) map[d].push_back((sd.first[d] + o * sd.step[d]) * stride);
    stride *= xs[d];
  }
  return host_index_copy(b, n, std::move(map), "host:strided_slice");
}

// Reflect, edge and wrap Pads (TResNet's anti-aliased downsampling pads by reflection) as a
// host index copy, each axis through ops::pad_source_index.
Status pad_by_index(OneDnnBackend& b, const Node& n, const PadDesc& pd) {
  const Graph& g = b.graph();
  if (g.value(n.outputs[0]).dtype != DType::kF32) return Status::unsupported("non-constant Pad of a non-fp32 tensor");
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  std::vector<std::vector<int64_t>> map(ys.size());
  int64_t stride = 1;
  for (size_t d = ys.size(); d-- > 0;) {
    for (int64_t o = 0; o < ys[d]; ++o)
      map[d].push_back(ops::pad_source_index(pd.mode, o - pd.pads[d], xs[d]) * stride);
    stride *= xs[d];
  }
  return host_index_copy(b, n, std::move(map), "host:pad");
}

// Every operand is dense in one dimension order (channels-last at rank 4, row-major
// otherwise), so the output is, per index of the dimensions outside the axis in memory
// (`rows`), each input's contiguous run in turn: written front to back. oneDNN 2.6's concat
// reaches half the bandwidth on channels (DenseNet-121's concats at batch 32, 101 ms against
// ONNX Runtime's 39) and copies along an outer axis at under 1 GB/s at batch 1 (ViT's class
// token, Swin's shifted windows: 0.66-0.84 ms where a run of the same bytes takes 0.2).
Status host_concat(OneDnnBackend& b, const Node& n, const std::vector<memory>& srcs, const Shape& ys, int64_t axis) {
  const Graph& g = b.graph();
  memory dst = b.new_buffer(md_channels_last(ys));
  const int64_t inside = dst.get_desc().data.format_desc.blocking.strides[axis];  // elements per axis index
  std::vector<int64_t> widths;
  for (ValueId in : n.inputs) widths.push_back(shape_of(g, in)[static_cast<size_t>(axis)] * inside);
  const int64_t row = ys[static_cast<size_t>(axis)] * inside;  // elements per row of the output
  const int64_t rows = row > 0 ? static_cast<int64_t>(dst.get_desc().get_size() / sizeof(float)) / row : 0;
  std::vector<memory> touched = srcs;
  touched.push_back(dst);
  const bool channels = ys.size() == 4 && axis == 1;
  auto norm = channels ? norm_relu_reading(b, n) : Expected<NormRelu>(NormRelu{});
  if (!norm) return norm.status();
  // With a fused BatchNormalization + ReLU the concatenation itself is never written:
  // relu(x * scale + shift) per channel.
  const bool fused = norm->relu_out != kNoValue;
  b.add_step(
      [srcs, dst, widths, row, rows, ss = norm->scale_shift](dnnl::stream&) {
        std::vector<const float*> x;
        for (const memory& m : srcs) x.push_back(static_cast<const float*>(m.get_data_handle()));
        float* y = static_cast<float*>(dst.get_data_handle());
        const float* scale = ss.data();
        const float* shift = ss.empty() ? nullptr : ss.data() + row;
#pragma omp parallel for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
          float* out = y + r * row;
          int64_t off = 0;
          for (size_t i = 0; i < x.size(); ++i) {
            const float* a = x[i] + r * widths[i];
            const int64_t w = widths[i];
            if (!shift) {
              std::memcpy(out + off, a, static_cast<size_t>(w) * sizeof(float));
            } else {
#pragma omp simd
              for (int64_t c = 0; c < w; ++c) out[off + c] = std::max(0.0f, a[c] * scale[off + c] + shift[off + c]);
            }
            off += w;
          }
        }
      },
      fused      ? "host:channel_concat+bn_relu"
      : channels ? "host:channel_concat"
                 : "host:concat",
      touched);
  b.set_mem(fused ? norm->relu_out : n.outputs[0], dst);
  return Status::ok();
}

}  // namespace

Status concat(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& ys = shape_of(g, n.outputs[0]);
  const int64_t axis = std::get<AxisDesc>(n.desc).axis;  // normalised
  if (n.inputs.size() == 1) {                            // DenseNet's first layer of a block: the output is the input
    auto in = b.mem(n.inputs[0]);
    if (!in) return in.status();
    b.set_mem(n.outputs[0], *in);
    return Status::ok();
  }
  std::vector<memory> srcs;
  if (b.blocked() && ys.size() == 4 && axis == 1) {
    // Blocked inputs of whole 16-channel blocks: oneDNN's concat copies each input's blocks.
    bool all_blocked = true;
    for (ValueId in : n.inputs) {
      auto m = b.mem(in);
      if (!m) return m.status();
      all_blocked = all_blocked && m->get_desc() == md_blocked16(shape_of(g, in)) && shape_of(g, in)[1] % 16 == 0;
    }
    if (all_blocked) {
      for (ValueId in : n.inputs) srcs.push_back(*b.mem(in));
      return onednn_concat(b, n.outputs[0], md_blocked16(ys), 1, srcs);
    }
  }
  for (ValueId in : n.inputs) {
    auto m = b.as_desc(in, md_channels_last(shape_of(g, in)));
    if (!m) return m.status();
    srcs.push_back(*m);
  }
  return host_concat(b, n, srcs, ys, axis);
}

Expected<std::pair<memory, memory::dims>> plain_operand(OneDnnBackend& b, ValueId v) {
  auto m = b.mem(v);
  if (!m) return m.status();
  auto strides = plain_strides(m->get_desc());
  if (!strides) {
    m = b.rowmajor(v);
    if (!m) return m.status();
    strides = plain_strides(m->get_desc());
  }
  return std::make_pair(*m, *strides);
}

// Transpose reads its input in the layout it was produced in (any plain strided layout, e.g. a
// channel-split view of a channels-last activation) through a permuted strided view: one
// reorder. A rank >= 4 transpose that keeps dim 0 and the two spatial dims in place (channel
// shuffle) writes the split-channels-last layout, so the Reshape that merges the channels
// back is a free view of acdb; any other transpose writes row-major.
Status transpose(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  const std::vector<int64_t>& perm = std::get<TransposeDesc>(n.desc).perm;  // default applied
  auto plain = plain_operand(b, n.inputs[0]);
  if (!plain) return plain.status();
  const memory* src = &plain->first;
  const memory::dims* in_strides = &plain->second;
  memory::dims strides(ys.size());
  for (size_t i = 0; i < ys.size(); ++i) strides[i] = (*in_strides)[static_cast<size_t>(perm[i])];
  const size_t r = ys.size();
  const bool shuffle = r >= 4 && perm[0] == 0 && perm[r - 2] == static_cast<int64_t>(r - 2) &&
                       perm[r - 1] == static_cast<int64_t>(r - 1);
  memory dst = b.new_buffer(shuffle ? md_split_channels_last(ys) : md_rowmajor(ys));
  if (shuffle && r == 5 &&
      memory::desc(memory::dims(xs.begin(), xs.end()), memory::data_type::f32, *in_strides) ==
          md_split_channels_last(xs) &&
      perm[1] == 2 && perm[2] == 1) {
    // Channel shuffle of a channels-last activation: per pixel, a [G, Cg] -> [Cg, G]
    // transpose of its C contiguous channels (oneDNN's strided reorder is a slow generic one).
    const int64_t G = xs[1], Cg = xs[2], C = G * Cg, pixels = xs[0] * xs[3] * xs[4];
    memory s = *src;
    b.add_step(
        [s, dst, G, Cg, C, pixels](dnnl::stream&) {
          const float* x = static_cast<const float*>(s.get_data_handle());
          float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
          for (int64_t p = 0; p < pixels; ++p)
            for (int64_t g = 0; g < G; ++g)
              for (int64_t c = 0; c < Cg; ++c) y[p * C + c * G + g] = x[p * C + g * Cg + c];
        },
        "host:channel_shuffle", {s, dst});
    b.set_mem(n.outputs[0], dst);
    return Status::ok();
  }
  memory v(memory::desc(memory::dims(ys.begin(), ys.end()), memory::data_type::f32, strides), b.engine(),
           src->get_data_handle());
  b.add_reorder(v, dst);
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

Status slice(OneDnnBackend& b, const Node& n) {
  const auto& sd = std::get<SliceDesc>(n.desc);  // first index per dim, clamped
  for (int64_t s : sd.step)
    if (s != 1) return strided_slice(b, n, sd);
  return slice_like(b, n.inputs[0], n.outputs[0], sd.first);
}

Status split(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const int64_t axis = std::get<AxisDesc>(n.desc).axis;  // normalised
  int64_t at = 0;
  for (ValueId out : n.outputs) {
    if (out == kNoValue) continue;
    std::vector<int64_t> off(xs.size(), 0);
    off[static_cast<size_t>(axis)] = at;
    ROOFLENS_RETURN_IF_ERROR(slice_like(b, n.inputs[0], out, off));
    at += shape_of(g, out)[static_cast<size_t>(axis)];
  }
  return Status::ok();
}

Status pad(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape& xs = shape_of(g, n.inputs[0]);
  const Shape& ys = shape_of(g, n.outputs[0]);
  const auto& pd = std::get<PadDesc>(n.desc);
  if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) return Status::unsupported("Pad with axes");
  if (pd.mode != PadMode::kConstant) {
    for (int64_t p : pd.pads)
      if (p < 0) return Status::unsupported("negative pads (cropping)");
    return pad_by_index(b, n, pd);
  }
  if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) return Status::unsupported("Pad with axes");
  const std::vector<int64_t>& pads = pd.pads;  // every dim: begins then ends
  auto value = static_cast<float>(pd.value);
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    auto v = known_scalar(g, n.inputs[2]);
    if (!v) return Status::unsupported("Pad value not known");
    value = static_cast<float>(*v);
  }
  for (int64_t p : pads)
    if (p < 0) return Status::unsupported("negative pads (cropping)");
  if (xs == ys) {  // pads all 0: the output is the input, in whatever layout it has
    auto in = b.mem(n.inputs[0]);
    if (!in) return in.status();
    b.set_mem(n.outputs[0], *in);
    return Status::ok();
  }
  // A channels-last 4-D input keeps its layout: the pooling after the pad (Inception's
  // average pools) then runs on oneDNN's vector kernels, where a row-major input took its
  // plain nchw one at about 3x the time (docs/performance.md, issue 30, twenty-fifth pass).
  auto in = b.mem(n.inputs[0]);
  if (!in) return in.status();
  const bool channels_last = xs.size() == 4 && in->get_desc() == md_channels_last(xs);
  auto src = channels_last ? in : b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  const memory::desc out = channels_last ? md_channels_last(ys) : md_rowmajor(ys);
  memory dst = b.new_buffer(out);
  memory::desc sub = out.submemory_desc(memory::dims(xs.begin(), xs.end()),
                                        memory::dims(pads.begin(), pads.begin() + static_cast<long>(xs.size())));
  memory inner(sub, b.engine(), dst.get_data_handle());
  dnnl::reorder r(*src, inner);
  memory s = *src;
  const size_t count = static_cast<size_t>(checked_numel(ys).value_or(0));
  b.add_step(
      [r, s, inner, dst, count, value](dnnl::stream& st) mutable {
        float* p = static_cast<float*>(dst.get_data_handle());
        std::fill(p, p + count, value);
        r.execute(st, s, inner);
      },
      "reorder(pad)", {s, inner, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

// A view aliases its input without a copy when the input's layout allows it and the result
// is row-major or channels-last (acdb), or a strided layout read only by Transposes;
// otherwise it aliases the input converted to row-major.
Status view(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  if (n.kind == OpKind::kReshape && n.outputs.size() == 1 && g.value(n.outputs[0]).shape) {
    auto in = b.mem(n.inputs[0]);
    if (!in) return in.status();
    const Shape& ys = shape_of(g, n.outputs[0]);
    auto st = plain_strides(in->get_desc());
    auto os = st ? reshape_strides(shape_of(g, n.inputs[0]), *st, ys) : std::nullopt;
    if (os) {
      memory::desc md(memory::dims(ys.begin(), ys.end()), memory::data_type::f32, *os);
      bool ok = md == md_rowmajor(ys) || md == md_channels_last(ys);
      if (!ok) {
        ok = !g.value(n.outputs[0]).consumers.empty();
        for (NodeId c : g.value(n.outputs[0]).consumers) ok = ok && g.node(c).kind == OpKind::kTranspose;
      }
      if (ok) {
        b.set_mem(n.outputs[0], memory(md, b.engine(), in->get_data_handle()));
        return Status::ok();
      }
    }
  }
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  for (ValueId out : n.outputs)
    if (out != kNoValue && b.graph().value(out).dtype != DType::kBool)
      b.set_mem(out, memory(md_rowmajor(*b.graph().value(out).shape), b.engine(), src->get_data_handle()));
  return Status::ok();
}

// Gather with indices known at analysis time (ViT's class-token pick, Swin's relative
// position bias table), as a host copy of rows.
Status gather(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const auto& idx = g.value(n.inputs[1]).ints;
  if (!idx) return Status::unsupported("Gather with indices computed at run time");
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  const Shape& xs = *g.value(n.inputs[0]).shape;
  const Shape& ys = *g.value(n.outputs[0]).shape;
  const auto axis = static_cast<size_t>(std::get<AxisDesc>(n.desc).axis);
  const int64_t outer = ops::prod(xs, 0, axis), inner = ops::prod(xs, axis + 1), dim = xs[axis];
  std::vector<int64_t> rows;
  for (int64_t i : *idx) rows.push_back(i < 0 ? i + dim : i);
  memory dst = b.new_buffer(md_rowmajor(ys));
  memory s = *src;
  b.add_step(
      [s, dst, rows, outer, inner, dim](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
        const auto nr = static_cast<int64_t>(rows.size());
#pragma omp parallel for
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t r = 0; r < nr; ++r)
            std::memcpy(y + (o * nr + r) * inner, x + (o * dim + rows[static_cast<size_t>(r)]) * inner,
                        static_cast<size_t>(inner) * sizeof(float));
      },
      "host:gather", {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

// Expand (numpy broadcast to a known shape) as a host copy: per output axis, the source offset
// of each index (0 where the input's axis is 1 or missing), so each row costs one offset sum
// and a gather of its inner run (Swin V2's normalisation expands [64, 3, 49, 1] to
// [64, 3, 49, 32] twice per block: 0.6 ms each when every element worked out its index).
Status expand(OneDnnBackend& b, const Node& n) {
  const Graph& g = b.graph();
  const Shape xs = *g.value(n.inputs[0]).shape;
  const Shape ys = *g.value(n.outputs[0]).shape;
  if (!ys.empty()) {
    std::vector<std::vector<int64_t>> map(ys.size());
    const size_t lead = ys.size() - xs.size();  // the input is right-aligned against the output
    int64_t stride = 1;
    for (size_t d = ys.size(); d-- > 0;) {
      const int64_t in = d >= lead ? xs[d - lead] : 1;
      for (int64_t o = 0; o < ys[d]; ++o) map[d].push_back(in == 1 ? 0 : o * stride);
      stride *= in;
    }
    return host_index_copy(b, n, std::move(map), "host:expand");
  }
  auto src = b.rowmajor(n.inputs[0]);
  if (!src) return src.status();
  memory dst = b.new_buffer(md_rowmajor(ys));
  memory s = *src;
  const int64_t count = ops::prod(ys);
  b.add_step(
      [s, dst, xs, ys, count](dnnl::stream&) {
        const float* x = static_cast<const float*>(s.get_data_handle());
        float* y = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for
        for (int64_t i = 0; i < count; ++i) y[i] = x[ops::broadcast_source_index(ys, xs, i)];
      },
      "host:expand", {s, dst});
  b.set_mem(n.outputs[0], dst);
  return Status::ok();
}

}  // namespace rooflens::onednn
