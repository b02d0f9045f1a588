// Op descriptors: a node's attributes parsed once, by shape inference (src/ops/), into typed
// and fully resolved parameters (defaults applied, axes normalised, auto_pad turned into
// explicit pads). Every consumer outside ops/ (cost, passes, the backends, the trainer, perf)
// reads these instead of the attribute map, so each default and each rule lives in one place.
//
// Contract: after infer_shapes, every node of a known op whose inputs had shapes holds the
// descriptor of its family (std::monostate for ops without parameters: Relu, Add, Identity...).
// A pass that rewrites a node's attributes re-runs infer_shapes, which rewrites the descriptor.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "rooflens/ir/dtype.h"

namespace rooflens {

// ONNX auto_pad as written in the file (the pads below are already resolved from it).
enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// A sliding window over r spatial dims: Conv, MaxPool, AveragePool; GlobalAveragePool and
// GlobalMaxPool as a window over the whole input (global = true, kernel = spatial dims).
struct WindowDesc {
  std::vector<int64_t> kernel, strides, dilations;  // r values each
  std::vector<int64_t> pads;                        // r begins then r ends, auto_pad applied
  AutoPad auto_pad = AutoPad::kNotSet;
  int64_t groups = 1;              // Conv's group (1 for pools)
  bool ceil_mode = false;          // pools
  bool count_include_pad = false;  // AveragePool
  int64_t storage_order = 0;       // MaxPool's Indices layout
  bool global = false;

  size_t rank() const { return kernel.size(); }
  int64_t pad_begin(size_t i) const { return pads[i]; }
  int64_t pad_end(size_t i) const { return pads[i + rank()]; }
  bool pads_symmetric() const {
    for (size_t i = 0; i < rank(); ++i)
      if (pad_begin(i) != pad_end(i)) return false;
    return true;
  }
  bool all_ones(const std::vector<int64_t>& v) const {
    for (int64_t x : v)
      if (x != 1) return false;
    return true;
  }
  bool dilated() const { return !all_ones(dilations); }
};

// Gemm: Y = alpha * A' B' + beta * C. MatMul holds the defaults.
struct GemmDesc {
  bool trans_a = false, trans_b = false;
  double alpha = 1.0, beta = 1.0;
};

// Unary pointwise parameters, defaults applied: LeakyRelu (alpha), HardSigmoid (alpha, beta),
// Clip (bounds from the attributes before opset 11, from inputs 1 and 2 when those are known
// at analysis time; infinite when absent), Gelu (tanh approximation), Cast (target type).
struct ActivationDesc {
  double alpha = 0.0, beta = 0.0;
  double clip_min = -std::numeric_limits<double>::infinity();
  double clip_max = std::numeric_limits<double>::infinity();
  bool clip_bounds_known = true;  // false: a bound is an input not known at analysis time
  bool gelu_tanh = false;
  DType cast_to = DType::kUnknown;
};

// BatchNormalization (axis 1, momentum for training) and LayerNormalization (axis
// normalised: dims axis..rank-1).
struct NormDesc {
  double epsilon = 1e-5;
  int64_t axis = 1;
  double momentum = 0.9;  // ONNX: the share of the running value kept
};

// One normalised axis: Softmax, Concat, Gather, Flatten (in [0, rank]), Split (with the
// resolved sizes of its parts along the axis).
struct AxisDesc {
  int64_t axis = 0;
  std::vector<int64_t> split;  // Split only: the size of each part
  bool split_listed = false;   // Split only: sizes given (input or attribute), not equal parts
};

// Transpose: the permutation, default (reversed dims) applied.
struct TransposeDesc {
  std::vector<int64_t> perm;
};

// ReduceMean: the reduced axes, normalised and ascending (every axis when the node names none,
// none when noop_with_empty_axes applies); keepdims.
struct ReduceDesc {
  std::vector<int64_t> axes;
  bool keepdims = true;
  bool noop = false;  // noop_with_empty_axes with no axes: the output is the input
};

// Slice: per input dim, the first index, the step and the output extent (steps 1 and the
// full extent for dims the node does not slice), clamped as ONNX specifies; and the lists
// as the node gives them (inputs or attributes), defaults applied: axes normalised, steps 1.
struct SliceDesc {
  std::vector<int64_t> first, step, extent;
  std::vector<int64_t> starts, ends, axes, steps;
};

// Pad: pads over every input dim (rank begins then rank ends), the mode and constant value
// (the value input when known at analysis time, else the attribute, else 0).
enum class PadMode { kConstant, kReflect, kEdge, kWrap };
struct PadDesc {
  std::vector<int64_t> pads;
  PadMode mode = PadMode::kConstant;
  double value = 0.0;
};

// Resize's attributes, defaults applied and checked; axes normalised (every dim by default).
struct ResizeDesc {
  std::string mode = "nearest";
  std::string coordinate_transformation_mode = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  double cubic_coeff_a = -0.75;
  double extrapolation_value = 0.0;
  bool exclude_outside = false;
  bool antialias = false;
  std::vector<int64_t> axes;
};

// Shape: the range [start, end) of dims it returns, clamped; Reshape: allowzero.
struct ShapeDesc {
  int64_t start = 0, end = 0;
};
struct ReshapeDesc {
  bool allow_zero = false;
};

// Mod: fmod (1: C fmod, the dividend's sign; 0: integer modulo, the divisor's sign).
struct ModDesc {
  bool fmod = false;
};

// Einsum: the letters of each input term and of the output, every distinct letter with its
// extent (ascending), and the MACs (product of all extents for two operands, 0 for one).
struct EinsumDesc {
  std::vector<std::string> inputs;
  std::string output;
  std::string letters;
  std::vector<int64_t> extents;
  int64_t macs = 0;
};

using OpDesc = std::variant<std::monostate, WindowDesc, GemmDesc, ActivationDesc, NormDesc, AxisDesc, TransposeDesc,
                            ReduceDesc, SliceDesc, PadDesc, ResizeDesc, ShapeDesc, ReshapeDesc, ModDesc, EinsumDesc>;

}  // namespace rooflens
