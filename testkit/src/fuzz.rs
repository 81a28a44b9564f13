//! The checks behind the fuzz targets in `fuzz/` (cargo fuzz), kept here so the targets
//! stay one line each and their saved inputs replay as ordinary tests (`tests/suite/fuzz_replay.rs`).
//!
//! The set queries' check ([`sets`]) decodes its own way ([`decode_set`]). The two kernel
//! checks decode the fuzzer's bytes the same way: byte 0 chooses the extents (A and
//! B: segment, ray, line), bytes 1..13 the tolerance, then every 48 bytes one pair (12
//! little-endian `f32`: a.p0, a.p1, b.p0, b.p1), at most [`MAX_PAIRS`] pairs (so groups of
//! 8 lanes and every tail length occur).

use segbatch::motion::{Contact, Window, first_contact};
use segbatch::pairs::{Radii64, capsules_touch, closest_points_into};
use segbatch::planar::{
    CrossHit, Crossing, Segment2, Segments2, crossing_pairs, for_each_crossing_pair,
};
use segbatch::sets::{
    FirstHit, Hit, Hit64, PairHit, SegmentIndex64, SharedEndpoints, for_each_pair_within,
    for_each_self_pair_within, pair_distance, pairs_within, self_pairs_within, within_radius,
};
use segbatch::{
    Closest, ClosestBatch, Extent, Flags, Options, Outputs, Segment, Segment64, SegmentIndex,
    Segments, Segments64, Tolerance, reference,
};

use crate::brute;
use crate::oracle::{exact, exact_short_unbounded_as_point};
use crate::range64::{room_up, shift, shift_set};

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
            length_abs: f64::from(f32_at(rest, 4)),
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
/// bit-for-bit twins; elsewhere the same flags), and no panic; the pairs as one batch, and
/// tiled to [`TILED_PAIRS`] so the driver's special path runs too (when a pair is
/// degenerate or parallel).
///
/// # Errors
/// A description of the first pair that differs.
pub fn kernel_vs_reference(data: &[u8]) -> Result<(), String> {
    let (options, pairs) = decode(data);
    let want: Vec<Closest> = pairs
        .iter()
        .map(|(a, b)| reference::closest_points_with(a, b, &options))
        .collect();
    let check = |got: &ClosestBatch, what: &str| -> Result<(), String> {
        for (i, k) in got.iter().enumerate() {
            let (r, (a, b)) = (&want[i % pairs.len()], &pairs[i % pairs.len()]);
            if !same_result(&k, r) {
                return Err(format!(
                    "pair {i} of {} ({what}): kernel differs from reference\n options {options:?}\n \
                     a = {a:?}\n b = {b:?}\n reference {r:?}\n kernel    {k:?}",
                    got.len()
                ));
            }
        }
        Ok(())
    };
    if pairs.is_empty() {
        return Ok(());
    }
    check(&kernel(&options, &pairs), "the pairs")?;
    range64_twins(data, &pairs)?;
    // The same pairs over and over, at least `TILED_PAIRS` of them: long enough for the
    // driver's adaptive choice ("Adaptive paths" in `segbatch`'s driver) to leave the lean
    // path when enough groups miss it, every pair in several lane positions. Only worth
    // it (twenty times the work of an input) when a pair takes the special path's own
    // branch, a degenerate or parallel one.
    let special = Flags::DEGENERATE_A | Flags::DEGENERATE_B | Flags::PARALLEL;
    if !want.iter().any(|r| r.flags.intersects(special)) {
        return Ok(());
    }
    let tiled: Vec<(Segment, Segment)> = pairs
        .iter()
        .cycle()
        .take(TILED_PAIRS.div_ceil(pairs.len()) * pairs.len())
        .copied()
        .collect();
    check(&kernel(&options, &tiled), "tiled")
}

/// The length [`kernel_vs_reference`] tiles its pairs to: a lean block of the driver's
/// adaptive loop (32 groups of 8), then half a block on whichever path it chose, and a
/// tail.
pub const TILED_PAIRS: usize = 8 * 32 + 8 * 16 + 1;

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
    range64_rescaled(data, &pairs)
}

