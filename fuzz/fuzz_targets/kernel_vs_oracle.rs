//! (b) The kernel against the f64 oracle on finite inputs in the documented range: the
//! accuracy bar; and those pairs widened to `f64` against their copies scaled to an edge
//! of `f64`'s range (the rescaled oracle of the range rule: the same parameters,
//! decisions, first contacts, and distances times the scale). The check is
//! `segbatch_testkit::fuzz::kernel_vs_oracle`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = segbatch_testkit::fuzz::kernel_vs_oracle(data) {
        panic!("{e}");
    }
});
