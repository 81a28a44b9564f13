//! The `f64` pair queries beyond closest points (`capsules_touch`, the indexed forms,
//! `capsule_contacts`, `first_contact`, `dist2_matrix`) against their `f64` scalar
//! references, bit for bit.
//!
//! Inputs: the test kit's `f64` hard classes (`pairs64`: near-parallel, collinear,
//! degenerate, tiny, huge, far from the origin, non-finite...) rotated through every lane
//! of two groups among ordinary pairs, for every extent pair; batch lengths 0..=20 with the
//! views that end at the batch's end (the driver's zero-padded tail); radii at, just below
//! and just above the pair's distance, so both answers and the boundary occur; the parallel
//! forms against the sequential ones above the split's cut-off; the errors by name.

use segbatch::pairs::{
    CapsuleContact64, ClosestBatch64, PairMask, Radii64, capsule_contacts, capsule_contacts_into,
    capsules_touch, capsules_touch_indexed, capsules_touch_indexed_into, capsules_touch_into,
    closest_points_indexed, closest_points_indexed_into,
};
use segbatch::sets::within_radius;
use segbatch::{Closest64, Error, Extent, Options, Outputs, Segment64, Segments64, reference};
use segbatch_testkit::Rng;
use segbatch_testkit::pairs64::{CLASSES64, Pair64, any64, general};

const EXTENTS: [Extent; 3] = [Extent::Segment, Extent::Ray, Extent::Line];

/// An ordinary pair (no special lane) for the other lanes of a group.
const FILLER: Pair64 = (
    Segment64::new([0.3, -0.2, 0.1], [1.7, 0.4, -0.9]),
    Segment64::new([-1.1, 0.8, 0.5], [0.6, -0.3, 1.2]),
);

/// Every extent pair.
fn every_options() -> impl Iterator<Item = Options> {
    EXTENTS
        .into_iter()
        .flat_map(|a| EXTENTS.into_iter().map(move |b| Options::new(a, b)))
}

/// Radii for a pair: half its distance (under `options`) times a factor just below, at or
/// just above 1, so the pair touches, just touches or just misses; 0 or `+∞` now and then.
fn radii_for(rng: &mut Rng, (a, b): &Pair64, options: &Options) -> (f64, f64) {
    let d = reference::closest_points_with(a, b, options).dist2.sqrt();
    let half = if d.is_finite() { d / 2.0 } else { 1.0 };
    let factor = [1.0 - 1e-12, 1.0, 1.0 + 1e-12, 0.5, 2.0][rng.below(5) as usize];
    match rng.below(20) {
        0 => (0.0, 0.0),
        1 => (f64::INFINITY, 0.0),
        _ => (half * factor, half),
    }
}

/// The reference's answer: `dist2 <= (rA + rB)²`, the sum and square in `f64`.
fn touches(a: &Segment64, ra: f64, b: &Segment64, rb: f64, options: &Options) -> bool {
    // The f64 range rule: `dist2 <= r²` wherever `r²` is a normal number.
    within_radius(
        a,
        b,
        &reference::closest_points_with(a, b, options),
        ra + rb,
    )
}

/// The bits of a mask as `bool`s.
fn mask_bools(mask: &PairMask) -> Vec<bool> {
    (0..mask.len()).map(|i| mask.get(i).unwrap()).collect()
}

