//! The same bits across builds: a digest of the bit patterns of the kernel's, the `f64`
//! lanes', the set queries', the 2D queries' and a scene's results on fixed seeded inputs,
//! checked against `tests/suite/golden_bits.txt`, which holds two columns computed once:
//!
//! - `fused`: the builds whose kernel fuses multiply-adds (x86-64-v3 and v4, aarch64);
//! - `unfused`: plain x86-64 (SSE2), and every build with the `same-bits` feature.
//!
//! NaN counts as one value whatever its sign and payload (x86 and ARM make NaNs of different
//! signs). A build checks the column [`FUSED_MUL_ADD`] names, so each build CI makes (x86-64-v3 with
//! every feature and without `same-bits`, SSE2, aarch64 under emulation) checks that it
//! computes what the build that wrote the column computed: the claims of
//! docs/architecture.md ("Which builds give the same bits"), tested across CPUs.
//!
//! A change that moves results on purpose rewrites the column of the build that runs it:
//! `SEGBATCH_GOLDEN_BITS=write cargo test --release -p segbatch --test suite -- golden_bits`
//! (the `fused` column on x86-64-v3), then the same with `--features same-bits` (the
//! `unfused` one; a plain SSE2 build, `RUSTFLAGS="-C target-cpu=x86-64"
//! CARGO_TARGET_DIR=target/sse2`, writes the same).

use segbatch::pairs::{ClosestBatch64, closest_points_into};
use segbatch::planar::{Intersections2, Segments2, crossing_pairs_into, intersect2_into};
use segbatch::reference::FUSED_MUL_ADD;
use segbatch::scenes::{Capsules, Frame, Report};
use segbatch::sets::{Hit, SharedEndpoints, pairs_within_into, self_pairs_within_into};
use segbatch::*;
use segbatch_testkit::Rng;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/suite/golden_bits.txt");

/// FNV-1a over 32-bit words.
#[derive(Clone, Copy)]
struct Digest(u64);

impl Digest {
    fn new() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }
    fn word(&mut self, w: u32) {
        for b in w.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The bits, every NaN as one: a NaN an operation makes from numbers (∞ - ∞) is
    /// negative on x86 and positive on ARM, and NaN carries no value either way.
    fn f32s(&mut self, xs: &[f32]) {
        xs.iter()
            .for_each(|x| self.word(if x.is_nan() { f32::NAN } else { *x }.to_bits()));
    }
    fn f64s(&mut self, xs: &[f64]) {
        for x in xs {
            let b = if x.is_nan() { f64::NAN } else { *x }.to_bits();
            self.word(b as u32);
            self.word((b >> 32) as u32);
        }
    }
    fn text(&mut self, s: &str) {
        s.bytes().for_each(|b| self.word(u32::from(b)));
    }
}

fn add(p: [f32; 3], q: [f32; 3]) -> [f32; 3] {
    [p[0] + q[0], p[1] + q[1], p[2] + q[2]]
}

/// Pairs of every hard class (the testkit's mix: parallel, degenerate, huge, tiny,
/// non-finite…) at every extent.
fn kernel() -> u64 {
    let mut rng = Rng::new(0x901d_b175);
    let pairs: Vec<(Segment, Segment)> = (0..1500)
        .map(|_| segbatch_testkit::pairs::any(&mut rng))
        .collect();
    let a: Segments = pairs.iter().map(|p| p.0).collect();
    let b: Segments = pairs.iter().map(|p| p.1).collect();
    let mut d = Digest::new();
    let mut out = ClosestBatch::new();
    let extents = [Extent::Segment, Extent::Ray, Extent::Line];
    for ea in extents {
        for eb in extents {
            pairs::closest_points_into(&a, &b, &Options::new(ea, eb), Outputs::ALL, &mut out)
                .unwrap();
            for i in 0..pairs.len() {
                let c = out.get(i).unwrap();
                d.f32s(&[c.s, c.t, c.dist2]);
                d.f32s(&c.point_a);
                d.f32s(&c.point_b);
                d.word(u32::from(c.flags.bits()));
            }
        }
    }
    d.0
}

