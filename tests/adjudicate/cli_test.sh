#!/usr/bin/env bash
# dtb adjudicate from the command line: text, JSON, and the exit codes scripts rely on.
set -u
dtb=$1 db=$2 samples=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$dtb" adjudicate --db "$db" "$samples/sample.pdn" >"$work/out" 2>"$work/err" || fail "sample: exit $?: $(cat "$work/err")"
grep -q "verdict: consistent: drawn by rule 6.3" "$work/out" || fail "sample game 2 verdict: $(cat "$work/out")"
grep -q "3 games: 2 consistent, 0 inconsistent, 1 undecided" "$work/err" || fail "summary: $(cat "$work/err")"

"$dtb" adjudicate --db "$db" --json "$samples/sample.pdn" >"$work/json" 2>/dev/null || fail "json: exit $?"
[ "$(wc -l <"$work/json")" = 3 ] || fail "json: expected one line per game"
grep -qv '^{"file":' "$work/json" && fail "json: a line is not an object"
grep -q '"verdict":"undecided"' "$work/json" || fail "json: verdicts"

# A game scored as a draw in a won position is inconsistent: exit 1.
printf '[FEN "W:W33:B2"]\n[Result "1-1"]\n1-1\n' >"$work/wrong.pdn"
"$dtb" adjudicate --db "$db" "$work/wrong.pdn" >"$work/out" 2>&1; code=$?
[ "$code" = 1 ] || fail "inconsistent game: exit $code"
grep -q "verdict: inconsistent" "$work/out" || fail "inconsistent game: $(cat "$work/out")"

# With distance-to-win files, a win inside a counted ending is judged against the count.
"$dtb" gen --pieces 3 --dtw --out "$work/db3" 2>/dev/null || fail "building 2-3 pieces with --dtw"
printf '[FEN "W:WK2,6:BK50"]\n[Result "1-1"]\n1-1\n' >"$work/counted.pdn"
"$dtb" adjudicate --db "$db" "$work/counted.pdn" >"$work/out" 2>&1; code=$?
[ "$code" = 0 ] || fail "counted ending without DTW: exit $code"
grep -q "verdict: undecided: .*needs the distance to win" "$work/out" || fail "without DTW: $(cat "$work/out")"
"$dtb" adjudicate --db "$work/db3" "$work/counted.pdn" >"$work/out" 2>&1; code=$?
[ "$code" = 1 ] || fail "counted ending with DTW: exit $code"
grep -q "white wins in 9 plies, within the 10 plies the 6.4 5-move ending count leaves, but the game was scored 1-1" \
  "$work/out" || fail "with DTW: $(cat "$work/out")"

"$dtb" adjudicate --db "$db" "$work/missing.pdn" >/dev/null 2>&1; code=$?
[ "$code" = 2 ] || fail "missing PDN file: exit $code"
"$dtb" adjudicate --db "$work/no-such-folder" "$samples/sample.pdn" >/dev/null 2>&1; code=$?
[ "$code" = 3 ] || fail "missing database folder: exit $code"
echo "adjudicate cli: all checks passed"
