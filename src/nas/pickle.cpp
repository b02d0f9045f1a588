// Pickle reader (pickle.h): a stack machine over the binary opcodes, with every read
// bounds-checked and every size capped. Containers created while loading are tracked so a
// failed or hostile load (cycles, deep nesting) can be torn down without recursion.
#include "rooflens/nas/pickle.h"

#include <bit>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace rooflens::pickle {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kFloat: return "float";
    case Kind::kStr: return "str";
    case Kind::kBytes: return "bytes";
    case Kind::kList: return "list";
    case Kind::kTuple: return "tuple";
    case Kind::kDict: return "dict";
    case Kind::kSet: return "set";
    case Kind::kGlobal: return "global";
    case Kind::kDtype: return "numpy.dtype";
  }
  return "?";
}

const char* opcode_name(uint8_t op) {
  switch (op) {
    case '(': return "MARK";
    case '.': return "STOP";
    case '0': return "POP";
    case '1': return "POP_MARK";
    case '2': return "DUP";
    case 'F': return "FLOAT";
    case 'I': return "INT";
    case 'J': return "BININT";
    case 'K': return "BININT1";
    case 'L': return "LONG";
    case 'M': return "BININT2";
    case 'N': return "NONE";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 'R': return "REDUCE";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'X': return "BINUNICODE";
    case 'a': return "APPEND";
    case 'b': return "BUILD";
    case 'c': return "GLOBAL";
    case 'd': return "DICT";
    case '}': return "EMPTY_DICT";
    case 'e': return "APPENDS";
    case 'g': return "GET";
    case 'h': return "BINGET";
    case 'i': return "INST";
    case 'j': return "LONG_BINGET";
    case 'l': return "LIST";
    case ']': return "EMPTY_LIST";
    case 'o': return "OBJ";
    case 'p': return "PUT";
    case 'q': return "BINPUT";
    case 'r': return "LONG_BINPUT";
    case 's': return "SETITEM";
    case 't': return "TUPLE";
    case ')': return "EMPTY_TUPLE";
    case 'u': return "SETITEMS";
    case 'G': return "BINFLOAT";
    case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x85: return "TUPLE1";
    case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";
    case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";
    case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    case 0x8c: return "SHORT_BINUNICODE";
    case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x92: return "NEWOBJ_EX";
    case 0x93: return "STACK_GLOBAL";
    case 0x94: return "MEMOIZE";
    case 0x95: return "FRAME";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

double Value::as_double() const {
  switch (kind) {
    case Kind::kInt: return static_cast<double>(integer);
    case Kind::kFloat: return real;
    case Kind::kBool: return boolean ? 1.0 : 0.0;
    default: return 0.0;
  }
}

const Value* Value::get(std::string_view key) const {
  if (kind != Kind::kDict) return nullptr;
  std::string k = "s";
  k.append(key);
  auto it = index.find(k);
  return it == index.end() ? nullptr : entries[it->second].second.get();
}

const Value* Value::get(const Value& key) const {
  std::string k;
  if (kind != Kind::kDict || !canonical_key(key, &k)) return nullptr;
  auto it = index.find(k);
  return it == index.end() ? nullptr : entries[it->second].second.get();
}

namespace {

// Appends v's canonical form to *out. False when v is unhashable, nested deeper than
// kMaxKeyDepth, or its form would exceed kMaxKeyBytes: the size is checked as the form grows,
// so a tuple DAG (DUP + TUPLE2, n times) whose form would be 2^n long costs at most
// kMaxKeyBytes of work instead of exhausting time and memory (found by fuzz/fuzz_pickle).
bool canonical_key_at(const Value& v, std::string* out, size_t depth) {
  if (depth > kMaxKeyDepth || out->size() > kMaxKeyBytes) return false;
  switch (v.kind) {
    case Kind::kNone: out->append("N"); break;
    case Kind::kBool: out->append(v.boolean ? "i1" : "i0"); break;
    case Kind::kInt: out->append("i").append(std::to_string(v.integer)); break;
    case Kind::kFloat: {
      // A float equal to an int is the same key as that int (Python: 1.0 == 1).
      if (v.real == v.real && v.real >= -9.2e18 && v.real <= 9.2e18 &&
          static_cast<double>(static_cast<int64_t>(v.real)) == v.real) {
        out->append("i").append(std::to_string(static_cast<int64_t>(v.real)));
      } else {
        out->append(fmt::format("f{:a}", v.real));
      }
      break;
    }
    case Kind::kStr:
    case Kind::kBytes:
      if (v.text.size() >= kMaxKeyBytes - out->size()) return false;
      out->append(v.kind == Kind::kStr ? "s" : "b").append(v.text);
      break;
    case Kind::kTuple: {
      out->append(fmt::format("t{}(", v.items.size()));
      for (const ValuePtr& item : v.items) {
        // Length-prefix each element (8 bytes, little-endian, filled in once the element is
        // written) so ("a,b",) and ("a","b") differ.
        if (out->size() + 8 > kMaxKeyBytes) return false;
        const size_t at = out->size();
        out->append(8, '\0');
        if (!canonical_key_at(*item, out, depth + 1)) return false;
        const uint64_t len = out->size() - at - 8;
        for (size_t b = 0; b < 8; ++b) (*out)[at + b] = static_cast<char>((len >> (8 * b)) & 0xff);
      }
      out->append(")");
      break;
    }
    default: return false;
  }
  return out->size() <= kMaxKeyBytes;
}

void repr_at(const Value& v, int depth, std::string* out) {
  auto seq = [&](const char* open, const char* close) {
    out->append(open);
    if (depth <= 0) {
      out->append("...");
    } else {
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out->append(", ");
        if (i >= 8) { out->append("..."); break; }
        repr_at(*v.items[i], depth - 1, out);
      }
      if (v.kind == Kind::kTuple && v.items.size() == 1) out->append(",");
    }
    out->append(close);
  };
  switch (v.kind) {
    case Kind::kNone: out->append("None"); break;
    case Kind::kBool: out->append(v.boolean ? "True" : "False"); break;
    case Kind::kInt: out->append(std::to_string(v.integer)); break;
    case Kind::kFloat: out->append(fmt::format("{}", v.real)); break;
    case Kind::kStr: out->append("'").append(v.text.substr(0, 64)).append(v.text.size() > 64 ? "...'" : "'"); break;
    case Kind::kBytes: out->append(fmt::format("b<{} bytes>", v.text.size())); break;
    case Kind::kList: seq("[", "]"); break;
    case Kind::kTuple: seq("(", ")"); break;
    case Kind::kSet: seq("{", "}"); break;
    case Kind::kDict:
      out->append("{");
      if (depth <= 0) {
        out->append("...");
      } else {
        for (size_t i = 0; i < v.entries.size(); ++i) {
          if (i) out->append(", ");
          if (i >= 8) { out->append("..."); break; }
          repr_at(*v.entries[i].first, depth - 1, out);
          out->append(": ");
          repr_at(*v.entries[i].second, depth - 1, out);
        }
      }
      out->append("}");
      break;
    case Kind::kGlobal: out->append("<global ").append(v.text).append(">"); break;
    case Kind::kDtype: out->append("dtype('").append(v.text).append("')"); break;
  }
}

constexpr const char* kOrderedDict = "collections.OrderedDict";
constexpr const char* kNumpyDtype = "numpy.dtype";
constexpr const char* kNumpyScalar = "numpy.core.multiarray.scalar";

// The callables a data pickle may name; anything else would mean running foreign code.
const char* allowed_global(const std::string& module, const std::string& name) {
  if (module == "collections" && name == "OrderedDict") return kOrderedDict;
  if (module == "numpy" && name == "dtype") return kNumpyDtype;
  if ((module == "numpy.core.multiarray" || module == "numpy._core.multiarray") && name == "scalar")
    return kNumpyScalar;
  return nullptr;
}

class Unpickler {
 public:
  Unpickler(std::string_view data, const std::string& source, const Limits& limits)
      : data_(data), source_(source), limits_(limits) {}

  ~Unpickler() {
    // Empty every container we made, one level at a time, so no destructor recurses deeply
    // and no cycle leaks. The result's containers are exempt once it passed validation.
    for (const ValuePtr& c : containers_) {
      if (keep_.count(c.get())) continue;
      c->items.clear();
      c->entries.clear();
      c->index.clear();
    }
  }

  Expected<ValuePtr> run();

 private:
  Status fail(uint64_t at, const std::string& what) const {
    return Status::invalid(fmt::format("{}: pickle offset {}: {}", source_, at, what));
  }
  Status need(size_t n) const {
    if (data_.size() - pos_ < n)
      return fail(op_at_, fmt::format("truncated: {} needs {} more byte(s), {} left", op_name_, n,
                                      data_.size() - pos_));
    return Status::ok();
  }
  uint64_t read_le(size_t n) {  // caller checked need(n)
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(data_[pos_ + i])} << (8 * i);
    pos_ += n;
    return v;
  }
  ValuePtr make(Kind kind) {
    auto v = std::make_shared<Value>();
    v->kind = kind;
    v->offset = op_at_;
    if (v->is_container()) containers_.push_back(v);
    return v;
  }
  Status push(ValuePtr v) {
    if (stack_.size() >= limits_.max_stack) return fail(op_at_, "stack exceeds its limit");
    stack_.push_back(std::move(v));
    return Status::ok();
  }
  Expected<ValuePtr> pop() {
    if (stack_.size() <= stack_floor()) return fail(op_at_, fmt::format("{} on an empty stack", op_name_));
    ValuePtr v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  size_t stack_floor() const { return marks_.empty() ? 0 : marks_.back(); }
  // Pops everything above the last MARK (and the mark).
  Expected<std::vector<ValuePtr>> pop_mark() {
    if (marks_.empty()) return fail(op_at_, fmt::format("{} without a MARK", op_name_));
    size_t m = marks_.back();
    marks_.pop_back();
    std::vector<ValuePtr> out(std::make_move_iterator(stack_.begin() + static_cast<ptrdiff_t>(m)),
                              std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return out;
  }
  Status put_memo(uint64_t key) {
    if (stack_.size() <= stack_floor()) return fail(op_at_, fmt::format("{} on an empty stack", op_name_));
    if (memo_.size() >= limits_.max_memo && !memo_.count(key)) return fail(op_at_, "memo exceeds its limit");
    memo_[key] = stack_.back();
    return Status::ok();
  }
  Status get_memo(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return fail(op_at_, fmt::format("{} of memo key {} that was never stored", op_name_, key));
    return push(it->second);
  }
  Status text(size_t len_bytes, Kind kind);
  Status tuple_of(size_t n);
  Status add_to(Value& target, std::vector<ValuePtr> items);
  Status set_items(Value& dict, std::vector<ValuePtr>& kv, size_t first);
  Status call(const ValuePtr& fn, const ValuePtr& args);
  Status build();
  Status step(uint8_t op, bool* stop);
  Status validate(const Value& root);

  std::string_view data_;
  const std::string& source_;
  Limits limits_;
  size_t pos_ = 0;
  uint64_t op_at_ = 0;
  const char* op_name_ = "";
  std::vector<ValuePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, ValuePtr> memo_;
  std::vector<ValuePtr> containers_;
  std::unordered_set<const Value*> keep_;
};

Status Unpickler::text(size_t len_bytes, Kind kind) {
  ROOFLENS_RETURN_IF_ERROR(need(len_bytes));
  uint64_t n = read_le(len_bytes);
  if (n > data_.size() - pos_)
    return fail(op_at_, fmt::format("truncated: {} of length {} with {} byte(s) left", op_name_, n, data_.size() - pos_));
  ValuePtr v = make(kind);
  v->text.assign(data_.substr(pos_, n));
  pos_ += n;
  return push(std::move(v));
}

Status Unpickler::tuple_of(size_t n) {
  if (stack_.size() - stack_floor() < n)
    return fail(op_at_, fmt::format("{} needs {} value(s) on the stack", op_name_, n));
  ValuePtr t = make(Kind::kTuple);
  t->items.assign(stack_.end() - static_cast<ptrdiff_t>(n), stack_.end());
  stack_.resize(stack_.size() - n);
  return push(std::move(t));
}

Status Unpickler::set_items(Value& dict, std::vector<ValuePtr>& kv, size_t first) {
  if (dict.kind != Kind::kDict)
    return fail(op_at_, fmt::format("{} on a {}, not a dict", op_name_, kind_name(dict.kind)));
  if ((kv.size() - first) % 2 != 0) return fail(op_at_, fmt::format("{} with an odd number of values", op_name_));
  for (size_t i = first; i + 1 < kv.size(); i += 2) {
    std::string key;
    if (!canonical_key(*kv[i], &key))
      return fail(op_at_, fmt::format("dict key {} is unhashable, nested deeper than {} or longer than {} bytes",
                                      repr(*kv[i], 2), kMaxKeyDepth, kMaxKeyBytes));
    auto [it, inserted] = dict.index.emplace(std::move(key), dict.entries.size());
    if (inserted) {
      if (dict.entries.size() >= limits_.max_container) return fail(op_at_, "dict exceeds its size limit");
      dict.entries.emplace_back(kv[i], kv[i + 1]);
    } else {
      dict.entries[it->second].second = kv[i + 1];
    }
  }
  return Status::ok();
}

Status Unpickler::add_to(Value& target, std::vector<ValuePtr> items) {
  if (target.kind != Kind::kList && target.kind != Kind::kSet)
    return fail(op_at_, fmt::format("{} on a {}", op_name_, kind_name(target.kind)));
  if (target.items.size() + items.size() > limits_.max_container)
    return fail(op_at_, fmt::format("{} exceeds the size limit", kind_name(target.kind)));
  for (ValuePtr& v : items) {
    if (target.kind == Kind::kSet) {
      std::string k;
      if (!canonical_key(*v, &k))
        return fail(op_at_, fmt::format("set item {} is unhashable, nested deeper than {} or longer than {} bytes",
                                        repr(*v, 2), kMaxKeyDepth, kMaxKeyBytes));
      auto [it, inserted] = target.index.emplace(std::move(k), target.items.size());
      if (!inserted) continue;
    }
    target.items.push_back(std::move(v));
  }
  return Status::ok();
}

// REDUCE / NEWOBJ: only the whitelisted callables, with the argument shapes numpy and
// collections write.
Status Unpickler::call(const ValuePtr& fn, const ValuePtr& args) {
  if (fn->kind != Kind::kGlobal)
    return fail(op_at_, fmt::format("{} of a {}, not a callable", op_name_, kind_name(fn->kind)));
  if (args->kind != Kind::kTuple)
    return fail(op_at_, fmt::format("{} arguments are a {}, not a tuple", op_name_, kind_name(args->kind)));
  const auto& a = args->items;
  if (fn->text == kOrderedDict) {
    if (!a.empty()) return fail(op_at_, "OrderedDict called with arguments (only OrderedDict() is supported)");
    return push(make(Kind::kDict));
  }
  if (fn->text == kNumpyDtype) {
    if (a.empty() || a[0]->kind != Kind::kStr) return fail(op_at_, "numpy.dtype called without a type code");
    ValuePtr d = make(Kind::kDtype);
    d->text = a[0]->text;
    return push(std::move(d));
  }
  // numpy scalar(dtype, raw bytes)
  if (a.size() != 2 || a[0]->kind != Kind::kDtype || a[1]->kind != Kind::kBytes)
    return fail(op_at_, "numpy scalar needs (dtype, bytes)");
  const std::string& code = a[0]->text;
  const std::string& raw = a[1]->text;
  if (code.size() < 2) return fail(op_at_, fmt::format("numpy scalar of unsupported dtype '{}'", code));
  char type = code[0];
  int size = 0;
  for (size_t i = 1; i < code.size(); ++i) {
    if (code[i] < '0' || code[i] > '9' || size > 16) return fail(op_at_, fmt::format("numpy scalar of unsupported dtype '{}'", code));
    size = size * 10 + (code[i] - '0');
  }
  if (raw.size() != static_cast<size_t>(size))
    return fail(op_at_, fmt::format("numpy scalar of dtype '{}' with {} byte(s)", code, raw.size()));
  bool big = a[0]->byte_order == '>';
  uint64_t bits = 0;
  for (int i = 0; i < size && size <= 8; ++i) {
    int src = big ? size - 1 - i : i;
    bits |= uint64_t{static_cast<uint8_t>(raw[static_cast<size_t>(src)])} << (8 * i);
  }
  ValuePtr v;
  if (type == 'f' && size == 8) {
    v = make(Kind::kFloat);
    v->real = std::bit_cast<double>(bits);
  } else if (type == 'f' && size == 4) {
    v = make(Kind::kFloat);
    v->real = std::bit_cast<float>(static_cast<uint32_t>(bits));
  } else if ((type == 'i' || type == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) {
    v = make(Kind::kInt);
    if (type == 'u') {
      if (size == 8 && bits > static_cast<uint64_t>(INT64_MAX))
        return fail(op_at_, "numpy uint64 scalar beyond the int64 range");
      v->integer = static_cast<int64_t>(bits);
    } else {
      int shift = 64 - 8 * size;  // sign-extend
      v->integer = static_cast<int64_t>(bits << shift) >> shift;
    }
  } else if (type == 'b' && size == 1) {
    v = make(Kind::kBool);
    v->boolean = bits != 0;
  } else {
    return fail(op_at_, fmt::format("numpy scalar of unsupported dtype '{}'", code));
  }
  return push(std::move(v));
}

// BUILD: only a numpy dtype's state tuple (version, byte order, ...) is accepted.
Status Unpickler::build() {
  auto state = pop();
  if (!state) return state.status();
  if (stack_.size() <= stack_floor()) return fail(op_at_, "BUILD without an object");
  Value& obj = *stack_.back();
  if (obj.kind != Kind::kDtype)
    return fail(op_at_, fmt::format("BUILD on a {} (only numpy.dtype state is supported)", kind_name(obj.kind)));
  const Value& s = **state;
  if (s.kind != Kind::kTuple || s.items.size() < 2 || s.items[1]->kind != Kind::kStr ||
      s.items[1]->text.size() != 1 || std::string_view("<>|=").find(s.items[1]->text[0]) == std::string_view::npos)
    return fail(op_at_, "numpy.dtype state is not (version, byte order, ...)");
  obj.byte_order = s.items[1]->text[0];
  if (obj.byte_order == '=') obj.byte_order = std::endian::native == std::endian::big ? '>' : '<';
  return Status::ok();
}

Status Unpickler::step(uint8_t op, bool* stop) {
  switch (op) {
    case 0x80: {  // PROTO
      ROOFLENS_RETURN_IF_ERROR(need(1));
      uint64_t p = read_le(1);
      if (p < 2 || p > 5) return fail(op_at_, fmt::format("unsupported pickle protocol {}", p));
      return Status::ok();
    }
    case 0x95: {  // FRAME: a length hint; the frame must lie within the data
      ROOFLENS_RETURN_IF_ERROR(need(8));
      uint64_t n = read_le(8);
      if (n > data_.size() - pos_)
        return fail(data_.size(), fmt::format("truncated: the stream ends inside the FRAME of {} bytes that starts "
                                              "at offset {}", n, op_at_));
      return Status::ok();
    }
    case '.': *stop = true; return Status::ok();
    case '(':
      if (marks_.size() >= limits_.max_marks) return fail(op_at_, "too many open MARKs");
      marks_.push_back(stack_.size());
      return Status::ok();
    case '0': return pop().status();
    case '1': return pop_mark().status();
    case '2':
      if (stack_.size() <= stack_floor()) return fail(op_at_, "DUP on an empty stack");
      return push(stack_.back());
    case 'N': return push(make(Kind::kNone));
    case 0x88:
    case 0x89: {
      ValuePtr v = make(Kind::kBool);
      v->boolean = op == 0x88;
      return push(std::move(v));
    }
    case 'J':
    case 'K':
    case 'M': {
      size_t n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
      ROOFLENS_RETURN_IF_ERROR(need(n));
      uint64_t raw = read_le(n);
      ValuePtr v = make(Kind::kInt);
      v->integer = op == 'J' ? static_cast<int64_t>(static_cast<int32_t>(raw)) : static_cast<int64_t>(raw);
      return push(std::move(v));
    }
    case 0x8a:
    case 0x8b: {  // LONG1 / LONG4: little-endian two's complement, up to 8 bytes here
      size_t ln = op == 0x8a ? 1 : 4;
      ROOFLENS_RETURN_IF_ERROR(need(ln));
      uint64_t n = read_le(ln);
      if (n > 8) return fail(op_at_, fmt::format("{} integer of {} bytes is wider than 64 bits", op_name_, n));
      ROOFLENS_RETURN_IF_ERROR(need(n));
      uint64_t raw = read_le(n);
      ValuePtr v = make(Kind::kInt);
      if (n > 0 && n < 8) {
        int shift = static_cast<int>(64 - 8 * n);
        v->integer = static_cast<int64_t>(raw << shift) >> shift;
      } else {
        v->integer = static_cast<int64_t>(raw);
      }
      return push(std::move(v));
    }
    case 'G': {  // BINFLOAT: big-endian IEEE double
      ROOFLENS_RETURN_IF_ERROR(need(8));
      uint64_t bits = 0;
      for (size_t i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(data_[pos_ + i]);
      pos_ += 8;
      ValuePtr v = make(Kind::kFloat);
      v->real = std::bit_cast<double>(bits);
      return push(std::move(v));
    }
    case 0x8c: return text(1, Kind::kStr);
    case 'X': return text(4, Kind::kStr);
    case 0x8d: return text(8, Kind::kStr);
    case 'U': return text(1, Kind::kStr);  // SHORT_BINSTRING (Python 2 str)
    case 'T': return text(4, Kind::kStr);  // BINSTRING
    case 'C': return text(1, Kind::kBytes);
    case 'B': return text(4, Kind::kBytes);
    case 0x8e: return text(8, Kind::kBytes);
    case '}': return push(make(Kind::kDict));
    case ']': return push(make(Kind::kList));
    case ')': return push(make(Kind::kTuple));
    case 0x8f: return push(make(Kind::kSet));
    case 0x85: return tuple_of(1);
    case 0x86: return tuple_of(2);
    case 0x87: return tuple_of(3);
    case 't':
    case 'l':
    case 0x91: {  // TUPLE, LIST, FROZENSET: everything above the mark
      auto items = pop_mark();
      if (!items) return items.status();
      ValuePtr v = make(op == 't' ? Kind::kTuple : op == 'l' ? Kind::kList : Kind::kSet);
      if (op == 't') {
        v->items = std::move(*items);
      } else {
        ROOFLENS_RETURN_IF_ERROR(add_to(*v, std::move(*items)));
      }
      return push(std::move(v));
    }
    case 'd': {
      auto items = pop_mark();
      if (!items) return items.status();
      ValuePtr v = make(Kind::kDict);
      ROOFLENS_RETURN_IF_ERROR(set_items(*v, *items, 0));
      return push(std::move(v));
    }
    case 'a': {
      auto item = pop();
      if (!item) return item.status();
      if (stack_.size() <= stack_floor()) return fail(op_at_, "APPEND without a list");
      return add_to(*stack_.back(), {std::move(*item)});
    }
    case 'e':
    case 0x90: {  // APPENDS, ADDITEMS
      auto items = pop_mark();
      if (!items) return items.status();
      if (stack_.size() <= stack_floor()) return fail(op_at_, fmt::format("{} without a target", op_name_));
      return add_to(*stack_.back(), std::move(*items));
    }
    case 's': {
      if (stack_.size() < stack_floor() + 3) return fail(op_at_, "SETITEM needs a dict, a key and a value");
      std::vector<ValuePtr> kv{stack_[stack_.size() - 2], stack_.back()};
      stack_.resize(stack_.size() - 2);
      return set_items(*stack_.back(), kv, 0);
    }
    case 'u': {
      auto kv = pop_mark();
      if (!kv) return kv.status();
      if (stack_.size() <= stack_floor()) return fail(op_at_, "SETITEMS without a dict");
      return set_items(*stack_.back(), *kv, 0);
    }
    case 0x94: return put_memo(memo_.size());
    case 'q': ROOFLENS_RETURN_IF_ERROR(need(1)); return put_memo(read_le(1));
    case 'r': ROOFLENS_RETURN_IF_ERROR(need(4)); return put_memo(read_le(4));
    case 'h': ROOFLENS_RETURN_IF_ERROR(need(1)); return get_memo(read_le(1));
    case 'j': ROOFLENS_RETURN_IF_ERROR(need(4)); return get_memo(read_le(4));
    case 'c':
    case 0x93: {  // GLOBAL "module\nname\n" / STACK_GLOBAL (module, name on the stack)
      std::string module, name;
      if (op == 'c') {
        for (std::string* part : {&module, &name}) {
          size_t nl = data_.find('\n', pos_);
          if (nl == std::string_view::npos || nl - pos_ > 256) return fail(op_at_, "GLOBAL name not terminated by a newline");
          part->assign(data_.substr(pos_, nl - pos_));
          pos_ = nl + 1;
        }
      } else {
        auto n = pop();
        if (!n) return n.status();
        auto m = pop();
        if (!m) return m.status();
        if ((*m)->kind != Kind::kStr || (*n)->kind != Kind::kStr) return fail(op_at_, "STACK_GLOBAL of non-strings");
        module = (*m)->text;
        name = (*n)->text;
      }
      const char* known = allowed_global(module, name);
      if (!known)
        return Status::unsupported(fmt::format("{}: pickle offset {}: refusing global {}.{} (only plain data, "
                                               "OrderedDict and numpy scalars are read)", source_, op_at_,
                                               module.substr(0, 80), name.substr(0, 80)));
      ValuePtr g = make(Kind::kGlobal);
      g->text = known;
      return push(std::move(g));
    }
    case 'R':
    case 0x81: {  // REDUCE (callable, args) / NEWOBJ (cls, args)
      auto args = pop();
      if (!args) return args.status();
      auto fn = pop();
      if (!fn) return fn.status();
      return call(*fn, *args);
    }
    case 'b': return build();
    default: break;
  }
  if (op_name_[0] != '?')
    return Status::unsupported(fmt::format("{}: pickle offset {}: unsupported opcode {} (0x{:02x})", source_, op_at_,
                                           op_name_, op));
  return fail(op_at_, fmt::format("unknown opcode 0x{:02x}", op));
}

// The result must be plain data: no leftover callables or dtypes, no cycles, bounded depth.
Status Unpickler::validate(const Value& root) {
  enum : uint8_t { kOpen = 1, kDone = 2 };
  std::unordered_map<const Value*, uint8_t> state;
  struct Frame { const Value* v; size_t next; };
  std::vector<Frame> path;
  auto child = [](const Value& v, size_t i) -> const Value* {
    if (v.kind == Kind::kDict) {
      if (i >= 2 * v.entries.size()) return nullptr;
      return (i % 2 ? v.entries[i / 2].second : v.entries[i / 2].first).get();
    }
    return i < v.items.size() ? v.items[i].get() : nullptr;
  };
  auto enter = [&](const Value* v) -> Status {
    if (v->kind == Kind::kGlobal || v->kind == Kind::kDtype)
      return fail(v->offset, fmt::format("a bare {} in the data", kind_name(v->kind)));
    if (!v->is_container()) return Status::ok();
    uint8_t& s = state[v];
    if (s == kOpen) return fail(v->offset, "the data contains a reference cycle");
    if (s == kDone) return Status::ok();
    if (path.size() >= limits_.max_depth)
      return fail(v->offset, fmt::format("containers nested deeper than {}", limits_.max_depth));
    s = kOpen;
    path.push_back({v, 0});
    return Status::ok();
  };
  ROOFLENS_RETURN_IF_ERROR(enter(&root));
  while (!path.empty()) {
    Frame& f = path.back();
    const Value* c = child(*f.v, f.next++);
    if (!c) {
      state[f.v] = kDone;
      path.pop_back();
      continue;
    }
    ROOFLENS_RETURN_IF_ERROR(enter(c));
  }
  for (const auto& [v, s] : state) keep_.insert(v);
  return Status::ok();
}

Expected<ValuePtr> Unpickler::run() {
  bool stop = false;
  while (!stop) {
    if (pos_ >= data_.size()) return fail(pos_, "truncated: the stream ends before STOP");
    op_at_ = pos_;
    uint8_t op = static_cast<uint8_t>(data_[pos_++]);
    const char* name = opcode_name(op);
    op_name_ = name ? name : "?";
    ROOFLENS_RETURN_IF_ERROR(step(op, &stop));
  }
  if (!marks_.empty()) return fail(op_at_, "STOP with an open MARK");
  if (stack_.size() != 1) return fail(op_at_, fmt::format("STOP with {} values on the stack (1 expected)", stack_.size()));
  ValuePtr root = stack_.back();
  ROOFLENS_RETURN_IF_ERROR(validate(*root));
  return root;
}

}  // namespace

bool canonical_key(const Value& v, std::string* out) {
  out->clear();
  return canonical_key_at(v, out, 0);
}

std::string repr(const Value& v, int max_depth) {
  std::string out;
  repr_at(v, max_depth, &out);
  return out;
}

Expected<ValuePtr> load(std::string_view data, const std::string& source, const Limits& limits) {
  Unpickler u(data, source, limits);
  return u.run();
}

}  // namespace rooflens::pickle
