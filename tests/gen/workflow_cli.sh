#!/usr/bin/env bash
# dtb plan and dtb gen --task from the command line, with the real engines: the 2-4 plan run by
# make -j2 and by Snakemake gives the bytes of dtb gen (REFERENCE, the db4 fixture); a task is
# idempotent, names a missing input, refuses to run twice at once or beside a whole-folder build;
# a task killed under Snakemake (a whole pair, or a slice) resumes on the rerun with the same
# bytes; a plan of sliced pairs gives the same bytes too.
# Usage: workflow_cli.sh DTB REFERENCE WORKDIR
set -euo pipefail
dtb=$1
reference=$2
work=$3
export USER=${USER:-$(id -un)}  # Snakemake 7 needs it
export XDG_CACHE_HOME=$3/cache  # Snakemake's cache, not shared with another run at once
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd -P)
fail() { echo "FAIL: $*"; exit 1; }

expect_code() {  # expected-code description command...
  local want=$1 what=$2; shift 2
  set +e; "$@" >"$work/out" 2>"$work/err"; local got=$?; set -e
  [ "$got" = "$want" ] || fail "$what: exit $got, expected $want; stderr: $(cat "$work/err")"
}

kill_tree() {  # pid: the process and its descendants (a flock holding a lock runs its command as a child)
  local child
  for child in $(pgrep -P "$1" || true); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}

