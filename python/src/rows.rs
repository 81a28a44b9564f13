//! Row pairs of line geometry: the pieces of polylines given as vertices (as shapely and
//! GeoArrow hold them), each carrying its geometry's row, through the library's row-aware
//! set queries (`crossing_rows*`, `rows_within*`), and the answer as GeoPandas'
//! `sindex.query` gives it, built here rather than in NumPy.
//!
//! Why vertices and not pieces: a column of LineStrings is a flat array of vertices and an
//! offset a part; the pieces (consecutive vertex pairs) and their rows are one pass over
//! them in Rust, where building them in NumPy took index arrays, a repeat and two gathers
//! of the coordinates.

use super::*;
use segbatch::planar::{
    CrossHit, Segments2View, crossing_rows_between_into, crossing_rows_into,
    par_crossing_rows_between_into, par_crossing_rows_into,
};
use segbatch::sets::{
    Hit64, RowAnswer, RowHit, par_rows_within_between_into, par_rows_within_into,
    rows_within_between_into, rows_within_into,
};

/// One side of a row query: the pieces of its lines (2D, `f64`) and their rows, and the
/// first piece of each row that has one (for the point of a row with itself).
struct Lines {
    /// Columns `x0, y0, x1, y1`.
    cols: [Vec<f64>; 4],
    rows: Vec<u32>,
}

impl Lines {
    /// The pieces of the parts `offsets[p] .. offsets[p + 1]` of `coords` (`(V, 2)`), part
    /// `p` of row `part_row[p]`.
    fn of(
        coords: &PyReadonlyArray2<'_, f64>,
        offsets: &PyReadonlyArray1<'_, i64>,
        part_row: &PyReadonlyArray1<'_, i64>,
    ) -> PyResult<Self> {
        if coords.shape()[1] != 2 {
            return Err(PyValueError::new_err(format!(
                "coords: expected shape (V, 2), got {:?}",
                coords.shape()
            )));
        }
        let flat = coords
            .as_slice()
            .map_err(|_| PyValueError::new_err("coords: the array must be C-contiguous"))?;
        let offsets = offsets
            .as_slice()
            .map_err(|_| PyValueError::new_err("offsets: the array must be contiguous"))?;
        let part_row = part_row
            .as_slice()
            .map_err(|_| PyValueError::new_err("part_row: the array must be contiguous"))?;
        let v = flat.len() / 2;
        if offsets.len() != part_row.len() + 1 {
            return Err(PyValueError::new_err(format!(
                "offsets: expected one more than the {} parts, got {}",
                part_row.len(),
                offsets.len()
            )));
        }
        let fits = |o: &i64| usize::try_from(*o).is_ok_and(|o| o <= v);
        if !offsets.iter().all(fits) || offsets.windows(2).any(|w| w[1] < w[0]) {
            return Err(PyValueError::new_err(format!(
                "offsets: expected a non-decreasing list within 0..={v}"
            )));
        }
        if part_row.iter().any(|&r| u32::try_from(r).is_err()) {
            return Err(PyValueError::new_err("part_row: rows must lie in 0..2**32"));
        }
        let n: usize = offsets
            .windows(2)
            .map(|w| ((w[1] - w[0]) as usize).saturating_sub(1))
            .sum();
        let mut cols: [Vec<f64>; 4] = Default::default();
        for c in &mut cols {
            c.try_reserve_exact(n)
                .map_err(|_| PyMemoryError::new_err(format!("pieces: {n} segments")))?;
        }
        let mut rows = Vec::new();
        rows.try_reserve_exact(n)
            .map_err(|_| PyMemoryError::new_err(format!("rows: {n} pieces")))?;
        for (w, &r) in offsets.windows(2).zip(part_row) {
            let (lo, hi) = (w[0] as usize, w[1] as usize);
            if hi > lo + 1 {
                let [x0, y0, x1, y1] = &mut cols;
                let part = &flat[2 * lo..2 * hi];
                for p in part.chunks_exact(2).zip(part[2..].chunks_exact(2)) {
                    x0.push(p.0[0]);
                    y0.push(p.0[1]);
                    x1.push(p.1[0]);
                    y1.push(p.1[1]);
                }
                rows.resize(rows.len() + (hi - lo - 1), r as u32);
            }
        }
        Ok(Lines { cols, rows })
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    /// The pieces as a 2D set (a view of the columns, no copy).
    fn set2(&self) -> Segments2View<'_, f64> {
        let [x0, y0, x1, y1] = &self.cols;
        SoaView::from_columns([x0, y0, x1, y1]).expect("columns of one length")
    }

