#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a lent GPU machine into .gpu/bundle.tar.xz (ignored by git):
# the CUDA build's rooflens with its cuda plugin (librooflens-cuda.so, found beside it) and
# rooflens_cuda_tests, and the Debian shared libraries they
# link that such a machine lacks (glibc, libstdc++, cuDNN and cuBLAS are the machine's own).
# usage: scripts/gpu-bundle.sh [BUILD_DIR]   (default build-cuda; /work/bin/rlbuild builds ./build)
# It needs BUILD_DIR/rooflens and librooflens-cuda.so (targets rooflens, rooflens_plugin_cuda);
# rooflens_cuda_tests and rooflens_gpu_probe_tests go in when built.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-cuda}
exclude=$(git rev-parse --git-path info/exclude)  # a worktree's too
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >> "$exclude"
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
cp "$build/rooflens" "$build/librooflens-cuda.so" .gpu/bin/
for t in rooflens_cuda_tests rooflens_gpu_probe_tests; do  # the tests travel when built
  if [[ -x $build/tests/$t ]]; then cp "$build/tests/$t" .gpu/bin/; else echo "gpu-bundle: $build/tests/$t not built: left out" >&2; fi
done
strip .gpu/bin/*
for bin in .gpu/bin/*; do
  ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libstdc\+\+|libgcc_s|libcudnn[^/]*|libcublas[^/]*|libcudart[^/]*|libcuda)\.so' \
  | while read -r lib; do cp -L "$lib" .gpu/lib/; done
ls .gpu/lib
# Compressed: what travels to the device machine is limited (64 MiB with the repository).
tar cJf .gpu/bundle.tar.xz -C .gpu bin lib
rm -rf .gpu/bin .gpu/lib
ls -la .gpu/bundle.tar.xz
# What a device call carries: the tracked and untracked-not-ignored files plus the bundle, at
# most 64 MiB. Say so before a call is refused (docs/gpu.md: what to move aside).
tree=$({ git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 -r stat -c %s -- 2>/dev/null |
  awk '{s += $1} END {print s + 0}')
total=$((tree + $(stat -c %s .gpu/bundle.tar.xz)))
echo "gpu-bundle: a device call carries $((total / 1048576)) MiB (the tree $((tree / 1048576)), the bundle)"
if ((total > 64 * 1048576)); then
  echo "gpu-bundle: over the 64 MiB a call carries: move models/timm and docs/generated out of the tree for the call (docs/gpu.md)" >&2
fi
