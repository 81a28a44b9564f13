//! The lane kernel: a line-by-line branchless twin of [`crate::reference`].
//!
//! # How it works
//!
//! Eight (or sixteen) pairs are computed at once, pair `j + k` in lane `k` of a
//! `wide::f32x8` (or `f32x16`; `f64x4` or `f64x8` for the `f64` queries), read straight
//! from the structure-of-arrays columns of [`Segments`](crate::Segments). The body is
//! written once over the [`Lane`] trait (`src/lanes.rs`) and instantiated for each of these
//! types: a generic function, not a macro per
//! type, because the trait only forwards to `wide`'s inherent methods, so each
//! instantiation compiles to the code a concrete one would (the 8-lane count per group is
//! the same before and after, by callgrind); the names below say `8` for history. The
//! algorithm is the reference's (read `src/reference.rs` beside this file; the variable
//! names are the same):
//!
//! 0. lanes whose `a·e` leaves `[2^-80, 2^80]` (or whose coordinates overflow a square, or
//!    whose unscaled Goldman `s` overflows) are rescaled by a power of two (exact);
//! 1. differences `d_a`, `d_b`, `r` and a non-finite probe (`a·0 + e·0 + (4·|r|²)·0` is NaN
//!    exactly when a coordinate is NaN or infinite);
//! 2. Ericson's dot products `a, b, c, e, f`, the degenerate tests against the squared
//!    magnitude of each side's first point, the cross product `n = dA × dB` (the accurate
//!    difference-of-products form when both sides are unbounded) and the parallel test
//!    `|n|² <= sin²·a·e`;
//! 3. the first estimate of `s`: Rhodes' overlap midpoint for parallel lanes, Goldman's
//!    triple product for the others, 0 for degenerate lanes;
//! 4. clamp, project onto B for `t`, project back onto A for `s`;
//! 5. the separation `r + s·dA - t·dB`, the squared distance and the points.
//!
//! # From branches to masks
//!
//! A lane cannot take a branch of its own, so every branch of the reference is computed in
//! all lanes and the right value is chosen per lane with a mask and `select`:
//!
//! | reference                                   | kernel                                                        |
//! |---------------------------------------------|---------------------------------------------------------------|
//! | `if in_range { solve } else { rescaled }`    | per-lane `σ = in_range.select(1, 2^k)` (×1 changes no bit)     |
//! | `if non_finite { return NON_FINITE }`       | mask `non_finite`; outputs replaced by NaN at the end          |
//! | `if degenerate_a \|\| degenerate_b { 0 }`   | `(degenerate_a \| degenerate_b).select(0, …)`                 |
//! | `else if parallel { overlap midpoint }`     | `parallel.select(s_parallel, s_general)`                      |
//! | `if lo_finite && hi_finite { … } else if …` | nested `select` on `lo_finite`, `hi_finite`                    |
//! | `if degenerate_b { 0 } else { project }`    | `degenerate_b.select(0, clamp8(…))`                            |
//! | `if degenerate_a { 0 } else { project }`    | `degenerate_a.select(0, clamp8(…))`                            |
//!
//! Computing a branch in a lane that will not use it must not produce NaN or infinity that
//! could leak: each division is guarded by a mask that replaces a divisor which may be zero
//! in unused lanes (`a_safe`, `e_safe`, `nn_safe`), and the final value of every lane comes
//! from a `select`, never from NaN being swallowed by `min`/`max` (which x86 and ARM resolve
//! differently). `fast_min`/`fast_max` (`minps`/`maxps`) are used for clamps because they
//! only ever see finite values in lanes whose results are kept.
//!
//! # The common case
//!
//! On most data no lane of a group is out of range, non-finite, degenerate or parallel.
//! [`closest_lanes_general`] computes those masks first and, when all are clear, runs only the
//! general branch, where every `select` above would return its last operand; otherwise the
//! group goes through [`closest_lanes_masked`], called out of line so the hot loop keeps its
//! values in registers. Both produce the same bits for general lanes.
//!
//! On some data degenerate and parallel lanes are common (rays along walls, collinear
//! pieces). `closest_lanes_general::<_, true>` solves them too, with the masked path's selects
//! in the caller's frame, whenever the whole group is in range and finite; the driver
//! runs that form for stretches of such data and the lean one elsewhere (see
//! [`closest_lanes_general`] and the driver's "Adaptive paths"). All three give the same bits.
//!
//! # Bit-for-bit agreement
//!
//! Operations and their order are the reference's, and the reference fuses exactly the
//! multiply-adds that `wide` fuses on the build ([`FUSED_MUL_ADD`]),
//! so on x86_64 kernel and reference agree bit for bit in both the AVX2+FMA and the SSE2
//! build. The equivalence tests check it.

use crate::driver::Halves;
use crate::lanes::{Lane, V3, clamp8, cross_lanes, dot_lanes, halves, sub8};
use crate::real::FUSED_MUL_ADD;
use crate::real::Real;
use crate::segment::{Flags, Params};
use wide::{f32x8, f32x16};

