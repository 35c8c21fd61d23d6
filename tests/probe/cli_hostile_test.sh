#!/usr/bin/env bash
# The command line on hostile database folders and bad option values: a named pipe, a folder or a
# device under a database file's name, an empty folder, a folder without .dtw files, and option
# values that overflow or make no sense. Every case must end quickly (a hang fails the test) with
# a message saying what is wrong and the exit code of the README's table.
# Usage: cli_hostile_test.sh DTB_EXECUTABLE
set -uo pipefail
dtb=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# expect CODE WORDS DESCRIPTION COMMAND...: the command ends within 20 seconds with exit code CODE,
# and WORDS appear in its output (stdout and stderr together).
expect() {
  local want=$1 words=$2 what=$3
  shift 3
  timeout 20 "$@" >"$work/out" 2>&1 </dev/null
  local got=$?
  if [[ $got == 124 ]]; then
    fail "$what: still running after 20 seconds"
    return
  fi
  [[ $got == "$want" ]] || fail "$what: exit $got, expected $want; output: $(cat "$work/out")"
  grep -qF -- "$words" "$work/out" || fail "$what: no '$words' in the output: $(cat "$work/out")"
}

tab=$'\t'
"$dtb" gen --pieces 3 --out "$work/db" 2>/dev/null || { echo "FAIL: cannot build 2-3 pieces" >&2; exit 1; }

# Something that is not a regular file named KvK.wdl. Positions of other materials still answer.
for kind in pipe folder device; do
  rm -rf "$work/bad"
  cp -r "$work/db" "$work/bad"
  rm "$work/bad/KvK.wdl"
  case $kind in
    pipe) mkfifo "$work/bad/KvK.wdl"; reason="not a regular file (a named pipe)" ;;
    folder) mkdir "$work/bad/KvK.wdl"; reason="not a regular file (a folder)" ;;
    device) ln -s /dev/zero "$work/bad/KvK.wdl"; reason="not a regular file (a character device)" ;;
  esac
  expect 0 "$reason" "probe, KvK.wdl a $kind" "$dtb" probe --db "$work/bad" W:WK46:BK5 W:WK46,K50:BK5
  grep -qF "W:WK46:BK5${tab}unknown" "$work/out" || fail "probe, KvK.wdl a $kind: $(cat "$work/out")"
  grep -qE "^W:WK46,K50:BK5${tab}(win|draw|loss)" "$work/out" || fail "probe, KvK.wdl a $kind: KKvK not answered: $(cat "$work/out")"
  grep -qi "truncated" "$work/out" && fail "probe, KvK.wdl a $kind, called truncated: $(cat "$work/out")"
  expect 1 "$reason" "verify, KvK.wdl a $kind" "$dtb" verify --db "$work/bad"
  expect 3 "$reason" "stats, KvK.wdl a $kind" "$dtb" stats --db "$work/bad"
  expect 3 "$reason" "gen over a folder whose KvK.wdl is a $kind" "$dtb" gen --pieces 3 --out "$work/bad"
done

# The same for a .dtw file: probe --dtw and stats read it.
"$dtb" gen --pieces 3 --dtw --out "$work/dtw" 2>/dev/null || { echo "FAIL: cannot build 2-3 pieces with --dtw" >&2; exit 1; }
rm "$work/dtw/KvK.dtw"
mkfifo "$work/dtw/KvK.dtw"
expect 0 "not a regular file (a named pipe)" "probe --dtw, KvK.dtw a pipe" "$dtb" probe --db "$work/dtw" --dtw W:WK46:BK5
grep -qxF "W:WK46:BK5${tab}loss${tab}" "$work/out" || fail "probe --dtw, KvK.dtw a pipe: $(cat "$work/out")"
expect 3 "not a regular file (a named pipe)" "stats, KvK.dtw a pipe" "$dtb" stats --db "$work/dtw"

# Folders without the files a command needs.
mkdir "$work/empty"
expect 3 "no databases (*.wdl files) in $work/empty" "verify, empty folder" "$dtb" verify --db "$work/empty"
expect 3 "no DTW files (*.dtw) in $work/db" "line, no .dtw files" "$dtb" line --db "$work/db" W:WK46,K50:BK5
expect 3 "no databases (*.wdl files) in $work/empty" "line, empty folder" "$dtb" line --db "$work/empty" W:WK46:BK5
expect 3 "no databases (*.wdl files) in $work/empty" "probe, empty folder" "$dtb" probe --db "$work/empty" W:WK46:BK5
expect 3 "no databases (*.wdl files) in $work/empty" "stats, empty folder" "$dtb" stats --db "$work/empty"
expect 3 "no DTW files (*.dtw) in $work/db" "probe --rules, no .dtw files" "$dtb" probe --db "$work/db" --rules W:WK46,K50:BK5
printf '[Result "1-1"]\n1. 32-28 19-23 1-1\n' >"$work/game.pdn"
expect 3 "no databases (*.wdl files) in $work/empty" "adjudicate, empty folder" \
  "$dtb" adjudicate --db "$work/empty" "$work/game.pdn"

# Option values refused before any work starts.
expect 2 "--cache-mb" "probe --cache-mb -1" "$dtb" probe --db "$work/db" --cache-mb -1 W:WK46:BK5
expect 2 "--cache-mb" "probe --cache-mb 2^44" "$dtb" probe --db "$work/db" --cache-mb 17592186044416 W:WK46:BK5
expect 2 "--cache-mb" "probe --cache-mb 2^64" "$dtb" probe --db "$work/db" --cache-mb 18446744073709551616 W:WK46:BK5
expect 2 "--cache-mb" "adjudicate --cache-mb -1" "$dtb" adjudicate --db "$work/db" --cache-mb -1 "$work/game.pdn"
expect 2 "--cache-mb" "bench probe --cache-mb -1" "$dtb" bench probe --db "$work/db" --cache-mb -1
expect 0 "W:WK46:BK5${tab}loss" "probe --cache-mb 0" "$dtb" probe --db "$work/db" --cache-mb 0 W:WK46:BK5
for memory in nan inf -inf 1e300 -1 12abc; do
  expect 2 "--memory" "gen --memory $memory" "$dtb" gen --pieces 3 --memory "$memory" --out "$work/never"
done
for block in 7 0 -5 16777220; do
  expect 2 "--block-positions" "gen --block-positions $block" \
    "$dtb" gen --pieces 3 --block-positions "$block" --out "$work/never"
done
[[ -e $work/never ]] && fail "a refused gen created its output folder"

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "cli_hostile: all checks passed"
