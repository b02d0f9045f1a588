// GraphBuilder (see graph_builder.h).
#include "rooflens/ir/graph_builder.h"

namespace rooflens {

GraphBuilder::GraphBuilder(std::string name, int64_t opset) {
  g_.name = std::move(name);
  g_.opset = opset;
}

ValueId GraphBuilder::input(const std::string& name, Shape shape, DType dtype) {
  Value v;
  v.name = name;
  v.kind = ValueKind::kInput;
  v.dtype = dtype;
  v.shape = std::move(shape);
  ValueId id = g_.add_value(std::move(v));
  g_.inputs.push_back(id);
  return id;
}

ValueId GraphBuilder::weight(const std::string& name, Shape shape, DType dtype) {
  Value v;
  v.name = name;
  v.kind = ValueKind::kInitializer;
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.is_stored = true;
  return g_.add_value(std::move(v));
}

ValueId GraphBuilder::ints(const std::string& name, std::vector<int64_t> values) {
  Value v;
  v.name = name;
  v.kind = ValueKind::kInitializer;
  v.dtype = DType::kI64;
  v.shape = Shape{static_cast<int64_t>(values.size())};
  v.ints = std::move(values);
  v.has_data = true;
  v.is_stored = true;
  return g_.add_value(std::move(v));
}

ValueId GraphBuilder::reals(const std::string& name, Shape shape, std::vector<double> values) {
  Value v;
  v.name = name;
  v.kind = ValueKind::kInitializer;
  v.dtype = DType::kF32;
  v.shape = std::move(shape);
  v.reals = std::move(values);
  v.has_data = true;
  v.is_stored = true;
  return g_.add_value(std::move(v));
}

std::vector<ValueId> GraphBuilder::add(const std::string& op_type, const std::string& name, std::vector<ValueId> inputs,
                                       std::map<std::string, AttrValue> attrs, int num_outputs) {
  Node n;
  n.name = name;
  n.op_type = op_type;
  n.kind = op_kind_from_onnx(op_type).value_or(OpKind::kUnknown);
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  for (int i = 0; i < num_outputs; ++i) {
    Value v;
    v.name = num_outputs == 1 ? name + ".out" : name + ".out" + std::to_string(i);
    n.outputs.push_back(g_.add_value(std::move(v)));
  }
  std::vector<ValueId> outs = n.outputs;
  g_.add_node(std::move(n));
  return outs;
}

ValueId GraphBuilder::add1(const std::string& op_type, const std::string& name, std::vector<ValueId> inputs,
                           std::map<std::string, AttrValue> attrs) {
  return add(op_type, name, std::move(inputs), std::move(attrs), 1)[0];
}

ValueId GraphBuilder::conv(const std::string& name, ValueId x, int64_t cin, int64_t cout, int64_t k, ConvSpec spec) {
  ValueId w = weight(name + ".weight", {cout, cin / spec.group, k, k});
  std::vector<ValueId> ins = {x, w};
  if (spec.bias) ins.push_back(weight(name + ".bias", {cout}));
  const int64_t pad = spec.pad >= 0 ? spec.pad : (k - 1) / 2 * spec.dilation;
  std::map<std::string, AttrValue> attrs = {
      {"kernel_shape", std::vector<int64_t>{k, k}},
      {"strides", std::vector<int64_t>{spec.stride, spec.stride}},
      {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
      {"dilations", std::vector<int64_t>{spec.dilation, spec.dilation}},
      {"group", spec.group},
  };
  return add1("Conv", name, ins, attrs);
}

ValueId GraphBuilder::batchnorm(const std::string& name, ValueId x, int64_t c) {
  return add1("BatchNormalization", name,
              {x, weight(name + ".scale", {c}), weight(name + ".bias", {c}), weight(name + ".mean", {c}),
               weight(name + ".var", {c})},
              {{"epsilon", 1e-5}});
}

void GraphBuilder::output(ValueId v) { g_.outputs.push_back(v); }

}  // namespace rooflens