// ---------------------------------------------------------------------------------------
// The f64 range rule: scaled copies at the edges of f64's range.

/// The power of two the range checks scale by, from the input's last byte: `2^500` to
/// `2^1020` (the set's room allowing; squares overflow) for an odd byte, `2^-520` to
/// `2^-774` for an even one (squares underflow).
#[must_use]
pub fn edge_exponent_of(data: &[u8], room: i32) -> i32 {
    let b = i32::from(data.last().copied().unwrap_or(0));
    if b & 1 == 1 && room > 500 {
        (500 + (b >> 1) * 4).min(room)
    } else {
        -(520 + (b >> 1) * 2)
    }
}

/// The pairs widened to `f64`, the finite ones.
fn widened_pairs(pairs: &[(Segment, Segment)]) -> Vec<Segment64> {
    let wide = |s: &Segment| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from));
    pairs
        .iter()
        .filter(|(a, b)| {
            [a.p0, a.p1, b.p0, b.p1]
                .iter()
                .flatten()
                .all(|x| x.is_finite())
        })
        .flat_map(|(a, b)| [wide(a), wide(b)])
        .collect()
}

/// A radius for pair `k` at distance `d`: `d`, one ulp above or below it, half or twice it,
/// or `+∞`.
fn radius_for(k: usize, d: f64) -> f64 {
    match k % 6 {
        0 => d,
        1 => d.next_up(),
        2 => d.next_down().max(0.0),
        3 => 0.5 * d,
        4 => 2.0 * d,
        _ => f64::INFINITY,
    }
}

fn same_contact(x: &Contact<f64>, y: &Contact<f64>) -> bool {
    x.hit == y.hit
        && x.flags == y.flags
        && (x.t.to_bits() == y.t.to_bits() || (x.t.is_nan() && y.t.is_nan()))
}

/// Fuzz target (a), `f64` part: the pairs widened and scaled to an edge of `f64`'s range
/// ([`edge_exponent_of`]); the batched `capsules_touch` (uniform and per-pair radii at the
/// pair's threshold) is `within_radius` over the reference pair by pair, and the batched
/// `first_contact` over start/end segments (infinite radii included) is
/// `reference::first_contact`.
///
/// # Errors
/// A description of the first pair that differs.
pub fn range64_twins(data: &[u8], pairs: &[(Segment, Segment)]) -> Result<(), String> {
    let wide = widened_pairs(pairs);
    let Some(scaled) = shift_set(&wide, edge_exponent_of(data, room_up(&wide))) else {
        return Ok(());
    };
    let (a, b): (Vec<Segment64>, Vec<Segment64>) =
        scaled.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
    if a.is_empty() {
        return Ok(());
    }
    let refs: Vec<_> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| reference::closest_points(x, y))
        .collect();
    let radii: Vec<f64> = refs
        .iter()
        .enumerate()
        .map(|(k, c)| radius_for(k, pair_distance(&a[k], &b[k], c)))
        .collect();
    let (sa, sb) = (Segments64::from(&a[..]), Segments64::from(&b[..]));
    let half: Vec<f64> = radii.iter().map(|r| 0.5 * r).collect();
    let mask = capsules_touch(
        &sa,
        &sb,
        Radii64::per_pair(&half, &half).map_err(|e| e.to_string())?,
    );
    for k in 0..a.len() {
        let want = within_radius(&a[k], &b[k], &refs[k], half[k] + half[k]);
        if mask.get(k) != Some(want) {
            return Err(format!(
                "capsules_touch pair {k} at the range's edge: {:?}, the rule {want}\n a = {:?}\n b = {:?}\n r = {:e}\n {:?}",
                mask.get(k),
                a[k],
                b[k],
                radii[k],
                refs[k]
            ));
        }
    }
    let r0 = radii[0];
    let mask = capsules_touch(
        &sa,
        &sb,
        Radii64::uniform(r0, 0.0).map_err(|e| e.to_string())?,
    );
    for k in 0..a.len() {
        let want = within_radius(&a[k], &b[k], &refs[k], r0);
        if mask.get(k) != Some(want) {
            return Err(format!(
                "capsules_touch (uniform {r0:e}) pair {k}: the rule {want}"
            ));
        }
    }
    let contacts = first_contact(
        &sa,
        &sb,
        Radii64::per_pair(&half, &half).map_err(|e| e.to_string())?,
        Window::STEP,
    );
    for (k, got) in contacts.iter().enumerate() {
        let want = reference::first_contact(&a[k], half[k], &b[k], half[k], Window::STEP);
        if !same_contact(&got, &want) {
            return Err(format!(
                "first_contact pair {k} at the range's edge: {got:?}, reference {want:?}\n a = {:?}\n b = {:?}",
                a[k], b[k]
            ));
        }
    }
    Ok(())
}

