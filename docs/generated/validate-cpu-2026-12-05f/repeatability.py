# Per-model table of two validate runs of one batch: raw and normalised (as validate reports
# them) and the change between runs. Usage: repeatability.py RUN1 RUN2 > repeatability-bN.md
import json, sys

a = {m["name"]: m for m in json.load(open(sys.argv[1]))["models"]}
b = {m["name"]: m for m in json.load(open(sys.argv[2]))["models"]}
print("| model | run 1 raw | run 2 raw | change raw (%) | run 1 norm. | run 2 norm. | change norm. (%) "
      "| error norm. run 1 (%) | run 2 (%) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in sorted(a):
    if n not in b:
        continue
    x, y = a[n], b[n]
    ch = lambda k: 100 * abs(y[k] / x[k] - 1)
    print(f"| {n} | {x['measured']:.1f} | {y['measured']:.1f} | {ch('measured'):.1f} | {x['normalized']:.1f} | "
          f"{y['normalized']:.1f} | {ch('normalized'):.1f} | {100 * x['error_normalized']:.1f} | "
          f"{100 * y['error_normalized']:.1f} |")
