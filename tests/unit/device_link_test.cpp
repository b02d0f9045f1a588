// The host link of device files (host_link: the PCIe link a GPU's inputs cross): parsing, the
// PCIe rate rule, refusals that name the file and field, and the bundled database.
#include <gtest/gtest.h>

#include <string>

#include "rooflens/device/device.h"
#include "rooflens/report/predict_report.h"
#include "rooflens/report/table.h"

namespace rooflens {
namespace {

const std::string kDevices = std::string(ROOFLENS_SOURCE_DIR) + "/data/devices";

// A minimal valid GPU file with `link` as its host_link value and `source` as its
// sources.host_link value (both JSON text; empty: left out).
std::string gpu_file(const std::string& link, const std::string& source = "") {
  std::string j = R"({"schema":"rooflens.device/1","id":"g","name":"g","kind":"gpu","sm_count":80,
      "max_threads_per_sm":2048,"max_blocks_per_sm":32,"memory":{"bytes":16e9,"bandwidth":9e11},
      "peaks":[{"dtype":"fp16","unit":"tensor","accumulator":"fp32","flops":1.25e14}])";
  if (!link.empty()) j += R"(,"host_link":)" + link;
  if (!source.empty()) j += R"(,"sources":{"host_link":)" + source + "}";
  return j + "}";
}

std::string cpu_file(const std::string& link) {
  return R"({"schema":"rooflens.device/1","id":"c","name":"c","kind":"cpu","memory":{"bytes":16e9,"bandwidth":2e10},
      "peaks":[{"dtype":"fp32","unit":"simd","accumulator":"fp32","flops":1e11}],
      "cpu":{"cores":2,"simd_bits":256,"fma_units":2},"host_link":)" +
         link + "}";
}

// The message of a refused file, or a failure when it loads.
std::string refusal(const std::string& text, const std::string& file = "link.json") {
  auto d = parse_device_json(text, file);
  EXPECT_FALSE(d) << "accepted: " << text;
  return d ? std::string() : d.status().message();
}

