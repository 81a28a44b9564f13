//! Number formatting shared by the subcommands: readable text and hand-written JSON.

use std::fmt::Write;

/// An `f32` (or `f64`) for people: the shortest text that reads back to the same value of
/// its type, in scientific notation when very large or very small; `-0` prints as `0`;
/// `NaN`, `inf`, `-inf` as such.
pub fn num<T>(x: T) -> String
where
    T: Copy + Into<f64> + std::fmt::Display + std::fmt::LowerExp,
{
    let v: f64 = x.into();
    if v == 0.0 {
        "0".to_owned()
    } else if v.is_finite() && (v.abs() >= 1e9 || v.abs() < 1e-5) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A point as `(x, y, z)`.
pub fn point(p: [f32; 3]) -> String {
    format!("({}, {}, {})", num(p[0]), num(p[1]), num(p[2]))
}

/// An `f32` as a JSON value: like [`num`], but `null` for NaN and infinities (JSON has no
/// spelling for them).
pub fn json_num(x: f32) -> String {
    if x.is_finite() {
        num(x)
    } else {
        "null".to_owned()
    }
}

/// A point as a JSON array `[x,y,z]`.
pub fn json_point(p: [f32; 3]) -> String {
    format!("[{},{},{}]", json_num(p[0]), json_num(p[1]), json_num(p[2]))
}

/// A string as a JSON string literal, escaped.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(num(1.0), "1");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(0.75), "0.75");
        assert_eq!(num(1e-7), "1e-7");
        assert_eq!(num(-3e20), "-3e20");
        assert_eq!(num(f32::NAN), "NaN");
        assert_eq!(num(f32::NEG_INFINITY), "-inf");
        assert_eq!(num(0.1f64), "0.1");
        assert_eq!(num(0.1f64 + 0.2), "0.30000000000000004");
        assert_eq!(num(-1e-300f64), "-1e-300");
        assert_eq!(num(f64::NAN), "NaN");
        assert_eq!(json_num(f32::NAN), "null");
        assert_eq!(json_num(f32::INFINITY), "null");
        assert_eq!(json_point([1.0, 0.5, f32::NAN]), "[1,0.5,null]");
        assert_eq!(json_str("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
