// DType sizes and names.
#include "rooflens/ir/dtype.h"

namespace rooflens {

int dtype_bytes(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kI32: return 4;
    case DType::kF16:
    case DType::kBF16:
    case DType::kI16: return 2;
    case DType::kF64:
    case DType::kI64: return 8;
    case DType::kF8E4M3:
    case DType::kI8:
    case DType::kU8:
    case DType::kBool: return 1;
    case DType::kUnknown: return 0;
  }
  return 0;
}

bool dtype_is_float(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || t == DType::kF64 || t == DType::kF8E4M3;
}

bool dtype_is_integer(DType t) {
  return t == DType::kI8 || t == DType::kU8 || t == DType::kI16 || t == DType::kI32 || t == DType::kI64 ||
         t == DType::kBool;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "fp32";
    case DType::kF16: return "fp16";
    case DType::kBF16: return "bf16";
    case DType::kF64: return "fp64";
    case DType::kF8E4M3: return "fp8";
    case DType::kI8: return "int8";
    case DType::kU8: return "uint8";
    case DType::kI16: return "int16";
    case DType::kI32: return "int32";
    case DType::kI64: return "int64";
    case DType::kBool: return "bool";
    case DType::kUnknown: return "unknown";
  }
  return "unknown";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp32" || s == "f32" || s == "float32" || s == "float") return DType::kF32;
  if (s == "fp16" || s == "f16" || s == "float16" || s == "half") return DType::kF16;
  if (s == "bf16" || s == "bfloat16") return DType::kBF16;
  if (s == "int8" || s == "i8") return DType::kI8;
  if (s == "fp8" || s == "f8" || s == "fp8e4m3") return DType::kF8E4M3;
  return std::nullopt;
}

Expected<DType> parse_dtype_arg(std::string_view what, std::string_view s) {
  if (auto t = parse_dtype(s)) return *t;
  return Status::invalid(std::string(what) + " '" + std::string(s) + "': expected fp32, fp16, bf16, int8 or fp8");
}

}  // namespace rooflens

namespace rooflens {
DType dtype_from_onnx_code(int64_t code) {
  switch (code) {
    case 1: return DType::kF32;
    case 2: return DType::kU8;
    case 3: return DType::kI8;
    case 5: return DType::kI16;
    case 6: return DType::kI32;
    case 7: return DType::kI64;
    case 9: return DType::kBool;
    case 10: return DType::kF16;
    case 11: return DType::kF64;
    case 16: return DType::kBF16;
    case 17: return DType::kF8E4M3;
    default: return DType::kUnknown;
  }
}
}  // namespace rooflens
