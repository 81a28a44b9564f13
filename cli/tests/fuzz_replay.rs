//! Replays the saved inputs of the readers' fuzz target (`fuzz/regressions/readers/`) as an
//! ordinary test: the check is the target's own (`segbatch_cli::io::fuzz_readers`).

#[test]
fn readers_regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/readers");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        eprintln!("{}", path.display());
        segbatch_cli::io::fuzz_readers(&data);
        count += 1;
    }
    assert!(count > 0, "no saved inputs in {}", dir.display());
}
