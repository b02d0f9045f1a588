// NATS-Bench's single-file form (nats_single_file.h) and the streaming pieces under it
// (pickle_stream.h, byte_source.h). The real file (1.1 GB) is not here, so a fixture in the
// benchmark's layout is built from the genuine files in shared/data (meta and networks 0,
// 11, 284) with a pickle writer (pickle_writer.h) and streamed: it must give exactly what the
// directory form gives, through buffers that stay small, and clear errors when damaged.
// What is NOT tested: a stream of 32768 networks (several GB; too slow to build here). The
// bound is shown instead by small chunks (the buffers stay at a chunk, however long the
// stream) and by a synthetic stream of 3000 records whose memo stays at a window's size.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "pickle_writer.h"
#include "rooflens/nas/byte_source.h"
#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/nats_single_file.h"
#include "rooflens/nas/oracle.h"
#include "rooflens/nas/pickle_stream.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;
using nas::NatsNetwork;
using pickle::Kind;
using pickle::Value;
using pickle::ValuePtr;

const std::string kDir = std::string(ROOFLENS_SOURCE_DIR) + "/../shared/data/nats-sss-v1_0-50262-simple";

#define SKIP_WITHOUT_DATA() \
  if (!fs::exists(kDir + "/meta.pickle.pbz2")) GTEST_SKIP() << "NATS-Bench data not found at " << kDir

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("rooflens_nats_single_test_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string bz2(const std::string& bytes) {
  auto c = nas::bz2_compress(bytes);
  EXPECT_TRUE(c.has_value()) << c.status().message();
  return c.has_value() ? *c : std::string();
}

// ---- tree builders ----------------------------------------------------------------------

ValuePtr make_int(int64_t i) {
  auto v = std::make_shared<Value>();
  v->kind = Kind::kInt;
  v->integer = i;
  return v;
}
ValuePtr make_str(const std::string& s) {
  auto v = std::make_shared<Value>();
  v->kind = Kind::kStr;
  v->text = s;
  return v;
}
ValuePtr make_seq(Kind kind, std::vector<ValuePtr> items) {
  auto v = std::make_shared<Value>();
  v->kind = kind;
  v->items = std::move(items);
  return v;
}
// Entries in order; the writer needs no index.
ValuePtr make_dict(std::vector<std::pair<ValuePtr, ValuePtr>> entries) {
  auto v = std::make_shared<Value>();
  v->kind = Kind::kDict;
  v->entries = std::move(entries);
  return v;
}
ValuePtr entry(const ValuePtr& dict, const std::string& key) {
  for (const auto& [k, v] : dict->entries)
    if (k->kind == Kind::kStr && k->text == key) return v;
  return nullptr;
}

ValuePtr load_genuine(const std::string& name) {
  auto v = nas::load_pickle_bz2(kDir + "/" + name);
  EXPECT_TRUE(v.has_value()) << v.status().message();
  return v.has_value() ? *v : nullptr;
}

// The single file's layout (nats_single_file.h; sss-collect.py `simplify`):
// {'meta_archs': [...], 'total_archs': 32768, 'arch2infos': {i: OrderedDict(hp -> state)},
//  'evaluated_indexes': {i, ...}}, networks given as (key, per-network root).
std::string single_file_pickle(const std::vector<std::pair<ValuePtr, ValuePtr>>& networks) {
  ValuePtr meta = load_genuine("meta.pickle.pbz2");
  std::vector<ValuePtr> evaluated;
  std::set<const Value*> roots;
  for (const auto& [k, v] : networks) {
    evaluated.push_back(k);
    roots.insert(v.get());
  }
  ValuePtr root = make_dict({{make_str("meta_archs"), entry(meta, "meta_archs")},
                             {make_str("total_archs"), make_int(32768)},
                             {make_str(nas::kNatsRecordKey), make_dict(networks)},
                             {make_str("evaluated_indexes"), make_seq(Kind::kSet, evaluated)}});
  test::PickleWriter::Options o;
  o.ordered_dict = [roots](const Value& v) { return roots.count(&v) > 0; };
  test::PickleWriter w(o);
  w.value(*root);
  return w.finish();
}

