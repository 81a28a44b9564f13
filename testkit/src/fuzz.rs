//! The checks behind the fuzz targets in `fuzz/` (cargo fuzz), kept here so the targets
//! stay one line each and their saved inputs replay as ordinary tests (`tests/fuzz_replay.rs`).
//!
//! Both checks decode the fuzzer's bytes the same way: byte 0 chooses the extents (A and
//! B: segment, ray, line), bytes 1..13 the tolerance, then every 48 bytes one pair (12
//! little-endian `f32`: a.p0, a.p1, b.p0, b.p1), at most [`MAX_PAIRS`] pairs (so groups of
//! 8 lanes and every tail length occur).

use segbatch::{
    Closest, ClosestBatch, Extent, Flags, Options, Outputs, Segment, Segments, Tolerance,
    closest_points_into, reference,
};

use crate::oracle::{exact, exact_short_unbounded_as_point};

/// The most pairs one input decodes to.
pub const MAX_PAIRS: usize = 40;

/// The accuracy bar checked by [`kernel_vs_oracle`], in `f32::EPSILON · S`.
pub const DISTANCE_BOUND: f64 = 8.0;

/// The smallest magnitude [`kernel_vs_oracle`] gives a nonzero coordinate: `2^-46`, about
/// 1.4e-14 (the documented accurate range is coordinates of about 1e-14 to 1e18).
pub const MIN_MAGNITUDE: f32 = 1.4210855e-14;

/// The largest magnitude [`kernel_vs_oracle`] gives a coordinate: `2^60`, about 1.15e18.
pub const MAX_MAGNITUDE: f32 = 1.1529215e18;

const EXTENTS: [Extent; 3] = [Extent::Segment, Extent::Ray, Extent::Line];

fn f32_at(bytes: &[u8], i: usize) -> f32 {
    f32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]])
}

/// The options and pairs `data` decodes to, every bit pattern as it is (NaN, infinities,
/// subnormals, any tolerance). Too short an input gives no pairs.
#[must_use]
pub fn decode(data: &[u8]) -> (Options, Vec<(Segment, Segment)>) {
    let Some((&head, rest)) = data.split_first() else {
        return (Options::SEGMENTS, Vec::new());
    };
    let extent_a = EXTENTS[usize::from(head % 3)];
    let extent_b = EXTENTS[usize::from(head / 3 % 3)];
    let mut options = Options::new(extent_a, extent_b);
    let mut pairs_bytes = rest;
    // Bit 7: a tolerance from the next 12 bytes (length_rel, length_abs, parallel_sin).
    if head & 0x80 != 0 && rest.len() >= 12 {
        options = options.with_tolerance(Tolerance {
            length_rel: f32_at(rest, 0),
            length_abs: f32_at(rest, 4),
            parallel_sin: f32_at(rest, 8),
        });
        pairs_bytes = &rest[12..];
    }
    let pairs = pairs_bytes
        .chunks_exact(48)
        .take(MAX_PAIRS)
        .map(|c| {
            let x: [f32; 12] = core::array::from_fn(|k| f32_at(c, 4 * k));
            (
                Segment::new([x[0], x[1], x[2]], [x[3], x[4], x[5]]),
                Segment::new([x[6], x[7], x[8]], [x[9], x[10], x[11]]),
            )
        })
        .collect();
    (options, pairs)
}

/// Runs the kernel (a batch of all the pairs) on `pairs`.
fn kernel(options: &Options, pairs: &[(Segment, Segment)]) -> ClosestBatch {
    let a: Segments = pairs.iter().map(|p| p.0).collect();
    let b: Segments = pairs.iter().map(|p| p.1).collect();
    let mut out = ClosestBatch::new();
    closest_points_into(&a, &b, options, Outputs::ALL, &mut out)
        .expect("both sides have the same length");
    out
}

