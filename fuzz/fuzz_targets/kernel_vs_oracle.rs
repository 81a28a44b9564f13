//! (b) The kernel against the f64 oracle on finite inputs in the documented range: the
//! accuracy bar. The check is `segbatch_testkit::fuzz::kernel_vs_oracle`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = segbatch_testkit::fuzz::kernel_vs_oracle(data) {
        panic!("{e}");
    }
});