/// `x·y - z·w` accurate to about an ulp of the result: the twin of the reference's
/// `diff_of_products` (Kahan's algorithm with FMA, Dekker's two-products without).
#[inline(always)]
fn diff_of_products<L: Lane>(x: L, y: L, z: L, w: L) -> L {
    if FUSED_MUL_ADD {
        let p = z * w;
        let err = z.mul_sub(w, p);
        let f = x.mul_sub(y, p);
        f - err
    } else {
        let (p1, e1) = two_product(x, y);
        let (p2, e2) = two_product(z, w);
        (p1 - p2) + (e1 - e2)
    }
}

/// Dekker's exact product without FMA: `x·y = p + e`.
#[inline(always)]
fn two_product<L: Lane>(x: L, y: L) -> (L, L) {
    let p = x * y;
    let (xh, xl) = split(x);
    let (yh, yl) = split(y);
    let e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl;
    (p, e)
}

/// Veltkamp's splitting into two 12-bit halves, `x = hi + lo` exactly.
#[inline(always)]
fn split<L: Lane>(x: L) -> (L, L) {
    let c = L::splat(<L::Elem>::SPLITTER) * x;
    let hi = c - (c - x);
    (hi, x - hi)
}

/// `u × v` from [`diff_of_products`], as the reference's `cross_accurate`.
#[inline(always)]
fn cross_accurate<L: Lane>(u: V3<L>, v: V3<L>) -> V3<L> {
    V3 {
        x: diff_of_products(u.y, v.z, u.z, v.y),
        y: diff_of_products(u.z, v.x, u.x, v.z),
        z: diff_of_products(u.x, v.y, u.y, v.x),
    }
}

/// The per-call constants, one copy per lane.
#[derive(Clone, Copy)]
pub(crate) struct Splat<L: Lane = f32x8> {
    lo_a: L,
    hi_a: L,
    lo_b: L,
    hi_b: L,
    length_rel2: L,
    length_abs2: L,
    parallel_sin2: L,
    accurate_cross: bool,
    /// Both extents within `[-1, 1]` (segments): the lean path's size test then bounds the
    /// squared distance, and the loop skips testing it.
    unit_extents: bool,
}

impl<L: Lane> Splat<L> {
    pub(crate) fn new(p: &Params<L::Elem>) -> Self {
        Splat {
            lo_a: L::splat(p.lo_a),
            hi_a: L::splat(p.hi_a),
            lo_b: L::splat(p.lo_b),
            hi_b: L::splat(p.hi_b),
            length_rel2: L::splat(p.length_rel2),
            length_abs2: L::splat(p.length_abs2),
            parallel_sin2: L::splat(p.parallel_sin2),
            accurate_cross: p.accurate_cross,
            unit_extents: [p.lo_a, p.lo_b].iter().all(|&lo| lo >= -<L::Elem>::ONE)
                && [p.hi_a, p.hi_b].iter().all(|&hi| hi <= <L::Elem>::ONE),
        }
    }
}

/// One group of results, a lane each.
pub(crate) struct Lanes<L: Lane = f32x8> {
    pub s: L,
    pub t: L,
    pub dist2: L,
    pub flags: L::Bits,
    pub point_a: V3<L>,
    pub point_b: V3<L>,
}

impl Halves for Lanes<f32x16> {
    type Half = Lanes;
    /// Lanes 0-7 and 8-15 as two 8-lane results (the driver stores 8-lane groups).
    #[inline(always)]
    fn halves(self) -> [Lanes; 2] {
        let [s0, s1] = halves(self.s);
        let [t0, t1] = halves(self.t);
        let [d0, d1] = halves(self.dist2);
        let [f0, f1] = halves(self.flags);
        let v3 = |v: V3<f32x16>| {
            let ([x0, x1], [y0, y1], [z0, z1]) = (halves(v.x), halves(v.y), halves(v.z));
            [
                V3 {
                    x: x0,
                    y: y0,
                    z: z0,
                },
                V3 {
                    x: x1,
                    y: y1,
                    z: z1,
                },
            ]
        };
        let ([pa0, pa1], [pb0, pb1]) = (v3(self.point_a), v3(self.point_b));
        [
            Lanes {
                s: s0,
                t: t0,
                dist2: d0,
                flags: f0,
                point_a: pa0,
                point_b: pb0,
            },
            Lanes {
                s: s1,
                t: t1,
                dist2: d1,
                flags: f1,
                point_a: pa1,
                point_b: pb1,
            },
        ]
    }
}

/// The algorithm for eight pairs: the twin of `scalar::closest_pair`.
#[inline(always)]
pub(crate) fn closest_lanes<L: Lane>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    p: &Splat<L>,
) -> Lanes<L> {
    match closest_lanes_general::<L, false>(a0, a1, b0, b1, p) {
        Some(lanes) => lanes,
        None => closest_lanes_masked(a0, a1, b0, b1, p),
    }
}

