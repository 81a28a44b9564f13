//! The persistent capsule set ([`scenes::Capsules`]) against brute force over the
//! reference, frame after frame: small moves, teleports, objects piling into one cell, all
//! objects identical, inserts and removals mid-run, radius 0, NaN objects; pairs, contacts,
//! begin/end events and swept contacts (`Report::SWEPT`, against the swept-capsule
//! reference over every pair) bit for bit, sequential and parallel. Also the contact manifold
//! rule of `capsule_contacts` against its scalar twin.
//!
//! Seeds: 64 at proptest's default case count, scaling with `PROPTEST_CASES` as
//! [`segbatch_testkit::sweep`] does (16 in `.ci/run`), each a run of frames.
//!
//! Every frame is also checked on the parallel form, so the file needs the `rayon` feature
//! (on by default).
#![cfg(feature = "rayon")]

use segbatch::pairs::*;
use segbatch::scenes::{Capsules, Frame, Report};
use segbatch::sets::Radius;
use segbatch::*;
use segbatch_testkit::Rng;

/// The test's own model of the scene: id → (segment, radius).
#[derive(Default)]
struct Model {
    objects: Vec<Option<(Segment, f32)>>,
    /// Where each object was at the previous frame (or where inserted since): the start of
    /// the step `Report::SWEPT` looks at.
    start: Vec<Segment>,
}

impl Model {
    fn set(&mut self, id: u32, v: Option<(Segment, f32)>) {
        let i = id as usize;
        if self.objects.len() <= i {
            self.objects.resize(i + 1, None);
        }
        self.objects[i] = v;
    }

    /// A new object's start is where it is inserted.
    fn inserted(&mut self, id: u32, s: Segment) {
        let i = id as usize;
        if self.start.len() <= i {
            self.start.resize(i + 1, Segment::default());
        }
        self.start[i] = s;
    }

    /// The frame is over: the next step starts where everything is now.
    fn step_done(&mut self) {
        for (i, o) in self.objects.iter().enumerate() {
            if let Some((s, _)) = o {
                self.start[i] = *s;
            }
        }
    }

    /// Brute force over the reference: the swept contacts of every live pair over the
    /// step, as bits.
    fn brute_swept(&self) -> Vec<(u32, u32, Vec<u32>)> {
        let live: Vec<_> = self.live().collect();
        let boxes: Vec<_> = live
            .iter()
            .map(|&(i, s, r)| Bounds::of(&[self.start[i as usize], s], r))
            .collect();
        let mut hits = Vec::new();
        for (x, &(i, a, ra)) in live.iter().enumerate() {
            for (y, &(j, b, rb)) in live.iter().enumerate().skip(x + 1) {
                if boxes[x].apart(&boxes[y]) {
                    continue;
                }
                let sa = motion::Sweep::new(self.start[i as usize], a);
                let sb = motion::Sweep::new(self.start[j as usize], b);
                let c = reference::first_contact_capsules(&sa, ra, &sb, rb);
                if c.hit {
                    hits.push((i, j, swept_bits(&c)));
                }
            }
        }
        hits
    }

    fn live(&self) -> impl Iterator<Item = (u32, Segment, f32)> + '_ {
        self.objects
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.map(|(s, r)| (i as u32, s, r)))
    }

    /// Brute force over the reference: touching pairs and their contacts.
    fn brute(&self) -> (Vec<(u32, u32)>, Vec<CapsuleContact>, Vec<u32>) {
        let live: Vec<_> = self.live().collect();
        let boxes: Vec<_> = live.iter().map(|&(_, s, r)| Bounds::of(&[s], r)).collect();
        let (mut pairs, mut contacts) = (Vec::new(), Vec::new());
        for (x, &(i, a, ra)) in live.iter().enumerate() {
            for (y, &(j, b, rb)) in live.iter().enumerate().skip(x + 1) {
                if boxes[x].apart(&boxes[y]) {
                    continue;
                }
                let c = reference::closest_points(&a, &b);
                let r = ra + rb;
                if c.dist2 <= r * r {
                    let k = pairs.len() as u32;
                    pairs.push((i, j));
                    let m = reference::capsule_contact(&a, ra, &b, rb);
                    assert!(m[0].is_some(), "a touching pair has a contact");
                    contacts.extend(m.into_iter().flatten().map(|c| CapsuleContact {
                        pair: k,
                        i,
                        j,
                        ..c
                    }));
                }
            }
        }
        let non_finite = live
            .iter()
            .filter(|(_, s, _)| !s.p0.iter().chain(&s.p1).all(|x| x.is_finite()))
            .map(|o| o.0)
            .collect();
        (pairs, contacts, non_finite)
    }
}

