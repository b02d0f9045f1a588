// A small streaming JSON writer for large outputs (per-layer reports of whole zoos), where
// building a DOM first costs more than the analysis itself. Produces indented, valid JSON;
// doubles are written with enough digits to round-trip.
#pragma once

#include <cstddef>
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
  // Continues an array whose '[' was written elsewhere: the elements of one array rendered
  // in parts (each part after the first starts with its ',' written by the caller).
  JsonWriter& resume_array();
  // A literal key is written as is: it must need no escaping (a plain identifier).
  template <size_t N>
  JsonWriter& key(const char (&k)[N]) {
    return literal_key(std::string_view(k, N - 1));
  }
  JsonWriter& key(std::string_view k);  // escaped
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t v);
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& null();
  template <size_t N, typename T>
  JsonWriter& field(const char (&k)[N], const T& v) {
    key(k);
    return value(v);
  }
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  JsonWriter& ints(const std::vector<int64_t>& v);  // compact one-line array

 private:
  JsonWriter& literal_key(std::string_view k);
  void before_value();
  JsonWriter& open(char bracket, bool array);
  JsonWriter& close(char bracket);
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
