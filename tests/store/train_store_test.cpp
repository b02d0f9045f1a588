// The training results store (rooflens/store): round trip and reopen, idempotent put, the
// refusals (text, random bytes, truncated and damaged files, another application's SQLite
// file, a newer schema), kill -9 of a writer losing no committed row, two writer processes on
// one file, threads on one store, check(), and the CSV export read back by the csv: oracle.
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "rooflens/nas/oracle.h"
#include "rooflens/nas/sss_space.h"
#include "rooflens/store/train_export.h"
#include "rooflens/store/train_store.h"

namespace rooflens::store {
namespace {

namespace fs = std::filesystem;
using train::TrainKey;
using train::TrainResult;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A fresh directory per test, removed at the end.
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           fmt_name(std::string("rooflens-store-") + info->test_suite_name() + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string fmt_name(std::string s) {
    for (char& c : s)
      if (c == '/') c = '_';
    return s + "-" + std::to_string(::getpid());
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

const std::string kRecipe = "epochs=1 batch=32 lr=0.1 momentum=0.9 nesterov wd=0.0005 train=200 test=100 threads=1";

// The key and result of training `arch` (an SSS index) with seed `seed`, made up but plausible.
TrainKey key_of(int64_t arch, uint64_t seed, const std::string& dataset = "fashion-mnist",
                const std::string& recipe = kRecipe) {
  return {"nats-sss", sss_arch_string(arch), dataset, recipe, seed};
}
TrainResult result_of(int64_t arch, uint64_t seed) {
  TrainResult r;
  r.accuracy = 10 + static_cast<double>((arch * 7 + static_cast<int64_t>(seed) * 3) % 80) + 0.25;
  r.train_seconds = 1.5 + static_cast<double>(arch % 10);
  r.eval_seconds = 0.125;
  r.final_loss = 0.75;
  r.train_images = 200;
  r.test_images = 100;
  r.threads = 1;
  r.recipe = kRecipe;
  r.versions = "rooflens 0.1.0, LibTorch 1.13.0";
  return r;
}

std::shared_ptr<SqliteTrainStore> open_ok(const std::string& p, const OpenOptions& o = {}) {
  auto s = SqliteTrainStore::open(p, o);
  EXPECT_TRUE(s.has_value()) << s.status().message();
  return s ? *s : nullptr;
}

// Runs SQL on `p` with the plain SQLite API (to make foreign files or damage rows).
void raw_sql(const std::string& p, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}
int64_t raw_int(const std::string& p, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return v;
}

std::string read_bytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const std::string& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// A closed results file with `n` rows (one per network 0..n-1, seed 0), checkpointed: the
// whole database is in the main file.
std::string make_db(const std::string& p, int n) {
  {
    auto s = open_ok(p);
    for (int i = 0; i < n; ++i) EXPECT_TRUE(s->put(key_of(i, 0), result_of(i, 0)));
  }
  EXPECT_FALSE(fs::exists(p + "-wal")) << "the last close checkpoints and removes the WAL";
  return p;
}

void expect_refused(const std::string& p, const std::vector<std::string>& parts, const OpenOptions& o = {}) {
  auto s = SqliteTrainStore::open(p, o);
  ASSERT_FALSE(s.has_value()) << p << " was not refused";
  EXPECT_TRUE(contains(s.status().message(), p)) << s.status().message();
  for (const auto& part : parts) EXPECT_TRUE(contains(s.status().message(), part)) << s.status().message();
}

TEST_F(StoreTest, RoundTripAndReopen) {
  const std::string p = path("r.sqlite");
  TrainResult nan_loss = result_of(7, 1);
  nan_loss.final_loss = std::nan("");
  {
    auto s = open_ok(p);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->origin(), "the database");
    auto miss = s->find(key_of(3, 0));
    ASSERT_TRUE(miss.has_value()) << miss.status().message();
    EXPECT_FALSE(miss->has_value());
    ASSERT_TRUE(s->put(key_of(3, 0), result_of(3, 0)));
    ASSERT_TRUE(s->put(key_of(7, 1), nan_loss));
  }
  auto s = open_ok(p);
  ASSERT_TRUE(s);
  auto hit = s->find(key_of(3, 0));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  const TrainResult want = result_of(3, 0);
  const TrainResult& got = **hit;
  EXPECT_EQ(got.accuracy, want.accuracy);
  EXPECT_EQ(got.train_seconds, want.train_seconds);
  EXPECT_EQ(got.eval_seconds, want.eval_seconds);
  EXPECT_EQ(got.final_loss, want.final_loss);
  EXPECT_EQ(got.train_images, want.train_images);
  EXPECT_EQ(got.test_images, want.test_images);
  EXPECT_EQ(got.threads, want.threads);
  EXPECT_EQ(got.recipe, want.recipe);
  EXPECT_EQ(got.versions, want.versions);
  auto nan_hit = s->find(key_of(7, 1));
  ASSERT_TRUE(nan_hit.has_value() && nan_hit->has_value());
  EXPECT_TRUE(std::isnan((*nan_hit)->final_loss));
  // Each key field matters.
  for (const TrainKey& k : {key_of(3, 1), key_of(4, 0), key_of(3, 0, "mnist"), key_of(3, 0, "fashion-mnist", "x")}) {
    auto m = s->find(k);
    ASSERT_TRUE(m.has_value());
    EXPECT_FALSE(m->has_value()) << k.arch << " " << k.seed << " " << k.dataset << " " << k.recipe;
  }
  auto rows = s->rows();
  ASSERT_TRUE(rows.has_value());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].stored_at.size(), 24u) << (*rows)[0].stored_at;  // 2026-11-30T23:01:02.345Z
  EXPECT_EQ((*rows)[0].stored_at.back(), 'Z');
  s.reset();
  // The file's identity, read with plain SQLite.
  EXPECT_EQ(raw_int(p, "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(raw_int(p, "PRAGMA user_version"), kSchemaVersion);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST_F(StoreTest, PutIsIdempotentAndKeepsTheFirst) {
  auto s = open_ok(path("i.sqlite"));
  ASSERT_TRUE(s);
  TrainResult second = result_of(5, 0);
  second.accuracy = 99;
  ASSERT_TRUE(s->put(key_of(5, 0), result_of(5, 0)));
  ASSERT_TRUE(s->put(key_of(5, 0), second));
  ASSERT_TRUE(s->put(key_of(5, 0), result_of(5, 0)));
  auto hit = s->find(key_of(5, 0));
  ASSERT_TRUE(hit.has_value() && hit->has_value());
  EXPECT_EQ((*hit)->accuracy, result_of(5, 0).accuracy);
  EXPECT_EQ(s->rows()->size(), 1u);
}

TEST_F(StoreTest, PutRefusesWhatCannotBeATraining) {
  auto s = open_ok(path("v.sqlite"));
  ASSERT_TRUE(s);
  TrainResult r = result_of(1, 0);
  r.accuracy = 101;
  EXPECT_TRUE(contains(s->put(key_of(1, 0), r).message(), "outside 0..100"));
  r = result_of(1, 0);
  r.train_seconds = INFINITY;
  EXPECT_TRUE(contains(s->put(key_of(1, 0), r).message(), "finite"));
  r = result_of(1, 0);
  r.recipe = "another";
  EXPECT_TRUE(contains(s->put(key_of(1, 0), r).message(), "recipe"));
  EXPECT_TRUE(contains(s->put(key_of(1, uint64_t{1} << 63), result_of(1, 0)).message(), "2^63"));
  EXPECT_EQ(s->rows()->size(), 0u);
}

TEST_F(StoreTest, RefusesATextFile) {
  const std::string p = path("notes.txt");
  write_bytes(p, "arch,accuracy\n8:8:8:8:8,80\n");
  expect_refused(p, {"not an SQLite database", "\"arch,accuracy"});
  EXPECT_EQ(read_bytes(p), "arch,accuracy\n8:8:8:8:8,80\n");
  EXPECT_FALSE(fs::exists(p + "-wal"));
}

TEST_F(StoreTest, RefusesRandomBytes) {
  const std::string p = path("random.bin");
  std::mt19937 rng(1);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  write_bytes(p, bytes);
  expect_refused(p, {"not an SQLite database", "bytes"});
  EXPECT_EQ(read_bytes(p), bytes);
  // Random bytes behind a valid header: SQLite's own check.
  write_bytes(p, std::string("SQLite format 3\0", 16) + bytes);
  expect_refused(p, {});
}

TEST_F(StoreTest, RefusesATruncatedDatabase) {
  const std::string good = make_db(path("good.sqlite"), 300);
  const std::string bytes = read_bytes(good);
  ASSERT_GT(bytes.size(), 8u * 4096) << "the fixture should span several pages";
  for (size_t keep : {bytes.size() / 2, bytes.size() / 2 + 100, size_t{4096}, size_t{50}}) {
    const std::string p = path("cut-" + std::to_string(keep) + ".sqlite");
    write_bytes(p, bytes.substr(0, keep));
    SCOPED_TRACE(keep);
    auto s = SqliteTrainStore::open(p);
    if (s.has_value()) {
      // Whatever SQLite makes of the first pages, reading must surface the damage.
      auto rows = (*s)->rows();
      ASSERT_FALSE(rows.has_value()) << "a truncated file read as " << rows->size() << " rows";
      EXPECT_TRUE(contains(rows.status().message(), p)) << rows.status().message();
    } else {
      EXPECT_TRUE(contains(s.status().message(), p)) << s.status().message();
    }
  }
}

TEST_F(StoreTest, RefusesADamagedPage) {
  const std::string good = make_db(path("good.sqlite"), 300);
  std::string bytes = read_bytes(good);
  for (size_t i = 3 * 4096; i < 3 * 4096 + 2000; ++i) bytes[i] = static_cast<char>(0xA5);
  const std::string p = path("damaged.sqlite");
  write_bytes(p, bytes);
  auto refused = SqliteTrainStore::open(p);
  ASSERT_FALSE(refused.has_value());
  const std::string& m = refused.status().message();
  EXPECT_TRUE(contains(m, p) && (contains(m, "damaged") || contains(m, "corrupt"))) << m;
  // check() opens it anyway (no quick_check) and lists the damage.
  OpenOptions o;
  o.quick_check = false;
  o.create = false;
  auto s = open_ok(p, o);
  ASSERT_TRUE(s);
  auto problems = s->check();
  ASSERT_TRUE(problems.has_value());
  EXPECT_FALSE(problems->empty());
}

TEST_F(StoreTest, RefusesAnotherApplicationsDatabase) {
  const std::string p = path("other.sqlite");
  raw_sql(p, "CREATE TABLE people (name TEXT, age INTEGER); INSERT INTO people VALUES ('ada', 36);");
  const std::string before = read_bytes(p);
  expect_refused(p, {"another application", "table people"});
  EXPECT_EQ(read_bytes(p), before) << "nothing may be created in a foreign file";
  EXPECT_EQ(raw_int(p, "SELECT count(*) FROM sqlite_master"), 1);
  // With an application id of its own (and no tables), likewise.
  const std::string q = path("other-id.sqlite");
  raw_sql(q, "PRAGMA application_id = 1234; PRAGMA user_version = 3;");
  expect_refused(q, {"another application", "0x4d2"});
  EXPECT_EQ(raw_int(q, "SELECT count(*) FROM sqlite_master"), 0);
  // rooflens' id but no table.
  const std::string r = path("no-table.sqlite");
  raw_sql(r, "PRAGMA application_id = " + std::to_string(kApplicationId) + "; PRAGMA user_version = 1;");
  expect_refused(r, {"without its table"});
}

TEST_F(StoreTest, RefusesANewerSchema) {
  const std::string p = make_db(path("newer.sqlite"), 3);
  raw_sql(p, "PRAGMA user_version = " + std::to_string(kSchemaVersion + 1));
  auto s = SqliteTrainStore::open(p);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.status().code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(s.status().message(), p));
  EXPECT_TRUE(contains(s.status().message(), "newer")) << s.status().message();
}

TEST_F(StoreTest, ReadingDoesNotCreate) {
  OpenOptions o;
  o.create = false;
  expect_refused(path("missing.sqlite"), {"no such file"}, o);
  EXPECT_FALSE(fs::exists(path("missing.sqlite")));
  expect_refused(dir_.string(), {"directory"});
}

TEST_F(StoreTest, CheckListsBadValues) {
  const std::string p = make_db(path("values.sqlite"), 5);
  {
    auto s = open_ok(p);
    auto problems = s->check();
    ASSERT_TRUE(problems.has_value());
    EXPECT_TRUE(problems->empty()) << (problems->empty() ? "" : problems->front());
  }
  raw_sql(p,
          "UPDATE train_results SET accuracy = 150 WHERE arch = '8:8:8:8:16';"
          "UPDATE train_results SET train_seconds = -1 WHERE arch = '8:8:8:8:24';"
          "UPDATE train_results SET arch = '8:8:8:8:9' WHERE arch = '8:8:8:8:32';");
  auto s = open_ok(p);
  auto problems = s->check();
  ASSERT_TRUE(problems.has_value());
  ASSERT_EQ(problems->size(), 3u);
  EXPECT_TRUE(contains((*problems)[0], "accuracy '150.0' is not a percentage")) << (*problems)[0];
  EXPECT_TRUE(contains((*problems)[1], "train_seconds '-1.0'")) << (*problems)[1];
  EXPECT_TRUE(contains((*problems)[2], "arch")) << (*problems)[2];
}

TEST_F(StoreTest, ThreadsShareOneStore) {
  auto s = open_ok(path("threads.sqlite"));
  ASSERT_TRUE(s);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        const int64_t arch = (t * 20 + i) % 100;  // overlapping keys
        if (!s->put(key_of(arch, 0), result_of(arch, 0))) ++failures;
        auto hit = s->find(key_of(arch, 0));
        if (!hit || !hit->has_value()) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(s->rows()->size(), 100u);
}

// Reads whole lines "<n>\n" from fd until EOF or until `stop` of them arrived.
std::vector<int> read_reports(int fd, size_t stop) {
  std::vector<int> out;
  std::string buf;
  char chunk[256];
  while (out.size() < stop) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      out.push_back(std::stoi(buf.substr(0, nl)));
      buf.erase(0, nl + 1);
    }
  }
  return out;
}