/// A box around capsules (the segments' endpoints grown by the radius), for brute force to
/// pass over pairs that cannot touch: two capsules whose boxes lie apart along an axis are
/// at least that far apart at every point of a step (a moving segment's endpoints stay on
/// the straight lines between their start and end, inside the box of both). Pairs count as
/// apart only past a margin far larger than the reference's rounding at the boxes'
/// magnitude, and never where a coordinate or radius is not finite, so every pair the
/// reference could report is still asked.
struct Bounds {
    lo: [f32; 3],
    hi: [f32; 3],
    margin: f32,
    /// Every coordinate and the radius finite.
    finite: bool,
}

impl Bounds {
    fn of(segments: &[Segment], r: f32) -> Self {
        let mut b = Bounds {
            lo: [f32::INFINITY; 3],
            hi: [f32::NEG_INFINITY; 3],
            margin: 0.0,
            finite: r.is_finite(),
        };
        for p in segments.iter().flat_map(|s| [s.p0, s.p1]) {
            for ((lo, hi), x) in b.lo.iter_mut().zip(&mut b.hi).zip(p) {
                *lo = lo.min(x - r);
                *hi = hi.max(x + r);
                b.margin = b.margin.max(1e-3 * (1.0 + x.abs() + r));
                b.finite &= x.is_finite();
            }
        }
        b
    }

    fn apart(&self, other: &Bounds) -> bool {
        let margin = self.margin.max(other.margin);
        self.finite
            && other.finite
            && (0..3)
                .any(|k| self.lo[k] - other.hi[k] > margin || other.lo[k] - self.hi[k] > margin)
    }
}

/// Contacts as bits, so that NaN coordinates (an infinite radius times a zero normal
/// component) compare equal to themselves.
fn bits(c: &[CapsuleContact]) -> Vec<(u32, u32, u32, Vec<u32>)> {
    c.iter()
        .map(|c| {
            let depth = [c.depth];
            let v = c
                .normal
                .iter()
                .chain(&depth)
                .chain(&c.point_a)
                .chain(&c.point_b);
            (c.pair, c.i, c.j, v.map(|x| x.to_bits()).collect())
        })
        .collect()
}

/// A swept contact as bits.
fn swept_bits(c: &motion::SweptContact) -> Vec<u32> {
    let t = [c.t];
    let v = t
        .iter()
        .chain(&c.normal)
        .chain(&c.point_a)
        .chain(&c.point_b);
    let mut b: Vec<u32> = v.map(|x| x.to_bits()).collect();
    b.push(u32::from(c.flags.bits()));
    b
}

fn frame_swept(f: &Frame) -> Vec<(u32, u32, Vec<u32>)> {
    f.swept()
        .iter()
        .map(|h| (h.i, h.j, swept_bits(&h.contact)))
        .collect()
}

/// An object as bits (NaN coordinates included).
fn object_bits(o: Option<(Segment, f32)>) -> Option<Vec<u32>> {
    o.map(|(s, r)| {
        s.p0.iter()
            .chain(&s.p1)
            .chain(&[r])
            .map(|x| x.to_bits())
            .collect()
    })
}

fn diff(a: &[(u32, u32)], b: &[(u32, u32)]) -> Vec<(u32, u32)> {
    a.iter().filter(|p| !b.contains(p)).copied().collect()
}

fn segment(rng: &mut Rng, centre: [f32; 3], len: f32) -> Segment {
    let d = rng.dir();
    let h = 0.5 * len;
    let p0 = core::array::from_fn(|k| centre[k] - h * d[k] as f32);
    let p1 = core::array::from_fn(|k| centre[k] + h * d[k] as f32);
    Segment::new(p0, p1)
}

/// An object in the cube of side `side` around `origin`.
fn new_object(rng: &mut Rng, side: f32, origin: [f32; 3]) -> (Segment, f32) {
    let len = if rng.chance(0.1) {
        0.0
    } else {
        rng.range_f32(0.2, 2.0)
    };
    let r = if rng.chance(0.15) {
        0.0
    } else {
        rng.range_f32(0.05, 0.5)
    };
    let c = rng.cube_f32(side);
    (
        segment(rng, core::array::from_fn(|k| origin[k] + c[k]), len),
        r,
    )
}

fn shifted(s: &Segment, d: [f32; 3]) -> Segment {
    Segment::new(
        core::array::from_fn(|k| s.p0[k] + d[k]),
        core::array::from_fn(|k| s.p1[k] + d[k]),
    )
}

