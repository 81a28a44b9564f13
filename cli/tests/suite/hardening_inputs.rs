//! Hardening of what an input holds and how much of it there is: a file's stored number
//! type against the run's `--precision` (`run`, `pairs`, `cross`, `raycast`), endless and
//! oversized inputs under a memory limit, and the names of outputs (an output without an
//! extension, `bench --plot` with another extension than `.svg`, `bench --sets` ratios).
//!
//! Every file, FIFO and limit is made inside the test's own temporary directory or its own
//! child process; the endless inputs are written by the test itself into a pipe, never read
//! from a device.

#![cfg(unix)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// `n` records of `C` small pseudo-random `f32` numbers in [-4, 4), on a grid of 1/64 so
/// that many records are near each other.
fn records<const C: usize>(n: usize, seed: u64) -> Vec<[f32; C]> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            core::array::from_fn(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 40) % 512) as f32 / 64.0 - 4.0 + 1.0 / 3.0
            })
        })
        .collect()
}

/// The records as raw little-endian `f32` bytes.
fn raw32<const C: usize>(rows: &[[f32; C]]) -> Vec<u8> {
    rows.iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

/// The records widened to `f64`, as raw little-endian `f64` bytes.
fn raw64<const C: usize>(rows: &[[f32; C]]) -> Vec<u8> {
    rows.iter()
        .flatten()
        .flat_map(|&x| f64::from(x).to_le_bytes())
        .collect()
}

/// A `.npy` file of the records, shape `(N, C)`, in `descr` (`<f4`, or `<f8` widened).
fn npy<const C: usize>(rows: &[[f32; C]], descr: &str) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': ({}, {C}), }}",
        rows.len()
    );
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(header.len() as u16).to_le_bytes());
    v.extend_from_slice(header.as_bytes());
    v.extend(if descr == "<f8" {
        raw64(rows)
    } else {
        raw32(rows)
    });
    v
}

/// Runs `segbatch ARGS -o OUT --quiet` and returns its output file's bytes.
#[track_caller]
fn output_of(args: &[&str], out: &Path) -> Vec<u8> {
    let mut all = args.to_vec();
    all.extend(["-o", s(out), "--quiet"]);
    let run = segbatch(&all);
    assert_eq!(run.code, 0, "{all:?}: {}", run.stderr);
    std::fs::read(out).unwrap()
}

/// The files of one set of records in every stored form: `.f32`, `.f64`, `.raw` (f32
/// bytes), float32 and float64 `.npy`.
struct Forms {
    f32: PathBuf,
    f64: PathBuf,
    raw: PathBuf,
    npy32: PathBuf,
    npy64: PathBuf,
}

fn forms<const C: usize>(d: &Path, stem: &str, rows: &[[f32; C]]) -> Forms {
    let path = |ext: &str| d.join(format!("{stem}.{ext}"));
    let f = Forms {
        f32: path("f32"),
        f64: path("f64"),
        raw: path("raw"),
        npy32: d.join(format!("{stem}32.npy")),
        npy64: d.join(format!("{stem}64.npy")),
    };
    std::fs::write(&f.f32, raw32(rows)).unwrap();
    std::fs::write(&f.f64, raw64(rows)).unwrap();
    std::fs::write(&f.raw, raw32(rows)).unwrap();
    std::fs::write(&f.npy32, npy(rows, "<f4")).unwrap();
    std::fs::write(&f.npy64, npy(rows, "<f8")).unwrap();
    f
}

/// Nothing in `d` but the `keep` files: no output, no temporary file.
#[track_caller]
fn only(d: &Path, keep: usize) {
    let names: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(names.len(), keep, "files left: {names:?}");
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());
}

// ---------------------------------------------------------------------------------------
// A file's stored type, whatever the run's precision
// ---------------------------------------------------------------------------------------

