// The pickle stack machine behind load() (pickle.h) and load_streaming() (pickle_stream.h):
// the binary opcodes over a whole pickle in memory, or over bytes pulled in chunks from a
// ByteSource with one top-level dict handed out entry by entry. Every read is
// bounds-checked and every size capped. Containers created while loading are tracked so a
// failed or hostile load (cycles, deep nesting) can be torn down without recursion.
#include <algorithm>
#include <bit>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "pickle_input.h"
#include "rooflens/nas/pickle.h"
#include "rooflens/nas/pickle_stream.h"

namespace rooflens::pickle {
namespace {

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

// What a streaming run adds to a plain load (pickle_stream.h); absent for load().
struct Streaming {
  const StreamOptions* options = nullptr;
  const RecordSink* sink = nullptr;
  StreamStats stats;
};

class Unpickler {
 public:
  Unpickler(Input& in, const std::string& source, const Limits& limits, Streaming* streaming = nullptr)
      : in_(in), source_(source), limits_(limits), streaming_(streaming) {}

  ~Unpickler() {
    // Empty every container we made, one level at a time, so no destructor recurses deeply
    // and no cycle leaks. The result's containers are exempt once it passed validation.
    for (auto* list : {&containers_, &record_containers_}) {
      for (const ValuePtr& c : *list) {
        if (keep_.count(c.get())) continue;
        c->items.clear();
        c->entries.clear();
        c->index.clear();
      }
    }
  }

  // The tree, or nullptr when a streaming sink stopped the read.
  Expected<ValuePtr> run();

 private:
  static constexpr uint64_t kPinned = UINT64_MAX;  // memo owner: kept for the whole read
  struct MemoEntry {
    ValuePtr value;
    uint64_t owner = kPinned;  // else the ordinal of the streamed record that stored it
  };

