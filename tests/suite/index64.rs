//! First hits in `f64` ([`SegmentIndex64::first_hits`]) at the origin and at world
//! coordinates: bit for bit the minimum of [`reference::first_hit`] over every wall
//! (sequential, parallel, `_into`, per-ray lists, rays as segments or as origin and
//! direction), the same walls at a UTM offset as at the origin, and the `f32` index's
//! rays given as origin and direction equal to the `f64` decision of the same rays.
#![cfg(feature = "rayon")]

use segbatch::sets::*;
use segbatch::*;
use segbatch_testkit::Rng;

/// For every ray, the least `(u, index)` over all walls of `first_hit` (one ray, one wall).
fn brute<S, R: Copy + PartialOrd>(
    walls: &[S],
    rays: &[S],
    first_hit: impl Fn(usize, &S, &S) -> Option<FirstHit<R>>,
) -> Vec<Option<FirstHit<R>>> {
    rays.iter()
        .enumerate()
        .map(|(k, ray)| {
            let mut best: Option<FirstHit<R>> = None;
            for (j, w) in walls.iter().enumerate() {
                if let Some(mut h) = first_hit(k, ray, w) {
                    h.index = j as u32;
                    if best.is_none_or(|b| (h.u, h.index) < (b.u, b.index)) {
                        best = Some(h);
                    }
                }
            }
            best
        })
        .collect()
}

type Bits = Option<(u32, u64, [u64; 3])>;

fn bits(hits: &[Option<FirstHit64>]) -> Vec<Bits> {
    hits.iter()
        .map(|h| h.map(|h| (h.index, h.u.to_bits(), h.point.map(f64::to_bits))))
        .collect()
}

/// Every form of the `f64` query against brute force over `reference::first_hit`, bit
/// for bit; returns the hits.
fn check(
    walls: &[Segment64],
    rays: &[Segment64],
    r: &[f64],
    range: &[f64],
    what: &str,
) -> Vec<Option<FirstHit64>> {
    let want = brute(walls, rays, |k, ray, w| {
        reference::first_hit(ray, r[k], range[k], w)
    });
    let index = SegmentIndex64::new(&Segments64::from(walls)).unwrap();
    let rs = Segments64::from(rays);
    let mut out = vec![None; 3];
    index.first_hits_into(&rs, r, range, &mut out).unwrap();
    assert_eq!(bits(&out), bits(&want), "{what}: first_hits_into");
    assert_eq!(
        bits(&index.par_first_hits(&rs, r, range).unwrap()),
        bits(&want),
        "{what}: par_first_hits"
    );
    let built_on_all = SegmentIndex64::par_new(&Segments64::from(walls)).unwrap();
    assert_eq!(
        bits(&built_on_all.first_hits(&rs, r, range).unwrap()),
        bits(&want),
        "{what}: par_new"
    );
    // The same rays as origin and direction, where `P1 - P0` is the direction exactly.
    let origins: Vec<[f64; 3]> = rays.iter().map(|s| s.p0).collect();
    let directions: Vec<[f64; 3]> = rays.iter().map(Segment64::direction).collect();
    let exact: Vec<bool> = rays
        .iter()
        .zip(&directions)
        .map(|(s, d)| (0..3).all(|c| s.p0[c] + d[c] == s.p1[c]))
        .collect();
    let along = Rays64::Along {
        origins: &origins,
        directions: &directions,
    };
    index
        .par_first_hits_into(along, r, range, &mut out)
        .unwrap();
    for k in (0..rays.len()).filter(|&k| exact[k]) {
        assert_eq!(
            bits(&out[k..=k]),
            bits(&want[k..=k]),
            "{what}: along, ray {k}"
        );
    }
    assert!(
        exact.iter().filter(|&&e| e).count() * 2 > rays.len(),
        "{what}"
    );
    // One value for every ray when the lists are uniform.
    if !r.is_empty() && r.iter().all(|&x| x == r[0]) && range.iter().all(|&x| x == range[0]) {
        assert_eq!(
            bits(&index.first_hits(&rs, r[0], range[0]).unwrap()),
            bits(&want),
            "{what}: first_hits"
        );
    }
    want
}

/// `x` rounded to a multiple of `2^-20`: scenes built of such values move by `5e6`
/// exactly in `f64` (43 bits).
fn grid(x: f64) -> f64 {
    (x * 1_048_576.0).round() / 1_048_576.0
}

