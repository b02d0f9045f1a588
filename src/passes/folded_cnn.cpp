// FoldedCNNs fold transform and the width-rewriting machinery it shares with
// pad_channels (see fold.h for the rules and their source).
#include "rooflens/passes/folded_cnn.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <string_view>

#include "rooflens/ops/op_hooks.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens {
namespace {

std::string label(const Node& n) { return n.op_type + " node '" + n.name + "'"; }

// A node's parameters from its descriptor (shape inference resolved them); defaults for a
// node inference did not reach.
int64_t conv_group(const Node& n) {
  const auto* w = std::get_if<WindowDesc>(&n.desc);
  return w ? w->groups : 1;
}
GemmDesc gemm_of(const Node& n) {
  const auto* d = std::get_if<GemmDesc>(&n.desc);
  return d ? *d : GemmDesc{};
}

int64_t round_up(int64_t v, int64_t m) { return m <= 1 ? v : (v + m - 1) / m * m; }

int64_t product(const Shape& s, size_t b, size_t e) {
  int64_t p = 1;
  for (size_t i = b; i < e; ++i) p *= s[i];
  return p;
}

bool present(const Node& n, size_t i) { return i < n.inputs.size() && n.inputs[i] != kNoValue; }

// A value that carries data at run time (not a stored tensor, not known at analysis time).
bool is_activation(const Value& v) { return !v.is_stored && !v.ints && !v.reals; }

bool is_linear(const Graph& g, const Node& n) {
  if (n.kind == OpKind::kConv || n.kind == OpKind::kGemm) return true;
  if (n.kind != OpKind::kMatMul || !present(n, 1)) return false;
  const Value& b = g.value(n.inputs[1]);
  return b.kind == ValueKind::kInitializer;
}

// A stored constant resized along the dims where it matched `ref_old`, right-aligned as in
// broadcasting: [C,1,1] and [1,C,1,1] against an NCHW tensor follow its channels.
Shape resize_like(const Shape& p, const Shape& ref_old, const Shape& ref_new) {
  Shape r = p;
  for (size_t i = 0; i < p.size(); ++i) {
    const auto j = static_cast<std::ptrdiff_t>(i) - static_cast<std::ptrdiff_t>(p.size()) +
                   static_cast<std::ptrdiff_t>(ref_old.size());
    if (j < 0 || static_cast<size_t>(j) >= ref_new.size()) continue;
    const auto ju = static_cast<size_t>(j);
    if (p[i] > 1 && p[i] == ref_old[ju] && ref_new[ju] != ref_old[ju]) r[i] = ref_new[ju];
  }
  return r;
}

template <typename T>
std::vector<T> tile(const std::vector<T>& v, int64_t n) {
  std::vector<T> out(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (size_t i = 0; i < out.size() && !v.empty(); ++i) out[i] = v[i % v.size()];
  return out;
}

// The output shape a Reshape from `old_in` to `old_out` must have when it reads `new_in`.
// Input and output dims are partitioned into groups of equal element count; a group whose
// input dims did not change keeps its output dims; a merge (one output dim) takes the new
// product; a split of one resized dim keeps its leading factors (channel shuffle's group
// count) and scales the last one. Anything else is refused.
Expected<Shape> regroup(const Shape& old_in, const Shape& old_out, const Shape& new_in, const std::string& who) {
  auto refuse = [&](const std::string& why) {
    return Status::unsupported(who + ": reshapes " + shape_str(old_in) + " to " + shape_str(old_out) +
                               " and now reads " + shape_str(new_in) + "; " + why);
  };
  for (int64_t d : old_in)
    if (d <= 0) return refuse("zero-size dims cannot be regrouped");
  for (int64_t d : old_out)
    if (d <= 0) return refuse("zero-size dims cannot be regrouped");
  struct Group {
    size_t i0, i1, j0, j1;
  };
  std::vector<Group> groups;
  const size_t n = old_in.size(), m = old_out.size();
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    const size_t i0 = i, j0 = j;
    int64_t pi = old_in[i++], pj = old_out[j++];
    while (pi != pj) {
      if (pi < pj) {
        if (i >= n) return refuse("its dims do not regroup");
        pi *= old_in[i++];
      } else {
        if (j >= m) return refuse("its dims do not regroup");
        pj *= old_out[j++];
      }
    }
    groups.push_back({i0, i, j0, j});
  }
  if (groups.empty()) groups.push_back({0, 0, 0, 0});
  for (; i < n; ++i) {
    if (old_in[i] != 1) return refuse("its dims do not regroup");
    groups.back().i1 = i + 1;
  }
  for (; j < m; ++j) {
    if (old_out[j] != 1) return refuse("its dims do not regroup");
    groups.back().j1 = j + 1;
  }
  Shape out = old_out;
  for (const Group& gr : groups) {
    bool changed = false;
    for (size_t k = gr.i0; k < gr.i1; ++k) changed |= new_in[k] != old_in[k];
    if (!changed) continue;
    const int64_t prod_new = product(new_in, gr.i0, gr.i1);
    std::vector<size_t> out_non1;
    for (size_t k = gr.j0; k < gr.j1; ++k)
      if (old_out[k] != 1) out_non1.push_back(k);
    int in_non1 = 0;
    for (size_t k = gr.i0; k < gr.i1; ++k) in_non1 += old_in[k] != 1;
    if (out_non1.size() <= 1) {
      out[out_non1.empty() ? gr.j0 : out_non1[0]] = prod_new;  // a merge (or a plain copy)
      continue;
    }
    if (in_non1 > 1)
      return refuse("it regroups input dims " + shape_str(Shape(old_in.begin() + gr.i0, old_in.begin() + gr.i1)) +
                    " into " + shape_str(Shape(old_out.begin() + gr.j0, old_out.begin() + gr.j1)) +
                    ", which has no sound counterpart at the new widths");
    int64_t lead = 1;
    for (size_t k = 0; k + 1 < out_non1.size(); ++k) lead *= old_out[out_non1[k]];
    if (prod_new % lead != 0)
      return refuse("splitting " + std::to_string(prod_new) + " keeps the leading factor " + std::to_string(lead) +
                    ", which does not divide it");
    out[out_non1.back()] = prod_new / lead;
  }
  return out;
}

// What a Reshape target resolves to against input `x` (0 copies, -1 infers).
std::optional<Shape> resolve_target(const std::vector<int64_t>& t, const Shape& x, bool allowzero) {
  Shape r(t.begin(), t.end());
  int infer = -1;
  int64_t known = 1;
  for (size_t k = 0; k < r.size(); ++k) {
    if (r[k] == 0 && !allowzero) {
      if (k >= x.size()) return std::nullopt;
      r[k] = x[k];
    }
    if (r[k] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(k);
    } else {
      known *= r[k];
    }
  }
  if (infer >= 0) {
    auto total = checked_numel(x);
    if (!total || known == 0 || *total % known != 0) return std::nullopt;
    r[static_cast<size_t>(infer)] = *total / known;
  }
  return r;
}

class Rewriter {
 public:
  Rewriter(const Graph& g, Graph& h, const WidthRule& rule) : g_(g), h_(h), rule_(rule) {}

