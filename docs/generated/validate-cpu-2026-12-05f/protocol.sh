#!/bin/bash
# Issue 30, seventeenth pass: a user's sequence with the reference convolutions in the host
# reference, as the sixteenth pass ran it (its protocol.sh: a probe, then the zoo at batch 1
# with --repeat 4 --max-repeat 8 and batch 8 with --repeat 1, twice, each pair of runs of one
# batch at least 20 minutes apart), with the probe's samples kept.
D=$(realpath "${1:?output folder}")
PROBE_ARGS="--kernel-samples $D/kernel-samples.json" exec "$(dirname "$0")/../validate-cpu-2026-12-05e/protocol.sh" "$D"
