// InferContext / CostContext helpers and dispatch through the op table.
#include "rooflens/ops/op_hooks.h"

#include <array>

namespace rooflens {
namespace {

template <typename T>
const char* type_name_of() {
  if constexpr (std::is_same_v<T, int64_t>) return "int";
  if constexpr (std::is_same_v<T, double>) return "float";
  if constexpr (std::is_same_v<T, std::string>) return "string";
  if constexpr (std::is_same_v<T, std::vector<int64_t>>) return "ints";
  if constexpr (std::is_same_v<T, std::vector<double>>) return "floats";
  return "?";
}

}  // namespace

const AttrValue* InferContext::find_attr(std::string_view name) const {
  auto it = node().attrs.find(std::string(name));
  return it == node().attrs.end() ? nullptr : &it->second;
}

bool InferContext::has_attr(std::string_view name) const { return find_attr(name) != nullptr; }

template <typename T>
static Expected<T> get_attr(const InferContext& ctx, const AttrValue* a, std::string_view name, std::optional<T> def) {
  if (!a) {
    if (def) return *def;
    return ctx.invalid(name, "required attribute is missing");
  }
  if (const T* v = std::get_if<T>(a)) return *v;
  // ONNX writes a float attribute as float and ints as int; accept int where float is expected.
  if constexpr (std::is_same_v<T, double>)
    if (const int64_t* v = std::get_if<int64_t>(a)) return static_cast<double>(*v);
  return ctx.invalid(name, std::string("attribute has the wrong type (expected ") + type_name_of<T>() + ")");
}

Expected<int64_t> InferContext::attr_int(std::string_view name, std::optional<int64_t> def) const {
  return get_attr<int64_t>(*this, find_attr(name), name, def);
}
Expected<double> InferContext::attr_float(std::string_view name, std::optional<double> def) const {
  return get_attr<double>(*this, find_attr(name), name, def);
}
Expected<std::string> InferContext::attr_string(std::string_view name, std::optional<std::string> def) const {
  return get_attr<std::string>(*this, find_attr(name), name, std::move(def));
}
Expected<std::vector<int64_t>> InferContext::attr_ints(std::string_view name,
                                                       std::optional<std::vector<int64_t>> def) const {
  return get_attr<std::vector<int64_t>>(*this, find_attr(name), name, std::move(def));
}
Expected<std::vector<double>> InferContext::attr_floats(std::string_view name,
                                                        std::optional<std::vector<double>> def) const {
  return get_attr<std::vector<double>>(*this, find_attr(name), name, std::move(def));
}
const TensorConst* InferContext::attr_tensor(std::string_view name) const {
  const AttrValue* a = find_attr(name);
  return a ? std::get_if<TensorConst>(a) : nullptr;
}

Status InferContext::invalid(std::string_view field, std::string_view message) const {
  return Status::invalid(node().op_type + " node '" + node().name + "': " + std::string(field) + ": " +
                         std::string(message));
}
Status InferContext::unsupported(std::string_view field, std::string_view message) const {
  return Status::unsupported(node().op_type + " node '" + node().name + "': " + std::string(field) + ": " +
                             std::string(message));
}

Status InferContext::require_io(size_t min_in, size_t max_in, size_t min_out, size_t max_out) const {
  if (num_inputs() < min_in || num_inputs() > max_in)
    return invalid("inputs", "has " + std::to_string(num_inputs()) + " inputs, expected " + std::to_string(min_in) +
                                 (max_in != min_in ? " to " + std::to_string(max_in) : ""));
  for (size_t i = 0; i < min_in; ++i)
    if (!has_input(i)) return invalid("inputs", "required input " + std::to_string(i) + " is empty");
  if (num_outputs() < min_out || num_outputs() > max_out)
    return invalid("outputs", "has " + std::to_string(num_outputs()) + " outputs, expected " + std::to_string(min_out) +
                                  (max_out != min_out ? " to " + std::to_string(max_out) : ""));
  return Status::ok();
}

Status InferContext::require_input(size_t i, std::string_view what) const {
  if (!has_input(i)) return invalid(what, "required input is missing");
  return Status::ok();
}

Status InferContext::require_rank(size_t i, int64_t rank, std::string_view what) const {
  if (in_rank(i) != rank)
    return invalid(what, "has rank " + std::to_string(in_rank(i)) + " (shape " + shape_str(in_shape(i)) +
                             "), expected rank " + std::to_string(rank));
  return Status::ok();
}

Status InferContext::require_float(size_t i, std::string_view what) const {
  if (!dtype_is_float(in_dtype(i)))
    return invalid(what,
                   "has element type " + std::string(dtype_name(in_dtype(i))) + ", expected a floating-point type");
  return Status::ok();
}

Expected<int64_t> InferContext::normalize_axis(int64_t axis, int64_t rank, std::string_view field) const {
  if (axis < -rank || axis >= rank)
    return invalid(field, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Status InferContext::set_output(size_t i, DType dtype, Shape shape) {
  if (i >= num_outputs()) return Status::ok();  // an optional output not present
  ValueId out = node().outputs[i];
  if (out == kNoValue) return Status::ok();
  for (int64_t d : shape)
    if (d < 0)
      return invalid("output " + std::to_string(i), "inferred a negative dimension (shape " + shape_str(shape) + ")");
  auto numel = checked_numel(shape);
  if (!numel)
    return invalid("output " + std::to_string(i), "element count overflows 64 bits (shape " + shape_str(shape) + ")");
  // Byte and FLOP counts of such a tensor must fit in 64 bits too.
  if (*numel > kMaxTensorElements)
    return invalid("output " + std::to_string(i), "has " + std::to_string(*numel) + " elements (shape " +
                                                      shape_str(shape) +
                                                      "), more than rooflens's limit of 2^52 per tensor");
  Value& v = g_.value(out);
  v.dtype = dtype;
  v.shape = std::move(shape);
  return Status::ok();
}

void InferContext::set_output_ints(size_t i, std::vector<int64_t> v) {
  if (i < num_outputs() && node().outputs[i] != kNoValue) g_.value(node().outputs[i]).ints = std::move(v);
}
void InferContext::set_output_reals(size_t i, std::vector<double> v) {
  if (i < num_outputs() && node().outputs[i] != kNoValue) g_.value(node().outputs[i]).reals = std::move(v);
}

int64_t CostContext::in_numel(size_t i) const { return checked_numel(in_shape(i)).value_or(0); }
int64_t CostContext::out_numel(size_t i) const { return checked_numel(out_shape(i)).value_or(0); }

int64_t CostContext::elem_bytes(const Value& v) const {
  if (dtype_is_float(v.dtype)) return dtype_bytes(opts_.dtype);
  return dtype_bytes(v.dtype);
}

int64_t CostContext::bytes_of(const Value& v) const {
  if (!v.shape) return 0;
  return checked_numel(*v.shape).value_or(0) * elem_bytes(v);
}

OpCost CostContext::default_traffic() const {
  OpCost c;
  for (size_t i = 0; i < node().inputs.size(); ++i) {
    if (!has_input(i)) continue;
    const Value& v = input(i);
    if (v.is_stored) {
      if (dtype_is_float(v.dtype)) c.bytes_weights += bytes_of(v);
    } else if (!v.ints && !v.reals) {
      c.bytes_in += bytes_of(v);
    }
  }
  for (size_t i = 0; i < node().outputs.size(); ++i)
    if (node().outputs[i] != kNoValue) c.bytes_out += bytes_of(output(i));
  return c;
}

using InferFn = Status (*)(InferContext&);
using CostFn = OpCost (*)(const CostContext&);

static constexpr std::array<InferFn, kOpCount> kInferFns = {{
#define ROOFLENS_X(kind, name, family, cat) &infer_##kind,
    ROOFLENS_OP_LIST(ROOFLENS_X)
#undef ROOFLENS_X
}};
static constexpr std::array<CostFn, kOpCount> kCostFns = {{
#define ROOFLENS_X(kind, name, family, cat) &cost_##kind,
    ROOFLENS_OP_LIST(ROOFLENS_X)
#undef ROOFLENS_X
}};

Status infer_node(OpKind kind, InferContext& ctx) {
  ROOFLENS_ASSERT(kind != OpKind::kUnknown);
  return kInferFns[static_cast<size_t>(kind)](ctx);
}

OpCost cost_node(OpKind kind, const CostContext& ctx) {
  ROOFLENS_ASSERT(kind != OpKind::kUnknown);
  return kCostFns[static_cast<size_t>(kind)](ctx);
}

}  // namespace rooflens
