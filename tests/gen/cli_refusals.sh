#!/usr/bin/env bash
# dtb gen from the command line under bad input, a kill at a random moment, and a full disk.
# Usage: cli_refusals.sh DTB [REFERENCE]: REFERENCE, a finished 2-4 build to compare with (built
# here when not given).
set -u
dtb=$1
work=$(mktemp -d)
trap 'umount "$work/tiny" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

expect_code() {  # expected-code description command...
  local want=$1 what=$2; shift 2
  "$@" >"$work/out" 2>"$work/err"; local got=$?
  [ "$got" = "$want" ] || fail "$what: exit $got, expected $want; stderr: $(cat "$work/err")"
}

expect_code 2 "too many pieces" "$dtb" gen --pieces 12 --out "$work/x"
expect_code 2 "unknown material" "$dtb" gen --pieces 3 --material KXvK --out "$work/x"
expect_code 2 "material beyond --pieces" "$dtb" gen --pieces 3 --material KKKvK --out "$work/x"
expect_code 2 "negative memory limit" "$dtb" gen --pieces 3 --memory -1 --out "$work/x"
touch "$work/a-file"
expect_code 3 "output is a file" "$dtb" gen --pieces 2 --out "$work/a-file"
expect_code 3 "verify of a missing folder" "$dtb" verify --db "$work/nowhere"

# A clean reference build.
if [ -n "${2:-}" ]; then
  ln -s "$(cd "$2" && pwd)" "$work/ref"
else
  expect_code 0 "reference build" "$dtb" gen --pieces 4 --out "$work/ref"
fi

# Killed at some moment, then resumed: identical files, and no finished-looking file in between.
for delay in 0.3 1.1 2.3; do
  rm -rf "$work/killed"
  "$dtb" gen --pieces 4 --out "$work/killed" 2>/dev/null & pid=$!
  sleep "$delay"; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  if [ -d "$work/killed" ]; then
    expect_code 0 "stats after a kill at ${delay}s" "$dtb" stats --db "$work/killed"
  fi
  expect_code 0 "resume after a kill at ${delay}s" "$dtb" gen --pieces 4 --out "$work/killed"
  for f in "$work/ref"/*.wdl; do
    cmp -s "$f" "$work/killed/$(basename "$f")" || fail "$(basename "$f") differs after a kill at ${delay}s and a resume"
  done
  ls "$work/killed"/*.tmp >/dev/null 2>&1 && fail "temporary files left after resuming"
done

# A full disk: a clear error, exit 3, and the files already finished stay valid.
mkdir -p "$work/tiny"
if mount -t tmpfs -o size=96k tmpfs "$work/tiny" 2>/dev/null; then
  expect_code 3 "full disk" "$dtb" gen --pieces 4 --out "$work/tiny/db"
  grep -q "No space left on device" "$work/err" || fail "full disk message: $(cat "$work/err")"
  ls "$work/tiny/db"/*.tmp >/dev/null 2>&1 && fail "temporary file left on a full disk"
  expect_code 0 "stats after a full disk" "$dtb" stats --db "$work/tiny/db"
  for f in "$work/tiny/db"/*.wdl; do
    cmp -s "$f" "$work/ref/$(basename "$f")" || fail "$(basename "$f") written on a full disk differs"
  done
  umount "$work/tiny"
else
  echo "note: cannot mount a small tmpfs here (not root?); full-disk case skipped"
fi
echo "cli_refusals: all checks passed"
