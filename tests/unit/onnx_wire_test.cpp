// The importer reads ONNX's protobuf encoding itself (src/onnx/model_view.cpp). These tests
// hold it to libprotobuf's parser (the generated onnx::ModelProto) on the same bytes: the
// same verdict (parses or not) on every truncation and on seeded random corruptions of a
// real model, and the same graph on the encodings protobuf allows (packed or unpacked
// repeated fields, unknown fields, a known field with another wire type, groups, fields
// repeated or out of order).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "rooflens/cost/cost.h"
#include "rooflens/onnx/import.h"
#include "rooflens/passes/infer_shapes.h"

namespace rooflens {
namespace {

std::string read_model(const std::string& name) {
  std::ifstream f(std::string(ROOFLENS_SOURCE_DIR) + "/models/" + name, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool protobuf_parses(const std::string& bytes) {
  onnx::ModelProto m;
  return m.ParseFromString(bytes);
}

// Our verdict: did the byte-level parse succeed? (Later checks may still refuse the model.)
bool we_parse(const std::string& bytes) {
  auto g = import_onnx_bytes(bytes, ".", {});
  return g || g.status().message().find("protobuf parsing failed") == std::string::npos;
}

// Per-layer costs and names of a model: what the analysis sees of the import.
std::string summary(const std::string& bytes) {
  auto g = import_onnx_bytes(bytes, ".", {});
  if (!g) return "error: " + g.status().message();
  auto inf = infer_shapes(*g);
  if (!inf) return "error: " + inf.status().message();
  auto m = analyze_graph(*g, *inf, {});
  std::string s = g->name + " opset " + std::to_string(g->opset) + "\n";
  for (const auto& l : m.layers)
    s += l.name + " " + std::to_string(l.cost.macs) + " " + std::to_string(l.cost.bytes_in) + "\n";
  return s;
}

// Protobuf varint / tag encoders for hand-made fields.
std::string varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
  return s;
}
std::string tag(uint32_t field, int wt) { return varint((uint64_t{field} << 3) | static_cast<uint64_t>(wt)); }
std::string len_field(uint32_t field, const std::string& payload) {
  return tag(field, 2) + varint(payload.size()) + payload;
}

TEST(OnnxWire, EveryTruncationGetsProtobufsVerdict) {
  const std::string bytes = read_model("alexnet.onnx");
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::string cut = bytes.substr(0, n);
    ASSERT_EQ(we_parse(cut), protobuf_parses(cut)) << "first " << n << " bytes";
  }
}

TEST(OnnxWire, SeededCorruptionsGetProtobufsVerdict) {
  const std::string bytes = read_model("alexnet.onnx");
  std::mt19937_64 rng(20261130);
  int failing = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string b = bytes;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) b[rng() % b.size()] = static_cast<char>(rng() & 0xFF);
    const bool pb = protobuf_parses(b);
    failing += !pb;
    ASSERT_EQ(we_parse(b), pb) << "trial " << trial;
  }
  EXPECT_GT(failing, 100) << "too few corruptions broke the framing to test anything";
}

TEST(OnnxWire, EncodingsProtobufAllowsGiveTheSameGraph) {
  const std::string bytes = read_model("resnet18.onnx");
  const std::string want = summary(bytes);
  ASSERT_EQ(want.rfind("error", 0), std::string::npos) << want;

  // Unknown fields of every wire type (including a group) before and after the model's.
  const std::string unknown = tag(99, 0) + varint(300) + tag(98, 1) + std::string(8, 'x') + tag(97, 5) +
                              std::string(4, 'y') + len_field(96, "payload") + tag(95, 3) + tag(1, 0) + varint(7) +
                              tag(95, 4);
  EXPECT_EQ(summary(unknown + bytes + unknown), want);
  // A known field with another wire type is kept as unknown by protobuf: ir_version (1) as
  // a length-delimited field, graph (7) as a varint.
  EXPECT_EQ(summary(len_field(1, "abc") + bytes + tag(7, 0) + varint(5)), want);
  // ir_version written twice: the last one counts (here the same value, from the file).
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes));
  EXPECT_EQ(summary(tag(1, 0) + varint(0) + bytes), want);

  // Packed repeated fields (proto2 writes them unpacked): re-encode dims of every
  // initializer and ints of every attribute packed, by hand, and compare.
  onnx::ModelProto packed = m;
  std::string extra;
  for (auto& t : *packed.mutable_graph()->mutable_initializer()) {
    std::string dims;
    for (auto d : t.dims()) dims += varint(static_cast<uint64_t>(d));
    t.clear_dims();
    t.mutable_unknown_fields()->AddLengthDelimited(1, dims);  // field 1 = dims, packed
  }
  std::string packed_bytes;
  ASSERT_TRUE(packed.SerializeToString(&packed_bytes));
  EXPECT_EQ(summary(packed_bytes), want);
}

TEST(OnnxWire, MalformedFramingIsRefused) {
  const std::string bytes = read_model("alexnet.onnx");
  const std::string cases[] = {
      bytes + tag(5, 4),                            // end group without a start
      bytes + tag(5, 3) + tag(1, 0) + varint(1),    // group never closed
      bytes + tag(5, 3) + tag(6, 4),                // group closed with another field number
      bytes + tag(5, 6) + "x",                      // wire type 6
      bytes + std::string(1, '\0') + "\x01",        // field number 0
      bytes + tag(9, 0) + std::string(11, '\xff'),  // varint longer than 10 bytes
      bytes + tag(9, 2) + varint(1000),             // length past the end
      bytes + tag(8, 2) + varint(2) + tag(2, 0),    // opset_import whose version varint is cut
  };
  for (const auto& b : cases) {
    EXPECT_FALSE(protobuf_parses(b));
    EXPECT_FALSE(we_parse(b));
  }
}

}  // namespace
}  // namespace rooflens
