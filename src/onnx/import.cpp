// ONNX import: the file's bytes read in place (model_view.h), then the IR built from them.
#include "rooflens/onnx/import.h"

#include "model_view.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>

namespace rooflens {
namespace {

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 18;
// Contents of integer/float initializers up to this many elements are kept for folding.
constexpr int64_t kKeepElements = 4096;

namespace ov = onnx_view;

std::string node_label(const ov::Node& n, int index) {
  return std::string(n.op_type) + " node '" + (n.name.empty() ? "#" + std::to_string(index) : std::string(n.name)) +
         "'";
}

// `what` (a callable returning the tensor's label) is called only to build an error.
template <typename What>
Expected<Shape> read_dims(const std::vector<int64_t>& dims, const What& what) {
  Shape s(dims.begin(), dims.end());
  for (int64_t d : s)
    if (d < 0) return Status::invalid(what() + ": negative dimension in dims " + shape_str(s));
  if (!checked_numel(s))
    return Status::invalid(what() + ": element count of dims " + shape_str(s) + " overflows 64 bits");
  return s;
}

template <typename T>
T read_le(std::string_view raw, size_t i) {
  T v;
  std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Decodes tensor contents into ints or reals (small tensors only). `raw` may come from
// the tensor itself or from an external file. `what()` labels the tensor in errors.
template <typename What>
Status decode_contents(const ov::Tensor& t, DType dt, int64_t numel, std::string_view raw, bool raw_present,
                       const What& what, std::vector<int64_t>* ints, std::vector<double>* reals, bool* has_data) {
  *has_data = false;
  const auto n = static_cast<size_t>(numel);
  if (raw_present) {
    const auto expect = static_cast<uint64_t>(numel) * static_cast<uint64_t>(dtype_bytes(dt));
    if (raw.size() != expect)
      return Status::invalid(what() + ": raw_data has " + std::to_string(raw.size()) + " bytes, dims " +
                             shape_str(Shape(t.dims.begin(), t.dims.end())) + " of " + std::string(dtype_name(dt)) +
                             " need " + std::to_string(expect));
    *has_data = true;
    if (numel > kKeepElements) return Status::ok();
    for (size_t i = 0; i < n; ++i) {
      switch (dt) {
        case DType::kI64: ints->push_back(read_le<int64_t>(raw, i)); break;
        case DType::kI32: ints->push_back(read_le<int32_t>(raw, i)); break;
        case DType::kI16: ints->push_back(read_le<int16_t>(raw, i)); break;
        case DType::kI8: ints->push_back(read_le<int8_t>(raw, i)); break;
        case DType::kU8:
        case DType::kBool: ints->push_back(read_le<uint8_t>(raw, i)); break;
        case DType::kF32: reals->push_back(read_le<float>(raw, i)); break;
        case DType::kF64: reals->push_back(read_le<double>(raw, i)); break;
        default: return Status::ok();  // fp16/bf16 contents are not needed for shapes
      }
    }
    return Status::ok();
  }
  // Typed fields.
  auto check = [&](size_t have) -> Status {
    if (have == 0) return Status::ok();
    if (static_cast<int64_t>(have) != numel)
      return Status::invalid(what() + ": has " + std::to_string(have) + " values, dims need " + std::to_string(numel));
    *has_data = true;
    return Status::ok();
  };
  const bool keep = numel <= kKeepElements;
  switch (dt) {
    case DType::kI64:
      ROOFLENS_RETURN_IF_ERROR(check(ov::count_varints(t.int64_data)));
      if (*has_data && keep) ov::decode_varints(t.int64_data, ints, false);
      break;
    case DType::kI32:
    case DType::kI16:
    case DType::kI8:
    case DType::kU8:
    case DType::kBool:
      ROOFLENS_RETURN_IF_ERROR(check(ov::count_varints(t.int32_data)));
      if (*has_data && keep) ov::decode_varints(t.int32_data, ints, true);
      break;
    case DType::kF32:
      ROOFLENS_RETURN_IF_ERROR(check(ov::count_fixed(t.float_data, 4)));
      if (*has_data && keep) ov::decode_floats(t.float_data, reals);
      break;
    case DType::kF64:
      ROOFLENS_RETURN_IF_ERROR(check(ov::count_fixed(t.double_data, 8)));
      if (*has_data && keep) ov::decode_doubles(t.double_data, reals);
      break;
    case DType::kF16:
    case DType::kBF16: ROOFLENS_RETURN_IF_ERROR(check(ov::count_varints(t.int32_data))); break;
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
Status read_external(const ov::Tensor& t, const std::string& model_dir, const What& what, std::string* raw,
                     bool* present, FileSizes* sizes) {
  *present = false;
  const auto& ref = t.external_ref;
  const std::string_view location = ref.location;  // points into the file's bytes
  int64_t offset = 0, length = -1;
  for (auto [key, has, txt, dst] : {std::tuple{"offset", ref.has_offset, ref.offset, &offset},
                                    std::tuple{"length", ref.has_length, ref.length, &length}}) {
    if (!has) continue;
    int64_t v = -1;
    auto [end, ec] = std::from_chars(txt.data(), txt.data() + txt.size(), v);
    if (ec != std::errc() || end != txt.data() + txt.size() || v < 0)
      return Status::invalid(what() + ": external_data " + key + " '" + std::string(txt) +
                             "' is not a non-negative integer");
    *dst = v;
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
    return Status::invalid(what() + ": external data [" + std::to_string(offset) + ", +" + std::to_string(length) +
                           ") lies outside '" + std::string(location) + "' (" + std::to_string(fsize) + " bytes)");
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
Expected<DecodedTensor> decode_tensor(const ov::Tensor& t, const std::string& model_dir, const What& what,
                                      FileSizes* sizes) {
  DecodedTensor d;
  d.dtype = dtype_from_onnx_code(t.data_type);
  if (d.dtype == DType::kUnknown)
    return Status::unsupported(what() + ": data_type " + std::to_string(t.data_type) + " is not supported");
  auto shape = read_dims(t.dims, what);
  if (!shape) return shape.status();
  d.shape = std::move(*shape);
  const int64_t numel = *checked_numel(d.shape);
  std::string external_raw;
  bool raw_present = t.has_raw_data;
  std::string_view raw = t.raw_data;
  if (t.external) {
    ROOFLENS_RETURN_IF_ERROR(read_external(t, model_dir, what, &external_raw, &raw_present, sizes));
    raw = external_raw;
    if (!raw_present) return d;  // no data: fine for analysis
  }
  ROOFLENS_RETURN_IF_ERROR(decode_contents(t, d.dtype, numel, raw, raw_present, what, &d.ints, &d.reals, &d.has_data));
  return d;
}

// `label` names the node in errors; it is built only when needed.
template <typename Label>
Expected<AttrValue> convert_attr(const ov::Attribute& a, const Label& label, const std::string& model_dir,
                                 FileSizes* sizes) {
  switch (a.type) {
    case ov::kInt: return AttrValue(static_cast<int64_t>(a.i));
    case ov::kFloat: return AttrValue(static_cast<double>(a.f));
    case ov::kString: return AttrValue(std::string(a.s));
    case ov::kInts: {
      std::vector<int64_t> v;
      ov::decode_varints(a.ints, &v, false);
      return AttrValue(std::move(v));
    }
    case ov::kFloats: {
      std::vector<double> v;
      ov::decode_floats(a.floats, &v);
      return AttrValue(std::move(v));
    }
    case ov::kStrings: return AttrValue(std::vector<std::string>(a.strings.begin(), a.strings.end()));
    case ov::kTensor: {
      static const ov::Tensor kEmpty;
      auto d = decode_tensor(
          a.t ? *a.t : kEmpty, model_dir, [&] { return label() + " attribute '" + std::string(a.name) + "'"; }, sizes);
      if (!d) return d.status();
      TensorConst tc{d->dtype, std::move(d->shape), std::move(d->ints), std::move(d->reals)};
      return AttrValue(std::move(tc));
    }
    default:
      return Status::unsupported(label() + ": attribute '" + std::string(a.name) + "' has type " +
                                 std::to_string(a.type) +
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
  if (!checked_numel(shape)) return Status::invalid("--input-shape '" + spec + "': element count overflows 64 bits");
  return shape;
}

Expected<Graph> import_onnx_view(std::string_view bytes, const std::string& model_dir, const ImportOptions& options);

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
  // Not zero-filled first: every byte is read over.
  auto bytes = std::make_unique_for_overwrite<char[]>(static_cast<size_t>(size));
  if (!f.read(bytes.get(), size)) return Status::invalid(path + ": read failed");
  auto dir = std::filesystem::path(path).parent_path().string();
  auto g = import_onnx_view(std::string_view(bytes.get(), static_cast<size_t>(size)), dir.empty() ? "." : dir, options);
  if (!g) return g.status().with_context(path);
  return g;
}

Expected<Graph> import_onnx_bytes(const std::string& bytes, const std::string& model_dir,
                                  const ImportOptions& options) {
  return import_onnx_view(bytes, model_dir, options);
}

namespace {

// The model's opset, checked against the supported range.
Status read_opset(const ov::Model& model, Graph& g) {
  const ov::Graph& gp = model.graph;
  g.name = gp.name;
  for (const auto& [domain, version] : model.opset_imports)
    if (domain.empty() || domain == "ai.onnx") g.opset = version;
  if (g.opset == 0) return Status::invalid("opset_import: no entry for the default ONNX domain");
  if (g.opset < kMinOpset || g.opset > kMaxOpset)
    return Status::unsupported("opset_import: opset " + std::to_string(g.opset) + " is outside the supported range " +
                               std::to_string(kMinOpset) + ".." + std::to_string(kMaxOpset));
  if (gp.nodes.empty()) return Status::invalid("graph '" + std::string(gp.name) + "' has no nodes");
  return Status::ok();
}

Status add_initializers(const ov::Graph& gp, const std::string& model_dir, FileSizes* file_sizes, Graph& g) {
  for (size_t i = 0; i < gp.initializers.size(); ++i) {
    const auto& t = gp.initializers[i];
    auto what = [&t] { return "initializer '" + std::string(t.name) + "'"; };  // built only for errors
    if (t.name.empty()) return Status::invalid("initializer #" + std::to_string(i) + " has no name");
    if (g.find_value(t.name)) return Status::invalid(what() + ": defined twice");
    auto d = decode_tensor(t, model_dir, what, file_sizes);
    if (!d) return d.status();
    Value v;
    v.name = t.name;
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
  return Status::ok();
}

// The shape of runtime input number `idx`: the file's, with the user's override and batch;
// binds the batch dimension's symbol in `symbols`.
Expected<Shape> input_shape(const ov::ValueInfo& in, size_t idx, const std::string& what, const ImportOptions& options,
                            std::map<std::string, int64_t>& symbols) {
  Shape shape;
  std::vector<std::string> syms;
  if (!in.has_shape) return Status::unsupported(what + ": has no shape; give --input-shape");
  for (const auto& d : in.dims) {
    if (d.has_value) {
      if (d.value < 0) return Status::invalid(what + ": negative dimension " + std::to_string(d.value));
      shape.push_back(d.value);
      syms.emplace_back();
    } else {
      shape.push_back(-1);
      syms.push_back(d.has_param ? std::string(d.param) : "?");
    }
  }
  // User override: named, or unnamed for the first input.
  for (const auto& o : options.input_shapes) {
    if (!(o.name == in.name || (o.name.empty() && idx == 0))) continue;
    if (o.shape.size() == shape.size()) {
      shape = o.shape;
    } else if (o.shape.size() + 1 == shape.size()) {
      for (size_t i = 0; i < o.shape.size(); ++i) shape[i + 1] = o.shape[i];
    } else {
      return Status::invalid("--input-shape " + shape_str(o.shape) + " has rank " + std::to_string(o.shape.size()) +
                             "; " + what + " has rank " + std::to_string(shape.size()) +
                             " (give all dims, or all but the batch)");
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
                             "'); give it with --input-shape " + std::string(in.name) + ":" + "...");
  if (!checked_numel(shape))
    return Status::invalid(what + ": element count of " + shape_str(shape) + " overflows 64 bits");
  return shape;
}

// Graph inputs (those that are not initializers), with user overrides.
Status add_inputs(const ov::Graph& gp, const ImportOptions& options, std::map<std::string, int64_t>& symbols,
                  Graph& g) {
  std::vector<const ov::ValueInfo*> runtime_inputs;
  for (const auto& in : gp.inputs)
    if (!g.find_value(in.name)) runtime_inputs.push_back(&in);  // the graph holds initializers only yet
  if (runtime_inputs.empty()) return Status::invalid("graph has no runtime inputs");
  for (const auto& o : options.input_shapes) {
    if (o.name.empty()) continue;
    bool found = false;
    for (auto* in : runtime_inputs) found |= in->name == o.name;
    if (!found) return Status::invalid("--input-shape: the graph has no input named '" + o.name + "'");
  }
  for (size_t idx = 0; idx < runtime_inputs.size(); ++idx) {
    const auto& in = *runtime_inputs[idx];
    const std::string what = "graph input '" + std::string(in.name) + "'";
    if (!in.has_tensor_type) return Status::unsupported(what + ": only tensor inputs are supported");
    Value v;
    v.name = in.name;
    v.kind = ValueKind::kInput;
    v.dtype = dtype_from_onnx_code(in.elem_type);
    if (v.dtype == DType::kUnknown)
      return Status::unsupported(what + ": elem_type " + std::to_string(in.elem_type) + " is not supported");
    auto shape = input_shape(in, idx, what, options, symbols);
    if (!shape) return shape.status();
    v.shape = std::move(*shape);
    g.inputs.push_back(g.add_value(std::move(v)));
  }
  return Status::ok();
}

// Node outputs first (so inputs can refer forward; cycles are found by topo_order). They get
// consecutive ids from the returned first output, in file order.
Expected<ValueId> add_node_outputs(const ov::Graph& gp, Graph& g) {
  const int node_count = static_cast<int>(gp.nodes.size());
  g.values.reserve(g.values.size() + gp.nodes.size() * 2);
  g.nodes.reserve(gp.nodes.size());
  const auto first_output = static_cast<ValueId>(g.values.size());
  for (int i = 0; i < node_count; ++i) {
    const auto& n = gp.nodes[static_cast<size_t>(i)];
    for (const auto& out : n.outputs) {
      if (out.empty()) continue;
      if (auto prev_id = g.find_value(out)) {
        std::string prev = "an initializer or graph input";
        // The first node writing it, this one included (an output listed twice).
        for (int j = 0; *prev_id >= first_output && j <= i; ++j) {
          const auto& outs = gp.nodes[static_cast<size_t>(j)].outputs;
          if (std::find(outs.begin(), outs.end(), out) == outs.end()) continue;
          prev = node_label(gp.nodes[static_cast<size_t>(j)], j);
          break;
        }
        return Status::invalid(node_label(n, i) + ": output '" + std::string(out) + "' is already produced by " + prev);
      }
      Value v;
      v.name = out;
      g.add_value(std::move(v));
    }
  }
  return first_output;
}

// value_info hints, with symbolic dims resolved where the symbol is bound.
void add_shape_hints(const ov::Graph& gp, const std::map<std::string, int64_t>& symbols, Graph& g) {
  auto hint = [&](const ov::ValueInfo& vi) {
    auto id = g.find_value(vi.name);
    if (!id || !vi.has_tensor_type || !vi.has_shape) return;
    Shape s;
    for (const auto& d : vi.dims) {
      if (d.has_value && d.value >= 0) {
        s.push_back(d.value);
        continue;
      }
      auto sym = d.has_param ? symbols.find(std::string(d.param)) : symbols.end();
      if (sym == symbols.end()) return;
      s.push_back(sym->second);
    }
    Value& v = g.value(*id);
    v.hint_shape = s;
    if (v.dtype == DType::kUnknown) v.dtype = dtype_from_onnx_code(vi.elem_type);
  };
  for (const auto& vi : gp.value_info) hint(vi);
  for (const auto& vi : gp.outputs) hint(vi);
}

Status add_nodes(const ov::Graph& gp, ValueId first_output, const std::string& model_dir, FileSizes* file_sizes,
                 Graph& g) {
  ValueId next_output = first_output;
  const int node_count = static_cast<int>(gp.nodes.size());
  for (int i = 0; i < node_count; ++i) {
    const auto& np = gp.nodes[static_cast<size_t>(i)];
    Node n;
    n.name = np.name.empty() ? std::string(np.op_type) + "_" + std::to_string(i) : std::string(np.name);
    n.op_type = np.op_type;
    n.domain = np.domain;
    const bool std_domain = np.domain.empty() || np.domain == "ai.onnx";
    n.kind = std_domain ? op_kind_from_onnx(n.op_type).value_or(OpKind::kUnknown) : OpKind::kUnknown;
    n.inputs.reserve(np.inputs.size());
    for (const auto& in : np.inputs) {
      if (in.empty()) {
        n.inputs.push_back(kNoValue);
        continue;
      }
      auto id = g.find_value(in);
      if (!id)
        return Status::invalid(node_label(np, i) + ": input '" + std::string(in) +
                               "' is not produced by any node, graph input or initializer");
      n.inputs.push_back(*id);
    }
    n.outputs.reserve(np.outputs.size());
    for (const auto& out : np.outputs) n.outputs.push_back(out.empty() ? kNoValue : next_output++);
    n.attrs.reserve(np.attributes.size());
    for (const auto& a : np.attributes) {
      auto v = convert_attr(
          a, [&] { return node_label(np, i); }, model_dir, file_sizes);
      if (!v) {
        if (n.kind == OpKind::kUnknown) continue;  // reported as an unknown op anyway
        return v.status();
      }
      n.attrs.insert_or_assign(std::string(a.name), std::move(*v));
    }
    g.add_node(std::move(n));
  }
  return Status::ok();
}

Expected<Graph> import_onnx_view(std::string_view bytes, const std::string& model_dir, const ImportOptions& options) {
  if (bytes.empty()) return Status::invalid("file is empty");
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return Status::unsupported("file is larger than 2 GiB (protobuf limit); store weights as external data");
  // Read in place: names and small contents are views into `bytes`.
  ov::Model model;
  if (!ov::parse_model(bytes, &model))
    return Status::invalid("not an ONNX model: protobuf parsing failed (truncated, corrupted or another format)");
  if (model.ir_version <= 0 || !model.has_graph) return Status::invalid("not an ONNX model: no ir_version or no graph");
  if (options.batch && *options.batch <= 0)
    return Status::invalid("batch must be positive, got " + std::to_string(*options.batch));

  Graph g;
  const ov::Graph& gp = model.graph;
  ROOFLENS_RETURN_IF_ERROR(read_opset(model, g));
  FileSizes file_sizes;
  g.values.reserve(gp.initializers.size() + gp.inputs.size() + gp.nodes.size() * 2);
  ROOFLENS_RETURN_IF_ERROR(add_initializers(gp, model_dir, &file_sizes, g));
  std::map<std::string, int64_t> symbols;
  ROOFLENS_RETURN_IF_ERROR(add_inputs(gp, options, symbols, g));
  auto first_output = add_node_outputs(gp, g);
  if (!first_output) return first_output.status();
  add_shape_hints(gp, symbols, g);
  ROOFLENS_RETURN_IF_ERROR(add_nodes(gp, *first_output, model_dir, &file_sizes, g));
  for (const auto& out : gp.outputs) {
    auto id = g.find_value(out.name);
    if (!id) return Status::invalid("graph output '" + std::string(out.name) + "' is not produced by any node");
    g.outputs.push_back(*id);
  }
  if (g.outputs.empty()) return Status::invalid("graph has no outputs");
  return g;
}

}  // namespace
}  // namespace rooflens