/// The common case: `None` unless every lane is one the reference solves directly, in the
/// caller's frame (`a·e` in `[2^-80, 2^80]`, every coordinate finite, no square
/// overflowing, Goldman's `s` and the projections finite) and, unless `SPECIAL`, none is
/// degenerate or parallel. When it returns lanes, they are [`closest_lanes_masked`]'s bits
/// (that path would scale every lane by `σ = λ = 1`, which changes no bit).
///
/// Two forms, one body: `closest_lanes_general::<false>` is the lean loop for ordinary data;
/// `closest_lanes_general::<true>` also solves the degenerate and parallel lanes of ordinary
/// data (rays along walls, collinear pieces, points) with their selects (Rhodes'
/// midpoint, the safe divisors, the flags), run only in groups that hold such a lane.
/// Compiled into the loop, those selects cost every group some instructions even where no
/// lane needs them, while sending such groups to the masked path costs them several times
/// a general group; the driver picks the form by the share of groups that miss the lean
/// one ([`crate::driver`], "Adaptive paths"; the counts in docs/performance.md, "The
/// adaptive paths").
///
/// Splitting the rare cases off keeps this path small enough for the sixteen vector
/// registers; callers handle `None` out of line.
#[inline(always)]
pub(crate) fn closest_lanes_general<L: Lane, const SPECIAL: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    p: &Splat<L>,
) -> Option<Lanes<L>> {
    let (d_a, d_b) = (sub8(a1, a0), sub8(b1, b0));
    let frame = DegenerateRefs {
        a0,
        b0,
        length_abs2_a: p.length_abs2,
        length_abs2_b: p.length_abs2,
        cap: false,
    };
    let first = setup(d_a, d_b, sub8(a0, b0), p, &frame);
    let Setup {
        d_a,
        d_b,
        r,
        a,
        e,
        c,
        n,
        nn,
        degenerate_a,
        degenerate_b,
        ..
    } = first;
    let zero = L::ZERO;
    let w = cross_lanes(d_b, r);
    let s_general = dot_lanes(w, n) / nn;
    let ae = a * e;
    let in_range =
        ae.simd_ge(L::splat(<L::Elem>::RANGE_LO)) & ae.simd_le(L::splat(<L::Elem>::RANGE_HI));
    let degenerate = degenerate_a | degenerate_b;
    if !SPECIAL {
        // `range_scale`'s `direct` without the probe: `a·e` in range makes `a` and `e`,
        // hence every coordinate, finite (an infinite or NaN one makes `a·e` infinite or
        // NaN), and `|dA|² + |dB|² + |A0|² + |B0|²` at most `MAX/64` keeps `|A0|²`,
        // `|B0|²`, `4·|r|²` and `c` finite. A lane refused only by that size test (lengths
        // or coordinates beyond about `2^61` in `f32`) goes to the masked path, which gives
        // it the reference's bits. Degenerate and parallel lanes go there too
        // (`nn <= sin²·a·e` holds for both), and so do lanes whose Goldman `s` overflowed
        // (`x·0` is 0 exactly for finite `x`).
        let size = (a + e) + (dot_lanes(a0, a0) + dot_lanes(b0, b0));
        let near = size.simd_le(L::splat(<L::Elem>::MAX_OVER_64));
        let s_overflowed = (s_general * zero).simd_ne(zero);
        let parallel_or_degenerate = nn.simd_le(p.parallel_sin2 * ae);
        if (s_overflowed | degenerate | parallel_or_degenerate | !(in_range & near)).any() {
            return None;
        }
        let b = dot_lanes(d_a, d_b);
        let f = dot_lanes(d_b, r);
        let values = [a, e, b, c, f, s_general];
        let lanes = tail(a0, b0, d_a, d_b, r, values, [zero; 3], p);
        // The projections overflowed (the reference's direct `solve` returning `None`):
        // only possible with an unbounded side, as the size test bounds the separation
        // `r + s·dA - t·dB` by `√MAX/2` when `s` and `t` are within `[-1, 1]`.
        if !p.unit_extents && (lanes.dist2 * zero).simd_ne(zero).any() {
            return None;
        }
        return Some(lanes);
    }
    let parallel = !degenerate & nn.simd_le(p.parallel_sin2 * ae);
    let special = degenerate | parallel;
    // `range_scale`'s `direct` (in range; no coordinate, difference or square
    // non-finite; `|A0|²`, `|B0|²` finite: an overflowing one makes its side degenerate
    // here, not there) and, outside the special lanes, Goldman's `s` finite.
    let max = L::splat(<L::Elem>::MAX);
    let direct = in_range & dot_lanes(a0, a0).simd_le(max) & dot_lanes(b0, b0).simd_le(max);
    let s_probe = special.select(zero, s_general).mul_add(zero, first.probe);
    if (!direct | s_probe.simd_ne(zero)).any() {
        return None;
    }
    let b = dot_lanes(d_a, d_b);
    let f = dot_lanes(d_b, r);
    let values = [a, e, b, c, f, s_general];
    let lanes = if degenerate.any() {
        let masks = [degenerate_a, degenerate_b, parallel];
        tail(a0, b0, d_a, d_b, r, values, masks, p)
    } else if parallel.any() {
        // Rays along walls: parallel lanes only. The degenerate masks known clear,
        // their selects and safe divisors fold away (docs/performance.md, "The
        // adaptive paths").
        tail(a0, b0, d_a, d_b, r, values, [zero, zero, parallel], p)
    } else {
        tail(a0, b0, d_a, d_b, r, values, [zero; 3], p)
    };
    // The projections overflowed (the reference's direct `solve` returning `None`).
    if (lanes.dist2 * zero).simd_ne(zero).any() {
        return None;
    }
    Some(lanes)
}

