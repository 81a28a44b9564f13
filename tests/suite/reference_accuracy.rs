//! The scalar reference against the f64 oracle, class by class, on every combination of
//! extents: the distance is within `8·f32::EPSILON·S` of the exact one, the reported
//! parameters lie in their extents and really attain (within the same bound) the minimum,
//! non-finite input is flagged and gives NaN, and swapping A and B swaps the answer; and
//! the distance is never below the exact one by more than `3·ε` times the pair's own
//! extent, wherever the pair is (what the set queries' pruning relies on).
//!
//! Case counts come from `PROPTEST_CASES` (default 256 per property).

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use segbatch::{Closest, Extent, Flags, Options, Segment, reference};
use segbatch_testkit::{EPS32, EXTENT_PAIRS, Pair, oracle, strategy, vec};

/// The accuracy bar (docs/accuracy.md), in units of `f32::EPSILON · S`.
const BAR: f64 = 8.0;

fn fail(msg: String) -> TestCaseError {
    TestCaseError::fail(msg)
}

/// The oracle's view of a side the reference flagged degenerate: for a segment the flag only
/// changes the answer by the (tiny) length, so the exact segment is kept; a degenerate ray
/// or line has no usable direction and *is* its first point by definition (the library's
/// degenerate-side semantics).
fn as_oracle_sees(seg: &Segment, ext: Extent, degenerate: bool) -> (Segment, Extent) {
    if degenerate && ext != Extent::Segment {
        (Segment::new(seg.p0, seg.p0), Extent::Segment)
    } else {
        (*seg, ext)
    }
}

/// True when a side flagged degenerate really is short: length at most a few ulps of its
/// coordinates (the default rule is 2·ε; allow 4·ε for rounding).
fn degeneracy_justified(seg: &Segment) -> bool {
    let (p0, p1) = (vec::to64(seg.p0), vec::to64(seg.p1));
    let len = vec::norm(vec::sub(p1, p0));
    len <= 4.0 * EPS32 * vec::norm(p0).max(vec::norm(p1))
}

/// Every accuracy and range check for one pair and one combination of extents.
fn check(a: &Segment, b: &Segment, ext_a: Extent, ext_b: Extent) -> Result<Closest, TestCaseError> {
    let c = reference::closest_points_with(a, b, &Options::new(ext_a, ext_b));
    let ctx = || format!("a = {a:?}, b = {b:?}, extents {ext_a:?}/{ext_b:?}, result {c:?}");
    if c.flags.contains(Flags::NON_FINITE) {
        return Err(fail(format!("finite input flagged non-finite: {}", ctx())));
    }
    if !(oracle::in_extent(c.s as f64, ext_a) && oracle::in_extent(c.t as f64, ext_b)) {
        return Err(fail(format!("parameter outside its extent: {}", ctx())));
    }
    if !c.dist2.is_finite() {
        return Err(fail(format!("non-finite distance: {}", ctx())));
    }
    let deg_a = c.flags.contains(Flags::DEGENERATE_A);
    let deg_b = c.flags.contains(Flags::DEGENERATE_B);
    if (deg_a && !degeneracy_justified(a)) || (deg_b && !degeneracy_justified(b)) {
        return Err(fail(format!("degenerate flag on a proper side: {}", ctx())));
    }
    let (oa, ea) = as_oracle_sees(a, ext_a, deg_a);
    let (ob, eb) = as_oracle_sees(b, ext_b, deg_b);
    // Two unbounded sides: the bar is stated for the sides as represented (directions
    // rounded to f32) and at the scale of the closest points too (docs/accuracy.md).
    let unbounded = ext_a != Extent::Segment && ext_b != Extent::Segment;
    let (a0, a1) = oracle::with_f32_direction(&oa);
    let (b0, b1) = oracle::with_f32_direction(&ob);
    let (exact, scale) = if unbounded {
        let exact = oracle::oracle64(a0, a1, b0, b1, ea, eb);
        (
            exact,
            oracle::scale_with(a, b, &[exact.point_a, exact.point_b]),
        )
    } else {
        (oracle::oracle(&oa, &ob, ea, eb), oracle::scale(a, b))
    };
    let allowed = BAR * EPS32 * scale;
    oracle::check_close(
        &format!("distance ({})", ctx()),
        c.distance() as f64,
        exact.distance,
        allowed,
    )
    .map_err(fail)?;
    // The reported parameters must really attain the minimum (not just the distance).
    let attained = if unbounded {
        oracle::distance_at64(a0, a1, b0, b1, c.s as f64, c.t as f64)
    } else {
        oracle::distance_at(&oa, &ob, c.s as f64, c.t as f64)
    };
    oracle::check_close(
        &format!("distance at the reported (s, t) ({})", ctx()),
        attained,
        exact.distance,
        allowed,
    )
    .map_err(fail)?;
    Ok(c)
}

