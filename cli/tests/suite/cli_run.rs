//! End-to-end tests of `segbatch run`, `bench` and `verify`: round trips through every
//! format compared with the library (in f32, and in f64 with `--precision f64` against the
//! f64 reference), `--radius`, and every bad-input case (message, exit code 2, no output
//! file left behind).

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;

use crate::common::{s, segbatch_text as segbatch, temp_dir};
use segbatch::pairs::closest_points_into;
use segbatch::{ClosestBatch, Extent, Options, Outputs, Segment, Segment64, Segments, reference};

/// Test pairs: general ones, a parallel pair, a zero-length side and a NaN.
fn pairs(n: usize) -> Vec<[f32; 12]> {
    let mut state = 12345u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 20.0 - 10.0
    };
    let mut v: Vec<[f32; 12]> = (0..n).map(|_| core::array::from_fn(|_| next())).collect();
    v[1] = [0., 0., 0., 1., 0., 0., 0., 1., 0., 1., 1., 0.];
    v[2] = [1., 2., 3., 1., 2., 3., 0., 0., 0., 0., 5., 0.];
    v[3][4] = f32::NAN;
    v
}

fn write_csv<T: Debug>(path: &Path, pairs: &[[T; 12]], header: bool) {
    let mut text = String::new();
    if header {
        text.push_str("ax0,ay0,az0,ax1,ay1,az1,bx0,by0,bz0,bx1,by1,bz1\n");
    }
    for p in pairs {
        let row: Vec<String> = p.iter().map(|x| format!("{x:?}")).collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// Raw numbers in the machine's order: little-endian, as the formats are, on the machines
/// these tests run on (x86_64, aarch64).
fn write_raw<T: bytemuck::Pod>(path: &Path, pairs: &[[T; 12]]) {
    std::fs::write(path, bytemuck::cast_slice::<[T; 12], u8>(pairs)).unwrap();
}

/// A `.npy` file with the given header dict and data.
fn write_npy(path: &Path, dict: &str, data: &[u8]) {
    std::fs::write(path, npy_bytes(dict, data)).unwrap();
}

/// The bytes of a version 1 `.npy` file with the given header dict and data.
fn npy_bytes(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.to_owned();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    bytes
}

fn npy_pairs(path: &Path, pairs: &[[f32; 12]], shape3: bool) {
    let data: Vec<u8> = pairs
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let shape = if shape3 {
        format!("({}, 4, 3)", pairs.len())
    } else {
        format!("({}, 12)", pairs.len())
    };
    let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    write_npy(path, &dict, &data);
}

/// The library's results for `pairs`.
fn expected(pairs: &[[f32; 12]], options: &Options) -> ClosestBatch {
    let seg = |p: &[f32; 12], k: usize| {
        Segment::new([p[k], p[k + 1], p[k + 2]], [p[k + 3], p[k + 4], p[k + 5]])
    };
    let a: Segments = pairs.iter().map(|p| seg(p, 0)).collect();
    let b: Segments = pairs.iter().map(|p| seg(p, 6)).collect();
    let mut out = ClosestBatch::new();
    closest_points_into(&a, &b, options, Outputs::ALL, &mut out).expect("same lengths");
    out
}

/// Parsed output records: index (if any), then the f32 (or f64) values, then flags.
#[derive(Debug)]
struct Record<T = f32> {
    index: Option<u64>,
    values: Vec<T>,
    flags: Option<u8>,
}

fn parse_csv_output<T: FromStr<Err: Debug>>(path: &Path) -> (Vec<String>, Vec<Record<T>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_owned)
        .collect();
    let has_index = header[0] == "index";
    let has_flags = header.last().unwrap() == "flags";
    let records = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let lo = usize::from(has_index);
            let hi = f.len() - usize::from(has_flags);
            Record {
                index: has_index.then(|| f[0].parse().unwrap()),
                values: f[lo..hi].iter().map(|x| x.parse().unwrap()).collect(),
                flags: has_flags.then(|| f[f.len() - 1].parse().unwrap()),
            }
        })
        .collect();
    (header, records)
}

