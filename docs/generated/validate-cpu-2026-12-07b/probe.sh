#!/bin/bash
# Issue 30, twenty-seventh pass, on the Zen 3 (AVX2) 2-vCPU guest: the in-network level keeps
# every generated network (network_level_of: a network with no round in the table's dispatch
# state counts with all its rounds) and has a transformer among them. A fresh probe with that
# binary. (first/: the probe of the first change alone, 04:58-05:11 UTC.)
D=$(realpath "${1:?output folder}")
cd "$(dirname "$D")/../.."
s=$(date +%s)
./build/rooflens probe cpu --kernels --out $D/device-probe.json --kernel-samples $D/kernel-samples.json > $D/probe.txt 2>&1
echo "probe $(date -u -d @$s) - $(date -u)" >> $D/meas.times
