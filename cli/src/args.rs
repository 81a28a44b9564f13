//! Value parsers shared by the subcommands: sides ("x,y,z x,y,z"), extents, tolerances,
//! radii, output columns and waits.
//!
//! Each parser returns a short message saying what was wrong; clap puts it after
//! `error: invalid value '…' for '<ARG>':`, so the user sees the argument, the value and the
//! reason on one line, and the process exits with code 2.

use segbatch::{Extent, Segment};
use segbatch_cli::io::Columns;

/// The point syntax, as a string literal for help texts (`concat!` needs a literal).
macro_rules! side_syntax {
    () => {
        "  A side is two points, A0 then A1 (or B0 then B1). A point is three numbers
  separated by commas; the two points are separated by spaces or ';'. Spaces
  around commas and brackets around points are ignored, so these are the same:
    \"0,0,0 1,0,0\"   \"0,0,0;1,0,0\"   \"0, 0, 0 ; 1, 0, 0\"   \"(0,0,0) (1,0,0)\"
  Numbers are f32 (1, -2.5, 1e-3). nan and inf are accepted: such a pair is
  computed like any other and reported as NaN with the non_finite flag. Quote
  each side so the shell passes it as one argument; a side may start with '-'."
    };
}
pub(crate) use side_syntax;

/// One lexical piece of a side.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Token<'a> {
    Number(&'a str),
    Comma,
    Semicolon,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let is_break = |c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '[' | ']');
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if is_break(c) {
            if let Some(s) = start.take() {
                out.push(Token::Number(&text[s..i]));
            }
            match c {
                ',' => out.push(Token::Comma),
                ';' => out.push(Token::Semicolon),
                _ => {}
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push(Token::Number(&text[s..]));
    }
    out
}

/// Parses a side: two points of three numbers, "x,y,z x,y,z" (see `side_syntax!`).
pub fn parse_side(text: &str) -> Result<Segment, String> {
    // Group the numbers into points: a comma continues the point, ';' or mere spacing
    // between two numbers starts the next one.
    let mut points: Vec<Vec<&str>> = Vec::new();
    let mut previous: Option<Token> = None;
    for token in tokens(text) {
        match token {
            Token::Number(n) => match previous {
                Some(Token::Comma) => points.last_mut().expect("a comma follows a number").push(n),
                _ => points.push(vec![n]),
            },
            Token::Comma => {
                if !matches!(previous, Some(Token::Number(_))) {
                    // After another comma we are inside the last point, else starting one.
                    let point = points.len() + usize::from(previous != Some(Token::Comma));
                    return Err(format!(
                        "empty coordinate (a ',' without a number before it) in point {point}"
                    ));
                }
            }
            Token::Semicolon => {
                if previous == Some(Token::Comma) {
                    return Err(format!(
                        "empty coordinate (a ',' without a number after it) in point {}",
                        points.len()
                    ));
                }
            }
        }
        previous = Some(token);
    }
    if previous == Some(Token::Comma) {
        return Err(format!(
            "empty coordinate (a ',' without a number after it) in point {}",
            points.len()
        ));
    }
    // Coordinate counts first: "0,0,0, 1,0,0" is one point of six numbers, and saying so
    // is more helpful than "found 1 point".
    for (k, point) in points.iter().enumerate() {
        if point.len() != 3 {
            let hint = if point.len() == 6 && points.len() == 1 {
                "; separate the two points with a space or ';'"
            } else {
                ""
            };
            return Err(format!(
                "point {} has {} coordinate{}, expected 3 (x,y,z){hint}",
                k + 1,
                point.len(),
                if point.len() == 1 { "" } else { "s" }
            ));
        }
    }
    if points.len() != 2 {
        return Err(format!(
            "expected 2 points \"x,y,z x,y,z\", found {}",
            points.len()
        ));
    }
    let mut xyz = [[0.0f32; 3]; 2];
    for (k, point) in points.iter().enumerate() {
        for (i, n) in point.iter().enumerate() {
            xyz[k][i] = n.parse::<f32>().map_err(|_| {
                format!(
                    "'{n}' is not a number (coordinate {} of point {})",
                    ["x", "y", "z"][i],
                    k + 1
                )
            })?;
        }
    }
    Ok(Segment::new(xyz[0], xyz[1]))
}

/// Parses an extent name: `segment` (or `seg`), `ray` or `line`, any case.
pub fn parse_extent(text: &str) -> Result<Extent, String> {
    text.trim().parse().map_err(|e| format!("{e}"))
}

/// Parses a tolerance: a finite number `>= 0` ([`parse_tolerance_text`]) that `f32` holds.
pub fn parse_tolerance(text: &str) -> Result<f32, String> {
    let eps: f32 = parse_tolerance_text(text)?
        .parse()
        .expect("checked as a number");
    if eps.is_infinite() {
        Err("the tolerance must be finite".to_owned())
    } else {
        Ok(eps)
    }
}

