//! `segbatch bench --sets`: the set queries against what a user would write without them,
//! in one run.
//!
//! # What is measured
//!
//! - **All pairs within r** of one set of short segments ([`segbatch_testkit::sets::hair`]:
//!   length about `2r`, about ten neighbours within `r` each;
//!   [`segbatch_testkit::sets::grass`]: strands of the same length rooted on a floor, a
//!   layer two to three `r` thick, as many neighbours; and
//!   [`segbatch_testkit::sets::clustered`]: the same segments packed into dense blobs) at
//!   100K, 1M and 4M segments: `par_self_pairs_within` on the bench's threads, its
//!   streaming form collected into one list in no particular order (the pairs as the peers
//!   give them: the reference of the ratios) and the same counting the hits (storing none),
//!   against two scalar
//!   single-threaded peers deciding each candidate with parry3d's segment distance
//!   ([`super::baselines`]): a sort-and-sweep on x, and parry3d's own BVH self-traversal.
//!   The peers' pairs are compared with segbatch's; pairs found by only one side are
//!   reported with their distance from the radius. On hair, the same sticks moved to UTM
//!   coordinates (500 km, 4 990 km), in `f32` (rounded there, as a caller's data would be)
//!   through `par_self_pairs_within` and in `f64` through `par_self_pairs_within`, in
//!   the same run, for their speed against the query at the origin.
//! - **Index pairs**: 200K candidate pairs (a broad phase's output: pairs of a 20K capsule
//!   set within `2r`, shuffled) through `capsules_touch_indexed`, against gathering the
//!   pairs into two `Segments` batches and calling `capsules_touch`, end to end, one
//!   thread and all threads.
//!
//! Segbatch's figures are medians of repeated runs; the peers' are medians too at 100K and
//! a single run at 1M and above (they take seconds), as the header says.

use std::io::Write;
use std::time::Instant;

use segbatch::pairs::{
    Radii, capsules_touch, capsules_touch_indexed, par_capsules_touch, par_capsules_touch_indexed,
};
use segbatch::sets::{
    PairHit, SharedEndpoints, par_for_each_self_pair_within, par_pairs_within_into,
    par_self_pairs_within, self_pairs_within,
};
use segbatch::{Extent, Options, Segment, Segment64, SegmentIndex, Segments, Segments64};
use segbatch_testkit::sets::{
    candidate_pairs, clustered, grass, hair, rays as city_rays, walls as city_walls,
};

use super::args::BenchArgs;
use super::baselines::{bvh_parry, differences, farthest_from_radius, sweep_parry};
use super::common::{Timing, measure, ratio, time_reps};
use crate::error::CliError;

/// The radius of the set workloads (the generators scale the scene to it).
const R: f32 = 1.0;

fn label(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}K", n / 1000)
    } else {
        n.to_string()
    }
}

/// The set of `n` segments of a workload (seeded: the same set on every run).
fn generate(kind: &str, n: usize, seed: u64) -> Vec<Segment> {
    match kind {
        "hair" => hair(n, R, [0.0; 3], seed),
        "grass" => grass(n, R, seed),
        _ => clustered(n, R, seed),
    }
}

fn sorted_pairs(hits: &[segbatch::sets::Hit]) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = hits.iter().map(|h| (h.i, h.j)).collect();
    v.sort_unstable();
    v
}

/// One line saying how a peer's pairs compare with segbatch's.
fn agreement(set: &[Segment], ours: &[(u32, u32)], theirs: &[(u32, u32)], r: f32) -> String {
    let (only_ours, only_theirs) = differences(ours, theirs);
    if only_ours.is_empty() && only_theirs.is_empty() {
        return "same pairs".to_owned();
    }
    let worst =
        farthest_from_radius(set, &only_ours, r).max(farthest_from_radius(set, &only_theirs, r));
    format!(
        "{} only in segbatch, {} only in the peer, all within {:.1e}·r of the radius",
        only_ours.len(),
        only_theirs.len(),
        worst
    )
}

