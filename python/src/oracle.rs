//! The Python tests' oracle, `segbatch._segbatch._oracle(args)`: runs the crate's queries
//! straight through its Rust API on raw little-endian `f32` files and writes raw results, so
//! the tests can check the binding (array conversion, chunks, threads, interrupts) against
//! the crate bit for bit. Each query is written once over the precision (a name ending in
//! `64` runs it in `f64`). It lives in the extension so that each copy of it (baseline and
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
//!   contacts PAIRS RA RB          pair i j (u64) normal depth point_a point_b
//!   first_hits RADIUS RANGE       index (i64, -1 for none) u point; A the indexed set, B the rays
//!   index_pairs_within RADIUS     as pairs_within, B against an index over A (i in B, j in A)
//!   QUERY64 (every 3D query above)
//!                                 in f64: same arguments and outputs, on raw f64 files,
//!                                 writing f64 values
//! ```
//!
//! Each output is `OUT_DIR/NAME.bin`: `f32` (`f64` for the f64 forms), `u8` or `u64`
//! values in pair order.

use super::Real;
use segbatch::motion::Window;
use segbatch::pairs::Radii;
use segbatch::planar::{Segment2, Segments2};
use segbatch::sets::{Hit, PerRay, SegmentIndex, SharedEndpoints};
use segbatch::{ClosestBatch, Extent, Options, Outputs, Soa};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The little-endian values of a raw file of `E`s, bit for bit (NaN payloads included).
fn read<E: Real>(path: &str) -> Vec<E> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value = |c: &[u8]| match *c {
        [a, b, c, d] => bytemuck::try_cast(u32::from_le_bytes([a, b, c, d])),
        _ => bytemuck::try_cast(u64::from_le_bytes(c.try_into().expect("8 bytes"))),
    };
    bytes
        .chunks_exact(size_of::<E>())
        .map(|c| value(c).expect("a value of the precision"))
        .collect()
}

