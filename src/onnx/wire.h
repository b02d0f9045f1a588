// The protobuf wire format, read in place: tags, varints, fixed-width scalars and
// length-delimited payloads as views into the caller's buffer (no copies, no allocation).
// https://protobuf.dev/programming-guides/encoding/ describes the format.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace rooflens::wire {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

// Protobuf's own limit on nested messages and groups.
inline constexpr int kMaxDepth = 100;

class Reader {
 public:
  explicit Reader(std::string_view buf) : p_(buf.data()), end_(buf.data() + buf.size()) {}

  bool done() const { return p_ == end_; }

  // The next field's number and wire type; false when malformed (field 0, wire type 6/7).
  bool tag(uint32_t* field, WireType* wt) {
    uint64_t t;
    if (!varint(&t) || t > 0xFFFFFFFFu) return false;
    *field = static_cast<uint32_t>(t >> 3);
    *wt = static_cast<WireType>(t & 7);
    return *field != 0 && (t & 7) <= 5;
  }

  bool varint(uint64_t* v) {
    if (p_ < end_ && static_cast<uint8_t>(*p_) < 0x80) {  // one byte: the common case
      *v = static_cast<uint8_t>(*p_++);
      return true;
    }
    uint64_t r = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ == end_) return false;
      const auto b = static_cast<uint8_t>(*p_++);
      r |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (b < 0x80) {
        *v = r;
        return true;
      }
    }
    return false;  // more than 10 bytes
  }

  bool fixed32(uint32_t* v) {
    if (end_ - p_ < 4) return false;
    std::memcpy(v, p_, 4);
    p_ += 4;
    return true;
  }

  bool fixed64(uint64_t* v) {
    if (end_ - p_ < 8) return false;
    std::memcpy(v, p_, 8);
    p_ += 8;
    return true;
  }

  // A length-delimited payload.
  bool bytes(std::string_view* v) {
    uint64_t n;
    if (!varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    *v = std::string_view(p_, static_cast<size_t>(n));
    p_ += n;
    return true;
  }

  // The encoding of one scalar of wire type `wt` (varint or fixed) as a view, for
  // repeated fields kept in encoded form.
  bool scalar_bytes(WireType wt, std::string_view* v) {
    const char* start = p_;
    uint64_t x;
    uint32_t y;
    bool ok = wt == kVarint ? varint(&x) : wt == kFixed64 ? fixed64(&x) : wt == kFixed32 && fixed32(&y);
    if (ok) *v = std::string_view(start, static_cast<size_t>(p_ - start));
    return ok;
  }

  // Skips one field's value (an unknown field, or a known one with an unexpected wire type,
  // which protobuf also keeps as unknown). A group is skipped to its matching end.
  bool skip(WireType wt, uint32_t field, int depth = 0) {
    uint64_t x;
    uint32_t y;
    std::string_view s;
    switch (wt) {
      case kVarint: return varint(&x);
      case kFixed64: return fixed64(&x);
      case kFixed32: return fixed32(&y);
      case kLen: return bytes(&s);
      case kStartGroup: {
        if (depth >= kMaxDepth) return false;
        uint32_t f;
        WireType w;
        while (tag(&f, &w)) {
          if (w == kEndGroup) return f == field;
          if (!skip(w, f, depth + 1)) return false;
        }
        return false;
      }
      case kEndGroup: return false;  // an end without a start
    }
    return false;
  }

 private:
  const char* p_;
  const char* end_;
};

// Element counts and values of a repeated scalar field kept as encoded chunks (each chunk
// is a packed payload or the encoding of one unpacked element; both read the same way).
inline bool varints_well_formed(std::string_view s) {
  Reader r(s);
  uint64_t v;
  while (!r.done())
    if (!r.varint(&v)) return false;
  return true;
}

inline size_t count_varints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += static_cast<uint8_t>(c) < 0x80;
  return n;
}

}  // namespace rooflens::wire
