// libFuzzer target: bytes -> NATS-Bench file reading (src/nas/nats_data.cpp, and the
// single-file form's streaming reader, src/nas/nats_single_file.cpp, pickle_machine.cpp and
// byte_source.cpp). An input that starts with bzip2's magic "BZh" goes the whole way a .pbz2
// file goes (bunzip, unpickle, then both the meta and the network walk; and streamed as the
// single file, bzip2 chunk by chunk); any other input is taken as the decompressed pickle,
// so mutations reach the structure walk without first having to forge bzip2 CRCs (and is
// streamed too, in small chunks with a tiny memo window, records through the network walk).
// Every input must end in data or an error Status: no crash, hang, leak or sanitizer report.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "rooflens/nas/byte_source.h"
#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/nats_single_file.h"
#include "rooflens/nas/pickle.h"
#include "rooflens/nas/pickle_stream.h"

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

// Small chunks and a tiny memo window, so refills, record hand-outs and memo releases all
// happen within a short input.
rooflens::pickle::StreamOptions stream_options() {
  rooflens::pickle::StreamOptions o;
  o.record_key = nas::kNatsRecordKey;
  o.chunk_bytes = 61;
  o.max_arg_bytes = 4096;
  o.max_record_values = 1 << 16;
  o.memo_window_records = 2;
  return o;
}

void stream(std::string_view bytes, bool compressed) {
  if (compressed) {
    nas::NatsSingleFileOptions o;
    o.chunk_bytes = 257;
    o.stream = stream_options();
    auto r = nas::read_nats_single_file_bytes(
        bytes, "fuzz.pickle.pbz2",
        [](int64_t, nas::NatsNetwork&& net) -> rooflens::Expected<bool> {
          use(net);
          return true;
        },
        o);
    if (!r) ROOFLENS_FUZZ_CHECK(!r.status().message().empty(), "error Status without a message");
    return;
  }
  rooflens::MemorySource mem(bytes);
  auto r = rooflens::pickle::load_streaming(mem, "fuzz.pickle", stream_options(),
                                            [](const rooflens::pickle::Value&,
                                               const rooflens::pickle::Value& v) -> rooflens::Expected<bool> {
                                              auto net = nas::nats_network_from_pickle(v, "fuzz.pickle record");
                                              if (net) use(*net);
                                              return true;
                                            });
  if (r && *r) walk(**r, "fuzz.pickle");
  if (!r) ROOFLENS_FUZZ_CHECK(!r.status().message().empty(), "error Status without a message");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.starts_with("BZh")) {
    const std::string source = "fuzz.pickle.pbz2";
    stream(bytes, true);
    // read_nats_{meta,network}_bytes are this load followed by one walk each.
    auto root = nas::load_pickle_bz2_bytes(bytes, source);
    if (!root) {
      ROOFLENS_FUZZ_CHECK(!root.status().message().empty(), "error Status without a message");
      return 0;
    }
    walk(**root, source);
  } else {
    const std::string source = "fuzz.pickle";
    stream(bytes, false);
    auto root = rooflens::pickle::load(bytes, source);
    if (root) walk(**root, source);
  }
  return 0;
}
