//! Hardening of `segbatch run`: what the output path names (devices, FIFOs,
//! symlinks, read-only files, modes), signals during a run, memory bounds, streams and
//! special files as input, messages and exit statuses, and injected faults (a file-size
//! limit, a directory that vanishes, an input that shrinks).
//!
//! Every special file (FIFO, symlink, character device) is made inside the test's own
//! temporary directory; nothing here touches a device or path outside it. The character
//! device tests run only as root (they need `mknod`) and print a notice otherwise.

#![cfg(unix)]

use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

fn is_root() -> bool {
    // The owner of a file we just made is our effective user.
    let dir = temp_dir();
    let probe = dir.path().join("probe");
    std::fs::write(&probe, b"").unwrap();
    std::fs::metadata(&probe).unwrap().uid() == 0
}

/// `n` pairs of small random numbers.
fn pairs(n: usize) -> Vec<[f32; 12]> {
    let mut state = 987654321u64;
    (0..n)
        .map(|_| {
            core::array::from_fn(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 40) as f32 / (1u64 << 24) as f32) * 20.0 - 10.0
            })
        })
        .collect()
}

fn csv_text(pairs: &[[f32; 12]]) -> String {
    let mut text = String::new();
    for p in pairs {
        let row: Vec<String> = p.iter().map(|x| format!("{x:?}")).collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    text
}

fn raw_bytes(pairs: &[[f32; 12]]) -> Vec<u8> {
    pairs
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

const GOOD: &str = "0,0,0,1,0,0,0,1,0,1,1,0\n";

// ---------------------------------------------------------------------------------------
// Class 1: the output path
// ---------------------------------------------------------------------------------------

#[test]
fn output_through_a_symlink_keeps_the_link() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.csv");
    std::fs::write(&input, csv_text(&pairs(10))).unwrap();
    let real = d.join("real.csv");
    std::fs::write(&real, "old contents").unwrap();
    let link = d.join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&link), "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.starts_with("distance,"), "{text}");
    assert_eq!(text.lines().count(), 11);
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());

    // A dangling link: its target is created, the link stays.
    let dangling = d.join("dangling.csv");
    std::os::unix::fs::symlink("sub/new.csv", &dangling).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&dangling), "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(d.join("sub/new.csv"))
            .unwrap()
            .lines()
            .count(),
        11
    );
}

#[test]
fn output_to_a_fifo_is_written_through() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.csv");
    std::fs::write(&input, csv_text(&pairs(100))).unwrap();
    let fifo = d.join("out.csv");
    mkfifo(&fifo);
    let reader_path = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::fs::File::open(&reader_path)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    });
    let run = segbatch(&["run", s(&input), "-o", s(&fifo), "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = reader.join().unwrap();
    assert_eq!(text.lines().count(), 101, "header and 100 rows");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO was replaced by a regular file"
    );
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());
}

#[test]
fn output_to_a_character_device_is_written_through() {
    if !is_root() {
        eprintln!("notice: not root, cannot mknod a character device: test skipped");
        return;
    }
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.csv");
    std::fs::write(&input, csv_text(&pairs(100))).unwrap();
    // A null-like device (1, 3) made inside this test's own directory.
    let device = d.join("null");
    let ok = Command::new("mknod")
        .args([s(&device), "c", "1", "3"])
        .status()
        .unwrap()
        .success();
    assert!(ok, "mknod");
    // A .npy output (from a raw input, so the row count is known for its header).
    let raw = d.join("in.f32");
    std::fs::write(&raw, raw_bytes(&pairs(100))).unwrap();
    for (input, extra) in [(&input, &[][..]), (&raw, &["--output-format", "npy"][..])] {
        let mut args = vec!["run", s(input), "-o", s(&device), "--quiet"];
        args.extend_from_slice(extra);
        let run = segbatch(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let meta = std::fs::symlink_metadata(&device).unwrap();
        assert!(
            meta.file_type().is_char_device(),
            "the device was replaced by a regular file"
        );
        assert_eq!(meta.rdev(), std::fs::metadata("/dev/null").unwrap().rdev());
        assert_eq!(temps_in(d), Vec::<PathBuf>::new());
    }
    // A link to the device is followed to it.
    let link = d.join("link");
    std::os::unix::fs::symlink(&device, &link).unwrap();
    let run = segbatch(&[
        "run",
        s(&input),
        "-o",
        s(&link),
        "--format",
        "csv",
        "--quiet",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        std::fs::symlink_metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_read_only_output_is_refused_and_kept() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.csv");
    std::fs::write(&input, GOOD).unwrap();
    let out = d.join("out.csv");
    std::fs::write(&out, "precious").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&out)]);
    expect_error(
        &run,
        2,
        &["out.csv", "cannot write the output", "read-only"],
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    assert_eq!(
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        0o444
    );
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());
}