/// One frame on both paths against the model.
fn check_frame(
    scene: &mut Capsules,
    twin: &mut Capsules,
    model: &mut Model,
    previous: &mut Vec<(u32, u32)>,
    ctx: &str,
) {
    let (pairs, contacts, non_finite) = model.brute();
    let swept = model.brute_swept();
    // The set query with per-object radii over the live objects names the same pairs.
    let live: Vec<(u32, Segment, f32)> = model.live().collect();
    let set: Segments = live.iter().map(|o| o.1).collect();
    let radii: Vec<f32> = live.iter().map(|o| o.2).collect();
    let ids = |h: &sets::Hit| (live[h.i as usize].0, live[h.j as usize].0);
    let by_set_query: Vec<(u32, u32)> =
        sets::self_pairs_within(&set, &radii, sets::SharedEndpoints::Keep)
            .iter()
            .map(ids)
            .collect();
    assert_eq!(
        by_set_query, pairs,
        "{ctx}: self_pairs_within with per-object radii"
    );
    let mut frame = Frame::new();
    scene.frame_into(
        Report::CONTACTS | Report::EVENTS | Report::SWEPT,
        &mut frame,
    );
    assert_eq!(frame_swept(&frame), swept, "{ctx}: swept contacts");
    assert_eq!(frame.pairs(), &pairs[..], "{ctx}: pairs");
    assert_eq!(bits(frame.contacts()), bits(&contacts), "{ctx}: contacts");
    assert_eq!(frame.non_finite(), &non_finite[..], "{ctx}: non-finite ids");
    assert_eq!(frame.began(), &diff(&pairs, previous)[..], "{ctx}: began");
    assert_eq!(frame.ended(), &diff(previous, &pairs)[..], "{ctx}: ended");
    // The twin runs on all cores, without events, with swept contacts, and with contacts
    // or without them by the parity of the pair count (both kernels' paths, frame after
    // frame): the same pairs, swept contacts and contacts.
    let report = if pairs.len() % 2 == 0 {
        Report::SWEPT | Report::CONTACTS
    } else {
        Report::SWEPT
    };
    let mut par = Frame::new();
    twin.par_frame_into(report, &mut par);
    assert_eq!(par.pairs(), &pairs[..], "{ctx}: parallel pairs");
    assert_eq!(frame_swept(&par), swept, "{ctx}: parallel swept contacts");
    model.step_done();
    if report.contains(Report::CONTACTS) {
        assert_eq!(
            bits(par.contacts()),
            bits(&contacts),
            "{ctx}: parallel contacts"
        );
    } else {
        assert!(par.contacts().is_empty());
    }
    assert!(par.began().is_empty());
    *previous = pairs;
}

/// Applies one change to the scene, its twin and the model.
fn apply(
    scenes: [&mut Capsules; 2],
    model: &mut Model,
    f: impl Fn(&mut Capsules, &mut Model, bool),
) {
    let [a, b] = scenes;
    f(a, model, true);
    f(b, model, false);
}

