// A small streaming JSON writer for large outputs (per-layer reports of whole zoos), where
// building a DOM first costs more than the analysis itself. Produces indented, valid JSON;
// doubles are written with enough digits to round-trip.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rooflens::report {

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out, int indent = 2) : out_(out), indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t v);
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& null();
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  JsonWriter& ints(const std::vector<int64_t>& v);  // compact one-line array

 private:
  void before_value();
  void newline();
  std::string* out_;
  int indent_;
  struct Level {
    bool array;
    bool empty;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace rooflens::report
