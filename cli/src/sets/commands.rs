//! The subcommands: each reads its sets, runs the library's streamed query and writes
//! the hits as they come.

use std::path::Path;
use std::time::Instant;

use segbatch::planar::{CrossHit, Element, Segments2, par_for_each_crossing_pair};
use segbatch::sets::{
    FirstHit, PairHit, PairHit64, PerRay, SetElement, SharedEndpoints, pair_distance,
    par_for_each_pair_within, par_for_each_self_pair_within,
};
use segbatch::{Flags, Options, Segment, Segment64, SegmentIndex, Segments, Segments64, reference};

use crate::error::CliError;
use crate::io::{
    Format, Precision, Real, SEGMENTS2, SEGMENTS3, SegmentsOf, is_std_stream, show, thread_pool,
};
use crate::run::{RANGE_RULE_LO, format_of, output_format_of, same_file};

use super::args::{CrossArgs, PairsArgs, RaycastArgs, SetOptions};
use super::input::{SetOf, read_set};
use super::output::{CROSS_COLUMNS, HitWriter, PAIR_COLUMNS, RAYCAST_COLUMNS, Value, real};

/// The input formats, the output format (CSV on standard output unless named) with the
/// summary's note when the output's name gives none, and the checks shared by the set
/// subcommands.
fn formats(
    inputs: &[&Path],
    format: Option<Format>,
    output: &Path,
    output_format: Option<Format>,
    precision: Precision,
) -> Result<(Vec<Format>, Format, Option<String>), CliError> {
    let ins = inputs
        .iter()
        .map(|p| format_of(p, format, "input"))
        .collect::<Result<Vec<_>, _>>()?;
    let (out, note) = if is_std_stream(output) && output_format.is_none() {
        (Format::Csv, None)
    } else {
        output_format_of(output, output_format, ins[0], precision)?
    };
    for input in inputs {
        if same_file(input, output) {
            return Err(CliError::usage(format!(
                "{}: the output is an input file; write the results to another file",
                show(output)
            )));
        }
    }
    Ok((ins, out, note))
}

fn library_error(e: segbatch::Error) -> CliError {
    CliError::usage(format!("the query failed: {e}"))
}

/// The output path: `-o FILE`, or `-` (standard output) without it.
fn output_path(out: &SetOptions) -> &Path {
    out.output.as_deref().unwrap_or(Path::new("-"))
}

/// Below this coordinate magnitude a pair's distance may be resolved below f32's normal
/// range (the kernel's accuracy is a few ε times the pair's scale): only such pairs can
/// have a squared distance that underflowed rather than one that is 0 within the bar.
const TINY_SCALE: f32 = 1e-12;

/// A pair's record: `i, j, distance, flags`: `sqrt(dist2)` with no flag, or, for a squared
/// distance that left the precision's range, the distance [`SetReal::far_distance`]
/// measures, with the flag 16 ([`Flags::DIST2_OUT_OF_RANGE`]).
fn pair_values<E: SetReal>(h: &PairHit<E>, a: &SegmentsOf<E>, b: &SegmentsOf<E>) -> [Value; 4] {
    let (distance, flags) = match E::far_distance(h, a, b) {
        Some(far) => (far, Flags::DIST2_OUT_OF_RANGE.bits()),
        None => (Real::sqrt(h.dist2), 0),
    };
    [
        Value::U32(h.i),
        Value::U32(h.j),
        real(distance),
        Value::U8(flags),
    ]
}

/// `text` (a `--radius` or `--range` checked by its parser) in the run's precision `R`; an
/// f32 run refuses a finite number beyond f32's range.
fn number<R: Real>(text: &str, what: &str) -> Result<R, CliError> {
    let x: R = text
        .parse()
        .map_err(|_| CliError::usage(format!("--{what}: '{text}' is not a number")))?;
    let wide: f64 = x.into();
    let asked: f64 = text.parse().unwrap_or(f64::INFINITY);
    if wide.is_infinite() && asked.is_finite() {
        return Err(CliError::usage(format!(
            "--{what} {text} is beyond f32's range: pass --precision f64"
        )));
    }
    Ok(x)
}

/// What the set commands do differently in each precision, over the library's generic
/// set queries and index (one body each, bounded on [`SetElement`]): the distance of a
/// pair whose squared distance left the precision's range, recovered by another rule in
/// each.
trait SetReal: Real + SetElement {
    /// The distance of the hit `h` of `a` and `b` when its squared distance cannot carry
    /// it; `None` when `sqrt(dist2)` is the distance.
    fn far_distance(h: &PairHit<Self>, a: &SegmentsOf<Self>, b: &SegmentsOf<Self>) -> Option<Self>;
}