/// Fuzz target (b), `f64` part: the pairs (in the documented range) widened, against
/// their copies scaled to an edge of `f64`'s range ([`edge_exponent_of`]): the same
/// parameters, the same decision against radii at each pair's threshold, the distance
/// times the scale (the rescaled oracle), and the same first contact.
///
/// # Errors
/// A description of the first pair that differs.
pub fn range64_rescaled(data: &[u8], pairs: &[(Segment, Segment)]) -> Result<(), String> {
    let wide = widened_pairs(pairs);
    let k = edge_exponent_of(data, room_up(&wide));
    let Some(scaled) = shift_set(&wide, k) else {
        return Ok(());
    };
    for (n, (p, q)) in wide.chunks_exact(2).zip(scaled.chunks_exact(2)).enumerate() {
        let (c, ck) = (
            reference::closest_points(&p[0], &p[1]),
            reference::closest_points(&q[0], &q[1]),
        );
        let fail = |what: String| {
            Err(format!(
                "pair {n} scaled by 2^{k}: {what}\n a = {:?}\n b = {:?}\n ordinary {c:?}\n scaled {ck:?}",
                p[0], p[1]
            ))
        };
        if (c.s.to_bits(), c.t.to_bits()) != (ck.s.to_bits(), ck.t.to_bits()) {
            return fail("other parameters".into());
        }
        let d = c.dist2.sqrt();
        if c.dist2 >= f64::MIN_POSITIVE {
            let want = shift(d, k);
            let got = pair_distance(&q[0], &q[1], &ck);
            if got.to_bits() != want.to_bits() {
                return fail(format!(
                    "distance {got:e}, the ordinary one scaled {want:e}"
                ));
            }
        }
        for j in 0..6 {
            let r = radius_for(j, d);
            let want = c.dist2 <= r * r;
            if within_radius(&q[0], &q[1], &ck, shift(r, k)) != want {
                return fail(format!(
                    "decided otherwise than at the ordinary scale, r = {r:e}"
                ));
            }
            // First contacts scaled up, where squares overflow and the pair is solved
            // again scaled (scaled down, squares underflow as in every closed form).
            let (x, y) = (
                reference::first_contact(&p[0], 0.5 * r, &p[1], 0.5 * r, Window::STEP),
                reference::first_contact(
                    &q[0],
                    shift(0.5 * r, k),
                    &q[1],
                    shift(0.5 * r, k),
                    Window::STEP,
                ),
            );
            if k > 0 && !same_contact(&x, &y) {
                return fail(format!("first contact {y:?}, ordinary {x:?} (r = {r:e})"));
            }
        }
    }
    Ok(())
}

/// The most segments one input of [`sets`] decodes to.
pub const MAX_SET: usize = 60;

/// Bytes per segment in [`sets`]'s input: a control byte and six `u32`.
const SET_RECORD: usize = 25;

/// Bytes before the first segment in [`sets`]'s input.
const SET_HEAD: usize = 9;

/// What [`sets`] decodes its bytes to: a set, a radius and the parameters of the queries.
#[derive(Clone, Debug)]
pub struct SetCase {
    /// The set (also split into A and B, walls and rays).
    pub set: Vec<Segment>,
    /// The query radius, finite and at least 0.
    pub radius: f32,
    /// Shared end points skipped by the self query.
    pub skip_shared: bool,
    /// `set[..split]` is A (the queries of the index), `set[split..]` is B (its members).
    pub split: usize,
    /// The range of the thick rays of [`SegmentIndex::first_hits`].
    pub range: f32,
    /// The set's scale is one of the extremes (see [`decode_set`]).
    pub extreme: bool,
}

