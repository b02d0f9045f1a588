"""Helpers and the `rooflens doctor` remedies of bench/peer_torch_gpu.py (imported by it, not run alone).

Each remedy takes the script's Runner R (timing, budget, report) and adds to R.rep["remedies"]:
conv1_pad (ResNet-50 conv1 with 4/8 input channels), h2d (copy of a batch vs compute), clocks.
"""
import copy, shutil, statistics, subprocess, threading, time

import torch

T0 = time.monotonic()
SMI_CLOCKS = "clocks.sm,clocks.mem,clocks.max.sm,power.draw,temperature.gpu"
CL = torch.channels_last


def log(*a):
    try:
        print(f"[{time.monotonic() - T0:6.1f}s]", *a, flush=True)
    except OSError:  # a closed pipe must not stop the measurements
        pass


def err(e):
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0][:300] if lines else ''}"


def is_oom(e):
    return isinstance(e, torch.cuda.OutOfMemoryError) or "out of memory" in str(e).lower()


def num(v):
    try:
        return float(v)
    except ValueError:
        return v.strip()


def smi(query):
    """Rows of `nvidia-smi --query-gpu=QUERY` as dicts (numbers as floats); raises where it is missing."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        raise FileNotFoundError("nvidia-smi not found")
    out = subprocess.run([exe, f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    return [dict(zip(query.split(","), map(num, line.split(",")))) for line in out.strip().splitlines()]


def stats(v):
    return {"min": min(v), "median": statistics.median(v), "max": max(v)} if v else None


def conv1_pad(R):
    """ResNet-50 with conv1 taking 3 (as is), 4 or 8 input channels (extra weights and inputs zero)."""
    if R.left() < 8:
        return R.skip("remedy conv1_pad")
    log("== remedy: resnet50 conv1 padded to 4 / 8 input channels, fp16, graph")
    out, base, mode = [], R.build("resnet50", "fp16"), "graph" if R.cuda else "eager"
    for ch in (3, 4, 8):
        m = copy.deepcopy(base)
        if ch != 3:
            conv = torch.nn.Conv2d(ch, 64, 7, 2, 3, bias=False)
            with torch.no_grad():
                conv.weight.zero_()
                conv.weight[:, :3].copy_(base.conv1.weight.float().cpu())
            m.conv1 = conv.to(device=R.dev, dtype=R.tdt("fp16"), memory_format=CL)
        for b in sorted({R.batches[0], R.big}):
            if R.left() < 3:
                R.skip(f"remedy conv1_pad c{ch} b{b}")
                continue
            rec, x = {"in_channels": ch, "batch": b, "mode": mode, "dtype": "fp16"}, R.inp(b, "fp16", ch=ch)
            if b == R.batches[0]:  # the padded model computes the same function
                with torch.inference_mode():
                    d = base(x[:, :3].contiguous(memory_format=CL)).float() - m(x).float()
                rec["max_abs_diff_vs_3ch"] = float(d.abs().max())
            R.one(m, x, mode, rec)
            if "throughput" in rec:
                log(f"conv1 {ch} channels b{b}: {rec['throughput']:.1f} img/s")
            out.append(rec)
            R.rep["remedies"]["conv1_pad"] = out
            R.save()
        del m
    for r in out:
        b3 = [q for q in out if q["in_channels"] == 3 and q["batch"] == r["batch"] and "throughput" in q]
        if b3 and "throughput" in r:
            r["speedup_vs_3ch"] = r["throughput"] / b3[0]["throughput"]
    del base
    R.free()
    R.save()


def h2d(R):
    """Host-to-device copy of one batch: fp16 NCHW (pinned, pageable), uint8 NHWC (pinned)."""
    if R.left() < 5:
        return R.skip("remedy h2d_copy")
    B, res = R.big, {"batch": R.big, "pinned": R.cuda}
    log(f"== remedy: host-to-device copy of a batch of {B} 224x224x3 images")
    try:
        h16 = torch.randn(B, 3, 224, 224).half()
        h8 = torch.randint(0, 256, (B, 224, 224, 3), dtype=torch.uint8)
        pin = (lambda t: t.pin_memory()) if R.cuda else (lambda t: t)
        for key, h in [("fp16_pinned", pin(h16)), ("fp16_pageable", h16), ("uint8_pinned", pin(h8))]:
            if R.left() < 2:
                R.skip(f"remedy h2d {key}")
                continue
            d, nb = torch.empty(h.shape, dtype=h.dtype, device=R.dev), h.numel() * h.element_size()
            r = R.measure(lambda: d.copy_(h, non_blocking=True))
            res[key] = dict(r, bytes=nb, bandwidth_Bps=nb / r["median_s"])
            log(f"{key}: {r['median_s'] * 1e3:.3f} ms per batch, {nb / r['median_s'] / 1e9:.1f} GB/s")
        d8 = torch.randint(0, 256, (B, 224, 224, 3), dtype=torch.uint8, device=R.dev)
        o = torch.empty(B, 3, 224, 224, dtype=torch.float16, device=R.dev).to(memory_format=CL)
        # the work the uint8 remedy moves onto the GPU: cast and scale
        res["uint8_to_fp16_on_device"] = R.measure(lambda: o.copy_(d8.permute(0, 3, 1, 2)).mul_(1 / 255))
    except Exception as e:  # noqa: BLE001
        res["error"] = err(e)
        log("h2d failed:", res["error"])
    R.rep["remedies"]["h2d_copy"] = res
    R.free()
    R.save()


def clocks(R):
    """nvidia-smi clocks, power and temperature each second during a sustained ResNet-50 run."""
    dur = min(R.clock_s, R.left() - 8)
    if dur < min(5, R.clock_s):
        return R.skip("remedy clocks")
    B, stop, t0 = R.big, threading.Event(), time.monotonic()
    log(f"== remedy: clocks during {dur:.0f} s of resnet50 fp16 batch {B}")
    res = {"batch": B, "duration_s": dur, "samples": [], "throughput": []}

    def poll():
        while not stop.is_set():
            t = round(time.monotonic() - t0, 2)
            try:
                res["samples"] += [dict(r, t=t) for r in smi("index," + SMI_CLOCKS)]
            except Exception as e:  # noqa: BLE001 - nvidia-smi missing or failing
                res["samples"].append({"t": t, "error": err(e)})
                if isinstance(e, FileNotFoundError):
                    return
            stop.wait(1.0)
    th = threading.Thread(target=poll, daemon=True)
    try:
        model, x = R.build("resnet50", "fp16"), R.inp(B, "fp16")
        with torch.inference_mode():
            fn = R.graph(model, x) if R.cuda else (lambda: model(x))
            n = max(1, int(0.5 / (R.timed(fn, 2) / 2)))
            th.start()
            t_run = time.monotonic()
            while time.monotonic() - t_run < dur:
                s = R.timed(fn, n)
                res["throughput"].append([round(time.monotonic() - t0, 2), n * B / s])
    except Exception as e:  # noqa: BLE001
        res["error"] = err(e)
        log("clocks run failed:", res["error"])
    stop.set()
    if th.is_alive():
        th.join(15)
    for k in SMI_CLOCKS.split(","):
        res[k] = stats([s[k] for s in res["samples"] if isinstance(s.get(k), float)])
    tp = [v for _, v in res["throughput"]]
    if tp:
        k = max(1, len(tp) // 5)
        res["throughput_first_fifth"], res["throughput_last_fifth"] = map(statistics.median, (tp[:k], tp[-k:]))
        log(f"sustained {res['throughput_first_fifth']:.0f} -> {res['throughput_last_fifth']:.0f} img/s; "
            f"clocks.sm {res['clocks.sm']}")
    R.rep["remedies"]["clocks"] = res
    R.free()
    R.save()


def copy_vs_compute(R):
    """Copy time of one batch over the compute time of that batch, for each model measured at it."""
    h, out = R.rep["remedies"].get("h2d_copy", {}), []
    for r in R.rep["results"]:
        if r["batch"] == h.get("batch") and "median_s" in r:
            row = dict({k: r[k] for k in ("model", "dtype", "batch", "mode")}, compute_s=r["median_s"])
            for key in ("fp16_pinned", "fp16_pageable", "uint8_pinned"):
                if "median_s" in h.get(key, {}):
                    row[key + "_over_compute"] = h[key]["median_s"] / r["median_s"]
            out.append(row)
    if out:
        R.rep["remedies"]["copy_vs_compute"] = out
