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
//! enters reach the exact `f64` decision ([`crate::query::first_hit_pair`]).
//!
//! # Conservative in `f32`
//!
//! The boxes are the walls' exact `f32` bounds; the ray's radius is added at query time
//! (one tree serves every radius), rounded outward. A slab parameter `(B - o) / d` is
//! computed as `(B - o')·inv` with `inv = |d| / d` rounded to `f32` per axis, so each axis'
//! entry and exit distance carry a relative error of a few ulps, never a lateral one (an
//! `f32` unit direction would shift the ray sideways by `t·ε`); the test accepts a box when
//! `near <= far·(1 + 2⁻¹⁸)`, which covers it. An axis with `d = 0` is an exact
//! containment test. A direction component so small that its `inv` overflows `f32`
//! cannot be tested this way: such a ray is decided against every wall.
//!
//! # Build
//!
//! Top down, object median: a node's walls are split into up to eight groups by halving
//! the largest group at the median of its box centres along their widest axis, which
//! gives a balanced tree in `O(n log n)`. Walls are stored in the tree's depth-first order,
//! so the walls under one subtree are near each other in memory.

use wide::f32x8;

use crate::segment::Segment;

/// The contact tolerance's factor: a zero radius touches within `4·ε·S`.
pub(super) const TOLERANCE: f64 = 4.0 * f32::EPSILON as f64;

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
}

/// A wall's bounds and the centre of its box while building.
#[derive(Clone, Copy)]
struct Item {
    id: u32,
    lo: [f32; 3],
    hi: [f32; 3],
}

impl Item {
    fn centre(&self, c: usize) -> f32 {
        self.lo[c] * 0.5 + self.hi[c] * 0.5
    }
}

/// The tree over the finite members of a set.
pub(crate) struct Bvh8 {
    nodes: Vec<Node>,
    /// The members with finite coordinates, in tree order.
    walls: Vec<Segment>,
    /// Their indices in the set.
    ids: Vec<u32>,
    /// The largest coordinate magnitude of the members: bounds the scale of the contact
    /// tolerance of any pair.
    scale: f32,
    /// The box of the members (`f64`): the frame of [`Bvh8::morton`].
    lo: [f64; 3],
    hi: [f64; 3],
}

/// What a ray needs for the slab tests, prepared once per ray.
pub(crate) struct RayPrep {
    /// Per axis, what the entry face's coordinate is reduced by: `o + g` rounded up for a
    /// positive direction (the entry face is the low one), `o - g` rounded down for a
    /// negative one (`g` the grown radius); for a zero direction, `o + g` rounded up.
    entry_off: [f32x8; 3],
    /// The same for the exit face (`o - g` rounded down, `o + g` rounded up, `o - g`).
    exit_off: [f32x8; 3],
    /// `|d| / d_c` rounded to `f32`, per axis (0 for an axis with `d_c = 0`).
    inv: [f32x8; 3],
    /// Per axis, which face the ray enters by: 0 the low, 1 the high.
    entry: [usize; 3],
    /// True when a direction component is 0: those axes are containment tests.
    flat: bool,
    /// `|d|` in `f64`: distance along the ray is `u·|d|`.
    len: f64,
}

fn up(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) < x { y.next_up() } else { y }
}

fn down(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) > x { y.next_down() } else { y }
}

impl Bvh8 {
    /// The tree over the members of `set` with finite coordinates (`at(i)` member `i`).
    pub(crate) fn build(n: usize, at: impl Fn(usize) -> Segment) -> Bvh8 {
        let mut items: Vec<Item> = Vec::new();
        let mut scale = 0.0f32;
        for i in 0..n {
            let s = at(i);
            if s.p0.iter().chain(&s.p1).all(|x| x.is_finite()) {
                scale = s.p0.iter().chain(&s.p1).fold(scale, |m, x| m.max(x.abs()));
                items.push(Item {
                    id: i as u32,
                    lo: core::array::from_fn(|c| s.p0[c].min(s.p1[c])),
                    hi: core::array::from_fn(|c| s.p0[c].max(s.p1[c])),
                });
            }
        }
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for it in &items {
            for c in 0..3 {
                lo[c] = lo[c].min(f64::from(it.lo[c]));
                hi[c] = hi[c].max(f64::from(it.hi[c]));
            }
        }
        let mut tree = Bvh8 {
            nodes: Vec::new(),
            walls: Vec::with_capacity(items.len()),
            ids: Vec::with_capacity(items.len()),
            scale,
            lo,
            hi,
        };
        if !items.is_empty() {
            tree.node(&mut items, &at);
        }
        tree
    }

