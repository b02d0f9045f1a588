// ONNX import through libonnx's protobuf classes.
#include "rooflens/onnx/import.h"

#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <sstream>

namespace rooflens {
namespace {

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 18;
// Contents of integer/float initializers up to this many elements are kept for folding.
constexpr int64_t kKeepElements = 4096;

std::string node_label(const onnx::NodeProto& n, int index) {
  return n.op_type() + " node '" + (n.name().empty() ? "#" + std::to_string(index) : n.name()) + "'";
}

// `what` (a callable returning the tensor's label) is called only to build an error.
template <typename What>
Expected<Shape> read_dims(const google::protobuf::RepeatedField<int64_t>& dims, const What& what) {
  Shape s(dims.begin(), dims.end());
  for (int64_t d : s)
    if (d < 0) return Status::invalid(what() + ": negative dimension in dims " + shape_str(s));
  if (!checked_numel(s))
    return Status::invalid(what() + ": element count of dims " + shape_str(s) + " overflows 64 bits");
  return s;
}

template <typename T>
T read_le(const std::string& raw, size_t i) {
  T v;
  std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Decodes tensor contents into ints or reals (small tensors only). `raw` may come from
// the tensor itself or from an external file. `what()` labels the tensor in errors.
template <typename What>
Status decode_contents(const onnx::TensorProto& t, DType dt, int64_t numel, const std::string& raw,
                       bool raw_present, const What& what, std::vector<int64_t>* ints,
                       std::vector<double>* reals, bool* has_data) {
  *has_data = false;
  const auto n = static_cast<size_t>(numel);
  if (raw_present) {
    const auto expect = static_cast<uint64_t>(numel) * static_cast<uint64_t>(dtype_bytes(dt));
    if (raw.size() != expect)
      return Status::invalid(what() + ": raw_data has " + std::to_string(raw.size()) +
                             " bytes, dims " + shape_str(Shape(t.dims().begin(), t.dims().end())) +
                             " of " + std::string(dtype_name(dt)) + " need " + std::to_string(expect));
    *has_data = true;
    if (numel > kKeepElements) return Status::ok();
    for (size_t i = 0; i < n; ++i) {
      switch (dt) {
        case DType::kI64: ints->push_back(read_le<int64_t>(raw, i)); break;
        case DType::kI32: ints->push_back(read_le<int32_t>(raw, i)); break;
        case DType::kI16: ints->push_back(read_le<int16_t>(raw, i)); break;
        case DType::kI8: ints->push_back(read_le<int8_t>(raw, i)); break;
        case DType::kU8: case DType::kBool: ints->push_back(read_le<uint8_t>(raw, i)); break;
        case DType::kF32: reals->push_back(read_le<float>(raw, i)); break;
        case DType::kF64: reals->push_back(read_le<double>(raw, i)); break;
        default: return Status::ok();  // fp16/bf16 contents are not needed for shapes
      }
    }
    return Status::ok();
  }
  // Typed fields.
  auto check = [&](int have) -> Status {
    if (have == 0) return Status::ok();
    if (static_cast<int64_t>(have) != numel)
      return Status::invalid(what() + ": has " + std::to_string(have) + " values, dims need " +
                             std::to_string(numel));
    *has_data = true;
    return Status::ok();
  };
  switch (dt) {
    case DType::kI64:
      ROOFLENS_RETURN_IF_ERROR(check(t.int64_data_size()));
      if (*has_data && numel <= kKeepElements) ints->assign(t.int64_data().begin(), t.int64_data().end());
      break;
    case DType::kI32: case DType::kI16: case DType::kI8: case DType::kU8: case DType::kBool:
      ROOFLENS_RETURN_IF_ERROR(check(t.int32_data_size()));
      if (*has_data && numel <= kKeepElements) ints->assign(t.int32_data().begin(), t.int32_data().end());
      break;
    case DType::kF32:
      ROOFLENS_RETURN_IF_ERROR(check(t.float_data_size()));
      if (*has_data && numel <= kKeepElements) reals->assign(t.float_data().begin(), t.float_data().end());
      break;
    case DType::kF64:
      ROOFLENS_RETURN_IF_ERROR(check(t.double_data_size()));
      if (*has_data && numel <= kKeepElements) reals->assign(t.double_data().begin(), t.double_data().end());
      break;
    case DType::kF16: case DType::kBF16:
      ROOFLENS_RETURN_IF_ERROR(check(t.int32_data_size()));
      break;
    default: break;
  }
  return Status::ok();
}

struct DecodedTensor {
  DType dtype = DType::kUnknown;
  Shape shape;
  std::vector<int64_t> ints;
  std::vector<double> reals;
  bool has_data = false;
};

// Reads an external-data tensor's bytes if its file exists; missing files are fine
// (weights stripped on purpose), malformed references are not.
// Sizes of external data files by location (-1: missing), looked up once per model.
using FileSizes = std::map<std::string, int64_t, std::less<>>;

template <typename What>
Status read_external(const onnx::TensorProto& t, const std::string& model_dir,
                     const What& what, std::string* raw, bool* present, FileSizes* sizes) {
  *present = false;
  std::string_view location;  // points into `t`, which outlives this call
  int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v = -1;
      const std::string& txt = kv.value();
      auto [end, ec] = std::from_chars(txt.data(), txt.data() + txt.size(), v);
      if (ec != std::errc() || end != txt.data() + txt.size() || v < 0)
        return Status::invalid(what() + ": external_data " + kv.key() + " '" + kv.value() +
                               "' is not a non-negative integer");
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty()) return Status::invalid(what() + ": external data has no location");
  if (model_dir.empty()) return Status::ok();
  auto known = sizes->find(location);
  if (known == sizes->end()) {
    const std::filesystem::path p = std::filesystem::path(model_dir) / location;
    std::error_code ec;
    int64_t size = -1;
    if (std::filesystem::is_regular_file(p, ec)) {
      auto fs = std::filesystem::file_size(p, ec);
      if (!ec) size = static_cast<int64_t>(fs);
    }
    known = sizes->emplace(std::string(location), size).first;
  }
  if (known->second < 0) return Status::ok();  // stripped weights
  const auto fsize = static_cast<uint64_t>(known->second);
  if (length < 0) length = static_cast<int64_t>(fsize) - offset;
  if (length < 0 || offset > static_cast<int64_t>(fsize) || length > static_cast<int64_t>(fsize) - offset)
    return Status::invalid(what() + ": external data [" + std::to_string(offset) + ", +" +
                           std::to_string(length) + ") lies outside '" + std::string(location) + "' (" +
                           std::to_string(fsize) + " bytes)");
  if (length > kKeepElements * 8) return Status::ok();  // big weights: not needed for analysis
  std::ifstream f(std::filesystem::path(model_dir) / location, std::ios::binary);
  f.seekg(offset);
  raw->resize(static_cast<size_t>(length));
  f.read(raw->data(), length);
  *present = static_cast<bool>(f);
  return Status::ok();
}

// `what()` labels the tensor in errors; it is called only when one is reported.
template <typename What>
Expected<DecodedTensor> decode_tensor(const onnx::TensorProto& t, const std::string& model_dir,
                                      const What& what, FileSizes* sizes) {
  DecodedTensor d;
  d.dtype = dtype_from_onnx_code(t.data_type());
  if (d.dtype == DType::kUnknown)
    return Status::unsupported(what() + ": data_type " + std::to_string(t.data_type()) +
                               " is not supported");
  auto shape = read_dims(t.dims(), what);
  if (!shape) return shape.status();
  d.shape = std::move(*shape);
  const int64_t numel = *checked_numel(d.shape);
  std::string external_raw;
  bool raw_present = t.has_raw_data();
  const std::string* raw = &t.raw_data();
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    ROOFLENS_RETURN_IF_ERROR(read_external(t, model_dir, what, &external_raw, &raw_present, sizes));
    raw = &external_raw;
    if (!raw_present) return d;  // no data: fine for analysis
  }
  ROOFLENS_RETURN_IF_ERROR(
      decode_contents(t, d.dtype, numel, *raw, raw_present, what, &d.ints, &d.reals, &d.has_data));
  return d;
}

// `label` names the node in errors; it is built only when needed.
template <typename Label>
Expected<AttrValue> convert_attr(const onnx::AttributeProto& a, const Label& label,
                                 const std::string& model_dir, FileSizes* sizes) {
  switch (a.type()) {
    case onnx::AttributeProto::INT: return AttrValue(static_cast<int64_t>(a.i()));
    case onnx::AttributeProto::FLOAT: return AttrValue(static_cast<double>(a.f()));
    case onnx::AttributeProto::STRING: return AttrValue(a.s());
    case onnx::AttributeProto::INTS:
      return AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case onnx::AttributeProto::FLOATS:
      return AttrValue(std::vector<double>(a.floats().begin(), a.floats().end()));
    case onnx::AttributeProto::STRINGS:
      return AttrValue(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case onnx::AttributeProto::TENSOR: {
      auto d = decode_tensor(a.t(), model_dir, [&] { return label() + " attribute '" + a.name() + "'"; }, sizes);
      if (!d) return d.status();
      TensorConst tc{d->dtype, std::move(d->shape), std::move(d->ints), std::move(d->reals)};
      return AttrValue(std::move(tc));
    }
    default:
      return Status::unsupported(label() + ": attribute '" + a.name() + "' has type " +
                                 std::to_string(static_cast<int>(a.type())) +
                                 " (graphs, sparse tensors and type protos are not supported)");
  }
}

Expected<Shape> parse_dims_spec(const std::string& s, const std::string& spec) {
  Shape shape;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, 'x')) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
      return Status::invalid("--input-shape '" + spec + "': '" + part +
                             "' is not a positive integer (expected e.g. 3x224x224 or input:1x3x224x224)");
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(part.c_str(), &end, 10);
    if (errno == ERANGE || v <= 0)
      return Status::invalid("--input-shape '" + spec + "': dimension '" + part +
                             "' must be a positive 64-bit integer");
    shape.push_back(v);
  }
  if (shape.empty()) return Status::invalid("--input-shape '" + spec + "': no dimensions");
  if (!checked_numel(shape))
    return Status::invalid("--input-shape '" + spec + "': element count overflows 64 bits");
  return shape;
}

}  // namespace

