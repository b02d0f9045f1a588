// The parts of an ONNX ModelProto that the importer uses, read straight from the file's
// bytes (src/onnx/wire.h): names, op types, attributes, dims, small tensor contents and
// external-data keys, as views into the buffer, which must outlive the view. Weight
// payloads are never copied. Field numbers are onnx.proto's (onnx 1.12, proto2).
//
// Semantics follow protobuf's parser: unknown fields and known fields with an unexpected
// wire type are skipped, a singular field seen twice keeps the last value (a message
// field is merged), a oneof keeps its last member, an enum value outside the enum is
// ignored, repeated scalars may be packed or not. Message fields the importer does not read
// (functions, training info, sparse tensors, metadata, non-tensor types) are checked by
// libprotobuf's generated classes and dropped, and subgraph attributes (If/Loop bodies) are
// parsed and dropped, so a file parses here exactly when it parses with libprotobuf
// (tests/unit/onnx_wire_test.cpp holds it to that).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace rooflens::onnx_view {

// A repeated scalar field in encoded form (see wire.h).
struct Scalars {
  std::vector<std::string_view> chunks;
  bool empty() const { return chunks.empty(); }
};

struct Tensor {
  std::string_view name;
  int32_t data_type = 0;
  std::vector<int64_t> dims;
  bool has_raw_data = false;
  std::string_view raw_data;
  bool external = false;  // data_location == EXTERNAL
  // external_data entries the importer reads (others are ignored); a key given twice keeps
  // its last value.
  struct ExternalRef {
    bool has_location = false, has_offset = false, has_length = false;
    std::string_view location, offset, length;
  } external_ref;
  Scalars float_data, int32_data, int64_data, double_data;  // fixed32, varint, varint, fixed64
};

// AttributeProto.AttributeType values.
enum AttrType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

struct Attribute {
  std::string_view name;
  int32_t type = kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string_view s;
  std::unique_ptr<Tensor> t;
  Scalars floats, ints;  // fixed32, varint
  std::vector<std::string_view> strings;
};

struct Dim {
  bool has_value = false, has_param = false;  // a oneof: at most one is set
  int64_t value = 0;
  std::string_view param;
};

struct ValueInfo {
  std::string_view name;
  bool has_tensor_type = false;
  int32_t elem_type = 0;
  bool has_shape = false;
  std::vector<Dim> dims;
};

struct Node {
  std::vector<std::string_view> inputs, outputs;
  std::string_view name, op_type, domain;
  std::vector<Attribute> attributes;
};

struct Graph {
  std::string_view name;
  std::vector<Node> nodes;
  std::vector<Tensor> initializers;
  std::vector<ValueInfo> inputs, outputs, value_info;
};

struct Model {
  int64_t ir_version = 0;
  bool has_graph = false;
  Graph graph;
  std::vector<std::pair<std::string_view, int64_t>> opset_imports;  // domain, version
};

// Parses `bytes` (which must outlive `model`); false when the framing is malformed.
bool parse_model(std::string_view bytes, Model* model);

// Counts and values of a Scalars field. Chunks were checked when parsed.
size_t count_varints(const Scalars& s);
size_t count_fixed(const Scalars& s, size_t width);
void decode_varints(const Scalars& s, std::vector<int64_t>* out, bool as_int32);
void decode_floats(const Scalars& s, std::vector<double>* out);
void decode_doubles(const Scalars& s, std::vector<double>* out);

}  // namespace rooflens::onnx_view