/// `check` on every combination of extents; segment/segment also through `closest_points`.
fn check_all_extents((a, b): &Pair) -> Result<(), TestCaseError> {
    let seg = reference::closest_points(a, b);
    let seg_with = check(a, b, Extent::Segment, Extent::Segment)?;
    prop_assert_eq!(seg, seg_with);
    for &(ext_a, ext_b) in &EXTENT_PAIRS[1..] {
        check(a, b, ext_a, ext_b)?;
    }
    Ok(())
}

/// Swapping A and B (and their extents) swaps s/t and the points, within tolerance; for
/// ill-conditioned pairs (near-parallel, degenerate) the minimiser is not unique, so there
/// the swapped result must merely be an equally good minimiser, which `check` verifies.
fn check_symmetry((a, b): &Pair) -> Result<(), TestCaseError> {
    for &(ext_a, ext_b) in &EXTENT_PAIRS {
        let ab = check(a, b, ext_a, ext_b)?;
        let ba = check(b, a, ext_b, ext_a)?;
        let far: Vec<vec::V3> = [ab.point_a, ab.point_b]
            .iter()
            .map(|p| vec::to64(*p))
            .collect();
        let scale = oracle::scale_with(a, b, &far);
        let ctx = || format!("a = {a:?}, b = {b:?}, {ext_a:?}/{ext_b:?}: {ab:?} vs swapped {ba:?}");
        oracle::check_close(
            &format!("swapped distance ({})", ctx()),
            ba.distance() as f64,
            ab.distance() as f64,
            BAR * EPS32 * scale,
        )
        .map_err(fail)?;
        let swap_deg = |f: Flags| {
            (
                f.contains(Flags::DEGENERATE_A),
                f.contains(Flags::DEGENERATE_B),
            )
        };
        let (da, db) = swap_deg(ab.flags);
        prop_assert_eq!(
            (db, da),
            swap_deg(ba.flags),
            "degenerate flags not swapped: {}",
            ctx()
        );

        // Points: only when the minimiser is well conditioned (clearly non-parallel proper
        // sides); its sensitivity grows like 1/sin²(angle).
        let (da64, db64) = (
            vec::sub(vec::to64(a.p1), vec::to64(a.p0)),
            vec::sub(vec::to64(b.p1), vec::to64(b.p0)),
        );
        let sin = vec::norm(vec::cross(da64, db64)) / (vec::norm(da64) * vec::norm(db64));
        if da || db || !sin.is_finite() || sin < 1e-2 {
            continue;
        }
        let allowed = 4.0 * BAR * EPS32 * scale / (sin * sin);
        for i in 0..3 {
            oracle::check_close(
                &format!("swapped point_a[{i}] ({})", ctx()),
                ba.point_b[i] as f64,
                ab.point_a[i] as f64,
                allowed,
            )
            .map_err(fail)?;
            oracle::check_close(
                &format!("swapped point_b[{i}] ({})", ctx()),
                ba.point_a[i] as f64,
                ab.point_b[i] as f64,
                allowed,
            )
            .map_err(fail)?;
        }
    }
    Ok(())
}