  Status run();

 private:
  Status rewrite(NodeId id);
  Status rewrite_conv(NodeId id);
  Status rewrite_dense(NodeId id);
  Status rewrite_elementwise(NodeId id);
  Status rewrite_reshape(NodeId id);
  Status rewrite_split(NodeId id);
  Status check_slice_like(NodeId id);  // also rescales proportional Slices

  const Shape& old_shape(ValueId v) const { return *g_.value(v).shape; }
  const Shape& new_shape(ValueId v) const { return *h_.value(v).shape; }
  bool changed(ValueId v) const { return v != kNoValue && old_shape(v) != new_shape(v); }
  std::string fail_prefix(const Node& n) const { return "cannot " + rule_.what + " " + label(n); }
  Status set_param_shape(NodeId id, size_t i, const Shape& s);
  ValueId fresh_value(Value v, NodeId id, size_t i);
  void set_input_ints(NodeId id, size_t i, std::vector<int64_t> ints, const std::string& suffix);
  void find_classifiers();
  void find_group_multiples();

  const Graph& g_;
  Graph& h_;
  const WidthRule& rule_;
  std::vector<bool> classifier_;
  std::vector<int64_t> multiple_;
  int fresh_ = 0;
};

// Classifiers: linear layers a graph output is reached from without another linear layer.
void Rewriter::find_classifiers() {
  classifier_.assign(g_.nodes.size(), false);
  std::vector<ValueId> stack(g_.outputs.begin(), g_.outputs.end());
  std::set<ValueId> seen;
  while (!stack.empty()) {
    ValueId v = stack.back();
    stack.pop_back();
    if (v == kNoValue || !seen.insert(v).second) continue;
    const NodeId p = g_.value(v).producer;
    if (p < 0) continue;
    const Node& n = g_.node(p);
    if (is_linear(g_, n)) {
      classifier_[static_cast<size_t>(p)] = true;
      continue;
    }
    for (ValueId in : n.inputs)
      if (in != kNoValue && is_activation(g_.value(in))) stack.push_back(in);
  }
}

// Grouped (not depthwise) convs need input and output widths that are multiples of their
// group count. Tensors that must keep equal widths (the inputs and output of pointwise ops,
// norms, pools, residual adds, SE scales, depthwise convs with multiplier 1) form one class
// (union-find); every linear layer writing into a class rounds to the lcm of its groups.
void Rewriter::find_group_multiples() {
  std::vector<ValueId> parent(g_.values.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](ValueId v) {
    while (parent[static_cast<size_t>(v)] != v)
      v = parent[static_cast<size_t>(v)] = parent[static_cast<size_t>(parent[static_cast<size_t>(v)])];
    return v;
  };
  auto channels = [&](ValueId v) -> int64_t {
    const Shape& s = old_shape(v);
    return s.size() >= 2 ? s[1] : -1;
  };
  auto unite = [&](ValueId a, ValueId b) {
    if (channels(a) < 0 || channels(a) != channels(b)) return;
    parent[static_cast<size_t>(find(a))] = find(b);
  };
  for (const Node& n : g_.nodes) {
    if (n.kind == OpKind::kUnknown || n.outputs.empty() || n.outputs[0] == kNoValue) continue;
    const OpCategory cat = op_info(n.kind).category;
    const bool keeps = cat == OpCategory::kNorm || cat == OpCategory::kActivation || cat == OpCategory::kPool ||
                       cat == OpCategory::kElementwise || n.kind == OpKind::kIdentity || n.kind == OpKind::kDropout;
    const bool depthwise1 = n.kind == OpKind::kConv && conv_group(n) > 1 && conv_group(n) == channels(n.inputs[0]) &&
                            channels(n.outputs[0]) == channels(n.inputs[0]);
    if (!keeps && !depthwise1) continue;
    for (ValueId in : n.inputs)
      if (in != kNoValue && is_activation(g_.value(in))) unite(in, n.outputs[0]);
  }
  std::vector<int64_t> need(g_.values.size(), 1);
  for (const Node& n : g_.nodes) {
    if (n.kind != OpKind::kConv) continue;
    const int64_t group = conv_group(n);
    if (group <= 1 || group == channels(n.inputs[0])) continue;
    for (ValueId v : {n.inputs[0], n.outputs[0]}) {
      auto& m = need[static_cast<size_t>(find(v))];
      m = std::lcm(m, group);
    }
  }
  multiple_.assign(g_.nodes.size(), 1);
  for (size_t id = 0; id < g_.nodes.size(); ++id)
    if (is_linear(g_, g_.nodes[id])) multiple_[id] = need[static_cast<size_t>(find(g_.nodes[id].outputs[0]))];
}

ValueId Rewriter::fresh_value(Value v, NodeId id, size_t i) {
  std::string base = v.name + "." + rule_.what;
  std::string name = base;
  while (h_.find_value(name)) name = base + std::to_string(++fresh_);
  v.name = name;
  v.consumers.clear();
  v.producer = -1;
  ValueId nv = h_.add_value(std::move(v));
  Node& n = h_.node(id);
  const ValueId old = n.inputs[i];
  n.inputs[i] = nv;
  h_.value(nv).consumers.push_back(id);
  auto& cons = h_.value(old).consumers;
  auto it = std::find(cons.begin(), cons.end(), id);
  if (it != cons.end()) cons.erase(it);
  return nv;
}

// Gives input i of node id (a stored tensor) the shape s; a tensor other nodes also read
// is copied first, so they keep theirs.
Status Rewriter::set_param_shape(NodeId id, size_t i, const Shape& s) {
  ValueId v = h_.node(id).inputs[i];
  if (h_.value(v).shape == s) return Status::ok();
  if (h_.value(v).kind != ValueKind::kInitializer)
    return Status::unsupported(fail_prefix(h_.node(id)) + ": input '" + h_.value(v).name +
                               "' is computed, not a stored tensor, so it cannot be resized from " +
                               shape_str(*h_.value(v).shape) + " to " + shape_str(s));
  std::set<NodeId> readers(h_.value(v).consumers.begin(), h_.value(v).consumers.end());
  if (readers.size() > 1) v = fresh_value(h_.value(v), id, i);
  Value& t = h_.value(v);
  const int64_t numel = checked_numel(s).value_or(0);
  t.shape = s;
  if (t.reals) t.reals = tile(*t.reals, numel);
  if (t.ints) t.ints = tile(*t.ints, numel);
  if (!t.reals && !t.ints) t.has_data = false;
  return Status::ok();
}

void Rewriter::set_input_ints(NodeId id, size_t i, std::vector<int64_t> ints, const std::string& suffix) {
  Value v;
  v.name = h_.node(id).name + "." + suffix;
  v.kind = ValueKind::kInitializer;
  v.dtype = DType::kI64;
  v.shape = Shape{static_cast<int64_t>(ints.size())};
  v.ints = std::move(ints);
  v.has_data = true;
  v.is_stored = true;
  if (present(h_.node(id), i)) {
    fresh_value(std::move(v), id, i);
  } else {
    std::string name = v.name;
    while (h_.find_value(name)) name = v.name + std::to_string(++fresh_);
    v.name = name;
    ValueId nv = h_.add_value(std::move(v));
    Node& n = h_.node(id);
    if (n.inputs.size() <= i) n.inputs.resize(i + 1, kNoValue);
    n.inputs[i] = nv;
    h_.value(nv).consumers.push_back(id);
  }
}

Status Rewriter::rewrite_conv(NodeId id) {
  const Node& n = h_.node(id);
  const Shape& x_old = old_shape(n.inputs[0]);
  const Shape& x_new = new_shape(n.inputs[0]);
  const Shape& w_old = old_shape(n.inputs[1]);
  if (x_old.size() < 3 || w_old.size() != x_old.size())
    return Status::unsupported(fail_prefix(n) + ": input rank " + std::to_string(x_old.size()) +
                               " (expected NCHW-like)");
  const int64_t group = conv_group(n);
  const int64_t cin_old = x_old[1], cin_new = x_new[1], cout_old = w_old[0];
  int64_t group_new = group, cout_new = 0;
  if (group > 1 && group == cin_old) {
    group_new = cin_new;  // depthwise: keep the channel multiplier
    cout_new = cout_old / group * cin_new;
  } else {
    cout_new = rule_.output_width(cout_old, classifier_[static_cast<size_t>(id)], multiple_[static_cast<size_t>(id)]);
    if (cin_new % group != 0)
      return Status::unsupported(fail_prefix(n) + ": its input now has " + std::to_string(cin_new) + " channels (was " +
                                 std::to_string(cin_old) + "), not a multiple of group=" + std::to_string(group) +
                                 ", and the layer producing them cannot be rounded to it");
    if (cout_new % group != 0)
      return Status::unsupported(fail_prefix(n) + ": output width " + std::to_string(cout_new) +
                                 " is not a multiple of group=" + std::to_string(group));
  }
  Shape w_new = w_old;
  w_new[0] = cout_new;
  w_new[1] = cin_new / group_new;
  ROOFLENS_RETURN_IF_ERROR(set_param_shape(id, 1, w_new));
  if (present(n, 2)) ROOFLENS_RETURN_IF_ERROR(set_param_shape(id, 2, Shape{cout_new}));
  if (group_new != group) h_.node(id).attrs.insert_or_assign("group", group_new);  // re-inferred below
  return Status::ok();
}

// Gemm (A [M,K] x B [K,N] or [N,K]) and MatMul with a stored rank-2 B.
Status Rewriter::rewrite_dense(NodeId id) {
  const Node& n = h_.node(id);
  if (n.kind == OpKind::kGemm && gemm_of(n).trans_a)
    return Status::unsupported(fail_prefix(n) + ": transA=1 is not supported");
  if (g_.value(n.inputs[0]).kind == ValueKind::kInitializer)
    return Status::unsupported(fail_prefix(n) + ": its first operand is a stored tensor");
  const Shape& a_old = old_shape(n.inputs[0]);
  const Shape& a_new = new_shape(n.inputs[0]);
  const Shape& b_old = old_shape(n.inputs[1]);
  if (b_old.size() != 2 || a_old.size() < 2)
    return Status::unsupported(fail_prefix(n) + ": weight of rank " + std::to_string(b_old.size()) +
                               " (only 2-D weights are folded)");
  const bool tb = n.kind == OpKind::kGemm && gemm_of(n).trans_b;
  const int64_t n_old = tb ? b_old[0] : b_old[1];
  const int64_t k_new = a_new.back();
  const int64_t n_new =
      rule_.output_width(n_old, classifier_[static_cast<size_t>(id)], multiple_[static_cast<size_t>(id)]);
  ROOFLENS_RETURN_IF_ERROR(set_param_shape(id, 1, tb ? Shape{n_new, k_new} : Shape{k_new, n_new}));
  if (n.kind == OpKind::kGemm && present(n, 2)) {
    Shape y_old = {a_old[0], n_old}, y_new = {a_new[0], n_new};
    ROOFLENS_RETURN_IF_ERROR(set_param_shape(id, 2, resize_like(old_shape(n.inputs[2]), y_old, y_new)));
  }
  return Status::ok();
}

// Binary pointwise ops: stored operands follow the activation; two activations must agree.
Status Rewriter::rewrite_elementwise(NodeId id) {
  const Node& n = h_.node(id);
  std::vector<size_t> acts, consts;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (!present(n, i)) continue;
    (is_activation(g_.value(n.inputs[i])) ? acts : consts).push_back(i);
  }
  if (acts.empty()) return Status::ok();  // shape arithmetic, recomputed by inference
  for (size_t a = 1; a < acts.size(); ++a) {
    const Shape& s0 = new_shape(n.inputs[acts[0]]);
    const Shape& s1 = new_shape(n.inputs[acts[a]]);
    const size_t r = std::max(s0.size(), s1.size());
    for (size_t k = 0; k < r; ++k) {
      const int64_t d0 = k < r - s0.size() ? 1 : s0[k - (r - s0.size())];
      const int64_t d1 = k < r - s1.size() ? 1 : s1[k - (r - s1.size())];
      if (d0 != d1 && d0 != 1 && d1 != 1)
        return Status::invalid(fail_prefix(n) + ": after " + rule_.what + " input '" +
                               h_.value(n.inputs[acts[0]]).name + "' has " + std::to_string(d0) + " and input '" +
                               h_.value(n.inputs[acts[a]]).name + "' has " + std::to_string(d1) + " along dim " +
                               std::to_string(k) + " (the widths meeting here were rounded differently)");
    }
  }
  // The widest activation is the reference for stored operands.
  size_t ref = acts[0];
  for (size_t a : acts)
    if (old_shape(n.inputs[a]).size() > old_shape(n.inputs[ref]).size()) ref = a;
  const Shape& r_old = old_shape(n.inputs[ref]);
  const Shape& r_new = new_shape(n.inputs[ref]);
  if (r_old == r_new) return Status::ok();
  for (size_t c : consts) {
    const Value& v = h_.value(n.inputs[c]);
    if (v.kind != ValueKind::kInitializer) continue;  // computed constants: inference checks them
    ROOFLENS_RETURN_IF_ERROR(set_param_shape(id, c, resize_like(*v.shape, r_old, r_new)));
  }
  return Status::ok();
}

