// The streaming pieces under NATS-Bench's single-file reader: bzip2 decompressed one chunk at
// a time (byte_source.h) and the pickle machine over a source, handing one dict out entry by
// entry (pickle_stream.h). A synthetic stream of 3000 records shows the memo staying at a
// window's size, references across records kept or refused clearly, and the same values
// load() gives for the whole pickle in memory.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pickle_writer.h"
#include "rooflens/nas/byte_source.h"
#include "rooflens/nas/nats_data.h"
#include "rooflens/nas/pickle.h"
#include "rooflens/nas/pickle_stream.h"

namespace rooflens {
namespace {

using pickle::Kind;
using pickle::Value;
using pickle::ValuePtr;

std::string bz2(const std::string& bytes) {
  auto c = nas::bz2_compress(bytes);
  EXPECT_TRUE(c.has_value()) << c.status().message();
  return c.has_value() ? *c : std::string();
}

// Everything a Bz2Source gives, pulled `cap` bytes at a time.
Expected<std::string> drain(std::string_view compressed, size_t chunk, size_t cap, size_t* buffered = nullptr) {
  MemorySource mem(compressed);
  Bz2Source bz(mem, "src", chunk);
  std::string out, buf(cap, '\0');
  for (;;) {
    auto n = bz.read(buf.data(), cap);
    if (!n) return n.status();
    if (*n == 0) break;
    out.append(buf.data(), *n);
  }
  if (buffered) *buffered = bz.buffered_bytes();
  return out;
}

std::string sample_bytes(size_t n) {
  std::string s;
  uint64_t x = 42;
  while (s.size() < n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    s += "value " + std::to_string(x >> 40) + (x % 3 ? "\n" : " ");
  }
  s.resize(n);
  return s;
}

TEST(Bz2Source, DecompressesChunkByChunkLikeTheWholeBufferReader) {
  const std::string plain = sample_bytes(300000);
  const std::string one = bz2(plain);
  const std::string two = one + bz2("and a second stream");  // Python's bz2 reads on
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}}) {
    size_t buffered = 0;
    auto a = drain(one, chunk, 1000, &buffered);
    ASSERT_TRUE(a.has_value()) << a.status().message();
    EXPECT_EQ(*a, plain);
    EXPECT_EQ(buffered, chunk);  // its own memory: one input chunk, whatever the output size
    auto b = drain(two, chunk, 333);
    ASSERT_TRUE(b.has_value()) << b.status().message();
    EXPECT_EQ(*b, plain + "and a second stream");
  }
  // The same errors, worded as bz2_decompress words them.
  for (const std::string& bad :
       {std::string(), std::string("not bzip2"), one.substr(0, one.size() / 2), one + "trailing garbage"}) {
    auto streamed = drain(bad, 4096, 4096);
    auto whole = nas::bz2_decompress(bad, "src");
    ASSERT_FALSE(streamed.has_value());
    ASSERT_FALSE(whole.has_value());
    EXPECT_EQ(streamed.status().message(), whole.status().message());
  }
}

// A stream of `n` records in CPython's layout: {'meta': 7, 'recs': {i: record}, 'tail': 1},
// each record {'name': 'rec-<i>', 'kind': 'common', 'vals': [i, i/2], 'pair': ('rec', i)}:
// the keys and 'common' are written by record 0 and referred to by every later one; the
// names are each record's own. `extra(i, w)` may write record i itself instead (true).
std::string records_pickle(int n, const std::function<bool(int, test::PickleWriter&)>& extra = {}, bool frames = true) {
  auto str = [](const std::string& s) {
    auto v = std::make_shared<Value>();
    v->kind = Kind::kStr;
    v->text = s;
    return v;
  };
  auto num = [](double d, bool integer) {
    auto v = std::make_shared<Value>();
    v->kind = integer ? Kind::kInt : Kind::kFloat;
    v->integer = static_cast<int64_t>(d);
    v->real = d;
    return v;
  };
  test::PickleWriter::Options o;
  o.frames = frames;
  test::PickleWriter w(o);
  w.op('}');
  w.memoize();
  w.mark();
  w.str("meta");
  w.integer(7);
  w.str("recs");
  w.op('}');
  w.memoize();
  for (int at = 0; at < n; at += 1000) {
    w.mark();
    for (int i = at; i < std::min(n, at + 1000); ++i) {
      w.integer(i);
      if (extra && extra(i, w)) continue;
      Value rec;
      rec.kind = Kind::kDict;
      auto list = std::make_shared<Value>();
      list->kind = Kind::kList;
      list->items = {num(i, true), num(i / 2.0, false)};
      auto pair = std::make_shared<Value>();
      pair->kind = Kind::kTuple;
      pair->items = {str("rec"), num(i, true)};
      rec.entries = {{str("name"), str("rec-" + std::to_string(i))},
                     {str("kind"), str("common")},
                     {str("vals"), list},
                     {str("pair"), pair}};
      w.value(rec);
    }
    w.op('u');
  }
  w.str("tail");
  w.integer(1);
  w.op('u');
  return w.finish();
}