/// `capsules_touch_into` on the pairs (views from `start`), with uniform radii and with
/// per-pair ones, against the reference pair by pair.
fn check_touch(pairs: &[Pair64], radii: &[(f64, f64)], start: usize, options: &Options) {
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let (ra, rb): (Vec<f64>, Vec<f64>) = radii[start..].iter().copied().unzip();
    let mut out = PairMask::new();
    let per_pair = Radii64::per_pair(&ra, &rb).unwrap();
    capsules_touch_into(
        a.view(start..),
        b.view(start..),
        per_pair,
        options,
        &mut out,
    )
    .unwrap();
    assert_eq!(out.len(), pairs.len() - start);
    assert_eq!(out.words().len(), out.len().div_ceil(64));
    let want: Vec<bool> = (start..pairs.len())
        .map(|i| touches(&pairs[i].0, radii[i].0, &pairs[i].1, radii[i].1, options))
        .collect();
    assert_eq!(
        mask_bools(&out),
        want,
        "per-pair radii, {options:?}, from {start}: {pairs:?}"
    );
    let bits: usize = out.words().iter().map(|w| w.count_ones() as usize).sum();
    assert_eq!(
        bits,
        want.iter().filter(|&&t| t).count(),
        "no bit past the end"
    );
    let (r0, r1) = radii.first().copied().unwrap_or((0.5, 0.25));
    capsules_touch_into(
        a.view(start..),
        b.view(start..),
        Radii64::uniform(r0, r1).unwrap(),
        options,
        &mut out,
    )
    .unwrap();
    let want: Vec<bool> = (start..pairs.len())
        .map(|i| touches(&pairs[i].0, r0, &pairs[i].1, r1, options))
        .collect();
    assert_eq!(
        mask_bools(&out),
        want,
        "uniform radii, {options:?}, from {start}"
    );
}

#[test]
fn capsules_touch64_every_class_in_every_lane() {
    let mut rng = Rng::new(0xf64_ca75);
    for class in CLASSES64 {
        for _ in 0..4 {
            let case = (class.pair)(&mut rng);
            for options in every_options() {
                for lane in 0..17 {
                    let mut pairs = vec![FILLER; 17];
                    pairs[lane] = case;
                    let radii: Vec<(f64, f64)> = pairs
                        .iter()
                        .map(|p| radii_for(&mut rng, p, &options))
                        .collect();
                    check_touch(&pairs, &radii, 0, &options);
                }
            }
        }
    }
}

#[test]
fn capsules_touch64_every_tail_and_view() {
    let mut rng = Rng::new(0xf64_7a11);
    for n in 0..=20 {
        let pairs: Vec<Pair64> = (0..n).map(|_| any64(&mut rng)).collect();
        for options in [Options::SEGMENTS, Options::new(Extent::Ray, Extent::Line)] {
            let radii: Vec<(f64, f64)> = pairs
                .iter()
                .map(|p| radii_for(&mut rng, p, &options))
                .collect();
            for start in 0..=n {
                check_touch(&pairs, &radii, start, &options);
            }
        }
    }
    // Long batches: many whole words, and the in-place packing of 4-lane groups.
    for n in [63, 64, 65, 127, 128, 129, 200, 1000, 1029] {
        let pairs: Vec<Pair64> = (0..n).map(|_| any64(&mut rng)).collect();
        let radii: Vec<(f64, f64)> = pairs
            .iter()
            .map(|p| radii_for(&mut rng, p, &Options::SEGMENTS))
            .collect();
        check_touch(&pairs, &radii, 0, &Options::SEGMENTS);
        check_touch(&pairs, &radii, 5, &Options::SEGMENTS);
    }
}

#[test]
fn capsules_touch64_errors_are_named() {
    let mut rng = Rng::new(0xf64_e770);
    let segs: Vec<Segment64> = (0..5).map(|_| general(&mut rng).0).collect();
    let (five, four) = (Segments64::from(&segs), Segments64::from(&segs[..4]));
    let radii = Radii64::uniform(0.5, 0.5).unwrap();
    let mut out = PairMask::new();
    let err = capsules_touch_into(&five, &four, radii, &Options::SEGMENTS, &mut out);
    assert_eq!(
        err,
        Err(Error::LengthMismatch {
            what: "batches a and b",
            expected: 5,
            found: 4
        })
    );
    assert!(out.is_empty());
    let r = [0.5; 4];
    let short = Radii64::per_pair(&r, &r).unwrap();
    assert!(matches!(
        capsules_touch_into(&five, &five, short, &Options::SEGMENTS, &mut out),
        Err(Error::LengthMismatch { .. })
    ));
    assert_eq!(
        Radii64::uniform(-0.5, 0.5),
        Err(Error::InvalidRadius { index: None })
    );
    assert_eq!(
        Radii64::uniform(0.5, f64::NAN),
        Err(Error::InvalidRadius { index: None })
    );
    let bad = [0.5, 0.5, -1e-300, 0.5];
    assert_eq!(
        Radii64::per_pair(&r, &bad),
        Err(Error::InvalidRadius { index: Some(2) })
    );
    assert_eq!(
        Radii64::per_object(&r, &bad[..3]),
        Err(Error::InvalidRadius { index: Some(2) })
    );
    assert!(std::panic::catch_unwind(|| capsules_touch(&five, &four, radii)).is_err());
}

