//! The eight-wide bounding-volume tree that casts the thick rays of
//! [`SegmentIndex::first_hits`](crate::SegmentIndex::first_hits).
//!
//! # Why a tree of eight boxes a node
//!
//! A first hit is a nearest-first search: once a wall is hit at distance `t`, nothing
//! beyond `t` matters. A tree answers that by visiting boxes front to back and dropping
//! every box that starts past the best hit so far, so a ray's cost follows the few walls
//! around its path, whatever its range and however sparse the level is. A uniform grid
//! marched cell by cell pays for every cell it crosses, empty or not: on a sparse level or
//! a long range that is most of the work (a grid walk measured 14x slower than parry3d's
//! binary tree on 10K walls). Eight children a node match the eight `f32` lanes: one
//! node is one slab test of the ray against eight boxes at once (Embree's BVH8), with the
//! tree a third as deep as a binary one, so a ray makes about a third of the
//! data-dependent branches and cache misses a binary tree costs. The leaves are single
//! walls: the last slab test is the wall's own box, and only walls whose box the grown ray
//! enters reach the exact `f64` decision ([`crate::reference::first_hit`]).
//!
//! # Conservative in `f32`
//!
//! One tree serves both precisions ([`Member`]: `f32` and `f64` walls). The boxes are
//! `f32`, relative to the centre of the set's box (an `f64` point): each wall's bounds
//! minus the centre, rounded outward. Relative to the centre, walls at world coordinates
//! (UTM `x ~ 5e5`, `y ~ 5e6`) keep boxes as tight as at the origin (an `f32` ulp of the
//! set's extent, not of `5e6`, which is 0.5 m). The ray's origin is taken relative to the
//! same centre in `f64`, and its radius is added at query time (one tree serves every
//! radius), grown by the `f64` rounding of those two steps and rounded outward. A slab
//! parameter `(B - o) / d` is computed as `(B - o')·inv` with `inv = |d| / d` rounded to
//! `f32` per axis, so each axis' entry and exit distance carry a relative error of a few
//! ulps, never a lateral one (an `f32` unit direction would shift the ray sideways by
//! `t·ε`); the test accepts a box when `near <= far·(1 + 2⁻¹⁸)`, which covers it. An axis
//! with `d = 0` is an exact containment test. A direction component so small that its
//! `inv` overflows `f32` cannot be tested this way: such a ray is decided against every
//! wall, and so is every ray of a set whose `f64` walls leave `f32`'s range relative to the
//! centre.
//!
//! # Build
//!
//! Top down by the surface area heuristic: a node's walls are split into up to eight
//! groups by splitting the group of the largest box surface (the one a ray most likely
//! enters) where the binned heuristic puts the cut (up to 16 bins of box centres an axis,
//! minimising the sum of each side's box area times its count). The heuristic weighs how
//! likely a ray is to enter each side, where a median split only balances the counts:
//! against splitting at the median of the widest axis, the rays of `segbatch bench
//! --scenes` visit 14-21% fewer nodes (counted as docs/performance.md, "First hits",
//! says). A cut's pass over its walls bins the three axes at once in SIMD lanes, each
//! bin's box one row of eight lanes (the low corner and the negated high corner) that a
//! wall widens by one minimum: about 0.7x the time of scalar binning for the same tree. Walls
//! are stored in the tree's depth-first order, so the walls under one subtree are near each
//! other in memory. The parallel build (`par_new`) builds the subtrees of the top two
//! levels as separate fragments on all cores and appends them in their parents' order,
//! their child slots moved by the offsets: the same nodes and walls, in the same places,
//! as the build on one thread.
//!
//! # Boxes around segments
//!
//! [`SegmentIndex::pairs_within`](crate::SegmentIndex::pairs_within) asks the same tree
//! which members may lie within a radius of a query segment: the query's box, grown by the
//! radius and the error allowance of the kernel of the members' precision
//! ([`Member::KERNEL_ABS`], [`Member::KERNEL_REL`]) and taken relative to the centre as the
//! rays are (rounded outward), against each node's eight boxes at once. Every member it
//! names is decided by the kernel, so the tree only prunes.
//!
//! # Walk
//!
//! Per node, one slab test of eight boxes, then the entered walls are decided at once and
//! the entered nodes pushed on the stack, the nearest on top. Which is nearest is not
//! sorted per ray: each node keeps, for each of the eight octants a direction can lie in,
//! the order of its children by where their boxes start along that octant's diagonal, and
//! the walk writes all eight lanes in that order, advancing the stack's top past the
//! entered ones only, without a branch on how many were entered or where. On the rays of
//! `segbatch bench --scenes` that order visits as many nodes as sorting by each ray's entry
//! distances (7.08 a sparse ray at range 10 either way), and the walk mispredicts half as
//! often. Every entry keeps its entry distance, checked against the bound when it is
//! taken, so the order only decides how soon a hit prunes, never what is found. The ray's
//! set-up rounds outward without a data-dependent branch: at a few hundred nanoseconds a
//! ray, each mispredicted branch is a visible share. Each walk's stack is sized once for
//! the tree's depth (seven entries for each level above the node taken, and the eight lanes
//! of its push) and walked as slices, so a visit neither checks its room nor reloads the
//! stack's length (3% of a sparse ray's instructions).
//!
//! The lanes entered are pushed without a loop where AVX2 is there: one lane permutation
//! into the octant's order, one that packs the entered lanes (their positions read from a
//! table of 256 entries, 2 KB, indexed by which positions were entered), two stores of
//! eight lanes; 11% fewer instructions a sparse ray than writing the eight lanes one by one
//! (the fallback). The table replaced BMI2's `pdep` and `pext`, which compute the same
//! positions in three instructions but are microcode on Zen 1 and Zen 2: with them a
//! sparse frame took 1.6x as long on Zen 1 (docs/performance.md).
//!
//! Four rays walk at once ([`Bvh8::cast_all`]), a node of each in turn, and a walk that
//! ends hands its slot to the next ray at once: a node visit waits on the node's load and
//! then its slab test before the next node is known, and the other walks' visits fill the
//! wait (a third of a dense frame of one ray at a time went on memory). With the packed
//! push, four walks take 0.92x the time of two rays in turn with the loop push (whole
//! `set_profile rays` runs, build included, dense and sparse; docs/performance.md).

use crate::lanes::Twin;
use crate::prune::KERNEL_ABS64;
use wide::{f32x4, f32x8};

