// NATS-Bench SSS data files read natively (nats_data.h, pickle.h): the genuine files in
// shared/data give the numbers nats-sss.md quotes; corrupt, truncated and foreign files give
// an invalid-input Status naming the file and an offset, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/pickle.h"

namespace rooflens {
namespace {

namespace fs = std::filesystem;
using nas::NatsNetwork;

const std::string kDir = std::string(ROOFLENS_SOURCE_DIR) + "/../shared/data/nats-sss-v1_0-50262-simple";

#define SKIP_WITHOUT_DATA() \
  if (!fs::exists(kDir + "/meta.pickle.pbz2")) GTEST_SKIP() << "NATS-Bench data not found at " << kDir

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A scratch directory removed at the end of the test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("rooflens_nats_test_" + std::to_string(::getpid()));
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

std::string bz2(const std::string& bytes) {
  auto c = nas::bz2_compress(bytes);
  EXPECT_TRUE(c.has_value()) << c.status().message();
  return c.has_value() ? *c : std::string();
}

std::string raw_pickle(const std::string& path) {
  auto raw = nas::bz2_decompress(slurp(path), path);
  EXPECT_TRUE(raw.has_value()) << raw.status().message();
  return raw.has_value() ? *raw : std::string();
}

TEST(NatsData, MetaListsEveryArchitecture) {
  SKIP_WITHOUT_DATA();
  auto meta = nas::read_nats_meta(kDir + "/meta.pickle.pbz2");
  ASSERT_TRUE(meta.has_value()) << meta.status().message();
  ASSERT_EQ(meta->size(), 32768u);
  EXPECT_EQ((*meta)[0], "8:8:8:8:8");
  EXPECT_EQ((*meta)[1], "8:8:8:8:16");
  EXPECT_EQ((*meta)[11], "8:8:8:16:32");
  EXPECT_EQ((*meta)[284], "8:8:40:32:40");
  EXPECT_EQ((*meta)[4681], "16:16:16:16:16");
  EXPECT_EQ((*meta)[32767], "64:64:64:64:64");
}

TEST(NatsData, NetworkZeroHasTheDocumentedNumbers) {
  SKIP_WITHOUT_DATA();
  auto net = nas::read_nats_network(nas::nats_network_path(kDir, 0));
  ASSERT_TRUE(net.has_value()) << net.status().message();
  ASSERT_EQ(net->hps.size(), 3u);
  EXPECT_EQ(net->hps[0].hp, "01");
  EXPECT_EQ(net->hps[1].hp, "12");
  EXPECT_EQ(net->hps[2].hp, "90");
  const nas::NatsHpResults* h12 = net->find("12");
  ASSERT_NE(h12, nullptr);
  EXPECT_EQ(h12->arch_index, 0);
  EXPECT_EQ(h12->arch_str, "8:8:8:8:8");
  EXPECT_EQ(h12->dataset_seeds.at("cifar10-valid"), (std::vector<int>{777, 888, 999}));
  EXPECT_EQ(h12->results.size(), 12u);  // 4 datasets x 3 seeds

  // Simulated train-and-evaluate: x-valid top-1 after epoch 11 for each seed.
  const double expected_acc[] = {66.60, 66.25, 66.59};
  const int seeds[] = {777, 888, 999};
  for (int i = 0; i < 3; ++i) {
    const nas::NatsResult* r = h12->find("cifar10-valid", seeds[i]);
    ASSERT_NE(r, nullptr) << seeds[i];
    EXPECT_EQ(r->epochs, 12);
    EXPECT_NEAR(r->eval_acc1("x-valid", 11), expected_acc[i], 0.005) << seeds[i];
    EXPECT_EQ(r->eval_names, (std::vector<std::string>{"x-valid", "ori-test"}));
  }
  // The "12" files store, for every epoch, the per-epoch time of the 1-epoch run (hence
  // seed-independent); cost = 12 epochs of training + one x-valid pass = 43.80 s.
  const nas::NatsResult& r = *h12->find("cifar10-valid", 777);
  ASSERT_EQ(r.train_times.size(), 12u);
  double train = 0;
  for (const auto& [epoch, t] : r.train_times) {
    EXPECT_NEAR(t, 3.5481, 5e-5) << epoch;
    train += t;
  }
  const double eval = r.eval_time("x-valid", 11);
  EXPECT_NEAR(eval, 1.2195, 5e-5);
  EXPECT_NEAR(train + eval, 43.80, 0.005);
  const nas::NatsResult* one = net->find("01")->find("cifar10-valid", 777);
  ASSERT_NE(one, nullptr);
  EXPECT_DOUBLE_EQ(one->train_times.at(0), r.train_times.at(11));
  EXPECT_DOUBLE_EQ(one->eval_time("x-valid", 0), eval);
  EXPECT_DOUBLE_EQ(h12->find("cifar10-valid", 999)->train_times.at(5), r.train_times.at(5));
  ASSERT_EQ(r.latency.size(), 1u);
  EXPECT_NEAR(r.latency[0], 0.013029, 1e-6);
  EXPECT_TRUE(std::isnan(r.eval_acc1("x-valid", 12)));

  // Final test accuracy: hp 90, cifar10, ori-test after the last epoch.
  const nas::NatsResult* fin = net->find("90")->find("cifar10", 777);
  ASSERT_NE(fin, nullptr);
  EXPECT_EQ(fin->epochs, 90);
  EXPECT_NEAR(fin->eval_acc1("ori-test", 89), 79.79, 1e-9);
  EXPECT_EQ(fin->train_acc1es.size(), 90u);
}

TEST(NatsData, FlopAndParamsMatchTheReferenceTable) {
  SKIP_WITHOUT_DATA();
  struct Case {
    int index;
    const char* arch;
    double flop, params;
  };
  for (const Case& c : {Case{0, "8:8:8:8:8", 4.481114, 0.011714}, Case{11, "8:8:8:16:32", 6.840650, 0.049202},
                        Case{284, "8:8:40:32:40", 21.827994, 0.144834}}) {
    auto net = nas::read_nats_network(nas::nats_network_path(kDir, c.index));
    ASSERT_TRUE(net.has_value()) << net.status().message();
    for (const nas::NatsHpResults& h : net->hps) {
      EXPECT_EQ(h.arch_index, c.index);
      EXPECT_EQ(h.arch_str, c.arch);
      const nas::NatsResult* r = h.find("cifar10", 777);
      ASSERT_NE(r, nullptr) << c.index << " hp " << h.hp;
      EXPECT_NEAR(r->flop, c.flop, 1e-9) << c.arch;      // a Python float in the file
      EXPECT_NEAR(r->params, c.params, 1e-9) << c.arch;  // a numpy float64 scalar in the file
    }
  }
}

TEST(Pickle, ReadsTheValueKinds) {
  // {'a': [1, -2, 300, 70000, 2**40, 1.5, True, None], (b'x', 'y'): ()} by hand, protocol 4.
  using namespace std::string_literals;
  const std::string p =
      "\x80\x04}\x94(\x8c\x01"
      "a]\x94(K\x01J\xfe\xff\xff\xffM,\x01J\x70\x11\x01\x00"s +
      "\x8a\x06\x00\x00\x00\x00\x00\x01"s +   // LONG1 2**40
      "G\x3f\xf8\x00\x00\x00\x00\x00\x00"s +  // BINFLOAT 1.5
      "\x88Ne"s + "C\x01xX\x01\x00\x00\x00y\x86)u."s;
  auto v = pickle::load(p, "hand");
  ASSERT_TRUE(v.has_value()) << v.status().message();
  const pickle::Value* a = (*v)->get("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->items.size(), 8u);
  EXPECT_EQ(a->items[0]->integer, 1);
  EXPECT_EQ(a->items[1]->integer, -2);
  EXPECT_EQ(a->items[2]->integer, 300);
  EXPECT_EQ(a->items[3]->integer, 70000);
  EXPECT_EQ(a->items[4]->integer, int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(a->items[5]->real, 1.5);
  EXPECT_TRUE(a->items[6]->boolean);
  EXPECT_EQ(a->items[7]->kind, pickle::Kind::kNone);
  pickle::Value key;
  key.kind = pickle::Kind::kTuple;
  auto x = std::make_shared<pickle::Value>();
  x->kind = pickle::Kind::kBytes;
  x->text = "x";
  auto y = std::make_shared<pickle::Value>();
  y->kind = pickle::Kind::kStr;
  y->text = "y";
  key.items = {x, y};
  const pickle::Value* t = (*v)->get(key);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, pickle::Kind::kTuple);
  EXPECT_EQ(pickle::repr(**v), "{'a': [1, -2, 300, 70000, 1099511627776, 1.5, True, None], (b<1 bytes>, 'y'): ()}");
}

TEST(Pickle, RefusesForeignCallablesCyclesAndUnknownOpcodes) {
  auto os = pickle::load(std::string("\x80\x04\x8c\x02os\x8c\x06system\x93)R.", 18), "evil");
  ASSERT_FALSE(os.has_value());
  EXPECT_NE(os.status().message().find("evil: pickle offset 14: refusing global os.system"), std::string::npos)
      << os.status().message();
  // l = []; l.append(l)
  auto cyc = pickle::load(std::string("\x80\x04]\x94h\x00"
                                      "a.",
                                      8),
                          "cyc");
  ASSERT_FALSE(cyc.has_value());
  EXPECT_NE(cyc.status().message().find("reference cycle"), std::string::npos) << cyc.status().message();
  // 100000 nested lists: too deep, refused without recursing.
  std::string deep = "\x80\x04";
  for (int i = 0; i < 100000; ++i) deep += "]";
  for (int i = 0; i < 99999; ++i) deep += "a";
  deep += ".";
  auto d = pickle::load(deep, "deep");
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.status().message().find("nested deeper than"), std::string::npos) << d.status().message();
  auto unk = pickle::load(std::string("\x80\x04\xff.", 4), "unk");
  ASSERT_FALSE(unk.has_value());
  EXPECT_EQ(unk.status().message(), "unk: pickle offset 2: unknown opcode 0xff");
  auto empty = pickle::load("", "empty");
  EXPECT_EQ(empty.status().message(), "empty: pickle offset 0: truncated: the stream ends before STOP");
}

// Each malformed file: an invalid-input Status naming the file and an offset.
void expect_rejected(const std::string& path, const std::string& what) {
  auto net = nas::read_nats_network(path);
  ASSERT_FALSE(net.has_value()) << what;
  EXPECT_EQ(net.status().code(), StatusCode::kInvalidInput) << net.status().message();
  const std::string& m = net.status().message();
  EXPECT_EQ(m.rfind(path + ": ", 0), 0u) << what << ": " << m;
  EXPECT_TRUE(m.find("pickle offset ") != std::string::npos || m.find("compressed byte ") != std::string::npos)
      << what << ": " << m;
  EXPECT_NE(m.find(what), std::string::npos) << m;
}

TEST(NatsData, MalformedFilesAreErrorsWithOffsets) {
  SKIP_WITHOUT_DATA();
  TempDir tmp;
  const std::string good = slurp(nas::nats_network_path(kDir, 0));
  ASSERT_GT(good.size(), 1000u);
  expect_rejected(tmp.write("truncated.pbz2", good.substr(0, good.size() / 2)), "bzip2: truncated");
  std::string flipped = good;
  for (size_t i = 0; i < 8; ++i) flipped[good.size() / 2 + i] = static_cast<char>(~flipped[good.size() / 2 + i]);
  expect_rejected(tmp.write("flipped.pbz2", flipped), "bzip2: data integrity error");
  expect_rejected(tmp.write("plain.pbz2", "not compressed at all\n"),
                  "bzip2: not a bzip2 stream (bad magic) (compressed byte 0)");
  expect_rejected(tmp.write("text.pbz2", bz2("<html>not a pickle</html>\n")), "pickle offset 0: unknown opcode 0x3c");
  expect_rejected(tmp.write("unknown.pbz2", bz2(std::string("\x80\x04\x95\x01\0\0\0\0\0\0\0\xfe.", 13))),
                  "pickle offset 11: unknown opcode 0xfe");
  expect_rejected(tmp.write("empty.pbz2", ""), "bzip2: empty file");
  // A pickle cut short, then compressed properly: the pickle reader reports where it ended.
  const std::string raw = raw_pickle(nas::nats_network_path(kDir, 0));
  expect_rejected(tmp.write("short.pbz2", bz2(raw.substr(0, 50000))), "pickle offset 50000: truncated");
  // Valid pickle, wrong layout: the meta file is not a network.
  auto meta_as_net = nas::read_nats_network(kDir + "/meta.pickle.pbz2");
  ASSERT_FALSE(meta_as_net.has_value());
  EXPECT_NE(meta_as_net.status().message().find("hp 'meta_archs' (pickle offset 27) is a list, not a dict"),
            std::string::npos)
      << meta_as_net.status().message();
  auto missing = nas::read_nats_network((tmp.path / "absent.pbz2").string());
  EXPECT_FALSE(missing.has_value());
}

// Every prefix and many single-byte corruptions of a genuine pickle: an answer, never a crash.
TEST(NatsData, DamagedPicklesNeverCrash) {
  SKIP_WITHOUT_DATA();
  const std::string raw = raw_pickle(nas::nats_network_path(kDir, 284));
  ASSERT_GT(raw.size(), 80000u);
  for (size_t n = 0; n < raw.size(); n += 1009) {
    auto v = pickle::load(std::string_view(raw).substr(0, n), "prefix");
    ASSERT_FALSE(v.has_value()) << n;
    EXPECT_EQ(v.status().message().rfind("prefix: pickle offset ", 0), 0u) << v.status().message();
  }
  int rejected = 0;
  for (size_t i = 0; i < raw.size(); i += 997) {
    for (char c : {'\xff', '\x00', 'h', '(', 'u', '\x95'}) {
      std::string bad = raw;
      bad[i] = c;
      auto v = pickle::load(bad, "bad");
      if (!v.has_value()) {
        ++rejected;
        EXPECT_EQ(v.status().message().rfind("bad: pickle offset ", 0), 0u) << v.status().message();
      }
    }
  }
  EXPECT_GT(rejected, 30);
}

// Found by fuzz/fuzz_pickle (issue 8): DUP + TUPLE2 repeated n times makes a tuple DAG of
// 2n+4 bytes whose canonical key form is 2^n long; used as a dict key or set item it took time
// and memory exponential in n (26 levels: over 10 s). Now the key's size is capped as it is
// built and the load is an invalid-input Status naming the offset.
TEST(Pickle, KeyFromATupleDagIsRefusedQuickly) {
  using namespace std::string_literals;
  std::string levels;
  for (int i = 0; i < 60; ++i) levels += "2\x86"s;  // DUP, TUPLE2
  // {t: None} where t = ((...((),())...),(...)) 60 levels deep: SETITEM at offset 2+1+1+120+1.
  auto d = pickle::load("\x80\x04})"s + levels + "Ns."s, "dag");
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(d.status().message().find("dag: pickle offset 125: dict key ((("), std::string::npos)
      << d.status().message();
  EXPECT_NE(d.status().message().find("is unhashable, nested deeper than 32 or longer than 1024 bytes"),
            std::string::npos)
      << d.status().message();
  // The same as a set item (EMPTY_SET, MARK, t, ADDITEMS).
  auto s = pickle::load("\x80\x04\x8f()"s + levels + "\x90."s, "dagset");
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.status().message().find("dagset: pickle offset 125: set item ((("), std::string::npos)
      << s.status().message();
  // 4 levels (16 leaves) is a short key: accepted, and the same key (memo 0) set again
  // replaces the value.
  auto ok = pickle::load("\x80\x04})"s +
                             "2\x86"
                             "2\x86"
                             "2\x86"
                             "2\x86"s +
                             "\x94Ns"s + "h\x00K\x07s."s,
                         "ok");
  ASSERT_TRUE(ok.has_value()) << ok.status().message();
  ASSERT_EQ((*ok)->entries.size(), 1u);
  const pickle::Value* seven = (*ok)->get(*(*ok)->entries[0].first);
  ASSERT_NE(seven, nullptr);
  EXPECT_EQ(seven->integer, 7);
  // Long str keys: up to the cap they are keys like any other; beyond it, refused.
  auto str_key = [](size_t n) {
    std::string p = "\x80\x04}X"s;
    for (int b = 0; b < 4; ++b) p += static_cast<char>((n >> (8 * b)) & 0xff);
    return p + std::string(n, 'k') + "Ns."s;
  };
  auto short_key = pickle::load(str_key(1000), "key1000");
  ASSERT_TRUE(short_key.has_value()) << short_key.status().message();
  EXPECT_NE((*short_key)->get(std::string(1000, 'k')), nullptr);
  auto long_key = pickle::load(str_key(5000), "key5000");
  ASSERT_FALSE(long_key.has_value());
  EXPECT_NE(long_key.status().message().find("longer than 1024 bytes"), std::string::npos)
      << long_key.status().message();
}

// The in-memory readers (used by fuzz/fuzz_nats) give what the file readers give, messages
// included, with `source` where the path would be.
TEST(NatsData, BytesReadersMatchTheFileReaders) {
  auto text = nas::read_nats_network_bytes(bz2("<html>not a pickle</html>\n"), "mem.pbz2");
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.status().message(), "mem.pbz2: pickle offset 0: unknown opcode 0x3c");
  auto plain = nas::read_nats_meta_bytes("not compressed", "mem.pbz2");
  ASSERT_FALSE(plain.has_value());
  EXPECT_EQ(plain.status().message(), "mem.pbz2: bzip2: not a bzip2 stream (bad magic) (compressed byte 0)");
  SKIP_WITHOUT_DATA();
  const std::string meta_path = kDir + "/meta.pickle.pbz2";
  auto meta_file = nas::read_nats_meta(meta_path);
  auto meta_mem = nas::read_nats_meta_bytes(slurp(meta_path), meta_path);
  ASSERT_TRUE(meta_file.has_value() && meta_mem.has_value());
  EXPECT_EQ(*meta_file, *meta_mem);
  const std::string net_path = nas::nats_network_path(kDir, 284);
  auto net_file = nas::read_nats_network(net_path);
  auto net_mem = nas::read_nats_network_bytes(slurp(net_path), net_path);
  ASSERT_TRUE(net_file.has_value() && net_mem.has_value());
  ASSERT_EQ(net_file->hps.size(), net_mem->hps.size());
  for (size_t i = 0; i < net_file->hps.size(); ++i) {
    EXPECT_EQ(net_file->hps[i].arch_str, net_mem->hps[i].arch_str);
    EXPECT_EQ(net_file->hps[i].results.size(), net_mem->hps[i].results.size());
  }
  auto meta_as_net_file = nas::read_nats_network(meta_path);
  auto meta_as_net_mem = nas::read_nats_network_bytes(slurp(meta_path), meta_path);
  ASSERT_FALSE(meta_as_net_file.has_value() || meta_as_net_mem.has_value());
  EXPECT_EQ(meta_as_net_file.status().message(), meta_as_net_mem.status().message());
}

}  // namespace
}  // namespace rooflens