#[test]
fn a_new_output_gets_the_umask_mode_and_an_existing_one_keeps_its_mode() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.csv");
    std::fs::write(&input, csv_text(&pairs(5))).unwrap();
    for (umask, want) in [("022", 0o644), ("027", 0o640), ("077", 0o600)] {
        for ext in ["csv", "npy"] {
            let out = d.join(format!("new-{umask}.{ext}"));
            // `--radius` makes the .npy header deferred (a second temporary file).
            let run = shell(&format!(
                "umask {umask}; exec \"$SEGBATCH\" run '{}' -o '{}' --radius 100 --quiet",
                s(&input),
                s(&out)
            ));
            assert_eq!(run.code, 0, "{}", run.stderr);
            let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, want, "umask {umask}, .{ext}: mode {mode:o}");
        }
    }
    for ext in ["csv", "npy"] {
        let existing = d.join(format!("existing.{ext}"));
        std::fs::write(&existing, "old").unwrap();
        std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o604)).unwrap();
        let run = shell(&format!(
            "umask 077; exec \"$SEGBATCH\" run '{}' -o '{}' --radius 100 --quiet",
            s(&input),
            s(&existing)
        ));
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_ne!(std::fs::read(&existing).unwrap(), b"old");
        let mode = std::fs::metadata(&existing).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o604, ".{ext}: mode {mode:o}");
    }
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());
}

// ---------------------------------------------------------------------------------------
// Class 2: signals
// ---------------------------------------------------------------------------------------

/// A run reading its input from a FIFO whose writer has sent some pairs and then waits:
/// the output's temporary file exists, the run blocks. The signal must remove the file.
#[test]
fn signals_remove_the_temporary_file_and_exit_128_plus_the_signal() {
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let dir = temp_dir();
        let d = dir.path();
        let fifo = d.join("in.csv");
        mkfifo(&fifo);
        let out = d.join("out.csv");
        let mut child = Command::new(BIN)
            .args(["run", s(&fifo), "-o", s(&out), "--chunk-pairs", "10"])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The writer: opening blocks until segbatch has opened the FIFO.
        let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        writer.write_all(csv_text(&pairs(50)).as_bytes()).unwrap();
        writer.flush().unwrap();
        let start = Instant::now();
        while temps_in(d).is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no temporary file"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // The temporary file exists (its first records may still be in the write buffer);
        // the run waits for more input. Send the signal now.
        kill(&child, signal);
        let status = wait_at_most(&mut child, Duration::from_secs(20), "signalled run");
        drop(writer);
        assert_eq!(status.code(), Some(code), "SIG{signal}: {status:?}");
        assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "SIG{signal}: debris");
        assert!(!out.exists(), "SIG{signal}: a partial output");
    }
}

