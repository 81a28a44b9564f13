//! f64 vector helpers for the oracles and the generators.

/// A point or vector in f64.
pub type V3 = [f64; 3];

/// Exact f32 → f64 conversion of a point.
#[must_use]
pub fn to64(p: [f32; 3]) -> V3 {
    p.map(f64::from)
}

/// Round an f64 point to f32 (round to nearest).
#[must_use]
pub fn to32(p: V3) -> [f32; 3] {
    p.map(|x| x as f32)
}

/// `u + v`.
#[must_use]
pub fn add(u: V3, v: V3) -> V3 {
    [u[0] + v[0], u[1] + v[1], u[2] + v[2]]
}

/// `u - v`.
#[must_use]
pub fn sub(u: V3, v: V3) -> V3 {
    [u[0] - v[0], u[1] - v[1], u[2] - v[2]]
}

/// `k·u`.
#[must_use]
pub fn scale(u: V3, k: f64) -> V3 {
    [u[0] * k, u[1] * k, u[2] * k]
}

/// `u + k·v`.
#[must_use]
pub fn add_scaled(u: V3, k: f64, v: V3) -> V3 {
    [u[0] + k * v[0], u[1] + k * v[1], u[2] + k * v[2]]
}

/// `u·v`.
#[must_use]
pub fn dot(u: V3, v: V3) -> f64 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

/// `|u|`.
#[must_use]
pub fn norm(u: V3) -> f64 {
    dot(u, u).sqrt()
}

/// `a·b - c·d` with Kahan's algorithm: accurate to about 1.5 ulp of the *result*, however
/// much the two products cancel.
#[must_use]
pub fn diff_of_products(a: f64, b: f64, c: f64, d: f64) -> f64 {
    let w = c * d;
    let err = (-c).mul_add(d, w); // w - c·d, exactly
    let f = a.mul_add(b, -w); // a·b - w, rounded once
    f + err
}

/// `u × v`, each component by [`diff_of_products`].
#[must_use]
pub fn cross(u: V3, v: V3) -> V3 {
    [
        diff_of_products(u[1], v[2], u[2], v[1]),
        diff_of_products(u[2], v[0], u[0], v[2]),
        diff_of_products(u[0], v[1], u[1], v[0]),
    ]
}

/// The largest magnitude over the coordinates of `points` (0 for none).
#[must_use]
pub fn max_abs<const N: usize>(points: &[[f32; N]]) -> f64 {
    points
        .iter()
        .flatten()
        .fold(0.0f64, |m, &x| m.max(f64::from(x).abs()))
}