fn run(seed: u64) {
    let mut rng = Rng::new(seed);
    let n = 40 + rng.below(160) as usize;
    // Dense enough for many touching pairs; one run in three at UTM-like coordinates, where
    // the input's rounding is coarser than the objects and the rounding margins are tested
    // at their scale, one in three at a moderate offset (coordinates of 1e4-1e5, the
    // rounding between the two), the others at the origin.
    let side = (n as f32).cbrt() * rng.range_f32(0.6, 1.5);
    let origin = match seed % 3 {
        1 => [4.9e6, 4.9e5, 120.0],
        2 => [-3e4, 1e5, 2e3],
        _ => [0.0; 3],
    };
    let around = |c: [f32; 3]| -> [f32; 3] { core::array::from_fn(|k| origin[k] + c[k]) };
    let (mut scene, mut twin, mut model) = (Capsules::new(), Capsules::new(), Model::default());
    for _ in 0..n {
        let (s, r) = new_object(&mut rng, side, origin);
        insert(&mut scene, &mut twin, &mut model, s, r);
    }
    let mut previous = Vec::new();
    for frame in 0..40 {
        let ctx = format!("seed {seed} frame {frame}");
        check_frame(&mut scene, &mut twin, &mut model, &mut previous, &ctx);
        let kind = rng.below(10);
        let bound = scene.id_bound();
        match kind {
            // Small moves of everything, from one slice (flat on the twin).
            0..=3 => {
                let step = rng.range_f32(0.001, 0.2);
                let all: Vec<Segment> = (0..bound)
                    .map(|i| {
                        let d = rng.cube_f32(step);
                        match model.objects[i] {
                            Some((s, _)) => shifted(&s, d),
                            None => Segment::default(),
                        }
                    })
                    .collect();
                scene.set_all(&all).unwrap();
                twin.set_all_flat(bytemuck::cast_slice(&all)).unwrap();
                for (i, s) in all.iter().enumerate() {
                    if let Some((_, r)) = model.objects[i] {
                        model.set(i as u32, Some((*s, r)));
                    }
                }
            }
            // Teleports of a few.
            4 => {
                for (id, _, r) in model.live().collect::<Vec<_>>() {
                    if rng.chance(0.2) {
                        let (s, _) = new_object(&mut rng, side, origin);
                        apply([&mut scene, &mut twin], &mut model, |sc, m, first| {
                            sc.set(id, s).unwrap();
                            if first {
                                m.set(id, Some((s, r)));
                            }
                        });
                    }
                }
            }
            // Objects pile into one small region (one cell).
            5 => {
                let c = around(rng.cube_f32(side));
                for (id, _, r) in model.live().collect::<Vec<_>>() {
                    if rng.chance(0.5) {
                        let d = rng.cube_f32(0.3);
                        let s = segment(&mut rng, core::array::from_fn(|k| c[k] + d[k]), 0.5);
                        apply([&mut scene, &mut twin], &mut model, |sc, m, first| {
                            sc.set(id, s).unwrap();
                            if first {
                                m.set(id, Some((s, r)));
                            }
                        });
                    }
                }
            }
            // Removals and inserts.
            6 => {
                for (id, _, _) in model.live().collect::<Vec<_>>() {
                    if rng.chance(0.15) {
                        let old = model.objects[id as usize];
                        assert_eq!(object_bits(scene.remove(id)), object_bits(old));
                        assert_eq!(object_bits(twin.remove(id)), object_bits(old));
                        model.set(id, None);
                        assert_eq!(
                            scene.set(id, Segment::default()),
                            Err(Error::UnknownId { id })
                        );
                    }
                }
                for _ in 0..rng.below(12) {
                    let (s, r) = new_object(&mut rng, side, origin);
                    insert(&mut scene, &mut twin, &mut model, s, r);
                }
            }
            // NaN objects, and back.
            7 => {
                for (id, s, r) in model.live().collect::<Vec<_>>() {
                    let finite = s.p0.iter().all(|x| x.is_finite());
                    let s = if !finite {
                        new_object(&mut rng, side, origin).0
                    } else if rng.chance(0.1) {
                        Segment::new([f32::NAN, 0.0, 0.0], s.p1)
                    } else if rng.chance(0.05) {
                        Segment::new(s.p0, [f32::INFINITY, 1.0, 1.0])
                    } else {
                        continue;
                    };
                    apply([&mut scene, &mut twin], &mut model, |sc, m, first| {
                        sc.set(id, s).unwrap();
                        if first {
                            m.set(id, Some((s, r)));
                        }
                    });
                }
            }
            // New radii (some zero, some large enough to leave the padded box).
            8 => {
                for (id, s, _) in model.live().collect::<Vec<_>>() {
                    if rng.chance(0.2) {
                        let r = if rng.chance(0.3) {
                            0.0
                        } else {
                            rng.range_f32(0.0, 1.5)
                        };
                        scene.set_radius(id, r).unwrap();
                        twin.set_radius(id, r).unwrap();
                        model.set(id, Some((s, r)));
                    }
                }
            }
            // Everything identical (once in a while), or nothing moves.
            _ => {
                if rng.chance(0.3) {
                    let c = around(rng.cube_f32(side));
                    let s = segment(&mut rng, c, 1.0);
                    for (id, _, r) in model.live().collect::<Vec<_>>() {
                        apply([&mut scene, &mut twin], &mut model, |sc, m, first| {
                            sc.set(id, s).unwrap();
                            if first {
                                m.set(id, Some((s, r)));
                            }
                        });
                    }
                }
            }
        }
    }
    let ctx = format!("seed {seed} last frame");
    check_frame(&mut scene, &mut twin, &mut model, &mut previous, &ctx);
}

/// Inserts `s` of radius `r` into the scene and its twin (which must give it the same id,
/// one not live in the model) and into the model; returns the id.
fn insert(scene: &mut Capsules, twin: &mut Capsules, model: &mut Model, s: Segment, r: f32) -> u32 {
    let id = scene.insert(s, r).unwrap();
    assert_eq!(twin.insert(s, r).unwrap(), id);
    assert!(
        model.objects.get(id as usize).is_none_or(|o| o.is_none()),
        "id {id} is live"
    );
    model.set(id, Some((s, r)));
    model.inserted(id, s);
    id
}

