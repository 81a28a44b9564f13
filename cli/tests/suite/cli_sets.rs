//! End-to-end tests of `segbatch pairs` and `segbatch cross`: outputs in every format
//! against the library's brute-force answers (the scalar reference over every pair, and
//! `intersect2` over every pair), thread-count independence, and the bad-input cases (one
//! `error:` line naming file, record and field, exit code 2, no output left behind).

use std::path::{Path, PathBuf};

use crate::common::{Text as Run, s, segbatch_text as segbatch, temp_dir};
use segbatch::planar::{Crossing, Segment2, Segment2_64, Segments2, intersect2};
use segbatch::{Options, Segment, Segment64, reference};
use segbatch_testkit::Rng;
use segbatch_testkit::brute::{shares_endpoint, within};
use segbatch_testkit::sets::{degenerate, hair, rays, walls};

#[track_caller]
fn ok(args: &[&str]) -> Run {
    let run = segbatch(args);
    assert_eq!(run.code, 0, "segbatch {args:?}: {}", run.stderr);
    run
}

/// Files left in `dir` other than `keep`.
fn leftovers(dir: &Path, keep: &[&Path]) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !keep.iter().any(|k| k == p))
        .collect()
}

fn floats<T: bytemuck::Pod>(records: &[T]) -> &[f32] {
    bytemuck::cast_slice(records)
}

fn write_csv(path: &Path, values: &[f32], per_row: usize, header: Option<&str>) {
    let mut text = String::new();
    if let Some(h) = header {
        text.push_str(h);
        text.push('\n');
    }
    for row in values.chunks(per_row) {
        let row: Vec<String> = row.iter().map(|x| format!("{x:?}")).collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

fn write_raw(path: &Path, values: &[f32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
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

fn npy_f32(path: &Path, values: &[f32], shape: &str) {
    let data: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    write_npy(path, &dict, &data);
}

/// A 3D test set: hair with a few hard cases mixed in (identical segments, collinear
/// pieces along x, a zero-length segment, a polyline whose pieces share end points, a NaN).
fn set3(n: usize, seed: u64) -> Vec<Segment> {
    let mut set = hair(n, 0.5, [100.0, -50.0, 3.0], seed);
    set.extend(degenerate(40, 0.5, true, seed).into_iter().map(|mut s| {
        s.p0[0] += 98.0;
        s.p1[0] += 98.0;
        s
    }));
    set.extend(degenerate(5, 0.5, false, seed));
    set.push(Segment::new([100.0, -50.0, 3.0], [100.0, -50.0, 3.0]));
    let mut p = [99.0f32, -51.0, 2.0];
    for k in 0..20 {
        let q = [p[0] + 0.3, p[1] + if k % 2 == 0 { 0.2 } else { -0.2 }, p[2]];
        set.push(Segment::new(p, q));
        p = q;
    }
    set.push(Segment::new([f32::NAN, 0.0, 0.0], [100.0, -50.0, 3.0]));
    set
}

/// One output record of `pairs`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PairRecord {
    i: u32,
    j: u32,
    distance: f32,
}

fn parse_pairs_csv(text: &str) -> Vec<PairRecord> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("i,j,distance,flags"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 4, "{l}");
            assert_eq!(f[3], "0", "no flag at ordinary distances: {l}");
            PairRecord {
                i: f[0].parse().unwrap(),
                j: f[1].parse().unwrap(),
                distance: f[2].parse().unwrap(),
            }
        })
        .collect()
}

fn parse_pairs_binary(bytes: &[u8]) -> Vec<PairRecord> {
    assert_eq!(bytes.len() % 13, 0);
    bytes
        .chunks(13)
        .map(|c| PairRecord {
            i: u32::from_le_bytes(c[0..4].try_into().unwrap()),
            j: u32::from_le_bytes(c[4..8].try_into().unwrap()),
            distance: f32::from_le_bytes(c[8..12].try_into().unwrap()),
        })
        .collect()
}

/// The data of a `.npy` file whose header holds `descr`; returns the bytes after it.
fn npy_data<'b>(bytes: &'b [u8], descr: &str, rows: usize) -> &'b [u8] {
    assert!(bytes.starts_with(b"\x93NUMPY"));
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12,
        ),
    };
    let header = std::str::from_utf8(&bytes[start..start + len]).unwrap();
    let compact: String = header.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(compact.contains(descr), "{header}");
    assert!(compact.contains(&format!("'shape':({rows},)")), "{header}");
    &bytes[start + len..]
}