std::string genuine_fixture_pickle(const std::vector<int>& indices = {0, 11, 284}) {
  std::vector<std::pair<ValuePtr, ValuePtr>> nets;
  for (int i : indices)
    nets.emplace_back(make_int(i), load_genuine(fs::path(nas::nats_network_path(kDir, i)).filename()));
  return single_file_pickle(nets);
}

// ---- comparing networks ------------------------------------------------------------------

void expect_same(const NatsNetwork& a, const NatsNetwork& b, const std::string& what) {
  ASSERT_EQ(a.hps.size(), b.hps.size()) << what;
  for (size_t h = 0; h < a.hps.size(); ++h) {
    const nas::NatsHpResults& x = a.hps[h];
    const nas::NatsHpResults& y = b.hps[h];
    const std::string at = what + " hp " + x.hp;
    EXPECT_EQ(x.hp, y.hp) << at;
    EXPECT_EQ(x.arch_index, y.arch_index) << at;
    EXPECT_EQ(x.arch_str, y.arch_str) << at;
    EXPECT_EQ(x.dataset_seeds, y.dataset_seeds) << at;
    ASSERT_EQ(x.results.size(), y.results.size()) << at;
    for (size_t r = 0; r < x.results.size(); ++r) {
      const nas::NatsResult& p = x.results[r];
      const nas::NatsResult& q = y.results[r];
      const std::string rat = at + " " + p.dataset + " " + std::to_string(p.seed);
      EXPECT_EQ(p.dataset, q.dataset) << rat;
      EXPECT_EQ(p.seed, q.seed) << rat;
      EXPECT_EQ(p.epochs, q.epochs) << rat;
      EXPECT_EQ(p.flop, q.flop) << rat;  // exact: the same bits
      EXPECT_EQ(p.params, q.params) << rat;
      EXPECT_EQ(p.latency, q.latency) << rat;
      EXPECT_EQ(p.train_acc1es, q.train_acc1es) << rat;
      EXPECT_EQ(p.train_times, q.train_times) << rat;
      EXPECT_EQ(p.eval_names, q.eval_names) << rat;
      EXPECT_EQ(p.eval_acc1es, q.eval_acc1es) << rat;
      EXPECT_EQ(p.eval_times, q.eval_times) << rat;
    }
  }
}

using Collected = std::map<int64_t, NatsNetwork>;
nas::NatsNetworkSink collect(Collected* out) {
  return [out](int64_t i, NatsNetwork&& n) -> Expected<bool> {
    out->emplace(i, std::move(n));
    return true;
  };
}

// ---- the genuine networks through the single-file form ----------------------------------