/// First hit of 40K thick rays against 50K walls: the index against the brute-force
/// radius query over every ray and wall, reduced to the nearest hit per ray.
fn first_hits(
    args: &BenchArgs,
    pool: &rayon::ThreadPool,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let threads = pool.current_num_threads();
    let (n_walls, n_rays, side, radius, range) = (50_000, 40_000, 250.0, 0.5f32, 30.0f32);
    let walls = Segments::from(&city_walls(n_walls, side, args.seed)[..]);
    let rays = Segments::from(&city_rays(n_rays, side, args.seed ^ 1)[..]);
    writeln!(
        out,
        "first hits: {} thick rays (radius {radius}, range {range}) against {} walls on a {side}x{side} floor",
        label(n_rays),
        label(n_walls)
    )?;
    writeln!(
        out,
        "{:<52} {:>9} {:>9} {:>10} {:>9} {:>9}",
        "implementation", "wall ms", "cpu ms", "M rays/s", "vs brute", "(cpu)"
    )?;
    let (ours, indexed_only, hits) = pool.install(|| {
        let (ours, _) = time_reps(5, || {
            let index = SegmentIndex::par_new(&walls).expect("a valid set");
            index.par_first_hits(&rays, radius, range).expect("valid")
        });
        let index = SegmentIndex::par_new(&walls).expect("a valid set");
        let (indexed_only, hits) = time_reps(5, || {
            index.par_first_hits(&rays, radius, range).expect("valid")
        });
        (ours, indexed_only, hits)
    });
    let found = hits.iter().flatten().count();
    // The brute-force form: every ray (as a ray) against every wall within the radius, then
    // the nearest closest-approach parameter within the range per ray.
    let ray_options = Options::new(Extent::Ray, Extent::Segment);
    let reduce = |within: &[segbatch::sets::Hit]| {
        let mut best = vec![f32::INFINITY; n_rays];
        for h in within {
            let i = h.i as usize;
            if h.s <= range && h.s < best[i] {
                best[i] = h.s;
            }
        }
        best
    };
    let mut within = Vec::new();
    let (brute_s, (count, brute_found)) = pool.install(|| {
        time_reps(1, || {
            par_pairs_within_into(&rays, &walls, radius, &ray_options, &mut within)
                .expect("a valid radius");
            let best = reduce(&within);
            (within.len(), best.iter().filter(|b| b.is_finite()).count())
        })
    });
    // The same with the swept segments [P0, P0 + range·d], which the grid prunes.
    let swept: Segments = rays
        .iter()
        .map(|r| {
            let d = r.direction();
            Segment::new(r.p0, core::array::from_fn(|k| r.p0[k] + range * d[k]))
        })
        .collect();
    let (swept_s, swept_found) = pool.install(|| {
        time_reps(3, || {
            par_pairs_within_into(&swept, &walls, radius, &Options::SEGMENTS, &mut within)
                .expect("a valid radius");
            let mut best = vec![f32::INFINITY; n_rays];
            for h in &within {
                let i = h.i as usize;
                best[i] = best[i].min(h.s);
            }
            best.iter().filter(|b| b.is_finite()).count()
        })
    });
    for (name, t) in [
        (
            format!("SegmentIndex::par_new + par_first_hits, {threads}t"),
            ours,
        ),
        (
            format!("par_first_hits (index built once), {threads}t"),
            indexed_only,
        ),
        (
            format!("brute force: par_pairs_within rays + reduce, {threads}t"),
            brute_s,
        ),
        (
            format!("par_pairs_within swept segments + reduce, {threads}t"),
            swept_s,
        ),
    ] {
        writeln!(
            out,
            "{:<52} {:>9.1} {:>9.1} {:>10.2} {:>9} {:>9}",
            name,
            t.wall * 1e3,
            t.cpu * 1e3,
            n_rays as f64 / t.wall / 1e6,
            ratio(brute_s.wall, t.wall, 1),
            ratio(brute_s.cpu, t.cpu, 1)
        )?;
    }
    writeln!(
        out,
        "  ({found} rays hit a wall; the brute force found {count} ray-wall pairs within the \
         radius, {brute_found} rays with one ahead within range; the swept form {swept_found})"
    )?;
    Ok(())
}

/// Runs `segbatch bench --sets`.
pub fn run(args: &BenchArgs, out: &mut impl Write) -> Result<(), CliError> {
    let wall = Instant::now();
    let sizes: Vec<usize> = match &args.sizes {
        Some(s) => s.0.clone(),
        None if args.quick => vec![100_000, 1_000_000],
        None => vec![100_000, 1_000_000, 4_000_000],
    };
    let kinds: &[&str] = if args.quick {
        &["hair"]
    } else {
        &["hair", "grass", "clustered"]
    };
    let pool = segbatch_cli::io::thread_pool(args.threads, "bench", false)?;
    let budget = args.budget.unwrap_or(if args.quick { 0.5 } else { 1.5 });
    write_header(out, pool.current_num_threads())?;
    let mut hair_times: Vec<(usize, Timing)> = Vec::new();
    for &kind in kinds {
        for &n in &sizes {
            let ours = pairs_within(kind, n, args, &pool, out)?;
            if kind == "hair" {
                hair_times.push((n, ours));
            }
            out.flush()?;
        }
    }
    if let (Some(&(n1, t1)), Some(&(n4, t4))) = (
        hair_times.iter().find(|(n, _)| *n == 1_000_000),
        hair_times.iter().find(|(n, _)| *n == 4_000_000),
    ) {
        writeln!(
            out,
            "growth: hair {} takes {} the wall time of {} ({} the CPU time; linear: 4.0x)",
            label(n4),
            ratio(t4.wall, t1.wall, 2),
            label(n1),
            ratio(t4.cpu, t1.cpu, 2)
        )?;
    }
    writeln!(out)?;
    index_pairs(args, &pool, budget, out)?;
    writeln!(out)?;
    first_hits(args, &pool, out)?;
    writeln!(out)?;
    writeln!(out, "Wall time {:.1} s.", wall.elapsed().as_secs_f64())?;
    Ok(())
}

