#!/usr/bin/env bash
# dtb line: optimal lines as long as the published longest wins, each ply one closer to the end.
set -u
dtb=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$dtb" gen --pieces 3 --dtw --out "$work/db" 2>/dev/null || fail "building 2-3 pieces with --dtw"
for case in "W:W33:B2 17" "W:W21:B3,4 33" "W:W23:B5,6 29" "W:WK2,6:BK50 9"; do
  set -- $case
  "$dtb" line --db "$work/db" "$1" >"$work/line" || fail "$1: exit $?"
  head -1 "$work/line" | grep -q "	win	$2$" || fail "$1: first line $(head -1 "$work/line")"
  [ "$(($(wc -l <"$work/line") - 1))" = "$2" ] || fail "$1: expected $2 moves"
  # The plies left go down by one each move, and the line ends with the game.
  awk -F'\t' -v n="$2" 'NR > 1 { if ($3 != n - (NR - 1)) exit 1 }' "$work/line" || fail "$1: distances $(cat "$work/line")"
  tail -1 "$work/line" | grep -q "	win	0$" || fail "$1: the winner does not make the last move"
done
# The published longest wins of every 2-3 piece material are the longest of their materials.
"$dtb" stats --db "$work/db" --tsv >"$work/stats" || fail "stats"
for expected in KvK:3 KvM:7 MvK:3 MvM:17 KvKK:3 KKvK:7 KvKM:9 KMvK:9 KKvM:9 MvKK:3 KvMM:27 MMvK:7 MvKM:17 \
                KMvM:11 MvMM:33 MMvM:23; do
  got=$(awk -F'\t' -v m="${expected%%:*}" '$1 == m { print $12 }' "$work/stats")
  [ "$got" = "${expected#*:}" ] || fail "longest win of ${expected%%:*}: $got, published ${expected#*:}"
done

"$dtb" line --db "$work/db" "W:WK1:BK50" | grep -q "draw" || fail "a draw"
"$dtb" line --db "$work/db" "W:W31,32:B1,2" >/dev/null 2>&1; [ $? = 3 ] || fail "beyond the databases: exit code"
"$dtb" line --db "$work/db" "W:W99" >/dev/null 2>&1; [ $? = 2 ] || fail "invalid FEN: exit code"
echo "dtb line: all checks passed"