/// Parses `distance,params,points,flags` or `all`.
pub(crate) fn parse_columns(text: &str) -> Result<Columns, String> {
    let mut c = Columns {
        index: false,
        distance: false,
        params: false,
        points: false,
        flags: false,
    };
    for name in text.split(',').map(str::trim) {
        match name.to_ascii_lowercase().as_str() {
            "distance" | "dist" => c.distance = true,
            "params" | "parameters" => c.params = true,
            "points" => c.points = true,
            "flags" => c.flags = true,
            "all" => {
                c.distance = true;
                c.params = true;
                c.points = true;
                c.flags = true;
            }
            other => {
                return Err(format!(
                    "unknown output '{other}': use distance, params, points, flags or all"
                ));
            }
        }
    }
    Ok(c)
}

pub(crate) fn parse_wait(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(w) if (0.0..=1e6).contains(&w) => Ok(w),
        _ => Err(format!(
            "the wait must be a number of seconds from 0 to 1e6, got {text}"
        )),
    }
}

/// Checks `--radius` as a number >= 0 (`inf` included: an infinite radius holds every
/// pair of finite coordinates, as in the library) and keeps its text, which each run reads
/// in its own precision (an f64 run compares with the f64 nearest R, not a widened f32; an
/// f32 run refuses a finite radius beyond f32's range).
pub(crate) fn parse_radius_text(text: &str) -> Result<String, String> {
    let r: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if r >= 0.0 {
        Ok(text.trim().to_owned())
    } else {
        Err(format!(
            "the radius must be a number >= 0 (inf for every pair), got {text}"
        ))
    }
}

/// Checks `--tolerance` as a finite number >= 0 in f64 and keeps its text, which each run
/// reads in its own precision: an f64 run takes `1e300` as it is, an f32 run refuses a
/// tolerance beyond f32's range, naming `--precision f64`.
pub(crate) fn parse_tolerance_text(text: &str) -> Result<String, String> {
    let eps: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if eps.is_nan() {
        Err("the tolerance must be a number >= 0, not NaN".to_owned())
    } else if eps < 0.0 {
        Err(format!("the tolerance must be >= 0, got {eps}"))
    } else if eps.is_infinite() {
        Err("the tolerance must be finite".to_owned())
    } else {
        Ok(text.trim().to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(p0: [f32; 3], p1: [f32; 3]) -> Result<Segment, String> {
        Ok(Segment::new(p0, p1))
    }

    #[test]
    fn accepted_spellings() {
        let want = side([0.0, -1.5, 2.0], [1e3, 0.0, 0.25]);
        for text in [
            "0,-1.5,2 1e3,0,0.25",
            "0,-1.5,2;1e3,0,0.25",
            "  0, -1.5 ,2 ;  1e3 ,0, 0.25 ",
            "(0,-1.5,2) (1e3,0,0.25)",
            "[0,-1.5,2];[1e3,0,0.25]",
            "0,-1.5,2\t1e3,0,0.25",
        ] {
            assert_eq!(parse_side(text), want, "{text:?}");
        }
    }

    #[test]
    fn non_finite_numbers_are_accepted() {
        let s = parse_side("nan,0,0 inf,-inf,0").unwrap();
        assert!(s.p0[0].is_nan());
        assert_eq!(s.p1, [f32::INFINITY, f32::NEG_INFINITY, 0.0]);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let err = |t: &str| parse_side(t).unwrap_err();
        assert_eq!(err(""), "expected 2 points \"x,y,z x,y,z\", found 0");
        assert_eq!(err("0,0,0"), "expected 2 points \"x,y,z x,y,z\", found 1");
        assert_eq!(
            err("0,0,0 1,1,1 2,2,2"),
            "expected 2 points \"x,y,z x,y,z\", found 3"
        );
        assert_eq!(
            err("0,0 1,0,0"),
            "point 1 has 2 coordinates, expected 3 (x,y,z)"
        );
        assert_eq!(
            err("0,0,0 1,0,0,4"),
            "point 2 has 4 coordinates, expected 3 (x,y,z)"
        );
        assert_eq!(
            err("0,x,0 1,0,0"),
            "'x' is not a number (coordinate y of point 1)"
        );
        assert_eq!(
            err("0,,0 1,0,0"),
            "empty coordinate (a ',' without a number before it) in point 1"
        );
        assert_eq!(
            err("0,0,0; ,1,0,0"),
            "empty coordinate (a ',' without a number before it) in point 2"
        );
        // A comma joins the two points into one.
        assert_eq!(
            err("0,0,0, 1,0,0"),
            "point 1 has 6 coordinates, expected 3 (x,y,z); separate the two points with a space or ';'"
        );
        assert!(err("0,0,0 1,0,").starts_with("empty coordinate"));
    }

    #[test]
    fn extents_and_tolerances() {
        assert_eq!(parse_extent("Ray"), Ok(Extent::Ray));
        assert_eq!(parse_extent("seg"), Ok(Extent::Segment));
        assert!(
            parse_extent("plane")
                .unwrap_err()
                .contains("unknown extent 'plane'")
        );
        assert_eq!(parse_tolerance("1e-3"), Ok(1e-3));
        assert_eq!(parse_tolerance("0"), Ok(0.0));
        assert!(parse_tolerance("-1").is_err());
        assert!(parse_tolerance("nan").is_err());
        assert!(parse_tolerance("inf").is_err());
        assert!(parse_tolerance("abc").is_err());
    }
}