/// The run's header and the head of the table of pairs within r.
fn write_header(out: &mut impl Write, threads: usize) -> Result<(), CliError> {
    writeln!(
        out,
        "segbatch bench --sets {}: set queries vs scalar peers (parry3d 0.31), one run",
        env!("CARGO_PKG_VERSION")
    )?;
    writeln!(
        out,
        "SIMD build: {} (CPU: {}); segbatch on {threads} threads, the peers on 1 (scalar).",
        segbatch::simd::SIMD_LEVEL,
        segbatch::simd::cpu_simd_level()
    )?;
    writeln!(
        out,
        "Seconds are medians (segbatch: 5 runs at 100K, 3 above; peers: 3 runs at 100K, 1 above).\n\
         wall s is elapsed time; cpu s the CPU time of all threads (/proc/self/stat, 10 ms ticks),\n\
         which a loaded machine does not inflate. \"vs\" is the time over segbatch's unordered list on\n\
         {threads} threads (the pairs as the peers give them, in no particular order)."
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "all pairs within r (hair: length ~2r, ~10 neighbours each; grass: the same rooted on a floor; clustered: hair in dense blobs)"
    )?;
    writeln!(
        out,
        "{:>10} {:>8} {:>9}  {:<44} {:>8} {:>8} {:>8} {:>8} {:>7}",
        "set", "segments", "pairs", "implementation", "wall s", "cpu s", "M seg/s", "vs", "(cpu)"
    )?;
    out.flush()?;
    Ok(())
}

/// segbatch's forms of all pairs within r on one set: their timings and what they found.
struct Ours {
    /// `par_self_pairs_within` (collected, ordered by `(i, j)`).
    collected: Timing,
    /// Its pairs, sorted: what the other forms and the peers are compared with.
    pairs: Vec<(u32, u32)>,
    /// The streaming form collected into one list in no particular order, as the peers
    /// give theirs: the reference of the ratios.
    unordered: Timing,
    /// The streaming form counting the hits.
    counted: Timing,
    count: usize,
    /// `self_pairs_within` on the calling thread.
    sequential: Timing,
    sequential_count: usize,
}

/// Times segbatch's forms on `set`, `reps` times each, and checks that they find the same
/// pairs.
fn time_ours(set: &Segments, reps: usize, pool: &rayon::ThreadPool) -> Ours {
    let (collected, hits) = pool.install(|| {
        time_reps(reps, || {
            par_self_pairs_within(set, R, SharedEndpoints::Keep)
        })
    });
    let pairs = sorted_pairs(&hits);
    drop(hits);
    let (sequential, sequential_count) = time_reps(reps.min(3), || {
        self_pairs_within(set, R, SharedEndpoints::Keep).len()
    });
    assert_eq!(
        sequential_count,
        pairs.len(),
        "the sequential form finds the same pairs"
    );
    let (counted, count) = pool.install(|| {
        time_reps(reps, || {
            let mut count = 0usize;
            par_for_each_self_pair_within(
                set,
                R,
                SharedEndpoints::Keep,
                &Options::SEGMENTS,
                |block: &[PairHit]| count += block.len(),
            )
            .expect("a valid radius");
            count
        })
    });
    assert_eq!(
        count,
        pairs.len(),
        "the streaming form finds the same pairs"
    );
    // The pairs as the peers give them, in no particular order: the streaming form's
    // blocks (in task order) collected into one list, without the collected form's
    // ordering by `(i, j)`.
    let (unordered, loose) = pool.install(|| {
        time_reps(reps, || {
            let mut hits: Vec<PairHit> = Vec::new();
            par_for_each_self_pair_within(
                set,
                R,
                SharedEndpoints::Keep,
                &Options::SEGMENTS,
                |block: &[PairHit]| hits.extend_from_slice(block),
            )
            .expect("a valid radius");
            hits
        })
    });
    let mut loose_pairs: Vec<(u32, u32)> = loose.iter().map(|h| (h.i, h.j)).collect();
    drop(loose);
    loose_pairs.sort_unstable();
    assert_eq!(
        loose_pairs, pairs,
        "the unordered list holds the same pairs"
    );
    Ours {
        collected,
        pairs,
        unordered,
        counted,
        count,
        sequential,
        sequential_count,
    }
}

