//! (a) The 8-lane kernel against the scalar reference on arbitrary bit patterns: the same
//! bits (x86_64), no panic. The check is `segbatch_testkit::fuzz::kernel_vs_reference`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = segbatch_testkit::fuzz::kernel_vs_reference(data) {
        panic!("{e}");
    }
});