use crate::segment::{Segment, Segment64};

/// A member type of the index: [`Segment`] or [`Segment64`], with what differs between the
/// precisions. Every decision is made in `f64`, on the member widened (exactly, for
/// `f32`); only the contact tolerance and the rounding of the results follow the
/// member's precision.
pub(crate) trait Member: Copy + Send + Sync {
    /// The scalar of the member's coordinates, and of hits, radii and ranges.
    type Real: Copy + PartialOrd + Into<f64> + Send + Sync;
    /// The contact tolerance's factor: a zero radius touches within `4·ε·S`, `ε` the
    /// member's precision.
    const TOLERANCE: f64;
    /// How far beyond a radius `r` the kernel of the member's precision may report a pair,
    /// relative to `r` ([`Bvh8::reach_box`]).
    const KERNEL_REL: f64;
    /// The same, times the largest coordinate magnitude of the pair.
    const KERNEL_ABS: f64;
    /// The same, absolute (where the kernel's values are subnormal).
    const KERNEL_FLOOR: f64;
    /// The member in `f64` (exact for [`Segment`]).
    fn wide(&self) -> Segment64;
    /// `x` rounded to the member's precision.
    fn narrow(x: f64) -> Self::Real;
}

impl Member for Segment {
    type Real = f32;
    const TOLERANCE: f64 = 4.0 * f32::EPSILON as f64;
    /// The `f32` kernel reports a pair only if its segments come within `r·(1 + 3ε)` and
    /// `2.75·ε·L` of each other (`L` the pair's extent, at most `6√3` times its largest
    /// coordinate; `2^-74` more where `dist2` is subnormal: `src/sets/mod.rs`); twice that,
    /// and more.
    const KERNEL_REL: f64 = 8.0 * f32::EPSILON as f64;
    const KERNEL_ABS: f64 = 64.0 * f32::EPSILON as f64;
    const KERNEL_FLOOR: f64 = 1.0 / (1u128 << 60) as f64;
    #[inline]
    fn wide(&self) -> Segment64 {
        Segment64::new(self.p0.map(f64::from), self.p1.map(f64::from))
    }
    #[inline]
    fn narrow(x: f64) -> f32 {
        x as f32
    }
}

impl Member for Segment64 {
    type Real = f64;
    const TOLERANCE: f64 = 4.0 * f64::EPSILON;
    /// The `f64` kernel's error is `8·ε·S` at most ([`KERNEL_ABS64`] is 32 times that); its
    /// radius test rounds relatively by a few `ε`, which [`SHIFT_ROUNDING`] covers, and the
    /// range rule decides a pair whose `dist2` is subnormal at a power-of-two scale.
    const KERNEL_REL: f64 = 0.0;
    const KERNEL_ABS: f64 = KERNEL_ABS64;
    const KERNEL_FLOOR: f64 = 0.0;
    #[inline]
    fn wide(&self) -> Segment64 {
        *self
    }
    #[inline]
    fn narrow(x: f64) -> f64 {
        x
    }
}

/// The tree's own rounding allowance, relative to the grown radius plus twice the scale:
/// the `f64` rounding of the walls' bounds and the ray's origin relative to the centre and
/// of adding the radius to the origin, with room to spare.
const SHIFT_ROUNDING: f64 = 4.0 * f64::EPSILON;

/// Marks a child slot as a wall (its position in tree order) rather than a node.
const LEAF: u32 = 1 << 31;
/// An empty child slot.
const EMPTY: u32 = u32::MAX;
/// The relative slack of the slab test (see the module docs).
const SLACK: f32 = 1.0 + 1.0 / 262_144.0;

/// One node: the boxes of up to eight children, one lane each.
#[derive(Clone)]
struct Node {
    /// Per axis, the children's low and high bounds.
    b: [[f32x8; 2]; 3],
    child: [u32; 8],
    /// The lanes whose child is a wall, a bit each.
    leaves: u32,
    /// The lanes whose child is a node, a bit each (empty slots are in neither mask).
    inner: u32,
    /// Per direction octant, the lanes in the order a ray of that octant pushes them.
    order: [[u8; 3]; 8],
}

/// A wall's index and bounds while building.
#[derive(Clone, Copy)]
struct Item {
    id: u32,
    lo: [f32; 3],
    hi: [f32; 3],
}

/// The tree over the finite members of a set.
pub(crate) struct Bvh8<W> {
    /// The nodes; empty without members or when a box leaves `f32`'s range (every ray is
    /// then decided against every member).
    nodes: Vec<Node>,
    /// The members with finite coordinates, in tree order.
    walls: Vec<W>,
    /// Their indices in the set.
    ids: Vec<u32>,
    /// The largest coordinate magnitude of the members: bounds the scale of the contact
    /// tolerance of any pair.
    scale: f64,
    /// The low corner of the members' box: the origin of [`Bvh8::morton`].
    lo: [f64; 3],
    /// The centre of that box: the boxes and the rays' origins are taken relative to it.
    centre: [f64; 3],
    /// Per axis, 1024 over the box's extent: the Morton cells a unit.
    cells: [f64; 3],
    /// The entries a walk's stack needs ([`stack_room`]).
    stack_room: usize,
}

/// What a ray needs for the slab tests, prepared once per ray.
#[derive(Clone, Copy, Default)]
pub(crate) struct RayPrep {
    /// Per axis, what the low face's coordinate is reduced by: `o + g` rounded up (`g` the
    /// grown radius). A ray of positive direction enters by the low face and one of
    /// negative direction leaves by it; either way the rounding moves the face's parameter
    /// outward (the entry earlier, the exit later).
    lo_off: [f32; 3],
    /// The same for the high face: `o - g` rounded down (the exit of a positive direction,
    /// the entry of a negative one).
    hi_off: [f32; 3],
    /// `|d| / d_c` rounded to `f32`, per axis (0 for an axis with `d_c = 0`).
    inv: [f32; 3],
    /// True when a direction component is 0: those axes are containment tests.
    flat: bool,
    /// The direction's octant: bit `c` set for a negative component `c`.
    octant: usize,
    /// `|d|` in `f64`: distance along the ray is `u·|d|`.
    len: f64,
}

