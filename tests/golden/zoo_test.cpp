// Every bundled zoo model against the reference counts PyTorch took at export time
// (models/zoo.json, written by scripts/export_zoo.py): MACs and conv/linear output elements
// at batch 1 (CNNs: forward hooks on Conv2d/Linear; transformers: every matrix product ATen
// executed, attention's Q.K^T and A.V included), and parameters against torchvision's metadata.
// timm's CNNs: models/timm/zoo.json (scripts/export_timm_zoo.py, the same rule counted at
// F.conv1d/F.conv2d/F.linear), parameters against timm's results table (0.01 M rounding).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "rooflens/cost/cost.h"
#include "rooflens/device/device.h"
#include "rooflens/onnx/import.h"
#include "rooflens/passes/infer_shapes.h"
#include "rooflens/perf/model.h"

namespace rooflens {
namespace {

const std::string kModels = std::string(ROOFLENS_SOURCE_DIR) + "/models";

// Each entry of dir/zoo.json, with "dir" (its directory) added.
std::vector<nlohmann::json> zoo_entries(const std::string& dir = kModels) {
  std::ifstream f(dir + "/zoo.json");
  if (!f) return {};
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) return {};
  auto entries = j["models"].get<std::vector<nlohmann::json>>();
  for (auto& e : entries) e["dir"] = dir;
  return entries;
}

std::string model_path(const nlohmann::json& e) {
  return e["dir"].get<std::string>() + "/" + e["file"].get<std::string>();
}

class Zoo : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(Zoo, MatchesPyTorchHooksAndTorchvisionParams) {
  const auto& e = GetParam();
  auto g = import_onnx_file(model_path(e), {});
  ASSERT_TRUE(g) << g.status().message();
  auto r = infer_shapes(*g);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_TRUE(r->unknown_nodes.empty());
  AnalyzeOptions fused_opts, unfused_opts;
  unfused_opts.fusion = FusionMode::kNone;
  ModelAnalysis fused = analyze_graph(*g, *r, fused_opts);
  ModelAnalysis unfused = analyze_graph(*g, *r, unfused_opts);

  EXPECT_EQ(fused.batch, 1);
  EXPECT_EQ(fused.totals.macs, e["ref_macs"].get<int64_t>());
  EXPECT_EQ(unfused.totals.macs, fused.totals.macs);

  // Products of stored data alone (Swin V2's position-bias MLP) run when the model loads:
  // folded, like the reference's products of parameters alone.
  int64_t linear_outputs = 0;
  for (const auto& n : g->nodes) {
    if (n.folded) continue;
    if (n.kind == OpKind::kConv || n.kind == OpKind::kGemm || n.kind == OpKind::kMatMul ||
        (n.kind == OpKind::kEinsum && n.inputs.size() == 2))
      linear_outputs += *checked_numel(*g->value(n.outputs[0]).shape);
  }
  EXPECT_EQ(linear_outputs, e["ref_output_elements"].get<int64_t>());