TEST(NatsSingleFile, GivesExactlyWhatTheDirectoryGives) {
  SKIP_WITHOUT_DATA();
  const std::string compressed = bz2(genuine_fixture_pickle());
  Collected got;
  auto read = nas::read_nats_single_file_bytes(compressed, "fixture.pickle.pbz2", collect(&got));
  ASSERT_TRUE(read.has_value()) << read.status().message();
  EXPECT_EQ(read->networks, 3u);
  EXPECT_FALSE(read->stopped);
  ASSERT_EQ(read->archs.size(), 32768u);
  EXPECT_EQ(read->archs[284], "8:8:40:32:40");
  ASSERT_EQ(got.size(), 3u);
  for (int i : {0, 11, 284}) {
    auto dir = nas::read_nats_network(nas::nats_network_path(kDir, i));
    ASSERT_TRUE(dir.has_value()) << dir.status().message();
    expect_same(got.at(i), *dir, "network " + std::to_string(i));
  }
  // The numbers nats-sss.md quotes, read from the stream.
  const NatsNetwork& n0 = got.at(0);
  const nas::NatsHpResults* h12 = n0.find("12");
  ASSERT_NE(h12, nullptr);
  EXPECT_EQ(h12->arch_str, "8:8:8:8:8");
  const int seeds[] = {777, 888, 999};
  const double acc[] = {66.60, 66.25, 66.59};
  for (int s = 0; s < 3; ++s) {
    const nas::NatsResult* r = h12->find("cifar10-valid", seeds[s]);
    ASSERT_NE(r, nullptr);
    EXPECT_NEAR(r->eval_acc1("x-valid", 11), acc[s], 0.005);
    ASSERT_EQ(r->train_times.size(), 12u);
    for (const auto& [e, t] : r->train_times) EXPECT_NEAR(t, 3.5481, 5e-5) << e;
  }
  EXPECT_NEAR(n0.find("90")->find("cifar10", 777)->eval_acc1("ori-test", 89), 79.79, 1e-9);
  // Dict keys and dataset names are stored by network 0 and referred to by 11 and 284.
  EXPECT_GT(read->stats.memo_shared, 0u);
  EXPECT_EQ(read->stats.records, 3u);

  // The same from a file.
  TempDir tmp;
  const std::string path = tmp.write("NATS-sss-fixture.pickle.pbz2", compressed);
  Collected from_file;
  auto again = nas::read_nats_single_file(path, collect(&from_file));
  ASSERT_TRUE(again.has_value()) << again.status().message();
  ASSERT_EQ(from_file.size(), 3u);
  expect_same(from_file.at(284), got.at(284), "network 284 from a file");
}

TEST(NatsSingleFile, BuffersStayAtAChunkHoweverLongTheStream) {
  SKIP_WITHOUT_DATA();
  const std::string pickle = genuine_fixture_pickle();
  const std::string compressed = bz2(pickle);
  for (size_t chunk : {size_t{4096}, size_t{65536}}) {
    nas::NatsSingleFileOptions o;
    o.chunk_bytes = chunk;
    Collected got;
    auto read = nas::read_nats_single_file_bytes(compressed, "fixture", collect(&got), o);
    ASSERT_TRUE(read.has_value()) << read.status().message();
    ASSERT_EQ(got.size(), 3u);
    const pickle::StreamStats& st = read->stats;
    EXPECT_EQ(st.pickle_bytes, pickle.size());
    // The decompressor holds one compressed chunk; the pickle reader one chunk and 4 KiB for
    // an unread opcode (strings here are under 256 bytes).
    EXPECT_EQ(read->bz2_buffered_bytes, chunk);
    EXPECT_LE(st.peak_buffer_bytes, chunk + 4096) << chunk;
    EXPECT_GT(pickle.size(), 4 * st.peak_buffer_bytes) << chunk;
    // One network at a time: the most values built for one network, not the stream's.
    EXPECT_LT(st.peak_record_values, 20000u);
    std::printf(
        "chunk %zu: pickle %zu bytes, peak pickle buffer %zu, bz2 buffer %zu, peak values per network %zu, "
        "peak memo entries %zu, shared leaves %llu\n",
        chunk, pickle.size(), st.peak_buffer_bytes, read->bz2_buffered_bytes, st.peak_record_values,
        st.peak_memo_entries, static_cast<unsigned long long>(st.memo_shared));
  }
}

