//! The API's one rule, query by query: every batched query's four forms (`q`, `q_into`,
//! `par_q`, `par_q_into`) and the streamed and index forms, each called once on small
//! batches, give the same results, and the results are their scalar reference's. One test
//! a module of the API table (`pairs`, `sets`, `motion`, `planar`, the `f64` forms), plus
//! the tour of the set queries: a path folding back on itself, sight rays against walls,
//! crossing streets.
//!
//! Every test calls the parallel forms, so the file needs the `rayon` feature (on by
//! default).
#![cfg(feature = "rayon")]

use segbatch::motion::*;
use segbatch::pairs::*;
use segbatch::planar::*;
use segbatch::sets::*;
use segbatch::*;

/// Nine copies of one segment on each side, one unit apart at right angles.
fn sides() -> (Segments, Segments) {
    let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]); 9]);
    let b = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]); 9]);
    (a, b)
}

/// The two tracks of the motion queries.
fn tracks() -> Result<(Tracks, Tracks), Error> {
    Ok((Tracks::from_flat(&[0.0; 6])?, Tracks::from_flat(&[1.0; 6])?))
}

/// The two 2D batches of one pair each (the 2D tutorial's crossing pair).
fn planar_sides() -> (Segments2, Segments2) {
    let a2 = Segments2::from(&[Segment2::new([4.0, 7.0], [16.0, 3.0])]);
    let b2 = Segments2::from(&[Segment2::new([1.0, 1.0], [17.0, 5.0])]);
    (a2, b2)
}

#[test]
fn pairwise_forms() -> Result<(), Error> {
    let (a, b) = sides();
    let (one, opts) = (a.get(0).unwrap(), Options::SEGMENTS);
    let mut out = ClosestBatch::new();
    // closest points
    let c = closest_points(&a, &b);
    closest_points_into(&a, &b, &opts, Outputs::ALL, &mut out)?;
    assert_eq!(out, c);
    assert_eq!(par_closest_points(&a, &b), c);
    par_closest_points_into(&a, &b, &opts, Outputs::ALL, &mut out)?;
    assert_eq!(
        c.get(3),
        Some(reference::closest_points(&one, &b.get(3).unwrap()))
    );
    // one to many
    let m = closest_points_one_to_many(&one, &b);
    closest_points_one_to_many_into(&one, &b, &opts, Outputs::ALL, &mut out)?;
    assert_eq!((&par_closest_points_one_to_many(&one, &b), &out), (&m, &m));
    par_closest_points_one_to_many_into(&one, &b, &opts, Outputs::ALL, &mut out)?;
    // capsules
    let radii = Radii::uniform(0.5, 0.5)?;
    let mut mask = PairMask::new();
    let touch = capsules_touch(&a, &b, radii);
    capsules_touch_into(&a, &b, radii, &opts, &mut mask)?;
    assert_eq!(
        (&par_capsules_touch(&a, &b, radii), &mask),
        (&touch, &touch)
    );
    par_capsules_touch_into(&a, &b, radii, &opts, &mut mask)?;
    assert_eq!(touch.count_ones(), 9);
    // index pairs
    let pairs = [(0, 8), (3, 3)];
    let ci = closest_points_indexed(&a, &b, &pairs);
    closest_points_indexed_into(&a, &b, &pairs, &opts, Outputs::ALL, &mut out)?;
    assert_eq!(
        (&par_closest_points_indexed(&a, &b, &pairs), &out),
        (&ci, &ci)
    );
    par_closest_points_indexed_into(&a, &b, &pairs, &opts, Outputs::ALL, &mut out)?;
    assert_eq!(
        ci.get(0),
        Some(reference::closest_points(&one, &b.get(8).unwrap()))
    );
    let ti = capsules_touch_indexed(&a, &b, &pairs, radii);
    capsules_touch_indexed_into(&a, &b, &pairs, radii, &opts, &mut mask)?;
    assert_eq!(
        (&par_capsules_touch_indexed(&a, &b, &pairs, radii), &mask),
        (&ti, &ti)
    );
    par_capsules_touch_indexed_into(&a, &b, &pairs, radii, &opts, &mut mask)?;
    let mut touching = Vec::new();
    let k = capsule_contacts(&a, &b, &pairs, radii);
    capsule_contacts_into(&a, &b, &pairs, radii, &opts, &mut touching)?;
    assert_eq!(
        (&par_capsule_contacts(&a, &b, &pairs, radii), &touching),
        (&k, &k)
    );
    par_capsule_contacts_into(&a, &b, &pairs, radii, &opts, &mut touching)?;
    assert_eq!(
        (k.len(), k[0].normal, k[0].depth),
        (2, [0.0, -1.0, 0.0], 0.0)
    );
    Ok(())
}