  // torchvision's num_params, unless the manifest explains why the inference graph holds
  // fewer (then: the parameters of the model as exported). timm's: the parameters of the
  // modules that ran, and the built model's within the published table's rounding.
  const int64_t num_params = e["num_params"].get<int64_t>();
  const int64_t torch_params = e.value("torch_params", num_params);
  if (e.contains("param_count_published_m")) {
    EXPECT_EQ(fused.params, e["ref_params_executed"].get<int64_t>());
    const double published = e["param_count_published_m"].get<double>() * 1e6;
    if (!e.contains("notes")) {
      EXPECT_NEAR(static_cast<double>(torch_params), published, 5000.0);
    }
  } else if (e.contains("ref_stored_params")) {
    EXPECT_EQ(fused.params, e["ref_stored_params"].get<int64_t>());
  } else if (num_params == torch_params) {
    EXPECT_EQ(fused.params, num_params);
  } else {
    ASSERT_TRUE(e.contains("notes")) << "num_params != torch_params without a note";
    EXPECT_EQ(fused.params, torch_params) << e["notes"];
  }
  // Fusion never adds traffic.
  EXPECT_LE(fused.totals.bytes_in + fused.totals.bytes_out, unfused.totals.bytes_in + unfused.totals.bytes_out);
}

// Physics holds for every zoo model on every device: no layer beats either roof,
// utilization never exceeds 100%, AI never falls as the batch grows.
TEST_P(Zoo, PredictionsObeyTheRoofline) {
  const auto& e = GetParam();
  auto db = load_device_dir(std::string(ROOFLENS_SOURCE_DIR) + "/data/devices");
  ASSERT_TRUE(db) << db.status().message();
  const std::string path = model_path(e);
  for (const char* dtype : {"fp16", "fp32"}) {
    AnalyzeOptions ao;
    ao.cost.dtype = *parse_dtype(dtype);
    double prev_ai = 0;
    std::map<std::string, double> prev_time;
    for (int64_t batch : {1, 32}) {
      ImportOptions io;
      io.batch = batch;
      auto g = import_onnx_file(path, io);
      ASSERT_TRUE(g) << g.status().message();
      auto r = infer_shapes(*g);
      ASSERT_TRUE(r);
      ModelAnalysis m = analyze_graph(*g, *r, ao);
      EXPECT_GE(m.ai, prev_ai * (1 - 1e-12)) << dtype << " batch " << batch;
      prev_ai = m.ai;
      for (const DeviceSpec& d : *db) {
        if (!d.best_peak(dtype)) continue;
        PerfOptions po;
        po.dtype = dtype;
        auto p = predict(*g, m, d, po);
        ASSERT_TRUE(p) << p.status().message();
        const double peak = d.best_peak(dtype)->flops;
        for (const auto& L : p->layers) {
          if (L.bound == Bound::kNone) continue;
          EXPECT_GE(L.time_s * (1 + 1e-9), static_cast<double>(L.flops) / peak) << d.id << " " << L.name;
          EXPECT_GE(L.time_s * (1 + 1e-9), static_cast<double>(L.dram_bytes) / d.mem_bandwidth)
              << d.id << " " << L.name;
          if (L.split_k == 1) {
            EXPECT_LE(L.dram_bytes, L.bytes) << d.id << " " << L.name;  // L2 reuse only lowers traffic
          }
        }
        EXPECT_LE(p->utilization, 1.0) << d.id;
        if (p->utilization_measured) {
          EXPECT_LE(*p->utilization_measured, 1.0) << d.id;
        }
        EXPECT_GT(p->throughput, 0) << d.id;
        // More images never take less time.
        EXPECT_GE(p->time_s * (1 + 1e-9), prev_time[d.id]) << d.id << " batch " << batch;
        prev_time[d.id] = p->time_s;
      }
    }
  }
}

std::string entry_name(const ::testing::TestParamInfo<nlohmann::json>& info) {
  return info.param["name"].get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(Torchvision, Zoo, ::testing::ValuesIn(zoo_entries()), entry_name);
INSTANTIATE_TEST_SUITE_P(Timm, Zoo, ::testing::ValuesIn(zoo_entries(kModels + "/timm")), entry_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Zoo);

TEST(ZooManifest, CoversTheTransformerFamilies) {
  std::set<std::string> families, names;
  for (const auto& e : zoo_entries()) {
    families.insert(e["family"].get<std::string>());
    names.insert(e["name"].get<std::string>());
  }
  for (const char* f : {"vit", "swin", "swin_v2", "maxvit"}) EXPECT_TRUE(families.count(f)) << f;
  for (const char* n : {"vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "swin_t", "swin_s", "swin_b", "swin_v2_t",
                        "swin_v2_s", "swin_v2_b", "maxvit_t"})
    EXPECT_TRUE(names.count(n)) << n;
}

// The engine view runs attention as one fused kernel: every Softmax of a transformer sits in
// an attention layer, whose traffic leaves out the score matrix the unfused view writes.
class ZooTransformer : public Zoo {};

std::vector<nlohmann::json> transformer_entries() {
  std::vector<nlohmann::json> out;
  for (const auto& e : zoo_entries()) {
    const std::string fam = e["family"].get<std::string>();
    if (fam == "vit" || fam == "swin" || fam == "swin_v2" || fam == "maxvit") out.push_back(e);
  }
  return out;
}

TEST_P(ZooTransformer, AttentionIsFusedInTheEngineView) {
  const auto& e = GetParam();
  auto g = import_onnx_file(kModels + "/" + e["file"].get<std::string>(), {});
  ASSERT_TRUE(g) << g.status().message();
  auto r = infer_shapes(*g);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_TRUE(r->unresolved.empty());
  ModelAnalysis m = analyze_graph(*g, *r, AnalyzeOptions{});
  int softmax = 0, attention = 0;
  for (const auto& n : g->nodes) softmax += n.kind == OpKind::kSoftmax && !n.folded;
  for (const auto& L : m.layers) {
    if (!L.attention) continue;
    ++attention;
    // Boundary traffic: Q, K, V (and a position bias) in, the context out; no scores.
    const int64_t out = checked_numel(L.out_shapes.at(0)).value_or(0) * 4;
    EXPECT_EQ(L.cost.bytes_out, out) << L.name;
    EXPECT_GT(L.cost.macs, 0) << L.name;
  }
  EXPECT_EQ(attention, softmax);
}
INSTANTIATE_TEST_SUITE_P(Torchvision, ZooTransformer, ::testing::ValuesIn(transformer_entries()), entry_name);

TEST(ZooManifest, ExistsAndCoversTheCnnFamilies) {
  auto entries = zoo_entries();
  ASSERT_FALSE(entries.empty()) << "models/zoo.json missing or empty";
  std::set<std::string> families;
  for (const auto& e : entries) families.insert(e["family"].get<std::string>());
  for (const char* f : {"resnet", "resnext", "wide_resnet", "vgg", "densenet", "mobilenet_v2", "mobilenet_v3",
                        "efficientnet", "efficientnet_v2", "regnet_x", "regnet_y", "mnasnet", "shufflenet_v2",
                        "squeezenet", "googlenet", "inception", "convnext", "alexnet"})
    EXPECT_TRUE(families.count(f)) << f;
}

// The seed study's zoo: at least 100 of timm 0.5's CNNs, its families, TResNet-M/L/XL among
// them; every model that did not make it is listed with a reason.
TEST(ZooManifest, TimmCoversTheSeedStudysFamilies) {
  auto entries = zoo_entries(kModels + "/timm");
  EXPECT_GE(entries.size(), 100u);
  std::set<std::string> families, names;
  for (const auto& e : entries) {
    families.insert(e["family"].get<std::string>());
    names.insert(e["name"].get<std::string>());
    EXPECT_TRUE(e["acc1"].is_number() && e["acc5"].is_number()) << e["name"];
  }
  for (const char* n : {"tresnet_m", "tresnet_l", "tresnet_xl"}) EXPECT_TRUE(names.count(n)) << n;
  // A family is in the zoo, or its models are listed as failed with the reason.
  std::ifstream f(kModels + "/timm/zoo.json");
  auto j = nlohmann::json::parse(f);
  for (const auto& x : j.value("failed", nlohmann::json::array())) {
    EXPECT_FALSE(x.value("reason", "").empty()) << x.dump();
    families.insert(x.value("family", ""));
  }
  for (const char* f :
       {"resnet", "resnext",      "resnest",  "sknet",     "ecaresnet", "efficientnet", "mixnet", "mnasnet",
        "fbnet",  "mobilenet_v3", "rexnet",   "ghostnet",  "regnet_x",  "regnet_y",     "dpn",    "dla",
        "hrnet",  "cspnet",       "xception", "inception", "vovnet",    "selecsls",     "tresnet"})
    EXPECT_TRUE(families.count(f)) << f;
}

}  // namespace
}  // namespace rooflens