/// The least `f32` at or above `x` (finite `x` within `f32`'s range; beyond it, an
/// infinity or NaN, which the callers refuse), without a data-dependent branch.
#[inline]
fn up(x: f64) -> f32 {
    // `+ 0.0` turns -0 into +0, whose successor is the bits plus one.
    let y = (x as f32) + 0.0;
    let bits = y.to_bits() as i32;
    // The successor of a positive float is its bits plus one, of a negative one minus one;
    // taken by a product with 0 or 1, which compiles to no branch (a select did).
    let step = ((bits >> 31) | 1) * i32::from(f64::from(y) < x);
    f32::from_bits(bits.wrapping_add(step) as u32)
}

/// The greatest `f32` at or below `x` (see [`up`]).
#[inline]
fn down(x: f64) -> f32 {
    -up(-x)
}

impl<W: Member> Bvh8<W> {
    /// The tree over the members of `set` with finite coordinates (`at(i)` member `i`); the
    /// subtrees of the top [`PAR_LEVELS`] levels built on all cores when `parallel` (the
    /// same tree).
    pub(crate) fn build(n: usize, at: impl Fn(usize) -> W + Sync, parallel: bool) -> Self {
        let mut finite: Vec<u32> = Vec::new();
        let mut scale = 0.0f64;
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for i in 0..n {
            let s = at(i).wide();
            if s.p0.iter().chain(&s.p1).all(|x| x.is_finite()) {
                scale = s.p0.iter().chain(&s.p1).fold(scale, |m, x| m.max(x.abs()));
                for c in 0..3 {
                    lo[c] = lo[c].min(s.p0[c].min(s.p1[c]));
                    hi[c] = hi[c].max(s.p0[c].max(s.p1[c]));
                }
                finite.push(i as u32);
            }
        }
        // Halved first: the sum of two coordinates near f64::MAX overflows.
        let centre: [f64; 3] = core::array::from_fn(|c| lo[c] * 0.5 + hi[c] * 0.5);
        let mut items: Vec<Item> = finite
            .iter()
            .map(|&id| {
                let s = at(id as usize).wide();
                Item {
                    id,
                    lo: core::array::from_fn(|c| down(s.p0[c].min(s.p1[c]) - centre[c])),
                    hi: core::array::from_fn(|c| up(s.p0[c].max(s.p1[c]) - centre[c])),
                }
            })
            .collect();
        let mut tree = Bvh8 {
            nodes: Vec::new(),
            walls: Vec::with_capacity(items.len()),
            ids: Vec::with_capacity(items.len()),
            scale,
            lo,
            cells: core::array::from_fn(|c| 1024.0 / (hi[c] - lo[c])),
            centre,
            stack_room: 0,
        };
        let boxed = items
            .iter()
            .all(|it| it.lo.iter().chain(&it.hi).all(|x| x.is_finite()));
        if boxed && !items.is_empty() {
            let levels = if parallel { PAR_LEVELS } else { 0 };
            tree.node(&mut items, &at, levels);
        } else {
            for it in &items {
                tree.walls.push(at(it.id as usize));
                tree.ids.push(it.id);
            }
        }
        tree.stack_room = stack_room(&tree.nodes);
        tree
    }

    /// Builds the node over `items` (at least one) and returns its index; the subtrees of
    /// its children on all cores when `levels > 0` (each a fragment of the tree appended in
    /// its children's order, so the tree is the one built on one thread).
    fn node(&mut self, items: &mut [Item], at: &(impl Fn(usize) -> W + Sync), levels: u32) -> u32 {
        let index = self.nodes.len() as u32;
        self.nodes.push(Node {
            b: [[f32x8::splat(0.0); 2]; 3],
            child: [EMPTY; 8],
            leaves: 0,
            inner: 0,
            order: [[0; 3]; 8],
        });
        let groups = eight_groups(items);
        let mut lo = [[f32::INFINITY; 8]; 3];
        let mut hi = [[f32::NEG_INFINITY; 8]; 3];
        for (slot, &(start, end)) in groups.iter().enumerate() {
            for it in &items[start..end] {
                for c in 0..3 {
                    lo[c][slot] = lo[c][slot].min(it.lo[c]);
                    hi[c][slot] = hi[c][slot].max(it.hi[c]);
                }
            }
        }
        let fragments = self.fragments(items, &groups, at, levels);
        let mut child = [EMPTY; 8];
        for (slot, (&(start, end), fragment)) in groups.iter().zip(fragments).enumerate() {
            let part = &mut items[start..end];
            child[slot] = if part.len() == 1 {
                let pos = self.walls.len() as u32;
                self.walls.push(at(part[0].id as usize));
                self.ids.push(part[0].id);
                pos | LEAF
            } else if let Some(fragment) = fragment {
                self.append(fragment)
            } else {
                self.node(part, at, 0)
            };
        }
        let node = &mut self.nodes[index as usize];
        node.b = core::array::from_fn(|c| [f32x8::from(lo[c]), f32x8::from(hi[c])]);
        node.child = child;
        let lanes = |leaf: bool| {
            (0..8)
                .filter(|&k| child[k] != EMPTY && (child[k] & LEAF != 0) == leaf)
                .fold(0, |m, k| m | 1 << k)
        };
        node.leaves = lanes(true);
        node.inner = lanes(false);
        node.order = core::array::from_fn(|octant| push_order(&lo, &hi, &child, octant));
        index
    }

    /// The subtrees of the groups of more than one wall, each built on its own (a
    /// fragment whose nodes and walls start at 0), on all cores, when `levels > 0`; else
    /// none (the caller builds them in place).
    #[cfg(feature = "rayon")]
    fn fragments(
        &self,
        items: &mut [Item],
        groups: &[(usize, usize)],
        at: &(impl Fn(usize) -> W + Sync),
        levels: u32,
    ) -> Vec<Option<Self>> {
        use rayon::prelude::*;
        if levels == 0 {
            return groups.iter().map(|_| None).collect();
        }
        let mut parts: Vec<&mut [Item]> = Vec::with_capacity(groups.len());
        let mut rest = items;
        let mut done = 0;
        for &(start, end) in groups {
            let (part, tail) = core::mem::take(&mut rest).split_at_mut(end - done);
            parts.push(&mut part[start - done..]);
            rest = tail;
            done = end;
        }
        parts
            .into_par_iter()
            .map(|part| {
                (part.len() > 1).then(|| {
                    let mut fragment = self.empty();
                    fragment.node(part, at, levels - 1);
                    fragment
                })
            })
            .collect()
    }

