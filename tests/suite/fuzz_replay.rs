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

#[test]
fn sets_regressions() {
    replay("sets", segbatch_testkit::fuzz::sets);
}

/// The saved inputs of the `sets` target exercise every query: brute force finds self
/// pairs, A-B pairs, first hits and 2D crossings among them (so their replay compares
/// something), and the decoder makes the classes it promises.
#[test]
fn sets_regressions_exercise_every_query() {
    use segbatch::planar::{Crossing, Segment2};
    use segbatch::reference;
    use segbatch_testkit::brute::{shares_endpoint, within};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/sets");
    let (mut selfs, mut ab, mut hits, mut crossings, mut duplicates, mut shared) =
        (0, 0, 0, 0, 0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case =
            segbatch_testkit::fuzz::decode_set(&std::fs::read(entry.unwrap().path()).unwrap());
        let set = &case.set;
        let (a, b) = set.split_at(case.split);
        selfs += within(set, set, case.radius, &segbatch::Options::SEGMENTS, true).len();
        ab += within(a, b, case.radius, &segbatch::Options::SEGMENTS, false).len();
        for (i, x) in set.iter().enumerate() {
            for y in set.iter().skip(i + 1) {
                duplicates += usize::from(x == y);
                shared += usize::from(shares_endpoint(x, y));
                let flat =
                    |s: &segbatch::Segment| Segment2::new([s.p0[0], s.p0[1]], [s.p1[0], s.p1[1]]);
                crossings += usize::from(
                    reference::intersect2(&flat(x), &flat(y)).kind != Crossing::Disjoint,
                );
            }
            hits += b
                .iter()
                .filter(|w| reference::first_hit(x, case.radius, case.range, w).is_some())
                .count();
        }
    }
    let counts = [selfs, ab, hits, crossings, duplicates, shared];
    assert!(
        counts.iter().all(|&c| c > 0),
        "self, A-B, first hits, crossings, duplicates, shared ends: {counts:?}"
    );
}
