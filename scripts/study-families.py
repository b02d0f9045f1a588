#!/usr/bin/python3
"""Per-family summary of a study CSV (rooflens study --report DIR writes DIR/study.csv).

Families come from models/zoo.json and, for the models a `--zoo timm` or `--zoo all` study
names `timm/<name>`, from models/timm/zoo.json (printed as `timm/<family>`). Prints, per family: models, median aggregate AI, how
many sit above the CMR, median utilization (datasheet peak), accuracy range, and the models
on each frontier. Used for docs/study.md's transformer section.

Usage: scripts/study-families.py STUDY_CSV [--families vit,swin,...]
"""
import argparse
import csv
import json
import os
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--families", default="")
    args = ap.parse_args()
    zoo = json.load(open(os.path.join(ROOT, "models", "zoo.json")))
    family = {m["name"]: m.get("family", "?") for m in zoo["models"]}
    timm_path = os.path.join(ROOT, "models", "timm", "zoo.json")
    if os.path.exists(timm_path):
        for m in json.load(open(timm_path))["models"]:
            family["timm/" + m["name"]] = "timm/" + m.get("family", "?")
    rows = list(csv.DictReader(open(args.csv)))
    want = set(args.families.split(",")) if args.families else None
    groups = {}
    for r in rows:
        f = family.get(r["model"], "?")
        if want and f not in want:
            continue
        groups.setdefault(f, []).append(r)
    util_key = "utilization datasheet peak (%)"
    print("%-14s %3s %9s %7s %9s %11s  %s" % ("family", "n", "AI med", ">CMR", "util med", "acc@1", "frontiers (tu/at/au)"))
    for f in sorted(groups):
        g = groups[f]
        ai = statistics.median(float(r["AI (FLOP/B)"]) for r in g)
        above = sum(r["AI vs CMR"] == "above" for r in g)
        util = statistics.median(float(r[util_key]) for r in g)
        accs = [float(r["acc@1 (%)"]) for r in g if r["acc@1 (%)"]]
        fr = []
        for key, tag in (("frontier throughput-utilization", "tu"), ("frontier accuracy-throughput", "at"),
                         ("frontier accuracy-utilization", "au")):
            on = [r["model"] for r in g if r[key] == "yes"]
            if on:
                fr.append("%s: %s" % (tag, " ".join(on)))
        print("%-14s %3d %9.1f %4d/%-2d %9.2f %5.1f-%-5.1f  %s"
              % (f, len(g), ai, above, len(g), util, min(accs) if accs else 0, max(accs) if accs else 0,
                 "; ".join(fr)))


if __name__ == "__main__":
    main()