/// The same sticks at UTM coordinates: in `f32`, moved there as a caller's `f32` data would
/// be (each coordinate rounded to the `f32` grid at that offset, so a few pairs differ), and
/// in `f64` (the `f64` query on the grid in its local frame). Their timings and pair
/// counts.
fn time_at_utm(
    set: &[Segment],
    reps: usize,
    pool: &rayon::ThreadPool,
) -> ((Timing, usize), (Timing, usize)) {
    let utm = [500_000.0, 4_990_000.0, 0.0];
    let far: Segments = set
        .iter()
        .map(|s| {
            let at = |p: [f32; 3]| core::array::from_fn(|k| (utm[k] + f64::from(p[k])) as f32);
            Segment::new(at(s.p0), at(s.p1))
        })
        .collect();
    let wide: Segments64 = set
        .iter()
        .map(|s| {
            let at = |p: [f32; 3]| core::array::from_fn(|k| utm[k] + f64::from(p[k]));
            Segment64::new(at(s.p0), at(s.p1))
        })
        .collect();
    pool.install(|| {
        (
            time_reps(reps, || {
                par_self_pairs_within(&far, R, SharedEndpoints::Keep).len()
            }),
            time_reps(reps, || {
                par_self_pairs_within(&wide, f64::from(R), SharedEndpoints::Keep).len()
            }),
        )
    })
}

/// All pairs within r on the `kind` set of `n` segments: segbatch's forms (and, on hair,
/// at UTM coordinates) against the two peers, a table row each and the checks. Returns
/// the time of `par_self_pairs_within`.
fn pairs_within(
    kind: &str,
    n: usize,
    args: &BenchArgs,
    pool: &rayon::ThreadPool,
    out: &mut impl Write,
) -> Result<Timing, CliError> {
    let threads = pool.current_num_threads();
    let set_vec = generate(kind, n, args.seed);
    let set = Segments::from(&set_vec[..]);
    let reps = if n <= 100_000 { 5 } else { 3 };
    let ours = time_ours(&set, reps, pool);
    let not_run = (Timing::NOT_RUN, 0);
    let ((far_s, far_count), (wide_s, wide_count)) = if kind == "hair" {
        time_at_utm(&set_vec, reps, pool)
    } else {
        (not_run, not_run)
    };
    let peer_reps = if n <= 100_000 { 3 } else { 1 };
    // The sweep grows like N^(5/3) on these sets (1M: over a minute on 1 core):
    // it runs up to 1M unless --sweep-4m.
    let run_sweep = n <= 1_000_000 || args.sweep_4m;
    let (sweep_s, sweep) = if run_sweep {
        time_reps(peer_reps, || sweep_parry(&set_vec, R))
    } else {
        (Timing::NOT_RUN, Vec::new())
    };
    let (bvh_s, bvh) = time_reps(peer_reps, || bvh_parry(&set_vec, R));
    let found = ours.pairs.len();
    let rows = [
        (
            format!("segbatch par_self_pairs_within, {threads}t"),
            ours.collected,
            found,
        ),
        (
            format!("segbatch unordered (stream into a Vec), {threads}t"),
            ours.unordered,
            found,
        ),
        (
            format!("segbatch streaming (count), {threads}t"),
            ours.counted,
            ours.count,
        ),
        (
            "segbatch self_pairs_within, 1t".to_owned(),
            ours.sequential,
            ours.sequential_count,
        ),
        (format!("segbatch f32 at UTM, {threads}t"), far_s, far_count),
        (
            format!("segbatch f64 at UTM, {threads}t"),
            wide_s,
            wide_count,
        ),
        (
            "sweep on x + parry3d distance, 1t".to_owned(),
            sweep_s,
            sweep.len(),
        ),
        (
            "parry3d Bvh self-traversal + dist, 1t".to_owned(),
            bvh_s,
            bvh.len(),
        ),
    ];
    for (name, t, pairs) in &rows {
        if t.wall.is_nan() {
            continue;
        }
        writeln!(
            out,
            "{:>10} {:>8} {:>9}  {:<44} {:>8.3} {:>8.2} {:>8.2} {:>8} {:>7}",
            kind,
            label(n),
            pairs,
            name,
            t.wall,
            t.cpu,
            n as f64 / t.wall / 1e6,
            ratio(t.wall, ours.unordered.wall, 1),
            ratio(t.cpu, ours.unordered.cpu, 1)
        )?;
    }
    writeln!(
        out,
        "{:>10} {:>8} {:>9}  check: sweep {}; bvh {}",
        "",
        "",
        "",
        if run_sweep {
            agreement(&set_vec, &ours.pairs, &sweep, R)
        } else {
            "not run (--sweep-4m)".to_owned()
        },
        agreement(&set_vec, &ours.pairs, &bvh, R)
    )?;
    if !wide_s.wall.is_nan() {
        let at_origin = ours.collected;
        writeln!(
            out,
            "{:>10} {:>8} {:>9}  at UTM: f32 {} and f64 {} the speed of f32 at the origin by wall time ({}, {} by CPU time)",
            "",
            "",
            "",
            ratio(at_origin.wall, far_s.wall, 2),
            ratio(at_origin.wall, wide_s.wall, 2),
            ratio(at_origin.cpu, far_s.cpu, 2),
            ratio(at_origin.cpu, wide_s.cpu, 2)
        )?;
    }
    Ok(ours.collected)
}

