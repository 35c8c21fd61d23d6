#!/usr/bin/env bash
# dtb adjudicate on the 16-move games of data/pdn/sixteen_move_wins.pdn, against a real 2-4 piece
# build with distances to win (dtb gen --pieces 4 --dtw): a win in time, wins too slow, a win saved
# by the lone king's capture, in text and JSON, with the exit code. The DTW in each verdict is the
# one dtb probe --dtw gives for the final position, checked first.
set -u
dtb=$1 db=$2 pdn=$3/sixteen_move_wins.pdn
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The distances to win the verdicts quote, straight from the files.
printf '%s\n' W:WK23,K31,K41:BK3 W:WK14,K32,K33:BK25 W:WK19,K33,K37:BK48 W:W16,K24,K50:BK40 W:WK6,K19,45:BK2 |
  "$dtb" probe --db "$db" --dtw >"$work/probe" || fail "probe: exit $?"
printf 'W:WK23,K31,K41:BK3\twin\t13\nW:WK14,K32,K33:BK25\twin\t15\nW:WK19,K33,K37:BK48\twin\t15\nW:W16,K24,K50:BK40\twin\t17\nW:WK6,K19,45:BK2\twin\t23\n' >"$work/expected"
diff "$work/expected" "$work/probe" >/dev/null || fail "DTW of the final positions: $(cat "$work/probe")"

# Two games are scored against the rules: exit 1.
"$dtb" adjudicate --db "$db" "$pdn" >"$work/out" 2>"$work/err"; code=$?
[ "$code" = 1 ] || fail "exit $code: $(cat "$work/err")"
expect() { grep -qF -- "$1" "$work/out" || fail "missing \"$1\" in: $(cat "$work/out")"; }
expect "verdict: inconsistent: after 10... 8-3 white wins in 13 plies, within the 13 plies the 6.3 16-move ending count leaves, but the game was scored 1-1"
expect "verdict: consistent: after 11... 34-25 white wins in 15 plies, but not within the 11 plies the 6.3 16-move ending count leaves: a draw under the rules"
expect "verdict: inconsistent: after 11... 34-25 white wins in 15 plies, but not within the 11 plies the 6.3 16-move ending count leaves: a draw under the rules, but the game was scored 2-0"
expect "verdict: consistent: after 10... 34-48 white wins in 15 plies, more than the 12 plies the 6.3 16-move ending count leaves, but it can force black's lone king to make a capture that changes the count, and win in time"
expect "verdict: consistent: after 7... 7-40 white wins in 17 plies, within the 18 plies the 6.3 16-move ending count leaves"
expect "verdict: consistent: after 8... 11-2 white wins in 23 plies, but not within the 17 plies the 6.3 16-move ending count leaves: a draw under the rules"
expect "rule 6.3 16-move ending: count starts at the start (32 plies)"
grep -qF "6 games: 4 consistent, 2 inconsistent, 0 undecided, 0 not read to the end" "$work/err" || fail "summary: $(cat "$work/err")"

"$dtb" adjudicate --db "$db" --json "$pdn" >"$work/json" 2>/dev/null
[ "$(grep -o '"forced_win":"[a-z]*"' "$work/json" | cut -d'"' -f4 | tr '\n' ' ')" = "yes no no yes yes no " ] ||
  fail "json forced_win: $(cat "$work/json")"
[ "$(grep -o '"verdict":"[a-z]*"' "$work/json" | cut -d'"' -f4 | tr '\n' ' ')" = \
  "inconsistent consistent inconsistent consistent consistent consistent " ] || fail "json verdicts: $(cat "$work/json")"
# The search's budget: with room for one position the game that needs a search is undecided, says
# why, and says so in JSON; the others are decided by the distance alone.
timeout 20 "$dtb" adjudicate --db "$db" --search-nodes 1 "$pdn" >"$work/out" 2>"$work/err"
expect "whether it can force the win before a draw rule ends the game is not known: budget exceeded: the search stopped at its limit of 1 positions"
timeout 20 "$dtb" adjudicate --db "$db" --search-nodes 1 --json "$pdn" >"$work/json" 2>/dev/null
grep -q '"budget_exceeded":true' "$work/json" || fail "json budget: $(cat "$work/json")"
timeout 20 "$dtb" adjudicate --db "$db" --search-seconds 1e-9 "$pdn" >"$work/out" 2>"$work/err"
expect "budget exceeded: the search stopped at its limit of 1e-09 s"
# dtb probe --rules: the moves ranked under the counts (the position of tests/probe/root_test.cpp,
# where the brute force shows that only 12-1 wins with 3 plies of the 16-move count left).
"$dtb" probe --db "$db" --rules --counted-plies 29 W:WK12,K40,K44:BK6 >"$work/out" || fail "probe --rules: exit $?"
printf 'W:WK12,K40,K44:BK6\twin\t5\t12-1=win\t7\t' | cmp -s -n 36 - "$work/out" || fail "probe --rules: $(cat "$work/out")"
expect $'44-50=draw-by-rule\t5'
"$dtb" probe --db "$db" --rules --json W:WK12,K40,K44:BK6 >"$work/out" || fail "probe --rules --json: exit $?"
expect '"moves":[{"move":"44-50","value":"win","dtw":5,"drawn_by_rules":false}'
"$dtb" probe --db "$db" --rules --counted-plies 12 W:WK1,K2:BK45,K50 >"$work/out"; code=$?
[ "$code" = 1 ] || fail "counted plies without a count: exit $code"
expect "error: counted plies must be 0: no 16- or 5-move count applies to W:WK1,K2:BK45,K50"
"$dtb" probe --db "$db" --counted-plies 3 W:WK12,K40,K44:BK6 >/dev/null 2>&1; code=$?
[ "$code" = 2 ] || fail "--counted-plies without --rules: exit $code"
echo "adjudicate 16-move wins: all checks passed"
