// libFuzzer target: bytes -> what `rooflens analyze` does with an ONNX file (cli/analyze_cmd.cpp):
// import, shape inference, cost analysis with engine fusion and unfused, then the table, text
// and JSON reports. Every input must end in a report or an error Status: no crash, hang, leak
// or sanitizer report. External data resolves against a scratch directory holding one
// 432-byte file, external_data_offset_overflow.bin (the name a seed in tests/malformed uses),
// so the external-data checks run without depending on the host's files.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "rooflens/cost/cost.h"
#include "rooflens/onnx/import.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/report/analyze_report.h"
#include "rooflens/report/table.h"

namespace {

std::string g_model_dir;

void remove_model_dir() {
  std::error_code ec;
  if (!g_model_dir.empty()) std::filesystem::remove_all(g_model_dir, ec);
}

void analyze(const rooflens::Graph& g, const rooflens::InferResult& inferred, rooflens::FusionMode mode) {
  rooflens::AnalyzeOptions ao;
  ao.fusion = mode;
  rooflens::ModelAnalysis m = rooflens::analyze_graph(g, inferred, ao);
  m.model = "fuzz";
  const bool csv = mode == rooflens::FusionMode::kNone;
  auto t = rooflens::report::layers_table(m, csv);
  std::string out = csv ? rooflens::report::render_csv(t) : rooflens::report::render_text(t);
  out += rooflens::report::totals_text(m);
  out += rooflens::report::analyze_json({m}, false);
  ROOFLENS_FUZZ_CHECK(!out.empty(), "empty report");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/rooflens-fuzz-onnx.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  ROOFLENS_FUZZ_CHECK(mkdtemp(buf.data()) != nullptr, "cannot create the scratch model directory");
  g_model_dir = buf.data();
  std::atexit(remove_model_dir);
  std::ofstream f(g_model_dir + "/external_data_offset_overflow.bin", std::ios::binary);
  f << std::string(432, '\x01');
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  rooflens::ImportOptions io;
  auto g = rooflens::import_onnx_bytes(bytes, g_model_dir, io);
  if (!g) {
    ROOFLENS_FUZZ_CHECK(!g.status().message().empty(), "error Status without a message");
    return 0;
  }
  auto inferred = rooflens::infer_shapes(*g);
  if (!inferred) {
    ROOFLENS_FUZZ_CHECK(!inferred.status().message().empty(), "error Status without a message");
    return 0;
  }
  analyze(*g, *inferred, rooflens::FusionMode::kEngine);
  analyze(*g, *inferred, rooflens::FusionMode::kNone);
  return 0;
}