/// Packed records (numbers read in the machine's order, as [`write_raw`] writes them).
fn parse_binary<T: bytemuck::Pod>(
    bytes: &[u8],
    index: bool,
    nvalues: usize,
    flags: bool,
) -> Vec<Record<T>> {
    let w = size_of::<T>();
    let size = 8 * usize::from(index) + w * nvalues + usize::from(flags);
    assert_eq!(bytes.len() % size, 0, "whole records");
    bytes
        .chunks_exact(size)
        .map(|r| {
            let mut k = 0;
            let index = index.then(|| {
                k = 8;
                u64::from_le_bytes(r[..8].try_into().unwrap())
            });
            let values = (0..nvalues)
                .map(|j| bytemuck::pod_read_unaligned(&r[k + w * j..k + w * (j + 1)]))
                .collect();
            Record {
                index,
                values,
                flags: flags.then(|| r[size - 1]),
            }
        })
        .collect()
}

/// The `.npy` output's header dict and records.
fn parse_npy_output<T: bytemuck::Pod>(
    path: &Path,
    index: bool,
    nvalues: usize,
    flags: bool,
) -> (String, Vec<Record<T>>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let dict = String::from_utf8(bytes[10..10 + len].to_vec()).unwrap();
    (
        dict,
        parse_binary(&bytes[10 + len..], index, nvalues, flags),
    )
}

/// Equal values (bit for bit, but for the sign of zero, which CSV drops), or both NaN.
fn same<T: Copy + PartialEq + Into<f64>>(x: T, y: T) -> bool {
    x == y || (x.into().is_nan() && y.into().is_nan())
}

/// A pair's expected record: distance, s, t, point_a, point_b (x, y, z), and flags.
type Want<T> = ([T; 9], u8);

/// Checks records (all columns) against `want` (records `indices`, or all), bit for bit.
fn check_rows<T: Copy + PartialEq + Into<f64> + Debug>(
    records: &[Record<T>],
    want: &[Want<T>],
    indices: Option<&[usize]>,
) {
    let count = indices.map_or(want.len(), <[usize]>::len);
    assert_eq!(records.len(), count);
    for (k, r) in records.iter().enumerate() {
        let i = indices.map_or(k, |ix| ix[k]);
        if let Some(ix) = r.index {
            assert_eq!(ix as usize, i);
        }
        let (expect, flags) = want[i];
        assert_eq!(r.values.len(), 9);
        for (got, exp) in r.values.iter().zip(expect) {
            assert!(same(*got, exp), "pair {i}: {got:?} != {exp:?}");
        }
        assert_eq!(r.flags, Some(flags), "pair {i}");
    }
}

/// Checks records (all columns) against the library, bit for bit.
fn check_all_columns(records: &[Record], want: &ClosestBatch, indices: Option<&[usize]>) {
    let want: Vec<Want<f32>> = want
        .iter()
        .map(|c| {
            let [ax, ay, az] = c.point_a;
            let [bx, by, bz] = c.point_b;
            let values = [c.dist2.sqrt(), c.s, c.t, ax, ay, az, bx, by, bz];
            (values, c.flags.bits())
        })
        .collect();
    check_rows(records, &want, indices);
}

/// Files left in `dir` other than `keep`.
fn leftovers(dir: &Path, keep: &[&Path]) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !keep.iter().any(|k| k == p))
        .collect()
}