    /// Without rayon every subtree is built in place.
    #[cfg(not(feature = "rayon"))]
    fn fragments(
        &self,
        _: &mut [Item],
        groups: &[(usize, usize)],
        _: &(impl Fn(usize) -> W + Sync),
        _: u32,
    ) -> Vec<Option<Self>> {
        groups.iter().map(|_| None).collect()
    }

    /// A tree without nodes or walls, with this one's frame.
    #[cfg(feature = "rayon")]
    fn empty(&self) -> Self {
        Bvh8 {
            nodes: Vec::new(),
            walls: Vec::new(),
            ids: Vec::new(),
            scale: self.scale,
            lo: self.lo,
            centre: self.centre,
            cells: self.cells,
            stack_room: 0,
        }
    }

    /// Appends `fragment` (a subtree built on its own, its root node 0) after this tree's
    /// nodes and walls, its child slots moved by the offsets, and returns its root's index.
    fn append(&mut self, fragment: Self) -> u32 {
        let (first_node, first_wall) = (self.nodes.len() as u32, self.walls.len() as u32);
        self.nodes
            .extend(fragment.nodes.into_iter().map(|mut node| {
                for c in &mut node.child {
                    if *c != EMPTY {
                        *c = if *c & LEAF != 0 {
                            ((*c & !LEAF) + first_wall) | LEAF
                        } else {
                            *c + first_node
                        };
                    }
                }
                node
            }));
        self.walls.extend(fragment.walls);
        self.ids.extend(fragment.ids);
        first_node
    }

    /// The Morton code of `p` in the members' box (10 bits an axis; points outside are
    /// clamped to it, NaN counts as its low corner): rays taken in this order walk the
    /// tree coherently.
    pub(crate) fn morton(&self, p: [f64; 3]) -> u32 {
        let mut key = 0u32;
        for (c, &x) in p.iter().enumerate() {
            // NaN (an empty or flat box, a NaN coordinate) converts to 0.
            let q = ((x - self.lo[c]) * self.cells[c]).clamp(0.0, 1023.0) as u32;
            key |= spread(q) << c;
        }
        key
    }

    /// True without members.
    pub(crate) fn is_empty(&self) -> bool {
        self.walls.is_empty()
    }

    /// The slab-test set-up of the ray from `o` along `d` grown by `radius`, or `None` when
    /// a direction component is too small for the test, the grown origin leaves f32's range
    /// or the tree has no boxes (the caller decides such a ray against every member). `o`
    /// and `d` are finite; `origin_scale` is the largest coordinate magnitude of `o`.
    pub(crate) fn prepare(
        &self,
        o: [f64; 3],
        d: [f64; 3],
        radius: f64,
        origin_scale: f64,
    ) -> Option<RayPrep> {
        if self.nodes.is_empty() {
            return None;
        }
        let len = d.iter().map(|x| x * x).sum::<f64>().sqrt();
        // The contact radius of any pair is at most `max(radius, TOLERANCE·s)` (see
        // `contact_radius`), `s` also bounding the centre's magnitude.
        let s = self.scale.max(origin_scale);
        let g = radius.max(W::TOLERANCE * s);
        let g = g + SHIFT_ROUNDING * (g + 2.0 * s);
        let o: [f64; 3] = core::array::from_fn(|c| o[c] - self.centre[c]);
        let mut inv = [0.0f32; 3];
        let mut flat = false;
        for c in 0..3 {
            if d[c] == 0.0 {
                flat = true;
            } else {
                let i = len / d[c];
                if !i.is_finite() || i.abs() > f64::from(f32::MAX) {
                    return None;
                }
                inv[c] = i as f32;
            }
        }
        let near: [f32; 3] = core::array::from_fn(|c| up(o[c] + g));
        let far: [f32; 3] = core::array::from_fn(|c| down(o[c] - g));
        // A grown origin beyond f32's range (a radius near f32::MAX) cannot be tested this
        // way either. (The tests are written out, without an iterator: a ray's set-up is a
        // sizeable share of a short walk.)
        let finite = |x: [f32; 3]| x[0].is_finite() & x[1].is_finite() & x[2].is_finite();
        if !(len.is_finite() & finite(near) & finite(far)) {
            return None;
        }
        let negative = |c: usize| usize::from(d[c] < 0.0) << c;
        Some(RayPrep {
            octant: negative(0) | negative(1) | negative(2),
            lo_off: near,
            hi_off: far,
            inv,
            flat,
            len,
        })
    }

    /// The box, in the tree's frame and rounded outward, of the points within `reach` of
    /// `seg` (a query in `f64`, exact for `f32`) and within the kernel's error allowance
    /// beyond ([`Member::KERNEL_REL`] of `reach`, [`Member::KERNEL_ABS`] times the largest
    /// coordinate of the pair, [`Member::KERNEL_FLOOR`]): every member the kernel of the
    /// members' precision finds within `reach` of `seg` has a box that meets it. `None` when
    /// the tree has no boxes or the box is not finite in `f32` (a non-finite coordinate, a
    /// reach near `f32::MAX`): every member is then a candidate.
    pub(crate) fn reach_box(&self, seg: &Segment64, reach: f64) -> Option<[[f32; 3]; 2]> {
        if self.nodes.is_empty() {
            return None;
        }
        let s = seg
            .p0
            .iter()
            .chain(&seg.p1)
            .fold(self.scale, |m, x| m.max(x.abs()));
        let g = reach * (1.0 + W::KERNEL_REL) + W::KERNEL_ABS * s + W::KERNEL_FLOOR;
        let g = g + SHIFT_ROUNDING * (g + 2.0 * s);
        let lo: [f32; 3] =
            core::array::from_fn(|c| down(seg.p0[c].min(seg.p1[c]) - self.centre[c] - g));
        let hi: [f32; 3] =
            core::array::from_fn(|c| up(seg.p0[c].max(seg.p1[c]) - self.centre[c] + g));
        let finite = seg.p0.iter().chain(&seg.p1).all(|x| x.is_finite())
            && lo.iter().chain(&hi).all(|x| x.is_finite());
        finite.then_some([lo, hi])
    }

    /// Number of members in the tree.
    pub(crate) fn len(&self) -> usize {
        self.walls.len()
    }

    /// Member `k` in tree order and its index in the set.
    pub(crate) fn wall(&self, k: usize) -> (&W, u32) {
        (&self.walls[k], self.ids[k])
    }
}