#[cfg(feature = "rayon")]
#[test]
fn capsules_touch64_parallel_is_sequential() {
    use segbatch::pairs::{PAR_MIN_PAIRS, par_capsules_touch, par_capsules_touch_into};
    let mut rng = Rng::new(0xf64_9a75);
    let n = 3 * PAR_MIN_PAIRS + 5;
    let pairs: Vec<Pair64> = (0..n)
        .map(|i| {
            if i % 37 == 0 {
                any64(&mut rng)
            } else {
                general(&mut rng)
            }
        })
        .collect();
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let (ra, rb): (Vec<f64>, Vec<f64>) = (0..n).map(|k| (0.1 + (k % 7) as f64 * 0.05, 0.2)).unzip();
    let uniform = Radii64::uniform(0.3, 0.2).unwrap();
    let seq = capsules_touch(&a, &b, uniform);
    assert_eq!(seq, par_capsules_touch(&a, &b, uniform));
    assert!(seq.count_ones() > n / 10 && seq.count_ones() < n - n / 10);
    let per_pair = Radii64::per_pair(&ra, &rb).unwrap();
    let (mut s, mut p) = (PairMask::new(), PairMask::new());
    capsules_touch_into(&a, &b, per_pair, &Options::SEGMENTS, &mut s).unwrap();
    par_capsules_touch_into(&a, &b, per_pair, &Options::SEGMENTS, &mut p).unwrap();
    assert_eq!(s, p);
}

// ---------------------------------------------------------------------------------------
// Index pairs.