/// The same pairs widened to `f64`, through the `f64` lanes.
fn lanes64() -> u64 {
    let mut rng = Rng::new(0x901d_6464);
    let wide = |s: &Segment| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from));
    let pairs: Vec<(Segment64, Segment64)> = (0..1000)
        .map(|_| {
            let (a, b) = segbatch_testkit::pairs::any(&mut rng);
            (wide(&a), wide(&b))
        })
        .collect();
    let a: Segments64 = pairs.iter().map(|p| p.0).collect();
    let b: Segments64 = pairs.iter().map(|p| p.1).collect();
    let mut d = Digest::new();
    let mut out = ClosestBatch64::new();
    for options in [Options::SEGMENTS, Options::new(Extent::Ray, Extent::Line)] {
        closest_points_into(&a, &b, &options, Outputs::ALL, &mut out).unwrap();
        for i in 0..pairs.len() {
            let c = out.get(i).unwrap();
            d.f64s(&[c.s, c.t, c.dist2]);
            d.f64s(&c.point_a);
            d.f64s(&c.point_b);
            d.word(u32::from(c.flags.bits()));
        }
    }
    d.0
}

/// A scene of paths, degenerate and collinear pieces at a few scales and offsets.
fn scene(rng: &mut Rng, n: usize) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(n);
    let scale = [1e-3f32, 1.0, 1e3][rng.below(3) as usize];
    let offset = [0.0f32, 1e2, 1e4][rng.below(3) as usize];
    let origin = rng.cube_f32(offset);
    for _ in 0..n {
        let p0 = add(origin, rng.cube_f32(scale));
        let seg = match (rng.below(8), out.last()) {
            (0, _) => Segment::new(p0, p0),
            (1 | 2, Some(prev)) => Segment::new(prev.p1, add(prev.p1, rng.cube_f32(scale * 0.5))),
            (3, Some(prev)) => {
                let k = rng.range_f32(-1.0, 1.0) * 2.0;
                Segment::new(prev.at(k), prev.at(k + rng.range_f32(-1.0, 1.0)))
            }
            (4, _) if rng.below(4) == 0 => {
                let mut s = Segment::new(p0, add(p0, rng.cube_f32(scale)));
                s.p1[rng.below(3) as usize] = [f32::NAN, f32::INFINITY][rng.below(2) as usize];
                s
            }
            _ => Segment::new(p0, add(p0, rng.cube_f32(scale * 0.5))),
        };
        out.push(seg);
    }
    out
}

fn hits(d: &mut Digest, hits: &[Hit]) {
    d.word(hits.len() as u32);
    for h in hits {
        d.word(h.i);
        d.word(h.j);
        d.f32s(&[h.dist2, h.s, h.t]);
    }
}

/// Pairs within a radius (between two sets, and in one set with per-object radii), the
/// radii taken from the distances so that many pairs sit exactly at them.
fn sets() -> u64 {
    let mut rng = Rng::new(0x901d_5e75);
    let mut d = Digest::new();
    let mut out = Vec::new();
    for round in 0..6 {
        let a: Segments = scene(&mut rng, 300).into_iter().collect();
        let b: Segments = scene(&mut rng, 200).into_iter().collect();
        let probe = reference::closest_points(&a.get(0).unwrap(), &b.get(round).unwrap());
        let r = if probe.dist2.is_finite() {
            probe.dist2.sqrt()
        } else {
            1.0
        };
        pairs_within_into(&a, &b, r, &Options::SEGMENTS, &mut out).unwrap();
        hits(&mut d, &out);
        let radii: Vec<f32> = (0..a.len()).map(|i| [0.0, 0.5 * r, r][i % 3]).collect();
        self_pairs_within_into(
            &a,
            &radii[..],
            SharedEndpoints::Keep,
            &Options::SEGMENTS,
            &mut out,
        )
        .unwrap();
        hits(&mut d, &out);
    }
    d.0
}

