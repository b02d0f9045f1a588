// Reference view ops: Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout (inference).
// Each copies its input's elements, in order, into the output's inferred shape; Dropout's
// optional mask output is all true.
#include "kernels.h"

namespace rooflens::ref {
namespace {

Status copy_view(KernelContext& ctx) {
  const Tensor& x = ctx.in(0);
  Tensor& y = ctx.alloc_out(0);
  if (y.numel() != x.numel())
    return ctx.invalid("input", "holds " + std::to_string(x.numel()) + " elements, the output shape " +
                                    shape_str(y.shape) + " needs " + std::to_string(y.numel()));
  copy_mapped(x, &y, [](int64_t i) { return i; });
  return Status::ok();
}

}  // namespace

Status run_Flatten(KernelContext& ctx) { return copy_view(ctx); }
Status run_Reshape(KernelContext& ctx) { return copy_view(ctx); }
Status run_Squeeze(KernelContext& ctx) { return copy_view(ctx); }
Status run_Unsqueeze(KernelContext& ctx) { return copy_view(ctx); }
Status run_Identity(KernelContext& ctx) { return copy_view(ctx); }

// Shape inference accepts a training-mode Dropout only when its ratio is known to be 0 (torch
// exports Swin's F.dropout(attn, p=0.0, training=...) so); that one is the identity too.
Status run_Dropout(KernelContext& ctx) {
  const bool zero_ratio = ctx.has_input(1) && ctx.in(1).numel() == 1 && elem(ctx.in(1), 0) == 0.0;
  if (!zero_ratio && ctx.has_input(2)) {
    const Tensor& training = ctx.in(2);
    if (training.numel() > 0 && elem(training, 0) != 0)
      return ctx.unsupported("input training_mode", "training-mode Dropout is not an inference op");
  }
  ROOFLENS_RETURN_IF_ERROR(copy_view(ctx));
  if (ctx.has_out(1)) {
    Tensor& mask = ctx.alloc_out(1);
    mask.ints.assign(mask.ints.size(), 1);
  }
  return Status::ok();
}

}  // namespace rooflens::ref
