#!/usr/bin/env bash
# dtb gen --dtw on 2-4 pieces: thread count does not change a byte, resume rebuilds a deleted
# .dtw file identically (and says which files it reads back, and drops those read back only to
# derive another before solving), so do builds under a tiny --memory
# (every table the next material does not read goes to a scratch copy and back), killed or not,
# dtb probe --dtw reads the published longest wins, and dtb probe --moves --dtw gives each move
# the distance of the position after it.
# The .wdl files of the one-thread build are also compared with WDL_REFERENCE, a plain
# `dtb gen --pieces 4` on every core: the WDL bytes depend neither on the thread count nor on --dtw.
# Usage: gen_dtw_2_4.sh DTB WORKDIR WDL_REFERENCE
set -euo pipefail
dtb=$1
work=$2
reference=$3
rm -rf "$work"
mkdir -p "$work"
"$dtb" gen --pieces 4 --dtw --threads 1 --out "$work/one" 2>/dev/null
for f in "$reference"/*.wdl; do cmp "$f" "$work/one/$(basename "$f")"; done
[ "$(ls "$work"/one/*.wdl | wc -l)" = "$(ls "$reference"/*.wdl | wc -l)" ] || { echo "not the reference's .wdl files"; exit 1; }
# Two threads under a tiny --memory: neither changes a byte.
"$dtb" gen --pieces 4 --dtw --threads 2 --memory 0.000001 --out "$work/two" 2>"$work/two-first.log"
grep -q "scratch copy loaded" "$work/two-first.log" || { echo "--memory moved no table out and back"; exit 1; }
for f in "$work"/one/*.dtw "$work"/one/*.wdl; do cmp "$f" "$work/two/$(basename "$f")"; done
[ "$(ls "$work"/one/*.dtw | wc -l)" = 41 ] || { echo "expected 41 .dtw files"; exit 1; }
[ ! -e "$work/two/.dtb-spill" ] || { echo "scratch copies left behind"; exit 1; }
rm "$work/two/MMvMM.dtw" "$work/two/KMvM.dtw"
"$dtb" gen --pieces 4 --dtw --memory 0.000001 --out "$work/killed" 2>/dev/null & pid=$!
sleep 4; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
"$dtb" stats --db "$work/killed" >/dev/null
"$dtb" gen --pieces 4 --dtw --memory 0.000001 --out "$work/killed" 2>/dev/null
for f in "$work"/one/*.dtw "$work"/one/*.wdl; do cmp "$f" "$work/killed/$(basename "$f")"; done
[ ! -e "$work/killed/.dtb-spill" ] || { echo "scratch copies left after a kill and a resume"; exit 1; }
"$dtb" gen --pieces 4 --dtw --out "$work/two" 2>"$work/two.log"
grep -q '^MMvMM.wdl: reading from the folder' "$work/two.log" && grep -q '^[0-9]* files\{0,1\} read back, seconds' "$work/two.log" ||
  { echo "the resumed build did not say which files it read back:"; cat "$work/two.log"; exit 1; }
# (Which ones depends on what was read from files and what from the copies made meanwhile.)
grep -q '^[KM]*v[KM]*\.\(wdl\|dtw\): dropped from memory (read back for another table only)$' "$work/two.log" ||
  { echo "the resumed build kept tables read back only to derive another:"; cat "$work/two.log"; exit 1; }
cmp "$work/one/MMvMM.dtw" "$work/two/MMvMM.dtw"
cmp "$work/one/KMvM.dtw" "$work/two/KMvM.dtw"
out=$("$dtb" probe --db "$work/two" --dtw 'W:W21:B3,4' 'W:W40,44:B3' 'W:WK1:BK50')
expected=$(printf 'W:W21:B3,4\twin\t33\nW:W40,44:B3\twin\t23\nW:WK1:BK50\tdraw\t')
[ "$out" = "$expected" ] || { echo "unexpected probe output:"; echo "$out"; exit 1; }
# Each move's distance is what dtb probe --dtw says of the position after it (dtb moves gives its
# FEN), and the best move's is one less than the position's: cross-checks, no stored answers.
decisive=0
for fen in 'W:W28,32:B23,K5' 'B:W33,34:B18,K45' 'W:WK26,37:B23,K42' 'B:WK10,35:B6,7' 'W:W38,39:B12,13' \
           'W:W47:B3,4,K20' 'B:W40,44:B3' 'W:W21:B3,4'; do
  line=$("$dtb" probe --db "$work/two" --moves --dtw "$fen")
  now=$(printf '%s\n' "$line" | cut -f3)
  first=$(printf '%s\n' "$line" | cut -f5)
  moves=$("$dtb" moves "$fen")
  [ "$(printf '%s\n' "$moves" | wc -l)" = "$(printf '%s\n' "$line" | awk -F'\t' '{ print (NF - 3) / 2 }')" ] ||
    { echo "$fen: not one MOVE=VALUE and DTW pair per legal move: $line"; exit 1; }
  while IFS=$'\t' read -r move dtw; do
    after=$(printf '%s\n' "$moves" | awk -F'\t' -v m="${move%%=*}" '$1 == m { print $2 }')
    [ -n "$after" ] || { echo "$fen: $move is not a legal move"; exit 1; }
    expected=$("$dtb" probe --db "$work/two" --dtw "$after" | cut -f3)
    [ "$dtw" = "$expected" ] || { echo "$fen: $move has DTW '$dtw', the position after it '$expected'"; exit 1; }
  done < <(printf '%s\n' "$line" | awk -F'\t' '{ for (i = 4; i < NF; i += 2) print $i "\t" $(i + 1) }')
  if [ -n "$now" ]; then
    [ "$first" = $((now - 1)) ] || { echo "$fen: DTW $now, best move's $first: $line"; exit 1; }
    decisive=$((decisive + 1))
  fi
  json=$("$dtb" probe --db "$work/two" --moves --dtw --json "$fen")
  python3 - "$json" "$line" <<'PY'
import json, sys
obj, fields = json.loads(sys.argv[1]), sys.argv[2].split("\t")
got = [(m["move"] + "=" + m["value"], "" if m["dtw"] is None else str(m["dtw"])) for m in obj["moves"]]
assert got == list(zip(fields[3::2], fields[4::2])), (got, fields)
PY
done
[ "$decisive" -ge 6 ] || { echo "only $decisive decisive positions"; exit 1; }
echo ok
