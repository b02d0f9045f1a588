#!/usr/bin/env bash
# The CPU peer: `rooflens measure` against ONNX Runtime's CPU execution provider (the
# onnxruntime wheel in /opt/rooflens-venv), alternating per model. A thin wrapper kept for the
# name; the bench is bench/peer_ort.py (its docstring has the usage and the method).
# usage: [THREADS=2] [MAX_SECONDS=10] [REPEATS=3] [MODELS="..."] [BATCHES="1 32"] [PROFILE=1] \
#          [LAYOUT=auto] [DENORMALS=flush] bench/peer_ort.sh ROOFLENS_BINARY [--markdown] [--json FILE]
set -euo pipefail
PY=${ROOFLENS_VENV:-/opt/rooflens-venv}/bin/python
[[ -x $PY ]] || { echo "peer_ort: $PY is missing: run scripts/install-deps.sh --with-venv" >&2; exit 2; }
exec "$PY" "$(dirname "$0")/peer_ort.py" "$@"