    /// The pieces as 3D segments at `z = 0` (a view of the columns and of `zeros`, as long
    /// as they are).
    fn set3<'a>(&'a self, zeros: &'a [f64]) -> Segments64View<'a> {
        let [x0, y0, x1, y1] = &self.cols;
        SoaView::from_columns([x0, y0, zeros, x1, y1, zeros]).expect("columns of one length")
    }

    /// Whether each row (of `0..=max row`) is a point: it has pieces and every one has
    /// length zero (a LineString whose vertices are all equal).
    fn point_rows(&self) -> Vec<bool> {
        let n = self.rows.iter().max().map_or(0, |&r| r as usize + 1);
        let mut point = vec![true; n];
        let [x0, y0, x1, y1] = &self.cols;
        for (k, &r) in self.rows.iter().enumerate() {
            if x0[k] != x1[k] || y0[k] != y1[k] {
                point[r as usize] = false;
            }
        }
        point
    }

    /// The first vertex of each row's first piece, by row (NaN for rows without one), for
    /// `n_rows` rows; and whether each row has a piece.
    fn first_points(&self, n_rows: usize) -> (Vec<[f64; 2]>, Vec<bool>) {
        let mut first = vec![[f64::NAN; 2]; n_rows];
        let mut has = vec![false; n_rows];
        for (k, &r) in self.rows.iter().enumerate().rev() {
            if let Some(f) = first.get_mut(r as usize) {
                *f = [self.cols[0][k], self.cols[1][k]];
                has[r as usize] = true;
            }
        }
        (first, has)
    }
}

/// A row pair found, with its deciding piece pair and what the output may need of it: the
/// squared distance (0 for a crossing) and the meeting point (NaN for a radius hit).
#[derive(Clone, Copy)]
struct Found {
    a: u32,
    b: u32,
    i: u32,
    j: u32,
    dist2: f64,
    point: [f64; 2],
}

impl Found {
    /// The rank of [`RowAnswer`]: squared distance, then piece pair.
    fn rank(&self) -> (u64, u32, u32) {
        (self.dist2.to_bits(), self.i, self.j)
    }
}

/// The output columns: row pairs (`sindex`: input, tree) and the values asked for.
#[derive(Default)]
struct RowColumns {
    first: Vec<i64>,
    second: Vec<i64>,
    /// `i, j` (pieces), when not in the `sindex` form.
    i: Vec<i64>,
    j: Vec<i64>,
    /// The meeting point `x, y` (crossings), the distance and its square (radius), when
    /// asked.
    x: Vec<f64>,
    y: Vec<f64>,
    distance: Vec<f64>,
    dist2: Vec<f64>,
}

