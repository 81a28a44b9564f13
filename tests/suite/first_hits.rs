//! First hits of thick rays ([`SegmentIndex::first_hits`]) at every range and radius: bit
//! for bit the minimum of [`reference::first_hit`] over the set (sequential, parallel,
//! `_into`, per-ray lists), and the same wall and parameter as an `f64` oracle that shares
//! none of the library's formulas.
#![cfg(feature = "rayon")]

use segbatch::sets::*;
use segbatch::*;
use segbatch_testkit::{Rng, sets};

/// For every ray, the least `(u, index)` of `reference::first_hit` over all walls.
fn brute(walls: &[Segment], rays: &[Segment], r: &[f32], range: &[f32]) -> Vec<Option<FirstHit>> {
    rays.iter()
        .enumerate()
        .map(|(k, ray)| {
            let mut best: Option<FirstHit> = None;
            for (j, w) in walls.iter().enumerate() {
                if let Some(mut h) = reference::first_hit(ray, r[k], range[k], w) {
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

fn bits(hits: &[Option<FirstHit>]) -> Vec<Option<(u32, u32, [u32; 3])>> {
    hits.iter()
        .map(|h| h.map(|h| (h.index, h.u.to_bits(), h.point.map(f32::to_bits))))
        .collect()
}

/// Every form of the index query against brute force over the reference, bit for bit.
fn check_index(walls: &[Segment], rays: &[Segment], r: &[f32], range: &[f32], what: &str) {
    let want = bits(&brute(walls, rays, r, range));
    let ws = Segments::from(walls);
    let rs = Segments::from(rays);
    let index = SegmentIndex::new(&ws).unwrap();
    let par_index = SegmentIndex::par_new(&ws).unwrap();
    let mut out = vec![None; 3];
    index.first_hits_into(&rs, r, range, &mut out).unwrap();
    assert_eq!(bits(&out), want, "{what}: first_hits_into");
    assert_eq!(
        bits(&par_index.par_first_hits(&rs, r, range).unwrap()),
        want,
        "{what}: par_first_hits"
    );
    // One value for every ray when the list is uniform.
    if r.iter().all(|&x| x.to_bits() == r[0].to_bits())
        && range.iter().all(|&x| x.to_bits() == range[0].to_bits())
        && !r.is_empty()
    {
        assert_eq!(
            bits(&index.first_hits(&rs, r[0], range[0]).unwrap()),
            want,
            "{what}: first_hits"
        );
        par_index
            .par_first_hits_into(&rs, r[0], range[0], &mut out)
            .unwrap();
        assert_eq!(bits(&out), want, "{what}: par_first_hits_into");
    }
}

// ---------------------------------------------------------------------------------------
// The f64 oracle: bisection on the distance along the ray, no root formula.

fn dist_point_segment(p: [f64; 3], w: &Segment) -> f64 {
    let (a, b) = (w.p0.map(f64::from), w.p1.map(f64::from));
    let d: [f64; 3] = core::array::from_fn(|k| b[k] - a[k]);
    let dd: f64 = d.iter().map(|x| x * x).sum();
    let t = if dd > 0.0 {
        ((0..3).map(|k| (p[k] - a[k]) * d[k]).sum::<f64>() / dd).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (0..3)
        .map(|k| (p[k] - a[k] - t * d[k]).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The oracle's first contact of one ray and wall: `Some(u)`, `None`, or `Err(())` when
/// the closest approach is within `1e-9` (relative) of the radius (a graze either answer
/// may call).
fn oracle_pair(ray: &Segment, r: f64, range: f64, w: &Segment) -> Result<Option<f64>, ()> {
    let o = ray.p0.map(f64::from);
    let d: [f64; 3] = core::array::from_fn(|k| f64::from(ray.p1[k]) - o[k]);
    let dd: f64 = d.iter().map(|x| x * x).sum();
    let at = |u: f64| -> [f64; 3] { core::array::from_fn(|k| o[k] + u * d[k]) };
    let f = |u: f64| dist_point_segment(at(u), w);
    let scale = [o, w.p0.map(f64::from), w.p1.map(f64::from)]
        .iter()
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let slack = 1e-9 * (scale + r);
    if f(0.0) <= r {
        return Ok(Some(0.0));
    }
    // Past the last projection of the wall's points, the distance only grows.
    let last = if dd > 0.0 {
        [w.p0, w.p1]
            .iter()
            .map(|p| (0..3).map(|k| (f64::from(p[k]) - o[k]) * d[k]).sum::<f64>() / dd)
            .fold(0.0f64, f64::max)
    } else {
        0.0
    };
    let (mut a, mut b) = (0.0f64, last.min(range));
    for _ in 0..200 {
        let (m1, m2) = (a + (b - a) / 3.0, b - (b - a) / 3.0);
        if f(m1) <= f(m2) {
            b = m2;
        } else {
            a = m1;
        }
    }
    let closest = (a + b) / 2.0;
    let fmin = f(closest).min(f(last.min(range)));
    if (fmin - r).abs() <= slack {
        return Err(());
    }
    if fmin > r {
        return Ok(None);
    }
    let (mut lo, mut hi) = (0.0f64, closest);
    if f(last.min(range)) <= r && f(closest) > r {
        hi = last.min(range);
    }
    for _ in 0..200 {
        let m = lo + (hi - lo) / 2.0;
        if f(m) <= r { hi = m } else { lo = m }
    }
    Ok(Some(hi))
}

/// Checks the index's hits against the oracle: the same wall (or one the oracle finds
/// tied or grazed), and `u` to `f32` precision.
fn check_oracle(walls: &[Segment], rays: &[Segment], r: f32, range: f32, what: &str) -> usize {
    let index = SegmentIndex::new(&Segments::from(walls)).unwrap();
    let got = index.first_hits(&Segments::from(rays), r, range).unwrap();
    let mut hits = 0;
    for (k, ray) in rays.iter().enumerate() {
        let mut found: Vec<(f64, usize)> = Vec::new();
        let mut unsure = false;
        for (j, w) in walls.iter().enumerate() {
            match oracle_pair(ray, f64::from(r), f64::from(range), w) {
                Ok(Some(u)) => found.push((u, j)),
                Ok(None) => {}
                Err(()) => unsure = true,
            }
        }
        found.sort_by(|a, b| a.partial_cmp(b).unwrap());
        match (got[k], found.first()) {
            (None, None) => {}
            (Some(h), Some(&(u, j))) => {
                hits += 1;
                let tol = 1e-5 * u.abs().max(1e-30) + 1e-6;
                let close = (f64::from(h.u) - u).abs() <= tol;
                let tied = found
                    .iter()
                    .any(|&(v, i)| i == h.index as usize && (v - u).abs() <= tol);
                assert!(
                    (close && (h.index as usize == j || tied)) || unsure,
                    "{what}: ray {k}: {h:?}, oracle u = {u} wall {j}"
                );
            }
            (g, w) => assert!(unsure, "{what}: ray {k}: {g:?}, oracle {w:?}"),
        }
    }
    hits
}

// ---------------------------------------------------------------------------------------

/// Walls in the box `[0, 10]³`, rays starting outside it and pointing away: no range may
/// reach a wall, at any radius below the gap.
#[test]
fn rays_pointing_away_never_hit_at_any_range() {
    let mut rng = Rng::new(5);
    let walls: Vec<Segment> = (0..400)
        .map(|_| {
            let p = [0.0; 3].map(|_: f32| rng.range_f32(0.0, 10.0));
            let q = [0.0; 3].map(|_: f32| rng.range_f32(0.0, 10.0));
            Segment::new(p, q)
        })
        .collect();
    let rays: Vec<Segment> = (0..300)
        .map(|_| {
            // A unit direction, the origin 5 units past the box along it.
            let mut d = [0.0; 3].map(|_: f32| rng.range_f32(-1.0, 1.0));
            let n = d.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-3);
            d = d.map(|x| x / n);
            let o: [f32; 3] = core::array::from_fn(|k| 5.0 + d[k] * 14.0);
            Segment::new(o, core::array::from_fn(|k| o[k] + d[k]))
        })
        .collect();
    let index = SegmentIndex::new(&Segments::from(&walls)).unwrap();
    let rs = Segments::from(&rays);
    for range in [1e-3f32, 1.0, 50.0, 1e6, 1e20, 1e30, f32::MAX, f32::INFINITY] {
        for r in [0.0f32, 0.5] {
            let hits = index.first_hits(&rs, r, range).unwrap();
            assert_eq!(hits.iter().flatten().count(), 0, "r {r} range {range}");
            for (ray, w) in rays.iter().zip(&walls) {
                assert_eq!(reference::first_hit(ray, r, range, w), None);
            }
        }
    }
    // Turned around, every ray hits, and a longer range changes nothing.
    let back: Vec<Segment> = rays
        .iter()
        .map(|s| Segment::new(s.p0, core::array::from_fn(|k| 2.0 * s.p0[k] - s.p1[k])))
        .collect();
    let bs = Segments::from(&back);
    let want = index.first_hits(&bs, 0.5, 40.0).unwrap();
    assert!(want.iter().flatten().count() > 250);
    for range in [1e6f32, 1e20, 1e30, f32::INFINITY] {
        assert_eq!(index.first_hits(&bs, 0.5, range).unwrap(), want, "{range}");
    }
}

/// A city floor at ranges from 1e-3 to 1e30 and `+∞` and radii from 0 to `f32::MAX`:
/// brute force over the reference bit for bit and the f64 oracle (300 and 30 rays at
/// proptest's default case count, scaling with `PROPTEST_CASES` as
/// [`segbatch_testkit::sweep`] does).
#[test]
fn city_at_every_range_and_radius() {
    let side = 30.0;
    let walls = sets::walls(600, side, 60);
    let rays = sets::rays(300, side, 61);
    let rays = &rays[..segbatch_testkit::sweep(300).min(rays.len())];
    let n = rays.len();
    let oracle_rays = &rays[..segbatch_testkit::sweep(30).min(n)];
    let mut oracle_hits = 0;
    for range in [1e-3f32, 0.5, 10.0, 1e3, 1e6, 1e20, 1e30, f32::INFINITY] {
        for r in [0.0f32, 0.01, 0.3, 3.0, 1e6, f32::MAX] {
            let what = format!("r {r} range {range}");
            check_index(&walls, rays, &vec![r; n], &vec![range; n], &what);
            if r > 0.0 {
                oracle_hits += check_oracle(&walls, oracle_rays, r, range, &what);
            }
        }
    }
    assert!(oracle_hits > 10 * oracle_rays.len(), "{oracle_hits}");
    // The radius every wall is within: every ray hits at u = 0, wall 0 (the lowest index).
    let index = SegmentIndex::new(&Segments::from(&walls)).unwrap();
    let all = index
        .first_hits(&Segments::from(rays), 3.4e38, 3.4e38)
        .unwrap();
    assert!(
        all.iter()
            .all(|h| h.is_some_and(|h| h.u == 0.0 && h.index == 0))
    );
}

/// Per-ray radii and ranges, mixed in one call (zeros, huge values, `+∞`).
#[test]
fn per_ray_radii_and_ranges() {
    let side = 20.0;
    let walls = sets::walls(500, side, 70);
    let rays = sets::rays(700, side, 71);
    let mut rng = Rng::new(72);
    let radii: Vec<f32> = (0..rays.len())
        .map(|_| [0.0, 0.05, 0.3, 1.0, 1e5][rng.below(5) as usize])
        .collect();
    let ranges: Vec<f32> = (0..rays.len())
        .map(|_| [0.0, 0.1, 5.0, 1e4, 1e25, f32::INFINITY][rng.below(6) as usize])
        .collect();
    check_index(&walls, &rays, &radii, &ranges, "per ray");
    // In one plane, radius zero: the exact first crossings.
    let flat: Vec<Segment> = walls
        .iter()
        .map(|w| Segment::new([w.p0[0], w.p0[1], 1.5], [w.p1[0], w.p1[1], 1.5]))
        .collect();
    let flat_rays: Vec<Segment> = rays
        .iter()
        .map(|w| Segment::new([w.p0[0], w.p0[1], 1.5], [w.p1[0], w.p1[1], 1.5]))
        .collect();
    let zero = vec![0.0; rays.len()];
    check_index(&flat, &flat_rays, &zero, &ranges, "crossings");
    let hits = SegmentIndex::new(&Segments::from(&flat))
        .unwrap()
        .first_hits(&Segments::from(&flat_rays), 0.0, f32::INFINITY)
        .unwrap();
    assert!(hits.iter().flatten().count() > 600);
}

/// Odd rays and members: no direction, direction components near the underflow, huge
/// coordinates, NaN and infinite members; a wall across the whole `f32` range.
#[test]
fn odd_rays_and_members() {
    let side = 10.0;
    let mut walls = sets::walls(300, side, 80);
    walls[3] = Segment::new([-f32::MAX, 5.0, 1.5], [f32::MAX, 5.0, 1.5]);
    walls[8] = Segment::new([2.0, 2.0, 1.0], [2.0, 2.0, 1.0]);
    walls[11].p0[1] = f32::NAN;
    walls[12].p1[2] = f32::INFINITY;
    walls[13] = Segment::new([1e30, 1e30, 0.0], [-1e30, 1e30, 0.0]);
    let mut rays = sets::rays(400, side, 81);
    rays[0].p1 = rays[0].p0;
    rays[1].p0[2] = f32::INFINITY;
    rays[2].p1[0] = f32::NAN;
    rays[3] = Segment::new([1.0, 1.0, 1.5], [1.0, 1.0 + 1e-44, 1.5]);
    rays[4] = Segment::new([1.0, 1.0, 1.5], [2.0, 1.0 + 1e-40, 1.5]);
    rays[5] = Segment::new([-3e38, 5.0, 1.5], [3e38, 5.0, 1.5]);
    rays[6] = Segment::new([5.0, -3e38, 1.5], [5.0, 3e38, 1.5]);
    rays[7] = Segment::new([5.0, 1e30, 0.0], [5.0, 0.0, 0.0]);
    let n = rays.len();
    for range in [1e-3f32, 1.0, 1e10, f32::INFINITY] {
        for r in [0.0f32, 0.2, 1e20] {
            check_index(
                &walls,
                &rays,
                &vec![r; n],
                &vec![range; n],
                &format!("r {r} range {range}"),
            );
        }
    }
    // The wall across everything keeps the pair queries working too.
    let index = SegmentIndex::new(&Segments::from(&walls)).unwrap();
    let queries = Segments::from(&rays[8..40]);
    let want = pairs_within(&queries, &Segments::from(&walls), 0.5);
    assert_eq!(index.pairs_within(&queries, 0.5).unwrap(), want);
}

#[test]
fn invalid_arguments_are_errors() {
    let walls = Segments::from(&sets::walls(10, 5.0, 90));
    let rays = Segments::from(&sets::rays(4, 5.0, 91));
    let index = SegmentIndex::new(&walls).unwrap();
    let mut out = vec![None; 2];
    let cases: [(PerRay, PerRay, Error); 6] = [
        (
            PerRay::One(-1.0),
            PerRay::One(1.0),
            Error::InvalidRadius { index: None },
        ),
        (
            PerRay::One(f32::NAN),
            PerRay::One(1.0),
            Error::InvalidRadius { index: None },
        ),
        (
            PerRay::One(1.0),
            PerRay::One(-0.5),
            Error::InvalidRange { index: None },
        ),
        (
            PerRay::One(1.0),
            PerRay::One(f32::NAN),
            Error::InvalidRange { index: None },
        ),
        (
            PerRay::One(1.0),
            PerRay::Each(&[1.0, 2.0, f32::NAN, 1.0]),
            Error::InvalidRange { index: Some(2) },
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
    for (r, range, err) in cases {
        assert_eq!(index.first_hits(&rays, r, range), Err(err.clone()));
        assert_eq!(
            index.first_hits_into(&rays, r, range, &mut out),
            Err(err.clone())
        );
        assert!(out.is_empty());
        assert_eq!(index.par_first_hits(&rays, r, range), Err(err.clone()));
    }
    // An empty set and an empty ray list.
    let empty = SegmentIndex::new(&Segments::new()).unwrap();
    assert_eq!(empty.first_hits(&rays, 1.0, 1.0).unwrap(), vec![None; 4]);
    assert!(
        index
            .first_hits(&Segments::new(), 1.0, 1.0)
            .unwrap()
            .is_empty()
    );
}

/// [`sets::growing_walls`] make a tree more than twice as deep as a balanced one: rays
/// along its rows, at every range, walk it down to its deepest nodes and find brute
/// force's walls, bit for bit.
#[test]
fn an_unbalanced_tree_is_walked_to_its_depth() {
    let walls = sets::growing_walls(200);
    // Along the middle row from its start, then half a unit beside the rows, from points
    // along them, one way and the other.
    let mut rays = vec![Segment::new([-1.0, 1.0, 0.0], [0.0, 1.0, 0.0])];
    for k in (0..200).step_by(7) {
        let x = 1.5f32.powi(k) * 1.2;
        rays.push(Segment::new([x, 0.5, 0.0], [x - 1.0, 0.5, 0.0]));
        rays.push(Segment::new([x, 2.5, 0.0], [x + 1.0, 2.5, 0.0]));
    }
    let n = rays.len();
    for (r, range) in [
        (0.0, f32::INFINITY),
        (0.6, f32::INFINITY),
        (0.6, 1e20),
        (1.0, 10.0),
    ] {
        check_index(
            &walls,
            &rays,
            &vec![r; n],
            &vec![range; n],
            "unbalanced tree",
        );
    }
}

/// Trees whose cuts find no span to bin: copies of one wall (every centre the same), walls
/// whose centres lie a subnormal step apart (the bins' scale overflows to infinity) and
/// walls of one point, each among a few ordinary walls: every form finds brute force's
/// walls, bit for bit.
#[test]
fn walls_without_a_span_to_cut() {
    let base = sets::walls(40, 10.0, 95);
    let one = Segment::new([4.0, 5.0, 0.0], [6.0, 5.0, 3.0]);
    let copies: Vec<Segment> = vec![one; 70];
    let step = f32::from_bits(1); // the least subnormal
    let subnormal: Vec<Segment> = (0..70)
        .map(|k| {
            let dx = step * k as f32;
            Segment::new([dx, 5.0, 0.0], [dx, 5.0, 3.0])
        })
        .collect();
    let point: Vec<Segment> = vec![Segment::new([5.0, 5.0, 1.5], [5.0, 5.0, 1.5]); 70];
    for (name, cluster, [cx, cy, cz]) in [
        ("copies", copies, [5.0, 5.0, 1.5]),
        ("subnormal", subnormal, [0.0, 5.0, 1.5]),
        ("point", point, [5.0, 5.0, 1.5]),
    ] {
        let walls: Vec<Segment> = base.iter().copied().chain(cluster).collect();
        // Ordinary rays, and rays aimed at the cluster from around it.
        let mut rays = sets::rays(150, 10.0, 96);
        for k in 0..24 {
            let a = k as f32 * core::f32::consts::TAU / 24.0;
            let (x, y, z) = (
                cx + 3.0 * a.cos(),
                cy + 3.0 * a.sin(),
                cz + 0.2 * (k % 3) as f32,
            );
            rays.push(Segment::new([x, y, z], [cx, cy, cz]));
        }
        // The rays reach the cluster: its walls are among the hits.
        let index = SegmentIndex::new(&Segments::from(&walls)).unwrap();
        let hits = index.first_hits(&Segments::from(&rays), 0.3, 20.0).unwrap();
        let on_cluster = hits
            .iter()
            .flatten()
            .filter(|h| h.index as usize >= base.len())
            .count();
        assert!(on_cluster >= 10, "{name}: {on_cluster} hits on the cluster");
        let n = rays.len();
        for (r, range) in [(0.0, f32::INFINITY), (0.3, 20.0), (1.0, 5.0)] {
            check_index(
                &walls,
                &rays,
                &vec![r; n],
                &vec![range; n],
                &format!("{name}, r {r} range {range}"),
            );
        }
    }
}