impl RayPrep {
    /// The distance bound of the slab tests for a best parameter `u` (or the range): every
    /// box whose entry is at most this is visited.
    pub(crate) fn bound(&self, u: f64) -> f32 {
        let prep = self;
        if prep.len == 0.0 {
            0.0
        } else {
            up(u * prep.len) * SLACK
        }
    }
}

/// A walk's stack: the entered nodes not yet taken, each with its entry distance, in two
/// lists so that a node's pushes are two stores of eight lanes.
#[derive(Default)]
pub(crate) struct Stack {
    nodes: Vec<u32>,
    nears: Vec<f32>,
}

impl Stack {
    /// At least `room` entries.
    fn grow(&mut self, room: usize) {
        if self.nodes.len() < room {
            self.nodes.resize(room, 0);
            self.nears.resize(room, 0.0);
        }
    }
}

/// The most entries a walk's stack holds, with the eight lanes of a push: a node of level
/// `L` (the root's is 1) is taken with at most seven entries left by each of its `L - 1`
/// ancestors' pushes below it (the entries above the one its path took were taken before
/// it, with their subtrees), and writes eight lanes above them. Children come after their
/// parents in `nodes`, so one pass finds every node's level.
fn stack_room(nodes: &[Node]) -> usize {
    let mut level = vec![1usize; nodes.len()];
    let mut deepest = 0;
    for (k, node) in nodes.iter().enumerate() {
        deepest = deepest.max(level[k]);
        let mut inner = node.inner;
        while inner != 0 {
            let lane = inner.trailing_zeros() as usize;
            inner &= inner - 1;
            level[node.child[lane] as usize] = level[k] + 1;
        }
    }
    7 * deepest.saturating_sub(1) + 8
}

/// What [`Bvh8::cast_all`] walks: a queue of rays, each walked in one of `N` slots, and
/// what becomes of the members they reach.
pub(crate) trait Walks {
    /// The next ray of the queue, for `slot`: its slab-test set-up and distance bound, or
    /// `None` when the queue is empty.
    fn next(&mut self, slot: usize) -> Option<(RayPrep, f32)>;
    /// Member `k` (tree order) reached by the ray in `slot`, whose set-up is `prep`: the
    /// ray's new bound (unchanged, or smaller after a better hit).
    fn visit(&mut self, slot: usize, prep: &RayPrep, k: usize) -> f32;
    /// The walk of the ray in `slot` is over.
    fn done(&mut self, slot: usize);
}

impl<W> Bvh8<W> {
    /// Walks every ray of `walks`' queue, `N` at a time, a node of each in turn: each walk
    /// waits on a node's load and slab test before it knows its next node, and the others'
    /// steps fill that wait. A slot whose walk ends takes the next ray at once, so `N`
    /// walks stay in flight until the queue is empty. Each walk visits, nearest box first,
    /// every member whose box its grown ray enters before its bound. Without nodes no ray can
    /// walk ([`Walks::next`] decides such rays itself).
    pub(crate) fn cast_all<const N: usize>(&self, walks: &mut impl Walks, stacks: &mut [Stack; N]) {
        // The steps below are written out for four slots.
        const { assert!(N >= 1 && N <= 4) };
        let mut preps = [RayPrep::default(); N];
        let mut bounds = [0.0f32; N];
        let mut tops = [0usize; N];
        // Sized once for the tree's depth, the stacks are taken as slices: no check of
        // their room, nor reload of their vectors' lengths, a visit.
        for stack in stacks.iter_mut() {
            stack.grow(self.stack_room);
        }
        let stacks = stacks
            .each_mut()
            .map(|s| (&mut s.nodes[..], &mut s.nears[..]));
        // Slot `k` takes the next ray, if any: its stack holds the root alone.
        macro_rules! fill {
            ($k:expr) => {
                if let Some((prep, bound)) = walks.next($k) {
                    (preps[$k], bounds[$k], tops[$k]) = (prep, bound, 1);
                    (stacks[$k].0[0], stacks[$k].1[0]) = (0, 0.0);
                }
            };
        }
        for k in 0..N {
            fill!(k);
        }
        macro_rules! walk {
            ($k:literal) => {
                if $k < N && tops[$k] > 0 {
                    self.step(
                        &preps[$k],
                        &mut bounds[$k],
                        (&mut *stacks[$k].0, &mut *stacks[$k].1),
                        &mut tops[$k],
                        &mut |m| walks.visit($k, &preps[$k], m),
                    );
                    if tops[$k] == 0 {
                        walks.done($k);
                        fill!($k);
                    }
                }
            };
        }
        while tops.iter().any(|&t| t > 0) {
            walk!(0);
            walk!(1);
            walk!(2);
            walk!(3);
        }
    }

    /// One step of a walk (`top` at least 1): its top entry (the first `top` entries of
    /// `stack` are the entered nodes not yet taken) taken and, when entered before `bound`,
    /// its node visited: the entered walls decided by `visit`, which lowers `bound` after a
    /// better hit, then the entered nodes pushed in the node's order for the ray's octant
    /// (the farthest first) and `top` moved past them.
    #[inline(always)]
    fn step(
        &self,
        prep: &RayPrep,
        bound: &mut f32,
        (stack_nodes, stack_nears): (&mut [u32], &mut [f32]),
        top: &mut usize,
        visit: &mut impl FnMut(usize) -> f32,
    ) {
        *top -= 1;
        if stack_nears[*top] > *bound {
            return;
        }
        let node = &self.nodes[stack_nodes[*top] as usize];
        let (mask, nears) = if prep.flat {
            slab8_flat(node, prep, *bound)
        } else {
            slab8(node, prep, *bound)
        };
        let mut bits = mask & node.leaves;
        if bits != 0 {
            let near = nears.to_array();
            while bits != 0 {
                let lane = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if near[lane] <= *bound {
                    *bound = bound.min(visit((node.child[lane] & !LEAF) as usize));
                }
            }
        }
        if node.inner == 0 {
            return;
        }
        let t = *top;
        let into = (&mut stack_nodes[t..t + 8], &mut stack_nears[t..t + 8]);
        *top = t + push(into, node, prep.octant, mask & node.inner, nears);
    }
}

/// For each set of entered positions (bit `k`: position `k` of the push order is entered),
/// those positions in order, one a byte from the lowest, the bytes past them 0.
#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
const PACKED: [u64; 256] = {
    let mut table = [0; 256];
    let mut set = 0;
    while set < 256 {
        let (mut position, mut count, mut bytes) = (0, 0, 0u64);
        while position < 8 {
            if (set >> position) & 1 == 1 {
                bytes |= (position as u64) << (8 * count);
                count += 1;
            }
            position += 1;
        }
        table[set] = bytes;
        set += 1;
    }
    table
};

