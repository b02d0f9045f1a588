// Bytes pulled in chunks, for readers that must not hold a whole file in memory: a file, a
// buffer already in memory, and bzip2 decompression over another source (libbz2's
// BZ2_bzDecompress fed one input chunk at a time). The streaming pickle reader
// (pickle_stream.h) reads NATS-Bench's multi-GB single file through FileSource -> Bz2Source.
// Errors name the source; bzip2 errors also the compressed byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens {

// A pull source. read() copies up to `cap` bytes into `dst` and returns how many; 0 means
// the end (and only the end, so a source never returns 0 before it is exhausted).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual Expected<size_t> read(char* dst, size_t cap) = 0;
};

// A buffer in memory (not owned: it must outlive the source).
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  Expected<size_t> read(char* dst, size_t cap) override;
  uint64_t bytes_read() const { return pos_; }
  uint64_t size() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

// A file, read sequentially. Messages: "<path>: cannot open file" / "<path>: read error".
class FileSource : public ByteSource {
 public:
  static Expected<std::unique_ptr<FileSource>> open(const std::string& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Expected<size_t> read(char* dst, size_t cap) override;
  uint64_t bytes_read() const { return read_; }
  uint64_t size() const { return size_; }  // at open

 private:
  FileSource(std::FILE* f, std::string path, uint64_t size) : f_(f), path_(std::move(path)), size_(size) {}
  std::FILE* f_;
  std::string path_;
  uint64_t size_ = 0;
  uint64_t read_ = 0;
};

// Default chunk of compressed input read at a time (and of pickle bytes, pickle_stream.h).
constexpr size_t kDefaultChunkBytes = size_t{1} << 20;

// Decompresses one or more concatenated bzip2 streams (what Python's bz2 module writes and
// reads) from `compressed`, which it does not own. Memory is fixed at construction: one
// input buffer of `chunk_bytes` plus libbz2's state (about 3.6 MB for block size 9); output
// goes straight into the caller's buffer. Errors read "<source>: bzip2: <what> (compressed
// byte <n>)" (bz2_decompress, nats_data.h, reads through this one): an empty input, a bad
// magic (at the byte where a stream should start), corrupt data, or data that ends inside a
// stream ("truncated").
class Bz2Source : public ByteSource {
 public:
  Bz2Source(ByteSource& compressed, std::string source, size_t chunk_bytes = kDefaultChunkBytes);
  ~Bz2Source() override;
  Bz2Source(const Bz2Source&) = delete;
  Bz2Source& operator=(const Bz2Source&) = delete;

  Expected<size_t> read(char* dst, size_t cap) override;
  uint64_t compressed_consumed() const;
  uint64_t decompressed() const { return produced_; }
  // Bytes this source buffers itself (the input chunk); constant after construction.
  size_t buffered_bytes() const { return in_.capacity(); }
  // The error that stopped it (ok while none did).
  const Status& error() const { return failed_; }

 private:
  Status fail(const std::string& what, uint64_t at);
  Status refill();

  struct State;  // libbz2's bz_stream, kept out of this header
  ByteSource& src_;
  std::string source_;
  std::vector<char> in_;
  std::unique_ptr<State> state_;
  bool open_ = false;     // inside a bzip2 stream (BZ2_bzDecompressInit done)
  bool src_end_ = false;  // the compressed source is exhausted
  bool started_ = false;  // some compressed byte was seen
  uint64_t pulled_ = 0;   // compressed bytes read from src_
  uint64_t produced_ = 0;
  uint64_t stream_start_ = 0;  // compressed offset of the current stream
  Status failed_;
};

}  // namespace rooflens
