# Issue 30, eighteenth pass: each validate run's fidelity with the table's in-network level (as
# validate reports it) and without it (the prediction divided by the level at the run's batch),
# raw and normalised by the reference's convolutions; the functions are the seventeenth pass's
# (../validate-cpu-2026-12-05f/normalisations.py). Usage: levels.py DEVICE_JSON RUN_JSON...
import json, math, os, runpy, sys

here = os.path.dirname(os.path.abspath(__file__))
argv, sys.argv = sys.argv, sys.argv[:2]  # its own report needs runs: given none, it prints nothing
ns = runpy.run_path(os.path.join(here, "../validate-cpu-2026-12-05f/normalisations.py"), run_name="levels")
sys.argv = argv


def level_at(levels, batch):
    if not levels:
        return 1.0
    if batch <= levels[0]["batch"]:
        return levels[0]["level"]
    if batch >= levels[-1]["batch"]:
        return levels[-1]["level"]
    for a, b in zip(levels, levels[1:]):
        if a["batch"] <= batch <= b["batch"]:
            w = (math.log(batch) - math.log(a["batch"])) / (math.log(b["batch"]) - math.log(a["batch"]))
            return a["level"] + w * (b["level"] - a["level"])


device = json.load(open(sys.argv[1]))
levels = device["kernel_table"].get("network_levels", [])
print("levels:", ", ".join(f"batch {l['batch']}: {l['level']:.3f} ({l['networks']} networks, spread "
                            f"{100 * l['spread']:.0f}%)" for l in levels))
base = ns["baseline"](sys.argv[1])
for f in sys.argv[2:]:
    run = json.load(open(f))
    lv = level_at(levels, run["batch"])
    models = ns["per_model"](run, base)
    print(f"{f} (batch {run['batch']}, level {lv:.3f}, {len(models)} models)")
    for key in ("raw", "kernels"):
        print(f"  {key:8s} with level   : {ns['fidelity'](models, key)}")
        plain = {n: dict(v, pred=v["pred"] * lv) for n, v in models.items()}  # throughput x level = no level
        print(f"  {key:8s} without level: {ns['fidelity'](plain, key)}")
