//! The peer of the sight-ray benchmarks (`segbatch bench --scenes`, `benches/rays.rs`):
//! parry3d's `Bvh::cast_ray` over the walls as capsules, written the leanest way a parry
//! user would. The tree is built once over the capsules' boxes (binned SAH), and each ray
//! is cast with a closest-hit callback doing parry3d's capsule ray cast (solid, so a ray
//! starting inside a capsule hits at 0); and the brute force both check a sample of rays
//! against. `benches/rays.rs` includes this file (`#[path]`).

use parry3d::bounding_volume::Aabb;
use parry3d::math::{Pose, Vec3};
use parry3d::partitioning::{Bvh, BvhBuildStrategy};
use parry3d::query::{Ray, RayCast};
use parry3d::shape::Capsule;
use segbatch::sets::FirstHit;
use segbatch::{Segment, reference};

/// The walls as parry3d capsules of one radius, in a `Bvh`.
pub struct ParryWalls {
    bvh: Bvh,
    capsules: Vec<Capsule>,
}

impl ParryWalls {
    /// The capsules of radius `radius` around `walls` and the tree over their boxes.
    pub fn new(walls: &[Segment], radius: f32) -> Self {
        let capsules: Vec<Capsule> = walls
            .iter()
            .map(|w| Capsule::new(Vec3::from_array(w.p0), Vec3::from_array(w.p1), radius))
            .collect();
        let leaves: Vec<Aabb> = capsules.iter().map(|c| c.aabb(&Pose::IDENTITY)).collect();
        let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
        ParryWalls { bvh, capsules }
    }

    /// For every ray (`p0` the origin, `p1 - p0` the direction), the first capsule hit
    /// within `range` (in units of the direction's length) and where: `out` is cleared and
    /// refilled.
    pub fn cast(&self, rays: &[Segment], range: f32, out: &mut Vec<Option<(u32, f32)>>) {
        out.clear();
        out.extend(rays.iter().map(|s| self.first(s, range)));
    }

    /// [`ParryWalls::cast`] on the current rayon pool's threads, the rays in order.
    pub fn par_cast(&self, rays: &[Segment], range: f32, out: &mut Vec<Option<(u32, f32)>>) {
        use rayon::prelude::*;
        rays.par_iter()
            .map(|s| self.first(s, range))
            .collect_into_vec(out);
    }

    /// The first wall of one ray within `range` and its parameter.
    fn first(&self, s: &Segment, range: f32) -> Option<(u32, f32)> {
        let ray = Ray::new(Vec3::from_array(s.p0), Vec3::from_array(s.direction()));
        self.bvh.cast_ray(&ray, range, |i, best| {
            self.capsules[i as usize].cast_local_ray(&ray, best, true)
        })
    }
}

/// The first hit of `ray` (radius `radius`, range `range`) among `walls` by brute force over
/// [`reference::first_hit`]: the nearest parameter, the lower index on a tie, as
/// `SegmentIndex`'s first hits order them. What the benches check a sample of rays
/// against, bit for bit.
pub fn brute_first_hit(
    walls: &[Segment],
    ray: &Segment,
    radius: f32,
    range: f32,
) -> Option<FirstHit> {
    let mut best: Option<FirstHit> = None;
    for (j, w) in walls.iter().enumerate() {
        if let Some(mut h) = reference::first_hit(ray, radius, range, w) {
            h.index = j as u32;
            if best.is_none_or(|b| (h.u, h.index) < (b.u, b.index)) {
                best = Some(h);
            }
        }
    }
    best
}