Status Rewriter::rewrite_reshape(NodeId id) {
  const Node& n = h_.node(id);
  if (!changed(n.inputs[0])) return Status::ok();
  auto want = regroup(old_shape(n.inputs[0]), old_shape(n.outputs[0]), new_shape(n.inputs[0]), fail_prefix(n));
  if (!want) return want.status();
  const Value& t = h_.value(n.inputs[1]);
  if (t.ints) {
    const auto* rd = std::get_if<ReshapeDesc>(&n.desc);
    auto got = resolve_target(*t.ints, new_shape(n.inputs[0]), rd && rd->allow_zero);
    if (got && *got == *want) return Status::ok();
  }
  set_input_ints(id, 1, std::vector<int64_t>(want->begin(), want->end()), "shape");
  return Status::ok();
}

Status Rewriter::rewrite_split(NodeId id) {
  const Node& n = h_.node(id);
  const Shape& x_old = old_shape(n.inputs[0]);
  const auto* sd = std::get_if<AxisDesc>(&g_.node(id).desc);
  if (!sd) return Status::ok();  // not reached by inference: nothing to resize
  const int64_t axis = sd->axis;
  const auto a = static_cast<size_t>(axis);
  const int64_t d_old = x_old.at(a), d_new = new_shape(n.inputs[0]).at(a);
  if (d_old == d_new) return Status::ok();
  std::vector<int64_t> sizes;
  const bool from_input = present(n, 1);
  if (from_input && h_.value(n.inputs[1]).ints)
    sizes = *h_.value(n.inputs[1]).ints;
  else if (sd->split_listed && !from_input)
    sizes = sd->split;
  else
    return Status::ok();  // equal parts by output count
  const auto k = static_cast<int64_t>(sizes.size());
  const bool equal = std::all_of(sizes.begin(), sizes.end(), [&](int64_t s) { return s == sizes[0]; });
  if (!equal || k == 0 || d_new % k != 0)
    return Status::unsupported(fail_prefix(n) + ": splits axis " + std::to_string(axis) + " of " +
                               std::to_string(d_old) + " (now " + std::to_string(d_new) +
                               ") into parts that cannot be resized proportionally");
  std::vector<int64_t> parts(sizes.size(), d_new / k);
  if (from_input)
    set_input_ints(id, 1, parts, "split");
  else
    h_.node(id).attrs.insert_or_assign("split", parts);  // re-inferred below
  return Status::ok();
}

