//! `segbatch bench --scenes`, swept part: fast, thin capsules among thin walls, each step
//! asking which pairs touched during it (continuous collision), against parry3d 0.31.
//!
//! The scene (`segbatch_testkit::swept::thin_fast_scene`): half the objects are fixed walls
//! (radius 0.02, length 1-3), half bullets (radius 0.01, length 0.05) flying 50-150 radii a
//! step, so a bullet is clear of a wall at both ends of most of the steps that take it
//! through one. Rows, one thread each, the time a step (median over interleaved rounds of
//! the mean over the steps):
//!
//! - **over the same candidates** (the pairs whose swept boxes overlap, found once per step
//!   by a sort and sweep, not timed): segbatch's `first_contact_capsules_indexed_into` (the
//!   step's sweeps copied into a `Sweeps` batch, timed with it) against parry3d's `cast_shapes`
//!   with each object's linear velocity (`ShapeCastOptions::with_max_time_of_impact(1)`,
//!   capsules built once, poses and velocities per step as an engine holds them);
//! - **whole steps**: segbatch's `Capsules::frame_into(Report::SWEPT)` (its own broad phase
//!   over the motion's boxes) against a rapier-style CCD pass (parry3d's `Bvh` built over
//!   the swept boxes, self-traversed, `cast_shapes` on each pair).
//!
//! The check: every candidate pair of the first step decided again by the `f64` oracle of
//! the test kit (branch and bound on the cores' distance in time): how many contacts
//! segbatch reported late or missed (tunnelling), and how parry3d's hits differ.

use std::io::Write;
use std::time::Instant;

use parry3d::partitioning::BvhWorkspace;
use parry3d::shape::Capsule;
use segbatch::scenes::{Capsules, Frame, Report};
use segbatch_testkit::swept::{SweptScene, first_below, swept_candidates, thin_fast_scene};

use super::args::BenchArgs;
use super::common::median;
use super::swept_peers::{Ours, ParryStep, cast, parry_capsules, parry_step, rapier_ccd};
use crate::error::CliError;

/// Steps timed a round.
const STEPS: usize = 20;

/// Runs the swept part of `segbatch bench --scenes`.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
    let n = match &args.sizes {
        Some(s) => *s.0.first().unwrap_or(&20_000),
        None => 20_000,
    };
    let rounds = if args.quick { 1 } else { 3 };
    let sc = thin_fast_scene(n, STEPS, args.seed);
    writeln!(
        out,
        "segbatch bench --scenes (swept) {}: {n} objects (half walls r 0.02, half bullets r 0.01 \
         flying 50-150 radii a step), {STEPS} steps, pairs that touched during the step",
        env!("CARGO_PKG_VERSION")
    )?;
    let candidates: Vec<Vec<(u32, u32)>> = sc
        .sweeps
        .iter()
        .map(|s| swept_candidates(s, &sc.radii))
        .collect();
    let capsules = parry_capsules(&sc);
    let steps: Vec<ParryStep> = sc.sweeps.iter().map(|s| parry_step(s)).collect();
    // Each step's end positions, as an engine holds them.
    let ends: Vec<Vec<_>> = sc
        .sweeps
        .iter()
        .map(|s| s.iter().map(|x| x.end).collect())
        .collect();
    let mut ours = Ours::default();
    let (mut t_ours, mut t_parry, mut t_scene, mut t_ccd) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut hits_ours, mut hits_parry, mut hits_scene, mut hits_ccd) = (0, 0, 0, 0);
    let mut workspace = BvhWorkspace::default();
    for _ in 0..rounds {
        let t = Instant::now();
        let mut h = 0;
        for (s, pairs) in sc.sweeps.iter().zip(&candidates) {
            h += ours.run(s, &sc.radii, pairs);
        }
        t_ours.push(t.elapsed().as_secs_f64() * 1e3 / STEPS as f64);
        hits_ours = h / STEPS;

        let t = Instant::now();
        let mut h = 0;
        for (step, pairs) in steps.iter().zip(&candidates) {
            for &(i, j) in pairs {
                h += usize::from(cast(&capsules, step, i as usize, j as usize).is_some());
            }
        }
        t_parry.push(t.elapsed().as_secs_f64() * 1e3 / STEPS as f64);
        hits_parry = h / STEPS;

        // Whole steps: the scene at step 0's start (untimed), then each step's end.
        let mut scene = Capsules::with_capacity(n);
        let starts: Vec<_> = sc.sweeps[0].iter().map(|s| s.start).collect();
        scene
            .insert_all(&starts, &sc.radii[..])
            .expect("valid radii");
        let mut frame = Frame::new();
        scene.frame_into(Report::SWEPT, &mut frame);
        let t = Instant::now();
        let mut h = 0;
        for ends in &ends {
            scene.set_all(ends).expect("one segment an id");
            scene.frame_into(Report::SWEPT, &mut frame);
            h += frame.swept().len();
        }
        t_scene.push(t.elapsed().as_secs_f64() * 1e3 / STEPS as f64);
        hits_scene = h / STEPS;

        let t = Instant::now();
        let mut h = 0;
        for (s, step) in sc.sweeps.iter().zip(&steps) {
            h += rapier_ccd(s, &capsules, step, &mut workspace);
        }
        t_ccd.push(t.elapsed().as_secs_f64() * 1e3 / STEPS as f64);
        hits_ccd = h / STEPS;
    }
    let (o, p, s, c) = (
        median(&mut t_ours),
        median(&mut t_parry),
        median(&mut t_scene),
        median(&mut t_ccd),
    );
    let mean_candidates = candidates.iter().map(Vec::len).sum::<usize>() / STEPS;
    writeln!(
        out,
        "medians of {rounds} interleaved rounds of the mean ms a step; {mean_candidates} candidates a step (mean)."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<66} {:>9} {:>7} {:>9}",
        "implementation", "ms/step", "hits", "vs peer"
    )?;
    let rows = [
        (
            "segbatch first_contact_capsules_indexed over the candidates, 1t",
            o,
            hits_ours,
            p / o,
        ),
        (
            "parry3d cast_shapes over the same candidates, 1t",
            p,
            hits_parry,
            1.0,
        ),
        (
            "segbatch Capsules::frame_into (Report::SWEPT), whole step, 1t",
            s,
            hits_scene,
            c / s,
        ),
        (
            "rapier-style CCD: swept-box Bvh + traversal + cast_shapes, 1t",
            c,
            hits_ccd,
            1.0,
        ),
    ];
    for (name, ms, hits, ratio) in rows {
        writeln!(out, "{name:<66} {ms:>9.3} {hits:>7} {ratio:>8.2}x")?;
    }
    check_first_step(&sc, &candidates[0], &capsules, &steps[0], &mut ours, out)
}

