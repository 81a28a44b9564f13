//! End-to-end tests of the `segbatch` binary: output values, extents, JSON, and the error
//! messages and exit code for bad arguments.

use crate::common::segbatch_text as segbatch;

/// Runs `segbatch closest ARGS`, expecting success; returns stdout.
fn closest(args: &[&str]) -> String {
    let mut all = vec!["closest"];
    all.extend_from_slice(args);
    let run = segbatch(&all);
    assert_eq!(run.code, 0, "segbatch {all:?} failed:\n{}", run.stderr);
    assert!(run.stderr.is_empty(), "unexpected stderr: {}", run.stderr);
    run.stdout
}

/// The value column of the table row whose label is `label`.
fn row<'a>(table: &'a str, label: &str) -> &'a str {
    table
        .lines()
        .find_map(|line| {
            let (l, v) = line.split_at(line.len().min(17));
            (l.trim_end() == label).then(|| v.trim())
        })
        .unwrap_or_else(|| panic!("no row {label:?} in\n{table}"))
}

fn number(text: &str) -> f32 {
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("{text:?} is not a number"))
}

/// A table cell `(x, y, z)` or a JSON array `[x,y,z]` as three numbers.
fn triple(text: &str) -> [f32; 3] {
    let inner = text
        .strip_prefix(['(', '['])
        .and_then(|t| t.strip_suffix([')', ']']))
        .unwrap_or_else(|| panic!("{text:?} is not a point"));
    let v: Vec<f32> = inner.split(',').map(number).collect();
    v.try_into().expect("three coordinates")
}

/// Asserts `actual` is within a few ulps of `expected` (scaled by max(|expected|, 16)), the
/// CLI printing the shortest round-trip text of the f32 result.
#[track_caller]
fn assert_close(actual: f32, expected: f32) {
    let allowed = 4.0 * f32::EPSILON * expected.abs().max(16.0);
    let diff = (actual - expected).abs();
    assert!(
        diff <= allowed,
        "actual {actual}, expected {expected}: difference {diff} > allowed {allowed}"
    );
}

#[track_caller]
fn assert_close3(actual: [f32; 3], expected: [f32; 3]) {
    for i in 0..3 {
        assert_close(actual[i], expected[i]);
    }
}

/// The raw text of a value of the one-line JSON object: a number, null, a string or an
/// array of those. Searches from the end, so the top-level keys win over the nested `"a"`
/// and `"b"` objects (which come first and have no keys in common with the results).
fn json_field<'a>(json: &'a str, key: &str) -> &'a str {
    let pattern = format!("\"{key}\":");
    let start = json
        .rfind(&pattern)
        .unwrap_or_else(|| panic!("no key {key:?} in {json}"))
        + pattern.len();
    let rest = &json[start..];
    let end = if rest.starts_with('[') {
        rest.find(']').unwrap() + 1
    } else if rest.starts_with('{') {
        rest.find('}').unwrap() + 1
    } else {
        rest.find([',', '}']).unwrap()
    };
    &rest[..end]
}

#[test]
fn rhodes_thought_experiment() {
    // Rhodes, GPG2 2.3: A = (0,0,0)-(1,0,0), B = (1,0,1)-(1,1,1): C = (1,0,0), D = (1,0,1).
    let out = closest(&["0,0,0 1,0,0", "1,0,1 1,1,1"]);
    assert_eq!(number(row(&out, "s")), 1.0);
    assert_eq!(number(row(&out, "t")), 0.0);
    assert_eq!(triple(row(&out, "C on A")), [1.0, 0.0, 0.0]);
    assert_eq!(triple(row(&out, "D on B")), [1.0, 0.0, 1.0]);
    assert_eq!(triple(row(&out, "midpoint")), [1.0, 0.0, 0.5]);
    assert_eq!(number(row(&out, "distance")), 1.0);
    assert_eq!(number(row(&out, "squared distance")), 1.0);
    assert_eq!(row(&out, "flags"), "none");
    assert_eq!(row(&out, "A"), "segment  (0, 0, 0) to (1, 0, 0)");
    assert_eq!(row(&out, "tolerance"), "scale-free (default)");
}

#[test]
fn tutorial_2d_crossing() {
    // P1 = (4,7), v1 = (12,-4); P2 = (1,1), v2 = (16,4): they cross at (13,4), t1 = t2 = 3/4.
    let out = closest(&["4,7,0 16,3,0", "1,1,0 17,5,0"]);
    assert_close(number(row(&out, "s")), 0.75);
    assert_close(number(row(&out, "t")), 0.75);
    assert_close3(triple(row(&out, "C on A")), [13.0, 4.0, 0.0]);
    assert_close3(triple(row(&out, "D on B")), [13.0, 4.0, 0.0]);
    assert_close(number(row(&out, "distance")), 0.0);
    assert_eq!(row(&out, "flags"), "none");
    // Other point spellings give the same output.
    for spelling in [
        ["4,7,0;16,3,0", "1,1,0 ; 17,5,0"],
        [" 4, 7, 0   16, 3, 0 ", "(1,1,0) (17,5,0)"],
        ["[4,7,0];[16,3,0]", "1,1,0\t17,5,0"],
    ] {
        assert_eq!(closest(&spelling), out, "{spelling:?}");
    }
}

