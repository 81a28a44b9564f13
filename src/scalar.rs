//! The scalar definition of closest points, written to be read: the 3D pair solver that
//! [`crate::reference`] publishes and every batched path (the 8-lane kernel, the `f64`
//! lanes, the set queries) is checked against, generic over the precision ([`Real`]).
//!
//! It is branchy on purpose: each `if` below is one case of the semantics, and the kernel
//! (`src/kernel.rs`) turns each into a named mask and a `select` with the same variable
//! names, so the two files can be read side by side. The method and its operation order are
//! described in [`crate::reference`]'s module docs.

use crate::real::{Real, clamp, cross, cross_accurate, dot, fma, fms, fnma, max_ps, min_ps, sub};
use crate::segment::{Closest, Flags, Params};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Ends<F> {
    pub p0: [F; 3],
    pub p1: [F; 3],
}

impl<F> Ends<F> {
    /// The end points of a segment record.
    #[inline(always)]
    pub(crate) fn of(x: impl Into<[[F; 3]; 2]>) -> Self {
        let [p0, p1] = x.into();
        Ends { p0, p1 }
    }
}

/// The algorithm, with the per-call constants already derived.
///
/// 0. **Range**: a pair whose lengths are so small or so large that products of four of them
///    could under- or overflow, or whose finite coordinates are so large that a difference,
///    a squared magnitude or `4·|A0 - B0|²` overflows, or whose first estimate of `s`
///    (Goldman's, step 3) overflows, is solved scaled by a power of two `σ` chosen from its
///    own lengths and separation (or, when those themselves under- or overflow, from its
///    largest coordinate), then scaled back. Scaling by a power of two
///    commutes with rounding, so this changes no bit of any result that did not under- or
///    overflow: it only rescues the ones that would have, over the whole finite f32 range.
///    A squared distance that cannot be represented at the caller's scale is flagged
///    [`Flags::DIST2_OUT_OF_RANGE`].
///
///    One `σ` cannot always hold both sides: a ray `1e-24` times shorter than the
///    separation has `|σ·dA|² ≈ 1e-48`, which underflows to 0. So a rescaled pair is solved
///    with each direction scaled once more by its own power of two (`solve`'s per-side
///    frame), which keeps `|dA|²`, `|dB|²` and their products normal whatever the ratio of
///    the two lengths to the separation.
///
///    The range test on `|dA|²·|dB|²` does not bound Goldman's `s = (w·n)/(n·n)`: its
///    numerator is `|dA|·|dB|²·|A0 - B0|` in size and `s` itself up to `|A0 - B0|/|dA|`
///    over the sine of the angle, so a side short against the separation (a ray `3e-8`
///    long `2e17` from a ray `3e17` long) overflows either with `a·e` in range. An infinite
///    `s` passes a ray's clamp, and the projections that follow cannot repair it (the
///    numerator's sign is lost too). Likewise the projections of step 4 (`b·t`, `b·s`)
///    overflow for near-parallel unbounded sides whose closest points lie far out (a line
///    2.6e-14 long near the origin, nearly parallel to one 2.6e17 long and 4e17 away).
///    `solve` reports either (`None`) and the pair is solved rescaled, where both sides'
///    directions and the separation are of size 1, so `s` and `t` are at most about
///    `1/sin(angle)`.
pub(crate) fn closest_pair<F: Real>(a: &Ends<F>, b: &Ends<F>, p: &Params<F>) -> Closest<F> {
    let d_a = sub(a.p1, a.p0);
    let d_b = sub(b.p1, b.p0);
    let r = sub(a.p0, b.p0);
    let ae = dot(d_a, d_a) * dot(d_b, d_b);
    let in_range = (F::RANGE_LO..=F::RANGE_HI).contains(&ae);
    // Finite coordinates whose differences or squares overflow: the non-finite probe of
    // step 1 or a squared magnitude of step 2 would misread them.
    let overflow = finite(a, b)
        && (probe(d_a, d_b, r) != F::ZERO
            || !(..=F::MAX).contains(&dot(a.p0, a.p0))
            || !(..=F::MAX).contains(&dot(b.p0, b.p0)));
    if in_range && !overflow {
        // (`None`: Goldman's first `s` overflowed; see `solve`.)
        if let Some(direct) = solve(a, b, p, false) {
            return direct;
        }
    }
    let m = max_ps(max_ps(dot(d_a, d_a), dot(d_b, d_b)), dot(r, r));
    let (sigma, inv_sigma) = if (F::MIN_POSITIVE..=F::MAX).contains(&m) {
        m.power_of_two_scale()
    } else {
        max_abs(a, b).magnitude_scale()
    };
    let scale = |x: &Ends<F>| Ends {
        p0: x.p0.map(|c| c * sigma),
        p1: x.p1.map(|c| c * sigma),
    };
    // (Never `None`: `solve` reports an overflow only unscaled.)
    let scaled = solve(&scale(a), &scale(b), &p.scaled(sigma), true).unwrap_or(Closest::NON_FINITE);
    let dist2 = scaled.dist2 * inv_sigma * inv_sigma;
    let mut flags = scaled.flags;
    if scaled.dist2 > F::ZERO && !(F::MIN_POSITIVE..=F::MAX).contains(&dist2) {
        flags |= Flags::DIST2_OUT_OF_RANGE;
    }
    Closest {
        point_a: scaled.point_a.map(|c| c * inv_sigma),
        point_b: scaled.point_b.map(|c| c * inv_sigma),
        dist2,
        flags,
        ..scaled
    }
}

