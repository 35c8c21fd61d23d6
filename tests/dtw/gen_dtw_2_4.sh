#!/usr/bin/env bash
# dtb gen --dtw on 2-4 pieces: thread count does not change a byte, resume rebuilds a deleted
# .dtw file identically, and dtb probe --dtw reads the published longest wins.
# Usage: gen_dtw_2_4.sh DTB WORKDIR
set -euo pipefail
dtb=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
"$dtb" gen --pieces 4 --dtw --threads 1 --out "$work/one" 2>/dev/null
"$dtb" gen --pieces 4 --dtw --threads 2 --out "$work/two" 2>/dev/null
for f in "$work"/one/*.dtw "$work"/one/*.wdl; do cmp "$f" "$work/two/$(basename "$f")"; done
[ "$(ls "$work"/one/*.dtw | wc -l)" = 41 ] || { echo "expected 41 .dtw files"; exit 1; }
rm "$work/two/MMvMM.dtw" "$work/two/KMvM.dtw"
"$dtb" gen --pieces 4 --dtw --out "$work/two" 2>/dev/null
cmp "$work/one/MMvMM.dtw" "$work/two/MMvMM.dtw"
cmp "$work/one/KMvM.dtw" "$work/two/KMvM.dtw"
out=$("$dtb" probe --db "$work/two" --dtw 'W:W21:B3,4' 'W:W40,44:B3' 'W:WK1:BK50')
expected=$(printf 'W:W21:B3,4\twin\t33\nW:W40,44:B3\twin\t23\nW:WK1:BK50\tdraw\t')
[ "$out" = "$expected" ] || { echo "unexpected probe output:"; echo "$out"; exit 1; }
echo ok
