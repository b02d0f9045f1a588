// IR -> ONNX ModelProto through libonnx's protobuf classes (see export.h).
#include "rooflens/onnx/export.h"

#include "rooflens/util/file.h"

#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

namespace rooflens {
namespace {

// ONNX's TensorProto.DataType code of `t`; 0 (UNDEFINED) for a dtype the graph does not know
// (a graph built in code, not through infer_shapes), never the first code the IR lacks.
int onnx_code(DType t) {
  if (t == DType::kUnknown) return 0;
  for (int code = 1; code <= 17; ++code)
    if (dtype_from_onnx_code(code) == t) return code;
  return 0;
}

// IR versions that introduced each opset range (onnx/docs/Versioning.md).
int64_t ir_version_for(int64_t opset) {
  if (opset <= 8) return 3;
  if (opset == 9) return 4;
  if (opset == 10) return 5;
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  return 8;
}

uint16_t to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  const uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return static_cast<uint16_t>(sign);  // tiny values flush to zero
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13));
}

// Float values encoded as raw little-endian bytes of dtype `t`.
Status encode_reals(const std::vector<double>& v, DType t, std::string* raw, const std::string& what) {
  raw->clear();
  for (double d : v) {
    const auto f = static_cast<float>(d);
    switch (t) {
      case DType::kF32: raw->append(reinterpret_cast<const char*>(&f), 4); break;
      case DType::kF64: raw->append(reinterpret_cast<const char*>(&d), 8); break;
      case DType::kF16: {
        uint16_t h = to_half(f);
        raw->append(reinterpret_cast<const char*>(&h), 2);
        break;
      }
      case DType::kBF16: {
        uint32_t x;
        std::memcpy(&x, &f, 4);
        auto h = static_cast<uint16_t>(x >> 16);
        raw->append(reinterpret_cast<const char*>(&h), 2);
        break;
      }
      default: return Status::unsupported(what + ": cannot write float data as " + std::string(dtype_name(t)));
    }
  }
  return Status::ok();
}

Status encode_ints(const std::vector<int64_t>& v, DType t, std::string* raw, const std::string& what) {
  raw->clear();
  for (int64_t i : v) {
    switch (t) {
      case DType::kI64: raw->append(reinterpret_cast<const char*>(&i), 8); break;
      case DType::kI32: {
        auto x = static_cast<int32_t>(i);
        raw->append(reinterpret_cast<const char*>(&x), 4);
        break;
      }
      case DType::kI16: {
        auto x = static_cast<int16_t>(i);
        raw->append(reinterpret_cast<const char*>(&x), 2);
        break;
      }
      case DType::kI8:
      case DType::kU8:
      case DType::kBool: raw->push_back(static_cast<char>(i)); break;
      default: return Status::unsupported(what + ": cannot write integer data as " + std::string(dtype_name(t)));
    }
  }
  return Status::ok();
}

uint64_t name_hash(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// Writes the contents of a tensor: known contents, else stripped (external) or random.
Status fill_tensor(onnx::TensorProto* t, DType dt, const Shape& shape, const std::optional<std::vector<int64_t>>& ints,
                   const std::optional<std::vector<double>>& reals, const ExportOptions& o, double lo, double hi,
                   int64_t* external_offset, const std::string& what) {
  t->set_data_type(onnx_code(dt));
  if (t->data_type() == 0)
    return Status::unsupported(what + ": dtype " + std::string(dtype_name(dt)) + " has no ONNX code");
  for (int64_t d : shape) t->add_dims(d);
  const int64_t numel = checked_numel(shape).value_or(0);
  std::string raw;
  if (ints && static_cast<int64_t>(ints->size()) == numel) {
    ROOFLENS_RETURN_IF_ERROR(encode_ints(*ints, dt, &raw, what));
  } else if (reals && static_cast<int64_t>(reals->size()) == numel) {
    ROOFLENS_RETURN_IF_ERROR(encode_reals(*reals, dt, &raw, what));
  } else if (o.weights == ExportWeights::kRandom || !dtype_is_float(dt)) {
    if (dtype_is_float(dt)) {
      std::mt19937_64 gen(o.seed ^ name_hash(t->name()));
      std::vector<double> v(static_cast<size_t>(numel));
      for (double& x : v) x = lo + (hi - lo) * (static_cast<double>(gen() >> 11) * 0x1.0p-53);
      ROOFLENS_RETURN_IF_ERROR(encode_reals(v, dt, &raw, what));
    } else {
      ROOFLENS_RETURN_IF_ERROR(encode_ints(std::vector<int64_t>(static_cast<size_t>(numel), 0), dt, &raw, what));
    }
  } else {
    const int64_t length = numel * dtype_bytes(dt);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value(kStrippedLocation);
    kv = t->add_external_data();
    kv->set_key("offset");
    kv->set_value(std::to_string(*external_offset));
    kv = t->add_external_data();
    kv->set_key("length");
    kv->set_value(std::to_string(length));
    *external_offset += length;
    return Status::ok();
  }
  t->set_raw_data(raw);
  return Status::ok();
}

void set_value_info(onnx::ValueInfoProto* vi, const Value& v) {
  vi->set_name(v.name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_code(v.dtype));
  if (!v.shape) return;
  auto* sh = tt->mutable_shape();
  for (int64_t d : *v.shape) sh->add_dim()->set_dim_value(d);
}

Status set_attr(onnx::AttributeProto* a, const std::string& name, const AttrValue& v, const ExportOptions& o,
                const std::string& what) {
  a->set_name(name);
  if (const auto* i = std::get_if<int64_t>(&v)) {
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(*i);
  } else if (const auto* f = std::get_if<double>(&v)) {
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(static_cast<float>(*f));
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(*s);
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : *is) a->add_ints(x);
  } else if (const auto* fs = std::get_if<std::vector<double>>(&v)) {
    a->set_type(onnx::AttributeProto::FLOATS);
    for (double x : *fs) a->add_floats(static_cast<float>(x));
  } else if (const auto* ss = std::get_if<std::vector<std::string>>(&v)) {
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const auto& x : *ss) a->add_strings(x);
  } else if (const auto* tc = std::get_if<TensorConst>(&v)) {
    a->set_type(onnx::AttributeProto::TENSOR);
    int64_t unused = 0;
    ExportOptions filled = o;
    filled.weights = ExportWeights::kRandom;  // attribute tensors cannot be external here
    std::optional<std::vector<int64_t>> ints;
    std::optional<std::vector<double>> reals;
    if (!tc->ints.empty() || dtype_is_integer(tc->dtype)) ints = tc->ints;
    if (!tc->reals.empty() || dtype_is_float(tc->dtype)) reals = tc->reals;
    ROOFLENS_RETURN_IF_ERROR(fill_tensor(a->mutable_t(), tc->dtype, tc->shape, ints, reals, filled, 0, 0, &unused,
                                         what + " attribute '" + name + "'"));
  }
  return Status::ok();
}

}  // namespace