/// Steps 3 to 5 in the caller's frame, given the masks of the degenerate and parallel
/// lanes: `solve_selects` written out for [`closest_lanes_general`]. Where a mask is the constant
/// zero its selects, safe divisors and flags fold away, so `[zero; 3]` is the general tail
/// (clamp Goldman's `s`, project onto B for `t`, back onto A for `s`) at the lean path's
/// cost. Calling `solve_selects` instead costs the special groups a second Goldman
/// division with the safe divisor (docs/performance.md, "The adaptive paths").
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn tail<L: Lane>(
    a0: V3<L>,
    b0: V3<L>,
    d_a: V3<L>,
    d_b: V3<L>,
    r: V3<L>,
    [a, e, b, c, f, s_general]: [L; 6],
    [degenerate_a, degenerate_b, parallel]: [L; 3],
    p: &Splat<L>,
) -> Lanes<L> {
    let (zero, one) = (L::ZERO, L::ONE);
    let degenerate = degenerate_a | degenerate_b;
    let a_safe = degenerate_a.select(one, a);
    let e_safe = degenerate_b.select(one, e);
    let s_parallel = parallel_midpoint(p.lo_a, p.hi_a, p.lo_b, p.hi_b, a_safe, b, c);
    let s_first = degenerate.select(zero, parallel.select(s_parallel, s_general));
    let s = clamp8(s_first, p.lo_a, p.hi_a);
    let t = degenerate_b.select(zero, clamp8(b.mul_add(s, f) / e_safe, p.lo_b, p.hi_b));
    let s = degenerate_a.select(zero, clamp8(b.mul_sub(t, c) / a_safe, p.lo_a, p.hi_a));
    let flags = flag_bits(degenerate_a, degenerate_b, parallel);
    finish(a0, b0, d_a, d_b, r, s, t, flags)
}

/// Step 3 for parallel lanes: Rhodes' overlap midpoint, the middle of the part of A's
/// extent `[lo_a, hi_a]` that B's extent covers when projected onto A (`s = (b·t - c)/a`
/// for `t` in `[lo_b, hi_b]`); the finite end when one end is unbounded, 0 when both are.
#[inline(always)]
fn parallel_midpoint<L: Lane>(lo_a: L, hi_a: L, lo_b: L, hi_b: L, a_safe: L, b: L, c: L) -> L {
    let s_b0 = -c / a_safe;
    let k = b / a_safe;
    let end_lo = lo_b.mul_add(k, s_b0);
    let end_hi = hi_b.mul_add(k, s_b0);
    let lo = lo_a.fast_max(end_lo.fast_min(end_hi));
    let hi = hi_a.fast_min(end_lo.fast_max(end_hi));
    let lo_finite = lo.simd_gt(L::splat(<L::Elem>::NEG_INFINITY));
    let hi_finite = hi.simd_lt(L::splat(<L::Elem>::INFINITY));
    (lo_finite & hi_finite).select(
        (lo + hi) * L::HALF,
        lo_finite.select(lo, hi_finite.select(hi, L::ZERO)),
    )
}

/// The degenerate and parallel flags of each lane.
#[inline(always)]
fn flag_bits<L: Lane>(degenerate_a: L, degenerate_b: L, parallel: L) -> L::Bits {
    let bit = |mask: L, flag: Flags| mask.to_bits() & L::splat_bits(u32::from(flag.bits()));
    bit(degenerate_a, Flags::DEGENERATE_A)
        | bit(degenerate_b, Flags::DEGENERATE_B)
        | bit(parallel, Flags::PARALLEL)
}

/// What every path computes first: the differences, Ericson's `a, e, c`, the non-finite
/// probe, the degenerate masks and the cross product `n = dA × dB` with `n·n`.
#[derive(Clone, Copy)]
struct Setup<L: Lane> {
    d_a: V3<L>,
    d_b: V3<L>,
    r: V3<L>,
    a: L,
    e: L,
    c: L,
    /// `a·0 + e·0 + (4·|r|²)·0`: NaN exactly when a coordinate is not finite, or (before
    /// the masked path's rescaling) a difference or square overflows.
    probe: L,
    degenerate_a: L,
    degenerate_b: L,
    n: V3<L>,
    nn: L,
}

/// What the degenerate tests compare against, per side: the side's first point and the
/// squared absolute tolerance, both in the side's frame (the reference's `λA·A0`,
/// `length_abs2_a` and B's twins), and whether `|λA·A0|²` is capped at the largest finite value.
struct DegenerateRefs<L: Lane> {
    a0: V3<L>,
    b0: V3<L>,
    length_abs2_a: L,
    length_abs2_b: L,
    /// `false` in the caller's frame (`λ = 1`), where the cap changes nothing: step 0 sent
    /// every lane with `|A0|²` or `|B0|²` above the largest finite value to the masked path.
    cap: bool,
}

impl<L: Lane> DegenerateRefs<L> {
    /// `|p|²` for the degenerate test, capped when the frame says so.
    #[inline(always)]
    fn scale2(&self, p: V3<L>) -> L {
        let m = dot_lanes(p, p);
        if self.cap {
            m.fast_min(L::splat(<L::Elem>::MAX))
        } else {
            m
        }
    }
}

