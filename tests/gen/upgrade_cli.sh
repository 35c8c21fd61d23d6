#!/usr/bin/env bash
# dtb upgrade: the version-1 files of tests/data/format-v1 (written by dtb on 2026-11-26 with
# `dtb gen --pieces 3 -m KKvK -m MvM --dtw --block-positions 1000`) become byte for byte the files
# that command writes now (same zstd level; a zstd release that compresses differently would show
# here first), and the refusals of bad folders.
#   upgrade_cli.sh DTB SOURCE_DIR WORK
set -euo pipefail
dtb=$1 source=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/old" "$work/empty"
cp "$source"/tests/data/format-v1/* "$work/old/"
files=$(ls "$work/old" | wc -l)
# run_upgrade DIR: dtb upgrade of DIR, its output in $work/out and $work/err, its exit code in rc.
run_upgrade() { set +e; "$dtb" upgrade --db "$1" > "$work/out" 2> "$work/err"; rc=$?; set -e; }

# verify says which files are of version 1, and stops saying it once they are upgraded.
"$dtb" verify --db "$work/old" > /dev/null 2> "$work/err" || fail "the version-1 folder does not verify"
grep -q "^note: $files files (KKvK.dtw, ...) are of format version 1" "$work/err" || fail "verify's note: $(tail -1 "$work/err")"
"$dtb" upgrade --db "$work/old" > "$work/out" 2> "$work/err" || fail "upgrade failed: $(cat "$work/err")"
[ "$(grep -c '^upgraded	' "$work/out")" = "$files" ] || fail "not every file was upgraded: $(cat "$work/out")"
grep -q "^$files files rewritten as format version 2, 0 already of it, 0 not readable$" "$work/out" ||
  fail "summary: $(tail -1 "$work/out")"

"$dtb" gen --pieces 3 -m KKvK -m MvM --dtw --block-positions 1000 --out "$work/new" > /dev/null 2>&1 || fail "gen failed"
for f in "$work"/old/*; do
  cmp -s "$f" "$work/new/$(basename "$f")" || fail "$(basename "$f") differs from what dtb gen writes"
done
"$dtb" verify --db "$work/old" > /dev/null 2> "$work/err" || fail "the upgraded folder does not verify"
grep -q "format version 1" "$work/err" && fail "verify still speaks of version 1 after the upgrade"

# Again: nothing to do, nothing changed.
cp -r "$work/old" "$work/again"
"$dtb" upgrade --db "$work/again" > "$work/out" 2>&1 || fail "a second upgrade failed"
grep -q "^0 files rewritten as format version 2, $files already of it, 0 not readable$" "$work/out" || fail "second run: $(cat "$work/out")"
for f in "$work"/again/*.wdl "$work"/again/*.dtw; do cmp -s "$f" "$work/old/$(basename "$f")" || fail "$f changed"; done

# A version-1 file with a damaged block stays as it was; the others are upgraded; exit 3.
mkdir -p "$work/damaged"
cp "$source"/tests/data/format-v1/* "$work/damaged/"
size=$(stat -c %s "$work/damaged/KKvK.wdl")
printf '\xff\xff\xff\xff' | dd of="$work/damaged/KKvK.wdl" bs=1 seek=$((size - 40)) conv=notrunc status=none
cp "$work/damaged/KKvK.wdl" "$work/KKvK.wdl.damaged"
run_upgrade "$work/damaged"
[ "$rc" = 3 ] || fail "a damaged file: exit $rc, not 3"
grep -q "KKvK.wdl: block" "$work/err" || fail "the damaged block is not named: $(cat "$work/err")"
cmp -s "$work/damaged/KKvK.wdl" "$work/KKvK.wdl.damaged" || fail "the damaged file was changed"
grep -q "^$((files - 1)) files rewritten as format version 2, 0 already of it, 1 not readable$" "$work/out" ||
  fail "damaged: $(tail -1 "$work/out")"
ls "$work/damaged" | grep -q '\.tmp$' && fail "a temporary file was left behind"

# A link to a version-1 file is not replaced by a copy: exit 3, the link and its target unchanged.
mkdir -p "$work/links"
ln -s "$work/damaged/KKvK.wdl" "$work/links/KKvK.wdl"
ln -s "$work/again/KvK.wdl" "$work/links/KvK.wdl"
run_upgrade "$work/links"
[ "$rc" = 3 ] || fail "a link to a version-1 file: exit $rc, not 3"
grep -q "KKvK.wdl is a symbolic link" "$work/err" || fail "the link is not named: $(cat "$work/err")"
[ -L "$work/links/KKvK.wdl" ] || fail "the link was replaced"
grep -q "^0 files rewritten as format version 2, 1 already of it, 1 not readable$" "$work/out" ||
  fail "links: $(tail -1 "$work/out")"

# A full disk: exit 3 with the reason, the file that did not fit as it was, nothing left behind;
# once there is room, the same command finishes the work.
mkdir -p "$work/tiny"
if mount -t tmpfs -o size=56k tmpfs "$work/tiny" 2>/dev/null; then
  trap 'umount "$work/tiny" 2>/dev/null || true' EXIT
  cp "$source"/tests/data/format-v1/* "$work/tiny/"
  run_upgrade "$work/tiny"
  if grep -q "No space left on device" "$work/err"; then
    [ "$rc" = 3 ] || fail "full disk: exit $rc, not 3"
    echo "upgrade_cli: full disk: $(grep -c "No space" "$work/err") file(s) did not fit"
    ls "$work/tiny" | grep -q '\.tmp$' && fail "a temporary file was left on a full disk"
    for f in "$work"/tiny/*.wdl "$work"/tiny/*.dtw; do
      if ! cmp -s "$f" "$work/new/$(basename "$f")"; then
        cmp -s "$f" "$source/tests/data/format-v1/$(basename "$f")" || fail "$(basename "$f") is neither version after a full disk"
      fi
    done
    mkdir -p "$work/room" && mv "$work/tiny/KvK.dtw" "$work/room/"
    "$dtb" upgrade --db "$work/tiny" > "$work/out" 2>&1 || fail "upgrade with room again: $(cat "$work/out")"
    for f in "$work"/tiny/*.wdl "$work"/tiny/*.dtw; do cmp -s "$f" "$work/new/$(basename "$f")" || fail "$(basename "$f") after the full disk"; done
  else
    echo "upgrade_cli: the 56 KiB file system did not fill (rc $rc); full-disk check skipped"
  fi
  umount "$work/tiny"
fi

# Bad folders: exit 3 with a reason; no --db: exit 2.
expect() {  # expect CODE MESSAGE ARGS...
  local code=$1 message=$2; shift 2
  set +e; "$dtb" "$@" > "$work/out" 2> "$work/err"; local rc=$?; set -e
  [ "$rc" = "$code" ] || fail "$*: exit $rc, not $code"
  grep -q "$message" "$work/err" || fail "$*: no '$message' in: $(cat "$work/err")"
}
expect 3 "not a folder" upgrade --db "$work/missing"
expect 3 "no databases" upgrade --db "$work/empty"
expect 2 "db is required" upgrade
echo "upgrade_cli: ok"
