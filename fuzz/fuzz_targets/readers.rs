//! (c) The CSV, .npy and raw readers of `segbatch run` and of the set commands (pairs of
//! segments, 3D and 2D segments) on arbitrary bytes, as a regular
//! file and as a stream: an error or a count, never a panic or an unbounded allocation
//! (run.sh sets libFuzzer's -malloc_limit_mb), and the stored number type taken from the
//! format, not the run's precision (raw f32 widened in f64, raw f64 never narrowed). The
//! check is `segbatch_cli::io::fuzz_readers`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    segbatch_cli::io::fuzz_readers(data);
});