/// Row pairs of line geometry (see the Python layer, `segbatch.geo.intersects` and
/// `dwithin`): the lines of `coords`/`offsets`/`part_row` (set A, `n_rows` rows) with
/// themselves, or against `other` (B), that meet (`radius` None) or lie within `radius`;
/// with `radius` and `meeting`, rows whose pieces meet (decided exactly) count as at
/// distance 0 too, as GEOS's distance is 0 for geometries that intersect (the caller asks
/// for it where the `f64` kernel's rounding, `8·ε` of the coordinates, could reach the
/// radius). `sindex`: the pairs as `A.sindex.query(B)` returns them (`input` B's row, `tree`
/// A's; of one set both orientations and each row with a piece with itself), sorted by
/// (input, tree); else each row pair once (`a < b` of one set), with the pieces that decide
/// it. With `radius`, a row that is a point (every piece of length zero) meets nothing,
/// itself included, as GEOS's `dwithin` of the STRtree answers for such LineStrings
/// (its `intersects` counts them). `values`: the meeting point (`x, y`) or the distance (`distance`, and `dist2`
/// without `sindex`) of the deciding piece pair (the least-ranked one,
/// [`RowAnswer::Least`]; a row with itself: its first vertex, distance 0).
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[pyo3(signature = (coords, offsets, part_row, n_rows, other, radius, meeting, values, sindex, threads))]
pub(crate) fn line_row_pairs<'py>(
    py: Python<'py>,
    coords: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
    part_row: PyReadonlyArray1<'py, i64>,
    n_rows: usize,
    other: Option<(
        PyReadonlyArray2<'py, f64>,
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, i64>,
    )>,
    radius: Option<f64>,
    meeting: bool,
    values: bool,
    sindex: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let threads = Threads::new(threads)?;
    let a = Lines::of(&coords, &offsets, &part_row)?;
    let b = match &other {
        Some((c, o, r)) => Some(Lines::of(c, o, r)?),
        None => None,
    };
    let answer = if values {
        RowAnswer::Least
    } else {
        RowAnswer::Any
    };
    let cols = interruptible(py, threads, move |parallel, stop| {
        let b = b.as_ref();
        let mut found = Vec::new();
        if radius.is_none() || meeting {
            let set = a.set2();
            found.extend(cross(&a, b, answer, parallel)?.iter().map(|h| Found {
                a: h.a,
                b: h.b,
                i: h.hit.i,
                j: h.hit.j,
                dist2: 0.0,
                point: if values {
                    h.hit.point(set).expect("a piece of the set")
                } else {
                    [f64::NAN; 2]
                },
            }));
        }
        if let Some(r) = radius {
            let near = near(&a, b, r, answer, parallel)?;
            found.extend(near.iter().map(|h| Found {
                a: h.a,
                b: h.b,
                i: h.hit.i,
                j: h.hit.j,
                dist2: h.hit.dist2,
                point: [f64::NAN; 2],
            }));
            if meeting {
                // Each row pair once: the least-ranked of its crossing and its radius hit.
                found.sort_unstable_by_key(|f| (f.a, f.b, f.rank()));
                found.dedup_by_key(|f| (f.a, f.b));
            }
        }
        // Rows that are points, left out of radius queries (see above).
        let points = radius.map(|_| (a.point_rows(), b.map(Lines::point_rows)));
        if let Some((pa, pb)) = &points {
            let point = |v: &[bool], r: u32| v.get(r as usize).copied().unwrap_or(false);
            found.retain(|f| !point(pa, f.a) && !point(pb.as_deref().unwrap_or(pa), f.b));
        }
        checked(stop)?;
        let no_self = points.map(|p| p.0).unwrap_or_default();
        let two_sets = b.is_some();
        Ok(columns(
            &a, n_rows, two_sets, &found, &no_self, values, sindex,
        ))
    })?;
    let mut items = vec![
        (
            if sindex { "input" } else { "a" },
            cols.first.into_pyarray(py).into_any(),
        ),
        (
            if sindex { "tree" } else { "b" },
            cols.second.into_pyarray(py).into_any(),
        ),
    ];
    if !sindex {
        items.push(("i", cols.i.into_pyarray(py).into_any()));
        items.push(("j", cols.j.into_pyarray(py).into_any()));
    }
    if values {
        if radius.is_some() {
            if !sindex {
                items.push(("dist2", cols.dist2.into_pyarray(py).into_any()));
            }
            items.push(("distance", cols.distance.into_pyarray(py).into_any()));
        } else {
            items.push(("x", cols.x.into_pyarray(py).into_any()));
            items.push(("y", cols.y.into_pyarray(py).into_any()));
        }
    }
    dict(py, items)
}

fn cross(
    a: &Lines,
    b: Option<&Lines>,
    answer: RowAnswer,
    parallel: bool,
) -> Result<Vec<RowHit<CrossHit<f64>>>, Failure> {
    let mut out = Vec::new();
    let sa = a.set2();
    match b {
        None => {
            if parallel {
                par_crossing_rows_into(sa, &a.rows, answer, &mut out)?;
            } else {
                crossing_rows_into(sa, &a.rows, answer, &mut out)?;
            }
        }
        Some(b) => {
            let sb = b.set2();
            if parallel {
                par_crossing_rows_between_into(sa, &a.rows, sb, &b.rows, answer, &mut out)?;
            } else {
                crossing_rows_between_into(sa, &a.rows, sb, &b.rows, answer, &mut out)?;
            }
        }
    }
    Ok(out)
}

