//! The peers of the set-query benchmark (`segbatch bench --sets`): what a user would write
//! without segbatch's set queries, all scalar and single-threaded, each deciding a
//! candidate pair with parry3d's segment distance.
//!
//! - [`sweep_parry`]: sort-and-sweep on x over the segments' bounding boxes, y and z boxes
//!   compared before the distance (about forty lines, the way such a peer is usually written).
//! - [`bvh_parry`]: parry3d's own BVH (`Bvh::from_leaves`, binned SAH build) over the boxes
//!   inflated by `r/2`, its self-traversal (`traverse_bvtt_single_tree`) naming the
//!   candidate pairs.
//!
//! Both return the pairs `(i, j)`, `i < j`, with parry3d's distance `<= r`, sorted.
//! `bench/benches/sets.rs` includes this file (`#[path]`) for the criterion bench, so both benches
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

/// A box for the sweep: low x, high x, low (y, z), high (y, z), the segment's index.
type SweepBox = (f32, f32, [f32; 2], [f32; 2], u32);

/// Every pair within `r` by sort-and-sweep on x (boxes sorted by their low x; each box
/// scans forward while the next box starts within `r` of its high x, rejecting on y and z
/// first), each candidate decided by parry3d's segment distance.
pub fn sweep_parry(set: &[Segment], r: f32) -> Vec<(u32, u32)> {
    let mut boxes: Vec<SweepBox> = set
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (lo, hi) = bounds(s, 0.0);
            (lo[0], hi[0], [lo[1], lo[2]], [hi[1], hi[2]], i as u32)
        })
        .collect();
    boxes.sort_unstable_by(|p, q| p.0.total_cmp(&q.0));
    let segs: Vec<ParrySegment> = set.iter().map(parry).collect();
    let pose = Pose::IDENTITY;
    let mut out = Vec::new();
    for (k, &(_, hi_x, lo, hi, i)) in boxes.iter().enumerate() {
        let reach = hi_x + r;
        for &(lo_x2, _, lo2, hi2, j) in &boxes[k + 1..] {
            if lo_x2 > reach {
                break;
            }
            if lo2[0] > hi[0] + r || lo[0] > hi2[0] + r || lo2[1] > hi[1] + r || lo[1] > hi2[1] + r
            {
                continue;
            }
            if distance_segment_segment(&pose, &segs[i as usize], &segs[j as usize]) <= r {
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