TEST(DeviceLink, PcieRatesPerDirection) {
  // 8 GT/s x 16 x 128/130 / 8 = 15.75 GB/s; 4.0 and 5.0 double each step.
  EXPECT_NEAR(*pcie_bandwidth("PCIe 3.0 x16"), 15.75e9, 0.01e9);
  EXPECT_NEAR(*pcie_bandwidth("PCIe 4.0 x16"), 31.5e9, 0.02e9);
  EXPECT_NEAR(*pcie_bandwidth("PCIe 5.0 x16"), 63.0e9, 0.04e9);
  EXPECT_NEAR(*pcie_bandwidth("PCIe 4.0 x8"), 15.75e9, 0.01e9);
  EXPECT_NEAR(*pcie_bandwidth("PCIe 2.0 x16"), 8e9, 1e6);  // 5 GT/s x 16 x 8/10 / 8
  EXPECT_NEAR(*pcie_bandwidth("PCIe 6.0 x16"), 128e9, 1e6);
  for (const char* bad : {"PCIe 4 x16", "PCIe 4.0", "PCIe 4.0 x3", "PCIe 7.0 x16", "PCIe Gen4 x16", "pcie 4.0 x16",
                          "PCIe 4.0 x16 extra", "NVLink"}) {
    auto r = pcie_bandwidth(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(r.status().message().find("PCIe <generation> x<lanes>"), std::string::npos) << r.status().message();
  }
}

TEST(DeviceLink, ParsesNameBandwidthAndSource) {
  auto d =
      parse_device_json(gpu_file(R"({"name":"PCIe 4.0 x16","bandwidth":31.5e9})", R"("A100 datasheet")"), "a.json");
  ASSERT_TRUE(d) << d.status().message();
  ASSERT_TRUE(d->host_link.has_value());
  EXPECT_EQ(d->host_link->name, "PCIe 4.0 x16");
  EXPECT_DOUBLE_EQ(d->host_link->bandwidth_bytes_per_s, 31.5e9);
  EXPECT_EQ(d->host_link->source, "A100 datasheet");
}

TEST(DeviceLink, AbsentOrNullIsNoLink) {
  auto absent = parse_device_json(gpu_file(""), "a.json");
  ASSERT_TRUE(absent) << absent.status().message();
  EXPECT_FALSE(absent->host_link.has_value());
  auto null = parse_device_json(gpu_file("null"), "a.json");
  ASSERT_TRUE(null) << null.status().message();
  EXPECT_FALSE(null->host_link.has_value());
  auto cpu = parse_device_json(cpu_file("null"), "c.json");
  ASSERT_TRUE(cpu) << cpu.status().message();
  EXPECT_FALSE(cpu->host_link.has_value());
}

TEST(DeviceLink, NonPcieLinksNeedOnlyAPositiveRate) {
  // e.g. a Grace Hopper part, whose GPU sits on NVLink-C2C: no PCIe rule applies.
  auto d = parse_device_json(gpu_file(R"({"name":"NVLink-C2C","bandwidth":450e9})"), "gh.json");
  ASSERT_TRUE(d) << d.status().message();
  EXPECT_EQ(d->host_link->name, "NVLink-C2C");
}

TEST(DeviceLink, MalformedLinksAreRefusedNamingFileAndField) {
  struct Case {
    std::string link, field, words;
  };
  const Case cases[] = {
      {R"("PCIe 4.0 x16")", "'host_link'", "must be an object"},
      {R"({"bandwidth":31.5e9})", "'host_link.name'", "missing"},
      {R"({"name":"","bandwidth":31.5e9})", "'host_link.name'", "must not be empty"},
      {R"({"name":4,"bandwidth":31.5e9})", "'host_link.name'", "must be a string"},
      {R"({"name":"PCIe 4.0 x16"})", "'host_link.bandwidth'", "missing"},
      {R"({"name":"PCIe 4.0 x16","bandwidth":"32 GB/s"})", "'host_link.bandwidth'", "must be a number"},
      {R"({"name":"PCIe 4.0 x16","bandwidth":-1})", "'host_link.bandwidth'", "must be positive"},
      {R"({"name":"PCIe 4.0 x16","bandwidth":31.5e9,"lanes":16})", "'host_link.lanes'", "unknown key"},
      {R"({"name":"PCIe Gen4","bandwidth":31.5e9})", "'host_link.name'", "PCIe <generation> x<lanes>"},
      // The datasheet's bidirectional sum is recognised and explained.
      {R"({"name":"PCIe 4.0 x16","bandwidth":64e9})", "'host_link.bandwidth'", "bidirectional sum"},
      // A rate that does not belong to the generation and width named.
      {R"({"name":"PCIe 3.0 x16","bandwidth":31.5e9})", "'host_link.bandwidth'",
       "PCIe 3.0 x16 carries 15.75 GB/s per direction"},
  };
  for (const Case& c : cases) {
    const std::string m = refusal(gpu_file(c.link), "bad_link.json");
    EXPECT_NE(m.find("bad_link.json: field " + c.field), std::string::npos) << c.link << " -> " << m;
    EXPECT_NE(m.find(c.words), std::string::npos) << c.link << " -> " << m;
  }
  const std::string cpu = refusal(cpu_file(R"({"name":"PCIe 4.0 x16","bandwidth":31.5e9})"), "cpu.json");
  EXPECT_NE(cpu.find("cpu.json: field 'host_link': a cpu device has no host link"), std::string::npos) << cpu;
  const std::string src = refusal(gpu_file(R"({"name":"PCIe 4.0 x16","bandwidth":31.5e9})", "5"), "src.json");
  EXPECT_NE(src.find("src.json: field 'sources.host_link': must be a string"), std::string::npos) << src;
}

TEST(DeviceLink, EveryBundledGpuHasASourcedLinkAndNoCpuHasOne) {
  auto db = load_device_dir(kDevices);
  ASSERT_TRUE(db) << db.status().message();
  int gpus = 0;
  for (const DeviceSpec& d : *db) {
    if (!d.is_gpu()) {
      EXPECT_FALSE(d.host_link.has_value()) << d.id;
      continue;
    }
    ++gpus;
    ASSERT_TRUE(d.host_link.has_value()) << d.id << " has no host_link";
    EXPECT_GT(d.host_link->bandwidth_bytes_per_s, 0) << d.id;
    EXPECT_GT(d.host_link->source.size(), 40u) << d.id << " has no (or a token) sources.host_link";
    // An integrated GPU (Jetson) has no bus; every other bundled link is PCIe, whose rate is
    // the theoretical one of its name.
    if (d.host_link->name.rfind("PCIe", 0) != 0) {
      EXPECT_NE(d.host_link->name.find("integrated"), std::string::npos) << d.id << ": " << d.host_link->name;
      continue;
    }
    auto expected = pcie_bandwidth(d.host_link->name);
    ASSERT_TRUE(expected) << d.id << ": " << expected.status().message();
    EXPECT_NEAR(d.host_link->bandwidth_bytes_per_s, *expected, 0.01 * *expected) << d.id;
  }
  EXPECT_GE(gpus, 16);
}

TEST(DeviceLink, GenerationsOfTheBundledGpus) {
  auto db = load_device_dir(kDevices);
  ASSERT_TRUE(db) << db.status().message();
  auto link = [&](const std::string& id) {
    auto d = resolve_device(id, *db);
    EXPECT_TRUE(d) << d.status().message();
    return d && d->host_link ? d->host_link->name : std::string("none");
  };
  for (const char* id : {"v100-sxm2-16gb", "v100-sxm2-32gb", "t4"}) EXPECT_EQ(link(id), "PCIe 3.0 x16") << id;
  for (const char* id :
       {"a10", "a100-sxm4-40gb", "a100-sxm4-80gb", "a100-pcie-80gb", "l4", "l40s", "rtx-3090", "rtx-4090"})
    EXPECT_EQ(link(id), "PCIe 4.0 x16") << id;
  for (const char* id : {"h100-sxm", "h100-pcie", "h200", "b200", "rtx-5090"})
    EXPECT_EQ(link(id), "PCIe 5.0 x16") << id;
}

TEST(DeviceLink, DevicesTableAndJsonShowTheLink) {
  auto db = load_device_dir(kDevices);
  ASSERT_TRUE(db) << db.status().message();
  const std::string text = report::render_text(report::devices_table(*db, false));
  EXPECT_NE(text.find("host link (GB/s, one direction)"), std::string::npos) << text;
  EXPECT_NE(text.find("PCIe 3.0 x16, 15.8"), std::string::npos) << text;
  EXPECT_NE(text.find("PCIe 5.0 x16, 63.0"), std::string::npos) << text;
  const std::string csv = report::render_csv(report::devices_table(*db, true));
  EXPECT_NE(csv.find("PCIe 4.0 x16,31500000000"), std::string::npos) << csv;
  const nlohmann::json j = report::devices_json(*db);
  bool saw_gpu = false, saw_cpu = false;
  for (const auto& d : j["devices"]) {
    if (d["kind"] == "cpu") {
      EXPECT_TRUE(d["host_link"].is_null()) << d["id"];
      saw_cpu = true;
    } else {
      ASSERT_TRUE(d["host_link"].is_object()) << d["id"];
      EXPECT_GT(d["host_link"]["bandwidth"].get<double>(), 0) << d["id"];
      EXPECT_FALSE(d["host_link"]["source"].get<std::string>().empty()) << d["id"];
      saw_gpu = true;
    }
  }
  EXPECT_TRUE(saw_gpu && saw_cpu);
}

}  // namespace
}  // namespace rooflens
