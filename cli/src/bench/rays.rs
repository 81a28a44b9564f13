//! The sight-ray part of `segbatch bench --scenes`: a game's AI casting thick sight rays
//! against static level geometry every frame.
//!
//! 20K rays of radius 0.3 from eye height on a 250 x 250 city floor, against 100K walls
//! (dense) and 10K walls (sparse), ranges 10 and 50. segbatch ([`SegmentIndex`], built
//! once; `first_hits_into` reusing its output) against parry3d's `Bvh::cast_ray` over the
//! walls as capsules of the same radius (`ray_peer`, the leanest user code), one thread
//! each, then both on two threads (segbatch's `par_first_hits_into`; parry3d's casts in a
//! rayon `par_iter` collected in order). Rounds are interleaved (segbatch, parry, segbatch
//! on two threads, parry on two, then the next round with parry first at each thread
//! count) and the medians reported, so both see the same machine load and each goes first
//! in half the rounds. Each timed pass follows untimed ones of its own for at least
//! [`WARM_UP`], as frames follow each other: after a one-thread phase the OS can wake both
//! of the pool's workers on one core and take about 10 ms to move one to the idle core
//! (seen on an Intel Xeon VM: the two halves of a pass on the same CPU, `sched_getcpu`, for
//! the first 8-10 ms of two-thread work after the one-thread passes). One untimed pass
//! absorbed that for parry's 5-12 ms passes and not for segbatch's 2-5 ms ones, so
//! whichever side came first after the one-thread passes was timed on one core: a warm-up
//! of the same wall time gives both sides the same start. Before timing, every ray's
//! wall is checked against parry's (ties at the same parameter may go either way) and a
//! sample of rays against brute force over [`segbatch::reference::first_hit`], bit for bit.

use std::io::Write;
use std::time::Instant;

use segbatch::sets::FirstHit;
use segbatch::{Segment, SegmentIndex, Segments};
use segbatch_testkit::sets::{rays, walls};

use super::args::BenchArgs;
use super::common::median;
use super::ray_peer::{ParryWalls, brute_first_hit};
use crate::error::CliError;

/// The floor's side.
const SIDE: f32 = 250.0;
/// The agents' radius.
const RADIUS: f32 = 0.3;

/// The least wall time of untimed passes before each timed one.
const WARM_UP: std::time::Duration = std::time::Duration::from_millis(20);

/// Every ray's first hit (`ours`) against parry3d's (`theirs`: the wall and the
/// parameter; ties at the same parameter may name either wall), and a sample of them
/// against brute force, bit for bit. What differs, as an error's text.
fn check_hits(
    ours: &[Option<FirstHit>],
    theirs: &[Option<(u32, f32)>],
    walls: &[Segment],
    sight: &[Segment],
    range: f32,
) -> Result<(), String> {
    let differ = ours
        .iter()
        .zip(theirs)
        .filter(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => a.index != b.0 && (a.u - b.1).abs() > 1e-4,
            (a, b) => a.is_some() != b.is_some(),
        })
        .count();
    let sample_off = (0..ours.len())
        .step_by(500)
        .filter(|&k| ours[k] != brute_first_hit(walls, &sight[k], RADIUS, range))
        .count();
    if differ + sample_off > 0 {
        return Err(format!(
            "{differ} rays name another wall than parry3d, {sample_off} sampled rays differ \
             from brute force"
        ));
    }
    Ok(())
}

