#!/usr/bin/env bash
# `dtb probe` and `dtb bench probe` end to end. Usage: cli_test.sh DTB_EXECUTABLE DB_FOLDER (2-4 pieces)
set -uo pipefail
dtb=$1
db=$2
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect_output NAME EXPECTED_EXIT EXPECTED_STDOUT COMMAND...
expect_output() {
  local name=$1 want_rc=$2 want=$3
  shift 3
  local got rc
  got=$("$@" 2>/tmp/dtb-cli-test-stderr.$$)
  rc=$?
  [[ $rc == "$want_rc" ]] || fail "$name: exit code $rc, expected $want_rc (stderr: $(cat /tmp/dtb-cli-test-stderr.$$))"
  [[ $got == "$want" ]] || fail "$name: output
$got
expected
$want"
}

tab=$'\t'

expect_output "values" 0 "W:W28:B23${tab}win
W:W6:B1${tab}loss
W:WK1:BK50${tab}draw
B:WK46:BK5${tab}loss" \
  "$dtb" probe --db "$db" "W:W28:B23" "W:W6:B1" "  W:WK1:BK50 " "B:WK46:BK5"

expect_output "moves, best first" 0 "W:WK46:BK5${tab}loss${tab}46-10=loss${tab}46-14=loss${tab}46-19=loss${tab}46-23=loss${tab}46-28=loss${tab}46-32=loss${tab}46-37=loss${tab}46-41=loss
W:W28:B23${tab}win${tab}28x19=win
W:W6:B1${tab}loss" \
  "$dtb" probe --db "$db" --moves "W:WK46:BK5" "W:W28:B23" "W:W6:B1"

# Standard input: blank lines skipped, an invalid FEN reported in place, exit code 1 at the end.
expect_output "stdin with an invalid FEN" 1 "W:W28:B23${tab}win
W:W99:B1${tab}error: $("$dtb" probe --db "$db" "W:W99:B1" | cut -f2- | sed 's/^error: //')
W:W6:B1${tab}loss" \
  bash -c "printf 'W:W28:B23\n\n  W:W99:B1\nW:W6:B1\n' | '$dtb' probe --db '$db'"

# More pieces than the databases: unknown, exit code 0, the reason in JSON.
expect_output "beyond the databases" 0 "W:WK46,K47,K48:BK1,K2,K3${tab}unknown" \
  "$dtb" probe --db "$db" "W:WK46,K47,K48:BK1,K2,K3"

json=$("$dtb" probe --db "$db" --json --moves "W:WK46,K47,K48:BK1,K2,K3" "W:W28:B23" 'x"y\z')
rc=$?
[[ $rc == 1 ]] || fail "json: exit code $rc, expected 1"
if command -v python3 >/dev/null; then
  python3 - "$json" <<'EOF' || fail "json: not the expected objects: $json"
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines()]
assert lines[0]["value"] == "unknown" and lines[0]["code"] == "too-many-pieces" and lines[0]["reason"], lines[0]
assert all(m["value"] == "unknown" and m["reason"] for m in lines[0]["moves"]), lines[0]
assert lines[1] == {"fen": "W:W28:B23", "value": "win", "moves": [{"move": "28x19", "value": "win"}]}, lines[1]
assert lines[2]["fen"] == 'x"y\\z' and lines[2]["error"] and "value" not in lines[2], lines[2]
EOF
else
  [[ $json == *'"reason":'* && $json == *'"fen":"x\"y\\z"'* ]] || fail "json: $json"
fi

# Far beyond the databases, with captures on every side: answered unknown at once, not after minutes
# of searching every capture sequence (timeout makes a hang fail).
expect_output "forty kings capturing" 0 "B:WK1-15,K17-20,K27:BK31-50${tab}unknown" \
  timeout 20 "$dtb" probe --db "$db" "B:WK1-15,K17-20,K27:BK31-50"