/// In an f64 run an `.f32` file (or `--format f32`, or `--format raw` on a `.f32` name)
/// is read as f32 and widened, exactly as a float32 `.npy` is, and a `.f64` file as f64:
/// each gives the output of the float32 `.npy` of the same numbers, byte for byte.
#[test]
fn f32_data_in_an_f64_run_is_widened_like_a_float32_npy() {
    let dir = temp_dir();
    let d = dir.path();
    let out = d.join("out.csv");
    let pairs = forms(d, "pairs", &records::<12>(300, 7));
    let segs = forms(d, "segs", &records::<6>(400, 11));
    let flat = forms(d, "flat", &records::<4>(400, 13));
    let rays = forms(d, "rays", &records::<6>(50, 17));
    type Case<'a> = (&'a str, Vec<&'a str>, &'a Forms, Vec<&'a str>);
    let f64_run = ["--precision", "f64"];
    let cases: Vec<Case> = vec![
        ("run", vec![], &pairs, vec![]),
        ("pairs", vec![], &segs, vec!["--radius", "0.75"]),
        // The second input is a `.f32` file: `--format raw` and `--format f32` apply to
        // it too, and keep its type.
        (
            "pairs",
            vec!["--against", s(&rays.f32)],
            &segs,
            vec!["--radius", "0.5"],
        ),
        ("cross", vec![], &flat, vec![]),
        (
            "raycast",
            vec![],
            &segs,
            vec![s(&rays.f32), "--radius", "0.1", "--range", "2"],
        ),
    ];
    for (command, before, files, after) in &cases {
        let go = |input: &Path, extra: &[&str]| {
            let mut args = vec![*command, s(input)];
            args.extend(before);
            args.extend(after);
            args.extend(f64_run);
            args.extend(extra);
            output_of(&args, &out)
        };
        let want = go(&files.npy32, &[]);
        assert!(
            want.len() > 100,
            "{command}: a test that compares something"
        );
        assert_eq!(go(&files.npy64, &[]), want, "{command} float64 .npy");
        assert_eq!(go(&files.f32, &[]), want, "{command} .f32 in an f64 run");
        assert_eq!(go(&files.f64, &[]), want, "{command} .f64 in an f64 run");
        assert_eq!(
            go(&files.f32, &["--format", "raw"]),
            want,
            "{command} .f32 --format raw in an f64 run"
        );
        assert_eq!(
            go(&files.raw, &["--format", "f32"]),
            want,
            "{command} --format f32 in an f64 run"
        );
    }
}

