//! Hardening of the set commands (`pairs`, `cross`, `raycast`) and of `bench`'s outputs:
//! the same I/O layer as `run` (inputs from `-`, `/dev/stdin` and FIFOs, line limits, the
//! output writer, signals, file-size limits, closed pipes, thread counts), memory bounded
//! by the input whatever the number of hits, and messages that name the real problem.
//!
//! The hostile sets are small files with a huge number of hits (20K identical segments
//! within radius 0: 2e8 pairs): each run is stopped (a signal, a closed pipe, a file-size
//! limit) long before it ends, so the tests stay quick. Every file, FIFO included, is made
//! inside the test's own temporary directory. Peak memory is read from
//! `/proc/<pid>/status` (VmHWM) while the child runs.

#![cfg(unix)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// The most resident memory a hostile run may reach (its input is under 1 MB).
const MAX_RSS_KB: u64 = 300 * 1024;

/// The peak resident memory of a running process, in KiB (VmHWM).
fn peak_rss_kb(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// `n` identical raw f32 records of `per` numbers (all pairs meet).
fn identical(path: &Path, n: usize, record: &[f32]) {
    let one: Vec<u8> = record.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, one.repeat(n)).unwrap();
}

/// 20K identical 3D segments: 2e8 pairs within radius 0.
fn hostile3(dir: &Path) -> PathBuf {
    let path = dir.join("ident.f32");
    identical(&path, 20_000, &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    path
}

/// 20K identical 2D segments: 2e8 overlapping pairs.
fn hostile2(dir: &Path) -> PathBuf {
    let path = dir.join("ident2.f32");
    identical(&path, 20_000, &[0.0, 0.0, 1.0, 1.0]);
    path
}

/// Waits until the first temporary file in `dir` holds more than `bytes`, the child still
/// running; returns the child's peak memory then.
#[track_caller]
fn wait_for_temp(child: &mut Child, dir: &Path, bytes: u64) -> u64 {
    let start = Instant::now();
    loop {
        let temps = temps_in(dir);
        if temps
            .first()
            .is_some_and(|t| std::fs::metadata(t).is_ok_and(|m| m.len() > bytes))
        {
            return peak_rss_kb(child);
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the temporary file grew"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

// ---------------------------------------------------------------------------------------
// Hostile sets: bounded memory, signals, file-size limits, closed pipes
// ---------------------------------------------------------------------------------------

#[test]
fn signals_during_a_huge_set_output_leave_nothing_and_memory_stays_bounded() {
    for (cmd, signal, code) in [
        ("pairs", "TERM", 143),
        ("cross", "INT", 130),
        ("pairs", "HUP", 129),
    ] {
        let dir = temp_dir();
        let d = dir.path();
        let input = if cmd == "pairs" {
            hostile3(d)
        } else {
            hostile2(d)
        };
        let out = d.join("out.raw");
        let mut args = vec![cmd, s(&input), "-o", s(&out), "-q"];
        if cmd == "pairs" {
            args.extend(["--radius", "0"]);
        }
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let rss = wait_for_temp(&mut child, d, 32 << 20);
        kill(&child, signal);
        let status = wait_at_most(&mut child, Duration::from_secs(20), "signalled run");
        assert_eq!(status.code(), Some(code), "{cmd} SIG{signal}: {status:?}");
        assert_eq!(
            temps_in(d),
            Vec::<PathBuf>::new(),
            "{cmd} SIG{signal}: debris"
        );
        assert!(!out.exists(), "{cmd} SIG{signal}: a partial output");
        assert!(
            rss < MAX_RSS_KB,
            "{cmd}: peak RSS {rss} KiB with 32 MB written"
        );
    }
}

#[test]
fn a_signal_while_reading_a_fifo_input_leaves_nothing() {
    let dir = temp_dir();
    let d = dir.path();
    let walls = d.join("walls.csv");
    std::fs::write(&walls, "0,0,0,1,0,0\n").unwrap();
    let rays = d.join("rays.csv");
    mkfifo(&rays);
    let out = d.join("hits.csv");
    let mut child = Command::new(BIN)
        .args([
            "raycast",
            s(&walls),
            s(&rays),
            "--radius",
            "0",
            "--range",
            "10",
            "-o",
            s(&out),
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The writer: opening blocks until segbatch has opened the FIFO; the rays never end.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&rays).unwrap();
    writer.write_all(b"0,1,0,0,-1,0\n").unwrap();
    writer.flush().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    kill(&child, "TERM");
    let status = wait_at_most(&mut child, Duration::from_secs(20), "signalled raycast");
    drop(writer);
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
    assert!(!out.exists());
}

#[test]
fn a_file_size_limit_is_status_1_with_nothing_left() {
    let dir = temp_dir();
    let d = dir.path();
    let input3 = hostile3(d);
    let input2 = hostile2(d);
    for (args, out_name) in [
        (format!("pairs '{}' --radius 0", s(&input3)), "out.csv"),
        (format!("pairs '{}' --radius 0", s(&input3)), "out.npy"),
        (format!("cross '{}'", s(&input2)), "out.raw"),
    ] {
        let out = d.join(out_name);
        // `ulimit -f 200`: at most 100 or 200 KiB per file; the output would take GB.
        let run = shell(&format!(
            "ulimit -f 200 && exec \"$SEGBATCH\" {args} -o '{}'",
            s(&out)
        ));
        expect_error(
            &run,
            1,
            &[out_name, "writing the output failed", "too large"],
        );
        assert!(!out.exists(), "{args}: a partial output");
        assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "{args}: debris");
    }
}

/// `segbatch pairs big | head -c 100`: the reader goes away, the run stops at once with
/// status 141 and one message (no more compute: it ends within seconds of 2e8 pairs).
#[test]
fn a_closed_output_pipe_stops_the_set_commands_with_status_141() {
    let dir = temp_dir();
    let d = dir.path();
    let input3 = hostile3(d);
    let input2 = hostile2(d);
    for args in [
        vec!["pairs", s(&input3), "--radius", "0"],
        vec!["pairs", s(&input3), "--radius", "0", "-o", "-"],
        vec!["cross", s(&input2), "--output-format", "raw"],
    ] {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 100];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let status = wait_at_most(&mut child, Duration::from_secs(20), "a closed pipe");
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert_eq!(status.code(), Some(141), "{args:?}: {stderr}");
        assert!(stderr.contains("went away"), "{args:?}: {stderr}");
    }
}

#[test]
fn absurd_thread_counts_are_clamped_with_a_note() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("s.csv");
    std::fs::write(&input, "0,0,0,1,0,0\n0,0.5,0,1,0.5,0\n").unwrap();
    let start = Instant::now();
    let run = segbatch(&["pairs", s(&input), "--radius", "1", "--threads", "30000"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("--threads 30000 is more than the"),
        "{}",
        run.stderr
    );
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "i,j,distance,flags\n0,1,0.5,0\n"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    // Above clap's u16 range: refused as a usage error.
    let run = segbatch(&["cross", s(&input), "--threads", "100000"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

// ---------------------------------------------------------------------------------------
// Inputs: -, /dev/stdin, FIFOs, long lines
// ---------------------------------------------------------------------------------------

#[test]
fn stdin_dev_stdin_and_fifos_are_inputs_and_dash_is_stdout() {
    let dir = temp_dir();
    let d = dir.path();
    let csv = b"0,0,0,1,0,0\n0,0.5,0,1,0.5,0\n5,5,5,6,6,6\n";
    let want = "i,j,distance,flags\n0,1,0.5,0\n";
    for input in ["-", "/dev/stdin"] {
        let run = segbatch_stdin(
            &[
                "pairs", input, "--format", "csv", "--radius", "1", "-o", "-", "-q",
            ],
            csv,
        );
        assert_eq!(run.code, 0, "{input}: {}", run.stderr);
        assert_eq!(String::from_utf8_lossy(&run.stdout), want, "{input}");
    }
    assert!(!d.join("-").exists());
    // A FIFO with a writer.
    let fifo = d.join("in.csv");
    mkfifo(&fifo);
    let path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut w = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        w.write_all(csv).unwrap();
    });
    let run = segbatch(&["pairs", s(&fifo), "--radius", "1", "-q"]);
    writer.join().unwrap();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(String::from_utf8_lossy(&run.stdout), want);
    // A FIFO nobody writes to: an error after --wait, not a hang in open().
    let start = Instant::now();
    let run = segbatch(&["cross", s(&fifo), "--wait", "0.5"]);
    expect_error(&run, 2, &["in.csv", "no writer sent data"]);
    assert!(start.elapsed() < Duration::from_secs(10));
    // Both raycast inputs from standard input: refused.
    let run = segbatch(&[
        "raycast", "-", "-", "--radius", "0", "--range", "1", "--format", "csv",
    ]);
    expect_error(&run, 2, &["both standard input"]);
}

#[test]
fn a_huge_single_line_csv_is_refused_at_once() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("long.csv");
    // 4 MB on one line: refused after 64 KiB, whatever the file's size.
    std::fs::write(&input, "1,".repeat(2 << 20)).unwrap();
    for args in [
        vec!["pairs", s(&input), "--radius", "1"],
        vec!["cross", s(&input)],
    ] {
        let run = segbatch(&args);
        expect_error(&run, 2, &["long.csv: line 1", "longer than 65536 bytes"]);
    }
}

// ---------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------

#[test]
fn messages_name_the_real_problem() {
    let dir = temp_dir();
    let d = dir.path();
    let good = d.join("good.csv");
    std::fs::write(&good, "0,0,0,1,0,0\n").unwrap();
    let g = s(&good);
    // A negative radius is a number, refused as such (both spellings).
    for args in [
        vec!["pairs", g, "--radius", "-1"],
        vec!["raycast", g, g, "--radius", "-1", "--range", "1"],
        vec!["raycast", g, g, "--radius", "0", "--range", "-1"],
        vec!["run", g, "-o", "x.csv", "--radius", "-1"],
    ] {
        let run = segbatch(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        // A radius and a range may be inf, never negative.
        assert!(
            run.stderr
                .contains("the radius must be a number >= 0 (inf for every pair)")
                || run
                    .stderr
                    .contains("the range must be a number >= 0 (inf for no limit)"),
            "{}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("unexpected argument"),
            "{}",
            run.stderr
        );
    }
    // `run --precision f64` reads the radius as f64; f32 names the way out.
    let pairs = d.join("p.csv");
    std::fs::write(&pairs, "0,0,0,1,0,0,0,1,0,1,1,0\n").unwrap();
    let out = d.join("o.csv");
    let run = segbatch(&[
        "run",
        s(&pairs),
        "-o",
        s(&out),
        "--radius",
        "1e300",
        "-q",
        "--precision",
        "f64",
        "--outputs",
        "distance",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "index,distance\n0,1\n"
    );
    let run = segbatch(&["run", s(&pairs), "-o", s(&out), "--radius", "1e300"]);
    expect_error(&run, 2, &["1e300", "--precision f64"]);
    // A NUL byte, an open quote.
    let bad = d.join("bad.csv");
    std::fs::write(&bad, b"0,0,0,1,0,0\n0,0\x00,0,1,0,0\n").unwrap();
    let run = segbatch(&["pairs", s(&bad), "--radius", "1"]);
    expect_error(
        &run,
        2,
        &["bad.csv: line 2 (segment 1), column 2 (p0.y)", "0x00"],
    );
    std::fs::write(&bad, b"\x00\x00\x00\x00\n").unwrap();
    let run = segbatch(&["cross", s(&bad)]);
    expect_error(&run, 2, &["bad.csv: line 1, byte 1: the control byte 0x00"]);
    std::fs::write(&bad, "0,0,0,1,0,0\n0,\"0,0,1,0,0\n").unwrap();
    let run = segbatch(&["pairs", s(&bad), "--radius", "1"]);
    expect_error(
        &run,
        2,
        &["bad.csv: line 2, column 2: a quote is not closed"],
    );
    // A .npy shape of 2^60 rows: the real byte count, not a saturated one.
    let npy = d.join("huge.npy");
    let mut header =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1152921504606846976, 6), }".to_owned();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&[0; 48]);
    std::fs::write(&npy, bytes).unwrap();
    let run = segbatch(&["pairs", s(&npy), "--radius", "1"]);
    expect_error(&run, 2, &["huge.npy", "needs 27670116110564327424 bytes"]);
}

/// Pairs whose squared distance leaves f32's range carry the flag 16 and the f64 distance.
#[test]
fn pairs_with_an_out_of_range_squared_distance_are_flagged() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("tiny.csv");
    // 1e-38 apart: dist2 = 1e-76 underflows to 0 in f32. And a touching pair (distance 0,
    // no flag).
    std::fs::write(
        &input,
        "0,0,0,1e-30,0,0\n0,1e-38,0,1e-30,1e-38,0\n5,0,0,6,0,0\n5,0,0,5,1,0\n",
    )
    .unwrap();
    let run = segbatch(&["pairs", s(&input), "--radius", "1e-30", "-q"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    let mut rows: Vec<&str> = text.lines().skip(1).collect();
    rows.sort();
    assert_eq!(rows, ["0,1,1e-38,16", "2,3,0,0"], "{text}");
}

// ---------------------------------------------------------------------------------------
// bench: --plot and --json
// ---------------------------------------------------------------------------------------

const QUICK: [&str; 6] = [
    "bench",
    "--sizes",
    "1K",
    "--workloads",
    "uniform",
    "--budget",
];

fn bench(extra: &[&str]) -> Run {
    let mut args: Vec<&str> = QUICK.to_vec();
    args.push("0.01");
    args.extend(extra);
    segbatch(&args)
}

#[test]
fn bench_outputs_are_checked_first_and_written_whole() {
    let dir = temp_dir();
    let d = dir.path();
    // An unusable path fails before the work.
    let missing = d.join("no").join("p.svg");
    let start = Instant::now();
    let run = bench(&["--plot", s(&missing)]);
    expect_error(&run, 2, &["p.svg", "does not exist"]);
    assert!(start.elapsed() < Duration::from_secs(5));
    let run = bench(&["--json", s(d)]);
    expect_error(&run, 2, &["is a directory"]);
    // A read-only plot is refused and kept.
    let plot = d.join("p.svg");
    std::fs::write(&plot, "old plot").unwrap();
    let mut perm = std::fs::metadata(&plot).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&plot, perm.clone()).unwrap();
    let run = bench(&["--plot", s(&plot)]);
    expect_error(&run, 2, &["read-only"]);
    assert_eq!(std::fs::read_to_string(&plot).unwrap(), "old plot");
    #[allow(clippy::permissions_set_readonly_false)]
    perm.set_readonly(false);
    std::fs::set_permissions(&plot, perm).unwrap();
    // A file-size limit: the old plot survives whole, nothing else is left.
    let run = shell(&format!(
        "ulimit -f 2 && exec \"$SEGBATCH\" {} 0.01 --plot '{}'",
        QUICK.join(" "),
        s(&plot)
    ));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("too large"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&plot).unwrap(), "old plot");
    assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
    // Success: both written.
    let json = d.join("b.json");
    let run = bench(&["--plot", s(&plot), "--json", s(&json)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
    assert!(
        std::fs::read_to_string(&json)
            .unwrap()
            .starts_with("{\"version\"")
    );
    assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
}
