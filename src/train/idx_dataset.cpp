// IDX files (plain or gzip) for the training oracle (idx_dataset.h).
#include "rooflens/train/idx_dataset.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>

#include <fmt/format.h>

namespace rooflens::train {
namespace {

constexpr uint8_t kTypeUnsignedByte = 0x08;
// No real IDX dataset comes near this; it bounds what a corrupt header can make us read.
constexpr int64_t kMaxElements = int64_t{1} << 32;

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzHandle = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads up to `n` bytes at the current position into `out` (appending). Returns the count
// read (less than n only at the end of the content), or invalid input on a gzip error.
Expected<int64_t> read_bytes(gzFile f, const std::string& path, int64_t offset, int64_t n, std::vector<uint8_t>& out) {
  int64_t got = 0;
  while (got < n) {
    const auto chunk = static_cast<unsigned>(std::min<int64_t>(n - got, int64_t{1} << 20));
    const size_t at = out.size();
    out.resize(at + chunk);
    const int r = gzread(f, out.data() + at, chunk);
    if (r < 0) {
      int errnum = 0;
      const char* msg = gzerror(f, &errnum);
      out.resize(at);
      return Status::invalid(fmt::format("{}: corrupt or truncated gzip stream at uncompressed offset {}: {}", path,
                                         offset + got, msg ? msg : "read error"));
    }
    out.resize(at + static_cast<size_t>(r));
    got += r;
    if (r == 0) break;
  }
  return got;
}

}  // namespace

Expected<IdxArray> read_idx_file(const std::string& path, int expected_rank) {
  GzHandle f(gzopen(path.c_str(), "rb"));
  if (!f) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    return Status::unavailable(fmt::format("{}: cannot open{}", path, exists ? "" : " (no such file)"));
  }
  std::vector<uint8_t> head;
  auto n = read_bytes(f.get(), path, 0, 4, head);
  if (!n) return n.status();
  if (*n < 4)
    return Status::invalid(
        fmt::format("{}: truncated: {} byte(s), an IDX file starts with a 4-byte magic number", path, *n));
  if (head[0] != 0 || head[1] != 0 || head[3] != expected_rank)
    return Status::invalid(
        fmt::format("{}: wrong magic number 0x{:02x}{:02x}{:02x}{:02x} at offset 0: expected "
                    "0x000008{:02x} (IDX, unsigned byte, rank {})",
                    path, head[0], head[1], head[2], head[3], expected_rank, expected_rank));
  if (head[2] != kTypeUnsignedByte)
    return Status::unsupported(
        fmt::format("{}: IDX element type 0x{:02x} at offset 2: only unsigned byte (0x08) is "
                    "read",
                    path, head[2]));
  std::vector<uint8_t> dim_bytes;
  n = read_bytes(f.get(), path, 4, 4 * int64_t{expected_rank}, dim_bytes);
  if (!n) return n.status();
  if (*n < 4 * expected_rank)
    return Status::invalid(fmt::format("{}: truncated at offset {}: the header needs {} dimension(s) of 4 bytes", path,
                                       4 + *n, expected_rank));
  IdxArray a;
  int64_t elements = 1;
  for (int i = 0; i < expected_rank; ++i) {
    const uint8_t* p = dim_bytes.data() + 4 * i;
    const int64_t d = (int64_t{p[0]} << 24) | (int64_t{p[1]} << 16) | (int64_t{p[2]} << 8) | int64_t{p[3]};
    if (d == 0) return Status::invalid(fmt::format("{}: dimension {} at offset {} is 0", path, i, 4 + 4 * i));
    a.dims.push_back(d);
    elements *= d;
    if (elements > kMaxElements)
      return Status::invalid(
          fmt::format("{}: dimensions at offset 4 describe more than {} elements: not a dataset "
                      "this reader accepts",
                      path, kMaxElements));
  }
  const int64_t data_offset = 4 + 4 * int64_t{expected_rank};
  n = read_bytes(f.get(), path, data_offset, elements, a.data);
  if (!n) return n.status();
  if (*n < elements)
    return Status::invalid(
        fmt::format("{}: truncated: the dimensions ({}) need {} data bytes from offset {}, the "
                    "file ends at offset {}",
                    path, fmt::join(a.dims, " x "), elements, data_offset, data_offset + *n));
  std::vector<uint8_t> extra;
  n = read_bytes(f.get(), path, data_offset + elements, 1, extra);
  if (!n) return n.status();
  if (*n > 0)
    return Status::invalid(
        fmt::format("{}: unexpected bytes after the data at offset {} (the dimensions {} end "
                    "the data there)",
                    path, data_offset + elements, fmt::join(a.dims, " x ")));
  return a;
}

Expected<std::string> find_idx_file(const std::string& dir, const std::string& stem) {
  namespace fs = std::filesystem;
  const fs::path plain = fs::path(dir) / stem;
  fs::path gz = plain;
  gz += ".gz";
  std::error_code ec;
  if (fs::is_regular_file(plain, ec)) return plain.string();
  if (fs::is_regular_file(gz, ec)) return gz.string();
  return Status::unavailable(fmt::format("{}: neither {} nor {}.gz exists", dir, stem, stem));
}

Expected<ImageDataset> load_idx_split(const std::string& dir, const std::string& split) {
  auto images_path = find_idx_file(dir, split + "-images-idx3-ubyte");
  if (!images_path) return images_path.status();
  auto labels_path = find_idx_file(dir, split + "-labels-idx1-ubyte");
  if (!labels_path) return labels_path.status();
  auto images = read_idx_file(*images_path, 3);
  if (!images) return images.status();
  auto labels = read_idx_file(*labels_path, 1);
  if (!labels) return labels.status();
  if (images->dims[0] != labels->dims[0])
    return Status::invalid(fmt::format("{} holds {} images but {} holds {} labels", *images_path, images->dims[0],
                                       *labels_path, labels->dims[0]));
  ImageDataset d;
  d.source = *images_path;
  d.count = images->dims[0];
  d.rows = images->dims[1];
  d.cols = images->dims[2];
  d.pixels = std::move(images->data);
  d.labels = std::move(labels->data);
  d.classes = 1 + *std::max_element(d.labels.begin(), d.labels.end());
  return d;
}

}  // namespace rooflens::train