/// The one-sided bound the set queries' pruning relies on (module docs of `segbatch::sets`):
/// the distance of two segments is never reported below the exact one by more than
/// `3·ε·L`, `L = |A0 - B0| + |A1 - A0| + |B1 - B0|` the pair's own extent, whatever its
/// distance from the origin (and `2^-73` where the squared distance is subnormal). The
/// proven bound is about `ε·L` with FMA and `2.75·ε·L` without (each fused step rounds
/// twice); the largest seen with FMA is under `ε·L`.
fn check_local_bound(a: &Segment, b: &Segment) -> Result<(), TestCaseError> {
    let c = reference::closest_points(a, b);
    if !c.dist2.is_finite() {
        return Ok(());
    }
    let (a0, a1, b0, b1) = (
        vec::to64(a.p0),
        vec::to64(a.p1),
        vec::to64(b.p0),
        vec::to64(b.p1),
    );
    let extent =
        vec::norm(vec::sub(a0, b0)) + vec::norm(vec::sub(a1, a0)) + vec::norm(vec::sub(b1, b0));
    let exact = oracle::oracle(a, b, Extent::Segment, Extent::Segment).distance;
    // (The oracle's own error, about 1e-15 of the extent, on top.)
    let floor = exact - (3.0 * EPS32 + 1e-13) * extent - 2f64.powi(-73);
    prop_assert!(
        f64::from(c.dist2).sqrt() >= floor,
        "distance {} below the exact {exact} by more than 3·ε·{extent:e}: a = {a:?}, b = {b:?}",
        c.distance()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// [`check_local_bound`] on every finite class, moved as a caller would (an `f32`
    /// addition) by up to 5e6 and scaled by `10^k`, `k` in -12..=12.
    #[test]
    fn never_nearer_than_the_pair_extent_allows(
        pair in strategy::any_unscaled(),
        k in -12i32..=12,
        offset in prop_oneof![Just(0.0f64), 1e3f64..1e4, 4.9e6f64..5e6],
    ) {
        let scale = 10f64.powi(k);
        let o = [offset as f32, (0.7 * offset) as f32, (-0.3 * offset) as f32];
        let mv = |p: [f32; 3]| {
            let q = p.map(|x| (f64::from(x) * scale) as f32);
            core::array::from_fn(|i| q[i] + o[i] * scale as f32)
        };
        let (a, b) = pair;
        check_local_bound(
            &Segment::new(mv(a.p0), mv(a.p1)),
            &Segment::new(mv(b.p0), mv(b.p1)),
        )?;
    }

    #[test]
    fn general(pair in strategy::general()) {
        check_all_extents(&pair)?;
    }

    #[test]
    fn near_parallel(pair in strategy::near_parallel()) {
        check_all_extents(&pair)?;
    }

    #[test]
    fn parallel(pair in strategy::parallel()) {
        check_all_extents(&pair)?;
    }

    #[test]
    fn collinear(pair in strategy::collinear()) {
        check_all_extents(&pair)?;
    }

    #[test]
    fn crossing_small_angle(pair in strategy::small_angle_cross()) {
        check_all_extents(&pair)?;
    }

    #[test]
    fn tiny_and_zero_lengths(pair in strategy::tiny_or_zero()) {
        check_all_extents(&pair)?;
    }

    #[test]
    fn long_skinny(pair in strategy::long_skinny()) {
        check_all_extents(&pair)?;
    }

    #[test]
    fn far_from_origin(pair in strategy::far_from_origin()) {
        check_all_extents(&pair)?;
    }

    /// Every hard class scaled by 10^k, k in -12..=12 (rounded to f32 again), so coordinates
    /// span about 1e-14 to 1e18: the method is scale-free there, including where products of
    /// four lengths leave f32's range. (Beyond, `dist2` itself, an f32, cannot hold the
    /// squared distance to the bar: below ~1e-19 it is subnormal, above ~1.8e19 infinite.)
    #[test]
    fn every_scale(pair in strategy::any_unscaled(), k in -12i32..=12) {
        let scale = 10f64.powi(k);
        let sc = |p: [f32; 3]| p.map(|x| (f64::from(x) * scale) as f32);
        let (a, b) = pair;
        let scaled = (Segment::new(sc(a.p0), sc(a.p1)), Segment::new(sc(b.p0), sc(b.p1)));
        check_all_extents(&scaled)?;
    }

    #[test]
    fn symmetry(pair in strategy::any_finite()) {
        check_symmetry(&pair)?;
    }

    #[test]
    fn non_finite_input_gives_nan_and_flag(
        pair in strategy::any_finite(),
        index in 0usize..12,
        bad in prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)],
        extents in prop::sample::select(&EXTENT_PAIRS[..]),
    ) {
        let (mut a, mut b) = pair;
        let side = if index < 6 { &mut a } else { &mut b };
        let k = index % 6;
        if k < 3 { side.p0[k] = bad } else { side.p1[k - 3] = bad }
        let c = reference::closest_points_with(&a, &b, &Options::new(extents.0, extents.1));
        prop_assert!(c.flags.contains(Flags::NON_FINITE), "{c:?}");
        prop_assert!(c.s.is_nan() && c.t.is_nan() && c.dist2.is_nan(), "{c:?}");
        prop_assert!(c.point_a.iter().chain(&c.point_b).all(|x| x.is_nan()), "{c:?}");
    }
}