struct Streamed {
  Expected<ValuePtr> root = Status::internal("not run");
  std::vector<std::string> records;  // repr of (key, value)
  pickle::StreamStats stats;
};

Streamed stream(const std::string& pickle_bytes, size_t window, size_t chunk = 4096, int stop_after = -1) {
  MemorySource mem(pickle_bytes);
  pickle::StreamOptions o;
  o.record_key = "recs";
  o.chunk_bytes = chunk;
  o.memo_window_records = window;
  Streamed s;
  s.root = pickle::load_streaming(
      mem, "recs.pickle", o,
      [&](const Value& k, const Value& v) -> Expected<bool> {
        s.records.push_back(pickle::repr(k) + ": " + pickle::repr(v, 8));
        return stop_after < 0 || static_cast<int>(s.records.size()) < stop_after;
      },
      &s.stats);
  return s;
}

TEST(PickleStream, HandsOutRecordsAsLoadReadsThemWithABoundedMemo) {
  const std::string p = records_pickle(3000);
  auto whole = pickle::load(p, "recs.pickle");
  ASSERT_TRUE(whole.has_value()) << whole.status().message();
  const Value* recs = (*whole)->get("recs");
  ASSERT_NE(recs, nullptr);
  ASSERT_EQ(recs->entries.size(), 3000u);

  Streamed s = stream(p, 8);
  ASSERT_TRUE(s.root.has_value()) << s.root.status().message();
  ASSERT_NE(*s.root, nullptr);
  ASSERT_EQ(s.records.size(), 3000u);
  for (size_t i = 0; i < 3000; ++i)
    ASSERT_EQ(s.records[i], pickle::repr(*recs->entries[i].first) + ": " + pickle::repr(*recs->entries[i].second, 8))
        << i;
  // The rest of the tree is there, the streamed dict left empty.
  EXPECT_EQ((*s.root)->get("meta")->integer, 7);
  EXPECT_EQ((*s.root)->get("tail")->integer, 1);
  EXPECT_TRUE((*s.root)->get("recs")->entries.empty());
  // Each record stores 6 memo entries (its name, dict, list, tuple, ...): 18000 in all; the
  // reader holds the window's (8 records) and the shared keys, not the stream's.
  EXPECT_LT(s.stats.peak_memo_entries, 150u);
  EXPECT_GE(s.stats.memo_shared, 6u);  // 'name', 'kind', 'common', 'vals', 'pair', 'rec'
  EXPECT_LT(s.stats.peak_record_values, 30u);
  EXPECT_EQ(s.stats.records, 3000u);
  EXPECT_EQ(s.stats.pickle_bytes, p.size());
  EXPECT_LE(s.stats.peak_buffer_bytes, 4096u + 4096u);
}

TEST(PickleStream, WithoutAWindowSharedKeysAreAClearError) {
  // Record 0's keys are released as soon as it is handed out, before record 1 refers to them:
  // the reader says so instead of giving a wrong value.
  Streamed s = stream(records_pickle(10), 0);
  ASSERT_FALSE(s.root.has_value());
  const std::string& m = s.root.status().message();
  EXPECT_NE(m.find("recs.pickle: pickle offset "), std::string::npos) << m;
  EXPECT_NE(m.find("BINGET of memo key"), std::string::npos) << m;
  EXPECT_NE(m.find("released"), std::string::npos) << m;
  EXPECT_EQ(s.records.size(), 1u);
}