/// Steps 1 and 2 of the reference (for the masked path, in the rescaled, per-side frames),
/// on the directions `d_a`, `d_b` and `r = A0 - B0`.
#[inline(always)]
fn setup<L: Lane>(
    d_a: V3<L>,
    d_b: V3<L>,
    r: V3<L>,
    p: &Splat<L>,
    frame: &DegenerateRefs<L>,
) -> Setup<L> {
    let zero = L::ZERO;
    // Ericson's dot products (`b` and `f` are formed where they are used).
    let a = dot_lanes(d_a, d_a);
    let e = dot_lanes(d_b, d_b);
    let c = dot_lanes(d_a, r);
    let rr4 = dot_lanes(r, r) * L::splat(<L::Elem>::FOUR);
    let probe = a.mul_add(zero, e.mul_add(zero, rr4 * zero));
    let degenerate_a = a.simd_le(
        p.length_rel2
            .mul_add(frame.scale2(frame.a0), frame.length_abs2_a),
    );
    let degenerate_b = e.simd_le(
        p.length_rel2
            .mul_add(frame.scale2(frame.b0), frame.length_abs2_b),
    );
    let n = if p.accurate_cross {
        cross_accurate(d_a, d_b)
    } else {
        cross_lanes(d_a, d_b)
    };
    let nn = dot_lanes(n, n);
    Setup {
        d_a,
        d_b,
        r,
        a,
        e,
        c,
        probe,
        degenerate_a,
        degenerate_b,
        n,
        nn,
    }
}

/// The full masked version of the algorithm for eight pairs, every branch of the reference a
/// named mask and a `select`.
///
/// Lanes solved unscaled whose Goldman `s` overflowed (the reference's direct `solve`
/// returning `None`) are solved again rescaled, as the reference does: a second pass with
/// those lanes forced to rescale, which cannot overflow there and gives the other lanes
/// the same bits as the first.
#[inline(always)]
pub(crate) fn closest_lanes_masked<L: Lane>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    p: &Splat<L>,
) -> Lanes<L> {
    let (lanes, overflowed) = masked_pass(a0, a1, b0, b1, p, L::ZERO);
    if overflowed.any() {
        masked_pass(a0, a1, b0, b1, p, overflowed).0
    } else {
        lanes
    }
}

/// Per-lane extent bounds of `s` and `t` (in each side's frame on the masked path).
#[derive(Clone, Copy)]
struct Bounds<L: Lane> {
    lo_a: L,
    hi_a: L,
    lo_b: L,
    hi_b: L,
}

/// One pass of [`closest_lanes_masked`], rescaling the lanes of `force` too; also returns the
/// lanes solved unscaled whose Goldman `s` or squared distance overflowed.
#[inline(always)]
fn masked_pass<L: Lane>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    p: &Splat<L>,
    force: L,
) -> (Lanes<L>, L) {
    // 0. Range: lanes whose products of four lengths could under- or overflow are solved
    //    scaled by a power of two; σ = 1 in the others changes no bit.
    let (sigma, inv_sigma, rescaled) = range_scale(a0, a1, b0, b1, force);
    let scale = |v: V3<L>| v.map(|x| x * sigma);
    let (a0, a1, b0, b1) = (scale(a0), scale(a1), scale(b0), scale(b1));
    let length_abs2 = p.length_abs2 * sigma * sigma;
    //    Rescaled lanes solve each direction in its own frame (the reference's `per_side`):
    //    `dA` times `λA`, `s` and A's bounds over `λA`; `λ = 1` in the other lanes.
    let (lambda_a, inv_lambda_a) = direction_scale_lanes(sub8(a1, a0), rescaled);
    let (lambda_b, inv_lambda_b) = direction_scale_lanes(sub8(b1, b0), rescaled);
    let d_a = sub8(a1, a0).map(|x| x * lambda_a);
    let d_b = sub8(b1, b0).map(|x| x * lambda_b);
    let bounds = Bounds {
        lo_a: p.lo_a * inv_lambda_a,
        hi_a: p.hi_a * inv_lambda_a,
        lo_b: p.lo_b * inv_lambda_b,
        hi_b: p.hi_b * inv_lambda_b,
    };
    let frame = DegenerateRefs {
        a0: a0.map(|x| x * lambda_a),
        b0: b0.map(|x| x * lambda_b),
        length_abs2_a: length_abs2 * lambda_a * lambda_a,
        length_abs2_b: length_abs2 * lambda_b * lambda_b,
        cap: true,
    };

    let zero = L::ZERO;
    // 1. Non-finite (the probe) and 2. degenerate masks, `n = dA × dB`.
    let first = setup(d_a, d_b, sub8(a0, b0), p, &frame);
    let non_finite = first.probe.simd_ne(zero);
    // 3-5.
    let (lanes, overflowed) = solve_selects(a0, b0, &first, &bounds, p, rescaled);
    // Back from the per-side frames (exact).
    let lanes = Lanes {
        s: lanes.s * lambda_a,
        t: lanes.t * lambda_b,
        ..lanes
    };
    // 0, continued: back to the caller's scale; flag a squared distance that left f32's
    // normal range on the way.
    let unscale = |v: V3<L>| v.map(|x| x * inv_sigma);
    let dist2 = lanes.dist2 * inv_sigma * inv_sigma;
    let bit = |mask: L, flag: Flags| mask.to_bits() & L::splat_bits(u32::from(flag.bits()));
    let out_of_range = rescaled
        & lanes.dist2.simd_gt(zero)
        & !(dist2.simd_ge(L::splat(<L::Elem>::MIN_POSITIVE))
            & dist2.simd_le(L::splat(<L::Elem>::MAX)));
    let lanes = Lanes {
        point_a: unscale(lanes.point_a),
        point_b: unscale(lanes.point_b),
        dist2,
        flags: lanes.flags | bit(out_of_range, Flags::DIST2_OUT_OF_RANGE),
        ..lanes
    };

    // 1, continued: a non-finite lane reports NaN everywhere and only its flag.
    if !non_finite.any() {
        return (lanes, overflowed);
    }
    let nan = L::splat(<L::Elem>::NAN);
    let blank = |x: L| non_finite.select(nan, x);
    let lanes = Lanes {
        s: blank(lanes.s),
        t: blank(lanes.t),
        dist2: blank(lanes.dist2),
        flags: non_finite.select_bits(
            L::splat_bits(u32::from(Flags::NON_FINITE.bits())),
            lanes.flags,
        ),
        point_a: lanes.point_a.map(blank),
        point_b: lanes.point_b.map(blank),
    };
    (lanes, overflowed)
}