#[test]
fn frames_of_random_motion_equal_brute_force() {
    for seed in 0..segbatch_testkit::sweep(64) as u64 {
        run(seed);
    }
}

/// Thousands of objects, a third of them teleported and the rest moved a little every
/// frame: well over a few hundred dirty objects a frame, so the parallel form finds their
/// pairs on several tasks; both forms against brute force, frame after frame.
#[test]
fn many_dirty_objects_a_frame_equal_brute_force() {
    let mut rng = Rng::new(404);
    let (mut scene, mut twin, mut model) = (Capsules::new(), Capsules::new(), Model::default());
    let (n, side) = (2500, 7.0);
    for _ in 0..n {
        let (s, r) = new_object(&mut rng, side, [0.0; 3]);
        insert(&mut scene, &mut twin, &mut model, s, r);
    }
    let mut previous = Vec::new();
    for frame in 0..4 {
        check_frame(
            &mut scene,
            &mut twin,
            &mut model,
            &mut previous,
            &format!("frame {frame}"),
        );
        assert!(
            previous.len() > 1000,
            "frame {frame}: {} pairs",
            previous.len()
        );
        let all: Vec<Segment> = (0..scene.id_bound())
            .map(|i| {
                let (s, r) = model.objects[i].expect("no removals");
                let s = if rng.chance(0.35) {
                    new_object(&mut rng, side, [0.0; 3]).0
                } else {
                    shifted(&s, rng.cube_f32(0.05))
                };
                model.set(i as u32, Some((s, r)));
                s
            })
            .collect();
        scene.set_all(&all).unwrap();
        twin.set_all(&all).unwrap();
    }
}

/// Pairs of capsules whose radii sum to the kernel's distance (the smallest sum it reports
/// as touching, or one `f32` step below), near the origin and at UTM-like coordinates:
/// skew pairs, and pairs along two axes facing each other across the third, whose tight
/// boxes then meet face to face, so the boxes' and the grid's rounding margins are what
/// keeps them candidates.
#[test]
fn touching_thresholds_near_and_far_from_the_origin() {
    let mut rng = Rng::new(91);
    let (mut scene, mut twin, mut model) = (Capsules::new(), Capsules::new(), Model::default());
    let mut add = |s: Segment, r: f32| insert(&mut scene, &mut twin, &mut model, s, r);
    for i in 0..800 {
        let far = if i % 2 == 0 {
            [4.9e6 + 40.0 * i as f32, 4.9e5 - 25.0 * i as f32, 300.0]
        } else {
            // Where the facing boxes' corners (along y) have fine ulps.
            [40.0 * (i % 20) as f32, 0.5, 40.0 * (i / 20) as f32]
        };
        let (a, b) = if i % 4 < 2 {
            let len = rng.range_f32(0.3, 3.0);
            let a = segment(&mut rng, far, len);
            let step = rng.cube_f32(2.0);
            let len = rng.range_f32(0.3, 3.0);
            (
                a,
                segment(&mut rng, core::array::from_fn(|k| far[k] + step[k]), len),
            )
        } else {
            let [x, y, z] = far;
            let (h, g) = (rng.range_f32(0.2, 1.5), rng.range_f32(0.1, 2.0));
            (
                Segment::new([x - h, y, z], [x + h, y, z]),
                Segment::new([x, y + g, z - h], [x, y + g, z + h]),
            )
        };
        let d2 = reference::closest_points(&a, &b).dist2;
        let ra = d2.sqrt() * rng.range_f32(0.1, 0.9);
        let mut rb = (d2.sqrt() - ra).max(0.0);
        while (ra + rb) * (ra + rb) < d2 {
            rb = rb.next_up();
        }
        while rb > 0.0 && (ra + rb.next_down()) * (ra + rb.next_down()) >= d2 {
            rb = rb.next_down();
        }
        if rng.chance(0.3) {
            rb = rb.next_down().max(0.0);
        }
        add(a, ra);
        add(b, rb);
    }
    let mut previous = Vec::new();
    check_frame(
        &mut scene,
        &mut twin,
        &mut model,
        &mut previous,
        "threshold pairs",
    );
    assert!(previous.len() >= 500, "{} touching pairs", previous.len());
}

