#!/usr/bin/env python3
"""Speed of the Python module (docs/performance.md, "Python module"):

1. one size-space network predicted from Python (rooflens.sss.network), per call (goal < 1 ms);
2. the whole space as numpy arrays (rooflens.sss.space(...).arrays()) (goal < 1 s);
3. the overhead of the Python call against the same library call timed in C++ in the same
   process (predict_sss_network, device resolved once).

    PYTHONPATH=build/python /work/bin/rllock python3 bench/python_overhead.py
Prints one line per figure and a JSON summary line.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import rooflens
from rooflens import _core, sss


def per_call(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="8:16:24:32:64")
    ap.add_argument("--device", default="v100")
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--batch", default="256")
    ap.add_argument("--n", type=int, default=200, help="calls per sample")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=0, help="threads for the whole space (0: all cores)")
    a = ap.parse_args()
    batch = None if a.batch == "max" else int(a.batch)

    sss.network(a.arch, a.device, a.dtype, batch if batch else "max")  # warm: device database read once
    py = [per_call(lambda: sss.network(a.arch, a.device, a.dtype, batch if batch else "max"), a.n)
          for _ in range(a.samples)]
    cpp = [_core._time_sss_network_cpp(a.arch, a.device, a.dtype, batch, a.n) for _ in range(a.samples)]
    py_med, cpp_med = statistics.median(py), statistics.median(cpp)
    print(f"sss.network({a.arch!r}) from Python: {1e6 * py_med:.1f} us per call (median of {a.samples} x {a.n})")
    print(f"the same library call in C++:        {1e6 * cpp_med:.1f} us per call")
    print(f"Python overhead per call:            {1e6 * (py_med - cpp_med):.1f} us "
          f"({100 * (py_med - cpp_med) / cpp_med:.1f}% of the C++ call)")

    spaces = []
    for _ in range(max(1, a.samples // 2)):
        t0 = time.perf_counter()
        arrays = sss.space(a.device, a.dtype, batch if batch else "max", jobs=a.jobs).arrays()
        spaces.append(time.perf_counter() - t0)
    assert len(arrays["throughput_img_per_s"]) == sss.SIZE
    sp_med = statistics.median(spaces)
    print(f"whole space ({sss.SIZE} networks) as numpy arrays: {sp_med:.3f} s (median of {len(spaces)}, "
          f"jobs={a.jobs or os.cpu_count()})")
    print(json.dumps({"python_network_s": py_med, "cpp_network_s": cpp_med, "space_arrays_s": sp_med,
                      "arch": a.arch, "device": a.device, "dtype": a.dtype, "batch": a.batch,
                      "machine": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                      "python": platform.python_version(), "rooflens": rooflens.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