#[test]
fn set_forms() -> Result<(), Error> {
    let (a, b) = sides();
    let opts = Options::SEGMENTS;
    // matrix
    let mut matrix = Vec::new();
    let d = dist2_matrix(&a, &b);
    dist2_matrix_into(&a, &b, &opts, &mut matrix)?;
    assert_eq!((&par_dist2_matrix(&a, &b), &matrix), (&d, &d));
    par_dist2_matrix_into(&a, &b, &opts, &mut matrix)?;
    // pairs within a radius
    let mut hits = Vec::new();
    let p = pairs_within(&a, &b, 1.0);
    pairs_within_into(&a, &b, 1.0, &opts, &mut hits)?;
    assert_eq!(
        (&par_pairs_within(&a, &b, 1.0), &hits, p.len()),
        (&p, &p, 81)
    );
    par_pairs_within_into(&a, &b, 1.0, &opts, &mut hits)?;
    // pairs within one set
    let keep = SharedEndpoints::Keep;
    let q = self_pairs_within(&a, 0.0, keep);
    self_pairs_within_into(&a, 0.0, keep, &opts, &mut hits)?;
    assert_eq!(
        (&par_self_pairs_within(&a, 0.0, keep), &hits, q.len()),
        (&q, &q, 36)
    );
    par_self_pairs_within_into(&a, 0.0, keep, &opts, &mut hits)?;
    // streamed pairs within a radius
    let mut streamed = Vec::new();
    for_each_pair_within(&a, &b, 1.0, &opts, |x| streamed.extend_from_slice(x))?;
    par_for_each_pair_within(&a, &b, 1.0, &opts, |x| streamed.extend_from_slice(x))?;
    for_each_self_pair_within(&a, 0.0, keep, &opts, |x| streamed.extend_from_slice(x))?;
    par_for_each_self_pair_within(&a, 0.0, keep, &opts, |x| streamed.extend_from_slice(x))?;
    assert_eq!(streamed.len(), 2 * 81 + 2 * 36);
    // the static index
    let index = SegmentIndex::new(&b)?;
    let rays = Segments::from(&[Segment::new([1.0, 5.0, 0.0], [1.0, 4.0, 0.0])]);
    let fh = index.first_hits(&rays, 0.5, 10.0)?;
    assert_eq!(fh, index.par_first_hits(&rays, 0.5, 10.0)?);
    let wall = b.get(0).unwrap();
    let h = reference::first_hit(&rays.get(0).unwrap(), 0.5, 10.0, &wall).unwrap();
    assert_eq!(fh[0].map(|x| (x.u, x.point)), Some((h.u, h.point)));
    assert_eq!(index.pairs_within(&a, 1.0)?, p);
    assert_eq!(index.par_pairs_within(&a, 1.0)?, p);
    Ok(())
}

