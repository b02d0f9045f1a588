// A pickle writer for tests: protocol 4 opcodes laid out the way CPython's pickler writes
// them (Lib/pickle.py: FRAME of about 64 KiB, MEMOIZE after every str, bytes and container,
// list/dict/set items in batches of 1000 with MARK ... APPENDS/SETITEMS/ADDITEMS, a lone
// item with APPEND/SETITEM, OrderedDict as STACK_GLOBAL + EMPTY_TUPLE + REDUCE, numpy
// float64 as numpy.core.multiarray.scalar(dtype('f8'), 8 bytes)). It builds fixtures such
// as NATS-Bench's single file from trees the reader loaded from the genuine files.
//
// Strings are memoized by content: a repeated string is written once and then referred to
// by BINGET / LONG_BINGET, as CPython refers back to one shared (interned) str object, so a
// stream of several networks refers across networks like the benchmark's file does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "rooflens/nas/pickle.h"

namespace rooflens::test {

class PickleWriter {
 public:
  struct Options {
    // Dicts to write as collections.OrderedDict() (the benchmark's per-network roots).
    std::function<bool(const pickle::Value&)> ordered_dict;
    // Floats stored under this dict key are written as numpy float64 scalars.
    std::string numpy_key = "params";
    bool frames = true;
  };

  PickleWriter() : PickleWriter(Options{}) {}
  explicit PickleWriter(Options o) : o_(std::move(o)) { out_ = std::string("\x80\x04", 2); }  // PROTO 4

  // One value, recursively.
  void value(const pickle::Value& v, std::string_view under_key = {}) {
    using pickle::Kind;
    switch (v.kind) {
      case Kind::kNone: op('N'); break;
      case Kind::kBool: op(v.boolean ? '\x88' : '\x89'); break;
      case Kind::kInt: integer(v.integer); break;
      case Kind::kFloat:
        if (!o_.numpy_key.empty() && under_key == o_.numpy_key) {
          numpy_f8(v.real);
        } else {
          real(v.real);
        }
        break;
      case Kind::kStr: str(v.text); break;
      case Kind::kBytes: bytes(v.text); break;
      case Kind::kTuple: tuple(v); break;
      case Kind::kList:
        op(']');
        memoize();
        batched(v.items.size(), 'a', 'e', [&](size_t i) { value(*v.items[i]); });
        break;
      case Kind::kSet:
        op('\x8f');
        memoize();
        batched(v.items.size(), 0, '\x90', [&](size_t i) { value(*v.items[i]); });
        break;
      case Kind::kDict:
        if (o_.ordered_dict && o_.ordered_dict(v)) {
          global("collections", "OrderedDict", &ordered_dict_key_);
          op(')');
          op('R');
        } else {
          op('}');
        }
        memoize();
        batched(v.entries.size(), 's', 'u', [&](size_t i) {
          const auto& [k, x] = v.entries[i];
          value(*k);
          value(*x, k->kind == Kind::kStr ? std::string_view(k->text) : std::string_view());
        });
        break;
      default: break;  // globals and dtypes are never in a loaded tree
    }
  }

