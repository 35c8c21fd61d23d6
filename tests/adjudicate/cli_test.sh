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

"$dtb" adjudicate --db "$db" "$work/missing.pdn" >/dev/null 2>&1; code=$?
[ "$code" = 2 ] || fail "missing PDN file: exit $code"
"$dtb" adjudicate --db "$work/no-such-folder" "$samples/sample.pdn" >/dev/null 2>&1; code=$?
[ "$code" = 3 ] || fail "missing database folder: exit $code"
echo "adjudicate cli: all checks passed"
