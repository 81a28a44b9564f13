//! `segbatch bench --scenes`: a moving capsule scene, frame after frame, against parry3d's
//! `Bvh` kept the way rapier keeps it (the peers are in [`super::scene_peers`]).
//!
//! 50K capsules (radius 0.05-0.2, length 0.5-2, in a 100³ box) drift a little each frame;
//! each frame asks for every touching pair and its contacts. segbatch's
//! [`Capsules`] gets the frame's end points with `set_all` and
//! answers with `frame_into` (one thread) or `par_frame_into` (the pool's threads);
//! the peer updates its leaves, refits, optimises, self-traverses and runs parry3d's
//! capsule contact manifold (one thread). Two more rows answer each frame from scratch with
//! the set queries (one thread): `self_pairs_within_into` with the per-object radii, each
//! pair decided once, then `capsule_contacts_into` on its hits; and the same at twice the
//! largest radius, whose candidates `capsule_contacts_into` decides again with the real
//! radii (what a caller had to do before the set queries took a radius an object). Both start from the scene built on frame 0
//! (not timed) and run the same 60 frames; the time is the median over rounds (run one
//! after the other, interleaved) of the mean time a frame. The check compares, on the
//! first, middle and last frame, segbatch's pairs with brute force over the reference
//! and says how the peer's differ.

use std::io::Write;
use std::time::Instant;

use segbatch::pairs::{CapsuleContact, Radii, capsule_contacts_into};
use segbatch::scenes::{Capsules, Frame, Report};
use segbatch::sets::{Hit, Radius, SharedEndpoints, self_pairs_within_into};
use segbatch::{Options, Segment, Segments};

use super::args::BenchArgs;
use super::common::median;
use super::scene_peers::{
    ParryContact, ParryScene, Scene, brute_pairs, contact_differences, parry_pairs, scene,
};
use crate::error::CliError;

/// Frames timed a round (after the untimed frame 0).
const FRAMES: usize = 60;
/// The peer's change margin (an absolute length; a tenth of the mean capsule length).
const PARRY_MARGIN: f32 = 0.125;

/// A fresh segbatch scene over frame 0 (its first frame run, untimed).
fn build_ours(first: &[segbatch::Segment], radii: &[f32]) -> (Capsules, Frame) {
    let mut scene = Capsules::new();
    for (s, &r) in first.iter().zip(radii) {
        scene.insert(*s, r).expect("valid radii");
    }
    let mut frame = Frame::new();
    scene.frame_into(Report::CONTACTS, &mut frame);
    (scene, frame)
}

/// Buffers of a frame answered by the set queries, reused from frame to frame.
#[derive(Default)]
struct SetFrame {
    hits: Vec<Hit>,
    pairs: Vec<(u32, u32)>,
    contacts: Vec<CapsuleContact>,
}

impl SetFrame {
    /// One frame from scratch: the pairs within `radius` ([`Radius::Each`] of the
    /// capsules' radii, or one radius for all), then the contacts of those pairs with the
    /// capsules' own radii (which drop the pairs that do not touch). Returns the number of
    /// touching pairs.
    fn run(&mut self, segments: &[Segment], radii: &[f32], radius: Radius<'_>) -> usize {
        let set = Segments::from(segments);
        let (o, keep) = (Options::SEGMENTS, SharedEndpoints::Keep);
        self_pairs_within_into(&set, radius, keep, &o, &mut self.hits).expect("valid radii");
        self.pairs.clear();
        self.pairs.extend(self.hits.iter().map(|h| (h.i, h.j)));
        let own = Radii::per_object(radii, radii).expect("valid radii");
        capsule_contacts_into(&set, &set, &self.pairs, own, &o, &mut self.contacts)
            .expect("pairs of the set");
        let mut touching = self.contacts.iter().map(|c| c.pair).collect::<Vec<_>>();
        touching.dedup();
        touching.len()
    }

    /// The touching pairs of the last frame (the pairs of its contacts).
    fn touching(&self) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self.contacts.iter().map(|c| (c.i, c.j)).collect();
        v.dedup();
        v
    }
}

