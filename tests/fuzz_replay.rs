//! Replays the saved inputs of the kernel fuzz targets (`fuzz/regressions/`) as ordinary
//! tests: the checks are the targets' own (`segbatch_testkit::fuzz`).

use std::path::Path;

fn replay(target: &str, check: fn(&[u8]) -> Result<(), String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        if let Err(e) = check(&data) {
            panic!("{}: {e}", path.display());
        }
        count += 1;
    }
    assert!(count > 0, "no saved inputs in {}", dir.display());
}

#[test]
fn kernel_vs_reference_regressions() {
    replay(
        "kernel_vs_reference",
        segbatch_testkit::fuzz::kernel_vs_reference,
    );
}

#[test]
fn kernel_vs_oracle_regressions() {
    replay("kernel_vs_oracle", segbatch_testkit::fuzz::kernel_vs_oracle);
}
