#!/usr/bin/python3
"""Per-layer comparison of `rooflens measure --format json` with an ONNX Runtime profile.

usage: bench/ort_layers.py MEASURE.json ORT_PROFILE.json [--top N]

ORT_PROFILE is what `PROFILE=1 bench/peer_ort.sh` (or `bench/peer_ort.py --ort-infer ... PREFIX`)
writes: Chrome-trace events, one per node per run, warm-up runs included. A node's time is the
median over its events, so warm-up runs do not count.

Prints (1) time per kind of work on each side, (2) the convolutions matched one to one in
execution order (ONNX Runtime never merges two convolutions, nor does rooflens), with the
largest differences first. Not a test: a tool for finding where time goes.
"""
import collections
import json
import statistics
import sys


def ort_nodes(path):
    events = json.load(open(path))
    order, times, ops = [], collections.defaultdict(list), {}
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        name = e["name"][: -len("_kernel_time")]
        if name not in times:
            order.append(name)
        times[name].append(e["dur"] * 1e-6)
        ops[name] = e.get("args", {}).get("op_name", "?")
    return [(n, ops[n], statistics.median(times[n])) for n in order]


def kind_of(op):
    head = op.split("+")[0]
    if head in ("Conv", "FusedConv", "NchwcConv"):
        return "conv"
    if head in ("Gemm", "MatMul", "FusedMatMul", "FusedGemm"):
        return "gemm"
    if head in ("ReorderInput", "ReorderOutput", "reorder"):
        return "layout"
    if "Pool" in head or head == "ReduceMean":
        return "pool"
    if head in ("Concat",):
        return "concat"
    if head in ("Reshape", "Flatten", "Transpose", "Slice", "Split", "Pad", "Squeeze", "Unsqueeze"):
        return "move"
    return "eltwise"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 15
    ours = json.load(open(sys.argv[1]))["layers"]
    theirs = ort_nodes(sys.argv[2])
    by_kind = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
    for L in ours:
        k = by_kind[kind_of(L["op"])]
        k[0] += L["time_s"]
        k[2] += 1
    for _, op, t in theirs:
        k = by_kind[kind_of(op)]
        k[1] += t
        k[3] += 1
    print(f"{'kind':10} {'rooflens ms':>12} {'(layers)':>9} {'ORT ms':>9} {'(nodes)':>8} {'ratio':>6}")
    tot = [0.0, 0.0]
    for kind, (a, b, na, nb) in sorted(by_kind.items(), key=lambda kv: -max(kv[1][0], kv[1][1])):
        tot[0] += a
        tot[1] += b
        print(f"{kind:10} {a * 1e3:12.3f} {na:9d} {b * 1e3:9.3f} {nb:8d} {a / b if b else float('inf'):6.2f}")
    print(f"{'total':10} {tot[0] * 1e3:12.3f} {'':9} {tot[1] * 1e3:9.3f} {'':8} {tot[0] / tot[1]:6.2f}")
    ac = [L for L in ours if kind_of(L["op"]) == "conv"]
    bc = [n for n in theirs if kind_of(n[1]) == "conv"]
    if len(ac) != len(bc):
        print(f"\nconvolutions: {len(ac)} layers here, {len(bc)} nodes in ONNX Runtime; not matched")
        return
    pairs = sorted(zip(ac, bc), key=lambda p: -(p[0]["time_s"] - p[1][2]))
    print(f"\nconvolutions matched in order, largest excess first (top {top}):")
    print(f"{'rooflens layer':48} {'impl':24} {'ms':>7} {'ORT ms':>7} {'ORT op':>10}")
    for L, (name, op, t) in pairs[:top]:
        print(f"{L['name'][:48]:48} {L['impl'][:24]:24} {L['time_s'] * 1e3:7.3f} {t * 1e3:7.3f} {op:>10}")


if __name__ == "__main__":
    main()