/// A city block of `n` walls on a `side × side` floor (pieces 1-4 long along x or y,
/// heights 0-3) and `m` sight rays at eye height with unit horizontal-ish directions,
/// every coordinate on the `2^-20` grid.
fn city(n: usize, m: usize, side: f64, seed: u64) -> (Vec<Segment64>, Vec<Segment64>) {
    let mut rng = Rng::new(seed);
    let walls = (0..n)
        .map(|_| {
            let p = [
                rng.range(0.0, side),
                rng.range(0.0, side),
                rng.range(0.0, 3.0),
            ]
            .map(grid);
            let len = grid(rng.range(1.0, 4.0));
            let axis = usize::from(rng.chance(0.5));
            let mut q = p;
            q[axis] += len;
            Segment64::new(p, q)
        })
        .collect();
    let rays = (0..m)
        .map(|_| {
            let o = [rng.range(0.0, side), rng.range(0.0, side), 1.5].map(grid);
            let a = rng.range(0.0, core::f64::consts::TAU);
            let dz = rng.range(-0.1, 0.1);
            let p1 = [o[0] + a.cos(), o[1] + a.sin(), o[2] + dz].map(grid);
            Segment64::new(o, p1)
        })
        .collect();
    (walls, rays)
}

fn shift(s: &[Segment64], by: [f64; 3]) -> Vec<Segment64> {
    s.iter()
        .map(|s| {
            Segment64::new(
                core::array::from_fn(|c| s.p0[c] + by[c]),
                core::array::from_fn(|c| s.p1[c] + by[c]),
            )
        })
        .collect()
}

/// At the origin and moved to UTM coordinates (`x ~ 5e5`, `y ~ 5e6`) and to `5e6` on
/// every axis: brute force bit for bit at every radius and range, and the same wall hit
/// by every ray as at the origin, `u` within `1e-9` (a zero radius's contact tolerance
/// `4·ε·S` grows from `4·ε·50` to `4·ε·5e6`, 4.4 nm; larger radii: `f64` rounding).
#[test]
fn city_at_the_origin_and_at_utm_offsets() {
    let (walls, rays) = city(800, 400, 40.0, 1);
    let n = rays.len();
    let mut hits = 0;
    for range in [0.5, 10.0, 50.0, 1e30, f64::INFINITY] {
        for r in [0.0, 0.01, 0.3, 3.0] {
            let what = format!("r {r} range {range}");
            let home = check(&walls, &rays, &vec![r; n], &vec![range; n], &what);
            hits += home.iter().flatten().count();
            for by in [[5e5, 5e6, 0.0], [5e6, 5e6, 5e6]] {
                let what = format!("{what} at {by:?}");
                let away = check(
                    &shift(&walls, by),
                    &shift(&rays, by),
                    &vec![r; n],
                    &vec![range; n],
                    &what,
                );
                for (k, (h, a)) in home.iter().zip(&away).enumerate() {
                    match (h, a) {
                        (None, None) => {}
                        (Some(h), Some(a)) => {
                            assert_eq!(h.index, a.index, "{what}: ray {k}");
                            assert!((h.u - a.u).abs() <= 1e-9, "{what}: ray {k}: {h:?} {a:?}");
                            for ((p, q), b) in h.point.iter().zip(&a.point).zip(by) {
                                assert!((p + b - q).abs() <= 1e-8, "{what}: ray {k}");
                            }
                        }
                        _ => panic!("{what}: ray {k}: {h:?} at the origin, {a:?}"),
                    }
                }
            }
        }
    }
    assert!(hits > 2000, "{hits}");
}