fn near(
    a: &Lines,
    b: Option<&Lines>,
    radius: f64,
    answer: RowAnswer,
    parallel: bool,
) -> Result<Vec<RowHit<Hit64>>, Failure> {
    let mut out = Vec::new();
    let zeros = vec![0.0; a.len().max(b.map_or(0, Lines::len))];
    let sa = a.set3(&zeros[..a.len()]);
    match b {
        None => {
            if parallel {
                par_rows_within_into(sa, &a.rows, radius, answer, &mut out)?;
            } else {
                rows_within_into(sa, &a.rows, radius, answer, &mut out)?;
            }
        }
        Some(b) => {
            let sb = b.set3(&zeros[..b.len()]);
            if parallel {
                par_rows_within_between_into(sa, &a.rows, sb, &b.rows, radius, answer, &mut out)?;
            } else {
                rows_within_between_into(sa, &a.rows, sb, &b.rows, radius, answer, &mut out)?;
            }
        }
    }
    Ok(out)
}

/// The output of the row pairs `found`, sorted by `(a, b)` as the row queries return them
/// (see [`line_row_pairs`]); the rows `no_self` marks have no pair with themselves.
fn columns(
    a: &Lines,
    n_rows: usize,
    two_sets: bool,
    found: &[Found],
    no_self: &[bool],
    values: bool,
    sindex: bool,
) -> RowColumns {
    let mut cols = RowColumns::default();
    // The values of hit `k`, or of a row with itself (`own`: its first vertex).
    let push_value = |cols: &mut RowColumns, k: Option<usize>, own: [f64; 2]| {
        if values {
            let (point, dist2) = k.map_or((own, 0.0), |k| (found[k].point, found[k].dist2));
            cols.x.push(point[0]);
            cols.y.push(point[1]);
            cols.dist2.push(dist2);
            cols.distance.push(dist2.sqrt());
        }
    };
    if !sindex {
        for (k, f) in found.iter().enumerate() {
            cols.first.push(i64::from(f.a));
            cols.second.push(i64::from(f.b));
            cols.i.push(i64::from(f.i));
            cols.j.push(i64::from(f.j));
            push_value(&mut cols, Some(k), [0.0; 2]);
        }
        return cols;
    }
    // The sindex form, placed by counting (no sort): `found` is sorted by `(a, b)` (the
    // row queries return it so), so the trees of each input row arrive in order. Of two
    // sets, input `b` has the trees `a` of its hits. Of one set, input `r` has first the
    // trees `a < r` (hits `(a, r)`), then itself (`SELF`), then the trees `b > r` (hits
    // `(r, b)`).
    const SELF: u32 = u32::MAX;
    let (first_point, has) = a.first_points(n_rows);
    debug_assert!(
        found
            .windows(2)
            .all(|w| (w[0].a, w[0].b) < (w[1].a, w[1].b))
    );
    let last = |f: &Found| if two_sets { f.b } else { f.a.max(f.b) } as usize + 1;
    let inputs = found
        .iter()
        .map(last)
        .max()
        .unwrap_or(0)
        .max(if two_sets { 0 } else { n_rows });
    let own = |r: usize| {
        !two_sets
            && has.get(r).copied().unwrap_or(false)
            && !no_self.get(r).copied().unwrap_or(false)
    };
    // Per input row: the count of trees before its own pair, then the place of its next
    // tree before it (`before`) and after it (`after`).
    let mut before = vec![0usize; inputs];
    let mut after = vec![0usize; inputs];
    for f in found {
        before[f.b as usize] += 1;
        if !two_sets {
            after[f.a as usize] += 1;
        }
    }
    let mut at = 0;
    for r in 0..inputs {
        let (b, c) = (before[r], after[r]);
        before[r] = at;
        after[r] = at + b + usize::from(own(r));
        at += b + usize::from(own(r)) + c;
    }
    let mut entries: Vec<(u32, u32, u32)> = vec![(0, 0, SELF); at];
    for r in (0..inputs).filter(|&r| own(r)) {
        // Its own place: just before the first tree after it.
        entries[after[r] - 1] = (r as u32, r as u32, SELF);
    }
    for (k, f) in found.iter().enumerate() {
        let slot = &mut before[f.b as usize];
        entries[*slot] = (f.b, f.a, k as u32);
        *slot += 1;
        if !two_sets {
            let slot = &mut after[f.a as usize];
            entries[*slot] = (f.a, f.b, k as u32);
            *slot += 1;
        }
    }
    cols.first.reserve(entries.len());
    cols.second.reserve(entries.len());
    for &(input, tree, h) in &entries {
        cols.first.push(i64::from(input));
        cols.second.push(i64::from(tree));
        let own = first_point
            .get(input as usize)
            .copied()
            .unwrap_or([f64::NAN; 2]);
        push_value(&mut cols, (h != SELF).then_some(h as usize), own);
    }
    cols
}