/// S: the largest end-point coordinate magnitude.
fn scale_of(a: &Segment, b: &Segment) -> f64 {
    [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .flatten()
        .fold(0f64, |m, x| m.max(f64::from(x.abs())))
}

fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// True when two results are the same bit for bit (any NaN equals any NaN).
#[must_use]
pub fn same_result(x: &Closest, y: &Closest) -> bool {
    same(x.s, y.s)
        && same(x.t, y.t)
        && same(x.dist2, y.dist2)
        && x.flags == y.flags
        && (0..3).all(|k| same(x.point_a[k], y.point_a[k]) && same(x.point_b[k], y.point_b[k]))
}

/// Fuzz target (a): the kernel against the scalar reference on arbitrary bit patterns
/// (and arbitrary tolerances): the same bits in every output (on x86_64, where the two are
/// bit-for-bit twins; elsewhere the same flags), and no panic.
///
/// # Errors
/// A description of the first pair that differs.
pub fn kernel_vs_reference(data: &[u8]) -> Result<(), String> {
    let (options, pairs) = decode(data);
    let got = kernel(&options, &pairs);
    for (i, ((a, b), k)) in pairs.iter().zip(got.iter()).enumerate() {
        let r = reference::closest_points_with(a, b, &options);
        let ok = if cfg!(target_arch = "x86_64") {
            same_result(&k, &r)
        } else {
            k.flags == r.flags
        };
        if !ok {
            return Err(format!(
                "pair {i} of {}: kernel differs from reference\n options {options:?}\n a = {a:?}\n \
                 b = {b:?}\n reference {r:?}\n kernel    {k:?}",
                pairs.len()
            ));
        }
    }
    Ok(())
}

/// Maps any `f32` bit pattern to a finite value in the documented accurate range: zero, or
/// a magnitude in `[MIN_MAGNITUDE, MAX_MAGNITUDE]` with the pattern's sign and mantissa (the
/// exponent folded into the range).
#[must_use]
pub fn in_range(x: f32) -> f32 {
    let bits = x.to_bits();
    let exponent = (bits >> 23) & 0xff;
    if exponent == 0 {
        return 0.0;
    }
    // Exponents -46..=59 (106 values).
    let folded = (exponent % 106) + 127 - 46;
    f32::from_bits((bits & 0x807f_ffff) | (folded << 23))
}

/// The distance error of `got` against the exact answer, in `f32::EPSILON · S`, with the
/// rules `segbatch verify` uses: S is the largest end-point coordinate (with an unbounded
/// side, also the closest points', reported and exact), and a ray or line too short to
/// carry a direction may be taken as its first point.
#[must_use]
pub fn distance_error(a: &Segment, b: &Segment, options: &Options, got: &Closest) -> f64 {
    let (ext_a, ext_b) = (options.extent_a, options.extent_b);
    let unbounded = ext_a != Extent::Segment || ext_b != Extent::Segment;
    let ends_s = [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .flatten()
        .fold(0f64, |m, x| m.max(f64::from(x.abs())));
    let err = |o: &crate::Oracle| {
        let mut s = ends_s;
        if unbounded {
            for x in got.point_a.iter().chain(&got.point_b) {
                s = s.max(f64::from(x.abs()));
            }
            for x in o.point_a.iter().chain(&o.point_b) {
                s = s.max(x.abs());
            }
        }
        let unit = f64::from(f32::EPSILON) * s.max(f64::from(f32::MIN_POSITIVE));
        let e = (f64::from(got.dist2).sqrt() - o.distance).abs() / unit;
        if e.is_nan() { f64::INFINITY } else { e }
    };
    let mut e = err(&exact(a, b, ext_a, ext_b));
    if e > DISTANCE_BOUND {
        for o in exact_short_unbounded_as_point(a, b, ext_a, ext_b) {
            e = e.min(err(&o));
        }
    }
    e
}

/// True when a pair flagged `DIST2_OUT_OF_RANGE` deserves it: its exact distance `d` is
/// beyond what `dist2` can hold (`d² >= f32::MAX / 2`), or below the smallest normal
/// `dist2` (`d <= sqrt(2·f32::MIN_POSITIVE)`) give or take the accuracy bar
/// (`DISTANCE_BOUND · unit`, `unit = f32::EPSILON · S`).
#[must_use]
pub fn out_of_range_justified(d: f64, unit: f64) -> bool {
    d * d >= f64::from(f32::MAX) / 2.0
        || d <= (2.0 * f64::from(f32::MIN_POSITIVE)).sqrt() + DISTANCE_BOUND * unit
}

/// Fuzz target (b): the kernel against the f64 oracle on finite inputs in the documented
/// range (every coordinate mapped by [`in_range`]), with the default tolerance: distance
/// within [`DISTANCE_BOUND`]·ε·S, parameters inside their extents, never `NON_FINITE`, and
/// `DIST2_OUT_OF_RANGE` only when [`out_of_range_justified`] (zero coordinates make
/// distances below ~1e-19 possible).
///
/// # Errors
/// A description of the first pair that fails.
pub fn kernel_vs_oracle(data: &[u8]) -> Result<(), String> {
    let (options, pairs) = decode(data);
    let options = Options::new(options.extent_a, options.extent_b);
    let map = |s: &Segment| Segment::new(s.p0.map(in_range), s.p1.map(in_range));
    let pairs: Vec<(Segment, Segment)> = pairs.iter().map(|(a, b)| (map(a), map(b))).collect();
    let got = kernel(&options, &pairs);
    let (lo_a, hi_a) = options.extent_a.bounds();
    let (lo_b, hi_b) = options.extent_b.bounds();
    for (i, ((a, b), k)) in pairs.iter().zip(got.iter()).enumerate() {
        let fail = |what: String| {
            Err(format!(
                "pair {i}: {what}\n options {options:?}\n a = {a:?}\n b = {b:?}\n kernel {k:?}"
            ))
        };
        if k.flags.contains(Flags::NON_FINITE) {
            return fail("finite input flagged non-finite".into());
        }
        if !(k.s >= lo_a && k.s <= hi_a && k.t >= lo_b && k.t <= hi_b) {
            return fail("a parameter outside its extent".into());
        }
        if k.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
            let o = exact(a, b, options.extent_a, options.extent_b);
            let s = [k.point_a, k.point_b]
                .iter()
                .flatten()
                .fold(scale_of(a, b), |m, x| m.max(f64::from(x.abs())))
                .max(
                    o.point_a
                        .iter()
                        .chain(&o.point_b)
                        .fold(0f64, |m, x| m.max(x.abs())),
                );
            let unit = f64::from(f32::EPSILON) * s;
            let as_point = exact_short_unbounded_as_point(a, b, options.extent_a, options.extent_b);
            if !out_of_range_justified(o.distance, unit)
                && !as_point
                    .iter()
                    .any(|p| out_of_range_justified(p.distance, unit))
            {
                return fail(format!(
                    "flagged dist2-out-of-range at exact distance {:e}",
                    o.distance
                ));
            }
            continue;
        }
        let e = distance_error(a, b, &options, &k);
        if e > DISTANCE_BOUND {
            return fail(format!("distance error {e:.2} ε·S > {DISTANCE_BOUND}"));
        }
    }
    Ok(())
}