/// True when every coordinate of the pair is finite (`x·0` is 0 exactly for finite `x`).
#[inline(always)]
fn finite<F: Real>(a: &Ends<F>, b: &Ends<F>) -> bool {
    let zero_sum = |q: [F; 3]| fma(q[0], F::ZERO, fma(q[1], F::ZERO, q[2] * F::ZERO));
    zero_sum(a.p0) + zero_sum(a.p1) + zero_sum(b.p0) + zero_sum(b.p1) == F::ZERO
}

/// Step 0's overflow probe: `a·0 + e·0 + (4·|r|²)·0 + c·0`, NaN exactly when `|dA|²`,
/// `|dB|²`, `4·|A0 - B0|²` or `dA·(A0 - B0)` is not finite.
#[inline(always)]
fn probe<F: Real>(d_a: [F; 3], d_b: [F; 3], r: [F; 3]) -> F {
    let rr4 = dot(r, r) * F::FOUR;
    fma(
        dot(d_a, d_a),
        F::ZERO,
        fma(
            dot(d_b, d_b),
            F::ZERO,
            fma(rr4, F::ZERO, dot(d_a, r) * F::ZERO),
        ),
    )
}

/// The largest coordinate magnitude of the pair (`maxps` rule, as the kernel).
#[inline(always)]
fn max_abs<F: Real>(a: &Ends<F>, b: &Ends<F>) -> F {
    let m3 = |q: [F; 3]| max_ps(max_ps(q[0].abs(), q[1].abs()), q[2].abs());
    max_ps(max_ps(m3(a.p0), m3(a.p1)), max_ps(m3(b.p0), m3(b.p1)))
}

/// Powers of two `(λ, 1/λ)` for a direction `d`: `λ·max|d_i|` in `[1, 2)` (the
/// [`Real::magnitude_scale`] of its largest component), so `|λ·d|²` is in `[1, 12)` for any
/// nonzero `d`, even one whose own square underflows.
#[inline(always)]
pub(crate) fn direction_scale<F: Real>(d: [F; 3]) -> (F, F) {
    max_ps(max_ps(d[0].abs(), d[1].abs()), d[2].abs()).magnitude_scale()
}

