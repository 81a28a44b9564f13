//! A local frame for the grid over `f64` coordinates: the grid's spheres are `f32`, and
//! inflated by `0.75·ε` times their centre's norm for its rounding to `f32`, so at UTM
//! northings (5e6 m) a sphere would be 0.45 m wider than the object and hold the `f64`
//! object only with its end points' rounding added, the query no more selective than its
//! input rounded to `f32`. In the frame the coordinates are the offsets from the centre of
//! the set's bounding box, as small as the set is wide.

/// The growth that covers an object's rounding into a local frame, for its sphere (and the
/// refinement's probe, which reads the same rows): each coordinate moves by at most `ε/2`
/// of itself (or `2^-150` where it underflows, in the spheres' floor), so every point of
/// the exactly moved segment `p0 .. p1` lies within `ε/2·max(|p0|, |p1|)` of the rounded
/// one; twice that, rounded up.
#[inline]
pub(crate) fn rounding<const D: usize>(p0: [f32; D], p1: [f32; D]) -> f32 {
    let norm2 = |p: [f32; D]| -> f64 { p.iter().map(|&x| f64::from(x) * f64::from(x)).sum() };
    let g = f64::from(f32::EPSILON) * norm2(p0).max(norm2(p1)).sqrt();
    let f = g as f32;
    if f64::from(f) >= g { f } else { f.next_up() }
}

/// The frame: `local = (x - origin)·scale`, subtracted and scaled in `f64`, then rounded
/// to `f32`.
///
/// Moving and scaling by a power of two change no pair's relation; the rounding to `f32`
/// moves a coordinate by at most `ε/2` of its value in the frame (or `2^-150` where it
/// underflows), which each object's growth adds ([`rounding`]; the spheres' floor of
/// `2^-72` covers underflow), so the sphere of an object in the frame still holds the
/// exactly moved object. The scale is 1 unless the set is wider than `2^63`; it never
/// enlarges.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocalFrame<const D: usize> {
    origin: [f64; D],
    scale: f64,
}

impl<const D: usize> LocalFrame<D> {
    /// The frame of a set whose points are `points` (the non-finite ones ignored): the
    /// centre of their bounding box, and a power-of-two scale that brings its half extent
    /// to at most `2^62`.
    pub(crate) fn of(points: impl Iterator<Item = [f64; D]>) -> Self {
        let (mut lo, mut hi) = ([f64::INFINITY; D], [f64::NEG_INFINITY; D]);
        for p in points.filter(|p| p.iter().all(|x| x.is_finite())) {
            for k in 0..D {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        if lo[0] > hi[0] {
            return LocalFrame {
                origin: [0.0; D],
                scale: 1.0,
            };
        }
        // Halves first: neither the sum nor the difference of two finite values may
        // overflow.
        let origin: [f64; D] = core::array::from_fn(|k| 0.5 * lo[k] + 0.5 * hi[k]);
        let half = (0..D)
            .map(|k| 0.5 * hi[k] - 0.5 * lo[k])
            .fold(0.0, f64::max);
        let mut scale = 1.0;
        while half * scale > 2f64.powi(62) {
            scale *= 0.5f64.powi(64);
        }
        LocalFrame { origin, scale }
    }

    /// Point `x` in the frame, rounded to `f32` (non-finite stays non-finite).
    #[inline]
    pub(crate) fn point(&self, x: [f64; D]) -> [f32; D] {
        core::array::from_fn(|k| ((x[k] - self.origin[k]) * self.scale) as f32)
    }

    /// A length `x >= 0` in the frame, rounded up to `f32` (`+∞` when it overflows).
    #[inline]
    pub(crate) fn length(&self, x: f64) -> f32 {
        let y = x * self.scale;
        let f = y as f32;
        if f64::from(f) >= y { f } else { f.next_up() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_far_set_comes_near_the_origin() {
        let points = [
            [5e6, 4.9e6, 1.0],
            [5e6 + 8.0, 4.9e6 - 2.0, f64::NAN],
            [5e6 + 2.0, 4.9e6 + 2.0, 3.0],
        ];
        let f = LocalFrame::<3>::of(points.into_iter());
        // The point with a NaN is left out of the box: its centre is (5e6 + 1, 4.9e6 + 1, 2).
        assert_eq!(f.point([5e6 + 1.0, 4.9e6 + 1.0, 2.0]), [0.0, 0.0, 0.0]);
        assert_eq!(f.point([5e6 + 8.0, 4.9e6 - 2.0, 3.0]), [7.0, -3.0, 1.0]);
        // Rounded up: 0.1f32 is above 0.1, 0.7f32 below 0.7.
        assert_eq!(f.length(0.1), 0.1f32);
        assert_eq!(f.length(0.7), 0.7f32.next_up());
        assert_eq!(f.length(0.0), 0.0);
        // A set wider than 2^63 is scaled down by a power of two.
        let wide = LocalFrame::<2>::of([[-1e300, 0.0], [1e300, 1.0]].into_iter());
        assert!(wide.scale < 1.0 && wide.scale.log2().fract() == 0.0);
        assert!(f64::from(wide.point([1e300, 0.0])[0]) <= 2f64.powi(62) * 1.0001);
        // No finite point: the identity.
        let none = LocalFrame::<3>::of([[f64::NAN; 3]].into_iter());
        assert_eq!(none.point([1.5, 2.5, 3.5]), [1.5, 2.5, 3.5]);
    }
}