/// Runs the sight-ray scenes and prints their table.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
    let rounds = if args.quick { 3 } else { 7 };
    let n_rays = 20_000;
    let sight = rays(n_rays, SIDE, args.seed ^ 2);
    let ray_set = Segments::from(&sight);
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the threads: {e}")))?;
    writeln!(
        out,
        "sight rays: 20K thick rays (radius {RADIUS}) on a {SIDE}x{SIDE} floor, first hit per \
         ray; medians of {rounds} interleaved rounds"
    )?;
    writeln!(
        out,
        "{:<8} {:>7} {:>6} {:>13} {:>10} {:>8} {:>13} {:>10} {:>8} {:>11} {:>11}",
        "walls",
        "count",
        "range",
        "segbatch 1t",
        "parry 1t",
        "ratio",
        "segbatch 2t",
        "parry 2t",
        "ratio",
        "build ours",
        "build parry"
    )?;
    for (name, n_walls) in [("dense", 100_000), ("sparse", 10_000)] {
        let wall_list = walls(n_walls, SIDE, args.seed);
        let t = Instant::now();
        let index = SegmentIndex::new(&Segments::from(&wall_list))
            .map_err(|e| CliError::failed(format!("the index: {e}")))?;
        let build_ours = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let peer = ParryWalls::new(&wall_list, RADIUS);
        let build_parry = t.elapsed().as_secs_f64();
        for range in [10.0f32, 50.0] {
            let mut ours = Vec::new();
            let mut theirs = Vec::new();
            let first = |out: &mut Vec<Option<FirstHit>>| {
                index
                    .first_hits_into(&ray_set, RADIUS, range, out)
                    .map_err(|e| CliError::failed(format!("first hits: {e}")))
            };
            first(&mut ours)?;
            peer.cast(&sight, range, &mut theirs);
            check_hits(&ours, &theirs, &wall_list, &sight, range).map_err(|e| {
                CliError::failed(format!("sight rays ({name}, range {range}): {e}"))
            })?;
            // Each timed pass follows untimed ones of the same code on the same threads for
            // `WARM_UP`, as in a frame loop: its own data in cache and its threads on their
            // cores, whichever side ran before.
            let mut times = [(); 4].map(|()| Vec::new());
            let mut time = |k: usize, pass: &mut dyn FnMut() -> Result<(), CliError>| {
                let warm = Instant::now();
                pass()?;
                while warm.elapsed() < WARM_UP {
                    pass()?;
                }
                let t = Instant::now();
                pass()?;
                times[k].push(t.elapsed().as_secs_f64());
                Ok::<(), CliError>(())
            };
            // Which side goes first alternates from round to round: the first two-thread
            // pass after the one-thread ones finds the pool's idle core slowest to wake.
            for round in 0..rounds {
                let order = if round % 2 == 0 {
                    [0, 1, 2, 3]
                } else {
                    [1, 0, 3, 2]
                };
                for k in order {
                    match k {
                        0 => time(0, &mut || first(&mut ours))?,
                        1 => time(1, &mut || {
                            peer.cast(&sight, range, &mut theirs);
                            Ok(())
                        })?,
                        2 => time(2, &mut || {
                            two.install(|| {
                                index.par_first_hits_into(&ray_set, RADIUS, range, &mut ours)
                            })
                            .map_err(|e| CliError::failed(format!("first hits: {e}")))
                        })?,
                        _ => time(3, &mut || {
                            two.install(|| peer.par_cast(&sight, range, &mut theirs));
                            Ok(())
                        })?,
                    }
                }
            }
            let [a, b, c, d] = times.map(|mut t| median(&mut t));
            writeln!(
                out,
                "{:<8} {:>7} {:>6} {:>10.1} ms {:>7.1} ms {:>7.2}x {:>10.1} ms {:>7.1} ms {:>7.2}x \
                 {:>8.1} ms {:>8.1} ms",
                name,
                n_walls,
                range,
                a * 1e3,
                b * 1e3,
                b / a,
                c * 1e3,
                d * 1e3,
                d / c,
                build_ours * 1e3,
                build_parry * 1e3
            )?;
        }
    }
    writeln!(
        out,
        "ratio = parry3d Bvh::cast_ray time / SegmentIndex::first_hits_into time, on one \
         thread each, then on two; every ray's wall checked against parry3d, a sample against \
         brute force."
    )?;
    Ok(())
}
