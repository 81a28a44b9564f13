//! The Python tests' oracle, `segbatch._segbatch._oracle(args)`: runs the crate's queries
//! straight through its Rust API on raw little-endian `f32` files and writes raw results, so
//! the tests can check the binding (array conversion, chunks, threads, interrupts) against
//! the crate bit for bit. It lives in the extension so that each copy of it (baseline and
//! x86-64-v3) is checked against the crate built for the same SIMD level, and so that the
//! tests of an installed wheel need no Rust toolchain.
//!
//! ```text
//! _oracle([QUERY, A, B, OUT_DIR, ARGS...])
//!   closest EXTENT_A EXTENT_B     dist2 s t point_a point_b (x,y,z rows) flags
//!   capsules RA RB                touch (u8)
//!   intersect2                    kind s t s_end t_end dist2 point_a point_b flags
//!   cpa WINDOW | cpa_segments     t dist2 point_a point_b flags
//!   first_contact RA RB WINDOW | first_contact_segments RA RB     hit t flags
//!   pairs_within RADIUS           i j (u64) dist2 s t
//!   self_pairs_within RADIUS SKIP (B is ignored; SKIP is 0 or 1)
//!   crossing_pairs                i j (u64) s kind (u8); A is a 2D set, B is ignored
//!   closest_indexed PAIRS         as closest, for the index pairs of the file PAIRS (u32 i, j)
//!   capsules_indexed PAIRS RA RB  touch (u8)
//!   contacts PAIRS RA RB          pair (u64) normal depth point_a point_b
//!   first_hits RADIUS RANGE       index (i64, -1 for none) u point; A the indexed set, B the rays
//!   index_pairs_within RADIUS     as pairs_within, B against an index over A (i in B, j in A)
//!   closest64, capsules64, cpa64, cpa_segments64, pairs_within64, self_pairs_within64,
//!   first_hits64, first_contact64, first_contact_segments64, closest_indexed64,
//!   contacts64
//!                                 the crate's f64 forms, same arguments and outputs, on raw
//!                                 f64 files, writing f64 values
//! ```
//!
//! Each output is `OUT_DIR/NAME.bin`: `f32` (`f64` for the f64 forms), `u8` or `u64`
//! values in pair order.

use segbatch::motion::{Track, Track64, Tracks, Tracks64, Window, Window64};
use segbatch::pairs::{ClosestBatch64, Radii, Radii64};
use segbatch::planar::{Segment2, Segments2};
use segbatch::sets::{Hit, Hit64, SharedEndpoints};
use segbatch::{ClosestBatch, Extent, Options, Outputs, Segments, Segments64};
use std::path::{Path, PathBuf};

fn read(path: &str) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn read64(path: &str) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

fn write<T: bytemuck::Pod>(dir: &Path, name: &str, data: &[T]) {
    let path: PathBuf = dir.join(format!("{name}.bin"));
    std::fs::write(&path, bytemuck::cast_slice::<T, u8>(data))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// `D` point columns as `(x, y[, z])` rows.
fn rows<const D: usize, E: Copy>(cols: [&[E]; D]) -> Vec<E> {
    let n = cols[0].len();
    (0..n).flat_map(|i| cols.map(|c| c[i])).collect()
}

fn hits(dir: &Path, hits: &[Hit]) {
    let i: Vec<u64> = hits.iter().map(|h| h.i as u64).collect();
    let j: Vec<u64> = hits.iter().map(|h| h.j as u64).collect();
    write(dir, "i", &i);
    write(dir, "j", &j);
    write(
        dir,
        "dist2",
        &hits.iter().map(|h| h.dist2).collect::<Vec<_>>(),
    );
    write(dir, "s", &hits.iter().map(|h| h.s).collect::<Vec<_>>());
    write(dir, "t", &hits.iter().map(|h| h.t).collect::<Vec<_>>());
}

fn hits64(dir: &Path, hits: &[Hit64]) {
    let i: Vec<u64> = hits.iter().map(|h| h.i as u64).collect();
    let j: Vec<u64> = hits.iter().map(|h| h.j as u64).collect();
    write(dir, "i", &i);
    write(dir, "j", &j);
    write(
        dir,
        "dist2",
        &hits.iter().map(|h| h.dist2).collect::<Vec<_>>(),
    );
    write(dir, "s", &hits.iter().map(|h| h.s).collect::<Vec<_>>());
    write(dir, "t", &hits.iter().map(|h| h.t).collect::<Vec<_>>());
}

fn num64(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
}

fn segs64(path: &str) -> Segments64 {
    Segments64::from_flat(&read64(path)).expect("6 numbers per segment")
}

fn shared(arg: &str) -> SharedEndpoints {
    if arg == "1" {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    }
}

fn num(s: &str) -> f32 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
}