// Slice, Gather and Pad along a resized axis: proportional slices are rescaled, the rest refused.
Status Rewriter::check_slice_like(NodeId id) {
  const Node& n = h_.node(id);
  const Shape& x_old = old_shape(n.inputs[0]);
  const Shape& x_new = new_shape(n.inputs[0]);
  // An operand from its input when known, else (the attribute form of old opsets) from the
  // descriptor shape inference gave the node in the original graph.
  const OpDesc& desc = g_.node(id).desc;
  auto ints_of = [&](size_t i, std::vector<int64_t> SliceDesc::*slice_field, bool pad_field) -> std::vector<int64_t> {
    if (present(n, i) && h_.value(n.inputs[i]).ints) return *h_.value(n.inputs[i]).ints;
    if (present(n, i)) return {};
    if (const auto* s = std::get_if<SliceDesc>(&desc); s && slice_field && n.inputs.size() < 3) return s->*slice_field;
    if (const auto* p = std::get_if<PadDesc>(&desc); p && pad_field) return p->pads;
    return {};
  };
  auto axis_of = [&](int64_t ax) { return static_cast<size_t>(ax < 0 ? ax + static_cast<int64_t>(x_old.size()) : ax); };
  auto refuse = [&](size_t ax, const std::string& what) {
    return Status::unsupported(fail_prefix(n) + ": " + what + " along axis " + std::to_string(ax) +
                               ", whose size changes from " + std::to_string(x_old[ax]) + " to " +
                               std::to_string(x_new[ax]));
  };
  if (n.kind == OpKind::kGather) {
    const auto* gd = std::get_if<AxisDesc>(&desc);
    const size_t ax = gd ? static_cast<size_t>(gd->axis) : 0;
    if (ax < x_old.size() && x_old[ax] != x_new[ax]) return refuse(ax, "it gathers");
  } else if (n.kind == OpKind::kSlice) {
    // Chunks (x.chunk(2, dim=1) exports as Slices [0, C/2) and [C/2, C)) scale with the axis
    // when both bounds land on whole channels; other slices of a resized axis are refused.
    // Bounds computed from shapes (Shape -> Gather -> Div) were recomputed from the new
    // shapes already: those that changed are kept; constant ones are scaled.
    auto starts = ints_of(1, &SliceDesc::starts, false), ends = ints_of(2, &SliceDesc::ends, false);
    auto axes = n.inputs.size() < 3 ? ints_of(3, &SliceDesc::axes, false) : ints_of(3, nullptr, false);
    auto steps = ints_of(4, nullptr, false);
    auto old_ints = [&](size_t i, const std::vector<int64_t>& now) {
      if (present(n, i) && g_.value(n.inputs[i]).ints) return *g_.value(n.inputs[i]).ints;
      return now;
    };
    const auto starts_old = old_ints(1, starts), ends_old = old_ints(2, ends);
    bool rewrite = false;
    for (size_t i = 0; i < starts.size() && i < ends.size(); ++i) {
      const size_t ax = axis_of(i < axes.size() ? axes[i] : static_cast<int64_t>(i));
      if (ax >= x_old.size() || x_old[ax] == x_new[ax]) continue;
      const int64_t d = x_old[ax], dn = x_new[ax];
      if (i < steps.size() && steps[i] != 1) return refuse(ax, "it slices with a step");
      auto scale = [&](int64_t v, bool is_end, bool* ok) -> int64_t {
        if (is_end && v >= d) return std::max(v, dn);  // to the end
        const int64_t c = v < 0 ? std::max<int64_t>(0, v + d) : std::min(v, d);
        *ok = (c * dn) % d == 0;
        return c * dn / d;
      };
      bool ok = true;
      const int64_t b = i < starts_old.size() && starts_old[i] != starts[i] ? starts[i] : scale(starts[i], false, &ok);
      const int64_t e = i < ends_old.size() && ends_old[i] != ends[i] ? ends[i] : scale(ends[i], true, &ok);
      if (!ok)
        return refuse(ax, "it slices [" + std::to_string(starts[i]) + ", " + std::to_string(ends[i]) +
                              "), not a proportional chunk,");
      rewrite |= b != starts[i] || e != ends[i];
      starts[i] = b;
      ends[i] = e;
    }
    if (rewrite) {
      if (present(n, 1)) {
        set_input_ints(id, 1, starts, "starts");
        set_input_ints(id, 2, ends, "ends");
      } else {
        h_.node(id).attrs.insert_or_assign("starts", starts);  // re-inferred below
        h_.node(id).attrs.insert_or_assign("ends", ends);
      }
    }
  } else if (n.kind == OpKind::kPad) {
    auto pads = ints_of(1, nullptr, true);
    auto axes = ints_of(3, nullptr, false);
    const size_t k = pads.size() / 2;
    for (size_t i = 0; i < k; ++i) {
      const size_t ax = axis_of(i < axes.size() ? axes[i] : static_cast<int64_t>(i));
      if (ax < x_old.size() && x_old[ax] != x_new[ax] && (pads[i] != 0 || pads[i + k] != 0))
        return refuse(ax, "it pads");
    }
  }
  return Status::ok();
}