Expected<std::string> export_onnx_bytes(const Graph& g, const ExportOptions& o) {
  onnx::ModelProto m;
  m.set_ir_version(ir_version_for(g.opset));
  m.set_producer_name(o.producer);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(g.opset);
  std::set<std::string> domains;
  for (const Node& n : g.nodes)
    if (!n.domain.empty() && n.domain != "ai.onnx" && domains.insert(n.domain).second) {
      auto* d = m.add_opset_import();
      d->set_domain(n.domain);
      d->set_version(1);
    }
  onnx::GraphProto* gp = m.mutable_graph();
  gp->set_name(g.name.empty() ? "graph" : g.name);
  for (ValueId in : g.inputs) {
    const Value& v = g.value(in);
    if (!v.shape) return Status::invalid("export: graph input '" + v.name + "' has no shape");
    set_value_info(gp->add_input(), v);
  }
  for (ValueId out : g.outputs) set_value_info(gp->add_output(), g.value(out));

  // Initializers that some node reads, in value order; their roles pick random ranges.
  std::vector<bool> bn_positive(g.values.size(), false);
  std::vector<bool> used(g.values.size(), false);
  for (const Node& n : g.nodes)
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == kNoValue) continue;
      used[static_cast<size_t>(n.inputs[i])] = true;
      if ((n.kind == OpKind::kBatchNormalization && (i == 1 || i == 4)) ||
          (n.kind == OpKind::kLayerNormalization && i == 1))
        bn_positive[static_cast<size_t>(n.inputs[i])] = true;
    }
  int64_t offset = 0;
  for (size_t id = 0; id < g.values.size(); ++id) {
    const Value& v = g.values[id];
    if (v.kind != ValueKind::kInitializer || !used[id]) continue;
    if (!v.shape) return Status::invalid("export: initializer '" + v.name + "' has no shape");
    onnx::TensorProto* t = gp->add_initializer();
    t->set_name(v.name);
    const double lo = bn_positive[id] ? 0.5 : -0.1, hi = bn_positive[id] ? 1.5 : 0.1;
    ROOFLENS_RETURN_IF_ERROR(
        fill_tensor(t, v.dtype, *v.shape, v.ints, v.reals, o, lo, hi, &offset, "initializer '" + v.name + "'"));
  }

  for (const Node& n : g.nodes) {
    onnx::NodeProto* np = gp->add_node();
    np->set_name(n.name);
    np->set_op_type(n.op_type);
    if (!n.domain.empty()) np->set_domain(n.domain);
    for (ValueId in : n.inputs) np->add_input(in == kNoValue ? "" : g.value(in).name);
    for (ValueId out : n.outputs) np->add_output(out == kNoValue ? "" : g.value(out).name);
    for (const auto& [name, value] : n.attrs)
      ROOFLENS_RETURN_IF_ERROR(set_attr(np->add_attribute(), name, value, o, n.op_type + " node '" + n.name + "'"));
  }
  std::string bytes;
  if (!m.SerializeToString(&bytes)) return Status::internal("export: protobuf serialization failed");
  return bytes;
}

Status export_onnx_file(const Graph& g, const std::string& path, const ExportOptions& o) {
  auto bytes = export_onnx_bytes(g, o);
  if (!bytes) return bytes.status().with_context(path);
  return write_file_atomic(path, *bytes);
}

}  // namespace rooflens
