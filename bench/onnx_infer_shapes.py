#!/usr/bin/python3
"""Baseline for bench/analyze_zoo_vs_onnx.sh: Python onnx on the same files.

For every file given: onnx.load(path, load_external_data=False), then
onnx.shape_inference.infer_shapes(model).  The in-process time is measured with
time.perf_counter() around that loop only, i.e. AFTER the interpreter has
started and `import onnx` has run; file sizes are read outside the timed loop.

Prints one JSON object on stdout:
  {"tool": "onnx", "onnx_version": ..., "python_version": ...,
   "files": N, "bytes": total file size, "nodes": total graph nodes,
   "value_info": total value_info entries after inference,
   "elapsed_s": in-process seconds (load + infer_shapes, all files),
   "load_s": part spent in onnx.load, "infer_s": part spent in infer_shapes,
   "errors": [{"file": ..., "error": ...}, ...]}
Exit status 0, or 1 if any file raised (the JSON is still printed), 2 on usage.

Run with the Debian interpreter: /usr/bin/python3 bench/onnx_infer_shapes.py models/*.onnx
"""

import json
import os
import platform
import sys
import time

import onnx
import onnx.shape_inference


def main(argv):
    paths = argv[1:]
    if not paths or any(p in ("-h", "--help") for p in paths):
        sys.stderr.write("usage: %s MODEL.onnx...\n" % os.path.basename(argv[0]))
        return 2
    total_bytes = sum(os.path.getsize(p) for p in paths)  # outside the timed loop

    errors = []
    nodes = 0
    value_info = 0
    load_s = 0.0
    infer_s = 0.0
    t0 = time.perf_counter()
    for p in paths:
        try:
            a = time.perf_counter()
            model = onnx.load(p, load_external_data=False)
            b = time.perf_counter()
            inferred = onnx.shape_inference.infer_shapes(model)
            c = time.perf_counter()
        except Exception as e:  # noqa: BLE001 -- report, keep going
            errors.append({"file": p, "error": "%s: %s" % (type(e).__name__, e)})
            continue
        load_s += b - a
        infer_s += c - b
        nodes += len(inferred.graph.node)
        value_info += len(inferred.graph.value_info)
    elapsed = time.perf_counter() - t0

    json.dump({
        "tool": "onnx",
        "onnx_version": onnx.__version__,
        "python_version": platform.python_version(),
        "files": len(paths),
        "bytes": total_bytes,
        "nodes": nodes,
        "value_info": value_info,
        "elapsed_s": elapsed,
        "load_s": load_s,
        "infer_s": infer_s,
        "errors": errors,
    }, sys.stdout)
    sys.stdout.write("\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
