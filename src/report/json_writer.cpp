// Streaming JSON writer (see json_writer.h).
#include "rooflens/report/json_writer.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>

namespace rooflens::report {

// ",\n" and the indentation, written with one append for the usual depths.
static constexpr char kBreak[] = ",\n                                                                ";

void JsonWriter::newline() {
  const size_t n = stack_.size() * static_cast<size_t>(indent_);
  if (n + 2 <= sizeof kBreak - 1) {
    out_->append(kBreak + 1, n + 1);
    return;
  }
  out_->push_back('\n');
  out_->append(n, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!stack_.empty()) {
    const bool first = stack_.back().empty;
    stack_.back().empty = false;
    const size_t n = stack_.size() * static_cast<size_t>(indent_);
    if (!first && n + 2 <= sizeof kBreak - 1) {
      out_->append(kBreak, n + 2);
      return;
    }
    if (!first) out_->push_back(',');
    newline();
  }
}

JsonWriter& JsonWriter::open(char bracket, bool array) {
  before_value();
  out_->push_back(bracket);
  stack_.push_back({array, true});
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_->push_back(bracket);
  if (stack_.empty()) out_->push_back('\n');
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open('{', false); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array() { return open('[', true); }
JsonWriter& JsonWriter::end_array() { return close(']'); }

// Same text as fmt's "{}" for an integer, without its formatting machinery.
static void append_int(std::string* out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// Whether s holds a '"', a '\\' or a control character; eight bytes at a time.
static bool needs_escape(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  auto has_zero_byte = [](uint64_t x) { return ((x - kOnes) & ~x & kHigh) != 0; };
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    const bool below_space = ((w - kOnes * 0x20) & ~w & kHigh) != 0;
    if (below_space || has_zero_byte(w ^ (kOnes * '"')) || has_zero_byte(w ^ (kOnes * '\\'))) return true;
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
}

static void escape(std::string* out, std::string_view s) {
  if (!needs_escape(s)) {
    const size_t at = out->size();
    out->resize(at + s.size() + 2);
    char* p = out->data() + at;
    *p = '"';
    std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    return;
  }
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          fmt::format_to(std::back_inserter(*out), "\\u{:04x}", static_cast<int>(c));
        else
          out->push_back(c);
    }
  }
  out->push_back('"');
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  escape(out_, k);
  out_->append(": ");
  after_key_ = true;
  return *this;
}

// The separator before the key, the key and ": " go out in one append (keys are short).
JsonWriter& JsonWriter::literal_key(std::string_view k) {
  const size_t depth = stack_.size() * static_cast<size_t>(indent_);
  if (after_key_ || stack_.empty() || depth + k.size() + 8 > 128) {
    before_value();
    out_->push_back('"');
    out_->append(k);
    out_->append("\": ");
    after_key_ = true;
    return *this;
  }
  char buf[128];
  char* p = buf;
  const bool first = stack_.back().empty;
  stack_.back().empty = false;
  if (!first) *p++ = ',';
  *p++ = '\n';
  std::memset(p, ' ', depth);
  p += depth;
  *p++ = '"';
  std::memcpy(p, k.data(), k.size());
  p += k.size();
  std::memcpy(p, "\": ", 3);
  p += 3;
  out_->append(buf, p);
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::resume_array() {
  stack_.push_back({true, true});
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  escape(out_, s);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
  before_value();
  append_int(out_, v);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  if (!std::isfinite(v)) {
    out_->append("null");
    return *this;
  }
  char buf[64];  // the shortest round-trip form needs at most 24 characters
  char* end = fmt::format_to(buf, FMT_COMPILE("{}"), v);
  out_->append(buf, end);
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_->append(v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_->append("null");
  return *this;
}

JsonWriter& JsonWriter::ints(const std::vector<int64_t>& v) {
  before_value();
  // Rendered into a local buffer, appended in chunks.
  char buf[256];
  char* p = buf;
  *p++ = '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (p + 24 > buf + sizeof buf) {
      out_->append(buf, p);
      p = buf;
    }
    if (i) {
      *p++ = ',';
      *p++ = ' ';
    }
    p = std::to_chars(p, buf + sizeof buf, v[i]).ptr;
  }
  *p++ = ']';
  out_->append(buf, p);
  return *this;
}

}  // namespace rooflens::report