fn write<T: bytemuck::Pod>(dir: &Path, name: &str, data: &[T]) {
    let path: PathBuf = dir.join(format!("{name}.bin"));
    std::fs::write(&path, bytemuck::cast_slice::<T, u8>(data))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// One value of each of `items`, written as the column `name`.
fn column<T, V: bytemuck::Pod>(dir: &Path, name: &str, items: &[T], value: impl Fn(&T) -> V) {
    write(dir, name, &items.iter().map(value).collect::<Vec<_>>());
}

/// `D` point columns as `(x, y[, z])` rows.
fn rows<const D: usize, E: Copy>(cols: [&[E]; D]) -> Vec<E> {
    let n = cols[0].len();
    (0..n).flat_map(|i| cols.map(|c| c[i])).collect()
}

fn hits<E: Real>(dir: &Path, hits: &[Hit<E>]) {
    column(dir, "i", hits, |h| u64::from(h.i));
    column(dir, "j", hits, |h| u64::from(h.j));
    column(dir, "dist2", hits, |h| h.dist2);
    column(dir, "s", hits, |h| h.s);
    column(dir, "t", hits, |h| h.t);
}

fn closest<E: Real>(dir: &Path, o: &ClosestBatch<E>) {
    write(dir, "dist2", o.dist2());
    write(dir, "s", o.s());
    write(dir, "t", o.t());
    write(dir, "point_a", &rows(o.point_a()));
    write(dir, "point_b", &rows(o.point_b()));
    write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
}

/// One byte a pair: whether the mask holds it.
fn touch(dir: &Path, n: usize, m: &segbatch::pairs::PairMask) {
    let touch: Vec<u8> = (0..n).map(|i| u8::from(m.get(i) == Some(true))).collect();
    write(dir, "touch", &touch);
}

fn shared(arg: &str) -> SharedEndpoints {
    if arg == "1" {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    }
}

fn num<E: FromStr>(s: &str) -> E {
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

/// A batch of the records `T` from a raw file of `E`s (six a record).
fn batch<T: segbatch::Record<6, E>, E: Real>(path: &str) -> Soa<T, 6, E> {
    Soa::from(bytemuck::cast_slice::<E, T>(&read::<E>(path)))
}

/// Runs `QUERY A B OUT_DIR [ARGS...]` (see the module docs); panics on a bad argument or
/// file, which Python sees as a `PanicException` that fails the test.
pub(crate) fn run(args: &[String]) {
    let arg = |k: usize| {
        args.get(k)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("missing argument {k}"))
    };
    let (query, dir) = (arg(0), Path::new(arg(3)));
    std::fs::create_dir_all(dir).expect("output directory");
    match query {
        "intersect2" => intersect2(&args[1..3], dir),
        "crossing_pairs" => crossing_pairs(arg(1), dir),
        _ => match query.strip_suffix("64") {
            Some(query) => run_in::<f64>(query, &arg, dir),
            None => run_in::<f32>(query, &arg, dir),
        },
    }
}

/// A 3D query in the precision `E`.
fn run_in<'s, E: Real + FromStr>(query: &str, arg: &impl Fn(usize) -> &'s str, dir: &Path) {
    let segs = |k: usize| batch::<E::Segment, E>(arg(k));
    let (a, b) = (segs(1), segs(2));
    // The same files as start/end segments, as motions.
    let steps = |k: usize| batch::<E::Step, E>(arg(k));
    let radii = |k: usize| Radii::uniform(num::<E>(arg(k)), num(arg(k + 1))).expect("radii");
    match query {
        "closest" => {
            let ext = |s: &str| s.parse::<Extent>().expect("extent");
            let opts = Options::new(ext(arg(4)), ext(arg(5)));
            let mut o = ClosestBatch::new();
            segbatch::pairs::closest_points_into(&a, &b, &opts, Outputs::ALL, &mut o)
                .expect("same lengths");
            closest(dir, &o);
        }
        "capsules" => touch(
            dir,
            a.len(),
            &segbatch::pairs::capsules_touch(&a, &b, radii(4)),
        ),
        "cpa" | "cpa_segments" => {
            let o = if query == "cpa" {
                let tracks = |k: usize| batch::<E::Track, E>(arg(k));
                let w = Window::new(num(arg(4))).expect("window");
                segbatch::motion::cpa(&tracks(1), &tracks(2), w)
            } else {
                segbatch::motion::cpa(&steps(1), &steps(2), Window::STEP)
            };
            write(dir, "t", o.t());
            write(dir, "dist2", o.dist2());
            write(dir, "point_a", &rows(o.point_a()));
            write(dir, "point_b", &rows(o.point_b()));
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "first_contact" | "first_contact_segments" => {
            let o = if query == "first_contact" {
                let tracks = |k: usize| batch::<E::Track, E>(arg(k));
                let w = Window::new(num(arg(6))).expect("window");
                segbatch::motion::first_contact(&tracks(1), &tracks(2), radii(4), w)
            } else {
                segbatch::motion::first_contact(&steps(1), &steps(2), radii(4), Window::STEP)
            };
            column(dir, "hit", o.hit(), |h| u8::from(*h));
            write(dir, "t", o.t());
            write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
        }
        "pairs_within" => hits(dir, &segbatch::sets::pairs_within(&a, &b, num::<E>(arg(4)))),
        "self_pairs_within" => hits(
            dir,
            &segbatch::sets::self_pairs_within(&a, num::<E>(arg(4)), shared(arg(5))),
        ),
        "closest_indexed" => closest(
            dir,
            &segbatch::pairs::closest_points_indexed(&a, &b, &pairs(arg(4))),
        ),
        "capsules_indexed" => {
            let p = pairs(arg(4));
            let m = segbatch::pairs::capsules_touch_indexed(&a, &b, &p, radii(5));
            touch(dir, p.len(), &m);
        }
        "contacts" => {
            let c = segbatch::pairs::capsule_contacts(&a, &b, &pairs(arg(4)), radii(5));
            column(dir, "pair", &c, |x| u64::from(x.pair));
            column(dir, "i", &c, |x| u64::from(x.i));
            column(dir, "j", &c, |x| u64::from(x.j));
            column(dir, "normal", &c, |x| x.normal);
            column(dir, "depth", &c, |x| x.depth);
            column(dir, "point_a", &c, |x| x.point_a);
            column(dir, "point_b", &c, |x| x.point_b);
        }
        "first_hits" => {
            let index = SegmentIndex::new(&a).expect("an index");
            let h = index
                .first_hits(&b, PerRay::One(num(arg(4))), PerRay::One(num(arg(5))))
                .expect("radius and range");
            column(dir, "index", &h, |x| x.map_or(-1, |x| i64::from(x.index)));
            column(dir, "u", &h, |x| x.map_or(E::from_f64(f64::NAN), |x| x.u));
            column(dir, "point", &h, |x| {
                x.map_or([E::from_f64(f64::NAN); 3], |x| x.point)
            });
        }
        "index_pairs_within" => {
            let index = SegmentIndex::new(&a).expect("an index");
            hits(
                dir,
                &index.pairs_within(&b, num::<E>(arg(4))).expect("radius"),
            );
        }
        q => panic!("unknown query {q}"),
    }
}

/// 2D segments from a raw `f32` file (four numbers a segment).
fn segs2(path: &str) -> Segments2 {
    Segments2::from(bytemuck::cast_slice::<f32, Segment2>(&read::<f32>(path)))
}

fn intersect2(files: &[String], dir: &Path) {
    let o = segbatch::planar::intersect2(&segs2(&files[0]), &segs2(&files[1]));
    column(dir, "kind", o.kind(), |k| *k as u8);
    write(dir, "s", o.s());
    write(dir, "t", o.t());
    write(dir, "s_end", o.s_end());
    write(dir, "t_end", o.t_end());
    write(dir, "dist2", o.dist2());
    write(dir, "point_a", &rows(o.point_a()));
    write(dir, "point_b", &rows(o.point_b()));
    write(dir, "flags", bytemuck::cast_slice::<_, u8>(o.flags()));
}

fn crossing_pairs(file: &str, dir: &Path) {
    let h = segbatch::planar::crossing_pairs(&segs2(file));
    column(dir, "i", &h, |x| u64::from(x.i));
    column(dir, "j", &h, |x| u64::from(x.j));
    column(dir, "s", &h, |x| x.s);
    column(dir, "kind", &h, |x| x.kind as u8);
}
