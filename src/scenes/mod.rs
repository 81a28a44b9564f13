//! Scenes that move: a persistent set of capsules asked every frame which of them touch.
//!
//! A physics engine's broad and narrow phase run the same question every frame on a scene
//! that changed a little. A set query ([`self_pairs_within`](crate::sets::self_pairs_within)
//! with a radius an object) decides each pair once, with its two radii, but builds its grid
//! per call, so each frame pays the whole build. [`Capsules`] keeps its structure between
//! frames instead:
//!
//! - **objects** have stable `u32` ids ([`Capsules::insert`], [`Capsules::remove`]), a core
//!   segment and their own radius (0 for a bare segment). They arrive one by one
//!   ([`Capsules::insert`]) or in bulk ([`Capsules::insert_all`]), and move one by one
//!   ([`Capsules::set`]) or all at once from a slice of end points
//!   ([`Capsules::set_all`], [`Capsules::set_all_flat`]), written in place into the set's
//!   SoA columns. The bulk forms take the engine's own pairs of points (glam's and mint's
//!   `[Vec3; 2]` with those features) as well as [`Segment`](crate::Segment)s;
//! - **the broad phase** (see below) keeps padded boxes in a
//!   hashed grid and the list of padded-box pairs; a frame re-bins only the objects that
//!   left their padded box and finds only their new pairs;
//! - **the narrow phase** is the batched kernel over index pairs gathered straight from the
//!   columns ([`capsules_touch_indexed`](crate::pairs::capsules_touch_indexed), or
//!   [`capsule_contacts`](crate::pairs::capsule_contacts) when contacts are asked for): each
//!   candidate is decided once, with its two radii.
//!
//! A frame ([`Capsules::frame_into`]) reports every touching pair `(i, j)`, `i < j`, sorted,
//! with `distance <= rI + rJ` exactly as the reference decides it (the squared distance of
//! [`reference::closest_points`](crate::reference::closest_points) at most `(rI + rJ)²`,
//! both in `f32`), the contacts on request ([`Report::CONTACTS`], bit for bit
//! [`reference::capsule_contact`](crate::reference::capsule_contact)), and the pairs that
//! began and ended touching since the previous frame ([`Report::EVENTS`]). The answer is
//! brute force over the reference, every frame, whatever the history of moves and on any
//! thread count.
//!
//! # Swept contacts
//!
//! A bullet one radius thick moving ten radii a frame is clear of a wall at both frames
//! and passes through it in between. With [`Report::SWEPT`] a frame also reports every
//! pair that touched at some time while the objects moved, each end point linearly, from
//! their positions at the previous frame (the last that reported swept contacts: an engine
//! asks for them every frame) to these ([`Frame::swept`], with the first time
//! and the contact, bit for bit
//! [`reference::first_contact_capsules`](crate::reference::first_contact_capsules) of the
//! two sweeps). The broad phase then gives each object the box of its whole motion (both
//! positions, grown by its radius and the swept query's tolerance), so nothing thinner than
//! a step is missed, and the kernel decides each candidate once; the touching pairs, their
//! contacts and the begin/end events are those of the positions now, as without it.
//!
//! ```
//! use segbatch::scenes::{Capsules, Report};
//! use segbatch::Segment;
//! let mut scene = Capsules::new();
//! let wall = scene.insert(Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]), 0.05)?;
//! let bullet = scene.insert(Segment::new([0.0, 0.0, 0.0], [0.1, 0.0, 0.0]), 0.05)?;
//! scene.frame(Report::SWEPT);
//! // One step later the bullet is 10 units further on: through the wall.
//! scene.set(bullet, Segment::new([10.0, 0.0, 0.0], [10.1, 0.0, 0.0]))?;
//! let frame = scene.frame(Report::SWEPT);
//! assert!(frame.pairs().is_empty()); // not touching now
//! let hit = frame.swept()[0];
//! assert_eq!((hit.i, hit.j), (wall, bullet));
//! assert!((hit.contact.t - 0.48).abs() < 1e-3); // its front end reached x = 4.9
//! # Ok::<(), segbatch::Error>(())
//! ```
//!
//! # The broad phase
//!
//! Three designs keep their structure between frames: a BVH of padded boxes refitted each
//! frame (rapier, parry3d's `Bvh`), an incremental sort-and-sweep (Bullet, PhysX), a grid
//! re-binned when a padded box changes cells. Measured on the scene of `segbatch bench
//! --scenes` (50K capsules in a 100³ box, docs/performance.md), the pairs whose padded
//! boxes overlap are a few per object, while a sweep along one axis meets every object
//! whose interval overlaps on that axis (hundreds per object at that density), and a tree
//! pays a traversal of `log N` levels per object every frame. The grid finds an object's
//! pairs in its 27 neighbouring cells, and only when the object left its padded box; the
//! kept pairs are then re-tested by their tight boxes, one pass over a short list. The
//! details (box inflation, cell edge, big objects) are in `src/scenes/broad.rs`.
//!
//! # Non-finite objects
//!
//! An object with a NaN or infinite coordinate touches nothing (its distance to anything is
//! NaN). It stays in the set, is left out of the grid while it is non-finite, and every
//! frame lists it in [`Frame::non_finite`], so it is never dropped silently.

mod broad;
mod capsules;

pub use broad::MARGIN;
pub use capsules::{Capsules, Frame, Report, SweptHit};
