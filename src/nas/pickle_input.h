// The bytes the pickle machine (pickle_machine.cpp) reads: a whole pickle in memory, or a
// window over a ByteSource refilled chunk by chunk. Private to src/nas.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "rooflens/nas/byte_source.h"
#include "rooflens/util/status.h"

namespace rooflens::pickle {

// Offsets are absolute in the pickle, in memory and streamed alike.
class Input {
 public:
  explicit Input(std::string_view all) : view_(all) {}
  Input(ByteSource* more, size_t chunk_bytes, size_t max_arg_bytes)
      : more_(more), chunk_(std::max<size_t>(chunk_bytes, 1)), max_arg_(max_arg_bytes) {}

  // True when n bytes are available at the read position (pulling more from the stream if
  // needed); false at the end of the data or on a read error (error() then says which).
  bool ensure(size_t n) {
    if (view_.size() - pos_ >= n) return true;
    return more_ != nullptr && refill(n);
  }
  size_t ensure_upto(size_t n) {  // makes up to n bytes available; returns how many are
    ensure(n);
    return std::min(n, available());
  }
  size_t available() const { return view_.size() - pos_; }
  const char* at() const { return view_.data() + pos_; }
  uint64_t offset() const { return base_ + pos_; }
  void skip(size_t n) { pos_ += n; }
  bool streaming() const { return more_ != nullptr; }
  // Longest argument one opcode may have buffered: unlimited in memory (it is all there).
  size_t max_arg() const { return more_ != nullptr ? max_arg_ : SIZE_MAX; }
  const Status* error() const { return err_.is_ok() ? nullptr : &err_; }
  size_t peak_buffer() const { return peak_; }  // largest buffer held (streaming)

 private:
  bool refill(size_t n) {
    if (end_ || !err_.is_ok()) return false;
    // Keep only the unread tail, then append whole chunks until n bytes are there. The
    // buffer holds at most max(chunk_ + kSlack, n - 1 + chunk_) bytes.
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<ptrdiff_t>(pos_));
    base_ += pos_;
    pos_ = 0;
    while (buf_.size() < n) {
      const size_t old = buf_.size();
      if (buf_.capacity() < old + chunk_) {  // exact: a vector's reserve() does not round up
        std::vector<char> bigger;
        bigger.reserve(std::max(old + chunk_, chunk_ + kSlack));
        bigger.assign(buf_.begin(), buf_.end());
        buf_.swap(bigger);
      }
      buf_.resize(old + chunk_);
      auto got = more_->read(buf_.data() + old, chunk_);
      buf_.resize(old + (got ? *got : 0));
      if (!got) {
        err_ = got.status();
        break;
      }
      if (*got == 0) {
        end_ = true;
        break;
      }
    }
    peak_ = std::max(peak_, buf_.capacity());
    view_ = std::string_view(buf_.data(), buf_.size());
    return buf_.size() >= n;
  }

  // Room for an unread tail (an opcode and its short argument) beside a chunk, so the
  // buffer is allocated once unless a long string needs more.
  static constexpr size_t kSlack = 4096;

  std::string_view view_;
  size_t pos_ = 0;
  uint64_t base_ = 0;  // offset of view_[0]
  ByteSource* more_ = nullptr;
  size_t chunk_ = 0, max_arg_ = 0;
  std::vector<char> buf_;
  bool end_ = false;
  Status err_;
  size_t peak_ = 0;
};

}  // namespace rooflens::pickle
