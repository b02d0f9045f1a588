// GraphBuilder: builds IR graphs in code (tests, built-in generators, NAS spaces).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rooflens/ir/graph.h"

namespace rooflens {

struct ConvSpec {
  int64_t stride = 1;
  int64_t pad = -1;  // -1: "same" for odd kernels, (k-1)/2 * dilation
  int64_t group = 1;
  int64_t dilation = 1;
  bool bias = false;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name = "graph", int64_t opset = 17);

  ValueId input(const std::string& name, Shape shape, DType dtype = DType::kF32);
  // A stored float tensor without data (weights are not needed for analysis).
  ValueId weight(const std::string& name, Shape shape, DType dtype = DType::kF32);
  // A stored 1-D int64 tensor with known contents (shapes, axes, slice bounds).
  ValueId ints(const std::string& name, std::vector<int64_t> values);
  // A stored float tensor with known contents.
  ValueId reals(const std::string& name, Shape shape, std::vector<double> values);

  // Adds a node of ONNX type `op_type`; returns its outputs.
  std::vector<ValueId> add(const std::string& op_type, const std::string& name, std::vector<ValueId> inputs,
                           std::map<std::string, AttrValue> attrs = {}, int num_outputs = 1);
  ValueId add1(const std::string& op_type, const std::string& name, std::vector<ValueId> inputs,
               std::map<std::string, AttrValue> attrs = {});

  // Conv with a generated weight `<name>.weight` [cout, cin/group, k, k] (and bias).
  ValueId conv(const std::string& name, ValueId x, int64_t cin, int64_t cout, int64_t k, ConvSpec spec = {});
  // BatchNormalization with generated scale/bias/mean/var of size c.
  ValueId batchnorm(const std::string& name, ValueId x, int64_t c);

  void output(ValueId v);
  Graph& graph() { return g_; }
  Graph finish() { return std::move(g_); }

 private:
  Graph g_;
};

}  // namespace rooflens