    /// Builds the node over `items` (at least one) and returns its index.
    fn node(&mut self, items: &mut [Item], at: &impl Fn(usize) -> Segment) -> u32 {
        let index = self.nodes.len() as u32;
        self.nodes.push(Node {
            b: [[f32x8::splat(0.0); 2]; 3],
            child: [EMPTY; 8],
        });
        // Up to eight groups: halve the largest until there are eight or all are single.
        let mut groups: Vec<(usize, usize)> = vec![(0, items.len())];
        while groups.len() < 8 {
            let (k, &(start, end)) = groups
                .iter()
                .enumerate()
                .max_by_key(|(_, (s, e))| e - s)
                .expect("a group");
            if end - start < 2 {
                break;
            }
            let part = &mut items[start..end];
            let axis = widest_axis(part);
            let mid = part.len() / 2;
            part.select_nth_unstable_by(mid, |a, b| a.centre(axis).total_cmp(&b.centre(axis)));
            groups[k] = (start, start + mid);
            groups.push((start + mid, end));
        }
        groups.sort_unstable();
        let mut lo = [[f32::INFINITY; 8]; 3];
        let mut hi = [[f32::NEG_INFINITY; 8]; 3];
        let mut child = [EMPTY; 8];
        for (slot, &(start, end)) in groups.iter().enumerate() {
            let part = &mut items[start..end];
            for it in part.iter() {
                for c in 0..3 {
                    lo[c][slot] = lo[c][slot].min(it.lo[c]);
                    hi[c][slot] = hi[c][slot].max(it.hi[c]);
                }
            }
            child[slot] = if part.len() == 1 {
                let pos = self.walls.len() as u32;
                self.walls.push(at(part[0].id as usize));
                self.ids.push(part[0].id);
                pos | LEAF
            } else {
                self.node(part, at)
            };
        }
        let node = &mut self.nodes[index as usize];
        node.b = core::array::from_fn(|c| [f32x8::from(lo[c]), f32x8::from(hi[c])]);
        node.child = child;
        index
    }

    /// The Morton code of `p` in the members' box (10 bits an axis; points outside are
    /// clamped to it, NaN counts as its low corner): rays taken in this order walk the
    /// tree coherently.
    pub(crate) fn morton(&self, p: [f32; 3]) -> u32 {
        let mut key = 0u32;
        for (c, &x) in p.iter().enumerate() {
            let (lo, hi) = (self.lo[c], self.hi[c]);
            let f = (f64::from(x) - lo) / (hi - lo);
            // NaN (an empty or flat box, a NaN coordinate) converts to 0.
            let q = (f * 1024.0).clamp(0.0, 1023.0) as u32;
            key |= spread(q) << c;
        }
        key
    }

    /// True without members.
    pub(crate) fn is_empty(&self) -> bool {
        self.walls.is_empty()
    }

