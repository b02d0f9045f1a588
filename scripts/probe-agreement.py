#!/usr/bin/env python3
"""How much the kernel table itself moves between probes (issue 30): the zoo's predicted
throughput from each of several device files (`rooflens probe cpu --kernels --out F`), how far
two probes' predictions of the same model are apart, and, given a `rooflens validate --format
json` run, each table's error against that run's measured throughput.

usage: scripts/probe-agreement.py ROOFLENS DEVICE.json DEVICE.json [...] [--run RUN.json]
         [--batch N] [--markdown]
For every pair of device files: the median |ratio - 1| of their predictions over the zoo and
the share within +-5% and +-10%. With --run: each device file's median |error| and share
within +-10% and +-25% against the run's raw measured throughput (a controlled comparison:
the same measurements, one table swapped for another).
"""
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile


def predict(binary, device, batch):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "p.json")
        cmd = [binary, "predict", "--zoo", "--dtype", "fp32", "--batch", str(batch), "--device", device,
               "--format", "json", "-o", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"probe-agreement: {' '.join(cmd)} failed: {r.stderr.strip()}")
        with open(out) as f:
            return {p["model"]: p["throughput"] for p in json.load(f) if p.get("throughput")}


def shares(errors, limits):
    return [sum(e <= x for e in errors) / len(errors) for x in limits]


def main(argv):
    args, run, batch, markdown = [], None, 1, False
    it = iter(argv)
    for a in it:
        if a == "--run":
            run = next(it)
        elif a == "--batch":
            batch = int(next(it))
        elif a == "--markdown":
            markdown = True
        else:
            args.append(a)
    if len(args) < 3:
        sys.exit(__doc__)
    binary, devices = args[0], args[1:]
    preds = {d: predict(binary, d, batch) for d in devices}
    name = os.path.basename
    lines = ["| probes | median apart | within 5% | within 10% | most apart |", "|---|---:|---:|---:|---:|"]
    for a, b in itertools.combinations(devices, 2):
        r = [abs(preds[a][m] / preds[b][m] - 1) for m in preds[a] if m in preds[b]]
        w5, w10 = shares(r, [0.05, 0.10])
        lines.append(f"| {name(a)} vs {name(b)} | {100 * statistics.median(r):.1f}% | {100 * w5:.0f}% | "
                     f"{100 * w10:.0f}% | {100 * max(r):.0f}% |")
    if run:
        with open(run) as f:
            measured = {m["name"]: m["measured"] for m in json.load(f)["models"]}
        lines += ["", f"| table | against {name(run)}: median abs error | within 10% | within 25% | models |",
                  "|---|---:|---:|---:|---:|"]
        for d in devices:
            e = [abs(preds[d][m] / measured[m] - 1) for m in measured if m in preds[d]]
            w10, w25 = shares(e, [0.10, 0.25])
            lines.append(f"| {name(d)} | {100 * statistics.median(e):.1f}% | {100 * w10:.0f}% | {100 * w25:.0f}% | "
                         f"{len(e)} |")
    text = "\n".join(lines)
    print(text if markdown else text.replace("|", " ").replace("---:", "").replace("---", ""))


if __name__ == "__main__":
    main(sys.argv[1:])