/// Decodes [`sets`]'s input. Byte 0: bit 0 skip shared end points, bits 1-2 an offset of
/// the whole set (0, 1e2, 3e4, 3e6: rounding far from the origin), bits 3-5 the side of the
/// set (2^-3 to 2^4). Bytes 1-4: the radius (below, a fraction of the side). Byte 5: how
/// the radius is chosen (a fraction of the side, 0, or exactly a distance that occurs, or
/// one ulp above or below it: the threshold cases); bytes 6-7 the pair whose distance it is.
/// Byte 8: where A ends and B starts, and the rays' range. Then every 25 bytes one segment:
/// a control byte, then six `u32` folded into the set's cube; the control byte makes it
/// fresh, snapped to a grid of side/8 (exact junctions), an exact copy of an earlier one
/// (also reversed), a piece of the axis-parallel line through an earlier one's first point
/// (exactly collinear), one sharing an end point with an earlier one, a point, or one
/// with a non-finite coordinate.
///
/// A tail of one or two bytes after the last record (fewer than a record) selects the
/// extremes: bits 0-2 of its first byte the set's scale (1: the whole `f32` range,
/// `±2^127`; 2: a cube of side `2^100`; 3: of side `2^-100`, where squared distances
/// underflow; 4: of side `2^-130`, subnormal coordinates; 5: side `2^100` at `3e38`; 6
/// and 7: as 1, with the first segment made a wall from `-f32::MAX` to `f32::MAX` along
/// the axis of bits 5-7), bits 3-4 the radius (1: `f32::MAX`; 2: `1e30`; 3: the smallest
/// subnormal, `1e-45`).
#[must_use]
pub fn decode_set(data: &[u8]) -> SetCase {
    let byte = |i: usize| data.get(i).copied().unwrap_or(0);
    let head = byte(0);
    let mut origin = [0.0f32, 1e2, 3e4, 3e6][usize::from(head >> 1 & 3)];
    let mut side = 2f32.powi(i32::from(head >> 3 & 7) - 3);
    // The extremes: a tail of one or two bytes after the last record.
    let left = data.len().saturating_sub(SET_HEAD) % SET_RECORD;
    let tail = if (1..=2).contains(&left) {
        byte(data.len() - left)
    } else {
        0
    };
    match tail & 7 {
        1 | 6 => (origin, side) = (-(2f32.powi(127)), 2f32.powi(127)),
        2 => (origin, side) = (0.0, 2f32.powi(100)),
        3 => (origin, side) = (0.0, 2f32.powi(-100)),
        4 => (origin, side) = (0.0, 2f32.powi(-130)),
        5 => (origin, side) = (3e38, 2f32.powi(100)),
        _ => {}
    }
    let word = |i: usize| u32::from_le_bytes([byte(i), byte(i + 1), byte(i + 2), byte(i + 3)]);
    // A value in [origin, origin + side) from 32 bits (24 of them, exactly representable).
    let fold = |w: u32| origin + side * ((w >> 8) as f32 / 16_777_216.0);
    let snap = |w: u32| origin + side * (w % 9) as f32 / 8.0;
    let mut set: Vec<Segment> = Vec::new();
    for rec in data
        .get(SET_HEAD..)
        .unwrap_or(&[])
        .chunks_exact(SET_RECORD)
        .take(MAX_SET)
    {
        let c = rec[0];
        let w: [u32; 6] = core::array::from_fn(|k| {
            u32::from_le_bytes([
                rec[1 + 4 * k],
                rec[2 + 4 * k],
                rec[3 + 4 * k],
                rec[4 + 4 * k],
            ])
        });
        let fresh = |f: &dyn Fn(u32) -> f32| {
            Segment::new([f(w[0]), f(w[1]), f(w[2])], [f(w[3]), f(w[4]), f(w[5])])
        };
        let earlier = (!set.is_empty()).then(|| set[usize::from(c >> 4) * 7 % set.len()]);
        let seg = match (c & 15, earlier) {
            (0..=4, _) | (_, None) => fresh(&fold),
            (5 | 6, _) => fresh(&snap),
            (7, Some(e)) => e,
            (8, Some(e)) => Segment::new(e.p1, e.p0),
            (9 | 10, Some(e)) => {
                let axis = (w[0] % 3) as usize;
                let (mut p0, mut p1) = (e.p0, e.p0);
                p0[axis] = fold(w[1]);
                p1[axis] = if c & 1 == 0 { snap(w[2]) } else { fold(w[2]) };
                Segment::new(p0, p1)
            }
            (11 | 12, Some(e)) => {
                let end = if w[0] & 1 == 0 { e.p0 } else { e.p1 };
                Segment::new(end, [fold(w[3]), fold(w[4]), fold(w[5])])
            }
            (13 | 14, _) => {
                let p = [fold(w[0]), fold(w[1]), fold(w[2])];
                Segment::new(p, p)
            }
            (_, _) => {
                let mut s = fresh(&fold);
                let bad = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][(w[0] % 3) as usize];
                s.p1[(w[1] % 3) as usize] = bad;
                s
            }
        };
        set.push(seg);
    }
    if tail & 7 >= 6
        && let Some(first) = set.first_mut()
    {
        // A wall across the whole f32 range.
        let axis = usize::from(tail >> 5) % 3;
        first.p0[axis] = -f32::MAX;
        first.p1[axis] = f32::MAX;
    }
    let n = set.len();
    let fraction = (word(1) >> 8) as f32 / 16_777_216.0;
    let mut radius = side * fraction;
    let mode = byte(5) % 5;
    if mode == 1 {
        radius = 0.0;
    } else if mode >= 2 && n > 0 {
        let (i, j) = (usize::from(byte(6)) % n, usize::from(byte(7)) % n);
        let d2 = reference::closest_points(&set[i], &set[j]).dist2;
        if d2.is_finite() {
            let r = d2.sqrt();
            radius = match mode {
                2 => r,
                3 => f32::from_bits(r.to_bits() + 1),
                _ => f32::from_bits(r.to_bits().max(1) - 1),
            };
        }
    }
    match tail >> 3 & 3 {
        1 => radius = f32::MAX,
        2 => radius = 1e30,
        3 => radius = f32::from_bits(1),
        _ => {}
    }
    SetCase {
        set,
        radius,
        skip_shared: head & 1 != 0,
        split: if n == 0 {
            0
        } else {
            usize::from(byte(8)) % (n + 1)
        },
        range: f32::from(byte(8) >> 4) * 0.25,
        extreme: tail & 7 != 0,
    }
}