    /// The slab-test set-up of `ray` grown by `radius`, or `None` when a direction
    /// component is too small for the test or the grown origin leaves f32's range (the
    /// caller decides such a ray against every member). `ray` has finite coordinates.
    pub(crate) fn prepare(&self, ray: &Segment, radius: f32) -> Option<RayPrep> {
        let o = ray.p0.map(f64::from);
        let d: [f64; 3] = core::array::from_fn(|c| f64::from(ray.p1[c]) - o[c]);
        let len = d.iter().map(|x| x * x).sum::<f64>().sqrt();
        // The contact radius of any pair is at most this (see `contact_radius`).
        let s = o.iter().fold(f64::from(self.scale), |m, x| m.max(x.abs()));
        let g = f64::from(radius).max(TOLERANCE * s);
        let mut inv = [0.0f32; 3];
        let mut entry = [0usize; 3];
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
                entry[c] = usize::from(d[c] < 0.0);
            }
        }
        let near: [f32; 3] = core::array::from_fn(|c| up(o[c] + g));
        let far: [f32; 3] = core::array::from_fn(|c| down(o[c] - g));
        // A grown origin beyond f32's range (a radius near f32::MAX) cannot be tested this
        // way either.
        if !(len.is_finite() && near.iter().chain(&far).all(|x| x.is_finite())) {
            return None;
        }
        let pick = |c: usize, side: usize| if side == 0 { near[c] } else { far[c] };
        Some(RayPrep {
            entry_off: core::array::from_fn(|c| f32x8::splat(pick(c, entry[c]))),
            exit_off: core::array::from_fn(|c| f32x8::splat(pick(c, 1 - entry[c]))),
            inv: inv.map(f32x8::splat),
            entry,
            flat,
            len,
        })
    }

    /// Number of members in the tree.
    pub(crate) fn len(&self) -> usize {
        self.walls.len()
    }

    /// Member `k` in tree order and its index in the set.
    pub(crate) fn wall(&self, k: usize) -> (&Segment, u32) {
        (&self.walls[k], self.ids[k])
    }

    /// The distance bound of the slab tests for a best parameter `u` (or the range): every
    /// box whose entry is at most this is visited.
    pub(crate) fn bound(prep: &RayPrep, u: f64) -> f32 {
        if prep.len == 0.0 {
            0.0
        } else {
            up(u * prep.len) * SLACK
        }
    }

    /// Visits, nearest box first, every member whose box the grown ray enters before
    /// `bound`: `visit(k)` decides member `k` (tree order) and returns the new bound
    /// (unchanged, or smaller after a better hit). `stack` is scratch space.
    pub(crate) fn cast(
        &self,
        prep: &RayPrep,
        mut bound: f32,
        stack: &mut Vec<(u32, f32)>,
        mut visit: impl FnMut(usize) -> f32,
    ) {
        if self.nodes.is_empty() {
            return;
        }
        stack.clear();
        // The node to visit next: the nearest child entered of the last one, else the
        // stack's top (each entry is checked against the bound when it is taken).
        let mut next = Some((0u32, 0.0f32));
        while let Some((index, near)) = next.take().or_else(|| stack.pop()) {
            if near > bound {
                continue;
            }
            let node = &self.nodes[index as usize];
            let (mask, nears) = if prep.flat {
                slab8_flat(node, prep, bound)
            } else {
                slab8(node, prep, bound)
            };
            // Walls at once; the nodes sorted by entry, the nearest next, the others on the
            // stack with the nearer on top.
            let mut bits = mask;
            let mut nodes = [(0u32, 0.0f32); 8];
            let mut count = 0;
            while bits != 0 {
                let lane = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (child, near) = (node.child[lane], nears[lane]);
                if child == EMPTY || near > bound {
                    continue;
                }
                if child & LEAF != 0 {
                    bound = bound.min(visit((child & !LEAF) as usize));
                } else {
                    // Insertion by decreasing entry.
                    let mut k = count;
                    while k > 0 && nodes[k - 1].1 < near {
                        nodes[k] = nodes[k - 1];
                        k -= 1;
                    }
                    nodes[k] = (child, near);
                    count += 1;
                }
            }
            if count > 0 {
                stack.extend_from_slice(&nodes[..count - 1]);
                next = Some(nodes[count - 1]);
            }
        }
    }
}

/// The ten low bits of `x` spread three apart (bit `k` to bit `3k`).
fn spread(x: u32) -> u32 {
    let mut x = x & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    (x | (x << 2)) & 0x0924_9249
}

/// The widest axis of the items' box centres.
fn widest_axis(items: &[Item]) -> usize {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for it in items {
        for c in 0..3 {
            lo[c] = lo[c].min(it.centre(c));
            hi[c] = hi[c].max(it.centre(c));
        }
    }
    (0..3)
        .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
        .expect("three axes")
}

/// The slab test of the grown ray against a node's eight boxes: the lanes entered no later
/// than `bound` (a bit each) and their entry distances. Every direction component is
/// non-zero.
#[inline(always)]
fn slab8(node: &Node, prep: &RayPrep, bound: f32) -> (u32, [f32; 8]) {
    let mut near = f32x8::splat(0.0);
    let mut far = f32x8::splat(bound);
    for c in 0..3 {
        let e = prep.entry[c];
        near = near.fast_max((node.b[c][e] - prep.entry_off[c]) * prep.inv[c]);
        far = far.fast_min((node.b[c][1 - e] - prep.exit_off[c]) * prep.inv[c]);
    }
    let hit = near.simd_le(far * f32x8::splat(SLACK));
    (hit.to_bitmask(), near.to_array())
}

/// [`slab8`] for a ray with a zero direction component: that axis is a containment test.
fn slab8_flat(node: &Node, prep: &RayPrep, bound: f32) -> (u32, [f32; 8]) {
    let mut near = f32x8::splat(0.0);
    let mut far = f32x8::splat(bound);
    let mut inside = f32x8::splat(0.0).simd_le(f32x8::splat(0.0));
    for c in 0..3 {
        let e = prep.entry[c];
        let (entry, exit) = (node.b[c][e], node.b[c][1 - e]);
        if prep.inv[c] == f32x8::splat(0.0) {
            // Entry is the low face, its offset `o + g` rounded up; the exit `o - g`.
            inside = inside & entry.simd_le(prep.entry_off[c]) & prep.exit_off[c].simd_le(exit);
        } else {
            near = near.fast_max((entry - prep.entry_off[c]) * prep.inv[c]);
            far = far.fast_min((exit - prep.exit_off[c]) * prep.inv[c]);
        }
    }
    let hit = inside & near.simd_le(far * f32x8::splat(SLACK));
    (hit.to_bitmask(), near.to_array())
}