impl SetReal for f32 {
    /// A squared distance outside f32's normal range (0 or subnormal for a pair of tiny
    /// coordinates: closest points less than about 1.1e-19 apart; `inf`: more than about
    /// 1.8e19) cannot carry the distance, so it is recomputed from the two segments in
    /// f64: when that distance is not 0, it is the pair's (rounded to f32).
    fn far_distance(h: &PairHit, a: &Segments, b: &Segments) -> Option<f32> {
        if h.dist2 >= f32::MIN_POSITIVE && h.dist2.is_finite() {
            return None;
        }
        let (sa, sb) = (a.get(h.i as usize)?, b.get(h.j as usize)?);
        let scale = [sa.p0, sa.p1, sb.p0, sb.p1]
            .iter()
            .flatten()
            .fold(0.0f32, |m, x| m.max(x.abs()));
        if !(h.dist2.is_infinite() || scale < TINY_SCALE) {
            return None;
        }
        let wide = |s: Segment| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from));
        let exact = reference::closest_points(&wide(sa), &wide(sb)).distance();
        (exact != 0.0 && exact.is_finite()).then_some(exact as f32)
    }
}

impl SetReal for f64 {
    /// In f64 the squared distance of any two segments of ordinary coordinates is a normal
    /// number: only one that left f64's range (segments more than about 1.3e154 apart, or
    /// closest points less than about 2e-146 apart) is measured again, by the library at a
    /// power-of-two scale (`pair_distance`): finite whenever it is representable (segments
    /// 1e300 apart read 1e300, not inf).
    fn far_distance(h: &PairHit64, a: &Segments64, b: &Segments64) -> Option<f64> {
        if h.dist2 == 0.0 || (RANGE_RULE_LO..=f64::MAX).contains(&h.dist2) {
            return None;
        }
        let (sa, sb) = (a.get(h.i as usize)?, b.get(h.j as usize)?);
        let c = reference::closest_points(&sa, &sb);
        Some(pair_distance(&sa, &sb, &c))
    }
}

/// Runs `segbatch pairs`.
pub fn run_pairs(args: &PairsArgs) -> Result<(), CliError> {
    match args.out.precision {
        Precision::F32 => pairs_in::<f32>(args),
        Precision::F64 => pairs_in::<f64>(args),
    }
}

/// Runs `segbatch pairs` in the precision `R`.
fn pairs_in<R: SetReal>(args: &PairsArgs) -> Result<(), CliError> {
    let start = Instant::now();
    let radius: R = number(&args.radius, "radius")?;
    let mut inputs = vec![args.input.as_path()];
    inputs.extend(args.against.as_deref());
    let target = output_path(&args.out);
    let (in_formats, out_format, note) = formats(
        &inputs,
        args.format,
        target,
        args.out.output_format,
        R::PRECISION,
    )?;
    let pool = thread_pool(args.out.threads, "pairs", args.out.quiet)?;
    let wait = args.out.wait();
    let a: SegmentsOf<R> = read_set(&args.input, &SEGMENTS3, in_formats[0], wait)?;
    let b: Option<SegmentsOf<R>> = match &args.against {
        Some(path) => Some(read_set(path, &SEGMENTS3, in_formats[1], wait)?),
        None => None,
    };
    let read = start.elapsed().as_secs_f64();
    let mut writer = HitWriter::create(target, out_format, &PAIR_COLUMNS, R::PRECISION)?;
    let shared = if args.skip_shared {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    };
    let other = b.as_ref().unwrap_or(&a);
    let query = pool.install(|| {
        let mut sink = |block: &[PairHit<R>]| {
            writer.write_block(block, |h, put| put(&pair_values(h, &a, other)))
        };
        match &b {
            None => {
                par_for_each_self_pair_within(&a, radius, shared, &Options::SEGMENTS, &mut sink)
            }
            Some(b) => par_for_each_pair_within(&a, b, radius, &Options::SEGMENTS, &mut sink),
        }
    });
    query.map_err(library_error)?;
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        let against = b.as_ref().map_or(String::new(), |b| {
            format!(
                " against {} ({} segments)",
                show(args.against.as_deref().expect("b comes from --against")),
                b.len()
            )
        });
        eprintln!(
            "segbatch pairs: {} segments from {}{against} -> {records} pairs within {} in \
             {} ({}, {}) in {secs:.2} s (reading {read:.2} s; {:.1} M segments/s)",
            a.len(),
            show(&args.input),
            args.radius,
            show(target),
            out_format.name_in(R::PRECISION),
            R::PRECISION.name(),
            (a.len() + b.as_ref().map_or(0, SegmentsOf::<R>::len)) as f64 / secs / 1e6
        );
        if let Some(note) = &note {
            eprintln!("segbatch pairs: {}: {note}", show(target));
        }
    }
    Ok(())
}

/// Runs `segbatch cross`.
pub fn run_cross(args: &CrossArgs) -> Result<(), CliError> {
    match args.out.precision {
        Precision::F32 => cross_in::<f32>(args),
        Precision::F64 => cross_in::<f64>(args),
    }
}

