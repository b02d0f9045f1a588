// Builders for the linear anchors of fused layers. Each returns the index of the first
// node of the layer its primitive (with post-ops) did not cover.
#pragma once

#include "onednn_backend.h"

namespace rooflens::onednn {

Expected<size_t> build_conv(OneDnnBackend& b, const LayerReport& layer);
Expected<size_t> build_gemm(OneDnnBackend& b, const LayerReport& layer);
Expected<size_t> build_matmul(OneDnnBackend& b, const LayerReport& layer);

}  // namespace rooflens::onednn
