// A reader for the subset of Python's pickle format (protocols 2-5, binary opcodes) that
// plain-data files use: None, bool, int, float, str, bytes, list, tuple, dict (any hashable
// key, tuple keys included), set, collections.OrderedDict (read as a dict) and numpy
// scalars (`numpy.core.multiarray.scalar(numpy.dtype(code), raw bytes)`, decoded to an int,
// float or bool by the dtype). It never executes anything: the only callables it accepts
// are those four names, and any other global, an unknown opcode, a truncated stream or an
// over-limit size is an invalid-input Status naming the source and the byte offset in the
// pickle stream. load() takes the whole pickle in memory; load_streaming (pickle_stream.h)
// pulls it from a source in chunks and hands one large dict out entry by entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rooflens/util/status.h"

namespace rooflens::pickle {

enum class Kind {
  kNone,
  kBool,
  kInt,
  kFloat,
  kStr,  // UTF-8 text, as stored
  kBytes,
  kList,
  kTuple,
  kDict,    // insertion order kept (dict and OrderedDict alike)
  kSet,     // set and frozenset
  kGlobal,  // a whitelisted callable (module.name in `text`); never in a finished tree
  kDtype,   // a numpy dtype (code such as "f8" in `text`); never in a finished tree
};

const char* kind_name(Kind kind);

struct Value;
using ValuePtr = std::shared_ptr<Value>;

// One node of the tree. Containers share children (the pickle memo makes a DAG); a loaded
// tree never holds a cycle and is never deeper than Limits::max_depth.
struct Value {
  Kind kind = Kind::kNone;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0.0;
  std::string text;                                    // str, bytes, global name, dtype code
  std::vector<ValuePtr> items;                         // list, tuple, set
  std::vector<std::pair<ValuePtr, ValuePtr>> entries;  // dict: (key, value) in insertion order
  std::unordered_map<std::string, size_t> index;       // dict: canonical key -> entries slot
  uint64_t offset = 0;                                 // byte offset of the opcode that created this value
  char byte_order = '<';                               // dtype only: '<', '>', '|' or '='

  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool; }
  // int, float or bool as a double (0 for anything else; check is_number() first).
  double as_double() const;
  bool is_container() const {
    return kind == Kind::kList || kind == Kind::kTuple || kind == Kind::kDict || kind == Kind::kSet;
  }
  // Dict lookup by a str key; nullptr when absent or when this is not a dict.
  const Value* get(std::string_view key) const;
  // Dict lookup by any hashable key; nullptr when absent, unhashable or not a dict.
  const Value* get(const Value& key) const;
};

// Short Python-like rendering for messages: 'abc', 12, ('cifar10', 777), [...] beyond depth.
std::string repr(const Value& v, int max_depth = 3);

// Most a dict key or set item may hold: container nesting, and bytes of its canonical form
// (plain-data keys are short, such as ('cifar10', 777); the cap keeps a key built from a
// shared tuple DAG, whose form doubles with each level, from exhausting time and memory).
constexpr size_t kMaxKeyDepth = 32;
constexpr size_t kMaxKeyBytes = 1024;

// The canonical form of a hashable value used as a dict key (Python equality: True == 1 ==
// 1.0). Returns false for unhashable values (list, dict, set) and for keys over the limits
// above.
bool canonical_key(const Value& v, std::string* out);

struct Limits {
  size_t max_memo = size_t{1} << 22;       // memo entries
  size_t max_stack = size_t{1} << 22;      // values on the stack (all marks together)
  size_t max_marks = size_t{1} << 16;      // open MARKs
  size_t max_depth = 200;                  // container nesting of the result
  size_t max_container = size_t{1} << 24;  // items in one container
};

// Parses one pickle from `data` (which must end at or after its STOP). `source` names the
// input in messages: "<source>: pickle offset <n>: <what>".
Expected<ValuePtr> load(std::string_view data, const std::string& source, const Limits& limits = {});

// Name of a pickle opcode ("BINFLOAT"), or nullptr when the byte is not one.
const char* opcode_name(uint8_t op);

}  // namespace rooflens::pickle
