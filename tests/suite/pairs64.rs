//! The `f64` pair queries beyond closest points (`capsules_touch64`, the indexed forms,
//! `capsule_contacts64`, `first_contact64`, `dist2_matrix64`) against their `f64` scalar
//! references, bit for bit.
//!
//! Inputs: the test kit's `f64` hard classes (`pairs64`: near-parallel, collinear,
//! degenerate, tiny, huge, far from the origin, non-finite...) rotated through every lane
//! of two groups among ordinary pairs, for every extent pair; batch lengths 0..=20 with the
//! views that end at the batch's end (the driver's zero-padded tail); radii at, just below
//! and just above the pair's distance, so both answers and the boundary occur; the parallel
//! forms against the sequential ones above the split's cut-off; the errors by name.

use segbatch::pairs::{PairMask, Radii64, capsules_touch64, capsules_touch64_into};
use segbatch::{Error, Extent, Options, Segment64, Segments64, reference};
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
    let d = reference::closest_points64_with(a, b, options).dist2.sqrt();
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
    let r = ra + rb;
    reference::closest_points64_with(a, b, options).dist2 <= r * r
}

/// The bits of a mask as `bool`s.
fn mask_bools(mask: &PairMask) -> Vec<bool> {
    (0..mask.len()).map(|i| mask.get(i).unwrap()).collect()
}

/// `capsules_touch64_into` on the pairs (views from `start`), with uniform radii and with
/// per-pair ones, against the reference pair by pair.
fn check_touch(pairs: &[Pair64], radii: &[(f64, f64)], start: usize, options: &Options) {
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let (ra, rb): (Vec<f64>, Vec<f64>) = radii[start..].iter().copied().unzip();
    let mut out = PairMask::new();
    let per_pair = Radii64::per_pair(&ra, &rb).unwrap();
    capsules_touch64_into(
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
    capsules_touch64_into(
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
    let err = capsules_touch64_into(&five, &four, radii, &Options::SEGMENTS, &mut out);
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
        capsules_touch64_into(&five, &five, short, &Options::SEGMENTS, &mut out),
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
    assert!(std::panic::catch_unwind(|| capsules_touch64(&five, &four, radii)).is_err());
}

#[cfg(feature = "rayon")]
#[test]
fn capsules_touch64_parallel_is_sequential() {
    use segbatch::pairs::{PAR_MIN_PAIRS, par_capsules_touch64, par_capsules_touch64_into};
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
    let seq = capsules_touch64(&a, &b, uniform);
    assert_eq!(seq, par_capsules_touch64(&a, &b, uniform));
    assert!(seq.count_ones() > n / 10 && seq.count_ones() < n - n / 10);
    let per_pair = Radii64::per_pair(&ra, &rb).unwrap();
    let (mut s, mut p) = (PairMask::new(), PairMask::new());
    capsules_touch64_into(&a, &b, per_pair, &Options::SEGMENTS, &mut s).unwrap();
    par_capsules_touch64_into(&a, &b, per_pair, &Options::SEGMENTS, &mut p).unwrap();
    assert_eq!(s, p);
}
