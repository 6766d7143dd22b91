#!/usr/bin/env bash
# Builds every fuzz target and runs each for SECONDS (default 20) from its corpus
# (fuzz/corpus/<target>: the checked-in seed-* files plus whatever earlier runs found), as many
# targets at a time as there are cores (FUZZ_JOBS to choose). Prints executions, coverage and
# corpus size per target; exits non-zero when a target crashes, leaks, times out (an input
# taking over 10 s) or goes over 2 GB of RSS, with the reproducer in fuzz/artifacts/<target>/.
#
# New inputs found are kept in fuzz/corpus/<target> (git ignores all but seed-*), unless
# FUZZ_KEEP_CORPUS=0 (what scripts/test.sh, i.e. CI, sets): then that folder is only read and what
# the run finds goes to a temporary folder removed at exit, so every run starts from the same
# corpus and leaves the checkout as it found it (reproducers still land in fuzz/artifacts/).
#
# Needs the nightly toolchain; installs cargo-fuzz (`cargo install cargo-fuzz --locked --debug`)
# when it is missing.
#
# Usage: bash fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")"

step_start=$(date +%s)
seconds=${1:-20}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
    targets=(line_reader engine result_decoder schema_compiler schema_compiler_text validator program_loader)
fi

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz: the nightly toolchain is missing: rustup toolchain install nightly" >&2
    exit 2
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz" >&2
    start=$(date +%s)
    # A debug build: the command only drives cargo and libFuzzer, and compiles in about half the
    # time of a release build.
    cargo install cargo-fuzz --locked --debug >&2
    echo "fuzz: cargo-fuzz installed in $(($(date +%s) - start)) s" >&2
fi

start=$(date +%s)
cargo +nightly fuzz build >&2
echo "fuzz: targets built in $(($(date +%s) - start)) s" >&2

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# run_one TARGET: fuzzes TARGET for $seconds s; writes its summary line to $logs/TARGET.summary
# (and the end of its log to stderr when it fails).
run_one() {
    local t=$1 corpora extra rc execs last cov ft corp rate verdict
    mkdir -p "corpus/$t" "artifacts/$t"
    # libFuzzer writes new inputs into the first corpus folder and only reads the others.
    corpora=("corpus/$t")
    if [ "${FUZZ_KEEP_CORPUS:-1}" = 0 ]; then
        mkdir "$logs/corpus-$t"
        corpora=("$logs/corpus-$t" "corpus/$t")
    fi
    # The structure-aware schema target gets no length ramp: its shapes need 20 to 60 bytes,
    # and the ramp kept inputs at 68 bytes for 5 minutes (README, "Structure-aware").
    extra=()
    [ "$t" = schema_compiler ] && extra=(-len_control=0 -max_len=512)
    echo "fuzz: $t for $seconds s" >&2
    rc=0
    cargo +nightly fuzz run "$t" "${corpora[@]}" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        "${extra[@]}" >"$logs/$t.log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
    last=$(grep -E "^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)" "$logs/$t.log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
    rate=$(sed -n 's/.* exec\/s: \([0-9]*\).*/\1/p' <<<"$last")
    if ((rc == 0)); then
        verdict=ok
    else
        verdict="FAILED (exit $rc)"
        {
            echo "----- $t: last lines of the log -----"
            tail -60 "$logs/$t.log"
            ls "artifacts/$t" || true
        } >&2
    fi
    printf '%-16s %12s execs %8s exec/s  cov %6s  ft %6s  corpus %-12s %s\n' \
        "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$verdict" \
        >"$logs/$t.summary"
}

# One libFuzzer process uses one core: FUZZ_JOBS targets (default: the cores there are) run at
# once, each still for its full $seconds, so every target gets the same fuzzing as one at a time.
jobs=${FUZZ_JOBS:-$(nproc)}
running=0
for t in "${targets[@]}"; do
    if ((running >= jobs)); then
        wait -n || true
        running=$((running - 1))
    fi
    run_one "$t" &
    running=$((running + 1))
done
wait || true
summary=()
status=0
for t in "${targets[@]}"; do
    line=$(cat "$logs/$t.summary" 2>/dev/null || echo "$t (no summary: the run died) FAILED")
    summary+=("$line")
    [[ "$line" == *FAILED* ]] && status=1
done

echo
echo "fuzz: ${seconds} s per target; the whole step took $(($(date +%s) - step_start)) s"
printf '%s\n' "${summary[@]}"
# The plain closing line CI reads: targets that ran clean and targets that failed.
failed=$(printf '%s\n' "${summary[@]}" | grep -c FAILED || true)
echo "fuzz: $((${#summary[@]} - failed)) passed, $failed failed"
exit $status
