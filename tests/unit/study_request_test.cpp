// A study request (files, zoo models, measurement and accuracy CSVs, models to fold) resolved
// against a zoo manifest to the study's entries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "rooflens/session/study_request.h"
#include "rooflens/session/zoo.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;

const std::string kModels = std::string(ROOFLENS_SOURCE_DIR) + "/models";

// A zoo directory of its own: a manifest naming three models (files need not exist until loaded).
class StudyRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rooflens_study_request_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    write("zoo.json", R"({"models": [{"name": "a", "file": "a.onnx", "acc1": 70, "acc5": 90},
                                      {"name": "b", "acc1": 60}, {"name": "c"}]})");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  StudyRequest request() const {
    StudyRequest r;
    r.models_dir = dir_.string();
    return r;
  }
  // The entries of a request that must resolve (none, and a failure, when it does not).
  std::vector<StudyEntry> entries(const StudyRequest& r) const {
    auto s = resolve_study_request(r);
    EXPECT_TRUE(s) << s.status().message();
    return s ? std::move(s->entries) : std::vector<StudyEntry>{};
  }
  std::string error(const StudyRequest& r) const {
    auto s = resolve_study_request(r);
    EXPECT_FALSE(s);
    return s ? "" : s.status().message();
  }
  fs::path dir_;
};

TEST_F(StudyRequestTest, ZooModelsWithTheManifestsAccuracy) {
  StudyRequest r = request();
  r.models = {"b"};
  r.zoo = true;
  r.fold = {"c"};
  auto s = resolve_study_request(r);
  ASSERT_TRUE(s) << s.status().message();
  ASSERT_EQ(s->entries.size(), 3u);
  EXPECT_EQ(s->entries[0].name, "b");  // named first, then the rest of the zoo by name
  EXPECT_EQ(s->entries[1].name, "a");
  EXPECT_EQ(s->entries[2].name, "c");
  EXPECT_EQ(s->files[0], dir_.string() + "/b.onnx");
  EXPECT_EQ(s->files[1], dir_.string() + "/a.onnx");
  EXPECT_EQ(s->entries[1].acc1, 70);
  EXPECT_EQ(s->entries[1].acc5, 90);
  EXPECT_EQ(s->entries[1].accuracy_source, "models/zoo.json");
  EXPECT_FALSE(s->entries[2].acc1);
  EXPECT_EQ(s->entries[2].accuracy_source, "");
  EXPECT_TRUE(s->entries[2].fold);
  EXPECT_FALSE(s->entries[0].fold);
}

// timm's zoo (timm/zoo.json) beside torchvision's: keyed timm/<name>, chosen by --zoo's set.
TEST_F(StudyRequestTest, TimmZooBesideTorchvisions) {
  fs::create_directories(dir_ / "timm");
  write("timm/zoo.json", R"({"models": [{"name": "a", "family": "f", "acc1": 80, "acc5": 95},
                                           {"name": "tresnet_m", "file": "t.onnx", "acc1": 83}]})");
  StudyRequest r = request();
  r.zoo = true;
  r.zoo_set = ZooSet::kTimm;
  auto s = resolve_study_request(r);
  ASSERT_TRUE(s) << s.status().message();
  ASSERT_EQ(s->entries.size(), 2u);
  EXPECT_EQ(s->entries[0].name, "timm/a");  // not torchvision's a
  EXPECT_EQ(s->entries[0].acc1, 80);
  EXPECT_EQ(s->entries[0].accuracy_source, "models/timm/zoo.json");
  EXPECT_EQ(s->files[1], dir_.string() + "/timm/t.onnx");

  r.zoo_set = ZooSet::kAll;
  EXPECT_EQ(entries(r).size(), 5u);  // a, b, c, timm/a, timm/tresnet_m
  r.zoo_set = ZooSet::kTorchvision;
  EXPECT_EQ(entries(r).size(), 3u);

  // --models finds a timm model by its key or, where no torchvision model has the name, by
  // its timm name; a measurements row (timm's benchmark CSV) the same way.
  StudyRequest m = request();
  m.models = {"tresnet_m", "timm/a", "a"};
  const auto e = entries(m);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].name, "timm/tresnet_m");
  EXPECT_EQ(e[0].acc1, 83);
  EXPECT_EQ(e[1].name, "timm/a");
  EXPECT_EQ(e[2].name, "a");
  EXPECT_EQ(e[2].acc1, 70);
  StudyRequest w = request();
  w.measurements_csv = write("bench.csv", "model,infer_samples_per_sec,infer_batch_size\ntresnet_m,1000,256\n");
  const auto we = entries(w);
  ASSERT_EQ(we.size(), 1u);
  EXPECT_EQ(we[0].acc1, 83);
}