#[test]
fn csv_round_trip_matches_the_library() {
    let dir = temp_dir();
    let (input, output) = (dir.path().join("in.csv"), dir.path().join("out.csv"));
    let data = pairs(1000);
    write_csv(&input, &data, true);
    // Small chunks so several are streamed.
    let run = segbatch(&["run", s(&input), "-o", s(&output), "--chunk-pairs", "128"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("1000 pairs"), "{}", run.stderr);
    assert!(run.stderr.contains("1 pairs had a NaN"), "{}", run.stderr);
    let (header, records) = parse_csv_output(&output);
    assert_eq!(
        header.join(","),
        "distance,s,t,point_a.x,point_a.y,point_a.z,point_b.x,point_b.y,point_b.z,flags"
    );
    check_all_columns(&records, &expected(&data, &Options::SEGMENTS), None);
    assert_eq!(records[3].flags, Some(8));
    assert_eq!(
        leftovers(dir.path(), &[&input, &output]),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn raw_round_trip_with_extents_and_one_thread() {
    let dir = temp_dir();
    let (input, output) = (dir.path().join("in.f32"), dir.path().join("out.raw"));
    let data = pairs(777);
    write_raw(&input, &data);
    let run = segbatch(&[
        "run",
        s(&input),
        "-o",
        s(&output),
        "--a",
        "ray",
        "--b",
        "line",
        "--threads",
        "1",
        "--chunk-pairs",
        "100",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records = parse_binary(&std::fs::read(&output).unwrap(), false, 9, true);
    let options = Options::new(segbatch::Extent::Ray, segbatch::Extent::Line);
    check_all_columns(&records, &expected(&data, &options), None);
}

#[test]
fn npy_round_trip_both_shapes() {
    for shape3 in [false, true] {
        let dir = temp_dir();
        let (input, output) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
        let data = pairs(500);
        npy_pairs(&input, &data, shape3);
        let run = segbatch(&["run", s(&input), "-o", s(&output), "--chunk-pairs", "64"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let (dict, records) = parse_npy_output(&output, false, 9, true);
        assert!(dict.contains("'shape': (500, )"), "{dict}");
        assert!(dict.contains("('point_a', '<f4', (3,))"), "{dict}");
        check_all_columns(&records, &expected(&data, &Options::SEGMENTS), None);
    }
}

#[test]
fn csv_to_npy_distance_only_is_a_plain_vector() {
    let dir = temp_dir();
    let (input, output) = (dir.path().join("in.csv"), dir.path().join("out.npy"));
    let data = pairs(300);
    write_csv(&input, &data, false);
    let run = segbatch(&["run", s(&input), "-o", s(&output), "--outputs", "distance"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (dict, records) = parse_npy_output(&output, false, 1, false);
    assert!(dict.contains("'descr': '<f4'"), "{dict}");
    assert!(dict.contains("'shape': (300, )"), "{dict}");
    let want = expected(&data, &Options::SEGMENTS);
    for (i, r) in records.iter().enumerate() {
        assert!(same(r.values[0], want.dist2()[i].sqrt()));
    }
}

#[test]
fn radius_keeps_only_near_pairs_with_indices() {
    let dir = temp_dir();
    let input = dir.path().join("in.f32");
    let data = pairs(2000);
    write_raw(&input, &data);
    let want = expected(&data, &Options::SEGMENTS);
    let near: Vec<usize> = (0..data.len())
        .filter(|&i| want.dist2()[i].sqrt() <= 1.5)
        .collect();
    assert!(near.len() > 10 && near.len() < 2000);
    for (ext, fmt) in [("csv", "csv"), ("npy", "npy"), ("raw", "raw")] {
        let output = dir.path().join(format!("near.{ext}"));
        let run = segbatch(&[
            "run",
            s(&input),
            "-o",
            s(&output),
            "--radius",
            "1.5",
            "--chunk-pairs",
            "300",
        ]);
        assert_eq!(run.code, 0, "{fmt}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("{} within radius", near.len())),
            "{}",
            run.stderr
        );
        let records = match fmt {
            "csv" => parse_csv_output(&output).1,
            "npy" => {
                let (dict, r) = parse_npy_output(&output, true, 9, true);
                assert!(
                    dict.contains(&format!("'shape': ({}, )", near.len())),
                    "{dict}"
                );
                assert!(dict.contains("('index', '<u8')"), "{dict}");
                r
            }
            _ => parse_binary(&std::fs::read(&output).unwrap(), true, 9, true),
        };
        check_all_columns(&records, &want, Some(&near));
    }
}

/// Runs `segbatch run ARGS` expecting exit code 2 and a message containing each of `needles`;
/// checks that only `keep` remains in the directory.
#[track_caller]
fn expect_input_error(dir: &Path, args: &[&str], needles: &[&str], keep: &[&Path]) {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    let run = segbatch(&all);
    assert_eq!(run.code, 2, "segbatch {all:?}: stderr {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", run.stderr);
    for n in needles {
        assert!(run.stderr.contains(n), "{n:?} not in {}", run.stderr);
    }
    assert!(run.stdout.is_empty());
    assert_eq!(
        leftovers(dir, keep),
        Vec::<PathBuf>::new(),
        "files left behind"
    );
}

#[test]
fn bad_inputs_give_one_line_exit_2_and_no_output() {
    let dir = temp_dir();
    let d = dir.path();
    let out = d.join("out.csv");
    let o = s(&out);

    // 1. Missing file.
    let missing = d.join("missing.csv");
    expect_input_error(
        d,
        &[s(&missing), "-o", o],
        &["missing.csv", "no such file"],
        &[],
    );

    // 2. Empty file.
    let empty = d.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    expect_input_error(d, &[s(&empty), "-o", o], &["empty.csv", "empty"], &[&empty]);

    // 3. Header only.
    let header = d.join("header.csv");
    write_csv::<f32>(&header, &[], true);
    expect_input_error(
        d,
        &[s(&header), "-o", o],
        &["header.csv", "no pairs"],
        &[&empty, &header],
    );
    let mut keep: Vec<PathBuf> = vec![empty.clone(), header.clone()];

    let mut case = |name: &str, contents: &[u8], args: &[&str], needles: &[&str]| {
        let path = d.join(name);
        std::fs::write(&path, contents).unwrap();
        keep.push(path.clone());
        let mut all = vec![s(&path).to_owned()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let keep_refs: Vec<&Path> = keep.iter().map(PathBuf::as_path).collect();
        let mut needles = needles.to_vec();
        // Input errors name the input; output errors name the output (checked by the caller).
        let about_output = needles
            .iter()
            .any(|n| n.contains("output") || n.contains("directory"));
        if !about_output {
            needles.push(name);
        }
        expect_input_error(d, &all, &needles, &keep_refs);
    };

    // 4. Wrong column count (on the third data line).
    let good = "0,0,0,1,0,0,0,1,0,1,1,0\n";
    case(
        "columns.csv",
        format!("{good}{good}0,0,0,1,0,0,0,1,0,1,1\n").as_bytes(),
        &["-o", o],
        &["line 3 (pair 2)", "11 columns, expected 12"],
    );
    // 5. Text that is not a number, named by line, column and field.
    case(
        "text.csv",
        format!("{good}0,0,0,1,abc,0,0,1,0,1,1,0\n").as_bytes(),
        &["-o", o],
        &[
            "line 2 (pair 1)",
            "column 5 (a.p1.y)",
            "'abc' is not a number",
        ],
    );
    // 6. An error deep in the file, after chunks were already written: still no output.
    let mut long = good.repeat(1000);
    long.push_str("1,2,3\n");
    case(
        "late.csv",
        long.as_bytes(),
        &["-o", o, "--chunk-pairs", "100"],
        &["line 1001 (pair 1000)", "3 columns"],
    );
    // 7. Raw size not a multiple of 48.
    case(
        "short.f32",
        &[0u8; 100],
        &["-o", o],
        &["100 bytes", "not a multiple of 48", "pair 2 is incomplete"],
    );
    let f4 = |dict: &str, n: usize| npy_bytes(dict, &vec![0; n]);
    // 8. .npy of another dtype; float64 names --precision f64 (never narrowed).
    case(
        "f8.npy",
        &f4(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 12), }",
            192,
        ),
        &["-o", o],
        &["float64 '<f8'", "this run is f32", "pass --precision f64"],
    );
    case(
        "i8.npy",
        &f4(
            "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 12), }",
            192,
        ),
        &["-o", o],
        &["dtype is '<i8'", "expected float32 '<f4'"],
    );
    // 9. .npy of the wrong shape.
    case(
        "shape.npy",
        &f4(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 6), }",
            96,
        ),
        &["-o", o],
        &["shape is (4, 6)", "expected (N, 12) or (N, 4, 3)"],
    );
    // 10. .npy big-endian.
    case(
        "big.npy",
        &f4(
            "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 12), }",
            96,
        ),
        &["-o", o],
        &["big-endian", "'<f4'"],
    );
    // 11. .npy truncated data.
    case(
        "trunc.npy",
        &f4(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 12), }",
            100,
        ),
        &["-o", o],
        &["truncated", "pair 2 is incomplete"],
    );
    // 12. Not a .npy file at all.
    case(
        "fake.npy",
        b"hello world",
        &["-o", o],
        &["not a valid .npy file"],
    );
    // 13. .npy in Fortran order.
    case(
        "fortran.npy",
        &f4(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 12), }",
            96,
        ),
        &["-o", o],
        &["Fortran order"],
    );
    // 14. Unknown input extension.
    case(
        "pairs.dat",
        good.as_bytes(),
        &["-o", o],
        &["cannot tell the input format"],
    );
    // 15. Output equal to input.
    let same_path = d.join("same.csv");
    case(
        "same.csv",
        good.as_bytes(),
        &["-o", s(&same_path)],
        &["output is the input"],
    );
    // 16. Unwritable output: a directory that does not exist.
    let nowhere = d.join("no/such/dir/out.csv");
    case(
        "ok1.csv",
        good.as_bytes(),
        &["-o", s(&nowhere)],
        &[
            "cannot write the output",
            "does not exist",
            "no/such/dir/out.csv",
        ],
    );
    // 17. Output path that is a directory.
    case(
        "ok2.csv",
        good.as_bytes(),
        &["-o", s(d)],
        &["is a directory"],
    );
    // 18. Output equal to input through another spelling of the path.
    let dotted = d.join(".").join("ok3.csv");
    case(
        "ok3.csv",
        good.as_bytes(),
        &["-o", s(&dotted)],
        &["output is the input"],
    );
}

#[test]
fn unwritable_directory_is_reported() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir();
        let input = dir.path().join("in.csv");
        write_csv(&input, &pairs(4), false);
        let locked = dir.path().join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
        // Permission bits do not stop root (CI runs as root): there, use a directory whose
        // place is taken by a regular file, which nobody can write into.
        let parent = if std::fs::write(locked.join("probe"), b"").is_ok() {
            let file = dir.path().join("a-file");
            std::fs::write(&file, b"").unwrap();
            file
        } else {
            locked
        };
        let out = parent.join("out.csv");
        let run = segbatch(&["run", s(&input), "-o", s(&out)]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("cannot write the output"),
            "{}",
            run.stderr
        );
        assert!(!out.exists());
    }
}

