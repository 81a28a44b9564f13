//! The edges of f64's range, infinite radii and meeting points of segments spanning the
//! float range, end to end: `pairs` and `run` in
//! f64 at 1e300 against the same scene scaled into the ordinary range (exactly, by a power
//! of two), `--tolerance` read in the run's precision, `--radius inf`, and `cross` points
//! of segments from `-MAX` to `MAX`.

use crate::common::{Text as Run, s, segbatch_text as segbatch, temp_dir};
use segbatch::{Segment64, reference};
use segbatch_testkit::Rng;
use segbatch_testkit::range64::{shift, shift_segment};

fn ok(args: &[&str]) -> Run {
    let run = segbatch(args);
    assert_eq!(run.code, 0, "segbatch {args:?}: {}", run.stderr);
    run
}

/// CSV rows of `values`, `per` numbers each, every f64 written to round-trip.
fn csv_rows(values: &[f64], per: usize) -> String {
    values
        .chunks(per)
        .map(|r| {
            let cells: Vec<String> = r.iter().map(|x| format!("{x:?}")).collect();
            cells.join(",") + "\n"
        })
        .collect()
}

/// The CSV records of a run's standard output or file, header dropped, split at commas.
fn records(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

/// 40 segments about 1e301 from the origin, 3e300 long: squared distances and the
/// squared radius overflow.
fn far_set(seed: u64) -> Vec<Segment64> {
    let mut rng = Rng::new(seed);
    (0..40)
        .map(|_| {
            let p0 = rng.cube(1e301);
            let d = rng.cube(3e300);
            Segment64::new(p0, core::array::from_fn(|k| p0[k] + d[k]))
        })
        .collect()
}

#[test]
fn pairs_in_f64_at_1e301_decide_as_the_set_scaled_into_range() {
    let dir = temp_dir();
    let set = far_set(11);
    // The oracle: the same set and radius scaled by 2^-1000 (exactly), brute force over the
    // f64 reference there, distances scaled back.
    let k = -1000;
    let small: Vec<Segment64> = set.iter().map(|x| shift_segment(x, k).unwrap()).collect();
    let r = shift(1e301, k);
    let mut want = Vec::new();
    for i in 0..set.len() {
        for j in i + 1..set.len() {
            let c = reference::closest_points(&small[i], &small[j]);
            if c.dist2 <= r * r {
                want.push((i as u32, j as u32, shift(c.dist2.sqrt(), -k)));
            }
        }
    }
    assert!(
        want.len() > 100 && want.len() < 700,
        "{} of 780 pairs within",
        want.len()
    );
    let input = dir.path().join("far.csv");
    std::fs::write(&input, csv_rows(bytemuck::cast_slice(&set), 6)).unwrap();
    let run = ok(&[
        "pairs",
        s(&input),
        "--radius",
        "1e301",
        "--precision",
        "f64",
        "-q",
    ]);
    let mut got: Vec<(u32, u32, f64)> = records(&run.stdout)
        .iter()
        .map(|f| {
            // Every distance is beyond 1.3e154: flagged, and written finite.
            assert_eq!(f[3], "16", "{f:?}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    got.sort_by_key(|h| (h.0, h.1));
    assert_eq!(got, want);
}

#[test]
fn run_in_f64_at_1e300_decides_as_the_pairs_scaled_into_range() {
    let dir = temp_dir();
    let mut rng = Rng::new(5);
    let mut values = Vec::new();
    let mut want = Vec::new();
    for n in 0..24u64 {
        let a0 = rng.cube(1e300);
        let a1: [f64; 3] = core::array::from_fn(|k| a0[k] + rng.range(-1e300, 1e300));
        let gap = if n % 2 == 0 { 0.5e300 } else { 3e300 };
        let b0: [f64; 3] = core::array::from_fn(|k| a0[k] + rng.range(-gap, gap));
        let b1: [f64; 3] = core::array::from_fn(|k| b0[k] + rng.range(-1e300, 1e300));
        let (a, b) = (Segment64::new(a0, a1), Segment64::new(b0, b1));
        let (sa, sb) = (
            shift_segment(&a, -1000).unwrap(),
            shift_segment(&b, -1000).unwrap(),
        );
        let c = reference::closest_points(&sa, &sb);
        let r = shift(1e300, -1000);
        if c.dist2 <= r * r {
            // Its distance: the scaled copy's, scaled back (exact: a power of two).
            want.push((n.to_string(), shift(c.dist2.sqrt(), 1000)));
        }
        values.extend(a0.iter().chain(&a1).chain(&b0).chain(&b1));
    }
    assert!(want.len() >= 5 && want.len() < 20, "{want:?}");
    let input = dir.path().join("pairs.csv");
    std::fs::write(&input, csv_rows(&values, 12)).unwrap();
    let output = dir.path().join("near.csv");
    ok(&[
        "run",
        s(&input),
        "-o",
        s(&output),
        "--precision",
        "f64",
        "--radius",
        "1e300",
        "-q",
    ]);
    let text = std::fs::read_to_string(&output).unwrap();
    // Every distance is beyond 1.3e154, its square beyond f64: written finite, flagged.
    let got: Vec<(String, f64)> = records(&text)
        .into_iter()
        .map(|f| {
            assert_eq!(f.last().unwrap(), "16", "DIST2_OUT_OF_RANGE: {f:?}");
            (f[0].clone(), f[1].parse().unwrap())
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn the_tolerance_is_read_in_the_run_s_precision() {
    let dir = temp_dir();
    let input = dir.path().join("one.csv");
    // A side 1e299 long against one 1e305 long.
    std::fs::write(
        &input,
        csv_rows(
            &[
                0.0, 0.0, 0.0, 1e299, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1e305, 0.0,
            ],
            12,
        ),
    )
    .unwrap();
    let output = dir.path().join("out.csv");
    ok(&[
        "run",
        s(&input),
        "-o",
        s(&output),
        "--precision",
        "f64",
        "--tolerance",
        "1e300",
        "-q",
    ]);
    let text = std::fs::read_to_string(&output).unwrap();
    let flags: u8 = records(&text)[0].last().unwrap().parse().unwrap();
    assert_eq!(flags & 1, 1, "side A is degenerate under 1e300: {text}");
    // An f32 run cannot hold it, and says which option can.
    let run = segbatch(&["run", s(&input), "-o", s(&output), "--tolerance", "1e300"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--precision f64"), "{}", run.stderr);
    // A tolerance must still be finite and >= 0 in either precision.
    for bad in ["inf", "-1", "nan"] {
        let run = segbatch(&[
            "run",
            s(&input),
            "-o",
            s(&output),
            "--precision",
            "f64",
            "--tolerance",
            bad,
        ]);
        assert_eq!(run.code, 2, "--tolerance {bad}: {}", run.stderr);
    }
}

#[test]
fn an_infinite_radius_holds_every_pair_of_finite_segments() {
    let dir = temp_dir();
    let set = dir.path().join("set.csv");
    std::fs::write(
        &set,
        "0,0,0,1,0,0\n3e38,0,0,3e38,1,0\nnan,0,0,1,1,1\n0,-3e38,0,0,-3e38,1\n",
    )
    .unwrap();
    for precision in ["f32", "f64"] {
        let run = ok(&[
            "pairs",
            s(&set),
            "--radius",
            "inf",
            "--precision",
            precision,
            "-q",
        ]);
        let mut got: Vec<(u32, u32)> = records(&run.stdout)
            .iter()
            .map(|f| (f[0].parse().unwrap(), f[1].parse().unwrap()))
            .collect();
        got.sort_unstable();
        assert_eq!(got, vec![(0, 1), (0, 3), (1, 3)], "{precision}");
        // raycast: every ray touches a wall at once (the least index).
        let run = ok(&[
            "raycast",
            s(&set),
            s(&set),
            "--radius",
            "inf",
            "--range",
            "1",
            "--precision",
            precision,
            "-q",
        ]);
        let rays: Vec<Vec<String>> = records(&run.stdout);
        assert_eq!(rays.len(), 3, "{}", run.stdout);
        assert!(
            rays.iter()
                .all(|f| f[1] == "0" && f[2].parse::<f64>().unwrap() == 0.0),
            "{}",
            run.stdout
        );
    }
    let pairs = dir.path().join("pairs.csv");
    std::fs::write(
        &pairs,
        "0,0,0,1,0,0,3e38,0,0,3e38,1,0\n0,0,0,1,0,0,nan,0,0,1,1,1\n",
    )
    .unwrap();
    let output = dir.path().join("near.csv");
    ok(&["run", s(&pairs), "-o", s(&output), "--radius", "inf", "-q"]);
    let text = std::fs::read_to_string(&output).unwrap();
    let got: Vec<String> = records(&text).into_iter().map(|f| f[0].clone()).collect();
    assert_eq!(got, vec!["0"]);
    // A negative radius is still refused.
    let run = segbatch(&["pairs", s(&set), "--radius=-inf"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("the radius must be a number >= 0 (inf for every pair)"),
        "{}",
        run.stderr
    );
}

#[test]
fn cross_points_of_segments_spanning_the_float_range_are_finite() {
    let dir = temp_dir();
    for (precision, max) in [("f32", f64::from(f32::MAX)), ("f64", f64::MAX)] {
        let input = dir.path().join(format!("wide_{precision}.csv"));
        let v = [
            -max,
            0.0,
            max,
            0.0,
            0.0,
            -max,
            0.0,
            max,
            0.5 * max,
            max,
            0.5 * max,
            -max,
        ];
        std::fs::write(&input, csv_rows(&v, 4)).unwrap();
        let run = ok(&["cross", s(&input), "--precision", precision, "-q"]);
        // The values as the run's precision reads them.
        let value = |t: &str| -> f64 {
            if precision == "f32" {
                f64::from(t.parse::<f32>().unwrap())
            } else {
                t.parse().unwrap()
            }
        };
        let mut got: Vec<(u32, u32, f64, f64)> = records(&run.stdout)
            .iter()
            .map(|f| {
                (
                    f[0].parse().unwrap(),
                    f[1].parse().unwrap(),
                    value(&f[3]),
                    value(&f[4]),
                )
            })
            .collect();
        got.sort_by_key(|g| (g.0, g.1));
        // The horizontal wall meets the vertical ones at the origin and at 0.5·MAX (to the
        // rounding of `s` over a span of 2·MAX: a few ε of MAX).
        let eps = if precision == "f32" {
            f64::from(f32::EPSILON)
        } else {
            f64::EPSILON
        };
        assert_eq!(got.len(), 2, "{precision}: {got:?}");
        assert_eq!((got[0].0, got[0].1, got[0].2, got[0].3), (0, 1, 0.0, 0.0));
        assert_eq!((got[1].0, got[1].1, got[1].3), (0, 2, 0.0));
        assert!(
            (got[1].2 / max - 0.5).abs() <= 4.0 * eps,
            "{precision}: {got:?}"
        );
    }
}
