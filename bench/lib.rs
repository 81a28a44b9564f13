//! segbatch's benchmarks (`benches/`, criterion) and profiling examples (`examples/`), in a
//! package of their own so that their peers (parry3d, criterion) stay out of the library's
//! test builds. This library target is empty: `cargo bench -p segbatch-bench --bench sets`
//! runs a group, `cargo run --release -p segbatch-bench --example kernel_profile` a profile.
