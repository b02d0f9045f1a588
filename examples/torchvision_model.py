#!/usr/bin/env python3
"""A torchvision network built in the script, analysed, predicted on two GPUs and measured on
this CPU (oneDNN) briefly, all from Python.

    PYTHONPATH=build/python python3 examples/torchvision_model.py --model resnet18 --max-seconds 1
"""
import argparse
import sys

try:
    import torch
    import torchvision
except ImportError as e:
    print(f"skipped: torch/torchvision not importable ({e})", file=sys.stderr)
    sys.exit(77)
try:
    import rooflens
except ImportError as e:
    print(f"rooflens is not importable ({e}); build it: /work/bin/rlbuild rooflens_python", file=sys.stderr)
    sys.exit(77)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="resnet18", help="a torchvision.models constructor")
    ap.add_argument("--devices", default="v100,a100")
    ap.add_argument("--max-seconds", type=float, default=1.0, help="cap on the CPU measurement")
    a = ap.parse_args()

    net = getattr(torchvision.models, a.model)()  # random weights: no download
    model = rooflens.from_torch(net, torch.randn(1, 3, 224, 224), dtype="fp16")

    an = rooflens.analyze(model, batch=1)
    print(f"{a.model}: {len(an.layers)} fused layers, {an.macs / 1e9:.2f} GMACs, {an.params / 1e6:.1f} M params, "
          f"AI {an.ai_flop_per_byte:.1f} FLOP/B (fp16, batch 1)")
    top = sorted(an.layers, key=lambda L: -L.flops)[:3]
    for L in top:
        print(f"  {L.name:30s} {L.op:28s} {L.flops / 1e9:7.3f} GFLOP  AI {L.ai_flop_per_byte:7.1f} FLOP/B")

    for dev in a.devices.split(","):
        p = rooflens.predict(model, device=dev, dtype="fp16", batch="max")
        print(f"predicted on {p.device}: batch {p.batch} (max), {p.throughput_img_per_s:,.0f} img/s, "
              f"utilization {100 * p.utilization:.1f}%")

    m = rooflens.measure(model, backend="onednn", batch=1, max_seconds=a.max_seconds, tactic_cache="")
    print(f"measured on this CPU (oneDNN, fp32, batch 1): {m.throughput_img_per_s:.1f} img/s, "
          f"latency {1e3 * m.latency_s:.2f} ms over {m.runs} runs")
    return 0 if m.throughput_img_per_s > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
