#!/usr/bin/env bash
# Installs every Debian package rooflens needs to build and test.
# Idempotent: packages already present are skipped; apt runs only when something is missing.
# Usage: scripts/install-deps.sh [--with-fixtures] [--with-venv]
#   --with-fixtures: python3-torch etc., only to regenerate models/
#   --with-venv: the PyPI packages of scripts/venv-requirements.txt (peers, fixture tools) in a
#     virtualenv outside the repository, $ROOFLENS_VENV (default /opt/rooflens-venv), built on
#     Debian's python3 with its site packages visible; nothing is installed there at run time.
set -euo pipefail
WITH_FIXTURES=0
WITH_VENV=0
for arg in "$@"; do
  case "$arg" in
    --with-fixtures) WITH_FIXTURES=1 ;;
    --with-venv) WITH_VENV=1 ;;
    *) echo "install-deps: unknown option $arg (use --with-fixtures, --with-venv)" >&2; exit 2 ;;
  esac
done

PKGS=(
  build-essential cmake pkg-config
  universal-ctags  # scripts/check-function-length.sh (CI and `make test`)
  clang-format  # scripts/check-format.sh (CI and `make test`): Debian 12's is version 14, the tree's
  libonnx-dev libprotobuf-dev protobuf-compiler
  libdnnl-dev ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers
  nlohmann-json3-dev libfmt-dev libcli11-dev
  libmimalloc-dev  # the programs' allocator (CMakeLists.txt, ROOFLENS_WITH_MIMALLOC)
  libbz2-dev  # NATS-Bench data files (src/nas/nats_data.cpp)
  libtorch-dev zlib1g-dev  # training oracle (src/train, `--oracle train:...`): LibTorch CPU; zlib reads the gzip IDX files. Without libtorch-dev it builds as a stub
  libopenmpi-dev openmpi-bin  # `mpirun -n N rooflens nas --oracle train:...` (src/dist, the mpi plugin); without them training runs in one process
  libsqlite3-dev  # the training oracle's results database (src/store, `rooflens nas --db`, `rooflens nas-db`)
  dataset-fashion-mnist  # the training oracle's data: gzip IDX files in /usr/share/datasets/fashion-mnist/ (its tests skip without them)
  libturbojpeg0-dev  # `rooflens probe jpeg`: JPEG decode rate per core (src/microbench/jpeg_decode.cpp); optional at build time
  libgtest-dev libgmock-dev  # GoogleTest (GMock ships with it); benchmarks are the bench/ scripts, no Google Benchmark
  clang libclang-rt-14-dev  # `make fuzz` (scripts/run-fuzz.sh): libFuzzer, libclang_rt.fuzzer-x86_64.a
  python3-dev pybind11-dev python3-pytest  # the Python module (python/, docs/python.md) and its pytest suite; without them it is not built
  python3-onnx
  chromium  # headless browser check of the study HTML report (tests/report); the test skips without it
)
if ((WITH_VENV)); then PKGS+=(python3-venv python3-pip); fi
if ((WITH_FIXTURES)); then
  PKGS+=(python3-torch python3-torchvision libopenblas0-openmp)
fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PKGS[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ((WITH_VENV)); then
  VENV=${ROOFLENS_VENV:-/opt/rooflens-venv}
  REQ="$(dirname "$0")/venv-requirements.txt"
  stamp="$VENV/.rooflens-requirements"
  if [[ -f "$stamp" ]] && cmp -s "$stamp" "$REQ"; then
    echo "install-deps: venv $VENV up to date"
  else
    echo "install-deps: venv $VENV from $REQ"
    $SUDO /usr/bin/python3 -m venv --system-site-packages "$VENV"
    $SUDO "$VENV/bin/pip" install -q -r "$REQ"
    $SUDO cp "$REQ" "$stamp"
  fi
fi