#[test]
fn motion_forms() -> Result<(), Error> {
    let (a, b) = sides();
    let one = a.get(0).unwrap();
    let radii = Radii::uniform(0.5, 0.5)?;
    // closest approach of tracks and of steps
    let (ta, tb) = tracks()?;
    let mut cpa_out = CpaBatch::new();
    let x = cpa(&ta, &tb, Window::STEP);
    cpa_into(&ta, &tb, Window::STEP, &mut cpa_out)?;
    assert_eq!((&par_cpa(&ta, &tb, Window::STEP), &cpa_out), (&x, &x));
    par_cpa_into(&ta, &tb, Window::STEP, &mut cpa_out)?;
    let window = Window::STEP;
    let (t0, t1) = (ta.get(0).unwrap(), tb.get(0).unwrap());
    assert_eq!(x.get(0), Some(reference::cpa(&t0, &t1, window)));
    let y = cpa(&a, &b, Window::STEP);
    cpa_into(&a, &b, Window::STEP, &mut cpa_out)?;
    assert_eq!((&par_cpa(&a, &b, Window::STEP), &cpa_out), (&y, &y));
    par_cpa_into(&a, &b, Window::STEP, &mut cpa_out)?;
    assert_eq!(
        y.get(0),
        Some(reference::cpa(&one, &b.get(0).unwrap(), Window::STEP))
    );
    // first contact of tracks and of steps
    let mut contacts = ContactBatch::new();
    let f = first_contact(&ta, &tb, radii, window);
    first_contact_into(&ta, &tb, radii, window, &mut contacts)?;
    assert_eq!(
        (&par_first_contact(&ta, &tb, radii, window), &contacts),
        (&f, &f)
    );
    par_first_contact_into(&ta, &tb, radii, window, &mut contacts)?;
    assert_eq!(
        f.get(0),
        Some(reference::first_contact(&t0, 0.5, &t1, 0.5, window))
    );
    let g = first_contact(&a, &b, radii, Window::STEP);
    first_contact_into(&a, &b, radii, Window::STEP, &mut contacts)?;
    assert_eq!(
        (&par_first_contact(&a, &b, radii, Window::STEP), &contacts),
        (&g, &g)
    );
    par_first_contact_into(&a, &b, radii, Window::STEP, &mut contacts)?;
    let b0 = b.get(0).unwrap();
    assert_eq!(
        g.get(0),
        Some(reference::first_contact(&one, 0.5, &b0, 0.5, Window::STEP))
    );
    Ok(())
}

#[test]
fn planar_forms() -> Result<(), Error> {
    let (a2, b2) = planar_sides();
    let keep = SharedEndpoints::Keep;
    let mut crossings = Intersections2::new();
    let i2 = intersect2(&a2, &b2);
    intersect2_into(&a2, &b2, &mut crossings)?;
    assert_eq!((&par_intersect2(&a2, &b2), &crossings), (&i2, &i2));
    par_intersect2_into(&a2, &b2, &mut crossings)?;
    let (s2, t2) = (a2.get(0).unwrap(), b2.get(0).unwrap());
    assert_eq!(i2.get(0), Some(reference::intersect2(&s2, &t2)));
    // 2D sets and index pairs
    let mut crossed = Vec::new();
    let x2 = crossing_pairs(&a2);
    crossing_pairs_into(&a2, keep, &mut crossed)?;
    assert_eq!((&par_crossing_pairs(&a2), &crossed), (&x2, &x2));
    par_crossing_pairs_into(&a2, keep, &mut crossed)?;
    for_each_crossing_pair(&a2, keep, |x| crossed.extend_from_slice(x))?;
    par_for_each_crossing_pair(&a2, keep, |x| crossed.extend_from_slice(x))?;
    let ii = intersect2_indexed(&a2, &b2, &[(0, 0)]);
    intersect2_indexed_into(&a2, &b2, &[(0, 0)], &mut crossings)?;
    assert_eq!(
        (&par_intersect2_indexed(&a2, &b2, &[(0, 0)]), &crossings),
        (&ii, &i2)
    );
    par_intersect2_indexed_into(&a2, &b2, &[(0, 0)], &mut crossings)?;
    Ok(())
}