/// The brute-force answer: every pair within `r` by the scalar reference, sorted, as
/// output records.
fn brute_pairs(a: &[Segment], b: Option<&[Segment]>, r: f32, skip_shared: bool) -> Vec<PairRecord> {
    let hits = within(a, b.unwrap_or(a), r, &Options::SEGMENTS, b.is_none());
    hits.iter()
        .filter(|h| !(skip_shared && shares_endpoint(&a[h.i as usize], &a[h.j as usize])))
        .map(|h| PairRecord {
            i: h.i,
            j: h.j,
            distance: h.dist2.sqrt(),
        })
        .collect()
}

fn sorted(mut v: Vec<PairRecord>) -> Vec<PairRecord> {
    v.sort_by_key(|p| (p.i, p.j));
    v
}

#[track_caller]
fn assert_same_records(got: &[PairRecord], want: &[PairRecord]) {
    assert_eq!(got.len(), want.len(), "number of pairs");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.i, g.j), (w.i, w.j));
        assert_eq!(g.distance.to_bits(), w.distance.to_bits(), "{g:?} vs {w:?}");
    }
}

#[test]
fn pairs_csv_matches_brute_force_on_any_thread_count() {
    let dir = temp_dir();
    let set = set3(3000, 11);
    let input = dir.path().join("set.csv");
    write_csv(&input, floats(&set), 6, Some("x0,y0,z0,x1,y1,z1"));
    let r = 0.5;
    let want = brute_pairs(&set, None, r, false);
    assert!(want.len() > 10_000, "{} pairs", want.len());
    // To stdout, and to a file on one and on two threads: the same bytes.
    let to_stdout = ok(&["pairs", s(&input), "--radius", "0.5"]);
    assert_same_records(&sorted(parse_pairs_csv(&to_stdout.stdout)), &want);
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("out{threads}.csv"));
        let run = ok(&[
            "pairs",
            s(&input),
            "--radius",
            "0.5",
            "-o",
            s(&out),
            "--threads",
            threads,
        ]);
        assert!(run.stdout.is_empty());
        assert!(
            run.stderr
                .contains(&format!("{} pairs within 0.5", want.len())),
            "{}",
            run.stderr
        );
        outputs.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(outputs[0], outputs[1], "thread count changes the output");
    assert_eq!(outputs[0], to_stdout.stdout);
}

#[test]
fn pairs_raw_and_npy_outputs_and_skip_shared() {
    let dir = temp_dir();
    let set = set3(1500, 12);
    let input = dir.path().join("set.f32");
    write_raw(&input, floats(&set));
    let r = 0.4;

    let raw = dir.path().join("near.raw");
    ok(&["pairs", s(&input), "--radius", "0.4", "-o", s(&raw), "-q"]);
    let got = sorted(parse_pairs_binary(&std::fs::read(&raw).unwrap()));
    assert_same_records(&got, &brute_pairs(&set, None, r, false));

    let npy = dir.path().join("near.npy");
    let run = ok(&[
        "pairs",
        s(&input),
        "--radius",
        "0.4",
        "--skip-shared",
        "-o",
        s(&npy),
    ]);
    let want = brute_pairs(&set, None, r, true);
    assert!(
        run.stderr.contains(&format!("{} pairs", want.len())),
        "{}",
        run.stderr
    );
    let bytes = std::fs::read(&npy).unwrap();
    let data = npy_data(
        &bytes,
        "'descr':[('i','<u4'),('j','<u4'),('distance','<f4'),('flags','|u1'),]",
        want.len(),
    );
    assert_same_records(&sorted(parse_pairs_binary(data)), &want);
    // The polyline's consecutive pieces (distance 0) are what --skip-shared leaves out.
    assert!(brute_pairs(&set, None, r, false).len() >= want.len() + 19);
    assert_eq!(
        leftovers(dir.path(), &[&input, &raw, &npy]),
        Vec::<PathBuf>::new()
    );
}

#[test]
fn pairs_against_a_second_set_in_other_formats() {
    let dir = temp_dir();
    let a = set3(1200, 13);
    let b = hair(900, 0.5, [100.0, -50.0, 3.0], 14);
    let (fa, fb) = (dir.path().join("a.npy"), dir.path().join("b.csv"));
    npy_f32(&fa, floats(&a), &format!("({}, 2, 3)", a.len()));
    write_csv(&fb, floats(&b), 6, None);
    let out = dir.path().join("ab.csv");
    ok(&[
        "pairs",
        s(&fa),
        "--against",
        s(&fb),
        "--radius",
        "0.5",
        "-o",
        s(&out),
        "-q",
    ]);
    let got = sorted(parse_pairs_csv(&std::fs::read_to_string(&out).unwrap()));
    let want = brute_pairs(&a, Some(&b), 0.5, false);
    assert!(want.len() > 1000, "{} pairs", want.len());
    assert_same_records(&got, &want);
    // (N, 6) .npy reads the same.
    npy_f32(&fa, floats(&a), &format!("({}, 6)", a.len()));
    let run = ok(&[
        "pairs",
        s(&fa),
        "--against",
        s(&fb),
        "--radius",
        "0.5",
        "-q",
    ]);
    assert_same_records(&sorted(parse_pairs_csv(&run.stdout)), &want);
}

