//! [`Capsules`]: the persistent set of moving capsules, its frame query and its report
//! ([`Frame`], [`Report`], [`SweptHit`]). The module docs of [`crate::scenes`] say what a
//! frame answers and why the structure is kept between frames; `broad.rs` keeps the grid.

use super::broad::Broad;
use crate::batch::Segments;
use crate::batch::{Error, check_u32};
use crate::motion::{SweptBatch, SweptContact, swept_indexed};
use crate::pairs::{
    CapsuleContact, PairMask, Radii, capsule_contacts_into, capsules_touch_indexed_into,
};
use crate::segment::{Options, Segment};
use crate::sets::radius::{PairRadius, Radius};

bitflags::bitflags! {
    /// What a frame reports besides the touching pairs.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Report: u8 {
        /// The contacts of the touching pairs ([`Frame::contacts`]).
        const CONTACTS = 1;
        /// The pairs that began and ended touching since the previous frame
        /// ([`Frame::began`], [`Frame::ended`]).
        const EVENTS = 2;
        /// The pairs that touched at some time while the objects moved from their positions
        /// at the previous frame to their positions now, with the first time and contact
        /// ([`Frame::swept`]): continuous collision, so that nothing thinner than a step
        /// passes through anything unseen. The step starts at the last frame that reported
        /// it (an engine asks for it every frame); frames without it keep no copy of the
        /// positions and cost nothing for it.
        const SWEPT = 4;
    }
}

/// What one frame of a [`Capsules`] set reports (buffers reused by
/// [`Capsules::frame_into`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pairs: Vec<(u32, u32)>,
    contacts: Vec<CapsuleContact>,
    began: Vec<(u32, u32)>,
    ended: Vec<(u32, u32)>,
    non_finite: Vec<u32>,
    swept: Vec<SweptHit>,
    candidates: usize,
}

/// A pair that touched during the step, from [`Report::SWEPT`]: objects `i < j` and the
/// first contact of their motion from the previous frame's positions (`t = 0`) to this
/// frame's (`t = 1`), A being object `i` and B object `j` (the normal points from `j`
/// towards `i`), bit for bit
/// [`reference::first_contact_capsules`](crate::reference::first_contact_capsules).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweptHit {
    /// The smaller id.
    pub i: u32,
    /// The larger id.
    pub j: u32,
    /// The first contact (always a hit).
    pub contact: SweptContact,
}

impl Frame {
    /// An empty frame, to be filled by [`Capsules::frame_into`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Every touching pair of ids `(i, j)`, `i < j`, sorted.
    #[must_use]
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// With [`Report::CONTACTS`]: the contacts of the touching pairs, in the order of
    /// [`pairs`](Frame::pairs), one or two a pair (see
    /// [`CapsuleContact`]); `pair` is the position in `pairs()`, `i` and `j` are the ids
    /// of the two objects (`i < j`), B is object `j` (the normal points from `j` towards
    /// `i`). Empty otherwise.
    #[must_use]
    pub fn contacts(&self) -> &[CapsuleContact] {
        &self.contacts
    }

    /// With [`Report::EVENTS`]: the pairs touching now and not in the previous frame,
    /// sorted. Empty otherwise.
    #[must_use]
    pub fn began(&self) -> &[(u32, u32)] {
        &self.began
    }

    /// With [`Report::EVENTS`]: the pairs of the previous frame not touching now (a
    /// removed object's pairs end in the next frame), sorted. Empty otherwise.
    #[must_use]
    pub fn ended(&self) -> &[(u32, u32)] {
        &self.ended
    }

    /// The ids of the objects with a non-finite coordinate, which touch nothing, in
    /// increasing order.
    #[must_use]
    pub fn non_finite(&self) -> &[u32] {
        &self.non_finite
    }

    /// With [`Report::SWEPT`]: the pairs that touched at some time of the step from the
    /// positions at the previous frame that reported them (where inserted, for an object
    /// inserted since) to these, sorted by `(i, j)`, each with its first contact (an object
    /// non-finite at the start touches nothing). Pairs touching now are among them (at the
    /// latest at `t = 1`). Empty otherwise.
    #[must_use]
    pub fn swept(&self) -> &[SweptHit] {
        &self.swept
    }

