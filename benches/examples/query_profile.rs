//! The harness behind the instruction counts per group in docs/architecture.md and
//! docs/performance.md: runs one query `reps` times on `pairs` random pairs (the benches'
//! distribution), through the public `_into` forms with reused outputs.
//!
//! ```text
//! cargo run --release --features profiling --example query_profile -- MODE [reps] [pairs]
//!   MODE: all | params | dist | ray (closest points: every column, s/t/dist2/flags,
//!         distance only, ray vs segment), nav | stress (s/t/dist2/flags on `segbatch
//!         bench`'s navigation rays and near-parallel stress mix), otm (one-to-many), caps (capsules, per-pair
//!         radii), cpa | contact | i2 (motion and 2D, batched), cpa_s | contact_s | i2_s
//!         (their scalar references), flags (how many bench pairs take the rare-case path),
//!         p64 | p64_s (the same pairs widened to f64: closest_points s/t/dist2/flags, and
//!         its scalar reference, reference::closest_points), cpa64 | cpa64_s (the widened
//!         pairs through cpa_into over segments, and reference::cpa, in f64)
//! cargo build --release --features profiling --example query_profile
//! valgrind --tool=callgrind target/release/examples/query_profile cpa 20 4096   # and with 0
//! ```
//!
//! Instructions per group of 8 = (count with 20 calls - count with 0 calls) / (20 · 4096 / 8).
use segbatch::motion::*;
use segbatch::pairs::*;
use segbatch::planar::*;
use segbatch::*;
use segbatch_testkit::motion::step_pairs;
use std::hint::black_box;

