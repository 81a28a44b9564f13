//! The moving-capsule scene of `segbatch bench --scenes` and its peers, shared with the
//! criterion bench (`benches/scenes.rs` includes this file with `#[path]`).
//!
//! - [`scene`]: `n` capsules (radius 0.05-0.2, core length 0.5-2, random directions) in a
//!   100³ box, each drifting at its own constant velocity (up to 0.05 a frame), as frames of
//!   end points.
//! - [`ParryScene`]: parry3d's `Bvh` kept the way rapier keeps its broad phase: leaves are
//!   the capsules' boxes, each updated with `insert_or_update_partially` and a change
//!   margin (a leaf is enlarged only when the box leaves its padded box), then `refit` and
//!   `optimize_incremental`, then the tree's self-traversal names the overlapping leaves and
//!   parry3d's capsule-capsule contact manifold decides each.
//! - [`brute_pairs`]: the touching pairs by brute force over the reference, pruned only by
//!   a sort-and-sweep on x over boxes grown by each radius plus a generous allowance, so it
//!   shares nothing with the scene's grid.

use parry3d::bounding_volume::Aabb;
use parry3d::math::{Pose, Vec3};
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry3d::query::ContactManifold;
use parry3d::query::details::contact_manifold_capsule_capsule;
use parry3d::shape::Capsule;
use segbatch::Segment;
use segbatch_testkit::Rng;

/// The frames of a moving scene: `frames[f][i]` is capsule `i` at frame `f`.
pub struct Scene {
    /// The radius of each capsule.
    pub radii: Vec<f32>,
    /// End points a frame.
    pub frames: Vec<Vec<Segment>>,
}

/// `n` capsules in a 100³ box, `frames` frames of drift (seeded).
pub fn scene(n: usize, frames: usize, seed: u64) -> Scene {
    let mut rng = Rng::new(seed);
    let mut start = Vec::with_capacity(n);
    let mut velocity = Vec::with_capacity(n);
    let mut radii = Vec::with_capacity(n);
    for _ in 0..n {
        let c: [f32; 3] = core::array::from_fn(|_| rng.range_f32(0.0, 100.0));
        let d = rng.dir();
        let h = 0.5 * rng.range_f32(0.5, 2.0);
        start.push(Segment::new(
            core::array::from_fn(|k| c[k] - h * d[k] as f32),
            core::array::from_fn(|k| c[k] + h * d[k] as f32),
        ));
        let v = rng.dir();
        let speed = rng.range_f32(0.0, 0.05);
        velocity.push(v.map(|x| speed * x as f32));
        radii.push(rng.range_f32(0.05, 0.2));
    }
    let frames = (0..frames)
        .map(|f| {
            let t = f as f32;
            start
                .iter()
                .zip(&velocity)
                .map(|(s, v)| {
                    Segment::new(
                        core::array::from_fn(|k| s.p0[k] + t * v[k]),
                        core::array::from_fn(|k| s.p1[k] + t * v[k]),
                    )
                })
                .collect()
        })
        .collect();
    Scene { radii, frames }
}

/// A contact the parry3d pipeline reports: the pair, the normal, the signed distance
/// (negative: penetration) and the contact point on capsule `i`.
#[derive(Clone, Copy, Debug)]
pub struct ParryContact {
    /// The pair `(i, j)`, `i < j`.
    pub pair: (u32, u32),
    /// The normal, from capsule `i` towards capsule `j`.
    pub normal: [f32; 3],
    /// Signed distance of the capsules (negative when they overlap).
    pub dist: f32,
    /// The contact point on capsule `i`'s surface.
    pub point: [f32; 3],
}

/// parry3d's `Bvh` kept between frames the way rapier keeps its broad phase (see the
/// module docs).
pub struct ParryScene {
    bvh: Bvh,
    workspace: BvhWorkspace,
    capsules: Vec<Capsule>,
    manifold: ContactManifold<(), ()>,
    margin: f32,
}

fn capsule_box(c: &Capsule) -> Aabb {
    let r = Vec3::splat(c.radius);
    Aabb::new(
        c.segment.a.min(c.segment.b) - r,
        c.segment.a.max(c.segment.b) + r,
    )
}

fn capsule(s: &Segment, r: f32) -> Capsule {
    Capsule::new(Vec3::from_array(s.p0), Vec3::from_array(s.p1), r)
}