Status Rewriter::rewrite(NodeId id) {
  const Node& n = h_.node(id);
  if (n.kind == OpKind::kUnknown)
    return Status::unsupported(fail_prefix(n) + ": op '" + (n.domain.empty() ? "" : n.domain + ".") + n.op_type +
                               "' is not in rooflens's op table, so its channel semantics are unknown");
  if (n.kind == OpKind::kConv) return rewrite_conv(id);
  if (n.kind == OpKind::kGemm || n.kind == OpKind::kMatMul) {
    if (!is_linear(g_, g_.node(id)))
      return Status::unsupported(fail_prefix(n) + ": a MatMul without a stored weight operand (attention) cannot be " +
                                 rule_.what + "ed");
    return rewrite_dense(id);
  }
  bool any_changed = false;
  for (ValueId in : n.inputs) any_changed |= in != kNoValue && changed(in);
  if (!any_changed) return Status::ok();
  switch (n.kind) {
    case OpKind::kBatchNormalization: {
      const int64_t c = new_shape(n.inputs[0]).at(1);
      for (size_t i = 1; i < 5 && i < n.inputs.size(); ++i)
        if (present(n, i)) ROOFLENS_RETURN_IF_ERROR(set_param_shape(id, i, Shape{c}));
      return Status::ok();
    }
    case OpKind::kLayerNormalization:
      for (size_t i = 1; i < 3 && i < n.inputs.size(); ++i)
        if (present(n, i))
          ROOFLENS_RETURN_IF_ERROR(set_param_shape(
              id, i, resize_like(old_shape(n.inputs[i]), old_shape(n.inputs[0]), new_shape(n.inputs[0]))));
      return Status::ok();
    case OpKind::kReshape: return rewrite_reshape(id);
    case OpKind::kSplit: return rewrite_split(id);
    case OpKind::kSlice:
    case OpKind::kGather:
    case OpKind::kPad: return check_slice_like(id);
    default: break;
  }
  if (op_info(n.kind).category == OpCategory::kElementwise) return rewrite_elementwise(id);
  return Status::ok();
}

