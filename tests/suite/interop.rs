//! The glam and mint conversions: round trips, and batches built from glam and mint slices
//! equal to the same batches built from `Segment`s (so every query sees the same data). The
//! glam tests are written once and run for every glam version whose feature is on.
#![cfg(any(feature = "glam033", feature = "glam034", feature = "mint"))]

use segbatch::pairs::rows;
use segbatch::planar::{Segment2, Segments2};
use segbatch::scenes::{Capsules, Report};
use segbatch::{Segment, Segments};

fn sample() -> Vec<Segment> {
    (0..21)
        .map(|k| {
            let x = k as f32;
            Segment::new([x, -x, 0.5 * x], [1.0 - x, 2.0 * x, -3.0])
        })
        .collect()
}

/// Two scenes hold the same objects and give the same frame.
fn assert_scenes_equal(a: &mut Capsules, b: &mut Capsules) {
    assert_eq!(a.id_bound(), b.id_bound());
    for id in 0..a.id_bound() as u32 {
        assert_eq!(a.get(id), b.get(id));
    }
    let (fa, fb) = (a.frame(Report::CONTACTS), b.frame(Report::CONTACTS));
    assert_eq!(fa.pairs(), fb.pairs());
    assert!(!fa.pairs().is_empty());
}

/// The glam tests for one glam version: `glam_tests!(glam crate)`.
#[cfg(any(feature = "glam033", feature = "glam034"))]
macro_rules! glam_tests {
    ($glam:ident) => {
        mod $glam {
            use super::*;
            use ::$glam::{Vec2, Vec3, Vec3A};
            use segbatch::closest_points;

            #[test]
            fn glam_segments_round_trip_and_batches_match() {
                let segments = sample();
                let v3: Vec<[Vec3; 2]> = segments.iter().map(|&s| s.into()).collect();
                let v3a: Vec<[Vec3A; 2]> = segments.iter().map(|&s| s.into()).collect();
                for ((s, a), b) in segments.iter().zip(&v3).zip(&v3a) {
                    assert_eq!(Segment::from(*a), *s);
                    assert_eq!(Segment::from(*b), *s);
                    assert_eq!(a[1], Vec3::from(s.p1));
                    assert_eq!(b[0], Vec3A::from(s.p0));
                }
                let want = Segments::from(&segments);
                assert_eq!(Segments::from(&v3[..]), want);
                assert_eq!(Segments::from(&v3a[..]), want);
            }

            #[test]
            fn glam_positions_move_a_scene() {
                let segments = sample();
                let mut v3: Vec<[Vec3; 2]> = segments.iter().map(|&s| s.into()).collect();
                let v3a: Vec<[Vec3A; 2]> = segments.iter().map(|&s| s.into()).collect();
                let (mut engine, mut twin) = (Capsules::new(), Capsules::new());
                assert_eq!(engine.insert_all(&v3, 0.5), twin.insert_all(&segments, 0.5));
                assert_scenes_equal(&mut engine, &mut twin);
                for (k, p) in v3.iter_mut().enumerate() {
                    p[1] += Vec3::splat(0.25 * k as f32);
                }
                let moved: Vec<Segment> = v3.iter().map(|&p| p.into()).collect();
                engine.set_all(&v3).unwrap();
                twin.set_all(&moved).unwrap();
                assert_scenes_equal(&mut engine, &mut twin);
                engine.set_all(&v3a).unwrap();
                twin.set_all(&segments).unwrap();
                assert_scenes_equal(&mut engine, &mut twin);
                assert!(engine.set_all(&v3[1..]).is_err());
                // One at a time, from the same types.
                let (mut one, mut twin) = (Capsules::with_capacity(v3.len()), Capsules::new());
                one.reserve(4);
                for (p, s) in v3a.iter().zip(&segments) {
                    assert_eq!(one.insert(*p, 0.5), twin.insert(*s, 0.5));
                }
                for (id, (p, s)) in v3.iter().zip(&moved).enumerate() {
                    one.set(id as u32, *p).unwrap();
                    twin.set(id as u32, *s).unwrap();
                }
                assert_scenes_equal(&mut one, &mut twin);
            }

            #[test]
            fn glam_2d_and_results_as_vectors() {
                let pairs = [[Vec2::new(4.0, 7.0), Vec2::new(16.0, 3.0)]];
                let batch = Segments2::from(&pairs[..]);
                assert_eq!(batch.get(0), Some(Segment2::new([4.0, 7.0], [16.0, 3.0])));
                let back: [Vec2; 2] = batch.get(0).unwrap().into();
                assert_eq!(back, pairs[0]);

                let a = Segments::from(&sample());
                let b = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]); 21]);
                let out = closest_points(&a, &b);
                let pa: Vec<Vec3A> = rows(out.point_a()).collect();
                assert_eq!(pa.len(), 21);
                for (i, p) in pa.iter().enumerate() {
                    let c = out.get(i).unwrap();
                    assert_eq!(*p, Vec3A::from(c.point_a));
                }
            }
        }
    };
}

#[cfg(feature = "glam033")]
glam_tests!(glam033);
#[cfg(feature = "glam034")]
glam_tests!(glam034);

#[cfg(feature = "mint")]
#[test]
fn mint_segments_round_trip_and_batches_match() {
    let segments = sample();
    let m: Vec<[mint::Point3<f32>; 2]> = segments.iter().map(|&s| s.into()).collect();
    for (s, p) in segments.iter().zip(&m) {
        assert_eq!(Segment::from(*p), *s);
    }
    assert_eq!(Segments::from(&m[..]), Segments::from(&segments));
    let flat = [Segment2::new([1.0, 2.0], [3.0, 4.0])];
    let m2: Vec<[mint::Point2<f32>; 2]> = flat.iter().map(|&s| s.into()).collect();
    assert_eq!(Segments2::from(&m2[..]), Segments2::from(&flat));
    let mp: Vec<mint::Point3<f32>> =
        rows(Segments::from(&segments).columns()[..3].try_into().unwrap()).collect();
    assert_eq!(mp[2], mint::Point3::from(segments[2].p0));
    let (mut engine, mut twin) = (Capsules::new(), Capsules::new());
    assert_eq!(engine.insert_all(&m, 0.5), twin.insert_all(&segments, 0.5));
    engine.set_all(&m).unwrap();
    assert_scenes_equal(&mut engine, &mut twin);
    let (mut one, mut twin) = (Capsules::new(), Capsules::new());
    for (p, s) in m.iter().zip(&segments) {
        assert_eq!(one.insert(*p, 0.5), twin.insert(*s, 0.5));
    }
    one.set(3, m[4]).unwrap();
    twin.set(3, segments[4]).unwrap();
    assert_scenes_equal(&mut one, &mut twin);
}
