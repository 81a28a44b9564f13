//! Conversions to and from the Rust geometry ecosystem: glam (one feature per glam version)
//! and `mint` (feature `mint`); [`rows`](crate::pairs::rows) reads any result's point
//! columns as any point type that converts from an array (`glam::Vec3`,
//! `mint::Point3<f32>`, `nalgebra::Point3`…).
//!
//! Points are `[f32; 3]` throughout the crate, which every math library converts from and
//! to, so single points need nothing here. What needs help is the pairs and the batches:
//!
//! - a [`Segment`] from and to `[Vec3; 2]`, `[Vec3A; 2]` or `[mint::Point3<f32>; 2]`; a
//!   [`Segment2`] from and to `[Vec2; 2]` or `[mint::Point2<f32>; 2]`;
//! - batches from slices of those: `&[[Vec3; 2]]` has the layout of `&[Segment]` and is
//!   cast, not converted (one transposing pass into the columns, as from `&[Segment]`);
//!   `Vec3A` (16 bytes, what bevy stores) and mint types are converted element by element
//!   in the same pass.
//!
//! glam's types are distinct from one version to the next, and an engine passes its own
//! `Vec3` around, so each glam version an engine uses today has its feature, as nalgebra's
//! `convert-glam0NN` features do: `glam033` (glam 0.33, the one parry3d 0.31 depends on) and
//! `glam034` (glam 0.34; `glam` is `glam033`, the glam of parry3d 0.31 and rapier). A build compiles only the glam it
//! already has, and several features may be on together. The conversions are written once,
//! by a macro over the versions, so every version gets the same impls.
//!
//! ```
//! # macro_rules! example { ($glam:ident) => {{ use $glam as glam;
//! use glam::{Vec3, Vec3A};
//! use segbatch::{closest_points, Segment, Segments};
//! use segbatch::pairs::rows;
//! let walls: Vec<[Vec3A; 2]> = vec![[Vec3A::new(2.0, -1.0, 0.0), Vec3A::new(2.0, 1.0, 0.0)]];
//! let paths: Vec<[Vec3; 2]> = vec![[Vec3::ZERO, Vec3::X * 4.0]];
//! let out = closest_points(&Segments::from(&paths[..]), &Segments::from(&walls[..]));
//! let hit: Vec<Vec3> = rows(out.point_a()).collect();
//! assert_eq!(hit, vec![Vec3::new(2.0, 0.0, 0.0)]);
//! let back: [Vec3; 2] = Segment::from(paths[0]).into();
//! assert_eq!(back, paths[0]);
//! # }}}
//! # #[cfg(feature = "glam033")] example!(glam033);
//! # #[cfg(feature = "glam034")] example!(glam034);
//! ```

#[cfg(any(feature = "glam033", feature = "glam034", feature = "mint"))]
use crate::batch::Segments;
#[cfg(any(feature = "glam033", feature = "glam034", feature = "mint"))]
use crate::planar::{Segment2, Segments2};
#[cfg(any(feature = "glam033", feature = "glam034", feature = "mint"))]
use crate::segment::Segment;

/// `From` impls between a segment type and pairs of points of another library.
#[cfg(any(feature = "glam033", feature = "glam034", feature = "mint"))]
macro_rules! pairs_of {
    ($segment:ty, $point:ty) => {
        impl From<[$point; 2]> for $segment {
            fn from([p0, p1]: [$point; 2]) -> Self {
                <$segment>::new(p0.into(), p1.into())
            }
        }

        impl From<$segment> for [$point; 2] {
            fn from(s: $segment) -> Self {
                [s.p0.into(), s.p1.into()]
            }
        }
    };
}

/// `From` a slice of pairs of points to a batch, converting element by element (for point
/// types whose layout is not the segment's).
#[cfg(any(feature = "glam033", feature = "glam034", feature = "mint"))]
macro_rules! slices_of {
    ($segment:ty, $batch:ty, $point:ty) => {
        impl From<&[[$point; 2]]> for $batch {
            fn from(pairs: &[[$point; 2]]) -> Self {
                pairs.iter().map(|&pair| <$segment>::from(pair)).collect()
            }
        }
    };
}

/// The glam conversions for one glam version: `glam_version!(glam crate, module)`.
#[cfg(any(feature = "glam033", feature = "glam034"))]
macro_rules! glam_version {
    ($glam:ident, $module:ident) => {
        mod $module {
            use super::{Segment, Segment2, Segments, Segments2};
            use ::$glam::{Vec2, Vec3, Vec3A};

            pairs_of!(Segment, Vec3);
            pairs_of!(Segment, Vec3A);
            pairs_of!(Segment2, Vec2);
            // `Vec3A` is 16 bytes with a padding lane: converted element by element.
            slices_of!(Segment, Segments, Vec3A);

            impl From<&[[Vec3; 2]]> for Segments {
                /// Cast to `&[Segment]` (the same layout), then the one transposing pass.
                fn from(pairs: &[[Vec3; 2]]) -> Self {
                    Segments::from(bytemuck::cast_slice::<[Vec3; 2], Segment>(pairs))
                }
            }

            impl From<&[[Vec2; 2]]> for Segments2 {
                /// Cast to `&[Segment2]` (the same layout), then the one transposing pass.
                fn from(pairs: &[[Vec2; 2]]) -> Self {
                    Segments2::from(bytemuck::cast_slice::<[Vec2; 2], Segment2>(pairs))
                }
            }
        }
    };
}

#[cfg(feature = "glam033")]
glam_version!(glam033, glam033_impls);
#[cfg(feature = "glam034")]
glam_version!(glam034, glam034_impls);

#[cfg(feature = "mint")]
mod mint_impls {
    use super::{Segment, Segment2, Segments, Segments2};

    pairs_of!(Segment, mint::Point3<f32>);
    pairs_of!(Segment2, mint::Point2<f32>);
    slices_of!(Segment, Segments, mint::Point3<f32>);
    slices_of!(Segment2, Segments2, mint::Point2<f32>);
}
