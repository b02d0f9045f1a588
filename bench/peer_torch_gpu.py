#!/usr/bin/env python3
"""Measured GPU peer of rooflens's GPU predictions and of `rooflens doctor`'s remedies.

PyTorch inference of torchvision models (weights=None, eval, inference_mode, channels_last,
cudnn.benchmark; fp16, and true fp32 with TF32 off for resnet50/mobilenet_v2) at batches
1, 8, 64, 256, eager and as a CUDA graph, and with --modes ...,compile through torch.compile
(--compile-mode, default "default": Inductor fusing the pointwise work; the compiled forward
is then replayed as a CUDA graph like the graph mode) where this torch has it; CUDA kernels
per forward (torch.profiler, in a child process so that CUPTI cannot disturb the timings); remedies: ResNet-50 conv1 padded
to 4/8 input channels, host-to-device copy of a batch (fp16 vs uint8) against compute, and
clocks during a sustained run. Work runs most important first and stops cleanly at
--budget-s (skips are recorded); the JSON (rooflens.peer-gpu/1) is rewritten after each step.

usage: python3 bench/peer_torch_gpu.py --out $OUT/peer_gpu.json [--budget-s 240]
       python3 bench/peer_torch_gpu.py --device cpu --smoke --out /tmp/peer.json   (code paths only)
then:  python3 bench/compare_peer_gpu.py PEER.json --rooflens build/rooflens
Needs bench/peer_gpu_remedies.py beside it (helpers and the remedies); torch, torchvision only.
"""
import argparse, collections, datetime, json, math, os, platform, statistics, subprocess, sys, time, traceback

T0 = time.monotonic()  # the budget counts from here, before torch's import

import torch  # noqa: E402
import torchvision  # noqa: E402

import peer_gpu_remedies as remedies  # noqa: E402 - bench/peer_gpu_remedies.py: helpers and the remedies
from peer_gpu_remedies import CL, err, is_oom, log, smi  # noqa: E402

remedies.T0 = T0  # log() times from the same start

MODELS = "resnet50,mobilenet_v2,squeezenet1_0,mobilenet_v3_small,efficientnet_b0,vgg16,densenet121"
FIRST = ["resnet50", "mobilenet_v2", "squeezenet1_0", "mobilenet_v3_small"]  # measured before the remedies
FP32_MODELS = ["resnet50", "mobilenet_v2"]
DTYPES = {"fp16": torch.float16, "fp32": torch.float32}
NAN = float("nan")


