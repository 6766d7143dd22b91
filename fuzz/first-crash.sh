#!/usr/bin/env bash
# Measures how long one fuzz target takes to find its first crash: runs it once, at nice 10,
# one job and one worker (`-jobs=1 -workers=1`), with libFuzzer seed SEED, for at most SECONDS,
# from CORPUS ("empty": a new empty folder; "seeds": a temporary copy of fuzz/corpus/<target>,
# so the checked-in folder is not written). Prints the wall time from start to the job's end
# (which is the first crash when there is one), the executions, the first lines of the crash
# report, and where the reproducer went (fuzz/artifacts/<target>/). schema_compiler runs with
# `-len_control=0 -max_len=512` (as in run.sh).
#
# Usage: bash fuzz/first-crash.sh TARGET SEED SECONDS empty|seeds
set -euo pipefail
cd "$(dirname "$0")"
fuzz_dir=$(pwd)
target=$1 seed=$2 seconds=$3 from=$4

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus"
corpora=("$work/corpus")
case $from in
empty) ;;
seeds) corpora+=("$fuzz_dir/corpus/$target") ;;
*) echo "first-crash: the corpus is 'empty' or 'seeds'" >&2; exit 2 ;;
esac
mkdir -p "artifacts/$target"
before=$(ls "artifacts/$target" | sort)

# Per-target libFuzzer options, as in run.sh: the structure-aware schema target gets no length
# ramp (its shapes need 20 to 60 bytes; the ramp kept inputs at 68 bytes for 5 minutes).
extra=()
[ "$target" = schema_compiler ] && extra=(-len_control=0 -max_len=512)

# Build first (a no-op when fresh) so that the wall time is fuzzing only.
cargo +nightly fuzz build "$target" >/dev/null 2>&1
start=$(date +%s.%N)
set +e
# With -jobs the job's output goes to fuzz-0.log in the working directory.
(cd "$work" && nice -n 10 cargo +nightly fuzz run --fuzz-dir "$fuzz_dir" "$target" \
    "${corpora[@]}" -- -seed="$seed" -max_total_time="$seconds" -jobs=1 -workers=1 \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${extra[@]}" >"$work/cargo.log" 2>&1)
rc=$?
set -e
end=$(date +%s.%N)
log=$work/fuzz-0.log
[ -f "$log" ] || log=$work/cargo.log

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
# libFuzzer names the reproducer by its hash: an earlier run may have written the same file.
new=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | head -1)
new=${new##*/}
[ -n "$new" ] || new=$(comm -13 <(echo "$before") <(ls "artifacts/$target" | sort) | head -1)
printf 'first-crash: %s seed %s from %s: %.1f s wall, %s executions (%s exec/s), exit %s\n' \
    "$target" "$seed" "$from" "$(echo "$end - $start" | bc)" "${execs:-?}" "${rate:-?}" "$rc"
if [ -n "$new" ]; then
    echo "first-crash: reproducer fuzz/artifacts/$target/$new"
    grep -m1 -E "panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer" "$log" || true
    grep -m1 -A1 "panicked at" "$log" | tail -1 || true
    grep -m3 -E "^ +#[0-9]+ .* in .*embedded_mcp" "$log" || true
else
    echo "first-crash: no crash"
fi