/// Runs `segbatch cross` in the precision `E`: read, decided (exactly, in either) and
/// written.
fn cross_in<E>(args: &CrossArgs) -> Result<(), CliError>
where
    E: Real + Element,
    Segments2<E>: SetOf<4, Real = E>,
{
    let start = Instant::now();
    let target = output_path(&args.out);
    let (in_formats, out_format, note) = formats(
        &[&args.input],
        args.format,
        target,
        args.out.output_format,
        E::PRECISION,
    )?;
    let pool = thread_pool(args.out.threads, "cross", args.out.quiet)?;
    let set: Segments2<E> = read_set(&args.input, &SEGMENTS2, in_formats[0], args.out.wait())?;
    let mut writer = HitWriter::create(target, out_format, &CROSS_COLUMNS, E::PRECISION)?;
    let shared = if args.skip_shared {
        SharedEndpoints::Skip
    } else {
        SharedEndpoints::Keep
    };
    let query = pool.install(|| {
        par_for_each_crossing_pair(&set, shared, |block: &[CrossHit<E>]| {
            writer.write_block(block, |h, put| {
                let p = h.point(&set).expect("the hit names a segment of the set");
                put(&[
                    Value::U32(h.i),
                    Value::U32(h.j),
                    Value::Kind(h.kind),
                    real(p[0]),
                    real(p[1]),
                ]);
            })
        })
    });
    query.map_err(library_error)?;
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "segbatch cross: {} segments from {} -> {records} meeting pairs in {} ({}, {}) in \
             {secs:.2} s",
            set.len(),
            show(&args.input),
            show(target),
            out_format.name_in(E::PRECISION),
            E::PRECISION.name(),
        );
        if let Some(note) = &note {
            eprintln!("segbatch cross: {}: {note}", show(target));
        }
    }
    Ok(())
}

/// Runs `segbatch raycast`.
pub fn run_raycast(args: &RaycastArgs) -> Result<(), CliError> {
    match args.out.precision {
        Precision::F32 => raycast_in::<f32>(args),
        Precision::F64 => raycast_in::<f64>(args),
    }
}

/// Runs `segbatch raycast` in the precision `R`.
fn raycast_in<R: SetReal>(args: &RaycastArgs) -> Result<(), CliError> {
    let start = Instant::now();
    let radius: R = number(&args.radius, "radius")?;
    let range: R = number(&args.range, "range")?;
    let target = output_path(&args.out);
    let (in_formats, out_format, note) = formats(
        &[&args.walls, &args.rays],
        args.format,
        target,
        args.out.output_format,
        R::PRECISION,
    )?;
    if args.walls == args.rays && is_std_stream(&args.walls) {
        return Err(CliError::usage(
            "WALLS and RAYS are both standard input: read one of them from a file",
        ));
    }
    let pool = thread_pool(args.out.threads, "raycast", args.out.quiet)?;
    let wait = args.out.wait();
    let walls: SegmentsOf<R> = read_set(&args.walls, &SEGMENTS3, in_formats[0], wait)?;
    let rays: SegmentsOf<R> = read_set(&args.rays, &SEGMENTS3, in_formats[1], wait)?;
    let mut writer = HitWriter::create(target, out_format, &RAYCAST_COLUMNS, R::PRECISION)?;
    // Rays in blocks, so the results held at once stay bounded whatever the ray count.
    const RAYS_PER_BLOCK: usize = 1 << 16;
    pool.install(|| -> Result<(), CliError> {
        let index = SegmentIndex::par_new(&walls).map_err(library_error)?;
        let mut first = 0;
        while first < rays.len() {
            let end = rays.len().min(first + RAYS_PER_BLOCK);
            let hits = index
                .par_first_hits(
                    rays.view(first..end),
                    PerRay::One(radius),
                    PerRay::One(range),
                )
                .map_err(library_error)?;
            let rows: Vec<(u32, FirstHit<R>)> = hits
                .iter()
                .enumerate()
                .filter_map(|(k, h)| h.map(|h| ((first + k) as u32, h)))
                .collect();
            writer.write(&rows, |(ray, h), put| {
                put(&[
                    Value::U32(*ray),
                    Value::U32(h.index),
                    real(h.u),
                    real(h.point[0]),
                    real(h.point[1]),
                    real(h.point[2]),
                ]);
            })?;
            first = end;
        }
        Ok(())
    })?;
    let records = writer.finish()?;
    if !args.out.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "segbatch raycast: {} rays from {} against {} walls from {} (radius {}, range {}) \
             -> {records} hits in {} ({}, {}) in {secs:.2} s",
            rays.len(),
            show(&args.rays),
            walls.len(),
            show(&args.walls),
            args.radius,
            args.range,
            show(target),
            out_format.name_in(R::PRECISION),
            R::PRECISION.name(),
        );
        if let Some(note) = &note {
            eprintln!("segbatch raycast: {}: {note}", show(target));
        }
    }
    Ok(())
}
