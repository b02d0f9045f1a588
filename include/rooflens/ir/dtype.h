// Element types of IR values, with their sizes and names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rooflens/util/status.h"

namespace rooflens {

enum class DType : uint8_t {
  kUnknown,
  kF32,
  kF16,
  kBF16,
  kF64,
  kF8E4M3,
  kI8,
  kU8,
  kI16,
  kI32,
  kI64,
  kBool,
};

// Bytes per element (0 for kUnknown).
int dtype_bytes(DType t);
bool dtype_is_float(DType t);
bool dtype_is_integer(DType t);
std::string_view dtype_name(DType t);  // "fp32", "fp16", "int64", ...
// Parses a user-facing compute dtype: fp32, fp16, bf16, int8, fp8 (also f32, half, ...).
std::optional<DType> parse_dtype(std::string_view s);
// The same for a user's setting named `what` (a flag, a field): invalid input
// "<what> '<s>': expected fp32, fp16, bf16, int8 or fp8" when `s` names no compute dtype.
Expected<DType> parse_dtype_arg(std::string_view what, std::string_view s);

}  // namespace rooflens

namespace rooflens {
// Maps an ONNX TensorProto.DataType code (FLOAT=1, UINT8=2, INT8=3, ..., INT64=7, BOOL=9,
// FLOAT16=10, DOUBLE=11, BFLOAT16=16, FLOAT8E4M3FN=17) to a DType; kUnknown otherwise.
// Lives in the IR because ops (Cast's `to`) carry these codes as attributes.
DType dtype_from_onnx_code(int64_t code);
}  // namespace rooflens