/// A `.f64` file (or `--format f64`) in an f32 run is never narrowed: a usage error that
/// names `--precision f64`, before anything is written, for every command.
#[test]
fn f64_data_in_an_f32_run_is_refused_with_nothing_written() {
    let dir = temp_dir();
    let d = dir.path();
    let pairs = forms(d, "pairs", &records::<12>(10, 7));
    let segs = forms(d, "segs", &records::<6>(10, 11));
    let flat = forms(d, "flat", &records::<4>(10, 13));
    let files = std::fs::read_dir(d).unwrap().count();
    let out = d.join("out.csv");
    let o = s(&out);
    let runs: Vec<(Vec<&str>, &Path)> = vec![
        (vec!["run", s(&pairs.f64), "-o", o], &pairs.f64),
        (
            vec!["run", s(&pairs.raw), "--format", "f64", "-o", o],
            &pairs.raw,
        ),
        (
            vec!["pairs", s(&segs.f64), "--radius", "1", "-o", o],
            &segs.f64,
        ),
        (
            vec![
                "pairs",
                s(&segs.npy32),
                "--against",
                s(&segs.f64),
                "--radius",
                "1",
                "-o",
                o,
            ],
            &segs.f64,
        ),
        (vec!["cross", s(&flat.f64), "-o", o], &flat.f64),
        (
            vec![
                "raycast",
                s(&segs.npy32),
                s(&segs.f64),
                "--radius",
                "0",
                "--range",
                "1",
                "-o",
                o,
            ],
            &segs.f64,
        ),
    ];
    for (args, culprit) in runs {
        let run = segbatch(&args);
        expect_error(
            &run,
            2,
            &[
                s(culprit),
                "raw f64",
                "this run is f32",
                "--precision f64",
                "never narrowed",
            ],
        );
        only(d, files);
    }
    // The same file in an f64 run is read.
    let run = segbatch(&[
        "cross",
        s(&flat.f64),
        "--precision",
        "f64",
        "-o",
        o,
        "--quiet",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// An output whose name (or `--output-format`) says another number type than the run
/// writes is refused before any work: an f64 run never narrows its results into a `.f32`,
/// and an f32 run writes no `.f64`.
#[test]
fn an_output_named_for_another_type_is_refused() {
    let dir = temp_dir();
    let d = dir.path();
    let pairs = forms(d, "pairs", &records::<12>(10, 7));
    let segs = forms(d, "segs", &records::<6>(10, 11));
    let files = std::fs::read_dir(d).unwrap().count();
    let out32 = d.join("out.f32");
    let out64 = d.join("out.f64");
    let runs: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec![
                "run",
                s(&pairs.npy32),
                "--precision",
                "f64",
                "-o",
                s(&out32),
            ],
            "f32",
            "f64",
        ),
        (vec!["run", s(&pairs.npy32), "-o", s(&out64)], "f64", "f32"),
        (
            vec![
                "run",
                s(&pairs.f32),
                "--precision",
                "f64",
                "-o",
                "-",
                "--output-format",
                "f32",
            ],
            "f32",
            "f64",
        ),
        (
            vec![
                "pairs",
                s(&segs.f32),
                "--radius",
                "1",
                "--precision",
                "f64",
                "-o",
                s(&out32),
            ],
            "f32",
            "f64",
        ),
        (
            vec!["pairs", s(&segs.f32), "--radius", "1", "-o", s(&out64)],
            "f64",
            "f32",
        ),
        (
            vec![
                "raycast",
                s(&segs.f32),
                s(&segs.f32),
                "--radius",
                "0",
                "--range",
                "1",
                "-o",
                s(&out64),
            ],
            "f64",
            "f32",
        ),
    ];
    for (args, named, run_type) in runs {
        let run = segbatch(&args);
        expect_error(
            &run,
            2,
            &[
                &format!("the output is raw {named}"),
                &format!("this run writes {run_type}"),
            ],
        );
        assert!(run.stdout.is_empty(), "{args:?} wrote to stdout");
        only(d, files);
    }
    // A matching name is written, in the run's type: one f64 distance a pair.
    let run = segbatch(&[
        "run",
        s(&pairs.f32),
        "--precision",
        "f64",
        "-o",
        s(&out64),
        "--outputs",
        "distance",
        "--quiet",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read(&out64).unwrap().len(), 10 * 8);
}

/// An output whose name gives no format is written in the input's, and the summary says
/// which and why; a raw input's `.f32` type is not inherited by an f64 run's output.
#[test]
fn an_output_without_an_extension_is_named_in_the_summary() {
    let dir = temp_dir();
    let d = dir.path();
    let pairs = forms(d, "pairs", &records::<12>(10, 7));
    let segs = forms(d, "segs", &records::<6>(50, 11));
    let out = d.join("result");
    let run = segbatch(&["run", s(&pairs.f32), "-o", s(&out), "--outputs", "distance"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("written as raw f32 like the input, as it has no extension"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&out).unwrap().len(), 10 * 4);
    let run = segbatch(&[
        "run",
        s(&pairs.f32),
        "--precision",
        "f64",
        "-o",
        s(&out),
        "--outputs",
        "distance",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("written as raw f64 like the input"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&out).unwrap().len(), 10 * 8);
    let dat = d.join("result.dat");
    let run = segbatch(&["pairs", s(&segs.npy32), "--radius", "1", "-o", s(&dat)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("written as .npy like the input, as its extension names no format"),
        "{}",
        run.stderr
    );
    // A named format says nothing more.
    let run = segbatch(&[
        "pairs",
        s(&segs.f32),
        "--radius",
        "1",
        "-o",
        s(&d.join("r.csv")),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

// ---------------------------------------------------------------------------------------
// Endless and oversized inputs
// ---------------------------------------------------------------------------------------

/// The address-space limit of the endless-input runs, in KiB (`ulimit -v`): room for the
/// binary, its threads and a set of a quarter of it.
const MEMORY_KIB: u64 = 1 << 20;

/// `sh -c SCRIPT` with `$SEGBATCH` set, fed an endless stream of zero bytes on standard
/// input by this test until the child exits; its outcome, waited for at most 60 s.
fn with_endless_stdin(script: &str) -> Run {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("SEGBATCH", BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let block = vec![0u8; 1 << 20];
        let mut sent = 0u64;
        // Ends when the child closes the pipe (EPIPE), or after 64 GiB at the latest.
        while sent < 64 << 30 && pipe.write_all(&block).is_ok() {
            sent += block.len() as u64;
        }
        sent
    });
    let start = Instant::now();
    let out = loop {
        if child.try_wait().unwrap().is_some() {
            break child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{script}: still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    writer.join().unwrap();
    finish(out)
}

/// An endless raw stream into a set command, under a memory limit: one line naming the
/// input and what it holds (exit 1), never an allocator abort, nothing written.
#[test]
fn an_endless_input_to_a_set_command_is_one_line_not_an_abort() {
    let dir = temp_dir();
    let d = dir.path();
    let walls = d.join("walls.f32");
    std::fs::write(&walls, raw32(&records::<6>(10, 3))).unwrap();
    let out = d.join("out.csv");
    for args in [
        format!("pairs - --format raw --radius 1 -o '{}'", s(&out)),
        format!(
            "pairs - --format raw --precision f64 --radius 1 -o '{}'",
            s(&out)
        ),
        format!("cross - --format raw -o '{}'", s(&out)),
        format!(
            "raycast '{}' - --format raw --radius 0 --range 1 -o '{}'",
            s(&walls),
            s(&out)
        ),
    ] {
        let run = with_endless_stdin(&format!(
            "ulimit -v {MEMORY_KIB} && exec \"$SEGBATCH\" {args}"
        ));
        expect_error(
            &run,
            1,
            &[
                "standard input",
                "read and the input goes on",
                "an endless stream",
            ],
        );
        only(d, 1);
    }
}

/// `run` streams: an endless input keeps its memory bounded under the same limit, and its
/// output ends at a file-size limit with one line (exit 1) and nothing left behind.
#[test]
fn an_endless_input_to_run_keeps_memory_bounded() {
    let dir = temp_dir();
    let d = dir.path();
    let out = d.join("out.f32");
    let run = with_endless_stdin(&format!(
        "ulimit -v {MEMORY_KIB} && ulimit -f 20000 && exec \"$SEGBATCH\" run - --format raw \
         -o '{}' --outputs distance",
        s(&out)
    ));
    expect_error(&run, 1, &["out.f32"]);
    only(d, 0);
}

/// A regular file larger than the memory a set may take (sparse: it takes no disk) is
/// refused before its set is allocated, with one line (exit 1).
#[test]
fn a_set_file_larger_than_memory_is_refused_before_it_is_allocated() {
    let dir = temp_dir();
    let d = dir.path();
    let big = d.join("big.f32");
    let file = std::fs::File::create(&big).unwrap();
    // 2^36 segments of 24 bytes: 1.5 TiB, more than any test machine's memory.
    if let Err(e) = file.set_len(24 << 36) {
        eprintln!("notice: this file system refuses a sparse file of 1.5 TiB ({e}): test skipped");
        return;
    }
    drop(file);
    let out = d.join("out.csv");
    let start = Instant::now();
    let run = segbatch(&["pairs", s(&big), "--radius", "1", "-o", s(&out)]);
    expect_error(&run, 1, &["big.f32", "68719476736 segments need", "MiB"]);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "refused before reading"
    );
    only(d, 1);
}

// ---------------------------------------------------------------------------------------
// bench's outputs
// ---------------------------------------------------------------------------------------

/// `--plot` writes SVG: another extension is refused before the benchmark runs.
#[test]
fn bench_plot_refuses_a_name_that_is_not_svg() {
    let dir = temp_dir();
    let d = dir.path();
    for name in ["out.png", "out.PDF"] {
        let plot = d.join(name);
        let start = Instant::now();
        let run = segbatch(&[
            "bench",
            "--sizes",
            "1K",
            "--workloads",
            "uniform",
            "--budget",
            "0.01",
            "--plot",
            s(&plot),
        ]);
        expect_error(&run, 2, &[name, "--plot writes SVG", "name it .svg"]);
        assert!(start.elapsed() < Duration::from_secs(5));
        only(d, 0);
    }
    let plot = d.join("out.SVG");
    let run = segbatch(&[
        "bench",
        "--sizes",
        "1K",
        "--workloads",
        "uniform",
        "--budget",
        "0.01",
        "--plot",
        s(&plot),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
}

/// `bench --sets` on sets of one segment: the times are too short for the CPU clock (ticks
/// of 10 ms), and a ratio of two zero times is printed `-`, never `NaNx`. Only the pairs
/// table is read (it is flushed set by set, the last set `clustered`); the run is stopped
/// there, before the fixed index-pairs and first-hits workloads that take most of a minute.
#[test]
fn bench_sets_prints_no_nan_ratio_for_unmeasurable_times() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(BIN)
        .args(["bench", "--sets", "--sizes", "1", "--threads", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut table = String::new();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            table.push_str(&line);
            table.push('\n');
            // The last set's check line ends the table (flushed with it).
            if line.contains("check:") && table.contains("clustered") {
                return (table, true);
            }
        }
        (table, false)
    });
    let start = Instant::now();
    while !reader.is_finished() && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    child.wait().unwrap();
    let (table, complete) = reader.join().unwrap();
    assert!(complete, "the pairs table did not end: {table}");
    let rows: Vec<&str> = table.lines().filter(|l| l.contains("parry3d")).collect();
    assert!(rows.len() >= 2, "{table}");
    assert!(!table.contains("NaN"), "{table}");
    assert!(!table.contains("infx"), "{table}");
}