Status Rewriter::run() {
  auto order = g_.topo_order();
  if (!order) return order.status();
  for (NodeId id : *order)
    if (g_.node(id).kind == OpKind::kUnknown) return rewrite(id);  // names the node and op
  for (const Value& v : g_.values)
    if (!v.shape && (v.kind != ValueKind::kActivation || !v.consumers.empty()))
      return Status::invalid(rule_.what + " needs a shape-inferred graph: value '" + v.name + "' has no shape");
  for (NodeId id : *order)
    for (ValueId out : g_.node(id).outputs)
      if (out != kNoValue && !g_.value(out).shape)
        return Status::invalid(rule_.what + " needs a shape-inferred graph: value '" + g_.value(out).name +
                               "' has no shape");
  if (g_.inputs.size() != 1)
    return Status::unsupported(rule_.what + " handles graphs with one input (the images); this one has " +
                               std::to_string(g_.inputs.size()));
  find_classifiers();
  find_group_multiples();
  for (Value& v : h_.values)
    if (v.producer >= 0) {
      v.shape.reset();
      v.ints.reset();
      v.reals.reset();
      v.is_stored = false;
    }
  auto in = rule_.input_shape(*g_.value(g_.inputs[0]).shape);
  if (!in) return in.status();
  h_.value(h_.inputs[0]).shape = *in;
  for (NodeId id : *order) {
    ROOFLENS_RETURN_IF_ERROR(rewrite(id));
    const Node& n = h_.node(id);
    InferContext ctx(h_, id);
    Status s = infer_node(n.kind, ctx);
    // The rewritten graph does not shape: a pattern the transform does not handle (not bad input).
    if (!s) return Status::unsupported("cannot " + rule_.what + " the graph: " + s.message());
  }
  auto inferred = infer_shapes(h_);
  if (!inferred) return inferred.status().with_context("after " + rule_.what);
  return Status::ok();
}

}  // namespace

