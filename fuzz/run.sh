#!/usr/bin/env bash
# Runs one fuzz target for a given time: fuzz/run.sh TARGET SECONDS [extra libFuzzer args]
#
# Targets: kernel_vs_reference, kernel_vs_oracle, readers, sets (fuzz/fuzz_targets/).
# One execution over FUZZ_TIMEOUT seconds (default 10) is a failure (libFuzzer -timeout,
# saved as artifacts/TARGET/timeout-*), so a hang ends a run at once.
# Needs cargo-fuzz (`cargo install cargo-fuzz`); runs on the pinned stable toolchain
# without sanitizers (-s none). Builds for x86-64-v3 like the rest of the repository
# (cargo fuzz's RUSTFLAGS replace .cargo/config.toml's). The corpus grows in
# fuzz/corpus/TARGET (not committed); a failing input lands in fuzz/artifacts/TARGET: copy
# it to fuzz/regressions/TARGET/ so `cargo test` replays it (tests/suite/fuzz_replay.rs,
# cli/tests/suite/fuzz_replay.rs). Prints libFuzzer's final stats (the execution count).
# FUZZ_BUILD_ARGS adds cargo-fuzz flags, e.g. "--no-trace-compares --target-dir target/no-tc"
# (no comparison tracing: the checks are the same, libFuzzer is guided by edge coverage only,
# and the sets target runs about 1.8x as many executions a second; docs/fuzzing.md), or
# "-a --target-dir target/debug-assertions" (debug assertions and overflow checks on in the
# release build, so an arithmetic overflow or a failed debug_assert! is a crash too; its own
# target directory keeps the build without them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
target=${1:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer args]}
seconds=${2:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer args]}
shift 2
mkdir -p "corpus/$target"
export RUSTFLAGS="${FUZZ_RUSTFLAGS--C target-cpu=x86-64-v3}"
# Seed from the committed regressions so every run starts from the known hard inputs.
# shellcheck disable=SC2086 # FUZZ_BUILD_ARGS is a list of flags
exec cargo fuzz run -s none --release ${FUZZ_BUILD_ARGS-} "$target" "corpus/$target" "regressions/$target" -- \
    -max_total_time="$seconds" -malloc_limit_mb=256 -rss_limit_mb=1024 -max_len=4096 \
    -timeout="${FUZZ_TIMEOUT-10}" -print_final_stats=1 "$@"