got=$(timeout 20 "$dtb" probe --db "$db" --moves "W:WK1-20:BK31-50")
rc=$?
[[ $rc == 0 && $got == "W:WK1-20:BK31-50${tab}unknown${tab}"* && $got != *"=win"* && $got != *"=loss"* ]] ||
  fail "forty kings, moves: exit code $rc, output $got"

# The capture search's bound: past it the value is unknown, the reason said on stderr, and in JSON
# with code search-limit.
expect_output "search bound, text" 0 "W:W28,K46:B23,K1,K5${tab}unknown" \
  "$dtb" probe --db "$db" --search-nodes 2 "W:W28,K46:B23,K1,K5"
grep -q "capture search exceeded 2 positions" /tmp/dtb-cli-test-stderr.$$ ||
  fail "search bound, text: no reason on stderr: $(cat /tmp/dtb-cli-test-stderr.$$)"
expect_output "search bound, json" 0 '{"fen":"W:W28,K46:B23,K1,K5","value":"unknown","code":"search-limit","reason":"capture search exceeded 2 positions"}' \
  "$dtb" probe --db "$db" --json --search-nodes 2 "W:W28,K46:B23,K1,K5"
[[ $("$dtb" probe --db "$db" "W:W28,K46:B23,K1,K5" | cut -f2) != unknown ]] ||
  fail "search bound: the default bound should answer W:W28,K46:B23,K1,K5"

