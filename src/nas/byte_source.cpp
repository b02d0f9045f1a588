// Byte sources (byte_source.h): memory, a file, and bzip2 decompression through libbz2's
// stream API, one compressed chunk at a time: the one bzip2 decode loop of the tree
// (bz2_decompress in nats_data.cpp reads through it).
#include "rooflens/nas/byte_source.h"

#include <bzlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

namespace rooflens {
namespace {

// libbz2's error codes in words.
const char* bz2_error(int rc) {
  switch (rc) {
    case BZ_DATA_ERROR: return "data integrity error (corrupt or modified stream)";
    case BZ_DATA_ERROR_MAGIC: return "not a bzip2 stream (bad magic)";
    case BZ_MEM_ERROR: return "out of memory";
    case BZ_PARAM_ERROR: return "bad parameter";
    case BZ_CONFIG_ERROR: return "libbz2 misconfigured";
    default: return "decompression error";
  }
}

}  // namespace

Expected<size_t> MemorySource::read(char* dst, size_t cap) {
  const size_t n = std::min(cap, bytes_.size() - pos_);
  if (n > 0) std::memcpy(dst, bytes_.data() + pos_, n);
  pos_ += n;
  return n;
}

Expected<std::unique_ptr<FileSource>> FileSource::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::invalid(fmt::format("{}: cannot open file", path));
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  return std::unique_ptr<FileSource>(new FileSource(f, path, ec ? 0 : static_cast<uint64_t>(size)));
}

FileSource::~FileSource() { std::fclose(f_); }

Expected<size_t> FileSource::read(char* dst, size_t cap) {
  const size_t n = std::fread(dst, 1, cap, f_);
  if (n < cap && std::ferror(f_)) return Status::invalid(fmt::format("{}: read error", path_));
  read_ += n;
  return n;
}

struct Bz2Source::State {
  bz_stream s{};
};

Bz2Source::Bz2Source(ByteSource& compressed, std::string source, size_t chunk_bytes)
    : src_(compressed), source_(std::move(source)), state_(std::make_unique<State>()) {
  // libbz2 counts input in unsigned int.
  in_.resize(std::clamp<size_t>(chunk_bytes, 1, size_t{1} << 30));
}

Bz2Source::~Bz2Source() {
  if (open_) BZ2_bzDecompressEnd(&state_->s);
}

uint64_t Bz2Source::compressed_consumed() const { return pulled_ - state_->s.avail_in; }

Status Bz2Source::fail(const std::string& what, uint64_t at) {
  if (open_) BZ2_bzDecompressEnd(&state_->s);
  open_ = false;
  failed_ = Status::invalid(fmt::format("{}: bzip2: {} (compressed byte {})", source_, what, at));
  return failed_;
}

Status Bz2Source::refill() {
  auto got = src_.read(in_.data(), in_.size());
  if (!got) {
    failed_ = got.status();
    return failed_;
  }
  if (*got == 0) src_end_ = true;
  state_->s.next_in = in_.data();
  state_->s.avail_in = static_cast<unsigned>(*got);
  pulled_ += *got;
  if (*got > 0) started_ = true;
  return Status::ok();
}

Expected<size_t> Bz2Source::read(char* dst, size_t cap) {
  if (!failed_.is_ok()) return failed_;
  cap = std::min<size_t>(cap, size_t{1} << 30);
  if (cap == 0) return size_t{0};
  bz_stream& s = state_->s;
  for (;;) {
    if (s.avail_in == 0 && !src_end_) ROOFLENS_RETURN_IF_ERROR(refill());
    if (!open_) {
      if (s.avail_in == 0) {  // here the source is exhausted (refill() ran)
        if (!started_) return fail("empty file", 0);
        return size_t{0};  // the end, after the last complete stream
      }
      // BZ2_bzDecompressInit leaves next_in / avail_in alone.
      if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK) {
        failed_ = Status::internal(fmt::format("{}: bzip2: cannot initialise the decompressor", source_));
        return failed_;
      }
      open_ = true;
      stream_start_ = compressed_consumed();
    }
    s.next_out = dst;
    s.avail_out = static_cast<unsigned>(cap);
    const int rc = BZ2_bzDecompress(&s);
    const size_t produced = cap - s.avail_out;
    produced_ += produced;
    if (rc == BZ_STREAM_END) {
      // Python's bz2 reads concatenated streams; whatever follows must be another one (the
      // next round reports trailing garbage as a bad magic at its first byte).
      BZ2_bzDecompressEnd(&s);
      open_ = false;
      if (produced > 0) return produced;
      continue;
    }
    if (rc != BZ_OK) return fail(bz2_error(rc), rc == BZ_DATA_ERROR_MAGIC ? stream_start_ : compressed_consumed());
    if (produced > 0) return produced;
    if (s.avail_in == 0 && src_end_) return fail("truncated: the data ends inside a stream", pulled_);
  }
}

}  // namespace rooflens