  // Pieces, for streams a tree cannot express.
  void op(char c) {
    raw(c);
    commit();
  }
  void mark() { op('('); }
  void memoize() {
    op('\x94');
    ++memo_;
  }
  void integer(int64_t v) {
    if (v >= 0 && v <= 0xff) {
      raw('K');
      le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v <= 0xffff) {
      raw('M');
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      raw('J');
      le(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
    } else {
      raw('\x8a');
      raw('\x08');
      le(static_cast<uint64_t>(v), 8);
    }
    commit();
  }
  void real(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    raw('G');
    for (int i = 7; i >= 0; --i) raw(static_cast<char>((bits >> (8 * i)) & 0xff));
    commit();
  }
  void str(std::string_view s) {
    if (auto it = strings_.find(std::string(s)); it != strings_.end()) return get(it->second);
    if (s.size() < 256) {
      raw('\x8c');
      le(s.size(), 1);
    } else {
      raw('X');
      le(s.size(), 4);
    }
    frame_.append(s);
    commit();
    strings_[std::string(s)] = memo_;
    memoize();
  }
  void bytes(std::string_view s) {
    if (s.size() < 256) {
      raw('C');
      le(s.size(), 1);
    } else {
      raw('B');
      le(s.size(), 4);
    }
    frame_.append(s);
    commit();
    memoize();
  }
  void get(uint64_t key) {
    if (key < 256) {
      raw('h');
      le(key, 1);
    } else {
      raw('j');
      le(key, 4);
    }
    commit();
  }
  // Memo key of a string written before (for streams that refer back on purpose).
  uint64_t key_of(const std::string& s) const { return strings_.at(s); }
  uint64_t memo_size() const { return memo_; }

  // STOP, and the whole pickle.
  std::string finish() {
    op('.');
    flush();
    return out_;
  }

 private:
  void raw(char c) { frame_.push_back(c); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) raw(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  // CPython commits a frame once it reaches 64 KiB, at an opcode boundary.
  void commit() {
    if (frame_.size() >= (size_t{1} << 16)) flush();
  }
  void flush() {
    if (frame_.empty()) return;
    if (o_.frames) {
      out_.push_back('\x95');
      const uint64_t n = frame_.size();
      for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
    }
    out_ += frame_;
    frame_.clear();
  }
  void global(const char* module, const char* name, uint64_t* key) {
    if (*key != kNone) return get(*key);
    str(module);
    str(name);
    op('\x93');
    *key = memo_;
    memoize();
  }
  void tuple(const pickle::Value& v) {
    const size_t n = v.items.size();
    if (n == 0) return op(')');
    if (n > 3) mark();
    for (const auto& item : v.items) value(*item);
    op(n == 1 ? '\x85' : n == 2 ? '\x86' : n == 3 ? '\x87' : 't');
    memoize();
  }
  // numpy.core.multiarray.scalar(dtype('f8') with state (3, '<', ...), raw little-endian bytes)
  void numpy_f8(double d) {
    global("numpy.core.multiarray", "scalar", &scalar_key_);
    if (dtype_key_ != kNone) {
      get(dtype_key_);
    } else {
      global("numpy", "dtype", &dtype_fn_key_);
      str("f8");
      integer(0);
      integer(1);
      op('\x87');
      memoize();
      op('R');
      dtype_key_ = memo_;
      memoize();
      mark();
      integer(3);
      str("<");
      op('N');
      op('N');
      op('N');
      integer(-1);
      integer(-1);
      integer(0);
      op('t');
      memoize();
      op('b');
    }
    std::string raw_bytes(8, '\0');
    std::memcpy(raw_bytes.data(), &d, 8);  // little-endian hosts only (as the tests run)
    bytes(raw_bytes);
    op('\x86');
    memoize();
    op('R');
    memoize();
  }
  // CPython's _batch_appends / _batch_setitems: batches of 1000.
  template <typename Item>
  void batched(size_t n, char one, char many, Item item) {
    for (size_t at = 0; at < n; at += 1000) {
      const size_t k = std::min<size_t>(1000, n - at);
      if (k == 1 && one != 0) {
        item(at);
        op(one);
        continue;
      }
      mark();
      for (size_t i = at; i < at + k; ++i) item(i);
      op(many);
    }
  }

  static constexpr uint64_t kNone = UINT64_MAX;
  Options o_;
  std::string out_, frame_;
  uint64_t memo_ = 0;
  std::map<std::string, uint64_t> strings_;
  uint64_t ordered_dict_key_ = kNone, scalar_key_ = kNone, dtype_fn_key_ = kNone, dtype_key_ = kNone;
};

}  // namespace rooflens::test