/// Index pairs: a broad phase's candidates through the narrow phase, by index and gathered
/// into batches first, on one thread and on the pool's.
fn index_pairs(
    args: &BenchArgs,
    pool: &rayon::ThreadPool,
    budget: f64,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let threads = pool.current_num_threads();
    let n = 20_000;
    let set_vec = hair(n, R, [0.0; 3], args.seed);
    let set = Segments::from(&set_vec[..]);
    let want = 200_000;
    let candidates = candidate_pairs(&set, R, want, args.seed ^ 0xC0FFEE);
    let radii = Radii::uniform(0.5 * R, 0.5 * R).expect("valid radii");
    writeln!(
        out,
        "index pairs: {} candidate pairs (within 2r, shuffled) of a {} capsule set, capsule radius r/2",
        label(want),
        label(n)
    )?;
    writeln!(
        out,
        "{:<46} {:>9} {:>10} {:>12}",
        "implementation", "ms", "M pairs/s", "vs gather"
    )?;
    let mut a = Segments::with_capacity(want);
    let mut b = Segments::with_capacity(want);
    let gather = |a: &mut Segments, b: &mut Segments| {
        a.clear();
        b.clear();
        for &(i, j) in &candidates {
            a.push(set.get(i as usize).expect("an index of the set"));
            b.push(set.get(j as usize).expect("an index of the set"));
        }
    };
    let indexed_mask = capsules_touch_indexed(&set, &set, &candidates, radii);
    gather(&mut a, &mut b);
    let gathered_mask = capsules_touch(&a, &b, radii);
    assert_eq!(
        indexed_mask.iter_ones().collect::<Vec<_>>(),
        gathered_mask.iter_ones().collect::<Vec<_>>(),
        "the index-pair and gathered masks agree"
    );
    let touching = indexed_mask.count_ones();
    let indexed_1 = measure(budget, || {
        std::hint::black_box(capsules_touch_indexed(&set, &set, &candidates, radii));
    });
    let gather_1 = measure(budget, || {
        gather(&mut a, &mut b);
        std::hint::black_box(capsules_touch(&a, &b, radii));
    });
    let (indexed_p, gather_p) = pool.install(|| {
        let indexed = measure(budget, || {
            std::hint::black_box(par_capsules_touch_indexed(&set, &set, &candidates, radii));
        });
        let gathered = measure(budget, || {
            gather(&mut a, &mut b);
            std::hint::black_box(par_capsules_touch(&a, &b, radii));
        });
        (indexed, gathered)
    });
    for (name, f, base) in [
        ("capsules_touch_indexed, 1t", &indexed_1, &gather_1),
        (
            "gather into Segments + capsules_touch, 1t",
            &gather_1,
            &gather_1,
        ),
        (
            &*format!("par_capsules_touch_indexed, {threads}t"),
            &indexed_p,
            &gather_p,
        ),
        (
            &*format!("gather + par_capsules_touch, {threads}t"),
            &gather_p,
            &gather_p,
        ),
    ] {
        writeln!(
            out,
            "{:<46} {:>9.3} {:>10.1} {:>12}",
            name,
            f.seconds * 1e3,
            want as f64 / f.seconds / 1e6,
            ratio(base.seconds, f.seconds, 1)
        )?;
    }
    writeln!(
        out,
        "  ({touching} of the pairs touch; both forms give the same mask)"
    )?;
    Ok(())
}