/// `got` and `want` as the same `(i, j, dist2, s, t)` bits, in the same order.
fn same_hits(got: &[Hit], want: &[Hit], what: &str) -> Result<(), String> {
    let key = |h: &Hit| (h.i, h.j, h.dist2.to_bits(), h.s.to_bits(), h.t.to_bits());
    let (g, w): (Vec<_>, Vec<_>) = (
        got.iter().map(key).collect(),
        want.iter().map(key).collect(),
    );
    if g == w {
        Ok(())
    } else {
        let first = g
            .iter()
            .zip(&w)
            .position(|(x, y)| x != y)
            .unwrap_or(g.len().min(w.len()));
        Err(format!(
            "{what}: {} hits, brute force {}; first difference at {first}: {:?} vs {:?}",
            g.len(),
            w.len(),
            got.get(first),
            want.get(first)
        ))
    }
}

/// Streamed hits, sorted, as the same `(i, j, dist2)` bits as `want`.
fn same_streamed(mut got: Vec<PairHit>, want: &[Hit], what: &str) -> Result<(), String> {
    got.sort_by_key(|h| (h.i, h.j));
    let g: Vec<_> = got.iter().map(|h| (h.i, h.j, h.dist2.to_bits())).collect();
    let w: Vec<_> = want.iter().map(|h| (h.i, h.j, h.dist2.to_bits())).collect();
    if g == w {
        Ok(())
    } else {
        Err(format!("{what} (streamed): {g:?}\n brute force {w:?}"))
    }
}