/// Steps 3 to 5 with every branch a mask, in whatever frame `first` was set up in (`a0`,
/// `b0` the points in the caller's scale, or `σ` times them): the parallel and degenerate
/// selects, the clamps and projections, the flags and [`finish`]. Also returns the lanes
/// solved unscaled (outside `rescaled`) whose Goldman `s` or squared distance overflowed.
#[inline(always)]
fn solve_selects<L: Lane>(
    a0: V3<L>,
    b0: V3<L>,
    first: &Setup<L>,
    bounds: &Bounds<L>,
    p: &Splat<L>,
    rescaled: L,
) -> (Lanes<L>, L) {
    let Setup {
        d_a,
        d_b,
        r,
        a,
        e,
        c,
        n,
        nn,
        degenerate_a,
        degenerate_b,
        ..
    } = *first;
    let Bounds {
        lo_a,
        hi_a,
        lo_b,
        hi_b,
    } = *bounds;
    let (zero, one) = (L::ZERO, L::ONE);
    let degenerate = degenerate_a | degenerate_b;
    let b = dot_lanes(d_a, d_b);
    let f = dot_lanes(d_b, r);
    let parallel = !degenerate & nn.simd_le(p.parallel_sin2 * (a * e));
    let w = cross_lanes(d_b, r);

    // Divisors that may be zero in lanes which will not use the quotient.
    let a_safe = degenerate_a.select(one, a);
    let e_safe = degenerate_b.select(one, e);
    let nn_safe = (degenerate | parallel).select(one, nn);

    // 3. First estimate of s. Parallel lanes: Rhodes' overlap midpoint.
    let s_parallel = parallel_midpoint(lo_a, hi_a, lo_b, hi_b, a_safe, b, c);
    // Other lanes: Goldman's triple product; lanes solved unscaled where it overflowed are
    // solved again rescaled (the reference's `solve` returning `None`).
    let s_general = dot_lanes(w, n) / nn_safe;
    let overflowed = !(degenerate | parallel | rescaled) & (s_general * zero).simd_ne(zero);
    let s_first = degenerate.select(zero, parallel.select(s_parallel, s_general));

    // 4. Clamp, project C onto B, project D back onto A.
    let s = clamp8(s_first, lo_a, hi_a);
    let t = degenerate_b.select(zero, clamp8(b.mul_add(s, f) / e_safe, lo_b, hi_b));
    let s = degenerate_a.select(zero, clamp8(b.mul_sub(t, c) / a_safe, lo_a, hi_a));

    let flags = flag_bits(degenerate_a, degenerate_b, parallel);
    let lanes = finish(a0, b0, d_a, d_b, r, s, t, flags);
    // Lanes solved unscaled whose projections overflowed: solved again rescaled too.
    let overflowed = overflowed | (!rescaled & (lanes.dist2 * zero).simd_ne(zero));
    (lanes, overflowed)
}

