//! Brute force over the scalar reference: what every pruned or batched query must report,
//! bit for bit.

use segbatch::sets::{Hit, within_radius};
use segbatch::{Options, Segment, reference};

/// Equal bits, or both NaN.
pub fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// Every pair `(i, j)` of `a` and `b` (only `j > i` when `upper`) whose reference closest
/// points are within `r` ([`within_radius`]: `dist2 <= r·r`, in `f64` for a squared
/// distance that left `f32`'s range), sorted by `(i, j)`.
pub fn within(a: &[Segment], b: &[Segment], r: f32, o: &Options, upper: bool) -> Vec<Hit> {
    within_by(a, b, |_, _| r, o, upper)
}

/// [`within`] with a radius a pair, `radius(i, j)` (per-object radii: `rA[i] + rB[j]`).
pub fn within_by(
    a: &[Segment],
    b: &[Segment],
    radius: impl Fn(usize, usize) -> f32,
    o: &Options,
    upper: bool,
) -> Vec<Hit> {
    let mut out = Vec::new();
    for (i, sa) in a.iter().enumerate() {
        let first = if upper { i + 1 } else { 0 };
        for (j, sb) in b.iter().enumerate().skip(first) {
            let c = reference::closest_points_with(sa, sb, o);
            if within_radius(sa, sb, &c, radius(i, j)) {
                out.push(Hit {
                    i: u32::try_from(i).expect("at most u32::MAX objects"),
                    j: u32::try_from(j).expect("at most u32::MAX objects"),
                    dist2: c.dist2,
                    s: c.s,
                    t: c.t,
                });
            }
        }
    }
    out
}

/// True when `a` and `b` share an end point (all three coordinates equal with `==`).
pub fn shares_endpoint(a: &Segment, b: &Segment) -> bool {
    [a.p0, a.p1]
        .iter()
        .any(|p| [b.p0, b.p1].iter().any(|q| (0..3).all(|k| p[k] == q[k])))
}

/// Panics unless `got` and `want` hold the same pairs in the same order with the same
/// `dist2`, `s` and `t` bits.
pub fn assert_same_hits(got: &[Hit], want: &[Hit], ctx: &str) {
    let key = |h: &Hit| (h.i, h.j);
    let got_keys: Vec<_> = got.iter().map(key).collect();
    let want_keys: Vec<_> = want.iter().map(key).collect();
    assert_eq!(got_keys, want_keys, "{ctx}: pairs differ");
    for (g, w) in got.iter().zip(want) {
        assert!(
            same(g.dist2, w.dist2) && same(g.s, w.s) && same(g.t, w.t),
            "{ctx}: {g:?} vs {w:?}"
        );
    }
}