/// Writes the lanes of `entered` (child nodes of `node` the ray enters, `nears` their entry
/// distances) into the eight slots `into`, in the node's order for `octant`, and returns
/// how many there are, without a branch on which lanes were entered. With AVX2: a
/// permutation of the lanes into that order, then one that packs the entered ones (their
/// positions read from `PACKED`), and two stores of eight lanes. Without: every lane
/// written in the order, each at the first slot past the entered ones written before it.
#[inline(always)]
fn push(
    (nodes, near_slots): (&mut [u32], &mut [f32]),
    node: &Node,
    octant: usize,
    entered: u32,
    nears: f32x8,
) -> usize {
    let [b0, b1, b2] = node.order[octant & 7];
    let order = u32::from_le_bytes([b0, b1, b2, 0]);
    #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
    {
        use safe_arch::{
            cast_to_m256_from_m256i, convert_to_i16_m256i_from_lower8_u8_m128i, m256i,
            move_mask_m256, set_i64_m128i_s, set_splat_i32_m256i, shl_imm_u32_m256i,
            shr_each_u32_m256i, shuffle_av_f32_all_m256, shuffle_av_i32_all_m256i,
        };
        // Position k of the push order holds lane `lanes[k]`.
        let lanes = shr_each_u32_m256i(
            set_splat_i32_m256i(order as i32),
            m256i::from([0u32, 3, 6, 9, 12, 15, 18, 21]),
        ) & set_splat_i32_m256i(7);
        // Bit k: the lane at position k is entered.
        let bit = shl_imm_u32_m256i::<31>(shr_each_u32_m256i(
            set_splat_i32_m256i(entered as i32),
            lanes,
        ));
        let pushed = move_mask_m256(cast_to_m256_from_m256i(bit)) as usize & 0xff;
        // The entered positions packed to the low bytes, in order.
        let packed = PACKED[pushed];
        let pick = shuffle_av_i32_all_m256i(
            lanes,
            convert_to_i16_m256i_from_lower8_u8_m128i(set_i64_m128i_s(packed as i64)),
        );
        let children = shuffle_av_i32_all_m256i(m256i::from(node.child), pick);
        let near = shuffle_av_f32_all_m256(bytemuck::cast(nears), pick);
        nodes.copy_from_slice(&<[u32; 8]>::from(children));
        near_slots.copy_from_slice(&<[f32; 8]>::from(near));
        pushed.count_ones() as usize
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx2")))]
    {
        let nears = nears.to_array();
        let mut order = order;
        let mut count = 0;
        for _ in 0..8 {
            let lane = (order & 7) as usize;
            order >>= 3;
            nodes[count & 7] = node.child[lane];
            near_slots[count & 7] = nears[lane];
            count += ((entered >> lane) & 1) as usize;
        }
        count
    }
}

impl<W> Bvh8<W> {
    /// Visits every member whose box meets the box `[lo, hi]` (a [`Bvh8::reach_box`]):
    /// `visit(k)` gets member `k` (tree order), in no particular order. `stack` is scratch
    /// space.
    pub(crate) fn overlapping(
        &self,
        [lo, hi]: [[f32; 3]; 2],
        stack: &mut Vec<u32>,
        mut visit: impl FnMut(usize),
    ) {
        if self.nodes.is_empty() {
            return;
        }
        let (lo, hi) = (lo.map(f32x8::splat), hi.map(f32x8::splat));
        stack.clear();
        stack.push(0);
        while let Some(index) = stack.pop() {
            let node = &self.nodes[index as usize];
            // Empty slots have low bounds of +∞ and meet nothing.
            let meet = |c: usize| node.b[c][0].simd_le(hi[c]) & lo[c].simd_le(node.b[c][1]);
            let mask = (meet(0) & meet(1) & meet(2)).to_bitmask();
            let mut bits = mask & node.leaves;
            while bits != 0 {
                let lane = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                visit((node.child[lane] & !LEAF) as usize);
            }
            let mut inner = mask & node.inner;
            while inner != 0 {
                let lane = inner.trailing_zeros() as usize;
                inner &= inner - 1;
                stack.push(node.child[lane]);
            }
        }
    }
}

/// The order in which a ray whose direction lies in `octant` (bit `c` set for a negative
/// component `c`) pushes a node's lanes, given their boxes `lo`/`hi` and children: the
/// farthest first by the box's corner nearest along the octant's diagonal, so that the
/// nearest entered child ends on top; empty slots last. Lane `k` of the order in bits
/// `3k..3k + 3`.
fn push_order(lo: &[[f32; 8]; 3], hi: &[[f32; 8]; 3], child: &[u32; 8], octant: usize) -> [u8; 3] {
    // How far along the diagonal each box starts (empty slots last), computed once for the
    // sort's comparisons.
    let key: [f32; 8] = core::array::from_fn(|k| {
        if child[k] == EMPTY {
            f32::NEG_INFINITY
        } else {
            let along = |c: usize| {
                if octant >> c & 1 == 1 {
                    -hi[c][k]
                } else {
                    lo[c][k]
                }
            };
            along(0) + along(1) + along(2)
        }
    });
    let mut lanes: [u32; 8] = core::array::from_fn(|k| k as u32);
    lanes.sort_by(|&a, &b| key[b as usize].total_cmp(&key[a as usize]));
    let bits = lanes
        .iter()
        .enumerate()
        .fold(0u32, |m, (k, &lane)| m | lane << (3 * k));
    let [b0, b1, b2, _] = bits.to_le_bytes();
    [b0, b1, b2]
}

/// The walls of a node cut into up to eight groups `(start, end)` of `items` (reordered),
/// in order: the group of the largest box surface (the one a ray most likely enters) split
/// where the surface area heuristic puts the cut, until there are eight or all are single.
fn eight_groups(items: &mut [Item]) -> Vec<(usize, usize)> {
    let mut groups: Vec<(usize, usize, f32)> = vec![(0, items.len(), area(items))];
    while groups.len() < 8 {
        let Some((k, &(start, end, _))) = groups
            .iter()
            .enumerate()
            .filter(|(_, (s, e, _))| e - s >= 2)
            .max_by(|(_, a), (_, b)| a.2.total_cmp(&b.2))
        else {
            break;
        };
        let (cut, left, right) = sah_split(&mut items[start..end]);
        let mid = start + cut;
        groups[k] = (start, mid, left);
        groups.push((mid, end, right));
    }
    groups.sort_unstable_by_key(|&(start, _, _)| start);
    groups
        .into_iter()
        .map(|(start, end, _)| (start, end))
        .collect()
}

/// Levels of the tree whose subtrees [`Bvh8::build`] builds on all cores: 8 tasks at the
/// top, 64 below.
const PAR_LEVELS: u32 = 2;

/// The ten low bits of `x` spread three apart (bit `k` to bit `3k`).
fn spread(x: u32) -> u32 {
    let mut x = x & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    (x | (x << 2)) & 0x0924_9249
}

/// Half the surface area of the items' box.
fn area(items: &[Item]) -> f32 {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for it in items {
        for c in 0..3 {
            lo[c] = lo[c].min(it.lo[c]);
            hi[c] = hi[c].max(it.hi[c]);
        }
    }
    box_area(lo, hi)
}

/// Half the surface area of the box from `lo` to `hi`.
fn box_area(lo: [f32; 3], hi: [f32; 3]) -> f32 {
    let e: [f32; 3] = core::array::from_fn(|c| (hi[c] - lo[c]).max(0.0));
    e[0] * e[1] + e[1] * e[2] + e[2] * e[0]
}

/// Bins of the surface area heuristic, per axis.
const BINS: usize = 16;

/// Reorders `items` (at least two) and returns where to split them, with the areas
/// ([`box_area`]) of the two sides' boxes: the binned surface area heuristic over the box
/// centres (the split minimising the sum of each side's box area times its count), or the
/// middle when the centres coincide. The bins of the three axes fill in one pass over the
/// items, and the chosen cut's side boxes come from the bins' sweeps, so the caller reads
/// the items no more for them.
fn sah_split(items: &mut [Item]) -> (usize, f32, f32) {
    // An item's box centre, the three axes in four lanes (the last unused).
    let centre = |it: &Item| {
        let lo = f32x4::from([it.lo[0], it.lo[1], it.lo[2], 0.0]);
        let hi = f32x4::from([it.hi[0], it.hi[1], it.hi[2], 0.0]);
        lo * f32x4::splat(0.5) + hi * f32x4::splat(0.5)
    };
    // The items are finite: minima and maxima without NaN handling, here and below.
    let (mut clo, mut chi) = (f32x4::splat(f32::INFINITY), f32x4::splat(f32::NEG_INFINITY));
    for it in items.iter() {
        let c = centre(it);
        clo = clo.min_ps(c);
        chi = chi.max_ps(c);
    }
    // As many bins as items, up to BINS: a small group's split costs what it holds.
    let bins = items.len().min(BINS);
    let span = (chi - clo).to_array();
    let spans: [bool; 3] = core::array::from_fn(|axis| span[axis] > 0.0);
    let scale = f32x4::splat(bins as f32) / (chi - clo);
    let top = f32x4::splat((bins - 1) as f32);
    // An item's bin along each axis: a NaN (`0 · inf`, along an axis the centres do not
    // span) taken to bin 0, a position past the top bin to the top bin.
    let bin_of = |it: &Item| {
        let at = (centre(it) - clo) * scale;
        at.max_ps(f32x4::ZERO)
            .min_ps(top)
            .fast_trunc_int()
            .to_array()
    };
    // Each bin's box as one row of eight lanes, the low corner and the negated high corner
    // (lanes 3 and 7 unused), so that an item widens it by one minimum. Every axis is
    // binned, without a branch on whether it spans (the cuts below skip one that does not).
    let mut count = [[0usize; BINS]; 3];
    let mut boxes = [[f32x8::splat(f32::INFINITY); BINS]; 3];
    for it in items.iter() {
        let row = f32x8::from([
            it.lo[0], it.lo[1], it.lo[2], 0.0, -it.hi[0], -it.hi[1], -it.hi[2], 0.0,
        ]);
        let at = bin_of(it);
        for axis in 0..3 {
            let b = at[axis] as usize;
            count[axis][b] += 1;
            boxes[axis][b] = boxes[axis][b].min_ps(row);
        }
    }
    // The best cut: its cost, axis and last bin on the left, and the sides' areas.
    let mut best: Option<(f32, usize, usize, f32, f32)> = None;
    for axis in (0..3).filter(|&axis| spans[axis]) {
        let (count, boxes) = (&count[axis], &boxes[axis]);
        // Right sides' areas from the top bin down, then the left sides from the bottom.
        let mut right = [0.0f32; BINS];
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for b in (1..bins).rev() {
            let corners = boxes[b].to_array();
            for c in 0..3 {
                lo[c] = lo[c].min(corners[c]);
                hi[c] = hi[c].max(-corners[4 + c]);
            }
            right[b] = box_area(lo, hi);
        }
        let (mut lo, mut hi, mut n) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3], 0usize);
        for b in 0..bins - 1 {
            let corners = boxes[b].to_array();
            for c in 0..3 {
                lo[c] = lo[c].min(corners[c]);
                hi[c] = hi[c].max(-corners[4 + c]);
            }
            n += count[b];
            if n == 0 || n == items.len() {
                continue;
            }
            let left = box_area(lo, hi);
            let cost = left * n as f32 + right[b + 1] * (items.len() - n) as f32;
            if best.is_none_or(|(c, ..)| cost < c) {
                best = Some((cost, axis, b, left, right[b + 1]));
            }
        }
    }
    match best {
        Some((_, axis, cut, left, right)) => {
            let mut mid = 0;
            for k in 0..items.len() {
                if bin_of(&items[k])[axis] as usize <= cut {
                    items.swap(k, mid);
                    mid += 1;
                }
            }
            (mid, left, right)
        }
        None => {
            let mid = items.len() / 2;
            (mid, area(&items[..mid]), area(&items[mid..]))
        }
    }
}