/// A 2D test set: random segments, a grid of streets (many crossings, touching ends),
/// collinear overlapping pieces, a point and a NaN.
fn set2(n: usize, seed: u64) -> Vec<Segment2> {
    let mut rng = Rng::new(seed);
    let mut set: Vec<Segment2> = (0..n)
        .map(|_| {
            let p = [rng.range_f32(0.0, 20.0), rng.range_f32(0.0, 20.0)];
            let q = [
                p[0] + rng.range_f32(-2.0, 2.0),
                p[1] + rng.range_f32(-2.0, 2.0),
            ];
            Segment2::new(p, q)
        })
        .collect();
    for k in 0..10 {
        let c = 2.0 * k as f32;
        set.push(Segment2::new([0.0, c], [18.0, c]));
        set.push(Segment2::new([c, 0.0], [c, 18.0]));
    }
    set.push(Segment2::new([1.0, 4.0], [3.0, 4.0]));
    set.push(Segment2::new([2.0, 4.0], [2.0, 4.0]));
    set.push(Segment2::new([f32::NAN, 1.0], [2.0, 2.0]));
    set
}

/// `(i, j, kind, x, y)` for every meeting pair by `intersect2` over every pair `i < j`.
fn brute_crossings(set: &[Segment2]) -> Vec<(u32, u32, Crossing, f32, f32)> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..set.len() {
        for j in i + 1..set.len() {
            a.push(set[i]);
            b.push(set[j]);
        }
    }
    let out = intersect2(&Segments2::from(&a[..]), &Segments2::from(&b[..]));
    let mut v = Vec::new();
    let mut k = 0;
    for i in 0..set.len() {
        for j in i + 1..set.len() {
            if out.kind()[k] != Crossing::Disjoint {
                let p = set[i].at(out.s()[k]);
                v.push((i as u32, j as u32, out.kind()[k], p[0], p[1]));
            }
            k += 1;
        }
    }
    v
}

#[test]
fn cross_matches_intersect2_over_every_pair() {
    let dir = temp_dir();
    let set = set2(700, 21);
    let want = brute_crossings(&set);
    assert!(want.len() > 500, "{} crossings", want.len());
    assert!(want.iter().any(|c| c.2 == Crossing::Overlap));
    let kind = |k: &str| match k {
        "point" => Crossing::Point,
        "overlap" => Crossing::Overlap,
        other => panic!("kind {other}"),
    };

    let input = dir.path().join("streets.csv");
    write_csv(&input, floats(&set), 4, Some("x0,y0,x1,y1"));
    let run = ok(&["cross", s(&input), "--threads", "1"]);
    let mut lines = run.stdout.lines();
    assert_eq!(lines.next(), Some("i,j,kind,x,y"));
    let mut got: Vec<(u32, u32, Crossing, f32, f32)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                kind(f[2]),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    got.sort_by_key(|c| (c.0, c.1));
    assert_eq!(got, want);

    // Raw in (N, 2, 2) .npy, raw out: 17-byte records; two threads, the same records.
    let npy = dir.path().join("streets.npy");
    npy_f32(&npy, floats(&set), &format!("({}, 2, 2)", set.len()));
    let raw = dir.path().join("cross.bin");
    ok(&["cross", s(&npy), "-o", s(&raw), "--threads", "2", "-q"]);
    let bytes = std::fs::read(&raw).unwrap();
    assert_eq!(bytes.len(), 17 * want.len());
    let mut got: Vec<(u32, u32, Crossing, f32, f32)> = bytes
        .chunks(17)
        .map(|c| {
            let f = |k: usize| f32::from_le_bytes(c[k..k + 4].try_into().unwrap());
            let u = |k: usize| u32::from_le_bytes(c[k..k + 4].try_into().unwrap());
            let kind = match c[8] {
                1 => Crossing::Point,
                2 => Crossing::Overlap,
                other => panic!("kind byte {other}"),
            };
            (u(0), u(4), kind, f(9), f(13))
        })
        .collect();
    got.sort_by_key(|c| (c.0, c.1));
    assert_eq!(got, want);

    // --skip-shared: the same records but those of pairs sharing an end point.
    let ends = |k: u32| {
        let x = set[k as usize];
        [x.p0, x.p1]
    };
    let apart: Vec<_> = want
        .iter()
        .filter(|c| !ends(c.0).iter().any(|p| ends(c.1).contains(p)))
        .copied()
        .collect();
    assert!(
        apart.len() < want.len(),
        "the set has pieces sharing an end point"
    );
    let skipped = dir.path().join("skipped.bin");
    ok(&[
        "cross",
        s(&npy),
        "--skip-shared",
        "-o",
        s(&skipped),
        "--output-format",
        "raw",
        "-q",
    ]);
    let bytes = std::fs::read(&skipped).unwrap();
    let mut got: Vec<(u32, u32)> = bytes
        .chunks(17)
        .map(|c| {
            let u = |k: usize| u32::from_le_bytes(c[k..k + 4].try_into().unwrap());
            (u(0), u(4))
        })
        .collect();
    got.sort_unstable();
    assert_eq!(got, apart.iter().map(|c| (c.0, c.1)).collect::<Vec<_>>());
}

