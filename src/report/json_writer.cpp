// Streaming JSON writer (see json_writer.h).
#include "rooflens/report/json_writer.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace rooflens::report {

void JsonWriter::newline() {
  out_->push_back('\n');
  out_->append(stack_.size() * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!stack_.empty()) {
    if (!stack_.back().empty) out_->push_back(',');
    stack_.back().empty = false;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_->push_back('{');
  stack_.push_back({false, true});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_->push_back('}');
  if (stack_.empty()) out_->push_back('\n');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_->push_back('[');
  stack_.push_back({true, true});
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_->push_back(']');
  if (stack_.empty()) out_->push_back('\n');
  return *this;
}

// Same text as fmt's "{}" for an integer, without its formatting machinery.
static void append_int(std::string* out, int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

static void escape(std::string* out, std::string_view s) {
  out->push_back('"');
  bool plain = true;
  for (char c : s) plain &= c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
  if (plain) {
    out->append(s);
    out->push_back('"');
    return;
  }
  for (char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) fmt::format_to(std::back_inserter(*out), "\\u{:04x}", static_cast<int>(c));
        else out->push_back(c);
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
  if (!std::isfinite(v)) out_->append("null");
  else fmt::format_to(std::back_inserter(*out_), "{}", v);  // shortest round-trip form
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
  out_->push_back('[');
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out_->append(", ");
    append_int(out_, v[i]);
  }
  out_->push_back(']');
  return *this;
}

}  // namespace rooflens::report