/// Radius zero gives the exact first crossing: rays along +x at UTM coordinates through
/// a row of walls across their path at `x0 + 1, 2, …` meet the first one at
/// `u = 1` within the contact tolerance, for every ray; the `f32` index, whose coordinates
/// at `5e6` are half a metre apart, cannot represent the scene.
#[test]
fn zero_radius_is_the_first_crossing_at_utm() {
    let (x0, y0) = (512_345.678_9, 5_123_456.789_1);
    let walls: Vec<Segment64> = (1..=20)
        .map(|k| {
            let x = x0 + f64::from(k);
            Segment64::new([x, y0 - 100.0, 0.0], [x, y0 + 100.0, 0.0])
        })
        .collect();
    let mut rng = Rng::new(2);
    let rays: Vec<Segment64> = (0..500)
        .map(|_| {
            let o = [x0, y0 + rng.range(-50.0, 50.0), 0.0];
            Segment64::new(o, [o[0] + 1.0, o[1], 0.0])
        })
        .collect();
    let n = rays.len();
    let hits = check(
        &walls,
        &rays,
        &vec![0.0; n],
        &vec![f64::INFINITY; n],
        "crossing",
    );
    let scale = y0 + 100.0;
    for (k, h) in hits.iter().enumerate() {
        let h = h.unwrap_or_else(|| panic!("ray {k} missed"));
        assert_eq!(h.index, 0, "ray {k}");
        let exact = walls[0].p0[0] - x0;
        assert!(
            h.u <= exact && exact - h.u <= 4.0 * f64::EPSILON * scale,
            "{h:?}"
        );
    }
    // Past its range the first wall is out of reach: nothing hits.
    let short = check(&walls, &rays, &vec![0.0; n], &vec![0.99; n], "short");
    assert!(short.iter().all(Option::is_none));
}

/// Per-ray radii and ranges in one call (zeros, huge values, `+∞`), at a UTM offset.
#[test]
fn per_ray_radii_and_ranges() {
    let (walls, rays) = city(600, 700, 30.0, 3);
    let (walls, rays) = (
        shift(&walls, [4e5, 6e6, 100.0]),
        shift(&rays, [4e5, 6e6, 100.0]),
    );
    let mut rng = Rng::new(4);
    let radii: Vec<f64> = (0..rays.len())
        .map(|_| rng.pick(&[0.0, 0.05, 0.3, 1.0, 1e5]))
        .collect();
    let ranges: Vec<f64> = (0..rays.len())
        .map(|_| rng.pick(&[0.0, 0.1, 5.0, 1e4, 1e25, f64::INFINITY]))
        .collect();
    let hits = check(&walls, &rays, &radii, &ranges, "per ray");
    assert!(hits.iter().flatten().count() > 300);
}

/// Walls the tree's `f32` boxes cannot hold (beyond `f32::MAX` from the set's centre), NaN
/// and infinite members and rays, a ray without direction, direction components near the
/// underflow: brute force bit for bit.
#[test]
fn odd_rays_and_members() {
    let (mut walls, mut rays) = city(300, 400, 10.0, 5);
    walls[11].p0[1] = f64::NAN;
    walls[12].p1[2] = f64::INFINITY;
    walls[8] = Segment64::new([2.0, 2.0, 1.0], [2.0, 2.0, 1.0]);
    rays[0].p1 = rays[0].p0;
    rays[1].p0[2] = f64::INFINITY;
    rays[2].p1[0] = f64::NAN;
    rays[3] = Segment64::new([0.5, 0.0, 1.5], [1.5, 1e-300, 1.5]);
    rays[4].p1 = [rays[4].p0[0] - 1.0, rays[4].p0[1], 1.5];
    let n = rays.len();
    for r in [0.0, 0.3] {
        check(&walls, &rays, &vec![r; n], &vec![f64::INFINITY; n], "odd");
        let mut wide = walls.clone();
        wide[13] = Segment64::new([-1e40, 5.0, 1.5], [1e40, 5.0, 1.5]);
        let hits = check(&wide, &rays, &vec![r; n], &vec![f64::INFINITY; n], "wide");
        assert!(hits.iter().flatten().any(|h| h.index == 13));
    }
}