/// The same on a large generated input, with the signal sent while the temporary file grows.
#[test]
fn sigterm_during_a_large_run_leaves_nothing() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("big.f32");
    let chunk = raw_bytes(&pairs(100_000));
    {
        let mut f = std::fs::File::create(&input).unwrap();
        for _ in 0..20 {
            f.write_all(&chunk).unwrap();
        }
    }
    let out = d.join("out.csv");
    let mut child = Command::new(BIN)
        .args([
            "run",
            s(&input),
            "-o",
            s(&out),
            "--threads",
            "1",
            "--chunk-pairs",
            "4096",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        let temps = temps_in(d);
        if temps
            .first()
            .is_some_and(|t| std::fs::metadata(t).is_ok_and(|m| m.len() > 4 << 20))
        {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the signal"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    kill(&child, "TERM");
    let status = wait_at_most(&mut child, Duration::from_secs(20), "signalled run");
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
    assert!(!out.exists());
}

/// The reader of `-o -` going away: status 141, one message, no hang.
#[test]
fn a_closed_output_pipe_gives_status_141() {
    let dir = temp_dir();
    let input = dir.path().join("in.f32");
    std::fs::write(&input, raw_bytes(&pairs(200_000))).unwrap();
    let mut child = Command::new(BIN)
        .args(["run", s(&input), "-o", "-", "--output-format", "csv"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    assert!(first.starts_with(b"distance,"));
    drop(stdout);
    let status = wait_at_most(
        &mut child,
        Duration::from_secs(60),
        "run into a closed pipe",
    );
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(141), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("went away"), "{stderr}");
}

// ---------------------------------------------------------------------------------------
// Class 3: memory bounds
// ---------------------------------------------------------------------------------------

#[test]
fn an_overlong_csv_line_is_refused_with_its_line_number() {
    let dir = temp_dir();
    let d = dir.path();
    for filler in ["7", ","] {
        let input = d.join("long.csv");
        let mut text = format!("{GOOD}{GOOD}");
        text.push_str(&filler.repeat(8 << 20));
        text.push('\n');
        std::fs::write(&input, text).unwrap();
        let out = d.join("out.csv");
        let run = segbatch(&["run", s(&input), "-o", s(&out)]);
        expect_error(&run, 2, &["long.csv", "line 3", "longer than 65536 bytes"]);
        assert!(!out.exists());
    }
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());
}

#[test]
fn absurd_thread_counts_are_clamped_to_the_cpus() {
    let dir = temp_dir();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, format!("{GOOD}{GOOD}")).unwrap();
    let out = dir.path().join("out.csv");
    let start = Instant::now();
    let run = segbatch(&["run", s(&input), "-o", s(&out), "--threads", "60000"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("--threads 60000 is more than the"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 3);
    // 60000 threads took seconds; a clamped pool starts at once.
    assert!(start.elapsed() < Duration::from_secs(10));
}

// ---------------------------------------------------------------------------------------
// Class 5: streams and special files
// ---------------------------------------------------------------------------------------

#[test]
fn stdin_and_stdout_are_dash() {
    let data = pairs(1000);
    let csv = csv_text(&data);
    // CSV in, CSV out.
    let run = segbatch_stdin(
        &["run", "-", "--format", "csv", "-o", "-", "--quiet"],
        csv.as_bytes(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = String::from_utf8(run.stdout).unwrap();
    assert_eq!(text.lines().count(), 1001);
    // Raw in, raw distances out: 4 bytes per pair.
    let run = segbatch_stdin(
        &[
            "run",
            "-",
            "--format",
            "raw",
            "-o",
            "-",
            "--outputs",
            "distance",
            "--quiet",
        ],
        &raw_bytes(&data),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.len(), 4000);
    // The same through a .npy stream (header then data).
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let mut dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 12), }".to_owned();
    while !(10 + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    npy.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    npy.extend_from_slice(dict.as_bytes());
    npy.extend_from_slice(&raw_bytes(&data));
    let run = segbatch_stdin(
        &[
            "run",
            "-",
            "--format",
            "npy",
            "-o",
            "-",
            "--outputs",
            "distance",
            "--output-format",
            "raw",
            "--quiet",
        ],
        &npy,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.len(), 4000);
    // A raw stream that ends inside a pair.
    let mut bytes = raw_bytes(&data[..3]);
    bytes.truncate(100);
    let run = segbatch_stdin(&["run", "-", "--format", "raw", "-o", "-"], &bytes);
    expect_error(
        &run,
        2,
        &["standard input", "ended inside pair 2", "4 of 48"],
    );
    // An empty stream.
    let run = segbatch_stdin(&["run", "-", "--format", "csv", "-o", "-"], b"");
    expect_error(&run, 2, &["standard input", "no pairs"]);
    // .npy with --radius cannot go to a stream (its header needs the final count).
    let run = segbatch_stdin(
        &[
            "run",
            "-",
            "--format",
            "csv",
            "-o",
            "-",
            "--output-format",
            "npy",
            "--radius",
            "1",
        ],
        csv.as_bytes(),
    );
    expect_error(&run, 2, &["needs a regular file"]);
}

#[test]
fn a_fifo_without_a_writer_does_not_hang() {
    let dir = temp_dir();
    let d = dir.path();
    let fifo = d.join("in.csv");
    mkfifo(&fifo);
    let out = d.join("out.csv");
    let mut child = Command::new(BIN)
        .args(["run", s(&fifo), "-o", s(&out), "--wait", "0.5"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_at_most(&mut child, Duration::from_secs(20), "run on a FIFO");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("in.csv: no writer sent data to this FIFO within 0.5 s"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out.exists());
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());
}

#[test]
fn a_fifo_with_data_is_read_as_a_stream() {
    let dir = temp_dir();
    let d = dir.path();
    for (name, format) in [("in.csv", "csv"), ("in.f32", "raw")] {
        let fifo = d.join(name);
        mkfifo(&fifo);
        let out = d.join(format!("out-{format}.csv"));
        let mut child = Command::new(BIN)
            .args(["run", s(&fifo), "-o", s(&out), "--quiet"])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let data = pairs(3000);
        let bytes = if format == "csv" {
            csv_text(&data).into_bytes()
        } else {
            raw_bytes(&data)
        };
        let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
        writer.write_all(&bytes).unwrap();
        drop(writer);
        let status = wait_at_most(&mut child, Duration::from_secs(30), "run on a FIFO");
        assert_eq!(status.code(), Some(0), "{format}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.lines().count(), 3001, "{format}");
    }
}

// ---------------------------------------------------------------------------------------
// Class 6: messages
// ---------------------------------------------------------------------------------------

#[test]
fn csv_line_numbers_count_blank_lines_and_every_line_end() {
    let dir = temp_dir();
    let d = dir.path();
    let out = d.join("out.csv");
    let bad = "0,0,0,1,x,0,0,1,0,1,1,0";
    let good = GOOD.trim_end();
    for (name, text) in [
        ("blank.csv", format!("\n{good}\n\n  \n{bad}\n")),
        ("crlf.csv", format!("{good}\r\n\r\n{good}\r\n\r\n{bad}\r\n")),
        ("cr.csv", format!("{good}\r\r{good}\r\r{bad}\r")),
        ("mixed.csv", format!("{good}\r\n\n{good}\r\r{bad}")),
    ] {
        let input = d.join(name);
        std::fs::write(&input, &text).unwrap();
        let run = segbatch(&["run", s(&input), "-o", s(&out)]);
        expect_error(
            &run,
            2,
            &[
                name,
                "line 5 (pair ",
                "column 5 (a.p1.y)",
                "'x' is not a number",
            ],
        );
    }
    // CR-only and CRLF files with good rows are read in full.
    for (name, end) in [("ok-cr.csv", "\r"), ("ok-crlf.csv", "\r\n")] {
        let input = d.join(name);
        std::fs::write(&input, format!("{good}{end}{good}{end}{good}")).unwrap();
        let run = segbatch(&["run", s(&input), "-o", s(&out), "--quiet"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 4);
    }
}

#[test]
fn a_quoted_newline_gives_a_one_line_error() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("quoted.csv");
    std::fs::write(
        &input,
        format!("{GOOD}\"1\",2,3,4,5,6,7,8,9,10,11,\"12\n13\"\n"),
    )
    .unwrap();
    let out = d.join("out.csv");
    let run = segbatch(&["run", s(&input), "-o", s(&out)]);
    expect_error(
        &run,
        2,
        &["quoted.csv", "line 2, column 12", "quote is not closed"],
    );
    // Quoted numbers on one line are fine; control characters in a field are escaped.
    std::fs::write(&input, "\"1\",2,3,4,5,6,7,8,9,10,11,\" 12 \"\n").unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&out), "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::write(&input, "1,2,3,4,5,6,7,8,9,10,11,\x1b[31mred\n").unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&out)]);
    expect_error(&run, 2, &["'\\u{1b}[31mred' is not a number"]);
}

fn npy_with(dict: &str, data_bytes: usize) -> Vec<u8> {
    let mut header = dict.to_owned();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(header.len() as u16).to_le_bytes());
    v.extend_from_slice(header.as_bytes());
    v.extend(std::iter::repeat_n(0u8, data_bytes));
    v
}

#[test]
fn npy_header_problems_name_the_file_without_saturated_counts() {
    let dir = temp_dir();
    let d = dir.path();
    let out = d.join("out.csv");
    let full = npy_with(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 12), }",
        96,
    );
    for (cut, needle) in [(4, "magic"), (9, "truncated"), (40, "truncated")] {
        let input = d.join("cut.npy");
        std::fs::write(&input, &full[..cut]).unwrap();
        let run = segbatch(&["run", s(&input), "-o", s(&out)]);
        expect_error(&run, 2, &["cut.npy", needle]);
        assert!(!run.stderr.contains("fill whole buffer"), "{}", run.stderr);
    }
    // A header length far beyond any real header.
    let mut huge = b"\x93NUMPY\x02\x00".to_vec();
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    let input = d.join("huge.npy");
    std::fs::write(&input, &huge).unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&out)]);
    expect_error(&run, 2, &["huge.npy", "header claims 4294967295 bytes"]);
    // An absurd shape: the exact byte count, never u64::MAX.
    let input = d.join("absurd.npy");
    std::fs::write(
        &input,
        npy_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 12), }",
            96,
        ),
    )
    .unwrap();
    let run = segbatch(&["run", s(&input), "-o", s(&out)]);
    expect_error(&run, 2, &["absurd.npy", "221360928884514619392 bytes"]);
    assert!(
        !run.stderr.contains("18446744073709551615"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

// ---------------------------------------------------------------------------------------
// Class 8: injected faults (and the exit-status rule: 1 for failures during the run)
// ---------------------------------------------------------------------------------------

#[test]
fn a_full_disk_is_status_1_with_nothing_left() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.f32");
    std::fs::write(&input, raw_bytes(&pairs(50_000))).unwrap();
    for (out_name, extra) in [("out.csv", ""), ("out.npy", "--radius 100")] {
        let out = d.join(out_name);
        // `ulimit -f 200`: no file of this shell may grow past 100 KiB (200 blocks of 512
        // bytes, or 200 KiB where the unit is KiB); the output needs several MB.
        let run = shell(&format!(
            "ulimit -f 200 && exec \"$SEGBATCH\" run '{}' -o '{}' {extra}",
            s(&input),
            s(&out)
        ));
        expect_error(
            &run,
            1,
            &[out_name, "writing the output failed", "too large"],
        );
        assert!(!out.exists(), "a partial output");
        assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
    }
}

#[test]
fn an_output_directory_that_vanishes_mid_run_is_status_1() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.csv");
    std::fs::write(&input, csv_text(&pairs(50))).unwrap();
    let fifo = d.join("in-fifo.csv");
    mkfifo(&fifo);
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let out = sub.join("out.csv");
    let mut child = Command::new(BIN)
        .args(["run", s(&fifo), "-o", s(&out)])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer.write_all(csv_text(&pairs(50)).as_bytes()).unwrap();
    let start = Instant::now();
    while temps_in(&sub).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::fs::remove_dir_all(&sub).unwrap();
    drop(writer);
    let status = wait_at_most(&mut child, Duration::from_secs(20), "run");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot put the output in place"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!sub.exists());
}