/// The check: every candidate pair of the first step decided again by the `f64` oracle,
/// segbatch's hits and parry3d's compared with it. An error when segbatch reports a contact
/// late, misses one or reports one beyond the tolerance.
fn check_first_step(
    sc: &SweptScene,
    pairs: &[(u32, u32)],
    capsules: &[Capsule],
    step: &ParryStep,
    ours: &mut Ours,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let sweeps = &sc.sweeps[0];
    ours.run(sweeps, &sc.radii, pairs);
    let (mut late, mut parry_missing, mut parry_extra, mut limits) = (0, 0, 0, 0);
    let (mut false_hits, mut parry_tunnels, mut parry_at_start) = (0, 0, 0);
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let got = ours.out.get(k).expect("k < len");
        let (i, j) = (i as usize, j as usize);
        let r = f64::from(sc.radii[i]) + f64::from(sc.radii[j]);
        let until = if got.hit { f64::from(got.t) } else { 1.0 };
        // Contact deeper than 16 ε of the coordinates before the reported time.
        let slack = 16.0 * f64::from(f32::EPSILON) * 64.0;
        if first_below(&sweeps[i], &sweeps[j], r - slack, 0.0, until).is_some_and(|x| x < until) {
            late += 1;
        }
        limits += usize::from(
            got.flags
                .contains(segbatch::motion::MotionFlags::STEP_LIMIT),
        );
        let theirs = cast(capsules, step, i, j).is_some();
        parry_missing += usize::from(got.hit && !theirs);
        parry_extra += usize::from(!got.hit && theirs);
        // A hit whose gap at `t` is beyond the tolerance (and the slack) is a false one.
        let tol = r * f64::from(segbatch::motion::SWEPT_TOLERANCE_REL) + slack;
        let d = segbatch_testkit::swept::core_distance(&sweeps[i], &sweeps[j], until);
        false_hits += usize::from(
            got.hit
                && !got
                    .flags
                    .contains(segbatch::motion::MotionFlags::STEP_LIMIT)
                && d > r + tol,
        );
        // parry3d's misses the oracle confirms as contacts.
        let first = (!theirs)
            .then(|| first_below(&sweeps[i], &sweeps[j], r - slack, 0.0, 1.0))
            .flatten();
        parry_at_start += usize::from(first == Some(0.0));
        parry_tunnels += usize::from(first.is_some_and(|x| x > 0.0));
    }
    writeln!(
        out,
        "check: step 1, {} candidates against the f64 oracle: segbatch {} late or missed \
         (tunnelling), {false_hits} hits beyond the tolerance, {limits} at the step limit; \
         parry3d {parry_missing} hits fewer, {parry_extra} more than segbatch; missed by \
         parry3d and confirmed by the oracle: {parry_at_start} touching at the start, \
         {parry_tunnels} later in the step.",
        pairs.len(),
        late
    )?;
    if late + false_hits > 0 {
        return Err(CliError::failed(format!(
            "{late} swept contacts late or missed, {false_hits} beyond the tolerance, against the f64 oracle"
        )));
    }
    Ok(())
}
