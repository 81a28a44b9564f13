#!/bin/sh
# Builds the segbatch wheel that runs on any x86-64 CPU: the extension twice, once for
# baseline x86-64 (SSE2; `segbatch._segbatch`) and once for x86-64-v3 (AVX2 + FMA;
# `segbatch._segbatch_v3`), in one abi3 wheel (CPython 3.9 and later) tagged manylinux.
# `import segbatch` picks the v3 copy when the CPU has AVX2/FMA/BMI (SEGBATCH_SIMD=baseline
# forces the other). `wide` chooses its instructions at compile time only, hence two builds.
#
# Usage, from the repository root, with maturin installed:
#   sh python/build-wheel.sh [OUT_DIR] [extra maturin build arguments]
# Default OUT_DIR: target/wheels. The manylinux tag is the oldest the host's glibc allows
# (maturin checks the symbols); pass e.g. `--compatibility manylinux2014 --zig` for older.
set -eu
out="${1:-target/wheels}"
[ $# -gt 0 ] && shift
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
v3="$root/python/segbatch/_segbatch_v3.abi3.so"
trap 'rm -f "$v3"' EXIT INT TERM HUP
# The x86-64-v3 copy, named _segbatch_v3; RUSTFLAGS replaces .cargo/config.toml's flags.
RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR="$target/wheel-v3" \
    cargo build --release --quiet -p segbatch-python --features v3-module --manifest-path "$root/Cargo.toml"
cp "$target/wheel-v3/release/lib_segbatch.so" "$v3"
# The baseline copy, built by maturin, which also packs python/segbatch (with the v3 copy).
RUSTFLAGS="-C target-cpu=x86-64" CARGO_TARGET_DIR="$target/wheel-base" \
    maturin build --release --quiet -m "$root/python/Cargo.toml" --out "$out" "$@"
