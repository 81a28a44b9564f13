//! (d) The set queries (self pairs, A against B, the index's pairs and first hits, 2D
//! crossings; collected and streamed) against brute force over the scalar reference, on
//! small arbitrary sets with duplicates, collinear pieces and shared end points, at
//! ordinary and extreme scales (the whole `f32` range, walls from `-f32::MAX` to
//! `f32::MAX`, subnormal coordinates) and radii (`f32::MAX`, `1e30`, `1e-45`); crossing
//! points finite and on their segments; and the set widened to `f64` and scaled to an
//! edge of `f64`'s range, whose radius queries must report the unscaled set's pairs (the
//! range rule). The check is `segbatch_testkit::fuzz::sets`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = segbatch_testkit::fuzz::sets(data) {
        panic!("{e}");
    }
});