/// The mean ms a frame of one round, and the mean pairs and contacts a frame.
#[derive(Default)]
struct Round {
    /// `frame_into`, one thread.
    ours: f64,
    /// `par_frame_into` on the pool.
    par: f64,
    /// parry3d, one thread.
    parry: f64,
    /// The set queries with a radius an object, and with twice the largest radius.
    each: f64,
    twice: f64,
    pairs_ours: usize,
    contacts_ours: usize,
    candidates: usize,
    pairs_parry: usize,
    pairs_each: usize,
    pairs_twice: usize,
}

/// One round: each implementation over the same [`FRAMES`] frames, one after the other.
fn round(sc: &Scene, pool: &rayon::ThreadPool, set_frame: &mut SetFrame) -> Round {
    let radii = &sc.radii;
    let mut r = Round::default();
    // segbatch, one thread.
    let (mut ours, mut frame) = build_ours(&sc.frames[0], radii);
    let t = Instant::now();
    let (mut np, mut nc, mut nk) = (0, 0, 0);
    for f in 1..=FRAMES {
        ours.set_all(&sc.frames[f]).expect("one segment an id");
        ours.frame_into(Report::CONTACTS, &mut frame);
        np += frame.pairs().len();
        nc += frame.contacts().len();
        nk += frame.candidates();
    }
    r.ours = t.elapsed().as_secs_f64() * 1e3 / FRAMES as f64;
    (r.pairs_ours, r.contacts_ours, r.candidates) = (np / FRAMES, nc / FRAMES, nk / FRAMES);
    // segbatch, the pool's threads.
    let (mut ours, mut frame) = build_ours(&sc.frames[0], radii);
    r.par = pool.install(|| {
        let t = Instant::now();
        for f in 1..=FRAMES {
            ours.set_all(&sc.frames[f]).expect("one segment an id");
            ours.par_frame_into(Report::CONTACTS, &mut frame);
        }
        t.elapsed().as_secs_f64() * 1e3 / FRAMES as f64
    });
    // parry3d, one thread.
    let mut peer = ParryScene::new(&sc.frames[0], radii, PARRY_MARGIN);
    let mut contacts: Vec<ParryContact> = Vec::new();
    peer.frame(&sc.frames[0], radii, &mut contacts);
    let t = Instant::now();
    let mut np = 0;
    for f in 1..=FRAMES {
        peer.frame(&sc.frames[f], radii, &mut contacts);
        np += contacts.len();
    }
    r.parry = t.elapsed().as_secs_f64() * 1e3 / FRAMES as f64;
    r.pairs_parry = np / FRAMES;
    // The set queries from scratch each frame, one thread: per-object radii, then one
    // radius of twice the largest.
    let r_max = radii.iter().fold(0.0f32, |m, &x| m.max(x));
    for (radius, time, pairs) in [
        (Radius::Each(radii), &mut r.each, &mut r.pairs_each),
        (Radius::All(2.0 * r_max), &mut r.twice, &mut r.pairs_twice),
    ] {
        let t = Instant::now();
        let mut np = 0;
        for f in 1..=FRAMES {
            np += set_frame.run(&sc.frames[f], radii, radius);
        }
        *time = t.elapsed().as_secs_f64() * 1e3 / FRAMES as f64;
        *pairs = np / FRAMES;
    }
    r
}