/// Per lane `(σ, 1/σ, rescaled)`: 1 where `|dA|²·|dB|²` is in range, nothing overflows and
/// the lane is not in `force` (the reference's `in_range && !overflow`, and its direct
/// `solve` not overflowing), else the reference's `power_of_two_scale` of
/// `m = max(|dA|², |dB|², |A0 - B0|²)` when `m` is a normal number, and its
/// `magnitude_scale` of the largest coordinate when `m` under- or overflowed.
#[inline(always)]
fn range_scale<L: Lane>(a0: V3<L>, a1: V3<L>, b0: V3<L>, b1: V3<L>, force: L) -> (L, L, L) {
    let one = L::ONE;
    let zero = L::ZERO;
    let d_a = sub8(a1, a0);
    let d_b = sub8(b1, b0);
    let r = sub8(a0, b0);
    let ae = dot_lanes(d_a, d_a) * dot_lanes(d_b, d_b);
    let in_range =
        ae.simd_ge(L::splat(<L::Elem>::RANGE_LO)) & ae.simd_le(L::splat(<L::Elem>::RANGE_HI));
    // The reference's `finite`, `probe` and squared-magnitude checks.
    let zero_sum = |q: V3<L>| q.x.mul_add(zero, q.y.mul_add(zero, q.z * zero));
    let finite = (zero_sum(a0) + zero_sum(a1) + zero_sum(b0) + zero_sum(b1)).simd_eq(zero);
    let rr4 = dot_lanes(r, r) * L::splat(<L::Elem>::FOUR);
    let probe = dot_lanes(d_a, d_a).mul_add(
        zero,
        dot_lanes(d_b, d_b).mul_add(zero, rr4.mul_add(zero, dot_lanes(d_a, r) * zero)),
    );
    let max = L::splat(<L::Elem>::MAX);
    let overflow = finite
        & (probe.simd_ne(zero) | !dot_lanes(a0, a0).simd_le(max) | !dot_lanes(b0, b0).simd_le(max));
    let direct = in_range & !overflow & !force;
    if direct.all() {
        return (one, one, zero);
    }
    let m = dot_lanes(d_a, d_a)
        .fast_max(dot_lanes(d_b, d_b))
        .fast_max(dot_lanes(r, r));
    let (sigma_m, inv_sigma_m) = m.power_of_two_scale();
    // magnitude_scale(max |coordinate|)
    let abs_max = |q: V3<L>| q.x.abs().fast_max(q.y.abs()).fast_max(q.z.abs());
    let big = abs_max(a0)
        .fast_max(abs_max(a1))
        .fast_max(abs_max(b0).fast_max(abs_max(b1)));
    let (sigma_big, inv_sigma_big) = big.magnitude_scale();
    let m_normal = m.simd_ge(L::splat(<L::Elem>::MIN_POSITIVE)) & m.simd_le(max);
    let sigma = m_normal.select(sigma_m, sigma_big);
    let inv_sigma = m_normal.select(inv_sigma_m, inv_sigma_big);
    (
        direct.select(one, sigma),
        direct.select(one, inv_sigma),
        !direct,
    )
}

/// Per lane the reference's `direction_scale` of `d` where `rescaled` is set, `(1, 1)`
/// elsewhere.
#[inline(always)]
fn direction_scale_lanes<L: Lane>(d: V3<L>, rescaled: L) -> (L, L) {
    let one = L::ONE;
    let big = d.x.abs().fast_max(d.y.abs()).fast_max(d.z.abs());
    let (lambda, inv_lambda) = big.magnitude_scale();
    (
        rescaled.select(lambda, one),
        rescaled.select(inv_lambda, one),
    )
}

/// 5. The separation `r + s·dA - t·dB` formed locally, the squared distance and the points.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn finish<L: Lane>(
    a0: V3<L>,
    b0: V3<L>,
    d_a: V3<L>,
    d_b: V3<L>,
    r: V3<L>,
    s: L,
    t: L,
    flags: L::Bits,
) -> Lanes<L> {
    let v = V3 {
        x: t.mul_neg_add(d_b.x, s.mul_add(d_a.x, r.x)),
        y: t.mul_neg_add(d_b.y, s.mul_add(d_a.y, r.y)),
        z: t.mul_neg_add(d_b.z, s.mul_add(d_a.z, r.z)),
    };
    Lanes {
        s,
        t,
        dist2: dot_lanes(v, v),
        flags,
        point_a: V3 {
            x: s.mul_add(d_a.x, a0.x),
            y: s.mul_add(d_a.y, a0.y),
            z: s.mul_add(d_a.z, a0.z),
        },
        point_b: V3 {
            x: t.mul_add(d_b.x, b0.x),
            y: t.mul_add(d_b.y, b0.y),
            z: t.mul_add(d_b.z, b0.z),
        },
    }
}

/// The `f64` lane types against the `f64` reference, bit for bit, every lane position, on
/// the hard classes written in `f64`: both widths on every build, where the public `f64`
/// queries (`closest_points64` and the rest, `tests/suite/batch64.rs`) run the one width
/// the build picks (`f64x8` with `avx512f`, `f64x4` otherwise); the `f32` lane types are
/// checked through the public API in `tests/suite/kernel.rs`.
#[cfg(test)]
mod f64_lanes {
    use super::{Lanes, Splat, closest_lanes};
    use crate::lanes::{Lane, V3};
    use crate::scalar::{Ends, closest_pair};
    use crate::segment::Closest;
    use crate::segment::{Extent, Flags, Options};
    use crate::test_mix::Mix;
    use wide::{f64x4, f64x8};

