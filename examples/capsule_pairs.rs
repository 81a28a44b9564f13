//! Physics-style narrow phase: capsule bodies, candidate pairs from a grid broad phase,
//! then one batched "do these capsules touch?" call.
//!
//! `cargo run --release --example capsule_pairs [bodies]`

use segbatch::pairs::{Radii, capsules_touch, par_capsules_touch};
use segbatch::{Segment, Segments};
use segbatch_testkit::Rng;
use std::time::Instant;

fn main() {
    let bodies: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let world = (bodies as f32).cbrt() * 2.0;
    let mut rng = Rng::new(42);
    // Capsules: a core segment up to 1.5 long and a radius in [0.05, 0.3].
    let capsules: Vec<(Segment, f32)> = (0..bodies)
        .map(|_| {
            let p = [
                rng.unit_f32() * world,
                rng.unit_f32() * world,
                rng.unit_f32() * world,
            ];
            let d = [
                rng.unit_f32() - 0.5,
                rng.unit_f32() - 0.5,
                rng.unit_f32() - 0.5,
            ];
            let q = [p[0] + 1.5 * d[0], p[1] + 1.5 * d[1], p[2] + 1.5 * d[2]];
            (Segment::new(p, q), 0.05 + 0.25 * rng.unit_f32())
        })
        .collect();

    // Broad phase (stand-in for a BVH or sweep): bodies whose first end points share a grid
    // cell of size 2 become candidate pairs.
    let t = Instant::now();
    let cell = |p: [f32; 3]| (p.map(|x| (x / 2.0) as i32), ());
    let mut keyed: Vec<(([i32; 3], ()), usize)> = capsules
        .iter()
        .enumerate()
        .map(|(i, (s, _))| (cell(s.p0), i))
        .collect();
    keyed.sort_unstable_by_key(|(k, i)| (k.0, *i));
    let (mut a, mut b) = (Segments::new(), Segments::new());
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    for run in keyed.chunk_by(|x, y| x.0 == y.0) {
        for (x, &(_, i)) in run.iter().enumerate() {
            for &(_, j) in &run[x + 1..] {
                a.push(capsules[i].0);
                b.push(capsules[j].0);
                ra.push(capsules[i].1);
                rb.push(capsules[j].1);
            }
        }
    }
    let broad = t.elapsed();
    let radii = Radii::per_pair(&ra, &rb).unwrap();

    let t = Instant::now();
    let mask = capsules_touch(&a, &b, radii);
    let seq = t.elapsed();
    let t = Instant::now();
    let par = par_capsules_touch(&a, &b, radii);
    let par_time = t.elapsed();
    assert_eq!(mask, par);
    let t = Instant::now();
    let contacts: Vec<usize> = mask.iter_ones().collect();
    let list = t.elapsed();

    println!("{bodies} capsules in a {world:.0}^3 world");
    println!("broad phase: {} candidate pairs in {broad:.2?}", a.len());
    println!(
        "narrow phase: {} touching pairs; mask {seq:.2?} ({:.0} M pairs/s), parallel {par_time:.2?}, index list {list:.2?}",
        mask.count_ones(),
        a.len() as f64 / seq.as_secs_f64() / 1e6
    );
    for &k in contacts.iter().take(2) {
        println!(
            "  pair {k}: radii {:.2} + {:.2}, core segments {:?} / {:?}",
            ra[k],
            rb[k],
            a.get(k).expect("a touching pair"),
            b.get(k).expect("a touching pair")
        );
    }
}
