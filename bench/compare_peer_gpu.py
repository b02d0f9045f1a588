#!/usr/bin/env python3
"""Markdown table of rooflens's GPU predictions beside the measured peer (bench/peer_torch_gpu.py).

For every (model, dtype, batch) the peer measured, runs
  ROOFLENS predict MODELS_DIR/MODEL.onnx --device DEVICE --dtype DTYPE --batch B --format json
and writes: model, dtype, batch, mode, measured img/s, predicted img/s, predicted/measured,
measured utilization (measured img/s x rooflens's FLOPs per image / the predict JSON's
peak_flops, i.e. the device's dense fp16 tensor peak for fp16 rows, its fp32 peak for fp32
rows) and rooflens's predicted utilization; then kernels per forward beside rooflens's
fused layer count, and the remedies the peer measured. Standard library only.

usage: bench/compare_peer_gpu.py PEER.json [--rooflens build/rooflens] [--device h200]
                                 [--models-dir models] [-o FILE.md]
"""
import argparse, json, math, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fmt(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else "-"


def pct(v):
    return fmt(v * 100, ".2f") + "%" if isinstance(v, (int, float)) else "-"


class Predictor:
    """rooflens predict, one call per (model, dtype, batch), cached; a failure gives a reason string."""

    def __init__(self, a):
        self.a, self.cache = a, {}

    def __call__(self, model, dtype, batch):
        key = (model, dtype, batch)
        if key not in self.cache:
            self.cache[key] = self.run(model, dtype, batch)
        return self.cache[key]

    def run(self, model, dtype, batch):
        onnx = os.path.join(self.a.models_dir, model + ".onnx")
        if not os.path.isfile(onnx):
            rel = os.path.relpath(onnx, ROOT)
            return f"no {onnx if rel.startswith('..') else rel}"
        cmd = [self.a.rooflens, "predict", onnx, "--device", self.a.device, "--dtype", dtype,
               "--batch", str(batch), "--format", "json"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"rooflens failed: {e}"
        if p.returncode != 0:
            return f"rooflens exit {p.returncode}: {(p.stderr.strip().splitlines() or [''])[-1][:120]}"
        try:
            d = json.loads(p.stdout)
        except ValueError as e:
            return f"rooflens output is not JSON: {e}"
        rows = d if isinstance(d, list) else [d]
        for r in rows:
            if r.get("batch") == batch:
                return r
        return f"no batch {batch} in rooflens output"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("peer", help="JSON written by bench/peer_torch_gpu.py (schema rooflens.peer-gpu/1)")
    ap.add_argument("--rooflens", default=os.path.join(ROOT, "build", "rooflens"), help="rooflens binary")
    ap.add_argument("--device", default="h200", help="rooflens device id (default h200)")
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "models"), help="directory of MODEL.onnx files")
    ap.add_argument("-o", "--out", help="write the markdown here (default: stdout)")
    a = ap.parse_args()
    with open(a.peer) as f:
        peer = json.load(f)
    if peer.get("schema") != "rooflens.peer-gpu/1":
        sys.exit(f"{a.peer}: schema {peer.get('schema')!r}, expected 'rooflens.peer-gpu/1'")
    if not os.access(a.rooflens, os.X_OK):
        sys.exit(f"{a.rooflens}: no rooflens binary there (build it, or pass --rooflens PATH)")
    pred, env, out = Predictor(a), peer.get("env", {}), []
    w = out.append
    w(f"# rooflens predictions ({a.device}) beside measured PyTorch inference\n")
    w(f"Measured: {env.get('gpu', env.get('device', '?'))}, driver {env.get('driver', '?')}, "
      f"torch {env.get('torch', '?')}, CUDA {env.get('cuda', '?')}, cuDNN {env.get('cudnn', '?')}, "
      f"torchvision {env.get('torchvision', '?')}; {peer.get('created_utc', '?')}. "
      f"eager = plain forward calls on one stream, graph = CUDA-graph replay; channels_last, cudnn.benchmark, "
      f"weights=None. Predicted: `rooflens predict --device {a.device}` (a model, not a measurement).")
    if peer.get("settings", {}).get("smoke"):
        w("\n**Smoke run** (tiny batches, short timings): not a measurement to quote.")
    w("\n| model | dtype | batch | mode | measured img/s | predicted img/s | predicted/measured | "
      "measured util | predicted util |")
    w("|---|---|---:|---|---:|---:|---:|---:|---:|")
    ratios, peaks = {}, {}
    for r in peer.get("results", []):
        m, dt, b, mode = r["model"], r["dtype"], r["batch"], r["mode"]
        p = pred(m, dt, b)
        meas = r.get("throughput")
        if meas is None:
            w(f"| {m} | {dt} | {b} | {mode} | {('error: ' + r.get('error', '?'))[:60]} | "
              f"{fmt(p.get('throughput'), '.1f') if isinstance(p, dict) else p} | - | - | - |")
            continue
        if not isinstance(p, dict):
            w(f"| {m} | {dt} | {b} | {mode} | {meas:.1f} | {p} | - | - | - |")
            continue
        peaks[dt] = p.get("peak_flops")
        ratio = p["throughput"] / meas
        ratios.setdefault(mode, []).append(ratio)
        util = meas * p["flops_per_image"] / p["peak_flops"] if p.get("peak_flops") else None
        w(f"| {m} | {dt} | {b} | {mode} | {meas:.1f} | {p['throughput']:.1f} | {ratio:.2f} | "
          f"{pct(util)} | {pct(p.get('utilization'))} |")
    w("")
    for mode, v in sorted(ratios.items()):
        g = math.exp(sum(map(math.log, v)) / len(v))
        w(f"- predicted/measured, {mode}: geometric mean {g:.2f} over {len(v)} points "
          f"(min {min(v):.2f}, max {max(v):.2f})")
    for dt, pk in sorted(peaks.items()):
        w(f"- utilization is against the predict JSON's peak_flops for {dt}: {fmt(pk and pk / 1e12, '.1f')} TFLOP/s")
    kern = peer.get("kernels", {})
    if kern:
        w("\n## Kernels per forward (batch 1, fp16) beside rooflens's fused layers\n")
        w("| model | measured CUDA kernels | memcpy/memset | rooflens layers |")
        w("|---|---:|---:|---:|")
        for m, k in kern.items():
            p = pred(m, "fp16", 1)
            layers = len(p.get("layers", [])) if isinstance(p, dict) else p
            w(f"| {m} | {k.get('kernels', 'error: ' + str(k.get('error', '?'))[:60])} | "
              f"{k.get('memcpy_memset', '-')} | {layers} |")
    rem = peer.get("remedies", {})
    if rem.get("conv1_pad"):
        w("\n## Remedy: ResNet-50 conv1 padded to more input channels (measured)\n")
        w("| input channels | batch | mode | img/s | speed-up vs 3 channels |")
        w("|---:|---:|---|---:|---:|")
        for r in rem["conv1_pad"]:
            w(f"| {r['in_channels']} | {r['batch']} | {r['mode']} | "
              f"{fmt(r.get('throughput'), '.1f') if 'throughput' in r else r.get('error', '-')} | "
              f"{fmt(r.get('speedup_vs_3ch'), '.3f')} |")
    h = rem.get("h2d_copy", {})
    if h:
        w(f"\n## Remedy: input copy of one batch of {h.get('batch')} images (measured)\n")
        for key in ("fp16_pinned", "fp16_pageable", "uint8_pinned"):
            if key in h:
                w(f"- {key}: {h[key]['median_s'] * 1e3:.3f} ms, {h[key]['bandwidth_Bps'] / 1e9:.1f} GB/s")
        if "uint8_to_fp16_on_device" in h:
            w(f"- uint8 -> fp16 cast and scale on the device: {h['uint8_to_fp16_on_device']['median_s'] * 1e3:.3f} ms")
        if h.get("error"):
            w(f"- error: {h['error']}")
        cvc = rem.get("copy_vs_compute", [])
        if cvc:
            w("\n| model | dtype | mode | compute ms | fp16 pinned copy / compute | uint8 pinned copy / compute |")
            w("|---|---|---|---:|---:|---:|")
            for r in cvc:
                w(f"| {r['model']} | {r['dtype']} | {r['mode']} | {r['compute_s'] * 1e3:.3f} | "
                  f"{fmt(r.get('fp16_pinned_over_compute'), '.3f')} | "
                  f"{fmt(r.get('uint8_pinned_over_compute'), '.3f')} |")
    c = rem.get("clocks", {})
    if c:
        w(f"\n## Sustained ResNet-50 fp16 batch {c.get('batch')} for {fmt(c.get('duration_s'), '.0f')} s (measured)\n")
        for k in ("clocks.sm", "clocks.mem", "clocks.max.sm", "power.draw", "temperature.gpu"):
            if c.get(k):
                w(f"- {k}: min {c[k]['min']:g}, median {c[k]['median']:g}, max {c[k]['max']:g}")
        errs = {s["error"] for s in c.get("samples", []) if "error" in s}
        if errs:
            w(f"- nvidia-smi: {'; '.join(sorted(errs))}")
        if "throughput_first_fifth" in c:
            w(f"- throughput: {c['throughput_first_fifth']:.1f} img/s in the first fifth, "
              f"{c['throughput_last_fifth']:.1f} in the last")
    if peer.get("skipped") or peer.get("errors"):
        w(f"\nSkipped for the time budget: {', '.join(peer.get('skipped', [])) or 'nothing'}. "
          f"Errors: {'; '.join(peer.get('errors', [])) or 'none'}.")
    text = "\n".join(out) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