TEST(NatsSingleFile, DamagedFilesAreClearErrors) {
  SKIP_WITHOUT_DATA();
  const std::string pickle = genuine_fixture_pickle({0, 11});
  const std::string good = bz2(pickle);
  TempDir tmp;
  auto expect_rejected = [&](const std::string& bytes, const std::vector<std::string>& needles) {
    const std::string path = tmp.write("damaged.pickle.pbz2", bytes);
    Collected got;
    auto r = nas::read_nats_single_file(path, collect(&got));
    ASSERT_FALSE(r.has_value()) << needles[0];
    EXPECT_NE(r.status().message().find(path), std::string::npos) << r.status().message();
    for (const std::string& n : needles)
      EXPECT_NE(r.status().message().find(n), std::string::npos) << r.status().message();
  };
  // Cut short: bzip2 says where in the file.
  expect_rejected(good.substr(0, good.size() / 2), {"bzip2: truncated", "compressed byte"});
  // And how much pickle came out, once some did: two concatenated bzip2 streams (as Python's
  // bz2 reads them), the second cut short.
  const std::string two = bz2(pickle.substr(0, 300000)) + bz2(pickle.substr(300000));
  expect_rejected(two.substr(0, two.size() - 1000), {"bzip2: truncated", "after 300000 bytes of pickle"});
  // A flipped byte inside the compressed data: the block CRC fails.
  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x55);
  expect_rejected(flipped, {"bzip2:"});
  expect_rejected("this is not bzip2", {"not a bzip2 stream (bad magic) (compressed byte 0)"});
  expect_rejected("", {"empty file"});
  // A complete bzip2 stream of a pickle cut short: the pickle offset where it ends.
  expect_rejected(bz2(pickle.substr(0, 200000)), {"pickle offset", "truncated"});
  // Foreign pickles.
  test::PickleWriter list_writer;
  list_writer.value(*make_seq(Kind::kList, {make_int(1)}));
  expect_rejected(bz2(list_writer.finish()), {"not NATS-Bench's dict"});
  // The directory form's meta file is not the single file.
  expect_rejected(slurp_file(kDir + "/meta.pickle.pbz2"), {"'arch2infos' is None", "meta.pickle.pbz2"});
  // A network under another index, or under a key that is no index.
  ValuePtr net0 = load_genuine("000000.pickle.pbz2");
  expect_rejected(bz2(single_file_pickle({{make_int(5), net0}})),
                  {"arch2infos[5]", "describes network 0", "pickle offset"});
  expect_rejected(bz2(single_file_pickle({{make_str("zero"), net0}})), {"'zero'", "not an architecture index"});
  // A network whose structure is broken: the typed walk names the network and the offset.
  ValuePtr broken = load_genuine("000000.pickle.pbz2");
  entry(broken, "12")->entries.erase(entry(broken, "12")->entries.begin());  // drops 'arch_index'
  expect_rejected(bz2(single_file_pickle({{make_int(0), broken}})),
                  {"arch2infos[0]: hp '12' (pickle offset", "has no 'arch_index'"});
}

TEST(NatsSingleFile, EveryPrefixIsAnErrorNotACrash) {
  SKIP_WITHOUT_DATA();
  const std::string good = bz2(genuine_fixture_pickle({0}));
  for (size_t n = 0; n < good.size(); n += 997) {
    Collected got;
    auto r = nas::read_nats_single_file_bytes(good.substr(0, n), "prefix", collect(&got));
    ASSERT_FALSE(r.has_value()) << n;
    EXPECT_EQ(r.status().message().rfind("prefix: ", 0), 0u) << r.status().message();
  }
}

// ---- the oracle over the single file ------------------------------------------------------