/// Steps 1-5 for a pair in range.
///
/// With `per_side` (a pair step 0 rescaled), each direction is solved in its own frame:
/// `dA` is replaced by `λA·dA` and `s` by `s/λA` (A's extent bounds by `bound/λA`), and
/// likewise for B, with `λ` from [`direction_scale`]. Every formula below is homogeneous in
/// each side's direction (Goldman's `s` has degree `-1` in `dA` and `0` in `dB`, the
/// projections likewise, and `s·dA` is unchanged), and multiplying by a power of two is
/// exact, so this changes no bit unless a square of a direction, or a product of two,
/// would have under- or overflowed, which is what it is for. The degenerate test moves to
/// the same frame: `|λA·dA|² <= rel²·|λA·A0|² + abs²·λA²` (`|λA·A0|²` capped at
/// `F::MAX`: it overflows only for a side `2^-64` times shorter than its coordinates,
/// degenerate for any relative tolerance above `2^-125`).
///
/// `None` when, unscaled (`!per_side`), Goldman's first estimate of `s` or the squared
/// distance is not finite (only possible for finite inputs, which step 0 then rescales).
fn solve<F: Real>(a: &Ends<F>, b: &Ends<F>, p: &Params<F>, per_side: bool) -> Option<Closest<F>> {
    let (a0, a1, b0, b1) = (a.p0, a.p1, b.p0, b.p1);
    let r = sub(a0, b0);
    let (lambda_a, inv_lambda_a) = side_scale(sub(a1, a0), per_side);
    let (lambda_b, inv_lambda_b) = side_scale(sub(b1, b0), per_side);
    let d_a = sub(a1, a0).map(|x| x * lambda_a);
    let d_b = sub(b1, b0).map(|x| x * lambda_b);
    // Extent bounds in the per-side frames (0, 1, ±∞ times a power of two: exact).
    let (lo_a, hi_a) = (p.lo_a * inv_lambda_a, p.hi_a * inv_lambda_a);
    let (lo_b, hi_b) = (p.lo_b * inv_lambda_b, p.hi_b * inv_lambda_b);

    // Ericson's dot products, each one rounding per term (fused).
    let a_ = dot(d_a, d_a);
    let e = dot(d_b, d_b);
    let b_ = dot(d_a, d_b);
    let c = dot(d_a, r);
    let f = dot(d_b, r);

    // 1. Non-finite: a NaN or infinite coordinate makes d_a or d_b, hence a or e, non-finite
    //    (and 4·|r|² catches A0 - B0 overflowing, which step 0 has already rescued for
    //    finite inputs; with a and 4·|r|² finite, |c| <= |dA|·|r| is finite too); x·0 is
    //    NaN exactly when x is NaN or infinite. (4·|r|² finite also keeps dist2 <= |r|²
    //    finite.)
    let rr4 = dot(r, r) * F::FOUR;
    let probe = fma(a_, F::ZERO, fma(e, F::ZERO, rr4 * F::ZERO));
    let non_finite = probe != F::ZERO;
    if non_finite {
        return Some(Closest::NON_FINITE);
    }

    // 2. Degenerate: length² against the squared magnitude of the side's first point.
    let degenerate_a = degenerate(a_, a0, lambda_a, p);
    let degenerate_b = degenerate(e, b0, lambda_b, p);

    // Parallel: |dA × dB|² = |dA|²|dB|² sin²(angle).
    let n = if p.accurate_cross {
        // Two unbounded sides: nothing clamps a badly placed s back, so n must be accurate
        // to an ulp of itself (docs/algorithm.md).
        cross_accurate(d_a, d_b)
    } else {
        cross(d_a, d_b)
    };
    let nn = dot(n, n);
    let parallel = !degenerate_a && !degenerate_b && nn <= p.parallel_sin2 * (a_ * e);

    // 3. First estimate of s.
    let s_first = if degenerate_a || degenerate_b {
        // A point: s = 0. B a point: s comes from projecting B0 in step 4 (t = 0).
        F::ZERO
    } else if parallel {
        parallel_midpoint(lo_a, hi_a, lo_b, hi_b, a_, b_, c)
    } else {
        // Goldman's triple product: s = ((B0 - A0) × dB)·n / (n·n).
        let w = cross(d_b, r);
        let s_general = dot(w, n) / nn;
        // Overflowed (numerator or quotient; see `closest_pair`, step 0): the
        // caller solves the pair again rescaled. (x·0 is 0 exactly for finite x.)
        if !per_side && s_general * F::ZERO != F::ZERO {
            return None;
        }
        s_general
    };

    // 4. Clamp, project C onto B, project D back onto A.
    let s = clamp(s_first, lo_a, hi_a);
    let t = if degenerate_b {
        F::ZERO
    } else {
        clamp(fma(b_, s, f) / e, lo_b, hi_b)
    };
    let s = if degenerate_a {
        F::ZERO
    } else {
        clamp(fms(b_, t, c) / a_, lo_a, hi_a)
    };

    // 5. Separation r + s·dA - t·dB, formed locally.
    let v: [F; 3] = core::array::from_fn(|i| fnma(t, d_b[i], fma(s, d_a[i], r[i])));
    let dist2 = dot(v, v);
    // The projections overflowed (`b·t` or `b·s` beyond the largest float: closest points
    // of near-parallel unbounded sides far out, a short side far from a long one): with
    // `4·|r|²` finite the exact `dist2 <= |r|²` is finite, so this too is solved rescaled.
    if !per_side && dist2 * F::ZERO != F::ZERO {
        return None;
    }

    let flags = flag_bits(degenerate_a, degenerate_b, parallel);
    Some(Closest {
        // Back from the per-side frames (exact: s/λA times λA).
        s: s * lambda_a,
        t: t * lambda_b,
        point_a: core::array::from_fn(|i| fma(s, d_a[i], a0[i])),
        point_b: core::array::from_fn(|i| fma(t, d_b[i], b0[i])),
        dist2,
        flags,
    })
}

