#!/usr/bin/python3
"""Times PyTorch eager CPU inference of a torchvision model, the peer of `rooflens measure`.

Run with the Debian interpreter (python3-torch 1.13, python3-torchvision 0.14) and an
optimized BLAS installed (libopenblas0-openmp): Debian's default reference BLAS makes
linear layers about 40x slower and would flatter rooflens.

usage: bench/torch_infer.py MODEL BATCH THREADS [MAX_SECONDS]
prints one JSON object: model, batch, threads, median_s, q1_s, q3_s, runs, throughput.
"""
import json
import statistics
import sys
import time

import torch
import torchvision


def main():
    name, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    max_seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None).eval()
    size = {"inception_v3": 299}.get(name, 224)
    x = torch.randn(batch, 3, size, size)
    samples = []
    with torch.inference_mode():
        for _ in range(2):  # warm-up, as rooflens's harness
            model(x)
        total = 0.0
        while len(samples) < 200:
            t0 = time.perf_counter()
            model(x)
            dt = time.perf_counter() - t0
            samples.append(dt)
            total += dt
            if len(samples) >= 5:
                q = statistics.quantiles(samples, n=4)
                med = statistics.median(samples)
                if (q[2] - q[0]) / med < 0.05 or total >= max_seconds:
                    break
    q = statistics.quantiles(samples, n=4) if len(samples) >= 2 else [samples[0]] * 3
    med = statistics.median(samples)
    print(json.dumps({"model": name, "batch": batch, "threads": threads, "median_s": med, "q1_s": q[0],
                      "q3_s": q[2], "runs": len(samples), "throughput": batch / med,
                      "torch": torch.__version__, "blas": torch.__config__.show().count("BLAS")}))


if __name__ == "__main__":
    main()