    /// How many candidate pairs the kernel decided this frame (the broad phase's output).
    #[must_use]
    pub fn candidates(&self) -> usize {
        self.candidates
    }
}

/// A persistent set of moving capsules with stable `u32` ids; see the [module
/// docs](crate::scenes).
///
/// ```
/// use segbatch::scenes::{Capsules, Frame, Report};
/// use segbatch::Segment;
/// let mut scene = Capsules::new();
/// let a = scene.insert(Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]), 0.5)?;
/// let b = scene.insert(Segment::new([0.0, 3.0, 0.0], [2.0, 3.0, 0.0]), 0.5)?;
/// let mut frame = Frame::new();
/// scene.frame_into(Report::EVENTS, &mut frame);
/// assert!(frame.pairs().is_empty());
/// // b falls onto a: they touch, the pair begins.
/// scene.set(b, Segment::new([0.0, 0.9, 0.0], [2.0, 0.9, 0.0]))?;
/// scene.frame_into(Report::EVENTS | Report::CONTACTS, &mut frame);
/// assert_eq!(frame.pairs(), &[(a, b)]);
/// assert_eq!(frame.began(), &[(a, b)]);
/// assert_eq!(frame.contacts().len(), 2); // lying side by side: two points
/// # Ok::<(), segbatch::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct Capsules {
    segs: Segments,
    /// The segments at the previous frame that reported [`Report::SWEPT`] (or where
    /// inserted since): the start of the step it looks at.
    start: Segments,
    radii: Vec<f32>,
    live: Vec<bool>,
    len: usize,
    /// Ids free to give out again.
    free: Vec<u32>,
    /// Ids removed since the last frame: given out again only after it, so a frame's
    /// events never confuse a removed object with a new one.
    freed: Vec<u32>,
    broad: Broad,
    candidates: Vec<(u32, u32)>,
    /// The kernel's answer on the candidates among the pairs kept from the last frame.
    kept: Decided,
    /// The kernel's answer on the candidates among the moved objects' new pairs.
    fresh: Decided,
    swept: SweptBatch,
    previous: Vec<(u32, u32)>,
}

/// The kernel's answer on one sorted list of candidates: the touching pairs, in order, and
/// with [`Report::CONTACTS`] their contacts (`pair` indexing `pairs`).
#[derive(Debug, Default)]
struct Decided {
    pairs: Vec<(u32, u32)>,
    contacts: Vec<CapsuleContact>,
    mask: PairMask,
}

impl Decided {
    /// Decides `candidates`: each once, with its two radii.
    fn decide(
        &mut self,
        segs: &Segments,
        radii: &[f32],
        report: Report,
        parallel: bool,
        candidates: &[(u32, u32)],
    ) {
        self.pairs.clear();
        self.contacts.clear();
        let radii = Radii::per_object_valid(radii, radii);
        if report.contains(Report::CONTACTS) {
            contacts_into(parallel, segs, candidates, radii, &mut self.contacts)
                .expect("candidates name live objects");
            for c in &mut self.contacts {
                let pair = candidates[c.pair as usize];
                if self.pairs.last() != Some(&pair) {
                    self.pairs.push(pair);
                }
                c.pair = (self.pairs.len() - 1) as u32;
            }
        } else {
            touch_into(parallel, segs, candidates, radii, &mut self.mask)
                .expect("candidates name live objects");
            self.pairs
                .extend(self.mask.iter_ones().map(|k| candidates[k]));
        }
    }
}

