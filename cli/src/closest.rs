//! `segbatch closest`: the closest points of one pair, printed as a table or as JSON.

use std::io::{self, Write};

use clap::Args;
use segbatch::{Closest, Extent, Options, Segment, Tolerance, reference};

use super::args::{parse_extent, parse_side, parse_tolerance, side_syntax};
use super::format::{json_num, json_point, json_str, num, point};

pub const LONG_ABOUT: &str = "\
Closest points, parameters and distance of one pair of segments, rays or lines.

Prints s and t, the closest points C = A0 + s*(A1 - A0) on A and
D = B0 + t*(B1 - B0) on B, their midpoint (Rhodes' intersection point P), the
distance and squared distance, and the flags: degenerate_a / degenerate_b (a side
too short to have a direction, treated as its first point), parallel (Rhodes'
overlap rule was used) and non_finite (a NaN or infinite input: outputs are NaN).
Computed with the scalar reference implementation.";

/// The examples shown by `-h` and `--help`.
macro_rules! examples {
    () => {
        "Examples:
  segbatch closest \"0,0,0 1,0,0\" \"1,0,1 1,1,1\"
  segbatch closest --a ray \"0,0,0 1,0,0\" \"5,-1,0 5,1,0\"
  segbatch closest --a line --b line \"0,0,0;1,0,0\" \"0,1,1;0,2,1\"
  segbatch closest --tolerance 1e-3 \"0,0,0 0.0001,0,0\" \"1,0,1 1,1,1\"
  segbatch closest --json \"4,7,0 16,3,0\" \"1,1,0 17,5,0\""
    };
}

pub const AFTER_HELP: &str = concat!(examples!(), "\n\nUse --help for the point syntax.");

pub const AFTER_LONG_HELP: &str = concat!("Point syntax:\n", side_syntax!(), "\n\n", examples!(),);

/// Arguments of `segbatch closest`.
#[derive(Debug, Args)]
pub struct ClosestArgs {
    /// Side A: two points "x,y,z x,y,z" (A0 then A1)
    #[arg(value_name = "A", value_parser = parse_side, allow_hyphen_values = true)]
    pub a: Segment,

    /// Side B: two points "x,y,z x,y,z" (B0 then B1)
    #[arg(value_name = "B", value_parser = parse_side, allow_hyphen_values = true)]
    pub b: Segment,

    /// Extent of side A: segment (0 <= s <= 1), ray (s >= 0) or line (any s)
    #[arg(
        long = "a",
        value_name = "EXTENT",
        value_parser = parse_extent,
        default_value = "segment"
    )]
    pub extent_a: Extent,

    /// Extent of side B: segment (0 <= t <= 1), ray (t >= 0) or line (any t)
    #[arg(
        long = "b",
        value_name = "EXTENT",
        value_parser = parse_extent,
        default_value = "segment"
    )]
    pub extent_b: Extent,

    /// Absolute degenerate-length tolerance, in coordinate units [default: scale-free]
    ///
    /// Rhodes' epsilon: a side no longer than EPS is degenerate (treated as its first
    /// point). EPS must be a finite number >= 0. Without this option the tolerance is
    /// scale-free: a side is degenerate when its length is a couple of ulps of its own
    /// coordinates. The parallel test is scale-free either way.
    #[arg(long, value_name = "EPS", value_parser = parse_tolerance)]
    pub tolerance: Option<f32>,

    /// Print one JSON object instead of the table (NaN and infinities as null)
    #[arg(long)]
    pub json: bool,
}

/// Runs `segbatch closest`, writing to `out`.
pub fn run(args: &ClosestArgs, out: &mut impl Write) -> io::Result<()> {
    let mut options = Options::new(args.extent_a, args.extent_b);
    if let Some(eps) = args.tolerance {
        options = options.with_tolerance(Tolerance::absolute(eps));
    }
    let c = reference::closest_points_with(&args.a, &args.b, &options);
    if args.json {
        writeln!(out, "{}", json(args, &c))
    } else {
        write_table(args, &c, out)
    }
}

/// The flag names, `[]` when none is set.
fn flag_names(c: &Closest) -> Vec<String> {
    if c.flags.is_empty() {
        Vec::new()
    } else {
        c.flags.to_string().split('|').map(str::to_owned).collect()
    }
}

fn write_table(args: &ClosestArgs, c: &Closest, out: &mut impl Write) -> io::Result<()> {
    let side = |extent: Extent, s: &Segment| {
        format!("{:<8} {} to {}", extent.name(), point(s.p0), point(s.p1))
    };
    let tolerance = match args.tolerance {
        Some(eps) => format!("absolute {}", num(eps)),
        None => "scale-free (default)".to_owned(),
    };
    let rows = [
        ("A", side(args.extent_a, &args.a)),
        ("B", side(args.extent_b, &args.b)),
        ("tolerance", tolerance),
        ("s", num(c.s)),
        ("t", num(c.t)),
        ("C on A", point(c.point_a)),
        ("D on B", point(c.point_b)),
        ("midpoint", point(c.midpoint())),
        ("distance", num(c.distance())),
        ("squared distance", num(c.dist2)),
        ("flags", c.flags.to_string()),
    ];
    for (label, value) in rows {
        writeln!(out, "{label:<17} {value}")?;
    }
    Ok(())
}

fn json(args: &ClosestArgs, c: &Closest) -> String {
    let side = |extent: Extent, s: &Segment| {
        format!(
            "{{\"extent\":{},\"p0\":{},\"p1\":{}}}",
            json_str(extent.name()),
            json_point(s.p0),
            json_point(s.p1)
        )
    };
    let tolerance = args.tolerance.map_or("null".to_owned(), json_num);
    let flags: Vec<String> = flag_names(c).iter().map(|f| json_str(f)).collect();
    format!(
        "{{\"a\":{},\"b\":{},\"tolerance\":{},\"s\":{},\"t\":{},\"point_a\":{},\"point_b\":{},\
         \"midpoint\":{},\"distance\":{},\"dist2\":{},\"flags\":[{}],\"flag_bits\":{}}}",
        side(args.extent_a, &args.a),
        side(args.extent_b, &args.b),
        tolerance,
        json_num(c.s),
        json_num(c.t),
        json_point(c.point_a),
        json_point(c.point_b),
        json_point(c.midpoint()),
        json_num(c.distance()),
        json_num(c.dist2),
        flags.join(","),
        c.flags.bits()
    )
}