# --moves --dtw in a folder without .dtw files: the values; a distance only where the game ends
# without another lookup (a capture of the last piece, no move left: after each move from 46 the
# black king takes the white one), otherwise empty, with the reason in JSON.
tmp=$(mktemp -d)
cp "$db"/*.wdl "$tmp"/
expect_output "moves and distances without .dtw files" 0 "W:W28:B23${tab}win${tab}1${tab}28x19=win${tab}0
W:W6:B1${tab}loss${tab}0
W:WK46:BK5${tab}loss${tab}${tab}46-10=loss${tab}1${tab}46-14=loss${tab}1${tab}46-19=loss${tab}1${tab}46-23=loss${tab}1${tab}46-28=loss${tab}1${tab}46-32=loss${tab}1${tab}46-37=loss${tab}1${tab}46-41=loss${tab}1" \
  "$dtb" probe --db "$tmp" --moves --dtw "W:W28:B23" "W:W6:B1" "W:WK46:BK5"
"$dtb" probe --db "$tmp" --json --moves --dtw "W:WK1:BK50" |
  grep -q '{"move":"1-6","value":"draw","dtw":null,"dtw_code":"too-many-pieces","dtw_reason":"' ||
  fail "moves and distances without .dtw files: json"
rm -rf "$tmp"

# Output framing: a FEN with a tab, a line end or another control character is invalid, and the
# text output echoes it escaped, so it cannot fake a value column or a line.
out=$("$dtb" probe --db "$db" $'W:W28\t:B23' $'W:W28:B23\nW:W6:B1' $'W:W28\x01:B23' "W:W28:B23")
rc=$?
[[ $rc == 1 ]] || fail "control characters: exit code $rc, expected 1"
[[ $(printf '%s\n' "$out" | wc -l) == 4 ]] || fail "control characters: not one line per FEN:
$out"
[[ $(printf '%s\n' "$out" | awk -F'\t' 'NF != 2' | wc -l) == 0 ]] || fail "control characters: a line without exactly two columns:
$out"
[[ $(printf '%s\n' "$out" | sed -n 1p) == 'W:W28\t:B23'"${tab}error: "*'a control character (\t); a FEN never contains one' ]] ||
  fail "control characters: tab: $(printf '%s\n' "$out" | sed -n 1p)"
[[ $(printf '%s\n' "$out" | sed -n 2p) == 'W:W28:B23\nW:W6:B1'"${tab}error: "* ]] || fail "control characters: newline: $out"
[[ $(printf '%s\n' "$out" | sed -n 3p) == 'W:W28\x01:B23'"${tab}error: "* ]] || fail "control characters: \\x01: $out"
[[ $(printf '%s\n' "$out" | sed -n 4p) == "W:W28:B23${tab}win" ]] || fail "control characters: the valid FEN: $out"

# --json is valid JSON whatever the bytes: invalid UTF-8 and control characters included.
if command -v python3 >/dev/null; then
  "$dtb" probe --db "$db" --json $'W:W28:B\xff\xfe23' $'\xc3(\t\x01' $'\xed\xa0\x80' "W:W28:B23" >/tmp/dtb-cli-json.$$
  rc=$?
  [[ $rc == 1 ]] || fail "json with invalid UTF-8: exit code $rc, expected 1"
  # strict: by default python3 would take bytes that are not UTF-8 as surrogate escapes
  while IFS= read -r line; do
    printf '%s' "$line" | PYTHONIOENCODING=utf-8:strict python3 -m json.tool >/dev/null 2>&1 || fail "json with invalid UTF-8: not valid JSON: $line"
  done </tmp/dtb-cli-json.$$
  [[ $(wc -l </tmp/dtb-cli-json.$$) == 4 ]] || fail "json with invalid UTF-8: not one line per FEN"
  python3 -c 'import json,sys; l=[json.loads(x) for x in open(sys.argv[1], encoding="utf-8")]; assert l[0]["fen"]=="W:W28:B\ufffd\ufffd23" and l[1]["fen"]=="\ufffd(\t\x01" and l[3]["value"]=="win", l' \
    /tmp/dtb-cli-json.$$ || fail "json with invalid UTF-8: $(cat /tmp/dtb-cli-json.$$)"
  rm -f /tmp/dtb-cli-json.$$
fi

# A missing database folder: exit code 3 and a message.
"$dtb" probe --db /nonexistent/dtb-db "W:W28:B23" >/dev/null 2>/tmp/dtb-cli-test-stderr.$$
rc=$?
[[ $rc == 3 ]] || fail "missing folder: exit code $rc, expected 3"
grep -q "nonexistent" /tmp/dtb-cli-test-stderr.$$ || fail "missing folder: no message"

# A missing file: unknown with a reason, exit code 0.
tmp=$(mktemp -d)
cp "$db"/*.wdl "$tmp"/
rm "$tmp/KvKM.wdl"
expect_output "missing file" 0 "W:WK46:BK5,10${tab}unknown" "$dtb" probe --db "$tmp" "W:WK46:BK5,10"
"$dtb" probe --db "$tmp" --json "W:WK46:BK5,10" | grep -q '"reason":".*KvKM.wdl' || fail "missing file: no reason"
rm -rf "$tmp"

# The benchmark runs and prints its table.
out=$("$dtb" bench probe --db "$db" --count 2000 --threads 2 --seed 7)
rc=$?
[[ $rc == 0 ]] || fail "bench probe: exit code $rc"
for word in warm cold "1 thread" "2 threads"; do
  [[ $out == *"$word"* ]] || fail "bench probe: no '$word' in
$out"
done
"$dtb" bench >/dev/null 2>&1 && fail "bench without a subcommand should fail"

# Resident, quiet positions, the other core busy: every answer known, the memory and load time shown.
out=$("$dtb" bench probe --db "$db" --count 2000 --threads 2 --resident --quiet --busy 2>&1)
rc=$?
[[ $rc == 0 ]] || fail "bench probe --resident: exit code $rc"
[[ $out == *"0.0% must capture"* ]] || fail "bench probe --quiet drew capture positions:
$out"
[[ $out =~ resident\ +[0-9.]+\ MB\ in\ memory ]] || fail "bench probe --resident: no resident memory in
$out"
[[ $out == *"warm (resident)"* && $out == *"other core  busy"* ]] || fail "bench probe --resident --busy:
$out"
[[ $out == *"unknown"* ]] && fail "bench probe --resident: unknown answers:
$out"

rm -f /tmp/dtb-cli-test-stderr.$$
if ((failures)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "cli_test: all checks passed"
