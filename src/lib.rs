//! # segbatch
//!
//! Closest points and distances between 3D segments, rays and lines: one pair at a time with
//! the scalar [`reference`](mod@reference), or millions of pairs per second with the batched kernel.
//!
//! For each pair of sides A = (A0, A1) and B = (B0, B1) it finds the closest points
//! `C = A0 + s·(A1 - A0)` on A and `D = B0 + t·(B1 - B0)` on B, the squared distance and
//! [`Flags`] saying whether a side was degenerate, the pair parallel or an input non-finite.
//! Each side is a segment, a ray or an infinite line ([`Extent`]).
//!
//! ```
//! use segbatch::{reference, Segment};
//! // Two segments crossing at right angles, one unit apart.
//! let a = Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
//! let b = Segment::new([1.0, -1.0, 1.0], [1.0, 1.0, 1.0]);
//! let c = reference::closest_points(&a, &b);
//! assert_eq!((c.s, c.t), (0.5, 0.5));
//! assert_eq!(c.point_a, [1.0, 0.0, 0.0]);
//! assert_eq!(c.distance(), 1.0);
//! ```
//!
//! ## Modules, by question
//!
//! | module | question |
//! |---|---|
//! | [`pairs`] | closest points, capsule overlaps and contacts of given pairs (`a[i]` with `b[i]`, one against many, index pairs), in `f32` and `f64` |
//! | [`sets`] | every pair of one or two sets within a radius (grid-pruned, streamed in bounded blocks), dense distance matrices, the static [`SegmentIndex`] and its first hits of thick rays |
//! | [`scenes`] | sets that move: a persistent set of capsules queried frame after frame |
//! | [`motion`] | moving objects: closest approach in time, first contact |
//! | [`planar`] | 2D segments: exact crossings, closest points, the crossing pairs of a set |
//! | [`reference`](mod@reference) | the scalar definition of every query, one pair at a time |
//! | [`simd`] | what this build and this CPU can run |
//!
//! The root holds the types every module shares (segments, batches, options, results, the
//! error) and [`closest_points`], the call most users start from.
//!
//! ## Sets
//!
//! Most questions are about sets: which capsules of a scene touch, which paths come within
//! a radius of each other or of the walls, what a sight ray hits first. The set queries
//! answer them in `O((N + M) log(N + M) + K)` for `K` reported pairs: a uniform grid of
//! bounding spheres (the pruning layer, see `docs/architecture.md`) names the
//! candidate pairs, conservatively, and the kernel decides each one, so every set query
//! reports exactly the pairs, and the values, bit for bit, of brute force over the
//! reference.
//!
//! ```
//! use segbatch::{Segment, SegmentIndex, Segments};
//! use segbatch::planar::{crossing_pairs, Segment2, Segments2};
//! use segbatch::sets::{self_pairs_within, SharedEndpoints};
//! // A path that folds back close to its own start: all pairs within 0.5, except the
//! // consecutive pieces that touch by construction.
//! let path = Segments::from(&[
//!     Segment::new([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]),
//!     Segment::new([4.0, 0.0, 0.0], [4.0, 2.0, 0.0]),
//!     Segment::new([4.0, 2.0, 0.0], [1.0, 0.25, 0.0]),
//! ]);
//! let near = self_pairs_within(&path, 0.5, SharedEndpoints::Skip);
//! assert_eq!((near[0].i, near[0].j, near[0].dist2), (0, 2, 0.0625));
//! // Walls indexed once; sight rays of radius 0.5 and range 10 against them.
//! let walls = Segments::from(&[Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0])]);
//! let index = SegmentIndex::new(&walls)?;
//! let rays = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
//! assert_eq!(index.first_hits(&rays, 0.5, 10.0)?[0].map(|h| h.u), Some(4.5));
//! // 2D: the crossings of a set of street pieces.
//! let streets = Segments2::from(&[
//!     Segment2::new([0.0, 0.0], [4.0, 0.0]),
//!     Segment2::new([2.0, -1.0], [2.0, 1.0]),
//! ]);
//! assert_eq!(crossing_pairs(&streets).len(), 1);
//! # Ok::<(), segbatch::Error>(())
//! ```
//!
//! Scenes that move keep their structure between frames: [`scenes::Capsules`] is a
//! persistent set of capsules (stable ids, per-object radii, moved in place) whose frame
//! query reports the touching pairs, their contacts and the pairs that began and ended
//! touching, re-binning only what moved.
//!
//! Engines with their own broad phase hand over index pairs instead:
//! [`closest_points_indexed`](pairs::closest_points_indexed), [`capsules_touch_indexed`](pairs::capsules_touch_indexed) and [`capsule_contacts`](pairs::capsule_contacts) gather
//! the lanes straight from the sets' columns. For outputs larger than memory, the
//! streaming forms (`for_each_…`) hand the hits to a callback in blocks of compact
//! 12-to-16-byte records ([`PairHit`](sets::PairHit), [`CrossHit`](planar::CrossHit)) of at most [`MAX_BLOCK_HITS`](sets::MAX_BLOCK_HITS),
//! whatever the set's layout, holding the input and a few blocks a thread, never the whole
//! output; a callback that returns [`ControlFlow::Break`](core::ops::ControlFlow::Break)
//! stops the query within about a block a thread ([`SinkFlow`](sets::SinkFlow)); the
//! collected forms grow their output with `try_reserve` and return
//! [`Error::OutOfMemory`] when it cannot grow, as [`dist2_matrix_into`](sets::dist2_matrix_into) does for a matrix
//! that cannot be allocated (their convenience forms panic with that error). The set
//! queries answer for any coordinates and radius (extents up to `±f32::MAX`); a pair
//! whose squared distance under- or overflows `f32` is decided in `f64`
//! ([`within_radius`](sets::within_radius) states the rule), and members with a NaN or infinite coordinate
//! are left out ([`count_non_finite`](sets::count_non_finite) counts them).
//!
//! ## Batches
//!
//! The fast path takes structure-of-arrays batches ([`Segments`]: six `f32` columns padded to
//! a multiple of [`LANES`]) and computes eight pairs per SIMD instruction with
//! `wide::f32x8`; results come back as columns ([`ClosestBatch`]). The kernel is a
//! branchless twin of the reference and agrees with it bit for bit on x86_64.
//!
//! ```
//! use segbatch::{closest_points, Segment, Segments};
//! let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]); 100]);
//! let b = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]); 100]);
//! let out = closest_points(&a, &b);
//! assert!(out.dist2().iter().all(|&d2| d2 == 1.0));
//! assert_eq!(out.get(99).map(|c| c.s), Some(0.5));
//! ```
//!
//! ## The API: one rule for every query
//!
//! Every batched query `q` has the same four forms:
//!
//! - `q(inputs…)`: the convenience call. Default options (segments against segments,
//!   the scale-free tolerance, every output column); allocates its result; **panics** on
//!   inputs that do not fit together (batches of different lengths, an invalid radius),
//!   as documented under `# Panics` on each.
//! - `q_into(inputs…, options…, &mut out) -> Result<(), Error>`: the general call. Takes
//!   the options the query has ([`Options`], [`Outputs`], [`Radii`](pairs::Radii), a time
//!   [`Window`](motion::Window)), reuses `out`'s buffers (no allocation once it has held a
//!   batch this large) and returns an [`Error`] instead of panicking. Never panics on data.
//! - `par_q`, `par_q_into` (feature `rayon`, on by default): the same on all cores, with
//!   bitwise the same results; small inputs stay on the calling thread
//!   ([`PAR_MIN_PAIRS`](pairs::PAR_MIN_PAIRS), [`PAR_MIN_PAIR_TESTS`](pairs::PAR_MIN_PAIR_TESTS)).
//!
//! and its scalar reference, `reference::q`, one pair at a time, defines what it computes.
//! Every batch type's `get(i)` returns an `Option`, as std's slices do.
//!
//! | question | convenience | general | parallel | reference |
//! |---|---|---|---|---|
//! | closest points of `a[i]` and `b[i]`, in `f32` or `f64` (the precision of the batches: [`Segments`] or [`Segments64`]) | [`closest_points`] | [`closest_points_into`](pairs::closest_points_into) | [`par_closest_points`](pairs::par_closest_points), [`par_closest_points_into`](pairs::par_closest_points_into) | [`reference::closest_points`], [`reference::closest_points_with`] |
//! | one segment, ray or line against every `b[j]` | [`closest_points_one_to_many`](pairs::closest_points_one_to_many) | [`closest_points_one_to_many_into`](pairs::closest_points_one_to_many_into) | [`par_closest_points_one_to_many`](pairs::par_closest_points_one_to_many), [`par_closest_points_one_to_many_into`](pairs::par_closest_points_one_to_many_into) | [`reference::closest_points_with`] |
//! | do capsules `(a[i], rA)`, `(b[i], rB)` touch? ([`PairMask`](pairs::PairMask)) | [`capsules_touch`](pairs::capsules_touch) | [`capsules_touch_into`](pairs::capsules_touch_into) | [`par_capsules_touch`](pairs::par_capsules_touch), [`par_capsules_touch_into`](pairs::par_capsules_touch_into) | `dist2 <= (rA + rB)²` of [`reference::closest_points_with`] |
//! | every A against every B: dense squared distances | [`dist2_matrix`](sets::dist2_matrix) | [`dist2_matrix_into`](sets::dist2_matrix_into) | [`par_dist2_matrix`](sets::par_dist2_matrix), [`par_dist2_matrix_into`](sets::par_dist2_matrix_into) | [`reference::closest_points_with`] |
//! | every A against every B: the pairs within a radius, one for all or one an object ([`Radius`](sets::Radius): capsules, `distance <= rA + rB`; [`Hit`](sets::Hit)s) | [`pairs_within`](sets::pairs_within) | [`pairs_within_into`](sets::pairs_within_into) | [`par_pairs_within`](sets::par_pairs_within), [`par_pairs_within_into`](sets::par_pairs_within_into) | [`reference::closest_points_with`] |
//! | all pairs `i < j` of one set within a radius, one for all or one an object (touching capsules) | [`self_pairs_within`](sets::self_pairs_within) | [`self_pairs_within_into`](sets::self_pairs_within_into) | [`par_self_pairs_within`](sets::par_self_pairs_within), [`par_self_pairs_within_into`](sets::par_self_pairs_within_into) | [`reference::closest_points_with`] |
//! | the same two, streamed as compact [`PairHit`](sets::PairHit)s | [`for_each_pair_within`](sets::for_each_pair_within), [`for_each_self_pair_within`](sets::for_each_self_pair_within) | (the same) | [`par_for_each_pair_within`](sets::par_for_each_pair_within), [`par_for_each_self_pair_within`](sets::par_for_each_self_pair_within) | [`reference::closest_points_with`] |
//! | closest points of index pairs `(a[i], b[j])` | [`closest_points_indexed`](pairs::closest_points_indexed) | [`closest_points_indexed_into`](pairs::closest_points_indexed_into) | [`par_closest_points_indexed`](pairs::par_closest_points_indexed), [`par_closest_points_indexed_into`](pairs::par_closest_points_indexed_into) | [`reference::closest_points_with`] |
//! | do capsules `(a[i], rA)`, `(b[j], rB)` of index pairs touch? | [`capsules_touch_indexed`](pairs::capsules_touch_indexed) | [`capsules_touch_indexed_into`](pairs::capsules_touch_indexed_into) | [`par_capsules_touch_indexed`](pairs::par_capsules_touch_indexed), [`par_capsules_touch_indexed_into`](pairs::par_capsules_touch_indexed_into) | `dist2 <= (rA + rB)²` of [`reference::closest_points_with`] |
//! | contacts (normal, depth, points; two for parallel capsules) of touching capsules of index pairs | [`capsule_contacts`](pairs::capsule_contacts) | [`capsule_contacts_into`](pairs::capsule_contacts_into) | [`par_capsule_contacts`](pairs::par_capsule_contacts), [`par_capsule_contacts_into`](pairs::par_capsule_contacts_into) | [`reference::capsule_contact`] |
//! | the touching pairs (and contacts, events) of a moving set, frame after frame | [`scenes::Capsules::frame`] | [`scenes::Capsules::frame_into`] | [`scenes::Capsules::par_frame_into`] | [`reference::capsule_contact`] over all pairs |
//! | first hit of thick rays on an indexed set | [`SegmentIndex::first_hits`] | (the same) | [`SegmentIndex::par_first_hits`] | [`reference::first_hit`] |
//! | pairs of query segments and an indexed set within a radius (one for all, one a query, or one a query and one a member) | [`SegmentIndex::pairs_within`] | (the same) | [`SegmentIndex::par_pairs_within`] | [`reference::closest_points_with`] |
//! | closest approach in time of two tracks | [`motion::cpa`] | [`motion::cpa_into`] | [`motion::par_cpa`], [`motion::par_cpa_into`] | [`reference::cpa`] |
//! | closest approach in time during one step (start/end segments) | [`motion::cpa_segments`] | [`motion::cpa_segments_into`] | [`motion::par_cpa_segments`], [`motion::par_cpa_segments_into`] | [`reference::cpa_segments`] |
//! | first contact of two moving spheres (tracks) | [`motion::first_contact`] | [`motion::first_contact_into`] | [`motion::par_first_contact`], [`motion::par_first_contact_into`] | [`reference::first_contact`] |
//! | first contact during one step (start/end segments) | [`motion::first_contact_segments`] | [`motion::first_contact_segments_into`] | [`motion::par_first_contact_segments`], [`motion::par_first_contact_segments_into`] | [`reference::first_contact_segments`] |
//! | first contact of two capsules whose end points move over a step ([`Sweeps`](motion::Sweeps); no tunnelling) | [`motion::first_contact_capsules`] | [`motion::first_contact_capsules_into`] | [`motion::par_first_contact_capsules`], [`motion::par_first_contact_capsules_into`] | [`reference::first_contact_capsules`] |
//! | the same over index pairs of two sets (a broad phase's candidates) | [`motion::first_contact_capsules_indexed`] | [`motion::first_contact_capsules_indexed_into`] | [`motion::par_first_contact_capsules_indexed`], [`motion::par_first_contact_capsules_indexed_into`] | [`reference::first_contact_capsules`] |
//! | the pairs of a moving set that touched during the step ([`Report::SWEPT`](scenes::Report::SWEPT)) | [`scenes::Capsules::frame`] | [`scenes::Capsules::frame_into`] | [`scenes::Capsules::par_frame_into`] | [`reference::first_contact_capsules`] over all pairs |
//! | 2D segment crossings and closest points | [`intersect2`](planar::intersect2) | [`intersect2_into`](planar::intersect2_into) | [`par_intersect2`](planar::par_intersect2), [`par_intersect2_into`](planar::par_intersect2_into) | [`reference::intersect2`] |
//! | the same over index pairs | [`intersect2_indexed`](planar::intersect2_indexed) | [`intersect2_indexed_into`](planar::intersect2_indexed_into) | [`par_intersect2_indexed`](planar::par_intersect2_indexed), [`par_intersect2_indexed_into`](planar::par_intersect2_indexed_into) | [`reference::intersect2`] |
//! | every meeting pair `i < j` of one 2D set, `f32` or `f64` (`Segments2<E>`; [`CrossHit`](planar::CrossHit)s; shared end points kept or skipped) | [`crossing_pairs`](planar::crossing_pairs) | [`crossing_pairs_into`](planar::crossing_pairs_into) | [`par_crossing_pairs`](planar::par_crossing_pairs), [`par_crossing_pairs_into`](planar::par_crossing_pairs_into) | [`reference::intersect2`], [`reference::intersect2_64`] |
//! | the same, streamed | [`for_each_crossing_pair`](planar::for_each_crossing_pair) | (the same) | [`par_for_each_crossing_pair`](planar::par_for_each_crossing_pair) | [`reference::intersect2`], [`reference::intersect2_64`] |
//! | `f64`: every A against every B within a radius ([`Hit64`](sets::Hit64)s; the grid in a local frame) | [`pairs_within64`](sets::pairs_within64) | [`pairs_within64_into`](sets::pairs_within64_into) | [`par_pairs_within64`](sets::par_pairs_within64), [`par_pairs_within64_into`](sets::par_pairs_within64_into) | [`reference::closest_points_with`] |
//! | `f64`: all pairs `i < j` of one set within a radius (the grid in a local frame) | [`self_pairs_within64`](sets::self_pairs_within64) | [`self_pairs_within64_into`](sets::self_pairs_within64_into) | [`par_self_pairs_within64`](sets::par_self_pairs_within64), [`par_self_pairs_within64_into`](sets::par_self_pairs_within64_into) | [`reference::closest_points_with`] |
//! | `f64`: the same two, streamed ([`PairHit64`](sets::PairHit64)s) | [`for_each_pair_within64`](sets::for_each_pair_within64), [`for_each_self_pair_within64`](sets::for_each_self_pair_within64) | (the same) | [`par_for_each_pair_within64`](sets::par_for_each_pair_within64), [`par_for_each_self_pair_within64`](sets::par_for_each_self_pair_within64) | [`reference::closest_points_with`] |
//! | `f64`: closest approach in time of two tracks ([`Tracks64`](motion::Tracks64), [`CpaBatch64`](motion::CpaBatch64)) | [`motion::cpa64`] | [`motion::cpa64_into`] | [`motion::par_cpa64`], [`motion::par_cpa64_into`] | [`reference::cpa64`] |
//! | `f64`: closest approach in time during one step ([`Segments64`]) | [`motion::cpa_segments64`] | [`motion::cpa_segments64_into`] | [`motion::par_cpa_segments64`], [`motion::par_cpa_segments64_into`] | [`reference::cpa_segments64`] |
//! | `f64`: capsules touch ([`Radii64`](pairs::Radii64)), the index-pair queries, contacts, first contact (spheres and swept capsules), the matrix | [`capsules_touch`](pairs::capsules_touch), [`closest_points_indexed`](pairs::closest_points_indexed), [`capsules_touch_indexed`](pairs::capsules_touch_indexed), [`capsule_contacts`](pairs::capsule_contacts), [`motion::first_contact64`], [`motion::first_contact_segments64`], [`motion::first_contact_capsules64`], [`dist2_matrix64`](sets::dist2_matrix64) | `…_into` of each | `par_…` of each | [`reference::closest_points_with`], [`reference::capsule_contact64`], [`reference::first_contact64`], [`reference::first_contact_segments64`], [`reference::first_contact_capsules64`] |
//!
//! The streaming forms and the index's methods take their sink or options directly and
//! return a `Result` (they have no separate `_into` form: the sink is the output).
//!
//! Each row, every cell called once (these run as doctests):
//!
//! ```
//! # use segbatch::*;
//! # use segbatch::pairs::*;
//! # use segbatch::planar::*;
//! # use segbatch::sets::*;
//! # use segbatch::pairs::{*};
//! # use segbatch::planar::{*};
//! # use segbatch::sets::{*};
//! # use segbatch::motion::*;
//! let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]); 9]);
//! let b = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]); 9]);
//! let (one, opts) = (a.get(0).unwrap(), Options::SEGMENTS);
//! let mut out = ClosestBatch::new();
//! // closest points
//! let c = closest_points(&a, &b);
//! closest_points_into(&a, &b, &opts, Outputs::ALL, &mut out)?;
//! assert_eq!(out, c);
//! assert_eq!(par_closest_points(&a, &b), c);
//! par_closest_points_into(&a, &b, &opts, Outputs::ALL, &mut out)?;
//! assert_eq!(c.get(3), Some(reference::closest_points(&one, &b.get(3).unwrap())));
//! // one to many
//! let m = closest_points_one_to_many(&one, &b);
//! closest_points_one_to_many_into(&one, &b, &opts, Outputs::ALL, &mut out)?;
//! assert_eq!((&par_closest_points_one_to_many(&one, &b), &out), (&m, &m));
//! par_closest_points_one_to_many_into(&one, &b, &opts, Outputs::ALL, &mut out)?;
//! // capsules
//! let radii = Radii::uniform(0.5, 0.5)?;
//! let mut mask = PairMask::new();
//! let touch = capsules_touch(&a, &b, radii);
//! capsules_touch_into(&a, &b, radii, &opts, &mut mask)?;
//! assert_eq!((&par_capsules_touch(&a, &b, radii), &mask), (&touch, &touch));
//! par_capsules_touch_into(&a, &b, radii, &opts, &mut mask)?;
//! assert_eq!(touch.count_ones(), 9);
//! // matrix
//! let mut matrix = Vec::new();
//! let d = dist2_matrix(&a, &b);
//! dist2_matrix_into(&a, &b, &opts, &mut matrix)?;
//! assert_eq!((&par_dist2_matrix(&a, &b), &matrix), (&d, &d));
//! par_dist2_matrix_into(&a, &b, &opts, &mut matrix)?;
//! // pairs within a radius
//! let mut hits = Vec::new();
//! let p = pairs_within(&a, &b, 1.0);
//! pairs_within_into(&a, &b, 1.0, &opts, &mut hits)?;
//! assert_eq!((&par_pairs_within(&a, &b, 1.0), &hits, p.len()), (&p, &p, 81));
//! par_pairs_within_into(&a, &b, 1.0, &opts, &mut hits)?;
//! // pairs within one set
//! let keep = SharedEndpoints::Keep;
//! let q = self_pairs_within(&a, 0.0, keep);
//! self_pairs_within_into(&a, 0.0, keep, &opts, &mut hits)?;
//! assert_eq!((&par_self_pairs_within(&a, 0.0, keep), &hits, q.len()), (&q, &q, 36));
//! par_self_pairs_within_into(&a, 0.0, keep, &opts, &mut hits)?;
//! // closest approach of tracks and of steps
//! let (ta, tb) = (Tracks::from_flat(&[0.0; 6])?, Tracks::from_flat(&[1.0; 6])?);
//! let mut cpa_out = CpaBatch::new();
//! let x = cpa(&ta, &tb, Window::STEP);
//! cpa_into(&ta, &tb, Window::STEP, &mut cpa_out)?;
//! assert_eq!((&par_cpa(&ta, &tb, Window::STEP), &cpa_out), (&x, &x));
//! par_cpa_into(&ta, &tb, Window::STEP, &mut cpa_out)?;
//! let window = Window::STEP;
//! assert_eq!(x.get(0), Some(reference::cpa(&ta.get(0).unwrap(), &tb.get(0).unwrap(), window)));
//! let y = cpa_segments(&a, &b);
//! cpa_segments_into(&a, &b, &mut cpa_out)?;
//! assert_eq!((&par_cpa_segments(&a, &b), &cpa_out), (&y, &y));
//! par_cpa_segments_into(&a, &b, &mut cpa_out)?;
//! assert_eq!(y.get(0), Some(reference::cpa_segments(&one, &b.get(0).unwrap())));
//! // first contact of tracks and of steps
//! let mut contacts = ContactBatch::new();
//! let f = first_contact(&ta, &tb, radii, window);
//! first_contact_into(&ta, &tb, radii, window, &mut contacts)?;
//! assert_eq!((&par_first_contact(&ta, &tb, radii, window), &contacts), (&f, &f));
//! par_first_contact_into(&ta, &tb, radii, window, &mut contacts)?;
//! let (t0, t1) = (ta.get(0).unwrap(), tb.get(0).unwrap());
//! assert_eq!(f.get(0), Some(reference::first_contact(&t0, 0.5, &t1, 0.5, window)));
//! let g = first_contact_segments(&a, &b, radii);
//! first_contact_segments_into(&a, &b, radii, &mut contacts)?;
//! assert_eq!((&par_first_contact_segments(&a, &b, radii), &contacts), (&g, &g));
//! par_first_contact_segments_into(&a, &b, radii, &mut contacts)?;
//! let b0 = b.get(0).unwrap();
//! assert_eq!(g.get(0), Some(reference::first_contact_segments(&one, 0.5, &b0, 0.5)));
//! // 2D
//! let a2 = Segments2::from(&[Segment2::new([4.0, 7.0], [16.0, 3.0])]);
//! let b2 = Segments2::from(&[Segment2::new([1.0, 1.0], [17.0, 5.0])]);
//! let mut crossings = Intersections2::new();
//! let i2 = intersect2(&a2, &b2);
//! intersect2_into(&a2, &b2, &mut crossings)?;
//! assert_eq!((&par_intersect2(&a2, &b2), &crossings), (&i2, &i2));
//! par_intersect2_into(&a2, &b2, &mut crossings)?;
//! let (s2, t2) = (a2.get(0).unwrap(), b2.get(0).unwrap());
//! assert_eq!(i2.get(0), Some(reference::intersect2(&s2, &t2)));
//! // streamed pairs within a radius
//! let mut streamed = Vec::new();
//! for_each_pair_within(&a, &b, 1.0, &opts, |x| streamed.extend_from_slice(x))?;
//! par_for_each_pair_within(&a, &b, 1.0, &opts, |x| streamed.extend_from_slice(x))?;
//! for_each_self_pair_within(&a, 0.0, keep, &opts, |x| streamed.extend_from_slice(x))?;
//! par_for_each_self_pair_within(&a, 0.0, keep, &opts, |x| streamed.extend_from_slice(x))?;
//! assert_eq!(streamed.len(), 2 * 81 + 2 * 36);
//! // index pairs
//! let pairs = [(0, 8), (3, 3)];
//! let ci = closest_points_indexed(&a, &b, &pairs);
//! closest_points_indexed_into(&a, &b, &pairs, &opts, Outputs::ALL, &mut out)?;
//! assert_eq!((&par_closest_points_indexed(&a, &b, &pairs), &out), (&ci, &ci));
//! par_closest_points_indexed_into(&a, &b, &pairs, &opts, Outputs::ALL, &mut out)?;
//! assert_eq!(ci.get(0), Some(reference::closest_points(&one, &b.get(8).unwrap())));
//! let ti = capsules_touch_indexed(&a, &b, &pairs, radii);
//! capsules_touch_indexed_into(&a, &b, &pairs, radii, &opts, &mut mask)?;
//! assert_eq!((&par_capsules_touch_indexed(&a, &b, &pairs, radii), &mask), (&ti, &ti));
//! par_capsules_touch_indexed_into(&a, &b, &pairs, radii, &opts, &mut mask)?;
//! let mut touching = Vec::new();
//! let k = capsule_contacts(&a, &b, &pairs, radii);
//! capsule_contacts_into(&a, &b, &pairs, radii, &opts, &mut touching)?;
//! assert_eq!((&par_capsule_contacts(&a, &b, &pairs, radii), &touching), (&k, &k));
//! par_capsule_contacts_into(&a, &b, &pairs, radii, &opts, &mut touching)?;
//! assert_eq!((k.len(), k[0].normal, k[0].depth), (2, [0.0, -1.0, 0.0], 0.0));
//! // the static index
//! let index = SegmentIndex::new(&b)?;
//! let rays = Segments::from(&[Segment::new([1.0, 5.0, 0.0], [1.0, 4.0, 0.0])]);
//! let fh = index.first_hits(&rays, 0.5, 10.0)?;
//! assert_eq!(fh, index.par_first_hits(&rays, 0.5, 10.0)?);
//! let wall = b.get(0).unwrap();
//! let h = reference::first_hit(&rays.get(0).unwrap(), 0.5, 10.0, &wall).unwrap();
//! assert_eq!(fh[0].map(|x| (x.u, x.point)), Some((h.u, h.point)));
//! assert_eq!(index.pairs_within(&a, 1.0)?, p);
//! assert_eq!(index.par_pairs_within(&a, 1.0)?, p);
//! // 2D sets and index pairs
//! let mut crossed = Vec::new();
//! let x2 = crossing_pairs(&a2);
//! crossing_pairs_into(&a2, keep, &mut crossed)?;
//! assert_eq!((&par_crossing_pairs(&a2), &crossed), (&x2, &x2));
//! par_crossing_pairs_into(&a2, keep, &mut crossed)?;
//! for_each_crossing_pair(&a2, keep, |x| crossed.extend_from_slice(x))?;
//! par_for_each_crossing_pair(&a2, keep, |x| crossed.extend_from_slice(x))?;
//! let ii = intersect2_indexed(&a2, &b2, &[(0, 0)]);
//! intersect2_indexed_into(&a2, &b2, &[(0, 0)], &mut crossings)?;
//! assert_eq!((&par_intersect2_indexed(&a2, &b2, &[(0, 0)]), &crossings), (&ii, &i2));
//! par_intersect2_indexed_into(&a2, &b2, &[(0, 0)], &mut crossings)?;
//! // f64
//! let wide = |s: Segment| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from));
//! let a64: Segments64 = a.iter().map(wide).collect();
//! let b64: Segments64 = b.iter().map(wide).collect();
//! let mut out64 = ClosestBatch64::new();
//! let c64 = closest_points(&a64, &b64);
//! closest_points_into(&a64, &b64, &opts, Outputs::ALL, &mut out64)?;
//! assert_eq!((&par_closest_points(&a64, &b64), &out64), (&c64, &c64));
//! par_closest_points_into(&a64, &b64, &opts, Outputs::ALL, &mut out64)?;
//! let (x, y) = (a64.get(3).unwrap(), b64.get(3).unwrap());
//! assert_eq!(c64.get(3), Some(reference::closest_points(&x, &y)));
//! let m64 = closest_points_one_to_many(&x, &b64);
//! closest_points_one_to_many_into(&x, &b64, &opts, Outputs::ALL, &mut out64)?;
//! assert_eq!((&par_closest_points_one_to_many(&x, &b64), &out64), (&m64, &m64));
//! par_closest_points_one_to_many_into(&x, &b64, &opts, Outputs::ALL, &mut out64)?;
//! let mut hits64 = Vec::new();
//! let p64 = pairs_within64(&a64, &b64, 1.0);
//! pairs_within64_into(&a64, &b64, 1.0, &opts, &mut hits64)?;
//! assert_eq!((&par_pairs_within64(&a64, &b64, 1.0), &hits64), (&p64, &p64));
//! par_pairs_within64_into(&a64, &b64, 1.0, &opts, &mut hits64)?;
//! let keep = SharedEndpoints::Keep;
//! let q64 = self_pairs_within64(&a64, 1.0, keep);
//! self_pairs_within64_into(&a64, 1.0, keep, &opts, &mut hits64)?;
//! assert_eq!((&par_self_pairs_within64(&a64, 1.0, keep), &hits64), (&q64, &q64));
//! par_self_pairs_within64_into(&a64, 1.0, keep, &opts, &mut hits64)?;
//! let (ta64, tb64) = (Tracks64::from_flat(&[0.0; 6])?, Tracks64::from_flat(&[1.0; 6])?);
//! let mut cpa64_out = CpaBatch64::new();
//! let x64 = cpa64(&ta64, &tb64, Window64::STEP);
//! cpa64_into(&ta64, &tb64, Window64::STEP, &mut cpa64_out)?;
//! assert_eq!((&par_cpa64(&ta64, &tb64, Window64::STEP), &cpa64_out), (&x64, &x64));
//! par_cpa64_into(&ta64, &tb64, Window64::STEP, &mut cpa64_out)?;
//! let (u, v) = (ta64.get(0).unwrap(), tb64.get(0).unwrap());
//! assert_eq!(x64.get(0), Some(reference::cpa64(&u, &v, Window64::STEP)));
//! let y64 = cpa_segments64(&a64, &b64);
//! cpa_segments64_into(&a64, &b64, &mut cpa64_out)?;
//! assert_eq!((&par_cpa_segments64(&a64, &b64), &cpa64_out), (&y64, &y64));
//! par_cpa_segments64_into(&a64, &b64, &mut cpa64_out)?;
//! assert_eq!(y64.get(3), Some(reference::cpa_segments64(&x, &y)));
//! let r64 = pairs::Radii64::uniform(0.5, 0.5)?;
//! let (mut mask64, ij) = (PairMask::new(), [(0, 1), (2, 2)]);
//! let t64 = capsules_touch(&a64, &b64, r64);
//! capsules_touch_into(&a64, &b64, r64, &opts, &mut mask64)?;
//! assert_eq!((&par_capsules_touch(&a64, &b64, r64), &mask64), (&t64, &t64));
//! par_capsules_touch_into(&a64, &b64, r64, &opts, &mut mask64)?;
//! let ix64 = closest_points_indexed(&a64, &b64, &ij);
//! closest_points_indexed_into(&a64, &b64, &ij, &opts, Outputs::ALL, &mut out64)?;
//! assert_eq!((&par_closest_points_indexed(&a64, &b64, &ij), &out64), (&ix64, &ix64));
//! par_closest_points_indexed_into(&a64, &b64, &ij, &opts, Outputs::ALL, &mut out64)?;
//! let ti64 = capsules_touch_indexed(&a64, &b64, &ij, r64);
//! capsules_touch_indexed_into(&a64, &b64, &ij, r64, &opts, &mut mask64)?;
//! assert_eq!((&par_capsules_touch_indexed(&a64, &b64, &ij, r64), &mask64), (&ti64, &ti64));
//! par_capsules_touch_indexed_into(&a64, &b64, &ij, r64, &opts, &mut mask64)?;
//! let mut k64 = Vec::new();
//! let cc64 = capsule_contacts(&a64, &b64, &ij, r64);
//! capsule_contacts_into(&a64, &b64, &ij, r64, &opts, &mut k64)?;
//! assert_eq!((&par_capsule_contacts(&a64, &b64, &ij, r64), &k64), (&cc64, &cc64));
//! par_capsule_contacts_into(&a64, &b64, &ij, r64, &opts, &mut k64)?;
//! assert_eq!(cc64[0].depth, reference::capsule_contact64(&x, 0.5, &b64.get(1).unwrap(), 0.5)[0].unwrap().depth);
//! let mut fc64 = ContactBatch64::new();
//! let f64c = first_contact64(&ta64, &tb64, r64, Window64::STEP);
//! first_contact64_into(&ta64, &tb64, r64, Window64::STEP, &mut fc64)?;
//! assert_eq!((&par_first_contact64(&ta64, &tb64, r64, Window64::STEP), &fc64), (&f64c, &f64c));
//! par_first_contact64_into(&ta64, &tb64, r64, Window64::STEP, &mut fc64)?;
//! assert_eq!(f64c.get(0), Some(reference::first_contact64(&u, 0.5, &v, 0.5, Window64::STEP)));
//! let s64c = first_contact_segments64(&a64, &b64, r64);
//! first_contact_segments64_into(&a64, &b64, r64, &mut fc64)?;
//! assert_eq!((&par_first_contact_segments64(&a64, &b64, r64), &fc64), (&s64c, &s64c));
//! par_first_contact_segments64_into(&a64, &b64, r64, &mut fc64)?;
//! assert_eq!(s64c.get(3), Some(reference::first_contact_segments64(&x, 0.5, &y, 0.5)));
//! let mut d64 = Vec::new();
//! let dm64 = dist2_matrix64(&a64, &b64);
//! dist2_matrix64_into(&a64, &b64, &opts, &mut d64)?;
//! assert_eq!((&par_dist2_matrix64(&a64, &b64), &d64), (&dm64, &dm64));
//! par_dist2_matrix64_into(&a64, &b64, &opts, &mut d64)?;
//! # Ok::<(), segbatch::Error>(())
//! ```
//!
//! ## Accuracy
//!
//! Tolerances are scale-free and the method avoids forming the ill-conditioned normal
//! equations, so for segment pairs the reported distance is within `8·f32::EPSILON·S` of the
//! exact distance of the given `f32` end points, `S` being the largest coordinate magnitude,
//! for near-parallel, collinear, tiny, long and far-from-origin pairs alike, at any scale from
//! about 1e-14 to 1e18 (measured worst case 3.2). With a ray or a line on a side the same
//! bound holds for the sides as represented (directions rounded once to f32), with `S` also
//! covering the closest points, which may lie far beyond the end points. See
//! `docs/algorithm.md` and `docs/accuracy.md`.
//!
//! ## Features
//!
//! - `rayon` (default): the parallel forms (`par_…`) of every query.
//! - `glam033`, `glam034`: conversions between segments, batches and glam 0.33 or 0.34
//!   (`Vec3`, `Vec3A`, `Vec2`), one feature per glam version (`glam` is `glam033`, the glam of parry3d 0.31 and rapier); see
//!   [`pairs::rows`] for reading results as any point type.
//! - `mint`: the same for `mint::Point3<f32>` and `mint::Point2<f32>`.
//!
//! The `segbatch` command-line tool is a separate package (`segbatch-cli`) of the same
//! workspace, so none of its dependencies reach library users.
//!
//! ## SIMD build
//!
//! `wide` chooses instructions at compile time. A default x86_64 build is SSE2 (each `f32x8`
//! is two 128-bit halves and multiply-adds are unfused, 2-3x slower); build with
//! `RUSTFLAGS="-C target-cpu=x86-64-v3"` (AVX2 + FMA) or `native` for full speed.
//! [`SIMD_LEVEL`](simd::SIMD_LEVEL) tells what a build uses and [`simd_upgrade`](simd::simd_upgrade) whether the CPU could do
//! more. On every build the kernel matches the reference of that build bit for bit (the
//! reference fuses exactly the multiply-adds the kernel fuses); between an FMA and a non-FMA
//! build results differ by rounding only, within the accuracy bound.
//!
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod batch;
mod columns;
mod driver;
mod forms;
mod interop;
mod kernel;
mod lanes;
pub mod motion;
pub mod pairs;
pub mod planar;
mod prune;
mod real;
pub mod reference;
mod scalar;
pub mod scenes;
mod segment;
pub mod sets;
pub mod simd;
#[cfg(test)]
mod test_mix;

pub use batch::{Error, Record, Segments, Segments64, Segments64View, SegmentsView, Soa, SoaView};
pub use columns::LANES;
pub use pairs::{ClosestBatch, Element, Outputs, closest_points};
pub use segment::{Closest, Closest64, Extent, Flags, Options, Segment, Segment64, Tolerance};
pub use sets::SegmentIndex;

/// The README's examples, compiled and run as doctests so they cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The examples of the library's tour (docs/library.md), run as doctests too.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
struct LibraryDoctests;