/// The touching pairs of `a` and `b` (disjoint) in `(i, j)` order, each with its contacts,
/// appended to `pairs` and `contacts` (renumbered).
fn merge_decided(
    a: &Decided,
    b: &Decided,
    pairs: &mut Vec<(u32, u32)>,
    contacts: &mut Vec<CapsuleContact>,
) {
    let (mut x, mut y) = (0, 0);
    let (mut cx, mut cy) = (0, 0);
    while x < a.pairs.len() || y < b.pairs.len() {
        let from_a = y == b.pairs.len() || (x < a.pairs.len() && a.pairs[x] < b.pairs[y]);
        let (side, k, c) = if from_a {
            (a, &mut x, &mut cx)
        } else {
            (b, &mut y, &mut cy)
        };
        let at = pairs.len() as u32;
        pairs.push(side.pairs[*k]);
        while let Some(&contact) = side.contacts.get(*c).filter(|ct| ct.pair == *k as u32) {
            contacts.push(CapsuleContact {
                pair: at,
                ..contact
            });
            *c += 1;
        }
        *k += 1;
    }
}

/// True for a valid radius: zero, positive or `+∞` (as [`Radii`] takes them).
fn valid_radius(r: f32) -> bool {
    r >= 0.0
}

impl Capsules {
    /// An empty set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set with room for `n` objects: as many inserts allocate nothing.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        let mut set = Self::default();
        set.reserve(n);
        set
    }

    /// Makes room for at least `additional` more objects, so that as many inserts (one by
    /// one or with [`insert_all`](Capsules::insert_all)) allocate nothing.
    pub fn reserve(&mut self, additional: usize) {
        self.segs.reserve(additional);
        self.start.reserve(additional);
        self.radii.reserve(additional);
        self.live.reserve(additional);
    }

    /// Number of objects in the set.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the set has no object.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// One more than the largest id given out so far: the length
    /// [`set_all`](Capsules::set_all) takes.
    #[must_use]
    pub fn id_bound(&self) -> usize {
        self.live.len()
    }

    /// The segment and radius of object `id`, `None` for an id that names no object.
    #[must_use]
    pub fn get(&self, id: u32) -> Option<(Segment, f32)> {
        let i = id as usize;
        (self.live.get(i) == Some(&true)).then(|| (self.segs.as_view().at(i), self.radii[i]))
    }

    /// Adds the capsule `(segment, radius)` and returns its id: the smallest id removed
    /// before the last frame, else the next new one. `segment` is a [`Segment`] or anything
    /// that converts into one (`[glam::Vec3; 2]`, `[mint::Point3<f32>; 2]` with those
    /// features, `[[f32; 3]; 2]`).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] for a negative or NaN radius; [`Error::TooManyObjects`]
    /// when every `u32` id is taken.
    pub fn insert(&mut self, segment: impl Into<Segment>, radius: f32) -> Result<u32, Error> {
        let segment = segment.into();
        if !valid_radius(radius) {
            return Err(Error::InvalidRadius { index: None });
        }
        if let Some(id) = self.free.pop() {
            let i = id as usize;
            self.write(i, &segment);
            write(&mut self.start, i, &segment);
            self.radii[i] = radius;
            self.live[i] = true;
            self.len += 1;
            return Ok(id);
        }
        let id = self.live.len();
        check_u32(id + 1)?;
        self.segs.push(segment);
        self.start.push(segment);
        self.radii.push(radius);
        self.live.push(true);
        self.len += 1;
        Ok(id as u32)
    }

    /// Adds many capsules at once and returns their ids, in the order of `segments`: each
    /// id as [`insert`](Capsules::insert) would give it (ids removed before the last frame
    /// first, smallest first, then new ones). `segments` may be [`Segment`]s or an engine's
    /// own pairs of points (`[glam::Vec3; 2]`, `[glam::Vec3A; 2]`, `[mint::Point3<f32>; 2]`
    /// with the `glam`/`mint` features: anything that converts into a [`Segment`]);
    /// `radius` is one radius for every object (an `f32`) or one an object (a slice, as
    /// [`Radius::Each`]).
    ///
    /// ```
    /// use segbatch::scenes::{Capsules, Report};
    /// use segbatch::Segment;
    /// let rods: Vec<[[f32; 3]; 2]> = (0..4).map(|k| [[k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0]]).collect();
    /// let mut scene = Capsules::with_capacity(rods.len());
    /// let ids = scene.insert_all(&rods, &[0.5, 0.5, 0.5, 0.1][..])?;
    /// assert_eq!(ids, [0, 1, 2, 3]);
    /// // 1 apart: touching where the two radii sum to 1.
    /// assert_eq!(scene.frame(Report::empty()).pairs(), &[(0, 1), (1, 2)]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// Nothing is inserted on an error: [`Error::InvalidRadius`] for a negative or NaN
    /// radius (with the index of the first one in a list); [`Error::LengthMismatch`] for a
    /// list of radii whose length is not `segments.len()`, or for [`Radius::Sides`];
    /// [`Error::TooManyObjects`] when the ids would not fit in a `u32`.
    pub fn insert_all<'r, S: Copy + Into<Segment>>(
        &mut self,
        segments: &[S],
        radius: impl Into<Radius<'r>>,
    ) -> Result<Vec<u32>, Error> {
        let radius = PairRadius::one_set(radius.into(), segments.len())?;
        let reused = segments.len().min(self.free.len());
        check_u32(self.live.len() + (segments.len() - reused))?;
        self.reserve(segments.len() - reused);
        let ids = segments
            .iter()
            .enumerate()
            .map(|(k, &s)| {
                let r = match radius {
                    PairRadius::All(r) => r,
                    PairRadius::Sum { a, .. } => a.map_or(0.0, |radii| radii[k]),
                };
                self.insert(s.into(), r)
                    .expect("radius and id room checked")
            })
            .collect();
        Ok(ids)
    }

    /// Removes object `id`, returning its segment and radius (`None` for an id that names
    /// no object). Its pairs end in the next frame.
    pub fn remove(&mut self, id: u32) -> Option<(Segment, f32)> {
        let old = self.get(id)?;
        self.live[id as usize] = false;
        self.freed.push(id);
        self.len -= 1;
        Some(old)
    }

    /// Moves object `id` to `segment` (in place), a [`Segment`] or anything that converts
    /// into one, as for [`insert`](Capsules::insert).
    ///
    /// # Errors
    /// [`Error::UnknownId`] for an id that names no object.
    pub fn set(&mut self, id: u32, segment: impl Into<Segment>) -> Result<(), Error> {
        let i = self.check_id(id)?;
        self.write(i, &segment.into());
        Ok(())
    }

    /// Changes the radius of object `id`.
    ///
    /// # Errors
    /// [`Error::UnknownId`] for an id that names no object; [`Error::InvalidRadius`] for a
    /// negative or NaN radius.
    pub fn set_radius(&mut self, id: u32, radius: f32) -> Result<(), Error> {
        let i = self.check_id(id)?;
        if !valid_radius(radius) {
            return Err(Error::InvalidRadius { index: None });
        }
        self.radii[i] = radius;
        Ok(())
    }

    /// Moves every object at once: `segments[id]` is object `id`'s new segment, for every
    /// id below [`id_bound`](Capsules::id_bound) (entries of ids that name no object are
    /// ignored). Written in place into the set's columns, without allocating. `segments`
    /// may be [`Segment`]s or an engine's own pairs of points, as for
    /// [`insert_all`](Capsules::insert_all):
    ///
    /// ```
    /// # macro_rules! example { ($glam:ident) => {{ use $glam as glam;
    /// use glam::Vec3;
    /// use segbatch::scenes::{Capsules, Report};
    /// let mut bodies: Vec<[Vec3; 2]> = (0..3).map(|k| [Vec3::X * k as f32, Vec3::new(k as f32, 1.0, 0.0)]).collect();
    /// let mut scene = Capsules::new();
    /// scene.insert_all(&bodies, 0.25).unwrap();
    /// assert!(scene.frame(Report::empty()).pairs().is_empty()); // 1 apart, radii 0.25
    /// for p in &mut bodies[1] {
    ///     *p += Vec3::X * 0.6; // the engine's step, in its own types
    /// }
    /// scene.set_all(&bodies).unwrap();
    /// assert_eq!(scene.frame(Report::empty()).pairs(), &[(1, 2)]); // 0.4 apart
    /// # }}}
    /// # #[cfg(feature = "glam033")] example!(glam033);
    /// # #[cfg(feature = "glam034")] example!(glam034);
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `segments.len() != id_bound()` (nothing is moved).
    pub fn set_all<S: Copy + Into<Segment>>(&mut self, segments: &[S]) -> Result<(), Error> {
        crate::batch::check_len(
            "segments and the set's ids",
            self.live.len(),
            segments.len(),
        )?;
        let [x0, y0, z0, x1, y1, z1] = self.segs.columns_mut();
        for (i, &s) in segments.iter().enumerate() {
            let Segment { p0, p1 } = s.into();
            (x0[i], y0[i], z0[i]) = (p0[0], p0[1], p0[2]);
            (x1[i], y1[i], z1[i]) = (p1[0], p1[1], p1[2]);
        }
        Ok(())
    }

    /// [`set_all`](Capsules::set_all) from flat `f32` data, six numbers a segment
    /// (`x0 y0 z0 x1 y1 z1`).
    ///
    /// # Errors
    /// [`Error::NotWholeRecords`] when the length is not a multiple of 6;
    /// [`Error::LengthMismatch`] as [`set_all`](Capsules::set_all).
    pub fn set_all_flat(&mut self, flat: &[f32]) -> Result<(), Error> {
        if !flat.len().is_multiple_of(6) {
            return Err(Error::NotWholeRecords {
                len: flat.len(),
                per_record: 6,
            });
        }
        // `Segment` is six `f32` with alignment 4: the cast cannot fail.
        self.set_all::<Segment>(bytemuck::cast_slice(flat))
    }

    /// The frame's answer with a new [`Frame`]: see [`frame_into`](Capsules::frame_into).
    #[must_use]
    pub fn frame(&mut self, report: Report) -> Frame {
        let mut out = Frame::new();
        self.frame_into(report, &mut out);
        out
    }

    /// Brings the broad phase up to date with the objects' positions and writes the frame's
    /// touching pairs (and what `report` asks for) into `out`, its buffers reused.
    pub fn frame_into(&mut self, report: Report, out: &mut Frame) {
        self.run(report, false, out);
    }

    /// [`frame_into`](Capsules::frame_into) on all cores (feature `rayon`): the tight boxes,
    /// the moved objects' new pairs, the candidates and the kernel, and the kept pairs'
    /// candidates and kernel beside the grid's sort; the same frame, bit for bit. Its
    /// passes are short (under a millisecond each at 50K objects), so what it gains depends
    /// on how soon the pool's second thread starts: docs/performance.md ("Moving scenes")
    /// has the figures.
    #[cfg(feature = "rayon")]
    pub fn par_frame_into(&mut self, report: Report, out: &mut Frame) {
        // The whole frame on a thread of the pool. From a thread outside it, the caller
        // sleeps through each parallel pass and then runs the serial ones while the pool's
        // threads still spin for work: on two cores three threads, and the serial passes ran
        // at half speed (the frame took longer than on one thread).
        rayon::scope(|_| self.run(report, true, out));
    }

    fn check_id(&self, id: u32) -> Result<usize, Error> {
        let i = id as usize;
        if self.live.get(i) == Some(&true) {
            Ok(i)
        } else {
            Err(Error::UnknownId { id })
        }
    }

    fn write(&mut self, i: usize, s: &Segment) {
        write(&mut self.segs, i, s);
    }

    fn run(&mut self, report: Report, parallel: bool, out: &mut Frame) {
        out.pairs.clear();
        out.contacts.clear();
        out.began.clear();
        out.ended.clear();
        out.non_finite.clear();
        out.swept.clear();
        let swept = report.contains(Report::SWEPT);
        let (segs, radii) = (&self.segs, &self.radii[..]);
        let decide = |candidates: &[(u32, u32)], part: &mut Decided| {
            part.decide(segs, radii, report, parallel, candidates);
        };
        self.broad.update(
            segs,
            swept.then_some(&self.start),
            radii,
            &self.live,
            &mut out.non_finite,
            parallel,
            &decide,
            &mut self.kept,
            &mut self.fresh,
        );
        self.candidates.clear();
        self.broad.candidates(&mut self.candidates);
        out.candidates = self.candidates.len();
        merge_decided(&self.kept, &self.fresh, &mut out.pairs, &mut out.contacts);
        if swept {
            self.narrow_swept(parallel, out);
        }
        if report.contains(Report::EVENTS) {
            difference(&out.pairs, &self.previous, &mut out.began);
            difference(&self.previous, &out.pairs, &mut out.ended);
        }
        self.previous.clear();
        self.previous.extend_from_slice(&out.pairs);
        // The next swept step starts here (a frame that does not report swept contacts
        // leaves the start where it was and copies nothing).
        if swept {
            for (to, from) in self
                .start
                .columns_mut()
                .into_iter()
                .zip(self.segs.columns())
            {
                to.copy_from_slice(from);
            }
        }
        self.free.append(&mut self.freed);
        // Smallest id first.
        self.free.sort_unstable_by(|a, b| b.cmp(a));
    }
}