#[test]
fn an_existing_output_survives_a_failed_run() {
    let dir = temp_dir();
    let input = dir.path().join("bad.csv");
    std::fs::write(&input, "0,0,0,1,0,0,0,1,0,1,1,0\n1,2\n").unwrap();
    let output = dir.path().join("out.csv");
    std::fs::write(&output, "precious").unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&output)]);
    assert_eq!(run.code, 2);
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "precious");
    assert_eq!(
        leftovers(dir.path(), &[&input, &output]),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn bad_run_options_are_usage_errors() {
    for args in [
        vec!["run", "x.csv", "-o", "y.csv", "--radius", "-1"],
        vec!["run", "x.csv", "-o", "y.csv", "--radius", "nan"],
        vec!["run", "x.csv", "-o", "y.csv", "--outputs", "colour"],
        vec!["run", "x.csv", "-o", "y.csv", "--threads", "0"],
        vec!["run", "x.csv", "-o", "y.csv", "--format", "xml"],
        vec!["run", "x.csv"],
    ] {
        let run = segbatch(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error:"), "{}", run.stderr);
    }
}

#[test]
fn verify_passes_on_this_build() {
    let run = segbatch(&["verify", "--cases", "2000"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("near-parallel"), "{}", run.stdout);
    assert!(
        run.stdout.contains("all 78000 cases agree"),
        "{}",
        run.stdout
    );
}

#[test]
fn bench_quick_prints_tables_json_and_plot() {
    let dir = temp_dir();
    let (json, svg) = (dir.path().join("b.json"), dir.path().join("b.svg"));
    let run = segbatch(&[
        "bench",
        "--sizes",
        "1K,40K",
        "--workloads",
        "uniform,navigation",
        "--budget",
        "0.01",
        "--json",
        s(&json),
        "--plot",
        s(&svg),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for needle in [
        "SIMD build",
        "streaming bound",
        "uniform:",
        "navigation:",
        "reference (scalar)",
        "kernel, 1 thread",
        "vs reference",
    ] {
        assert!(
            run.stdout.contains(needle),
            "{needle:?} not in\n{}",
            run.stdout
        );
    }
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(text.starts_with('{') && text.trim_end().ends_with('}'));
    assert!(text.contains("\"implementation\":\"parallel\""));
    assert!(text.contains("\"streaming_bound\""));
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.contains("<svg") && plot.contains("navigation"));
}

#[test]
fn help_texts_describe_each_subcommand() {
    for (cmd, needle) in [
        ("bench", "streaming bound"),
        ("run", "temporary file"),
        ("verify", "f64"),
    ] {
        let run = segbatch(&[cmd, "--help"]);
        assert_eq!(run.code, 0);
        assert!(run.stdout.contains(needle), "{cmd}: {}", run.stdout);
        assert!(run.stdout.contains("Examples:"), "{cmd}");
    }
    let run = segbatch(&["run", "--help"]);
    for needle in [
        "--precision <PRECISION>",
        "- f64: 64-bit floats",
        "in an f32 run is an error that names --precision",
        ".f32 holds f32",
        "96 bytes per pair",
    ] {
        assert!(
            run.stdout.contains(needle),
            "{needle:?} not in {}",
            run.stdout
        );
    }
}

// ---------------------------------------------------------------------------------------
// --precision f64
// ---------------------------------------------------------------------------------------

/// f64 test pairs at Earth-centred (ECEF) magnitudes, where f32 keeps only about a metre:
/// general ones, a pair 1 mm apart, a parallel pair, a zero-length side and a NaN.
fn pairs64(n: usize) -> Vec<[f64; 12]> {
    let mut rng = segbatch_testkit::Rng::new(64);
    let o = 6_378_137.0;
    let mut v: Vec<[f64; 12]> = (0..n)
        .map(|_| {
            core::array::from_fn(|k| o * f64::from(u8::from(k % 3 == 0)) + rng.range(-10.0, 10.0))
        })
        .collect();
    v[1] = [
        o,
        0.,
        0.,
        o + 2.,
        0.,
        0.,
        o + 1.,
        -1.,
        1e-3,
        o + 1.,
        1.,
        1e-3,
    ];
    v[2] = [o, 0., 0., o + 1., 0., 0., o, 1e-3, 0., o + 1., 1e-3, 0.];
    v[3] = [o, 2., 3., o, 2., 3., o, 0., 0., o, 5., 0.];
    v[4][4] = f64::NAN;
    v
}

/// The f64 reference's record for every pair.
fn expected64(pairs: &[[f64; 12]], options: &Options) -> Vec<Want<f64>> {
    let seg = |p: &[f64; 12], k: usize| {
        Segment64::new([p[k], p[k + 1], p[k + 2]], [p[k + 3], p[k + 4], p[k + 5]])
    };
    pairs
        .iter()
        .map(|p| {
            let c = reference::closest_points_with(&seg(p, 0), &seg(p, 6), options);
            let [ax, ay, az] = c.point_a;
            let [bx, by, bz] = c.point_b;
            let values = [c.dist2.sqrt(), c.s, c.t, ax, ay, az, bx, by, bz];
            (values, c.flags.bits())
        })
        .collect()
}

/// A `.npy` of `pairs` written by npyz (dtype `<f4` or `<f8` from `T`), shape `(N, 12)` or
/// `(N, 4, 3)`.
fn npyz_pairs<T: npyz::AutoSerialize + Copy>(path: &Path, pairs: &[[T; 12]], shape3: bool) {
    use npyz::WriterBuilder;
    let n = pairs.len() as u64;
    let shape: &[u64] = if shape3 { &[n, 4, 3] } else { &[n, 12] };
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(file)
        .begin_nd()
        .unwrap();
    writer.extend(pairs.iter().flatten().copied()).unwrap();
    writer.finish().unwrap();
}

/// Reads every record of an all-columns f64 output in `format` (`index` with `--radius`).
fn read_output64(path: &Path, format: &str, index: bool) -> Vec<Record<f64>> {
    match format {
        "csv" => {
            let (header, records) = parse_csv_output::<f64>(path);
            assert_eq!(header.len(), 10 + usize::from(index), "{header:?}");
            records
        }
        "npy" => {
            let (dict, records) = parse_npy_output::<f64>(path, index, 9, true);
            assert!(dict.contains("('distance', '<f8')"), "{dict}");
            assert!(dict.contains("('point_a', '<f8', (3,))"), "{dict}");
            records
        }
        _ => parse_binary::<f64>(&std::fs::read(path).unwrap(), index, 9, true),
    }
}

#[test]
fn f64_runs_equal_the_f64_reference_in_every_format() {
    let dir = temp_dir();
    let d = dir.path();
    let data = pairs64(1500);
    let (csv, raw, npy, npy3) = (
        d.join("in.csv"),
        d.join("in.bin"),
        d.join("in.npy"),
        d.join("in3.npy"),
    );
    write_csv(&csv, &data, true);
    write_raw(&raw, &data);
    npyz_pairs(&npy, &data, false);
    npyz_pairs(&npy3, &data, true);
    let extents = [
        (Extent::Segment, "segment", Extent::Segment, "segment"),
        (Extent::Ray, "ray", Extent::Line, "line"),
    ];
    for (input, threads) in [(&csv, "2"), (&raw, "1"), (&npy, "2"), (&npy3, "1")] {
        for &(ea, a, eb, b) in &extents {
            let want = expected64(&data, &Options::new(ea, eb));
            for ext in ["csv", "npy", "raw"] {
                let output = d.join(format!("out.{ext}"));
                let run = segbatch(&[
                    "run",
                    s(input),
                    "-o",
                    s(&output),
                    "--precision",
                    "f64",
                    "--a",
                    a,
                    "--b",
                    b,
                    "--threads",
                    threads,
                    "--chunk-pairs",
                    "256",
                ]);
                assert_eq!(run.code, 0, "{input:?} -> {ext}: {}", run.stderr);
                assert!(run.stderr.contains("1500 pairs"), "{}", run.stderr);
                assert!(run.stderr.contains(", f64, in "), "{}", run.stderr);
                assert!(run.stderr.contains("1 pairs had a NaN"), "{}", run.stderr);
                check_rows(&read_output64(&output, ext, false), &want, None);
            }
        }
    }
    // The 1 mm pair is 1 mm apart in f64 (f32 rounds its coordinates to half metres).
    let (_, records) = parse_csv_output::<f64>(&d.join("out.csv"));
    assert!((records[1].values[0] - 1e-3).abs() < 1e-9, "{records:?}");
    assert_eq!(
        leftovers(
            d,
            &[
                &csv,
                &raw,
                &npy,
                &npy3,
                &d.join("out.csv"),
                &d.join("out.npy"),
                &d.join("out.raw")
            ]
        ),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn f64_column_selections_and_radius() {
    let dir = temp_dir();
    let d = dir.path();
    let data = pairs64(700);
    let input = d.join("in.npy");
    npyz_pairs(&input, &data, false);
    let want = expected64(&data, &Options::SEGMENTS);

    // Distances alone: a plain '<f8' vector, a CSV of one column.
    let vec = d.join("dist.npy");
    let run = segbatch(&[
        "run",
        s(&input),
        "-o",
        s(&vec),
        "--precision",
        "f64",
        "--outputs",
        "distance",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (dict, records) = parse_npy_output::<f64>(&vec, false, 1, false);
    assert!(
        dict.contains("'descr': '<f8'") && dict.contains("'shape': (700, )"),
        "{dict}"
    );
    for (r, (w, _)) in records.iter().zip(&want) {
        assert!(same(r.values[0], w[0]), "{r:?} {w:?}");
    }
    let text = d.join("params.csv");
    let run = segbatch(&[
        "run",
        s(&input),
        "-o",
        s(&text),
        "--precision",
        "f64",
        "--outputs",
        "params,flags",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (header, records) = parse_csv_output::<f64>(&text);
    assert_eq!(header.join(","), "s,t,flags");
    for (i, (r, (w, flags))) in records.iter().zip(&want).enumerate() {
        assert!(
            same(r.values[0], w[1]) && same(r.values[1], w[2]),
            "pair {i}: {r:?}"
        );
        assert_eq!(r.flags, Some(*flags));
    }

    // --radius is read as f64: pairs within it, with their index, in each format.
    let radius = "1.5";
    let near: Vec<usize> = (0..data.len())
        .filter(|&i| want[i].0[0] <= 1.5f64)
        .collect();
    assert!(near.len() > 5 && near.len() < data.len(), "{}", near.len());
    assert!(near.contains(&1), "the 1 mm pair");
    for ext in ["csv", "npy", "raw"] {
        let output = d.join(format!("near.{ext}"));
        let run = segbatch(&[
            "run",
            s(&input),
            "-o",
            s(&output),
            "--precision",
            "f64",
            "--radius",
            radius,
            "--chunk-pairs",
            "128",
        ]);
        assert_eq!(run.code, 0, "{ext}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("{} within radius 1.5", near.len())),
            "{}",
            run.stderr
        );
        check_rows(&read_output64(&output, ext, true), &want, Some(&near));
    }
}

#[test]
fn f64_csv_text_reads_back_to_the_same_f64() {
    let dir = temp_dir();
    let d = dir.path();
    // Numbers an f32 cannot hold, with 17 significant digits.
    let data: Vec<[f64; 12]> = (0..50)
        .map(|i| {
            let x = 0.1 + f64::from(i) * 1e-13;
            [
                x,
                0.2,
                1.0 / 3.0,
                x + 1.0,
                0.2,
                1.0 / 3.0,
                x + 0.5,
                -1.0,
                1e-3,
                x + 0.5,
                1.0,
                1e-3,
            ]
        })
        .collect();
    let (input, output) = (d.join("in.csv"), d.join("out.csv"));
    write_csv(&input, &data, false);
    let run = segbatch(&["run", s(&input), "-o", s(&output), "--precision", "f64"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.contains("0.3333333333333333"), "{text}");
    check_rows(
        &parse_csv_output::<f64>(&output).1,
        &expected64(&data, &Options::SEGMENTS),
        None,
    );
}

#[test]
fn float32_npy_is_widened_exactly_in_f64() {
    let dir = temp_dir();
    let d = dir.path();
    let data = pairs(400);
    let wide: Vec<[f64; 12]> = data.iter().map(|p| p.map(f64::from)).collect();
    let (input, output) = (d.join("in.npy"), d.join("out.raw"));
    npyz_pairs(&input, &data, true);
    let run = segbatch(&[
        "run",
        s(&input),
        "-o",
        s(&output),
        "--precision",
        "f64",
        "--chunk-pairs",
        "64",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    check_rows(
        &read_output64(&output, "raw", false),
        &expected64(&wide, &Options::SEGMENTS),
        None,
    );
}

#[test]
fn f64_bad_inputs_give_one_line_exit_2_and_no_output() {
    let dir = temp_dir();
    let d = dir.path();
    let out = d.join("out.csv");
    let o = s(&out);
    let mut keep: Vec<PathBuf> = Vec::new();
    let mut case = |name: &str, contents: &[u8], precision: &str, needles: &[&str]| {
        let path = d.join(name);
        std::fs::write(&path, contents).unwrap();
        keep.push(path.clone());
        let keep: Vec<&Path> = keep.iter().map(PathBuf::as_path).collect();
        let mut needles = needles.to_vec();
        needles.push(name);
        expect_input_error(
            d,
            &[
                s(&path),
                "-o",
                o,
                "--precision",
                precision,
                "--chunk-pairs",
                "64",
            ],
            &needles,
            &keep,
        );
    };
    let npy = |descr: &str, shape: &str, data: &[u8]| {
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        npy_bytes(&dict, data)
    };

    // A float64 .npy without --precision f64: named, with the way out; not narrowed.
    let mut f8 = Vec::new();
    for p in &pairs64(8)[..3] {
        f8.extend(p.iter().flat_map(|x| x.to_le_bytes()));
    }
    case(
        "wide.npy",
        &npy("<f8", "(3, 12)", &f8),
        "f32",
        &["float64 '<f8'", "this run is f32", "pass --precision f64"],
    );
    // Other dtypes in f64.
    case(
        "ints.npy",
        &npy("<i8", "(2, 12)", &[0; 192]),
        "f64",
        &[
            "dtype is '<i8'",
            "expected float64 '<f8' or float32 '<f4'",
            "astype('<f8')",
        ],
    );
    case(
        "big.npy",
        &npy(">f8", "(2, 12)", &[0; 192]),
        "f64",
        &["big-endian ('>f8')", "little-endian float64 '<f8'"],
    );
    // Truncated f64 data: the .npy and a raw file whose size is not whole pairs of 96.
    case(
        "short.npy",
        &npy("<f8", "(3, 12)", &f8[..250]),
        "f64",
        &[
            "truncated",
            "needs 288 bytes",
            "holds 250",
            "pair 2 is incomplete",
        ],
    );
    case(
        "short.bin",
        &f8[..200],
        "f64",
        &[
            "raw f64 input of 200 bytes",
            "not a multiple of 96",
            "pair 2 is incomplete (8 of 96 bytes)",
        ],
    );
    // A CSV field that is not a number, named by line, pair, column and field.
    let good = "6378137.25,0,0,6378138,0,0,6378137,1,0,6378137,2,0.001\n";
    case(
        "text.csv",
        format!("{good}{good}6378137,0,0,1,0,0,0,1,0,1,1,1e-400x\n").as_bytes(),
        "f64",
        &[
            "line 3 (pair 2)",
            "column 12 (b.p1.z)",
            "'1e-400x' is not a number",
        ],
    );
    // The same late in the file, after chunks were written: no partial output.
    let mut late = good.repeat(500);
    late.push_str("6378137,0,0,1,0,0,0,1,0,1,1\n");
    case(
        "late.csv",
        late.as_bytes(),
        "f64",
        &["line 501 (pair 500)", "11 columns"],
    );

    // A raw f64 stream that ends inside a pair.
    let mut child = Command::new(env!("CARGO_BIN_EXE_segbatch"))
        .args(["run", "-", "--format", "raw", "-o", o, "--precision", "f64"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&f8[..100]).unwrap();
    let done = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("standard input: raw f64 input ended inside pair 1 (4 of 96 bytes)"),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn f64_failed_run_keeps_an_existing_output() {
    let dir = temp_dir();
    let input = dir.path().join("bad.csv");
    std::fs::write(
        &input,
        "0,0,0,1,0,0,0,1,0,1,1,0\n0.1,0.2,nope,1,0,0,0,1,0,1,1,0\n",
    )
    .unwrap();
    let output = dir.path().join("out.npy");
    std::fs::write(&output, "precious").unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&output), "--precision", "f64"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("column 3 (a.p0.z): 'nope' is not a number"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "precious");
    assert_eq!(
        leftovers(dir.path(), &[&input, &output]),
        Vec::<PathBuf>::new()
    );
}