#[test]
fn f64_forms() -> Result<(), Error> {
    let (a, b) = sides();
    let opts = Options::SEGMENTS;
    let wide = |s: Segment| Segment64::new(s.p0.map(f64::from), s.p1.map(f64::from));
    let a64: Segments64 = a.iter().map(wide).collect();
    let b64: Segments64 = b.iter().map(wide).collect();
    let mut out64 = ClosestBatch64::new();
    let c64 = closest_points(&a64, &b64);
    closest_points_into(&a64, &b64, &opts, Outputs::ALL, &mut out64)?;
    assert_eq!((&par_closest_points(&a64, &b64), &out64), (&c64, &c64));
    par_closest_points_into(&a64, &b64, &opts, Outputs::ALL, &mut out64)?;
    let (x, y) = (a64.get(3).unwrap(), b64.get(3).unwrap());
    assert_eq!(c64.get(3), Some(reference::closest_points(&x, &y)));
    let m64 = closest_points_one_to_many(&x, &b64);
    closest_points_one_to_many_into(&x, &b64, &opts, Outputs::ALL, &mut out64)?;
    assert_eq!(
        (&par_closest_points_one_to_many(&x, &b64), &out64),
        (&m64, &m64)
    );
    par_closest_points_one_to_many_into(&x, &b64, &opts, Outputs::ALL, &mut out64)?;
    let mut hits64 = Vec::new();
    let p64 = pairs_within(&a64, &b64, 1.0);
    pairs_within_into(&a64, &b64, 1.0, &opts, &mut hits64)?;
    assert_eq!((&par_pairs_within(&a64, &b64, 1.0), &hits64), (&p64, &p64));
    par_pairs_within_into(&a64, &b64, 1.0, &opts, &mut hits64)?;
    let keep = SharedEndpoints::Keep;
    let q64 = self_pairs_within(&a64, 1.0, keep);
    self_pairs_within_into(&a64, 1.0, keep, &opts, &mut hits64)?;
    assert_eq!(
        (&par_self_pairs_within(&a64, 1.0, keep), &hits64),
        (&q64, &q64)
    );
    par_self_pairs_within_into(&a64, 1.0, keep, &opts, &mut hits64)?;
    let (ta64, tb64) = (
        Tracks64::from_flat(&[0.0; 6])?,
        Tracks64::from_flat(&[1.0; 6])?,
    );
    let mut cpa64_out = CpaBatch::<f64>::new();
    let x64 = cpa(&ta64, &tb64, Window64::STEP);
    cpa_into(&ta64, &tb64, Window64::STEP, &mut cpa64_out)?;
    assert_eq!(
        (&par_cpa(&ta64, &tb64, Window64::STEP), &cpa64_out),
        (&x64, &x64)
    );
    par_cpa_into(&ta64, &tb64, Window64::STEP, &mut cpa64_out)?;
    let (u, v) = (ta64.get(0).unwrap(), tb64.get(0).unwrap());
    assert_eq!(x64.get(0), Some(reference::cpa(&u, &v, Window64::STEP)));
    let y64 = cpa(&a64, &b64, Window::STEP);
    cpa_into(&a64, &b64, Window::STEP, &mut cpa64_out)?;
    assert_eq!(
        (&par_cpa(&a64, &b64, Window::STEP), &cpa64_out),
        (&y64, &y64)
    );
    par_cpa_into(&a64, &b64, Window::STEP, &mut cpa64_out)?;
    assert_eq!(y64.get(3), Some(reference::cpa(&x, &y, Window::STEP)));
    let r64 = Radii64::uniform(0.5, 0.5)?;
    let (mut mask64, ij) = (PairMask::new(), [(0, 1), (2, 2)]);
    let t64 = capsules_touch(&a64, &b64, r64);
    capsules_touch_into(&a64, &b64, r64, &opts, &mut mask64)?;
    assert_eq!(
        (&par_capsules_touch(&a64, &b64, r64), &mask64),
        (&t64, &t64)
    );
    par_capsules_touch_into(&a64, &b64, r64, &opts, &mut mask64)?;
    let ix64 = closest_points_indexed(&a64, &b64, &ij);
    closest_points_indexed_into(&a64, &b64, &ij, &opts, Outputs::ALL, &mut out64)?;
    assert_eq!(
        (&par_closest_points_indexed(&a64, &b64, &ij), &out64),
        (&ix64, &ix64)
    );
    par_closest_points_indexed_into(&a64, &b64, &ij, &opts, Outputs::ALL, &mut out64)?;
    let ti64 = capsules_touch_indexed(&a64, &b64, &ij, r64);
    capsules_touch_indexed_into(&a64, &b64, &ij, r64, &opts, &mut mask64)?;
    assert_eq!(
        (&par_capsules_touch_indexed(&a64, &b64, &ij, r64), &mask64),
        (&ti64, &ti64)
    );
    par_capsules_touch_indexed_into(&a64, &b64, &ij, r64, &opts, &mut mask64)?;
    let mut k64 = Vec::new();
    let cc64 = capsule_contacts(&a64, &b64, &ij, r64);
    capsule_contacts_into(&a64, &b64, &ij, r64, &opts, &mut k64)?;
    assert_eq!(
        (&par_capsule_contacts(&a64, &b64, &ij, r64), &k64),
        (&cc64, &cc64)
    );
    par_capsule_contacts_into(&a64, &b64, &ij, r64, &opts, &mut k64)?;
    let want = reference::capsule_contact(&x, 0.5, &b64.get(1).unwrap(), 0.5)[0].unwrap();
    assert_eq!(cc64[0].depth, want.depth);
    let mut fc64 = ContactBatch::<f64>::new();
    let f64c = first_contact(&ta64, &tb64, r64, Window64::STEP);
    first_contact_into(&ta64, &tb64, r64, Window64::STEP, &mut fc64)?;
    assert_eq!(
        (&par_first_contact(&ta64, &tb64, r64, Window64::STEP), &fc64),
        (&f64c, &f64c)
    );
    par_first_contact_into(&ta64, &tb64, r64, Window64::STEP, &mut fc64)?;
    assert_eq!(
        f64c.get(0),
        Some(reference::first_contact(&u, 0.5, &v, 0.5, Window64::STEP))
    );
    let s64c = first_contact(&a64, &b64, r64, Window::STEP);
    first_contact_into(&a64, &b64, r64, Window::STEP, &mut fc64)?;
    assert_eq!(
        (&par_first_contact(&a64, &b64, r64, Window::STEP), &fc64),
        (&s64c, &s64c)
    );
    par_first_contact_into(&a64, &b64, r64, Window::STEP, &mut fc64)?;
    assert_eq!(
        s64c.get(3),
        Some(reference::first_contact(&x, 0.5, &y, 0.5, Window::STEP))
    );
    let mut d64 = Vec::new();
    let dm64 = dist2_matrix(&a64, &b64);
    dist2_matrix_into(&a64, &b64, &opts, &mut d64)?;
    assert_eq!((&par_dist2_matrix(&a64, &b64), &d64), (&dm64, &dm64));
    par_dist2_matrix_into(&a64, &b64, &opts, &mut d64)?;
    Ok(())
}