impl ParryScene {
    /// The tree over the capsules of the first frame (binned SAH build), leaves padded by
    /// `margin`.
    pub fn new(first: &[Segment], radii: &[f32], margin: f32) -> Self {
        let capsules: Vec<Capsule> = first
            .iter()
            .zip(radii)
            .map(|(s, &r)| capsule(s, r))
            .collect();
        let m = Vec3::splat(margin);
        let leaves: Vec<Aabb> = capsules
            .iter()
            .map(|c| {
                let b = capsule_box(c);
                Aabb::new(b.mins - m, b.maxs + m)
            })
            .collect();
        ParryScene {
            bvh: Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves),
            workspace: BvhWorkspace::default(),
            capsules,
            manifold: ContactManifold::new(),
            margin,
        }
    }

    /// One frame: update the leaves, refit, optimise, traverse, decide each overlapping
    /// pair with parry3d's capsule contact; the touching pairs' contacts into `out`.
    pub fn frame(&mut self, segs: &[Segment], radii: &[f32], out: &mut Vec<ParryContact>) {
        for (i, (s, &r)) in segs.iter().zip(radii).enumerate() {
            let c = capsule(s, r);
            self.bvh
                .insert_or_update_partially(capsule_box(&c), i as u32, self.margin);
            self.capsules[i] = c;
        }
        self.bvh.refit(&mut self.workspace);
        self.bvh.optimize_incremental(&mut self.workspace);
        out.clear();
        let (capsules, manifold) = (&self.capsules, &mut self.manifold);
        self.bvh
            .traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |i, j| {
                let (ci, cj) = (&capsules[i as usize], &capsules[j as usize]);
                contact_manifold_capsule_capsule(&Pose::IDENTITY, ci, cj, 0.0, manifold);
                if let Some(p) = manifold.points.first() {
                    // The traversal names either order; the contact is kept from the
                    // smaller id's side.
                    let (normal, point) = if i < j {
                        (manifold.local_n1, p.local_p1)
                    } else {
                        (-manifold.local_n1, p.local_p2)
                    };
                    out.push(ParryContact {
                        pair: (i.min(j), i.max(j)),
                        normal: normal.to_array(),
                        dist: p.dist,
                        point: point.to_array(),
                    });
                }
            });
    }
}

/// The touching pairs `(i, j)`, `i < j`, sorted, by brute force over the reference: every
/// pair whose boxes (grown by the radius and 1e-3) overlap, found by a sweep on x, is
/// decided by `reference::closest_points` (`dist2 <= (ri + rj)²`).
pub fn brute_pairs(segs: &[Segment], radii: &[f32]) -> Vec<(u32, u32)> {
    let mut boxes: Vec<([f32; 3], [f32; 3], u32)> = segs
        .iter()
        .zip(radii)
        .enumerate()
        .filter(|(_, (s, _))| s.p0.iter().chain(&s.p1).all(|x| x.is_finite()))
        .map(|(i, (s, &r))| {
            let g = r + 1e-3;
            let lo = core::array::from_fn(|k| s.p0[k].min(s.p1[k]) - g);
            let hi = core::array::from_fn(|k| s.p0[k].max(s.p1[k]) + g);
            (lo, hi, i as u32)
        })
        .collect();
    boxes.sort_unstable_by(|p, q| p.0[0].total_cmp(&q.0[0]));
    let mut out = Vec::new();
    for (k, (lo, hi, i)) in boxes.iter().enumerate() {
        for (lo2, hi2, j) in &boxes[k + 1..] {
            if lo2[0] > hi[0] {
                break;
            }
            if lo2[1] > hi[1] || lo[1] > hi2[1] || lo2[2] > hi[2] || lo[2] > hi2[2] {
                continue;
            }
            let (i, j) = (*i.min(j), *i.max(j));
            let c = segbatch::reference::closest_points(&segs[i as usize], &segs[j as usize]);
            let r = radii[i as usize] + radii[j as usize];
            if c.dist2 <= r * r {
                out.push((i, j));
            }
        }
    }
    out.sort_unstable();
    out
}

/// The sorted, distinct pairs of parry3d contacts.
pub fn parry_pairs(contacts: &[ParryContact]) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = contacts.iter().map(|c| c.pair).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The largest differences between segbatch's single-point contacts and parry3d's for the
/// pairs both report: depth, normal component (segbatch's normal points from `j` to `i`,
/// parry3d's from `i` to `j`) and point on capsule `i`.
pub fn contact_differences(
    ours: &[segbatch::pairs::CapsuleContact],
    theirs: &[ParryContact],
) -> [f32; 3] {
    let mut by_pair: Vec<&ParryContact> = theirs.iter().collect();
    by_pair.sort_unstable_by_key(|c| c.pair);
    let mut worst = [0.0f32; 3];
    for (k, c) in ours.iter().enumerate() {
        let two = ours.get(k + 1).is_some_and(|d| d.pair == c.pair)
            || (k > 0 && ours[k - 1].pair == c.pair);
        let pair = (c.i, c.j);
        let Ok(p) = by_pair.binary_search_by_key(&pair, |x| x.pair) else {
            continue;
        };
        if two {
            continue;
        }
        let p = by_pair[p];
        worst[0] = worst[0].max((c.depth + p.dist).abs());
        for k in 0..3 {
            worst[1] = worst[1].max((c.normal[k] + p.normal[k]).abs());
            worst[2] = worst[2].max((c.point_a[k] - p.point[k]).abs());
        }
    }
    worst
}
