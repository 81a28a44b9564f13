//! What the command-line tests share: running the binary (with arguments, a standard input
//! or a shell script), temporary directories and the temporary files left in them, the
//! one-line error check, and process helpers (FIFOs, signals, bounded waits).
//!
//! Every file a test makes lives in its own temporary directory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_segbatch");

/// A finished run: exit code, standard output, standard error.
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

pub fn segbatch(args: &[&str]) -> Run {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the segbatch binary runs");
    finish(out)
}

/// A finished run whose standard output is text (the reports, tables and help).
pub struct Text {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// [`segbatch`], its standard output read as text.
pub fn segbatch_text(args: &[&str]) -> Text {
    let run = segbatch(args);
    Text {
        code: run.code,
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        stderr: run.stderr,
    }
}

pub fn finish(out: std::process::Output) -> Run {
    Run {
        code: out.status.code().expect("exited normally, not by a signal"),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `segbatch ARGS` with `stdin` as its standard input.
pub fn segbatch_stdin(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    finish(out)
}

/// `sh -c SCRIPT` with `$SEGBATCH` set to the binary.
pub fn shell(script: &str) -> Run {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("SEGBATCH", BIN)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    finish(out)
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("segbatch-cli-test")
        .tempdir()
        .unwrap()
}

/// The hidden temporary files (`.segbatch-*`) in `dir`.
pub fn temps_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(".segbatch-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One `error:` line containing every needle, and the exit code.
#[track_caller]
pub fn expect_error(run: &Run, code: i32, needles: &[&str]) {
    assert_eq!(run.code, code, "stderr: {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", run.stderr);
    for n in needles {
        assert!(run.stderr.contains(n), "{n:?} not in {}", run.stderr);
    }
}

/// Waits for `child` up to `limit`; kills it and fails if it is still running then.
#[track_caller]
pub fn wait_at_most(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

pub fn kill(child: &Child, signal: &str) {
    let ok = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -s {signal}");
}