TEST_F(StoreTest, KillNineLosesNoCommittedRow) {
  const std::string p = path("kill.sqlite");
  make_db(p, 1);  // the file exists before the writer starts
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // writer: put, and once put has returned (committed) report the key
    ::close(fds[0]);
    auto s = SqliteTrainStore::open(p);
    if (!s) ::_exit(3);
    for (int i = 1; i < 100000; ++i) {
      if (!(*s)->put(key_of(i % kSssSpaceSize, static_cast<uint64_t>(i / kSssSpaceSize)), result_of(i, 0))) ::_exit(4);
      const std::string line = std::to_string(i) + "\n";
      if (::write(fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(5);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::vector<int> reported = read_reports(fds[0], 150);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended before the kill (exit " << WEXITSTATUS(status) << ")";
  // What it reported between our last read and the kill is in the pipe still.
  for (int k : read_reports(fds[0], SIZE_MAX)) reported.push_back(k);
  ::close(fds[0]);
  ASSERT_GE(reported.size(), 150u);
  auto s = open_ok(p);
  ASSERT_TRUE(s);
  for (int i : reported) {
    auto hit = s->find(key_of(i % kSssSpaceSize, static_cast<uint64_t>(i / kSssSpaceSize)));
    ASSERT_TRUE(hit.has_value()) << hit.status().message();
    ASSERT_TRUE(hit->has_value()) << "committed row " << i << " lost";
    EXPECT_EQ((*hit)->accuracy, result_of(i, 0).accuracy);
  }
  auto problems = s->check();
  ASSERT_TRUE(problems.has_value());
  EXPECT_TRUE(problems->empty()) << problems->front();
  const size_t rows = s->rows()->size();
  EXPECT_GE(rows, reported.size() + 1);  // + the row before the writer started
  EXPECT_LE(rows, reported.size() + 2);  // at most one committed but not yet reported
}

TEST_F(StoreTest, TwoProcessesOnOneFile) {
  const std::string p = path("two.sqlite");
  // Both start on a missing file: both may try to create the table.
  auto writer = [&](int first, int last) -> pid_t {
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    auto s = SqliteTrainStore::open(p);
    if (!s) {
      std::fprintf(stderr, "open: %s\n", s.status().message().c_str());
      ::_exit(3);
    }
    for (int i = first; i < last; ++i) {
      Status st = (*s)->put(key_of(i, 0), result_of(i, 0));
      if (!st) {
        std::fprintf(stderr, "put %d: %s\n", i, st.message().c_str());
        ::_exit(4);
      }
      auto hit = (*s)->find(key_of(i, 0));
      if (!hit || !hit->has_value()) ::_exit(5);
    }
    ::_exit(0);
  };
  const pid_t a = writer(0, 150);
  const pid_t b = writer(50, 200);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  for (pid_t pid : {a, b}) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "writer " << pid;
  }
  auto s = open_ok(p);
  ASSERT_TRUE(s);
  auto rows = s->rows();
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->size(), 200u);
  std::set<std::string> archs;
  for (const auto& r : *rows) archs.insert(r.key.arch);
  EXPECT_EQ(archs.size(), 200u);
  auto problems = s->check();
  ASSERT_TRUE(problems.has_value());
  EXPECT_TRUE(problems->empty()) << problems->front();
}

TEST_F(StoreTest, ExportMeansOverSeedsForTheCsvOracle) {
  std::vector<StoredTraining> rows;
  auto add = [&](int64_t arch, uint64_t seed, double acc, const std::string& dataset, const std::string& recipe) {
    StoredTraining t;
    t.key = key_of(arch, seed, dataset, recipe);
    t.result = result_of(arch, seed);
    t.result.accuracy = acc;
    t.result.train_seconds = 2;
    t.result.eval_seconds = 1;
    rows.push_back(t);
  };
  add(284, 0, 80, "fashion-mnist", kRecipe);
  add(284, 1, 82, "fashion-mnist", kRecipe);
  add(0, 0, 70, "fashion-mnist", kRecipe);
  add(0, 0, 50, "mnist", kRecipe);
  add(0, 0, 60, "fashion-mnist", "other recipe");
  const auto groups = group_trainings(rows);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].trainings, 3u);
  EXPECT_EQ(groups[0].networks, 2u);
  EXPECT_EQ(groups[0].best_accuracy, 81);
  EXPECT_EQ(groups[0].best_arch, sss_arch_string(284));
  EXPECT_EQ(groups[0].train_seconds, 6);
  // A mix is refused, listing what to choose from.
  auto mixed = select_one_group(rows, {}, "f.sqlite");
  ASSERT_FALSE(mixed.has_value());
  EXPECT_TRUE(contains(mixed.status().message(), "3 different")) << mixed.status().message();
  EXPECT_TRUE(contains(mixed.status().message(), "--dataset mnist")) << mixed.status().message();
  EXPECT_TRUE(contains(mixed.status().message(), "--recipe \"other recipe\"")) << mixed.status().message();
  // --recipe matches text within the recipe.
  auto other = select_one_group(rows, {"", "fashion-mnist", "other"}, "f.sqlite");
  ASSERT_TRUE(other.has_value()) << other.status().message();
  EXPECT_EQ(other->size(), 1u);
  EXPECT_FALSE(select_one_group(rows, {"", "fashion-mnist", ""}, "f.sqlite").has_value());
  auto none = select_one_group(rows, {"", "cifar10", ""}, "f.sqlite");
  ASSERT_FALSE(none.has_value());
  EXPECT_TRUE(contains(none.status().message(), "no trainings match")) << none.status().message();
  auto one = select_one_group(rows, {"", "fashion-mnist", kRecipe}, "f.sqlite");
  ASSERT_TRUE(one.has_value()) << one.status().message();
  auto csv = accuracy_csv(*one);
  ASSERT_TRUE(csv.has_value()) << csv.status().message();
  EXPECT_EQ(*csv, "arch,accuracy,train_seconds,trials\n8:8:8:8:8,70,3,1\n" + sss_arch_string(284) + ",81,3,2\n");
  // The csv: oracle reads it: the means are its accuracies and costs.
  auto oracle = nas::CsvOracle::parse(*csv, "export.csv");
  ASSERT_TRUE(oracle.has_value()) << oracle.status().message();
  auto e = (*oracle)->evaluate(284, 0);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->accuracy, 81);
  EXPECT_EQ(e->cost_seconds, 3);
  EXPECT_EQ(*(*oracle)->final_accuracy(0), 70);
}

}  // namespace
}  // namespace rooflens::store