/// The slab test of the grown ray against a node's eight boxes: the lanes entered no later
/// than `bound` (a bit each) and their entry distances. Every direction component is
/// non-zero.
///
/// Per axis, the low face's parameter is at most the high face's for a positive direction
/// and at least it for a negative one (the reductions of [`RayPrep::lo_off`] and
/// [`RayPrep::hi_off`] and each rounding keep the order), so the smaller of the two is the
/// entry and the larger the exit, without a branch or an index on the direction's sign.
/// Empty slots (low `+∞`, high `-∞`) come out entered on every axis; no mask names them.
#[inline(always)]
fn slab8(node: &Node, prep: &RayPrep, bound: f32) -> (u32, f32x8) {
    let mut near = f32x8::splat(0.0);
    let mut far = f32x8::splat(bound);
    for c in 0..3 {
        let inv = f32x8::splat(prep.inv[c]);
        let lo = (node.b[c][0] - f32x8::splat(prep.lo_off[c])) * inv;
        let hi = (node.b[c][1] - f32x8::splat(prep.hi_off[c])) * inv;
        near = near.max_ps(lo.min_ps(hi));
        far = far.min_ps(lo.max_ps(hi));
    }
    let hit = near.simd_le(far * f32x8::splat(SLACK));
    (hit.to_bitmask(), near)
}