/// The same bits, or both NaN.
fn same(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

fn same_closest(x: &Closest64, y: &Closest64) -> bool {
    same(x.s, y.s)
        && same(x.t, y.t)
        && same(x.dist2, y.dist2)
        && x.flags == y.flags
        && (0..3).all(|k| same(x.point_a[k], y.point_a[k]) && same(x.point_b[k], y.point_b[k]))
}

fn same_contact(x: &CapsuleContact64, y: &CapsuleContact64) -> bool {
    (x.pair, x.i, x.j) == (y.pair, y.i, y.j)
        && same(x.depth, y.depth)
        && (0..3).all(|k| {
            same(x.normal[k], y.normal[k])
                && same(x.point_a[k], y.point_a[k])
                && same(x.point_b[k], y.point_b[k])
        })
}

/// Two sets and index pairs over them: object `k` of each set from pair `k` of `cases`,
/// the pairs `(k, k)` in order with `extra` random pairs `(i, j)` mixed in, so every
/// position of the gathered groups holds every kind of pair.
fn indexed_case(
    rng: &mut Rng,
    cases: &[Pair64],
    extra: usize,
) -> (Segments64, Segments64, Vec<(u32, u32)>) {
    let a: Segments64 = cases.iter().map(|p| p.0).collect();
    let b: Segments64 = cases.iter().map(|p| p.1).collect();
    let n = cases.len() as u64;
    let mut pairs: Vec<(u32, u32)> = (0..n as u32).map(|k| (k, k)).collect();
    for _ in 0..extra {
        let at = rng.below(pairs.len() as u64 + 1) as usize;
        pairs.insert(at, (rng.below(n) as u32, rng.below(n) as u32));
    }
    (a, b, pairs)
}

/// Every indexed `f64` query on `pairs` of sets `a`, `b` against the references, with
/// per-object radii `(ra, rb)`.
fn check_indexed(
    a: &Segments64,
    b: &Segments64,
    pairs: &[(u32, u32)],
    ra: &[f64],
    rb: &[f64],
    options: &Options,
) {
    let mut closest = ClosestBatch64::new();
    closest_points_indexed_into(a, b, pairs, options, Outputs::ALL, &mut closest).unwrap();
    assert_eq!(closest.len(), pairs.len());
    let mut mask = PairMask::new();
    let radii = Radii64::per_object(ra, rb).unwrap();
    capsules_touch_indexed_into(a, b, pairs, radii, options, &mut mask).unwrap();
    assert_eq!(mask.len(), pairs.len());
    let mut contacts = Vec::new();
    capsule_contacts_into(a, b, pairs, radii, options, &mut contacts).unwrap();
    let same_set = core::ptr::eq(a, b);
    let mut want_contacts = Vec::new();
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let (sa, sb) = (a.get(i as usize).unwrap(), b.get(j as usize).unwrap());
        let want = reference::closest_points_with(&sa, &sb, options);
        let got = closest.get(k).unwrap();
        assert!(
            same_closest(&got, &want),
            "closest, pair {k} ({i}, {j}) {options:?}: {sa:?} {sb:?}\n kernel {got:?}\n reference {want:?}"
        );
        let (ri, rj) = (ra[i as usize], rb[j as usize]);
        let r = ri + rj;
        assert_eq!(
            mask.get(k),
            Some(within_radius(&sa, &sb, &want, r)),
            "touch, pair {k}"
        );
        if same_set && i == j {
            continue;
        }
        let manifold = if *options == Options::SEGMENTS {
            reference::capsule_contact(&sa, ri, &sb, rj)
        } else {
            // The contact rule on the closest points under `options`.
            continue;
        };
        want_contacts.extend(manifold.into_iter().flatten().map(|c| CapsuleContact64 {
            pair: k as u32,
            i,
            j,
            ..c
        }));
    }
    if *options == Options::SEGMENTS {
        assert_eq!(contacts.len(), want_contacts.len(), "contacts of {pairs:?}");
        for (got, want) in contacts.iter().zip(&want_contacts) {
            assert!(
                same_contact(got, want),
                "contact\n kernel {got:?}\n reference {want:?}"
            );
        }
    }
}

/// Per-object radii for the sets of [`indexed_case`]: about half the distance of the pair
/// `(k, k)`, just under, at or over it.
fn object_radii(rng: &mut Rng, cases: &[Pair64]) -> (Vec<f64>, Vec<f64>) {
    cases
        .iter()
        .map(|p| radii_for(rng, p, &Options::SEGMENTS))
        .unzip()
}

#[test]
fn indexed64_every_class_in_every_position() {
    let mut rng = Rng::new(0xf64_1d3c);
    for class in CLASSES64 {
        for _ in 0..3 {
            let case = (class.pair)(&mut rng);
            for lane in 0..17 {
                let mut cases = vec![FILLER; 17];
                cases[lane] = case;
                // A few objects near the case, so touching and parallel pairs are common.
                cases[(lane + 5) % 17] = (case.0, FILLER.1);
                let (a, b, pairs) = indexed_case(&mut rng, &cases, 6);
                let (ra, rb) = object_radii(&mut rng, &cases);
                for options in every_options() {
                    check_indexed(&a, &b, &pairs, &ra, &rb, &options);
                }
                check_indexed(&a, &a, &pairs, &ra, &ra, &Options::SEGMENTS);
            }
        }
    }
}

#[test]
fn indexed64_every_count_of_pairs_and_chunks() {
    let mut rng = Rng::new(0xf64_c4a7);
    for n in (0..=20).chain([255, 256, 257, 600]) {
        let cases: Vec<Pair64> = (0..n.max(1)).map(|_| any64(&mut rng)).collect();
        let (a, b, mut pairs) = indexed_case(&mut rng, &cases, n / 3);
        pairs.truncate(n);
        let (ra, rb) = object_radii(&mut rng, &cases);
        check_indexed(&a, &b, &pairs, &ra, &rb, &Options::SEGMENTS);
        check_indexed(
            &a,
            &b,
            &pairs,
            &ra,
            &rb,
            &Options::new(Extent::Line, Extent::Ray),
        );
    }
}