impl Capsules {
    /// The swept-capsule query over the candidates (boxes of the whole motion): each
    /// decided once, the hits appended to `out.swept` in the candidates' `(i, j)` order.
    fn narrow_swept(&mut self, parallel: bool, out: &mut Frame) {
        let [x0, y0, z0, x1, y1, z1] = self.start.columns();
        let [ex0, ey0, ez0, ex1, ey1, ez1] = self.segs.columns();
        let cols = [x0, y0, z0, x1, y1, z1, ex0, ey0, ez0, ex1, ey1, ez1];
        let radii = Radii::per_object_valid(&self.radii, &self.radii);
        swept_indexed(
            cols,
            cols,
            &self.candidates,
            radii,
            parallel,
            &mut self.swept,
        );
        out.swept.extend(self.swept.hits().map(|k| {
            let (i, j) = self.candidates[k];
            SweptHit {
                i,
                j,
                contact: self.swept.get(k).expect("k < len"),
            }
        }));
    }
}

/// Writes segment `s` at index `i` of `segs`' columns.
fn write(segs: &mut Segments, i: usize, s: &Segment) {
    let v = [s.p0[0], s.p0[1], s.p0[2], s.p1[0], s.p1[1], s.p1[2]];
    for (col, x) in segs.columns_mut().into_iter().zip(v) {
        col[i] = x;
    }
}