/// Fuzz target (d): the set queries against brute force over the scalar reference, on
/// small arbitrary sets ([`decode_set`]): [`self_pairs_within`] (with shared end points kept
/// or skipped), [`pairs_within`] of A and B, their streaming forms, [`crossing_pairs`] and
/// [`for_each_crossing_pair`] of the set's (x, y) projection, and a [`SegmentIndex`] over B:
/// its [`SegmentIndex::pairs_within`] for A and its [`SegmentIndex::first_hits`] for the
/// set's rays. Every hit the same, in the same order, bit for bit (the sequential forms;
/// `tests/suite/sets.rs` checks the parallel ones against them).
///
/// # Errors
/// A description of the first query that differs, with the case.
pub fn sets(data: &[u8]) -> Result<(), String> {
    let case = decode_set(data);
    check_sets(&case).map_err(|e| format!("{e}\n case {case:?}"))
}

fn check_sets(case: &SetCase) -> Result<(), String> {
    let SetCase { set, radius: r, .. } = case;
    let r = *r;
    let o = Options::SEGMENTS;
    let all = Segments::from(&set[..]);
    let (a, b) = set.split_at(case.split);
    let (sa, sb) = (Segments::from(a), Segments::from(b));
    let err = |e: segbatch::Error| e.to_string();
    // The self query.
    let shared = if case.skip_shared {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    };
    let want: Vec<Hit> = brute::within(set, set, r, &o, true)
        .into_iter()
        .filter(|h| {
            !case.skip_shared || !brute::shares_endpoint(&set[h.i as usize], &set[h.j as usize])
        })
        .collect();
    same_hits(
        &self_pairs_within(&all, r, shared),
        &want,
        "self_pairs_within",
    )?;
    let mut streamed = Vec::new();
    for_each_self_pair_within(&all, r, shared, &o, |x| streamed.extend_from_slice(x))
        .map_err(err)?;
    same_streamed(streamed, &want, "for_each_self_pair_within")?;
    // A against B, and the index over B.
    let want = brute::within(a, b, r, &o, false);
    same_hits(&pairs_within(&sa, &sb, r), &want, "pairs_within")?;
    let mut streamed = Vec::new();
    for_each_pair_within(&sa, &sb, r, &o, |x| streamed.extend_from_slice(x)).map_err(err)?;
    same_streamed(streamed, &want, "for_each_pair_within")?;
    let index = SegmentIndex::new(&sb).map_err(err)?;
    same_hits(
        &index.pairs_within(&sa, r).map_err(err)?,
        &want,
        "SegmentIndex::pairs_within",
    )?;
    // First hits of the whole set as thick rays on B.
    let want: Vec<Option<FirstHit>> = set
        .iter()
        .map(|ray| {
            let mut best: Option<FirstHit> = None;
            for (j, w) in b.iter().enumerate() {
                if let Some(mut h) = reference::first_hit(ray, r, case.range, w) {
                    h.index = j as u32;
                    if best.is_none_or(|x| (h.u, h.index) < (x.u, x.index)) {
                        best = Some(h);
                    }
                }
            }
            best
        })
        .collect();
    let got = index.first_hits(&all, r, case.range).map_err(err)?;
    let bits =
        |h: &Option<FirstHit>| h.map(|h| (h.index, h.u.to_bits(), h.point.map(f32::to_bits)));
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        if bits(g) != bits(w) {
            return Err(format!(
                "SegmentIndex::first_hits (range {}): ray {k}: {g:?}, brute force {w:?}",
                case.range
            ));
        }
    }
    if got.len() != want.len() {
        return Err(format!(
            "first_hits: {} results for {} rays",
            got.len(),
            want.len()
        ));
    }
    // The 2D crossing set of the (x, y) projection.
    let flat: Vec<Segment2> = set
        .iter()
        .map(|s| Segment2::new([s.p0[0], s.p0[1]], [s.p1[0], s.p1[1]]))
        .collect();
    let mut want = Vec::new();
    for i in 0..flat.len() {
        for j in i + 1..flat.len() {
            let x = reference::intersect2(&flat[i], &flat[j]);
            if x.kind != Crossing::Disjoint {
                want.push((i as u32, j as u32, x.s.to_bits(), x.kind));
            }
        }
    }
    let key = |h: &CrossHit| (h.i, h.j, h.s.to_bits(), h.kind);
    let flat = Segments2::from(&flat[..]);
    let got: Vec<_> = crossing_pairs(&flat).iter().map(key).collect();
    if got != want {
        return Err(format!("crossing_pairs: {got:?}\n brute force {want:?}"));
    }
    let mut streamed = Vec::new();
    for_each_crossing_pair(&flat, SharedEndpoints::Keep, |x| {
        streamed.extend(x.iter().map(key))
    })
    .map_err(err)?;
    streamed.sort_by_key(|h| (h.0, h.1));
    if streamed != got {
        return Err(format!(
            "for_each_crossing_pair: {streamed:?}\n crossing_pairs {got:?}"
        ));
    }
    // Meeting points: finite for finite segments (walls across the whole f32 range too),
    // on the segment's box.
    for h in crossing_pairs(&flat) {
        let p = h.point(&flat).ok_or("a hit names a segment of the set")?;
        let seg = flat
            .get(h.i as usize)
            .ok_or("a hit names a segment of the set")?;
        let inside = (0..2).all(|k| {
            let (lo, hi) = (seg.p0[k].min(seg.p1[k]), seg.p0[k].max(seg.p1[k]));
            p[k] >= lo && p[k] <= hi
        });
        if !inside {
            return Err(format!(
                "CrossHit::point {p:?} of {h:?} is off its segment {seg:?}"
            ));
        }
    }
    check_sets64(case)
}