/// Parallel capsules side by side give two contacts, crossing ones one, both as the
/// reference says (checked by `check_indexed`); here the counts are pinned.
#[test]
fn capsule_contacts64_manifolds() {
    let o = 6_378_137.0;
    let set = Segments64::from(&[
        Segment64::new([o, 0.0, 0.0], [o + 2.0, 0.0, 0.0]),
        Segment64::new([o + 1.0, 0.75, 0.0], [o + 3.0, 0.75, 1e-9]),
        Segment64::new([o + 1.5, 0.5, -1.0], [o + 1.5, 0.5, 1.0]),
        Segment64::new([o, 9.0, 0.0], [o + 2.0, 9.0, 0.0]),
    ]);
    let pairs = [(0, 1), (2, 0), (0, 3), (1, 1)];
    let radii = Radii64::uniform(0.5, 0.5).unwrap();
    let contacts = capsule_contacts(&set, &set, &pairs, radii);
    let named: Vec<(u32, u32, u32)> = contacts.iter().map(|c| (c.pair, c.i, c.j)).collect();
    assert_eq!(named, vec![(0, 0, 1), (0, 0, 1), (1, 2, 0)]);
    assert_eq!(contacts[0].normal, contacts[1].normal);
    let r = [0.5; 4];
    check_indexed(&set, &set, &pairs, &r, &r, &Options::SEGMENTS);
}

#[test]
fn indexed64_errors_are_named() {
    let mut rng = Rng::new(0xf64_e771);
    let segs: Vec<Segment64> = (0..4).map(|_| general(&mut rng).0).collect();
    let set = Segments64::from(&segs);
    let bad = [(0, 1), (1, 4)];
    let oob = Err(Error::IndexOutOfRange {
        pair: 1,
        index: 4,
        len: 4,
    });
    let mut closest = ClosestBatch64::new();
    let opts = &Options::SEGMENTS;
    assert_eq!(
        closest_points_indexed_into(&set, &set, &bad, opts, Outputs::ALL, &mut closest),
        oob
    );
    let radii = Radii64::uniform(0.5, 0.5).unwrap();
    let mut mask = PairMask::new();
    assert_eq!(
        capsules_touch_indexed_into(&set, &set, &bad, radii, opts, &mut mask),
        oob
    );
    let mut contacts = Vec::new();
    assert_eq!(
        capsule_contacts_into(&set, &set, &bad, radii, opts, &mut contacts),
        oob
    );
    let (r4, r3) = ([0.5; 4], [0.5; 3]);
    let short = Radii64::per_object(&r4, &r3).unwrap();
    let mismatch = Err(Error::LengthMismatch {
        what: "radii of set b",
        expected: 4,
        found: 3,
    });
    assert_eq!(
        capsules_touch_indexed_into(&set, &set, &[(0, 1)], short, opts, &mut mask),
        mismatch
    );
    assert_eq!(
        capsule_contacts_into(&set, &set, &[(0, 1)], short, opts, &mut contacts),
        mismatch
    );
    assert!(mask.is_empty() && contacts.is_empty());
    assert!(std::panic::catch_unwind(|| closest_points_indexed(&set, &set, &bad)).is_err());
    assert!(std::panic::catch_unwind(|| capsules_touch_indexed(&set, &set, &bad, radii)).is_err());
    assert!(std::panic::catch_unwind(|| capsule_contacts(&set, &set, &bad, radii)).is_err());
}

