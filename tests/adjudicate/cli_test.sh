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

# A PDN file that cannot be read is an I/O error (3), with a message saying why.
"$dtb" adjudicate --db "$db" "$work/missing.pdn" >/dev/null 2>"$work/err"; code=$?
[ "$code" = 3 ] || fail "missing PDN file: exit $code"
grep -q "cannot open PDN file $work/missing.pdn: No such file or directory" "$work/err" || fail "missing PDN file: $(cat "$work/err")"
"$dtb" adjudicate --db "$db" "$work" >/dev/null 2>"$work/err"; code=$?
[ "$code" = 3 ] || fail "directory as a PDN file: exit $code"
grep -q "cannot read PDN file $work: it is a directory, not a file" "$work/err" || fail "directory: $(cat "$work/err")"
grep -q "basic_filebuf" "$work/err" && fail "directory: a library message: $(cat "$work/err")"

# A game scored * claims nothing: never inconsistent, even past a repetition or with a side left
# without pieces; the facts are reported and the exit code is 0. The summary counts each game once.
printf '[FEN "W:WK1:BK50"]\n1. 1-7 50-45 2. 7-1 45-50 3. 1-7 50-45 4. 7-1 45-50 *\n[FEN "W:W28:B23"]\n1. 28x19 *\n' >"$work/star.pdn"
"$dtb" adjudicate --db "$db" "$work/star.pdn" >"$work/out" 2>"$work/err"; code=$?
[ "$code" = 0 ] || fail "games scored *: exit $code: $(cat "$work/out")"
grep -q "verdict: undecided: the game was scored \*, which claims no result; it was drawn by rule 6.1" "$work/out" ||
  fail "* past a repetition: $(cat "$work/out")"
grep -q "verdict: undecided: the game was scored \*, which claims no result; the side to move has no legal move" "$work/out" ||
  fail "* without pieces: $(cat "$work/out")"
grep -qx "2 games: 0 consistent, 0 inconsistent, 2 undecided, 0 not read to the end" "$work/err" || fail "summary: $(cat "$work/err")"
printf '[FEN "W:W28:B23"]\n1. 28x19 2-0\n' >"$work/one.pdn"
"$dtb" adjudicate --db "$db" "$work/one.pdn" >/dev/null 2>"$work/err"
grep -qx "1 game: 1 consistent, 0 inconsistent, 0 undecided, 0 not read to the end" "$work/err" || fail "one game: $(cat "$work/err")"
printf '1. 32-28 19-23 2. 28-22 *\n1. 32-28 *\n' >"$work/bad.pdn"
"$dtb" adjudicate --db "$db" "$work/bad.pdn" >/dev/null 2>"$work/err"; code=$?
[ "$code" = 1 ] || fail "unreadable game: exit $code"
grep -qx "2 games: 0 consistent, 0 inconsistent, 1 undecided, 1 not read to the end" "$work/err" || fail "unreadable game counted twice: $(cat "$work/err")"

# Chess-style results are read as their draughts result, and the output says so; the reader's
# warnings are printed with file, line and column.
printf '[FEN "W:W28:B23"]\n[Result "1-0"]\n1. 28x19 1-0\n[FEN "W:W28:B23"]\n[Result "0-2"]\n1. 28x19 2. 2-0\n' >"$work/chess.pdn"
"$dtb" adjudicate --db "$db" "$work/chess.pdn" >"$work/out" 2>&1; code=$?
[ "$code" = 0 ] || fail "chess result: exit $code: $(cat "$work/out")"
grep -qF "game 1: ? - ?, 2-0 (written 1-0, the chess way), 1 ply" "$work/out" || fail "chess result: $(cat "$work/out")"
grep -q "verdict: consistent" "$work/out" || fail "chess result verdict: $(cat "$work/out")"
grep -qF "  warning: $work/chess.pdn:6:10: move number 2. is not followed by a move; ignored" "$work/out" || fail "warnings: $(cat "$work/out")"
grep -qF "  warning: $work/chess.pdn:6:13: termination marker 2-0 disagrees with the Result tag 0-2" "$work/out" || fail "warnings: $(cat "$work/out")"

# With WDL files only, a win recorded for the side that loses is inconsistent whatever the counts.
printf '[FEN "W:WK2,6:BK50"]\n0-2\n' >"$work/loser.pdn"
"$dtb" adjudicate --db "$db" "$work/loser.pdn" >"$work/out" 2>&1; code=$?
[ "$code" = 1 ] || fail "win of the losing side without DTW: exit $code"
grep -q "verdict: inconsistent: at the start white wins; the draw rules can at most make it a draw, but the game was scored 0-2" \
  "$work/out" || fail "win of the losing side without DTW: $(cat "$work/out")"

# JSON: always valid (invalid UTF-8 in a file name and in tags), null for a missing player, the
# final FEN, the warnings located.
bad_name="$work/"$'caf\xe9\x01.pdn'
printf '[White "\xff\xfe"]\n[FEN "W:W28:B23"]\n1. 28x19 2. 2-0\n' >"$bad_name"
"$dtb" adjudicate --db "$db" --json "$bad_name" "$work/chess.pdn" >"$work/json" 2>/dev/null
if command -v python3 >/dev/null; then
  # strict: by default python3 would take bytes that are not UTF-8 as surrogate escapes
  while IFS= read -r line; do
    printf '%s' "$line" | PYTHONIOENCODING=utf-8:strict python3 -m json.tool >/dev/null 2>&1 || fail "json: not valid JSON: $line"
  done <"$work/json"
  python3 - "$work/json" <<'EOF' || fail "json: $(cat "$work/json")"
import json, sys
games = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
assert len(games) == 3, games
assert games[0]["file"].endswith("caf\ufffd\x01.pdn"), games[0]["file"]
assert games[0]["black"] is None and games[0]["white"] == "\u00ff\u00fe", games[0]  # read as Latin-1
assert games[0]["final_fen"] == "B:W19:B" and games[0]["result"] == "2-0", games[0]
assert games[0]["warnings"] == [{"line": 3, "column": 10, "message": "move number 2. is not followed by a move; ignored"}], games[0]
assert games[1]["result"] == "2-0" and games[1]["result_written"] == "1-0", games[1]
assert "result_written" not in games[2], games[2]
EOF
fi
"$dtb" adjudicate --db "$work/no-such-folder" "$samples/sample.pdn" >/dev/null 2>&1; code=$?
[ "$code" = 3 ] || fail "missing database folder: exit $code"
echo "adjudicate cli: all checks passed"