Expected<InputShapeOverride> parse_input_shape(const std::string& spec) {
  InputShapeOverride o;
  std::string dims = spec;
  auto colon = spec.rfind(':');
  if (colon != std::string::npos) {
    o.name = spec.substr(0, colon);
    dims = spec.substr(colon + 1);
    if (o.name.empty()) return Status::invalid("--input-shape '" + spec + "': empty input name");
  }
  auto s = parse_dims_spec(dims, spec);
  if (!s) return s.status();
  o.shape = *s;
  return o;
}

Expected<Graph> import_onnx_file(const std::string& path, const ImportOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::invalid(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) return Status::invalid(path + ": is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::invalid(path + ": cannot open for reading");
  f.seekg(0, std::ios::end);
  const auto size = f.tellg();
  if (size < 0) return Status::invalid(path + ": cannot determine the file size");
  f.seekg(0, std::ios::beg);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (!f.read(bytes.data(), size)) return Status::invalid(path + ": read failed");
  auto dir = std::filesystem::path(path).parent_path().string();
  auto g = import_onnx_bytes(bytes, dir.empty() ? "." : dir, options);
  if (!g) return g.status().with_context(path);
  return g;
}

Expected<Graph> import_onnx_bytes(const std::string& bytes, const std::string& model_dir,
                                  const ImportOptions& options) {
  if (bytes.empty()) return Status::invalid("file is empty");
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return Status::unsupported("file is larger than 2 GiB (protobuf limit); store weights as external data");
  // Arena allocation: the message tree is freed at once, and parsing allocates far less.
  google::protobuf::Arena arena;
  onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Status::invalid("not an ONNX model: protobuf parsing failed (truncated, corrupted or another format)");
  if (model.ir_version() <= 0 || !model.has_graph())
    return Status::invalid("not an ONNX model: no ir_version or no graph");
  if (options.batch && *options.batch <= 0)
    return Status::invalid("batch must be positive, got " + std::to_string(*options.batch));

  Graph g;
  const onnx::GraphProto& gp = model.graph();
  g.name = gp.name();
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") g.opset = op.version();
  if (g.opset == 0) return Status::invalid("opset_import: no entry for the default ONNX domain");
  if (g.opset < kMinOpset || g.opset > kMaxOpset)
    return Status::unsupported("opset_import: opset " + std::to_string(g.opset) +
                               " is outside the supported range " + std::to_string(kMinOpset) +
                               ".." + std::to_string(kMaxOpset));
  if (gp.node_size() == 0) return Status::invalid("graph '" + gp.name() + "' has no nodes");

  // Initializers.
  FileSizes file_sizes;
  std::unordered_set<std::string> init_names;
  for (int i = 0; i < gp.initializer_size(); ++i) {
    const auto& t = gp.initializer(i);
    auto what = [&t] { return "initializer '" + t.name() + "'"; };  // built only for errors
    if (t.name().empty()) return Status::invalid("initializer #" + std::to_string(i) + " has no name");
    if (!init_names.insert(t.name()).second) return Status::invalid(what() + ": defined twice");
    auto d = decode_tensor(t, model_dir, what, &file_sizes);
    if (!d) return d.status();
    Value v;
    v.name = t.name();
    v.kind = ValueKind::kInitializer;
    v.dtype = d->dtype;
    v.has_data = d->has_data;
    v.is_stored = true;
    if (d->has_data && dtype_is_integer(d->dtype) && !d->ints.empty()) v.ints = std::move(d->ints);
    if (d->has_data && dtype_is_integer(d->dtype) && d->shape.empty() == false && d->ints.empty() &&
        checked_numel(d->shape) == 0)
      v.ints = std::vector<int64_t>{};
    if (d->has_data && dtype_is_float(d->dtype) && !d->reals.empty()) v.reals = std::move(d->reals);
    v.shape = std::move(d->shape);
    g.add_value(std::move(v));
  }

  // Graph inputs (those that are not initializers), with user overrides.
  std::map<std::string, int64_t> symbols;
  std::vector<const onnx::ValueInfoProto*> runtime_inputs;
  for (const auto& in : gp.input())
    if (!init_names.count(in.name())) runtime_inputs.push_back(&in);
  if (runtime_inputs.empty()) return Status::invalid("graph has no runtime inputs");
  for (const auto& o : options.input_shapes) {
    if (o.name.empty()) continue;
    bool found = false;
    for (auto* in : runtime_inputs) found |= in->name() == o.name;
    if (!found) return Status::invalid("--input-shape: the graph has no input named '" + o.name + "'");
  }
  for (size_t idx = 0; idx < runtime_inputs.size(); ++idx) {
    const auto& in = *runtime_inputs[idx];
    const std::string what = "graph input '" + in.name() + "'";
    if (!in.type().has_tensor_type())
      return Status::unsupported(what + ": only tensor inputs are supported");
    const auto& tt = in.type().tensor_type();
    Value v;
    v.name = in.name();
    v.kind = ValueKind::kInput;
    v.dtype = dtype_from_onnx_code(tt.elem_type());
    if (v.dtype == DType::kUnknown)
      return Status::unsupported(what + ": elem_type " + std::to_string(tt.elem_type()) + " is not supported");
    Shape shape;
    std::vector<std::string> syms;
    if (!tt.has_shape()) return Status::unsupported(what + ": has no shape; give --input-shape");
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value()) {
        if (d.dim_value() < 0) return Status::invalid(what + ": negative dimension " + std::to_string(d.dim_value()));
        shape.push_back(d.dim_value());
        syms.emplace_back();
      } else {
        shape.push_back(-1);
        syms.push_back(d.has_dim_param() ? d.dim_param() : "?");
      }
    }
    // User override: named, or unnamed for the first input.
    for (const auto& o : options.input_shapes) {
      if (!(o.name == in.name() || (o.name.empty() && idx == 0))) continue;
      if (o.shape.size() == shape.size()) {
        shape = o.shape;
      } else if (o.shape.size() + 1 == shape.size()) {
        for (size_t i = 0; i < o.shape.size(); ++i) shape[i + 1] = o.shape[i];
      } else {
        return Status::invalid("--input-shape " + shape_str(o.shape) + " has rank " +
                               std::to_string(o.shape.size()) + "; " + what + " has rank " +
                               std::to_string(shape.size()) + " (give all dims, or all but the batch)");
      }
      for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] >= 0) syms[i].clear();
    }
    if (!shape.empty()) {
      if (options.batch) {
        shape[0] = *options.batch;
      } else if (shape[0] < 0) {
        shape[0] = 1;
      }
      if (!syms[0].empty() && syms[0] != "?") symbols[syms[0]] = shape[0];
    }
    for (size_t i = 0; i < shape.size(); ++i)
      if (shape[i] < 0)
        return Status::invalid(what + ": dimension " + std::to_string(i) + " is symbolic ('" + syms[i] +
                               "'); give it with --input-shape " + in.name() + ":" + "...");
    if (!checked_numel(shape))
      return Status::invalid(what + ": element count of " + shape_str(shape) + " overflows 64 bits");
    v.shape = shape;
    g.inputs.push_back(g.add_value(std::move(v)));
  }

  // Node outputs first (so inputs can refer forward; cycles are found by topo_order).
  std::unordered_map<std::string_view, int> producer_of;  // output name -> node index
  g.values.reserve(g.values.size() + static_cast<size_t>(gp.node_size()) * 2);
  g.nodes.reserve(static_cast<size_t>(gp.node_size()));
  for (int i = 0; i < gp.node_size(); ++i) {
    const auto& n = gp.node(i);
    for (const auto& out : n.output()) {
      if (out.empty()) continue;
      if (init_names.count(out) || g.find_value(out)) {
        auto it = producer_of.find(out);
        auto prev = it != producer_of.end() ? node_label(gp.node(it->second), it->second)
                                            : std::string("an initializer or graph input");
        return Status::invalid(node_label(n, i) + ": output '" + out + "' is already produced by " + prev);
      }
      Value v;
      v.name = out;
      g.add_value(std::move(v));
      producer_of.emplace(out, i);
    }
  }
  // value_info hints, with symbolic dims resolved where the symbol is bound.
  auto hint = [&](const onnx::ValueInfoProto& vi) {
    auto id = g.find_value(vi.name());
    if (!id || !vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    Shape s;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      if (d.has_dim_value() && d.dim_value() >= 0) s.push_back(d.dim_value());
      else if (d.has_dim_param() && symbols.count(d.dim_param())) s.push_back(symbols[d.dim_param()]);
      else return;
    }
    Value& v = g.value(*id);
    v.hint_shape = s;
    if (v.dtype == DType::kUnknown) v.dtype = dtype_from_onnx_code(vi.type().tensor_type().elem_type());
  };
  for (const auto& vi : gp.value_info()) hint(vi);
  for (const auto& vi : gp.output()) hint(vi);

  for (int i = 0; i < gp.node_size(); ++i) {
    const auto& np = gp.node(i);
    Node n;
    n.name = np.name().empty() ? np.op_type() + "_" + std::to_string(i) : np.name();
    n.op_type = np.op_type();
    n.domain = np.domain();
    const bool std_domain = np.domain().empty() || np.domain() == "ai.onnx";
    n.kind = std_domain ? op_kind_from_onnx(np.op_type()).value_or(OpKind::kUnknown) : OpKind::kUnknown;
    for (const auto& in : np.input()) {
      if (in.empty()) {
        n.inputs.push_back(kNoValue);
        continue;
      }
      auto id = g.find_value(in);
      if (!id)
        return Status::invalid(node_label(np, i) + ": input '" + in +
                               "' is not produced by any node, graph input or initializer");
      n.inputs.push_back(*id);
    }
    for (const auto& out : np.output()) n.outputs.push_back(out.empty() ? kNoValue : *g.find_value(out));
    for (const auto& a : np.attribute()) {
      auto v = convert_attr(a, [&] { return node_label(np, i); }, model_dir, &file_sizes);
      if (!v) {
        if (n.kind == OpKind::kUnknown) continue;  // reported as an unknown op anyway
        return v.status();
      }
      n.attrs[a.name()] = std::move(*v);
    }
    g.add_node(std::move(n));
  }

  for (const auto& out : gp.output()) {
    auto id = g.find_value(out.name());
    if (!id) return Status::invalid("graph output '" + out.name() + "' is not produced by any node");
    g.outputs.push_back(*id);
  }
  if (g.outputs.empty()) return Status::invalid("graph has no outputs");
  return g;
}

}  // namespace rooflens