/// The per-side frame's scale `(λ, 1/λ)` of a direction `d`: [`direction_scale`] with
/// `per_side`, else `(1, 1)` (the caller's frame).
#[inline(always)]
fn side_scale<F: Real>(d: [F; 3], per_side: bool) -> (F, F) {
    if per_side {
        direction_scale(d)
    } else {
        (F::ONE, F::ONE)
    }
}

/// Step 2 for one side: its squared length `len2` (in the side's frame) against the
/// squared magnitude of its first point `p0` (when the side is short enough for this to
/// matter, both ends have that magnitude), both in the side's frame of scale `lambda`
/// (see [`solve`]); with `λ = 1` the cap and the products are exact.
#[inline(always)]
fn degenerate<F: Real>(len2: F, p0: [F; 3], lambda: F, p: &Params<F>) -> bool {
    let scale2 = min_ps(dot(p0.map(|x| x * lambda), p0.map(|x| x * lambda)), F::MAX);
    let length_abs2 = p.length_abs2 * lambda * lambda;
    len2 <= fma(p.length_rel2, scale2, length_abs2)
}

/// Step 3 for a parallel pair, Rhodes' rule: project B's extent `[lo_b, hi_b]` onto A
/// (`s = (b·t - c)/a`), and take the midpoint of its overlap with A's extent
/// `[lo_a, hi_a]`; the finite end when one end is unbounded, 0 when both are. The kernel's
/// `parallel_midpoint`, one lane.
#[inline(always)]
fn parallel_midpoint<F: Real>(lo_a: F, hi_a: F, lo_b: F, hi_b: F, a: F, b: F, c: F) -> F {
    let s_b0 = -c / a; // where B0 projects on A
    let k = b / a; // ds per unit of t
    let end_lo = fma(lo_b, k, s_b0); // B's lower bound (maybe infinite) on A
    let end_hi = fma(hi_b, k, s_b0);
    let lo = max_ps(lo_a, min_ps(end_lo, end_hi));
    let hi = min_ps(hi_a, max_ps(end_lo, end_hi));
    let lo_finite = lo > F::NEG_INFINITY;
    let hi_finite = hi < F::INFINITY;
    if lo_finite && hi_finite {
        // Without overlap lo > hi and the clamp in step 4 picks A's nearest end.
        (lo + hi) * F::HALF
    } else if lo_finite {
        lo
    } else if hi_finite {
        hi
    } else {
        // Two parallel lines: any point will do; Rhodes takes s = 0.
        F::ZERO
    }
}

/// The degenerate and parallel flags (the kernel's `flag_bits`, one lane).
#[inline(always)]
fn flag_bits(degenerate_a: bool, degenerate_b: bool, parallel: bool) -> Flags {
    let mut flags = Flags::empty();
    flags.set(Flags::DEGENERATE_A, degenerate_a);
    flags.set(Flags::DEGENERATE_B, degenerate_b);
    flags.set(Flags::PARALLEL, parallel);
    flags
}
