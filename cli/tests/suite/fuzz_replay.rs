//! Replays the saved inputs of the readers' fuzz target (`fuzz/regressions/readers/`) as an
//! ordinary test: the check is the target's own (`segbatch_cli::io::fuzz_readers`).

use std::time::{Duration, Instant};

use segbatch_cli::io::{Error, Format, MAX_NPY_HEADER_DEPTH, PAIRS, read_all};

#[test]
fn readers_regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/readers");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        eprintln!("{}", path.display());
        segbatch_cli::io::fuzz_readers(&data);
        count += 1;
    }
    assert!(count > 0, "no saved inputs in {}", dir.display());
}

/// Runs `f` on a thread and fails when it takes longer than `limit` (instead of hanging the
/// test run).
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("{what}: took over {} s", limit.as_secs()))
}

/// A version 2 `.npy` file whose header dict's descr is `descr`, with one pair of data.
fn npy(descr: &str) -> Vec<u8> {
    let mut header =
        format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (1, 12), }}\n").into_bytes();
    let mut data = b"\x93NUMPY\x02\x00".to_vec();
    data.extend_from_slice(&(header.len() as u32).to_le_bytes());
    data.append(&mut header);
    data.extend_from_slice(&[0u8; 48]);
    data
}

fn read_npy(data: Vec<u8>, what: &str) -> Result<u64, Error> {
    within(Duration::from_secs(10), what, move || {
        read_all::<f32, 12>(&data, &PAIRS, Format::Npy, true, 1)
    })
}

/// The readers' hang found by the fuzz target (`fuzz/regressions/readers/npy-nested-header`):
/// the header parser re-parses a nested list or dict at every level (2 or 3 times), so 40
/// levels ran for hours. Nesting is now refused past `MAX_NPY_HEADER_DEPTH`, and the worst
/// header still accepted (64 KiB at that depth) parses fast.
#[test]
fn nested_npy_headers_fail_fast() {
    for (open, close) in [("[", "]"), ("{", "}"), ("(", ")"), ("[{(", ")}]")] {
        let depth = 40 / open.len();
        let descr = format!("{}0{}", open.repeat(depth), close.repeat(depth));
        let err = read_npy(npy(&descr), open).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(
            err.message().starts_with(&format!(
                "input: not a valid .npy file: its header nests brackets {} deep",
                1 + depth * open.len()
            )),
            "{err:?}"
        );
    }
    // At the limit: dicts (the slowest, 3 parses per level) around 60 KiB of numbers.
    let levels = MAX_NPY_HEADER_DEPTH - 1;
    let body = "1:2,".repeat(15_000);
    let descr = format!("{}{body}{}", "{".repeat(levels), "}".repeat(levels));
    let start = Instant::now();
    let err = read_npy(npy(&descr), "deepest accepted").unwrap_err();
    assert_eq!(
        err,
        Error::Data(
            "input: not a valid .npy file: its header is too complex to parse (over 200000 \
             parser steps; a float32 array's header takes far fewer)"
                .into()
        )
    );
    eprintln!(
        "a 60 KiB header nesting {} deep: {:?}",
        levels + 1,
        start.elapsed()
    );
    // A real header still reads, with 60 KiB of padding too.
    assert_eq!(read_npy(npy("'<f4'"), "plain"), Ok(1));
    let padded = format!("'<f4'{}", " ".repeat(60_000));
    assert_eq!(read_npy(npy(&padded), "padded"), Ok(1));
}

/// A header NumPy never writes is refused before the header parser sees it (whose
/// backtracking made the fuzz target spend milliseconds on some 60-byte headers): a control
/// byte, or text that does not open a dict with a string key. What NumPy writes still reads,
/// and a real but unsupported header keeps its own message.
#[test]
fn npy_headers_numpy_never_writes_fail_before_parsing() {
    let v1 = |text: &[u8], data: usize| {
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(text.len() as u16).to_le_bytes());
        f.extend_from_slice(text);
        f.extend(std::iter::repeat_n(0u8, data));
        f
    };
    let fail = |text: &[u8]| read_npy(v1(text, 48), "malformed").unwrap_err();
    // Control bytes, wherever they are; the position is the file's.
    let err = fail(b"{'descr': '<f4',\x00 'fortran_order': False, 'shape': (1, 12), }\n");
    assert_eq!(
        err,
        Error::Data(
            "input: not a valid .npy file: its header holds the control byte 0x00 at byte 26 \
             (a .npy header is printable text)"
                .into()
        )
    );
    let err = fail(b"{{88668888-88---466.\x0c\x00x88807-8-8-");
    assert!(
        err.message().contains("control byte 0x0c at byte 30"),
        "{err:?}"
    );
    // Not a dict, or a dict whose first key is not a string: one line, the start shown.
    for (text, shown) in [
        (
            &b"{{'descr': '<f4'}, 1: 2}"[..],
            "\"{{'descr': '<f4'}, 1: 2}\"",
        ),
        (b"  [1, 2]\n", "\"[1, 2]\\n\""),
        (b"{ 12: 3, 'descr': '<f4'}", "\"{ 12: 3, 'descr': '<f4'}\""),
        (b"   \n", "nothing"),
    ] {
        let err = fail(text);
        assert_eq!(
            err.message(),
            format!(
                "input: not a valid .npy file: its header is not a dict with string keys such \
                 as {{'descr': '<f4', ...}} (it starts with {shown})"
            ),
            "{}",
            String::from_utf8_lossy(text)
        );
    }
    // The headers NumPy writes (the dict's repr, padded with spaces to a multiple of 64
    // bytes, a newline last), and with a leading tab, a space after the brace, double
    // quotes and the keys in another order: read as before.
    let padded = |dict: &str| {
        let mut text = dict.to_string();
        while !(10 + text.len() + 1).is_multiple_of(64) {
            text.push(' ');
        }
        text.push('\n');
        text.into_bytes()
    };
    for text in [
        padded("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 12), }"),
        padded("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4, 3), }"),
        b"\t{ \"shape\": (2, 12), 'fortran_order': False, 'descr': '<f4'}\n".to_vec(),
    ] {
        assert_eq!(read_npy(v1(&text, 96), "real"), Ok(2));
    }
    // Real headers of arrays `run` does not take keep their messages.
    let structured =
        padded("{'descr': [('a', '<f4'), ('b', '<i8')], 'fortran_order': False, 'shape': (2,), }");
    let err = read_npy(v1(&structured, 24), "structured").unwrap_err();
    assert!(err.message().contains("structured type"), "{err:?}");
    let f8 = padded("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 12), }");
    let err = read_npy(v1(&f8, 96), "f8").unwrap_err();
    assert!(
        err.message().contains("dtype is float64 '<f8'")
            && err.message().contains("--precision f64"),
        "{err:?}"
    );
    // The same header in an f64 run: one pair.
    assert_eq!(
        read_all::<f64, 12>(&v1(&f8, 96), &PAIRS, Format::Npy, true, 1),
        Ok(1)
    );
}