/// Runs `segbatch bench --scenes`.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
    let n = match &args.sizes {
        Some(s) => *s.0.first().unwrap_or(&50_000),
        None => 50_000,
    };
    let rounds = if args.quick { 1 } else { 3 };
    let threads = args.threads.map_or(2, usize::from);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the threads: {e}")))?;
    writeln!(
        out,
        "segbatch bench --scenes {}: {n} moving capsules, {FRAMES} frames, touching pairs + contacts",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(
        out,
        "SIMD build: {} (CPU: {}); medians of {rounds} interleaved rounds of the mean ms a frame.",
        segbatch::simd::SIMD_LEVEL,
        segbatch::simd::cpu_simd_level()
    )?;
    let sc = scene(n, FRAMES + 1, args.seed);
    let mut set_frame = SetFrame::default();
    let all: Vec<Round> = (0..rounds)
        .map(|_| round(&sc, &pool, &mut set_frame))
        .collect();
    let mid = |time: fn(&Round) -> f64| median(&mut all.iter().map(time).collect::<Vec<_>>());
    let last = all.last().expect("at least one round");
    let parry = mid(|r| r.parry);
    writeln!(out)?;
    writeln!(
        out,
        "{:<58} {:>9} {:>9} {:>10}",
        "implementation", "ms/frame", "pairs", "vs parry"
    )?;
    let rows = [
        (
            "segbatch Capsules::frame_into (contacts), 1t".to_owned(),
            mid(|r| r.ours),
            last.pairs_ours,
        ),
        (
            format!("segbatch Capsules::par_frame_into (contacts), {threads}t"),
            mid(|r| r.par),
            last.pairs_ours,
        ),
        (
            "parry3d Bvh refit + optimize + self-traversal + manifold, 1t".to_owned(),
            parry,
            last.pairs_parry,
        ),
        (
            "segbatch self_pairs_within (radius each) + contacts, 1t".to_owned(),
            mid(|r| r.each),
            last.pairs_each,
        ),
        (
            "segbatch self_pairs_within (2·r_max) + contacts, 1t".to_owned(),
            mid(|r| r.twice),
            last.pairs_twice,
        ),
    ];
    for (name, ms, pairs) in &rows {
        writeln!(out, "{name:<58} {ms:>9.3} {pairs:>9} {:>9.2}x", parry / ms)?;
    }
    writeln!(
        out,
        "segbatch: {} candidates and {} contacts a frame (mean).",
        last.candidates, last.contacts_ours
    )?;
    check_frames(&sc, &mut set_frame, out)
}

/// The check: frames 1, the middle and the last, replayed: segbatch's pairs (the scene's
/// and the set query's) against brute force, and how parry3d's differ. An error when
/// segbatch's differ.
fn check_frames(
    sc: &Scene,
    set_frame: &mut SetFrame,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let radii = &sc.radii;
    let (mut ours, mut frame) = build_ours(&sc.frames[0], radii);
    let mut peer = ParryScene::new(&sc.frames[0], radii, PARRY_MARGIN);
    let mut contacts = Vec::new();
    let mut lines = Vec::new();
    for f in 1..=FRAMES {
        ours.set_all(&sc.frames[f]).expect("one segment an id");
        ours.frame_into(Report::CONTACTS, &mut frame);
        peer.frame(&sc.frames[f], radii, &mut contacts);
        if f == 1 || f == FRAMES / 2 || f == FRAMES {
            let brute = brute_pairs(&sc.frames[f], radii);
            let theirs = parry_pairs(&contacts);
            let (only_brute, only_parry) = super::baselines::differences(&brute, &theirs);
            let same = frame.pairs() == &brute[..]
                && set_frame.run(&sc.frames[f], radii, Radius::Each(radii)) == brute.len()
                && set_frame.touching() == brute;
            let [depth, normal, point] = contact_differences(frame.contacts(), &contacts);
            lines.push(format!(
                "frame {f}: segbatch {} brute force ({} pairs); parry3d: {} missing, {} extra, \
                 one-point contacts within {depth:.0e} (depth), {normal:.0e} (normal), {point:.0e} (point)",
                if same { "==" } else { "!=" },
                brute.len(),
                only_brute.len(),
                only_parry.len()
            ));
            if !same {
                writeln!(out, "check: {}", lines.join("\ncheck: "))?;
                return Err(CliError::failed(format!(
                    "frame {f}: segbatch's pairs differ from brute force"
                )));
            }
        }
    }
    for line in &lines {
        writeln!(out, "check: {line}")?;
    }
    Ok(())
}