class Runner:
    def __init__(self, a):
        self.a, self.dev, s = a, torch.device(a.device), a.smoke
        self.cuda = self.dev.type == "cuda"
        self.deadline = T0 + a.budget_s
        self.batches = [int(b) for b in (a.batches or ("1,2" if s else "1,8,64,256")).split(",")]
        self.big = self.batches[-1] if s else 256  # batch of the remedies
        self.groups, self.group_s = (3, 0.02) if s else (max(5, a.groups), 0.05)
        self.min_iters, self.warm_iters, self.warm_s = (1, 1, 0.0) if s else (3, 3, 0.25)
        self.clock_s = 3.0 if s else a.clock_s
        self.keep = []  # a captured graph and its static output, alive while it is replayed
        self.modes = [m for m in a.modes.split(",") if m] if self.cuda else ["eager"]
        self.compiled = {}  # (model id, batch) -> the torch.compile'd module
        self.rep = {"schema": "rooflens.peer-gpu/1", "kind": "measurement", "argv": sys.argv[1:],
                    "created_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    "env": {}, "settings": {}, "results": [], "kernels": {}, "remedies": {},
                    "skipped": [], "errors": [], "complete": False}

    def left(self):
        return self.deadline - time.monotonic()

    def skip(self, what):
        self.rep["skipped"].append(what)
        log("SKIP (budget):", what)

    def save(self):
        self.rep["elapsed_s"] = round(time.monotonic() - T0, 2)
        with open(self.a.out + ".tmp", "w") as f:
            json.dump(self.rep, f, indent=1)
        os.replace(self.a.out + ".tmp", self.a.out)

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize(self.dev)

    def free(self):
        self.keep.clear()
        if self.cuda:
            self.sync()
            torch.cuda.empty_cache()

    def tdt(self, dt):  # the CPU code-path check runs fp32 (older torch has no fp16 CPU convolutions)
        return DTYPES[dt] if self.cuda else torch.float32

    def build(self, name, dt):
        torch.manual_seed(0)
        m = torchvision.models.get_model(name, weights=None).eval()
        return m.to(device=self.dev, dtype=self.tdt(dt), memory_format=CL)

    def inp(self, batch, dt, ch=3, size=224):  # static input: normal noise; channels past 3 are zero
        x = torch.zeros(batch, ch, size, size, device=self.dev, dtype=self.tdt(dt)).to(memory_format=CL)
        x[:, :3].normal_()
        return x

    def timed(self, fn, n):
        """Seconds for n back-to-back calls: CUDA events on a GPU, the wall clock on the CPU."""
        self.sync()
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)] if self.cuda else None
        t = time.perf_counter()
        if ev:
            ev[0].record()
        for _ in range(n):
            fn()
        if not ev:
            return time.perf_counter() - t
        ev[1].record()
        ev[1].synchronize()
        return ev[0].elapsed_time(ev[1]) / 1e3

    def measure(self, fn):
        """Warm-up, then the median per-call time over >= 5 groups of n calls (>= 50 ms or >= 3 calls)."""
        t, nw = time.perf_counter(), 0
        while nw < self.warm_iters or time.perf_counter() - t < self.warm_s:
            fn()
            self.sync()
            nw += 1
        one = self.timed(fn, self.min_iters) / self.min_iters
        n = min(5000, max(self.min_iters, math.ceil(self.group_s / max(one, 1e-7))))
        per = [self.timed(fn, n) / n for _ in range(self.groups)]
        med = statistics.median(per)
        return {"median_s": med, "min_s": min(per), "max_s": max(per), "spread": (max(per) - min(per)) / med,
                "iters_per_group": n, "groups": len(per), "warmup_iters": nw}

    def graph(self, model, x):
        """CUDA graph of one forward, captured after a warm-up on a side stream; returns its replay."""
        s = torch.cuda.Stream(self.dev)
        s.wait_stream(torch.cuda.current_stream(self.dev))
        with torch.cuda.stream(s):
            for _ in range(3):
                model(x)
        torch.cuda.current_stream(self.dev).wait_stream(s)
        self.sync()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = model(x)
        self.sync()
        self.keep.append((g, y))
        return g.replay

    def compile_fn(self, model, x):
        """torch.compile'd forward (compiled on its first calls, inside the warm-up), replayed as a
        CUDA graph; raises RuntimeError where this torch cannot compile (no Triton, too old)."""
        if not hasattr(torch, "compile"):
            raise RuntimeError("torch.compile is not present in torch " + torch.__version__)
        import importlib.util
        if importlib.util.find_spec("triton") is None:
            raise RuntimeError("torch.compile needs Triton, which is not installed")
        key = (id(model), tuple(x.shape))
        if key not in self.compiled:
            self.compiled[key] = torch.compile(model, mode=self.a.compile_mode, dynamic=False)
        cm = self.compiled[key]
        t = time.perf_counter()
        for _ in range(3):  # compiles (and autotunes) here, outside the timing
            cm(x)
        self.sync()
        log(f"torch.compile({self.a.compile_mode}) of batch {x.shape[0]}: {time.perf_counter() - t:.1f} s")
        return self.graph(cm, x)

    def one(self, model, x, mode, rec):
        """Times one point into rec; returns False after an out-of-memory error."""
        try:
            with torch.inference_mode():
                fn = (self.graph(model, x) if mode == "graph" else
                      self.compile_fn(model, x) if mode == "compile" else (lambda: model(x)))
                r = self.measure(fn)
            rec.update(r, throughput=x.shape[0] / r["median_s"])
            return True
        except Exception as e:  # noqa: BLE001 - record it and go on
            rec["error"], rec["oom"] = err(e), is_oom(e)
            log("ERROR", rec.get("model", ""), rec["batch"], mode, rec["error"])
            return not rec["oom"]
        finally:
            self.free()

    def run_model(self, name, dt):
        if self.left() < 3:
            return self.skip(f"{name} {dt}: all")
        log(f"== {name} {dt}")
        size, model = 299 if name == "inception_v3" else 224, self.build(name, dt)
        for b in self.batches:
            oom = False
            for mode in self.modes:
                rec = {"model": name, "dtype": dt, "batch": b, "mode": mode, "image_size": size}
                if oom:
                    rec["error"] = "skipped: the eager run of this batch ran out of memory"
                elif self.left() < (self.a.compile_reserve_s if mode == "compile" else 2):
                    self.skip(f"{name} {dt} b{b} {mode}")
                    continue
                else:
                    try:
                        oom = not self.one(model, self.inp(b, dt, size=size), mode, rec)
                    except Exception as e:  # noqa: BLE001 - e.g. no memory for the input itself
                        rec["error"], rec["oom"], oom = err(e), is_oom(e), is_oom(e)
                    if "throughput" in rec:
                        log(f"{name:18s} {dt} b{b:<4d} {mode:5s} {rec['throughput']:10.1f} img/s"
                            f"  ({rec['median_s'] * 1e3:.3f} ms/forward, {rec['iters_per_group']} per group)")
                self.rep["results"].append(rec)
                self.save()
        del model
        self.free()

    def count_kernels(self, name):
        """Kernels one batch-1 fp16 forward launches (torch.profiler with ProfilerActivity.CUDA)."""
        from torch.autograd import DeviceType
        from torch.profiler import ProfilerActivity, profile
        rec = {"batch": 1, "dtype": "fp16", "activity": "CUDA" if self.cuda else "CPU (aten ops, not kernels)"}
        try:
            model, x = self.build(name, "fp16"), self.inp(1, "fp16", size=299 if name == "inception_v3" else 224)
            with torch.inference_mode():
                model(x)
                self.sync()
                with profile(activities=[ProfilerActivity.CPU] + [ProfilerActivity.CUDA] * self.cuda) as prof:
                    model(x)
                    self.sync()
            want = DeviceType.CUDA if self.cuda else DeviceType.CPU
            names = [e.name for e in prof.events() if e.device_type == want]
            copies = sum(1 for n in names if n.startswith(("Memcpy", "Memset")))
            if not names:
                rec["note"] = "the profiler recorded no events of this device"
            rec.update(kernels=len(names) - copies, memcpy_memset=copies, distinct=len(set(names)),
                       top=collections.Counter(n[:80] for n in names).most_common(5))
            log(f"{name}: {rec['kernels']} per forward at batch 1 ({rec['activity']})")
        except Exception as e:  # noqa: BLE001
            rec["error"] = err(e)
            log(f"{name}: kernel count failed: {rec['error']}")
        self.rep["kernels"][name] = rec
        self.free()
        self.save()

    def kernels(self):
        """count_kernels for every model, in a child process (CUPTI stays out of the timed one)."""
        t = min(120.0, self.left() - 5)
        if t < 15:
            return self.skip("kernel counts")
        log("== kernels per forward (child process)")
        tmp = self.a.out + ".kernels.json"
        cmd = [sys.executable, os.path.abspath(__file__), "--kernels-only", "--device", self.a.device,
               "--models", self.a.models, "--out", tmp, "--budget-s", str(t - 5)] + ["--smoke"] * self.a.smoke
        try:
            rc = subprocess.run(cmd, timeout=t + 10).returncode
            with open(tmp) as f:
                child = json.load(f)
            os.remove(tmp)
            self.rep["kernels"], self.rep["skipped"] = child["kernels"], self.rep["skipped"] + child["skipped"]
            if rc:
                self.rep["errors"].append(f"kernel-count child exited {rc}")
        except Exception as e:  # noqa: BLE001 - a crashed or hung child loses only the counts
            self.rep["errors"].append(f"kernel counts: {err(e)}")
        self.save()

    def env(self):
        e = {"python": platform.python_version(), "torch": torch.__version__, "torchvision": torchvision.__version__,
             "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "device": str(self.dev)}
        if self.cuda:
            p = torch.cuda.get_device_properties(self.dev)
            e.update(gpu=p.name, sm_count=p.multi_processor_count, total_memory=p.total_memory,
                     capability=f"{p.major}.{p.minor}")
            try:
                e["nvidia_smi"] = smi("name,driver_version,pci.bus_id,clocks.max.sm,clocks.max.mem,power.limit")
                e["driver"] = e["nvidia_smi"][0].get("driver_version")
            except Exception as ex:  # noqa: BLE001
                e["nvidia_smi_error"] = err(ex)
        st = {"tf32": self.tf32}
        for k in ("cudnn.benchmark", "cudnn.allow_tf32", "cuda.matmul.allow_tf32", "cudnn.conv.fp32_precision",
                  "cuda.matmul.fp32_precision"):
            try:  # torch >= 2.9 may refuse to read a legacy flag it considers mixed with the new API
                st[k] = eval("torch.backends." + k)  # noqa: S307 - fixed attribute names
            except Exception as ex:  # noqa: BLE001
                st[k] = err(ex)
        st.update(batches=self.batches, groups=self.groups, group_s=self.group_s, min_iters=self.min_iters,
                  warmup_s=self.warm_s, memory_format="channels_last", weights=None, budget_s=self.a.budget_s,
                  smoke=self.a.smoke, modes=self.modes, compile_mode=self.a.compile_mode, timer="cuda events" if self.cuda else "perf_counter",
                  note=None if self.cuda else "cpu code-path check: fp16 points run in fp32, no graphs")
        self.rep["env"], self.rep["settings"] = e, st
        log("env:", json.dumps(e))

    def table(self):
        rows = collections.OrderedDict()
        for r in self.rep["results"]:
            rows.setdefault((r["model"], r["dtype"], r["batch"]), {})[r["mode"]] = r.get("throughput", r.get("error"))
        f = lambda t: f"{t:12.1f}" if isinstance(t, float) else f"{str(t or '-')[:12]:>12s}"  # noqa: E731
        print(f"\n{'model':20s} {'dtype':5s} {'batch':>5s} {'eager img/s':>12s} {'graph img/s':>12s} "
              f"{'graph/eager':>11s} {'kernels':>8s} {'compile img/s':>13s}", flush=True)
        for (m, dt, b), v in rows.items():
            e, g = v.get("eager"), v.get("graph")
            ratio = f"{g / e:11.2f}" if isinstance(e, float) and isinstance(g, float) else f"{'-':>11s}"
            k = self.rep["kernels"].get(m, {}).get("kernels", "-") if dt == "fp16" else "-"
            print(f"{m:20s} {dt:5s} {b:5d} {f(e)} {f(g)} {ratio} {k!s:>8s} {f(v.get('compile'))}", flush=True)
        for r in self.rep["remedies"].get("conv1_pad", []):
            print(f"conv1 {r['in_channels']} ch, batch {r['batch']}: {f(r.get('throughput', r.get('error')))} img/s, "
                  f"x{r.get('speedup_vs_3ch', NAN):.3f} vs 3 ch", flush=True)
        for r in self.rep["remedies"].get("copy_vs_compute", []):
            print(f"copy/compute {r['model']} {r['dtype']} b{r['batch']} {r['mode']}: fp16 pinned "
                  f"{r.get('fp16_pinned_over_compute', NAN):.3f}, uint8 pinned "
                  f"{r.get('uint8_pinned_over_compute', NAN):.3f}", flush=True)
        c = self.rep["remedies"].get("clocks", {})
        print(f"clocks.sm {c.get('clocks.sm')}, power {c.get('power.draw')}; skipped {len(self.rep['skipped'])}, "
              f"errors {len(self.rep['errors'])}; wrote {self.a.out}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="JSON output file")
    ap.add_argument("--device", default="cuda", help="cuda (default), or cpu for a code-path check")
    ap.add_argument("--smoke", action="store_true", help="batches 1,2 and short timings (with --device cpu)")
    ap.add_argument("--budget-s", type=float, default=240.0, help="wall-clock budget from start, s")
    ap.add_argument("--models", default=MODELS, help="comma list of torchvision model names")
    ap.add_argument("--batches", help="comma list (default 1,8,64,256; smoke 1,2)")
    ap.add_argument("--groups", type=int, default=5, help="timed groups per point (at least 5)")
    ap.add_argument("--clock-s", type=float, default=20.0, help="length of the sustained clock run, s")
    ap.add_argument("--no-remedies", action="store_true")
    ap.add_argument("--points-only", action="store_true",
                    help="fp16 throughput points only: no remedies, kernel counts or fp32 (a corpus run)")
    ap.add_argument("--modes", default="eager,graph",
                    help="comma list of eager, graph, compile (torch.compile; skipped with the reason where absent)")
    ap.add_argument("--compile-mode", default="default",
                    help="torch.compile mode (its forward is then replayed as a CUDA graph)")
    ap.add_argument("--compile-reserve-s", type=float, default=40.0,
                    help="budget a compile point needs left to start, s")
    ap.add_argument("--kernels-only", action="store_true", help=argparse.SUPPRESS)  # the child of kernels()
    a = ap.parse_args()
    if a.device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit("no CUDA device visible to torch (--device cpu --smoke checks the code paths)")
    torch.backends.cudnn.benchmark = True
    R, models = Runner(a), [m for m in a.models.split(",") if m]
    try:  # fp32 is true fp32 (fp16 is unaffected)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        R.tf32 = "off (legacy allow_tf32 flags)"
    except Exception as e:  # noqa: BLE001 - the new API, should the legacy flags ever be refused
        torch.backends.cuda.matmul.fp32_precision = torch.backends.cudnn.conv.fp32_precision = "ieee"
        R.tf32 = f"off (fp32_precision=ieee; legacy flags: {err(e)})"
    if a.kernels_only:
        for m in models:
            R.count_kernels(m) if R.left() > 2 else R.skip(f"{m}: kernel count")
        return R.save()
    first = [m for m in FIRST if m in models]
    run = lambda m, dt: (f"{m} {dt}", lambda: R.run_model(m, dt))  # noqa: E731
    plan = [run(m, "fp16") for m in first]  # most important first: a short budget cuts the tail
    plan += [] if a.no_remedies or a.points_only else [(f.__name__, lambda f=f: f(R)) for f in (remedies.conv1_pad, remedies.h2d,
                                                                             remedies.clocks)]
    plan += [] if a.points_only else [("kernels", R.kernels)]
    plan += [run(m, "fp16") for m in models if m not in first]
    plan += [] if a.points_only else [run(m, "fp32") for m in FP32_MODELS if m in models]
    try:
        R.env()
        R.save()
        for name, step in plan:
            try:
                step()
            except Exception as e:  # noqa: BLE001 - one failing step must not lose the others
                R.rep["errors"].append(f"{name}: {err(e)}")
                log("STEP FAILED", name, traceback.format_exc())
                R.free()
        if not a.points_only:
            remedies.copy_vs_compute(R)
        R.rep["complete"] = not R.rep["skipped"] and not R.rep["errors"]
    finally:  # keep what was measured, even on an interrupt
        R.save()
    R.table()
    log("done")


if __name__ == "__main__":
    main()