/// 2D: pairs of every class through the 2D kernel, and the crossing pairs of a set.
fn planar() -> u64 {
    let mut rng = Rng::new(0x901d_2d2d);
    let pairs: Vec<_> = (0..1200)
        .map(|k| segbatch_testkit::motion::seg2_pair(&mut rng, k))
        .collect();
    let a: Segments2 = pairs.iter().map(|p| p.0).collect();
    let b: Segments2 = pairs.iter().map(|p| p.1).collect();
    let mut d = Digest::new();
    let mut out = Intersections2::new();
    intersect2_into(&a, &b, &mut out).unwrap();
    for i in 0..pairs.len() {
        let x = out.get(i).unwrap();
        d.text(&format!("{:?} {:?}", x.kind, x.flags));
        d.f32s(&[x.s, x.t, x.s_end, x.t_end]);
        d.f32s(&x.point_a);
        d.f32s(&x.point_b);
    }
    let set: Segments2 = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    let mut crossings = Vec::new();
    crossing_pairs_into(&set, SharedEndpoints::Keep, &mut crossings).unwrap();
    d.word(crossings.len() as u32);
    for c in &crossings {
        d.word(c.i);
        d.word(c.j);
        d.f32s(&[c.s]);
        d.text(&format!("{:?}", c.kind));
    }
    d.0
}

/// A scene of capsules moved over a few frames: its pairs and contacts.
fn scenes() -> u64 {
    let mut rng = Rng::new(0x901d_5ce7);
    let mut d = Digest::new();
    let mut capsules = Capsules::new();
    let mut ids = Vec::new();
    let first = scene(&mut rng, 400);
    for (k, s) in first.iter().enumerate() {
        ids.push(capsules.insert(*s, [0.0, 0.01, 0.1, 1.0][k % 4]).unwrap());
    }
    let mut frame = Frame::new();
    for _ in 0..4 {
        let moved = scene(&mut rng, 400);
        for (k, s) in moved.iter().enumerate().filter(|(k, _)| k % 3 == 0) {
            capsules.set(ids[k], *s).unwrap();
        }
        capsules.frame_into(Report::CONTACTS | Report::EVENTS, &mut frame);
        d.word(frame.pairs().len() as u32);
        for &(i, j) in frame.pairs() {
            d.word(i);
            d.word(j);
        }
        for c in frame.contacts() {
            d.word(c.pair);
            d.word(c.i);
            d.word(c.j);
            d.f32s(&c.normal);
            d.f32s(&[c.depth]);
            d.f32s(&c.point_a);
            d.f32s(&c.point_b);
        }
    }
    d.0
}

/// `(name, fused, unfused)` rows of the golden file.
fn read() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(FILE).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect()
}

#[test]
fn every_build_gives_the_bits_of_its_column() {
    let computed: Vec<(&str, String)> = [
        ("kernel", kernel as fn() -> u64),
        ("lanes64", lanes64),
        ("sets", sets),
        ("planar", planar),
        ("scenes", scenes),
    ]
    .into_iter()
    .map(|(name, f)| (name, format!("{:016x}", f())))
    .collect();
    let column = if FUSED_MUL_ADD { "fused" } else { "unfused" };
    let build = format!(
        "{} ({}, same-bits {})",
        segbatch::simd::SIMD_LEVEL,
        column,
        segbatch::simd::SAME_BITS
    );
    let rows = read();
    if std::env::var("SEGBATCH_GOLDEN_BITS").as_deref() == Ok("write") {
        let mut text = String::from(
            "# Digests of result bits: tests/suite/golden_bits.rs says how they are made and\n\
             # rewritten. fused: x86-64-v3/v4 and aarch64; unfused: SSE2 and `same-bits`.\n\
             # query   fused             unfused\n",
        );
        for (name, digest) in &computed {
            let old = rows.iter().find(|r| r.0 == *name);
            let keep = |k: usize| old.map_or("-".to_string(), |r| [&r.1, &r.2][k].clone());
            let (fused, unfused) = if FUSED_MUL_ADD {
                (digest.clone(), keep(1))
            } else {
                (keep(0), digest.clone())
            };
            text.push_str(&format!("{name:<9} {fused} {unfused}\n"));
        }
        std::fs::write(FILE, text).unwrap();
        return;
    }
    let mut wrong = Vec::new();
    for (name, digest) in &computed {
        let row = rows.iter().find(|r| r.0 == *name);
        let want = row.map(|r| if FUSED_MUL_ADD { &r.1 } else { &r.2 });
        if want != Some(digest) {
            wrong.push(format!("{name}: this build {digest}, golden {want:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "build {build} differs from the `{column}` column of {FILE}:\n{}",
        wrong.join("\n")
    );
}