same_as_reference() {  # folder description
  local n=0
  for f in "$reference"/*.wdl; do
    cmp -s "$f" "$1/$(basename "$f")" || fail "$2: $(basename "$f") differs from dtb gen's"
    n=$((n + 1))
  done
  [ "$(ls "$1"/*.wdl | wc -l)" = "$n" ] || fail "$2: not the same set of files as dtb gen"
  ls "$1"/*.tmp >/dev/null 2>&1 && fail "$2: temporary files left"
  ls -d "$1"/.dtb-spill* >/dev/null 2>&1 && fail "$2: scratch copies left"
  return 0
}

# The plan: one group task of 2-3 pieces, one task per 4-piece pair.
expect_code 0 "plan" "$dtb" plan --pieces 4 --group-pieces 3 --out "$work/make"
for f in plan.tsv Makefile Snakefile; do [ -s "$work/make/$f" ] || fail "dtb plan wrote no $f"; done
tasks=$(($(wc -l <"$work/make/plan.tsv") - 2))
[ "$tasks" -gt 10 ] || fail "only $tasks tasks"

# Materials as separate words or as one comma-separated list: the same plan.
expect_code 0 "plan of listed materials" "$dtb" plan --pieces 4 --group-pieces 3 --material KKvKK KMvKM --out "$work/listed"
expect_code 0 "plan of comma-separated materials" "$dtb" plan --pieces 4 --group-pieces 3 --material KKvKK,KMvKM --out "$work/commas"
cmp -s "$work/listed/plan.tsv" "$work/commas/plan.tsv" || fail "a comma-separated --material gives another plan"
grep -q "^KMvKM	" "$work/commas/plan.tsv" || fail "no task KMvKM in the comma-separated plan"

# make -j2: the same bytes as dtb gen.
(cd "$work/make" && make -j2 TASK_THREADS=1 >"$work/make.log" 2>&1) || { cat "$work/make.log"; fail "make -j2"; }
same_as_reference "$work/make" "make -j2"
(cd "$work/make" && make -q) || fail "make sees work left after a full run"

# A finished task does nothing; one that does not exist or with options the plan fixes is refused.
expect_code 0 "a finished task" "$dtb" gen --task KKvKK --out "$work/make"
grep -q "finished already" "$work/err" || fail "a finished task did not say so: $(cat "$work/err")"
expect_code 2 "an unknown task" "$dtb" gen --task KXvK --out "$work/make"
expect_code 2 "--task with --pieces" "$dtb" gen --task KKvKK --pieces 4 --out "$work/make"
expect_code 3 "--task without a plan" "$dtb" gen --task KKvKK --out "$work/nowhere"
expect_code 0 "verify --task" "$dtb" verify --task KKvKK --db "$work/make"
grep -q "^ok" "$work/out" || fail "verify --task: $(cat "$work/out")"

# A task whose input is missing stops before any work, naming the file.
expect_code 0 "second plan" "$dtb" plan --pieces 4 --group-pieces 3 --out "$work/partial"
expect_code 3 "a task without its inputs" "$dtb" gen --task KKvKK --out "$work/partial"
grep -q "KvKK.wdl: missing" "$work/err" || fail "the missing input is not named: $(cat "$work/err")"
ls "$work/partial"/*.wdl >/dev/null 2>&1 && fail "a task without its inputs wrote something"

# One task at a time per task; tasks beside a whole-folder build are refused, and the reverse.
expect_code 0 "the group task" "$dtb" gen --task upto3 --out "$work/partial"
# A running task KKvKK, as far as the locks go: the folder's lock shared, its own exclusive.
flock -s "$work/partial/.dtb-gen.lock" flock "$work/partial/.dtb-task-KKvKK.lock" sleep 30 & holder=$!
sleep 0.5
expect_code 3 "the same task twice" "$dtb" gen --task KKvKK --out "$work/partial"
grep -q "task KKvKK is running already" "$work/err" || fail "second run of a task: $(cat "$work/err")"
expect_code 3 "a whole build beside a task" "$dtb" gen --pieces 4 --out "$work/partial"
grep -q "another dtb gen or dtb upgrade is writing" "$work/err" || fail "whole build beside a task: $(cat "$work/err")"
expect_code 0 "another task beside it" "$dtb" gen --task KvKKK --out "$work/partial"
[ -e "$work/partial/.dtb-task-KvKKK.lock" ] && fail "a finished task left its lock file"
kill_tree "$holder"; wait "$holder" 2>/dev/null || true
flock "$work/partial/.dtb-gen.lock" sleep 30 & holder=$!
sleep 0.5
expect_code 3 "a task beside a whole build" "$dtb" gen --task KKvKK --out "$work/partial"
grep -q "whole folder or a dtb upgrade is writing" "$work/err" || fail "task beside a whole build: $(cat "$work/err")"
kill_tree "$holder"; wait "$holder" 2>/dev/null || true

# A task whose input is corrupt (a byte of its last block flipped) or truncated (no whole header)
# stops naming the file, and writes nothing of its own.
cp -r "$work/partial" "$work/corrupt"
[ -e "$work/corrupt/KKvKK.wdl" ] && fail "KKvKK built before its test"
python3 - "$work/corrupt/KvKK.wdl" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[-20] ^= 0xFF
open(sys.argv[1], "wb").write(data)
EOF
expect_code 3 "a task with a corrupt input" "$dtb" gen --task KKvKK --out "$work/corrupt"
grep -q "KvKK.wdl: block .* is corrupt" "$work/err" || fail "the corrupt input is not named: $(cat "$work/err")"
[ -e "$work/corrupt/KKvKK.wdl" ] && fail "a task with a corrupt input wrote its file"
ls "$work/corrupt"/*.tmp >/dev/null 2>&1 && fail "a task with a corrupt input left a temporary file"
truncate -s 100 "$work/corrupt/KvKK.wdl"
expect_code 3 "a task with a truncated input" "$dtb" gen --task KKvKK --out "$work/corrupt"
grep -q "KvKK.wdl: truncated file" "$work/err" || fail "the truncated input is not named: $(cat "$work/err")"

# A sliced plan: each 4-piece pair with men in three slice tasks, then its files written from the
# slice files; make and Snakemake give the bytes of dtb gen and remove the slice files.
expect_code 0 "sliced plan" "$dtb" plan --pieces 4 --group-pieces 3 --slices 3 --out "$work/sliced"
grep -q "^KvKKM.s3	" "$work/sliced/plan.tsv" || fail "no slice task KvKKM.s3 in the sliced plan"
grep -q "^KvKKM	.*	.dtb-slices/KvKKM.levels-6-8,.dtb-slices/KvKKM.levels-3-5,.dtb-slices/KvKKM.levels-0-2	KvKKM.wdl,KKMvK.wdl	" "$work/sliced/plan.tsv" ||
  fail "the task KvKKM does not write the pair from its slices: $(grep '^KvKKM	' "$work/sliced/plan.tsv")"
cp -r "$work/sliced" "$work/sliced-snake"
(cd "$work/sliced" && make -j2 TASK_THREADS=1 >"$work/sliced.log" 2>&1) || { cat "$work/sliced.log"; fail "make -j2, sliced"; }
same_as_reference "$work/sliced" "make -j2 of a sliced plan"
ls "$work/sliced"/.dtb-task-*.lock >/dev/null 2>&1 && fail "tasks left their lock files"
ls "$work/sliced/.dtb-slices"/* >/dev/null 2>&1 && fail "make left slice files"
(cd "$work/sliced" && make -q) || fail "make sees work left after a full sliced run"
(cd "$work/sliced-snake" && snakemake --cores 2 --quiet >"$work/sliced-snake.log" 2>&1) ||
  { cat "$work/sliced-snake.log"; fail "snakemake, sliced"; }
same_as_reference "$work/sliced-snake" "snakemake of a sliced plan"
ls "$work/sliced-snake/.dtb-slices"/* >/dev/null 2>&1 && fail "snakemake left slice files"

# A plan under a budget of 2 MiB: the pairs are sliced as needed, each task runs under the
# plan's budget (so it reads the tables beyond it through a block cache), and the bytes are the same.
expect_code 0 "plan under a budget" "$dtb" plan --pieces 4 --group-pieces 3 --memory 0.002 --out "$work/budget"
head -n 1 "$work/budget/plan.tsv" | grep -q "memory_mb=2" || fail "the plan does not record its budget"
grep -q "^KvKKM.s2	" "$work/budget/plan.tsv" || fail "no pair sliced under a budget of 2 MiB"
# Its estimate warns of the tasks over the budget as the plan does: a pair's slices and the task
# writing it from them on lines of their own, never more slice tasks than the pair has.
expect_code 0 "estimate under a budget" "$dtb" plan --pieces 4 --group-pieces 3 --memory 0.002 --estimate
grep -q "are estimated over --memory 2.0 MiB" "$work/err" || fail "no summary of the tasks over budget: $(cat "$work/err")"
grep -q "^warning: task KMvMM estimated at .* it writes the pair from its [0-9]* slice files" "$work/err" ||
  fail "the task writing KMvMM is not named: $(cat "$work/err")"
sed -n 's/^warning: \([0-9]*\) slice tasks\{0,1\} of [A-Za-z]* (of \([0-9]*\)).*/\1 \2/p' "$work/err" | while read -r over all; do
  [ "$over" -le "$all" ] || fail "$over slice tasks over the budget of a pair of $all: $(cat "$work/err")"
done
(cd "$work/budget" && make -j2 TASK_THREADS=1 >"$work/budget.log" 2>&1) || { cat "$work/budget.log"; fail "make -j2 under a budget"; }
grep -q "read through a block cache" "$work/budget.log" || fail "the tasks did not run under the plan's budget"
same_as_reference "$work/budget" "make -j2 of a plan under a budget"

# Slice tasks by hand: one whose slice before it is missing stops, naming that file; a finished
# one does nothing; a slice is verified through its pair's task.
expect_code 0 "sliced plan by hand" "$dtb" plan --pieces 4 --group-pieces 3 --slices 3 --out "$work/by-hand"
expect_code 0 "the group task, sliced plan" "$dtb" gen --task upto3 --out "$work/by-hand"
expect_code 0 "KvKKK, sliced plan" "$dtb" gen --task KvKKK --out "$work/by-hand"
expect_code 3 "slice 2 before slice 1" "$dtb" gen --task KvKKM.s2 --out "$work/by-hand"
grep -q ".dtb-slices/KvKKM.levels-6-8: missing" "$work/err" || fail "the missing slice is not named: $(cat "$work/err")"
expect_code 3 "the pair before its slices" "$dtb" gen --task KvKKM --out "$work/by-hand"
for k in 1 2 3; do expect_code 0 "slice $k" "$dtb" gen --task "KvKKM.s$k" --out "$work/by-hand"; done
expect_code 0 "slice 3 again" "$dtb" gen --task KvKKM.s3 --out "$work/by-hand"
grep -q "finished already" "$work/err" || fail "a finished slice task did not say so: $(cat "$work/err")"
expect_code 0 "the pair from its slices" "$dtb" gen --task KvKKM --out "$work/by-hand"
for f in KvKKM.wdl KKMvK.wdl; do cmp -s "$reference/$f" "$work/by-hand/$f" || fail "$f from slice tasks by hand differs"; done
expect_code 0 "verify the pair's task" "$dtb" verify --task KvKKM --db "$work/by-hand"
checked() { sed -n 's/^ok	positions checked \([0-9]*\)	.*/\1/p' "$work/out"; }
pair_checked=$(checked)
[ -n "$pair_checked" ] && [ "$pair_checked" -gt 0 ] || fail "verify --task KvKKM: $(cat "$work/out")"
# Each slice task checks its slice's positions in the pair's files: together, the pair's.
sum=0
for k in 1 2 3; do
  expect_code 0 "verify slice $k" "$dtb" verify --task "KvKKM.s$k" --db "$work/by-hand"
  n=$(checked)
  [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$pair_checked" ] || fail "verify --task KvKKM.s$k: $(cat "$work/out")"
  sum=$((sum + n))
done
[ "$sum" = "$pair_checked" ] || fail "the slices checked $sum positions, the pair $pair_checked"

# More slices than levels: KvKKM (one man, 9 levels) in 12, its largest levels cut into parts, each
# part reading the files of the level above it. By hand, a slice after another: the pair's bytes,
# and the slices' checks add up to the pair's again.
expect_code 0 "plan in parts" "$dtb" plan --pieces 4 --group-pieces 3 --slices 12 --out "$work/by-parts"
grep -q "^KvKKM.s[0-9]*	.*\.part-2-of-2" "$work/by-parts/plan.tsv" || fail "no part of a level in the plan: $(grep '^KvKKM' "$work/by-parts/plan.tsv")"
expect_code 0 "the group task, plan in parts" "$dtb" gen --task upto3 --out "$work/by-parts"
expect_code 0 "KvKKK, plan in parts" "$dtb" gen --task KvKKK --out "$work/by-parts"
for k in $(seq 1 12); do expect_code 0 "part slice $k" "$dtb" gen --task "KvKKM.s$k" --out "$work/by-parts"; done
expect_code 0 "the pair from its parts" "$dtb" gen --task KvKKM --out "$work/by-parts"
for f in KvKKM.wdl KKMvK.wdl; do cmp -s "$reference/$f" "$work/by-parts/$f" || fail "$f from parts of levels differs"; done
sum=0
for k in $(seq 1 12); do
  expect_code 0 "verify part slice $k" "$dtb" verify --task "KvKKM.s$k" --db "$work/by-parts"
  n=$(checked)
  [ -n "$n" ] && [ "$n" -lt "$pair_checked" ] || fail "verify --task KvKKM.s$k in parts: $(cat "$work/out")"
  sum=$((sum + n))
done
[ "$sum" = "$pair_checked" ] || fail "the parts checked $sum positions, the pair $pair_checked"

# Snakemake on this machine, with a task killed half-way: the run fails, the rerun resumes, and
# the files are dtb gen's. A task of this run (other tests may run tasks too), found by its
# working folder and its command line (extended regex), is killed the moment it is seen: a task of
# the native build can finish within a fraction of a second, and a kill that comes after its end
# kills nothing. pgrep -f does not list a finished task (a zombie has no command line), which
# leaves microseconds between the listing and the kill.
kill_and_rerun_under_snakemake() {  # dir, task pattern, what
  local dir=$1 pattern=$2 what=$3 engine victim="" pid
  (cd "$dir" && exec snakemake --cores 1 >"$dir.log" 2>&1) & engine=$!
  for _ in $(seq 1200); do
    for pid in $(pgrep -f -- "gen --task $pattern --out \. " || true); do
      [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$dir" ] && kill -9 "$pid" 2>/dev/null && { victim=$pid; break; }
    done
    [ -n "$victim" ] && break
    sleep 0.05
  done
  [ -n "$victim" ] || fail "$what: no such task seen running under snakemake"
  wait "$engine" && fail "$what: snakemake succeeded although a task was killed"
  grep -q "Error in rule task_" "$dir.log" || fail "$what: snakemake did not report the killed task: $(tail -n 5 "$dir.log")"
  (cd "$dir" && snakemake --cores 2 --quiet --rerun-incomplete >"$dir-rerun.log" 2>&1) ||
    { cat "$dir-rerun.log"; fail "$what: snakemake rerun"; }
  same_as_reference "$dir" "snakemake, $what killed, then rerun"
}
command -v snakemake >/dev/null || fail "snakemake is not installed (scripts/install-deps.sh installs it)"
expect_code 0 "plan for snakemake" "$dtb" plan --pieces 4 --group-pieces 3 --out "$work/snake"
kill_and_rerun_under_snakemake "$work/snake" "[KM]+v[KM]+" "a 4-piece task"
# The same with a slice task: the engine runs it again (its slice file is written atomically, so
# a killed task leaves none), and removes the slice files at the end.
expect_code 0 "sliced plan for snakemake" "$dtb" plan --pieces 4 --group-pieces 3 --slices 3 --out "$work/snake-sliced"
kill_and_rerun_under_snakemake "$work/snake-sliced" "[KM]+v[KM]+\.s[0-9]+" "a slice task"
ls "$work/snake-sliced/.dtb-slices"/* >/dev/null 2>&1 && fail "snakemake left slice files after the rerun"
# Snakemake recorded each task's time and peak memory.
[ "$(ls "$work/snake/.dtb-benchmarks"/*.tsv | wc -l)" = "$tasks" ] || fail "not one benchmark file a task"
head -n 1 "$work/snake/.dtb-benchmarks/KKvKK.tsv" | grep -q max_rss || fail "no max_rss in the benchmark file"
echo "workflow_cli: all checks passed"