TEST(ZooSetName, ParsesTheThreeSetsAndRefusesOthers) {
  EXPECT_EQ(*parse_zoo_set("torchvision"), ZooSet::kTorchvision);
  EXPECT_EQ(*parse_zoo_set("timm"), ZooSet::kTimm);
  EXPECT_EQ(*parse_zoo_set("all"), ZooSet::kAll);
  auto bad = parse_zoo_set("tim");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("'tim'"), std::string::npos);
}

TEST_F(StudyRequestTest, FilesByStemAndTheAccuracyCsvFirst) {
  StudyRequest r = request();
  r.files = {write("a.onnx", "")};
  r.accuracy_csv = write("acc.csv", "model,acc1,acc5\na,50,75\n");
  const auto e = entries(r);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].name, "a");
  EXPECT_EQ(e[0].acc1, 50);
  EXPECT_EQ(e[0].accuracy_source, r.accuracy_csv);
}

TEST_F(StudyRequestTest, MeasurementRowsAreTheModels) {
  StudyRequest r = request();
  r.models = {"a"};  // not used: the measurements name the models
  r.measurements_csv = write("m.csv", "model,batch,throughput\nc,32,1500\nb,8,900\n");
  const auto e = entries(r);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].name, "c");
  EXPECT_EQ(e[0].given_batch, 32);
  EXPECT_EQ(e[0].given_throughput, 1500);
  EXPECT_EQ(e[1].acc1, 60);
}

TEST_F(StudyRequestTest, BadRequestsSayWhatAndWhere) {
  StudyRequest r = request();
  r.models = {"zz"};
  EXPECT_EQ(error(r), "--models: 'zz' is not in the zoo (see rooflens zoo)");
  r.models = {"a", "a"};
  EXPECT_EQ(error(r), "--models: model 'a' given twice");
  r.models = {"a"};
  r.fold = {"b"};
  EXPECT_EQ(error(r), "--fold: 'b' is not among the studied models");
  r.fold = {};
  r.accuracy_csv = (dir_ / "none.csv").string();
  EXPECT_EQ(error(r), "--accuracy '" + r.accuracy_csv + "': cannot open the file");
  EXPECT_EQ(error(request()), "study: give ONNX files, --models, --zoo or --measurements");
  StudyRequest f = request();
  f.files = {"no/such.onnx"};
  EXPECT_EQ(error(f), "'no/such.onnx': no such file");
  StudyRequest m = request();
  m.measurements_csv = write("m.csv", "model,batch,throughput\nnope,1,10\n");
  EXPECT_NE(error(m).find("m.csv:2: model 'nope' is not in the zoo"), std::string::npos);
}

TEST_F(StudyRequestTest, TheLoadersImportTheModelFiles) {
  StudyRequest r;
  r.models_dir = kModels;
  r.models = {"resnet18"};
  r.dtype = DType::kF32;
  auto s = resolve_study_request(r);
  ASSERT_TRUE(s) << s.status().message();
  auto l = s->entries[0].load(4);
  ASSERT_TRUE(l) << l.status().message();
  EXPECT_EQ(l->analysis.batch, 4);
  EXPECT_EQ(l->analysis.dtype, DType::kF32);
  EXPECT_TRUE(s->entries[0].acc1);  // from the bundled manifest
}

TEST(Zoo, MissingManifestIsEmpty) { EXPECT_TRUE(zoo_index("/no/such/dir").empty()); }

}  // namespace
}  // namespace rooflens
