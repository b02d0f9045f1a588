#include "rooflens/calibration/level_networks.h"
#include "rooflens/onnx/export.h"
#include <cstdio>
#include <string>
using namespace rooflens;
int main(int argc, char** argv) {
  const int64_t batch = std::stoll(argv[1]);
  for (auto& n : level_networks(batch)) {
    ExportOptions o;
    auto s = export_onnx_file(n.graph, std::string(argv[2]) + "/level_" + n.name + ".onnx", o);
    if (!s.ok()) { std::fprintf(stderr, "%s\n", s.message().c_str()); return 1; }
  }
}