/// Fuzz target (d), `f64` part: the set widened to `f64` and scaled to an edge of `f64`'s
/// range (the input's last byte, [`edge_exponent_of`]): the `f64` radius queries (self, A
/// against B, the index's pairs) report the pairs of the unscaled set with the radius
/// scaled alike, with the same parameters (the rescaled oracle of the range rule).
fn check_sets64(case: &SetCase) -> Result<(), String> {
    let wide: Vec<Segment64> = case
        .set
        .iter()
        .filter(|s| s.p0.iter().chain(&s.p1).all(|x| x.is_finite()))
        .map(|s| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from)))
        .collect();
    let r = f64::from(case.radius);
    // Up (an odd byte) or down (an even one), by the set's size and whether it skips shared
    // end points.
    let byte = (case.set.len() as u8).wrapping_mul(37) | u8::from(!case.skip_shared);
    let k = edge_exponent_of(&[byte], room_up(&wide));
    let (Some(scaled), rk) = (shift_set(&wide, k), shift(r, k)) else {
        return Ok(());
    };
    if !rk.is_finite() || (rk > 0.0 && shift(rk, -k) != r) {
        return Ok(());
    }
    let keys = |h: &[Hit64]| -> Vec<(u32, u32, u64, u64)> {
        let mut v: Vec<_> = h
            .iter()
            .map(|h| (h.i, h.j, h.s.to_bits(), h.t.to_bits()))
            .collect();
        v.sort_unstable();
        v
    };
    let (all, allk) = (Segments64::from(&wide[..]), Segments64::from(&scaled[..]));
    let shared = SharedEndpoints::Keep;
    let (want, got) = (
        self_pairs_within(&all, r, shared),
        self_pairs_within(&allk, rk, shared),
    );
    if keys(&want) != keys(&got) {
        return Err(format!(
            "self_pairs_within at 2^{k} (r {rk:e}): {:?}\n ordinary {:?}",
            keys(&got),
            keys(&want)
        ));
    }
    let split = case.split.min(wide.len());
    let (a, b) = (
        Segments64::from(&wide[..split]),
        Segments64::from(&wide[split..]),
    );
    let (ak, bk) = (
        Segments64::from(&scaled[..split]),
        Segments64::from(&scaled[split..]),
    );
    let want = pairs_within(&a, &b, r);
    if keys(&want) != keys(&pairs_within(&ak, &bk, rk)) {
        return Err(format!("pairs_within at 2^{k} (r {rk:e})"));
    }
    let index = SegmentIndex64::new(&bk).map_err(|e| e.to_string())?;
    if keys(&want) != keys(&index.pairs_within(&ak, rk).map_err(|e| e.to_string())?) {
        return Err(format!("SegmentIndex64::pairs_within at 2^{k} (r {rk:e})"));
    }
    Ok(())
}
