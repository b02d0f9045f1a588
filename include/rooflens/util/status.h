// Status and Expected<T>: the error values returned at every trust boundary
// (files, user flags, backend calls). The library never exits on bad input.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace rooflens {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // the input is wrong (malformed file, bad flag, inconsistent shapes)
  kUnsupported,   // the input is valid but uses something rooflens does not handle
  kUnavailable,   // hardware or a resource is missing
  kInternal,      // a bug in rooflens
};

const char* status_code_name(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  static Status invalid(std::string m) { return {StatusCode::kInvalidInput, std::move(m)}; }
  static Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is prefixed with `context: `.
  Status with_context(const std::string& context) const {
    if (is_ok()) return *this;
    return {code_, context + ": " + message_};
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Expected(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& status() const {
    static const Status kOkStatus;
    return has_value() ? kOkStatus : std::get<Status>(v_);
  }

 private:
  std::variant<T, Status> v_;
};

}  // namespace rooflens

#define ROOFLENS_RETURN_IF_ERROR(expr) \
  do {                                 \
    ::rooflens::Status _st = (expr);   \
    if (!_st.is_ok()) return _st;      \
  } while (0)

// Internal invariant: reports file:line and aborts. Never used for user input.
#define ROOFLENS_ASSERT(cond)                                        \
  do {                                                               \
    if (!(cond)) ::rooflens::assert_fail(#cond, __FILE__, __LINE__); \
  } while (0)

namespace rooflens {
[[noreturn]] void assert_fail(const char* cond, const char* file, int line);
}
