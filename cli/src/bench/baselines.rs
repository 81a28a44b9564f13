//! The peers of the set-query benchmark (`segbatch bench --sets`): what a user would write
//! without segbatch's set queries, all scalar and single-threaded, each deciding a
//! candidate pair with parry3d's segment distance.
//!
//! - [`sweep_parry`]: sort-and-sweep on x over the segments' bounding boxes grown by `r/2`,
//!   y and z intervals compared before the distance: about forty lines, written the way a
//!   careful user writes one (laid out in sweep order, the interval tests without branches).
//! - [`bvh_parry`]: parry3d's own BVH (`Bvh::from_leaves`, binned SAH build) over the boxes
//!   inflated by `r/2`, its self-traversal (`traverse_bvtt_single_tree`) naming the
//!   candidate pairs.
//!
//! Both return the pairs `(i, j)`, `i < j`, with parry3d's distance `<= r`, sorted.
//! `benches/sets.rs` includes this file (`#[path]`) for the criterion bench, so both benches
//! run the same peers.

use parry3d::bounding_volume::Aabb;
use parry3d::math::{Pose, Vec3};
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry3d::query::details::distance_segment_segment;
use parry3d::shape::Segment as ParrySegment;
use segbatch::Segment;

fn parry(s: &Segment) -> ParrySegment {
    ParrySegment::new(Vec3::from_array(s.p0), Vec3::from_array(s.p1))
}

/// The bounding box of `s` grown by `margin` on every side.
fn bounds(s: &Segment, margin: f32) -> ([f32; 3], [f32; 3]) {
    let lo = core::array::from_fn(|k| s.p0[k].min(s.p1[k]) - margin);
    let hi = core::array::from_fn(|k| s.p0[k].max(s.p1[k]) + margin);
    (lo, hi)
}

/// Every pair within `r` by sort-and-sweep on x, each candidate decided by parry3d's
/// segment distance. The boxes are grown by `r/2` once, the segments laid out in the
/// sweep's order (the x intervals, the y and z intervals and parry3d's segments in three
/// arrays, each read in sequence); each box finds by binary search the boxes that start
/// inside its x interval and tests their y and z intervals, combined without branches, so
/// the one branch a candidate takes is the one that usually fails.
pub fn sweep_parry(set: &[Segment], r: f32) -> Vec<(u32, u32)> {
    // Slightly more than r/2, so rounding in the box arithmetic never drops a pair.
    let margin = 0.5 * r * (1.0 + 1e-5);
    let low_x = |s: &Segment| s.p0[0].min(s.p1[0]);
    let mut order: Vec<u32> = (0..set.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| low_x(&set[a as usize]).total_cmp(&low_x(&set[b as usize])));
    let mut x = Vec::with_capacity(set.len());
    let mut yz = Vec::with_capacity(set.len());
    let mut segs = Vec::with_capacity(set.len());
    for &i in &order {
        let s = &set[i as usize];
        let (lo, hi) = bounds(s, margin);
        x.push([lo[0], hi[0]]);
        yz.push([lo[1], hi[1], lo[2], hi[2]]);
        segs.push(parry(s));
    }
    let pose = Pose::IDENTITY;
    let mut out = Vec::new();
    for a in 0..set.len() {
        let (hi_x, p) = (x[a][1], yz[a]);
        let end = a + 1 + x[a + 1..].partition_point(|v| v[0] <= hi_x);
        for b in a + 1..end {
            let q = yz[b];
            if (q[0] <= p[1]) & (p[0] <= q[1]) & (q[2] <= p[3]) & (p[2] <= q[3])
                && distance_segment_segment(&pose, &segs[a], &segs[b]) <= r
            {
                let (i, j) = (order[a], order[b]);
                out.push((i.min(j), i.max(j)));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Every pair within `r` by parry3d's BVH: leaves are the boxes grown by `r/2` (two boxes
/// overlap when their segments' boxes are within `r` on every axis), the tree's
/// self-traversal names the overlapping leaf pairs, and parry3d's segment distance decides.
pub fn bvh_parry(set: &[Segment], r: f32) -> Vec<(u32, u32)> {
    // Slightly more than r/2, so rounding in the box arithmetic never drops a pair.
    let margin = 0.5 * r * (1.0 + 1e-5);
    let leaves: Vec<Aabb> = set
        .iter()
        .map(|s| {
            let (lo, hi) = bounds(s, margin);
            Aabb::new(Vec3::from_array(lo), Vec3::from_array(hi))
        })
        .collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
    let segs: Vec<ParrySegment> = set.iter().map(parry).collect();
    let pose = Pose::IDENTITY;
    let mut workspace = BvhWorkspace::default();
    let mut out = Vec::new();
    bvh.traverse_bvtt_single_tree::<false>(&mut workspace, &mut |i, j| {
        if distance_segment_segment(&pose, &segs[i as usize], &segs[j as usize]) <= r {
            out.push((i.min(j), i.max(j)));
        }
    });
    out.sort_unstable();
    out
}

/// A list of index pairs `(i, j)`.
pub type Pairs = Vec<(u32, u32)>;

/// Differences between two sorted pair lists: pairs only in `a`, pairs only in `b`.
pub fn differences(a: &[(u32, u32)], b: &[(u32, u32)]) -> (Pairs, Pairs) {
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    let (mut x, mut y) = (0, 0);
    while x < a.len() || y < b.len() {
        match (a.get(x), b.get(y)) {
            (Some(p), Some(q)) if p == q => {
                x += 1;
                y += 1;
            }
            (Some(p), Some(q)) if p < q => {
                only_a.push(*p);
                x += 1;
            }
            (Some(p), None) => {
                only_a.push(*p);
                x += 1;
            }
            (_, Some(q)) => {
                only_b.push(*q);
                y += 1;
            }
            (None, None) => unreachable!("the loop runs while one list has pairs"),
        }
    }
    (only_a, only_b)
}

/// How far from the radius `r` the pairs `(i, j)` of `set` lie (the reference's distance,
/// relative to `r`), at the most: where the pairs two implementations disagree on sit. The
/// reference's distance, not an `f64` oracle's: the kernel's own distance is what segbatch
/// compared.
pub fn farthest_from_radius(set: &[Segment], pairs: &[(u32, u32)], r: f32) -> f32 {
    pairs
        .iter()
        .map(|&(i, j)| {
            let c = segbatch::reference::closest_points(&set[i as usize], &set[j as usize]);
            ((c.dist2.sqrt() - r) / r).abs()
        })
        .fold(0.0f32, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baselines_find_the_brute_force_pairs() {
        let set = segbatch_testkit::sets::hair(3000, 0.5, [10.0, -3.0, 2.0], 5);
        let r = 0.5;
        let mut want = Vec::new();
        let pose = Pose::IDENTITY;
        for i in 0..set.len() {
            for j in i + 1..set.len() {
                let d = distance_segment_segment(&pose, &parry(&set[i]), &parry(&set[j]));
                if d <= r {
                    want.push((i as u32, j as u32));
                }
            }
        }
        assert!(want.len() > 5000, "{} pairs", want.len());
        assert_eq!(sweep_parry(&set, r), want);
        assert_eq!(bvh_parry(&set, r), want);
    }

    #[test]
    fn differences_of_sorted_lists() {
        let (a, b) = differences(&[(0, 1), (0, 2), (3, 4)], &[(0, 2), (1, 2), (5, 6)]);
        assert_eq!(a, vec![(0, 1), (3, 4)]);
        assert_eq!(b, vec![(1, 2), (5, 6)]);
    }
}
