// Deterministic weights for executing models whose files carry none (the bundled zoo has
// its weight data stripped). Every backend takes stored tensors from here, so all
// backends run the same numbers.
#pragma once

#include <cstdint>

#include "rooflens/exec/tensor.h"

namespace rooflens {

// Contents of a stored value: the file's data when it has it; otherwise values drawn
// from a generator seeded by `seed` and the value's name, shaped by the value's role:
// BatchNormalization scale and variance in [0.5, 1.5], BN mean and biases in
// [-0.1, 0.1], Conv/Gemm/MatMul weights He-uniform (+-sqrt(6 / fan_in)), anything else
// in [-0.5, 0.5]. Integer values must have data.
Expected<Tensor> stored_tensor(const Graph& g, ValueId v, uint64_t seed);

// A random input of the value's shape, uniform in [-1, 1], seeded.
Tensor random_input(const Graph& g, ValueId v, uint64_t seed);

// Folds BatchNormalization node `bn` (scale, bias, mean, var, epsilon) into the weights
// `w` [M, ...] and bias [M] of the convolution or Gemm that feeds it, as inference
// engines do: w' = w s, b' = (b - mean) s + beta with s = scale / sqrt(var + eps).
Status fold_batchnorm(const Graph& g, NodeId bn, uint64_t seed, Tensor* w, Tensor* bias);

}  // namespace rooflens
