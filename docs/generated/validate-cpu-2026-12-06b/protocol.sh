#!/bin/bash
# Issue 30, nineteenth pass: the sequence of the sixteenth to eighteenth passes (a probe with
# the table's in-network level, now by position; the zoo at batch 1 with --repeat 4
# --max-repeat 8 and at batch 8 with --repeat 1, twice, each pair of one batch at least 20
# minutes apart), the probe's samples kept.
D=$(realpath "${1:?output folder}")
PROBE_ARGS="--kernel-samples $D/kernel-samples.json" exec "$(dirname "$0")/../validate-cpu-2026-12-05e/protocol.sh" "$D"