/// A path that folds back close to its own start, walls indexed once against sight rays,
/// and the crossings of street pieces.
#[test]
fn set_tour() -> Result<(), Error> {
    // All pairs within 0.5, except the consecutive pieces that touch by construction.
    let path = Segments::from(&[
        Segment::new([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]),
        Segment::new([4.0, 0.0, 0.0], [4.0, 2.0, 0.0]),
        Segment::new([4.0, 2.0, 0.0], [1.0, 0.25, 0.0]),
    ]);
    let near = self_pairs_within(&path, 0.5, SharedEndpoints::Skip);
    assert_eq!((near[0].i, near[0].j, near[0].dist2), (0, 2, 0.0625));
    // Walls indexed once; sight rays of radius 0.5 and range 10 against them.
    let walls = Segments::from(&[Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0])]);
    let index = SegmentIndex::new(&walls)?;
    let rays = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    assert_eq!(
        index.first_hits(&rays, 0.5, 10.0)?[0].map(|h| h.u),
        Some(4.5)
    );
    // 2D: the crossings of a set of street pieces.
    let streets = Segments2::from(&[
        Segment2::new([0.0, 0.0], [4.0, 0.0]),
        Segment2::new([2.0, -1.0], [2.0, 1.0]),
    ]);
    assert_eq!(crossing_pairs(&streets).len(), 1);
    Ok(())
}
