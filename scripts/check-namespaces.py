#!/usr/bin/env python3
"""The namespace check: every named namespace declared in src/, include/rooflens/ and cli/
follows the scheme of docs/design.md ("Namespaces").

The scheme: a file of module M (src/M/..., include/rooflens/M/..., cli/ is module cli)
declares `rooflens`, `rooflens::M` or a namespace nested in it, or one of the vocabularies
the table below grants M; a nested `detail` namespace and anonymous namespaces are free.

Usage: scripts/check-namespaces.py [ROOT]. Prints "file: namespace N: why" per violation and
exits 1 if there is any; 0 otherwise; 2 if universal-ctags is missing. Reads namespaces with
universal-ctags (already a dependency of check-function-length.sh).
"""
import json
import os
import shutil
import subprocess
import sys

# Vocabularies a module may declare besides rooflens and rooflens::<module>.
EXTRA = {
    "exec": ["rooflens::ref", "rooflens::onednn", "rooflens::cuda"],  # one per backend
    "onnx": ["rooflens::onnx_view", "rooflens::wire"],  # the zero-copy protobuf reader
    "analysis": ["rooflens::doctor"],  # the doctor's checks
    "nas": ["rooflens::pickle"],  # the NATS-Bench pickle reader
    # a plugin defines its entry points in the namespace of the module it loads
    "cli": ["CLI"],  # forward declarations of CLI11's types
    "plugin": ["rooflens::dist", "rooflens::microbench", "rooflens::train", "rooflens::cuda"],
}


def module_of(path):
    parts = path.split("/")
    if parts[0] == "cli":
        return "cli"
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ["include", "rooflens"] and len(parts) > 3:
        return parts[2]
    return None


def allowed(module, name):
    parts = name.split("::")
    if parts[-1] == "detail" and len(parts) > 1:
        return allowed(module, "::".join(parts[:-1]))
    own = "rooflens::" + module
    if name == "rooflens" or name == own or name.startswith(own + "::"):
        return True
    return any(name == e or name.startswith(e + "::") for e in EXTRA.get(module, []))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    if not shutil.which("ctags"):
        print("check-namespaces: ctags not found (Debian: apt-get install universal-ctags)", file=sys.stderr)
        return 2
    os.chdir(root)
    files = []
    for top in ("src", "include/rooflens", "cli"):
        for d, _, names in os.walk(top):
            files += [os.path.join(d, n) for n in names if n.endswith((".h", ".cpp", ".cu", ".cuh"))]
    out = subprocess.run(["ctags", "--output-format=json", "--kinds-C++=n", "--fields=+s", "--language-force=C++",
                          "-f", "-"] + sorted(files), capture_output=True, text=True, check=True).stdout
    bad = 0
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag["name"].startswith("__anon"):
            continue
        name = (tag["scope"] + "::" + tag["name"]) if tag.get("scope") else tag["name"]
        module = module_of(tag["path"])
        if module and not allowed(module, name):
            print(f"{tag['path']}: namespace {name}: module {module} declares rooflens, rooflens::{module}"
                  f"{''.join(', ' + e for e in EXTRA.get(module, []))} (docs/design.md, Namespaces)")
            bad += 1
    if bad:
        print(f"check-namespaces: {bad} namespace(s) outside the scheme", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