/// Index pairs from a file of little-endian `u32` (`i, j` per pair).
fn pairs(path: &str) -> Vec<(u32, u32)> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    bytes
        .chunks_exact(8)
        .map(|c| {
            let w = |k: usize| u32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]);
            (w(0), w(4))
        })
        .collect()
}

fn segs(path: &str) -> Segments {
    Segments::from_flat(&read(path)).expect("6 numbers per segment")
}

/// Runs `QUERY A B OUT_DIR [ARGS...]` (see the module docs); panics on a bad argument or
/// file, which Python sees as a `PanicException` that fails the test.
pub(crate) fn run(args: &[String]) {
    let arg = |k: usize| {
        args.get(k)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("missing argument {k}"))
    };
    let (query, fa, fb, dir) = (arg(0), arg(1), arg(2), Path::new(arg(3)));
    std::fs::create_dir_all(dir).expect("output directory");
    match query {
        "closest" => {
            let ext = |s: &str| s.parse::<Extent>().expect("extent");
            let opts = Options::new(ext(arg(4)), ext(arg(5)));
            let mut o = ClosestBatch::new();
            segbatch::pairs::closest_points_into(&segs(fa), &segs(fb), &opts, Outputs::ALL, &mut o)
                .expect("same lengths");
            write(dir, "dist2", o.dist2());
            write(dir, "s", o.s());
            write(dir, "t", o.t());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "capsules" => {
            let radii = Radii::uniform(num(arg(4)), num(arg(5))).expect("radii");
            let m = segbatch::pairs::capsules_touch(&segs(fa), &segs(fb), radii);
            let touch: Vec<u8> = (0..m.len())
                .map(|i| u8::from(m.get(i) == Some(true)))
                .collect();
            write(dir, "touch", &touch);
        }
        "intersect2" => {
            let two = |p: &str| Segments2::from(bytemuck::cast_slice::<f32, Segment2>(&read(p)));
            let o = segbatch::planar::intersect2(&two(fa), &two(fb));
            let kind: Vec<u8> = o.kind().iter().map(|k| *k as u8).collect();
            write(dir, "kind", &kind);
            write(dir, "s", o.s());
            write(dir, "t", o.t());
            write(dir, "s_end", o.s_end());
            write(dir, "t_end", o.t_end());
            write(dir, "dist2", o.dist2());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "cpa" | "cpa_segments" => {
            let o = if query == "cpa" {
                let tr = |p: &str| Tracks::from(bytemuck::cast_slice::<f32, Track>(&read(p)));
                let w = Window::new(num(arg(4))).expect("window");
                segbatch::motion::cpa(&tr(fa), &tr(fb), w)
            } else {
                segbatch::motion::cpa(&segs(fa), &segs(fb), Window::STEP)
            };
            write(dir, "t", o.t());
            write(dir, "dist2", o.dist2());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "first_contact" | "first_contact_segments" => {
            let radii = Radii::uniform(num(arg(4)), num(arg(5))).expect("radii");
            let o = if query == "first_contact" {
                let tr = |p: &str| Tracks::from(bytemuck::cast_slice::<f32, Track>(&read(p)));
                let w = Window::new(num(arg(6))).expect("window");
                segbatch::motion::first_contact(&tr(fa), &tr(fb), radii, w)
            } else {
                segbatch::motion::first_contact(&segs(fa), &segs(fb), radii, Window::STEP)
            };
            let hit: Vec<u8> = o.hit().iter().map(|h| u8::from(*h)).collect();
            write(dir, "hit", &hit);
            write(dir, "t", o.t());
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "pairs_within" => hits(
            dir,
            &segbatch::sets::pairs_within(&segs(fa), &segs(fb), num(arg(4))),
        ),
        "self_pairs_within" => hits(
            dir,
            &segbatch::sets::self_pairs_within(&segs(fa), num(arg(4)), shared(arg(5))),
        ),
        "closest64" => {
            let ext = |s: &str| s.parse::<Extent>().expect("extent");
            let opts = Options::new(ext(arg(4)), ext(arg(5)));
            let mut o = ClosestBatch64::new();
            segbatch::pairs::closest_points_into(
                &segs64(fa),
                &segs64(fb),
                &opts,
                Outputs::ALL,
                &mut o,
            )
            .expect("same lengths");
            write(dir, "dist2", o.dist2());
            write(dir, "s", o.s());
            write(dir, "t", o.t());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "first_contact64" | "first_contact_segments64" => {
            let radii = Radii64::uniform(num64(arg(4)), num64(arg(5))).expect("radii");
            let o = if query == "first_contact64" {
                let tr = |p: &str| Tracks64::from(bytemuck::cast_slice::<f64, Track64>(&read64(p)));
                let w = Window64::new(num64(arg(6))).expect("window");
                segbatch::motion::first_contact(&tr(fa), &tr(fb), radii, w)
            } else {
                segbatch::motion::first_contact(&segs64(fa), &segs64(fb), radii, Window::STEP)
            };
            let hit: Vec<u8> = o.hit().iter().map(|h| u8::from(*h)).collect();
            write(dir, "hit", &hit);
            write(dir, "t", o.t());
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "closest_indexed64" => {
            let o =
                segbatch::pairs::closest_points_indexed(&segs64(fa), &segs64(fb), &pairs(arg(4)));
            write(dir, "dist2", o.dist2());
            write(dir, "s", o.s());
            write(dir, "t", o.t());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "contacts64" => {
            let radii = Radii64::uniform(num64(arg(5)), num64(arg(6))).expect("radii");
            let c =
                segbatch::pairs::capsule_contacts(&segs64(fa), &segs64(fb), &pairs(arg(4)), radii);
            write(
                dir,
                "pair",
                &c.iter().map(|x| u64::from(x.pair)).collect::<Vec<_>>(),
            );
            write(
                dir,
                "normal",
                &c.iter().map(|x| x.normal).collect::<Vec<_>>(),
            );
            write(dir, "depth", &c.iter().map(|x| x.depth).collect::<Vec<_>>());
            write(
                dir,
                "point_a",
                &c.iter().map(|x| x.point_a).collect::<Vec<_>>(),
            );
            write(
                dir,
                "point_b",
                &c.iter().map(|x| x.point_b).collect::<Vec<_>>(),
            );
        }
        "capsules64" => {
            let radii = Radii64::uniform(num64(arg(4)), num64(arg(5))).expect("radii");
            let m = segbatch::pairs::capsules_touch(&segs64(fa), &segs64(fb), radii);
            let touch: Vec<u8> = (0..m.len())
                .map(|i| u8::from(m.get(i) == Some(true)))
                .collect();
            write(dir, "touch", &touch);
        }
        "first_hits64" => {
            let index = segbatch::sets::SegmentIndex64::new(&segs64(fa)).expect("an index");
            let h = index
                .first_hits(&segs64(fb), num64(arg(4)), num64(arg(5)))
                .expect("radius and range");
            let idx: Vec<i64> = h
                .iter()
                .map(|x| x.map_or(-1, |x| i64::from(x.index)))
                .collect();
            write(dir, "index", &idx);
            let u: Vec<f64> = h.iter().map(|x| x.map_or(f64::NAN, |x| x.u)).collect();
            write(dir, "u", &u);
            let point: Vec<[f64; 3]> = h
                .iter()
                .map(|x| x.map_or([f64::NAN; 3], |x| x.point))
                .collect();
            write(dir, "point", &point);
        }
        "cpa64" | "cpa_segments64" => {
            let o = if query == "cpa64" {
                let tr = |p: &str| Tracks64::from(bytemuck::cast_slice::<f64, Track64>(&read64(p)));
                let w = Window64::new(num64(arg(4))).expect("window");
                segbatch::motion::cpa(&tr(fa), &tr(fb), w)
            } else {
                segbatch::motion::cpa(&segs64(fa), &segs64(fb), Window::STEP)
            };
            write(dir, "t", o.t());
            write(dir, "dist2", o.dist2());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "pairs_within64" => hits64(
            dir,
            &segbatch::sets::pairs_within(&segs64(fa), &segs64(fb), num64(arg(4))),
        ),
        "self_pairs_within64" => hits64(
            dir,
            &segbatch::sets::self_pairs_within(&segs64(fa), num64(arg(4)), shared(arg(5))),
        ),
        "crossing_pairs" => {
            let set = Segments2::from(bytemuck::cast_slice::<f32, Segment2>(&read(fa)));
            let h = segbatch::planar::crossing_pairs(&set);
            write(
                dir,
                "i",
                &h.iter().map(|x| u64::from(x.i)).collect::<Vec<_>>(),
            );
            write(
                dir,
                "j",
                &h.iter().map(|x| u64::from(x.j)).collect::<Vec<_>>(),
            );
            write(dir, "s", &h.iter().map(|x| x.s).collect::<Vec<_>>());
            write(
                dir,
                "kind",
                &h.iter().map(|x| x.kind as u8).collect::<Vec<_>>(),
            );
        }
        "closest_indexed" => {
            let o = segbatch::pairs::closest_points_indexed(&segs(fa), &segs(fb), &pairs(arg(4)));
            write(dir, "dist2", o.dist2());
            write(dir, "s", o.s());
            write(dir, "t", o.t());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "capsules_indexed" => {
            let radii = Radii::uniform(num(arg(5)), num(arg(6))).expect("radii");
            let p = pairs(arg(4));
            let m = segbatch::pairs::capsules_touch_indexed(&segs(fa), &segs(fb), &p, radii);
            let touch: Vec<u8> = (0..p.len())
                .map(|i| u8::from(m.get(i) == Some(true)))
                .collect();
            write(dir, "touch", &touch);
        }
        "contacts" => {
            let radii = Radii::uniform(num(arg(5)), num(arg(6))).expect("radii");
            let c = segbatch::pairs::capsule_contacts(&segs(fa), &segs(fb), &pairs(arg(4)), radii);
            write(
                dir,
                "pair",
                &c.iter().map(|x| u64::from(x.pair)).collect::<Vec<_>>(),
            );
            write(
                dir,
                "i",
                &c.iter().map(|x| u64::from(x.i)).collect::<Vec<_>>(),
            );
            write(
                dir,
                "j",
                &c.iter().map(|x| u64::from(x.j)).collect::<Vec<_>>(),
            );
            write(
                dir,
                "normal",
                &c.iter().map(|x| x.normal).collect::<Vec<_>>(),
            );
            write(dir, "depth", &c.iter().map(|x| x.depth).collect::<Vec<_>>());
            write(
                dir,
                "point_a",
                &c.iter().map(|x| x.point_a).collect::<Vec<_>>(),
            );
            write(
                dir,
                "point_b",
                &c.iter().map(|x| x.point_b).collect::<Vec<_>>(),
            );
        }
        "first_hits" => {
            let index = segbatch::SegmentIndex::new(&segs(fa)).expect("an index");
            let h = index
                .first_hits(&segs(fb), num(arg(4)), num(arg(5)))
                .expect("radius and range");
            let idx: Vec<i64> = h
                .iter()
                .map(|x| x.map_or(-1, |x| i64::from(x.index)))
                .collect();
            write(dir, "index", &idx);
            write(
                dir,
                "u",
                &h.iter()
                    .map(|x| x.map_or(f32::NAN, |x| x.u))
                    .collect::<Vec<_>>(),
            );
            let point: Vec<[f32; 3]> = h
                .iter()
                .map(|x| x.map_or([f32::NAN; 3], |x| x.point))
                .collect();
            write(dir, "point", &point);
        }
        "index_pairs_within" => {
            let index = segbatch::SegmentIndex::new(&segs(fa)).expect("an index");
            hits(
                dir,
                &index.pairs_within(&segs(fb), num(arg(4))).expect("radius"),
            );
        }
        q => panic!("unknown query {q}"),
    }
}