#[test]
fn ray_and_line_extents() {
    // A ray from the origin along +x against a wall at x = 5: hits it at s = 5.
    let out = closest(&["--a", "ray", "0,0,0 1,0,0", "5,-1,0 5,1,0"]);
    assert_eq!(row(&out, "A"), "ray      (0, 0, 0) to (1, 0, 0)");
    assert_close(number(row(&out, "s")), 5.0);
    assert_close(number(row(&out, "t")), 0.5);
    assert_close3(triple(row(&out, "C on A")), [5.0, 0.0, 0.0]);
    assert_close(number(row(&out, "distance")), 0.0);

    // As a segment, A stops at (1,0,0): 4 away.
    let out = closest(&["0,0,0 1,0,0", "5,-1,0 5,1,0"]);
    assert_close(number(row(&out, "s")), 1.0);
    assert_close(number(row(&out, "distance")), 4.0);

    // A ray pointing away cannot go back: s is clamped to 0.
    let out = closest(&["--a", "ray", "0,0,0 -1,0,0", "5,-1,0 5,1,0"]);
    assert_close(number(row(&out, "s")), 0.0);
    assert_close(number(row(&out, "distance")), 5.0);

    // Two skew lines (options may also follow the sides, names are case-insensitive);
    // B's closest point lies before B0 (t = -1), allowed for a line only.
    let out = closest(&["0,0,0 1,0,0", "0,1,1 0,2,1", "--a", "line", "--b", "LINE"]);
    assert_eq!(row(&out, "B"), "line     (0, 1, 1) to (0, 2, 1)");
    assert_close(number(row(&out, "s")), 0.0);
    assert_close(number(row(&out, "t")), -1.0);
    assert_close3(triple(row(&out, "D on B")), [0.0, 0.0, 1.0]);
    assert_close(number(row(&out, "distance")), 1.0);
    // The same B as a ray: t clamps to 0.
    let out = closest(&["--b", "ray", "--a", "line", "0,0,0 1,0,0", "0,1,1 0,2,1"]);
    assert_close(number(row(&out, "t")), 0.0);
    assert_close(number(row(&out, "squared distance")), 2.0);

    // A side starting with '-' is a value, not an option.
    let out = closest(&["-1,0,0 1,0,0", "-5,-1,0 5,1,0"]);
    assert_close(number(row(&out, "distance")), 0.0);
}

#[test]
fn absolute_tolerance_makes_a_short_side_degenerate() {
    let args = ["0,0,0 0.0001,0,0", "1,0,1 1,1,1"];
    let out = closest(&args);
    assert_eq!(row(&out, "flags"), "none");
    let out = closest(&["--tolerance", "1e-3", args[0], args[1]]);
    assert_eq!(row(&out, "flags"), "degenerate_a");
    assert_eq!(row(&out, "tolerance"), "absolute 0.001");
    assert_eq!(number(row(&out, "s")), 0.0);
    assert_close(number(row(&out, "squared distance")), 2.0);
}

#[test]
fn json_output() {
    let out = closest(&["--json", "4,7,0 16,3,0", "1,1,0 17,5,0"]);
    assert_eq!(out.lines().count(), 1, "one line: {out}");
    let json = out.trim_end();
    assert!(
        json.starts_with("{\"a\":{\"extent\":\"segment\",\"p0\":[4,7,0],\"p1\":[16,3,0]},"),
        "{json}"
    );
    assert!(json.ends_with('}'));
    assert_eq!(json_field(json, "tolerance"), "null");
    assert_close(number(json_field(json, "s")), 0.75);
    assert_close(number(json_field(json, "t")), 0.75);
    assert_close3(triple(json_field(json, "point_a")), [13.0, 4.0, 0.0]);
    assert_close3(triple(json_field(json, "point_b")), [13.0, 4.0, 0.0]);
    assert_close3(triple(json_field(json, "midpoint")), [13.0, 4.0, 0.0]);
    assert_close(number(json_field(json, "distance")), 0.0);
    assert_close(number(json_field(json, "dist2")), 0.0);
    assert_eq!(json_field(json, "flags"), "[]");
    assert_eq!(json_field(json, "flag_bits"), "0");

    // Parallel segments, with a ray and a tolerance to see them echoed.
    let out = closest(&[
        "--json",
        "--b",
        "ray",
        "--tolerance",
        "0.5",
        "0,0,0 1,0,0",
        "0,1,0 2,1,0",
    ]);
    let json = out.trim_end();
    assert!(
        json.contains("\"b\":{\"extent\":\"ray\",\"p0\":[0,1,0],\"p1\":[2,1,0]}"),
        "{json}"
    );
    assert_eq!(json_field(json, "tolerance"), "0.5");
    assert_eq!(json_field(json, "flags"), "[\"parallel\"]");
    assert_eq!(json_field(json, "flag_bits"), "4");
    assert_close(number(json_field(json, "distance")), 1.0);
}

