// The IDX reader (rooflens/train/idx_dataset.h): Debian's Fashion-MNIST files, and malformed
// files (wrong magic, truncated, trailing bytes, corrupt gzip) that must fail with a message
// naming the file and the offset.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "rooflens/train/idx_dataset.h"

namespace rooflens::train {
namespace {

namespace fs = std::filesystem;

bool have_fashion_mnist() {
  std::error_code ec;
  return fs::exists(fs::path(kFashionMnistDir) / "train-images-idx3-ubyte.gz", ec);
}

// A fresh directory under the test temp dir, removed at the end.
class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("rooflens-idx-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

// IDX bytes: magic 00 00 type rank, big-endian dims, then data.
std::vector<uint8_t> idx_bytes(std::vector<uint32_t> dims, std::vector<uint8_t> data, uint8_t type = 0x08) {
  std::vector<uint8_t> b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(d >> s));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

void write_plain(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_gz(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(f);
}

std::vector<uint8_t> iota_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i % 10);
  return v;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(IdxDataset, ReadsDebianFashionMnist) {
  if (!have_fashion_mnist())
    GTEST_SKIP() << "Fashion-MNIST not found in " << kFashionMnistDir
                 << " (Debian: apt-get install dataset-fashion-mnist)";
  auto train = load_idx_split(kFashionMnistDir, "train");
  ASSERT_TRUE(train.has_value()) << train.status().message();
  EXPECT_EQ(train->count, 60000);
  EXPECT_EQ(train->rows, 28);
  EXPECT_EQ(train->cols, 28);
  EXPECT_EQ(train->classes, 10);
  EXPECT_EQ(train->pixels.size(), size_t{60000} * 28 * 28);
  // Balanced: 6000 images per class in the training split.
  std::vector<int> per_class(10);
  for (uint8_t l : train->labels) ++per_class[l];
  for (int c : per_class) EXPECT_EQ(c, 6000);
  // The commonly quoted normalisation constants come from all 60,000 training images.
  double sum = 0, sum2 = 0;
  for (uint8_t p : train->pixels) {
    sum += p / 255.0;
    sum2 += (p / 255.0) * (p / 255.0);
  }
  const double n = static_cast<double>(train->pixels.size());
  EXPECT_NEAR(sum / n, 0.2860, 5e-4);
  EXPECT_NEAR(std::sqrt(sum2 / n - (sum / n) * (sum / n)), 0.3530, 5e-4);

  auto test = load_idx_split(kFashionMnistDir, "t10k");
  ASSERT_TRUE(test.has_value()) << test.status().message();
  EXPECT_EQ(test->count, 10000);
  EXPECT_EQ(test->classes, 10);
}

TEST(IdxDataset, PlainAndGzipGiveTheSameArray) {
  TempDir dir;
  const auto bytes = idx_bytes({3, 4, 4}, iota_bytes(48));
  write_plain(dir.file("a-images-idx3-ubyte"), bytes);
  write_gz(dir.file("b.gz"), bytes);
  auto a = read_idx_file(dir.file("a-images-idx3-ubyte"), 3);
  auto b = read_idx_file(dir.file("b.gz"), 3);
  ASSERT_TRUE(a.has_value()) << a.status().message();
  ASSERT_TRUE(b.has_value()) << b.status().message();
  EXPECT_EQ(a->dims, (std::vector<int64_t>{3, 4, 4}));
  EXPECT_EQ(a->data, b->data);
  EXPECT_EQ(a->data, iota_bytes(48));
}

TEST(IdxDataset, WrongMagicNamesFileAndOffset) {
  TempDir dir;
  auto bytes = idx_bytes({2}, {1, 2});
  bytes[0] = 0x1f;  // not an IDX file
  write_plain(dir.file("bad"), bytes);
  auto r = read_idx_file(dir.file("bad"), 1);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(contains(r.status().message(), dir.file("bad"))) << r.status().message();
  EXPECT_TRUE(contains(r.status().message(), "wrong magic number 0x1f000801 at offset 0")) << r.status().message();

  // A labels file where images are expected: rank 1, not 3.
  write_plain(dir.file("labels"), idx_bytes({2}, {1, 2}));
  r = read_idx_file(dir.file("labels"), 3);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(contains(r.status().message(), "expected 0x00000803")) << r.status().message();

  // Another element type is valid IDX, but not read.
  write_plain(dir.file("floats"), idx_bytes({1}, {0, 0, 0, 0}, 0x0d));
  r = read_idx_file(dir.file("floats"), 1);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_TRUE(contains(r.status().message(), "element type 0x0d at offset 2")) << r.status().message();
}

TEST(IdxDataset, TruncatedFilesNameTheOffset) {
  TempDir dir;
  auto full = idx_bytes({2, 4, 4}, iota_bytes(32));
  // Data cut short: 16-byte header + 20 of 32 data bytes.
  write_plain(dir.file("short"), std::vector<uint8_t>(full.begin(), full.begin() + 36));
  auto r = read_idx_file(dir.file("short"), 3);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(contains(r.status().message(),
                       "truncated: the dimensions (2 x 4 x 4) need 32 data bytes from offset 16, "
                       "the file ends at offset 36"))
      << r.status().message();
  // Header cut short.
  write_plain(dir.file("head"), std::vector<uint8_t>(full.begin(), full.begin() + 9));
  r = read_idx_file(dir.file("head"), 3);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(contains(r.status().message(), "truncated at offset 9")) << r.status().message();
  // Empty file.
  write_plain(dir.file("empty"), {});
  r = read_idx_file(dir.file("empty"), 3);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(contains(r.status().message(), "truncated: 0 byte(s)")) << r.status().message();
  // Bytes after the data.
  auto longer = full;
  longer.push_back(7);
  write_plain(dir.file("long"), longer);
  r = read_idx_file(dir.file("long"), 3);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(contains(r.status().message(), "unexpected bytes after the data at offset 48")) << r.status().message();
  // A zero dimension.
  write_plain(dir.file("zero"), idx_bytes({0, 4, 4}, {}));
  r = read_idx_file(dir.file("zero"), 3);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(contains(r.status().message(), "dimension 0 at offset 4 is 0")) << r.status().message();
}

TEST(IdxDataset, TruncatedGzipIsAnError) {
  TempDir dir;
  write_gz(dir.file("whole.gz"), idx_bytes({50, 28, 28}, iota_bytes(50 * 28 * 28)));
  std::ifstream in(dir.file("whole.gz"), std::ios::binary);
  std::vector<char> gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(gz.size(), 40u);
  std::ofstream(dir.file("cut.gz"), std::ios::binary).write(gz.data(), static_cast<std::streamsize>(gz.size() / 2));
  auto r = read_idx_file(dir.file("cut.gz"), 3);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(contains(r.status().message(), dir.file("cut.gz"))) << r.status().message();
  EXPECT_TRUE(contains(r.status().message(), "truncated")) << r.status().message();
}

TEST(IdxDataset, MissingFilesAndMismatchedSplits) {
  TempDir dir;
  auto r = read_idx_file(dir.file("nope"), 1);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(contains(r.status().message(), "no such file")) << r.status().message();

  auto split = load_idx_split(dir.str(), "train");
  ASSERT_FALSE(split.has_value());
  EXPECT_TRUE(contains(split.status().message(), "neither train-images-idx3-ubyte nor train-images-idx3-ubyte.gz"))
      << split.status().message();

  write_gz(dir.file("train-images-idx3-ubyte.gz"), idx_bytes({3, 4, 4}, iota_bytes(48)));
  write_plain(dir.file("train-labels-idx1-ubyte"), idx_bytes({2}, {0, 1}));
  split = load_idx_split(dir.str(), "train");
  ASSERT_FALSE(split.has_value());
  EXPECT_TRUE(contains(split.status().message(), "holds 3 images but")) << split.status().message();

  write_plain(dir.file("train-labels-idx1-ubyte"), idx_bytes({3}, {0, 1, 4}));
  split = load_idx_split(dir.str(), "train");
  ASSERT_TRUE(split.has_value()) << split.status().message();
  EXPECT_EQ(split->count, 3);
  EXPECT_EQ(split->classes, 5);
}

}  // namespace
}  // namespace rooflens::train