#[cfg(feature = "rayon")]
#[test]
fn indexed64_parallel_is_sequential() {
    use segbatch::pairs::{
        PAR_MIN_PAIRS, par_capsule_contacts, par_capsules_touch_indexed, par_closest_points_indexed,
    };
    let mut rng = Rng::new(0xf64_9a1d);
    let n = 4000;
    // Objects on a 1 m lattice far from the origin, so a good share of pairs touch.
    let o = 6.4e6;
    let at = |rng: &mut Rng| {
        let p = [0, 1, 2].map(|_| o + rng.below(6) as f64);
        let q = [0, 1, 2].map(|k| p[k] + rng.below(3) as f64 - 1.0);
        Segment64::new(p, q)
    };
    let set: Segments64 = (0..n).map(|_| at(&mut rng)).collect();
    let pairs: Vec<(u32, u32)> = (0..2 * PAR_MIN_PAIRS + 77)
        .map(|_| (rng.below(n) as u32, rng.below(n) as u32))
        .collect();
    let seq = closest_points_indexed(&set, &set, &pairs);
    let par = par_closest_points_indexed(&set, &set, &pairs);
    assert!(
        seq.iter()
            .zip(par.iter())
            .all(|(x, y)| same_closest(&x, &y))
    );
    let radii = Radii64::uniform(0.5, 0.5).unwrap();
    let mask = capsules_touch_indexed(&set, &set, &pairs, radii);
    assert_eq!(mask, par_capsules_touch_indexed(&set, &set, &pairs, radii));
    assert!(
        mask.count_ones() > pairs.len() / 100,
        "{} touch",
        mask.count_ones()
    );
    let seq = capsule_contacts(&set, &set, &pairs, radii);
    let par = par_capsule_contacts(&set, &set, &pairs, radii);
    assert_eq!(seq.len(), par.len());
    assert!(seq.iter().zip(&par).all(|(x, y)| same_contact(x, y)));
}

// ---------------------------------------------------------------------------------------
// First contact.

mod first_contact {
    use super::{radii_for, same};
    use segbatch::motion::{
        Contact, ContactBatch, Tracks64, Window, Window64, first_contact, first_contact_into,
    };
    use segbatch::pairs::Radii64;
    use segbatch::{Error, Options, Segments64, reference};
    use segbatch_testkit::Rng;
    use segbatch_testkit::motion64::{CPA_CLASSES64, any_moving64, track_of};
    use segbatch_testkit::pairs64::Pair64;

    const WINDOWS: [f64; 5] = [0.0, 0.5, 1.0, 1e3, f64::INFINITY];

    fn same_contact(x: &Contact<f64>, y: &Contact<f64>) -> bool {
        x.hit == y.hit && same(x.t, y.t) && x.flags == y.flags
    }

    /// Both forms on the pairs (views from `start`) against the references, with per-pair
    /// and with uniform radii.
    fn check(pairs: &[Pair64], radii: &[(f64, f64)], start: usize, end: f64) {
        let a: Segments64 = pairs.iter().map(|p| p.0).collect();
        let b: Segments64 = pairs.iter().map(|p| p.1).collect();
        let ta: Tracks64 = pairs.iter().map(|p| track_of(&p.0)).collect();
        let tb: Tracks64 = pairs.iter().map(|p| track_of(&p.1)).collect();
        let window = Window64::new(end).unwrap();
        let (ra, rb): (Vec<f64>, Vec<f64>) = radii[start..].iter().copied().unzip();
        let (r0, r1) = radii.first().copied().unwrap_or((0.5, 0.5));
        for per_pair in [true, false] {
            let r = if per_pair {
                Radii64::per_pair(&ra, &rb).unwrap()
            } else {
                Radii64::uniform(r0, r1).unwrap()
            };
            let steps = first_contact(a.view(start..), b.view(start..), r, Window::STEP);
            let tracks = first_contact(ta.view(start..), tb.view(start..), r, window);
            assert_eq!(
                (steps.len(), tracks.len()),
                (pairs.len() - start, pairs.len() - start)
            );
            for k in start..pairs.len() {
                let (pa, pb) = &pairs[k];
                let (x, y) = if per_pair { radii[k] } else { (r0, r1) };
                let want = reference::first_contact(pa, x, pb, y, Window::STEP);
                let got = steps.get(k - start).unwrap();
                assert!(
                    same_contact(&got, &want),
                    "steps, pair {k} from {start}, radii {x} {y}: {pa:?} {pb:?}\n kernel {got:?}\n reference {want:?}"
                );
                let (qa, qb) = (track_of(pa), track_of(pb));
                let want = reference::first_contact(&qa, x, &qb, y, window);
                let got = tracks.get(k - start).unwrap();
                assert!(
                    same_contact(&got, &want),
                    "tracks over [0, {end}], pair {k} from {start}: {qa:?} {qb:?}\n kernel {got:?}\n reference {want:?}"
                );
            }
        }
    }

