// Helpers of the kernel-table tests: synthetic timings, a test device file around a table,
// a small fitted table, the refusal check and fp32 predictions on the test device.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"
#include "rooflens/ir/graph_builder.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/kernel_predict.h"
#include "rooflens/perf/model.h"

namespace rooflens {

// Synthetic timings t = dispatch + fixed + exp(c0 + sum c_i x_i) over a grid of features.
inline std::vector<KernelSample> synthetic(const std::vector<double>& coef, double dispatch, size_t nfeat,
                                           double noise = 0, double fixed = 0) {
  std::vector<KernelSample> out;
  uint64_t s = 12345;
  for (int i = 0; i < 60; ++i) {
    KernelSample k;
    for (size_t j = 0; j < nfeat; ++j) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
      // Features 3, 4, 6 and 7 of conv classes are 0/1 indicators, 5 the log of a lane fill
      // in (1/4, 1]; the others are logs of sizes.
      k.x.push_back(j == 5   ? std::log(0.25 + 0.75 * u)
                    : j >= 3 ? (u < 0.5 ? 0.0 : 1.0)
                             : std::log(8.0) + u * std::log(4096.0));
    }
    double lin = coef[0];
    for (size_t j = 0; j < nfeat; ++j) lin += coef[j + 1] * k.x[j];
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const double e = noise * (static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5);
    k.seconds = dispatch + fixed + std::exp(lin + e);
    out.push_back(k);
  }
  return out;
}

inline std::string device_text(const std::string& kernel_table) {
  std::ifstream f(std::string(ROOFLENS_SOURCE_DIR) + "/data/devices/epyc-milan-2c.json");
  std::stringstream ss;
  ss << f.rdbuf();
  auto j = nlohmann::json::parse(ss.str());
  j["kernel_table"] = nlohmann::json::parse(kernel_table);
  return j.dump();
}

inline KernelTable small_table() {
  KernelTable t;
  t.backend = "oneDNN test";
  t.threads = 2;
  t.dispatch_s = 2e-6;
  t.classes["gemm"] = *fit_kernel_class("gemm", synthetic({-16.0, 1.0, 0.9, 0.95, 0.2}, 2e-6, 4), 2e-6);
  t.classes["reorder"] = *fit_kernel_class("reorder", synthetic({-12.0, 1.0, 0.2}, 2e-6, 2), 2e-6);
  return t;
}

inline void expect_refused(const std::string& table, const std::string& field) {
  auto d = parse_device_json(device_text(table), "my-cpu.json");
  ASSERT_FALSE(d) << "accepted: " << table;
  EXPECT_NE(d.status().message().find("my-cpu.json"), std::string::npos) << d.status().message();
  EXPECT_NE(d.status().message().find(field), std::string::npos) << d.status().message();
}

// `g` predicted in fp32 on the test device with table `t`; `l2_bytes` > 0 replaces the device
// file's L2 per core; `bandwidth`, when given, receives the device's memory bandwidth.
inline Expected<Prediction> predict_with_table(Graph g, const KernelTable& t, double l2_bytes = 0,
                                               double* bandwidth = nullptr) {
  auto inferred = infer_shapes(g);
  if (!inferred) return inferred.status();
  const ModelAnalysis m = analyze_graph(g, *inferred, AnalyzeOptions{});
  auto j = nlohmann::json::parse(device_text(kernel_table_json(t)));
  if (l2_bytes > 0) j["cpu"]["l2_bytes"] = l2_bytes;
  auto d = parse_device_json(j.dump(), "cpu.json");
  if (!d) return d.status();
  if (bandwidth) *bandwidth = d->mem_bandwidth;
  PerfOptions o;
  o.dtype = "fp32";
  return predict(g, m, *d, o);
}

// The prediction of one Gemm, [rows, 4096] x [n_out, 4096]^T, on the bundled CPU device with
// kernel table `t`; `bandwidth` receives that device's memory bandwidth.
inline Expected<Prediction> predict_gemm(int64_t rows, int64_t n_out, const KernelTable& t,
                                         double* bandwidth = nullptr) {
  GraphBuilder b("fc");
  ValueId x = b.input("x", {rows, 4096});
  b.output(b.add1("Gemm", "fc", {x, b.weight("fc.weight", {n_out, 4096})}, {{"transB", int64_t{1}}}));
  return predict_with_table(b.finish(), t, 0, bandwidth);
}

}  // namespace rooflens