#[test]
fn large_and_tiny_objects_equal_brute_force() {
    // A few long objects (kept aside as big ones), far-from-origin coordinates, an
    // infinite radius, and points of radius zero.
    let mut rng = Rng::new(77);
    let (mut scene, mut twin, mut model) = (Capsules::new(), Capsules::new(), Model::default());
    let mut add = |s: Segment, r: f32| insert(&mut scene, &mut twin, &mut model, s, r);
    let far = [1e5f32, -2e5, 3e4];
    for _ in 0..150 {
        let c = rng.cube_f32(6.0);
        let c = core::array::from_fn(|k| far[k] + c[k]);
        let len = rng.range_f32(0.1, 1.0);
        let s = segment(&mut rng, c, len);
        add(s, rng.range_f32(0.0, 0.3));
    }
    for _ in 0..4 {
        let s = segment(&mut rng, far, 40.0);
        add(s, 0.1);
    }
    for _ in 0..20 {
        let c = rng.cube_f32(6.0);
        add(Segment::new(c, c), 0.0);
    }
    add(Segment::new([0.0; 3], [1.0, 0.0, 0.0]), f32::INFINITY);
    let mut previous = Vec::new();
    for frame in 0..10 {
        check_frame(
            &mut scene,
            &mut twin,
            &mut model,
            &mut previous,
            &format!("frame {frame}"),
        );
        let all: Vec<Segment> = (0..scene.id_bound())
            .map(|i| {
                let (s, _) = model.objects[i].unwrap();
                shifted(&s, rng.cube_f32(0.5))
            })
            .collect();
        scene.set_all(&all).unwrap();
        twin.set_all(&all).unwrap();
        for (i, s) in all.into_iter().enumerate() {
            let r = model.objects[i].unwrap().1;
            model.set(i as u32, Some((s, r)));
        }
    }
}