    /// One pair of a hard class, `f64` coordinates: general, near-parallel (angles down to
    /// 1e-15), collinear, a zero-length side, tiny, huge, far from the origin, a tiny side
    /// against a huge far one (Goldman's `s` overflowing unscaled), non-finite.
    fn pair(g: &mut Mix) -> Pair {
        let scale = g.pick(&[1e-200, 1e-30, 1e-6, 1.0, 1e3, 1e30, 1e200]);
        let offset = g.pick(&[0.0, 1.0, 6.4e6, 1e12]);
        let at = |p: [f64; 3], k: f64| p.map(|x| x * k * scale + offset);
        let a0 = g.point();
        let da = g.point();
        let a1 = [a0[0] + da[0], a0[1] + da[1], a0[2] + da[2]];
        let (b0, b1) = match g.next() % 8 {
            0 | 1 => (g.point(), g.point()),
            2 => {
                // near-parallel: B along dA tilted by a small angle, shifted
                let eps = g.pick(&[1e-3, 1e-8, 1e-12, 1e-15, 0.0]);
                let o = g.point();
                let t = g.point();
                (
                    o,
                    [
                        o[0] + da[0] + eps * t[0],
                        o[1] + da[1] + eps * t[1],
                        o[2] + da[2] + eps * t[2],
                    ],
                )
            }
            3 => {
                // collinear: B on A's line
                let (u, v) = (g.unit() * 2.0, g.unit() * 2.0);
                let on = |w: f64| [a0[0] + w * da[0], a0[1] + w * da[1], a0[2] + w * da[2]];
                (on(u), on(v))
            }
            4 => {
                let p = g.point();
                (p, p) // a point
            }
            5 => {
                // a tiny A against a huge far B (the fuzz find, in f64)
                let a = Ends {
                    p0: [0.0; 3],
                    p1: [g.pick(&[1e-30, 1e-100, 1e-200]), 0.0, 0.0],
                };
                let d = g.pick(&[1e100, 1e150, 1e200]);
                let b = Ends {
                    p0: [0.0, -0.356 * d, -d],
                    p1: [-d, -d, 0.0],
                };
                return (a, b);
            }
            6 => {
                let mut p = g.point();
                p[(g.next() % 3) as usize] = g.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
                (p, g.point())
            }
            _ => (g.point().map(|x| x * 1e-9), g.point().map(|x| x * 1e9)),
        };
        (
            Ends {
                p0: at(a0, 1.0),
                p1: at(a1, 1.0),
            },
            Ends {
                p0: at(b0, 1.0),
                p1: at(b1, 1.0),
            },
        )
    }

    /// A pair of sides.
    type Pair = (Ends<f64>, Ends<f64>);

    fn same(x: f64, y: f64) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }

    fn check<L: Lane<Elem = f64>, const N: usize>(
        to: fn([f64; N]) -> L,
        from: fn(L) -> [f64; N],
        bits: fn(L::Bits) -> [u64; N],
    ) {
        let mut g = Mix(0x00f6_4f64);
        let extents = [Extent::Segment, Extent::Ray, Extent::Line];
        for round in 0..3000 {
            let options = Options::new(g.pick(&extents), g.pick(&extents));
            let p = options.params64();
            let pairs: [Pair; N] = core::array::from_fn(|_| pair(&mut g));
            let col = |f: &dyn Fn(&Pair) -> [f64; 3]| V3 {
                x: to(pairs.map(|q| f(&q)[0])),
                y: to(pairs.map(|q| f(&q)[1])),
                z: to(pairs.map(|q| f(&q)[2])),
            };
            let got: Lanes<L> = closest_lanes(
                col(&|q| q.0.p0),
                col(&|q| q.0.p1),
                col(&|q| q.1.p0),
                col(&|q| q.1.p1),
                &Splat::new(&p),
            );
            let (s, t, d2) = (from(got.s), from(got.t), from(got.dist2));
            let flags = bits(got.flags);
            let (pa, pb) = (
                [
                    from(got.point_a.x),
                    from(got.point_a.y),
                    from(got.point_a.z),
                ],
                [
                    from(got.point_b.x),
                    from(got.point_b.y),
                    from(got.point_b.z),
                ],
            );
            for (k, (a, b)) in pairs.iter().enumerate() {
                let want: Closest<f64> = closest_pair(a, b, &p);
                let ok = same(s[k], want.s)
                    && same(t[k], want.t)
                    && same(d2[k], want.dist2)
                    && Flags::from_bits_truncate(flags[k] as u8) == want.flags
                    && (0..3).all(|i| {
                        same(pa[i][k], want.point_a[i]) && same(pb[i][k], want.point_b[i])
                    });
                assert!(
                    ok,
                    "round {round} lane {k} {options:?}\n a = {a:?}\n b = {b:?}\n reference {want:?}\n kernel s {} t {} dist2 {} flags {} a {:?} b {:?}",
                    s[k],
                    t[k],
                    d2[k],
                    flags[k],
                    [pa[0][k], pa[1][k], pa[2][k]],
                    [pb[0][k], pb[1][k], pb[2][k]]
                );
            }
        }
    }

    #[test]
    fn f64x4_is_the_f64_reference() {
        check::<f64x4, 4>(f64x4::new, f64x4::to_array, |b| b.to_array());
    }

    #[test]
    fn f64x8_is_the_f64_reference() {
        check::<f64x8, 8>(f64x8::new, f64x8::to_array, |b| b.to_array());
    }
}