    /// Radii around half the pair's closest distance over the step, so contacts start,
    /// happen later, or never.
    fn radii(rng: &mut Rng, pairs: &[Pair64]) -> Vec<(f64, f64)> {
        pairs
            .iter()
            .map(|p| {
                let mid = (
                    segbatch::Segment64::new(p.0.p0, p.1.p0),
                    segbatch::Segment64::new(p.0.p1, p.1.p1),
                );
                radii_for(rng, &mid, &Options::SEGMENTS)
            })
            .collect()
    }

    #[test]
    fn every_class_in_every_lane() {
        let mut rng = Rng::new(0xf64_c07a);
        let filler = (CPA_CLASSES64[0].pair)(&mut rng);
        for class in CPA_CLASSES64 {
            for _ in 0..4 {
                let case = (class.pair)(&mut rng);
                for lane in 0..17 {
                    let mut pairs = vec![filler; 17];
                    pairs[lane] = case;
                    let r = radii(&mut rng, &pairs);
                    let end = WINDOWS[lane % WINDOWS.len()];
                    check(&pairs, &r, 0, end);
                }
            }
        }
    }

    #[test]
    fn every_tail_and_view() {
        let mut rng = Rng::new(0xf64_7c0a);
        for n in 0..=20 {
            let pairs: Vec<Pair64> = (0..n).map(|_| any_moving64(&mut rng)).collect();
            let r = radii(&mut rng, &pairs);
            for start in 0..=n {
                check(&pairs, &r, start, WINDOWS[(n + start) % WINDOWS.len()]);
            }
        }
    }