TEST(PickleStream, ReferencesToEarlierRecordsWithinTheWindowAreKeptBeyondAreRefused) {
  // Record 15 refers to record 10's name (5 records back: within a window of 8), record 100
  // to record 20's (80 back: released).
  auto refer = [](int target) {
    return [target](int i, test::PickleWriter& w) {
      if (i != target) return false;
      const int to = target == 15 ? 10 : 20;
      w.op('}');
      w.memoize();
      w.mark();
      w.str("ref");
      w.get(w.key_of("rec-" + std::to_string(to)));
      w.op('u');
      return true;
    };
  };
  Streamed near = stream(records_pickle(40, refer(15)), 8);
  ASSERT_TRUE(near.root.has_value()) << near.root.status().message();
  EXPECT_EQ(near.records[15], "15: {'ref': 'rec-10'}");

  Streamed far = stream(records_pickle(200, refer(100)), 8);
  ASSERT_FALSE(far.root.has_value());
  const std::string& m = far.root.status().message();
  EXPECT_NE(m.find("not held"), std::string::npos) << m;
  EXPECT_NE(m.find("'recs'"), std::string::npos) << m;
  EXPECT_EQ(far.records.size(), 100u);
}

TEST(PickleStream, AValueBuiltFromBareKeysIsAnErrorNotAPartialEntry) {
  // {'recs': {0: (1, 2)}}: written 0 1 2 TUPLE2 in the batch, so 1 looks like the value and
  // 2 like the next key. The early pair cannot be finished and the read fails.
  test::PickleWriter w;
  w.op('}');
  w.memoize();
  w.mark();
  w.str("recs");
  w.op('}');
  w.memoize();
  w.mark();
  w.integer(0);
  w.integer(1);
  w.integer(2);
  w.op('\x86');
  w.memoize();
  w.integer(3);
  w.integer(4);
  w.op('u');
  w.op('u');
  const std::string p = w.finish();
  ASSERT_TRUE(pickle::load(p, "t").has_value());
  Streamed s = stream(p, 8);
  ASSERT_FALSE(s.root.has_value());
  EXPECT_NE(s.root.status().message().find("TUPLE2 needs 2 value(s)"), std::string::npos) << s.root.status().message();
}

TEST(PickleStream, TheSinkCanStopTheRead) {
  Streamed s = stream(records_pickle(500), 8, 4096, 5);
  ASSERT_TRUE(s.root.has_value()) << s.root.status().message();
  EXPECT_EQ(*s.root, nullptr);
  EXPECT_TRUE(s.stats.stopped);
  EXPECT_EQ(s.records.size(), 5u);
}

TEST(PickleStream, ErrorsAndLimitsKeepLoadsWording) {
  const std::string p = records_pickle(20, {}, /*frames=*/false);
  // Truncated: the same message load() gives for the same bytes (but for FRAME, which load()
  // checks against the data it holds and a stream cannot: it fails where the data ends).
  for (size_t n : {size_t{0}, size_t{1}, p.size() / 3, p.size() - 1}) {
    MemorySource mem(std::string_view(p).substr(0, n));
    pickle::StreamOptions o;
    o.record_key = "recs";
    auto streamed = pickle::load_streaming(mem, "recs.pickle", o,
                                           [](const Value&, const Value&) -> Expected<bool> { return true; });
    auto whole = pickle::load(std::string_view(p).substr(0, n), "recs.pickle");
    ASSERT_FALSE(streamed.has_value()) << n;
    ASSERT_FALSE(whole.has_value()) << n;
    EXPECT_EQ(streamed.status().message(), whole.status().message()) << n;
  }
  // A string longer than the streaming buffer may hold.
  test::PickleWriter w;
  w.str(std::string(5000, 'x'));
  const std::string big = w.finish();
  MemorySource mem(big);
  pickle::StreamOptions o;
  o.record_key = "recs";
  o.max_arg_bytes = 4096;
  auto r =
      pickle::load_streaming(mem, "big.pickle", o, [](const Value&, const Value&) -> Expected<bool> { return true; });
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("BINUNICODE of 5000 bytes"), std::string::npos) << r.status().message();
  // Too many values without a record: the reader holds one record at a time.
  MemorySource mem2(p);
  o.max_arg_bytes = 4096;
  o.record_key = "absent";
  o.max_record_values = 50;
  auto lim =
      pickle::load_streaming(mem2, "recs.pickle", o, [](const Value&, const Value&) -> Expected<bool> { return true; });
  ASSERT_FALSE(lim.has_value());
  EXPECT_NE(lim.status().message().find("without reaching a top-level entry 'absent'"), std::string::npos)
      << lim.status().message();
}

}  // namespace
}  // namespace rooflens