#[test]
fn non_finite_input_is_computed_not_rejected() {
    let out = closest(&["nan,0,0 1,0,0", "1,0,1 1,1,1"]);
    assert_eq!(row(&out, "flags"), "non_finite");
    assert_eq!(row(&out, "s"), "NaN");
    assert_eq!(row(&out, "distance"), "NaN");
    assert_eq!(row(&out, "C on A"), "(NaN, NaN, NaN)");

    let out = closest(&["--json", "0,0,0 inf,0,0", "1,0,1 1,1,1"]);
    let json = out.trim_end();
    assert!(json.contains("\"p1\":[null,0,0]"), "{json}");
    assert_eq!(json_field(json, "s"), "null");
    assert_eq!(json_field(json, "point_b"), "[null,null,null]");
    assert_eq!(json_field(json, "dist2"), "null");
    assert_eq!(json_field(json, "flags"), "[\"non_finite\"]");
    assert_eq!(json_field(json, "flag_bits"), "8");
}

/// Runs `segbatch closest ARGS` expecting a usage error: exit code 2, nothing on stdout, and
/// a first stderr line containing each of `expected`.
#[track_caller]
fn bad(args: &[&str], expected: &[&str]) {
    let mut all = vec!["closest"];
    all.extend_from_slice(args);
    let run = segbatch(&all);
    assert_eq!(run.code, 2, "segbatch {all:?}: stderr {}", run.stderr);
    assert!(run.stdout.is_empty(), "stdout: {}", run.stdout);
    let first = run.stderr.lines().next().unwrap_or("");
    assert!(first.starts_with("error: "), "{first:?}");
    for e in expected {
        assert!(first.contains(e), "{first:?} should contain {e:?}");
    }
}

#[test]
fn bad_arguments_exit_2_with_a_clear_message() {
    let b = "1,0,1 1,1,1";
    bad(
        &["0,0 1,0,0", b],
        &["'<A>'", "point 1 has 2 coordinates, expected 3"],
    );
    bad(
        &["0,0,0 1,0,0", "1,0,1 1,1,1,1"],
        &["'<B>'", "point 2 has 4 coordinates, expected 3"],
    );
    bad(&["0,0,0", b], &["'<A>'", "expected 2 points", "found 1"]);
    bad(
        &["0,0,0 1,0,0 2,0,0", b],
        &["'<A>'", "expected 2 points", "found 3"],
    );
    bad(
        &["0,0,0 1,zero,0", b],
        &["'<A>'", "'zero' is not a number", "coordinate y of point 2"],
    );
    bad(&["0,,0 1,0,0", b], &["'<A>'", "empty coordinate"]);
    bad(
        &["--a", "plane", "0,0,0 1,0,0", b],
        &[
            "'--a <EXTENT>'",
            "unknown extent 'plane'",
            "segment, ray or line",
        ],
    );
    bad(
        &["--b", "", "0,0,0 1,0,0", b],
        &["'--b <EXTENT>'", "unknown extent"],
    );
    bad(
        &["--tolerance", "-0.1", "0,0,0 1,0,0", b],
        &["'--tolerance <EPS>'", "must be >= 0", "-0.1"],
    );
    bad(
        &["--tolerance", "nan", "0,0,0 1,0,0", b],
        &["'--tolerance <EPS>'", "not NaN"],
    );
    bad(
        &["--tolerance", "inf", "0,0,0 1,0,0", b],
        &["'--tolerance <EPS>'", "must be finite"],
    );
    bad(
        &["--tolerance", "small", "0,0,0 1,0,0", b],
        &["'--tolerance <EPS>'", "'small' is not a number"],
    );
    // clap's own usage errors keep the same exit code.
    bad(&["0,0,0 1,0,0"], &["required arguments were not provided"]);
    bad(&["--frobnicate", "0,0,0 1,0,0", b], &["'--frobnicate'"]);
}

#[test]
fn help_and_version() {
    let run = segbatch(&["--version"]);
    assert_eq!(run.code, 0);
    let want = format!("segbatch {}", env!("CARGO_PKG_VERSION"));
    assert!(run.stdout.starts_with(&want), "{}", run.stdout);

    let run = segbatch(&["--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("closest"));
    assert!(run.stdout.contains("Examples:"));

    let run = segbatch(&["closest", "--help"]);
    assert_eq!(run.code, 0);
    for text in [
        "Point syntax:",
        "--a <EXTENT>",
        "--tolerance <EPS>",
        "--json",
        "Examples:",
    ] {
        assert!(run.stdout.contains(text), "closest --help lacks {text:?}");
    }

    // No subcommand: the help, as a usage error.
    let run = segbatch(&[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("Usage: segbatch <COMMAND>"));
}
