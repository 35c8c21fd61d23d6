#!/usr/bin/env bash
# dtb verify --record: a check stopped part way resumes where it stopped, and a material whose
# files (or whose successors' files) changed since it was recorded is checked again.
#   verify_record_cli.sh DTB DB4 WORK
set -euo pipefail
dtb=$1 reference=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/db"
cp "$reference"/*.wdl "$work/db/"
db=$work/db record=$work/record.tsv
materials=$(ls "$db"/*.wdl | wc -l)

# positions_of OUT: N of the summary line "ok<TAB>positions checked N<TAB>..." in a run's output;
# checked_again ERR: how many materials a run checked (rather than took from the record).
positions_of() { sed -n 's/.*positions checked \([0-9]*\).*/\1/p' "$1"; }
checked_again() { grep -c '^checking values of ' "$1" || true; }

"$dtb" verify --db "$db" --record "$record" > "$work/out1" 2> "$work/err1" || fail "first verify failed"
grep -q '^ok' "$work/out1" || fail "first verify did not say ok"
[ "$(wc -l < "$record")" = "$materials" ] || fail "record holds $(wc -l < "$record") lines for $materials materials"
# The record's positions add up to those the run checked.
[ "$(awk -F'\t' '{s += $3} END {print s}' "$record")" = "$(positions_of "$work/out1")" ] || fail "record positions"

# Run again: nothing is checked, the same positions are reported.
"$dtb" verify --db "$db" --record "$record" > "$work/out2" 2> "$work/err2" || fail "second verify failed"
[ "$(checked_again "$work/err2")" = 0 ] || fail "the second run checked materials again"
[ "$(grep -c '^checked before' "$work/err2")" = "$materials" ] || fail "the second run did not skip every material"
[ "$(positions_of "$work/out2")" = "$(positions_of "$work/out1")" ] || fail "positions differ on the second run"
grep -q "materials checked before $materials" "$work/out2" || fail "the summary does not count the skipped materials"

# A run killed part way: the last ten lines lost, and a line cut in the middle. Exactly those
# eleven materials are checked again, and the record is whole again afterwards.
head -n $((materials - 11)) "$work/record.tsv" > "$work/cut.tsv"
sed -n "$((materials - 10))p" "$work/record.tsv" | head -c 7 >> "$work/cut.tsv"
mv "$work/cut.tsv" "$record"
"$dtb" verify --db "$db" --record "$record" > "$work/out3" 2> "$work/err3" || fail "resumed verify failed"
[ "$(checked_again "$work/err3")" = 11 ] || fail "the resumed run checked $(checked_again "$work/err3") materials, not 11"
[ "$(positions_of "$work/out3")" = "$(positions_of "$work/out1")" ] || fail "positions differ after resuming"
"$dtb" verify --db "$db" --record "$record" 2> "$work/err4" > /dev/null || fail "verify after resuming failed"
[ "$(checked_again "$work/err4")" = 0 ] || fail "the record was not whole again after resuming"

# A changed file: KvK is read by the check of KvK itself and by every material that reaches it in
# one move (KKvK, KvKK by a capture; KvM, MvK by a promotion; ...); a 4-piece material such as
# KKvKK reads only 3-piece files.
touch -d '2001-01-01' "$db/KvK.wdl"
"$dtb" verify --db "$db" --record "$record" > /dev/null 2> "$work/err5" || fail "verify after touching KvK failed"
grep -q '^checking values of KvK$' "$work/err5" || fail "KvK, changed, was not checked again"
grep -q '^checking values of KKvK$' "$work/err5" || fail "KKvK, which reads KvK, was not checked again"
grep -q '^checked before (.*): KKvKK$' "$work/err5" || fail "KKvKK, which does not read KvK, was checked again"

# A corrupted file fails its check, with or without the record, and is not recorded as sound.
file=$db/KKvKK.wdl
size=$(stat -c %s "$file")
printf '\xff\xff\xff\xff' | dd of="$file" bs=1 seek=$((size - 40)) conv=notrunc status=none
code=0; "$dtb" verify --db "$db" --record "$record" > "$work/out6" 2> /dev/null || code=$?
[ "$code" != 0 ] || fail "verify of a corrupted file exited 0"
grep -q '^FAILED' "$work/out6" || fail "verify of a corrupted file did not say FAILED"
[ "$(grep -c "^KKvKK	" "$record")" = 1 ] || fail "the corrupted KKvKK was recorded again"
code=0; "$dtb" verify --db "$db" --record "$record" > /dev/null 2>&1 || code=$?
[ "$code" != 0 ] || fail "a second verify of the corrupted file exited 0: its old record line was trusted"

# A record that cannot be written: a clear error and a non-zero exit.
code=0; "$dtb" verify --db "$reference" --material KvK --record "$work/no/such/folder/record.tsv" > /dev/null 2> "$work/err7" || code=$?
[ "$code" != 0 ] || fail "an unwritable record exited 0"
grep -q 'cannot write the record' "$work/err7" || fail "no error for an unwritable record: $(cat "$work/err7")"
echo "verify --record: resumes, rechecks changed files, refuses an unwritable record"