/// `(ray, wall, u, point)` for every ray with a hit: the minimum `(u, wall)` over every
/// wall of `reference::first_hit`.
fn brute_first_hits(
    walls: &[Segment],
    rays: &[Segment],
    r: f32,
    range: f32,
) -> Vec<(u32, u32, f32, [f32; 3])> {
    let mut out = Vec::new();
    for (k, ray) in rays.iter().enumerate() {
        let best = walls
            .iter()
            .enumerate()
            .filter_map(|(w, wall)| reference::first_hit(ray, r, range, wall).map(|h| (h, w)))
            .min_by(|(a, i), (b, j)| a.u.total_cmp(&b.u).then(i.cmp(j)));
        if let Some((h, w)) = best {
            out.push((k as u32, w as u32, h.u, h.point));
        }
    }
    out
}

#[test]
fn raycast_matches_brute_force_first_hits() {
    let dir = temp_dir();
    let side = 40.0;
    let w = walls(600, side, 31);
    let mut r = rays(400, side, 32);
    // A ray along a wall, one starting inside a wall's capsule, one pointing away.
    r.push(Segment::new([0.5, 0.0, 1.0], [1.5, 0.0, 1.0]));
    r.push(Segment::new(
        w[0].p0,
        [w[0].p0[0], w[0].p0[1] + 1.0, w[0].p0[2]],
    ));
    r.push(Segment::new([-5.0, -5.0, 1.0], [-6.0, -5.0, 1.0]));
    let mut w = w;
    w.push(Segment::new([0.0, 0.0, 1.0], [3.0, 0.0, 1.0]));
    let (fw, fr) = (dir.path().join("walls.csv"), dir.path().join("rays.f32"));
    // Thick rays in the 2.5D scene; then rays of radius 0 with everything in one plane
    // (walls and rays at z = 1), where they cross walls.
    let flat = |v: &[Segment]| -> Vec<Segment> {
        v.iter()
            .map(|s| Segment::new([s.p0[0], s.p0[1], 1.0], [s.p1[0], s.p1[1], 1.0]))
            .collect()
    };
    for (radius, range, planar) in [(1.0f32, 15.0f32, false), (0.0, 40.0, true)] {
        let (w, r) = if planar {
            (flat(&w), flat(&r))
        } else {
            (w.clone(), r.clone())
        };
        write_csv(&fw, floats(&w), 6, Some("x0,y0,z0,x1,y1,z1"));
        write_raw(&fr, floats(&r));
        let want = brute_first_hits(&w, &r, radius, range);
        assert!(want.len() > 100, "{} hits", want.len());
        let (rs, ls) = (radius.to_string(), range.to_string());
        let run = ok(&[
            "raycast",
            s(&fw),
            s(&fr),
            "--radius",
            &rs,
            "--range",
            &ls,
            "-q",
        ]);
        let mut lines = run.stdout.lines();
        assert_eq!(lines.next(), Some("ray,wall,u,x,y,z"));
        let got: Vec<(u32, u32, f32, [f32; 3])> = lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                let x = |k: usize| f[k].parse::<f32>().unwrap();
                (
                    f[0].parse().unwrap(),
                    f[1].parse().unwrap(),
                    x(2),
                    [x(3), x(4), x(5)],
                )
            })
            .collect();
        assert_eq!(got, want, "radius {radius}, range {range}");
        // Raw output, one thread: 24-byte records, the same hits.
        let out = dir.path().join("hits.raw");
        ok(&[
            "raycast",
            s(&fw),
            s(&fr),
            "--radius",
            &rs,
            "--range",
            &ls,
            "-o",
            s(&out),
            "--threads",
            "1",
            "-q",
        ]);
        let bytes = std::fs::read(&out).unwrap();
        let got: Vec<(u32, u32, f32, [f32; 3])> = bytes
            .chunks(24)
            .map(|c| {
                let u = |k: usize| u32::from_le_bytes(c[k..k + 4].try_into().unwrap());
                let f = |k: usize| f32::from_le_bytes(c[k..k + 4].try_into().unwrap());
                (u(0), u(4), f(8), [f(12), f(16), f(20)])
            })
            .collect();
        assert_eq!(got, want);
    }
    // A bad rays file: one line naming it.
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "0,0,0,1,0,0\n0,0,0,1,0\n").unwrap();
    let run = segbatch(&["raycast", s(&fw), s(&bad), "--radius", "1", "--range", "5"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("bad.csv: line 2 (segment 1): 5 columns, expected 6"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    let run = segbatch(&["raycast", s(&fw), s(&fr), "--radius", "1", "--range", "nan"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("the range must be a number >= 0 (inf for no limit)"),
        "{}",
        run.stderr
    );
}

/// Runs `segbatch ARGS` expecting exit code 2 and one `error:` line containing each of
/// `needles`, nothing on stdout, and only `keep` left in `dir`.
#[track_caller]
fn expect_error(dir: &Path, args: &[&str], needles: &[&str], keep: &[&Path]) {
    let run = segbatch(args);
    assert_eq!(run.code, 2, "segbatch {args:?}: stderr {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {}", run.stderr);
    assert!(lines[0].starts_with("error: "), "{}", run.stderr);
    for n in needles {
        assert!(run.stderr.contains(n), "{n:?} not in {}", run.stderr);
    }
    assert!(run.stdout.is_empty(), "stdout: {}", run.stdout);
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
    let good = d.join("good.csv");
    write_csv(&good, floats(&set3(50, 3)), 6, None);
    let keep = |extra: &Path| vec![good.clone(), extra.to_path_buf()];

    // A missing file, in either position.
    let missing = d.join("missing.csv");
    expect_error(
        d,
        &["pairs", s(&missing), "--radius", "1", "-o", o],
        &["missing.csv", "no such file"],
        &[&good],
    );
    expect_error(
        d,
        &[
            "pairs",
            s(&good),
            "--against",
            s(&missing),
            "--radius",
            "1",
            "-o",
            o,
        ],
        &["missing.csv: no such file"],
        &[&good],
    );

    // CSV: a bad number names the line, the segment, the column and the field.
    let bad = d.join("bad.csv");
    std::fs::write(&bad, "x0,y0,z0,x1,y1,z1\n0,0,0,1,1,1\n0,0,0,1,abc,1\n").unwrap();
    let k = keep(&bad);
    let k: Vec<&Path> = k.iter().map(PathBuf::as_path).collect();
    expect_error(
        d,
        &["pairs", s(&bad), "--radius", "1", "-o", o],
        &["bad.csv: line 3 (segment 1), column 5 (p1.y): 'abc' is not a number"],
        &k,
    );
    // ... and to stdout, nothing is written either.
    expect_error(d, &["pairs", s(&bad), "--radius", "1"], &["line 3"], &k);
    // A row of the wrong width (a `run` pairs file, or a 2D file given to `pairs`).
    std::fs::write(&bad, "0,0,0,1,1,1\n0,0,0,1,1,1,2,2,2,3,3,3\n").unwrap();
    expect_error(
        d,
        &["pairs", s(&bad), "--radius", "1", "-o", o],
        &["bad.csv: line 2 (segment 1): 12 columns, expected 6"],
        &k,
    );
    std::fs::write(&bad, "0,0,1,1\n").unwrap();
    expect_error(
        d,
        &["pairs", s(&bad), "--radius", "1", "-o", o],
        &["bad.csv: line 1 (segment 0): 4 columns, expected 6"],
        &k,
    );
    std::fs::write(&bad, "0,0,1,1,1\n").unwrap();
    expect_error(
        d,
        &["cross", s(&bad), "-o", o],
        &["bad.csv: line 1 (segment 0): 5 columns, expected 4 (p0, p1; x,y each)"],
        &k,
    );
    // Only a header; an empty file.
    std::fs::write(&bad, "x0,y0,x1,y1\n").unwrap();
    expect_error(
        d,
        &["cross", s(&bad), "-o", o],
        &["bad.csv: no segments"],
        &k,
    );
    std::fs::write(&bad, "").unwrap();
    expect_error(
        d,
        &["cross", s(&bad), "-o", o],
        &["bad.csv: the file is empty"],
        &k,
    );

    std::fs::remove_file(&bad).unwrap();

    // Raw: a size that is not whole segments.
    let raw = d.join("bad.f32");
    std::fs::write(&raw, vec![0u8; 84]).unwrap();
    let k = keep(&raw);
    let k: Vec<&Path> = k.iter().map(PathBuf::as_path).collect();
    expect_error(
        d,
        &["pairs", s(&raw), "--radius", "1", "-o", o],
        &[
            "bad.f32: raw f32 input of 84 bytes is not a multiple of 24 bytes",
            "segment 3 is incomplete (12 of 24 bytes)",
        ],
        &k,
    );
    expect_error(
        d,
        &["cross", s(&raw), "-o", o],
        &["bad.f32", "segment 5 is incomplete (4 of 16 bytes)"],
        &k,
    );

    std::fs::remove_file(&raw).unwrap();

    // .npy: the wrong shape, the wrong dtype, truncated data.
    let npy = d.join("bad.npy");
    let k = keep(&npy);
    let k: Vec<&Path> = k.iter().map(PathBuf::as_path).collect();
    npy_f32(&npy, &[0.0; 24], "(2, 12)");
    expect_error(
        d,
        &["pairs", s(&npy), "--radius", "1", "-o", o],
        &["bad.npy: .npy shape is (2, 12), expected (N, 6) or (N, 2, 3)"],
        &k,
    );
    npy_f32(&npy, &[0.0; 24], "(6, 4)");
    expect_error(
        d,
        &["pairs", s(&npy), "--radius", "1", "-o", o],
        &["expected (N, 6) or (N, 2, 3)"],
        &k,
    );
    npy_f32(&npy, &[0.0; 20], "(6, 4)");
    expect_error(
        d,
        &["cross", s(&npy), "-o", o],
        &["bad.npy: .npy data is truncated"],
        &k,
    );
    write_npy(
        &npy,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 6), }",
        &[0u8; 96],
    );
    expect_error(
        d,
        &["pairs", s(&npy), "--radius", "1", "-o", o],
        &["bad.npy: .npy dtype is float64 '<f8' and this run is f32: pass --precision f64"],
        &k,
    );

    std::fs::remove_file(&npy).unwrap();

    // Bad options: usage errors (clap's, a few lines with a usage hint), exit 2.
    let usage = |args: &[&str], needle: &str| {
        let run = segbatch(args);
        assert_eq!(run.code, 2, "segbatch {args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
        assert!(
            run.stderr.contains(needle),
            "{needle:?} not in {}",
            run.stderr
        );
        assert!(run.stdout.is_empty());
        assert_eq!(leftovers(d, &[&good]), Vec::<PathBuf>::new());
    };
    let g = s(&good);
    usage(
        &["pairs", g, "--radius=-1"],
        "the radius must be a number >= 0",
    );
    usage(
        &["pairs", g, "--radius", "nan"],
        "the radius must be a number >= 0",
    );
    usage(&["pairs", g], "--radius");
    usage(
        &["pairs", g, "--against", g, "--skip-shared", "--radius", "1"],
        "--skip-shared",
    );
    // Our own checks: one line.
    expect_error(
        d,
        &["pairs", g, "--radius", "1", "-o", g],
        &["the output is an input file"],
        &[&good],
    );
    expect_error(
        d,
        &["pairs", g, "--radius", "1", "--output-format", "npy"],
        &["a .npy output needs a regular file"],
        &[&good],
    );
    let nodir = d.join("no").join("out.csv");
    expect_error(
        d,
        &["pairs", g, "--radius", "1", "-o", s(&nodir)],
        &["does not exist"],
        &[&good],
    );
}

#[test]
fn an_existing_output_survives_a_failed_run() {
    let dir = temp_dir();
    let out = dir.path().join("out.csv");
    std::fs::write(&out, "previous results\n").unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "0,0,0,1,1,1\n0,0,0,1,1\n").unwrap();
    let run = segbatch(&["pairs", s(&bad), "--radius", "1", "-o", s(&out)]);
    assert_eq!(run.code, 2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous results\n");
}

#[test]
fn help_texts_describe_the_set_subcommands() {
    for (cmd, needle) in [
        ("pairs", "streamed to the output"),
        ("cross", "intersect2"),
        ("raycast", "first hit"),
    ] {
        let run = segbatch(&[cmd, "--help"]);
        assert_eq!(run.code, 0);
        assert!(run.stdout.contains(needle), "{cmd}: {}", run.stdout);
        assert!(run.stdout.contains("Examples:"), "{cmd}");
    }
    let run = segbatch(&["bench", "--help"]);
    assert!(run.stdout.contains("--sets"), "{}", run.stdout);
}

/// A street grid at UTM magnitudes (x about 480 km, y about 4,990 km) in f64, where f32
/// keeps only 0.5 m: millimetre offsets, end points exactly on other streets, and two
/// streets 2 m apart that never meet.
fn utm_streets(seed: u64) -> Vec<Segment2_64> {
    let (x0, y0) = (480_000.0, 4_990_000.0);
    let mut rng = Rng::new(seed);
    let mut set: Vec<Segment2_64> = (0..300)
        .map(|_| {
            let p = [x0 + rng.range(0.0, 200.0), y0 + rng.range(0.0, 200.0)];
            let q = [p[0] + rng.range(-20.0, 20.0), p[1] + rng.range(-20.0, 20.0)];
            Segment2_64::new(p, q)
        })
        .collect();
    for k in 0..10 {
        let c = 20.0 * f64::from(k) + 0.001;
        set.push(Segment2_64::new([x0, y0 + c], [x0 + 200.0, y0 + c]));
        // Ends exactly on the street above: touching, 1 mm off it: apart.
        set.push(Segment2_64::new([x0 + c, y0 + 1.0], [x0 + c, y0 + c]));
        set.push(Segment2_64::new(
            [x0 + c + 5.0, y0 + 1.0],
            [x0 + c + 5.0, y0 + c - 0.001],
        ));
    }
    set.push(Segment2_64::new(
        [500_000.0, 5_000_000.0],
        [500_010.0, 5_000_000.0],
    ));
    set.push(Segment2_64::new(
        [500_005.0, 5_000_002.0],
        [500_005.0, 5_000_010.0],
    ));
    set
}

#[test]
fn cross_in_f64_decides_utm_streets_as_the_f64_reference() {
    let dir = temp_dir();
    let set = utm_streets(5);
    let mut want = Vec::new();
    for i in 0..set.len() {
        for j in i + 1..set.len() {
            let x = reference::intersect2(&set[i], &set[j]);
            if x.kind != Crossing::Disjoint {
                let p = set[i].at(x.s);
                want.push((i as u32, j as u32, x.kind, p[0], p[1]));
            }
        }
    }
    let n = set.len() as u32;
    assert!(
        !want.iter().any(|w| (w.0, w.1) == (n - 2, n - 1)),
        "2 m apart"
    );
    assert!(want.len() > 100, "{} meetings", want.len());
    let values: Vec<f64> = bytemuck::cast_slice(&set).to_vec();

    // .npy float64 in, raw out: 25-byte records, f64 points.
    let data: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    let npy = dir.path().join("utm.npy");
    let dict = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, 4), }}",
        set.len()
    );
    write_npy(&npy, &dict, &data);
    let raw = dir.path().join("cross.bin");
    ok(&["cross", s(&npy), "--precision", "f64", "-o", s(&raw), "-q"]);
    let bytes = std::fs::read(&raw).unwrap();
    assert_eq!(bytes.len(), 25 * want.len());
    let mut got: Vec<_> = bytes
        .chunks(25)
        .map(|c| {
            let f = |k: usize| f64::from_le_bytes(c[k..k + 8].try_into().unwrap());
            let u = |k: usize| u32::from_le_bytes(c[k..k + 4].try_into().unwrap());
            let kind = if c[8] == 1 {
                Crossing::Point
            } else {
                Crossing::Overlap
            };
            (u(0), u(4), kind, f(9), f(17))
        })
        .collect();
    got.sort_by_key(|a| (a.0, a.1));
    assert_eq!(got, want);

    // CSV in and out: the numbers round-trip; the .npy header says '<f8'.
    let csv = dir.path().join("utm.csv");
    let text: String = values
        .chunks(4)
        .map(|r| format!("{:?},{:?},{:?},{:?}\n", r[0], r[1], r[2], r[3]))
        .collect();
    std::fs::write(&csv, text).unwrap();
    let run = ok(&["cross", s(&csv), "--precision", "f64", "--threads", "2"]);
    let mut got: Vec<_> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let kind = if f[2] == "point" {
                Crossing::Point
            } else {
                Crossing::Overlap
            };
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                kind,
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect();
    got.sort_by_key(|a: &(u32, u32, Crossing, f64, f64)| (a.0, a.1));
    assert_eq!(got, want);
    let out = dir.path().join("cross.npy");
    ok(&["cross", s(&csv), "--precision", "f64", "-o", s(&out), "-q"]);
    let head = std::fs::read(&out).unwrap();
    let head = String::from_utf8_lossy(&head[..128]);
    assert!(head.contains("('x', '<f8')"), "{head}");

    // The float64 file is never narrowed to f32 without being asked.
    let refused = segbatch(&["cross", s(&npy), "-o", s(&dir.path().join("no.csv"))]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--precision f64"),
        "{}",
        refused.stderr
    );
}

