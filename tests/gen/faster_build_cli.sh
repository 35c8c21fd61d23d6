#!/usr/bin/env bash
# The portable dtb and the x86-64-v3 build it hands over to (tools/faster_build.hpp): which one
# runs, by what the CPU offers (read from CPUID by cpu_level.c and the family from /proc/cpuinfo,
# not through the code under test), and that both write the same bytes (2-4 pieces, against the
# fixture db4 that the handing-over dtb built).
#   faster_build_cli.sh DTB DB4 WORK CPU_LEVEL
set -euo pipefail
dtb=$1 reference=$2 work=$3 cpu_level=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"

[ -x "$(dirname "$dtb")/dtb-x86-64-v3" ] || fail "no dtb-x86-64-v3 beside $dtb"
version_of() { "$@" --version; }
portable=$(DTB_PORTABLE=1 version_of "$dtb")
[[ "$portable" == *"(portable)"* ]] || fail "DTB_PORTABLE=1 dtb --version: $portable"
[[ "$(DTB_PORTABLE=0 version_of "$dtb")" == "$(version_of "$dtb")" ]] || fail "DTB_PORTABLE=0 is not the default"

# x86-64-v3 as the psABI defines it: AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE, XSAVE. Read
# from CPUID: /proc/cpuinfo's flags may lack one the CPU has ("abm" on a Zen 5 virtual machine).
level=$("$cpu_level")
case "$level" in x86-64-v3) v3=1 ;; baseline) v3=0 ;; *) fail "cpu_level printed '$level'" ;; esac
# AMD family 23 (Zen 1 and 2) has them, but PDEP and PEXT in microcode: the portable build runs there.
vendor=$(grep -m1 '^vendor_id' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
family=$(grep -m1 '^cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
if [[ "$vendor" == AuthenticAMD && "$family" == 23 ]]; then v3=0; fi
if [ "$v3" = 1 ]; then expected="(x86-64-v3)"; else expected="(portable)"; fi
running=$(version_of "$dtb")
[[ "$running" == *"$expected"* ]] ||
  fail "dtb --version says '$running' on a CPU that expects $expected (CPUID: $level; $vendor family $family)"
echo "this CPU runs: $running"

# The hand-over keeps the arguments and the exit code: a folder without databases, named in the
# error, exits 3 (the README's table).
mkdir "$work/empty"
code=0; "$dtb" verify --db "$work/empty" 2>"$work/err" || code=$?
[ "$code" = 3 ] || fail "verify of an empty folder through the hand-over exited $code, not 3"
grep -q "no databases (\*.wdl files) in $work/empty" "$work/err" || fail "the error does not name the folder: $(cat "$work/err")"

# A plan's Makefile and Snakefile call the portable dtb, which hands over on each machine that runs
# a task, not the faster build this one handed over to (a cluster's nodes may lack its instructions).
"$dtb" plan --pieces 3 --out "$work/plan" > /dev/null 2>&1 || fail "dtb plan failed"
for f in Makefile Snakefile; do
  grep -q "$(realpath "$dtb")" "$work/plan/$f" || fail "the $f does not call $(realpath "$dtb")"
  ! grep -q "dtb-x86-64-v3" "$work/plan/$f" || fail "the $f calls the x86-64-v3 build"
done

DTB_PORTABLE=1 "$dtb" gen --pieces 4 --out "$work/portable" > /dev/null 2>&1 || fail "the portable build of 2-4 failed"
n=0
for f in "$reference"/*.wdl; do
  cmp -s "$f" "$work/portable/$(basename "$f")" || fail "$(basename "$f"): the portable build wrote other bytes"
  n=$((n + 1))
done
[ "$n" -ge 41 ] || fail "only $n files compared"
echo "ok: $n files the same from both builds"
rm -rf "$work"
