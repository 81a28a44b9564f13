//! The swept part of `segbatch bench --scenes` and its peers, shared with the criterion
//! bench (`benches/scenes.rs` includes this file with `#[path]`).
//!
//! - [`Ours`]: segbatch over a step's candidates: the step's sweeps copied into one
//!   `Sweeps` batch, the pairs gathered from its columns by
//!   `first_contact_capsules_indexed_into`.
//! - [`ParryStep`] and [`cast`]: parry3d's `cast_shapes` with each object's linear velocity
//!   (`ShapeCastOptions::with_max_time_of_impact(1)`), capsules built once about their
//!   centres ([`parry_capsules`]), poses and velocities a step as an engine holds them
//!   ([`parry_step`]).
//! - [`rapier_ccd`]: a rapier-style CCD pass: parry3d's `Bvh` built over the swept boxes,
//!   self-traversed, `cast_shapes` on each pair.

use parry3d::bounding_volume::Aabb;
use parry3d::math::{Pose, Vec3};
use parry3d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};
use parry3d::query::{ShapeCastOptions, cast_shapes};
use parry3d::shape::Capsule;
use segbatch::motion::{Sweep, Sweeps, SweptBatch, first_contact_capsules_indexed_into};
use segbatch::pairs::Radii;
use segbatch_testkit::swept::SweptScene;

/// parry3d's view of one step: each object's capsule in its own frame (built once), its
/// pose at the start of the step and its velocity (displacement over the step).
pub struct ParryStep {
    /// Each object's pose at the start of the step.
    pub poses: Vec<Pose>,
    /// Each object's displacement over the step.
    pub vels: Vec<Vec3>,
}

fn centre(s: &segbatch::Segment) -> Vec3 {
    (Vec3::from_array(s.p0) + Vec3::from_array(s.p1)) * 0.5
}

/// The objects' capsules about their centres (the scene's objects only translate).
pub fn parry_capsules(sc: &SweptScene) -> Vec<Capsule> {
    sc.sweeps[0]
        .iter()
        .zip(&sc.radii)
        .map(|(s, &r)| {
            let c = centre(&s.start);
            Capsule::new(
                Vec3::from_array(s.start.p0) - c,
                Vec3::from_array(s.start.p1) - c,
                r,
            )
        })
        .collect()
}

/// parry3d's view of one step of `sweeps`.
pub fn parry_step(sweeps: &[Sweep]) -> ParryStep {
    ParryStep {
        poses: sweeps
            .iter()
            .map(|s| Pose::from_translation(centre(&s.start)))
            .collect(),
        vels: sweeps
            .iter()
            .map(|s| centre(&s.end) - centre(&s.start))
            .collect(),
    }
}

/// parry3d's first contact of pair `(i, j)` over the step (`None` without one).
pub fn cast(capsules: &[Capsule], step: &ParryStep, i: usize, j: usize) -> Option<f32> {
    let options = ShapeCastOptions::with_max_time_of_impact(1.0);
    cast_shapes(
        &step.poses[i],
        step.vels[i],
        &capsules[i],
        &step.poses[j],
        step.vels[j],
        &capsules[j],
        options,
    )
    .expect("capsules are supported")
    .map(|hit| hit.time_of_impact)
}

/// segbatch over the candidates: the step's sweeps as one batch, the pairs gathered from
/// its columns by the indexed query.
#[derive(Default)]
pub struct Ours {
    set: Sweeps,
    /// The last step's results, one per candidate.
    pub out: SweptBatch,
}

impl Ours {
    /// Decides the candidates `pairs` of one step; returns the number of hits.
    pub fn run(&mut self, sweeps: &[Sweep], radii: &[f32], pairs: &[(u32, u32)]) -> usize {
        self.set.clear();
        self.set.extend_from_slice(sweeps);
        let radii = Radii::per_object(radii, radii).expect("valid radii");
        first_contact_capsules_indexed_into(&self.set, &self.set, pairs, radii, &mut self.out)
            .expect("pairs of the set");
        self.out.hits().count()
    }
}

/// A rapier-style CCD pass over one step: swept boxes, a `Bvh` over them, its
/// self-traversal, `cast_shapes` on each pair. Returns the hits.
pub fn rapier_ccd(
    sweeps: &[Sweep],
    capsules: &[Capsule],
    step: &ParryStep,
    workspace: &mut BvhWorkspace,
) -> usize {
    let boxes: Vec<Aabb> = sweeps
        .iter()
        .zip(capsules)
        .map(|(s, c)| {
            let r = Vec3::splat(c.radius);
            let pts = [s.start.p0, s.start.p1, s.end.p0, s.end.p1].map(Vec3::from_array);
            let lo = pts.iter().fold(Vec3::INFINITY, |m, p| m.min(*p));
            let hi = pts.iter().fold(Vec3::NEG_INFINITY, |m, p| m.max(*p));
            Aabb::new(lo - r, hi + r)
        })
        .collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &boxes);
    let mut hits = 0;
    bvh.traverse_bvtt_single_tree::<false>(workspace, &mut |i, j| {
        hits += usize::from(cast(capsules, step, i as usize, j as usize).is_some());
    });
    hits
}