/// A set of f64 segments at UTM magnitudes with the given local layout: `f32` would round
/// every coordinate to 0.5 m here.
fn at_utm(local: &[Segment]) -> Vec<Segment64> {
    let o = [480_000.0, 4_990_000.0, 100.0];
    let shift = |p: [f32; 3]| core::array::from_fn(|k| o[k] + f64::from(p[k]) * 1.001);
    local
        .iter()
        .map(|s| Segment64::new(shift(s.p0), shift(s.p1)))
        .collect()
}

fn npy_f64(path: &Path, values: &[f64], rows: usize) {
    let data: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, 6), }}");
    write_npy(path, &dict, &data);
}

#[test]
fn pairs_and_raycast_in_f64_at_utm_are_the_f64_references() {
    let dir = temp_dir();
    // pairs: every pair i < j within R, against brute force over the f64 reference.
    let set = at_utm(&hair(600, 0.5, [10.0, 10.0, 2.0], 3));
    let radius = 0.05;
    let mut want = Vec::new();
    for i in 0..set.len() {
        for j in i + 1..set.len() {
            let d2 = reference::closest_points(&set[i], &set[j]).dist2;
            if d2 <= radius * radius {
                want.push((i as u32, j as u32, d2.sqrt()));
            }
        }
    }
    assert!(want.len() > 50, "{} pairs", want.len());
    let input = dir.path().join("hair.npy");
    npy_f64(&input, bytemuck::cast_slice(&set), set.len());
    let raw = dir.path().join("pairs.bin");
    ok(&[
        "pairs",
        s(&input),
        "--radius",
        "0.05",
        "--precision",
        "f64",
        "-o",
        s(&raw),
        "-q",
    ]);
    let bytes = std::fs::read(&raw).unwrap();
    assert_eq!(bytes.len(), 17 * want.len());
    let mut got: Vec<(u32, u32, f64)> = bytes
        .chunks(17)
        .map(|c| {
            let u = |k: usize| u32::from_le_bytes(c[k..k + 4].try_into().unwrap());
            assert_eq!(c[16], 0, "flags");
            (u(0), u(4), f64::from_le_bytes(c[8..16].try_into().unwrap()))
        })
        .collect();
    got.sort_by_key(|a| (a.0, a.1));
    assert_eq!(got, want);

    // raycast: the first wall of every ray, against brute force over reference::first_hit.
    let walls = at_utm(&walls(400, 40.0, 7));
    let rays = at_utm(&rays(300, 40.0, 8));
    let (r, range) = (0.25, 30.0);
    let mut want = Vec::new();
    for (k, ray) in rays.iter().enumerate() {
        let best = walls
            .iter()
            .enumerate()
            .filter_map(|(w, wall)| reference::first_hit(ray, r, range, wall).map(|h| (w, h)))
            .min_by(|a, b| a.1.u.total_cmp(&b.1.u).then(a.0.cmp(&b.0)));
        if let Some((w, h)) = best {
            want.push((k as u32, w as u32, h.u, h.point));
        }
    }
    assert!(want.len() > 30, "{} hits", want.len());
    let (wf, rf) = (dir.path().join("walls.npy"), dir.path().join("rays.npy"));
    npy_f64(&wf, bytemuck::cast_slice(&walls), walls.len());
    npy_f64(&rf, bytemuck::cast_slice(&rays), rays.len());
    let run = ok(&[
        "raycast",
        s(&wf),
        s(&rf),
        "--radius",
        "0.25",
        "--range",
        "30",
        "--precision",
        "f64",
        "--threads",
        "2",
    ]);
    let got: Vec<(u32, u32, f64, [f64; 3])> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let x = |k: usize| f[k].parse::<f64>().unwrap();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                x(2),
                [x(3), x(4), x(5)],
            )
        })
        .collect();
    assert_eq!(got, want);

    // An f32 run refuses the float64 files, naming the option.
    let refused = segbatch(&["pairs", s(&input), "--radius", "0.05"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("--precision f64"),
        "{}",
        refused.stderr
    );
}
