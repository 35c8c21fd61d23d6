#!/usr/bin/env bash
# The 2-4 plan of dtb plan through `snakemake --slurm` on a single-node Slurm brought up on this
# machine (scripts/slurm-local.sh: munged, slurmctld, slurmd, stopped by PID at the end): the
# same bytes as dtb gen (REFERENCE, the db4 fixture).
# Usage: workflow_slurm.sh DTB REFERENCE WORKDIR
set -euo pipefail
dtb=$1
reference=$2
work=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export USER=${USER:-$(id -un)}  # Snakemake 7 needs it
export XDG_CACHE_HOME=$3/cache  # Snakemake's cache, not shared with another run at once
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

trap 'bash "$root/scripts/slurm-local.sh" stop "$work/slurm"' EXIT
eval "$(bash "$root/scripts/slurm-local.sh" start "$work/slurm")"
[ -n "${SLURM_CONF:-}" ] || fail "the local Slurm printed no SLURM_CONF"

"$dtb" plan --pieces 4 --group-pieces 3 --task-threads 1 --out "$work/db" 2>/dev/null
# Accounting is off: the partition is named, and job states come from scontrol.
(cd "$work/db" && snakemake --slurm --jobs 4 --default-resources slurm_partition=dtb \
   --max-status-checks-per-second 1 --latency-wait 10 >"$work/snakemake.log" 2>&1) ||
  { tail -n 40 "$work/snakemake.log"; tail -n 20 "$work/slurm/slurmctld.log"; fail "snakemake --slurm"; }

n=0
for f in "$reference"/*.wdl; do
  cmp -s "$f" "$work/db/$(basename "$f")" || fail "$(basename "$f") differs from dtb gen's"
  n=$((n + 1))
done
[ "$(ls "$work"/db/*.wdl | wc -l)" = "$n" ] || fail "not the same set of files as dtb gen"
jobs=$(grep -c "has been submitted with SLURM jobid" "$work/snakemake.log" || true)
[ "$jobs" -ge 10 ] || fail "only $jobs jobs submitted to Slurm"
echo "workflow_slurm: $jobs Slurm jobs, the same $n files as dtb gen"