/// [`capsule_contacts_into`], on all cores when `parallel`.
fn contacts_into(
    parallel: bool,
    segs: &Segments,
    pairs: &[(u32, u32)],
    radii: Radii<'_>,
    out: &mut Vec<CapsuleContact>,
) -> Result<(), Error> {
    let options = Options::SEGMENTS;
    #[cfg(feature = "rayon")]
    if parallel {
        return crate::pairs::par_capsule_contacts_into(segs, segs, pairs, radii, &options, out);
    }
    let _ = parallel;
    capsule_contacts_into(segs, segs, pairs, radii, &options, out)
}

/// [`capsules_touch_indexed_into`], on all cores when `parallel`.
fn touch_into(
    parallel: bool,
    segs: &Segments,
    pairs: &[(u32, u32)],
    radii: Radii<'_>,
    out: &mut PairMask,
) -> Result<(), Error> {
    let options = Options::SEGMENTS;
    #[cfg(feature = "rayon")]
    if parallel {
        return crate::pairs::par_capsules_touch_indexed_into(
            segs, segs, pairs, radii, &options, out,
        );
    }
    let _ = parallel;
    capsules_touch_indexed_into(segs, segs, pairs, radii, &options, out)
}

/// The pairs of sorted `a` not in sorted `b`, appended to `out`.
fn difference(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let mut y = 0;
    for &p in a {
        while y < b.len() && b[y] < p {
            y += 1;
        }
        if b.get(y) != Some(&p) {
            out.push(p);
        }
    }
}