TEST(NatsSingleFile, OracleOverTheIndexAnswersAsOverTheDirectory) {
  SKIP_WITHOUT_DATA();
  TempDir tmp;
  const std::string path = tmp.write("NATS-sss-fixture.pickle.pbz2", bz2(genuine_fixture_pickle()));
  auto index = nas::NatsOracle::load_index(path);
  ASSERT_TRUE(index.has_value()) << index.status().message();
  EXPECT_EQ((*index)->count, 3u);
  EXPECT_TRUE((*index)->complete);
  nas::NatsOracle single(*index);
  nas::NatsOracle dir(kDir);
  for (int64_t arch : {0, 11, 284}) {
    for (uint64_t seed = 0; seed < 12; ++seed) {
      auto a = single.evaluate(arch, seed);
      auto b = dir.evaluate(arch, seed);
      ASSERT_TRUE(a.has_value()) << a.status().message();
      ASSERT_TRUE(b.has_value()) << b.status().message();
      EXPECT_EQ(a->accuracy, b->accuracy);
      EXPECT_EQ(a->cost_seconds, b->cost_seconds);
      EXPECT_EQ(a->detail, b->detail);
    }
    auto fa = single.final_accuracy(arch);
    auto fb = dir.final_accuracy(arch);
    ASSERT_TRUE(fa.has_value()) << fa.status().message();
    EXPECT_EQ(*fa, *fb);
    auto full = dir.network(arch);
    auto held = single.network(arch);
    ASSERT_TRUE(held.has_value()) << held.status().message();
    expect_same(**held, nas::NatsOracle::compact(**full), "compact network " + std::to_string(arch));
  }
  EXPECT_NEAR(single.evaluate(0, 7)->cost_seconds, 43.80, 5e-3);
  EXPECT_NEAR(*single.final_accuracy(0), 79.79, 5e-3);
  auto missing = single.evaluate(5, 0);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(missing.status().message().find(path), std::string::npos) << missing.status().message();
  EXPECT_NE(single.describe().find(path), std::string::npos);

  // Only what one network needs: the read stops once it is in.
  auto one = nas::NatsOracle::load_index(path, {11});
  ASSERT_TRUE(one.has_value()) << one.status().message();
  EXPECT_EQ((*one)->count, 1u);
  EXPECT_FALSE((*one)->complete);
  EXPECT_TRUE((*one)->networks[11].has_value());
  EXPECT_FALSE((*one)->networks[0].has_value());

  // nats:FILE through make_oracle; the index is read once per process and shared.
  auto o = nas::make_oracle("nats:" + path);
  ASSERT_TRUE(o.has_value()) << o.status().message();
  EXPECT_NEAR((*o)->evaluate(0, 7)->cost_seconds, 43.80, 5e-3);
  auto s1 = nas::NatsOracle::shared_index(path);
  auto s2 = nas::NatsOracle::shared_index(path);
  ASSERT_TRUE(s1.has_value() && s2.has_value());
  EXPECT_EQ(s1->get(), s2->get());
  auto bad = nas::make_oracle("nats:" + tmp.write("bad.pickle.pbz2", "BZh9 not really"));
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.status().message().find("bzip2"), std::string::npos) << bad.status().message();
}

// What one network costs in an index (the heap it holds), to back the estimate in oracle.h.
TEST(NatsSingleFile, CompactNetworksAreSmall) {
  SKIP_WITHOUT_DATA();
  auto net = nas::read_nats_network(nas::nats_network_path(kDir, 0));
  ASSERT_TRUE(net.has_value()) << net.status().message();
  constexpr int kCopies = 500;
  std::vector<std::optional<NatsNetwork>> held(kCopies);
  const size_t before = mallinfo2().uordblks;
  for (auto& h : held) h = nas::NatsOracle::compact(*net);
  const size_t after = mallinfo2().uordblks;
  const double per = static_cast<double>(after - before) / kCopies + sizeof(std::optional<NatsNetwork>);
  std::printf("compact network: %.0f bytes; all 32768: %.0f MB\n", per, per * 32768 / 1e6);
  EXPECT_LT(per, 12000);
}

// For ctest's sss_nats_single_file (tests/CMakeLists.txt): writes the fixture where
// ROOFLENS_NATS_SINGLE_OUT says.
TEST(NatsSingleFile, WritesTheCliFixture) {
  const char* out = std::getenv("ROOFLENS_NATS_SINGLE_OUT");
  if (out == nullptr) GTEST_SKIP() << "run by ctest's nats_single_file_fixture (ROOFLENS_NATS_SINGLE_OUT)";
  SKIP_WITHOUT_DATA();
  fs::create_directories(fs::path(out).parent_path());
  std::ofstream(out, std::ios::binary) << bz2(genuine_fixture_pickle());
  ASSERT_TRUE(fs::exists(out));
}

}  // namespace
}  // namespace rooflens