int64_t folded_cnn_width(int64_t width, int factor, WidthRounding rounding) {
  const double w = static_cast<double>(width) * std::sqrt(static_cast<double>(factor));
  switch (rounding) {
    case WidthRounding::kNearest: return static_cast<int64_t>(std::floor(w + 0.5));
    case WidthRounding::kCeil: return static_cast<int64_t>(std::ceil(w));
    case WidthRounding::kTruncate: break;
  }
  return static_cast<int64_t>(w);
}

Expected<Graph> rewrite_widths(const Graph& g, const WidthRule& rule) {
  Graph h = g;
  Rewriter r(g, h, rule);
  Status s = r.run();
  if (!s) return s;
  return h;
}

namespace {
constexpr std::string_view kFoldSuffix = "_fold";  // folded_cnn's name for its result: "<name>_fold<f>"
}  // namespace

Expected<Graph> folded_cnn(const Graph& g, const FoldedCnnOptions& o) {
  if (o.factor < 2)
    return Status::invalid("fold factor must be an integer >= 2, got " + std::to_string(o.factor) +
                           (o.factor == 1 ? " (factor 1 is the unfolded model)" : ""));
  if (o.align < 0) return Status::invalid("fold align must be 0 or positive, got " + std::to_string(o.align));
  WidthRule rule;
  rule.what = "fold";
  const int f = o.factor;
  rule.input_shape = [f](const Shape& s) -> Expected<Shape> {
    if (s.size() < 2)
      return Status::unsupported("fold needs an input of rank >= 2 (batch, channels, ...), got " + shape_str(s));
    if (s[0] % f != 0)
      return Status::invalid("batch " + std::to_string(s[0]) + " is not divisible by fold factor " + std::to_string(f) +
                             " (each folded input carries " + std::to_string(f) + " images)");
    Shape r = s;
    r[0] = s[0] / f;
    r[1] = s[1] * f;
    return r;
  };
  rule.output_width = [o](int64_t w, bool classifier, int64_t multiple) -> int64_t {
    if (classifier) return w * o.factor;
    const int64_t m = std::lcm<int64_t>(o.align > 0 ? o.align : 1, multiple);
    return round_up(std::max<int64_t>(1, folded_cnn_width(w, o.factor, o.rounding)), m);
  };
  auto h = rewrite_widths(g, rule);
  if (!h) return h.status();
  h->name = g.name + std::string(kFoldSuffix) + std::to_string(f);
  return h;
}

int fold_factor_of(const Graph& g) {
  const size_t at = g.name.rfind(kFoldSuffix);
  if (at == std::string::npos) return 1;
  const std::string digits = g.name.substr(at + kFoldSuffix.size());
  if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos) return 1;
  const int f = std::stoi(digits);
  return f >= 2 ? f : 1;
}

}  // namespace rooflens
