# Correlations of anchor-loop.csv: per iteration, each model's log throughput against the two
# fixed convolutions' (c3x3, c1x1) and against the host reference read around the model's runs.
import csv, math, sys, collections
runs = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "anchor-loop.csv")):
    runs[int(r["iteration"])][r["model"]] = {k: float(v) for k, v in r.items() if k not in ("iteration", "model")}
def pearson(a, b):
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    sa = math.sqrt(sum((x - ma) ** 2 for x in a)); sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb)
# Iterations 65-69 (02:29 UTC on) ran while a build of ours started beside them (the FMA loop
# read 164-239 GFLOP/s where it read 417-477 before): left out.
ids = sorted(i for i in runs if len(runs[i]) == 5 and i < 65)
print("iterations", len(ids))
for m in ("resnet34", "mobilenet_v2", "efficientnet_b0"):
    y = [math.log(runs[i][m]["images_per_s"]) for i in ids]
    out = [m, "spread %.3f" % (max(y) - min(y))]
    for a in ("c3x3", "c1x1"):
        out.append("%s r=%.2f" % (a, pearson([math.log(runs[i][a]["images_per_s"]) for i in ids], y)))
    for k in ("fma_flops", "clock_hz", "triad_bytes_per_s", "gemm_flops"):
        out.append("%s r=%.2f" % (k, pearson([math.log(runs[i][m][k]) for i in ids], y)))
    print(" ".join(out))