/// Fast, thin capsules among thin walls (bullets 50-150 radii a step), some members NaN:
/// `Report::SWEPT` over three steps equals brute force over the swept reference, bit for
/// bit, sequential and parallel on 1, 2, 3 and 7 threads; no pair the `f64` oracle finds
/// touching is missing, and none is reported after the oracle's first contact.
#[test]
fn swept_thin_fast_scene_at_any_thread_count() {
    use segbatch_testkit::swept::{first_below, thin_fast_scene};
    let steps = 3;
    let sc = thin_fast_scene(500, steps, 21);
    let mut frames: Vec<Vec<Segment>> = vec![sc.sweeps[0].iter().map(|s| s.start).collect()];
    frames.extend(
        sc.sweeps
            .iter()
            .map(|s| s.iter().map(|x| x.end).collect::<Vec<_>>()),
    );
    for f in &mut frames[1..] {
        for k in (5..f.len()).step_by(83) {
            f[k].p1[k % 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][k % 3];
        }
    }
    let radii = &sc.radii[..];
    let pools: Vec<rayon::ThreadPool> = [1, 2, 3, 7]
        .iter()
        .map(|&n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
        .collect();
    let mut scene = Capsules::with_capacity(radii.len());
    scene.insert_all(&frames[0], radii).unwrap();
    let mut twins: Vec<Capsules> = pools
        .iter()
        .map(|_| {
            let mut twin = Capsules::new();
            twin.insert_all(&frames[0], radii).unwrap();
            twin
        })
        .collect();
    let mut frame = Frame::new();
    scene.frame_into(Report::SWEPT, &mut frame);
    for (twin, pool) in twins.iter_mut().zip(&pools) {
        pool.install(|| twin.par_frame_into(Report::SWEPT, &mut Frame::new()));
    }
    let mut oracle_hits = 0;
    for step in 1..=steps {
        let (from, to) = (&frames[step - 1], &frames[step]);
        scene.set_all(to).unwrap();
        scene.frame_into(Report::SWEPT, &mut frame);
        let got = frame_swept(&frame);
        let mut want = Vec::new();
        for i in 0..radii.len() {
            let a = motion::Sweep::new(from[i], to[i]);
            for j in i + 1..radii.len() {
                let b = motion::Sweep::new(from[j], to[j]);
                let c = reference::first_contact_capsules(&a, radii[i], &b, radii[j]);
                if c.hit {
                    want.push((i as u32, j as u32, swept_bits(&c)));
                }
                // The oracle, on the pairs of finite sweeps (well below the radii, so
                // rounding cannot decide it).
                let r = f64::from(radii[i]) + f64::from(radii[j]);
                let finite = [from[i], to[i], from[j], to[j]]
                    .iter()
                    .all(|s| s.p0.iter().chain(&s.p1).all(|x| x.is_finite()));
                if finite && let Some(t) = first_below(&a, &b, r * 0.99, 0.0, 1.0) {
                    oracle_hits += 1;
                    assert!(
                        c.hit && f64::from(c.t) <= t,
                        "step {step}, ({i}, {j}): {c:?}, oracle {t}"
                    );
                }
            }
        }
        assert_eq!(got, want, "step {step}: sequential");
        assert!(!want.is_empty());
        for (twin, pool) in twins.iter_mut().zip(&pools) {
            twin.set_all(to).unwrap();
            let mut par = Frame::new();
            pool.install(|| twin.par_frame_into(Report::SWEPT, &mut par));
            assert_eq!(
                frame_swept(&par),
                want,
                "step {step}, {} threads",
                pool.current_num_threads()
            );
        }
    }
    assert!(oracle_hits > 0);
}

#[test]
fn bad_input_is_refused() {
    let mut scene = Capsules::new();
    let s = Segment::new([0.0; 3], [1.0, 0.0, 0.0]);
    assert_eq!(
        scene.insert(s, -1.0),
        Err(Error::InvalidRadius { index: None })
    );
    assert_eq!(
        scene.insert(s, f32::NAN),
        Err(Error::InvalidRadius { index: None })
    );
    let id = scene.insert(s, 0.5).unwrap();
    assert_eq!(
        scene.set_radius(id, -0.5),
        Err(Error::InvalidRadius { index: None })
    );
    assert_eq!(scene.set(7, s), Err(Error::UnknownId { id: 7 }));
    assert_eq!(
        Error::UnknownId { id: 7 }.to_string(),
        "object id 7 names no object of the set"
    );
    assert!(matches!(
        scene.set_all(&[s, s]),
        Err(Error::LengthMismatch { .. })
    ));
    assert_eq!(
        scene.set_all_flat(&[0.0; 7]),
        Err(Error::NotWholeRecords {
            len: 7,
            per_record: 6
        })
    );
    assert_eq!(scene.get(id), Some((s, 0.5)));
    // A removed id is given out again only after the next frame.
    assert_eq!(scene.remove(id), Some((s, 0.5)));
    assert_eq!(scene.remove(id), None);
    let other = scene.insert(s, 0.5).unwrap();
    assert_ne!(other, id);
    let _ = scene.frame(Report::empty());
    assert_eq!(scene.insert(s, 0.5), Ok(id));
    assert_eq!(scene.len(), 2);
}

#[test]
fn bulk_inserts_equal_single_inserts() {
    let mut rng = Rng::new(91);
    let objects: Vec<(Segment, f32)> = (0..300)
        .map(|_| new_object(&mut rng, 6.0, [0.0; 3]))
        .collect();
    let (segments, radii): (Vec<Segment>, Vec<f32>) = objects.iter().copied().unzip();
    // Two scenes with the same history of removals, so ids are reused: one inserts one
    // by one, the other in bulk; every id, object and frame agrees.
    let mut single = Capsules::new();
    let mut bulk = Capsules::with_capacity(40);
    for scene in [&mut single, &mut bulk] {
        for &(s, r) in &objects[..40] {
            scene.insert(s, r).unwrap();
        }
        for id in [3, 17, 5] {
            scene.remove(id).unwrap();
        }
        let _ = scene.frame(Report::empty());
        scene.remove(30).unwrap(); // freed in this frame: not reused before the next
    }
    let want: Vec<u32> = objects[40..]
        .iter()
        .map(|&(s, r)| single.insert(s, r).unwrap())
        .collect();
    let got = bulk.insert_all(&segments[40..], &radii[40..]).unwrap();
    assert_eq!(got, want);
    assert_eq!(&got[..3], &[3, 5, 17]); // the removed ids first, smallest first
    assert_eq!(bulk.len(), single.len());
    for id in 0..single.id_bound() as u32 {
        assert_eq!(bulk.get(id), single.get(id), "object {id}");
    }
    let (a, b) = (single.frame(Report::CONTACTS), bulk.frame(Report::CONTACTS));
    assert_eq!(a.pairs(), b.pairs());
    assert_eq!(bits(a.contacts()), bits(b.contacts()));
    // One radius for all.
    let mut one = Capsules::new();
    assert_eq!(one.insert_all(&segments[..3], 0.25), Ok(vec![0, 1, 2]));
    assert!((0..3).all(|id| one.get(id).unwrap().1 == 0.25));
}

#[test]
fn bulk_inserts_refuse_bad_input_whole() {
    let s = Segment::new([0.0; 3], [1.0, 0.0, 0.0]);
    let mut scene = Capsules::new();
    scene.insert(s, 1.0).unwrap();
    let refused = [
        (
            scene.insert_all(&[s, s, s], &[0.5, f32::NAN, -1.0][..]),
            Error::InvalidRadius { index: Some(1) },
        ),
        (
            scene.insert_all(&[s, s], -0.5),
            Error::InvalidRadius { index: None },
        ),
    ];
    for (got, want) in refused {
        assert_eq!(got, Err(want));
    }
    assert!(matches!(
        scene.insert_all(&[s, s], &[0.5][..]),
        Err(Error::LengthMismatch { .. })
    ));
    let sides = Radius::Sides(&[0.5, 0.5], &[0.5, 0.5]);
    assert!(matches!(
        scene.insert_all(&[s, s], sides),
        Err(Error::LengthMismatch { .. })
    ));
    // Nothing was inserted by the refused calls.
    assert_eq!((scene.len(), scene.id_bound()), (1, 1));
    assert_eq!(scene.insert_all(&[s; 0], 0.5), Ok(vec![]));
    scene.reserve(1000);
    assert_eq!(
        scene.insert_all(&[[[0.0; 3], [0.0, 1.0, 0.0]]], 0.5),
        Ok(vec![1])
    );
    assert_eq!(
        scene.get(1),
        Some((Segment::new([0.0; 3], [0.0, 1.0, 0.0]), 0.5))
    );
}

/// Near-parallel capsule pairs, overlapping or not, at angles around the manifold's limit.
fn near_parallel(rng: &mut Rng) -> (Segment, Segment, f32, f32) {
    let (c, len) = (rng.cube_f32(2.0), rng.range_f32(0.5, 3.0));
    let a = segment(rng, c, len);
    let d = a.direction();
    let angle =
        rng.pick(&[0.0, 1e-4, 5e-3, 9.9e-3, 1.01e-2, 0.05]) as f32 * rng.range_f32(0.5, 1.5);
    let tilt = rng.cube_f32(angle);
    let off = rng.cube_f32(0.6);
    let shift = rng.range_f32(-1.2, 1.2);
    let len = rng.range_f32(0.0, 1.5);
    let b0: [f32; 3] = core::array::from_fn(|k| a.p0[k] + shift * d[k] + off[k]);
    let b1 = core::array::from_fn(|k| {
        b0[k] + len * (d[k] + tilt[k] * d.iter().map(|x| x.abs()).sum::<f32>())
    });
    (
        a,
        Segment::new(b0, b1),
        rng.range_f32(0.0, 0.4),
        rng.range_f32(0.0, 0.4),
    )
}

#[test]
fn manifolds_equal_the_reference() {
    let mut rng = Rng::new(5);
    let (mut a, mut b, mut ra, mut rb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..4000 {
        let (x, y, p, q) = if k % 4 == 0 {
            let (s, r) = new_object(&mut rng, 3.0, [0.0; 3]);
            let (t, q) = new_object(&mut rng, 3.0, [0.0; 3]);
            (s, t, r, q)
        } else {
            near_parallel(&mut rng)
        };
        a.push(x);
        b.push(y);
        ra.push(p);
        rb.push(q);
    }
    let (sa, sb) = (Segments::from(&a), Segments::from(&b));
    let pairs: Vec<(u32, u32)> = (0..a.len() as u32).map(|k| (k, k)).collect();
    let radii = Radii::per_object(&ra, &rb).unwrap();
    let got = capsule_contacts(&sa, &sb, &pairs, radii);
    assert_eq!(got, par_capsule_contacts(&sa, &sb, &pairs, radii));
    let mut want = Vec::new();
    for k in 0..a.len() {
        let m = reference::capsule_contact(&a[k], ra[k], &b[k], rb[k]);
        let k = k as u32;
        want.extend(m.into_iter().flatten().map(|c| CapsuleContact {
            pair: k,
            i: k,
            j: k,
            ..c
        }));
    }
    assert_eq!(got, want);
    let twos = (0..a.len() as u32)
        .filter(|&k| got.iter().filter(|c| c.pair == k).count() == 2)
        .count();
    assert!(twos > 300, "{twos} two-point manifolds");
    // Two points share the normal, have non-negative depth, and sit at the ends of the
    // overlap (different points).
    for w in got.windows(2) {
        if w[0].pair == w[1].pair {
            assert_eq!(w[0].normal, w[1].normal);
            assert!(w[0].depth >= 0.0 && w[1].depth >= 0.0);
            assert_ne!(w[0].point_a, w[1].point_a);
        }
    }
    // (i, i) of one set is never a contact.
    assert!(
        capsule_contacts(
            &sa,
            &sa,
            &[(0, 0), (1, 1)],
            Radii::uniform(1.0, 1.0).unwrap()
        )
        .is_empty()
    );
}