#[test]
fn an_input_that_shrinks_mid_run_is_status_1() {
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("big.f32");
    let chunk = raw_bytes(&pairs(100_000));
    {
        let mut f = std::fs::File::create(&input).unwrap();
        for _ in 0..20 {
            f.write_all(&chunk).unwrap();
        }
    }
    let out = d.join("out.csv");
    let mut child = Command::new(BIN)
        .args([
            "run",
            s(&input),
            "-o",
            s(&out),
            "--threads",
            "1",
            "--chunk-pairs",
            "4096",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !temps_in(d)
        .first()
        .is_some_and(|t| std::fs::metadata(t).is_ok_and(|m| m.len() > 2 << 20))
    {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended too soon"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .set_len(48 * 1000 + 20)
        .unwrap();
    let status = wait_at_most(&mut child, Duration::from_secs(60), "run");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("big.f32: the file ended in pair"),
        "{stderr}"
    );
    assert!(stderr.contains("changed during the run"), "{stderr}");
    assert!(!out.exists());
    assert_eq!(temps_in(d), Vec::<PathBuf>::new());
}

/// The size unit of `ulimit -f` in `sh` (512 bytes in POSIX shells, 1024 in some): a
/// file written under `ulimit -f 1` stops at one unit.
fn ulimit_unit(dir: &Path) -> u64 {
    let probe = dir.join("unit-probe");
    let run = shell(&format!(
        "ulimit -f 1 && head -c 4096 /dev/zero > '{}'; true",
        s(&probe)
    ));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let unit = std::fs::metadata(&probe).unwrap().len();
    std::fs::remove_file(&probe).unwrap();
    assert!(unit == 512 || unit == 1024, "ulimit -f unit {unit}");
    unit
}

#[test]
fn a_full_disk_while_the_npy_header_is_put_first_is_status_1_with_nothing_left() {
    // A .npy output with --radius is written as records, then copied behind its header
    // into a second temporary file: a limit the records just fit fails in that copy.
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.f32");
    std::fs::write(&input, raw_bytes(&pairs(4096))).unwrap();
    let out = d.join("out.npy");
    // Unlimited first: the whole output, and the records' size (4096 records of 45 bytes:
    // a multiple of 1024).
    let run = segbatch(&["run", s(&input), "-o", s(&out), "--radius", "1e30"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let records = 4096 * 45;
    let full = std::fs::metadata(&out).unwrap().len();
    assert!(full > records && full < records + 512, "{full}");
    std::fs::remove_file(&out).unwrap();
    let unit = ulimit_unit(d);
    let run = shell(&format!(
        "ulimit -f {} && exec \"$SEGBATCH\" run '{}' -o '{}' --radius 1e30",
        records / unit,
        s(&input),
        s(&out)
    ));
    expect_error(
        &run,
        1,
        &["out.npy", "writing the output failed", "too large"],
    );
    assert!(!out.exists(), "a partial output");
    assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
}

#[test]
fn a_full_disk_on_standard_output_is_status_1() {
    // Written through to a stream, the output cannot be withdrawn: the status and the
    // message say it is incomplete.
    let dir = temp_dir();
    let d = dir.path();
    let input = d.join("in.f32");
    std::fs::write(&input, raw_bytes(&pairs(50_000))).unwrap();
    let out = d.join("redirected.csv");
    let run = shell(&format!(
        "ulimit -f 200 && exec \"$SEGBATCH\" run '{}' -o - > '{}'",
        s(&input),
        s(&out)
    ));
    expect_error(
        &run,
        1,
        &["standard output", "writing the output failed", "too large"],
    );
    assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
}

/// Runs `segbatch run` with `-o target` on a FIFO input, calls `meddle` once its temporary
/// file is beside `target`, then lets the run finish.
fn run_and_meddle(d: &Path, target: &Path, meddle: impl FnOnce()) -> Run {
    let fifo = d.join("in-fifo.csv");
    if !fifo.exists() {
        mkfifo(&fifo);
    }
    let mut child = Command::new(BIN)
        .args(["run", s(&fifo), "-o", s(target)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer.write_all(csv_text(&pairs(50)).as_bytes()).unwrap();
    let start = Instant::now();
    while temps_in(target.parent().unwrap()).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    meddle();
    drop(writer);
    wait_at_most(&mut child, Duration::from_secs(20), "run");
    finish(child.wait_with_output().unwrap())
}

#[test]
fn a_target_that_vanishes_or_becomes_a_directory_mid_run() {
    let dir = temp_dir();
    let d = dir.path();
    let out = d.join("out.csv");
    // Removed during the run: the output is put in place all the same, complete.
    std::fs::write(&out, "old\n").unwrap();
    let run = run_and_meddle(d, &out, || std::fs::remove_file(&out).unwrap());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 51);
    // Replaced by a directory: status 1, one line, the directory untouched, no debris.
    let run = run_and_meddle(d, &out, || {
        std::fs::remove_file(&out).unwrap();
        std::fs::create_dir(&out).unwrap();
    });
    expect_error(&run, 1, &["out.csv", "cannot put the output in place"]);
    assert!(out.is_dir());
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
    assert_eq!(temps_in(d), Vec::<PathBuf>::new(), "debris");
}

#[test]
fn an_unwritable_output_directory_is_refused_up_front() {
    // Root ignores permission bits: as root the run is made as nobody (setpriv), in a
    // directory nobody can enter but not write.
    let dir = temp_dir();
    let d = dir.path();
    let root = is_root();
    if root && Command::new("setpriv").arg("--help").output().is_err() {
        eprintln!("notice: running as root without setpriv: unwritable directory not tested");
        return;
    }
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = d.join("segbatch");
    std::fs::copy(BIN, &bin).unwrap();
    let input = d.join("in.csv");
    std::fs::write(&input, GOOD).unwrap();
    let locked = d.join("locked");
    std::fs::create_dir(&locked).unwrap();
    let existing = locked.join("existing.csv");
    std::fs::write(&existing, "old\n").unwrap();
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    for target in [locked.join("new.csv"), existing.clone()] {
        let mut cmd = if root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&bin);
            c
        } else {
            Command::new(&bin)
        };
        let out = cmd
            .args(["run", s(&input), "-o", s(&target)])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let run = finish(out);
        let name = target.file_name().unwrap().to_str().unwrap();
        expect_error(
            &run,
            2,
            &[name, "cannot write the output", "ermission denied"],
        );
    }
    assert!(!locked.join("new.csv").exists());
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "old\n");
    assert_eq!(temps_in(&locked), Vec::<PathBuf>::new(), "debris");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}