fn main() {
    let mode = std::env::args().nth(1).unwrap_or("cpa".into());
    let reps: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(100);
    let n: usize = std::env::args()
        .nth(3)
        .map(|s| s.parse().unwrap())
        .unwrap_or(4096);
    let (a, b, ra, rb) = step_pairs(n);
    let (sa, sb) = (Segments::from(&a), Segments::from(&b));
    let flat = |s: &Segment| Segment2::new([s.p0[0], s.p0[1]], [s.p1[0], s.p1[1]]);
    let a2: Vec<Segment2> = a.iter().map(flat).collect();
    let b2: Vec<Segment2> = b.iter().map(flat).collect();
    let (sa2, sb2) = (Segments2::from(&a2[..]), Segments2::from(&b2[..]));
    let mut cpa_out = CpaBatch::new();
    let mut con_out = ContactBatch::new();
    let mut i2_out = Intersections2::new();
    let mut res = vec![0.0f32; n];
    let wide = |s: &Segment| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from));
    let (a64, b64): (Vec<Segment64>, Vec<Segment64>) =
        (a.iter().map(wide).collect(), b.iter().map(wide).collect());
    let (sa64, sb64) = (Segments64::from(&a64), Segments64::from(&b64));
    let mut out64 = ClosestBatch64::new();
    let mut cpa_out64 = CpaBatch::<f64>::new();
    let mut res64 = vec![0.0f64; n];
    let radii = Radii::per_pair(&ra, &rb).expect("radii are positive");
    let ray = Options::new(Extent::Ray, Extent::Segment);
    let (mut out, mut mask) = (ClosestBatch::new(), PairMask::new());
    // Allocate every output once, outside the measured difference.
    let opts = &Options::SEGMENTS;
    closest_points_into(&sa, &sb, opts, Outputs::ALL, &mut out).unwrap();
    capsules_touch_into(&sa, &sb, radii, opts, &mut mask).unwrap();
    cpa_into(&sa, &sb, Window::STEP, &mut cpa_out).unwrap();
    first_contact_into(&sa, &sb, radii, Window::STEP, &mut con_out).unwrap();
    intersect2_into(&sa2, &sb2, &mut i2_out).unwrap();
    closest_points_into(&sa64, &sb64, opts, Outputs::ALL, &mut out64).unwrap();
    cpa_into(&sa64, &sb64, Window::STEP, &mut cpa_out64).unwrap();
    if mode == "flags" {
        for n in [4096usize, 262_144] {
            let (a, b, _, _) = step_pairs(n);
            let (sa, sb) = (Segments::from(&a), Segments::from(&b));
            let c = cpa(&sa, &sb, Window::STEP);
            let a2: Vec<Segment2> = a.iter().map(flat).collect();
            let b2: Vec<Segment2> = b.iter().map(flat).collect();
            let x = intersect2(&Segments2::from(&a2[..]), &Segments2::from(&b2[..]));
            println!(
                "n {n}: cpa flagged {}, 2d flagged {}",
                c.flags().iter().filter(|f| !f.is_empty()).count(),
                x.flags().iter().filter(|f| !f.is_empty()).count()
            );
        }
        return;
    }
    // The bench's special-lane workloads (most groups hold a degenerate or parallel lane).
    let workload = |pair: fn(&mut segbatch_testkit::Rng) -> (Segment, Segment)| {
        let mut rng = segbatch_testkit::Rng::new(1);
        let (a, b): (Vec<Segment>, Vec<Segment>) = (0..n).map(|_| pair(&mut rng)).unzip();
        (Segments::from(&a), Segments::from(&b))
    };
    let (na, nb) = workload(segbatch_testkit::pairs::navigation);
    let (xa, xb) = workload(segbatch_testkit::pairs::stress_mix);
    let t = std::time::Instant::now();
    for _ in 0..reps {
        match mode.as_str() {
            "all" | "params" | "dist" | "ray" => {
                let (options, outputs) = match mode.as_str() {
                    "all" => (&Options::SEGMENTS, Outputs::ALL),
                    "params" => (&Options::SEGMENTS, Outputs::PARAMS),
                    "dist" => (&Options::SEGMENTS, Outputs::DISTANCE),
                    _ => (&ray, Outputs::PARAMS),
                };
                closest_points_into(black_box(&sa), black_box(&sb), options, outputs, &mut out)
                    .unwrap();
                black_box(&out);
            }
            "nav" | "stress" => {
                let (a, b, options) = match mode.as_str() {
                    "nav" => (&na, &nb, &ray),
                    _ => (&xa, &xb, &Options::SEGMENTS),
                };
                closest_points_into(
                    black_box(a),
                    black_box(b),
                    options,
                    Outputs::PARAMS,
                    &mut out,
                )
                .unwrap();
                black_box(&out);
            }
            "p64" => {
                let (o, params) = (&Options::SEGMENTS, Outputs::PARAMS);
                closest_points_into(black_box(&sa64), black_box(&sb64), o, params, &mut out64)
                    .unwrap();
                black_box(&out64);
            }
            "p64_s" => {
                for ((x, y), o) in black_box(&a64).iter().zip(black_box(&b64)).zip(&mut res64) {
                    let c = reference::closest_points(x, y);
                    *o = c.dist2 + c.s + c.t + f64::from(c.flags.bits());
                }
                black_box(&res64);
            }
            "cpa64" => {
                cpa_into(
                    black_box(&sa64),
                    black_box(&sb64),
                    Window::STEP,
                    &mut cpa_out64,
                )
                .unwrap();
                black_box(&cpa_out64);
            }
            "cpa64_s" => {
                for ((x, y), o) in black_box(&a64).iter().zip(black_box(&b64)).zip(&mut res64) {
                    let c = reference::cpa(x, y, Window::STEP);
                    *o = c.dist2 + c.t + c.point_a[0] + c.point_b[0];
                }
                black_box(&res64);
            }
            "otm" => {
                let one = black_box(&a[0]);
                let opts = &Options::SEGMENTS;
                closest_points_one_to_many_into(one, &sb, opts, Outputs::PARAMS, &mut out).unwrap();
                black_box(&out);
            }
            "caps" => {
                let opts = &Options::SEGMENTS;
                capsules_touch_into(black_box(&sa), black_box(&sb), radii, opts, &mut mask)
                    .unwrap();
                black_box(&mask);
            }
            "cpa" => {
                cpa_into(black_box(&sa), black_box(&sb), Window::STEP, &mut cpa_out).unwrap();
                black_box(&cpa_out);
            }
            "contact" => {
                first_contact_into(
                    black_box(&sa),
                    black_box(&sb),
                    radii,
                    Window::STEP,
                    &mut con_out,
                )
                .unwrap();
                black_box(&con_out);
            }
            "i2" => {
                intersect2_into(black_box(&sa2), black_box(&sb2), &mut i2_out).unwrap();
                black_box(&i2_out);
            }
            "cpa_s" => {
                for ((x, y), o) in black_box(&a).iter().zip(black_box(&b)).zip(&mut res) {
                    let c = reference::cpa(x, y, Window::STEP);
                    *o = c.dist2 + c.t + c.point_a[0] + c.point_b[0];
                }
            }
            "contact_s" => {
                for (i, o) in res.iter_mut().enumerate() {
                    let c = reference::first_contact(
                        black_box(&a[i]),
                        ra[i],
                        black_box(&b[i]),
                        rb[i],
                        Window::STEP,
                    );
                    *o = if c.hit { c.t } else { -1.0 };
                }
            }
            "i2_s" => {
                for ((x, y), o) in black_box(&a2).iter().zip(black_box(&b2)).zip(&mut res) {
                    let c = reference::intersect2(x, y);
                    *o = c.dist2 + c.s + c.t + c.point_a[0];
                }
            }
            _ => panic!("mode"),
        }
        black_box(&res);
    }
    let el = t.elapsed().as_secs_f64();
    println!("{mode}: {:.1} M pairs/s", (n * reps) as f64 / el / 1e6);
}
