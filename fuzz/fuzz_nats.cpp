// libFuzzer target: bytes -> NATS-Bench file reading (src/nas/nats_data.cpp). An input that
// starts with bzip2's magic "BZh" goes the whole way a .pbz2 file goes (bunzip, unpickle,
// then both the meta and the network walk); any other input is taken as the decompressed
// pickle, so mutations reach the structure walk without first having to forge bzip2 CRCs.
// Every input must end in data or an error Status: no crash, hang, leak or sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/pickle.h"

namespace {

namespace nas = rooflens::nas;

// What the oracle does with a network: look up an hp, a (dataset, seed), an accuracy.
void use(const nas::NatsNetwork& net) {
  ROOFLENS_FUZZ_CHECK(!net.hps.empty(), "a network without hps was accepted");
  (void)net.find("12");
  for (const auto& hp : net.hps) {
    for (const auto& [dataset, seeds] : hp.dataset_seeds)
      for (int seed : seeds) ROOFLENS_FUZZ_CHECK(hp.find(dataset, seed) != nullptr, "a listed seed has no result");
    for (const auto& r : hp.results) {
      (void)r.eval_acc1("x-valid", r.epochs - 1);
      (void)r.eval_time("ori-test", r.epochs - 1);
    }
  }
}

void walk(const rooflens::pickle::Value& root, const std::string& source) {
  auto meta = nas::nats_meta_from_pickle(root, source);
  if (!meta) ROOFLENS_FUZZ_CHECK(!meta.status().message().empty(), "error Status without a message");
  auto net = nas::nats_network_from_pickle(root, source);
  if (net) {
    use(*net);
  } else {
    ROOFLENS_FUZZ_CHECK(!net.status().message().empty(), "error Status without a message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.starts_with("BZh")) {
    const std::string source = "fuzz.pickle.pbz2";
    // read_nats_{meta,network}_bytes are this load followed by one walk each.
    auto root = nas::load_pickle_bz2_bytes(bytes, source);
    if (!root) {
      ROOFLENS_FUZZ_CHECK(!root.status().message().empty(), "error Status without a message");
      return 0;
    }
    walk(**root, source);
  } else {
    const std::string source = "fuzz.pickle";
    auto root = rooflens::pickle::load(bytes, source);
    if (root) walk(**root, source);
  }
  return 0;
}
