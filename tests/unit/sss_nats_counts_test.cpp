// The generator against the benchmark's own files: for the genuine networks in shared/data,
// read through rooflens' native NATS-Bench reader, rooflens' MACs (+ the classifier bias, the
// benchmark's "flop") and params equal the stored `flop` and `params` of every dataset the
// file holds, each at its own input size and class count (CIFAR 32x32, ImageNet16-120 16x16).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "rooflens/device/device.h"
#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/sss_study.h"

namespace fs = std::filesystem;
using namespace rooflens;

namespace {
const std::string kDir = std::string(ROOFLENS_SOURCE_DIR) + "/../shared/data/nats-sss-v1_0-50262-simple";
}

TEST(SssNatsCounts, GeneratorMatchesStoredFlopAndParamsOnEveryDataset) {
  if (!fs::exists(kDir + "/000000.pickle.pbz2")) GTEST_SKIP() << "NATS-Bench data not found at " << kDir;
  auto db = load_device_dir(std::string(ROOFLENS_SOURCE_DIR) + "/data/devices");
  ASSERT_TRUE(db) << db.status().message();
  auto dev = resolve_device("v100", *db);
  ASSERT_TRUE(dev) << dev.status().message();
  PerfOptions po;
  po.dtype = "fp32";
  for (int index : {0, 11, 284}) {
    auto net = nas::read_nats_network(nas::nats_network_path(kDir, index));
    ASSERT_TRUE(net) << net.status().message();
    std::set<std::string> datasets;
    for (const nas::NatsHpResults& hp : net->hps)
      for (const nas::NatsResult& r : hp.results) {
        auto ds = sss_dataset_from_name(r.dataset);
        ASSERT_TRUE(ds) << r.dataset;
        auto p = predict_sss_network(sss_widths(index), sss_net_input(*ds), *dev, po, SssBatch::fixed(1));
        ASSERT_TRUE(p) << p.status().message();
        // The files store millions with 6 decimals (Python rounds before writing).
        EXPECT_NEAR(r.flop, static_cast<double>(p->flop_benchmark) / 1e6, 5e-7)
            << index << " " << r.dataset << " hp " << hp.hp;
        EXPECT_NEAR(r.params, static_cast<double>(p->params) / 1e6, 5e-7)
            << index << " " << r.dataset << " hp " << hp.hp;
        datasets.insert(r.dataset);
      }
    // cifar10-valid, cifar10, cifar100 and ImageNet16-120 are all there: three input/class settings.
    EXPECT_GE(datasets.size(), 4u) << index;
  }
}
