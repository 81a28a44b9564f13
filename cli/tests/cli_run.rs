//! End-to-end tests of `segbatch run`, `bench` and `verify`: round trips through every
//! format compared with the library, `--radius`, and every bad-input case (message, exit
//! code 2, no output file left behind).

use std::path::{Path, PathBuf};
use std::process::Command;

use segbatch::{ClosestBatch, Options, Outputs, Segment, Segments, closest_points_into};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn segbatch(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_segbatch"))
        .args(args)
        .output()
        .expect("the segbatch binary runs");
    Run {
        code: out.status.code().expect("exited normally"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

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

fn write_csv(path: &Path, pairs: &[[f32; 12]], header: bool) {
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

fn write_raw(path: &Path, pairs: &[[f32; 12]]) {
    let bytes: Vec<u8> = pairs
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    std::fs::write(path, bytes).unwrap();
}

/// A `.npy` file with the given header dict and data.
fn write_npy(path: &Path, dict: &str, data: &[u8]) {
    let mut header = dict.to_owned();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    std::fs::write(path, bytes).unwrap();
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

/// Parsed output records: index (if any), then the f32 values, then flags.
#[derive(Debug)]
struct Record {
    index: Option<u64>,
    values: Vec<f32>,
    flags: Option<u8>,
}

fn parse_csv_output(path: &Path) -> (Vec<String>, Vec<Record>) {
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

fn parse_binary(bytes: &[u8], index: bool, nvalues: usize, flags: bool) -> Vec<Record> {
    let size = 8 * usize::from(index) + 4 * nvalues + usize::from(flags);
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
                .map(|j| f32::from_le_bytes(r[k + 4 * j..k + 4 * j + 4].try_into().unwrap()))
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
fn parse_npy_output(
    path: &Path,
    index: bool,
    nvalues: usize,
    flags: bool,
) -> (String, Vec<Record>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let dict = String::from_utf8(bytes[10..10 + len].to_vec()).unwrap();
    (
        dict,
        parse_binary(&bytes[10 + len..], index, nvalues, flags),
    )
}

fn same(x: f32, y: f32) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) || (x == y)
}

/// Checks records (all columns) against the library, bit for bit.
fn check_all_columns(records: &[Record], want: &ClosestBatch, indices: Option<&[usize]>) {
    let count = indices.map_or(want.len(), <[usize]>::len);
    assert_eq!(records.len(), count);
    for (k, r) in records.iter().enumerate() {
        let i = indices.map_or(k, |ix| ix[k]);
        if let Some(ix) = r.index {
            assert_eq!(ix as usize, i);
        }
        let c = want.get(i).expect("an index of the batch");
        let expect = [
            c.dist2.sqrt(),
            c.s,
            c.t,
            c.point_a[0],
            c.point_a[1],
            c.point_a[2],
            c.point_b[0],
            c.point_b[1],
            c.point_b[2],
        ];
        assert_eq!(r.values.len(), 9);
        for (got, exp) in r.values.iter().zip(expect) {
            assert!(same(*got, exp), "pair {i}: {got} != {exp}");
        }
        assert_eq!(r.flags, Some(c.flags.bits()), "pair {i}");
    }
}

/// A fresh temporary directory for one test.
fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary directory")
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
    write_csv(&header, &[], true);
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
    let f4 = |dict: &str, n: usize| {
        let mut v = Vec::new();
        let mut header = dict.to_owned();
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        v.extend_from_slice(b"\x93NUMPY\x01\x00");
        v.extend_from_slice(&(header.len() as u16).to_le_bytes());
        v.extend_from_slice(header.as_bytes());
        v.extend(std::iter::repeat_n(0u8, n));
        v
    };
    // 8. .npy of the wrong dtype.
    case(
        "f8.npy",
        &f4(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 12), }",
            192,
        ),
        &["-o", o],
        &["dtype is '<f8'", "expected float32 '<f4'"],
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
}