/// [`slab8`] for a ray with a zero direction component: that axis is a containment test.
fn slab8_flat(node: &Node, prep: &RayPrep, bound: f32) -> (u32, f32x8) {
    let mut near = f32x8::splat(0.0);
    let mut far = f32x8::splat(bound);
    let mut inside = f32x8::splat(0.0).simd_le(f32x8::splat(0.0));
    for c in 0..3 {
        let (lo_face, hi_face) = (node.b[c][0], node.b[c][1]);
        let (lo_off, hi_off) = (f32x8::splat(prep.lo_off[c]), f32x8::splat(prep.hi_off[c]));
        if prep.inv[c] == 0.0 {
            // The grown origin within the faces: low face at most `o + g` rounded up, high
            // face at least `o - g` rounded down.
            inside = inside & lo_face.simd_le(lo_off) & hi_off.simd_le(hi_face);
        } else {
            let inv = f32x8::splat(prep.inv[c]);
            let lo = (lo_face - lo_off) * inv;
            let hi = (hi_face - hi_off) * inv;
            near = near.max_ps(lo.min_ps(hi));
            far = far.min_ps(lo.max_ps(hi));
        }
    }
    let hit = inside & near.simd_le(far * f32x8::splat(SLACK));
    (hit.to_bitmask(), near)
}

#[cfg(test)]
mod rounding {
    use super::{down, up};
    use segbatch_testkit::Rng;

    /// `up` is the least `f32` at or above `x` and `down` the greatest at or below, for
    /// values of every sign and scale, exact `f32` values, their neighbours and zeros.
    #[test]
    fn up_and_down_are_the_nearest_f32_outward() {
        let mut rng = Rng::new(5);
        let mut xs = vec![0.0, -0.0, 1.0, -1.0, 1e-45, -1e-45, 3e38, -3e38];
        for _ in 0..20_000 {
            let x = rng.sym() * 10f64.powi((rng.next_u64() % 78) as i32 - 45);
            let f = x as f32;
            xs.extend([
                x,
                f64::from(f),
                f64::from(f.next_up()),
                f64::from(f.next_down()),
            ]);
        }
        for x in xs {
            let (u, d) = (up(x), down(x));
            assert!(
                f64::from(u) >= x && f64::from(u.next_down()) < x,
                "up({x:e}) = {u:e}"
            );
            assert!(
                f64::from(d) <= x && f64::from(d.next_up()) > x,
                "down({x:e}) = {d:e}"
            );
        }
    }
}

#[cfg(test)]
mod depth {
    use super::*;
    use segbatch_testkit::sets::growing_walls;

    /// The deepest level under node `k` (its own is `level`), by recursion.
    fn deepest(nodes: &[Node], k: usize, level: usize) -> usize {
        let node = &nodes[k];
        (0..8)
            .filter(|&lane| node.inner >> lane & 1 == 1)
            .map(|lane| deepest(nodes, node.child[lane] as usize, level + 1))
            .fold(level, usize::max)
    }

    /// A tree over [`growing_walls`] is more than twice as deep as a balanced one of 200
    /// walls (three levels), and its stack room follows its depth.
    #[test]
    fn the_stack_room_follows_an_unbalanced_tree_s_depth() {
        // The test kit's segments are those of the crate as its dependency: copied over.
        let walls: Vec<Segment> = growing_walls(200)
            .iter()
            .map(|w| Segment::new(w.p0, w.p1))
            .collect();
        let tree = Bvh8::build(walls.len(), |i| walls[i], false);
        let levels = deepest(&tree.nodes, 0, 1);
        assert!(levels >= 7, "{levels} levels");
        assert_eq!(tree.stack_room, 7 * (levels - 1) + 8);
        // One wall: the root alone.
        let few = Bvh8::build(1, |i| walls[i], false);
        assert_eq!(few.stack_room, 8);
    }
}

// The tree built on all cores against the one built on one: only with rayon.
#[cfg(all(test, feature = "rayon"))]
mod tests {
    use super::*;
    use segbatch_testkit::Rng;

    /// `n` segments of length up to 2 at random in a box of side 100, from a fixed seed.
    fn segments(n: usize) -> Vec<Segment64> {
        let mut rng = Rng::new(11);
        (0..n)
            .map(|_| {
                let p: [f64; 3] = core::array::from_fn(|_| rng.range(0.0, 100.0));
                let q: [f64; 3] = core::array::from_fn(|c| p[c] + rng.sym());
                Segment64::new(p, q)
            })
            .collect()
    }

    /// A node's six bounds of eight lanes, its children and its two lane masks.
    type NodeShape = ([[f32; 8]; 6], [u32; 8], u32, u32);

    /// Every node's boxes and children, and the walls' order.
    fn shape(t: &Bvh8<Segment64>) -> (Vec<NodeShape>, Vec<u32>) {
        let nodes = t
            .nodes
            .iter()
            .map(|n| {
                let b = core::array::from_fn(|k| n.b[k / 2][k % 2].to_array());
                (b, n.child, n.leaves, n.inner)
            })
            .collect();
        (nodes, t.ids.clone())
    }

    #[test]
    fn the_tree_built_on_all_cores_is_the_one_built_on_one() {
        for n in [1, 2, 9, 64, 65, 5000] {
            let set = segments(n);
            let one = Bvh8::build(n, |i| set[i], false);
            let all = Bvh8::build(n, |i| set[i], true);
            assert_eq!(shape(&one), shape(&all), "{n} segments");
            assert_eq!(one.len(), n);
        }
    }
}
