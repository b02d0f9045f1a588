// Pickle values (pickle.h): opcode and kind names, dict lookup, canonical keys and repr. The
// stack machine that builds them is pickle_machine.cpp.
#include "rooflens/nas/pickle.h"

#include <string>

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
        if (i >= 8) {
          out->append("...");
          break;
        }
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
          if (i >= 8) {
            out->append("...");
            break;
          }
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

}  // namespace rooflens::pickle