    #[test]
    fn errors_are_named() {
        let mut rng = Rng::new(0xf64_ec07);
        let pairs: Vec<Pair64> = (0..3).map(|_| any_moving64(&mut rng)).collect();
        let a: Segments64 = pairs.iter().map(|p| p.0).collect();
        let two: Segments64 = pairs[..2].iter().map(|p| p.1).collect();
        let u = Radii64::uniform(0.5, 0.5).unwrap();
        let mut out = ContactBatch::<f64>::new();
        assert_eq!(
            first_contact_into(&a, &two, u, Window::STEP, &mut out),
            Err(Error::LengthMismatch {
                what: "batches a and b",
                expected: 3,
                found: 2
            })
        );
        let r = [0.5; 2];
        let short = Radii64::per_pair(&r, &r).unwrap();
        assert_eq!(
            first_contact_into(&a, &a, short, Window::STEP, &mut out),
            Err(Error::LengthMismatch {
                what: "radii of a and the batches",
                expected: 3,
                found: 2
            })
        );
        let t: Tracks64 = pairs.iter().map(|p| track_of(&p.0)).collect();
        assert!(matches!(
            first_contact_into(&t, &Tracks64::new(), u, Window64::STEP, &mut out),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(std::panic::catch_unwind(|| first_contact(&a, &two, u, Window::STEP)).is_err());
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_is_sequential() {
        use segbatch::motion::par_first_contact;
        use segbatch::pairs::PAR_MIN_PAIRS;
        let pairs = segbatch_testkit::motion64::moving_pairs64(0xf64_9c07, 2 * PAR_MIN_PAIRS + 3);
        let a: Segments64 = pairs.iter().map(|p| p.0).collect();
        let b: Segments64 = pairs.iter().map(|p| p.1).collect();
        let ra: Vec<f64> = (0..pairs.len()).map(|k| (k % 5) as f64 * 0.25).collect();
        let r = Radii64::per_pair(&ra, &ra).unwrap();
        let (seq, par) = (
            first_contact(&a, &b, r, Window::STEP),
            par_first_contact(&a, &b, r, Window::STEP),
        );
        assert!(
            seq.iter()
                .zip(par.iter())
                .all(|(x, y)| same_contact(&x, &y))
        );
        assert!(seq.hits().count() > 0);
        let ta: Tracks64 = pairs.iter().map(|p| track_of(&p.0)).collect();
        let tb: Tracks64 = pairs.iter().map(|p| track_of(&p.1)).collect();
        let w = Window64::new(2.0).unwrap();
        let (seq, par) = (
            first_contact(&ta, &tb, r, w),
            par_first_contact(&ta, &tb, r, w),
        );
        assert!(
            seq.iter()
                .zip(par.iter())
                .all(|(x, y)| same_contact(&x, &y))
        );
    }
}

// ---------------------------------------------------------------------------------------
// The matrix.

mod matrix {
    use super::{EXTENTS, same};
    use segbatch::sets::dist2_matrix_into;
    use segbatch::{Error, Options, Segments64, Segments64View, reference};
    use segbatch_testkit::Rng;
    use segbatch_testkit::pairs64::any64;

    /// Every entry against the reference, views of `a` and `b` from `start`.
    fn check(a: &Segments64, b: &Segments64, start: usize, options: &Options) {
        let (va, vb) = (a.view(start.min(a.len())..), b.view(start.min(b.len())..));
        let mut out = vec![7.0; 3];
        dist2_matrix_into(va, vb, options, &mut out).unwrap();
        assert_eq!(out.len(), va.len() * vb.len());
        for i in 0..va.len() {
            for j in 0..vb.len() {
                let want = reference::closest_points_with(
                    &va.get(i).unwrap(),
                    &vb.get(j).unwrap(),
                    options,
                );
                let got = out[i * vb.len() + j];
                assert!(
                    same(got, want.dist2),
                    "({i}, {j}) {options:?}: {got} != {}",
                    want.dist2
                );
            }
        }
    }

    #[test]
    fn every_entry_is_the_reference() {
        let mut rng = Rng::new(0xf64_3a7c);
        for (na, nb) in [(0, 5), (5, 0), (1, 1), (3, 17), (9, 20), (2, 515), (70, 9)] {
            let a: Segments64 = (0..na).map(|_| any64(&mut rng).0).collect();
            let b: Segments64 = (0..nb).map(|_| any64(&mut rng).1).collect();
            for ea in EXTENTS {
                for eb in EXTENTS {
                    check(&a, &b, 0, &Options::new(ea, eb));
                }
            }
            for start in [1, 3] {
                check(&a, &b, start, &Options::SEGMENTS);
            }
        }
    }

    #[test]
    fn too_large_a_matrix_is_refused() {
        let column = vec![0.0f64; 1 << 23];
        let points = Segments64View::from_columns([&column[..]; 6]).unwrap();
        let mut out = vec![1.0f64; 4];
        assert_eq!(
            dist2_matrix_into(points, points, &Options::SEGMENTS, &mut out),
            Err(Error::OutOfMemory {
                what: "dist2_matrix output",
                elements: 1 << 46
            })
        );
        assert!(out.is_empty());
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_is_sequential() {
        use segbatch::sets::{dist2_matrix, par_dist2_matrix};
        let mut rng = Rng::new(0xf64_9a3a);
        let a: Segments64 = (0..300).map(|_| any64(&mut rng).0).collect();
        let b: Segments64 = (0..1000).map(|_| any64(&mut rng).1).collect();
        let (seq, par) = (dist2_matrix(&a, &b), par_dist2_matrix(&a, &b));
        assert_eq!(seq.len(), 300_000);
        assert!(seq.iter().zip(&par).all(|(x, y)| same(*x, *y)));
    }
}