  Status fail(uint64_t at, const std::string& what) const {
    return Status::invalid(fmt::format("{}: pickle offset {}: {}", source_, at, what));
  }
  Status need(size_t n) {
    if (in_.ensure(n)) return Status::ok();
    if (const Status* e = in_.error()) return *e;
    return fail(op_at_, fmt::format("truncated: {} needs {} more byte(s), {} left", op_name_, n, in_.available()));
  }
  uint64_t read_le(size_t n) {  // caller checked need(n)
    uint64_t v = 0;
    const char* p = in_.at();
    for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(p[i])} << (8 * i);
    in_.skip(n);
    return v;
  }
  ValuePtr make(Kind kind) {
    auto v = std::make_shared<Value>();
    v->kind = kind;
    v->offset = op_at_;
    if (v->is_container()) (in_record() ? record_containers_ : containers_).push_back(v);
    ++values_since_record_;
    return v;
  }
  Status push(ValuePtr v) {
    if (stack_.size() >= limits_.max_stack) return fail(op_at_, "stack exceeds its limit");
    if (streaming_ != nullptr && target_ == nullptr && is_record_dict_slot(*v)) {
      target_ = v.get();
      target_pos_ = stack_.size();
      values_since_record_ = 0;  // from here the count is per record
    }
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
    if (marks_.size() < region_level_) region_level_ = 0;  // the streamed dict's batch ended
    std::vector<ValuePtr> out(std::make_move_iterator(stack_.begin() + static_cast<ptrdiff_t>(m)),
                              std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return out;
  }
  Status push_mark() {
    if (marks_.size() >= limits_.max_marks) return fail(op_at_, "too many open MARKs");
    marks_.push_back(stack_.size());
    // A MARK right above the streamed dict opens a batch of its items.
    if (target_ != nullptr && stack_.size() == target_pos_ + 1 && stack_.back().get() == target_)
      region_level_ = marks_.size();
    return Status::ok();
  }
  Status put_memo(uint64_t key);
  Status get_memo(uint64_t key);
  Status text(size_t len_bytes, Kind kind);
  Status tuple_of(size_t n);
  Status add_to(Value& target, std::vector<ValuePtr> items);
  Status set_items(Value& dict, std::vector<ValuePtr>& kv, size_t first);
  Status call(const ValuePtr& fn, const ValuePtr& args);
  Status build();
  Status step(uint8_t op, bool* stop);
  // step()'s opcode families, one job each.
  Status header(uint8_t op);      // PROTO, FRAME
  Status number(uint8_t op);      // BININT*, LONG1/4, BINFLOAT
  Status collection(uint8_t op);  // TUPLE, LIST, FROZENSET, DICT, APPEND(S), ADDITEMS, SETITEM(S)
  Status global(uint8_t op);      // GLOBAL, STACK_GLOBAL
  Status global_name(std::string* module, std::string* name);
  Status validate(const Value& root, bool keep);

  // Streaming (pickle_stream.h).
  bool is_record_dict_slot(const Value& v) const;
  bool in_record() const {
    return target_ != nullptr && stack_.size() > target_pos_ + 1 && stack_[target_pos_].get() == target_;
  }
  Status emit_complete_records();
  Status hand_out(const std::vector<ValuePtr>& kv, size_t first);
  void release_record();

  Input& in_;
  const std::string& source_;
  Limits limits_;
  Streaming* streaming_;
  uint64_t op_at_ = 0;
  const char* op_name_ = "";
  std::vector<ValuePtr> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, MemoEntry> memo_;
  std::vector<ValuePtr> containers_;
  std::unordered_set<const Value*> keep_;

  // Streaming state: the streamed dict, where it sits on the stack, the mark level of its
  // open batch (0: none), and the record being built.
  const Value* target_ = nullptr;
  size_t target_pos_ = 0;
  size_t region_level_ = 0;
  uint64_t record_ = 0;  // ordinal of the record being built = records handed out so far
  bool stopped_ = false;
  size_t values_since_record_ = 0;
  std::vector<ValuePtr> record_containers_;                        // containers made while a record was being built
  std::vector<uint64_t> record_memo_keys_;                         // memo keys stored by the record being built
  std::deque<std::pair<uint64_t, std::vector<uint64_t>>> window_;  // (record, its memoized leaves)
  uint64_t released_ = 0;                                          // memo entries released
  uint64_t max_released_key_ = 0;
};

// The dict being pushed is the value of `record_key` in the top-level dict: the stack holds
// the top-level dict, its pairs so far and the key (a batch MARK open, or a lone SETITEM).
bool Unpickler::is_record_dict_slot(const Value& v) const {
  if (v.kind != Kind::kDict || !v.entries.empty() || stack_.size() < 2) return false;
  const bool batch = marks_.size() == 1 && marks_[0] == 1 && (stack_.size() - 1) % 2 == 1;
  const bool lone = marks_.empty() && stack_.size() == 2;
  if (!batch && !lone) return false;
  const Value& key = *stack_.back();
  return stack_[0]->kind == Kind::kDict && key.kind == Kind::kStr && key.text == streaming_->options->record_key;
}

Status Unpickler::put_memo(uint64_t key) {
  if (stack_.size() <= stack_floor()) return fail(op_at_, fmt::format("{} on an empty stack", op_name_));
  if (memo_.size() >= limits_.max_memo && !memo_.count(key)) return fail(op_at_, "memo exceeds its limit");
  const ValuePtr& v = stack_.back();
  MemoEntry e{v, kPinned};
  // dtypes and globals are few and shared by nature: always kept.
  if (in_record() && v->kind != Kind::kDtype && v->kind != Kind::kGlobal) {
    e.owner = record_;
    record_memo_keys_.push_back(key);
  }
  memo_[key] = std::move(e);
  if (streaming_ != nullptr) {
    size_t& peak = streaming_->stats.peak_memo_entries;
    peak = std::max(peak, memo_.size());
  }
  return Status::ok();
}

Status Unpickler::get_memo(uint64_t key) {
  auto it = memo_.find(key);
  if (it == memo_.end()) {
    if (released_ > 0 && key <= max_released_key_)
      return fail(op_at_, fmt::format("{} of memo key {}, which is not held: never stored, or stored by an earlier "
                                      "entry of '{}' and released (the streaming reader keeps no containers of a "
                                      "finished entry, and its strings and numbers only for the next {} entries "
                                      "unless another entry refers to them)",
                                      op_name_, key, streaming_->options->record_key,
                                      streaming_->options->memo_window_records));
    return fail(op_at_, fmt::format("{} of memo key {} that was never stored", op_name_, key));
  }
  MemoEntry& e = it->second;
  if (e.owner != kPinned && e.owner != record_) {  // a leaf shared between records: keep it
    e.owner = kPinned;
    ++streaming_->stats.memo_shared;
  }
  return push(e.value);
}

Status Unpickler::text(size_t len_bytes, Kind kind) {
  ROOFLENS_RETURN_IF_ERROR(need(len_bytes));
  uint64_t n = read_le(len_bytes);
  if (n > in_.max_arg())
    return Status::unsupported(
        fmt::format("{}: pickle offset {}: {} of {} bytes is longer than the streaming "
                    "reader buffers ({} bytes)",
                    source_, op_at_, op_name_, n, in_.max_arg()));
  if (!in_.ensure(n)) {
    if (const Status* e = in_.error()) return *e;
    return fail(op_at_, fmt::format("truncated: {} of length {} with {} byte(s) left", op_name_, n, in_.available()));
  }
  ValuePtr v = make(kind);
  v->text.assign(in_.at(), n);
  in_.skip(n);
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
  if (&dict == target_) return hand_out(kv, first);  // streamed: handed out, not kept
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
    if (code[i] < '0' || code[i] > '9' || size > 16)
      return fail(op_at_, fmt::format("numpy scalar of unsupported dtype '{}'", code));
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
  if (s.kind != Kind::kTuple || s.items.size() < 2 || s.items[1]->kind != Kind::kStr || s.items[1]->text.size() != 1 ||
      std::string_view("<>|=").find(s.items[1]->text[0]) == std::string_view::npos)
    return fail(op_at_, "numpy.dtype state is not (version, byte order, ...)");
  obj.byte_order = s.items[1]->text[0];
  if (obj.byte_order == '=') obj.byte_order = std::endian::native == std::endian::big ? '>' : '<';
  return Status::ok();
}

Status Unpickler::header(uint8_t op) {
  if (op == 0x80) {  // PROTO
    ROOFLENS_RETURN_IF_ERROR(need(1));
    uint64_t p = read_le(1);
    if (p < 2 || p > 5) return fail(op_at_, fmt::format("unsupported pickle protocol {}", p));
    return Status::ok();
  }
  // FRAME: a length hint; the frame must lie within the data
  ROOFLENS_RETURN_IF_ERROR(need(8));
  uint64_t n = read_le(8);
  // A stream's end is not known yet: a stream cut inside a frame fails where it ends.
  if (!in_.streaming() && n > in_.available())
    return fail(in_.offset() + in_.available(),
                fmt::format("truncated: the stream ends inside the FRAME of {} bytes that starts "
                            "at offset {}",
                            n, op_at_));
  return Status::ok();
}

Status Unpickler::number(uint8_t op) {
  if (op == 'J' || op == 'K' || op == 'M') {
    size_t n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
    ROOFLENS_RETURN_IF_ERROR(need(n));
    uint64_t raw = read_le(n);
    ValuePtr v = make(Kind::kInt);
    v->integer = op == 'J' ? static_cast<int64_t>(static_cast<int32_t>(raw)) : static_cast<int64_t>(raw);
    return push(std::move(v));
  }
  if (op == 0x8a || op == 0x8b) {  // LONG1 / LONG4: little-endian two's complement, up to 8 bytes here
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
  // 'G', BINFLOAT: big-endian IEEE double
  ROOFLENS_RETURN_IF_ERROR(need(8));
  uint64_t bits = 0;
  const char* p = in_.at();
  for (size_t i = 0; i < 8; ++i) bits = (bits << 8) | static_cast<uint8_t>(p[i]);
  in_.skip(8);
  ValuePtr v = make(Kind::kFloat);
  v->real = std::bit_cast<double>(bits);
  return push(std::move(v));
}

Status Unpickler::collection(uint8_t op) {
  switch (op) {
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
    default: {  // 'u', SETITEMS
      auto kv = pop_mark();
      if (!kv) return kv.status();
      if (stack_.size() <= stack_floor()) return fail(op_at_, "SETITEMS without a dict");
      return set_items(*stack_.back(), *kv, 0);
    }
  }
}

// GLOBAL's "module\nname\n" operands.
Status Unpickler::global_name(std::string* module, std::string* name) {
  for (std::string* part : {module, name}) {
    const size_t avail = in_.ensure_upto(257);  // a name of up to 256 bytes and its newline
    const char* p = in_.at();
    const void* nl = std::memchr(p, '\n', avail);
    if (nl == nullptr) {
      if (const Status* e = in_.error()) return *e;
      return fail(op_at_, "GLOBAL name not terminated by a newline");
    }
    const size_t len = static_cast<size_t>(static_cast<const char*>(nl) - p);
    part->assign(p, len);
    in_.skip(len + 1);
  }
  return Status::ok();
}

// GLOBAL "module\nname\n" / STACK_GLOBAL (module, name on the stack)
Status Unpickler::global(uint8_t op) {
  std::string module, name;
  if (op == 'c') {
    ROOFLENS_RETURN_IF_ERROR(global_name(&module, &name));
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
    return Status::unsupported(
        fmt::format("{}: pickle offset {}: refusing global {}.{} (only plain data, "
                    "OrderedDict and numpy scalars are read)",
                    source_, op_at_, module.substr(0, 80), name.substr(0, 80)));
  ValuePtr g = make(Kind::kGlobal);
  g->text = known;
  return push(std::move(g));
}

Status Unpickler::step(uint8_t op, bool* stop) {
  switch (op) {
    case 0x80:
    case 0x95: return header(op);
    case '.': *stop = true; return Status::ok();
    case '(': return push_mark();
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
    case 'M':
    case 0x8a:
    case 0x8b:
    case 'G': return number(op);
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
    case 0x91:
    case 'd':
    case 'a':
    case 'e':
    case 0x90:
    case 's':
    case 'u': return collection(op);
    case 0x94: return put_memo(memo_.size() + released_);  // Python: len(memo)
    case 'q': ROOFLENS_RETURN_IF_ERROR(need(1)); return put_memo(read_le(1));
    case 'r': ROOFLENS_RETURN_IF_ERROR(need(4)); return put_memo(read_le(4));
    case 'h': ROOFLENS_RETURN_IF_ERROR(need(1)); return get_memo(read_le(1));
    case 'j': ROOFLENS_RETURN_IF_ERROR(need(4)); return get_memo(read_le(4));
    case 'c':
    case 0x93: return global(op);
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
    return Status::unsupported(
        fmt::format("{}: pickle offset {}: unsupported opcode {} (0x{:02x})", source_, op_at_, op_name_, op));
  return fail(op_at_, fmt::format("unknown opcode 0x{:02x}", op));
}

// The result (or one streamed record) must be plain data: no leftover callables or dtypes, no cycles, bounded depth.
Status Unpickler::validate(const Value& root, bool keep) {
  enum : uint8_t { kOpen = 1, kDone = 2 };
  std::unordered_map<const Value*, uint8_t> state;
  struct Frame {
    const Value* v;
    size_t next;
  };
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
  if (keep)
    for (const auto& [v, s] : state) keep_.insert(v);
  return Status::ok();
}

Expected<ValuePtr> Unpickler::run() {
  bool stop = false;
  while (!stop) {
    if (!in_.ensure(1)) {
      if (const Status* e = in_.error()) return *e;
      return fail(in_.offset(), "truncated: the stream ends before STOP");
    }
    op_at_ = in_.offset();
    const uint8_t op = static_cast<uint8_t>(*in_.at());
    in_.skip(1);
    const char* name = opcode_name(op);
    op_name_ = name ? name : "?";
    ROOFLENS_RETURN_IF_ERROR(step(op, &stop));
    if (streaming_ == nullptr) continue;
    ROOFLENS_RETURN_IF_ERROR(emit_complete_records());
    if (stopped_) return ValuePtr();
    const StreamOptions& o = *streaming_->options;
    if (values_since_record_ > o.max_record_values)
      return Status::unsupported(fmt::format(
          "{}: pickle offset {}: more than {} values built {} (the streaming reader holds one entry at a time)",
          source_, op_at_, o.max_record_values,
          target_ != nullptr ? fmt::format("for one entry of '{}'", o.record_key)
                             : fmt::format("without reaching a top-level entry '{}' written as a dict", o.record_key)));
  }
  if (!marks_.empty()) return fail(op_at_, "STOP with an open MARK");
  if (stack_.size() != 1)
    return fail(op_at_, fmt::format("STOP with {} values on the stack (1 expected)", stack_.size()));
  ValuePtr root = stack_.back();
  ROOFLENS_RETURN_IF_ERROR(validate(*root, true));
  return root;
}

// ---- streaming ------------------------------------------------------------------------

// In an open batch of the streamed dict (no deeper MARK open), the stack above the dict holds
// k0 v0 k1 ...: once the next key k1 (a value of the record key kind, pushed after v0) is
// there, k0 v0 is a finished pair, since the pickler saves a value whole before the next key.
// What sits above v0 while v0 is still being built (a callable and its arguments, the
// parts of a tuple) is not taken for a key unless it is of that kind; should a stream build
// a value from bare values of that kind at the batch level, the pair handed out early is
// missing what the stream then uses, and the read fails (an opcode finds the batch empty, or
// a released memo entry), so a finished read never holds a partial entry.
Status Unpickler::emit_complete_records() {
  const Kind key_kind = streaming_->options->record_key_kind;
  while (region_level_ != 0 && marks_.size() == region_level_ && stack_.size() >= target_pos_ + 4) {
    const auto base = stack_.begin() + static_cast<ptrdiff_t>(target_pos_ + 1);
    const Kind value_kind = base[1]->kind;
    if (base[0]->kind != key_kind || base[2]->kind != key_kind || value_kind == Kind::kGlobal ||
        value_kind == Kind::kDtype)
      break;
    std::vector<ValuePtr> kv(std::make_move_iterator(base), std::make_move_iterator(base + 2));
    stack_.erase(base, base + 2);
    ROOFLENS_RETURN_IF_ERROR(hand_out(kv, 0));
    if (stopped_) break;
  }
  return Status::ok();
}

// Validates each (key, value) as load() validates its result, gives it to the sink, then
// releases what the record held.
Status Unpickler::hand_out(const std::vector<ValuePtr>& kv, size_t first) {
  StreamStats& stats = streaming_->stats;
  stats.peak_record_values = std::max(stats.peak_record_values, values_since_record_);
  for (size_t i = first; i + 1 < kv.size() && !stopped_; i += 2) {
    ROOFLENS_RETURN_IF_ERROR(validate(*kv[i], false));
    ROOFLENS_RETURN_IF_ERROR(validate(*kv[i + 1], false));
    auto more = (*streaming_->sink)(*kv[i], *kv[i + 1]);
    if (!more) return more.status();
    ++stats.records;
    if (!*more) stopped_ = true;
  }
  release_record();
  return Status::ok();
}

// Memo: the record's containers go now, its leaves once memo_window_records more records are
// done (unless a later record referred to them: get_memo pinned those). Containers made for
// the record are emptied one level at a time (no deep destructor recursion, no cycle kept
// alive), except what the stack still reaches (a key already pushed for the next record).
void Unpickler::release_record() {
  auto release = [&](std::unordered_map<uint64_t, MemoEntry>::iterator it) {
    max_released_key_ = std::max(max_released_key_, it->first);
    memo_.erase(it);
    ++released_;
  };
  std::vector<uint64_t> leaves;
  for (uint64_t key : record_memo_keys_) {
    auto it = memo_.find(key);
    if (it == memo_.end() || it->second.owner != record_) continue;
    if (it->second.value->is_container()) {
      release(it);
    } else {
      leaves.push_back(key);
    }
  }
  record_memo_keys_.clear();
  window_.emplace_back(record_, std::move(leaves));
  while (window_.size() > streaming_->options->memo_window_records) {
    const auto& [owner, keys] = window_.front();
    for (uint64_t key : keys) {
      auto it = memo_.find(key);
      if (it != memo_.end() && it->second.owner == owner) release(it);
    }
    window_.pop_front();
  }

  std::unordered_set<const Value*> live;
  std::vector<const Value*> todo;
  for (size_t i = target_pos_ + 1; i < stack_.size(); ++i) todo.push_back(stack_[i].get());
  while (!todo.empty()) {
    const Value* v = todo.back();
    todo.pop_back();
    if (!v->is_container() || !live.insert(v).second) continue;
    for (const ValuePtr& c : v->items) todo.push_back(c.get());
    for (const auto& [k, c] : v->entries) {
      todo.push_back(k.get());
      todo.push_back(c.get());
    }
  }
  std::vector<ValuePtr> carry;
  for (ValuePtr& c : record_containers_) {
    if (live.count(c.get())) {
      carry.push_back(std::move(c));
      continue;
    }
    c->items.clear();
    c->entries.clear();
    c->index.clear();
  }
  record_containers_ = std::move(carry);
  ++record_;
  values_since_record_ = 0;
}

}  // namespace

Expected<ValuePtr> load(std::string_view data, const std::string& source, const Limits& limits) {
  Input in(data);
  Unpickler u(in, source, limits);
  return u.run();
}

Expected<ValuePtr> load_streaming(ByteSource& src, const std::string& source, const StreamOptions& options,
                                  const RecordSink& sink, StreamStats* stats, const Limits& limits) {
  Input in(&src, options.chunk_bytes, options.max_arg_bytes);
  Streaming streaming;
  streaming.options = &options;
  streaming.sink = &sink;
  Expected<ValuePtr> out = Status::internal("not run");
  {
    Unpickler u(in, source, limits, options.record_key.empty() ? nullptr : &streaming);
    out = u.run();
  }
  if (stats != nullptr) {
    *stats = streaming.stats;
    stats->pickle_bytes = in.offset();
    stats->peak_buffer_bytes = in.peak_buffer();
    stats->stopped = out.has_value() && *out == nullptr;
  }
  return out;
}

}  // namespace rooflens::pickle
