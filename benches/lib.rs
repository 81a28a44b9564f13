//! segbatch's benchmarks (criterion, one file a group beside this one) and profiling
//! examples (`examples/`), in a package of their own so that their peers (parry3d,
//! criterion) stay out of the library's test builds. This library target is empty: `cargo
//! bench --bench sets` runs a group from the repository root, `cargo run --release
//! --features profiling --example kernel_profile` a profile.