/// The `f32` index with rays given as origin and direction: far from the origin, where
/// `P1 = O + D` would round `D` to the origin's ulp, every ray's hit is the `f64`
/// decision of the unrounded ray (its `f64` hit rounded to `f32`), and the segment form's
/// rounded rays miss some of them.
#[test]
fn f32_rays_along_directions_far_from_the_origin() {
    let (walls, rays) = city(2000, 2000, 60.0, 6);
    let by = [1e4, -2e4, 0.0];
    let walls64 = shift(&walls, by);
    let walls32: Vec<Segment> = walls64
        .iter()
        .map(|s| Segment::new(s.p0.map(|x| x as f32), s.p1.map(|x| x as f32)))
        .collect();
    // f32 origins and unit directions on the 2^-30 grid; the same rays widened (O + D is
    // then exact in f64).
    let origins: Vec<[f32; 3]> = shift(&rays, by)
        .iter()
        .map(|s| s.p0.map(|x| x as f32))
        .collect();
    let directions: Vec<[f32; 3]> = rays
        .iter()
        .map(|s| {
            let d = s.direction();
            let n = d.iter().map(|x| x * x).sum::<f64>().sqrt();
            d.map(|x| ((x / n * 1_073_741_824.0).round() / 1_073_741_824.0) as f32)
        })
        .collect();
    let rays64: Vec<Segment64> = origins
        .iter()
        .zip(&directions)
        .map(|(o, d)| {
            let o = o.map(f64::from);
            Segment64::new(o, core::array::from_fn(|c| o[c] + f64::from(d[c])))
        })
        .collect();
    let walls_wide: Vec<Segment64> = walls32
        .iter()
        .map(|s| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from)))
        .collect();
    let (r, range) = (0.25, 50.0);
    let want = SegmentIndex64::new(&Segments64::from(&walls_wide))
        .unwrap()
        .first_hits(&Segments64::from(&rays64), r, range)
        .unwrap();
    let index = SegmentIndex::new(&Segments::from(&walls32)).unwrap();
    let along = Rays::Along {
        origins: &origins,
        directions: &directions,
    };
    let got = index.par_first_hits(along, r as f32, range as f32).unwrap();
    let narrowed =
        |h: &Option<FirstHit64>| h.map(|h| (h.index, h.u as f32, h.point.map(|x| x as f32)));
    let f32_hits = |h: &Option<FirstHit>| h.map(|h| (h.index, h.u, h.point));
    for k in 0..rays.len() {
        assert_eq!(f32_hits(&got[k]), narrowed(&want[k]), "ray {k}");
    }
    assert!(got.iter().flatten().count() > 1000);
    // The same rays as segments `O + D·range` in f32: their directions round.
    let segs: Vec<Segment> = origins
        .iter()
        .zip(&directions)
        .map(|(o, d)| Segment::new(*o, core::array::from_fn(|c| o[c] + d[c] * range as f32)))
        .collect();
    let rounded = index
        .first_hits(&Segments::from(&segs), r as f32, 1.0)
        .unwrap();
    let differ = (0..rays.len())
        .filter(|&k| match (rounded[k], got[k]) {
            (Some(a), Some(b)) => a.index != b.index || (a.u * range as f32 - b.u).abs() > 1e-4,
            (a, b) => a.is_some() != b.is_some(),
        })
        .count();
    assert!(differ > 0, "rounded directions changed no hit");
}

/// Invalid arguments are errors, in every form.
#[test]
fn invalid_arguments_are_errors() {
    let (walls, rays) = city(50, 4, 10.0, 7);
    let index = SegmentIndex64::new(&Segments64::from(&walls)).unwrap();
    let rs = Segments64::from(&rays);
    let mut out = vec![None; 2];
    let cases: [(PerRay64, PerRay64, Error); 4] = [
        (
            PerRay::One(-1.0),
            PerRay::One(1.0),
            Error::InvalidRadius { index: None },
        ),
        (
            PerRay::One(1.0),
            PerRay::One(f64::NAN),
            Error::InvalidRange { index: None },
        ),
        (
            PerRay::One(1.0),
            PerRay::Each(&[1.0, 2.0, -0.0, -1.0]),
            Error::InvalidRange { index: Some(3) },
        ),
        (
            PerRay::Each(&[1.0, 2.0]),
            PerRay::One(1.0),
            Error::LengthMismatch {
                what: "radii of the rays",
                expected: 4,
                found: 2,
            },
        ),
    ];
    for (r, range, e) in cases {
        assert_eq!(index.first_hits(&rs, r, range), Err(e.clone()));
        assert_eq!(
            index.first_hits_into(&rs, r, range, &mut out),
            Err(e.clone())
        );
        assert!(out.is_empty());
        assert_eq!(index.par_first_hits(&rs, r, range), Err(e));
    }
    let origins = [[0.0; 3]; 3];
    let directions = [[1.0, 0.0, 0.0]; 2];
    let along = Rays64::Along {
        origins: &origins,
        directions: &directions,
    };
    assert_eq!(
        index.first_hits(along, 0.5, 1.0),
        Err(Error::LengthMismatch {
            what: "directions of the rays",
            expected: 3,
            found: 2,
        })
    );
    let empty = SegmentIndex64::new(&Segments64::new()).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.first_hits(&rs, 1.0, 1.0).unwrap(), vec![None; 4]);
}
