use parry3d::math::Vec3;
use parry3d::query::details::closest_points_segment_segment_with_locations_nD;
use parry3d::shape::SegmentPointLocation;
use segbatch::*;
fn parry_closest(a: &Segment, b: &Segment) -> Closest {
    let (a0, a1) = (Vec3::from_array(a.p0), Vec3::from_array(a.p1));
    let (b0, b1) = (Vec3::from_array(b.p0), Vec3::from_array(b.p1));
    let (la, lb) = closest_points_segment_segment_with_locations_nD((&a0, &a1), (&b0, &b1));
    let param = |l: SegmentPointLocation| match l {
        SegmentPointLocation::OnVertex(i) => i as f32,
        SegmentPointLocation::OnEdge([_, u]) => u,
    };
    let (s, t) = (param(la), param(lb));
    let pa = a0 + (a1 - a0) * s;
    let pb = b0 + (b1 - b0) * t;
    Closest {
        s,
        t,
        point_a: pa.to_array(),
        point_b: pb.to_array(),
        dist2: (pa - pb).length_squared(),
        flags: Flags::NONE,
    }
}
fn main() {
    let n = 1 << 16;
    let mut seed = 12345u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        ((seed >> 11) as f64 / (1u64 << 53) as f64) as f32 * 2.0 - 1.0
    };
    let av: Vec<Segment> = (0..n)
        .map(|_| Segment::new([rnd(), rnd(), rnd()], [rnd(), rnd(), rnd()]))
        .collect();
    let bv: Vec<Segment> = (0..n)
        .map(|_| Segment::new([rnd(), rnd(), rnd()], [rnd(), rnd(), rnd()]))
        .collect();
    let (a, b) = (Segments::from(&av), Segments::from(&bv));
    let mut out = ClosestBatch::default();
    let mut aos = vec![Closest::NON_FINITE; n];
    let reps: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(100);
    let (mut best_k, mut best_p) = (0f64, 0f64);
    for _round in 0..7 {
        let t = std::time::Instant::now();
        for _ in 0..reps {
            closest_points_into(&a, &b, &mut out);
            std::hint::black_box(&out);
        }
        best_k = best_k.max((n * reps) as f64 / t.elapsed().as_secs_f64() / 1e6);
        let t = std::time::Instant::now();
        for _ in 0..reps / 8 {
            for ((x, y), o) in av.iter().zip(&bv).zip(aos.iter_mut()) {
                *o = parry_closest(x, y);
            }
            std::hint::black_box(&aos);
        }
        best_p = best_p.max((n * (reps / 8)) as f64 / t.elapsed().as_secs_f64() / 1e6);
    }
    println!(
        "kernel {best_k:.1} Mpairs/s, parry {best_p:.1} Mpairs/s, ratio {:.1}",
        best_k / best_p
    );
}
